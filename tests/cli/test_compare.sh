# Contract tests of `ppbench compare`: its options and refusals (no PyTorch
# needed: they stop before anything runs, nothing is left behind), the
# message when python3-torch is missing, and, when Debian's python3-torch is
# installed (scripts/install-deps.sh --oracle; CI does not install it), a
# small comparison end to end (W=2, two repeats: medians with their spread,
# ratios "within noise" or not, compare.json with every repeat's values and
# noise window) with identical tensors in the fidelity check, on the train
# and the val chain.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$TMP/compare_out


# ---- options and refusals: exit 2, nothing run, no folder ----------------------
check_cli "compare --help: its options" 0 '--fidelity N' -- compare --help
check_cli "compare --help: the run options too" 0 '--prefetch-factor P' -- compare --help
check_cli "compare --help: how to install the oracle" 0 'install-deps.sh --oracle' -- compare --help
check_cli "refused: --order arrival (PyTorch 1.13 has no in_order=False)" 2 \
	'--order arrival: PyTorch 1.13' -- compare --order arrival --out "$out"
check_cli "refused: --trace off" 2 '--trace off: compare reads' -- compare --trace off --out "$out"
check_cli "refused: --no-trace" 2 '--trace off' -- compare --no-trace --out "$out"
check_cli "refused: --dump-batches" 2 '--dump-batches: compare' -- compare --dump-batches 2 --out "$out"
check_cli "refused: --fidelity x" 2 "--fidelity: 'x' is not" -- compare --fidelity x --out "$out"
check_cli "refused: --repeat 0" 2 "--repeat: 0 is out of range" -- compare --repeat 0 --out "$out"
check_cli "refused: --require-idle=150" 2 "--require-idle: 150 is out of range" -- compare --require-idle=150 --out "$out"
check_cli "compare --help: --repeat" 0 '--repeat N' -- compare --help
# the two tables (bench/cli/cmd_compare.c): a mistyped option is named with
# the nearest of compare's and run's options, not passed on to run
check_cli "compare --fidelty: did you mean --fidelity" 2 "unknown option '--fidelty'; did you mean '--fidelity'\?" -- \
	compare --fidelty 1 --out "$out"
check_cli "compare --wrokers: did you mean --workers (a run option)" 2 "did you mean '--workers'\?" -- \
	compare --wrokers 2 --out "$out"
check_cli "compare --help: the run options under their own heading" 0 '^run options \(passed on to ppbench run\):' -- \
	compare --help
check_cli "refused: a pipeline with no torchvision equivalent" 2 \
	"op 'synth' has no torchvision equivalent" -- \
	compare --pipeline "$top/tests/fixtures/pipelines/synth.pipe" --out "$out"
check_cli "refused: an unknown pipeline" 2 'pipeline' -- compare --pipeline nope --out "$out"
check_cli "compare --help: --fused" 0 '--fused NAME\|FILE\|off' -- compare --help
check_cli "refused: an unknown --fused pipeline" 2 "no pipeline named 'nope'.*\(--fused\)" -- \
	compare --fused nope --out "$out"
check_cli "refused: --fused the pipeline itself" 2 '--fused imagenet_train: that is the pipeline' -- \
	compare --fused imagenet_train --out "$out"

# no python3-torch: says how to install it, exit 2
check_cli "no such python: how to install the oracle" 2 \
	'python3-torch.*install-deps.sh --oracle' -- compare --python "$TMP/no-python" --out "$out"
cat >"$TMP/fakepython" <<'EOF'
#!/bin/sh
echo '{"error": "ModuleNotFoundError: No module named '"'"'torch'"'"'"}'
exit 3
EOF
chmod +x "$TMP/fakepython"
check_cli "python without torch: the import error and the install command" 2 \
	"No module named 'torch'.*install-deps.sh --oracle" -- \
	compare --python "$TMP/fakepython" --out "$out"
if [ -e "$out" ]; then echo "not ok - refusals leave no folder"; else echo "ok - refusals leave no folder"; fi

# a bad run option is refused before anything runs (read with run's table): exit 2,
# nothing kept
if /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
	check_cli "a bad run option: exit 2 from run" 2 "--workers: 'x' is not an integer" -- \
		compare --workers x --out "$out"
	n=$(find "$out" -mindepth 1 2>/dev/null | wc -l)
	if [ "$n" -eq 0 ]; then echo "ok - a refused run leaves nothing"
	else echo "not ok - a refused run leaves nothing ($n entries)"; fi
fi

# ---- end to end, with Debian's python3-torch --------------------------------------
if ! /usr/bin/python3 -c 'import torch, torchvision, PIL' 2>/dev/null; then
	skip "compare end to end (W=2, fidelity)" \
		"python3-torch is not installed for /usr/bin/python3 (scripts/install-deps.sh --oracle)"
	exit 0
fi
ds=$TMP/compare_ds
"$PPBENCH" dataset generate --out "$ds" --images 40 --classes 4 --quiet on >/dev/null 2>&1 ||
	echo "not ok - generate the test dataset"

log=$TMP/compare.log
"$PPBENCH" compare --data "$ds" --workers 2 --batch 4 --max-batches 6 --gpu-step 5ms \
	--fidelity 3 --repeat 2 --tag t1 --out "$out" >"$log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then echo "ok - compare W=2 B=4 runs end to end"
else echo "not ok - compare W=2 B=4 runs end to end: exit $rc"; sed 's/^/#   /' "$log" | tail -20; fi
dir=$(ls -d "$out"/*-compare-t1 2>/dev/null | head -1)
if [ -n "$dir" ]; then echo "ok - folder <UTC>-compare-<tag>"; else echo "not ok - folder <UTC>-compare-<tag>"; dir=$out/none; fi
if grep -q '^fidelity: tensors identical (first 3 batches: 12 images' "$log"; then
	echo "ok - fidelity: tensors identical on the test dataset (--rng torch)"
else
	echo "not ok - fidelity: tensors identical on the test dataset"
	grep '^fidelity' "$log" | sed 's/^/#   /'
fi
check "fidelity.json says identical" grep -q '"identical": true' "$dir/fidelity/fidelity.json"
check "dumps removed after the check" test ! -e "$dir/fidelity/ppbench/batches/batch_0.npy"
for f in compare.md compare.csv ppbench/summary.json ppbench/batches.csv pytorch/summary.json \
	 pytorch/batches.csv pytorch/ops.csv pytorch/trace.json.gz pytorch/run.json pytorch/config.json \
	 logs/ppbench.log logs/pytorch.log; do
	check "compare folder has $f" test -s "$dir/$f"
done
# compare.md records what ran and links its figures
check "compare.md: configuration, dataset and seed" sh -c "grep -q '^## What ran' '$dir/compare.md' &&
	grep -q '^- pipeline .* on the dataset $ds' '$dir/compare.md' &&
	grep -q '^- 2 workers, batch 4, 2 simulated GPUs' '$dir/compare.md' &&
	grep -q 'seed 0, --rng' '$dir/compare.md'"
if need gnuplot; then
	check "compare.md links its figures" grep -q '^!\[ops\](figures/ops.png)' "$dir/compare.md"
fi
n=$(ls "$dir"/pytorch/lotustrace/b4_gpu2/lotustrace_log_worker_pid_* 2>/dev/null | wc -l)
if [ "$n" -eq 2 ]; then echo "ok - PyTorch side: one LotusTrace file per worker"
else echo "not ok - PyTorch side: one LotusTrace file per worker ($n)"; fi
check "PyTorch side: a main LotusTrace file" ls "$dir"/pytorch/lotustrace/b4_gpu2/lotustrace_log_main_pid_*
# the same batches on both sides: 6 batches, 24 images
check "both sides: 24 images, in both repeats" grep -q '^images,count,24,24,1,2,24,24,24,24,1,1,min-max,same$' "$dir/compare.csv"
check "both sides: 6 batches" grep -q '^batches,count,6,6,1,2,' "$dir/compare.csv"
for op in decode random_resized_crop random_horizontal_flip to_tensor normalize; do
	check "table: $op mean on both sides, with a ratio" \
		grep -Eq "^op_${op}_mean_ms,ms/image,[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+,2,([0-9.e+-]+,){6}min-max,(ppbench higher|ppbench lower|within noise|same)$" "$dir/compare.csv"
done
# the rows are the metric table's names (ppbench metrics)
for m in e2e_s images_per_s ooo_pct stall_pct workers_cpu_s worker_rss_max_kib wait_p90_ms \
	 delay_p90_ms; do
	check "table: $m" grep -Eq "^$m," "$dir/compare.csv"
done
check "PyTorch summary: tool pytorch" grep -q '"tool": "pytorch"' "$dir/pytorch/summary.json"
# the second repeat: its own folders, PyTorch first
for f in ppbench-r2/summary.json pytorch-r2/summary.json logs/ppbench-r2.log logs/pytorch-r2.log compare.json; do
	check "repeat 2: $f" test -s "$dir/$f"
done
check "repeat 2 ran PyTorch first" grep -q '^repeat 2 of 2: PyTorch first' "$log"
check "the table: a median with its spread" grep -Eq '^\| e2e_s \| s \| [0-9.]+ \(min [0-9.]+, max [0-9.]+, n=2\) \|' "$log"
if /usr/bin/python3 - "$dir/compare.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["repeats"] == 2 and j["first_side"] == ["ppbench", "pytorch"]
m = {x["metric"]: x for x in j["metrics"]}
e = m["e2e_s"]
assert len(e["ppbench"]) == 2 and len(e["pytorch"]) == 2 and len(e["ratio"]) == 2
for k in range(2):
    assert abs(e["ratio"][k] - e["ppbench"][k] / e["pytorch"][k]) < 1e-9
r = e["ratio_summary"]
assert r["n"] == 2 and r["lo"] <= r["median"] <= r["hi"] and r["interval"] == "min-max"
assert e["ratio_verdict"] in ("ppbench higher", "ppbench lower", "within noise")
assert m["images"]["ratio_verdict"] == "same"
n = j["noise"]
assert len(n["repeats"]) == 2 and "others_cpu_pct" in n["repeats"][0]
assert isinstance(n["noisy"], bool) and "cpus_usable" in n["cpus"]
d = j["dataset"]
assert d["generated"] is True and d["profile"] == "imagenet" and d["images"] == 40
PY
then echo "ok - compare.json: per-repeat values, ratios, intervals, verdicts, noise windows, dataset"
else echo "not ok - compare.json: per-repeat values, ratios, intervals, verdicts, noise windows, dataset"; fi
check "PyTorch side: pin memory requested, not effective" \
	grep -q '"pin_memory_effective": false' "$dir/pytorch/run.json"
check "output says pin memory is off on the PyTorch side" \
	grep -q 'silently disables pin_memory' "$log"
check "output names the ATen CPU capability" grep -q 'ATen CPU capability' "$log"
if need gnuplot; then
	for f in ops wait_cdf delay_cdf preproc_cdf batches; do
		check "figure $f.png and .svg" test -s "$dir/figures/$f.png" -a -s "$dir/figures/$f.svg"
	done
fi

# the fused what-if (on by default for imagenet_train): a third side, its
# tensors the faithful side's (checksums of every repeat, and bit for bit
# in the fidelity check), its figures beside both
for f in fused/summary.json fused-r2/summary.json logs/fused.log logs/fused-r2.log compare_fused.csv; do
	check "fused what-if: $f" test -s "$dir/$f"
done
check "fused what-if: the section, with images/s of the three" \
	grep -Eq '^\| images/s \| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ ' "$log"
check "fused what-if: the checksums agree" grep -q "^- tensors: the fused side's checksum is the faithful side's in every repeat" "$log"
check "fused what-if: bit for bit in the fidelity check" \
	grep -q '^fidelity (fused against faithful): tensors identical (first 3 batches: 12 images' "$log"
check "fused what-if: no warning that the tensors differ" sh -c "! grep -q 'FUSED TENSORS DIFFER' '$log'"
check "fused what-if: in compare.md" grep -q '^## Fused what-if: imagenet_train_fused against imagenet_train' "$dir/compare.md"
for c in faithful_images_per_s fused_images_per_s pytorch_images_per_s fused_over_faithful_images_per_s \
	 fused_over_pytorch_images_per_s workers_cpu_saved_per_image_ms fused_full_decodes; do
	check "compare_fused.csv: $c" grep -Eq "^$c,[a-z/]+,[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+,2,min-max," "$dir/compare_fused.csv"
done
check "compare_fused.csv: 24 images by region, identical tensors" sh -c \
	"grep -q '^fused_region_decodes,count,24,24,24,2,' '$dir/compare_fused.csv' &&
	 grep -q '^fused_tensors_identical,bool,1,1,1,2,' '$dir/compare_fused.csv'"
if /usr/bin/python3 - "$dir/compare.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f = j["fused"]
assert f["tensors_identical"] is True and len(f["checksums"]) == 2
assert all(c["faithful"] == c["fused"] for c in f["checksums"])
m = {x["figure"]: x for x in f["figures"]}
q = m["fused_over_faithful_images_per_s"]
a, b = m["faithful_images_per_s"]["values"], m["fused_images_per_s"]["values"]
for k in range(2):
    assert abs(q["values"][k] - b[k] / a[k]) < 1e-9
assert q["verdict"] in ("fused higher", "fused lower", "within noise")
assert m["fused_region_decodes"]["values"] == [24, 24]
PY
then echo "ok - compare.json: the fused what-if's values, ratios and checksums"
else echo "not ok - compare.json: the fused what-if's values, ratios and checksums"; fi

# the val chain: Resize(256), CenterCrop(224), no random op
"$PPBENCH" compare --data "$ds" --pipeline imagenet_val --workers 2 --batch 5 --max-batches 2 \
	--gpu-step 0 --fidelity 2 --repeat 1 --tag val --out "$out" >"$log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^fidelity: tensors identical (first 2 batches: 10 images' "$log"; then
	echo "ok - imagenet_val: tensors identical"
else
	echo "not ok - imagenet_val: tensors identical (exit $rc)"
	sed 's/^/#   /' "$log" | tail -8
fi
vdir=$(ls -d "$out"/*-compare-val 2>/dev/null | head -1)
check "imagenet_val: no fused what-if (it has no fused counterpart)" \
	sh -c "test -d '$vdir' && test ! -e '$vdir/fused' && ! grep -q 'Fused what-if' '$log'"

# --fused off: the two sides only
"$PPBENCH" compare --data "$ds" --fused off --workers 1 --batch 4 --max-batches 2 --gpu-step 0 \
	--fidelity 1 --repeat 1 --tag off --out "$out" >"$log" 2>&1
odir=$(ls -d "$out"/*-compare-off 2>/dev/null | head -1)
check "--fused off: no fused side, no section, no compare_fused.csv" \
	sh -c "test -d '$odir' && test ! -e '$odir/fused' && test ! -e '$odir/compare_fused.csv' &&
	       ! grep -q 'Fused what-if' '$log' && ! grep -q 'fused against faithful' '$log'"

