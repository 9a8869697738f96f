# The fused what-if of a sweep (--fused): measured before the runs on the
# sweep's dataset into sweep.json's "fused_whatif", shown by the report as
# the CPU cores per GPU faithful and fused and those saved; --fused off, and
# pipelines without a fused counterpart, leave it out. No timing targets.
. "$(dirname "$0")/lib.sh"

DS=$TMP/whatif-ds
OUT=$TMP/whatif-out
"$PPBENCH" dataset generate --out "$DS" --images 12 --classes 2 --quiet >/dev/null 2>&1 ||
	{ echo "not ok - generate the tiny dataset"; exit 1; }
small=(--data "$DS" --workers 1 --batch 4 --gpus 1 --max-batches 1 --report on --out "$OUT")

check_cli "sweep --help: --fused" 0 '--fused NAME\|FILE\|on\|off' -- sweep --help
check_cli "refused: --fused with an unknown pipeline" 2 "--fused: no pipeline named 'nope'" -- \
	sweep "${small[@]}" --fused nope --tag bad
check "a refused --fused leaves no sweep folder" sh -c "! ls -d '$OUT'/*-sweep-bad 2>/dev/null"

# 1. on by default for imagenet_train
check_cli "a sweep with the fused what-if" 0 "report.html" -- sweep "${small[@]}" \
	--fused-images 8 --tag on
S=$(ls -d "$OUT"/*-sweep-on 2>/dev/null | head -1)
if /usr/bin/python3 - "$S/sweep.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["fused_whatif"]
assert w["faithful_pipeline"] == "imagenet_train" and w["fused_pipeline"] == "imagenet_train_fused"
assert w["single_threaded"] is True and w["images"] == 8 and w["rounds"] == 6
assert w["tensors_identical"] is True and w["faithful_checksum"] == w["fused_checksum"]
assert w["region_decodes"] + w["full_decodes"] == 8
for k in ("faithful_cpu_ms_per_image", "fused_cpu_ms_per_image", "saved_cpu_ms_per_image",
          "fused_over_faithful_images_per_s"):
    v = w[k]["values"]
    assert len(v) == 6 and all(x is not None for x in v), k
    s = w[k]["summary"]
    assert s["n"] == 6 and s["interval"] == "ci95" and s["lo"] <= s["median"] <= s["hi"], k
for a, b, d in zip(w["faithful_cpu_ms_per_image"]["values"], w["fused_cpu_ms_per_image"]["values"],
                   w["saved_cpu_ms_per_image"]["values"]):
    assert abs(a - b - d) < 1e-9
PY
then echo "ok - sweep.json: the what-if's figures per pass, intervals, identical tensors"
else echo "not ok - sweep.json: the what-if's figures per pass, intervals, identical tensors"; fi
check "report: the what-if section" grep -q '^## What-if: a fused crop-decode' "$S/report.md"
check "report: labelled a single-threaded what-if" grep -q 'what-if from a single-threaded measurement' "$S/report.md"
check "report: identical tensors" grep -q '^Tensors: identical (checksum' "$S/report.md"
check "report: cores per GPU faithful, fused, saved" \
	grep -Eq '^\| 4 \| 1 \| [0-9.]+ \| [0-9]+ \| [0-9.]+ .*\| [0-9.]+ .*\| -?[0-9.]+ ' "$S/report.md"
check "report.html: the section too" grep -q 'What-if: a fused crop-decode' "$S/report.html"

# 2. no GPU time: per 1,000 images/s
check_cli "a sweep with --gpu-step 0" 0 "report.html" -- sweep "${small[@]}" --fused-images 4 \
	--gpu-step 0 --tag zero
S=$(ls -d "$OUT"/*-sweep-zero 2>/dev/null | head -1)
check "report: per 1,000 images/s without GPU time" \
	grep -Eq '^\| 4 \| 1 \| 0 \(no GPU time\) \| per 1,000 \|' "$S/report.md"

# 3. --fused off, and a pipeline without a fused counterpart: nothing
check_cli "a sweep with --fused off" 0 "report.html" -- sweep "${small[@]}" --fused off --tag off
S=$(ls -d "$OUT"/*-sweep-off 2>/dev/null | head -1)
check "--fused off: no fused_whatif in sweep.json" sh -c "! grep -q fused_whatif '$S/sweep.json'"
check "--fused off: no what-if section" sh -c "! grep -q 'What-if: a fused' '$S/report.md'"
check_cli "a sweep of imagenet_val" 0 "report.html" -- sweep "${small[@]}" --pipeline imagenet_val \
	--tag val
S=$(ls -d "$OUT"/*-sweep-val 2>/dev/null | head -1)
check "imagenet_val: no fused what-if" sh -c "! grep -q fused_whatif '$S/sweep.json'"
