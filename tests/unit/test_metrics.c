/* The metric table (bench/results/metrics.h) and the statistics of repeats
 * (bench/util/stats.h, bench/results/repeats.h).
 *
 * The table: names carry their units; summary.json as the writer makes it
 * holds exactly the table's keys (a renamed key is a failure here, never a
 * NaN in a report); every figure reads back identically through
 * summary.json, the report's row and summary.csv. The statistics: medians,
 * intervals and target verdicts on inputs whose answer is known. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "analysis.h"
#include "emit.h"
#include "describe.h"
#include "imagefolder.h"
#include "metrics.h"
#include "repeats.h"
#include "report.h"
#include "stats.h"
#include "tracebuild.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* the unit a name must end with */
static const char *suffix_of(const char *unit)
{
	static const struct {
		const char *unit, *suffix;
	} u[] = {
		{ "s", "_s" }, { "ms", "_ms" }, { "us", "_us" }, { "ns", "_ns" }, { "%", "_pct" }, { "KiB", "_kib" },
		{ "B", "_bytes" }, { "GB/s", "_gb_per_s" }, { "images/s", "_per_s" },
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (!strcmp(u[i].unit, unit))
			return u[i].suffix;
	return NULL;
}

static void test_names_carry_units(void **state)
{
	(void)state;
	for (size_t i = 0; i < metric_count; i++) {
		const struct metric *m = &metric_table[i];
		const char *sfx = suffix_of(m->unit);
		assert_non_null(m->def);
		assert_true(strlen(m->def) > 10);
		if (!sfx)
			continue;   /* counts */
		if (!ends_with(m->json, sfx) && !(!strcmp(m->unit, "B") && ends_with(m->json, "_bytes")))
			fail_msg("%s: JSON key '%s' does not end in %s", m->name, m->json, sfx);
		if (!ends_with(m->name, sfx) && !(!strcmp(m->unit, "B") && ends_with(m->name, "_bytes")))
			fail_msg("%s: CSV column does not end in %s", m->name, sfx);
	}
	for (size_t i = 0; i < op_metric_count; i++) {
		const struct op_metric *m = &op_metric_table[i];
		const char *sfx = suffix_of(m->unit);
		if (sfx && !ends_with(m->name, sfx))
			fail_msg("op figure %s does not end in %s", m->name, sfx);
	}
	/* names are unique */
	for (size_t i = 0; i < metric_count; i++)
		for (size_t j = i + 1; j < metric_count; j++) {
			assert_string_not_equal(metric_table[i].name, metric_table[j].name);
			assert_string_not_equal(metric_table[i].json, metric_table[j].json);
		}
	/* metric_find gives each row by its own name (the first match would
	 * hide a later row of the same name), and a known row is where the
	 * docs say: ooo_pct is main.out_of_order_pct in %, e2e_s is e2e_s */
	for (size_t i = 0; i < metric_count; i++)
		if (metric_find(metric_table[i].name) != &metric_table[i])
			fail_msg("metric_find(\"%s\") is not row %zu", metric_table[i].name, i);
	for (size_t i = 0; i < op_metric_count; i++)
		if (op_metric_find(op_metric_table[i].name) != &op_metric_table[i])
			fail_msg("op_metric_find(\"%s\") is not row %zu", op_metric_table[i].name, i);
	const struct metric *ooo = metric_find("ooo_pct");
	assert_string_equal(ooo->name, "ooo_pct");
	assert_string_equal(ooo->json, "main.out_of_order_pct");
	assert_string_equal(ooo->unit, "%");
	assert_int_equal(ooo->combine, COMBINE_MEDIAN);
	assert_string_equal(metric_find("e2e_s")->json, "e2e_s");
	assert_string_equal(metric_find("ops_oncpu_s")->json, "cpu.ops_oncpu_s");
}

/* a run with counters on its first op, written as summary.json */
static json_t *summary_of_fx(struct run_metrics *m)
{
	static struct fx f;
	struct analysis_opts o;
	char err[256];
	struct counter_derived d[2];
	uint64_t regions[2] = { 8, 0 };

	memset(d, 0, sizeof(d));
	d[0].oncpu_ns = 30e6;
	d[0].wall_ns = 36e6;
	d[0].descheduled_ns = 6e6;
	d[0].oncpu_pct = 100.0 * 30 / 36;
	d[0].ipc = d[0].cache_mpki = d[0].branch_mpki = NAN;
	d[0].frontend_stall_pct = d[0].backend_stall_pct = NAN;
	fx_build(&f);
	o = fx_opts();
	o.op_counted = d;
	o.op_regions = regions;
	o.checksum_ns = 1000;
	o.checksum_bytes = 4000;
	assert_int_equal(analysis_compute(&f.t, &o, m, err, sizeof(err)), 0);
	json_t *blocks = json_pack("{s:{s:i}, s:{s:s}}", "options", "workers", 2, "machine",
				   "hostname", "x");
	/* the dataset block as run writes it (a folder that was not generated) */
	struct dataset ds = { .root = "/nonexistent/ppbench-ds", .n = 3, .nclasses = 1 };
	json_object_set_new(blocks, "dataset", dataset_json(&ds));
	struct results_in in = { .m = m, .blocks = blocks };
	json_t *s = results_summary_json(&in);
	json_decref(blocks);
	assert_non_null(s);
	return s;
}

static void test_summary_keys_are_the_table(void **state)
{
	struct run_metrics m;
	char err[1024];
	(void)state;

	json_t *s = summary_of_fx(&m);
	if (metrics_check_summary(s, err, sizeof(err)))
		fail_msg("%s", err);
	/* a counted op has its on-CPU figures; a figure not measured is null */
	assert_true(fabs(metric_json_get(s, "ops.decode.oncpu_s") - 0.030) < 1e-12);
	assert_true(json_is_null(json_object_get(json_object_get(json_object_get(s, "ops"),
								 "decode"), "ipc")));
	assert_true(json_is_null(json_object_get(json_object_get(json_object_get(s, "ops"),
								 "random_horizontal_flip"), "oncpu_s")));

	/* an unknown key and a missing figure are both found */
	json_object_set_new(json_object_get(s, "main"), "out_of_order_share", json_real(1));
	json_object_del(json_object_get(s, "gpu"), "busy_s");
	json_object_set_new(json_object_get(json_object_get(s, "ops"), "decode"), "cpu_s", json_real(1));
	assert_int_equal(metrics_check_summary(s, err, sizeof(err)), 3);
	assert_non_null(strstr(err, "unknown key 'main.out_of_order_share'"));
	assert_non_null(strstr(err, "missing 'gpu.busy_s'"));
	assert_non_null(strstr(err, "unknown key 'ops.decode.cpu_s'"));
	json_decref(s);
	analysis_free(&m);
}

/* summary.json -> the report's row -> summary.csv -> row: identical */
static void test_read_back_identically(void **state)
{
	struct run_metrics m;
	struct sweep sw, back;
	char dir[] = "/tmp/ppbench-metrics-XXXXXX", path[256], err[512];
	(void)state;

	json_t *s = summary_of_fx(&m);
	/* through the file, as the readers see it */
	char *text = json_dumps(s, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(METRIC_JSON_PRECISION));
	json_t *j = json_loads(text, 0, NULL);
	free(text);
	memset(&sw, 0, sizeof(sw));
	sw.nrows = 1;
	sw.rows = calloc(1, sizeof(*sw.rows));
	sweep_row_init(&sw.rows[0]);
	snprintf(sw.rows[0].status, sizeof(sw.rows[0].status), "%s", RUN_OK);
	sweep_row_from_summary(&sw.rows[0], j);
	for (size_t i = 0; i < metric_count; i++) {
		const struct metric *mt = &metric_table[i];
		if (mt->src != MSRC_RUN)
			continue;
		double want = metric_of_run(mt, &m), got = metric_row_get(mt, &sw.rows[0]);
		char buf[64];
		snprintf(buf, sizeof(buf), METRIC_NUM_FMT, want);
		if (isfinite(want) ? got != strtod(buf, NULL) : !isnan(got))
			fail_msg("%s: %.17g in the run, %.17g read back", mt->name, want, got);
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	assert_int_equal(sweep_write_csv(&sw, path, err, sizeof(err)), 0);
	assert_int_equal(sweep_read_csv(&back, path, err, sizeof(err)), 0);
	for (size_t i = 0; i < metric_count; i++) {
		double a = metric_row_get(&metric_table[i], &sw.rows[0]);
		double b = metric_row_get(&metric_table[i], &back.rows[0]);
		if (isnan(a) != isnan(b) || (!isnan(a) && a != b))
			fail_msg("%s: %.17g in summary.json, %.17g in summary.csv", metric_table[i].name, a, b);
	}
	for (size_t k = 0; k < sw.rows[0].nops; k++)
		for (size_t i = 0; i < op_metric_count; i++) {
			const struct sweep_op *x = &sw.rows[0].ops[k];
			const struct sweep_op *y = sweep_row_op(&back.rows[0], x->name);
			assert_non_null(y);
			double a = op_metric_get(&op_metric_table[i], x), b = op_metric_get(&op_metric_table[i], y);
			if (isnan(a) != isnan(b) || (!isnan(a) && a != b))
				fail_msg("op %s %s: %.17g, %.17g", x->name, op_metric_table[i].name, a, b);
		}
	unlink(path);
	rmdir(dir);
	sweep_free(&back);
	sweep_free(&sw);
	json_decref(j);
	json_decref(s);
	analysis_free(&m);
}

static void test_median_ci(void **state)
{
	(void)state;
	struct stats_summary s;
	double cov;

	/* the binomial ranks: n = 5 has no 95 % interval, n = 6 has [x1, x6] */
	assert_int_equal(stats_median_ci_rank(5, 0.95, &cov), 0);
	assert_int_equal(stats_median_ci_rank(6, 0.95, &cov), 1);
	assert_true(fabs(cov - (1 - 2.0 / 64)) < 1e-12);
	assert_int_equal(stats_median_ci_rank(10, 0.95, &cov), 2);   /* P(B<2) = 11/1024 */
	assert_true(fabs(cov - (1 - 22.0 / 1024)) < 1e-12);
	assert_int_equal(stats_median_ci_rank(20, 0.95, &cov), 6);   /* P(B<6) = 0.0207 */
	assert_int_equal(stats_median_ci_rank(100, 0.95, &cov), 40); /* the classic 40th and 61st */

	double v[10] = { 9, 1, 8, 2, 7, 3, 6, 4, 5, 10 };
	assert_int_equal(stats_summarise(v, 10, 0.95, &s), 0);
	assert_int_equal(s.n, 10);
	assert_true(s.median == 5.5 && s.min == 1 && s.max == 10);
	assert_true(s.has_ci && s.lo == 2 && s.hi == 9);

	double w[4] = { 3, NAN, 1, 2 };
	assert_int_equal(stats_summarise(w, 4, 0.95, &s), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.median == 2 && !s.has_ci && s.lo == 1 && s.hi == 3);

	char buf[64];
	stats_format(buf, sizeof(buf), &s, "%.1f");
	assert_string_equal(buf, "2.0 (min 1.0, max 3.0, n=3)");
	assert_int_equal(stats_summarise(v, 10, 0.95, &s), 0);
	stats_format(buf, sizeof(buf), &s, "%.2f");
	assert_string_equal(buf, "5.50 [2.00, 9.00]");

	assert_int_equal(stats_summarise(v, 0, 0.95, &s), 0);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));
}

static void test_targets(void **state)
{
	(void)state;
	struct stats_summary s = { .n = 6, .median = 1.0, .lo = 0.98, .hi = 1.03, .has_ci = 1 };
	/* at most 1.05: the whole interval is below: met */
	assert_int_equal(stats_judge(&s, 1.05, 1), TARGET_MET);
	/* at most 1.0: the interval straddles: within noise */
	assert_int_equal(stats_judge(&s, 1.0, 1), TARGET_WITHIN_NOISE);
	/* at most 0.95: wholly above: not met */
	assert_int_equal(stats_judge(&s, 0.95, 1), TARGET_NOT_MET);
	/* at least 0.9 (higher is better): met; at least 1.1: not met */
	assert_int_equal(stats_judge(&s, 0.9, 0), TARGET_MET);
	assert_int_equal(stats_judge(&s, 1.1, 0), TARGET_NOT_MET);
	assert_int_equal(stats_judge(&s, 1.0, 0), TARGET_WITHIN_NOISE);
	assert_string_equal(stats_target_name(TARGET_WITHIN_NOISE), "within noise");
	struct stats_summary t = { .n = 6, .median = 1.2, .lo = 1.1, .hi = 1.3, .has_ci = 1 };
	assert_true(stats_differ(&s, &t));
	t.lo = 1.02;
	assert_false(stats_differ(&s, &t));
	struct stats_summary none = { 0 };
	assert_int_equal(stats_judge(&none, 1, 1), TARGET_UNKNOWN);
}

/* repeats: median per figure, the same figure that differs is reported */
static void test_repeats(void **state)
{
	(void)state;
	struct sweep_row r[3];
	const struct sweep_row *p[3] = { &r[0], &r[1], &r[2] };
	struct combined c;
	double e2e[3] = { 10, 12, 11 };

	for (int i = 0; i < 3; i++) {
		sweep_row_init(&r[i]);
		r[i].e2e_s = e2e[i];
		r[i].images = 100;
		snprintf(r[i].checksum, sizeof(r[i].checksum), "abc");
		r[i].nops = 1;
		memset(&r[i].ops[0], 0, sizeof(r[i].ops[0]));
		snprintf(r[i].ops[0].name, sizeof(r[i].ops[0].name), "decode");
		for (size_t k = 0; k < op_metric_count; k++)
			*op_metric_field(&op_metric_table[k], &r[i].ops[0]) = NAN;
		r[i].ops[0].mean_ms = 1 + i;
	}
	assert_int_equal(repeats_combine(p, 3, &c), 0);
	assert_true(c.r.e2e_s == 11);
	assert_true(combined_spread(&c, "e2e_s")->min == 10);
	assert_true(combined_spread(&c, "e2e_s")->max == 12);
	assert_true(c.r.images == 100);
	assert_false(c.same_differs);
	assert_true(sweep_row_op(&c.r, "decode")->mean_ms == 2);
	r[2].images = 99;
	assert_int_equal(repeats_combine(p, 3, &c), 0);
	assert_true(c.same_differs);
	assert_string_equal(c.same_what, "images");
	r[2].images = 100;
	snprintf(r[1].checksum, sizeof(r[1].checksum), "abd");
	assert_int_equal(repeats_combine(p, 3, &c), 0);
	assert_string_equal(c.same_what, "checksum");
}

/* docs/metrics.md is what `ppbench metrics --markdown` prints */
static void test_docs_match(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	metrics_print(f, 1);
	fclose(f);
	FILE *d = fopen("docs/metrics.md", "r");
	if (!d)
		fail_msg("docs/metrics.md is missing: bench/ppbench metrics --markdown > docs/metrics.md");
	char *doc = calloc(1, len + 2);
	size_t n = fread(doc, 1, len + 1, d);
	fclose(d);
	if (n != len || memcmp(doc, buf, len))
		fail_msg("docs/metrics.md is out of date: bench/ppbench metrics --markdown > docs/metrics.md");
	free(doc);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_carry_units),
		cmocka_unit_test(test_summary_keys_are_the_table),
		cmocka_unit_test(test_read_back_identically),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_docs_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
