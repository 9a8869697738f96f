# ppbench model: command-line contracts, the figures under the metric
# table's names, the worker sweep's knee, --validate against the paper
# (deterministic), and costs read from a measured run's results folder.
# Rows: description | exit code | expected text | arguments.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

check_cli "model --help lists the cost options"  0 '--batch-ms MS .*\(default: 0\)' -- model --help
check_cli "model is in the command list"         0 'model +a discrete-event model'  -- --help
check_cli "no cost source is refused"            2 'error: no costs to model: give one of --from' -- model
check_cli "two cost sources are refused"         2 'more than one cost source'      -- model --paper --batch-ms 10
check_cli "a bad --gpu-step is named"            2 "--gpu-step: 'fast' is not a time" -- model --paper --gpu-step fast
check_cli "a bad worker list is named"           2 "--workers: 'x' is not a list"   -- model --paper -w x
check_cli "a bad --fit is named"                 2 "--fit: '8' is not a list of W:MS pairs" -- model --paper --cores 16 --fit 8
check_cli "a missing results folder is named"    2 "cannot read '/nonexistent/summary.json'" -- model --from /nonexistent

# the loader's head-of-line scenario (tests/unit/test_loader.c): E2E 1.11 s, half out of order
check_cli "head-of-line scenario, exactly" 0 '^ +3 +1\.11 .* 50\.00 ' -- \
	model --batch-times 60,150,240,60,900,60,60,60,60,60 -w 3 -b 2 -n 20 --gpu-step 0

# a throughput per GPU: B / (G x rate) per batch
check_cli "--gpu-step in images/s" 0 'step 21\.33 ms per batch' -- model --paper -b 128 -g 2 --gpu-step 3000img/s -n 12800

# CSV: a header of metric-table names, deterministic for a seed
out1=$("$PPBENCH" model --paper -w "2 4" -b 256 -g 2 -n 100000 --csv --seed 5 2>&1)
out2=$("$PPBENCH" model --paper -w "2 4" -b 256 -g 2 -n 100000 --csv --seed 5 2>&1)
if printf '%s\n' "$out1" | head -1 | grep -q '^workers,e2e_s,images_per_s,ooo_pct,stall_pct,' &&
   [ "$(printf '%s\n' "$out1" | wc -l)" -eq 3 ] && [ "$out1" = "$out2" ]; then
	echo "ok - --csv: metric names, one row per worker count, the same for a seed"
else
	echo "not ok - --csv: metric names, one row per worker count, the same for a seed"
	printf '%s\n' "$out1" | head -3 | sed 's/^/#   /'
fi

# a worker sweep names its knee
check_cli "a worker sweep prints its knee" 0 '^knee: ' -- \
	model --batch-ms 7371.5 --batch-std 12.45 -b 1024 -g 4 -w "8 16 24" --cores 16 --alpha 0.01 --beta 0.35
check_cli "--fit prints what the parameters mean" 0 'fit: alpha 0\.00025 .* beta 0\.29 \(a second hardware thread adds 29 % of a core\), per-batch time alone 7998\.44 ms' -- \
	model -b 1024 -g 4 -w 8 --cores 16 -n 10240 \
	--fit "8:8017.95,12:12709.91,16:8953.95,20:10263.86,24:11400.16,28:12129.27"

# validation 1 (Figs. 4-5) is met; validation 3 (Fig. 6) is printed with its verdict
v=$("$PPBENCH" model --validate 2>&1)
if printf '%s\n' "$v" | grep -q '^validation 1: met: out-of-order median error' &&
   printf '%s\n' "$v" | grep -Eq '^validation 3: (met|NOT met): E2E within 10 % for W >= 16' &&
   printf '%s\n' "$v" | grep -q 'fitted to its per-batch times: alpha'; then
	echo "ok - --validate: Figs. 4-5 within the targets, Fig. 6 judged"
else
	echo "not ok - --validate: Figs. 4-5 within the targets, Fig. 6 judged"
	printf '%s\n' "$v" | grep '^validation' | sed 's/^/#   /'
fi

# costs from a measured run: per-sample costs from its LotusTrace files
ds=$TMP/model_ds
mkdir -p "$ds/c0"
for i in $(seq 10 33); do : >"$ds/c0/x$i.jpg"; done
cat >"$TMP/model.pipe" <<'EOF'
synth w=8 h=8
to_tensor
collate
EOF
if "$PPBENCH" run --data "$ds" --out "$TMP/model_runs" --pipeline "$TMP/model.pipe" --workers 1 \
	--batch 4 --gpu-step 0 >/dev/null 2>&1; then
	run=$(ls -d "$TMP"/model_runs/*/ | head -1)
	check_cli "--from a run: per-sample costs of its trace" 0 'costs from 24 per-sample costs' -- \
		model --from "$run" -w "1 2" -b 4 -n 24 --gpu-step 0
	rm -rf "$run/lotustrace"
	check_cli "--from a run without a trace: its batch times" 0 'costs from 6 per-batch times' -- \
		model --from "$run" -w 2 -b 4 -n 24 --gpu-step 0
else
	echo "not ok - a measured run for --from"
fi

# provisioning: the fewest workers for a GPU utilisation target, and the pin thread's cap
check_cli "--target-gpu-util: the fewest workers" 0 'workers: 20 \(5\.0 per GPU\)' -- \
	model --paper --gpus 4 --target-gpu-util 90 -b 1024
check_cli "--target-gpu-util: a pin copy longer than the step is named" 0 'the pin thread copies a batch in 19\.27 ms, longer than the step' -- \
	model --paper --gpus 8 --gpu-step 3000img/s --target-gpu-util 90 -b 256 -n 25600

# --out: a results folder per configuration, tool "model", whose keys are the metric table's
rm -rf "$TMP/model_out"
check_cli "--out writes a results folder per worker count" 0 'results: .*model-w4-b256-g2' -- \
	model --paper -w "2 4" -b 256 -n 25600 -o "$TMP/model_out"
d=$(ls -d "$TMP"/model_out/*model-w2-b256-g2 2>/dev/null | head -1)
if [ -n "$d" ] && grep -q '"tool": "model"' "$d/summary.json" && [ -s "$d/batches.csv" ] &&
   "$PPBENCH" metrics "$d" >/dev/null 2>&1; then
	echo "ok - the model's summary.json holds the metric table's keys"
else
	echo "not ok - the model's summary.json holds the metric table's keys"
fi

# report --model on: the model's lines beside the measured ones against workers
rm -rf "$TMP/model_tiny" && cp -r "$top/tests/fixtures/sweep/tiny" "$TMP/model_tiny"
check_cli "report --model on" 0 'report\.html' -- report "$TMP/model_tiny" --model on
if grep -q '^2,model: b8 / 1 GPU,2,8,1,1,0\.' "$TMP/model_tiny/figures/data/vs_workers.csv"; then
	echo "ok - report --model on: a model series in vs_workers.csv"
else
	echo "not ok - report --model on: a model series in vs_workers.csv"
fi
check_cli "report --model takes on or off" 2 "--model: 'maybe' is not on or off" -- report "$TMP/model_tiny" --model maybe
check_cli "sweep --help lists --model" 0 '--model on\|off +add the model' -- sweep --help

# validation 2's decomposition against a scripted sweep whose terms are known:
# 4 samples of 5 ms (sleep) a batch, a 10 ms step, 18 batches (3 epochs of
# 24 images), W = 1 and 2: measured and modelled, the GPU is 18 x 10 ms, a
# batch 20 ms and a little of the worker's own work, and the main thread's
# E2E is its waits + the GPU + its own work
cat >"$TMP/model_sleep.pipe" <<'PIPE'
synth w=8 h=8
sleep ms=5
to_tensor
collate
PIPE
rm -rf "$TMP/model_sw"
if "$PPBENCH" sweep --data "$ds" --pipeline "$TMP/model_sleep.pipe" --workers "1 2" --batch 4 \
	--gpu-step 10ms --epochs 3 --pin-memory off --report off --fused off --out "$TMP/model_sw" \
	>/dev/null 2>&1; then
	sw=$(ls -d "$TMP"/model_sw/*-sweep | head -1)
	# (the exit status is validation 3's too: not checked here)
	v2=$("$PPBENCH" model --validate "$sw" 2>&1)
	if [ "$(printf '%s\n' "$v2" | grep -Ec 'measured / model: wait [0-9.]+ / [0-9.]+ s, main .* GPU 0\.[12][0-9]+ / 0\.[12][0-9]+ s .*workers: batch [23][0-9.]+ / [23][0-9.]+ ms')" -eq 2 ]; then
		echo "ok - --validate SWEEP: each row with its decomposition"
	else
		echo "not ok - --validate SWEEP: each row with its decomposition"
		printf '%s\n' "$v2" | sed -n '/^validation 2/,$p' | sed 's/^/#   /'
	fi
	if printf '%s\n' "$v2" | grep -q '^validation 2: cannot be judged: no configuration had runs of 100 batches'; then
		echo "ok - --validate SWEEP: runs under 100 batches are shown, not judged"
	else
		echo "not ok - --validate SWEEP: runs under 100 batches are shown, not judged"
	fi
	rows=$("$PPBENCH" model --validate --csv "$sw" 2>/dev/null | awk -F, -v OFS=, '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == 2 {
			bad = ""
			for (k = 0; k < 2; k++) {
				p = k ? "model_" : "measured_"
				e2e = $c[p "e2e_s"]; w = $c[p "wait_s"]; m = $c[p "main_s"]; g = $c[p "gpu_s"]; b = $c[p "batch_ms"]
				if (g < 0.17 || g > 0.25) bad = bad " " p "gpu " g
				if (b < 20 || b > 35) bad = bad " " p "batch " b
				d = e2e - w - m - g; if (d < -0.002 || d > 0.002) bad = bad " " p "sum " d
			}
			print $4 (bad == "" ? " ok" : bad)
		}')
	if [ "$(printf '%s\n' "$rows" | grep -c ' ok$')" -eq 2 ]; then
		echo "ok - --validate --csv: the decomposition of a scripted sweep holds its known terms"
	else
		echo "not ok - --validate --csv: the decomposition of a scripted sweep holds its known terms"
		printf '%s\n' "$rows" | sed 's/^/#   /'
	fi
else
	echo "not ok - a scripted sweep for --validate"
fi
