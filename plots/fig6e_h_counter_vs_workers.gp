# Figs. 6(e-h): a figure derived from hardware events (IPC, cache misses per
# kilo-instruction, front-end or back-end stall cycles) per op against the
# number of workers, one line per op. ppbench passes the title and the y
# label (the data file's comment lines "# title: ..." and "# ylabel: ..."
# say them too).
# usage: gnuplot -c fig6e_h_counter_vs_workers.gp counter_<name>.csv OUT_PREFIX [SUBTITLE [TITLE [YLABEL]]]
# columns: series (op), series_label (op name), workers, value
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title (ARGC >= 4 && strlen(ARG4) ? ARG4 : "A counter by op against workers").(ARGC >= 3 && strlen(ARG3) ? "\n".ARG3 : "")
set xlabel "data-loader workers"
set ylabel (ARGC >= 5 && strlen(ARG5) ? ARG5 : "value")
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.08, 0
XCOL = "workers"; @integer_xtics
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot for [i=1:nseries] IN using "workers":(column("series") == i ? column("value") : NaN) \
	with linespoints lt i title label(i)
@finish
