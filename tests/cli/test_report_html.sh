# report.html parsed strictly (tests/cli/html_strict.py): every element
# closed in order, no '<' or '&' left raw in text, no unknown entity. The
# run report's per-op table has headers that hold '<' ("< 10 ms %"): they
# must read '&lt;' in the file. The dataset sits in a folder whose name
# holds '<b>', '&' and '&amp;', which the reports must print as text. The
# run, sweep and merge reports are checked (all written by bench/report/doc.c).
. "$(dirname "$0")/lib.sh"

need python3 || exit 1
strict() { python3 tests/cli/html_strict.py "$@"; }
DS="$TMP/html ds<b>&x&amp;y"
OUT=$TMP/html-out
"$PPBENCH" dataset generate --out "$DS" --images 16 --classes 2 --quiet >/dev/null 2>&1 ||
	{ echo "not ok - generate the dataset in '$DS'"; exit 1; }

# the run report
check_cli "a run on the dataset" 0 "results: " -- run --data "$DS" --workers 1 --batch 4 \
	--max-batches 2 --gpu-step 0 --out "$OUT" --tag html
R=$(ls -d "$OUT"/*-html 2>/dev/null | head -1)
check_cli "its report" 0 "report.html" -- report "$R"
if strict "$R/report.html" --text "html ds<b>&x&amp;y" >"$TMP/run.th" 2>"$TMP/run.err"; then
	echo "ok - the run's report.html parses strictly, the folder name shows as text"
else
	echo "not ok - the run's report.html parses strictly, the folder name shows as text"
	sed 's/^/#   /' "$TMP/run.err" | head -5
fi
check "the op table's header '< 10 ms %' is written &lt; 10 ms %" grep -qx 'th: &lt; 10 ms %' "$TMP/run.th"
check "and '< 100 us %' is &lt; 100 us %" grep -qx 'th: &lt; 100 us %' "$TMP/run.th"

# the sweep report
check_cli "a sweep of one run" 0 "report.html" -- sweep --data "$DS" --workers 1 --batch 4 --gpus 1 \
	--max-batches 2 --gpu-step 0 --out "$OUT" --tag hs
S=$(ls -d "$OUT"/*-sweep-hs 2>/dev/null | head -1)
if strict "$S/report.html" --text "html ds<b>&x&amp;y" >/dev/null 2>"$TMP/sweep.err"; then
	echo "ok - the sweep's report.html parses strictly"
else
	echo "not ok - the sweep's report.html parses strictly"
	sed 's/^/#   /' "$TMP/sweep.err" | head -5
fi

# the merge report (stored sweeps)
check_cli "merge of the stored sweeps" 0 "report.html" -- merge tests/fixtures/merge --out "$TMP/html-merge"
if strict "$TMP/html-merge/report.html" >/dev/null 2>"$TMP/merge.err"; then
	echo "ok - the merge's report.html parses strictly"
else
	echo "not ok - the merge's report.html parses strictly"
	sed 's/^/#   /' "$TMP/merge.err" | head -5
fi

# the checker itself refuses what html.parser alone lets pass
printf '<html><body><table><tr><th>< 10 ms</th></tr></table></body></html>\n' >"$TMP/bad1.html"
printf '<html><body><p>a & b</p></body></html>\n' >"$TMP/bad2.html"
printf '<html><body><p><b>x</p></b></body></html>\n' >"$TMP/bad3.html"
printf '<html><body><p>x &bogus; y</p></body></html>\n' >"$TMP/bad4.html"
for b in 1 2 3 4; do
	check "the strict checker refuses bad$b.html" sh -c "! python3 tests/cli/html_strict.py '$TMP/bad$b.html'"
done
