/* The caching ladder's verdict (bench/studies/bottleneck.h): a step is named only
 * when it is slower than the step before it beyond noise; a step that was
 * faster, or whose drop lies within noise, or a single climb, never is. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include "bottleneck.h"
#include "stats.h"

/* slow[i] from per-climb slowdowns (NAN: none) */
static void summ(struct stats_summary *s, const double *v, size_t n)
{
	assert_int_equal(stats_summarise(v, n, STATS_CI_LEVEL, s), 0);
}

static void test_change(void **state)
{
	(void)state;
	struct stats_summary s;
	summ(&s, (double[]){ 1.2, 1.3, 1.25 }, 3);
	assert_int_equal(bottleneck_step_change(&s), STEP_SLOWER);
	summ(&s, (double[]){ 0.7, 0.72, 0.75 }, 3);
	assert_int_equal(bottleneck_step_change(&s), STEP_FASTER);
	summ(&s, (double[]){ 0.98, 1.4, 1.1 }, 3);
	assert_int_equal(bottleneck_step_change(&s), STEP_WITHIN_NOISE);
	summ(&s, (double[]){ NAN, NAN }, 2);
	assert_int_equal(bottleneck_step_change(&s), STEP_NO_BOUND);
	assert_string_equal(bottleneck_change_name(STEP_WITHIN_NOISE), "within noise");
}

/* The case: a step 38 % faster (slowdown 0.72) once, -0.2 % on a
 * rerun: never named, whatever its neighbours. */
static void test_faster_step_never_named(void **state)
{
	(void)state;
	struct stats_summary slow[5];
	struct bottleneck_verdict v;
	summ(&slow[0], (double[]){ NAN }, 1);
	summ(&slow[1], (double[]){ 1.0, 1.01, 0.99 }, 3);
	summ(&slow[2], (double[]){ 1 / 1.38, 1.002, 0.9 }, 3);
	summ(&slow[3], (double[]){ 1.0, 0.99, 1.0 }, 3);
	summ(&slow[4], (double[]){ 0.98, 1.03, 1.01 }, 3);
	bottleneck_decide(slow, 5, &v);
	assert_int_equal(v.step, -1);
	assert_int_equal(v.candidate, 4);      /* the largest median drop, said as such */
	assert_int_equal(v.repeats, 3);

	/* every repeat 38 % faster: no step slower at all */
	summ(&slow[2], (double[]){ 0.72, 0.73, 0.71 }, 3);
	summ(&slow[4], (double[]){ 0.98, 0.97, 0.99 }, 3);
	summ(&slow[1], (double[]){ 0.99, 0.99, 0.98 }, 3);
	summ(&slow[3], (double[]){ 0.9, 0.95, 0.99 }, 3);
	bottleneck_decide(slow, 5, &v);
	assert_int_equal(v.step, -1);
	assert_int_equal(v.candidate, -1);
	assert_true(isnan(v.slowdown));
}

/* The largest drop beyond noise is named, not a larger one within noise. */
static void test_largest_beyond_noise(void **state)
{
	(void)state;
	struct stats_summary slow[5];
	struct bottleneck_verdict v;
	summ(&slow[0], (double[]){ NAN }, 1);
	summ(&slow[1], (double[]){ 1.0, 1.0, 1.0 }, 3);
	summ(&slow[2], (double[]){ 1.5, 1.4, 1.45 }, 3);
	summ(&slow[3], (double[]){ 3.0, 0.9, 2.5 }, 3);   /* larger median, straddles 1 */
	summ(&slow[4], (double[]){ 1.1, 1.12, 1.08 }, 3);
	bottleneck_decide(slow, 5, &v);
	assert_int_equal(v.step, 2);
	assert_true(fabs(v.slowdown - 1.45) < 1e-12);
	summ(&slow[3], (double[]){ 3.0, 2.9, 2.5 }, 3);
	bottleneck_decide(slow, 5, &v);
	assert_int_equal(v.step, 3);
	assert_true(fabs(v.slowdown - 2.9) < 1e-12);
}

/* One climb measures no noise: nothing named, the drop kept as candidate. */
static void test_one_climb(void **state)
{
	(void)state;
	struct stats_summary slow[3];
	struct bottleneck_verdict v;
	summ(&slow[0], (double[]){ NAN }, 1);
	summ(&slow[1], (double[]){ 2.0 }, 1);
	summ(&slow[2], (double[]){ 1.1 }, 1);
	bottleneck_decide(slow, 3, &v);
	assert_int_equal(v.step, -1);
	assert_int_equal(v.candidate, 1);
	assert_int_equal(v.repeats, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_faster_step_never_named),
		cmocka_unit_test(test_largest_beyond_noise),
		cmocka_unit_test(test_one_climb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
