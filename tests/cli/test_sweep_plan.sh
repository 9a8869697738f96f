# ppbench sweep --dry-run (and make sweep DRY_RUN=1): one line per
# configuration with its memory and whether it fits, images, an estimated
# time, and the total; nothing runs. A sweep refuses up front configurations
# that cannot fit, naming the nearest change that makes them fit.
# Test ops on empty files (no decoding).
. "$(dirname "$0")/lib.sh"
ds=$TMP/plan_ds
out=$TMP/plan_out
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 100 299); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
printf 'synth w=32 h=32\nto_tensor\ncollate\n' >"$TMP/small.pipe"
# one sample is 1024 x 1024 x 3 float32 = 12 MiB: a batch of 400 is 4.7 GiB,
# and 64 workers over 200 epochs keep 128 of them in flight: 600 GiB
printf 'synth w=1024 h=1024\nto_tensor\ncollate\n' >"$TMP/huge.pipe"

check_cli "dry run: one line per configuration, fits, images, time" 0 \
	'^  w2-b8-g2 +memory +[0-9.]+ [KMG]iB +fits +400 images +about [0-9]+ s$' -- \
	sweep --data "$ds" --pipeline "$TMP/small.pipe" --workers "1 2" --batch "4 8" \
	--dry-run --out "$out" --gpu-step 0
out_txt=$("$PPBENCH" sweep --data "$ds" --pipeline "$TMP/small.pipe" --workers "1 2" \
	--batch "4 8" --dry-run --out "$out" --gpu-step 0 2>&1)
n=$(printf '%s\n' "$out_txt" | grep -c '^  w[0-9]*-b[0-9]*-g2 ')
if [ "$n" -eq 4 ]; then echo "ok - four configuration lines"; else echo "not ok - four configuration lines: $n"; fi
if printf '%s\n' "$out_txt" | grep -Eq '^total: 4 of 4 configurations fit in .*: 1600 images, about'; then
	echo "ok - the total line"; else echo "not ok - the total line"; printf '%s\n' "$out_txt" | sed 's/^/#   /'; fi
if printf '%s\n' "$out_txt" | grep -q '^sweep plan: 4 configurations x 1 repeat, .*probe [0-9.]* ms per image'; then
	echo "ok - the header names the probe"; else echo "not ok - the header names the probe"; fi
if [ ! -e "$out" ]; then echo "ok - a dry run makes no sweep folder"
else echo "not ok - a dry run makes no sweep folder"; fi

# a configuration that cannot fit: named, with the nearest change
check_cli "dry run: what does not fit, and the nearest change" 0 \
	'w64-b400-g2 +memory .* DOES NOT FIT \(.* available\); nearest: --batch [0-9]+ \(.*\): per-batch figures' -- \
	sweep --data "$ds" --pipeline "$TMP/huge.pipe" --workers 64 --batch 400 --epochs 200 \
	--dry-run --out "$out"
check_cli "a sweep refuses it up front (exit 2), nothing ran" 2 \
	'cannot fit in memory .*nothing ran' -- \
	sweep --data "$ds" --pipeline "$TMP/huge.pipe" --workers 64 --batch 400 --epochs 200 --out "$out"
if [ ! -e "$out" ]; then echo "ok - no sweep folder after the refusal"
else echo "not ok - no sweep folder after the refusal"; fi
check_cli "sweep --help lists --dry-run" 0 '--dry-run' -- sweep --help

# make sweep DRY_RUN=1 passes --dry-run
top=$(cd "$(dirname "$0")/../.." && pwd)
if make -n -C "$top" sweep DRY_RUN=1 WORKERS=1 2>/dev/null | grep -q -- '--dry-run'; then
	echo "ok - make sweep DRY_RUN=1 runs sweep --dry-run"
else echo "not ok - make sweep DRY_RUN=1 runs sweep --dry-run"; fi
