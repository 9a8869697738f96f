# Loader policies (--policy torch|shared-queue|speedy): each delivers every
# sample of every epoch exactly once (same checksum, same image count), and
# on a pipeline where every 13th sample takes 100 ms (the others 1 ms) the
# two policies that form batches in completion order make the main process
# wait far less than torch's in-order protocol (head-of-line blocking).
. "$(dirname "$0")/lib.sh"
need jq || exit 1
top=$(cd "$(dirname "$0")/../.." && pwd)
SLOW=$top/tests/fixtures/pipelines/slow_samples.pipe
ds=$TMP/policy_ds
out=$TMP/policy_out
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 41); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
base=(--data "$ds" --out "$out" --pipeline "$SLOW" --workers 2 --batch 4 --gpu-step 20ms
      --epochs 2 --trace off)

check_cli "run --help lists --policy" 0 'policy .*torch\|shared-queue\|speedy' -- run --help
check_cli "run --help lists --speedy-timeout-pct (default 75)" 0 \
	'speedy-timeout-pct PCT .*default: 75' -- run --help
check_cli "--policy: an unknown value is refused" 2 'policy' -- run "${base[@]}" --policy fifo
check_cli "--speedy-timeout-pct 0 is refused" 2 'speedy-timeout-pct' -- \
	run "${base[@]}" --policy speedy --speedy-timeout-pct 0

field() { jq -r "$2" "$1/summary.json"; }
declare -A dir
for pol in torch shared-queue speedy; do
	if "$PPBENCH" run "${base[@]}" --policy "$pol" --tag "$pol" >"$TMP/policy_$pol.log" 2>&1; then
		dir[$pol]=$(ls -d "$out"/*-"$pol" | tail -1)
		echo "ok - --policy $pol runs"
	else
		echo "not ok - --policy $pol runs"; sed 's/^/#   /' "$TMP/policy_$pol.log" | head -5
	fi
done
for pol in torch shared-queue speedy; do
	d=${dir[$pol]:-}
	[ -n "$d" ] || continue
	ck=$(field "$d" .checksum) img=$(field "$d" .loader.policy)
	[ "$img" = "$pol" ] && echo "ok - $pol: summary names the policy" ||
		echo "not ok - $pol: summary names the policy ($img)"
	check "$pol: every key of summary.json in the metric table" "$PPBENCH" metrics "$d"
	for k in .e2e_s .images_per_s .gpu.utilization_pct .gpu.idle_s .main.wait_total_s \
		 .main.out_of_order_pct .policy.samples_reordered; do
		v=$(field "$d" "$k")
		[ -n "$v" ] && [ "$v" != null ] && echo "ok - $pol: $k ($v)" || echo "not ok - $pol: $k missing"
	done
	if [ "$pol" != torch ]; then
		t=${dir[torch]:-}
		[ -n "$t" ] || continue
		same "$pol: same checksum as torch over 2 epochs" "$ck" "$(field "$t" .checksum)"
		a=$(jq -r '.. | objects | select(has("images")) | .images' "$d/summary.json" | head -1)
		b=$(jq -r '.. | objects | select(has("images")) | .images' "$t/summary.json" | head -1)
		[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = 128 ] &&
			echo "ok - $pol: every sample once ($a images, as torch)" ||
			echo "not ok - $pol: $a images, torch $b, expected 128"
		[ "$(field "$d" .policy.samples_reordered)" -gt 0 ] 2>/dev/null &&
			echo "ok - $pol: says samples were reordered across batches" ||
			echo "not ok - $pol: samples_reordered_across_batches"
		w=$(field "$d" .main.wait_total_s) wt=$(field "$t" .main.wait_total_s)
		if awk -v a="$w" -v b="$wt" 'BEGIN { exit !(a < 0.6 * b) }'; then
			echo "ok - $pol: main-process wait ${w}s < 0.6 x torch in-order ${wt}s"
		else
			echo "not ok - $pol: main-process wait ${w}s, torch in-order ${wt}s"
		fi
	else
		[ "$(field "$d" .policy.samples_reordered)" = 0 ] &&
			echo "ok - torch: no sample leaves its batch" ||
			echo "not ok - torch: samples_reordered_across_batches"
	fi
done
d=${dir[speedy]:-}
if [ -n "$d" ]; then
	to=$(field "$d" .policy.speedy_timeout_s) sl=$(field "$d" .policy.speedy_slow_lane_samples)
	awk -v t="$to" 'BEGIN { exit !(t > 0 && t < 0.05) }' &&
		echo "ok - speedy: the warm-up's 75th percentile is a fast sample's time (${to}s)" ||
		echo "not ok - speedy: timeout $to"
	[ "$sl" -ge 5 ] 2>/dev/null && echo "ok - speedy: the slow samples took the slow lane in epoch 2 ($sl)" ||
		echo "not ok - speedy: slow lane $sl"
fi

# thread backend and pin memory off: same samples
for extra in "--backend thread" "--pin-memory off"; do
	# shellcheck disable=SC2086
	if "$PPBENCH" run "${base[@]}" --gpu-step 0 --policy shared-queue $extra --tag sqx >/dev/null 2>&1; then
		d=$(ls -d "$out"/*-sqx | tail -1)
		same "shared-queue $extra: same checksum" "$(field "$d" .checksum)" \
			"$(field "${dir[torch]:-/nonexistent}" .checksum 2>/dev/null)"
		rm -rf "$d"
	else
		echo "not ok - shared-queue $extra runs"
	fi
done
