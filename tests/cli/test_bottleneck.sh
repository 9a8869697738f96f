# ppbench bottleneck (the caching ladder): the five steps each run, and on a
# pipeline with one slow op (a 20 ms sleep per sample) the stage named is
# the transforms.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
SLOW=$top/tests/fixtures/pipelines/slow_transform.pipe
ds=$TMP/bn_ds
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 41); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
check_cli "bottleneck --help lists run's options" 0 'max-batches N' -- bottleneck --help
check_cli "bottleneck: a bad option is refused" 2 'workers' -- bottleneck --workers 0
out=$("$PPBENCH" bottleneck --data "$ds" --pipeline "$SLOW" --batch 4 --workers 2 \
	--gpu-step 5ms --max-batches 10 2>&1)
rc=$?
[ "$rc" -eq 0 ] && echo "ok - bottleneck runs" || { echo "not ok - bottleneck: exit $rc"; printf '%s\n' "$out" | sed 's/^/#   /' | head; }
# images/s of each step: above 0, never above the simulated GPU's bound of
# B / step = 4 / 5 ms = 800 images/s (a hard limit, not a timing target),
# and the slow samples (100 ms each 13th) pull steps 4 and 5 below step 3
ips() { printf '%s\n' "$out" | awk -v s="$1" '$1 == s { for (i = NF; i > 1; i--) if ($i ~ /^[0-9]+\.[0-9]$/) { print $i; exit } }'; }
for s in 1 2 3 4 5; do
	v=$(ips "$s")
	if [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0 && v <= 800 * 1.02) }'; then
		echo "ok - step $s: $v images/s, within (0, 800]"
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
