/* ppbench compare: the PyTorch side's logs (and a ppbench run of the same
 * configuration) read back from the stored sample in tests/fixtures/compare
 * (scripts/fixtures_compare.py) and measured by the analysis, against the
 * figures the fixture script computed from the files; the table; the
 * tensor comparison of the fidelity check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "compare.h"
#include "npy.h"
#include "pipeline.h"
#include "stats.h"

#define FIX "tests/fixtures/compare"

static json_t *expected(const char *side)
{
	json_error_t je;
	json_t *all = json_load_file(FIX "/expected.json", 0, &je);
	if (!all)
		fail_msg("cannot read " FIX "/expected.json: %s", je.text);
	json_t *e = json_incref(json_object_get(all, side));
	json_decref(all);
	assert_non_null(e);
	return e;
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_number(v))
		fail_msg("expected.json: no number '%s'", k);
	return json_number_value(v);
}

/* |a - b| within a relative 1e-9 (the files hold integers; sums in doubles) */
static void assert_close(double a, double b)
{
	if (fabs(a - b) > 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b))))
		fail_msg("%.17g != %.17g", a, b);
}

/* a figure printed with 9 significant digits */
static void assert_printed(double printed, double exact)
{
	if (fabs(printed - exact) > 1e-8 * fmax(1e-9, fabs(exact)))
		fail_msg("%.17g != %.17g", printed, exact);
}

static const struct op_metrics *op_by_lotus(const struct run_metrics *m, const char *lotus)
{
	for (size_t i = 0; i < m->nops; i++)
		if (!strcmp(m->ops[i].lotus_name, lotus))
			return &m->ops[i];
	return NULL;
}

/* Every figure expected.json holds, against the analysis of the side. */
static void check_side(const struct compare_side *s, const json_t *e)
{
	const struct run_metrics *m = &s->m;

	assert_int_equal(m->images, (uint64_t)num(e, "images"));
	assert_int_equal(m->batches, (uint64_t)num(e, "batches"));
	assert_close(m->e2e_s, num(e, "e2e_s"));
	const char *name;
	json_t *v;
	size_t nops = 0;
	json_object_foreach(json_object_get(e, "ops"), name, v) {
		const struct op_metrics *o = op_by_lotus(m, name);
		if (!o)
			fail_msg("op %s not in the metrics", name);
		assert_int_equal(o->st.n, (size_t)num(v, "count"));
		assert_close(o->st.mean, num(v, "mean_ns"));
		nops++;
	}
	assert_int_equal(nops, m->nops);
	assert_int_equal(m->preproc_all.n, (size_t)num(e, "preproc_count"));
	assert_close(m->preproc_all.mean, num(e, "preproc_all_mean_ns"));
	assert_int_equal(m->wait_events, (size_t)num(e, "wait_records"));
	assert_int_equal(m->ooo_batches, (size_t)num(e, "ooo_batches"));
	assert_true(m->ooo_batches > 0);   /* the sample holds markers */
	assert_close(m->wait_total_s, num(e, "wait_total_s"));
	assert_close(m->stall_pct, num(e, "stall_pct"));
	assert_close(m->delay.mean, num(e, "delay_mean_ns"));
	assert_close(m->workers_cpu_s, num(e, "workers_cpu_s"));
	json_t *rss = json_object_get(e, "worker_maxrss_kib");
	assert_non_null(m->worker_maxrss_kib);
	for (int w = 0; w < m->workers; w++)
		assert_int_equal(m->worker_maxrss_kib[w],
				 json_integer_value(json_array_get(rss, (size_t)w)));
	/* every batch in its worker: k mod W (round-robin dispatch) */
	json_t *wob = json_object_get(e, "worker_of_batch");
	assert_int_equal(m->nbatches, json_array_size(wob));
	for (size_t i = 0; i < m->nbatches; i++) {
		assert_int_equal(m->rows[i].id, (int64_t)i);
		assert_int_equal(m->rows[i].worker, json_integer_value(json_array_get(wob, i)));
		assert_int_equal(m->rows[i].worker, (int)(i % (size_t)m->workers));
		assert_int_equal(m->rows[i].samples, 3);
	}
	assert_true(s->complete);
}

static void load_pipe(struct pipeline *p)
{
	char err[512];
	if (pipeline_load(p, "imagenet_train", err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_read_torch_sample(void **state)
{
	(void)state;
	struct pipeline p;
	struct compare_side s;
	char err[4096];
	load_pipe(&p);
	if (compare_read_torch(FIX "/pytorch", &p, &s, err, sizeof(err)))
		fail_msg("%s", err);
	json_t *e = expected("pytorch");
	check_side(&s, e);
	assert_string_equal(s.name, "pytorch");
	assert_int_equal(s.pin_effective, 0);           /* no CUDA: pin_memory dropped */
	assert_true(s.cpu_capability[0] != 0);
	assert_non_null(strstr(s.versions, "torch 1.13"));
	/* ops keyed by ppbench's op ids, in pipeline order */
	assert_string_equal(s.m.ops[0].name, "decode");
	assert_string_equal(s.m.ops[0].lotus_name, "SLoader");
	assert_string_equal(s.m.ops[1].name, "random_resized_crop");
	/* the GPU from the SGpuCopy/SGpuStep events of the ppbench_gpu file */
	assert_true(s.m.gpu_busy_s > 0 && s.m.gpu_util_pct > 0 && s.m.gpu_util_pct < 100);
	json_decref(e);
	compare_side_free(&s);
	pipeline_release(&p);
}

static void test_read_ppbench_sample(void **state)
{
	(void)state;
	struct pipeline p;
	struct compare_side s;
	char err[4096];
	load_pipe(&p);
	if (compare_read_ppbench(FIX "/ppbench", &p, &s, err, sizeof(err)))
		fail_msg("%s", err);
	json_t *e = expected("ppbench");
	check_side(&s, e);
	assert_int_equal(s.pin_effective, 1);
	assert_int_equal(s.cpu_capability[0], 0);
	json_decref(e);
	compare_side_free(&s);
	pipeline_release(&p);
}

static void test_read_errors(void **state)
{
	(void)state;
	struct compare_side s;
	char err[4096] = "";
	assert_int_equal(compare_read_torch("tests/fixtures/compare/nope", NULL, &s, err,
					    sizeof(err)), -1);
	assert_non_null(strstr(err, "tests/fixtures/compare/nope/config.json"));
	/* a ppbench folder is not a PyTorch folder */
	assert_int_equal(compare_read_torch(FIX "/ppbench", NULL, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "config.json"));
	assert_int_equal(compare_read_ppbench(FIX "/pytorch", NULL, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "summary.json"));
}

/* the table: both sides, ratio ppbench / PyTorch */
static void test_table(void **state)
{
	(void)state;
	struct pipeline p;
	struct compare_side a, b;
	char err[4096], dir[] = "/tmp/ppbench-test-compare.XXXXXX", md[128], csv[128];
	load_pipe(&p);
	assert_int_equal(compare_read_ppbench(FIX "/ppbench", &p, &a, err, sizeof(err)), 0);
	assert_int_equal(compare_read_torch(FIX "/pytorch", &p, &b, err, sizeof(err)), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(md, sizeof(md), "%s/compare.md", dir);
	snprintf(csv, sizeof(csv), "%s/compare.csv", dir);
	if (compare_write_table(&a, &b, 1, md, csv, NULL, NULL, err, sizeof(err)))
		fail_msg("%s", err);

	FILE *f = fopen(csv, "r");
	assert_non_null(f);
	char line[512];
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "metric,unit,ppbench,pytorch,ratio,repeats,ppbench_lo,ppbench_hi,"
			    "pytorch_lo,pytorch_hi,ratio_lo,ratio_hi,interval,ratio_verdict\n");
	int rows = 0, e2e = 0, ops = 0, rss = 0;
	while (fgets(line, sizeof(line), f)) {
		rows++;
		char metric[128], unit[32];
		double x, y, q;
		if (sscanf(line, "%127[^,],%31[^,],%lf,%lf,%lf", metric, unit, &x, &y, &q) == 5) {
			assert_printed(q, x / y);
			if (!strcmp(metric, "e2e_s")) {
				e2e = 1;
				assert_printed(x, a.m.e2e_s);
				assert_printed(y, b.m.e2e_s);
			}
			if (!strcmp(unit, "ms/image") && strstr(metric, "_mean_ms"))
				ops++;
			if (!strcmp(metric, "worker_rss_max_kib"))
				rss = 1;
		}
	}
	fclose(f);
	assert_true(e2e && rss);
	assert_int_equal(ops, 6);      /* 5 per-image ops + STransform */
	assert_true(rows > 30);

	f = fopen(md, "r");
	assert_non_null(f);
	int header = 0;
	while (fgets(line, sizeof(line), f))
		header |= !strcmp(line, "| metric | unit | ppbench | PyTorch | ppbench / PyTorch |\n");
	fclose(f);
	assert_true(header);

	/* three repeats (the same sides thrice): medians, per-repeat values in
	 * the JSON, ratios "same" or with their spread */
	struct compare_side as[3] = { a, a, a }, bs[3] = { b, b, b };
	json_t *j = json_object();
	if (compare_write_table(as, bs, 3, NULL, csv, j, NULL, err, sizeof(err)))
		fail_msg("%s", err);
	json_t *ms = json_object_get(j, "metrics");
	assert_true(json_array_size(ms) > 30);
	int found = 0;
	for (size_t i = 0; i < json_array_size(ms); i++) {
		json_t *m = json_array_get(ms, i);
		if (strcmp(json_string_value(json_object_get(m, "metric")), "e2e_s"))
			continue;
		found = 1;
		assert_int_equal(json_array_size(json_object_get(m, "ppbench")), 3);
		assert_int_equal(json_array_size(json_object_get(m, "ratio")), 3);
		json_t *rs = json_object_get(m, "ratio_summary");
		assert_int_equal(json_integer_value(json_object_get(rs, "n")), 3);
		assert_printed(json_real_value(json_object_get(rs, "median")), a.m.e2e_s / b.m.e2e_s);
		assert_string_equal(json_string_value(json_object_get(rs, "interval")), "min-max");
	}
	assert_true(found);
	json_decref(j);
	f = fopen(csv, "r");
	assert_non_null(f);
	int images = 0;
	while (fgets(line, sizeof(line), f))
		images |= !strncmp(line, "images,count,", 13) && strstr(line, ",3,") &&
			  strstr(line, ",min-max,same\n");
	fclose(f);
	assert_true(images);
	unlink(md);
	unlink(csv);
	rmdir(dir);
	compare_side_free(&a);
	compare_side_free(&b);
	pipeline_release(&p);
}

/* what the repeats' ratios say */
static void test_ratio_verdict(void **state)
{
	(void)state;
	struct stats_summary s;
	assert_int_equal(stats_summarise((double[]){ 1.2 }, 1, STATS_CI_LEVEL, &s), 0);
	assert_string_equal(compare_ratio_verdict(&s), "");
	assert_int_equal(stats_summarise((double[]){ 1, 1, 1 }, 3, STATS_CI_LEVEL, &s), 0);
	assert_string_equal(compare_ratio_verdict(&s), "same");
	assert_int_equal(stats_summarise((double[]){ 1.1, 1.3, 1.2 }, 3, STATS_CI_LEVEL, &s), 0);
	assert_string_equal(compare_ratio_verdict(&s), "ppbench higher");
	assert_int_equal(stats_summarise((double[]){ 0.8, 0.9, 0.85 }, 3, STATS_CI_LEVEL, &s), 0);
	assert_string_equal(compare_ratio_verdict(&s), "ppbench lower");
	assert_int_equal(stats_summarise((double[]){ 0.95, 1.1, 1.02 }, 3, STATS_CI_LEVEL, &s), 0);
	assert_string_equal(compare_ratio_verdict(&s), "within noise");
}

/* ---- tensors ---- */

static void put_batch(const char *dir, int id, const float *img, size_t n, const float *lab)
{
	char p[256], err[512];
	size_t shape[4] = { n, 3, 2, 2 };
	snprintf(p, sizeof(p), "%s/batch_%d.npy", dir, id);
	assert_int_equal(npy_write(p, "<f4", shape, 4, img, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/labels_%d.npy", dir, id);
	assert_int_equal(npy_write(p, "<f4", shape, 1, lab, err, sizeof(err)), 0);
}

static void rm_batches(const char *dir, int n)
{
	char p[256];
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/batch_%d.npy", dir, i);
		unlink(p);
		snprintf(p, sizeof(p), "%s/labels_%d.npy", dir, i);
		unlink(p);
	}
	rmdir(dir);
}

static void test_tensors(void **state)
{
	(void)state;
	char a[] = "/tmp/ppbench-test-fa.XXXXXX", b[] = "/tmp/ppbench-test-fb.XXXXXX";
	char err[1024];
	float img[2][24], lab[2] = { 3, 1 };
	struct compare_fidelity f;

	assert_non_null(mkdtemp(a));
	assert_non_null(mkdtemp(b));
	for (int i = 0; i < 24; i++)
		img[0][i] = img[1][i] = (float)i / 7.0f - 1.5f;
	for (int id = 0; id < 2; id++) {
		put_batch(a, id, img[id], 2, lab);
		put_batch(b, id, img[id], 2, lab);
	}
	assert_int_equal(compare_tensors(a, b, 2, &f, err, sizeof(err)), 0);
	assert_int_equal(f.batches, 2);
	assert_int_equal(f.images, 4);
	assert_int_equal(f.values, 48);
	assert_int_equal(f.differing, 0);
	assert_int_equal(f.first_batch, -1);
	assert_true(f.labels_equal);
	assert_true(f.max_abs == 0);

	/* one value of the second sample of batch 1, and one ulp elsewhere */
	img[1][12 + 5] += 0.25f;
	img[1][20] = nextafterf(img[1][20], 10.0f);
	put_batch(b, 1, img[1], 2, lab);
	assert_int_equal(compare_tensors(a, b, 2, &f, err, sizeof(err)), 0);
	assert_int_equal(f.differing, 2);
	assert_int_equal(f.first_batch, 1);
	assert_int_equal(f.first_sample, 1);
	assert_true(fabs(f.max_abs - 0.25) < 1e-6);
	assert_true(f.labels_equal);

	/* labels */
	put_batch(b, 1, img[0], 2, (float[]){ 3, 2 });
	put_batch(b, 0, img[0], 2, lab);
	assert_int_equal(compare_tensors(a, b, 2, &f, err, sizeof(err)), 0);
	assert_false(f.labels_equal);
	assert_int_equal(f.first_batch, 1);

	/* a batch of another size */
	put_batch(b, 0, img[0], 1, lab);
	assert_int_equal(compare_tensors(a, b, 1, &f, err, sizeof(err)), 0);
	assert_int_equal(f.first_batch, 0);
	assert_true(f.shape_note[0] != 0);

	/* a missing batch is an error naming the file */
	assert_int_equal(compare_tensors(a, b, 3, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "batch_2.npy"));

	rm_batches(a, 2);
	rm_batches(b, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_torch_sample),
		cmocka_unit_test(test_read_ppbench_sample),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_ratio_verdict),
		cmocka_unit_test(test_tensors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
