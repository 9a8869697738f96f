#!/usr/bin/env bash
# Man pages from ppbench's own --help (itself printed from each command's
# option table): ppbench.1 and ppbench-<command>.1 in OUTDIR.
#   scripts/gen-man.sh PPBENCH OUTDIR
set -eu
ppbench=$1 out=$2
mkdir -p "$out"
version=$("$ppbench" version | awk '{print $2}')
date=$(date -u +%Y-%m-%d)

# roff: escape backslashes and leading dots/quotes of a line
esc() { sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/'; }

# page NAME SUMMARY HELP_TEXT
page() {
	local name=$1 summary=$2 help=$3 up
	up=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
	{
		printf '.TH %s 1 "%s" "ppbench %s" "ppbench manual"\n' "$up" "$date" "$version"
		printf '.SH NAME\n%s \\- %s\n' "$name" "$(printf '%s' "$summary" | esc)"
		# the usage lines, then the description, then options / exit codes
		printf '%s\n' "$help" | awk '
			BEGIN { sect = "SYNOPSIS"; print ".SH SYNOPSIS"; print ".nf" }
			/^usage: / { sub(/^usage: /, ""); print; next }
			sect == "SYNOPSIS" && /^       / { sub(/^ +/, ""); print; next }
			sect == "SYNOPSIS" && /^$/ { print ".fi"; print ".SH DESCRIPTION"; sect = "DESC"; next }
			/^options:$/ { print ".SH OPTIONS"; sect = "OPT"; next }
			/^commands:$/ { print ".SH COMMANDS"; sect = "OPT"; next }
			/^exit codes/ { print ".SH EXIT STATUS"; print ".nf"; sect = "EXIT"; next }
			sect == "OPT" && /^ +[-a-z]/ {
				line = $0
				sub(/^ +/, "", line)
				if (match(line, /  +/)) {
					print ".TP"; print substr(line, 1, RSTART - 1)
					print substr(line, RSTART + RLENGTH)
				} else { print ".TP"; print line }
				next
			}
			sect == "OPT" && /^ {5,}/ { sub(/^ +/, ""); print; next }
			/^$/ { if (sect == "DESC") print ".PP"; else if (sect != "EXIT") print ""; next }
			{ print }
			END { if (sect == "SYNOPSIS" || sect == "EXIT") print ".fi" }
		' | esc_body
		printf '.SH SEE ALSO\n'
		if [ "$name" = ppbench ]; then
			printf '%s\n' "$cmds" | sed 's/^\(.*\)$/.BR ppbench-\1 (1)/' | paste -sd, - | sed 's/,/,\n/g'
		else
			printf '.BR ppbench (1)\n'
		fi
	} >"$out/$name.1"
}
# the body is roff already except for user text: escape backslashes only
esc_body() { sed -e 's/\\\([^e&]\)/\\e\1/g'; }

top_help=$("$ppbench" --help)
cmds=$(printf '%s\n' "$top_help" | sed -n '/^commands:/,/^$/p' | awk 'NF && !/^commands:/ {print $1}')
page ppbench "a benchmark of CPU-side ML preprocessing (the Lotus study in C)" "$top_help"
printf '%s\n' "$cmds" | while read -r c; do
	summary=$(printf '%s\n' "$top_help" | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
	if [ "$c" = dataset ]; then
		help=$("$ppbench" dataset generate --help; echo; "$ppbench" dataset describe --help | sed 1,2d)
	else
		help=$("$ppbench" "$c" --help 2>&1)
	fi
	page "ppbench-$c" "$summary" "$help"
done
