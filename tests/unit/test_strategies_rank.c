/* PRESTO's ranking with ties within noise (strategies_rank, bench/studies/strategies.h):
 * a strategy is ranked below another only when that one's score is higher
 * beyond noise; strategies within noise of each other share a rank. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "stats.h"
#include "strategies.h"

static void summ(struct stats_summary *s, const double *v, size_t n)
{
	assert_int_equal(stats_summarise(v, n, STATS_CI_LEVEL, s), 0);
}

/* A [0.80, 0.90] and B [0.85, 0.95] overlap: both first; C [0.5, 0.6]
 * below both: third; D not measured: rank 0. */
static void test_ties_within_noise(void **state)
{
	(void)state;
	struct stats_summary s[4];
	int valid[4] = { 1, 1, 1, 0 }, rank[4], tied[4];
	summ(&s[0], (double[]){ 0.80, 0.85, 0.90 }, 3);
	summ(&s[1], (double[]){ 0.85, 0.95, 0.90 }, 3);
	summ(&s[2], (double[]){ 0.5, 0.6, 0.55 }, 3);
	summ(&s[3], (double[]){ 0.99, 0.99, 0.99 }, 3);
	strategies_rank(s, valid, 4, rank, tied);
	assert_int_equal(rank[0], 1);
	assert_int_equal(rank[1], 1);
	assert_int_equal(rank[2], 3);
	assert_int_equal(rank[3], 0);
	assert_true(tied[0] && tied[1]);
	assert_false(tied[2]);
	assert_false(tied[3]);
}

/* Overlaps need not be transitive: A [0.8, 1.0] overlaps B [0.7, 0.85],
 * B overlaps C [0.6, 0.75], A is above C beyond noise: ranks 1, 1, 2. */
static void test_chain(void **state)
{
	(void)state;
	struct stats_summary s[3];
	int valid[3] = { 1, 1, 1 }, rank[3], tied[3];
	summ(&s[0], (double[]){ 0.8, 0.9, 1.0 }, 3);
	summ(&s[1], (double[]){ 0.7, 0.8, 0.85 }, 3);
	summ(&s[2], (double[]){ 0.6, 0.7, 0.75 }, 3);
	strategies_rank(s, valid, 3, rank, tied);
	assert_int_equal(rank[0], 1);
	assert_int_equal(rank[1], 1);
	assert_int_equal(rank[2], 2);
	assert_true(tied[0] && tied[1] && tied[2]);
}

/* One repeat: every distinct score ranks apart (as PRESTO); equal ones tie. */
static void test_one_repeat(void **state)
{
	(void)state;
	struct stats_summary s[3];
	int valid[3] = { 1, 1, 1 }, rank[3], tied[3];
	summ(&s[0], (double[]){ 0.5 }, 1);
	summ(&s[1], (double[]){ 0.7 }, 1);
	summ(&s[2], (double[]){ 0.5 }, 1);
	strategies_rank(s, valid, 3, rank, tied);
	assert_int_equal(rank[1], 1);
	assert_int_equal(rank[0], 2);
	assert_int_equal(rank[2], 2);
	assert_false(tied[1]);
	assert_true(tied[0] && tied[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ties_within_noise),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_one_repeat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
