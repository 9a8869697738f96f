# Contract tests of `ppbench ls`: past results newest first, one line each
# (runs, repeats as one line, sweeps old- and new-named, partial folders),
# --json, --kind, and --clean removing only the stale temporary folders.
# Runs on empty image files with test ops (no decoding): a few seconds.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
SYNTH=$top/tests/fixtures/pipelines/synth.pipe
ds=$TMP/ls_ds
R=$TMP/ls_results
mkdir -p "$ds/c0" "$R"
for i in $(seq 10 25); do : >"$ds/c0/x$i.jpg"; done
run=(--data "$ds" --pipeline "$SYNTH" --gpu-step 0 --batch 4 --out "$R")

check_cli "ls --help" 0 'ppbench ls \[DIR\]' -- ls --help
check_cli "ls of an empty folder" 0 "^no results in" -- ls "$R"
check_cli "refused: a missing folder" 1 "cannot list '$TMP/none'" -- ls "$TMP/none"
check_cli "refused: two folders" 2 "one folder at most" -- ls "$R" "$R"
check_cli "refused: an unknown kind" 2 "^ppbench: error: --kind: 'x' is not one of" -- ls --kind x "$R"
check_cli "refused: --dry-run alone" 2 "goes with --clean" -- ls --dry-run "$R"

"$PPBENCH" run "${run[@]}" --workers 2 --repeat 2 --tag rep >/dev/null 2>&1
sleep 1
"$PPBENCH" run "${run[@]}" --workers 1 --tag one >/dev/null 2>&1
one=$(ls -d "$R"/*-one | head -1)
# an older run kept partial, an old-style and a new-style sweep, a folder of sweeps
cp -r "$one" "$R/20261101-090000-old.partial"
cp -r "$top/tests/fixtures/merge/sweep-node-skx" "$R/sweep-20261102-101010-oldname"
cp -r "$top/tests/fixtures/merge/sweep-node-icx" "$R/20261103-101010-sweep-newname"
sed -i '0,/"status": "ok"/s//"status": "pending"/' "$R/20261103-101010-sweep-newname/sweep.json"
mkdir -p "$R/20261104-000000-reproduce"
cp -r "$top/tests/fixtures/merge/sweep-node-val" "$R/20261104-000000-reproduce/20261104-000001-sweep-grid"
# a noisy run: the noise guard's keys say so
cp -r "$one" "$R/20261105-000000-noisy"
sed -i 's/"noisy": false/"noisy": true/; s/"others_cpu_pct": [0-9.e+-]*/"others_cpu_pct": 55.0/' \
	"$R/20261105-000000-noisy/summary.json"
# temporary folders: one left by a killed run, one held by a live process;
# and things that are not ppbench's
mkdir "$R/.20261106-000000-killed.tmp" "$R/.20261106-000001-live.tmp" "$R/.mine.tmp" "$R/photos" \
	"$R/sweep-20261102-101010-oldname/runs/.20261102-101011-w9-b8-g1-r1.tmp"
: >"$R/.20261106-000002-file.tmp"
: >"$R/notes.txt"
flock "$R/.20261106-000001-live.tmp" sleep 30 &
holder=$!
sleep 0.5

out=$("$PPBENCH" ls "$R" 2>&1)
rc=$?
lines() { printf '%s\n' "$out" | grep -c -- "$1"; }
[ $rc -eq 0 ] && echo "ok - ls exits 0" || echo "not ok - ls exits $rc"
first=$(printf '%s\n' "$out" | sed -n 2p | awk '{print $1}')
case $first in *-one) echo "ok - newest first";; *) echo "not ok - newest first: $first";; esac
n=$(printf '%s\n' "$out" | tail -n +2 | awk '{print $3" "$4" "$1}' | sort -r | awk '{print $3}' | tr '\n' ' ')
m=$(printf '%s\n' "$out" | tail -n +2 | awk '{print $1}' | tr '\n' ' ')
[ "$n" = "$m" ] && echo "ok - sorted by time" || echo "not ok - sorted by time: $m"
[ "$(lines 'rep-r')" -eq 1 ] && echo "ok - repeats on one line" || echo "not ok - repeats on one line"
check "repeats: median and spread" sh -c "printf '%s\n' \"\$0\" | grep -- '-rep-r1 ' | grep -q 'min .*max .*n=2)'" "$out"
check "a run: its configuration" sh -c "printf '%s\n' \"\$0\" | grep -- '-one ' | grep -q 'run .*ls_ds .*w1 b4 g.* torch .*complete'" "$out"
check "partial folder: not complete" sh -c "printf '%s\n' \"\$0\" | grep -q 'old.partial .*partial'" "$out"
check "old-style sweep name listed with its time" sh -c "printf '%s\n' \"\$0\" | grep -q 'sweep-20261102-101010-oldname *sweep *2026-11-02 10:10'" "$out"
check "new-style sweep: incomplete, resumable" sh -c "printf '%s\n' \"\$0\" | grep -q 'sweep-newname .*incomplete: 3 of 4 runs ok (sweep --resume'" "$out"
check "sweep: best configuration" sh -c "printf '%s\n' \"\$0\" | grep -q 'oldname .*best: w'" "$out"
check "a folder of sweeps: its contents" sh -c "printf '%s\n' \"\$0\" | grep -q '^20261104-000000-reproduce/20261104-000001-sweep-grid '" "$out"
check "noise warning" sh -c "printf '%s\n' \"\$0\" | grep -q 'noisy .*noise: busy (others took 55 %'" "$out"
check "stale temporary folder" sh -c "printf '%s\n' \"\$0\" | grep -q 'killed.tmp .*stale'" "$out"
check "a killed sweep's temporary run folder" sh -c "printf '%s\n' \"\$0\" | grep -q '^sweep-20261102-101010-oldname/runs/.20261102-101011-w9-b8-g1-r1.tmp .*stale'" "$out"
check "held temporary folder: in progress" sh -c "printf '%s\n' \"\$0\" | grep -q 'live.tmp .*in progress'" "$out"
[ "$(lines 'photos\|notes\|mine')" -eq 0 ] && echo "ok - not ppbench's: not listed" || echo "not ok - not ppbench's: not listed"

# --json
"$PPBENCH" ls --json "$R" >"$TMP/ls.json" 2>&1
if python3 - "$TMP/ls.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
kinds = {e["kind"] for e in a}
assert {"run", "sweep", "tmp"} <= kinds, kinds
rep = [e for e in a if e["tag"] == "rep"][0]
assert rep["images_per_s"]["n"] == 2 and rep["complete"] is True, rep
assert (rep["workers"], rep["batch_size"], rep["policy"]) == (2, 4, "torch"), rep
assert [e["time_utc"] for e in a] == sorted((e["time_utc"] for e in a), reverse=True)
assert [e for e in a if e["folder"].endswith("killed.tmp")][0]["stale"] is True
EOF
then echo "ok - --json: kinds, repeats, order, stale"; else echo "not ok - --json"; fi
check "--json: a sweep's pipeline, from its runs" sh -c "\"$PPBENCH\" ls --kind sweep --json '$R' |
	grep -q '\"pipeline\": \"imagenet_train\"' && ! \"$PPBENCH\" ls --kind sweep --json '$R' | grep -q '\"pipeline\": null'"
check_cli "--kind sweep: only sweeps" 0 "" -- ls --kind sweep "$R"
n=$("$PPBENCH" ls --kind sweep "$R" | tail -n +2 | grep -vc ' sweep ')
[ "$n" -eq 0 ] && echo "ok - --kind sweep lists sweeps only" || echo "not ok - --kind sweep: $n others"

# --clean: only the stale temporary folder goes
check_cli "--clean --dry-run names it" 0 "would remove .*killed.tmp" -- ls --clean -n "$R"
check "--dry-run removes nothing" test -d "$R/.20261106-000000-killed.tmp"
check_cli "--clean removes them" 0 "^removed .*killed.tmp$" -- ls --clean "$R"
check "stale folders gone" sh -c "test ! -e '$R/.20261106-000000-killed.tmp' &&
	test ! -e '$R/sweep-20261102-101010-oldname/runs/.20261102-101011-w9-b8-g1-r1.tmp'"
check "held folder kept" test -d "$R/.20261106-000001-live.tmp"
check "other things kept" sh -c "test -d '$R/.mine.tmp' && test -f '$R/.20261106-000002-file.tmp' && test -d '$R/photos' && test -f '$R/notes.txt'"
check "results kept" sh -c "test -d '$one' && test -d '$R/20261101-090000-old.partial'"
check_cli "--clean again: nothing to do" 0 "no stale temporary folders" -- ls --clean "$R"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null || true

# a compare with repeats: ls gives the figures compare.md gives (the medians
# over the repeats), not repeat 1's
C=$TMP/ls_cmp
mkdir -p "$C/20261107-000000-compare-rep"
cd_=$C/20261107-000000-compare-rep
cp -r "$one" "$cd_/ppbench"
cp -r "$one" "$cd_/pytorch"
sed -i 's/"images_per_s": [0-9.e+-]*/"images_per_s": 172.8/' "$cd_/ppbench/summary.json"
sed -i 's/"images_per_s": [0-9.e+-]*/"images_per_s": 69.2/' "$cd_/pytorch/summary.json"
: >"$cd_/compare.md"
cat >"$cd_/compare.json" <<'EOF2'
{"repeats": 3, "metrics": [
 {"metric": "e2e_s", "unit": "s", "ppbench": [1, 2, 3], "pytorch": [4, 5, 6]},
 {"metric": "images_per_s", "unit": "images/s", "ppbench": [172.8, 171.0, 150.5],
  "pytorch": [69.2, 59.3, 50.1]}]}
EOF2
out=$("$PPBENCH" ls "$C" 2>&1)
check "compare: the median over the repeats, as compare.md" sh -c "printf '%s\n' \"\$0\" |
	grep -q 'compare .* 171 (min 150, max 173, n=3) (ppbench; PyTorch 59.3 (min 50.1, max 69.2, n=3))'" "$out"
check "compare: not repeat 1's figure" sh -c "! printf '%s\n' \"\$0\" | grep -q '172.8'" "$out"

# a make reproduce folder: its own line, done or how to finish it
P=$TMP/ls_rep
mkdir -p "$P/20261108-000000-reproduce" "$P/20261109-000000-reproduce"
: >"$P/20261108-000000-reproduce/reproduce.args"
: >"$P/20261109-000000-reproduce/reproduce.args"
: >"$P/20261109-000000-reproduce/report.md"
out=$("$PPBENCH" ls "$P" 2>&1)
check "reproduce: an unfinished folder is listed, with how to finish it" sh -c "printf '%s\n' \"\$0\" |
	grep -q '^20261108-000000-reproduce *reproduce .*incomplete: make reproduce RESUME=.*finishes it'" "$out"
check "reproduce: a finished one is complete" sh -c "printf '%s\n' \"\$0\" |
	grep -q '^20261109-000000-reproduce *reproduce .*complete: report.md'" "$out"
check_cli "--kind reproduce" 0 "20261108-000000-reproduce" -- ls --kind reproduce "$P"
