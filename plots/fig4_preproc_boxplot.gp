# Fig. 4: per-batch preprocessing time in the worker (decode, transforms and
# collation of one batch), one box per configuration: box = p25..p75, line =
# median, whiskers = 1.5 x IQR. Only full batches, after Lotus's low-tail
# cut (q1 - 2 x IQR). Log scale when the boxes span more than 20x.
# usage: gnuplot -c fig4_preproc_boxplot.gp preproc_box.csv OUT_PREFIX
# columns: series, series_label, preproc_ms
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title "Per-batch preprocessing time by configuration (Lotus Fig. 4)"
set xlabel "configuration"
set ylabel "preprocessing time of one batch (ms)"
stats IN using "preproc_ms" nooutput
if (STATS_min > 0 && STATS_max / STATS_min > 20) { set logscale y; set format y "%g" }
set style data boxplot
set style boxplot outliers pointtype 7
set pointsize 0.4
set style fill solid 0.35 border
set boxwidth 0.5
set xtics rotate by -30 left
set xrange [0.5:nseries + 0.5]
set key off
plot IN using (1):"preproc_ms":(0.5):(strcol("series_label")) lt 1
@finish
