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
check_cli "--by something else" 2 "'disk' is not one of host\\|cpu" -- merge "$F" --by disk
# the option table (bench/cli/cmd_merge.c): a mistyped option names the nearest;
# --price is repeatable, the same machine priced twice keeps the last price
check_cli "merge --outt: did you mean --out" 2 "unknown option '--outt'; did you mean '--out'\\?" -- \
	merge "$F" --outt "$O-typo"
check "merge --outt: nothing written" test ! -e "$O-typo"
check_cli "--price given twice for one machine" 0 "" -- merge "$F/sweep-node-skx" "$F/sweep-node-icx" \
	--price node-skx=2 --price=node-icx=5 --price node-skx=3 --out "$O-p2"
check "--price given twice: the last price counts, the other machine keeps its own" \
	test "$(cell usd_per_hour node-skx "$O-p2/comparison.csv") $(cell usd_per_hour node-icx "$O-p2/comparison.csv")" = "3 5"

# ---- figures with their spread (issue 20, section 2) ----------------------
# synth OUT HOST LABEL "W B G IPS OTHERS OVER BATCHES" ...: a sweep folder
# made from node-skx's, one run per spec (a run's repeat numbered by its
# configuration), with the figures given: images/s (E2E = 16 images over it),
# the share others took, oversubscribed, the batches.
synth() {
	/usr/bin/python3 - "$F/sweep-node-skx" "$@" <<'PY'
import json, os, shutil, sys
src, out, host, label = sys.argv[1:5]
specs = [s.split() for s in sys.argv[5:]]
doc = json.load(open(src + "/sweep.json"))
tmpl_dir = src + "/runs/" + sorted(os.listdir(src + "/runs"))[0]
tmpl = json.load(open(tmpl_dir + "/summary.json"))
os.makedirs(out + "/runs")
doc["machine"]["hostname"] = host
doc["label"] = label
confs, runs = [], []
for s in specs:
    w, b, g = int(s[0]), int(s[1]), int(s[2])
    ips, others, over, batches = float(s[3]), float(s[4]), int(s[5]), int(s[6])
    if (w, b, g) not in confs:
        confs.append((w, b, g))
    rep = sum(1 for r in runs if (r["workers"], r["batch_size"], r["gpus"]) == (w, b, g)) + 1
    tag = "w%d-b%d-g%d-r%d" % (w, b, g, rep)
    d = "runs/20270101-000000-" + tag
    os.makedirs(out + "/" + d)
    shutil.copy(tmpl_dir + "/topology.xml", out + "/" + d)
    j = json.loads(json.dumps(tmpl))
    j["workers"], j["batch_size"], j["gpus"] = w, b, g
    j["options"].update(workers=w, batch=b, gpus=g)
    j["machine"]["hostname"] = host
    j["images"], j["batches"], j["images_per_s"], j["e2e_s"] = 16 * batches, batches, ips, 16 * batches / ips
    j["noise"]["others_cpu_pct"], j["noise"]["steal_pct"] = others, 0.0
    j["cpu"]["oversubscribed"] = over
    json.dump(j, open(out + "/" + d + "/summary.json", "w"), indent=1)
    runs.append({"config": confs.index((w, b, g)) + 1, "repeat": rep, "tag": tag, "workers": w,
                 "batch_size": b, "gpus": g, "policy": "torch", "status": "ok",
                 "page_cache": "dropped", "run_dir": d, "images_per_s": ips, "exit_code": 0})
doc["runs"] = runs
doc["workers"] = sorted({c[0] for c in confs})
doc["batch_size"] = sorted({c[1] for c in confs})
doc["gpus"] = sorted({c[2] for c in confs})
doc["repeat"] = max(r["repeat"] for r in runs)
json.dump(doc, open(out + "/sweep.json", "w"), indent=1)
PY
}
S=$TMP/spread
# A: three repeats of w1 and w2 (median 444.8 of 440.8, 466.9, 444.8; the
# mean would be 450.8); B: within noise of A at w2; C: clearly slower, and
# its fastest configuration (w2) noisy
synth "$S/a" node-a "" "1 8 1 300 1 0 10" "1 8 1 310 1 0 10" "1 8 1 305 1 0 10" \
	"2 8 1 440.8 1 0 10" "2 8 1 466.9 1 0 10" "2 8 1 444.8 1 0 10"
synth "$S/b" node-b "" "1 8 1 290 1 0 10" "1 8 1 300 1 0 10" "1 8 1 320 1 0 10" \
	"2 8 1 430 1 0 10" "2 8 1 450 1 0 10" "2 8 1 440 1 0 10"
synth "$S/c" node-c "" "1 8 1 150 1 0 10" "1 8 1 155 1 0 10" "1 8 1 160 1 0 10" \
	"2 8 1 500 68 0 10" "2 8 1 510 1 0 10" "2 8 1 505 1 1 10"
check_cli "merge three synthetic machines with repeats" 0 "" -- merge "$S/a" "$S/b" "$S/c" \
	--price node-a=2 --out "$O-sp"
C=$O-sp/comparison.csv
check "comparison.csv: the median of the repeats (444.8), not the mean, with min-max and n" \
	test "$(cell best_images_per_s node-a "$C"),$(cell best_images_per_s_lo node-a "$C"),$(cell best_images_per_s_hi node-a "$C"),$(cell best_runs node-a "$C"),$(cell interval node-a "$C")" = "444.8,440.8,466.9,3,min-max"
check "comparison.csv: lo/hi of E2E, per core, CPU, GPU and the cost" sh -c "
	for c in best_e2e_s images_per_s_per_core cpu_ms_per_image gpu_util_pct usd_per_million_images; do
		head -1 '$C' | tr , '\n' | grep -qx \"\$c\" && head -1 '$C' | tr , '\n' | grep -qx \"\${c}_lo\" &&
		head -1 '$C' | tr , '\n' | grep -qx \"\${c}_hi\" || exit 1
	done"
check "report: the Machines table gives the median with min, max and n" \
	grep -q '^| node-a | .* | w2-b8-g1 | 444\.8 (min 440\.8, max 466\.9, n=3) | ' "$O-sp/report.md"
check "report: the cost with its interval" grep -Eq '^\| node-a \|.*\| 2 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|$' "$O-sp/report.md"
check "C's noisy and oversubscribed w2 is marked and not its best: w1, clean" \
	test "$(cell best_workers node-c "$C"),$(cell best_clean node-c "$C")" = "1,1"
check "the per-configuration table marks C's w2" \
	grep -q '^| w2-b8-g1 | .*| node-c: NOISY in 1 of 3 runs (others up to 68 %); oversubscribed in 1 of 3 runs |$' "$O-sp/report.md"
check "A over B: within noise in comparison.csv" \
	test "$(cell fastest_over_this_verdict node-b "$C")" = "within noise"
check "A over C: higher, its interval above 1" sh -c "
	[ '$(cell fastest_over_this_verdict node-c "$C")' = higher ] &&
	awk 'BEGIN { exit !($(cell fastest_over_this_lo node-c "$C") > 1) }'"
short=$(grep '^In short' "$O-sp/report.md")
check "In short: B within noise of A, with its interval, and no 'faster' for it" sh -c "
	printf '%s' \"\$1\" | grep -Eq 'node-a / node-b, images/s: [0-9.]+x \[[0-9.]+, [0-9.]+\], within noise \(no faster machine' &&
	! printf '%s' \"\$1\" | grep -q 'node-a is faster beyond noise.*node-b'" _ "$short"
check "In short: C slower beyond noise, said so" \
	sh -c "printf '%s' \"\$1\" | grep -Eq 'node-a / node-c, images/s: [0-9.]+x \[[0-9.]+, [0-9.]+\], higher \(node-a is faster beyond noise\)'" _ "$short"
check "In short: the figure of the fastest with its spread" \
	sh -c "printf '%s' \"\$1\" | grep -q 'node-a, 444.8 (min 440.8, max 466.9, n=3) at w2-b8-g1'" _ "$short"
check "the per-configuration table: each ratio to the first machine judged" \
	grep -Eq '^\| w2-b8-g1 \| 444\.8 \(min 440\.8, max 466\.9, n=3\) \| 440\.0 \(min 430\.0, max 450\.0, n=3\) \| 505\.0 .*\| [0-9.]+x \[[0-9.]+, [0-9.]+\], within noise \| ' "$O-sp/report.md"
S2=$O-sp/summary.csv
check "summary.csv: each run's configuration with median, lo, hi, n on its machine, and its marks" \
	test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $h["host"] == "node-c" && $h["workers"] == 2 { print $h["noisy"] $h["oversubscribed"] "," $h["config_runs"] "," $h["config_images_per_s"] "," $h["config_images_per_s_lo"] "," $h["config_images_per_s_hi"] "," $h["config_interval"] }' "$S2" | sort | tr '\n' ' ')" = \
	"00,3,505,500,510,min-max 01,3,505,500,510,min-max 10,3,505,500,510,min-max "
check "figure data: images/s with lo and hi" \
	test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $h["machine"] == "node-a" && $h["workers"] == 2 { print $h["images_per_s"] "," $h["images_per_s_lo"] "," $h["images_per_s_hi"] "," $h["runs"] }' "$O-sp/figures/data/machines_vs_workers.csv")" = "444.8,440.8,466.9,3"
# the knee beside the best configuration is its own series' (issue 20: the
# column showed b128's knee beside a b32 best): b8 has its knee at 2
# workers, b16 none; the best is b8's w3
synth "$S/k" node-k "" "1 8 1 100 1 0 10" "2 8 1 200 1 0 10" "3 8 1 205 1 0 10" \
	"1 16 1 50 1 0 10" "2 16 1 100 1 0 10" "3 16 1 150 1 0 10"
check_cli "merge a machine with two series" 0 "" -- merge "$S/k" --out "$O-knee"
check "comparison.csv: the knee of b8's series beside the b8 best" \
	test "$(cell best_batch node-k "$O-knee/comparison.csv"),$(cell knee_batch node-k "$O-knee/comparison.csv"),$(cell knee_workers node-k "$O-knee/comparison.csv")" = "8,8,2"
check "report: the knee column names its series" \
	grep -Eq '^\| node-k \| .* \| w3-b8-g1 \| .* \| b8 / 1 GPU: knee at 2 workers \(' "$O-knee/report.md"
check "report: each series' knee listed" sh -c "
	grep -q '^- node-k, b8 / 1 GPU: at b8 and 1 GPU the knee is at 2 workers' '$O-knee/report.md' &&
	grep -q '^- node-k, b16 / 1 GPU: at b16 and 1 GPU, E2E still falls' '$O-knee/report.md'"

# ---- CSV text fields (issue 21, item 3) -----------------------------------
# hostile names: a folder named with a comma and a formula, one with a
# newline and a quote, a host starting with '=', a label with a comma
mkdir -p "$S/q"
synth "$S/q/sweep-a,=2+3" "=HYPERLINK(\"http://x\")" 'l,"q"' "1 8 1 100 1 0 10" "2 8 1 150 1 0 10"
synth "$S/q/sweep-nl
x\"y" "@host" "" "1 8 1 110 1 0 10" "2 8 1 140 1 0 10"
check_cli "merge folders with hostile names" 0 "" -- merge "$S/q" --out "$O-q"
# every CSV: one row a line, each row as many fields as the header, no field
# that a spreadsheet takes for a formula
csv_ok() {
	/usr/bin/python3 - "$@" <<'PY'
import csv, sys
def number(f):
    try:
        float(f)
        return True
    except ValueError:
        return False
bad = []
for p in sys.argv[1:]:
    lines = open(p, newline="").read().split("\n")
    rows = list(csv.reader([l for l in lines if l and not l.startswith("#")]))
    if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
        bad.append("%s: fields %s" % (p, sorted({len(r) for r in rows})))
    for r in rows:
        for f in r:
            if f[:1] in ("=", "+", "-", "@") and not number(f):
                bad.append("%s: live formula %r" % (p, f))
print("; ".join(bad[:5]))
sys.exit(1 if bad else 0)
PY
}
check "summary.csv, comparison.csv, figure data: one row a line, the header's field count, no live formula" \
	csv_ok "$O-q/summary.csv" "$O-q/comparison.csv" "$O-q/figures/data/machines_vs_workers.csv" \
	"$O-q/figures/data/machines_op_cpu.csv"
check "the host starting with = is written quoted, neutralised with '" \
	grep -q '^"'"'"'=HYPERLINK(""http://x"")",' "$O-q/summary.csv"
check "the folder name with a comma and a formula is one quoted field" \
	grep -q ',"sweep-a,=2+3",' "$O-q/summary.csv"
check "the folder name with a newline is escaped, its quote doubled" \
	grep -q ',"sweep-nl\\x0ax""y",' "$O-q/summary.csv"
check "the label with a comma and quotes is one field" \
	grep -q '^"'"'"'=HYPERLINK(""http://x"") \[l,""q""\]",' "$O-q/comparison.csv"
check "figures drawn from the quoted data" test "$(ls "$O-q"/figures/*.png 2>/dev/null | wc -l)" -eq 6

# ---- a sweep still running (issue 21, item 15) ----------------------------
mkdir -p "$TMP/live"
cp -r "$F/sweep-node-skx" "$TMP/live/"
L=$TMP/live/sweep-node-skx
/usr/bin/python3 - "$L/sweep.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for r in j["runs"][2:]:
    r["status"] = "pending"
    r.pop("run_dir", None)
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
need flock || exit 1
out=$(flock "$L/.lock" "$PPBENCH" merge "$L" --out "$O-live" 2>&1)
rc=$?
check "merge of a sweep holding its .lock: exit 0" test "$rc" -eq 0
check "it warns that the sweep is in progress, naming it and the runs missing" sh -c \
	"printf '%s' \"\$1\" | grep -q \"warning: 'sweep-node-skx' is a sweep still running .*2 of its 4 runs are not finished and are missing from this merge (w3-b8-g1-r1, w4-b8-g1-r1)\"" _ "$out"
check "the report says so at the top" grep -q '^\*\*In progress:\*\* sweep-node-skx is a sweep still running' "$O-live/report.md"
out=$("$PPBENCH" merge "$L" --out "$O-live2" 2>&1)
check "an interrupted sweep (no lock held) is not called running" sh -c \
	"! printf '%s' \"\$1\" | grep -q 'still running'" _ "$out"

# ---- A/A: two sweeps of the same configurations on the same CPUs ------------
# Four real sweeps, A B A B (labels aa and bb: two "machines" of one host),
# 3 repeats each, so each side has 6 runs of each configuration, interleaved
# in time: whatever the load, they come from one distribution, and their
# ratio must be within noise (the min-max of 6 against 6 lie apart by chance
# in 2 of 924 cases). One A sweep is tagged 'a,=2+3': its folder name goes to
# the CSVs quoted. Then --model on.
AA=$TMP/aa
"$PPBENCH" dataset generate --out "$AA/ds" --images 16 --classes 2 --quiet >/dev/null 2>&1
for s in aa1 bb1 aa2 bb2; do
	lab=${s%?}
	tag=$s
	[ "$s" = aa1 ] && tag='a,=2+3'
	"$PPBENCH" sweep --data "$AA/ds" --pipeline null --workers "1 2" --batch 4 --gpus 1 \
		--gpu-step 2ms --repeat 3 --fused off --no-report --label "$lab" --tag "$tag" \
		--out "$AA/$s" >"$AA/$s.log" 2>&1 || echo "not ok - A/A sweep $s: exit $?"
done
check_cli "merge the A/A sweeps with --model on" 0 "" -- merge "$AA"/aa1/* "$AA"/bb1/* \
	"$AA"/aa2/* "$AA"/bb2/* --model on --out "$O-aa"
check "A/A: two machines, each with 6 runs at its best" \
	test "$(col best_runs "$O-aa/comparison.csv" | tr '\n' ' ')" = "6 6 "
aa_ok=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h["fastest_over_this_verdict"] }' "$O-aa/comparison.csv" | grep -c 'within noise')
best_clean=$(col best_clean "$O-aa/comparison.csv" | tr -d '\n')
if [ "$best_clean" = 11 ]; then
	check "A/A: the fastest over the other, within noise" test "$aa_ok" -eq 1
else
	skip "A/A: the headline ratio" "the runs were noisy or oversubscribed (best_clean $best_clean): no headline"
fi
# each configuration within noise; on a machine so busy that merge marks the
# runs NOISY (make check beside other jobs), a ratio outside noise may happen
# and is shown with that mark: then the configuration counts, and is printed
aa_rows=$(grep -E '^\| w[12]-b4-g1 \| .* \| [0-9.]+x \[[0-9.]+, [0-9.]+\], ' "$O-aa/report.md")
aa_in=$(printf '%s\n' "$aa_rows" | grep -Ec '\], within noise \| ')
aa_noisy=$(printf '%s\n' "$aa_rows" | grep -v '\], within noise \| ' | grep -c 'NOISY')
[ "$aa_in" -lt 2 ] && printf '    (A/A rows not within noise: %s)\n' "$(grep -E '^\| w[12]-b4-g1 \| ' "$O-aa/report.md" | grep -v 'within noise')"
check "A/A: within noise at every configuration (or marked NOISY)" test $((aa_in + aa_noisy)) -eq 2
check "A/A: no machine called faster" sh -c "! grep -q 'faster beyond noise' '$O-aa/report.md'"
check "A/A: the tagged sweep's folder is one quoted field" grep -q ',"[0-9-]*-sweep-a,=2+3",' "$O-aa/summary.csv"
check "A/A: the CSVs parse with the header's field count and no live formula" \
	csv_ok "$O-aa/summary.csv" "$O-aa/comparison.csv" "$O-aa/figures/data/machines_vs_workers.csv"
# --model on: a "model: <machine>" series beside each measured one
check "--model on: a model series beside each machine's measured one" \
	test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h["kind"] ":" $h["series_label"] }' "$O-aa/figures/data/machines_vs_workers.csv" | sort -u | tr '\n' ' ')" = \
	"measured:$(hostname) [aa] measured:$(hostname) [bb] model:model: $(hostname) [aa] model:model: $(hostname) [bb] "
check "--model on: the modelled images/s at both worker counts" \
	test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $h["kind"] == "model" && $h["images_per_s"] > 0 { n++ } END { print n }' "$O-aa/figures/data/machines_vs_workers.csv")" -eq 4
check "--model on: the report's table, labelled a model" sh -c \
	"grep -q '^## The model beside the measurement' '$O-aa/report.md' && grep -Eq '^\| .* \[aa\] \| w2-b4-g1 \| [0-9.]+ .*\| [0-9.]+ \| [0-9.]+ \| its w1 run \|$' '$O-aa/report.md'"
check "--model on: figures drawn" test "$(ls "$O-aa"/figures/*.png 2>/dev/null | wc -l)" -eq 6
check "--model off (the default): no model series" sh -c "! grep -q ',model,' '$O/figures/data/machines_vs_workers.csv'"
check_cli "--model with another word" 2 "not on or off" -- merge "$F" --model maybe
