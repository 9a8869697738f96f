# Fig. 6(b): the sum of the ops' wall spans against the number of workers,
# stacked by op (per op: the sum of its durations over all workers, as
# LotusTrace counts them; Lotus calls it the op's "CPU seconds", though it
# includes the time a worker was descheduled). When the data has cum_oncpu_s (the runs counted
# on-CPU time, ppbench run --counters), each op's part of the stack is split:
# solid up to its time on a CPU, hatched for the time it was descheduled
# (waiting for a core), which Lotus's wall durations cannot tell apart.
# usage: gnuplot -c fig6b_cpu_vs_workers.gp cpu_by_op.csv OUT_PREFIX [SUBTITLE]
# columns: series (op, 1 = bottom of the stack), series_label (op name),
#          workers, span_s, cum_span_s (this op and those below it); optional
#          oncpu_s, descheduled_s, cum_oncpu_s (top of this op's on-CPU part)
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

split = has("cum_oncpu_s")
set title "Sum of op spans by op against workers (Lotus Fig. 6b, its \"CPU seconds\")".(split ? ":\nsolid on a CPU, hatched descheduled" : "").(ARGC >= 3 && strlen(ARG3) ? "\n".ARG3 : "")
set xlabel "data-loader workers"
set ylabel "sum of op wall spans over workers (s)"
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.08, 0
XCOL = "workers"; @integer_xtics
# the legend outside, on the right, in the order of the stack
set key outside right top vertical reverse Left
# gap: the smallest step between two worker counts of an op (its rows are in
# x order), 1 with one worker count
gap = NaN; gp_x = NaN; gp_s = NaN
stats IN using (gp_v = column("workers"), gp_t = column("series"), \
	(gp_t == gp_s && gp_v > gp_x && !(gp_v - gp_x >= gap)) ? gap = gp_v - gp_x : 0, \
	gp_x = gp_v, gp_s = gp_t, 0) nooutput
gap = gap == gap ? gap : 1
if (split) {
	# each op two boxes: [below it, top of its on-CPU part] solid, [that, its top] hatched
	bw = 0.3 * gap
	top(i) = column("series") == i ? column("cum_span_s") : NaN
	on(i) = (c = column("cum_oncpu_s"), c == c ? c : column("cum_span_s"))
	plot for [i=nseries:1:-1] IN using "workers":(top(i)):(column("workers") - bw):(column("workers") + bw):(column("cum_span_s") - column("span_s")):(on(i)) \
		with boxxyerror lt i fill solid 0.85 border rgb "#555555" title label(i), \
	     for [i=nseries:1:-1] IN using "workers":(top(i)):(column("workers") - bw):(column("workers") + bw):(on(i)):(column("cum_span_s")) \
		with boxxyerror lt i fill pattern 4 border rgb "#555555" notitle, \
	     NaN with boxes lc rgb "#555555" fill pattern 4 title "descheduled"
} else {
	set boxwidth 0.6 * gap absolute
	set style fill solid 0.85 border rgb "#555555"
	plot for [i=nseries:1:-1] IN using "workers":(column("series") == i ? column("cum_span_s") : NaN) \
		with boxes lt i title label(i)
}
@finish
