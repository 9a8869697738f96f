/* The knee rule of the paper's finding 4 (diminishing returns with more
 * workers), used by the report, the model and its validation. */
#ifndef PPBENCH_KNEE_H
#define PPBENCH_KNEE_H

#include <stddef.h>
#include "stats.h"
#include "sweep_row.h"

/* a step of the worker count must gain this much E2E or more */
#define KNEE_GAIN_PCT 5.0

/* The knee of e2e[] over increasing w[] (n points): the smallest w[i]
 * (i < n - 1) with (e2e[i] - e2e[i+1]) / e2e[i] < gain_pct / 100; 0 if
 * every step gains more (or n < 2). */
int knee_of(const int *w, const double *e2e, size_t n, double gain_pct);

/* E2E's gain (%) from configuration `from` to `to` (struct sweep_row's
 * config) in each repeat that ran both, summarised into s (s->n 0: none).
 * 0, or -1 out of memory. */
int knee_step_gain(const struct sweep_row *r, size_t n, int from, int to,
		   struct stats_summary *s);

#endif
