# bash completion for ppbench: commands, and each command's options as the
# options section of its --help lists them (printed from the command's
# option table, so the two never disagree: tests/cli/test_conventions.sh
# checks it). Installed by `make install` into
# $PREFIX/share/bash-completion/completions/ppbench; or: source this file.

# The options of `ppbench ARGS --help`: the first --name of each option line
# ("  -w, --workers W ..." or "      --gpu-step TIME ...") of its options
# sections, never a --word of the text around them.
_ppbench_options() {
	"$@" --help 2>/dev/null | awk '
		/^options( of [a-z]+)?:$/ { on = 1; next }
		on && NF == 0 { on = 0; next }
		on && match($0, /^  (-[A-Za-z], )?--[a-z][a-z0-9-]*|^      --[a-z][a-z0-9-]*/) {
			s = substr($0, RSTART, RLENGTH); sub(/.*--/, "--", s)
			if (s !~ /-$/) print s   # not "--no-NAME": a placeholder
		}'
}

_ppbench() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]:-} bin=${COMP_WORDS[0]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null |
			awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')" -- "$cur"))
		return
	fi
	local sub=""
	[ "$cmd" = dataset ] && [ "$COMP_CWORD" -ge 3 ] && sub=${COMP_WORDS[2]}
	if [ "$cmd" = dataset ] && [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "generate describe default" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		local opts
		opts=$(_ppbench_options "$bin" "$cmd" $sub)
		# a sweep, compare and bottleneck pass run's options on to every run
		case $cmd in
		sweep | compare | bottleneck) opts="$opts $(_ppbench_options "$bin" run)" ;;
		esac
		COMPREPLY=($(compgen -W "$(printf '%s\n' $opts | sort -u)" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _ppbench ppbench
