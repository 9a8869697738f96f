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
set key top right opaque box
set yrange [0:*]

do for [t = 1:2] {
	if (t == 2) {
		set terminal svg size 1200,720 noenhanced font 'sans,11' background rgb 'white'
		set output OUT.'.svg'
	}
	set multiplot layout 2,3 title "Loader policies".(strlen(SUB) ? " (".SUB.")" : "")
	set xlabel "data-loader workers"
	set xtics (sprintf("%d", WORKERS[1]) 0)
	do for [k = 2:nx] { set xtics add (sprintf("%d", WORKERS[k]) k - 1) }
	set title "E2E time (s, lower is better)"
	plot for [i=1:nseries] IN using (xpos(i)):(column("series") == i ? column("e2e_s") : NaN) \
		with boxes lt i title label(i)
	unset key
	set title "throughput (images/s)"
	plot for [i=1:nseries] IN using (xpos(i)):(column("series") == i ? column("images_per_s") : NaN) \
		with boxes lt i notitle
	set title "simulated GPU utilization (%)"
	plot for [i=1:nseries] IN using (xpos(i)):(column("series") == i ? column("gpu_util_pct") : NaN) \
		with boxes lt i notitle
	set title "main-process wait for batches (s)"
	plot for [i=1:nseries] IN using (xpos(i)):(column("series") == i ? column("main_wait_s") : NaN) \
		with boxes lt i notitle
	set title "out-of-order batches (%)"
	plot for [i=1:nseries] IN using (xpos(i)):(column("series") == i ? column("ooo_pct") : NaN) \
		with boxes lt i notitle
	set title "GPU idle (s)"
	plot for [i=1:nseries] IN using (xpos(i)):(column("series") == i ? column("gpu_idle_s") : NaN) \
		with boxes lt i notitle
	unset multiplot
	set key top right opaque box
	set output
}
