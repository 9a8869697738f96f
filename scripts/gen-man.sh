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
			/^options of [a-z]+:$/ {
				if (!opts) print ".SH OPTIONS"
				opts = 1; sub(/:$/, ""); print ".SS " $0; sect = "OPT"; next
			}
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
		if [ "$name" = ppbench ]; then
			printf '%s\n' "$environment"
		fi
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

# what ppbench reads from its environment, and the one file it makes by itself
environment='.SH ENVIRONMENT
.TP
PPBENCH_CACHE
where the default datasets are made on first use (default: datasets/cache/ of
the source tree ppbench runs from, else $XDG_CACHE_HOME/ppbench, else
~/.cache/ppbench): 2000 images, about 230 MB for the imagenet profile, 120 MB
for photos (ppbench-dataset(1), "dataset default")
.TP
PPBENCH_DATA
the default dataset itself: a folder of your own, used when --data is not given
.TP
PPBENCH_KERNEL
sse2, avx2, avx512 or auto: the kernels the ops run (default: auto, from the CPU)
.TP
PPBENCH_FORCE_NO_PMU
1: count software events only, as on a machine without a hardware PMU
.SH FILES
.TP
~/.cache/ppbench/default
the default dataset of an installed ppbench, made the first time a command
needs it (see PPBENCH_CACHE)'

top_help=$("$ppbench" --help)
cmds=$(printf '%s\n' "$top_help" | sed -n '/^commands:/,/^$/p' | awk 'NF && !/^commands:/ {print $1}')
page ppbench "a benchmark of CPU-side ML preprocessing (the Lotus study in C)" "$top_help"
printf '%s\n' "$cmds" | while read -r c; do
	summary=$(printf '%s\n' "$top_help" | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
	help=$("$ppbench" "$c" --help 2>&1)
	page "ppbench-$c" "$summary" "$help"
done
