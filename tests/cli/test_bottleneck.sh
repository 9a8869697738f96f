# ppbench bottleneck (the caching ladder): the five steps each run, and on a
# pipeline with one slow op (a 20 ms sleep per sample) the stage named is
# the transforms.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
SLOW=$top/tests/fixtures/pipelines/slow_transform.pipe
ds=$TMP/bn_ds
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 41); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
if ! "$PPBENCH" bottleneck --help >/dev/null 2>&1; then
	skip "ppbench bottleneck" "not dispatched by this ppbench"
	exit 0
fi
check_cli "bottleneck --help lists run's options" 0 'max-batches N' -- bottleneck --help
check_cli "bottleneck: a bad option is refused" 2 'workers' -- bottleneck --workers 0
out=$("$PPBENCH" bottleneck --data "$ds" --pipeline "$SLOW" --batch 4 --workers 2 \
	--gpu-step 5ms --max-batches 10 2>&1)
rc=$?
[ "$rc" -eq 0 ] && echo "ok - bottleneck runs" || { echo "not ok - bottleneck: exit $rc"; printf '%s\n' "$out" | sed 's/^/#   /' | head; }
for s in 1 2 3 4 5; do
	if printf '%s\n' "$out" | grep -Eq "^$s .* [0-9]+\.[0-9] "; then
		echo "ok - step $s has an images/s"
	else
		echo "not ok - step $s has an images/s"
	fi
done
printf '%s\n' "$out" | grep -q '^bottleneck: the transforms' &&
	echo "ok - the slow op makes the transforms the named stage" ||
	{ echo "not ok - named stage"; printf '%s\n' "$out" | grep '^bottleneck' | sed 's/^/#   /'; }
printf '%s\n' "$out" | grep -q 'caveats' && echo "ok - the caveats are printed" ||
	echo "not ok - the caveats are printed"
