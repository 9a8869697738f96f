# Utilization of the simulated GPU (busy / (busy + idle)) against workers.
# usage: gnuplot -c gpu_util_vs_workers.gp vs_workers.csv OUT_PREFIX
# columns: series, series_label, workers, gpu_util_pct
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title "Simulated GPU utilization against workers"
set xlabel "data-loader workers"
set ylabel "GPU busy (% of the run)"
set yrange [0:105]
set offsets graph 0.03, graph 0.03, 0, 0
XCOL = "workers"; @integer_xtics
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot for [i=1:nseries] IN using "workers":(column("series") == i ? column("gpu_util_pct") : NaN) \
	with linespoints lt i title label(i)
@finish
