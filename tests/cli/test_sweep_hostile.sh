# A sweep folder from a hostile or damaged source: report, ls and
# sweep --resume read every file checked, write nothing outside the folder,
# and say which file they could not read (issue 21, items 2, 4, 12, 14, 16).
# Every case starts from a copy of the stored two-run sweep
# (tests/fixtures/sweep/tiny: 2 runs ok, 1 failed, 1 not run).
. "$(dirname "$0")/lib.sh"

need jq || exit 1
top=$(cd "$(dirname "$0")/../.." && pwd)
fresh() {   # fresh NAME: a copy of the fixture in $TMP/NAME, its path on stdout
	rm -rf "$TMP/hs-$1"
	cp -r "$top/tests/fixtures/sweep/tiny" "$TMP/hs-$1"
	echo "$TMP/hs-$1"
}
run1() { ls -d "$1"/runs/*-w1-b8-g1-r1; }
edit() {   # edit FILE JQ-FILTER
	jq "$2" "$1" >"$1.new" && mv "$1.new" "$1"
}

# ---- item 2: a skipped file is listed by its path and reason ---------------
S=$(fresh skipped)
edit "$(run1 "$S")/summary.json" '.skipped = {"count": 1, "files": [{"path": "/data/c0/bad.JPEG", "reason": "not a JPEG or PNG"}]}'
"$PPBENCH" report "$S" >/dev/null 2>&1
check "report: a skipped file listed by its path and reason" \
	grep -q '^- /data/c0/bad.JPEG: not a JPEG or PNG (run w1-b8-g1-r1)$' "$S/report.md"
check "report: no (null) among the skipped files" sh -c "! grep -q '(null)' '$S/report.md' '$S/report.html'"

# ---- item 12: markup and newlines from results files are escaped -----------
S=$(fresh markup)
edit "$S/sweep.json" '.runs[0].tag = "w1<script>alert(1)</script>" | .runs[0].run_dir = ""'
edit "$(run1 "$S")/summary.json" '.skipped = {"count": 1, "files": [{"path": "<img src=x onerror=alert(1)>.jpg", "reason": "a & b"}]}'
edit "$S/sweep.json" '.runs[1].run_dir = "'"runs/$(basename "$(run1 "$S")")"'"'
M="$TMP/hs-markup-nl
| injected | row |"
rm -rf "$M"
mv "$S" "$M"
"$PPBENCH" report "$M" >/dev/null 2>&1
check "report.md: no raw <script> or <img" sh -c "! grep -q '<script\|<img' '$M/report.md'"
check "report.md: the tag's markup as entities" grep -q 'w1&lt;script&gt;alert(1)&lt;/script&gt;' "$M/report.md"
check "report.md: the file name's markup and & as entities" \
	grep -q '&lt;img src=x onerror=alert(1)&gt;.jpg: a &amp; b' "$M/report.md"
check "report.md: a newline in the folder name stays in the heading" \
	sh -c "head -1 '$M/report.md' | grep -q 'hs-markup-nl\\\\x0a| injected | row |' && ! grep -q '^| injected | row |' '$M/report.md'"
check "report.html: no raw <script> or <img" sh -c "! grep -q '<script\|<img' '$M/report.html'"

# ---- item 14: an unreadable summary.json or batches.csv is named -----------
S=$(fresh unreadable)
echo '[]' >"$(run1 "$S")/summary.json"
out=$("$PPBENCH" report "$S" 2>&1)
check "report of a sweep with a summary.json of [] still writes the report" test -s "$S/report.md"
check "report: the run is unreadable, not ok" grep -q '^| w1-b8-g1-r1 | unreadable |' "$S/report.md"
check "report: the file and the reason are named" \
	grep -q '^- w1-b8-g1-r1: unreadable: runs/.*-w1-b8-g1-r1/summary.json: not a JSON object' "$S/report.md"
check "summary.csv: status unreadable, the problem named" \
	sh -c "grep -q ',unreadable,.*summary.json: not a JSON object' '$S/summary.csv'"
lsout=$("$PPBENCH" ls "$TMP" 2>&1 | grep 'hs-unreadable')
check "ls: not 'complete' when a summary cannot be read" \
	sh -c "printf '%s\n' \"\$0\" | grep -q 'incomplete: 1 of 4 runs ok.*a file that cannot be read'" "$lsout"
S=$(fresh truncated)
f=$(run1 "$S")/summary.json
head -c 300 "$f" >"$f.cut" && mv "$f.cut" "$f"
"$PPBENCH" report "$S" >/dev/null 2>&1
check "report: a truncated summary.json is named, with the parser's line" \
	grep -Eq '^- w1-b8-g1-r1: unreadable: runs/.*/summary.json: line [0-9]+: ' "$S/report.md"
S=$(fresh batches)
b=$(run1 "$S")/batches.csv
printf '0,0,1\ngarbage\n' >>"$b"
"$PPBENCH" report "$S" >/dev/null 2>&1
check "report: a corrupt batches.csv is named, the run kept ok" \
	sh -c "grep -q '^- w1-b8-g1-r1: a file of it cannot be read: runs/.*/batches.csv: row 4 has 3 of 14 fields' '$S/report.md' &&
	grep -q '^| w1-b8-g1-r1 | ok, a file unreadable |' '$S/report.md'"
lsout=$("$PPBENCH" ls "$TMP" 2>&1 | grep 'hs-batches')
check "ls: a sweep with a corrupt batches.csv says so" \
	sh -c "printf '%s\n' \"\$0\" | grep -q 'a file that cannot be read'" "$lsout"
S=$(fresh fifo)
f=$(run1 "$S")/summary.json
rm -f "$f" && mkfifo "$f"
check "report: a FIFO named summary.json is not read (no hang)" timeout 60 "$PPBENCH" report "$S"
check "and is named" grep -q 'summary.json: not a regular file' "$S/report.md"

# ---- item 4: values of sweep.json are checked before they reach a path -----
# (a dataset that exists, so that a resume would get as far as the run)
"$PPBENCH" dataset generate --out "$TMP/hs-ds" --images 8 --classes 2 --quiet >/dev/null 2>&1 ||
	echo "not ok - generate the tiny dataset"
S=$(fresh escape)
edit "$S/sweep.json" '.data = "'"$TMP/hs-ds"'" | .runs[3].tag = "../../../X-escaped" | .runs[3].status = "pending"'
check_cli "sweep --resume refuses a tag that leaves the folder (exit 1, as any sweep.json it cannot use)" 1 \
	"sweep.json: run 4: tag '../../../X-escaped' is not a plain name.*nothing ran" -- sweep --resume "$S" --no-report
check "nothing was made outside the sweep folder" \
	sh -c "! ls '$TMP'/X-escaped* '$S'/../X-escaped* '$S'/../../X-escaped* >/dev/null 2>&1 && test ! -e '$S/logs/../../../X-escaped.log'"
check "and no run was started" test "$(ls "$S/runs" | wc -l)" -eq 2
"$PPBENCH" report "$S" >/dev/null 2>&1
check "report: the bad entry is named and left out" \
	grep -q "sweep.json: run 4: tag '../../../X-escaped' is not a plain name" "$S/report.md"
S=$(fresh rundir)
edit "$S/sweep.json" '.runs[0].run_dir = "../../../etc"'
"$PPBENCH" report "$S" >/dev/null 2>&1
check "report: a run_dir outside runs/ is not read" \
	grep -q "run_dir '../../../etc' is not a folder of the sweep's runs/" "$S/report.md"
S=$(fresh runargs)
edit "$S/sweep.json" '.run_args = ["--out=/tmp"]'
check_cli "sweep --resume refuses run_args that set --out" 1 "run_args\[0\] .* is '--out=/tmp', which the sweep sets itself" \
	-- sweep --resume "$S" --no-report

# ---- item 16: concurrent reports of one sweep all succeed (before: about half
# of six failed, "cannot write summary.csv" or "report.md") --------------------
S=$(fresh concurrent)
pids=
for k in 1 2 3 4 5 6; do
	"$PPBENCH" report "$S" >"$TMP/hs-conc-$k.out" 2>&1 &
	pids="$pids $!"
done
bad=0
for p in $pids; do wait "$p" || bad=$((bad + 1)); done
check "six concurrent reports of one sweep all succeed ($bad failed)" test "$bad" -eq 0
check "none says it cannot write" sh -c "! grep -q 'cannot' '$TMP'/hs-conc-*.out"
check "no temporary file left" sh -c "! ls -a '$S' | grep -q 'tmp'"
