#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
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

size_t stats_median_ci_rank(size_t n, double level, double *coverage)
{
	/* P(B < k) for B ~ Binomial(n, 1/2), k = 1, 2, ...: the largest k with
	 * P(B < k) <= (1 - level) / 2 gives coverage 1 - 2 P(B < k). */
	double alpha2 = (1 - level) / 2, cdf = 0, best_cov = 0;
	size_t k = 0;

	if (coverage)
		*coverage = 0;
	if (n == 0)
		return 0;
	for (size_t j = 0; 2 * j < n; j++) {
		/* cdf = P(B <= j) = P(B < j + 1) */
		double lp = lgamma((double)n + 1) - lgamma((double)j + 1) - lgamma((double)(n - j) + 1) -
			    (double)n * log(2.0);
		cdf += exp(lp);
		if (cdf > alpha2)
			break;
		k = j + 1;
		best_cov = 1 - 2 * cdf;
	}
	if (coverage)
		*coverage = k ? best_cov : 0;
	return k;
}

int stats_summarise(const double *v, size_t n, double level, struct stats_summary *s)
{
	double *w = malloc((n ? n : 1) * sizeof(*w));
	size_t m = 0;

	memset(s, 0, sizeof(*s));
	s->level = level;
	s->median = s->min = s->max = s->lo = s->hi = NAN;
	if (!w)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			w[m++] = v[i];
	s->n = m;
	if (m) {
		qsort(w, m, sizeof(w[0]), cmp_double);
		s->median = stats_percentile_sorted(w, m, 50);
		s->min = w[0];
		s->max = w[m - 1];
		size_t k = stats_median_ci_rank(m, level, &s->coverage);
		s->has_ci = k > 0;
		s->lo = k ? w[k - 1] : s->min;
		s->hi = k ? w[m - k] : s->max;
	}
	free(w);
	return 0;
}

enum stats_target stats_judge(const struct stats_summary *s, double target, int at_most)
{
	if (!s->n || isnan(s->median))
		return TARGET_UNKNOWN;
	if (at_most)
		return s->hi <= target ? TARGET_MET : s->lo > target ? TARGET_NOT_MET : TARGET_WITHIN_NOISE;
	return s->lo >= target ? TARGET_MET : s->hi < target ? TARGET_NOT_MET : TARGET_WITHIN_NOISE;
}

const char *stats_target_name(enum stats_target t)
{
	switch (t) {
	case TARGET_MET:
		return "met";
	case TARGET_NOT_MET:
		return "not met";
	case TARGET_WITHIN_NOISE:
		return "within noise";
	default:
		return "unknown";
	}
}

int stats_differ(const struct stats_summary *a, const struct stats_summary *b)
{
	if (!a->n || !b->n)
		return 0;
	return a->hi < b->lo || b->hi < a->lo;
}

void stats_format(char *out, size_t n, const struct stats_summary *s, const char *fmt)
{
	char a[64], b[64], c[64];

	if (!s->n) {
		snprintf(out, n, "n/a");
		return;
	}
	if (!fmt)
		fmt = stats_human_fmt(s->median);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(a, sizeof(a), fmt, s->median);
	snprintf(b, sizeof(b), fmt, s->lo);
	snprintf(c, sizeof(c), fmt, s->hi);
#pragma GCC diagnostic pop
	if (s->n == 1)
		snprintf(out, n, "%s", a);
	else if (s->has_ci)
		snprintf(out, n, "%s [%s, %s]", a, b, c);
	else
		snprintf(out, n, "%s (min %s, max %s, n=%zu)", a, b, c, s->n);
}

json_t *stats_summary_json(const struct stats_summary *s)
{
	json_t *j = json_object();
	json_object_set_new(j, "median", isfinite(s->median) ? json_real(s->median) : json_null());
	json_object_set_new(j, "lo", isfinite(s->lo) ? json_real(s->lo) : json_null());
	json_object_set_new(j, "hi", isfinite(s->hi) ? json_real(s->hi) : json_null());
	json_object_set_new(j, "interval", json_string(s->has_ci ? "ci95" : "min-max"));
	json_object_set_new(j, "n", json_integer((json_int_t)s->n));
	return j;
}

const char *stats_human_fmt(double v)
{
	double a = fabs(v);
	if (!isfinite(v) || a >= 1000 || (v == floor(v) && a < 1e15))
		return "%.0f";
	if (a >= 100)
		return "%.1f";
	if (a >= 10)
		return "%.2f";
	if (a >= 1)
		return "%.3f";
	/* 3 significant digits in fixed point down to 1e-7 (0.0000376) */
	static const char *const dec[] = { "%.3f", "%.4f", "%.5f", "%.6f", "%.7f", "%.8f", "%.9f" };
	for (int k = 0; k < 7; k++)
		if (a >= 0.1 / pow(10, k))
			return dec[k];
	return "%.3g";
}
