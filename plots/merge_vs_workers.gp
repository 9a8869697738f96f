# ppbench merge: one measure against workers, one line per machine (and per
# batch size and GPU count when the compared configurations have several).
# usage: gnuplot -c merge_vs_workers.gp machines_vs_workers.csv OUT_PREFIX COLUMN "y label" "title"
# columns: series, series_label, workers, COLUMN [, COLUMN_lo, COLUMN_hi]
#   (the _lo/_hi columns, when present, are the interval of the median over
#   the runs: min-max, or the 95 % interval from 6 runs on)
IN = ARG1; OUT = ARG2; YCOL = ARG3
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title ARG5
set xlabel "data-loader workers"
set ylabel ARG4
set yrange [0:*]
set offsets graph 0.03, graph 0.03, graph 0.05, 0
XCOL = "workers"; @integer_xtics
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
if (has(YCOL."_lo") && has(YCOL."_hi")) {
	plot for [i=1:nseries] IN using "workers":(column("series") == i ? column(YCOL) : NaN):YCOL."_lo":YCOL."_hi" \
		with yerrorbars lt i pt 7 notitle, \
	     for [i=1:nseries] IN using "workers":(column("series") == i ? column(YCOL) : NaN) \
		with linespoints lt i title label(i)
} else {
	plot for [i=1:nseries] IN using "workers":(column("series") == i ? column(YCOL) : NaN) \
		with linespoints lt i title label(i)
}
@finish
