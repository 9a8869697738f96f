# Fig. 6(b): total CPU seconds against the number of workers, stacked by op
# (per-op CPU seconds = the sum of the op's durations over all workers, as
# LotusTrace counts them).
# usage: gnuplot -c fig6b_cpu_vs_workers.gp cpu_by_op.csv OUT_PREFIX [SUBTITLE]
# columns: series (op, 1 = bottom of the stack), series_label (op name),
#          workers, cpu_s, cum_cpu_s (this op and those below it)
IN = ARG1; OUT = ARG2
load system("dirname '".ARG0."'")."/common.gp"

set title "CPU time by op against workers (Lotus Fig. 6b)".(ARGC >= 3 && strlen(ARG3) ? "\n".ARG3 : "")
set xlabel "data-loader workers"
set ylabel "CPU time, sum over workers (s)"
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.08, 0
XCOL = "workers"; @integer_xtics
set style fill solid 0.85 border rgb "#555555"
set boxwidth 0.6 * mingap("workers") absolute
set key top left reverse Left
plot for [i=nseries:1:-1] IN using "workers":(column("series") == i ? column("cum_cpu_s") : NaN) \
	with boxes lt i title label(i)
@finish
