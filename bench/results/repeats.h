/* The repeats of one configuration combined into one figure each, with how
 * sure that figure is: the one place repeats are combined (the report, the
 * sweep's figures and merge use it).
 *
 * A COMBINE_MEDIAN figure (bench/results/metrics.h) becomes the median over the
 * repeats with its spread (stats_summarise: min-max, and from 6 repeats on
 * a 95 % confidence interval of the median); a COMBINE_SAME figure keeps
 * the first repeat's value, and a repeat that differs is reported. NaN
 * values (not measured) are left out. */
#ifndef PPBENCH_REPEATS_H
#define PPBENCH_REPEATS_H

#include <stddef.h>
#include "sweep_row.h"
#include "stats.h"

#define REPEATS_MAX_METRICS 128

struct combined {
	struct sweep_row r;        /* identity of the first repeat; every figure combined */
	size_t n;                  /* repeats combined */
	struct stats_summary sp[REPEATS_MAX_METRICS];   /* spread of metric_table[i] */
	int same_differs;          /* a COMBINE_SAME figure (or the checksum) differs */
	char same_what[64];        /* the first one that does */
};

/* Combine rows[0..n) (n >= 1, the repeats of one configuration). 0, or -1
 * on out of memory. */
int repeats_combine(const struct sweep_row *const *rows, size_t n, struct combined *c);

/* The spread of a metric (by its metric-table name). */
const struct stats_summary *combined_spread(const struct combined *c, const char *name);

/* ---- a sweep's configurations ----------------------------------------------*/

/* A run that finished ("ok"). */
int sweep_row_ok(const struct sweep_row *r);

/* The rows' loader policies in order of first appearance (at most max). */
#define SWEEP_MAX_POLICIES 8
size_t sweep_policies(const struct sweep_row *r, size_t n, char (*names)[16], size_t max);
/* The index of policy p in names[0..k) (0 if absent). */
int sweep_policy_index(char (*names)[16], size_t k, const char *p);

/* One configuration (part, workers x batch x GPUs x policy): its identity
 * and its ok repeats combined. */
struct sweep_config {
	int part, config, workers, batch_size, gpus, n;
	int pol;                      /* index in the sweep's policies (sweep_policies) */
	char policy[16];
	size_t first;                 /* its first ok row */
	struct combined c;            /* c.r: the combined figures; c.sp: their spreads */
};

/* One entry per configuration with at least one ok row, in plan order.
 * Caller frees *out. Returns the count (0 with *out NULL on none or OOM). */
size_t sweep_configs(const struct sweep_row *r, size_t n, struct sweep_config **out);

#endif
