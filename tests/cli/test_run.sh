# Contract tests of `ppbench run`: options and refusals, a run's results
# folder (summary, CSVs, LotusTrace files, Chrome trace), checksums across
# workers, backends and orders, data errors, a killed worker, SIGINT and
# SIGTERM, the main process killed: no orphan processes, no shared memory
# left in /dev/shm. Runs on empty image files with test ops (no decoding).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
SYNTH=$top/tests/fixtures/pipelines/synth.pipe
ds=$TMP/run_ds
out=$TMP/run_out
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 29); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
cat >"$TMP/sleep.pipe" <<'EOF'
sleep ms=60
EOF
cat >"$TMP/big.pipe" <<'EOF'
synth w=224 h=224
to_tensor
collate
EOF
cat >"$TMP/fail.pipe" <<'EOF'
synth w=4 h=4 fail_index=6
to_tensor
collate
EOF
base=(--data "$ds" --out "$out" --gpu-step 0)

# ---- options -----------------------------------------------------------------
check_cli "run --help lists the options with their defaults" 0 \
	'--prefetch-factor P .*\(default: 2\)' -- run --help
check_cli "run --help: gpu-step auto, h2d 12GB/s, pin on, inorder" 0 \
	'gpu-step TIME\|auto .*default: auto' -- run --help
for o in data pipeline workers batch gpus gpu-step h2d-bandwidth prefetch-factor pin-memory \
	 epochs max-batches shuffle drop-last seed backend order rng on-error max-pixels trace \
	 checksum trace-capacity tag out; do
	if "$PPBENCH" run --help | grep -q -- "--$o "; then echo "ok - --help shows --$o"
	else echo "not ok - --help shows --$o"; fi
done

# bad values: exit 2, one line naming the option, nothing run
while IFS='@' read -r what pat args; do
	# shellcheck disable=SC2086
	check_cli "refused: $what" 2 "$pat" -- run "${base[@]}" $args
	# shellcheck disable=SC2086
	n=$("$PPBENCH" run "${base[@]}" $args 2>&1 | wc -l)
	if [ "$n" -eq 1 ]; then echo "ok - refused in one line: $what"
	else echo "not ok - refused in one line: $what ($n lines)"; fi
done <<'EOF'
workers not a number@^ppbench: error: --workers: 'x' is not an integer$@--workers x
workers 0@--workers: 0 is out of range@--workers 0
batch too large@--batch: .* out of range@--batch 100000
unknown option@unknown option '--wokers'@--wokers 2
backend@--backend: 'fork' is not one of process\|thread@--backend fork
order@--order: 'random' is not one of inorder\|arrival@--order random
rng@--rng: 'numpy' is not one of per-sample\|torch@--rng numpy
on-error@--on-error: 'ignore' is not one of skip\|fail@--on-error ignore
gpu step@--gpu-step: 'fast' is not a time@--gpu-step fast
auto step without a table row@no step time for 8 GPUs.*--gpu-step@--gpu-step auto --gpus 8
bandwidth@--h2d-bandwidth: '12GB' is not a rate@--h2d-bandwidth 12GB
pin memory@--pin-memory: 'maybe' is not on or off@--pin-memory=maybe
prefetch 0@--prefetch-factor: 0 is out of range@--prefetch-factor 0
too many in flight@at most 8192 batches can be in flight@--workers 1024 --prefetch-factor 9
positional argument@unexpected argument 'extra'@extra
unknown pipeline@no pipeline named 'nope'@--pipeline nope
missing dataset@/nonexistent@--data /nonexistent
no batch with drop-last@fewer than one batch of 100, and --drop-last drops it@--pipeline null --batch 100 --drop-last
EOF
# (memory is planned from the batches that exist: 100 epochs of one batch
# of 40 images of 2048 x 2048, 100 in flight)
printf 'synth w=2048 h=2048\nto_tensor\ncollate\n' >"$TMP/huge.pipe"
check_cli "a run that cannot fit in memory is refused with the figures" 2 \
	'needs .* GiB but only .* available: .* batch buffers .*lower --batch, --workers or --prefetch-factor, or use --pin-memory off' \
	-- run "${base[@]}" --pipeline "$TMP/huge.pipe" --batch 65536 --workers 64 --epochs 100
if [ ! -e "$out" ]; then echo "ok - nothing ran: no results folder"
else echo "not ok - nothing ran: no results folder"; fi

# ---- a run and its results folder --------------------------------------------
# 40 samples, batch 4, 3 workers: 10 batches
check_cli "a synthetic run completes" 0 '^results: .*/[0-9]{8}-[0-9]{6}-synth-b4-w3-g2$' \
	-- run "${base[@]}" --pipeline "$SYNTH" --batch 4 --workers 3
res=$(ls -d "$out"/*-synth-b4-w3-g2 2>/dev/null | head -1)
for f in summary.json batches.csv ops.csv trace.json.gz; do
	check "results hold $f" test -s "$res/$f"
done
check "summary: complete, schema, checksum, images/s" grep -Eq \
	'"complete": true' "$res/summary.json"
check "summary: checksum is 16 hex digits" grep -Eq '"checksum": "[0-9a-f]{16}"' "$res/summary.json"
check "summary: images_per_s" grep -Eq '"images_per_s": [0-9.e+]+' "$res/summary.json"
check "summary: resolved options (gpu step in ns)" grep -Eq '"gpu_step_ns": 0' "$res/summary.json"
check "summary: the harness block" grep -Eq '"inflight_max_batches": 6' "$res/summary.json"
check "summary: every key in the metric table, every figure there (ppbench metrics DIR)" \
	"$PPBENCH" metrics "$res"
check "summary: machine" grep -q '"machine"' "$res/summary.json"
rows=$(($(wc -l <"$res/batches.csv") - 1))
if [ "$rows" -eq 10 ]; then echo "ok - batches.csv has 10 rows"
else echo "not ok - batches.csv has 10 rows ($rows)"; fi

# LotusTrace: Lotus's names and format, one file per process
lt=$(ls -d "$res"/lotustrace/b4_gpu2 2>/dev/null)
nworkers=$(ls "$lt" | grep -c '^lotustrace_log_worker_pid_[0-9]*$')
nmain=$(ls "$lt" | grep -c '^lotustrace_log_main_pid_[0-9]*$')
if [ "$nworkers" -eq 3 ] && [ "$nmain" -eq 1 ]; then echo "ok - LotusTrace: 3 worker files, 1 main file"
else echo "not ok - LotusTrace: 3 worker files, 1 main file ($nworkers, $nmain)"; fi
bad=$(cat "$lt"/lotustrace_log_* | grep -cvE '^[A-Za-z]+(_[0-9]+)?,[0-9]{19},[0-9]+$')
if [ "$bad" -eq 0 ]; then echo "ok - LotusTrace lines are NAME,START_NS,DUR_NS"
else echo "not ok - LotusTrace lines are NAME,START_NS,DUR_NS ($bad bad lines)"; fi
count() { cat "$lt"/lotustrace_log_"$1"_pid_* | grep -cE "$2"; }
check_count() {
	local n
	n=$(count "$1" "$2")
	if [ "$n" -eq "$3" ]; then echo "ok - LotusTrace: $3 x $2"
	else echo "not ok - LotusTrace: $3 x $2 (found $n)"; fi
}
check_count worker '^SBatchPreprocessed_[0-9]+,' 10
check_count worker '^SSynth,' 40
check_count worker '^SRandomHorizontalFlip,' 40
check_count worker '^SToTensor,' 40
check_count worker '^SNormalize,' 40
check_count worker '^STransform,' 40
check_count worker '^SCollation,' 10
check_count main '^SBatchWait_[0-9]+,' 10
check_count main '^SBatchConsumed_[0-9]+,[0-9]+,1000$' 10
check_count main '^SBatchQueued_[0-9]+,[0-9]+,1000$' 10
# Chrome trace: X events per span, flow arrows from preprocessed to consumed
zcat "$res/trace.json.gz" >"$TMP/trace.json"
check "trace.json.gz is a gzip'd Chrome trace" grep -q '"traceEvents":\[' "$TMP/trace.json"
n=$(grep -c '"name":"SBatchPreprocessed",.*"args":{"batch":[0-9]*' "$TMP/trace.json")
if [ "$n" -eq 10 ]; then echo "ok - Chrome trace: 10 batch spans, named by kind, the batch in args"
else echo "not ok - Chrome trace: 10 batch spans, named by kind ($n)"; fi
if grep -q '"id":-' "$TMP/trace.json"; then echo "not ok - Chrome trace: flow ids are not negative"
else echo "ok - Chrome trace: flow ids are not negative"; fi
check "the summary says what the Chrome trace keeps" grep -q '"op_events_every_nth_batch": 1' "$res/summary.json"
n=$(grep -cE '"ph":"(s|f)"' "$TMP/trace.json")
if [ "$n" -eq 20 ]; then echo "ok - Chrome trace: 10 flow arrows"
else echo "not ok - Chrome trace: 10 flow arrows ($n ends)"; fi

# head-of-line blocking seen in batches.csv: batch 4 (samples 8 and 9) takes
# 420 ms; batches 5, 6, 8 and 9 of the other workers finish long before it
rm -rf "$TMP/hol_ds" && mkdir -p "$TMP/hol_ds/c0"
for i in $(seq 10 29); do : >"$TMP/hol_ds/c0/x$i.jpg"; done
check_cli "head-of-line run" 0 'results: ' -- run --data "$TMP/hol_ds" --out "$out" --gpu-step 0 \
	--pipeline "$top/tests/fixtures/pipelines/hol.pipe" --batch 2 --workers 3 --shuffle off --tag hol
csv=$(ls -d "$out"/*-hol)/batches.csv
ooo=$(awk -F, 'NR > 1 && $14 == 1 { printf "%s ", $1 }' "$csv")
# (0, 1 and 2 finish together: their order is left to the scheduler)
case " $ooo" in
*" 5 6 8 9 ") case " $ooo" in
	*" 3 "*|*" 4 "*|*" 7 "*) echo "not ok - batches 5, 6, 8, 9 arrive out of order ($ooo)" ;;
	*) echo "ok - batches 5, 6, 8, 9 arrive out of order ($ooo)" ;;
	esac ;;
*) echo "not ok - batches 5, 6, 8, 9 arrive out of order ($ooo)" ;;
esac
w4=$(awk -F, 'NR > 1 && $1 == 4 { print int($12 / 1000000) }' "$csv")
if [ "${w4:-0}" -ge 300 ]; then echo "ok - the main process waits for batch 4 ($w4 ms)"
else echo "not ok - the main process waits for batch 4 (${w4:-?} ms)"; fi
workers=$(awk -F, 'NR > 1 { printf "%s", $2 }' "$csv")
if [ "$workers" = "0120120120" ]; then echo "ok - task k goes to worker k mod 3"
else echo "not ok - task k goes to worker k mod 3 ($workers)"; fi

# checksums: the same for every W, backend and order (per-sample seeding)
sum() { "$PPBENCH" run "${base[@]}" --pipeline "$SYNTH" --batch 3 --trace off "$@" 2>&1 |
	sed -n 's/^checksum \([0-9a-f]*\).*/\1/p'; }
c1=$(sum --workers 1)
c2=$(sum --workers 2 --backend thread --order arrival)
c3=$(sum --workers 3 --pin-memory off)
if [ -n "$c1" ] && [ "$c1" = "$c2" ] && [ "$c1" = "$c3" ]; then
	echo "ok - checksum independent of W, backend and order ($c1)"
else echo "not ok - checksum independent of W, backend and order ($c1 $c2 $c3)"; fi
c0=$(sum --workers 2 --checksum off)
if [ "$c0" = 0000000000000000 ]; then echo "ok - --checksum off: no checksum"
else echo "not ok - --checksum off: no checksum ($c0)"; fi
t1=$(sum --workers 1 --rng torch)
t2=$(sum --workers 2 --rng torch)
if [ -n "$t1" ] && [ "$t1" != "$t2" ]; then echo "ok - --rng torch: the stream follows the workers"
else echo "not ok - --rng torch: the stream follows the workers ($t1 $t2)"; fi
check_cli "--trace off: no trace files" 0 'results: ' -- run "${base[@]}" --pipeline "$SYNTH" \
	--trace off --tag notrace
if [ ! -e "$(ls -d "$out"/*-notrace)/lotustrace" ]; then echo "ok - --trace off writes no LotusTrace"
else echo "not ok - --trace off writes no LotusTrace"; fi

# pinned memory that cannot be locked: a warning, and the results say so
if ldd "$PPBENCH" 2>/dev/null | grep -q libasan; then
	skip "mlock refused" "ASan makes mlock a no-op that succeeds"
elif command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	o=$(setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock bash -c \
		"ulimit -l 64; \"\$0\" \"\$@\"" "$PPBENCH" run "${base[@]}" --pipeline "$TMP/big.pipe" \
		--batch 4 --max-batches 2 --tag nolock 2>&1)
	if printf '%s\n' "$o" | grep -Eq "warning: cannot lock the (pinned|batch) buffers in memory \(mlock" &&
	   grep -q '"pinned_locked": false' "$(ls -d "$out"/*-nolock)/summary.json"; then
		echo "ok - mlock refused: warned, run continues, recorded"
	else echo "not ok - mlock refused: warned, run continues, recorded"; fi
else
	skip "mlock refused" "needs root and setpriv to drop CAP_IPC_LOCK"
fi

# data errors
check_cli "--on-error skip: the sample is left out, the file named" 0 \
	"skipped '.*/c0/x16.jpg': op synth: synthetic failure" \
	-- run "${base[@]}" --pipeline "$TMP/fail.pipe" --batch 4 --shuffle off --tag skip
check "skip: summary counts it (count 1, listed with the reason)" test \
	"$(jq -c '[.skipped.count, .skipped.files[0].reason]' "$(ls -d "$out"/*-skip)/summary.json")" \
	= '[1,"op synth: synthetic failure of sample 6"]'
check_cli "--on-error fail: the run stops naming the file, exit 1" 1 \
	"error: cannot process '.*/c0/x16.jpg' \(op synth, in worker 1\): synthetic failure" \
	-- run "${base[@]}" --pipeline "$TMP/fail.pipe" --batch 4 --shuffle off --on-error fail --tag fail
check "fail: results written, incomplete" grep -q '"complete": false' "$(ls -d "$out"/*-fail)/summary.json"

# ---- faults ------------------------------------------------------------------
shm_before=$(ls /dev/shm | sort)

# start a long run in the background; PID and its workers' pids
start_long() {
	"$PPBENCH" run "${base[@]}" --pipeline "$TMP/sleep.pipe" --batch 2 --workers 2 \
		--gpu-step 5ms --tag "$1" "${@:2}" >"$TMP/$1.out" 2>&1 &
	PID=$!
	WPIDS= THREADS=0
	# threads: wait for the 2 worker threads (the signal handlers are set
	# right after they start; a fixed sleep lost that race on a loaded machine)
	case " $* " in *" thread "*)
		THREADS=1
		for _ in $(seq 200); do
			[ "$(ls "/proc/$PID/task" 2>/dev/null | wc -l)" -ge 3 ] && break
			sleep 0.05
		done
		sleep 0.2
		return ;;
	esac
	for _ in $(seq 100); do
		WPIDS=$(pgrep -P "$PID" | tr '\n' ' ')
		[ "$(echo "$WPIDS" | wc -w)" -ge 2 ] && break
		sleep 0.05
	done
	sleep 0.2
}
gone() {   # the 2 workers' pids given have ended (within a second; zombies count as ended)
	[ "$#" -ge 2 ] || return 1   # none found: nothing was checked
	for _ in $(seq 20); do
		local alive=0
		for p in "$@"; do
			case $(ps -o stat= -p "$p" 2>/dev/null) in ''|Z*) ;; *) alive=1 ;; esac
		done
		[ "$alive" -eq 0 ] && return 0
		sleep 0.05
	done
	return 1
}
check_fault() {   # what, expected exit code, pattern, tag
	local rc
	wait "$PID"
	rc=$?
	if [ "$rc" -eq "$2" ] && grep -Eq "$3" "$TMP/$4.out"; then echo "ok - $1: exit $2"
	else echo "not ok - $1: exit $rc (expected $2)"; sed 's/^/#   /' "$TMP/$4.out" | head -5; fi
	# shellcheck disable=SC2086
	if [ "$THREADS" -eq 1 ]; then :   # threads end with the process
	elif gone $WPIDS; then echo "ok - $1: no worker left"
	else echo "not ok - $1: workers left (or none found: '$WPIDS'): $(ps -o pid=,ppid=,cmd= -p "${WPIDS// /,}" 2>/dev/null)"; fi
	local res
	res=$(ls -d "$out"/*-"$4" 2>/dev/null | head -1)
	if [ -n "$res" ] && grep -q '"complete": false' "$res/summary.json"; then
		echo "ok - $1: results written with complete false"
	else echo "not ok - $1: results written with complete false"; fi
}

start_long kill
victim=$(echo "$WPIDS" | awk '{print $2}')
kill -KILL "$victim"
t0=$(date +%s%N)
check_fault "a worker killed by SIGKILL" 3 \
	"error: worker [01] \(pid $victim\) was killed by signal 9 \(SIGKILL\)" kill
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$ms" -lt 1500 ]; then echo "ok - the dead worker was noticed within a second ($ms ms)"
else echo "not ok - the dead worker was noticed within a second ($ms ms)"; fi

start_long int
kill -INT "$PID"
check_fault "SIGINT" 130 "error: interrupted by SIGINT" int

start_long term --backend thread
kill -TERM "$PID"
check_fault "SIGTERM (thread backend)" 143 "error: interrupted by SIGTERM" term

# the main process killed: its workers die with it
start_long orphan
disown "$PID"   # no "Killed" job report
kill -KILL "$PID"
# shellcheck disable=SC2086
if gone $WPIDS; then echo "ok - main killed: its workers die too"
else echo "not ok - main killed: workers left (or none found): '$WPIDS'"; fi

if [ "$(ls /dev/shm | sort)" = "$shm_before" ]; then echo "ok - nothing left in /dev/shm"
else echo "not ok - nothing left in /dev/shm"; fi
