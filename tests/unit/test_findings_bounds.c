/* The minimum of batches every finding rests on (REPORT_MIN_BATCHES,
 * bench/report/findings.c), at its boundary: the stored sweeps whose
 * verdict holds (tests/fixtures/sweep/verdicts/) with every run given
 * exactly REPORT_MIN_BATCHES batches still hold; with one fewer they
 * cannot be judged, and say why. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

#define VERDICTS "tests/fixtures/sweep/verdicts/"

static const struct paper *the_paper(void)
{
	static struct paper p;
	static int loaded;
	char err[512];
	if (!loaded) {
		if (paper_load(".", &p, err, sizeof(err)))
			fail_msg("paper_load: %s", err);
		loaded = 1;
	}
	return &p;
}

static void test_enough_batches(void **state)
{
	(void)state;
	struct sweep_row r;
	sweep_row_init(&r);
	r.batches = REPORT_MIN_BATCHES;
	assert_true(report_enough_batches(&r));
	r.batches = REPORT_MIN_BATCHES - 1;
	assert_false(report_enough_batches(&r));
	/* older tables: the preprocessed batches, every one before the low-tail cut */
	r.batches = NAN;
	r.preproc_all_batches = REPORT_MIN_BATCHES;
	r.preproc_batches = REPORT_MIN_BATCHES - 1;
	assert_true(report_enough_batches(&r));
	r.preproc_all_batches = NAN;
	assert_false(report_enough_batches(&r));
	r.preproc_batches = REPORT_MIN_BATCHES;
	assert_true(report_enough_batches(&r));
	/* not recorded at all: not held against the run */
	r.preproc_batches = NAN;
	assert_true(report_enough_batches(&r));
}

static void test_findings_at_the_minimum(void **state)
{
	static const struct {
		const char *file;
		finding_fn fn;
		int cpus;
		const char *name;
	} rows[] = {
		{ "short_ops_holds.csv", finding_short_ops, 0, "finding 1 (short ops)" },
		{ "variance_holds.csv", finding_variance, 0, "finding 2 (variance)" },
		{ "ooo_holds.csv", finding_out_of_order, 0, "finding 3 (out of order)" },
		{ "knee_holds.csv", finding_diminishing, 2, "finding 4 (diminishing returns)" },
	};
	(void)state;
	struct judge_ctx cx = { .paper = the_paper() };
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (int fewer = 0; fewer <= 1; fewer++) {
			char path[512], err[512];
			struct sweep s;
			struct finding f;
			double b = REPORT_MIN_BATCHES - fewer;

			snprintf(path, sizeof(path), VERDICTS "%s", rows[i].file);
			if (sweep_read_csv(&s, path, err, sizeof(err)))
				fail_msg("%s: %s", path, err);
			for (size_t k = 0; k < s.nrows; k++)
				s.rows[k].batches = b;
			cx.cpus = rows[i].cpus;
			finding_judge(rows[i].fn, s.rows, s.nrows, &cx, &f);
			enum verdict want = fewer ? VERDICT_CANNOT_JUDGE : VERDICT_HOLDS;
			if (f.v != want)
				fail_msg("%s on %s, every run %g batches (REPORT_MIN_BATCHES %d): %s, "
					 "expected %s: %s", rows[i].name, rows[i].file, b, REPORT_MIN_BATCHES,
					 verdict_name(f.v), verdict_name(want), f.why);
			if (fewer && !strstr(f.why, "batches"))
				fail_msg("%s with %g batches: the reason does not name the batches: %s",
					 rows[i].name, b, f.why);
			sweep_free(&s);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enough_batches),
		cmocka_unit_test(test_findings_at_the_minimum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
