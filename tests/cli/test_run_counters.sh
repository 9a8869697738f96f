# Contract tests of `ppbench run --counters` and `--pin`: counter sums per op
# in summary.json and ops.csv (process and thread workers), on-CPU vs wall
# time per op, hardware events that do not open here (or are made not to,
# PPBENCH_FORCE_NO_PMU=1) reported as not supported and never as 0, with one
# line about the fallback; a pin plan and `pinned` per worker; a CPU list
# naming a CPU this machine does not have is refused; topology.xml in every
# results folder. Runs on empty image files with test ops (no decoding).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
SYNTH=$top/tests/fixtures/pipelines/synth.pipe
ds=$TMP/cnt_ds
out=$TMP/cnt_out
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 29); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
# 40 samples, batch 4: 10 batches
base=(--data "$ds" --out "$out" --gpu-step 0 --pipeline "$SYNTH" --batch 4 --workers 2)

# jget FILE a.b.c: the value at a path of summary.json (as jansson indents
# it: one key per line, two spaces per level); array elements are indexed
# from 0 ("pin.worker.1.pinned"). Prints nothing when the path is absent.
jget() {
	awk -v want="$2" '
	function here(d,   p, i) { p = path[1]; for (i = 2; i <= d; i++) p = p "." path[i]; return p }
	/^ *[]}],?$/ { next }
	{
		ind = match($0, /[^ ]/) - 1; d = ind / 2
		if (match($0, /^ *"[^"]*": /)) {
			key = $0; sub(/^ *"/, "", key); sub(/": .*/, "", key)
			val = $0; sub(/^ *"[^"]*": /, "", val)
		} else {
			key = n[d]++; val = $0; sub(/^ */, "", val)
		}
		path[d] = key; sub(/,$/, "", val)
		if (val == "[") n[d + 1] = 0
		if (here(d) == want) { print val; exit }
	}' "$1"
}
# csvget FILE ROWKEY COLUMN: the field of a column (by header name) in the
# row whose first field is ROWKEY
csvget() {
	awk -F, -v row="$2" -v col="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
	$1 == row && c { print $c; exit }' "$1"
}
is_pos() { awk -v x="$1" 'BEGIN { exit !(x ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ && x + 0 > 0) }'; }
is_num() { awk -v x="$1" 'BEGIN { exit !(x ~ /^-?[0-9.e+-]+$/) }'; }
expect() {   # expect "what" got want
	if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got '$2', want '$3')"; fi
}
expect_pos() {
	if is_pos "$2"; then echo "ok - $1"; else echo "not ok - $1 (got '$2')"; fi
}
lastdir() { ls -d "$out"/*-"$1" 2>/dev/null | tail -1; }

# ---- options -----------------------------------------------------------------
check_cli "run --help: --counters with its default" 0 '--counters LIST .*\(default: (sw|none)\)' \
	-- run --help
check_cli "run --help: --pin with its default" 0 '--pin none\|compact\|scatter\|CPULIST .*\(default: none\)' \
	-- run --help
check_cli "refused: an unknown event" 2 '^ppbench: error: --counters: unknown event .cylces.' \
	-- run "${base[@]}" --counters cylces
check_cli "refused: a bad --pin" 2 '^ppbench: error: --pin' -- run "${base[@]}" --pin sideways
check_cli "refused: --pin naming a CPU not in this machine" 2 \
	'error: --pin: CPU [0-9]+ is not in this machine' -- run "${base[@]}" --pin 0-999
n=$("$PPBENCH" run "${base[@]}" --pin 0-999 2>&1 | wc -l)
expect "refused in one line: --pin 0-999" "$n" 1
if [ ! -e "$out" ]; then echo "ok - nothing ran: no results folder"
else echo "not ok - nothing ran: no results folder"; fi

# ---- --counters sw: sums per op, process and thread workers ----------------------
for be in process thread; do
	o=$("$PPBENCH" run "${base[@]}" --counters sw --backend "$be" --tag "sw-$be" 2>"$TMP/err")
	rc=$?
	expect "--counters sw, $be workers: the run completes" "$rc" 0
	res=$(lastdir "sw-$be")
	s=$res/summary.json
	expect "$be: both workers counted" "$(jget "$s" counters.workers_counted)" 2
	expect "$be: on-CPU time from task-clock" "$(jget "$s" counters.oncpu_source)" '"task-clock"'
	expect "$be: synth counted 40 times" "$(jget "$s" counters.ops.synth.regions)" 40
	expect "$be: collate counted 10 times" "$(jget "$s" counters.ops.collate.regions)" 10
	expect "$be: task-clock of synth is ok" \
		"$(jget "$s" counters.ops.synth.events.task-clock.status)" '"ok"'
	expect_pos "$be: task-clock sum of synth > 0" "$(jget "$s" counters.ops.synth.events.task-clock.sum)"
	expect_pos "$be: task-clock per image of normalize > 0" \
		"$(jget "$s" counters.ops.normalize.events.task-clock.per_image)"
	v=$(jget "$s" counters.ops.synth.events.context-switches.sum)
	if is_num "$v"; then echo "ok - $be: context switches summed ($v)"
	else echo "not ok - $be: context switches summed ($v)"; fi
	expect_pos "$be: summary ops: on-CPU seconds of synth" "$(jget "$s" ops.synth.oncpu_s)"
	v=$(jget "$s" ops.synth.descheduled_s)
	if is_num "$v"; then echo "ok - $be: summary ops: descheduled seconds of synth ($v)"
	else echo "not ok - $be: summary ops: descheduled seconds of synth ($v)"; fi
	expect_pos "$be: summary ops: on-CPU seconds of to_tensor" "$(jget "$s" ops.to_tensor.oncpu_s)"
	expect_pos "$be: the cost of a read is reported" "$(jget "$s" counters.overhead.read_ns)"
	expect_pos "$be: the null op overhead is reported" \
		"$(jget "$s" counters.null_op_overhead.counted_ns_per_sample)"
	csv=$res/ops.csv
	if head -1 "$csv" | grep -q ',oncpu_s,descheduled_s,oncpu_pct,.*,task-clock_ns,page-faults,context-switches,cpu-migrations$'
	then echo "ok - $be: ops.csv has the counter columns"
	else echo "not ok - $be: ops.csv has the counter columns ($(head -1 "$csv"))"; fi
	expect_pos "$be: ops.csv task-clock of synth" "$(csvget "$csv" synth task-clock_ns)"
	expect_pos "$be: ops.csv on-CPU seconds of collate" "$(csvget "$csv" collate oncpu_s)"
	expect_pos "$be: ops.csv span of normalize" "$(csvget "$csv" normalize span_s)"
	v=$(csvget "$csv" synth descheduled_s)
	if is_num "$v"; then echo "ok - $be: ops.csv descheduled seconds of synth ($v)"
	else echo "not ok - $be: ops.csv descheduled seconds of synth ($v)"; fi
	expect "$be: ops.csv: no IPC without cycles (empty, not 0)" "$(csvget "$csv" synth ipc)" ""
	nf=$(awk -F, '{ print NF }' "$csv" | sort -u | wc -l)
	expect "$be: ops.csv rows all have the header's columns" "$nf" 1
	if printf '%s\n' "$o" | grep -q '^counters: sw; on-CPU time from task-clock; 2 of 2 workers counted' &&
	   printf '%s\n' "$o" | grep -Eq '^  synth +40 +[0-9.]+ +[0-9.]+ +-?[0-9.]+%$'; then
		echo "ok - $be: the summary shows on-CPU vs wall per op"
	else echo "not ok - $be: the summary shows on-CPU vs wall per op"; fi
	drop_noise "$TMP/err"
	if [ ! -s "$TMP/err" ]; then echo "ok - $be: no warning"
	else echo "not ok - $be: no warning ($(head -1 "$TMP/err"))"; fi
	check "$be: topology.xml in the results" grep -q '<topology' "$res/topology.xml"
done

# with --trace off there are no op events: the counted ops still get rows
check_cli "--counters sw --trace off" 0 'results: ' -- run "${base[@]}" --counters sw --trace off \
	--tag sw-notrace
res=$(lastdir sw-notrace)
expect "--trace off: ops.csv row of synth with its counted calls" "$(csvget "$res/ops.csv" synth regions)" 40
expect "--trace off: no op events, so no span (empty, not 0)" "$(csvget "$res/ops.csv" synth span_s)" ""
expect_pos "--trace off: its task-clock" "$(csvget "$res/ops.csv" synth task-clock_ns)"

# --counters none: nothing counted, nothing added
check_cli "--counters none" 0 'counters: none' -- run "${base[@]}" --counters none --tag none
res=$(lastdir none)
expect "none: the counters block says so" "$(jget "$res/summary.json" counters.list)" '"none"'
if ! head -1 "$res/ops.csv" | grep -q task-clock; then echo "ok - none: ops.csv as without counters"
else echo "not ok - none: ops.csv as without counters"; fi
expect "none: no on-CPU seconds in ops (null, never 0)" "$(jget "$res/summary.json" ops.synth.oncpu_s)" null
check "none: topology.xml in the results" grep -q '<topology' "$res/topology.xml"

# ---- hardware events where there is no PMU -----------------------------------------
# basic names only hardware events: each is not supported (null, never 0),
# and software events are counted instead, said in one line
no_pmu() {   # no_pmu "what" [env...]
	local what=$1 tag=$2
	shift 2
	env "$@" "$PPBENCH" run "${base[@]}" --counters basic --tag "$tag" >"$TMP/out" 2>"$TMP/err"
	local rc=$? res s
	expect "$what: the run completes" "$rc" 0
	drop_noise "$TMP/err"
	res=$(lastdir "$tag")
	s=$res/summary.json
	expect "$what: one line about the fallback (stderr)" \
		"$(grep -c 'no hardware event opens here' "$TMP/err")" 1
	expect "$what: the fallback line is the only message" "$(wc -l <"$TMP/err")" 1
	if grep -q '^  counters: no hardware event opens here (cycles: no hardware PMU (ENOENT)); counting software events instead: ' "$TMP/out"
	then echo "ok - $what: the summary says it in one line"
	else echo "not ok - $what: the summary says it in one line"; fi
	expect "$what: cycles is not supported" "$(jget "$s" counters.events.0.status)" '"not supported"'
	if jget "$s" counters.events.0.reason | grep -q 'no hardware PMU (ENOENT)'
	then echo "ok - $what: with the reason"; else echo "not ok - $what: with the reason"; fi
	expect "$what: cycles of synth: not supported" \
		"$(jget "$s" counters.ops.synth.events.cycles.status)" '"not supported"'
	expect "$what: cycles of synth: null, not 0" "$(jget "$s" counters.ops.synth.events.cycles.sum)" null
	expect "$what: instructions of collate: null" \
		"$(jget "$s" counters.ops.collate.events.instructions.sum)" null
	expect "$what: IPC null" "$(jget "$s" ops.synth.ipc)" null
	expect "$what: ops.csv cycles of synth empty" "$(csvget "$res/ops.csv" synth cycles)" ""
	expect "$what: ops.csv cache-misses of synth empty" "$(csvget "$res/ops.csv" synth cache-misses)" ""
	expect_pos "$what: fell back: task-clock counted" \
		"$(jget "$s" counters.ops.synth.events.task-clock.sum)"
	v=$(csvget "$res/ops.csv" synth page-faults)
	if is_num "$v"; then echo "ok - $what: fell back: page faults counted ($v)"
	else echo "not ok - $what: fell back: page faults counted ($v)"; fi
	if jget "$s" counters.fallback | grep -q 'counting software events instead'
	then echo "ok - $what: summary.json records the fallback"
	else echo "not ok - $what: summary.json records the fallback"; fi
}
pmu=$("$PPBENCH" info --counters basic --json 2>/dev/null | grep -c '"hardware_pmu": true')
if [ "$pmu" -eq 0 ]; then
	no_pmu "--counters basic here (no PMU)" basic
else
	skip "--counters basic without a PMU" "this machine has a PMU (the forced path is tested below)"
fi
no_pmu "PPBENCH_FORCE_NO_PMU=1" forced PPBENCH_FORCE_NO_PMU=1
expect "forced: recorded" "$(jget "$(lastdir forced)/summary.json" counters.forced_no_pmu)" true

# perf refused altogether: on-CPU time from the thread CPU clock
PPBENCH_FORCE_NO_PERF=1 "$PPBENCH" run "${base[@]}" --counters sw --tag noperf >"$TMP/out" 2>"$TMP/err"
expect "PPBENCH_FORCE_NO_PERF=1: the run completes" "$?" 0
s=$(lastdir noperf)/summary.json
expect "no perf: on-CPU time from the thread clock" "$(jget "$s" counters.oncpu_source)" '"thread-cpu-clock"'
expect_pos "no perf: on-CPU seconds of synth" "$(jget "$s" ops.synth.oncpu_s)"
expect "no perf: one line says so" "$(grep -c 'perf_event_open refused' "$TMP/err")" 1

# ---- pinning -----------------------------------------------------------------------
ncpu=$(nproc)
for be in process thread; do
	"$PPBENCH" run "${base[@]}" --pin compact --backend "$be" --tag "pin-$be" >"$TMP/out" 2>"$TMP/err"
	expect "--pin compact, $be workers: the run completes" "$?" 0
	s=$(lastdir "pin-$be")/summary.json
	expect "$be: the plan is recorded" "$(jget "$s" pin.policy)" '"compact"'
	expect "$be: worker 0 on the first CPU of the plan" "$(jget "$s" pin.worker.0.pu)" 0
	expect "$be: the option is echoed" "$(jget "$s" options.pin)" '"compact"'
	drop_noise "$TMP/err"
	if [ ! -s "$TMP/err" ]; then
		expect "$be: worker 0 pinned" "$(jget "$s" pin.worker.0.pinned)" true
		expect "$be: worker 1 pinned" "$(jget "$s" pin.worker.1.pinned)" true
	else
		# binding refused (a restricted cpuset): a warning and pinned: false
		expect "$be: binding failed: worker 0 not pinned" "$(jget "$s" pin.worker.0.pinned)" false
	fi
	if [ "$ncpu" -le 2 ]; then
		expect "$be: no CPU left for the main process" "$(jget "$s" pin.main.pinned)" false
	fi
	if grep -q '^placement: --pin compact: workers -> CPUs' "$TMP/out"
	then echo "ok - $be: the summary states the placement"
	else echo "not ok - $be: the summary states the placement"; fi
done
"$PPBENCH" run "${base[@]}" --pin 0 --workers 2 --tag pinlist >"$TMP/out" 2>&1
expect "--pin 0: both workers on CPU 0" \
	"$(jget "$(lastdir pinlist)/summary.json" pin.worker.1.cpu)" 0
expect "--pin none: nobody bound" \
	"$(jget "$(lastdir sw-process)/summary.json" pin.worker.0.pinned)" false
