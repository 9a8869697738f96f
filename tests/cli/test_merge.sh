# ppbench merge on stored sweep folders (tests/fixtures/merge/, made by its
# make.sh): node-skx ran workers 1-4, node-icx workers 2-5 (4 CPUs, no
# topology), node-val another pipeline. The rows and their host columns, the
# overlap rule, the comparability rule, the cost column, valid figures, the
# report; several folders of one host, --by cpu, no overlap, and the refusals.
. "$(dirname "$0")/lib.sh"


F=tests/fixtures/merge
O=$TMP/merge
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$2"; }
# the value of column $1 in the row whose first column is $2
cell() { awk -F, -v c="$1" -v r="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } $1 == r { print $k }' "$3"; }

# 1. three folders, two prices
check_cli "merge three sweep folders with prices" 0 "report.html" -- merge "$F" \
	--price node-skx=2.5 --price node-icx=4 --out "$O"
check "summary.csv, comparison.csv, report.md, report.html" \
	test -s "$O/summary.csv" -a -s "$O/comparison.csv" -a -s "$O/report.md" -a -s "$O/report.html"
hdr=$(head -1 "$O/summary.csv")
missing=""
for c in host cpu_model cpus_online cores machine sweep compared in_overlap workers batch gpus \
	status e2e_s images_per_s workers_cpu_s op_decode_span_s; do
	case ",$hdr," in *",$c,"*) ;; *) missing="$missing $c" ;; esac
done
check "summary.csv has host and CPU columns${missing:+ (missing:$missing)}" test -z "$missing"
check "one row per run: 4 + 4 + 1" test "$(grep -c . "$O/summary.csv")" -eq 10
check "hosts: 4 node-icx, 4 node-skx, 1 node-val" \
	test "$(col host "$O/summary.csv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = \
	" 4 node-icx; 4 node-skx; 1 node-val;"
check "CPU model of node-icx" \
	test "$(cell cpu_model node-icx "$O/summary.csv" | sort -u)" = "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz"
ov=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "in_overlap") o = i; if ($i == "tag") t = i; if ($i == "host") h = i }; next } $o == 1 { print $h ":" $t }' "$O/summary.csv" | sort | tr '\n' ' ')
check "overlap: workers 2-4 of node-icx and node-skx (not skx w1, icx w5, val)" test "$ov" = \
	"node-icx:w2-b8-g1-r1 node-icx:w3-b8-g1-r1 node-icx:w4-b8-g1-r1 node-skx:w2-b8-g1-r1 node-skx:w3-b8-g1-r1 node-skx:w4-b8-g1-r1 "
check "node-val is not compared" test "$(cell compared node-val "$O/summary.csv")" = 0
check "comparison.csv: node-icx and node-skx" \
	test "$(col machine "$O/comparison.csv" | tr '\n' ' ')" = "node-icx node-skx "
check "three compared configurations" test "$(col compared_configs "$O/comparison.csv" | sort -u)" = 3
best_ok=1
for m in node-icx node-skx; do
	w=$(cell best_workers $m "$O/comparison.csv")
	case $w in 2 | 3 | 4) ;; *) best_ok=0 ;; esac
	# the best is the most images/s of the overlap rows of that host
	want=$(awk -F, -v m=$m 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "in_overlap") o = i; if ($i == "images_per_s") v = i; if ($i == "workers") w = i }; next } $1 == m && $o == 1 && $v > b { b = $v; bw = $w } END { print bw }' "$O/summary.csv")
	[ "$w" = "$want" ] || best_ok=0
done
check "best configuration: the overlap's most images/s on each machine" test "$best_ok" -eq 1
cost_ok=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{ ips = $h["best_images_per_s"]; p = $h["usd_per_hour"]; c = $h["usd_per_million_images"]
	  want = p / 3600 / ips * 1e6; if (c == "" || (c - want) / want > 1e-6 || (want - c) / want > 1e-6) bad = 1
	  pc = $h["images_per_s_per_core"]; if ((pc - ips / $h["cores"]) ^ 2 > 1e-9) bad = 1 }
	END { print bad ? 0 : 1 }' "$O/comparison.csv")
check "cost per million images = USD per hour / 3600 / images/s x 1e6; per core = images/s / cores" \
	test "$cost_ok" = 1
check "prices 4 and 2.5" test "$(col usd_per_hour "$O/comparison.csv" | tr '\n' ' ')" = "4 2.5 "
check "cores: 4 CPUs counted for node-icx (no topology), 2 cores from node-skx's topology" \
	test "$(col cores "$O/comparison.csv" | tr '\n' ' ')" = "4 2 "
bad=""
n=0
for png in "$O"/figures/*.png; do
	n=$((n + 1))
	svg=${png%.png}.svg
	[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || bad="$bad $png"
	grep -q "<svg" "$svg" && grep -q "</svg>" "$svg" || bad="$bad $svg"
done
check "6 figures, each a valid PNG and SVG${bad:+ (bad:$bad)}" test "$n" -eq 6 -a -z "$bad"
for f in merge_e2e_vs_workers merge_images_per_s_vs_workers merge_images_per_s_per_core_vs_workers \
	merge_cpu_per_image_vs_workers merge_op_cpu_per_image merge_gpu_util_vs_workers; do
	[ -s "$O/figures/$f.png" ] || bad="$bad $f"
done
check "the merge figures${bad:+ (missing:$bad)}" test -z "$bad"
check "one line per machine in the figure data" \
	test "$(col series_label "$O/figures/data/machines_vs_workers.csv" | sort -u | tr '\n' ' ')" = "node-icx node-skx "
check "report: compared only where they overlap" grep -q "compared only where they overlap" "$O/report.md"
check "report: what each machine ran outside the overlap" \
	sh -c "grep -q '^- node-icx: w5-b8-g1$' '$O/report.md' && grep -q '^- node-skx: w1-b8-g1$' '$O/report.md'"
check "report: node-val not compared, the pipeline differed" \
	grep -q "sweep-node-val (node-val): pipeline 'imagenet_val', not 'imagenet_train'" "$O/report.md"
check "report: the knee rule is stated" grep -q "smallest W whose next step gains under 5 %" "$O/report.md"
check "report: cost column" grep -q "USD per million images" "$O/report.md"
check "report.html is self-contained (inline SVG, no img)" \
	sh -c "grep -q '<svg' '$O/report.html' && ! grep -q '<img' '$O/report.html'"

# 2. no price: no cost
check_cli "merge without prices" 0 "" -- merge "$F/sweep-node-skx" "$F/sweep-node-icx" --out "$O-np"
check "no price, empty cost column" test "$(col usd_per_million_images "$O-np/comparison.csv" | tr -d '\n')" = ""
check "the report says no price was given" grep -q "No --price" "$O-np/report.md"

# 3. --by cpu: machines named by their CPU model
check_cli "merge --by cpu" 0 "" -- merge "$F/sweep-node-skx" "$F/sweep-node-icx" --by cpu \
	--price "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz=1.5" --out "$O-cpu"
check "--by cpu labels" test "$(col machine "$O-cpu/comparison.csv" | sort | tr '\n' ';')" = \
	"Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz (2 CPUs);Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz (4 CPUs);"
check "--price by CPU model" test "$(cell usd_per_hour "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz (2 CPUs)" \
	"$O-cpu/comparison.csv")" = 1.5 -a \
	-z "$(cell usd_per_hour "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz (4 CPUs)" "$O-cpu/comparison.csv")"

# 4. two folders of one host are one machine (per-configuration array tasks)
mkdir -p "$TMP/one/a" "$TMP/one/b"
cp -r "$F/sweep-node-skx" "$TMP/one/a/"
cp -r "$F/sweep-node-skx" "$TMP/one/b/"
sed -i -E 's/("workers": )([0-9]+)/\11\2/' "$TMP/one/b/sweep-node-skx/sweep.json"
check_cli "two folders of one host" 0 "" -- merge "$TMP/one/a/sweep-node-skx" \
	"$TMP/one/b/sweep-node-skx" --out "$O-one"
check "one machine with 8 configurations" \
	test "$(col machine "$O-one/comparison.csv")" = node-skx -a \
	"$(col compared_configs "$O-one/comparison.csv")" = 8

# 5. machines with no configuration in common
mkdir -p "$TMP/far"
cp -r "$F/sweep-node-icx" "$TMP/far/"
sed -i -E 's/("workers": )([0-9]+)/\11\2/' "$TMP/far/sweep-node-icx/sweep.json"
check_cli "no overlap: still a report" 0 "" -- merge "$F/sweep-node-skx" "$TMP/far/sweep-node-icx" \
	--out "$O-far"
check "no overlap: the report says they cannot be compared" \
	grep -q "no configuration ran on every machine: they cannot be compared" "$O-far/report.md"
check "no overlap: no figure" test -z "$(ls "$O-far"/figures/*.png 2>/dev/null)"

# 6. a different ppbench version or dataset: not compared, and why
mkdir -p "$TMP/ver" "$TMP/ds"
cp -r "$F/sweep-node-icx" "$TMP/ver/"
sed -i 's/"ppbench_version": "[^"]*"/"ppbench_version": "9.9"/' "$TMP/ver/sweep-node-icx/sweep.json" \
	"$TMP/ver/sweep-node-icx"/runs/*/summary.json
cp -r "$F/sweep-node-icx" "$TMP/ds/"
sed -i 's|/tmp/ppbench-merge-fixture/ds|/elsewhere/imagenet|g' "$TMP/ds/sweep-node-icx/sweep.json"
check_cli "other version, other dataset" 0 "" -- merge "$F/sweep-node-skx" "$TMP/ver/sweep-node-icx" \
	"$F/sweep-node-icx" "$TMP/ds/sweep-node-icx" --out "$O-diff"
check "the other version is named" grep -q "ppbench 9.9, not 0.1.0" "$O-diff/report.md"
check "the other dataset is named" grep -q "dataset '/elsewhere/imagenet' (16 images, [0-9.]* MB), not '" "$O-diff/report.md"
check "two of four folders compared" test "$(col compared "$O-diff/summary.csv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 8 0; 8 1;"
# the same path holding another generated dataset (profile photos, not imagenet)
mkdir -p "$TMP/pa" "$TMP/pb"
cp -r "$F/sweep-node-skx" "$F/sweep-node-icx" "$TMP/pa/" && cp -r "$F/sweep-node-icx" "$TMP/pb/"
for f in "$TMP"/pa/*/sweep.json "$TMP"/pb/*/sweep.json; do
	case $f in "$TMP"/pb/*) p=photos ;; *) p=imagenet ;; esac
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j['dataset'].update(generated=True, profile=sys.argv[2], generator_version=1, seed=1); json.dump(j, open(sys.argv[1], 'w'), indent=2)" "$f" "$p"
done
check_cli "same path, another profile" 0 "" -- merge "$TMP"/pa/sweep-node-skx "$TMP"/pa/sweep-node-icx \
	"$TMP"/pb/sweep-node-icx --out "$O-prof"
check "the other profile is named" grep -q "dataset '[^']*' (16 images, [0-9.]* MB; profile photos, generator version 1, seed 1), not '[^']*' (16 images, [0-9.]* MB; profile imagenet" "$O-prof/report.md"

# 7. one host, two identities (a sweep confined to one CPU; a labelled one):
# never averaged as repeats, compared side by side
mkdir -p "$TMP/id1" "$TMP/id2"
cp -r "$F/sweep-node-skx" "$TMP/id1/"
cp -r "$F/sweep-node-skx" "$TMP/id2/sweep-node-skx-lab"
sed -i 's/"cpus_allowed_list": "[^"]*"/"cpus_allowed_list": "0"/; s/"cpus_usable": [0-9.]*/"cpus_usable": 1.0/' \
	"$TMP/id1/sweep-node-skx/sweep.json" "$TMP/id1/sweep-node-skx"/runs/*/summary.json
sed -i 's/"label": ""/"label": "SMT off"/' "$TMP/id2/sweep-node-skx-lab/sweep.json"
check_cli "one host, three identities" 0 "" -- merge "$F/sweep-node-skx" "$TMP/id1/sweep-node-skx" \
	"$TMP/id2/sweep-node-skx-lab" --out "$O-id"
check "three machines, not one: each in comparison.csv" \
	test "$(grep -c '^node-skx' "$O-id/comparison.csv")" -eq 3
check "the confined sweep is named by its CPUs" grep -q '^node-skx \[CPUs 0\]' "$O-id/comparison.csv"
check "the labelled sweep is named by its label" grep -q '^node-skx \[SMT off' "$O-id/comparison.csv"
check "the confined sweep counts 1 CPU" test "$(cell cpus_online node-skx "$O-id/summary.csv" | sort -u | tr '\n' ' ')" = "1 2 "

# 8. no run succeeded anywhere
mkdir -p "$TMP/failed"
cp -r "$F/sweep-node-skx" "$TMP/failed/"
sed -i 's/"status": "ok"/"status": "failed"/' "$TMP/failed/sweep-node-skx/sweep.json"
check_cli "no successful run: exit 1" 1 "no run of any sweep folder succeeded" -- \
	merge "$TMP/failed/sweep-node-skx" --out "$O-failed"
check "no successful run: the report says so" grep -q "No run of any sweep folder succeeded" \
	"$O-failed/report.md"

# 9. the fused what-if per machine: node-skx's and node-icx's sweeps carry a
# "fused_whatif" (as `ppbench sweep` stores it), a copy of node-icx's none
mkdir -p "$TMP/wi"
cp -r "$F/sweep-node-skx" "$F/sweep-node-icx" "$TMP/wi/"
cp -r "$F/sweep-node-icx" "$TMP/wi/sweep-node-icx-old"
sed -i 's/"label": ""/"label": "old"/' "$TMP/wi/sweep-node-icx-old/sweep.json"
/usr/bin/python3 - "$TMP/wi" <<'PY'
import json, sys
def fig(v):
    return {"values": v}
for host, fa, fu, noisy in (("skx", 2.0, 1.2, False), ("icx", 1.5, 1.0, True)):
    p = sys.argv[1] + "/sweep-node-%s/sweep.json" % host
    s = json.load(open(p))
    s["fused_whatif"] = {
        "faithful_pipeline": "imagenet_train", "fused_pipeline": "imagenet_train_fused",
        "single_threaded": True, "images": 8, "failed_images": 0, "rounds": 6,
        "faithful_cpu_ms_per_image": fig([fa, fa + .01, fa - .01, fa, fa + .02, fa - .02]),
        "fused_cpu_ms_per_image": fig([fu, fu + .01, fu - .01, fu, fu + .02, fu - .02]),
        "saved_cpu_ms_per_image": fig([fa - fu] * 6),
        "fused_over_faithful_images_per_s": fig([fa / fu] * 6),
        "faithful_checksum": "00000000000000ab", "fused_checksum": "00000000000000ab",
        "tensors_identical": True, "region_decodes": 8, "full_decodes": 0,
        "noise": {"noisy": noisy, "others_cpu_pct": 40.0 if noisy else 1.0}}
    json.dump(s, open(p, "w"), indent=2)
PY
check_cli "merge sweeps with and without the fused what-if" 0 "" -- merge "$TMP/wi" --out "$O-wi"
check "what-if: the section, labelled single-threaded" sh -c \
	"grep -q '^## What-if: a fused crop-decode' '$O-wi/report.md' && grep -q 'what-if from a single-threaded measurement' '$O-wi/report.md'"
check "what-if: node-skx's measurement, tensors identical, not noisy" \
	grep -Eq '^\| node-skx \| sweep-node-skx \| 2\.000 \[[0-9., ]+\] \| 1\.200 \[[0-9., ]+\] \| 0\.800 .*\| yes \| no \|$' "$O-wi/report.md"
check "what-if: node-icx's, noisy" \
	grep -Eq '^\| node-icx \| sweep-node-icx \| 1\.500 .*\| yes \| NOISY \(others took 40 % of the CPUs\) \|$' "$O-wi/report.md"
check "what-if: the sweep without one is not measured" \
	grep -q '^| node-icx \[old\] | - | not measured | not measured |' "$O-wi/report.md"
# the fixtures' GPU step, 6.78125 ms at batch 8, 1 GPU: 1180 images/s
check "what-if: cores per GPU at the sweeps' GPU demand, per machine" sh -c \
	"grep -Eq '^\| node-skx \(sweep-node-skx\) \| 8 \| 1 \| 6\.8 \| 1180 \| 2\.36 \[[0-9., ]+\] \| 1\.42 \[[0-9., ]+\] \| 0\.94 ' '$O-wi/report.md' &&
	 grep -Eq '^\| node-icx \(sweep-node-icx\) \| 8 \| 1 \| 6\.8 \| 1180 \| 1\.77 ' '$O-wi/report.md'"
check "what-if: in report.html too" grep -q 'What-if: a fused crop-decode' "$O-wi/report.html"
# sweeps with different GPU steps: no common demand, per 1,000 images/s
sed -i 's/"gpu_step_ns": 6781250/"gpu_step_ns": 5000000/' "$TMP/wi/sweep-node-icx"/runs/*/summary.json
check_cli "merge what-ifs of sweeps with different GPU steps" 0 "" -- merge "$TMP/wi" --out "$O-wi2"
check "what-if: GPU steps that differ give cores per 1,000 images/s" \
	grep -Eq '^\| node-skx \(sweep-node-skx\) \| 8 \| 1 \| differs between the sweeps \| per 1,000 \| 2\.00 ' "$O-wi2/report.md"
check "what-if: none in the merge of the plain fixtures" sh -c "! grep -q 'What-if' '$O/report.md'"

# 10. refusals
check_cli "a price for an unknown machine" 2 "no machine named 'nohost'" -- merge "$F" \
	--price nohost=3 --out "$O-x"
check_cli "a price that is not a number" 2 "not a positive price" -- merge "$F" --price node-skx=abc
check_cli "a folder with no sweep" 1 "not a sweep folder" -- merge "$TMP/ds/sweep-node-icx/runs"
check_cli "no folder" 2 "usage" -- merge
check_cli "--by something else" 2 "not host or cpu" -- merge "$F" --by disk
