# The noise guard (bench/measure/noise.h): a run on a busy machine says so in one line
# and records what others took; a run confined to one CPU judges itself
# against that CPU; --require-idle waits, then refuses; `ppbench info` shows
# whether the machine is fit to benchmark. Runs on empty image files with a
# test op that sleeps (no decoding).
. "$(dirname "$0")/lib.sh"
ds=$TMP/noise_ds
out=$TMP/noise_out
mkdir -p "$ds/c0"
for i in $(seq 10 41); do : >"$ds/c0/x$i.jpg"; done
cat >"$TMP/noise.pipe" <<'PIPE'
sleep ms=20
PIPE
base=(--data "$ds" --out "$out" --gpu-step 0 --pipeline "$TMP/noise.pipe" --workers 1 --batch 4)
json() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split('.'): d = d[k]
print(json.dumps(d))" "$@"; }

spin() { ( trap 'exit 0' TERM; while :; do :; done ) >/dev/null 2>&1 & echo $!; }
ncpu=$(nproc)
pids=""
for i in $(seq "$ncpu"); do pids="$pids $(spin)"; done
"$PPBENCH" run "${base[@]}" --tag busy >"$TMP/noise.out" 2>"$TMP/noise.err"
rc=$?
kill $pids 2>/dev/null
wait $pids 2>/dev/null
expect() { [ "$2" = "$3" ] && echo "ok - $1" || echo "not ok - $1 (got '$2', want '$3')"; }
expect "a busy machine: the run completes" "$rc" 0
check "a busy machine: one line says so" grep -q '^ppbench: warning: the machine was busy during the run: other processes took [0-9]* % of the CPUs it could use' "$TMP/noise.err"
res=$(ls -d "$out"/*-busy | head -1)
share=$(json "$res/summary.json" noise.others_cpu_pct)
if awk -v s="$share" 'BEGIN { exit !(s > 10) }'; then echo "ok - the busy share is recorded ($share %)"
else echo "not ok - the busy share is recorded ($share)"; fi
expect "summary.json says noisy" "$(json "$res/summary.json" noise.noisy)" true
check "its keys are the metric table's" "$PPBENCH" metrics "$res"

# quiet enough for a 100 % limit: no wait, no refusal
check_cli "--require-idle=100 runs at once" 0 'results: ' -- run "${base[@]}" --require-idle=100 --tag idle100
# a busy machine never becomes quiet: refused after the wait, nothing measured
pids=""
for i in $(seq "$ncpu"); do pids="$pids $(spin)"; done
PPBENCH_IDLE_WAIT_S=2 "$PPBENCH" run "${base[@]}" --require-idle=1 --tag idle1 >"$TMP/idle.out" 2>&1
rc=$?
kill $pids 2>/dev/null
wait $pids 2>/dev/null
expect "--require-idle=1 on a busy machine: refused (exit 1)" "$rc" 1
check "the refusal says how busy it stayed" grep -q 'never became quiet in 2 s: other processes used' "$TMP/idle.out"
check "nothing was measured" test -z "$(ls -d "$out"/*-idle1 2>/dev/null)"
check_cli "--require-idle takes a share" 2 "require-idle" -- run "${base[@]}" --require-idle=150

# one CPU allowed: the run's CPU count is that one
if command -v taskset >/dev/null && [ "$ncpu" -ge 2 ]; then
	taskset -c 0 "$PPBENCH" run "${base[@]}" --workers 2 --tag one >/dev/null 2>&1
	res=$(ls -d "$out"/*-one | head -1)
	expect "under taskset -c 0: the CPUs allowed" "$(json "$res/summary.json" machine.cpus_allowed_list)" '"0"'
	expect "under taskset -c 0: figures use 1 CPU" "$(json "$res/summary.json" cpu.cpus_usable)" 1.0
	expect "under taskset -c 0: 2 workers on 1 CPU are oversubscribed" \
		"$(json "$res/summary.json" cpu.oversubscribed)" 1.0
	expect "the machine's CPUs are recorded beside" "$(json "$res/summary.json" machine.cpus_online)" "$ncpu"
else
	skip "taskset -c 0" "one CPU, or no taskset"
fi

check_cli "info: is this machine fit to benchmark" 0 'fit to benchmark\?' -- info
check_cli "info: the CPUs this process may use" 0 'CPUs this process may use: ' -- info

# A cgroup CPU quota, from a fixture tree (PPBENCH_TEST_*, bench/measure/noise.h),
# in both directions: 0.5 of the 2 allowed CPUs is what the run may use (2
# workers on it are oversubscribed); 4 over 2 CPUs leaves the 2 CPUs.
cg=$TMP/noise_cg
mkdir -p "$cg/root/job/step"
echo "0::/job/step" >"$cg/self"
echo "max 100000" >"$cg/root/job/step/cpu.max"
quota_run() {   # quota_run TAG CPU.MAX
	echo "$2" >"$cg/root/job/cpu.max"
	PPBENCH_TEST_PROC_CGROUP=$cg/self PPBENCH_TEST_CGROUP_ROOT=$cg/root PPBENCH_TEST_CPUS_ONLINE=2 \
		PPBENCH_TEST_CPUS_ALLOWED=0-1 "$PPBENCH" run "${base[@]}" --workers 2 --tag "$1" \
		>"$TMP/$1.out" 2>"$TMP/$1.err"
	ls -d "$out"/*-"$1" 2>/dev/null | head -1
}
res=$(quota_run quota-half "50000 100000")
check "a command under PPBENCH_TEST_* says so" grep -q 'PPBENCH_TEST_\* is set' "$TMP/quota-half.err"
expect "quota 0.5 of 2 CPUs: the quota recorded" "$(json "$res/summary.json" machine.cpu_quota)" 0.5
expect "quota 0.5 of 2 CPUs: the CPUs allowed" "$(json "$res/summary.json" machine.cpus_allowed)" 2
expect "quota 0.5 of 2 CPUs: figures use 0.5 CPU" "$(json "$res/summary.json" cpu.cpus_usable)" 0.5
expect "quota 0.5 of 2 CPUs: 2 workers are oversubscribed" "$(json "$res/summary.json" cpu.oversubscribed)" 1.0
res=$(quota_run quota-four "400000 100000")
expect "quota 4 over 2 CPUs: the quota recorded" "$(json "$res/summary.json" machine.cpu_quota)" 4.0
expect "quota 4 over 2 CPUs: figures use the 2 CPUs" "$(json "$res/summary.json" cpu.cpus_usable)" 2.0
expect "quota 4 over 2 CPUs: 2 workers are not oversubscribed" \
	"$(json "$res/summary.json" cpu.oversubscribed)" 0.0
