#!/bin/sh
# The name nearest to WORD among NAMES, as ppbench's nearest_name does for
# options and commands (bench/util/conventions.c): a few edits (insert,
# delete, replace, swap two neighbours; 1 for words of up to 4 characters,
# else up to a third), or a prefix of it; letters compared without case.
# Prints nothing when no name is that near.
#   scripts/nearest-name.sh WORD NAME...   (the Makefile's unknown variables)
word=$1
shift
printf '%s\n' "$@" | awk -v w="$word" '
function dist(a, b,    i, j, la, lb, d, best, ca, cb) {
	la = length(a); lb = length(b)
	for (i = 0; i <= la; i++) d[i, 0] = i
	for (j = 0; j <= lb; j++) d[0, j] = j
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			ca = substr(a, i, 1); cb = substr(b, j, 1)
			best = d[i - 1, j - 1] + (ca != cb)
			if (d[i - 1, j] + 1 < best) best = d[i - 1, j] + 1
			if (d[i, j - 1] + 1 < best) best = d[i, j - 1] + 1
			if (i > 1 && j > 1 && ca == substr(b, j - 1, 1) && substr(a, i - 1, 1) == cb &&
			    d[i - 2, j - 2] + 1 < best)
				best = d[i - 2, j - 2] + 1
			d[i, j] = best
		}
	return d[la, lb]
}
BEGIN { lw = toupper(w); n = length(w); limit = n <= 4 ? 1 : int(n / 3) + 1; bd = -1 }
NF {
	d = dist(lw, toupper($0))
	if (d > limit && n >= 3 && index(toupper($0), lw) == 1) d = limit
	if (d <= limit && (bd < 0 || d < bd)) { bd = d; best = $0 }
}
END { if (bd >= 0) print best }'
