# bash completion for ppbench: commands, and each command's options as its
# --help lists them (printed from the command's option table, so the two
# never disagree). Installed by `make install` into
# $PREFIX/share/bash-completion/completions/ppbench; or: source this file.
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
		opts=$("$bin" "$cmd" $sub --help 2>/dev/null | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' |
			sed 's/^[ ,]*//' | sort -u)
		# a sweep passes run's options on to every run
		[ "$cmd" = sweep ] || [ "$cmd" = compare ] || [ "$cmd" = bottleneck ] &&
			opts="$opts $("$bin" run --help 2>/dev/null | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' | sed 's/^[ ,]*//')"
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _ppbench ppbench
