# The loader policies side by side (ppbench sweep --policy "torch speedy
# shared-queue"): one panel per measure, a group of bars per worker count,
# one bar per policy.
# usage: gnuplot -c policies.gp policies.csv OUT_PREFIX [SUBTITLE]
# columns: series (the policy), series_label, workers, xi (the group: index
# of the worker count), e2e_s, images_per_s, gpu_util_pct, gpu_idle_s,
# main_wait_s, ooo_pct
IN = ARG1; OUT = ARG2
SUB = ARGC >= 3 ? ARG3 : ""
load system("dirname '".ARG0."'")."/common.gp"

set terminal pngcairo size 1200,720 noenhanced font "sans,11" background rgb "white"
set output OUT.".png"
# xtics: the worker count of each group
pairs = system(sprintf("awk -F, '!/^#/ && !h {for (i = 1; i <= NF; i++) {if ($i == \"xi\") x = i; if ($i == \"workers\") w = i}; h = 1; next} h && !s[$x]++ {print $w, $x}' '%s'", IN))
xt = ""
do for [k = 1:words(pairs) / 2] {
	xt = xt.(k > 1 ? ", " : "").sprintf('"%s" %s', word(pairs, 2 * k - 1), word(pairs, 2 * k))
}
nx = int(system(sprintf("awk -F, '!/^#/ && !h {for (i = 1; i <= NF; i++) if ($i == \"xi\") x = i; h = 1; next} h && $x + 1 > m {m = $x + 1} END {print m + 0}' '%s'", IN)))
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
	eval "set xtics (".xt.")"
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
