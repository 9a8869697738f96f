/* The one way ppbench draws: it runs gnuplot on a script of plots/ (the C
 * code never draws itself; see plots/README.md). */
#ifndef PPBENCH_PLOT_H
#define PPBENCH_PLOT_H

#include <stddef.h>

/* Run `gnuplot -c TOP/plots/SCRIPT ARGS...` (args: NULL-terminated, at most
 * 8) with stdin from /dev/null and stdout+stderr appended to log. 0, or -1
 * with why: gnuplot missing, failed (see the log), or could not be run. */
int plot_run(const char *top, const char *script, const char *const *args, const char *log,
	     char *why, size_t whylen);

#endif
