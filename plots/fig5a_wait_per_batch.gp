# Fig. 5(a): how long the main process waited for each batch (the next batch
# in order), per batch id, log scale. A batch that arrived before it was
# needed (out of order) has no wait: it is drawn at Lotus's 1 us marker.
# usage: gnuplot -c fig5a_wait_per_batch.gp batches.csv OUT_PREFIX
# columns: series, series_label, id, wait_ms
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title "Main-process wait per batch (Lotus Fig. 5a)\nbatches that arrived out of order (no wait) sit at the 1 us marker"
set xlabel "batch id"
set ylabel "wait for the batch (ms, log scale)"
set logscale y
set format y "%g"
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot for [i=1:nseries] IN using "id":(column("series") == i && column("wait_ms") > 0 ? column("wait_ms") : NaN) \
	with points lt i pt 7 ps 0.5 title label(i)
@finish
