# Fig. 6(a): end-to-end time against the number of workers, one line per
# series (for example batch size and GPU count), with the spread of repeats.
# usage: gnuplot -c fig6a_e2e_vs_workers.gp vs_workers.csv OUT_PREFIX
# columns: series, series_label, workers, e2e_s [, e2e_min_s, e2e_max_s]
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title "End-to-end time against workers (Lotus Fig. 6a)"
set xlabel "data-loader workers"
set ylabel "end-to-end time (s)"
set yrange [0:*]
set offsets graph 0.03, graph 0.03, 0, 0
XCOL = "workers"; @integer_xtics
if (has("e2e_min_s")) {
	plot for [i=1:nseries] IN using "workers":(column("series") == i ? column("e2e_s") : NaN):"e2e_min_s":"e2e_max_s" \
		with yerrorbars lt i pt 7 notitle, \
	     for [i=1:nseries] IN using "workers":(column("series") == i ? column("e2e_s") : NaN) \
		with linespoints lt i title label(i)
} else {
	plot for [i=1:nseries] IN using "workers":(column("series") == i ? column("e2e_s") : NaN) \
		with linespoints lt i title label(i)
}
@finish
