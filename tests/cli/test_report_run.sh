# Contract tests of `ppbench report RUN_DIR` and `ppbench plots RUN_DIR`: the
# report of one run folder (configuration, main figures, ops, batch wait and
# delay, noise, machine), of a run with --repeat (every repeat found, each
# figure the median with its spread), and what is refused. Runs on empty
# image files with test ops (no decoding): a few seconds.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
SYNTH=$top/tests/fixtures/pipelines/synth.pipe
ds=$TMP/rr_ds
R=$TMP/rr_results
mkdir -p "$ds/c0"
for i in $(seq 10 25); do : >"$ds/c0/x$i.jpg"; done
run=(--data "$ds" --pipeline "$SYNTH" --gpu-step 0 --batch 4 --out "$R")

"$PPBENCH" run "${run[@]}" --workers 1 --tag one >/dev/null 2>&1
"$PPBENCH" run "${run[@]}" --workers 2 --repeat 2 --tag rep >/dev/null 2>&1
one=$(ls -d "$R"/*-one | head -1)
r1=$(ls -d "$R"/*-rep-r1 | head -1)
r2=$(ls -d "$R"/*-rep-r2 | head -1)

check_cli "report --help names run folders" 0 'ppbench report RUN_DIR' -- report --help
check_cli "report of a run folder" 0 "^$one/report.md$" -- report "$one"
md=$one/report.md
check "report.md and report.html written" test -s "$one/report.html"
for s in '^# Run ' '^## The run' 'Configuration: 1 worker, batch 4' '^## Main figures' \
	 '^\| images_per_s \|' '^## Ops' '^\| collate \|' '^## Batch wait and delay' \
	 '^\| wait_p90_ms \|' '^## Noise' '^\| others_cpu_pct \|' 'Machine: ' \
	 'One measurement \(no --repeat\)'; do
	if grep -Eq -- "$s" "$md"; then echo "ok - report.md: /$s/"; else echo "not ok - report.md: /$s/"; fi
done
if need gnuplot; then
	check "figures drawn" test -s "$one/figures/fig5a_wait_per_batch.svg"
	check "report.html inlines them" grep -q '<svg' "$one/report.html"
	check_cli "plots of a run folder" 0 "fig4_preproc_boxplot.png" -- plots "$one"
fi

# a repeated run: one folder given, every repeat found
check_cli "report of one repeat takes them all" 0 "one of 2 repeats" -- report "$r2"
check "the report is in the folder given" test -s "$r2/report.md"
check "2 repeats, median with spread" grep -q '^| images_per_s | .*(min .*, max .*, n=2)' "$r2/report.md"
check "the repeats table lists both" sh -c "grep -q '^| 1 | yes .*-rep-r1 |' '$r2/report.md' && grep -q '^| 2 | yes .*-rep-r2 |' '$r2/report.md'"
check "figures: one series per repeat" grep -q '^2,repeat 2,' "$r2/figures/data/preproc_box.csv"
check_cli "repeats given by hand" 0 "report.md" -- report "$r1" "$r2"

# refused
check_cli "refused: runs of two configurations" 1 "is another configuration \(workers 2, not 1\)" \
	-- report "$one" "$r1"
check_cli "refused: --out with a run folder" 2 "--out is for sweeps" -- report "$one" --out "$TMP/x"
mkdir -p "$TMP/rr_empty"
check_cli "refused: neither run nor sweep (exit 2: nothing read)" 2 "neither a sweep folder .* nor a run folder" -- report "$TMP/rr_empty"
