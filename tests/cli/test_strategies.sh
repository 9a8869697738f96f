# Contract tests of `ppbench strategies` (PRESTO's preprocessing strategies):
# refusals (exit 2, nothing left behind); on a tiny generated dataset, every
# split of imagenet_val and imagenet_train in every format (and the cache)
# gives the full pipeline's tensors, the same checksum as `ppbench run`;
# stores removed unless --keep; the table, CSV, JSON and figure; a broken
# image skipped by every strategy alike; --repeat: every timing a median
# with its spread, per-repeat values and the noise window in the JSON.
. "$(dirname "$0")/lib.sh"


out=$TMP/strategies_out
ds=$TMP/strategies_ds

# ---- options and refusals ---------------------------------------------------------
check_cli "strategies --help: its options" 0 '--offline-weight P' -- strategies --help
check_cli "strategies --help: exit status" 0 'Exit status' -- strategies --help
check_cli "refused: an unknown format" 2 "--formats: 'gzip' is not one of raw, zstd, lz4" -- \
	strategies --formats raw,gzip --out "$out"
check_cli "refused: a split after a random op" 2 \
	"'random_horizontal_flip' cannot be done offline in imagenet_train.*none, decode" -- \
	strategies --splits random_horizontal_flip --out "$out"
check_cli "refused: an unknown split" 2 "no split 'nope' in imagenet_val; the splits are: none, decode, resize, center_crop, to_tensor, normalize" -- \
	strategies --pipeline imagenet_val --splits nope --out "$out"
check_cli "refused: weights over 1" 2 'add up to more than 1' -- \
	strategies --weight 0.8 --offline-weight 0.5 --out "$out"
check_cli "refused: --weight out of range" 2 '--weight' -- strategies --weight 2 --out "$out"
check_cli "refused: an argument" 2 'takes no arguments' -- strategies extra --out "$out"
check_cli "refused: a missing dataset" 2 'cannot' -- strategies --data "$TMP/nothing" --out "$out"
if [ -e "$out" ]; then echo "not ok - refusals leave no folder"; else echo "ok - refusals leave no folder"; fi

# 24 images (grayscale, CMYK and PNG-named-JPEG among them) for the train
# chain; 12 for the val chain, whose 24 strategies each run the full suffix
small=$TMP/strategies_ds12
"$PPBENCH" dataset generate --out "$ds" --images 24 --classes 3 >/dev/null 2>&1 &&
"$PPBENCH" dataset generate --out "$small" --images 12 --classes 3 >/dev/null 2>&1 ||
	{ echo "not ok - generate the test datasets"; exit 0; }

# col FILE NAME: the values of column NAME, one a line
col() {
	awk -F, -v c="$2" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == c) k = i; next} {print $k}' "$1"
}

# run_checksum DATA PIPELINE SEED: the checksum of one epoch of `ppbench run`
run_checksum() {
	local o=$TMP/strategies_run_$2_$3
	"$PPBENCH" run --data "$1" --pipeline "$2" --seed "$3" --epochs 1 --workers 1 --batch 8 \
		--gpu-step 0 --trace off --out "$o" >/dev/null 2>&1 || return 1
	sed -n 's/^  "checksum": "\([0-9a-f]*\)".*/\1/p' "$o"/*/summary.json
}

# strategies_case NAME DATA PIPELINE SEED ROWS SPLITS ARGS...: run, then check the results
strategies_case() {
	local name=$1 data=$2 pipe=$3 seed=$4 rows=$5 splits=$6
	shift 6
	local o=$TMP/strategies_$name log=$TMP/strategies_$name.log
	"$PPBENCH" strategies --data "$data" --pipeline "$pipe" --seed "$seed" --epochs 2 --batch 8 \
		--out "$o" "$@" >"$log" 2>&1
	local rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "not ok - $name: exit $rc"
		tail -5 "$log" | sed 's/^/#   /'
		return 1
	fi
	echo "ok - $name: exit 0"
	local dir
	dir=$(ls -d "$o"/2* 2>/dev/null | head -1)
	local csv=$dir/strategies.csv
	if [ ! -f "$csv" ]; then echo "not ok - $name: strategies.csv"; return 1; fi
	local n
	n=$(col "$csv" strategy | wc -l)
	if [ "$n" -eq "$rows" ]; then echo "ok - $name: $rows strategies"
	else echo "not ok - $name: $n strategies, expected $rows"; fi
	local got
	got=$(col "$csv" split | sort -u | tr '\n' ' ')
	if [ "$got" = "$splits" ]; then echo "ok - $name: splits $splits"
	else echo "not ok - $name: splits '$got', expected '$splits'"; fi
	if [ "$(col "$csv" tensors | sort -u)" = "same" ]; then
		echo "ok - $name: every strategy gives the full pipeline's tensors"
	else
		echo "not ok - $name: tensors: $(col "$csv" tensors | sort -u | tr '\n' ' ')"
	fi
	local sums want
	sums=$(col "$csv" epoch1_checksum | sort -u)
	want=$(run_checksum "$data" "$pipe" "$seed")
	if [ -n "$want" ] && [ "$sums" = "$want" ]; then
		echo "ok - $name: the checksum of ppbench run ($want) for every strategy"
	else
		echo "not ok - $name: checksums '$(echo $sums)', ppbench run '$want'"
	fi
	if [ -e "$dir/store" ]; then echo "not ok - $name: stores removed"
	else echo "ok - $name: stores removed"; fi
	if ls -a "$o" | grep -q '\.tmp$'; then echo "not ok - $name: no temporary folder left"
	else echo "ok - $name: no temporary folder left"; fi
}

strategies_case val "$small" imagenet_val 0 24 "center_crop decode none normalize resize to_tensor " --plot on --repeat 1
strategies_case train "$ds" imagenet_train 3 8 "decode none " --workers 2 --warm --plot off --repeat 2

# ---- the outputs ------------------------------------------------------------------
dir=$(ls -d "$TMP"/strategies_val/2* | head -1)
log=$TMP/strategies_val.log
for f in strategies.csv strategies.json strategies.md; do
	if [ -s "$dir/$f" ]; then echo "ok - results: $f"; else echo "not ok - results: $f"; fi
done
if grep -q '^| 1=\? | ' "$log" && grep -q 'score = 0.50 x T + 0.50 x S + 0.00 x P' "$log" &&
   grep -q 'Best by this weighting' "$log"; then
	echo "ok - the table, the formula and the best strategy on stdout"
else
	echo "not ok - the table, the formula and the best strategy on stdout"
fi
csv=$dir/strategies.csv
if head -1 "$csv" | grep -q 'offline_s,storage_bytes,storage_ratio,epoch1_images_per_s,epoch2_images_per_s,mean_images_per_s,steady_images_per_s,cache_bytes'; then
	echo "ok - csv columns with units"
else
	echo "not ok - csv columns with units: $(head -1 "$csv")"
fi
# the dataset's own files: ratio 1; the cache holds what the raw store holds
r=$(awk -F, '$1 == "none/raw" {print $8}' "$csv")
if [ "$r" = "1.000000" ]; then echo "ok - none/raw is the dataset (ratio 1)"; else echo "not ok - none/raw ratio '$r'"; fi
c=$(awk -F, '$1 == "center_crop/raw+cache" {print $13}' "$csv")
if [ -n "$c" ] && [ "$c" -eq $((12 * 224 * 224 * 3)) ]; then
	echo "ok - center_crop cache: 12 images of 224x224x3 bytes"
else
	echo "not ok - center_crop cache: '$c' bytes"
fi
ranks=$(col "$csv" rank | sort -n | tr '\n' ' ')
if [ "$ranks" = "$(seq 1 24 | tr '\n' ' ')" ]; then echo "ok - ranks 1..24"; else echo "not ok - ranks: $ranks"; fi
if grep -q '^- one repeat: no figure has a spread' "$log"; then echo "ok - --repeat 1 says it has no spread"
else echo "not ok - --repeat 1 says it has no spread"; fi

# ---- --repeat 2: medians with their spread; ties within noise ----------------------
tdir=$(ls -d "$TMP"/strategies_train/2* | head -1)
tlog=$TMP/strategies_train.log
if grep -Eq '^\| [0-9]+=? \| none/raw \| .* [0-9]+ \(min [0-9]+, max [0-9]+, n=2\) \|' "$tlog" &&
   grep -q '^- repeats: the online epochs of each strategy measured 2 times' "$tlog"; then
	echo "ok - --repeat 2: images/s with (min, max, n=2) in the table"
else
	echo "not ok - --repeat 2: images/s with (min, max, n=2) in the table"
	grep '^|' "$tlog" | head -4 | sed 's/^/#   /'
fi
if head -1 "$tdir/strategies.csv" | grep -q ',repeats,steady_images_per_s_lo,steady_images_per_s_hi,score_lo,score_hi,interval,tied,others_cpu_pct$' &&
   [ "$(col "$tdir/strategies.csv" repeats | sort -u)" = "2" ]; then
	echo "ok - --repeat 2: the csv has the intervals"
else
	echo "not ok - --repeat 2: the csv has the intervals: $(head -1 "$tdir/strategies.csv")"
fi
if /usr/bin/python3 - "$tdir/strategies.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["repeats"] == 2
assert "others_cpu_pct" in j["noise"]["windows"][0] and isinstance(j["noise"]["noisy"], bool)
assert "cpus_usable" in j["noise"]["cpus"]
ranks = []
for s in j["strategies"]:
    assert len(s["repeats"]) == 2 and len(s["repeats"][0]["epoch_images_per_s"]) == 2
    m = s["steady_images_per_s_summary"]
    assert m["n"] == 2 and m["lo"] <= m["median"] <= m["hi"], m
    v = sorted(r["steady_images_per_s"] for r in s["repeats"])
    assert abs(m["lo"] - v[0]) < 1e-9 and abs(m["hi"] - v[1]) < 1e-9
    sc = s["score_summary"]
    assert sc["lo"] <= s["score"] <= sc["hi"]
    assert "others_cpu_pct" in s["noise"]
    ranks.append((s["rank"], s["tied"], sc))
# a rank below another only when that one's score is higher beyond noise
for r, t, sc in ranks:
    better = sum(1 for r2, t2, s2 in ranks if s2["lo"] > sc["hi"])
    assert r == 1 + better, (r, better)
PY
then echo "ok - --repeat 2: strategies.json has per-repeat values, intervals, ranks with ties, noise"
else echo "not ok - --repeat 2: strategies.json"; fi
if need gnuplot; then
	if [ -s "$dir/figures/strategies.png" ] && [ -s "$dir/figures/strategies.svg" ]; then
		echo "ok - the figure"
	else
		echo "not ok - the figure"
		tail -3 "$dir/figures/gnuplot.log" 2>/dev/null | sed 's/^/#   /'
	fi
fi

# ---- --keep, --store: the stores stay, in the format asked ------------------------
st=$TMP/strategies_stores
check_cli "--keep --store DIR" 0 'decode/lz4' -- strategies --data "$ds" --epochs 1 --images 6 \
	--splits decode --formats lz4 --cache off --plot off --store "$st" --keep --repeat 1 \
	--out "$TMP/strategies_keep"
if [ -s "$st/decode-lz4/index" ] && ls "$st"/decode-lz4/shard-*.bin >/dev/null 2>&1 &&
   [ ! -e "$st/decode-raw" ] && [ ! -e "$st/decode-zstd" ]; then
	echo "ok - --keep: the lz4 store stays in --store DIR"
else
	echo "not ok - --keep: the lz4 store stays in --store DIR"
fi

# ---- a broken image: skipped by every strategy alike ------------------------------
bad=$TMP/strategies_bad
cp -r "$small" "$bad"
f=$(find "$bad" -name '*.JPEG' | sort | head -3 | tail -1)
head -c 2000 "$f" >"$f.cut" && mv "$f.cut" "$f"
o=$TMP/strategies_badout
"$PPBENCH" strategies --data "$bad" --pipeline imagenet_val --splits resize --epochs 1 \
	--images 6 --formats raw,zstd --plot off --repeat 2 --out "$o" >/dev/null 2>&1
rc=$?
csv=$(ls -d "$o"/2* 2>/dev/null | head -1)/strategies.csv
if [ "$rc" -eq 0 ] && [ "$(col "$csv" skipped_per_epoch | sort -u)" = "1" ] &&
   [ "$(col "$csv" tensors | sort -u)" = "same" ]; then
	echo "ok - a broken image: skipped once by every strategy, same tensors"
else
	echo "not ok - a broken image: exit $rc, skipped '$(col "$csv" skipped_per_epoch | tr '\n' ' ')'"
fi

# ---- passthrough ops in the prefix; the splits named apart ------------------------
cat >"$TMP/strategies_pass.pipe" <<'PIPE'
null
decode
resize size=40
center_crop size=32
null
to_tensor
collate
PIPE
o=$TMP/strategies_passout
"$PPBENCH" strategies --data "$ds" --pipeline "$TMP/strategies_pass.pipe" --epochs 2 --batch 4 --images 8 --repeat 1 \
	--plot off --out "$o" >"$TMP/strategies_pass.log" 2>&1
rc=$?
csv=$(ls -d "$o"/2* 2>/dev/null | head -1)/strategies.csv
got=$(col "$csv" split | uniq | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$got" = "none null@1 decode resize center_crop null@5 to_tensor " ] &&
   [ "$(col "$csv" tensors | sort -u)" = "same" ] && [ "$(col "$csv" strategy | wc -l)" -eq 28 ]; then
	echo "ok - passthrough ops: 7 splits, 28 strategies, the full pipeline's tensors"
else
	echo "not ok - passthrough ops: exit $rc, splits '$got', tensors '$(col "$csv" tensors | sort -u | tr '\n' ' ')'"
	tail -3 "$TMP/strategies_pass.log" | sed 's/^/#   /'
fi

# ---- SIGINT: stops, removes its stores and its folder, exit 130 --------------------
printf 'decode\nsleep ms=150\nresize size=40\ncenter_crop size=32\nto_tensor\ncollate\n' \
	>"$TMP/strategies_slow.pipe"
o=$TMP/strategies_intout
"$PPBENCH" strategies --data "$ds" --pipeline "$TMP/strategies_slow.pipe" --epochs 1 \
	--plot off --out "$o" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -INT "$pid"
wait "$pid"
rc=$?
left=$(find "$o" -mindepth 1 2>/dev/null | wc -l)
if [ "$rc" -eq 130 ] && [ "$left" -eq 0 ]; then
	echo "ok - SIGINT: exit 130, nothing left"
else
	echo "not ok - SIGINT: exit $rc, $left entries left in $o"
fi
