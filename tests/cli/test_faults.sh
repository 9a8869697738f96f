# Faults and hostile input (issue 12): what a run does with files that are not
# images, signals to a sweep, and other bad input. Each check failed before
# its fix. Runs on small decode fixtures with --counters none.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
ds=$TMP/faults_ds
out=$TMP/faults_out
mkdir -p "$ds/c0" "$ds/c1"
cp "$top"/tests/fixtures/decode/j4*.jpg "$ds/c0/"
cp "$top"/tests/fixtures/decode/j3*.jpg "$ds/c1/"
base=(--data "$ds" --out "$out" --gpu-step 0 --counters none --workers 1 --batch 4)
summary() { ls -d "$out"/*-"$1"/summary.json 2>/dev/null | head -1; }

# ---- 1. a FIFO (or any non-regular file) named like an image -----------------
mkfifo "$ds/c0/fifo.JPEG"
timeout 60 "$PPBENCH" run "${base[@]}" --tag fifo >"$TMP/fifo.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && echo "ok - a FIFO in the dataset: the run finishes" ||
	echo "not ok - a FIFO in the dataset: the run finishes (exit $rc)"
check "the FIFO is named in a warning with its reason" \
	grep -q "skipped '.*/c0/fifo.JPEG': op decode: not a regular file (a FIFO)" "$TMP/fifo.out"
s=$(summary fifo)
check "summary.json lists the FIFO as skipped, with the reason" test "$(jq -r \
	'.skipped.files[] | select(.path | endswith("fifo.JPEG")) | .reason' "$s" 2>/dev/null)" \
	= "op decode: not a regular file (a FIFO)"
check "skipped.count agrees with the list" test "$(jq '.skipped.count == (.skipped.files | length)' "$s" 2>/dev/null)" = true
check_cli "apply on a FIFO: refused, does not hang" 1 "not a regular file \(a FIFO\)" \
	-- apply "$ds/c0/fifo.JPEG" --out "$TMP/fifo.npy"
rm -f "$ds/c0/fifo.JPEG"

# ---- 7. a large file that is no image: refused before it is read -----------
truncate -s 3G "$ds/c0/huge.jpg"
timeout 60 "$PPBENCH" run "${base[@]}" --tag huge >"$TMP/huge.out" 2>&1
check "a 3 GB file: refused by size before reading (--max-file-size default)" \
	grep -q "skipped '.*/huge.jpg': op decode: file is 3221225472 bytes, over the limit of 268435456 (--max-file-size)" "$TMP/huge.out"
timeout 60 "$PPBENCH" run "${base[@]}" --max-file-size 0 --tag huge0 >"$TMP/huge0.out" 2>&1
check "with no size limit: its header is read first, not the 3 GB" \
	grep -q "skipped '.*/huge.jpg': op decode: not a JPEG or PNG file$" "$TMP/huge0.out"
check_cli "run --help states --max-file-size's default" 0 '--max-file-size SIZE .*\(default: 256MiB\)' -- run --help
rm -f "$ds/c0/huge.jpg"

# ---- 3. signals: SIGHUP as SIGTERM; a sweep's run dies with the sweep -------
printf 'sleep ms=100\n' >"$TMP/faults_slow.pipe"
slow=(--pipeline "$TMP/faults_slow.pipe" --batch 2 --workers 2 --epochs 50)
"$PPBENCH" run "${base[@]}" "${slow[@]}" --tag hup >"$TMP/hup.out" 2>&1 &
pid=$!
sleep 1
kill -HUP "$pid"
wait "$pid"
rc=$?
check "SIGHUP stops a run with exit 129 (got $rc)" test "$rc" -eq 129
check "SIGHUP: the run says so" grep -q "error: interrupted by SIGHUP" "$TMP/hup.out"
check "SIGHUP: the results are kept, incomplete" grep -q '"complete": false' "$(summary hup)"

# start a sweep of slow runs; SWEEP its pid, RUNPID the run it started
start_sweep() {
	"$PPBENCH" sweep --data "$ds" --pipeline "$TMP/faults_slow.pipe" --workers "1 2" --batch 2 \
		--gpus 1 --gpu-step 0 --counters none --epochs 50 --out "$out" --tag "$1" --no-report \
		>"$TMP/$1.out" 2>&1 &
	SWEEP=$!
	RUNPID=
	for _ in $(seq 400); do
		# the run (its --out is the sweep's runs/), not the check of the run
		# options the sweep starts first; the plan (its probe) comes between
		RUNPID=$(pgrep -P "$SWEEP" -f '/runs$' | head -1)
		[ -n "$RUNPID" ] && break
		sleep 0.05
	done
	sleep 0.5
}
alive() { case $(ps -o stat= -p "$1" 2>/dev/null) in ''|Z*) return 1 ;; esac; }

start_sweep swkill
check "the sweep started a run" test -n "$RUNPID"
disown "$SWEEP"   # no "Killed" job report
kill -KILL "$SWEEP"
gone=0
for _ in $(seq 100); do
	if [ -n "$RUNPID" ] && ! alive "$RUNPID"; then gone=1; break; fi
	sleep 0.05
done
check "a sweep killed by SIGKILL: its run dies with it" test "$gone" -eq 1

for sig in TERM HUP INT; do
	start_sweep "sw$sig"
	kill -"$sig" "$SWEEP"
	wait "$SWEEP"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	check "a sweep stopped by SIG$sig exits $want (got $rc)" test "$rc" -eq "$want"
	check "SIG$sig: the sweep says how to resume" grep -q "sweep interrupted (SIG$sig).*resume with" "$TMP/sw$sig.out"
done

# ---- 5. --on-error fail: no "skipped" warning, the count and the list agree --
cp "$top/tests/fixtures/bad/empty.jpg" "$ds/c0/bad.jpg"
"$PPBENCH" run "${base[@]}" --shuffle off --on-error fail --tag onfail >"$TMP/onfail.out" 2>&1
rc=$?
check "--on-error fail: exit 1 (got $rc)" test "$rc" -eq 1
check "--on-error fail: the error names the file and the reason" \
	grep -q "error: cannot process '.*/c0/bad.jpg' (op decode, in worker 0): empty file" "$TMP/onfail.out"
check "--on-error fail: the file is not called skipped" \
	test -z "$(grep 'warning: skipped' "$TMP/onfail.out")"
s=$(summary onfail)
check "--on-error fail: skipped.count 1 = the list, with the reason" test \
	"$(jq -c '[.skipped.count, (.skipped.files | length), .skipped.files[0].reason]' "$s" 2>/dev/null)" \
	= '[1,1,"op decode: empty file"]'
"$PPBENCH" run "${base[@]}" --shuffle off --tag onskip >"$TMP/onskip.out" 2>&1
s=$(summary onskip)
check "--on-error skip: skipped.count 1 = the list, with the reason" test \
	"$(jq -c '[.skipped.count, (.skipped.files | length), .skipped.files[0].reason]' "$s" 2>/dev/null)" \
	= '[1,1,"op decode: empty file"]'
rm -f "$ds/c0/bad.jpg"

# ---- 6. trace sizing: no event dropped unless --trace-capacity is set --------
eds=$TMP/faults_empty
mkdir -p "$eds/c0"
for i in $(seq 100 179); do : >"$eds/c0/x$i.jpg"; done
printf 'sleep ms=1 slow_ms=300 slow_index=3\nsynth w=8 h=8\nto_tensor\ncollate\n' >"$TMP/faults_hold.pipe"
hold=(--data "$eds" --out "$out" --pipeline "$TMP/faults_hold.pipe" --workers 3 --batch 4
      --gpu-step 0 --counters none)
for pol in shared-queue speedy; do
	"$PPBENCH" run "${hold[@]}" --policy "$pol" --tag "tr-$pol" >"$TMP/tr-$pol.out" 2>&1
	check "--policy $pol, a worker held by a slow sample: no trace event dropped" \
		test "$(jq '.trace.dropped_events' "$(summary "tr-$pol")" 2>/dev/null)" = 0
	check "--policy $pol: every event recorded" \
		test "$(jq '.trace.events' "$(summary "tr-$pol")" 2>/dev/null)" -ge 500
done
"$PPBENCH" run "${hold[@]}" --policy shared-queue --trace-capacity 20 --tag tr-cap >/dev/null 2>&1
check "a --trace-capacity the run outgrows: events are dropped and counted" \
	test "$(jq '.trace.dropped_events' "$(summary tr-cap)" 2>/dev/null)" -gt 0

# ---- 8. an --out or --tag too long for the results' names: refused first ----
long=$TMP/$(printf 'a%.0s' $(seq 200))
for _ in $(seq 19); do long=$long/$(printf 'a%.0s' $(seq 200)); done
check_cli "a too long --out is refused before running, with the limit" 2 \
	"error: --out is [0-9]+ bytes long: .* over the system's limit of 4096 \(PATH_MAX\)" \
	-- run "${base[@]}" --out "$long"
check "nothing was made under the too long --out" test ! -e "$long"
check_cli "a too long --tag is refused before running" 2 \
	"error: --tag is 201 bytes: a results folder's name holds at most 200" \
	-- run "${base[@]}" --tag "$(printf 't%.0s' $(seq 201))"
check_cli "--tag of 200 bytes is kept whole" 0 "results: .*-$(printf 't%.0s' $(seq 200))\$" \
	-- run "${base[@]}" --tag "$(printf 't%.0s' $(seq 200))"

# ---- 9. every time and size option within a stated range --------------------
check_cli "--gpu-step 1e9s is refused with the range" 2 \
	"error: --gpu-step: 1e9s is out of range \[0, 1min\]" -- run "${base[@]}" --gpu-step 1e9s
check_cli "--h2d-bandwidth over 10TB/s is refused" 2 "--h2d-bandwidth: 20TB/s is out of range \[0, 10TB/s\]" \
	-- run "${base[@]}" --h2d-bandwidth 20TB/s
check_cli "--max-file-size over 1TiB is refused" 2 "--max-file-size: 2TiB is out of range \[0, 1TiB\]" \
	-- run "${base[@]}" --max-file-size 2TiB
check_cli "--trace-capacity over 1G events is refused" 2 "--trace-capacity: 2G is out of range" \
	-- run "${base[@]}" --trace-capacity 2G
check_cli "run --help states the ranges" 0 "--gpu-step TIME\|auto .* \[0\.\.1min\] \(default: auto\)" -- run --help
check_cli "sweep refuses a --gpu-step out of range" 2 "--gpu-step: 2min is out of range" \
	-- sweep --data "$ds" --gpu-step 2min --out "$out" --tag badstep

# ---- 4. file names that are not UTF-8: recorded losslessly (\xNN) -----------
nds=$TMP/$(printf 'lat\xe9n')
mkdir -p "$nds/c0"
for i in 1 2 3 4 5; do : >"$nds/c0/x$i.jpg"; done
: >"$nds/c0/$(printf 'b\xffd\nname').jpg"
printf 'synth w=4 h=4 fail_index=0\nto_tensor\ncollate\n' >"$TMP/faults_f0.pipe"
"$PPBENCH" run --data "$nds" --out "$out" --pipeline "$TMP/faults_f0.pipe" --gpu-step 0 \
	--counters none --batch 2 --shuffle off --tag "$(printf 't\xe9g')" >"$TMP/nonutf.out" 2>&1
s=$(ls -d "$out"/*-t*g/summary.json | head -1)
check "a non-UTF-8 --data is recorded escaped" \
	test "$(jq -r '.options.data' "$s" 2>/dev/null)" = "$TMP/lat\\xe9n"
check "a non-UTF-8 --tag is recorded escaped" test "$(jq -r '.options.tag' "$s" 2>/dev/null)" = 't\xe9g'
check "a skipped non-UTF-8 file stays in the list, escaped" \
	test "$(jq -r '.skipped.files[0].path' "$s" 2>/dev/null)" = "$TMP/lat\\xe9n/c0/b\\xffd\\x0aname.jpg"
check "a newline in a file name keeps the warning on one line" \
	grep -q "warning: skipped '.*/b\\\\xffd\\\\x0aname.jpg': op synth" "$TMP/nonutf.out"
"$PPBENCH" sweep --data "$nds" --pipeline "$TMP/faults_f0.pipe" --workers 1 --batch 2 --gpus 1 \
	--gpu-step 0 --counters none --out "$out" --tag nonutf --no-report >"$TMP/nonutf-sw.out" 2>&1
sw=$(ls -d "$out"/*-sweep-nonutf | head -1)
check "sweep.json records the non-UTF-8 dataset path" \
	test "$(jq -r '.data' "$sw/sweep.json" 2>/dev/null)" = "$TMP/lat\\xe9n"
check_cli "a sweep on a non-UTF-8 path can be resumed" 0 "0 runs to do" -- sweep --resume "$sw" --no-report
check_cli "report reads it" 0 "report.md" -- report "$sw"

# ---- 11. smaller ones ------------------------------------------------------
cds=$TMP/faults_classes
for i in $(seq 100 399); do mkdir -p "$cds/class_with_a_long_name_$i"; done
check_cli "many empty classes: the names that fit, then the count of the rest" 2 \
	"class_with_a_long_name_100, .*, and [0-9]+ more \(300 of the 300 classes are empty\) in '$cds': supported extensions" \
	-- run --data "$cds" --out "$out"
check_cli "--shuffle maybe says what --shuffle=maybe says" 2 "error: --shuffle: 'maybe' is not on or off" \
	-- run "${base[@]}" --shuffle maybe
check_cli "--shuffle=maybe" 2 "error: --shuffle: 'maybe' is not on or off" -- run "${base[@]}" --shuffle=maybe
check_cli "a sweep refuses a stray run argument" 2 "a run option was refused: unexpected argument 'maybe'" \
	-- sweep --data "$ds" --out "$out" --tag stray maybe
check_cli "a negative --crop top is blamed on the top" 2 "--crop: '-1,0,10,10' has TOP -1; it must be 0 or more" \
	-- apply x.jpg --crop -1,0,10,10 --out "$TMP/c.npy"
# a run killed leaves its temporary folder: the next run lists it
"$PPBENCH" run "${base[@]}" "${slow[@]}" --out "$TMP/stale" --tag killed >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -n "$(ls -A "$TMP/stale" 2>/dev/null)" ] && break; sleep 0.05; done
sleep 0.3
disown "$pid"
kill -KILL "$pid"
for _ in $(seq 40); do alive "$pid" || break; sleep 0.05; done
check_cli "a temporary folder left by a killed run is listed by the next run" 0 \
	"warning: 1 temporary folder in '$TMP/stale' left by runs that did not finish .*'\..*-killed\.tmp'" \
	-- run "${base[@]}" --out "$TMP/stale" --tag next
# a resumed sweep keeps the interrupted attempt's log
sw=$(ls -d "$out"/*-sweep-swTERM | head -1)
log=$(ls "$sw"/logs/*.log | head -1)
first=$(head -1 "$log")
"$PPBENCH" sweep --resume "$sw" --no-report >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
check "a resumed sweep appends to the interrupted attempt's log" \
	test "$(head -1 "$log")" = "$first" -a "$(grep -c '^==== another attempt' "$log")" -ge 1

# ==== issue 21: hostile input (each check failed before its fix) ============
# a tiny generated dataset and quick runs: --pipeline null, no GPU step
hds=$TMP/h21_ds
hout=$TMP/h21_out
"$PPBENCH" dataset generate --out "$hds" --images 16 --classes 2 >/dev/null 2>&1
hbase=(--data "$hds" --out "$hout" --pipeline null --gpu-step 0 --counters none --workers 1 --batch 4)
# ppbench under a 20 s timeout (exit 124 when it hangs): PPBENCH=$pp20 check_cli ...
pp20=$TMP/h21_pp20
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$PPBENCH" >"$pp20"
chmod +x "$pp20"

# ---- 8. a FIFO named summary.json or sweep.json in a results folder --------
hres=$TMP/h21_res
mkdir -p "$hres/odd-run" "$hres/odd-sweep"
mkfifo "$hres/odd-run/summary.json" "$hres/odd-sweep/sweep.json"
PPBENCH=$pp20 check_cli "ls: a FIFO summary.json does not hang it, and is named" 0 \
	"odd-run .*unreadable summary.json: not a regular file \(a FIFO\)" -- ls "$hres"
PPBENCH=$pp20 check_cli "ls: a FIFO sweep.json does not hang it" 0 \
	"odd-sweep .*not a regular file \(a FIFO\)" -- ls "$hres"
PPBENCH=$pp20 check_cli "report: a FIFO summary.json is refused, not waited for" 1 \
	"odd-run/summary.json': not a regular file \(a FIFO\)" -- report "$hres/odd-run"
PPBENCH=$pp20 check_cli "report: a FIFO sweep.json is refused" 1 \
	"odd-sweep/sweep.json': not a regular file \(a FIFO\)" -- report "$hres/odd-sweep"
PPBENCH=$pp20 check_cli "model --from: a FIFO summary.json is refused" 2 "not a regular file \(a FIFO\)" \
	-- model --from "$hres/odd-run" -w 1 -b 4
PPBENCH=$pp20 check_cli "sweep --resume: a FIFO sweep.json is refused" 1 "not a regular file \(a FIFO\)" \
	-- sweep --resume "$hres/odd-sweep"
truncate -s 100M "$hres/big.json"
mkdir -p "$hres/big-run" && mv "$hres/big.json" "$hres/big-run/summary.json"
check_cli "report: a 100 MB summary.json is refused by its size, unread" 1 \
	"summary.json': 104857600 bytes, more than the 67108864 ppbench reads" -- report "$hres/big-run"
rm -rf "$hres"

# ---- 17. ls --clean never crosses a symbolic link --------------------------
R=$TMP/h21_ls
away=$TMP/h21_away
mkdir -p "$R/sw-20261102-101010-s" "$away/slurm/.20261106-000000-killed.tmp" \
	"$away/runs/.20261102-101011-w9-b8-g1-r1.tmp"
echo '{"runs": []}' >"$R/sw-20261102-101010-s/sweep.json"
ln -s "$away/slurm" "$R/slurm-123"
ln -s "$away/runs" "$R/sw-20261102-101010-s/runs"
check_cli "ls --clean: a stale folder behind a symlinked Slurm folder is not removed" 0 \
	"not removed \(reached through a symbolic link\): .*slurm-123/.20261106-000000-killed.tmp" \
	-- ls --clean "$R"
check "ls --clean: nothing removed outside the folder listed" \
	test -d "$away/slurm/.20261106-000000-killed.tmp" -a -d "$away/runs/.20261102-101011-w9-b8-g1-r1.tmp"
check_cli "ls: such a folder is listed as reached through a link" 0 \
	"killed.tmp .*stale, reached through a symbolic link" -- ls "$R"
rm -rf "$R" "$away"

# ---- 7. --pipeline: only a regular file of a sane size is read -------------
PPBENCH=$pp20 check_cli "--pipeline /dev/zero is refused unread" 2 \
	"cannot read pipeline '/dev/zero': not a regular file \(a character device\)" \
	-- run "${hbase[@]}" --pipeline /dev/zero
truncate -s 3G "$TMP/h21_big.pipe"
PPBENCH=$pp20 check_cli "a 3 GB --pipeline file is refused by its size" 2 \
	"h21_big.pipe': 3221225472 bytes, more than the 1048576 ppbench reads" \
	-- run "${hbase[@]}" --pipeline "$TMP/h21_big.pipe"
rm -f "$TMP/h21_big.pipe"

# ---- 13. op arguments: finite, in range, for every op (pipelines/op_args.c) --
hpipe() { printf 'decode\n%s\n' "$1" >"$TMP/h21_op.pipe"; }
while IFS='|' read -r line want; do
	hpipe "$line"
	check_cli "pipe '$line' refused" 2 "h21_op.pipe:2: $want" \
		-- run "${hbase[@]}" --pipeline "$TMP/h21_op.pipe"
done <<'LINES'
normalize std=inf,1,1|normalize: std: 'inf,1,1' is not a list of 3 finite numbers
normalize std=nan,0.2,0.2|normalize: std: 'nan,0.2,0.2' is not a list of 3 finite numbers
normalize std=-1,1,1|normalize: std: '-1,1,1' has -1, out of range
normalize std=1e-45,1,1|normalize: std: '1e-45,1,1' has 1e-45, out of range
normalize mean=nan,0,0|normalize: mean: 'nan,0,0' is not a list of 3 finite numbers
normalize mean=-1e30,0,0 std=1e-10,1,1|normalize: mean -1e\+30 and std 1e-10 of channel 0 make values beyond float32's range
sleep ms=1e300|sleep: ms: '1e300' is out of range \[0, 60000\]
sleep ms=-1|sleep: ms: '-1' is out of range \[0, 60000\]
sleep ms=nan|sleep: ms: 'nan' is not a finite number
sleep slow_ms=inf|sleep: slow_ms: 'inf' is not a finite number
random_horizontal_flip p=nan|random_horizontal_flip: p: 'nan' is not a finite number
random_resized_crop scale=0.08,inf|random_resized_crop: scale: '0.08,inf' is not a list of 2 finite numbers
LINES
# item 20: a key given twice is named as such
hpipe "resize size=3 size=4"
check_cli "a pipe key given twice says so" 2 "h21_op.pipe:2: resize: argument 'size' given twice" \
	-- run "${hbase[@]}" --pipeline "$TMP/h21_op.pipe"

# ---- 11. no control character reaches the terminal -------------------------
esc=$(printf '\033')
check_cli "--tag with ESC is refused, the tag escaped in the message" 2 \
	"error: --tag 'a\\\\x1b\[31mb': it must not hold a control character" \
	-- run "${hbase[@]}" --tag "a${esc}[31mb"
check_cli "--tag with a newline is refused" 2 "error: --tag 'a\\\\x0ab': it must not hold a control character" \
	-- run "${hbase[@]}" --tag "a
b"
check_cli "sweep refuses it too, before anything ran (exit 2)" 2 "it must not hold a control character" \
	-- sweep --data "$hds" --out "$hout" --pipeline null -w 1 -b 4 --gpu-step 0 --tag "x${esc}y"
hed="$TMP/h21_e${esc}[31m"
mkdir -p "$hed"
cp -r "$hds"/. "$hed/"
"$PPBENCH" run --data "$hed" --out "$hed/out" --pipeline null --gpu-step 0 --counters none \
	--workers 1 --batch 4 --tag esc >"$TMP/h21_esc.out" 2>&1
check "run: no raw ESC in its output (a dataset and --out named with one)" \
	test "$(grep -c "$esc" "$TMP/h21_esc.out")" = 0
check "run: the results: and dataset lines show it escaped" sh -c \
	"grep -q '^results: .*h21_e\\\\x1b\[31m/out/' '$TMP/h21_esc.out' && grep -q '^dataset .*h21_e\\\\x1b\[31m' '$TMP/h21_esc.out'"
s=$(ls -d "$hed"/out/*-esc/summary.json)
jq --arg e "$esc" '.complete = false | .stop_reason = ("stopped" + $e + "[2J here")' "$s" >"$s.new" && mv "$s.new" "$s"
mv "$(dirname "$s")" "$hed/out/odd${esc}]0;title${esc}\\"
"$PPBENCH" ls "$hed/out" >"$TMP/h21_ls.out" 2>&1
check "ls: no raw ESC from a folder name or a hand-edited summary.json" \
	test "$(grep -c "$esc" "$TMP/h21_ls.out")" = 0
check "ls: the summary.json string and the folder name are shown escaped" sh -c \
	"grep -q '^odd\\\\x1b\]0;title\\\\x1b\\\\ .*incomplete; stopped\\\\x1b\[2J here' '$TMP/h21_ls.out'"
check_cli "an error naming a path with ESC escapes it" 2 "cannot .*h21_nope\\\\x1b\[31m" \
	-- run --data "$TMP/h21_nope${esc}[31m" --out "$hout"
rm -rf "$hed"

# ---- 20. messages and exit codes ------------------------------------------
: >"$TMP/h21_afile"
check_cli "--out naming a regular file says so (run)" 2 \
	"'.*h21_afile' is not a folder \(a regular file\): --out names the folder" \
	-- run "${hbase[@]}" --out "$TMP/h21_afile"
check_cli "--out naming a regular file says so (sweep), exit 2 as run" 2 \
	"'.*h21_afile' is not a folder \(a regular file\)" \
	-- sweep --data "$hds" --out "$TMP/h21_afile/sub" --pipeline null -w 1 -b 4 --gpu-step 0
if [ "$(id -u)" -eq 0 ] && mkdir -p "$TMP/h21_ro" && mount -t tmpfs -o ro,size=64k tmpfs "$TMP/h21_ro" 2>/dev/null; then
	check_cli "a read-only --out: run exits 2" 2 "cannot write in '.*h21_ro': Read-only file system" \
		-- run "${hbase[@]}" --out "$TMP/h21_ro"
	check_cli "a read-only --out: sweep exits 2 too" 2 "cannot write in '.*h21_ro': Read-only file system" \
		-- sweep --data "$hds" --out "$TMP/h21_ro" --pipeline null -w 1 -b 4 --gpu-step 0
	umount "$TMP/h21_ro"
else
	skip "a read-only --out" "needs root to mount a read-only tmpfs"
fi
# summary.json lists as many skipped files as its documentation says
hbad=$TMP/h21_bad
mkdir -p "$hbad/c0"
cp "$hds"/*/* "$hbad/c0/"
for i in $(seq 100 399); do : >"$hbad/c0/z$i.jpg"; done
"$PPBENCH" run --data "$hbad" --out "$hout" --pipeline imagenet_val --gpu-step 0 --counters none \
	--workers 1 --batch 64 --tag manybad >/dev/null 2>&1
s=$(ls -d "$hout"/*-manybad/summary.json | head -1)
cap=$("$PPBENCH" metrics | sed -n 's/^skipped.files .*up to the first \([0-9,]*\).*/\1/p' | tr -d ,)
same "skipped.files holds as many as docs/metrics.md says (300 skipped)" \
	"$(jq '.skipped.files | length' "$s" 2>/dev/null)" "$cap"
check "README says the same" grep -q "skipped.files\` lists them (the first $cap)" "$top/README.md"
rm -rf "$hbad"
# sweep --resume on a sweep.json that is [] or has a run without a tag
"$PPBENCH" sweep --data "$hds" --out "$TMP/h21_sw" --pipeline null -w 1 -b 4 --gpu-step 0 \
	--counters none --no-report >/dev/null 2>&1
hsw=$(ls -d "$TMP"/h21_sw/*-sweep | head -1)
jq 'del(.runs[0].tag) | .runs[0].status = "pending"' "$hsw/sweep.json" >"$TMP/h21_notag.json"
cp "$TMP/h21_notag.json" "$hsw/sweep.json"
check_cli "sweep --resume: a run without a tag is named, not run as '(null)'" 1 \
	"cannot resume .*: run 1 of '.*sweep.json' has no tag" -- sweep --resume "$hsw" --no-report
check "... and no '(null)' is printed" sh -c "! '$PPBENCH' sweep --resume '$hsw' --no-report 2>&1 | grep -q '(null)'"
echo '[]' >"$hsw/sweep.json"
check_cli "sweep --resume on [] says what is wrong" 1 "sweep.json' holds no list of runs" \
	-- sweep --resume "$hsw" --no-report
rm -rf "$TMP/h21_sw"

# ---- 5. out of memory fails the run, it never skips a file -----------------
# a valid JPEG whose header says 13000x13000 (507 MB decoded, under
# --max-pixels), last in a tiny dataset; the decode's allocation fails: by
# ulimit -v, or (ASan reserves terabytes of shadow, which ulimit -v forbids)
# by ASan's allocation cap, the same malloc returning NULL
hoom=$TMP/h21_oom
mkdir -p "$hoom/c0" "$hoom/c1"
cp "$hds"/*/* "$hoom/c0/"
cp "$top/tests/fixtures/decode/j420.jpg" "$hoom/c1/zz_huge.jpg"
printf '\062\310\062\310' | dd of="$hoom/c1/zz_huge.jpg" bs=1 seek=163 conv=notrunc 2>/dev/null
oomrun=(run --data "$hoom" --out "$hout" --pipeline imagenet_val --gpu-step 0 --counters none
	--workers 1 --batch 4 --tag oom)
if grep -qa __asan_init "$PPBENCH"; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=256" \
		"$PPBENCH" "${oomrun[@]}" >"$TMP/h21_oom.out" 2>&1
else
	(ulimit -v 400000; "$PPBENCH" "${oomrun[@]}") >"$TMP/h21_oom.out" 2>&1
fi
rc=$?
check "out of memory: the run fails (exit 1, got $rc)" test "$rc" -eq 1
check "out of memory: said so, naming the file and what to lower" grep -q \
	"error: worker 0 ran out of memory on '.*zz_huge.jpg' (op decode: out of memory (507000000 bytes for 13000x13000 pixels)): the run failed, the file is not bad (lower --batch" \
	"$TMP/h21_oom.out"
check "out of memory: no file called skipped" sh -c "! grep -q 'skipped .*zz_huge' '$TMP/h21_oom.out'"
s=$(ls -d "$hout"/*-oom/summary.json 2>/dev/null | head -1)
check "out of memory: summary.json says incomplete, nothing skipped" test \
	"$(jq -c '[.complete, .skipped.count]' "$s" 2>/dev/null)" = "[false,0]"
rm -rf "$hoom"

# ---- 10. the simulated copy is bounded as --gpu-step is --------------------
for r in 1B/s 1KB/s 1e-300B/s; do
	PPBENCH=$pp20 check_cli "--h2d-bandwidth $r: refused, the copy would pass a minute" 2 \
		"error: --h2d-bandwidth .* makes the simulated copy of each batch .* more than a minute .*give at least [0-9]+ B/s, or 0 for no copy" \
		-- run "${hbase[@]}" --pipeline imagenet_val --h2d-bandwidth "$r"
done
check_cli "--h2d-bandwidth 0 (no copy) still runs" 0 "^results: " \
	-- run "${hbase[@]}" --pipeline imagenet_val --h2d-bandwidth 0 --tag h2d0

# ---- 9. a scan that would walk the whole machine is bounded ----------------
hln=$TMP/h21_ln
mkdir -p "$hln/c0"
cp "$hds"/*/* "$hln/c0/"
ln -s / "$hln/c1"
PPBENCH=$pp20 check_cli "a class folder linked to '/' is named, not walked" 2 \
	"cannot scan '.*h21_ln': '.*h21_ln/c1' leads to '/', a folder that holds the dataset itself" \
	-- dataset describe "$hln"
PPBENCH=$pp20 check_cli "--data /proc/self: refused, not walked for minutes" 2 \
	"cannot scan '/proc/self': .* a folder that holds the dataset itself" \
	-- run --data /proc/self --out "$hout"
rm -rf "$hln"

# ---- 6. an op's output is bounded by --max-pixels, as decode's -------------
hamp=$TMP/h21_amp
mkdir -p "$hamp/c0" "$hamp/c1"
cp "$hds"/*/* "$hamp/c0/"
python3 - "$hamp/c1/wide.png" <<'PY'
import struct, sys, zlib
w, h = 65000, 1   # resize 256 would make it 16640000x256
raw = b'\0' + bytes((x * 7) & 255 for x in range(w * 3))
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                              + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
PY
PPBENCH=$pp20 check_cli "a 65000x1 image through resize 256: skipped, naming the op, file and size" 0 \
	"skipped '.*wide.png': op resize: its output of 16640000x256 \(4259840000 pixels\) is over the limit of 178956970 \(--max-pixels\)" \
	-- run "${hbase[@]}" --data "$hamp" --pipeline imagenet_val --tag amp
PPBENCH=$pp20 check_cli "... and with --on-error fail it stops the run" 1 \
	"cannot process '.*wide.png' \(op resize, in worker 0\): its output of 16640000x256" \
	-- run "${hbase[@]}" --data "$hamp" --pipeline imagenet_val --on-error fail --tag ampfail
rm -rf "$hamp"

# ---- 19. a stopped worker: a stall notice, and PyTorch's --timeout ----------
printf 'sleep ms=20\n' >"$TMP/h21_slow.pipe"
"$PPBENCH" run "${hbase[@]}" --pipeline "$TMP/h21_slow.pipe" --workers 2 --batch 2 --epochs 100 \
	--timeout 3s --stall-notice 1s --tag stopped >"$TMP/h21_stop.out" 2>&1 &
pid=$!
wpid=
for _ in $(seq 100); do
	wpid=$(pgrep -P "$pid" | head -1)
	[ -n "$wpid" ] && break
	sleep 0.05
done
sleep 0.5
[ -n "$wpid" ] && kill -STOP "$wpid"
for _ in $(seq 300); do alive "$pid" || break; sleep 0.05; done
if alive "$pid"; then
	kill -KILL "$pid" 2>/dev/null
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
fi
wait "$pid"
rc=$?
check "a stopped worker: --timeout fails the run (exit 1, got $rc)" test "$rc" -eq 1
check "... saying no batch came in 3 s and which worker is stopped" grep -q \
	"error: no batch from the workers in 3 s (--timeout, as PyTorch's DataLoader timeout); worker [01] (pid $wpid) is stopped" \
	"$TMP/h21_stop.out"
check "... after a stall notice naming it" grep -q \
	"warning: no batch from the workers for [12] s; worker [01] (pid $wpid) is stopped; still waiting" \
	"$TMP/h21_stop.out"
check "... the results are kept, incomplete" grep -q '"complete": false' \
	"$(ls -d "$hout"/*-stopped/summary.json 2>/dev/null | head -1)"
check_cli "run --help: --timeout is off by default, as PyTorch" 0 "--timeout TIME .*\(default: 0\)" -- run --help
