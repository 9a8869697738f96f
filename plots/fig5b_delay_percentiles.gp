# Fig. 5(b): delay of finished batches by percentile (delay = when the batch
# was consumed - when its worker finished it), with the 500 ms line the
# paper uses.
# usage: gnuplot -c fig5b_delay_percentiles.gp percentiles.csv OUT_PREFIX
# columns: series, series_label, pct, delay_ms
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title "Delay of preprocessed batches by percentile (Lotus Fig. 5b)"
set xlabel "percentile of batches (%)"
set ylabel "delay before consumption (ms)"
set xrange [0:100]
set yrange [0:*]
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
set arrow from graph 0, first 500 to graph 1, first 500 nohead dt 2 lw 2 lc rgb "#444444" front
set label "500 ms" at graph 0.01, first 500 offset 0, 0.7 tc rgb "#444444" front
plot for [i=1:nseries] IN using "pct":(column("series") == i ? column("delay_ms") : NaN) \
	with lines lt i title label(i)
@finish
