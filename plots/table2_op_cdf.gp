# Table II as distributions: for each op, the share of its events that took
# at most a given time (CDF), log time axis, with the 100 us and 10 ms
# thresholds of the paper's table marked.
# usage: gnuplot -c table2_op_cdf.gp op_cdf.csv OUT_PREFIX [SUBTITLE]
# columns: series, series_label (op), dur_us, cum_pct
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title "Per-op time distributions (Lotus Table II)".(ARGC >= 3 && strlen(ARG3) ? "\n".ARG3 : "")
set xlabel "duration of one op call (us, log scale)"
set ylabel "share of calls at most this long (%)"
set logscale x
set format x "%g"
set yrange [0:100]
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
set arrow from first 100, graph 0 to first 100, graph 1 nohead dt 2 lw 2 lc rgb "#444444" front
set arrow from first 10000, graph 0 to first 10000, graph 1 nohead dt 2 lw 2 lc rgb "#444444" front
set label "100 us" at first 100, graph 1 offset 0.5, -1 tc rgb "#444444" front
set label "10 ms" at first 10000, graph 1 offset 0.5, -1 tc rgb "#444444" front
plot for [i=1:nseries] IN using "dur_us":(column("series") == i ? column("cum_pct") : NaN) \
	with steps lt i title label(i)
@finish
