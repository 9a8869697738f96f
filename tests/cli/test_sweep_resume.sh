# sweep --resume chooses the runs to redo: every run not ok (failed,
# incomplete, pending), in plan order, and no ok run. A four-run sweep is
# made, then its sweep.json says run 2 failed, run 3 was incomplete and run 4
# is pending (as a sweep killed during it leaves it); the resume must run
# exactly those three and leave run 1 (ok) as it was: its folder, its
# summary.json, its log.
. "$(dirname "$0")/lib.sh"

DS=$TMP/resume-ds
OUT=$TMP/resume-out
"$PPBENCH" dataset generate --out "$DS" --images 16 --classes 2 --quiet >/dev/null 2>&1 ||
	{ echo "not ok - generate the tiny dataset"; exit 1; }
check_cli "a sweep of four runs" 0 "" -- sweep --data "$DS" --pipeline null --workers "1 2 3 4" \
	--batch 4 --gpus 1 --max-batches 1 --gpu-step 0 --out "$OUT" --tag rs --no-report
S=$(ls -d "$OUT"/*-sweep-rs 2>/dev/null | head -1)
runs() {   # the status and run_dir of each run, one line each
	python3 -c "import json,sys
for r in json.load(open(sys.argv[1]))['runs']: print(r['tag'], r['status'], r['run_dir'])" "$S/sweep.json"
}
check "four runs ok" test "$(runs | awk '{print $2}' | tr '\n' ' ')" = "ok ok ok ok "
before=$(runs)
dir1=$(runs | awk 'NR == 1 {print $3}')
sum1=$(md5sum <"$S/$dir1/summary.json")
log1=$(md5sum <"$S/logs/w1-b4-g1-r1.log")
nbefore=$(ls "$S/runs" | wc -l)
python3 - "$S/sweep.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
r = d['runs']
r[1].update(status='failed', exit_code=1)
r[2].update(status='incomplete')
r[3].update(status='pending', run_dir='')
for k in ('exit_code', 'images_per_s', 'wall_s', 'finished_utc'):
    r[3].pop(k, None)
json.dump(d, open(p, 'w'), indent=2)
PY
check_cli "resume: the failed, incomplete and pending runs to do" 0 "3 runs to do \(resumed\)" -- \
	sweep --resume "$S" --no-report
after=$(runs)
check "all four ok after the resume" test "$(runs | awk '{print $2}' | tr '\n' ' ')" = "ok ok ok ok "
check "the ok run was not redone: the same folder" test "$(runs | awk 'NR == 1 {print $3}')" = "$dir1"
check "the ok run was not redone: its summary.json unchanged" test "$(md5sum <"$S/$dir1/summary.json")" = "$sum1"
check "the ok run was not redone: its log unchanged" test "$(md5sum <"$S/logs/w1-b4-g1-r1.log")" = "$log1"
for n in 2 3; do
	old=$(printf '%s\n' "$before" | awk -v n=$n 'NR == n {print $3}')
	new=$(printf '%s\n' "$after" | awk -v n=$n 'NR == n {print $3}')
	check "run $n was redone: a new folder ($new)" test -n "$new" -a "$new" != "$old" -a -s "$S/$new/summary.json"
done
check "run 4 (pending) was run" test -s "$S/$(runs | awk 'NR == 4 {print $3}')/summary.json"
check "exactly three new run folders" test "$(ls "$S/runs" | wc -l)" -eq $((nbefore + 3))
check_cli "resume again: nothing to do" 0 "0 runs to do" -- sweep --resume "$S" --no-report
