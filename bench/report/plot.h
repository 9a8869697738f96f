/* The one way ppbench draws: it runs gnuplot on a script of plots/ (the C
 * code never draws itself; see plots/README.md). Nothing here or in the
 * scripts builds a shell command: the paths and titles reach gnuplot as
 * arguments (its ARG1, ARG2...), the scripts read their data with gnuplot's
 * own functions. */
#ifndef PPBENCH_PLOT_H
#define PPBENCH_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* Draw OUT.png and OUT.svg: `gnuplot -d -c TOP/plots/SCRIPT DATA OUT
 * ARGS...` with args = { DATA, OUT, text..., NULL } (at most 8), stdin from
 * /dev/null, stdout+stderr appended to log. DATA, OUT and the script are
 * given to gnuplot as ./path when relative (gnuplot reads a name starting
 * with '<' from a command and writes one starting with '|' to one); each
 * line of a text argument is escaped as bytes_escape() does (a byte that is
 * not UTF-8 or a control character would make the SVG invalid). OUT.png and
 * OUT.svg are removed first (a symbolic link there is replaced, never
 * written through) and must be a PNG and an SVG after. top NULL: the
 * repository was not found. 0, or -1 with why (gnuplot missing, failed: see
 * the log, or wrote no valid figure); a failure is also recorded for
 * plot_summary(). */
int plot_run(const char *top, const char *script, const char *const *args, const char *log,
	     char *why, size_t whylen);

/* Record a figure that could not be drawn for another reason than its data
 * (name: its file under figures/, "fig6a_e2e_vs_workers"). */
void plot_failed(const char *name, const char *why);

/* At the end of a command: a warning for every figure that could not be
 * drawn in this process (one line when they share the reason), and their
 * number. A figure that could not be drawn is results that could not be
 * written: the command exits 1 (README's exit codes), its measurement and
 * every other file kept. */
size_t plot_summary(void);

/* A text field (a series label) of a figure's data file, as gnuplot 5.4
 * reads a CSV field: it has no quoting, so ',' and '"' are written \x2c and
 * \x22, and the rest as bytes_escape() does. */
void plot_csv_text(FILE *f, const char *s);

#endif
