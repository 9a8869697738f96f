# ppbench compare: every batch's preprocessing time (in its worker) against
# its id, ppbench and PyTorch, and the main-process wait for it when it was
# awaited in order (open points).
# usage: gnuplot -c compare_batches.gp batches.csv OUT_PREFIX [TITLE]
# columns: series (1 ppbench, 2 PyTorch), series_label, batch, preproc_ms, wait_ms
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title (ARGC >= 3 && strlen(ARG3) ? ARG3 : "Batch preprocessing time per batch")
set xlabel "batch id"
set ylabel "time (ms)"
set yrange [0:*]
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot for [i=1:nseries] IN using "batch":(column("series") == i ? column("preproc_ms") : NaN) \
	with linespoints lt i title "preprocessing: ".label(i), \
     for [i=1:nseries] IN using "batch":(column("series") == i ? column("wait_ms") : NaN) \
	with points lt i pt 6 title "wait: ".label(i)
@finish
