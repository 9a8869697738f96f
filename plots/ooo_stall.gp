# Out-of-order arrivals (% of batches that arrived before they were needed)
# and main-process stall (% of the wall time spent waiting for the next
# batch) against workers or batch size, one colour per series.
# usage: gnuplot -c ooo_stall.gp vs_workers.csv|vs_batch.csv OUT_PREFIX [workers|batch]
# columns: series, series_label, the x column, ooo_pct, stall_pct
IN = ARG1; OUT = ARG2
XCOL = (ARGC >= 3 && strlen(ARG3)) ? ARG3 : "workers"
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

if (XCOL eq "batch") {
	set title "Out-of-order batches and stall against batch size"
	set xlabel "batch size (images, log scale)"
	set logscale x 2
	set offsets graph 0.03, graph 0.03, 0, 0
} else {
	set title "Out-of-order batches and stall against workers"
	set xlabel "data-loader workers"
	set offsets graph 0.03, graph 0.03, 0, 0
	@integer_xtics
}
set ylabel "share (%)"
set yrange [0:105]
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot for [i=1:nseries] IN using XCOL:(column("series") == i ? column("ooo_pct") : NaN) \
	with linespoints lt i dt 1 title "out of order: ".label(i), \
     for [i=1:nseries] IN using XCOL:(column("series") == i ? column("stall_pct") : NaN) \
	with linespoints lt i dt 2 pt 4 title "stall: ".label(i)
@finish
