#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double stats_percentile_sorted(const double *v, size_t n, double q)
{
	if (n == 0)
		return 0;
	double pos = q / 100.0 * (double)(n - 1);
	size_t lo = (size_t)floor(pos);
	if (lo >= n - 1)
		return v[n - 1];
	double f = pos - (double)lo;
	return v[lo] + (v[lo + 1] - v[lo]) * f;
}

void stats_compute(double *v, size_t n, struct stats *st)
{
	memset(st, 0, sizeof(*st));
	st->n = n;
	if (n == 0)
		return;
	qsort(v, n, sizeof(v[0]), cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	st->sum = sum;
	st->mean = sum / (double)n;
	double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - st->mean) * (v[i] - st->mean);
	st->std = sqrt(ss / (double)n);
	st->min = v[0];
	st->max = v[n - 1];
	st->p25 = stats_percentile_sorted(v, n, 25);
	st->p50 = stats_percentile_sorted(v, n, 50);
	st->p75 = stats_percentile_sorted(v, n, 75);
	st->p90 = stats_percentile_sorted(v, n, 90);
	st->p99 = stats_percentile_sorted(v, n, 99);
}

double stats_share_above(const double *v, size_t n, double x)
{
	if (n == 0)
		return 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += v[i] > x;
	return 100.0 * (double)k / (double)n;
}
