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
set key top right opaque box lc rgb "#cccccc" width 1 height 0.5

finish = "set terminal svg size 960,600 noenhanced font 'sans,12' background rgb 'white'; set output OUT.'.svg'; replot; set output"

# header(): the header line of IN (first line not starting with '#')
header = system("awk '!/^#/ {print; exit}' '".IN."'")
# has(c): 1 if IN has a column named c
has(c) = strstrt(",".header.",", ",".c.",") > 0
# nseries: the largest value of the "series" column (0 without one)
nseries = has("series") ? int(system("awk -F, '!/^#/ && !h {for (i = 1; i <= NF; i++) if ($i == \"series\") c = i; h = 1; next} h && $c > m {m = $c} END {print m + 0}' '".IN."'")) : 0
# label(i): the series_label of series i
label(i) = system(sprintf("awk -F, '!/^#/ && !h {for (j = 1; j <= NF; j++) {if ($j == \"series\") c = j; if ($j == \"series_label\") l = j}; h = 1; next} h && $c == %d {print $l; exit}' '%s'", i, IN))
# integer_xtics(col): tics at every integer of column col when its range is small
integer_xtics = "stats IN using XCOL nooutput; if (STATS_max - STATS_min <= 12) { set xtics 1 } else { set xtics autofreq }"
# mingap(c): the smallest distance between two distinct values of column c (1 if one value)
mingap(c) = real(system(sprintf("awk -F, '!/^#/ && !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} h && $k != \"\" {print $k}' '%s' | sort -g -u | awk 'NR > 1 && (g == \"\" || $1 - p < g) {g = $1 - p} {p = $1} END {print (g == \"\" ? 1 : g)}'", c, IN)))
