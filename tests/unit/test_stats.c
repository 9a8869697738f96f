/* The statistics every verdict rests on (bench/util/stats.h), at the values
 * where a wrong rule gives another answer:
 *   - the interval of the median at n = 5..12 values: the order-statistic
 *     ranks [x(k), x(n-k+1)] of the binomial method at 95 %, from the sums
 *     P(Binomial(n, 1/2) <= j) worked out by hand below, and their exact
 *     coverage; n = 6, 7, 8 give [x1, xn], n = 9 the first rank 2;
 *   - stats_judge with the target exactly at each end of the interval, and
 *     one step past it, for lower-is-better and higher-is-better;
 *   - stats_differ for intervals that touch, and that miss by a hair. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "stats.h"

/* The rank k and coverage 1 - 2 P(B < k) at 95 %: the largest k with
 * P(B <= k - 1) <= 0.025, B ~ Binomial(n, 1/2).
 *   n = 5:  P(B <= 0) = 1/32 = 0.031 > 0.025              -> no interval
 *   n = 6:  P(B <= 0) = 1/64, P(B <= 1) = 7/64 = 0.109     -> k = 1
 *   n = 7:  1/128, then 8/128 = 0.0625                     -> k = 1
 *   n = 8:  1/256, then 9/256 = 0.0352                     -> k = 1
 *   n = 9:  1/512, 10/512 = 0.0195, then 46/512 = 0.0898   -> k = 2
 *   n = 10: 1/1024, 11/1024 = 0.0107, then 56/1024 = 0.0547 -> k = 2
 *   n = 11: 12/2048 = 0.0059, then 67/2048 = 0.0327        -> k = 2
 *   n = 12: 13/4096, 79/4096 = 0.0193, then 299/4096 = 0.073 -> k = 3 */
static const struct {
	size_t n, k;
	double tail;     /* P(B < k) */
} ranks[] = {
	{ 5, 0, 0 },
	{ 6, 1, 1.0 / 64 },
	{ 7, 1, 1.0 / 128 },
	{ 8, 1, 1.0 / 256 },
	{ 9, 2, 10.0 / 512 },
	{ 10, 2, 11.0 / 1024 },
	{ 11, 2, 12.0 / 2048 },
	{ 12, 3, 79.0 / 4096 },
};

static void test_interval_ranks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		double cov = -1;
		size_t k = stats_median_ci_rank(ranks[i].n, STATS_CI_LEVEL, &cov);
		if (k != ranks[i].k)
			fail_msg("n = %zu: rank %zu, expected %zu", ranks[i].n, k, ranks[i].k);
		double want = ranks[i].k ? 1 - 2 * ranks[i].tail : 0;
		if (fabs(cov - want) > 1e-12)
			fail_msg("n = %zu: coverage %.15g, expected %.15g", ranks[i].n, cov, want);
	}
}

/* values 10, 20, ..., 10 n in a scrambled order, with a NaN among them
 * (left out): the interval is [10 k, 10 (n - k + 1)] */
static void test_interval_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		size_t n = ranks[i].n, k = ranks[i].k;
		double v[16];
		struct stats_summary s;
		/* 13 is prime to every n here: j -> 13 j mod n visits every rank */
		for (size_t j = 0; j < n; j++)
			v[j] = 10.0 * (double)((13 * j) % n + 1);
		v[n] = NAN;
		assert_int_equal(stats_summarise(v, n + 1, STATS_CI_LEVEL, &s), 0);
		assert_int_equal(s.n, n);
		double med = n % 2 ? 10.0 * (double)((n + 1) / 2) : 10.0 * ((double)n / 2 + 0.5);
		if (s.median != med)
			fail_msg("n = %zu: median %g, expected %g", n, s.median, med);
		assert_true(s.min == 10 && s.max == 10.0 * (double)n);
		if (!k) {
			assert_false(s.has_ci);
			assert_true(s.lo == s.min && s.hi == s.max);
			continue;
		}
		assert_true(s.has_ci);
		if (s.lo != 10.0 * (double)k || s.hi != 10.0 * (double)(n - k + 1))
			fail_msg("n = %zu: interval [%g, %g], expected [x%zu, x%zu] = [%g, %g]", n, s.lo,
				 s.hi, k, n - k + 1, 10.0 * (double)k, 10.0 * (double)(n - k + 1));
		if (fabs(s.coverage - (1 - 2 * ranks[i].tail)) > 1e-12)
			fail_msg("n = %zu: coverage %.15g", n, s.coverage);
	}
	/* how each reads: min-max with n below 6, the interval from 6 */
	char buf[96];
	struct stats_summary s;
	double five[5] = { 3, 1, 2, 5, 4 }, six[6] = { 6, 3, 1, 2, 5, 4 };
	assert_int_equal(stats_summarise(five, 5, STATS_CI_LEVEL, &s), 0);
	stats_format(buf, sizeof(buf), &s, "%.1f");
	assert_string_equal(buf, "3.0 (min 1.0, max 5.0, n=5)");
	assert_int_equal(stats_summarise(six, 6, STATS_CI_LEVEL, &s), 0);
	stats_format(buf, sizeof(buf), &s, "%.1f");
	assert_string_equal(buf, "3.5 [1.0, 6.0]");
}

/* stats_judge: met when the whole interval is on the good side (an end
 * equal to the target is on it: the figure must be <= or >= the target),
 * not met when the whole interval is on the bad side, else within noise. */
static void test_judge_boundaries(void **state)
{
	(void)state;
	const double lo = 0.98, hi = 1.03;
	struct stats_summary s = { .n = 6, .median = 1.0, .lo = lo, .hi = hi, .has_ci = 1 };
	const double up = nextafter(hi, INFINITY), dn = nextafter(lo, -INFINITY);
	static const struct {
		int at_most;
		int which;             /* the target: 0 lo, 1 hi, 2 just above hi, 3 just below lo,
					  4 just below hi, 5 just above lo */
		enum stats_target want;
	} rows[] = {
		/* at most the target (lower is better) */
		{ 1, 1, TARGET_MET },            /* target == hi: every value <= target */
		{ 1, 2, TARGET_MET },
		{ 1, 4, TARGET_WITHIN_NOISE },   /* target just below hi: hi is over it */
		{ 1, 0, TARGET_WITHIN_NOISE },   /* target == lo: lo meets it, hi does not */
		{ 1, 3, TARGET_NOT_MET },        /* target just below lo: every value over it */
		{ 1, 5, TARGET_WITHIN_NOISE },
		/* at least the target (higher is better) */
		{ 0, 0, TARGET_MET },            /* target == lo: every value >= target */
		{ 0, 3, TARGET_MET },
		{ 0, 5, TARGET_WITHIN_NOISE },   /* target just above lo */
		{ 0, 1, TARGET_WITHIN_NOISE },   /* target == hi: hi meets it, lo does not */
		{ 0, 2, TARGET_NOT_MET },        /* target just above hi: every value under it */
		{ 0, 4, TARGET_WITHIN_NOISE },
	};
	const double target[6] = { lo, hi, up, dn, nextafter(hi, -INFINITY), nextafter(lo, INFINITY) };
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum stats_target t = stats_judge(&s, target[rows[i].which], rows[i].at_most);
		if (t != rows[i].want)
			fail_msg("row %zu: interval [%.17g, %.17g], %s %.17g: %s, expected %s", i, lo, hi,
				 rows[i].at_most ? "at most" : "at least", target[rows[i].which],
				 stats_target_name(t), stats_target_name(rows[i].want));
	}
	/* one value: the interval is that value; equal to the target is met */
	double one = 2.0;
	assert_int_equal(stats_summarise(&one, 1, STATS_CI_LEVEL, &s), 0);
	assert_int_equal(stats_judge(&s, 2.0, 1), TARGET_MET);
	assert_int_equal(stats_judge(&s, 2.0, 0), TARGET_MET);
	assert_int_equal(stats_judge(&s, nextafter(2.0, 0), 1), TARGET_NOT_MET);
	assert_int_equal(stats_judge(&s, nextafter(2.0, 3), 0), TARGET_NOT_MET);
	/* no value: unknown */
	double none = NAN;
	assert_int_equal(stats_summarise(&none, 1, STATS_CI_LEVEL, &s), 0);
	assert_int_equal(stats_judge(&s, 1, 1), TARGET_UNKNOWN);
}

/* two figures differ only when their intervals do not overlap: intervals
 * that touch at one point overlap */
static void test_differ_boundaries(void **state)
{
	(void)state;
	struct stats_summary a = { .n = 6, .median = 1.0, .lo = 0.9, .hi = 1.1, .has_ci = 1 };
	struct stats_summary b = { .n = 6, .median = 1.2, .lo = 1.1, .hi = 1.3, .has_ci = 1 };
	assert_false(stats_differ(&a, &b));
	assert_false(stats_differ(&b, &a));
	b.lo = nextafter(1.1, 2);
	assert_true(stats_differ(&a, &b));
	assert_true(stats_differ(&b, &a));
	b.n = 0;
	assert_false(stats_differ(&a, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_ranks),
		cmocka_unit_test(test_interval_values),
		cmocka_unit_test(test_judge_boundaries),
		cmocka_unit_test(test_differ_boundaries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
