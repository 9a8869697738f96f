# ppbench sweep / report / plots on a tiny dataset: the table, valid figures,
# the report, --resume after an interruption, a failed run recorded.
. "$(dirname "$0")/lib.sh"

need gnuplot || exit 1

DS=$TMP/sweep-ds
OUT=$TMP/sweep-out
"$PPBENCH" dataset generate --out "$DS" --images 16 --classes 2 --quiet >/dev/null 2>&1 ||
	{ echo "not ok - generate the tiny dataset"; exit 1; }

# 1. two configurations: rows, columns, figures, report
check_cli "sweep over two worker counts" 0 "report.html" -- sweep --data "$DS" --workers "1 2" \
	--batch 4 --gpus 1 --max-batches 3 --out "$OUT" --tag two
S=$(ls -d "$OUT"/*-sweep-two 2>/dev/null | head -1)
check "sweep folder made" test -d "$S"
check "sweep.json, summary.csv, report.md, report.html" \
	test -s "$S/sweep.json" -a -s "$S/summary.csv" -a -s "$S/report.md" -a -s "$S/report.html"
check "two rows in summary.csv" test "$(grep -vc '^#' "$S/summary.csv")" -eq 3
hdr=$(head -1 "$S/summary.csv")
missing=""
for c in config repeat tag status workers batch gpus e2e_s images_per_s ops_span_s ooo_pct stall_pct \
	preproc_avg_ms preproc_std_pct wait_gt_500ms_pct delay_gt_500ms_pct gpu_util_pct \
	op_decode_span_s op_decode_under_10ms_pct; do
	case ",$hdr," in *",$c,"*) ;; *) missing="$missing $c" ;; esac
done
check "summary.csv columns named with units${missing:+ (missing:$missing)}" test -z "$missing"
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$2"; }
check "both runs ok" test "$(col status "$S/summary.csv" | tr '\n' ' ')" = "ok ok "
check "workers 1 then 2" test "$(col workers "$S/summary.csv" | tr '\n' ' ')" = "1 2 "
check "page cache dropped before each run" test "$(col cache "$S/summary.csv" | sort -u)" = "dropped"
bad=""
n=0
for png in "$S"/figures/*.png "$S"/figures/paper/*.png; do
	n=$((n + 1))
	svg=${png%.png}.svg
	[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || bad="$bad $png"
	grep -q "<svg" "$svg" && grep -q "</svg>" "$svg" || bad="$bad $svg"
done
check "13 figures, each a valid PNG and SVG${bad:+ (bad:$bad)}" test "$n" -eq 13 -a -z "$bad"
for f in table2_op_cdf fig4_preproc_boxplot fig5a_wait_per_batch fig5b_delay_percentiles \
	fig6a_e2e_vs_workers fig6b_cpu_vs_workers ooo_stall_vs_workers gpu_util_vs_workers; do
	[ -s "$S/figures/$f.png" ] || bad="$bad $f"
done
check "this machine's figures against workers${bad:+ (missing:$bad)}" test -z "$bad"
check "no figure against batch size, and the report says why" \
	grep -q "one batch size per worker and GPU count" "$S/report.md"
check "five verdicts" test "$(grep -c '^\*\*Verdict: ' "$S/report.md")" -eq 5
check "report.html is self-contained (inline SVG, no img)" \
	sh -c "grep -q '<svg' '$S/report.html' && ! grep -q '<img' '$S/report.html'"

# 2. ppbench plots and ppbench report redraw
rm -f "$S"/figures/*.png
check_cli "plots redraws the figures" 0 "fig6a_e2e_vs_workers.png" -- plots "$S"
check "figures back" test -s "$S/figures/fig6a_e2e_vs_workers.png"
check_cli "report on the sweep folder" 0 "report.md" -- report "$S"
check_cli "report on a folder that is not a sweep (exit 2: nothing read)" 2 "neither a sweep folder" -- report "$DS"

# 3. interrupted, then resumed: only the missing configuration runs
printf 'sleep ms=150\n' >"$TMP/slow.pipe"
"$PPBENCH" sweep --data "$DS" --pipeline "$TMP/slow.pipe" --workers "1 2" --batch 4 --gpus 1 \
	--max-batches 4 --out "$OUT" --tag int --no-report >"$TMP/int.log" 2>&1 &
pid=$!
S2=""
for i in $(seq 1 200); do
	S2=$(ls -d "$OUT"/*-sweep-int 2>/dev/null | head -1)
	[ -n "$S2" ] && grep -q '"status": "ok"' "$S2/sweep.json" 2>/dev/null && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
rc=$?
check "SIGINT stops the sweep with exit 130 (got $rc)" test "$rc" -eq 130
check "and says how to resume" grep -q "resume with: ppbench sweep --resume" "$TMP/int.log"
check "one run kept ok, one not" test "$(grep -c '"status": "ok"' "$S2/sweep.json")" -eq 1
before=$(ls "$S2/runs" | wc -l)
check_cli "resume runs the missing configuration" 0 "1 run to do \(resumed\)" -- sweep --resume "$S2"
check "exactly one run more" test "$(ls "$S2/runs" | wc -l)" -eq $((before + 1))
check "both ok after the resume" test "$(col status "$S2/summary.csv" | tr '\n' ' ')" = "ok ok "
check_cli "resume again: nothing to do" 0 "0 runs to do" -- sweep --resume "$S2" --no-report
check_cli "resume refuses new dimensions" 2 "cannot be changed" -- sweep --resume "$S2" --workers 3

# 4. a run that fails is recorded and the sweep goes on
# (16 images: with --drop-last a batch of 65536 has nothing to run; the
# run refuses it with exit 2)
check_cli "a refused configuration does not stop the sweep" 0 "" -- sweep --data "$DS" \
	--workers 1 --batch "4 65536" --gpus 1 --max-batches 1 --drop-last --out "$OUT" --tag fail
S3=$(ls -d "$OUT"/*-sweep-fail 2>/dev/null | head -1)
check "statuses ok, failed" test "$(col status "$S3/summary.csv" | tr '\n' ' ')" = "ok failed "
check "exit code 2 recorded" test "$(col exit_code "$S3/summary.csv" | tr '\n' ' ')" = "0 2 "
check "the report names the failed run" grep -q "w1-b65536-g1-r1: failed, exit code 2" "$S3/report.md"

# 5. refused before anything runs
check_cli "unknown run option refused up front" 2 "unknown option '--bogus'" -- sweep --data "$DS" \
	--bogus 1 --out "$OUT" --tag bogus
check "and no sweep folder made" sh -c "! ls -d '$OUT'/*-sweep-bogus >/dev/null 2>&1"
check_cli "bad list refused" 2 "--workers: 'x' is not a positive integer" -- sweep --data "$DS" \
	--workers "1 x" --out "$OUT"
check_cli "sweep --help" 0 "--resume DIR" -- sweep --help
