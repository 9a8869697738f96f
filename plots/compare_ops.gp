# ppbench compare: per-op time per image, ppbench and PyTorch side by side:
# solid bars the mean, light bars the p90, log time axis (the flip takes
# microseconds, the decode milliseconds).
# usage: gnuplot -c compare_ops.gp ops.csv OUT_PREFIX [TITLE]
# columns: op, ppbench_mean_ms, ppbench_p90_ms, pytorch_mean_ms, pytorch_p90_ms
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set title (ARGC >= 3 && strlen(ARG3) ? ARG3 : "Per-op time per image")
set ylabel "time per image (ms, log scale)"
set logscale y
set format y "%g"
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 border lc rgb "#444444"
set boxwidth 0.9
set xtics nomirror rotate by -20 left
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5
plot IN using "ppbench_mean_ms":xtic(1) lt 1 title "ppbench mean", \
     ''  using "pytorch_mean_ms" lt 2 title "PyTorch mean", \
     ''  using "ppbench_p90_ms" lt 1 fs solid 0.35 title "ppbench p90", \
     ''  using "pytorch_p90_ms" lt 2 fs solid 0.35 title "PyTorch p90"
@finish
