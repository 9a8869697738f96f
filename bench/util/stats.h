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
/* Sort v[0..n) ascending (no NaN). */
void stats_sort(double *v, size_t n);
/* Percentile q in [0, 100] of sorted v. */
double stats_percentile_sorted(const double *v, size_t n, double q);
/* Share (0..100) of values strictly greater than x. */
double stats_share_above(const double *v, size_t n, double x);

/* ---- repeats: a median and how sure it is ----------------------------------
 *
 * The one method ppbench uses to state the uncertainty of a figure measured
 * several times (repeats of a run, rounds of a benchmark, pairs of a ratio):
 * the median, the min-max spread, and a distribution-free confidence interval
 * of the median from order statistics (the binomial method: the interval
 * [x(k), x(n-k+1)] of the sorted values with the largest k such that
 * P(Binomial(n, 1/2) < k) <= (1 - level) / 2; its coverage is at least
 * `level` whatever the distribution). At level 0.95 it needs n >= 6; with
 * fewer values there is no interval (has_ci = 0) and the spread is min-max. */
#define STATS_CI_LEVEL 0.95
#define STATS_CI_METHOD "95 % distribution-free confidence interval of the median (order statistics, binomial)"

struct stats_summary {
	size_t n;             /* finite values summarised (NaN values are left out) */
	double median, min, max;
	int has_ci;           /* n is large enough for an interval at `level` */
	double lo, hi;        /* the interval (min, max when !has_ci) */
	double level;         /* its confidence level */
	double coverage;      /* its exact coverage (>= level), 0 when !has_ci */
};

/* Summarise v[0..n) (not modified; NaN values are skipped). n == 0 (or only
 * NaN) gives n = 0 and NaN figures. 0, or -1 on out of memory. */
int stats_summarise(const double *v, size_t n, double level, struct stats_summary *s);

/* The order-statistic rank k (1-based) of the interval for n values, or 0
 * when n is too small for `level`; *coverage gets its exact coverage. */
size_t stats_median_ci_rank(size_t n, double level, double *coverage);

/* A target judged with its uncertainty: the interval (the CI, else min-max)
 * lies wholly on the good side (met), wholly on the bad side (not met), or
 * straddles the target (within noise). at_most: lower is better (the
 * figure must be <= target); else higher is better. */
enum stats_target {
	TARGET_MET,
	TARGET_NOT_MET,
	TARGET_WITHIN_NOISE,
	TARGET_UNKNOWN,       /* no value */
};
enum stats_target stats_judge(const struct stats_summary *s, double target, int at_most);
const char *stats_target_name(enum stats_target t);   /* "met", "not met", "within noise", "unknown" */

/* Two figures from repeats differ only when their intervals (CI, else
 * min-max) do not overlap: 1 they differ, 0 within noise. */
int stats_differ(const struct stats_summary *a, const struct stats_summary *b);

/* "12.3 [11.9, 12.8]" (median [lo, hi], with the CI) or "12.3 (min 11.9,
 * max 12.8, n=3)" or "12.3" (n=1); fmt is the printf format of one number
 * ("%.1f"). */
void stats_format(char *out, size_t n, const struct stats_summary *s, const char *fmt);

/* {"median", "lo", "hi" (null: none), "interval": "ci95" or "min-max",
 * "n"}: a summary in a results JSON. New reference. */
struct json_t;
struct json_t *stats_summary_json(const struct stats_summary *s);

/* A printf format for v in a table meant for people: about 4 significant
 * digits and no exponent from 1e-7 up ("%.0f" for whole numbers and from
 * 1000 on, "%.1f" from 100, "%.2f" from 10, "%.3f" from 1, below 1 three
 * significant digits in fixed point, "%.3g" below 1e-7).
 * stats_format with fmt NULL uses it for the median. */
const char *stats_human_fmt(double v);

#endif
