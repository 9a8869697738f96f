/* ppbench compare: the same configuration through ppbench and through the
 * real PyTorch DataLoader (scripts/torch_side.py), side by side (compare.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "analysis.h"
#include "commands.h"
#include "compare.h"
#include "fsutil.h"
#include "describe.h"
#include "plot.h"
#include "emit.h"
#include "escape.h"
#include "log.h"
#include "subprocess.h"
#include "machine.h"
#include "metrics.h"
#include "noise.h"
#include "npy.h"
#include "pipeline.h"
#include "report.h"
#include "stats.h"
#include "resdir.h"

#define DEFAULT_PYTHON "/usr/bin/python3"
#define INSTALL_HINT "scripts/install-deps.sh --oracle"

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

static const struct op_metrics *find_op(const struct run_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->nops; i++)
		if (!strcmp(m->ops[i].name, name))
			return &m->ops[i];
	return NULL;
}

/* An op is per batch (collation) or per image. */
static int op_per_batch(const char *lotus_name)
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
			const struct op_metrics *ox = &x->ops[i], *oy = find_op(y, ox->name);
			if (pass && oy)
				continue;
			const struct op_metrics *oa = pass ? oy : ox, *ob = pass ? ox : oy;
			const char *unit = op_per_batch(ox->lotus_name) ? "ms/batch" : "ms/image";
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

static double ratio(double a, double b)
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
		x->q[k] = ratio(x->a[k], x->b[k]);
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

/* ---- figures ------------------------------------------------------------- */

/* series,series_label,x_ms,cum_pct: the CDF of a batch figure per side.
 * what: 0 in-order wait, 1 delay, 2 batch preprocessing. */
static int write_cdf(const char *path, const struct compare_side *const *side, int what)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "series,series_label,x_ms,cum_pct\n");
	for (int s = 0; s < 2; s++) {
		const struct run_metrics *m = &side[s]->m;
		double *v = malloc((m->nbatches ? m->nbatches : 1) * sizeof(*v));
		size_t n = 0;
		if (!v) {
			fclose(f);
			return -1;
		}
		for (size_t i = 0; i < m->nbatches; i++) {
			const struct batch_row *r = &m->rows[i];
			if (what == 0 && r->wait_ns != BATCH_NONE && !r->out_of_order)
				v[n++] = (double)r->wait_ns / 1e6;
			else if (what == 1 && r->delay_ns != BATCH_NONE)
				v[n++] = (double)r->delay_ns / 1e6;
			else if (what == 2 && r->started != BATCH_NONE && r->finished != BATCH_NONE)
				v[n++] = (double)(r->finished - r->started) / 1e6;
		}
		stats_sort(v, n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%d,%s,%.6f,%.4f\n", s + 1, s ? "PyTorch" : "ppbench", v[i],
				100.0 * (double)(i + 1) / (double)n);
		free(v);
	}
	return ferror(f) | fclose(f) ? -1 : 0;
}

static int write_ops_data(const char *path, const struct compare_side *a,
			  const struct compare_side *b)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "op,ppbench_mean_ms,ppbench_p90_ms,pytorch_mean_ms,pytorch_p90_ms\n");
	for (size_t i = 0; i < a->m.nops; i++) {
		const struct op_metrics *x = &a->m.ops[i], *y = find_op(&b->m, x->name);
		if (op_per_batch(x->lotus_name))
			continue;   /* per batch: another scale */
		csv_put(f, x->name);
		fprintf(f, ",%.6f,%.6f,", x->st.mean / 1e6, x->st.p90 / 1e6);
		if (y)
			fprintf(f, "%.6f,%.6f\n", y->st.mean / 1e6, y->st.p90 / 1e6);
		else
			fprintf(f, ",\n");
	}
	return ferror(f) | fclose(f) ? -1 : 0;
}

static int write_batches_data(const char *path, const struct compare_side *const *side)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "series,series_label,batch,preproc_ms,wait_ms\n");
	for (int s = 0; s < 2; s++) {
		const struct run_metrics *m = &side[s]->m;
		for (size_t i = 0; i < m->nbatches; i++) {
			const struct batch_row *r = &m->rows[i];
			if (r->started == BATCH_NONE || r->finished == BATCH_NONE)
				continue;
			fprintf(f, "%d,%s,%" PRId64 ",%.6f,", s + 1, s ? "PyTorch" : "ppbench", r->id,
				(double)(r->finished - r->started) / 1e6);
			if (r->wait_ns != BATCH_NONE && !r->out_of_order)
				fprintf(f, "%.6f\n", (double)r->wait_ns / 1e6);
			else
				fprintf(f, "\n");
		}
	}
	return ferror(f) | fclose(f) ? -1 : 0;
}

/* gnuplot -c plots/script data out title; 0, or -1 (why in the log) */
static int gnuplot(const char *top, const char *script, const char *data, const char *out,
		   const char *title, const char *log)
{
	const char *args[] = { data, out, title, NULL };
	char why[256];

	return plot_run(top, script, args, log, why, sizeof(why));
}

/* The figures' data, and the figures when gnuplot and plots/ are there.
 * Returns how many figures could not be drawn. */
static int draw_figures(const char *dir, const struct compare_side *a,
			const struct compare_side *b, const char *subtitle)
{
	const struct compare_side *side[2] = { a, b };
	char fig[PATH_MAX], data[PATH_MAX], out[PATH_MAX], log[PATH_MAX], top[PATH_MAX];
	static const struct {
		const char *data, *script, *out, *title;
		int what;
	} figs[] = {
		{ "ops.csv", "compare_ops.gp", "ops", "Per-op time per image", -1 },
		{ "wait_cdf.csv", "compare_cdf.gp", "wait_cdf",
		  "Main-process wait for the next in-order batch", 0 },
		{ "delay_cdf.csv", "compare_cdf.gp", "delay_cdf",
		  "Delay: batch ready until consumed", 1 },
		{ "preproc_cdf.csv", "compare_cdf.gp", "preproc_cdf", "Batch preprocessing time", 2 },
		{ "batches.csv", "compare_batches.gp", "batches", "Batch preprocessing time per batch",
		  -2 },
	};
	int failed = 0, have_top = find_top(TOP_OF_PLOTS, top, sizeof(top)) == 0;

	errf(fig, sizeof(fig), "%s/figures", dir);
	if (mkdir(fig, 0777) && errno != EEXIST) {
		warn_msg("cannot create '%s': %s", fig, strerror(errno));
		return 1;
	}
	errf(log, sizeof(log), "%s/gnuplot.log", fig);
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		int rc;
		char title[1024];
		errf(data, sizeof(data), "%s/%s", fig, figs[i].data);
		if (figs[i].what == -1)
			rc = write_ops_data(data, a, b);
		else if (figs[i].what == -2)
			rc = write_batches_data(data, side);
		else
			rc = write_cdf(data, side, figs[i].what);
		if (rc) {
			warn_msg("cannot write '%s'", data);
			failed++;
			continue;
		}
		if (!have_top) {
			failed++;
			continue;
		}
		errf(out, sizeof(out), "%s/%s", fig, figs[i].out);
		snprintf(title, sizeof(title), "%s\n%s", figs[i].title, subtitle);
		if (gnuplot(top, figs[i].script, data, out, title, log))
			failed++;
	}
	if (!have_top)
		warn_msg("figures not drawn: plots/ not found next to the executable (data in %s)", fig);
	else if (failed)
		warn_msg("%d figure%s not drawn (see %s)", failed, failed == 1 ? "" : "s", log);
	return failed;
}

/* compare.md ends with what ran (so that the table can be read, and
 * the comparison run again, without the logs) and links to its figures. */
static void md_context(const char *md, const char *dir, const json_t *opt, const json_t *ds,
		       const char *pipe, const char *torch_info)
{
	char figdir[PATH_MAX], origin[160];
	struct dirent **ents = NULL;
	FILE *f = fopen(md, "a");

	if (!f)
		return;
	if (dataset_origin_text(ds, origin, sizeof(origin)) < 0)
		snprintf(origin, sizeof(origin), "not recorded whether generated");
	fprintf(f, "\n## What ran\n\n"
		"- pipeline %s on the dataset %s (%s)\n"
		"- %lld workers, batch %lld, %lld simulated GPUs (step %.6g ms), prefetch factor %lld, "
		"pin memory %s\n"
		"- %lld epoch(s), at most %lld batches (0: all), shuffle %s, drop last %s, seed %lld, "
		"--rng %s, loader policy %s, backend %s\n"
		"- PyTorch side: %s\n",
		pipe, compare_jstr(opt, "data", "?"), origin, compare_jint(opt, "workers", 0), compare_jint(opt, "batch", 0),
		compare_jint(opt, "gpus", 0), compare_jnum(opt, "gpu_step_ns") / 1e6, compare_jint(opt, "prefetch_factor", 0),
		json_is_true(json_object_get(opt, "pin_memory")) ? "on" : "off",
		compare_jint(opt, "epochs", 1), compare_jint(opt, "max_batches", 0),
		json_is_true(json_object_get(opt, "shuffle")) ? "on" : "off",
		json_is_true(json_object_get(opt, "drop_last")) ? "on" : "off", compare_jint(opt, "seed", 0),
		compare_jstr(opt, "rng", "?"), compare_jstr(opt, "policy", "torch"), compare_jstr(opt, "backend", "?"),
		torch_info);
	errf(figdir, sizeof(figdir), "%s/figures", dir);
	int n = scandir(figdir, &ents, NULL, alphasort), k = 0;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);
		if (l > 4 && !strcmp(ents[i]->d_name + l - 4, ".png")) {
			if (!k++)
				fprintf(f, "\n## Figures\n\n");
			fprintf(f, "![%.*s](figures/%s) ([SVG](figures/%.*s.svg))\n\n", (int)l - 4,
				ents[i]->d_name, ents[i]->d_name, (int)l - 4, ents[i]->d_name);
		}
		free(ents[i]);
	}
	free(ents);
	if (!k)
		fprintf(f, "\nNo figures were drawn (see figures/gnuplot.log); their data is in figures/.\n");
	fclose(f);
}

/* ---- children ------------------------------------------------------------ */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* Run argv[0] (a path) with stdout to out_fd (-1: ours) in its own process
 * group; pass SIGINT/SIGTERM on. Returns its exit code, 128 + signal if a
 * signal ended it, 127 if it could not start. */
static int spawn(char *const argv[], int out_fd)
{
	sigset_t stop, old;
	int st = 0, forwarded = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if (stop_signal) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 128 + stop_signal;
	}
	static const int dfl[] = { SIGINT, SIGTERM, 0 };
	struct spawn sp = SPAWN_INIT;
	sp.argv = argv;
	sp.in = SPAWN_NULL;
	sp.out = out_fd >= 0 ? out_fd : SPAWN_KEEP;
	sp.own_group = 1;
	sp.dfl = dfl;
	sp.mask = &old;
	pid_t pid = spawn_start(&sp);
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		error_msg("cannot run '%s': %s", argv[0], strerror(errno));
		return 127;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return 127;
		if (stop_signal && !forwarded) {
			kill(-pid, stop_signal);
			forwarded = 1;
		}
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return spawn_code(st);
}

/* spawn with stdout into a file (created) */
static int spawn_logged(char *const argv[], const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		warn_msg("cannot create '%s': %s", log, strerror(errno));
	int rc = spawn(argv, fd);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ---- files --------------------------------------------------------------- */

/* The one entry of dir whose name ends with suffix, into out. */
static int find_entry(const char *dir, const char *suffix, char *out, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t sl = strlen(suffix);
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] != '.' && l > sl && !strcmp(de->d_name + l - sl, suffix)) {
			errf(out, n, "%s/%s", dir, de->d_name);
			found = 1;
			break;
		}
	}
	closedir(d);
	return found ? 0 : -1;
}

/* Remove the .npy files of dir, then dir (the dumps: big, and checked). */
static void remove_dumps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".npy")) {
			errf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
	}
	closedir(d);
	rmdir(dir);
}

/* ---- the command --------------------------------------------------------- */

#define COMPARE_DEFAULT_REPEAT 3
#define COMPARE_SCHEMA_VERSION 1

struct cargs {
	long fidelity, repeat;
	double require_idle;
	const char *python, *out, *tag;
	const char *fused;      /* --fused NAME|FILE|off; NULL: the default */
	const char *fused_path; /* the fused pipeline's file as resolved, NULL: no fused side */
	int keep_dumps, help;
	/* peeked from the run options (also passed on) */
	const char *pipeline, *rng, *order, *trace;
	int dump;
	char **fwd;             /* run options passed on */
	int nfwd;
};

static const char usage[] =
	"usage: ppbench compare [compare options] [run options]\n"
	"\n"
	"Runs one configuration with `ppbench run` and with the real PyTorch DataLoader\n"
	"(scripts/torch_side.py on Debian's python3-torch 1.13 and torchvision 0.14): the\n"
	"same ImageFolder, transforms, workers, batch, prefetch factor, pin memory, shuffle,\n"
	"drop_last, seed and simulated GPU step. Both sides write LotusTrace files that\n"
	"ppbench's analysis reads, so every figure is computed by the same code. Then, with\n"
	"--rng torch, the first batches' tensors of both are compared. Leaves\n"
	"OUT/<UTC time>-compare-<tag>/ with both results folders (repeat 1: ppbench/ and\n"
	"pytorch/; repeat K: ppbench-rK/, pytorch-rK/), compare.md, compare.csv,\n"
	"compare.json (every repeat's values, the intervals, the noise windows) and figures/\n"
	"(repeat 1). With the fused what-if (--fused), its side too (fused/, fused-rK/)\n"
	"and compare_fused.csv.\n"
	"\n"
	"compare options:\n"
	"      --fidelity N        batches whose tensors are compared, with --rng torch, in\n"
	"                          a short extra run of both sides (0: none) (default: 2)\n"
	"      --fused NAME|FILE|off  the fused what-if: run this pipeline too, as a third\n"
	"                          side with the same options and seed, check that its\n"
	"                          tensors (checksums) are the faithful side's, and show\n"
	"                          images/s faithful vs fused vs PyTorch and the workers'\n"
	"                          CPU per image it saves (default: imagenet_train_fused\n"
	"                          when --pipeline is imagenet_train, else off)\n"
	"      --keep-dumps        keep the compared batches as .npy files in fidelity/\n"
	"      --python PATH       the Python with torch, torchvision, PIL\n"
	"                          (default: " DEFAULT_PYTHON ")\n"
	"  -r, --repeat N          run both sides N times, alternating which goes first;\n"
	"                          each figure is the median with its spread, each ratio\n"
	"                          the median of the repeats' ratios, \"within noise\" when\n"
	"                          its interval holds 1 (default: 3)\n"
	"      --require-idle[=PCT] before each repeat, wait (up to 60 s) until other\n"
	"                          processes use at most PCT % (default " NOISE_IDLE_DEFAULT_PCT ") of\n"
	"                          the CPUs this run may use, else refuse\n"
	"  -t, --tag TAG           name of the compare folder after the time\n"
	"                          (default: PIPELINE-bB-wW-gG)\n"
	"  -o, --out DIR           where the compare folder is made (default: results)\n"
	"  -h, --help              show this help\n"
	"\n"
	"Run options are those of `ppbench run` (below), passed on; compare's default for\n"
	"--rng is torch (the same crops and flips as PyTorch's workers). Not supported:\n"
	"--order arrival (PyTorch 1.13 has no in_order=False), --trace off (compare reads\n"
	"both sides' events), --dump-batches (compare uses it). Without python3-torch:\n"
	"" INSTALL_HINT ".\n"
	"\n";

/* --name VALUE / --name=VALUE / -x VALUE: the value, advancing *i; NULL if argv[*i] is not it */
static const char *match_opt(int argc, char **argv, int *i, const char *name, char shortname,
			     int *missing)
{
	const char *a = argv[*i];
	size_t l = strlen(name);

	*missing = 0;
	if (a[0] == '-' && a[1] == '-' && !strncmp(a + 2, name, l)) {
		if (a[2 + l] == '=')
			return a + 3 + l;
		if (a[2 + l])
			return NULL;
	} else if (!(shortname && a[0] == '-' && a[1] == shortname && !a[2])) {
		return NULL;
	}
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int parse_args(int argc, char **argv, struct cargs *c)
{
	memset(c, 0, sizeof(*c));
	c->fidelity = 2;
	c->repeat = COMPARE_DEFAULT_REPEAT;
	c->python = DEFAULT_PYTHON;
	c->out = "results";
	c->fwd = calloc((size_t)argc + 1, sizeof(char *));
	if (!c->fwd) {
		error_msg("out of memory");
		return -1;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int miss = 0;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			c->help = 1;
			return 0;
		}
		if (!strcmp(a, "--keep-dumps")) {
			c->keep_dumps = 1;
			continue;
		}
		if ((v = match_opt(argc, argv, &i, "fidelity", 0, &miss))) {
			char *end;
			errno = 0;
			c->fidelity = strtol(v, &end, 10);
			if (errno || *end || end == v || c->fidelity < 0 || c->fidelity > 1000) {
				error_msg("--fidelity: '%s' is not a number of batches in [0, 1000]", v);
				return -1;
			}
			continue;
		}
		if (!strcmp(a, "--require-idle")) {
			c->require_idle = atof(NOISE_IDLE_DEFAULT_PCT);
			continue;
		}
		if (!strncmp(a, "--require-idle=", 15)) {
			char *end;
			c->require_idle = strtod(a + 15, &end);
			if (*end || end == a + 15 || !(c->require_idle >= 0 && c->require_idle <= 100)) {
				error_msg("--require-idle: '%s' is not a share in [0, 100] %%", a + 15);
				return -1;
			}
			continue;
		}
		if (!miss && (v = match_opt(argc, argv, &i, "repeat", 'r', &miss))) {
			char *end;
			errno = 0;
			c->repeat = strtol(v, &end, 10);
			if (errno || *end || end == v || c->repeat < 1 || c->repeat > 100) {
				error_msg("--repeat: '%s' is not a number of repeats in [1, 100]", v);
				return -1;
			}
			continue;
		}
		if (!miss && (v = match_opt(argc, argv, &i, "fused", 0, &miss))) {
			if (!*v) {
				error_msg("--fused: give a pipeline name, a .pipe file or off");
				return -1;
			}
			c->fused = v;
			continue;
		}
		if (!miss && (v = match_opt(argc, argv, &i, "python", 0, &miss))) {
			c->python = v;
			continue;
		}
		if (!miss && (v = match_opt(argc, argv, &i, "out", 'o', &miss))) {
			c->out = v;
			continue;
		}
		if (!miss && (v = match_opt(argc, argv, &i, "tag", 't', &miss))) {
			c->tag = v;
			continue;
		}
		if (miss) {
			error_msg("%s needs a value", a);
			return -1;
		}
		/* run options: passed on, a few looked at */
		int start = i;
		if ((v = match_opt(argc, argv, &i, "pipeline", 'p', &miss)))
			c->pipeline = v;
		else if ((v = match_opt(argc, argv, &i, "rng", 0, &miss)))
			c->rng = v;
		else if ((v = match_opt(argc, argv, &i, "order", 0, &miss)))
			c->order = v;
		else if (!strncmp(a, "--dump-batches", 14))
			c->dump = 1;
		else if (!strcmp(a, "--no-trace"))
			c->trace = "off";
		else if (!strncmp(a, "--trace=", 8))
			c->trace = a + 8;
		else if (!strcmp(a, "--trace") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off")))
			c->trace = argv[++i];
		for (int k = start; k <= i; k++)
			c->fwd[c->nfwd++] = argv[k];
	}
	if (c->dump) {
		error_msg("--dump-batches: compare dumps the batches it compares itself (see --fidelity)");
		return -1;
	}
	if (c->order && strcmp(c->order, "inorder")) {
		error_msg("--order %s: PyTorch 1.13 (Debian's python3-torch) hands batches over in order "
		      "only (in_order=False came in 2.6); compare runs --order inorder", c->order);
		return -1;
	}
	if (c->trace && (!strcmp(c->trace, "off") || !strcmp(c->trace, "no") ||
			 !strcmp(c->trace, "0"))) {
		error_msg("--trace off: compare reads both sides' per-sample events; leave tracing on");
		return -1;
	}
	if (!*c->out) {
		error_msg("--out: empty folder name");
		return -1;
	}
	return 0;
}

static int print_run_help(void)
{
	char *argv[] = { "/proc/self/exe", "run", "--help", NULL };
	printf("%s", usage);
	fflush(stdout);
	return spawn(argv, -1) ? EXIT_FAIL : EXIT_OK;
}

static const char *const torch_ops[] = {
	"decode", "random_resized_crop", "random_horizontal_flip", "resize", "center_crop",
	"to_tensor", "normalize", "collate",
};

/* The pipeline as torch_side.py takes it, or NULL with why (no equivalent). */
static json_t *torch_pipeline(const struct pipeline *p, char *why, size_t whylen)
{
	json_t *ops = json_array();
	char list[256] = "";

	for (size_t k = 0; k < sizeof(torch_ops) / sizeof(torch_ops[0]); k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
			 torch_ops[k]);
	for (int i = 0; i < p->nops; i++) {
		const char *name = p->op[i].ops->name;
		int known = 0;
		for (size_t k = 0; k < sizeof(torch_ops) / sizeof(torch_ops[0]); k++)
			known |= !strcmp(name, torch_ops[k]);
		if (!known) {
			errf(why, whylen, "pipeline '%s': op '%s' has no torchvision equivalent "
				"(compare knows %s)", p->name, name, list);
			goto bad;
		}
		if (!strcmp(name, "decode") != (i == 0) ||
		    !strcmp(name, "collate") != (i == p->nops - 1)) {
			errf(why, whylen, "pipeline '%s': compare needs decode first and collate "
				"last, as ImageFolder and default_collate do", p->name);
			goto bad;
		}
		json_t *o = json_object(), *args = json_object();
		char line[sizeof(p->op[i].line)], *save = NULL, *tok;
		snprintf(line, sizeof(line), "%s", p->op[i].line);
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		tok = strtok_r(line, " \t\r\n", &save);   /* the op's name */
		while (tok && (tok = strtok_r(NULL, " \t\r\n", &save))) {
			char *eq = strchr(tok, '=');
			if (!eq)
				continue;
			*eq = 0;
			json_object_set_new(args, tok, json_string(eq + 1));
		}
		json_object_set_new(o, "op", json_string(name));
		json_object_set_new(o, "lotus_name", json_string(p->op[i].ops->lotus_name ?
								 p->op[i].ops->lotus_name : name));
		json_object_set_new(o, "args", args);
		json_array_append_new(ops, o);
	}
	return ops;
bad:
	json_decref(ops);
	return NULL;
}

/* python torch_side.py --probe: 0 with the versions in info, or -1 with why. */
static int probe_python(const char *python, const char *script, char *info, size_t infolen,
			char *why, size_t whylen)
{
	char *argv[] = { (char *)python, (char *)script, "--probe", NULL };
	char buf[4096];
	size_t got = 0;
	int fds[2];

	if (access(python, X_OK)) {
		errf(why, whylen, "'%s': %s", python, strerror(errno));
		return -1;
	}
	if (pipe(fds)) {
		errf(why, whylen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	/* the probe's output is a few hundred bytes: the pipe holds it */
	int rc = spawn(argv, fds[1]);
	close(fds[1]);
	for (;;) {
		ssize_t r = read(fds[0], buf + got, sizeof(buf) - 1 - got);
		if (r > 0 && got + (size_t)r < sizeof(buf) - 1) {
			got += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	close(fds[0]);
	buf[got] = 0;
	json_error_t je;
	json_t *j = json_loads(buf, 0, &je);
	const char *e = json_string_value(json_object_get(j, "error"));
	if (rc || !j || e) {
		errf(why, whylen, "%s", e ? e : rc == 127 ? "cannot run it" : "its probe failed");
		json_decref(j);
		return -1;
	}
	snprintf(info, infolen, "torch %s, torchvision %s, Pillow %s, ATen CPU capability %s%s%s",
		 compare_jstr(j, "torch", "?"), compare_jstr(j, "torchvision", "?"), compare_jstr(j, "pillow", "?"),
		 compare_jstr(j, "cpu_capability", "?"),
		 compare_jstr(j, "aten_cpu_capability_env", "")[0] ? " (ATEN_CPU_CAPABILITY=" : "",
		 compare_jstr(j, "aten_cpu_capability_env", "")[0] ? compare_jstr(j, "aten_cpu_capability_env", "") : "");
	if (compare_jstr(j, "aten_cpu_capability_env", "")[0])
		snprintf(info + strlen(info), infolen - strlen(info), ")");
	json_decref(j);
	return 0;
}

/* `ppbench run` with the user's options plus extra ones, into out_root;
 * its folder renamed to dest. Returns run's exit code. */
static int run_ppbench(const struct cargs *c, const char *const *extra, const char *out_root,
		       const char *dest, const char *log)
{
	char **argv = calloc((size_t)c->nfwd + 24, sizeof(char *));
	char found[PATH_MAX];
	int k = 0, rc;

	if (!argv) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	argv[k++] = "/proc/self/exe";
	argv[k++] = "run";
	for (int i = 0; i < c->nfwd; i++)
		argv[k++] = c->fwd[i];
	if (!c->rng) {
		argv[k++] = "--rng";
		argv[k++] = "torch";
	}
	for (int i = 0; extra && extra[i]; i++)
		argv[k++] = (char *)extra[i];
	argv[k++] = "--out";
	argv[k++] = (char *)out_root;
	argv[k++] = "--tag";
	argv[k++] = "ppbench";
	argv[k] = NULL;
	rc = spawn_logged(argv, log);
	free(argv);
	if (rc)
		return rc;
	if (find_entry(out_root, "-ppbench", found, sizeof(found)) || rename(found, dest)) {
		error_msg("cannot find the results of `ppbench run` in '%s'", out_root);
		return EXIT_FAIL;
	}
	return 0;
}

/* Write the PyTorch side's config.json from ppbench's resolved options. */
static int write_torch_config(const char *dir, const json_t *opt, json_t *ops, int gpus,
			      uint64_t max_batches, int fidelity, char *err, size_t errlen)
{
	char path[PATH_MAX], lt[PATH_MAX], dump[PATH_MAX];
	json_t *c = json_object();
	long long batch = compare_jint(opt, "batch", 0);

	errf(lt, sizeof(lt), "%s/lotustrace/b%lld_gpu%d", dir, batch, gpus);
	errf(dump, sizeof(dump), "%s/batches", dir);
	if (mkdir_p(lt, 0777) || (fidelity && mkdir_p(dump, 0777))) {
		errf(err, errlen, "cannot create '%s': %s", lt, strerror(errno));
		json_decref(c);
		return -1;
	}
	json_object_set_new(c, "data", json_string(compare_jstr(opt, "data", "")));
	json_object_set_new(c, "pipeline", json_string(compare_jstr(opt, "pipeline", "")));
	json_object_set(c, "ops", ops);
	json_object_set_new(c, "workers", json_integer(compare_jint(opt, "workers", 1)));
	json_object_set_new(c, "batch", json_integer(batch));
	json_object_set_new(c, "gpus", json_integer(gpus));
	json_object_set_new(c, "prefetch_factor", json_integer(compare_jint(opt, "prefetch_factor", 2)));
	json_object_set_new(c, "pin_memory", json_boolean(json_is_true(json_object_get(opt, "pin_memory"))));
	json_object_set_new(c, "shuffle", json_boolean(json_is_true(json_object_get(opt, "shuffle"))));
	json_object_set_new(c, "drop_last", json_boolean(json_is_true(json_object_get(opt, "drop_last"))));
	json_object_set_new(c, "seed", json_integer(compare_jint(opt, "seed", 0)));
	json_object_set_new(c, "epochs", json_integer(compare_jint(opt, "epochs", 1)));
	json_object_set_new(c, "max_batches", json_integer((json_int_t)max_batches));
	json_object_set_new(c, "gpu_step_ns", json_integer(fidelity ? 0 : compare_jint(opt, "gpu_step_ns", 0)));
	json_object_set_new(c, "h2d_bytes_per_s",
			    json_real(fidelity ? 0.0 : compare_jnum(opt, "h2d_bandwidth_bytes_per_s")));
	json_object_set_new(c, "max_pixels", json_integer(compare_jint(opt, "max_pixels", 0)));
	json_object_set_new(c, "trace", json_boolean(!fidelity));
	json_object_set_new(c, "out", json_string(dir));
	json_object_set_new(c, "lotustrace_dir", json_string(lt));
	json_object_set_new(c, "prefix", json_string(LOTUSTRACE_PREFIX));
	json_object_set_new(c, "dump_batches", json_integer(fidelity ? (json_int_t)max_batches : 0));
	json_object_set_new(c, "dump_dir", json_string(dump));
	errf(path, sizeof(path), "%s/config.json", dir);
	int rc = json_dump_file(c, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(c);
	if (rc) {
		errf(err, errlen, "cannot write '%s'", path);
		return -1;
	}
	return 0;
}

static int run_torch(const struct cargs *c, const char *script, const char *dir, const char *log)
{
	char cfg[PATH_MAX];
	errf(cfg, sizeof(cfg), "%s/config.json", dir);
	char *argv[] = { (char *)c->python, (char *)script, cfg, NULL };
	return spawn_logged(argv, log);
}

/* The PyTorch side's results files, computed here: summary.json (tool
 * "pytorch", with a "pytorch" block from run.json), batches.csv, ops.csv,
 * trace.json.gz. */
static int write_torch_results(const char *dir, const struct compare_side *s, char *err,
			       size_t errlen)
{
	json_t *cfg = compare_load_json(dir, "config.json", err, errlen);
	json_t *run = cfg ? compare_load_json(dir, "run.json", err, errlen) : NULL;
	json_t *mach = machine_json(), *blocks = json_object(), *blk = json_object();
	int rc = -1;

	if (!run)
		goto out;
	json_object_set(blk, "versions", json_object_get(run, "versions"));
	json_object_set(blk, "pin_memory_requested", json_object_get(run, "pin_memory_requested"));
	json_object_set(blk, "pin_memory_effective", json_object_get(run, "pin_memory_effective"));
	json_object_set(blk, "workers", json_object_get(run, "workers"));
	json_object_set(blocks, "options", cfg);
	json_object_set(blocks, "machine", mach);
	json_object_set(blocks, "pytorch", blk);
	struct results_in in = { .m = &s->m, .t = &s->t, .tool = "pytorch", .no_checksum = 1,
				 .blocks = blocks, .lotustrace = 0, .chrome = 1 };
	if (results_write(dir, &in, err, errlen))
		goto out;
	rc = 0;
out:
	json_decref(blocks);
	json_decref(blk);
	json_decref(cfg);
	json_decref(run);
	json_decref(mach);
	return rc;
}

/* what: "fidelity" (ppbench against PyTorch) or "fidelity (fused against
 * faithful)" */
static void print_fidelity(FILE *f, const char *what, const struct compare_fidelity *fd)
{
	if (fd->first_batch < 0 && fd->labels_equal) {
		fprintf(f, "%s: tensors identical (first %zu batch%s: %zu images, %" PRIu64
			" values; labels identical)\n", what, fd->batches, fd->batches == 1 ? "" : "es",
			fd->images, fd->values);
		return;
	}
	if (fd->shape_note[0]) {
		fprintf(f, "%s: tensors differ: %s\n", what, fd->shape_note);
		return;
	}
	fprintf(f, "%s: tensors differ: max abs difference %.9g, %" PRIu64 " of %" PRIu64
		" values differ; first differing batch %" PRId64 " (sample %" PRId64 ")%s\n", what,
		fd->max_abs, fd->differing, fd->values, fd->first_batch, fd->first_sample,
		fd->labels_equal ? "; labels identical" : "; LABELS DIFFER");
}

/* What a tensor check found, as fidelity.json says it. */
static json_t *fidelity_json(const struct compare_fidelity *fd)
{
	json_t *j = json_object();
	json_object_set_new(j, "rng", json_string("torch"));
	json_object_set_new(j, "batches", json_integer((json_int_t)fd->batches));
	json_object_set_new(j, "images", json_integer((json_int_t)fd->images));
	json_object_set_new(j, "values", json_integer((json_int_t)fd->values));
	json_object_set_new(j, "differing_values", json_integer((json_int_t)fd->differing));
	json_object_set_new(j, "max_abs_difference", json_real(isfinite(fd->max_abs) ? fd->max_abs : -1));
	json_object_set_new(j, "identical", json_boolean(fd->first_batch < 0 && fd->labels_equal));
	json_object_set_new(j, "labels_identical", json_boolean(fd->labels_equal));
	json_object_set_new(j, "first_differing_batch", fd->first_batch < 0 ? json_null() :
			    json_integer(fd->first_batch));
	json_object_set_new(j, "first_differing_sample", fd->first_sample < 0 ? json_null() :
			    json_integer(fd->first_sample));
	if (fd->shape_note[0])
		json_object_set_new(j, "note", json_string(fd->shape_note));
	return j;
}

/* The fused pipeline's first batches against the faithful pipeline's
 * (dumped in pbatches), bit for bit. An exit code. */
static int fidelity_fused(const struct cargs *c, const char *dir, const char *fdir,
			  const char *pbatches, const char *const *extra, size_t n,
			  struct compare_fidelity *ffd)
{
	char sdir[PATH_MAX], log[PATH_MAX], b[PATH_MAX], err[PATH_MAX + 512];
	const char *ex[16];
	size_t k = 0;

	for (; extra[k] && k < 12; k++)
		ex[k] = extra[k];
	ex[k++] = "--pipeline";
	ex[k++] = c->fused_path;
	ex[k] = NULL;
	errf(sdir, sizeof(sdir), "%s/fused", fdir);
	errf(log, sizeof(log), "%s/logs/fidelity-fused.log", dir);
	int rc = run_ppbench(c, ex, fdir, sdir, log);
	if (rc) {
		error_msg("the fidelity run of the fused side failed (exit %d; see %s)", rc, log);
		return rc;
	}
	errf(b, sizeof(b), "%s/batches", sdir);
	if (compare_tensors(pbatches, b, n, ffd, err, sizeof(err))) {
		error_msg("fidelity (fused): %s", err);
		return EXIT_FAIL;
	}
	if (!c->keep_dumps)
		remove_dumps(b);
	return 0;
}

/* ffd: NULL, or the fused side's check against ppbench's (c->fused_path). */
static int fidelity_pass(const struct cargs *c, const char *script, const char *dir,
			 const json_t *opt, json_t *ops, int gpus, struct compare_fidelity *fd,
			 struct compare_fidelity *ffd)
{
	char fdir[PATH_MAX], pdir[PATH_MAX], tdir[PATH_MAX], log[PATH_MAX], nb[32];
	char a[PATH_MAX], b[PATH_MAX], err[PATH_MAX + 512];
	uint64_t n = (uint64_t)c->fidelity, user_max = (uint64_t)compare_jint(opt, "max_batches", 0);

	if (user_max && user_max < n)
		n = user_max;
	snprintf(nb, sizeof(nb), "%" PRIu64, n);
	errf(fdir, sizeof(fdir), "%s/fidelity", dir);
	errf(pdir, sizeof(pdir), "%s/ppbench", fdir);
	errf(tdir, sizeof(tdir), "%s/pytorch", fdir);
	if (mkdir_p(fdir, 0777)) {
		error_msg("cannot create '%s': %s", fdir, strerror(errno));
		return EXIT_FAIL;
	}
	const char *extra[] = { "--rng", "torch", "--max-batches", nb, "--dump-batches", nb,
				"--gpu-step", "0", "--trace", "off", NULL };
	errf(log, sizeof(log), "%s/logs/fidelity-ppbench.log", dir);
	int rc = run_ppbench(c, extra, fdir, pdir, log);
	if (rc) {
		error_msg("the fidelity run of ppbench failed (exit %d; see %s)", rc, log);
		return rc;
	}
	if (write_torch_config(tdir, opt, ops, gpus, n, 1, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	errf(log, sizeof(log), "%s/logs/fidelity-pytorch.log", dir);
	rc = run_torch(c, script, tdir, log);
	if (rc) {
		error_msg("the fidelity run of the PyTorch side failed (exit %d; see %s)", rc, log);
		return rc >= 128 ? rc : EXIT_FAIL;
	}
	errf(a, sizeof(a), "%s/batches", pdir);
	errf(b, sizeof(b), "%s/batches", tdir);
	if (compare_tensors(a, b, (size_t)n, fd, err, sizeof(err))) {
		error_msg("fidelity: %s", err);
		return EXIT_FAIL;
	}
	if (ffd && (rc = fidelity_fused(c, dir, fdir, a, extra, (size_t)n, ffd)))
		return rc;
	json_t *j = fidelity_json(fd);
	if (ffd) {
		json_t *jf = fidelity_json(ffd);
		json_object_set_new(jf, "against", json_string("ppbench, the faithful pipeline"));
		json_object_set_new(jf, "pipeline", json_string(c->fused_path));
		json_object_set_new(j, "fused", jf);
	}
	errf(a, sizeof(a), "%s/fidelity.json", fdir);
	if (json_dump_file(j, a, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		warn_msg("cannot write '%s'", a);
	json_decref(j);
	if (!c->keep_dumps) {
		errf(a, sizeof(a), "%s/batches", pdir);
		remove_dumps(a);
		remove_dumps(b);
	}
	return 0;
}

static void print_notes(FILE *f, const struct compare_side *a, const struct compare_side *b,
			const json_t *opt)
{
	fprintf(f, "notes:\n");
	if (a->pin_effective == 1 && b->pin_effective == 0)
		fprintf(f, "  - pin memory: ppbench on (a pin thread copies each batch into "
			   "page-locked memory); PyTorch off: without CUDA the DataLoader silently "
			   "disables pin_memory (torch.cuda.is_available() is False; spec 2.9)\n");
	else if (a->pin_effective != b->pin_effective)
		fprintf(f, "  - pin memory: ppbench %s, PyTorch %s\n",
			a->pin_effective ? "on" : "off", b->pin_effective == 1 ? "on" :
			b->pin_effective == 0 ? "off" : "unknown");
	if (!strcmp(compare_jstr(opt, "backend", "process"), "thread"))
		fprintf(f, "  - ppbench ran thread workers; PyTorch's workers are processes\n");
	if (strcmp(compare_jstr(opt, "rng", "torch"), "torch"))
		fprintf(f, "  - --rng %s: ppbench drew other crops and flips than PyTorch\n",
			compare_jstr(opt, "rng", "?"));
	fprintf(f, "  - PyTorch side: %s%s%s\n", b->versions,
		b->cpu_capability[0] ? ", ATen CPU capability " : "", b->cpu_capability);
	fprintf(f, "  - ppbench: %s\n", a->versions);
	fprintf(f, "  - per-op figures are LotusTrace spans (wall time inside each call); "
		   "\"workers' rusage\" is the workers' user + system CPU time\n");
}

/* The folders and logs of repeat k (0-based): repeat 1 keeps the names
 * of a single comparison. */
static void repeat_paths(const char *dir, long k, char *pdir, char *tdir, char *plog, char *tlog)
{
	char sfx[32] = "";
	if (k)
		snprintf(sfx, sizeof(sfx), "-r%ld", k + 1);
	errf(pdir, PATH_MAX, "%s/ppbench%s", dir, sfx);
	errf(tdir, PATH_MAX, "%s/pytorch%s", dir, sfx);
	errf(plog, PATH_MAX, "%s/logs/ppbench%s.log", dir, sfx);
	errf(tlog, PATH_MAX, "%s/logs/pytorch%s.log", dir, sfx);
}

/* The fused side's folder and log of repeat k. */
static void fused_paths(const char *dir, long k, char *fdir, char *flog)
{
	char sfx[32] = "";
	if (k)
		snprintf(sfx, sizeof(sfx), "-r%ld", k + 1);
	errf(fdir, PATH_MAX, "%s/fused%s", dir, sfx);
	errf(flog, PATH_MAX, "%s/logs/fused%s.log", dir, sfx);
}

/* The fused what-if side of repeat k: `ppbench run` with the same options
 * and the fused pipeline. */
static int fused_side(const struct cargs *c, const char *dir, long k)
{
	char fdir[PATH_MAX], flog[PATH_MAX];
	const char *extra[] = { "--pipeline", c->fused_path, NULL };
	fused_paths(dir, k, fdir, flog);
	int rc = run_ppbench(c, extra, dir, fdir, flog);
	if (rc)
		error_msg("the fused side's `ppbench run` failed (exit %d; see %s)", rc, flog);
	return rc;
}

/* The PyTorch side of one repeat, configured from ppbench's options. */
static int torch_side(const struct cargs *c, const char *script, const char *tdir,
		      const char *tlog, const json_t *opt, json_t *ops, int gpus)
{
	char err[PATH_MAX + 512];
	if (write_torch_config(tdir, opt, ops, gpus, (uint64_t)compare_jint(opt, "max_batches", 0), 0,
			       err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	int rc = run_torch(c, script, tdir, tlog);
	if (rc) {
		error_msg("the PyTorch side failed (exit %d; see %s)", rc, tlog);
		rc = rc >= 128 ? rc : EXIT_FAIL;
	}
	return rc;
}

/* Repeats 2..N of both sides, odd ones PyTorch first (drift over time
 * weighs on both sides alike), each in its noise window. The fused side,
 * when there is one, runs between them: ppbench, fused, PyTorch, then
 * PyTorch, fused, ppbench, so that it too goes before and after each. */
static int more_repeats(const struct cargs *c, const char *script, const char *dir,
			const json_t *opt, json_t *ops, int gpus, const struct cpus *cp,
			struct noise *nz)
{
	char pdir[PATH_MAX], tdir[PATH_MAX], plog[PATH_MAX], tlog[PATH_MAX], what[64];
	char err[512];
	for (long k = 1; k < c->repeat; k++) {
		struct noise_snap n0, n1;
		int rc = 0;
		repeat_paths(dir, k, pdir, tdir, plog, tlog);
		if (noise_require_idle(c->require_idle, noise_idle_wait_s(), cp, err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		printf("repeat %ld of %ld: %s first\n", k + 1, c->repeat, k % 2 ? "PyTorch" : "ppbench");
		noise_read(&n0, cp);
		for (int side = 0; side < 3 && !rc; side++) {
			if (side == 1) {
				if (c->fused_path)
					rc = fused_side(c, dir, k);
			} else if ((side == 0) == (k % 2 == 1)) {
				rc = torch_side(c, script, tdir, tlog, opt, ops, gpus);
			} else {
				rc = run_ppbench(c, NULL, dir, pdir, plog);
				if (rc)
					error_msg("`ppbench run` failed (exit %d; see %s)", rc, plog);
			}
		}
		noise_read(&n1, cp);
		if (rc)
			return rc;
		noise_between(&n0, &n1, cp, &nz[k]);
		snprintf(what, sizeof(what), "repeat %ld", k + 1);
		noise_warn(&nz[k], what);
	}
	return 0;
}

/* Read every repeat's two sides (the PyTorch side's results files written
 * here). *nread: the repeats read. */
static int read_sides(const struct cargs *c, const char *dir, const struct pipeline *pipe,
		      struct compare_side *sa, struct compare_side *sb, long *nread,
		      const struct pipeline *fpipe, struct compare_side *sf, long *nread_f)
{
	char pdir[PATH_MAX], tdir[PATH_MAX], plog[PATH_MAX], tlog[PATH_MAX];
	char err[2 * PATH_MAX + 512];
	for (long k = 0; k < c->repeat; k++) {
		repeat_paths(dir, k, pdir, tdir, plog, tlog);
		if (compare_read_ppbench(pdir, pipe, &sa[k], err, sizeof(err))) {
			error_msg("%s", err);
			return -1;
		}
		if (compare_read_torch(tdir, pipe, &sb[k], err, sizeof(err))) {
			compare_side_free(&sa[k]);
			error_msg("%s", err);
			return -1;
		}
		++*nread;
		if (c->fused_path) {
			fused_paths(dir, k, pdir, plog);
			if (compare_read_ppbench(pdir, fpipe, &sf[k], err, sizeof(err))) {
				error_msg("%s", err);
				return -1;
			}
			++*nread_f;
		}
		if (write_torch_results(tdir, &sb[k], err, sizeof(err))) {
			error_msg("%s", err);
			return -1;
		}
	}
	return 0;
}

/* compare.json's frame: the repeats, their order, the noise guard. */
static json_t *compare_json(const struct cargs *c, const struct noise *nz, const struct cpus *cp)
{
	json_t *j = json_object(), *ord = json_array();
	json_object_set_new(j, "schema_version", json_integer(COMPARE_SCHEMA_VERSION));
	json_object_set_new(j, "tool", json_string("ppbench compare"));
	json_object_set_new(j, "repeats", json_integer(c->repeat));
	json_object_set_new(j, "interval_method", json_string(STATS_CI_METHOD));
	for (long k = 0; k < c->repeat; k++)
		json_array_append_new(ord, json_string(k % 2 ? "pytorch" : "ppbench"));
	json_object_set_new(j, "first_side", ord);
	/* the fused what-if runs between the two (more_repeats) */
	json_object_set_new(j, "fused_side", c->fused_path ? json_string(c->fused_path) : json_null());
	json_object_set_new(j, "noise", noise_study_json(nz, (size_t)c->repeat, "repeats",
							 c->require_idle, cp));
	json_t *m = machine_json();
	if (m)
		json_object_set_new(j, "machine", m);
	return j;
}

/* What one `ppbench compare` holds from start to end, freed by compare_free. */
struct compare_run {
	struct cargs c;
	struct pipeline pipe;
	int have_pipe;
	char top[PATH_MAX], script[PATH_MAX], info[512];
	char tmp[PATH_MAX], dir[PATH_MAX], pdir[PATH_MAX], tdir[PATH_MAX], log[PATH_MAX];
	char tlog[PATH_MAX], stamp[32];
	json_t *ops, *psum, *cj;
	const json_t *opt;      /* psum's "options" */
	int gpus;
	struct compare_side *sa, *sb, *sf;  /* ppbench, PyTorch, the fused what-if */
	struct noise *nz;
	long nread;             /* sides read back (sa[k], sb[k] to free) */
	long nread_f;           /* fused sides read back (sf[k] to free) */
	struct pipeline fpipe;  /* the fused what-if's pipeline (c.fused_path) */
	int have_fpipe;
	int fused_identical;    /* its checksums were the faithful side's in every repeat */
	struct compare_fidelity fd;
	int fid_done;
	struct compare_fidelity ffd;    /* the fused side against ppbench's */
	struct cpus cp;
};

/* The fused what-if's pipeline: --fused, or by default imagenet_train_fused
 * beside imagenet_train (where it exists); --fused off: none. 0, or -1 with
 * err (a --fused that cannot be loaded, or one that is the pipeline itself). */
static int resolve_fused(struct compare_run *x, char *err, size_t errlen)
{
	const char *name = x->c.fused;
	if (name && !strcmp(name, "off"))
		return 0;
	if (!name && strcmp(x->pipe.name, "imagenet_train"))
		return 0;       /* no fused counterpart known for this pipeline */
	if (pipeline_load(&x->fpipe, name ? name : "imagenet_train_fused", err, errlen)) {
		if (!name)
			return 0;       /* the default, not installed: no what-if */
		errf(err + strlen(err), errlen - strlen(err), " (--fused)");
		return -1;
	}
	x->have_fpipe = 1;
	if (!strcmp(x->fpipe.path, x->pipe.path)) {
		errf(err, errlen, "--fused %s: that is the pipeline compared; give its fused "
		     "counterpart or off", name);
		return -1;
	}
	x->c.fused_path = x->fpipe.path;
	return 0;
}

/* Before anything runs: the pipeline and its torchvision equivalent, the
 * PyTorch side's script and a Python that can run it. An exit code. */
static int compare_prepare(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512];

	x->sa = calloc((size_t)x->c.repeat, sizeof(*x->sa));
	x->sb = calloc((size_t)x->c.repeat, sizeof(*x->sb));
	x->nz = calloc((size_t)x->c.repeat, sizeof(*x->nz));
	x->sf = calloc((size_t)x->c.repeat, sizeof(*x->sf));
	if (!x->sa || !x->sb || !x->nz || !x->sf) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	if (pipeline_load(&x->pipe, x->c.pipeline ? x->c.pipeline : "imagenet_train", err,
			  sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	x->have_pipe = 1;
	if (resolve_fused(x, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	x->ops = torch_pipeline(&x->pipe, err, sizeof(err));
	if (!x->ops) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (find_top(TOP_OF_PLOTS, x->top, sizeof(x->top))) {
		error_msg("cannot find scripts/torch_side.py: run the ppbench of a source tree");
		return EXIT_USAGE;
	}
	errf(x->script, sizeof(x->script), "%s/scripts/torch_side.py", x->top);
	if (access(x->script, R_OK)) {
		error_msg("cannot read '%s': %s", x->script, strerror(errno));
		return EXIT_USAGE;
	}
	if (probe_python(x->c.python, x->script, x->info, sizeof(x->info), err, sizeof(err))) {
		if (stop_signal)
			return 128 + stop_signal;
		error_msg("the PyTorch side needs python3-torch, python3-torchvision and python3-pil "
		      "for %s (%s); install them with: %s (about 650 MB)", x->c.python, err,
		      INSTALL_HINT);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* Remove the compare folder while it holds only an empty logs/ (nothing ran). */
static void remove_empty_folder(struct compare_run *x)
{
	unlink(x->log);
	errf(x->log, sizeof(x->log), "%s/logs", x->dir);
	rmdir(x->log);
	rmdir(x->dir);
}

/* The compare folder, built under a temporary name held while it is written
 * (ppbench ls --clean leaves it alone), once the machine is idle enough. */
static int make_folder(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512];

	results_dir_name(x->stamp, sizeof(x->stamp), "compare", NULL);
	errf(x->tmp, sizeof(x->tmp), "%s/.%s-%d.tmp", x->c.out, x->stamp, (int)getpid());
	errf(x->log, sizeof(x->log), "%s/logs", x->tmp);
	if (mkdir_p(x->log, 0777)) {
		error_msg("cannot create '%s': %s", x->log, strerror(errno));
		return EXIT_FAIL;
	}
	results_dir_hold(x->tmp);
	errf(x->dir, sizeof(x->dir), "%s", x->tmp);
	repeat_paths(x->dir, 0, x->pdir, x->tdir, x->log, x->tlog);
	cpus_read(&x->cp);
	if (noise_require_idle(x->c.require_idle, noise_idle_wait_s(), &x->cp, err,
			       sizeof(err))) {
		error_msg("%s", err);
		remove_empty_folder(x);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Repeat 1 (ppbench, then PyTorch), the fidelity pass, then the other
 * repeats. An exit code. */
static int run_sides(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512];
	struct noise_snap n0, n1;
	int rc;

	printf("compare: %s; PyTorch side: %s\n", x->pipe.name, x->info);
	if (x->c.repeat > 1)
		printf("repeat 1 of %ld: ppbench first\n", x->c.repeat);
	printf("ppbench: running `ppbench run` (log: logs/ppbench.log)\n");
	noise_read(&n0, &x->cp);
	rc = run_ppbench(&x->c, NULL, x->dir, x->pdir, x->log);
	if (rc) {
		if (rc == EXIT_USAGE)
			remove_empty_folder(x);         /* refused before it ran: nothing to keep */
		else
			error_msg("`ppbench run` failed (exit %d; see %s)", rc, x->log);
		return rc;
	}
	x->psum = compare_load_json(x->pdir, "summary.json", err, sizeof(err));
	if (!x->psum) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	x->opt = json_object_get(x->psum, "options");
	x->gpus = (int)compare_jint(x->psum, "gpus", 1);
	printf("ppbench: %lld images in %lld batches, %.3f s, %.1f images/s\n",
	       compare_jint(x->psum, "images", 0), compare_jint(x->psum, "batches", 0),
	       compare_jnum(x->psum, "e2e_s"), compare_jnum(x->psum, "images_per_s"));
	if (x->c.fused_path) {
		printf("fused: running `ppbench run --pipeline %s` (the what-if; log: logs/fused.log)\n",
		       x->fpipe.name);
		rc = fused_side(&x->c, x->dir, 0);
		if (rc)
			return rc;
	}

	printf("pytorch: running %s (log: logs/pytorch.log)\n", x->script);
	rc = torch_side(&x->c, x->script, x->tdir, x->tlog, x->opt, x->ops, x->gpus);
	if (rc)
		return rc;
	noise_read(&n1, &x->cp);
	noise_between(&n0, &n1, &x->cp, &x->nz[0]);
	noise_warn(&x->nz[0], x->c.repeat > 1 ? "repeat 1" : "the comparison");

	if (x->c.fidelity > 0) {
		printf("fidelity: first %ld batches of both sides%s, --rng torch\n", x->c.fidelity,
		       x->c.fused_path ? " and of the fused one" : "");
		rc = fidelity_pass(&x->c, x->script, x->dir, x->opt, x->ops, x->gpus, &x->fd,
				   x->c.fused_path ? &x->ffd : NULL);
		if (rc)
			return rc;
		x->fid_done = 1;
	}
	return more_repeats(&x->c, x->script, x->dir, x->opt, x->ops, x->gpus, &x->cp, x->nz);
}

/* The notes and the fidelity check, on f. */
static void print_tail(FILE *f, const struct compare_run *x)
{
	print_notes(f, &x->sa[0], &x->sb[0], x->opt);
	if (x->fid_done)
		print_fidelity(f, "fidelity", &x->fd);
	if (x->fid_done && x->c.fused_path)
		print_fidelity(f, "fidelity (fused against faithful)", &x->ffd);
}

/* The fused what-if's section (compare.md, stdout), compare_fused.csv and
 * compare.json's "fused"; loud when its tensors differ. 0, or -1 with err. */
static int write_fused(struct compare_run *x, const char *md, char *err, size_t errlen)
{
	char csv[PATH_MAX];

	errf(csv, sizeof(csv), "%s/compare_fused.csv", x->dir);
	if (compare_fused_write(x->sa, x->sf, x->sb, (size_t)x->c.repeat, x->pipe.name, x->fpipe.name,
				md, csv, x->cj, stdout, &x->fused_identical, err, errlen))
		return -1;
	int fid_same = !x->fid_done || (x->ffd.first_batch < 0 && x->ffd.labels_equal);
	if (!x->fused_identical || !fid_same)
		warn_msg("THE FUSED TENSORS DIFFER from the faithful pipeline's (%s): the fused "
			 "what-if's figures are not valid", !x->fused_identical ? "checksums" :
			 "fidelity check");
	return 0;
}

/* Read every repeat's sides back; write compare.md, .csv, .json and the
 * figures. 0, or -1 (said). */
static int write_results(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512], md[PATH_MAX], csv[PATH_MAX], cjp[PATH_MAX], sub[512];
	const struct compare_side *sa = x->sa, *sb = x->sb;

	if (read_sides(&x->c, x->dir, &x->pipe, x->sa, x->sb, &x->nread, &x->fpipe, x->sf,
		       &x->nread_f))
		return -1;
	errf(md, sizeof(md), "%s/compare.md", x->dir);
	errf(csv, sizeof(csv), "%s/compare.csv", x->dir);
	errf(cjp, sizeof(cjp), "%s/compare.json", x->dir);
	printf("\n");
	if (x->c.repeat > 1)
		printf("%ld repeats: each figure the median, %s; the ratio the median of the "
		       "repeats' ratios, \"within noise\" when its interval holds 1\n", x->c.repeat,
		       x->c.repeat >= 6 ? "[" STATS_CI_METHOD "]" : "(min, max, n) over the repeats");
	x->cj = compare_json(&x->c, x->nz, &x->cp);
	/* what was measured: the ppbench side's run recorded it (both sides read it) */
	json_t *ds = json_object_get(x->psum, "dataset");
	if (ds)
		json_object_set(x->cj, "dataset", ds);
	if (compare_write_table(sa, sb, (size_t)x->c.repeat, md, csv, x->cj, stdout, err,
				sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	if (x->c.fused_path && write_fused(x, md, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	if (json_dump_file(x->cj, cjp, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) {
		error_msg("cannot write '%s'", cjp);
		return -1;
	}
	printf("\n");
	for (long k = 0; k < x->c.repeat; k++)
		if (!sa[k].complete || !sb[k].complete)
			warn_msg("incomplete%s: %s%s%s", k ? " (a repeat)" : "", sa[k].complete ? "" :
			     "ppbench", !sa[k].complete && !sb[k].complete ? " and " : "",
			     sb[k].complete ? "" : "PyTorch");
	for (long k = 0; k < x->nread_f; k++)
		if (!x->sf[k].complete)
			warn_msg("incomplete: the fused side of repeat %ld", k + 1);
	print_tail(stdout, x);
	FILE *mf = fopen(md, "a");
	if (mf) {
		fprintf(mf, "\n");
		print_tail(mf, x);
		fclose(mf);
	}
	snprintf(sub, sizeof(sub), "%s, W=%d, B=%d, %lld images", x->pipe.name,
		 sa[0].m.workers, sa[0].m.batch_size, (long long)sa[0].m.images);
	draw_figures(x->dir, &sa[0], &sb[0], sub);
	md_context(md, x->dir, x->opt, json_object_get(x->psum, "dataset"), x->pipe.name, x->info);
	return 0;
}

/* Give the compare folder its final name, OUT/<UTC>-compare-<tag>. 0, or -1. */
static int name_folder(struct compare_run *x)
{
	char tagbuf[256], final[2 * PATH_MAX];

	if (x->c.tag)
		snprintf(tagbuf, sizeof(tagbuf), "%s", x->c.tag);
	else
		snprintf(tagbuf, sizeof(tagbuf), "%s-b%d-w%d-g%d", x->pipe.name,
			 x->sa[0].m.batch_size, x->sa[0].m.workers, x->gpus);
	errf(final, sizeof(final), "%s/%s-%s", x->c.out, x->stamp, tagbuf);
	for (int k = 2; access(final, F_OK) == 0 && k < 1000; k++)
		errf(final, sizeof(final), "%s/%s-%s-%d", x->c.out, x->stamp, tagbuf, k);
	if (rename(x->tmp, final)) {
		error_msg("cannot rename '%s' to '%s': %s", x->tmp, final, strerror(errno));
		return -1;
	}
	errf(x->dir, sizeof(x->dir), "%s", final);
	printf("results: %s\n", final);
	return 0;
}

static void compare_free(struct compare_run *x)
{
	for (long k = 0; k < x->nread; k++) {
		compare_side_free(&x->sa[k]);
		compare_side_free(&x->sb[k]);
	}
	for (long k = 0; k < x->nread_f; k++)
		compare_side_free(&x->sf[k]);
	free(x->sa);
	free(x->sb);
	free(x->sf);
	if (x->have_fpipe)
		pipeline_release(&x->fpipe);
	free(x->nz);
	json_decref(x->cj);
	json_decref(x->psum);
	json_decref(x->ops);
	if (x->have_pipe)
		pipeline_release(&x->pipe);
	free(x->c.fwd);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_run run = { 0 }, *x = &run;
	int rc;

	if (parse_args(argc, argv, &x->c)) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (x->c.help) {
		rc = print_run_help();
		goto out;
	}
	rc = compare_prepare(x);
	if (rc)
		goto out;

	struct sigaction sa_stop = { .sa_handler = on_stop }, old_int, old_term;
	sigemptyset(&sa_stop.sa_mask);
	sigaction(SIGINT, &sa_stop, &old_int);
	sigaction(SIGTERM, &sa_stop, &old_term);
	rc = make_folder(x);
	if (!rc)
		rc = run_sides(x);
	if (!rc)
		rc = write_results(x) || name_folder(x) ? EXIT_FAIL : EXIT_OK;
	if (rc && rc != EXIT_USAGE && access(x->dir, F_OK) == 0)
		fprintf(stderr, "ppbench: what was done is in %s\n", x->dir);
	if (stop_signal && (rc == EXIT_OK || rc < 128))
		rc = 128 + stop_signal;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	compare_free(x);
	return rc;
}
