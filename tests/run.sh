#!/usr/bin/env bash
# Runs every test: the cmocka unit tests in BUILD/tests/ and the command-line
# contract tests in tests/cli/. Ends with the line "N passed, N failed".
# usage: tests/run.sh BUILD_DIR (e.g. build/san)
set -u
build=${1:?usage: tests/run.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export PPBENCH="$top/$build/ppbench"
export PPBENCH_TEST_TMP=$(mktemp -d /tmp/ppbench-test.XXXXXX)
trap 'rm -rf "$PPBENCH_TEST_TMP"' EXIT
passed=0 failed=0 skipped=0
log=$PPBENCH_TEST_TMP/log
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	start=$(date +%s.%N)
	"$t" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	s=$(grep -c '^\[  SKIPPED \]' "$log")
	p=${p:-0} f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed or sanitizer abort
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-28s %3d passed %3d failed %3d skipped  %5.1fs\n' "$name" "$p" "$f" "$s" \
		"$(echo "$(date +%s.%N) - $start" | bc)"
	if [ "$f" -ne 0 ]; then sed 's/^/    /' "$log" | tail -40; fi
done
for t in tests/cli/test_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	start=$(date +%s.%N)
	bash "$t" >"$log" 2>&1
	rc=$?
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^skip ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "    (exited $rc)"; fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-28s %3d passed %3d failed %3d skipped  %5.1fs\n' "$name" "$p" "$f" "$s" \
		"$(echo "$(date +%s.%N) - $start" | bc)"
	grep -E '^(not ok|skip) ' "$log" | sed 's/^/    /'
	if [ "$f" -ne 0 ]; then grep -v '^ok ' "$log" | sed 's/^/    /' | tail -40; fi
done
echo
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
