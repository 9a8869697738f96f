# CI runs the README's test command with the oracle; the golden fixtures
# still match the scripts that make them (scripts/
# fixtures_*.py, Debian's python3-torch/-torchvision/-pil): each script is
# run in a scratch copy and every file it writes must equal the committed
# one byte for byte. fixtures_compare.py (it runs ppbench compare) is left
# out: its fixture is checked by test_compare.sh. Skipped only without the
# oracle (scripts/install-deps.sh --oracle installs it; CI does).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
# CI runs the README's test command, with the oracle
cmd=$(tail -1 "$top/.ci/run")
check "README's test command is .ci/run's ($cmd)" grep -Fxq "$cmd" "$top/README.md"
check "CI installs the oracle" grep -q -- "--oracle" <<<"$cmd"
if ! /usr/bin/python3 -c 'import torch, torchvision, PIL, numpy' 2>/dev/null; then
	skip "fixtures match their scripts" "no oracle: python3-torch is not installed for /usr/bin/python3 (scripts/install-deps.sh --oracle)"
	exit 0
fi
w=$TMP/fixtures_regen
mkdir -p "$w/tests/fixtures"
cp -r "$top/scripts" "$w/"
for s in decode geometry loader topology; do
	: >"$TMP/fix_$s.stamp"
	if ! (cd "$w" && /usr/bin/python3 "scripts/fixtures_$s.py" >"$TMP/fix_$s.log" 2>&1); then
		echo "not ok - scripts/fixtures_$s.py runs"; tail -5 "$TMP/fix_$s.log" | sed 's/^/#   /'
		continue
	fi
	n=0 bad=0
	while IFS= read -r f; do
		n=$((n + 1))
		rel=${f#"$w"/}
		if ! cmp -s "$f" "$top/$rel"; then
			bad=$((bad + 1))
			[ "$bad" -le 3 ] && echo "#   differs or missing: $rel"
		fi
	done < <(find "$w/tests/fixtures" -type f -newer "$TMP/fix_$s.stamp")
	if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then echo "ok - scripts/fixtures_$s.py remakes its $n files byte for byte"
	else echo "not ok - scripts/fixtures_$s.py: $bad of $n files differ from the committed ones"; fi
done
