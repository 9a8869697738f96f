# The loader policies side by side (ppbench sweep --policy "torch speedy
# shared-queue"): one panel per measure, a group of bars per worker count,
# one bar per policy.
# usage: gnuplot -c policies.gp policies.csv OUT_PREFIX [SUBTITLE]
# columns: series (the policy), series_label, workers, xi (the group: index
# of the worker count), e2e_s, images_per_s, gpu_util_pct, gpu_idle_s,
# main_wait_s, ooo_pct
IN = ARG1; OUT = ARG2
SUB = ARGC >= 3 ? ARG3 : ""
# this script's folder (no shell: a path is only ever data)
dirname(p) = strlen(p) == 0 || p[strlen(p):strlen(p)] eq "/" ? p : dirname(p[1:strlen(p) - 1])
load dirname(ARG0)."common.gp"

set terminal pngcairo size 1200,720 noenhanced font "sans,11" background rgb "white"
set output OUT.".png"
# nx bar groups (xi = 0..nx-1); WORKERS[xi + 1]: the worker count of group xi
stats IN using "xi" nooutput
nx = int(STATS_max) + 1
array WORKERS[nx]
stats IN using (WORKERS[int(column("xi")) + 1] = column("workers"), 0) nooutput
bw = 0.8 / nseries
xpos(i) = column("xi") + (i - (nseries + 1) / 2.0) * bw
set style fill solid 0.85 border lc rgb "#444444"
set boxwidth bw absolute
set xrange [-0.6:nx - 0.4]
set grid ytics
set yrange [0:*]
array COL[6] = ["e2e_s", "images_per_s", "gpu_util_pct", "main_wait_s", "ooo_pct", "gpu_idle_s"]
array TTL[6] = ["E2E time (s, lower is better)", "throughput (images/s)", \
	"simulated GPU utilization (%)", "main-process wait for batches (s)", \
	"out-of-order batches (%)", "GPU idle (s)"]

do for [t = 1:2] {
	if (t == 2) {
		set terminal svg size 1200,720 noenhanced font 'sans,11' background rgb 'white'
		set output OUT.'.svg'
	}
	set multiplot title "Loader policies".(strlen(SUB) ? " (".SUB.")" : "")
	# the legend alone, the canvas wide, in a row of its own under the title
	# (never over a bar): a plot of nothing but its key
	set origin 0, 0
	set size 1, 1
	unset border; unset xtics; unset ytics; unset grid; unset title; unset xlabel
	set key at screen 0.5, screen 0.95 center top horizontal box lc rgb "#cccccc"
	plot [0:1] [0:1] for [i=1:nseries] -1 with boxes lt i title label(i)
	unset key
	set xlabel "data-loader workers"
	set border 3 lc rgb "#444444"
	set ytics nomirror out
	set grid ytics
	set xtics nomirror out (sprintf("%d", WORKERS[1]) 0)
	do for [k = 2:nx] { set xtics add (sprintf("%d", WORKERS[k]) k - 1) }
	# six panels, two rows of three under the legend
	set size 1 / 3.0, 0.45
	do for [p = 1:6] {
		set origin ((p - 1) % 3) / 3.0, 0.91 - 0.45 * (1 + (p - 1) / 3)
		set title TTL[p]
		plot for [i=1:nseries] IN using (xpos(i)):(column("series") == i ? column(COL[p]) : NaN) \
			with boxes lt i notitle
	}
	unset multiplot
	set output
}
