# The fuzz harnesses' stored inputs, replayed once each (FUZZING.md): the
# seed corpus and every crasher found so far (tests/fuzz/crashers/NAME),
# under the build's sanitizers. No afl needed; `make fuzz` finds new ones.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(dirname "$PPBENCH")/fuzz
for src in "$top"/tests/fuzz/fuzz_*.c; do
	h=$(basename "$src" .c)
	h=${h#fuzz_}
	if [ ! -x "$bin/replay_$h" ]; then
		echo "not ok - fuzz $h: no replay driver $bin/replay_$h (make check builds it)"
		continue
	fi
	inputs=("$top/tests/fuzz/corpus/$h")
	[ -d "$top/tests/fuzz/crashers/$h" ] && inputs+=("$top/tests/fuzz/crashers/$h")
	# a hang found once must not hang the suite: 120 s for all of a harness's inputs
	if out=$(timeout 120 "$bin/replay_$h" "${inputs[@]}" 2>"$TMP/fuzz_$h.err"); then
		n=${out% inputs}
		if [ "$n" -gt 0 ] 2>/dev/null; then echo "ok - fuzz $h: $n stored inputs replayed cleanly"
		else echo "not ok - fuzz $h: no stored input ($out)"; fi
	else
		echo "not ok - fuzz $h: $(grep '^replay: ' "$TMP/fuzz_$h.err" | tail -1 | cut -c9-) failed"
		grep -v '^replay: ' "$TMP/fuzz_$h.err" | head -20 | sed 's/^/#   /'
	fi
done
