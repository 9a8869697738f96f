# ppbench compare: the distribution (CDF) of one per-batch figure (wait,
# delay, batch preprocessing time), ppbench and PyTorch as two curves.
# usage: gnuplot -c compare_cdf.gp wait_cdf.csv OUT_PREFIX [TITLE]
# columns: series (1 ppbench, 2 PyTorch), series_label, x_ms, cum_pct
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title (ARGC >= 3 && strlen(ARG3) ? ARG3 : "Distribution")
set xlabel "time (ms)"
set ylabel "share of batches at most this long (%)"
set yrange [0:100]
set xrange [0:*]
set key below center horizontal width 0
# a side with no value (no in-order wait, say) draws nothing
plot for [i=1:nseries] IN using "x_ms":(column("series") == i ? column("cum_pct") : NaN) \
	with steps lt i title label(i)
@finish
