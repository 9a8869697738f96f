# Shared set-up for the figure scripts, loaded by each of them:
#   load DIR."common.gp"   with IN = the data CSV and OUT = the output prefix
# Draws first as PNG (OUT.png); the script ends with @finish, which redraws
# the same plot as SVG (OUT.svg).
#
# Data files are comma-separated with one header line (lines starting with
# '#' before it are comments); columns are read by header name. Scripts that
# draw several series expect the columns "series" (1, 2, ...: rows of a
# series are contiguous, in x order) and "series_label".

set datafile separator comma
set datafile columnheaders
set datafile missing ""
set macros
# the most columns a data file may have
STATS_MAXCOLS = 256

# Colours that stay apart in print and for colour-blind readers (tab10).
set linetype 1 lc rgb "#1f77b4" lw 2 pt 7 ps 0.9
set linetype 2 lc rgb "#ff7f0e" lw 2 pt 5 ps 0.9
set linetype 3 lc rgb "#2ca02c" lw 2 pt 9 ps 1.0
set linetype 4 lc rgb "#d62728" lw 2 pt 11 ps 1.0
set linetype 5 lc rgb "#9467bd" lw 2 pt 13 ps 1.0
set linetype 6 lc rgb "#8c564b" lw 2 pt 7 ps 0.9
set linetype 7 lc rgb "#e377c2" lw 2 pt 5 ps 0.9
set linetype 8 lc rgb "#7f7f7f" lw 2 pt 9 ps 1.0
set linetype 9 lc rgb "#bcbd22" lw 2 pt 11 ps 1.0
set linetype 10 lc rgb "#17becf" lw 2 pt 13 ps 1.0
set linetype cycle 10

set terminal pngcairo size 960,600 noenhanced font "sans,12" background rgb "white"
set output OUT.".png"
set grid back lt 1 dt 1 lc rgb "#e4e4e4" lw 1
set border 3 lc rgb "#444444"
set tics nomirror out
# legends below the plot, never over its data (a script may put it outside elsewhere)
set key below center horizontal height 1

finish = "set terminal svg size 960,600 noenhanced font 'sans,12' background rgb 'white'; set output OUT.'.svg'; replot; set output"

# Everything below reads IN with gnuplot's own functions (stats, columnhead,
# strcol): no script here runs a shell, so a path or a label that holds
# quotes, "$(...)" or a newline is only ever data. IN, OUT and the script's
# own path are passed by ppbench as absolute paths (a relative one is given
# as ./path: gnuplot reads a name starting with '<' from a command and
# writes one starting with '|' to one).

# header: ",name1,name2,...," (the column names of IN); ncols: the number
# of the last named column; has(c): 1 if IN has a column named c
header = ","
ncols = 0
stats IN every ::0::0 using (sum [k = 1:STATS_MAXCOLS] (strlen(columnhead(k)) ? (header = header.columnhead(k).",", ncols = k, 0) : 0)) nooutput
has(c) = strstrt(header, ",".c.",") > 0
# nseries: the largest value of the "series" column (0 without one);
# label(i): the series_label of series i
nseries = 0
if (has("series")) {
	stats IN using "series" nooutput
	nseries = int(STATS_max)
}
array SERIES_LABEL[nseries > 0 ? nseries : 1]
do for [i = 1:|SERIES_LABEL|] { SERIES_LABEL[i] = sprintf("series %d", i) }
if (nseries > 0 && has("series_label")) {
	stats IN using (cm_s = column("series"), cm_s >= 1 && cm_s <= nseries ? (SERIES_LABEL[int(cm_s)] = strcol("series_label"), 0) : 0) nooutput
}
label(i) = SERIES_LABEL[i]
# integer_xtics (XCOL = the x column): tics at every integer when its range is small
integer_xtics = "stats IN using XCOL nooutput; if (STATS_max - STATS_min <= 12) { set xtics 1 } else { set xtics autofreq }"
