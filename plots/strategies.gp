# ppbench strategies: PRESTO's preprocessing strategies, throughput against
# storage, one labelled point per strategy, one colour per kind of storage
# (raw, zstd, lz4, in-memory cache). Up and to the left is better; the
# dashed line is the dataset's own size. Only the Pareto front is labelled.
# usage: gnuplot -c strategies.gp strategies.csv OUT_PREFIX [TITLE]
# columns: strategy, storage_bytes, storage_ratio, steady_images_per_s, series, series_label
IN = ARG1; OUT = ARG2
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

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
# Labels only on the strategies no other beats on both storage and
# throughput (the Pareto front), sorted by storage: every label is then
# readable; every strategy is in strategies.md. FRONT[r]: row r (1, 2, ...)
# is on the front; RANK[r]: its place on it by storage (0, 1, ...: labels
# alternate above and below the point). Before the ranges are set: stats
# reads only the points inside them.
stats IN using (column(0) + 1) nooutput
nrows = int(STATS_max)
array ST[nrows]; array TP[nrows]; array FRONT[nrows]; array RANK[nrows]
do for [r = 1:nrows] { ST[r] = NaN; TP[r] = NaN; FRONT[r] = 0; RANK[r] = 0 }
stats IN using (r = int(column(0)) + 1, ST[r] = column("storage_bytes"), \
	TP[r] = column("steady_images_per_s"), 1) nooutput
do for [i = 1:nrows] {
	FRONT[i] = ST[i] == ST[i] && TP[i] == TP[i]
	do for [j = 1:nrows] {
		if (j != i && ST[j] <= ST[i] && TP[j] >= TP[i] && (ST[j] < ST[i] || TP[j] > TP[i])) { FRONT[i] = 0 }
	}
}
do for [i = 1:nrows] {
	do for [j = 1:nrows] {
		if (FRONT[i] && FRONT[j] && (ST[j] < ST[i] || (ST[j] == ST[i] && j < i))) { RANK[i] = RANK[i] + 1 }
	}
}
front(parity) = (r = int(column(0)) + 1, FRONT[r] && RANK[r] % 2 == parity ? column("storage_bytes") / 1e6 : NaN)
xlo = (X_min < dataset_mb ? X_min : dataset_mb) / 1.6
xhi = (X_max > dataset_mb ? X_max : dataset_mb) * 2.5
set xrange [xlo:xhi]
set yrange [Y_min / 1.3:Y_max * 1.3]

set arrow 1 from dataset_mb, graph 0 to dataset_mb, graph 1 nohead dt 2 lc rgb "#888888"
set label 1 "dataset" at dataset_mb, graph 0.97 offset char 0.5, 0 left tc rgb "#666666"

set label 2 "labelled: the strategies no other beats on both storage and throughput (all: strategies.md)" \
	at graph 0.01, graph 0.03 left font "sans,9" tc rgb "#666666"

plot for [i = 1:nseries] IN using (column("series") == i ? column("storage_bytes") / 1e6 : NaN):"steady_images_per_s" \
	with points lt i title label(i), \
     IN using (front(0)):"steady_images_per_s":(stringcolumn("strategy")) \
	with labels offset char 0.8, 0.4 left font "sans,9" tc rgb "#333333" notitle, \
     IN using (front(1)):"steady_images_per_s":(stringcolumn("strategy")) \
	with labels offset char 0.8, -0.4 left font "sans,9" tc rgb "#333333" notitle
@finish
