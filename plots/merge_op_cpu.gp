# ppbench merge: CPU time of each op per image, one bar per machine.
# usage: gnuplot -c merge_op_cpu.gp machines_op_cpu.csv OUT_PREFIX "subtitle"
# columns: op, then one column per machine (its label as the header), in ms
#   of CPU per image
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title "CPU time per image, by op".(strlen(ARG3) ? " (".ARG3.")" : "")
set xlabel "op"
set ylabel "CPU time per image (ms)"
set yrange [0:*]
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -25 left
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot for [i=2:ncols] IN using i:xtic(1) lt (i - 1) title columnhead(i)
@finish
