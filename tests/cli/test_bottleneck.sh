# ppbench bottleneck (the caching ladder): the five steps each run, three
# climbs by default, each figure with its spread; on a pipeline with one slow
# op (a 20 ms sleep per sample) the stage named is the transforms; the
# results folder (bottleneck.json, bottleneck.csv) follows --out and --tag;
# one climb names nothing (it measures no noise).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
SLOW=$top/tests/fixtures/pipelines/slow_transform.pipe
ds=$TMP/bn_ds
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 41); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
check_cli "bottleneck --help lists run's options" 0 'max-batches N' -- bottleneck --help
check_cli "bottleneck: a bad option is refused" 2 'workers' -- bottleneck --workers 0
res=$TMP/bn_out
out=$("$PPBENCH" bottleneck --data "$ds" --pipeline "$SLOW" --batch 4 --workers 2 \
	--gpu-step 5ms --max-batches 10 --out "$res" --tag ladder 2>&1)
rc=$?
[ "$rc" -eq 0 ] && echo "ok - bottleneck runs" || { echo "not ok - bottleneck: exit $rc"; printf '%s\n' "$out" | sed 's/^/#   /' | head; }
# images/s of each step: above 0, never above the simulated GPU's bound of
# B / step = 4 / 5 ms = 800 images/s (a hard limit, not a timing target),
# and the slow samples (100 ms each 13th) pull steps 4 and 5 below step 3
ips() { printf '%s\n' "$out" | awk -v s="$1" '$1 == s { for (i = NF; i > 1; i--) if ($i ~ /^[0-9]+\.[0-9]$/) { print $i; exit } }'; }
for s in 1 2 3 4 5; do
	v=$(ips "$s")
	if printf '%s\n' "$out" | grep -Eq "^$s .* [0-9]+\.[0-9] \(min [0-9.]+, max [0-9.]+, n=3\)" &&
	   [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0 && v <= 800 * 1.02) }'; then
		echo "ok - step $s: $v images/s (median of 3), within (0, 800]"
	else
		echo "not ok - step $s: images/s '$v' not within (0, 800]"
	fi
done
s3=$(ips 3)
for s in 4 5; do
	v=$(ips "$s")
	awk -v v="$v" -v b="$s3" 'BEGIN { exit !(v > 0 && b > 0 && v < b) }' &&
		echo "ok - step $s ($v images/s) is slower than step 3 ($s3): the slow samples" ||
		echo "not ok - step $s ($v images/s) is not slower than step 3 ($s3)"
done
printf '%s\n' "$out" | grep -q '^bottleneck: the transforms' &&
	echo "ok - the slow op makes the transforms the named stage" ||
	{ echo "not ok - named stage"; printf '%s\n' "$out" | grep '^bottleneck' | sed 's/^/#   /'; }
printf '%s\n' "$out" | grep -q 'caveats' && echo "ok - the caveats are printed" ||
	echo "not ok - the caveats are printed"
printf '%s\n' "$out" | grep -q '^bottleneck: the transforms.*beyond noise' &&
	echo "ok - the stage is named as slower beyond noise" ||
	echo "not ok - the stage is named as slower beyond noise"

# ---- the results folder --------------------------------------------------------
dir=$(ls -d "$res"/*-ladder 2>/dev/null | head -1)
if [ -n "$dir" ] && [ -s "$dir/bottleneck.json" ] && [ -s "$dir/bottleneck.csv" ]; then
	echo "ok - --out/--tag: a results folder with bottleneck.json and bottleneck.csv"
else
	echo "not ok - --out/--tag: results folder '$dir': $(ls "$res" 2>&1 | tr '\n' ' ')"
fi
if printf '%s\n' "$out" | grep -q "^results: $dir\$"; then echo "ok - the folder is printed"
else echo "not ok - the folder is printed"; fi
if python3 - "$dir/bottleneck.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["repeats"] == 3, j["repeats"]
assert len(j["steps"]) == 5
for s in j["steps"]:
    assert len(s["images_per_s"]) == 3
    assert s["images_per_s_summary"]["n"] == 3
for s in j["steps"][1:]:
    assert len(s["slowdown"]) == 3 and s["vs_prev"] in ("slower", "faster", "within noise")
    m = s["slowdown_summary"]
    assert m["lo"] <= m["median"] <= m["hi"]
assert j["bottleneck"]["step"] == 4, j["bottleneck"]
n = j["noise"]
assert len(n["climbs"]) == 3 and "others_cpu_pct" in n["climbs"][0]
assert isinstance(n["noisy"], bool) and "cpus_usable" in n["cpus"]
PY
then echo "ok - bottleneck.json: per-climb values, intervals, the verdict, the noise windows"
else echo "not ok - bottleneck.json: per-climb values, intervals, the verdict, the noise windows"; fi
if [ "$(awk -F, 'NR > 1' "$dir/bottleneck.csv" | wc -l)" -eq 5 ] &&
   head -1 "$dir/bottleneck.csv" | grep -q '^step,name,repeats,images_per_s,images_per_s_lo,images_per_s_hi,slowdown,slowdown_lo,slowdown_hi'; then
	echo "ok - bottleneck.csv: five steps with their intervals"
else
	echo "not ok - bottleneck.csv: $(head -2 "$dir/bottleneck.csv" | tr '\n' ' ')"
fi

# ---- one climb measures no noise: nothing is named -----------------------------
out=$("$PPBENCH" bottleneck --data "$ds" --pipeline "$SLOW" --batch 4 --workers 2 \
	--gpu-step 5ms --max-batches 4 --repeat 1 --out "$res" 2>&1)
printf '%s\n' "$out" | grep -q '^bottleneck: not judged: one climb' &&
	echo "ok - --repeat 1: not judged" ||
	{ echo "not ok - --repeat 1: not judged"; printf '%s\n' "$out" | grep '^bottleneck' | sed 's/^/#   /'; }

# ---- --require-idle: a machine kept busy is refused, nothing measured -----------
spin() { ( trap 'exit 0' TERM; while :; do :; done ) >/dev/null 2>&1 & echo $!; }
pids=""
for i in $(seq "$(nproc)"); do pids="$pids $(spin)"; done
PPBENCH_IDLE_WAIT_S=2 "$PPBENCH" bottleneck --data "$ds" --pipeline "$SLOW" --batch 4 \
	--max-batches 2 --require-idle=1 --out "$res" --tag idle >"$TMP/bn_idle.out" 2>&1
rc=$?
kill $pids 2>/dev/null
wait $pids 2>/dev/null
if [ "$rc" -eq 1 ] && grep -q 'never became quiet' "$TMP/bn_idle.out" &&
   [ -z "$(ls -d "$res"/*-idle 2>/dev/null)" ]; then
	echo "ok - --require-idle on a busy machine: refused, no folder"
else
	echo "not ok - --require-idle on a busy machine: exit $rc"; sed 's/^/#   /' "$TMP/bn_idle.out" | tail -3
fi
