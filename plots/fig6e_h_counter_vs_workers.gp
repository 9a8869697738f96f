# Figs. 6(e-h): a figure derived from hardware events (IPC, cache misses per
# kilo-instruction, front-end or back-end stall cycles) per op against the
# number of workers, one line per op. The data file names the figure in
# comment lines "# title: ..." and "# ylabel: ..." before its header.
# usage: gnuplot -c fig6e_h_counter_vs_workers.gp counter_<name>.csv OUT_PREFIX [SUBTITLE]
# columns: series (op), series_label (op name), workers, value
IN = ARG1; OUT = ARG2
load system("dirname '".ARG0."'")."/common.gp"

comment(k) = system("awk '/^# ".k.": / {sub(/^# ".k.": /, \"\"); print; exit}' '".IN."'")
set title comment("title").(ARGC >= 3 && strlen(ARG3) ? "\n".ARG3 : "")
set xlabel "data-loader workers"
set ylabel comment("ylabel")
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.08, 0
XCOL = "workers"; @integer_xtics
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot for [i=1:nseries] IN using "workers":(column("series") == i ? column("value") : NaN) \
	with linespoints lt i title label(i)
@finish
