/* ppbench merge: the cost per million images, the --price parser, and the
 * figures with their spread: a machine's repeats combined by the median,
 * the noise marks, a ratio between machines judged on its interval, and an
 * A/A comparison of sweeps with known spreads coming out within noise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "merge.h"
#include "report.h"
#include "stats.h"

static void test_cost(void **state)
{
	static const struct {
		int line;
		double usd, ips, want;        /* want NaN: no cost */
	} rows[] = {
		{ __LINE__, 3.6, 1000, 1.0 },       /* 3.6 USD/h = 0.001 USD/s; 1000 s per million */
		{ __LINE__, 2.5, 256.9444125, 2.5 / 3600 / 256.9444125 * 1e6 },
		{ __LINE__, 36, 1e6, 0.01 },
		{ __LINE__, 0, 100, NAN },
		{ __LINE__, -1, 100, NAN },
		{ __LINE__, 1, 0, NAN },
		{ __LINE__, 1, NAN, NAN },
		{ __LINE__, NAN, 100, NAN },
		{ __LINE__, INFINITY, 100, NAN },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double got = merge_cost_per_million(rows[i].usd, rows[i].ips);
		if (isnan(rows[i].want)) {
			if (!isnan(got))
				fail_msg("line %d: %g, expected no cost", rows[i].line, got);
		} else if (!(fabs(got - rows[i].want) <= 1e-12 * rows[i].want)) {
			fail_msg("line %d: %.15g, expected %.15g", rows[i].line, got, rows[i].want);
		}
	}
}

static void test_price(void **state)
{
	static const struct {
		int line;
		const char *arg;
		int rc;
		const char *name;
		double usd;
		const char *err;              /* part of the message */
	} rows[] = {
		{ __LINE__, "node-skx=2.5", 0, "node-skx", 2.5, NULL },
		{ __LINE__, "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz=1.5", 0,
		  "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz", 1.5, NULL },
		{ __LINE__, "a=b=3", 0, "a=b", 3, NULL },    /* the last '=' splits */
		{ __LINE__, "x=1e-3", 0, "x", 1e-3, NULL },
		{ __LINE__, "node", -1, NULL, 0, "not NAME=USD_PER_HOUR" },
		{ __LINE__, "=3", -1, NULL, 0, "not NAME=USD_PER_HOUR" },
		{ __LINE__, "node=", -1, NULL, 0, "not NAME=USD_PER_HOUR" },
		{ __LINE__, "node=abc", -1, NULL, 0, "'abc' is not a positive price" },
		{ __LINE__, "node=0", -1, NULL, 0, "not a positive price" },
		{ __LINE__, "node=-2", -1, NULL, 0, "not a positive price" },
		{ __LINE__, "node=3usd", -1, NULL, 0, "not a positive price" },
		{ __LINE__, "node=inf", -1, NULL, 0, "not a positive price" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char name[64] = "", err[256] = "";
		double usd = -99;
		int rc = merge_parse_price(rows[i].arg, name, sizeof(name), &usd, err, sizeof(err));
		if (rc != rows[i].rc)
			fail_msg("line %d: '%s' gave %d (%s)", rows[i].line, rows[i].arg, rc, err);
		if (rc == 0 && (strcmp(name, rows[i].name) || usd != rows[i].usd))
			fail_msg("line %d: '%s' gave '%s' %g", rows[i].line, rows[i].arg, name, usd);
		if (rc && !strstr(err, rows[i].err))
			fail_msg("line %d: '%s': message '%s'", rows[i].line, rows[i].arg, err);
	}
	/* a name longer than the buffer */
	{
		char name[4], err[256];
		double usd;
		assert_int_equal(merge_parse_price("toolong=1", name, sizeof(name), &usd, err,
						   sizeof(err)), -1);
		assert_non_null(strstr(err, "too long"));
	}
}

/* an ok run at w1-b8-g1 with images/s ips (16 images), others % of the CPUs */
static struct sweep_row run(double ips, double others, int over)
{
	struct sweep_row r;
	sweep_row_init(&r);
	snprintf(r.status, sizeof(r.status), "%s", RUN_OK);
	r.workers = 1;
	r.batch_size = 8;
	r.gpus = 1;
	r.images = 16;
	r.images_per_s = ips;
	r.e2e_s = 16 / ips;
	r.workers_cpu_s = r.e2e_s;           /* one worker busy throughout */
	r.main_cpu_s = 0;
	r.gpu_util_pct = 50;
	r.others_cpu_pct = others;
	r.steal_pct = 0;
	r.oversubscribed = over;
	return r;
}

static void point(const struct sweep_row *r, size_t n, struct merge_point *p)
{
	assert_int_equal(merge_point_of(r, n, 1, 8, 1, 2, NULL, 0, p), 0);
}

/* Repeats combine by the metric table's rule, the median (issue 20: merge
 * took the mean 450.8 of 440.8, 466.9, 444.8), with min-max and n. */
static void test_median_not_mean(void **state)
{
	struct sweep_row r[4] = { run(440.8, 1, 0), run(466.9, 1, 0), run(444.8, 1, 0) };
	struct merge_point p;
	char out[128];
	(void)state;
	r[3] = run(999, 1, 0);
	r[3].batch_size = 16;          /* another configuration: not in the point */
	point(r, 4, &p);
	assert_int_equal(p.runs, 3);
	assert_true(p.images_per_s.median == 444.8);
	assert_true(p.images_per_s.lo == 440.8 && p.images_per_s.hi == 466.9);
	assert_false(p.images_per_s.has_ci);
	merge_format(out, sizeof(out), &p.images_per_s, "%.1f");
	assert_string_equal(out, "444.8 (min 440.8, max 466.9, n=3)");
	assert_true(fabs(p.e2e_s.median - 16 / 444.8) < 1e-12);
	assert_true(merge_point_clean(&p));
	/* one run: said so */
	point(r, 1, &p);
	merge_format(out, sizeof(out), &p.images_per_s, "%.1f");
	assert_string_equal(out, "440.8 (n=1)");
	/* 6 runs: the 95 % interval of the median */
	struct sweep_row six[6];
	for (int i = 0; i < 6; i++)
		six[i] = run(100 + i, 1, 0);
	point(six, 6, &p);
	assert_true(p.images_per_s.has_ci);
	merge_format(out, sizeof(out), &p.images_per_s, "%.1f");
	assert_string_equal(out, "102.5 [100.0, 105.0]");
	/* per core: every figure scaled */
	struct stats_summary pc = p.images_per_s;
	merge_scale(&pc, 0.5);
	assert_true(pc.median == 51.25 && pc.lo == 50 && pc.hi == 52.5);
}

/* A run the noise guard found noisy (others above REPORT_BUSY_PCT, the
 * boundary itself not) or oversubscribed is marked; the point is not clean. */
static void test_marks(void **state)
{
	struct sweep_row r[3] = { run(100, REPORT_BUSY_PCT, 0), run(101, 68, 0), run(102, 2, 1) };
	struct merge_point p;
	char out[256];
	(void)state;
	point(r, 1, &p);
	assert_int_equal(p.noisy, 0);
	assert_true(merge_point_clean(&p));
	merge_marks(&p, out, sizeof(out));
	assert_string_equal(out, "");
	point(r, 3, &p);
	assert_int_equal(p.noisy, 1);
	assert_int_equal(p.oversubscribed, 1);
	assert_false(merge_point_clean(&p));
	merge_marks(&p, out, sizeof(out));
	assert_string_equal(out, "NOISY in 1 of 3 runs (others up to 68 %); oversubscribed in 1 of 3 runs");
	/* steal alone is noisy too */
	r[0].steal_pct = 30;
	point(r, 1, &p);
	assert_int_equal(p.noisy, 1);
}

static void ratio(const double *a, size_t na, const double *b, size_t nb, struct merge_ratio *r)
{
	struct stats_summary sa, sb;
	assert_int_equal(stats_summarise(a, na, STATS_CI_LEVEL, &sa), 0);
	assert_int_equal(stats_summarise(b, nb, STATS_CI_LEVEL, &sb), 0);
	merge_ratio_of(&sa, &sb, r);
}

/* A ratio is judged on lo_a / hi_b .. hi_a / lo_b: within noise when that
 * holds 1 (the boundary included), not judged with one run on a side. */
static void test_ratio(void **state)
{
	static const double a[] = { 190, 200, 210 }, b[] = { 95, 100, 105 },
			    c[] = { 180, 185, 190 }, one[] = { 150 };
	struct merge_ratio r;
	char out[128];
	(void)state;
	ratio(a, 3, b, 3, &r);
	assert_int_equal(r.v, MERGE_HIGHER);
	assert_true(r.r == 2 && r.lo == 190.0 / 105 && r.hi == 210.0 / 95);
	merge_ratio_format(out, sizeof(out), &r);
	assert_string_equal(out, "2.00x [1.81, 2.21], higher");
	ratio(b, 3, a, 3, &r);
	assert_int_equal(r.v, MERGE_LOWER);
	/* a's lowest run equals c's highest: the interval touches 1, within noise */
	ratio(a, 3, c, 3, &r);
	assert_true(r.lo == 1);
	assert_int_equal(r.v, MERGE_WITHIN_NOISE);
	merge_ratio_format(out, sizeof(out), &r);
	assert_string_equal(out, "1.08x [1.00, 1.17], within noise");
	assert_string_equal(merge_judgement_name(r.v), "within noise");
	/* one run: the ratio, not judged (issue 20: "1.16x" of noise) */
	ratio(one, 1, b, 3, &r);
	assert_int_equal(r.v, MERGE_NOT_JUDGED);
	assert_true(r.r == 1.5 && isnan(r.lo));
	merge_ratio_format(out, sizeof(out), &r);
	assert_string_equal(out, "1.50x (not judged: one run on a side)");
	ratio(b, 3, one, 0, &r);
	assert_true(isnan(r.r));
	merge_ratio_format(out, sizeof(out), &r);
	assert_string_equal(out, "-");
}

/* A/A: two sweeps of one configuration, runs interleaved, drawn from the
 * same spread (a known seed): within noise for every seed; B shifted
 * beyond the spread: higher. */
/* a uniform draw in [0, 1) (splitmix64) */
static double uniform(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static void test_aa(void **state)
{
	uint64_t seed = 12345;
	int within = 0;
	(void)state;
	for (int trial = 0; trial < 200; trial++) {
		struct sweep_row ra[6], rb[6];
		struct merge_point pa, pb;
		struct merge_ratio r;
		for (int i = 0; i < 6; i++) {
			/* 200 images/s, +-10 %: the same distribution for both */
			ra[i] = run(200 * (0.9 + 0.2 * uniform(&seed)), 1, 0);
			rb[i] = run(200 * (0.9 + 0.2 * uniform(&seed)), 1, 0);
		}
		point(ra, 6, &pa);
		point(rb, 6, &pb);
		merge_ratio_of(&pa.images_per_s, &pb.images_per_s, &r);
		within += r.v == MERGE_WITHIN_NOISE;
		/* B 30 % slower, beyond the +-10 % spread */
		for (int i = 0; i < 6; i++)
			rb[i] = run(ra[i].images_per_s * 0.7, 1, 0);
		point(rb, 6, &pb);
		merge_ratio_of(&pa.images_per_s, &pb.images_per_s, &r);
		assert_int_equal(r.v, MERGE_HIGHER);
	}
	/* 6 runs a side: the intervals are min-max (the 96.9 % interval of the
	 * median), apart only when all 6 of one side lie below all 6 of the
	 * other: 2 / C(12, 6) = 0.2 % of A/A trials; 200 trials, a fixed seed */
	assert_int_equal(within, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_price),
		cmocka_unit_test(test_median_not_mean),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_ratio),
		cmocka_unit_test(test_aa),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
