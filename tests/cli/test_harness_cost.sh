# Contract tests of the harness's cost per sample beside the pipeline's
# (summary.json "harness"): a run of the null pipeline and of imagenet_train
# on a tiny generated dataset has the figures, each > 0 where it must be,
# consistent with each other and with the run's wall time; the human
# summary prints them; --repeat combines them; the run report lists them.
# No timing targets: only signs and bounds that hold on any machine.
. "$(dirname "$0")/lib.sh"
need jq awk || exit 0

ds=$TMP/harness_ds
out=$TMP/harness_out
"$PPBENCH" dataset generate --out "$ds" --images 16 --classes 2 --quiet on >/dev/null 2>&1 ||
	echo "not ok - dataset generate"
base=(--data "$ds" --out "$out" --workers 2 --gpu-step 0)

# awk's verdict on an expression of the figures: ok when it holds
holds() {
	local what=$1 expr=$2
	shift 2
	if awk "$@" "BEGIN { exit !($expr) }" 2>/dev/null; then echo "ok - $what"
	else echo "not ok - $what ($expr with $*)"; fi
}

# run_case NAME PIPELINE ARGS...: one run, its figures checked
run_case() {
	local name=$1 pipe=$2
	shift 2
	local log=$TMP/harness_$name.log
	if ! "$PPBENCH" run "${base[@]}" --pipeline "$pipe" --tag "$name" "$@" >"$log" 2>&1; then
		echo "not ok - $name: the run failed"
		sed 's/^/#   /' "$log" | tail -5
		return
	fi
	local res
	res=$(ls -d "$out"/*-"$name" | head -1)
	local s=$res/summary.json
	check "$name: every key of the metric table (ppbench metrics DIR)" "$PPBENCH" metrics "$res"
	local h hw hm p r e2e n w
	h=$(jq '.harness.per_sample_us' "$s")
	hw=$(jq '.harness.workers_per_sample_us' "$s")
	hm=$(jq '.harness.main_per_sample_us' "$s")
	p=$(jq '.harness.pipeline_per_sample_us' "$s")
	r=$(jq '.harness.to_pipeline_ratio' "$s")
	e2e=$(jq '.e2e_s' "$s")
	n=$(jq '.images' "$s")
	w=$(jq '.workers' "$s")
	holds "$name: harness per sample > 0" "h > 0" -v h="$h"
	holds "$name: workers' and main's harness >= 0, summing to it" \
		"hw >= 0 && hm >= 0 && (hw + hm - h) ^ 2 < 1e-12 * (h ^ 2 + 1e-9)" -v hw="$hw" -v hm="$hm" -v h="$h"
	holds "$name: pipeline per sample > 0" "p > 0" -v p="$p"
	holds "$name: ratio = harness / pipeline" "(r - h / p) ^ 2 < 1e-12 * (r ^ 2 + 1e-9)" \
		-v r="$r" -v h="$h" -v p="$p"
	# the workers' share and the ops fit in the workers' wall time, the main
	# process's (main thread and pin thread) in twice the run's
	holds "$name: workers' harness + pipeline <= workers' wall time per sample" \
		"hw + p <= w * e2e * 1e6 / n" -v hw="$hw" -v p="$p" -v w="$w" -v e2e="$e2e" -v n="$n"
	holds "$name: main's harness <= 2 x the run's wall time per sample" \
		"hm <= 2 * e2e * 1e6 / n" -v hm="$hm" -v e2e="$e2e" -v n="$n"
	holds "$name: pin copy and GPU overshoot are measured (>= 0)" "pc >= 0 && go >= 0" \
		-v pc="$(jq '.harness.pin_copy_s' "$s")" -v go="$(jq '.harness.gpu_overshoot_s' "$s")"
	check "$name: the summary prints the harness beside the pipeline" \
		grep -Eq '^per sample: harness [0-9.]+ us \(workers [0-9.]+, main [0-9.]+(; checksum [0-9.]+ of it)?\), pipeline [0-9.]+ us' "$log"
}

# the null pipeline, trace off (the op spans come from the workers' sums)
run_case null null --batch 4 --epochs 4 --trace off
res=$(ls -d "$out"/*-null | head -1)
p=$(jq '.harness.pipeline_per_sample_us' "$res/summary.json")
holds "null: the null op is cheap beside the harness (ratio > 1)" "r > 1" \
	-v r="$(jq '.harness.to_pipeline_ratio' "$res/summary.json")"

# imagenet_train, trace on: the workers' own op sums are the op events' sums
run_case train imagenet_train --batch 8 --checksum on
res=$(ls -d "$out"/*-train | head -1)
s=$res/summary.json
holds "train: pipeline per sample = ops' spans per image (trace on)" \
	"(p - o * 1000) ^ 2 < 1e-6 * p ^ 2" -v p="$(jq '.harness.pipeline_per_sample_us' "$s")" \
	-v o="$(jq '.cpu.ops_span_per_image_ms' "$s")"

# no simulated copy (--h2d-bandwidth 0, as its help says)
run_case nocopy null --batch 4 --epochs 2 --h2d-bandwidth 0
res=$(ls -d "$out"/*-nocopy | head -1)
same "nocopy: --h2d-bandwidth 0 is no copy" "$(jq '.loader.h2d_bandwidth_bytes_per_s' "$res/summary.json")" 0

# a policy, thread backend and pin memory off: the same figures
run_case sq null --batch 4 --epochs 2 --policy shared-queue --backend thread --pin-memory off
res=$(ls -d "$out"/*-sq | head -1)
same "sq: no pin copy with pin memory off" "$(jq '.harness.pin_copy_s' "$res/summary.json")" 0

# --repeat: the figures combined with their spread; the report lists them
log=$TMP/harness_rep.log
"$PPBENCH" run "${base[@]}" --pipeline null --batch 4 --tag rep --repeat 2 >"$log" 2>&1
check "--repeat: the harness's median over the repeats" grep -Eq '^  harness_per_sample_us +[0-9.e+-]+ .* us$' "$log"
check "--repeat: the pipeline's median over the repeats" grep -Eq '^  pipeline_per_sample_us +[0-9.e+-]+ .* us$' "$log"
res=$(ls -d "$out"/*-rep-r1 | head -1)
if "$PPBENCH" report "$res" >/dev/null 2>&1 && [ -f "$res/report.md" ]; then
	check "report: the harness per sample" grep -q 'harness_per_sample_us' "$res/report.md"
	check "report: the pipeline per sample" grep -q 'pipeline_per_sample_us' "$res/report.md"
else
	echo "not ok - report of a run"
fi
