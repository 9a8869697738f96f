/* ppbench compare: the table of both sides' figures over the repeats, with
 * each ratio's spread and verdict (compare.md, compare.csv, compare.json's
 * "metrics") (compare.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "log.h"
#include "metrics.h"
#include "compare_int.h"

/* ---- the table ----------------------------------------------------------- */

struct row {
	char metric[96];
	const char *unit;
	double a, b;
};

struct rows {
	struct row *r;
	size_t n, cap;
};

static int add_row(struct rows *t, const char *unit, double a, double b, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int add_row(struct rows *t, const char *unit, double a, double b, const char *fmt, ...)
{
	va_list ap;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct row *r = realloc(t->r, cap * sizeof(*r));
		if (!r)
			return -1;
		t->r = r;
		t->cap = cap;
	}
	struct row *r = &t->r[t->n++];
	va_start(ap, fmt);
	vsnprintf(r->metric, sizeof(r->metric), fmt, ap);
	va_end(ap);
	r->unit = unit;
	r->a = a;
	r->b = b;
	return 0;
}

const struct op_metrics *compare_find_op(const struct run_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->nops; i++)
		if (!strcmp(m->ops[i].name, name))
			return &m->ops[i];
	return NULL;
}

/* An op is per batch (collation) or per image. */
int compare_op_per_batch(const char *lotus_name)
{
	return !strcmp(lotus_name, "SCollation");
}

/* The run figures of the table, side by side (names of metric_table). */
static const char *const compare_metrics[] = {
	"e2e_s", "images_per_s", "images", "batches",
	"ops_span_per_image_ms", "workers_cpu_per_image_ms", "ops_span_s", "workers_cpu_s",
	"main_cpu_s", "preproc_avg_ms", "preproc_std_pct", "preproc_iqr_ms", "ooo_pct",
	"stall_pct", "wait_p50_ms", "wait_p90_ms", "wait_max_ms", "wait_gt_500ms_pct",
	"delay_p50_ms", "delay_p90_ms", "delay_max_ms", "delay_gt_500ms_pct", "gpu_util_pct",
	"worker_rss_mean_kib", "worker_rss_max_kib", "main_max_rss_kib",
};

static int build_rows(const struct compare_side *sa, const struct compare_side *sb, struct rows *t)
{
	const struct run_metrics *a = &sa->m, *b = &sb->m;
	const struct op_metric *mean = op_metric_find("mean_ms"), *p90 = op_metric_find("p90_ms");
	int bad = 0;

	for (size_t i = 0; i < 4; i++) {
		const struct metric *mt = metric_find(compare_metrics[i]);
		bad |= add_row(t, mt->unit, metric_of_run(mt, a), metric_of_run(mt, b), "%s", mt->name);
	}
	/* ops: ppbench's order, then any op only the other side has */
	for (int pass = 0; pass < 2; pass++) {
		const struct run_metrics *x = pass ? b : a, *y = pass ? a : b;
		for (size_t i = 0; i < x->nops; i++) {
			const struct op_metrics *ox = &x->ops[i], *oy = compare_find_op(y, ox->name);
			if (pass && oy)
				continue;
			const struct op_metrics *oa = pass ? oy : ox, *ob = pass ? ox : oy;
			const char *unit = compare_op_per_batch(ox->lotus_name) ? "ms/batch" : "ms/image";
			bad |= add_row(t, unit, oa ? op_metric_of(mean, oa) : NAN,
				       ob ? op_metric_of(mean, ob) : NAN, "op_%s_%s", ox->name, mean->name);
			bad |= add_row(t, unit, oa ? op_metric_of(p90, oa) : NAN,
				       ob ? op_metric_of(p90, ob) : NAN, "op_%s_%s", ox->name, p90->name);
		}
	}
	for (size_t i = 4; i < sizeof(compare_metrics) / sizeof(compare_metrics[0]); i++) {
		const struct metric *mt = metric_find(compare_metrics[i]);
		bad |= add_row(t, mt->unit, metric_of_run(mt, a), metric_of_run(mt, b), "%s", mt->name);
	}
	return bad ? -1 : 0;
}

double compare_ratio(double a, double b)
{
	if (!isfinite(a) || !isfinite(b) || b == 0)
		return NAN;
	return a / b;
}

static void fmt_csv(char *out, size_t n, double v)
{
	if (!isfinite(v))
		out[0] = 0;
	else
		snprintf(out, n, "%.9g", v);
}

/* A number's printf format by its size (the table's one style). */
static const char *fmt_of(double v)
{
	if (fabs(v) >= 1000 || v == floor(v))
		return "%.0f";
	return fabs(v) >= 1 ? "%.3g" : "%.3f";
}

const char *compare_ratio_verdict_of(const struct stats_summary *r, const char *who)
{
	static const char *const words[][3] = {
		{ "ppbench", "ppbench higher", "ppbench lower" },
		{ "fused", "fused higher", "fused lower" },
		{ "faithful", "faithful higher", "faithful lower" },
	};
	size_t w = 0;
	if (r->n < 2 || !isfinite(r->median))
		return "";
	if (r->lo == 1 && r->hi == 1)
		return "same";
	if (r->lo <= 1 && r->hi >= 1)
		return "within noise";
	while (w + 1 < sizeof(words) / sizeof(words[0]) && strcmp(words[w][0], who))
		w++;
	return words[w][r->lo > 1 ? 1 : 2];
}

const char *compare_ratio_verdict(const struct stats_summary *r)
{
	return compare_ratio_verdict_of(r, "ppbench");
}

/* One row over the repeats: each side's values, the per-repeat ratios, and
 * their summaries. */
struct row_rep {
	const struct row *r;          /* repeat 1's row: name, unit */
	double *a, *b, *q;            /* [n] */
	struct stats_summary sa, sb, sq;
};

/* The row named like r0 in t (NULL: that repeat has no such row). */
static const struct row *row_find(const struct rows *t, const struct row *r0, size_t hint)
{
	if (hint < t->n && !strcmp(t->r[hint].metric, r0->metric))
		return &t->r[hint];
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->r[i].metric, r0->metric))
			return &t->r[i];
	return NULL;
}

static int row_combine(const struct rows *reps, size_t n, size_t i, struct row_rep *x)
{
	x->r = &reps[0].r[i];
	x->a = malloc(3 * n * sizeof(double));
	if (!x->a)
		return -1;
	x->b = x->a + n;
	x->q = x->b + n;
	for (size_t k = 0; k < n; k++) {
		const struct row *r = row_find(&reps[k], x->r, i);
		x->a[k] = r ? r->a : NAN;
		x->b[k] = r ? r->b : NAN;
		x->q[k] = compare_ratio(x->a[k], x->b[k]);
	}
	if (stats_summarise(x->a, n, STATS_CI_LEVEL, &x->sa) ||
	    stats_summarise(x->b, n, STATS_CI_LEVEL, &x->sb) ||
	    stats_summarise(x->q, n, STATS_CI_LEVEL, &x->sq)) {
		free(x->a);
		return -1;
	}
	return 0;
}

void compare_fmt_cell(char *out, size_t n, const struct stats_summary *s, const char *fmt)
{
	struct stats_summary one = *s;
	if (!s->n) {
		snprintf(out, n, "-");
		return;
	}
	one.n = s->min == s->max ? 1 : s->n;   /* the same in every repeat: the value alone */
	stats_format(out, n, &one, fmt ? fmt : fmt_of(s->median));
}

static void print_md(FILE *f, const struct row_rep *x, size_t nrows)
{
	fprintf(f, "| metric | unit | ppbench | PyTorch | ppbench / PyTorch |\n");
	fprintf(f, "|---|---|---:|---:|---:|\n");
	for (size_t i = 0; i < nrows; i++) {
		char a[128], b[128], q[160];
		compare_fmt_cell(a, sizeof(a), &x[i].sa, NULL);
		compare_fmt_cell(b, sizeof(b), &x[i].sb, NULL);
		compare_fmt_cell(q, sizeof(q), &x[i].sq, "%.2f");
		const char *v = compare_ratio_verdict(&x[i].sq);
		if (*v && strcmp(v, "same")) {
			size_t l = strlen(q);
			snprintf(q + l, sizeof(q) - l, ", %s", v);
		}
		fprintf(f, "| %s | %s | %s | %s | %s |\n", x[i].r->metric, x[i].r->unit, a, b, q);
	}
}

static void write_csv_rows(FILE *f, const struct row_rep *x, size_t nrows)
{
	fprintf(f, "metric,unit,ppbench,pytorch,ratio,repeats,ppbench_lo,ppbench_hi,pytorch_lo,"
		"pytorch_hi,ratio_lo,ratio_hi,interval,ratio_verdict\n");
	for (size_t i = 0; i < nrows; i++) {
		const struct stats_summary *s[3] = { &x[i].sa, &x[i].sb, &x[i].sq };
		char v[3][3][32];
		for (int k = 0; k < 3; k++) {
			fmt_csv(v[k][0], sizeof(v[k][0]), s[k]->median);
			fmt_csv(v[k][1], sizeof(v[k][1]), s[k]->lo);
			fmt_csv(v[k][2], sizeof(v[k][2]), s[k]->hi);
		}
		csv_put(f, x[i].r->metric);
		csv_put_next(f, x[i].r->unit);
		fprintf(f, ",%s,%s,%s,%zu,%s,%s,%s,%s,%s,%s,%s,%s\n", v[0][0], v[1][0], v[2][0],
			x[i].sq.n, v[0][1], v[0][2], v[1][1], v[1][2], v[2][1], v[2][2],
			x[i].sq.has_ci ? "ci95" : "min-max", compare_ratio_verdict(&x[i].sq));
	}
}

static json_t *values_json(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a, isfinite(v[k]) ? json_real(v[k]) : json_null());
	return a;
}

static json_t *rows_json(const struct row_rep *x, size_t nrows, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < nrows; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "metric", json_string(x[i].r->metric));
		json_object_set_new(o, "unit", json_string(x[i].r->unit));
		json_object_set_new(o, "ppbench", values_json(x[i].a, n));
		json_object_set_new(o, "pytorch", values_json(x[i].b, n));
		json_object_set_new(o, "ratio", values_json(x[i].q, n));
		json_object_set_new(o, "ppbench_summary", stats_summary_json(&x[i].sa));
		json_object_set_new(o, "pytorch_summary", stats_summary_json(&x[i].sb));
		json_object_set_new(o, "ratio_summary", stats_summary_json(&x[i].sq));
		json_object_set_new(o, "ratio_verdict", json_string(compare_ratio_verdict(&x[i].sq)));
		json_array_append_new(arr, o);
	}
	return arr;
}

static int write_md_file(const char *path, const struct compare_side *a,
			 const struct compare_side *b, size_t n, const struct row_rep *x,
			 size_t nrows, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# ppbench and PyTorch side by side\n\n");
	fprintf(f, "- ppbench: %s\n- PyTorch: %s%s%s\n", a->versions, b->versions,
		b->cpu_capability[0] ? ", ATen CPU capability " : "", b->cpu_capability);
	if (n > 1)
		fprintf(f, "- %zu repeats of both sides: each figure is the median with %s; the "
			"ratio is the median of the repeats' ratios, \"within noise\" when its "
			"interval holds 1\n", n, n >= 6 ? "its " STATS_CI_METHOD " in brackets" :
			"its (min, max) (fewer than 6 repeats: no confidence interval)");
	fprintf(f, "\n");
	print_md(f, x, nrows);
	if (ferror(f) | fclose(f)) {
		errf(err, errlen, "cannot write '%s'", path);
		return -1;
	}
	return 0;
}

int compare_write_table(const struct compare_side *a, const struct compare_side *b, size_t n,
			const char *md_path, const char *csv_path, json_t *into, FILE *echo,
			char *err, size_t errlen)
{
	struct rows *reps = calloc(n ? n : 1, sizeof(*reps));
	struct row_rep *x = NULL;
	size_t nx = 0;
	int rc = -1;
	FILE *f;

	if (!reps || !n)
		goto oom;
	for (size_t k = 0; k < n; k++)
		if (build_rows(&a[k], &b[k], &reps[k]))
			goto oom;
	x = calloc(reps[0].n ? reps[0].n : 1, sizeof(*x));
	if (!x)
		goto oom;
	for (; nx < reps[0].n; nx++)
		if (row_combine(reps, n, nx, &x[nx]))
			goto oom;
	if (echo)
		print_md(echo, x, nx);
	if (md_path && write_md_file(md_path, a, b, n, x, nx, err, errlen))
		goto out;
	if (csv_path) {
		f = fopen(csv_path, "w");
		if (!f) {
			errf(err, errlen, "cannot write '%s': %s", csv_path, strerror(errno));
			goto out;
		}
		write_csv_rows(f, x, nx);
		if (ferror(f) | fclose(f)) {
			errf(err, errlen, "cannot write '%s'", csv_path);
			goto out;
		}
	}
	if (into)
		json_object_set_new(into, "metrics", rows_json(x, nx, n));
	rc = 0;
	goto out;
oom:
	errf(err, errlen, "out of memory");
out:
	for (size_t i = 0; i < nx; i++)
		free(x[i].a);
	free(x);
	for (size_t k = 0; reps && k < n; k++)
		free(reps[k].r);
	free(reps);
	return rc;
}

