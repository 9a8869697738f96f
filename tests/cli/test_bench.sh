# ppbench bench (make bench): every target printed with its interval and a
# verdict (met / NOT met / within noise), and a results folder with
# bench.json and bench.csv. A tiny run: timings here are not judged.
. "$(dirname "$0")/lib.sh"
ds=$TMP/bench_ds
out=$TMP/bench_out
"$PPBENCH" dataset generate --out "$ds" --images 16 --classes 2 --quiet on >/dev/null 2>&1 ||
	echo "not ok - generate the bench dataset"
small=(--data "$ds" --images 16 --batch 8 --rounds 2 --out "$out" --sections ops,kernels,bounds,fused,decode)

check_cli "bench --help names the results folder" 0 'bench.json, bench.csv' -- bench --help
check_cli "bench: a bad section list"            2 "--sections: unknown section 'opz'" -- bench --sections opz
# every section the default list names is one bench knows (a merge once left 'model' out)
check_cli "bench: the default sections are all known" 2 "\(sections: $("$PPBENCH" bench --help | sed -n 's/.*--sections LIST *which sections to run (default: \(.*\))/\1/p' | sed 's/,/, /g')\)" -- bench --sections opz
check_cli "bench: targets with a verdict"        0 'decode ppbench / TurboJPEG: [0-9.]+ \(min [0-9.]+, max [0-9.]+, n=2\); target <= 1.050: (met|NOT met|within noise)' -- bench "${small[@]}"
"$PPBENCH" bench --data "$ds" --rounds 2 --out "$TMP/bench_bounds" --sections bounds >"$TMP/bench_bounds.txt" 2>&1
d=$(ls -d "$out"/*-bench 2>/dev/null | head -1)
check "bench leaves a results folder" test -d "$d"
check "bench.json holds the figures and the machine" \
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['kind']=='bench' and j['machine'] and j['noise']; f=[x for x in j['figures'] if x['figure']=='work after decode / decode'][0]; assert f['n']==2 and f['direction']=='at_most' and f['verdict'] in ('met','not met','within noise')" "$d/bench.json"
check "bench.csv has one row per figure" \
	bash -c "head -1 '$d/bench.csv' | grep -qx 'section,figure,unit,n,median,lo,hi,interval,target,direction,verdict' && grep -q '^ops,to_tensor ms per image,ms,2,' '$d/bench.csv'"

# the ops' kernels: chosen at start-up, forced with PPBENCH_KERNEL, recorded
PPBENCH_KERNEL=avx3 check_cli "PPBENCH_KERNEL: an unknown kernel" 2 "PPBENCH_KERNEL: unknown kernel 'avx3' \(kernels: sse2, avx2, avx512, avx512vnni, auto\)" -- info --counters none
PPBENCH_KERNEL=sse2 check_cli "PPBENCH_KERNEL=sse2 in info" 0 '^kernels +sse2 \(PPBENCH_KERNEL=sse2; sse2 yes' -- info --counters none
check_cli "info names the kernels" 0 '^kernels +(sse2|avx2|avx512|avx512vnni) \(auto: the widest this CPU runs' -- info --counters none
check "bench.json records the kernels" grep -q '"chosen_by": "auto"' "$d/bench.json"
run_out=$TMP/bench_run
PPBENCH_KERNEL=sse2 "$PPBENCH" run --data "$ds" --out "$run_out" --workers 1 --batch 4 --max-batches 2 --gpu-step 0 >/dev/null 2>&1
check "summary.json records the kernels a run used" grep -q '"kernels": "sse2"' "$run_out"/*/summary.json
check "bounds: each op's time / bound judged" \
	bash -c "grep -q '^bounds,to_tensor time / bound,ratio,2,.*,2,at_most,' '$d/bench.csv' && grep -q '^bounds,random_resized_crop (resample) achieved GMAC/s,GMAC/s,2,' '$d/bench.csv'"
# the resampler against 3x its exact bound, with every kernel side by side, and the mixes
check "bounds: the resampler judged against 3x the best exact mix, each kernel beside it" \
	bash -c "grep -q '^bounds,random_resized_crop (resample) time / bound,ratio,2,.*,3,at_most,' '$d/bench.csv' && grep -q '^bounds,random_resized_crop (resample) with sse2 time / bound,ratio,2,' '$d/bench.csv' && grep -q '^| sse2 | 2 pmaddwd' '$TMP/bench_bounds.txt'"
check "fused: identical tensors to the faithful pipeline, judged" \
	bash -c "grep -q '^fused,fused tensors identical to faithful (1 yes 0 no),bool,1,1,' '$d/bench.csv' && grep -q '^fused,fused / faithful images/s,ratio,2,.*,1.6,at_least,' '$d/bench.csv'"
check_cli "kernels: every kernel the CPU runs gives the same tensors" 0 'checksums: (identical with every kernel|one kernel only)' -- bench --data "$ds" --images 8 --batch 4 --rounds 1 --out "$out" --sections kernels
check_cli "harness: the null pipeline's rate against 0.5 M samples/s" 0 'null pipeline samples/s \(2 workers\): [0-9]+ samples/s; target >= 500000: (met|NOT met|within noise)' -- bench --data "$ds" --repeats 1 --out "$out" --sections harness

# issue 22: the batch sizes (the same images at each; is the harness's cost
# per image flat?) and the chain against its lower bound from measured parts
check_cli "bench: a bad --batch-sizes is refused before anything runs" 2 \
	"--batch-sizes: '8,x' is not a list of up to 8 batch sizes" -- bench --batch-sizes 8,x
log=$TMP/bench_batch.log
"$PPBENCH" bench --data "$ds" --repeats 2 --batch-sizes 4,8 --sections batch,chain --out "$out" \
	--tag batch >"$log" 2>&1
check "batch: the whole tree's CPU per image, largest / smallest batch, judged against 1.10" \
	grep -Eq '^process tree CPU per image, B=8 / B=4: [0-9.]+ \(min [0-9.]+, max [0-9.]+, n=2\); target <= 1.100: (met|NOT met|within noise)$' "$log"
check "batch: the whole run's CPU per image (set-up and teardown in), largest / smallest batch, judged against 1.10" \
	grep -Eq '^whole run CPU per image \(with the main process.s set-up and teardown\), B=8 / B=4: [0-9.]+ \(min [0-9.]+, max [0-9.]+, n=2\); target <= 1.100: (met|NOT met|within noise)$' "$log"
check "batch: whether the harness's cost per image is flat, on its interval" \
	grep -Eq '^harness per image in the steady state \(start-up apart\), B=8 - B=4: -?[0-9.]+ \(min -?[0-9.]+, max -?[0-9.]+, n=2\) us: the harness.s cost per image is (flat \(its interval holds 0\)|NOT flat: it (grows|falls) with the batch)$' "$log"
check "batch: the harness beyond the pin copy (start-up apart) against 20 us, per batch size" \
	grep -Eq '^B=4 harness us per image beyond the pin copy \(start-up apart\): .*; target <= 20.0: (met|NOT met|within noise)$' "$log"
check "batch: the harness's floor with the defaults (counters + checksum) against 20 us, and the rest beside it" \
	bash -c "grep -Eq '^B=8 harness floor with the defaults \(counter reads \+ checksum\): .*; target <= 20.0: (met|NOT met|within noise)$' '$log' && grep -Eq '^B=8 harness beyond that floor \(per-task work, main process\): -?[0-9.]+ \(min -?[0-9.]+, max -?[0-9.]+, n=2\) us$' '$log'"
check "batch: the steady CPU per image (per-run costs apart), largest / smallest batch, judged against 1.10" \
	grep -Eq '^steady CPU per image \(per-run costs apart\), B=8 / B=4: [0-9.]+ \(min [0-9.]+, max [0-9.]+, n=2\); target <= 1.100: (met|NOT met|within noise)$' "$log"
check "batch: the collate buffer's first touch as PyTorch pays it, and the ratio with it" \
	bash -c "grep -Eq '^the collate buffer.s first touch, as PyTorch pays it .*: B=4 -?[0-9.]+ .*; B=8 -?[0-9.]+' '$log' && grep -Eq '^steady CPU per image with that first touch added, B=8 / B=4: [0-9.]+ \(min' '$log'"
check "batch: the harness's parts per batch size" grep -Eq '^\| 8 \| -?[0-9.]+ \[-?[0-9.]+, -?[0-9.]+\] \|( -?[0-9.]+ \[-?[0-9.]+, -?[0-9.]+\] \|){4}$' "$log"
check "batch: decode's faults per call in the second epoch, per size, against 2" \
	grep -Eq '^decode.s page faults per call in the second epoch .*: B=4 -?[0-9.]+ \(min -?[0-9.]+, max -?[0-9.]+, n=2\), (met|NOT met|within noise); B=8 .* \(target <= 2\)$' "$log"
check "batch: the load the runs saw" grep -Eq '^load: other processes took [0-9]+ % of the CPUs during the runs' "$log"
check "chain: ppbench against the chain's lower bound, judged against 1.25" \
	grep -Eq '^ppbench / the chain.s lower bound: [0-9.]+ \(min [0-9.]+, max [0-9.]+, n=2\); target <= 1.250: (met|NOT met|within noise)$' "$log"
d=$(ls -d "$out"/*-batch 2>/dev/null | head -1)
check "batch and chain: their figures in bench.csv" \
	bash -c "grep -q '^batch,B=8 decode.s page faults per call after the first batch,count,2,.*,2,at_most,' '$d/bench.csv' && grep -q '^chain,lower bound: their sum,ms,2,' '$d/bench.csv' && grep -q '^chain,\"decode alone (TurboJPEG from memory, the same bytes)\",ms,2,' '$d/bench.csv'"
