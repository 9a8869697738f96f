/* The sweep's table, its verdict rules and its figures.
 *
 * Verdicts: each rule on a stored summary.csv built to make one verdict
 * come out (tests/fixtures/sweep/verdicts/, the reason in each file's
 * comment). The loader: a real two-run sweep folder with a failed and a
 * pending run added by hand (tests/fixtures/sweep/tiny/). The schema:
 * summary.json as results_summary_json writes it, read back into a row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>
#include "analysis.h"
#include "emit.h"
#include "fsutil.h"
#include "knee.h"
#include "metrics.h"
#include "report.h"

#define VERDICTS "tests/fixtures/sweep/verdicts/"
#define TINY "tests/fixtures/sweep/tiny"

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_tree(const char *root)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc((size_t)n + 1, 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static int have_gnuplot(void);

/* ---- the knee ---------------------------------------------------------- */

static void test_knee(void **state)
{
	static const struct {
		int w[6];
		double e[6];
		size_t n;
		int knee;
		int line;
	} rows[] = {
		{ { 1, 2, 3, 4 }, { 100, 52, 50, 49.5 }, 4, 2, __LINE__ },
		{ { 1, 2, 3, 4 }, { 100, 80, 60, 45 }, 4, 0, __LINE__ },
		/* the paper's Fig. 6a: 16 -> 20 gains 6.2 %, 20 -> 24 5.6 %, 24 -> 28 2.3 % */
		{ { 8, 12, 16, 20, 24, 28 }, { 1280.77, 903.62, 734.82, 688.91, 650.58, 635.57 }, 6, 24,
		  __LINE__ },
		{ { 1, 2 }, { 10, 9.6 }, 2, 1, __LINE__ },
		{ { 1 }, { 10 }, 1, 0, __LINE__ },
		{ { 1, 2, 3 }, { 10, 10.5, 9 }, 3, 1, __LINE__ },   /* a slower step is no gain */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int k = knee_of(rows[i].w, rows[i].e, rows[i].n, KNEE_GAIN_PCT);
		if (k != rows[i].knee)
			fail_msg("line %d: knee %d, expected %d", rows[i].line, k, rows[i].knee);
	}
}

/* ---- verdicts on stored summaries ----------------------------------------*/

enum which { SHORT_OPS, VARIANCE, OOO, KNEE, OVERHEAD };

/* the paper's figures, from the repository's reference tables */
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

static void judge(enum which w, const struct sweep *s, int cpus, struct finding *f)
{
	static const finding_fn fn[] = { finding_short_ops, finding_variance, finding_out_of_order,
					 finding_diminishing, finding_overhead };
	struct judge_ctx cx = { .cpus = cpus, .paper = the_paper() };
	finding_judge(fn[w], s->rows, s->nrows, &cx, f);
}

/* the paper's figures are computed from its tables, with the definitions of
 * this machine's */
static void test_paper_figures(void **state)
{
	(void)state;
	const struct paper *p = the_paper();
	assert_true(p->ok);
	/* Figs. 4-5, 2+ workers: 12 configurations, 12.86-61.17 % out of order,
	 * 78.3-91.7 % stalled */
	assert_int_equal(p->ooo.k, 12);
	assert_true(p->ooo.ooo.min == 12.86 && p->ooo.ooo.max == 61.17);
	assert_true(p->ooo.stall.min == 78.3 && p->ooo.stall.max == 91.7);
	/* b512 with 2+ workers (the 1-worker run is out of scope, as here) */
	assert_int_equal(p->ooo.k512, 3);
	assert_true(p->ooo.wait500.min == 30.84 && p->ooo.wait500.max == 60.17);
	/* the per-batch std over the 15 configurations, after the low-tail cut */
	assert_int_equal(p->variance.k, 15);
	assert_true(p->variance.std_pct.min == 4.17 && p->variance.std_pct.max == 10.69);
	assert_true(p->iqr_ratio_quoted == 6.9);
	/* Fig. 6: the knee by this report's rule, and the rise of the op spans
	 * (the per-op table sums to Fig. 6's CPU seconds) */
	assert_int_equal(p->dim.n, 6);
	assert_int_equal(p->dim.knee, 24);
	assert_true(fabs(p->dim.span[0] - 9402.62) < 0.05 && fabs(p->dim.span[5] - 14423.65) < 0.05);
	assert_true(fabs(p->dim.span_rise_pct - 53.4) < 0.1);
	assert_true(fabs(p->dim.drop_all_pct - 50.4) < 0.1);
	/* Table II and the tracer */
	assert_true(p->t2_under10_lo == 97.79 && p->t2_under10_hi == 100);
	assert_true(p->t2_flip_under100us == 98.3);
	assert_true(p->overhead_full_pct == 0.14 && p->overhead_subset_pct == 2.0);
}

static void test_verdicts(void **state)
{
	static const struct {
		const char *file;
		enum which w;
		int cpus;
		enum verdict v;
		const char *why;     /* a piece of the reason */
		int knee;
		int line;
	} rows[] = {
		{ "short_ops_holds.csv", SHORT_OPS, 0, VERDICT_HOLDS, "w1-b128-g1-r1", 0, __LINE__ },
		{ "short_ops_not_decode.csv", SHORT_OPS, 0, VERDICT_DOES_NOT_HOLD, "decode 60.0 %", 0, __LINE__ },
		{ "short_ops_not_flip.csv", SHORT_OPS, 0, VERDICT_DOES_NOT_HOLD, "under 100 us: 50.0 %", 0, __LINE__ },
		{ "short_ops_cannot.csv", SHORT_OPS, 0, VERDICT_CANNOT_JUDGE, "no decode op", 0, __LINE__ },
		{ "variance_holds.csv", VARIANCE, 0, VERDICT_HOLDS, "IQR is 4.00x from b32 to b128", 0, __LINE__ },
		{ "variance_holds.csv", VARIANCE, 0, VERDICT_HOLDS, "after the same low-tail cut: 4.17-10.69 %", 0, __LINE__ },
		{ "variance_not_std.csv", VARIANCE, 0, VERDICT_DOES_NOT_HOLD, "median 0.75 %", 0, __LINE__ },
		{ "variance_not_iqr.csv", VARIANCE, 0, VERDICT_DOES_NOT_HOLD, "0.33x", 0, __LINE__ },
		{ "variance_cannot.csv", VARIANCE, 0, VERDICT_CANNOT_JUDGE, "8 or more", 0, __LINE__ },
		{ "ooo_holds.csv", OOO, 0, VERDICT_HOLDS, "3 configurations", 0, __LINE__ },
		{ "ooo_not.csv", OOO, 0, VERDICT_DOES_NOT_HOLD, "median 4.5 %", 0, __LINE__ },
		{ "ooo_not_stall.csv", OOO, 0, VERDICT_DOES_NOT_HOLD, "stall 5.0-10.0 %", 0, __LINE__ },
		{ "ooo_cannot.csv", OOO, 0, VERDICT_CANNOT_JUDGE, "2 or more workers", 0, __LINE__ },
		{ "ooo_holds.csv", OOO, 0, VERDICT_HOLDS, "out of order 12.86-61.17 %", 0, __LINE__ },
		{ "ooo_holds.csv", OOO, 0, VERDICT_HOLDS, "at least 6.4 %", 0, __LINE__ },
		/* the same minimum of batches for every finding */
		{ "ooo_few_batches.csv", OOO, 0, VERDICT_CANNOT_JUDGE, "8 or more batches", 0, __LINE__ },
		{ "ooo_few_batches.csv", VARIANCE, 0, VERDICT_CANNOT_JUDGE, "8 or more batches", 0, __LINE__ },
		{ "ooo_few_batches.csv", KNEE, 0, VERDICT_CANNOT_JUDGE, "8 or more batches", 0, __LINE__ },
		/* the advice names the option that works */
		{ "ooo_few_batches.csv", VARIANCE, 0, VERDICT_CANNOT_JUDGE, "(raise --epochs, or use a "
		  "larger dataset; --max-batches only caps the batches of a run, it cannot add any)", 0,
		  __LINE__ },
		/* oversubscribed runs are shown apart, or said to be all there is */
		{ "ooo_oversubscribed.csv", OOO, 2, VERDICT_HOLDS, "1 configuration without oversubscription, 2 oversubscribed", 0, __LINE__ },
		{ "ooo_oversubscribed.csv", OOO, 2, VERDICT_HOLDS, "(out of order 2.0-3.0 %", 0, __LINE__ },
		{ "ooo_all_oversubscribed.csv", OOO, 1, VERDICT_HOLDS, "every one of these runs was oversubscribed", 0, __LINE__ },
		/* what the repeats say alone */
		{ "ooo_repeats_split.csv", OOO, 0, VERDICT_HOLDS, "holds in 1 of 2 repeats judged alone", 0, __LINE__ },
		{ "knee_holds.csv", KNEE, 2, VERDICT_HOLDS, "knee is at 2 workers", 2, __LINE__ },
		{ "knee_holds.csv", KNEE, 0, VERDICT_HOLDS, "sum of op spans rises 30.0 %", 2, __LINE__ },
		{ "knee_holds.csv", KNEE, 0, VERDICT_HOLDS, "knee by this rule at 24", 2, __LINE__ },
		{ "knee_not_still_falling.csv", KNEE, 2, VERDICT_DOES_NOT_HOLD, "no knee", 0, __LINE__ },
		{ "knee_not_cpu.csv", KNEE, 2, VERDICT_DOES_NOT_HOLD, "changes by -30.0 %", 2, __LINE__ },
		{ "knee_flat.csv", KNEE, 2, VERDICT_CANNOT_JUDGE, "could use 2 CPUs", 8, __LINE__ },
		/* too few CPUs: the model's prediction for the paper's shape, labelled */
		{ "knee_model.csv", KNEE, 2, VERDICT_CANNOT_JUDGE, "a model, not a measurement (ppbench model, docs/model.md): with this machine's 6.500 ms per image", 8, __LINE__ },
		{ "knee_flat.csv", KNEE, 32, VERDICT_DOES_NOT_HOLD, "did not help", 8, __LINE__ },
		{ "knee_cannot_two.csv", KNEE, 2, VERDICT_CANNOT_JUDGE, "at most 2", 0, __LINE__ },
		/* a knee by the rule, but on 1 CPU every worker count is oversubscribed */
		{ "knee_holds.csv", KNEE, 1, VERDICT_CANNOT_JUDGE, "knee by the rule at 2", 2, __LINE__ },
		{ "knee_holds.csv", OVERHEAD, 2, VERDICT_CANNOT_JUDGE, "tracing off and on", 0, __LINE__ },
		/* the knee judged on intervals: a step within noise is said to be so */
		{ "knee_noise.csv", KNEE, 8, VERDICT_HOLDS, "knee is at 2 workers", 2, __LINE__ },
		{ "knee_noise.csv", KNEE, 8, VERDICT_HOLDS, "the step from 2 to 3 workers' E2E gain is "
		  "3.8 % (each repeat alone: -1.0 to 9.1 %, n=3): within noise of the rule's 5.0 %", 2, __LINE__ },
		{ "knee_noise.csv", KNEE, 8, VERDICT_HOLDS, "so this verdict rests on a comparison within "
		  "noise: more repeats (6 or more give a 95 % interval of the median) would settle "
		  "whether the step from 2 to 3 workers' E2E gain meets the rule", 2, __LINE__ },
		/* one repeat: the verdict says it rests on one measurement each */
		{ "ooo_holds.csv", OOO, 0, VERDICT_HOLDS, "rests on one measurement per configuration", 0,
		  __LINE__ },
		{ "knee_not_still_falling.csv", KNEE, 2, VERDICT_DOES_NOT_HOLD, "rests on one measurement "
		  "per configuration", 0, __LINE__ },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[512], err[512];
		struct sweep s;
		struct finding f;

		snprintf(path, sizeof(path), VERDICTS "%s", rows[i].file);
		if (sweep_read_csv(&s, path, err, sizeof(err)))
			fail_msg("line %d: %s", rows[i].line, err);
		judge(rows[i].w, &s, rows[i].cpus, &f);
		if (f.v != rows[i].v || !strstr(f.why, rows[i].why) ||
		    (rows[i].w == KNEE && f.knee_workers != rows[i].knee))
			fail_msg("line %d (%s): %s (knee %d): %s; expected %s with '%s'", rows[i].line,
				 rows[i].file, verdict_name(f.v), f.knee_workers, f.why,
				 verdict_name(rows[i].v), rows[i].why);
		sweep_free(&s);
	}
}

/* Each comparison a verdict makes is judged on the repeats judged alone:
 * within noise only where the rule's threshold lies within them. */
static void test_knee_intervals(void **state)
{
	static const struct {
		const char *file;
		int within_noise;
		enum stats_target step23;   /* the step from 2 to 3 workers */
	} rows[] = {
		{ "knee_noise.csv", 1, TARGET_WITHIN_NOISE },
		{ "knee_repeats_clear.csv", 0, TARGET_MET },   /* under 5 % in every repeat */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[512], err[512];
		struct sweep s;
		struct finding f;
		snprintf(path, sizeof(path), VERDICTS "%s", rows[i].file);
		if (sweep_read_csv(&s, path, err, sizeof(err)))
			fail_msg("%s", err);
		judge(KNEE, &s, 8, &f);
		assert_int_equal(f.v, VERDICT_HOLDS);
		assert_int_equal(f.knee_workers, 2);
		if (f.within_noise != rows[i].within_noise)
			fail_msg("%s: within_noise %d: %s", rows[i].file, f.within_noise, f.why);
		const struct finding_test *t = NULL;
		for (size_t k = 0; k < f.ntests; k++)
			if (!strcmp(f.tests[k].key, "step 2 3"))
				t = &f.tests[k];
		assert_non_null(t);
		assert_int_equal(t->rep.n, 3);
		assert_true(t->at_most);
		if (t->judged != rows[i].step23)
			fail_msg("%s: the step from 2 to 3 judged %s", rows[i].file,
				 stats_target_name(t->judged));
		assert_int_equal(!!strstr(f.why, "within noise"), rows[i].within_noise);
		sweep_free(&s);
	}
}

/* The report's tables carry each figure's spread over the repeats, the
 * verdict table marks a verdict within noise, and the report says what its
 * verdicts rest on (one measurement each, or the repeats). */
static void test_report_repeats(void **state)
{
	static const struct {
		const char *file;
		const char *want[4];
	} rows[] = {
		{ "knee_noise.csv", {
			"| w2 b128 g1 | 3 | 52.00 (min 50.00, max 55.00, n=3) | 3.8 (each repeat: -1.0 "
			"to 9.1, n=3; within noise of the rule's 5 %) |",
			"| 4 | Diminishing returns from more workers (Fig. 6) | holds (within noise) |",
			"Each configuration ran 3 times (--repeat)",
			"A verdict marked (within noise) turns on such a comparison" } },
		{ "ooo_holds.csv", {
			"Each configuration ran once: every verdict above rests on one measurement per "
			"configuration",
			"| w2 b128 g2 | 30.0 | 90.0 |",
			"This machine (one run per configuration: each figure is one measurement):",
			NULL } },
	};
	char top[4096];
	(void)state;
	if (!have_gnuplot() || find_top(TOP_OF_PLOTS, top, sizeof(top))) {
		skip();
		return;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[600], err[512], dir[] = "/tmp/ppbench-report-XXXXXX";
		struct sweep s;
		snprintf(path, sizeof(path), VERDICTS "%s", rows[i].file);
		if (sweep_read_csv(&s, path, err, sizeof(err)))
			fail_msg("%s", err);
		assert_non_null(mkdtemp(dir));
		snprintf(s.dir, sizeof(s.dir), "%s", dir);
		if (report_write(&s, err, sizeof(err)))
			fail_msg("%s", err);
		snprintf(path, sizeof(path), "%s/report.md", dir);
		char *md = slurp(path);
		assert_non_null(md);
		for (size_t k = 0; k < 4 && rows[i].want[k]; k++)
			if (!strstr(md, rows[i].want[k]))
				fail_msg("%s: report.md lacks '%s'", rows[i].file, rows[i].want[k]);
		free(md);
		sweep_free(&s);
		rm_tree(dir);
	}
}

/* REPORT_MIN_BATCHES at its boundary: the stored sweeps whose verdict holds,
 * with every run given exactly REPORT_MIN_BATCHES batches, still hold; with
 * one fewer they cannot be judged, and say why. */
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

/* ---- summary.csv ------------------------------------------------------- */

static void assert_rows_equal(const struct sweep_row *a, const struct sweep_row *b)
{
	assert_int_equal(a->config, b->config);
	assert_int_equal(a->repeat, b->repeat);
	assert_string_equal(a->tag, b->tag);
	assert_string_equal(a->status, b->status);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_string_equal(a->run_dir, b->run_dir);
	assert_int_equal(a->workers, b->workers);
	assert_int_equal(a->batch_size, b->batch_size);
	assert_int_equal(a->gpus, b->gpus);
	assert_int_equal(a->complete, b->complete);
	assert_string_equal(a->checksum, b->checksum);
	/* every figure of the metric table reads back identically (one number
	 * format in summary.json and summary.csv) */
	for (size_t k = 0; k < metric_count; k++) {
		double x = metric_row_get(&metric_table[k], a), y = metric_row_get(&metric_table[k], b);
		if (isnan(x) != isnan(y) || (!isnan(x) && x != y))
			fail_msg("%s: %.17g read back as %.17g", metric_table[k].name, x, y);
	}
	assert_int_equal(a->nops, b->nops);
	for (size_t k = 0; k < a->nops; k++) {
		assert_string_equal(a->ops[k].name, b->ops[k].name);
		for (size_t j = 0; j < op_metric_count; j++) {
			double x = op_metric_get(&op_metric_table[j], &a->ops[k]);
			double y = op_metric_get(&op_metric_table[j], &b->ops[k]);
			if (isnan(x) != isnan(y) || (!isnan(x) && x != y))
				fail_msg("op %s %s: %.17g read back as %.17g", a->ops[k].name,
					 op_metric_table[j].name, x, y);
		}
	}
}

static void test_load_tiny(void **state)
{
	struct sweep s, back;
	char err[512], dir[] = "/tmp/ppbench-report-XXXXXX", path[600];
	(void)state;

	if (sweep_load(&s, TINY, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(s.nparts, 1);
	assert_int_equal(s.cpus, 2);
	assert_int_equal(s.nrows, 4);
	assert_string_equal(s.rows[0].status, RUN_OK);
	assert_string_equal(s.rows[1].status, RUN_OK);
	assert_string_equal(s.rows[2].status, RUN_FAILED);
	assert_string_equal(s.rows[3].status, RUN_PENDING);
	assert_int_equal(s.rows[2].exit_code, 2);
	assert_int_equal(s.rows[3].exit_code, -1);
	for (int i = 0; i < 2; i++) {
		const struct sweep_row *r = &s.rows[i];
		assert_int_equal(r->workers, i + 1);
		assert_int_equal(r->batch_size, 8);
		assert_int_equal(r->complete, 1);
		assert_true(r->e2e_s > 0);
		assert_true(r->images == 24);
		assert_true(r->batches == 3);
		assert_true(r->stall_pct >= 0 && r->stall_pct <= 100);
		assert_non_null(sweep_row_op(r, "decode"));
		assert_non_null(sweep_row_op(r, "random_horizontal_flip"));
		assert_true(sweep_row_op(r, "decode")->count == 24);
		assert_int_equal(strlen(r->checksum), 16);
	}
	/* each row holds its own run's checksum, as its summary.json says (that
	 * it does not change with W is the loader's: test_loader.c's
	 * test_checksum_invariance runs the workers) */
	for (int i = 0; i < 2; i++) {
		char sp[900];
		snprintf(sp, sizeof(sp), "%s/%s/summary.json", TINY, s.rows[i].run_dir);
		json_t *j = json_load_file(sp, 0, NULL);
		assert_non_null(j);
		const char *ck = json_string_value(json_object_get(j, "checksum"));
		assert_non_null(ck);
		assert_string_equal(s.rows[i].checksum, ck);
		json_decref(j);
	}
	assert_true(isnan(s.rows[2].e2e_s));

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	if (sweep_write_csv(&s, path, err, sizeof(err)))
		fail_msg("%s", err);
	if (sweep_read_csv(&back, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(back.nrows, s.nrows);
	for (size_t i = 0; i < s.nrows; i++)
		assert_rows_equal(&s.rows[i], &back.rows[i]);
	sweep_free(&back);
	sweep_free(&s);
	rm_tree(dir);
}

/* summary.json as the emitter writes it reads back into the row */
static void test_summary_schema(void **state)
{
	struct run_metrics m;
	struct op_metrics ops[2];
	struct sweep_row r;
	json_t *j;
	(void)state;

	memset(&m, 0, sizeof(m));
	memset(ops, 0, sizeof(ops));
	m.complete = 1;
	m.batch_size = 64;
	m.workers = 3;
	m.gpus = 2;
	m.e2e_s = 12.5;
	m.images = 640;
	m.batches = 10;
	m.images_per_s = 51.2;
	m.checksum = 0x0123456789abcdefull;
	m.ops_span_s = 30.25;
	m.workers_cpu_s = 31;
	m.main_cpu_s = 0.5;
	m.nops = 2;
	m.ops = ops;
	snprintf(ops[0].name, sizeof(ops[0].name), "decode");
	snprintf(ops[0].lotus_name, sizeof(ops[0].lotus_name), "SLoader");
	ops[0].st.n = 640;
	ops[0].st.mean = 4.5e6;
	ops[0].st.p90 = 6e6;
	ops[0].span_s = 2.88;
	ops[0].under_10ms_pct = 97.5;
	ops[0].under_100us_pct = 0;
	snprintf(ops[1].name, sizeof(ops[1].name), "random_horizontal_flip");
	snprintf(ops[1].lotus_name, sizeof(ops[1].lotus_name), "SRandomHorizontalFlip");
	ops[1].st.n = 640;
	ops[1].under_10ms_pct = 100;
	ops[1].under_100us_pct = 98.25;
	m.preproc.n = 9;
	m.preproc.mean = 250e6;
	m.preproc.p25 = 240e6;
	m.preproc.p75 = 260e6;
	m.preproc_std_pct = 6.5;
	m.preproc_iqr_ns = 20e6;
	m.ooo_pct = 40;
	m.stall_pct = 81.5;
	m.wait_total_s = 10.2;
	m.wait.mean = 120e6;
	m.wait_over_500ms_pct = 12.5;
	m.delay.p50 = 300e6;
	m.delay_over_500ms_pct = 33.25;
	m.gpu_busy_s = 2;
	m.gpu_idle_s = 10.5;
	m.gpu_util_pct = 16;
	m.trace_events = 4000;
	m.trace_cost_ns = 25;
	m.nskipped = 1;

	struct results_in in = { .m = &m };
	j = results_summary_json(&in);
	assert_non_null(j);
	sweep_row_init(&r);
	sweep_row_from_summary(&r, j);
	json_decref(j);
	assert_int_equal(r.complete, 1);
	assert_true(r.e2e_s == 12.5);
	assert_true(r.images == 640 && r.batches == 10);
	assert_true(r.images_per_s == 51.2);
	assert_string_equal(r.checksum, "0123456789abcdef");
	assert_true(r.ops_span_s == 30.25);
	assert_true(r.workers_cpu_s == 31 && r.main_cpu_s == 0.5);
	assert_true(r.preproc_batches == 9);
	assert_true(fabs(r.preproc_avg_ms - 250) < 1e-9);
	assert_true(r.preproc_std_pct == 6.5);
	assert_true(fabs(r.preproc_p25_ms - 240) < 1e-9 && fabs(r.preproc_p75_ms - 260) < 1e-9);
	assert_true(fabs(r.preproc_iqr_ms - 20) < 1e-9);
	assert_true(r.ooo_pct == 40 && r.stall_pct == 81.5);
	assert_true(r.sum_wait_s == 10.2);
	assert_true(fabs(r.wait_avg_ms - 120) < 1e-9);
	assert_true(r.wait_gt_500ms_pct == 12.5);
	assert_true(fabs(r.delay_p50_ms - 300) < 1e-9);
	assert_true(r.delay_gt_500ms_pct == 33.25);
	assert_true(r.gpu_busy_s == 2 && r.gpu_idle_s == 10.5 && r.gpu_util_pct == 16);
	assert_true(r.trace_events == 4000 && r.trace_cost_ns == 25);
	assert_true(r.skipped_files == 1);
	assert_int_equal(r.nops, 2);
	assert_string_equal(r.ops[0].name, "decode");
	assert_true(r.ops[0].count == 640);
	assert_true(fabs(r.ops[0].mean_ms - 4.5) < 1e-9 && fabs(r.ops[0].p90_ms - 6) < 1e-9);
	assert_true(r.ops[0].span_s == 2.88 && r.ops[0].under_10ms_pct == 97.5);
	assert_true(r.ops[1].under_100us_pct == 98.25);
}

/* ---- figures and the report ------------------------------------------------*/

static int have_gnuplot(void)
{
	return system("gnuplot --version >/dev/null 2>&1") == 0;
}

static int png_ok(const char *path)
{
	unsigned char b[8];
	FILE *f = fopen(path, "rb");
	int ok = f && fread(b, 1, 8, f) == 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8);
	if (f)
		fclose(f);
	return ok;
}

static void test_figures_and_report(void **state)
{
	static const char *const drawn[] = {
		"table2_op_cdf", "fig4_preproc_boxplot", "fig5a_wait_per_batch",
		"fig5b_delay_percentiles", "ooo_stall_vs_workers", "fig6a_e2e_vs_workers",
		"gpu_util_vs_workers", "fig6b_cpu_vs_workers", "paper/fig6a_e2e_vs_workers",
		"paper/fig6b_cpu_vs_workers", "paper/ooo_stall_vs_workers",
		"paper/grid_ooo_stall_vs_workers", "paper/grid_ooo_stall_vs_batch",
	};
	struct fig_status st[REPORT_MAX_FIGS];
	struct sweep s;
	char err[512], dir[] = "/tmp/ppbench-report-XXXXXX", path[600], top[4096];
	size_t n = 0;
	char *md, *html;
	(void)state;

	if (!have_gnuplot() || find_top(TOP_OF_PLOTS, top, sizeof(top))) {
		skip();
		return;
	}
	if (sweep_load(&s, TINY, err, sizeof(err)))
		fail_msg("%s", err);
	assert_non_null(mkdtemp(dir));
	/* write into a scratch folder, read the runs from the fixture */
	snprintf(s.dir, sizeof(s.dir), "%s", dir);
	if (report_figures(&s, st, REPORT_MAX_FIGS, &n, err, sizeof(err)))
		fail_msg("%s", err);
	for (size_t k = 0; k < sizeof(drawn) / sizeof(drawn[0]); k++) {
		const struct fig_status *f = NULL;
		char *svg;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(st[i].name, drawn[k]))
				f = &st[i];
		if (!f || !f->drawn)
			fail_msg("%s not drawn: %s", drawn[k], f ? f->why : "not listed");
		snprintf(path, sizeof(path), "%s/figures/%s.png", dir, drawn[k]);
		assert_true(png_ok(path));
		snprintf(path, sizeof(path), "%s/figures/%s.svg", dir, drawn[k]);
		svg = slurp(path);
		assert_non_null(svg);
		assert_non_null(strstr(svg, "<svg"));
		assert_non_null(strstr(svg, "</svg>"));
		free(svg);
	}
	/* one batch size: no chart against batch size, and the reason says so */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(st[i].name, "ooo_stall_vs_batch")) {
			assert_false(st[i].drawn);
			assert_non_null(strstr(st[i].why, "one batch size"));
		}

	if (report_write(&s, err, sizeof(err)))
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = slurp(path);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	html = slurp(path);
	assert_non_null(md);
	assert_non_null(html);
	assert_int_equal(count(md, "**Verdict: "), 5);
	assert_int_equal(count(html, "<strong>Verdict: "), 5);
	assert_non_null(strstr(md, "w3-b8-g1-r1: failed, exit code 2"));
	assert_non_null(strstr(md, "w4-b8-g1-r1: not run"));
	/* self-contained: figures inline, no external image */
	assert_true(count(html, "<svg") >= sizeof(drawn) / sizeof(drawn[0]));
	assert_null(strstr(html, "<img"));
	assert_non_null(strstr(html, "id='f1-gpDot'"));
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	assert_true(access(path, R_OK) == 0);
	free(md);
	free(html);
	sweep_free(&s);
	rm_tree(dir);
}

/* finding 1 under load: a Table II run whose ops waited for a CPU most of
 * their wall time cannot show that they are short ("cannot be judged", the
 * noise guard says why); one on a CPU most of the time is judged (the
 * boundary: REPORT_MIN_ONCPU_SHARE) */
static void test_short_ops_under_load(void **state)
{
	static const struct {
		double oncpu;
		enum verdict want;
	} cases[] = {
		{ 0.16, VERDICT_CANNOT_JUDGE },
		{ REPORT_MIN_ONCPU_SHARE - 0.01, VERDICT_CANNOT_JUDGE },
		{ REPORT_MIN_ONCPU_SHARE, VERDICT_DOES_NOT_HOLD },
		{ 0.95, VERDICT_DOES_NOT_HOLD },
	};
	(void)state;
	struct judge_ctx cx = { .paper = the_paper() };
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char err[512];
		struct sweep s;
		struct finding f;
		if (sweep_read_csv(&s, VERDICTS "short_ops_holds.csv", err, sizeof(err)))
			fail_msg("%s", err);
		for (size_t k = 0; k < s.nrows; k++) {
			struct sweep_row *r = &s.rows[k];
			r->batches = REPORT_MIN_BATCHES;
			r->ops_span_s = 10;
			r->ops_oncpu_s = 10 * cases[c].oncpu;
			r->others_cpu_pct = 90;
			for (size_t o = 0; o < r->nops; o++)
				if (!strcmp(r->ops[o].name, "decode"))
					r->ops[o].under_10ms_pct = 70;   /* waits stretched the decodes */
		}
		finding_judge(finding_short_ops, s.rows, s.nrows, &cx, &f);
		if (f.v != cases[c].want)
			fail_msg("ops on a CPU %.0f %% of their wall time: %s, expected %s: %s",
				 100 * cases[c].oncpu, verdict_name(f.v), verdict_name(cases[c].want), f.why);
		if (cases[c].oncpu < REPORT_MIN_ONCPU_SHARE && !strstr(f.why, "the noise guard"))
			fail_msg("the noise guard does not say why: %s", f.why);
		sweep_free(&s);
	}
}

/* finding 1 when the noise guard saw other load take CPU time the run wanted
 * (report_run_busy): each call's own time on a CPU decides, the wall-time
 * shares (which hold the waits) are shown beside; not busy, the wall-time
 * shares decide as in Table II (short_ops_on_cpu.csv: wall decode 70 %,
 * flip 60 % under 100 us; on a CPU 99.6 % and 99 %) */
static void test_short_ops_on_cpu(void **state)
{
	static const struct {
		double others, oncpu_s, busy_threads, decode_oncpu;
		enum verdict want;
		const char *why, *not_why;
		double least;          /* the deciding test's value */
		int line;
	} cases[] = {
		/* busy: judged on the CPU time of each call */
		{ 85, 4, 1.1, 99.6, VERDICT_HOLDS, "others took 85 % of the CPUs and its ops were on a "
		  "CPU 40 % of their wall time", NULL, 99.6, __LINE__ },
		{ 85, 4, 1.1, 99.6, VERDICT_HOLDS, "under 10 ms of CPU: decode 99.6 %", NULL, 99.6, __LINE__ },
		{ 85, 4, 1.1, 99.6, VERDICT_HOLDS, "random_horizontal_flip under 100 us of CPU: 99.0 %", NULL,
		  99.6, __LINE__ },
		{ 85, 4, 1.1, 99.6, VERDICT_HOLDS, "(in wall time, which holds the waits: under 10 ms decode "
		  "70.0 %", NULL, 99.6, __LINE__ },
		/* ... in both directions */
		{ 85, 4, 1.1, 80, VERDICT_DOES_NOT_HOLD, "under 10 ms of CPU: decode 80.0 %", NULL, 80,
		  __LINE__ },
		/* not busy: the wall-time shares decide */
		{ 5, 9.5, 1.1, 99.6, VERDICT_DOES_NOT_HOLD, "under 10 ms: decode 70.0 %", "of CPU", 70,
		  __LINE__ },
		/* others took only what the run left (3 busy threads on 2 CPUs leave
		 * its ops 67 %: on a CPU 61 % is within the guard's 10 %) */
		{ 60, 6.1, 3, 99.6, VERDICT_DOES_NOT_HOLD, "under 10 ms: decode 70.0 %", "of CPU", 70,
		  __LINE__ },
		/* ... 59 % is not */
		{ 60, 5.9, 3, 99.6, VERDICT_HOLDS, "under 10 ms of CPU: decode 99.6 %", NULL, 99.6, __LINE__ },
	};
	(void)state;
	struct judge_ctx cx = { .cpus = 2, .paper = the_paper() };
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char err[512];
		struct sweep s;
		struct finding f;
		if (sweep_read_csv(&s, VERDICTS "short_ops_on_cpu.csv", err, sizeof(err)))
			fail_msg("%s", err);
		assert_int_equal(s.nrows, 1);
		struct sweep_row *r = &s.rows[0];
		r->others_cpu_pct = cases[c].others;
		r->ops_oncpu_s = cases[c].oncpu_s;
		r->busy_threads = cases[c].busy_threads;
		for (size_t o = 0; o < r->nops; o++)
			if (!strcmp(r->ops[o].name, "decode"))
				r->ops[o].oncpu_under_10ms_pct = cases[c].decode_oncpu;
		finding_judge(finding_short_ops, s.rows, s.nrows, &cx, &f);
		if (f.v != cases[c].want || !strstr(f.why, cases[c].why) ||
		    (cases[c].not_why && strstr(f.why, cases[c].not_why)))
			fail_msg("line %d: %s: %s; expected %s with '%s'", cases[c].line,
				 verdict_name(f.v), f.why, verdict_name(cases[c].want), cases[c].why);
		assert_true(f.ntests >= 1);
		assert_true(fabs(f.tests[0].value - cases[c].least) < 1e-9);
		sweep_free(&s);
	}
}

/* Table II's run oversubscribed by its own workers (more busy threads than
 * CPUs), the machine otherwise quiet: its calls waited for a CPU as under
 * other load, so each call's CPU time decides (before: the wall-time shares
 * decided, and 8 workers on 2 CPUs made decode "not short") */
static void test_short_ops_oversubscribed(void **state)
{
	(void)state;
	struct judge_ctx cx = { .cpus = 2, .paper = the_paper() };
	for (int over = 0; over <= 1; over++) {
		char err[512];
		struct sweep s;
		struct finding f;
		if (sweep_read_csv(&s, VERDICTS "short_ops_on_cpu.csv", err, sizeof(err)))
			fail_msg("%s", err);
		struct sweep_row *r = &s.rows[0];
		r->others_cpu_pct = 2;       /* quiet: the noise guard sees nothing */
		r->ops_oncpu_s = 9.5;
		r->busy_threads = 1.1;
		r->oversubscribed = over;
		for (size_t o = 0; o < r->nops; o++)
			if (!strcmp(r->ops[o].name, "decode"))
				r->ops[o].oncpu_under_10ms_pct = 99.6;
		finding_judge(finding_short_ops, s.rows, s.nrows, &cx, &f);
		if (over) {
			if (f.v != VERDICT_HOLDS || !strstr(f.why, "the run was oversubscribed") ||
			    !strstr(f.why, "under 10 ms of CPU: decode 99.6 %") ||
			    strstr(f.why, "its op times include time-slicing"))
				fail_msg("oversubscribed: %s: %s", verdict_name(f.v), f.why);
		} else if (f.v != VERDICT_DOES_NOT_HOLD || strstr(f.why, "of CPU")) {
			fail_msg("not oversubscribed: %s: %s", verdict_name(f.v), f.why);
		}
		sweep_free(&s);
	}
}

/* a one-worker row whose ops were on a CPU oncpu_s of span_s, with its busy
 * threads and usable CPUs */
static void share_row(struct sweep_row *r, double oncpu_s, double span_s, double threads, double cpus)
{
	memset(r, 0, sizeof(*r));
	r->workers = 1;
	r->ops_oncpu_s = oncpu_s;
	r->ops_span_s = span_s;
	r->busy_threads = threads;
	r->cpus_usable = cpus;
}

/* the noise guard's judgement of one run: busy when the hypervisor stole
 * over REPORT_BUSY_PCT, or others took over REPORT_BUSY_PCT and the run's
 * ops were on a CPU less than 90 % of the share its own threads leave them */
static void test_run_busy(void **state)
{
	static const struct {
		double steal, others, oncpu_s, span_s, threads, cpus;
		int busy;
		const char *why;
		int line;
	} cases[] = {
		{ 0, 5, 4, 10, 1, 2, 0, "", __LINE__ },
		{ 0, REPORT_BUSY_PCT, 4, 10, 1, 2, 0, "", __LINE__ },          /* the boundary: not over */
		{ REPORT_BUSY_PCT + 1, 0, 10, 10, 1, 2, 1, "the hypervisor stole 11 %", __LINE__ },
		{ 0, 80, 4, 10, 1, 2, 1, "on a CPU 40 % of their wall time", __LINE__ },
		{ 0, 80, 9, 10, 1, 2, 0, "", __LINE__ },                       /* 90 % of 100 %: not busy */
		{ 0, 80, 8.9, 10, 1, 2, 1, "leave them 100 %", __LINE__ },
		{ 0, 40, 4.5, 10, 4, 2, 0, "", __LINE__ },                     /* 4 threads on 2 CPUs: 50 % */
		{ 0, 40, 4.4, 10, 4, 2, 1, "4.0 busy threads on 2 CPUs leave them 50 %", __LINE__ },
		{ 0, 40, NAN, 10, 1, 2, 1, "not counted: --counters none", __LINE__ },
	};
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sweep_row r;
		char why[320];
		share_row(&r, cases[c].oncpu_s, cases[c].span_s, cases[c].threads, cases[c].cpus);
		r.steal_pct = cases[c].steal;
		r.others_cpu_pct = cases[c].others;
		int b = report_run_busy(&r, 0, why, sizeof(why));
		if (b != cases[c].busy || !strstr(why, cases[c].why))
			fail_msg("line %d: busy %d (%s), expected %d with '%s'", cases[c].line, b, why,
				 cases[c].busy, cases[c].why);
		assert_int_equal(report_run_busy(&r, 0, NULL, 0), b);
	}
}

/* finding 4 leaves out the runs the noise guard saw disturbed, and cannot be
 * judged when a worker count has no other (knee_busy.csv) */
static void test_knee_busy(void **state)
{
	char err[512];
	struct sweep s;
	struct finding f;
	(void)state;
	if (sweep_read_csv(&s, VERDICTS "knee_busy.csv", err, sizeof(err)))
		fail_msg("%s", err);
	judge(KNEE, &s, 4, &f);
	if (f.v != VERDICT_HOLDS || f.knee_workers != 2 ||
	    !strstr(f.why, "E2E falls 48.0 % from 1 to 2 workers (100.00 s to 52.00 s)") ||
	    !strstr(f.why, "3 runs of these worker counts left out: the noise guard saw other load"))
		fail_msg("quiet repeat kept: %s (knee %d): %s", verdict_name(f.v), f.knee_workers, f.why);
	/* every run busy: not judged, with the guard's figures and the E2E seen */
	for (size_t i = 0; i < s.nrows; i++) {
		s.rows[i].others_cpu_pct = 80;
		s.rows[i].ops_oncpu_s = 0.4 * s.rows[i].ops_span_s;
	}
	judge(KNEE, &s, 4, &f);
	if (f.v != VERDICT_CANNOT_JUDGE || !strstr(f.why, "the machine was busy") ||
	    !strstr(f.why, "run w1-b128-g1-r1: others took 80 % of the CPUs") ||
	    !strstr(f.why, "observed, not judged: E2E 100.00 s at 1 worker,"))
		fail_msg("all busy: %s: %s", verdict_name(f.v), f.why);
	/* every run replayed without the other load (the report's
	 * model_replay_quiet): judged on the replays, the measured E2E beside;
	 * the op spans scaled by the on-CPU share over the own share (0.4 / 1) */
	static const double replay[] = { 98, 51, 50, 99, 52, 50 };
	for (size_t i = 0; i < s.nrows; i++)
		s.rows[i].replay_e2e_s = replay[(s.rows[i].repeat - 1) * 3 + (size_t)s.rows[i].workers - 1];
	judge(KNEE, &s, 4, &f);
	if (f.v != VERDICT_HOLDS || f.knee_workers != 2 ||
	    !strstr(f.why, "the knee is at 2 workers: E2E falls 47.7 % from 1 to 2 workers (98.50 s to 51.50 s)") ||
	    !strstr(f.why, "the sum of op spans rises 20.0 % from 1 to 3 workers (4.00 s to 4.80 s)") ||
	    !strstr(f.why, "replayed by the model without the other load") ||
	    !strstr(f.why, "run w1-b128-g1-r1: others took 80 % of the CPUs") ||
	    !strstr(f.why, "measured E2E: 100.00 s at 1 worker, 61.00 s at 2 workers, 47.50 s at 3 workers; "
		    "replayed E2E: 98.50 s at 1 worker, 51.50 s at 2 workers, 50.00 s at 3 workers"))
		fail_msg("all busy, replayed: %s (knee %d): %s", verdict_name(f.v), f.knee_workers, f.why);
	/* one run without a replay (its folder unreadable, --counters none): not judged */
	s.rows[4].replay_e2e_s = NAN;
	judge(KNEE, &s, 4, &f);
	if (f.v != VERDICT_CANNOT_JUDGE || !strstr(f.why, "the machine was busy"))
		fail_msg("a run not replayed: %s: %s", verdict_name(f.v), f.why);
	sweep_free(&s);
}

/* report_run_quiet_scale: the on-CPU share over the share the run's own
 * threads leave it, at most 1; NaN without the on-CPU time */
static void test_quiet_scale(void **state)
{
	static const struct {
		double oncpu_s, span_s, threads, cpus, scale, own;
		int line;
	} cases[] = {
		{ 4, 10, 1, 2, 0.4, 1, __LINE__ },        /* 1 thread on 2 CPUs: own 100 % */
		{ 4, 10, 4, 2, 0.8, 0.5, __LINE__ },      /* 4 threads on 2 CPUs: own 50 % */
		{ 6, 10, 4, 2, 1, 0.5, __LINE__ },        /* more than its own share: 1 */
		{ 5, 10, 4, 2, 1, 0.5, __LINE__ },        /* exactly its own share: 1 */
		{ NAN, 10, 1, 2, NAN, NAN, __LINE__ },    /* --counters none */
		{ 0, 10, 1, 2, NAN, NAN, __LINE__ },      /* never on a CPU: no scale */
	};
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sweep_row r;
		share_row(&r, cases[c].oncpu_s, cases[c].span_s, cases[c].threads, cases[c].cpus);
		double own = NAN, k = report_run_quiet_scale(&r, 0, &own);
		int ok = isnan(cases[c].scale) ? isnan(k) : fabs(k - cases[c].scale) < 1e-12 &&
			 fabs(own - cases[c].own) < 1e-12;
		if (!ok)
			fail_msg("line %d: scale %g own %g, expected %g and %g", cases[c].line, k, own,
				 cases[c].scale, cases[c].own);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_knee),
		cmocka_unit_test(test_paper_figures),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_short_ops_under_load),
		cmocka_unit_test(test_short_ops_on_cpu),
		cmocka_unit_test(test_short_ops_oversubscribed),
		cmocka_unit_test(test_run_busy),
		cmocka_unit_test(test_knee_busy),
		cmocka_unit_test(test_quiet_scale),
		cmocka_unit_test(test_knee_intervals),
		cmocka_unit_test(test_report_repeats),
		cmocka_unit_test(test_enough_batches),
		cmocka_unit_test(test_findings_at_the_minimum),
		cmocka_unit_test(test_load_tiny),
		cmocka_unit_test(test_summary_schema),
		cmocka_unit_test(test_figures_and_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
