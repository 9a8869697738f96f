# ppbench strategies: PRESTO's preprocessing strategies, throughput against
# storage, one labelled point per strategy, one colour per kind of storage
# (raw, zstd, lz4, in-memory cache). Up and to the left is better; the
# dashed line is the dataset's own size. Only the Pareto front is labelled.
# usage: gnuplot -c strategies.gp strategies.csv OUT_PREFIX [TITLE]
# columns: strategy, storage_bytes, storage_ratio, steady_images_per_s, series, series_label
IN = ARG1; OUT = ARG2
load system("dirname '".ARG0."'")."/common.gp"

set title (ARGC >= 3 && strlen(ARG3) ? ARG3 : "PRESTO's preprocessing strategies")
set xlabel "storage (MB, log scale)"
set ylabel "online throughput (images/s, steady epochs, log scale)"
set logscale x
set format x "%g"
set logscale y
set format y "%g"
set ytics add (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
set xtics add (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
set key below center horizontal width 0
set rmargin 5
set bmargin 6.5

stats IN using (column("storage_bytes") / 1e6) name "X" nooutput
stats IN using "steady_images_per_s" name "Y" nooutput
# the dataset's size: storage / ratio of any row
stats IN using (column("storage_bytes") / column("storage_ratio") / 1e6) name "D" nooutput
dataset_mb = D_mean
xlo = (X_min < dataset_mb ? X_min : dataset_mb) / 1.6
xhi = (X_max > dataset_mb ? X_max : dataset_mb) * 2.5
set xrange [xlo:xhi]
set yrange [Y_min / 1.3:Y_max * 1.3]

set arrow 1 from dataset_mb, graph 0 to dataset_mb, graph 1 nohead dt 2 lc rgb "#888888"
set label 1 "dataset" at dataset_mb, graph 0.97 offset char 0.5, 0 left tc rgb "#666666"

# Labels only on the strategies no other beats on both storage and
# throughput (the Pareto front), sorted by storage: every label is then
# readable; every strategy is in strategies.md.
FRONT = "< awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } " . \
	"{ r[NR] = $0; s[NR] = $c[\"storage_bytes\"] + 0; y[NR] = $c[\"steady_images_per_s\"] + 0 } " . \
	"END { for (i in r) { d = 0; for (j in r) if (j != i && s[j] <= s[i] && y[j] >= y[i] && " . \
	"(s[j] < s[i] || y[j] > y[i])) d = 1; if (!d) print r[i] | (\"sort -t, -g -k\" c[\"storage_bytes\"]) } }' '" . IN . "'"
set label 2 "labelled: the strategies no other beats on both storage and throughput (all: strategies.md)" \
	at graph 0.01, graph 0.03 left font "sans,9" tc rgb "#666666"

plot for [i = 1:nseries] IN using (column("series") == i ? column("storage_bytes") / 1e6 : NaN):"steady_images_per_s" \
	with points lt i title label(i), \
     FRONT using (int($0) % 2 == 0 ? column("storage_bytes") / 1e6 : NaN):"steady_images_per_s":(stringcolumn("strategy")) \
	with labels offset char 0.8, 0.4 left font "sans,9" tc rgb "#333333" notitle, \
     FRONT using (int($0) % 2 == 1 ? column("storage_bytes") / 1e6 : NaN):"steady_images_per_s":(stringcolumn("strategy")) \
	with labels offset char 0.8, -0.4 left font "sans,9" tc rgb "#333333" notitle
@finish
