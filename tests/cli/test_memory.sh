# Memory as PyTorch 1.13 uses it: a batch holds one buffer at a time (its
# slot until pinned, then its pinned copy), so the pool holds in flight + 1
# buffers (pin memory off) or + 2 (on), in flight = min(P x W, batches); the
# memory is planned from the batches that exist (a --batch larger than the
# dataset is not refused for memory it will never use). Test ops, no decoding.
. "$(dirname "$0")/lib.sh"
ds=$TMP/mem_ds
out=$TMP/mem_out
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 29); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
cat >"$TMP/mem.pipe" <<'PIPE'
synth w=64 h=64
to_tensor
collate
PIPE
base=(--data "$ds" --pipeline "$TMP/mem.pipe" --gpu-step 0 --trace off)

# jnum FILE KEY: the integer value of the (unique) key in summary.json
jnum() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -1; }
# expect WHAT GOT WANT
expect() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then echo "ok - $1"
	else echo "not ok - $1: got '$2', expected '$3'"; fi
}
last() { ls -td "$out"/*/ | head -1; }

# pin memory on: P x W + 2 buffers (W=2, P=2: 6)
rm -rf "$out"
"$PPBENCH" run "${base[@]}" --out "$out" -w 2 -b 4 --prefetch-factor 2 >/dev/null 2>&1
s=$(last)/summary.json
expect "pin on: P x W + 2 batch buffers" "$(jnum "$s" batch_buffers)" 6
expect "pin on: PyTorch holds as many" "$(jnum "$s" torch_batch_buffers)" 6
peak=$(jnum "$s" batch_buffers_peak)
if [ -n "$peak" ] && [ "$peak" -ge 1 ] && [ "$peak" -le 6 ]; then echo "ok - peak buffers in use within the pool ($peak)"
else echo "not ok - peak buffers in use within the pool: '$peak'"; fi
rss=$(jnum "$s" measured_peak_rss_sum_bytes)
if [ -n "$rss" ] && [ "$rss" -gt 0 ]; then echo "ok - measured peak RSS summed over processes"
else echo "not ok - measured peak RSS summed over processes: '$rss'"; fi
pb=$(jnum "$s" planned_bytes); bb=$(jnum "$s" planned_batch_bytes)
tb=$(jnum "$s" planned_trace_bytes); sb=$(jnum "$s" planned_sample_bytes)
expect "planned = batch + trace + sample bytes" "$pb" "$((bb + tb + sb))"
check_cli "the human summary states planned memory beside PyTorch's" 0 \
	'memory planned .* \(PyTorch .*\), batch buffers [0-9]+ of 6 used, peak RSS summed' -- \
	run "${base[@]}" --out "$out" -w 2 -b 4 --prefetch-factor 2

# pin memory off: P x W + 1
rm -rf "$out"
"$PPBENCH" run "${base[@]}" --out "$out" -w 2 -b 4 --prefetch-factor 3 --pin-memory off >/dev/null 2>&1
expect "pin off: P x W + 1 batch buffers" "$(jnum "$(last)/summary.json" batch_buffers)" 7

# planned from the batches that exist: 40 images, --batch 65536 is one
# batch of 40 (issue 12 item 10), 1 in flight + 2 buffers
rm -rf "$out"
check_cli "a batch larger than the dataset is not refused for memory" 0 '' -- \
	run "${base[@]}" --out "$out" -w 4 -b 65536
s=$(last)/summary.json
expect "largest batch = images" "$(jnum "$s" largest_batch)" 40
expect "buffers for the one batch that exists" "$(jnum "$s" batch_buffers)" 3
one=$(jnum "$s" batch_buffer_bytes)
if [ -n "$one" ] && [ "$one" -lt $((41 * 3 * 64 * 64 * 4 + 41 * 8 + 8192)) ]; then
	echo "ok - the buffer holds 40 images, not 65536"
else echo "not ok - the buffer holds 40 images, not 65536: $one bytes"; fi
# fewer batches than P x W: 40 images in batches of 8 = 5 batches < 2 x 4
rm -rf "$out"
"$PPBENCH" run "${base[@]}" --out "$out" -w 4 -b 8 --max-batches 3 >/dev/null 2>&1
expect "in flight bounded by the run's batches" "$(jnum "$(last)/summary.json" batch_buffers)" 5
