/* Summary statistics of a sample of numbers (the one place they are computed). */
#ifndef PPBENCH_STATS_H
#define PPBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats {
	size_t n;
	double sum, mean, std;            /* std: population (ddof = 0), as numpy's default */
	double min, p25, p50, p75, p90, p99, max;
};

/* Sort v in place and summarise it. Percentiles interpolate linearly
 * between closest ranks (numpy's default "linear" method). n == 0 gives
 * all zeros. */
void stats_compute(double *v, size_t n, struct stats *st);
/* Percentile q in [0, 100] of sorted v. */
double stats_percentile_sorted(const double *v, size_t n, double q);
/* Share (0..100) of values strictly greater than x. */
double stats_share_above(const double *v, size_t n, double x);

#endif
