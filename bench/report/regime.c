/* make reproduce's regime (regime.h): the GPU step's factor from this
 * machine's probe, the worker grid scaled to its CPUs, and what the report
 * says of them beside the verdicts. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "consumer.h"
#include "csv.h"
#include "doc.h"
#include "fsutil.h"
#include "log.h"
#include "regime.h"
#include "repeats.h"
#include "report.h"

size_t regime_workers(int cpus, const int *pw, size_t np, int *w, int *extended)
{
	size_t k = 0;
	*extended = 0;
	if (cpus < 1)
		cpus = 1;
	for (size_t i = 0; i < np && k < REGIME_MAX_WORKERS; i++) {
		int x = (int)floor((double)pw[i] * cpus / REGIME_PAPER_THREADS + 0.5);
		if (x < 1)
			x = 1;
		if (k && w[k - 1] >= x)
			continue;   /* the paper's grid rises: a repeat rounds to the one before */
		w[k++] = x;
	}
	while (k < REGIME_MIN_WORKER_COUNTS) {
		w[k] = k ? w[k - 1] + 1 : 1;
		k++;
		(*extended)++;
	}
	return k;
}

/* Table II per image: the per-sample ops' means plus collation (a batch of
 * 128) per image. */
static int paper_image_ms(const char *dir, double *ms, char *err, size_t errlen)
{
	char path[4200];
	struct table t;
	snprintf(path, sizeof(path), "%s/lotus_ic_per_op_ms.csv", dir);
	if (table_read(&t, path, err, errlen))
		return -1;
	int co = table_col(&t, "op"), cm = table_col(&t, "mean_ms");
	double sum = 0;
	int have = 0;
	for (size_t i = 0; i < t.nrows; i++) {
		double v = table_num(&t, i, cm);
		if (!isfinite(v))
			continue;
		/* Table II gives collation per batch of 128 (the file's header) */
		sum += !strcmp(table_str(&t, i, co), "Collation") ? v / 128 : v;
		have++;
	}
	table_free(&t);
	if (!have || !(sum > 0)) {
		errf(err, errlen, "'%s' has no per-op means", path);
		return -1;
	}
	*ms = sum;
	return 0;
}

/* The paper's GPU over preprocessing time per image over its configurations
 * (Figs. 4-5; Fig. 6's b1024 x 4 GPUs is one of them): the V100 step per
 * image over Table II's cost per image. */
static int paper_ratio(const char *dir, double paper_ms, double *lo, double *hi, char *err,
		       size_t errlen)
{
	char path[4200], why[256];
	struct table t;
	snprintf(path, sizeof(path), "%s/lotus_ic_batch_gpu_sweep.csv", dir);
	if (table_read(&t, path, err, errlen))
		return -1;
	int cb = table_col(&t, "batch"), cg = table_col(&t, "gpus");
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < t.nrows; i++) {
		double b = table_num(&t, i, cb), g = table_num(&t, i, cg);
		uint64_t ns;
		if (!(b > 0) || !(g > 0) || gpu_step_auto((long)b, (long)g, &ns, why, sizeof(why)))
			continue;
		double q = (double)ns / 1e6 / b / paper_ms;
		*lo = fmin(*lo, q);
		*hi = fmax(*hi, q);
	}
	table_free(&t);
	if (!isfinite(*lo)) {
		errf(err, errlen, "'%s' has no configuration with a GPU step", path);
		return -1;
	}
	return 0;
}

int regime_make(struct regime *r, const char *top, const char *pipeline, double probe_ms,
		double lo, double hi, int ci, int rounds, int images, int cpus, char *err,
		size_t errlen)
{
	char dir[4096];
	struct paper p;

	memset(r, 0, sizeof(*r));
	if (!top) {
		errf(err, errlen, "the repository's datasets/reference/lotus/figures/ was not found");
		return -1;
	}
	if (!(probe_ms > 0) || !isfinite(probe_ms)) {
		errf(err, errlen, "the probe gave no CPU time per image");
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/datasets/reference/lotus/figures", top);
	snprintf(r->pipeline, sizeof(r->pipeline), "%s", pipeline);
	r->probe_ms = probe_ms;
	r->probe_lo = lo;
	r->probe_hi = hi;
	r->probe_ci = ci;
	r->probe_rounds = rounds;
	r->probe_images = images;
	r->cpus = cpus < 1 ? 1 : cpus;
	if (paper_image_ms(dir, &r->paper_ms, err, errlen) ||
	    paper_ratio(dir, r->paper_ms, &r->ratio_lo, &r->ratio_hi, err, errlen))
		return -1;
	r->scale = probe_ms / r->paper_ms;
	if (paper_load(top, &p, err, errlen))
		return -1;
	for (size_t i = 0; i < p.dim.n && i < REGIME_MAX_WORKERS; i++)
		r->paper_w[r->npaper_w++] = p.dim.workers[i];
	r->nw = regime_workers(r->cpus, r->paper_w, r->npaper_w, r->w, &r->extended);
	return 0;
}

static json_t *ints(const int *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

json_t *regime_json(const struct regime *r)
{
	json_t *j = json_object();
	json_object_set_new(j, "tool", json_string("ppbench regime"));
	json_object_set_new(j, "pipeline", json_string(r->pipeline));
	json_object_set_new(j, "probe_cpu_ms_per_image", json_real(r->probe_ms));
	json_object_set_new(j, "probe_lo", json_real(r->probe_lo));
	json_object_set_new(j, "probe_hi", json_real(r->probe_hi));
	json_object_set_new(j, "probe_interval", json_string(r->probe_ci ? "ci95" : "min-max"));
	json_object_set_new(j, "probe_rounds", json_integer(r->probe_rounds));
	json_object_set_new(j, "probe_images", json_integer(r->probe_images));
	json_object_set_new(j, "paper_cpu_ms_per_image", json_real(r->paper_ms));
	json_object_set_new(j, "gpu_step_scale", json_real(r->scale));
	json_object_set_new(j, "paper_gpu_over_preprocessing_lo", json_real(r->ratio_lo));
	json_object_set_new(j, "paper_gpu_over_preprocessing_hi", json_real(r->ratio_hi));
	json_object_set_new(j, "cpus", json_integer(r->cpus));
	json_object_set_new(j, "paper_hardware_threads", json_integer(REGIME_PAPER_THREADS));
	json_object_set_new(j, "paper_workers", ints(r->paper_w, r->npaper_w));
	json_object_set_new(j, "workers", ints(r->w, r->nw));
	json_object_set_new(j, "workers_added", json_integer(r->extended));
	return j;
}

static size_t ints_from(json_t *a, int *v, size_t max)
{
	size_t i, n = 0;
	json_t *x;
	json_array_foreach(a, i, x)
		if (n < max && json_is_integer(x))
			v[n++] = (int)json_integer_value(x);
	return n;
}

int regime_from_json(json_t *j, struct regime *r)
{
	memset(r, 0, sizeof(*r));
	if (!json_is_object(j))
		return -1;
	const char *p = json_string_value(json_object_get(j, "pipeline"));
	snprintf(r->pipeline, sizeof(r->pipeline), "%s", p ? p : "");
	r->probe_ms = json_number_value(json_object_get(j, "probe_cpu_ms_per_image"));
	r->probe_lo = json_number_value(json_object_get(j, "probe_lo"));
	r->probe_hi = json_number_value(json_object_get(j, "probe_hi"));
	p = json_string_value(json_object_get(j, "probe_interval"));
	r->probe_ci = p && !strcmp(p, "ci95");
	r->probe_rounds = (int)json_integer_value(json_object_get(j, "probe_rounds"));
	r->probe_images = (int)json_integer_value(json_object_get(j, "probe_images"));
	r->paper_ms = json_number_value(json_object_get(j, "paper_cpu_ms_per_image"));
	r->scale = json_number_value(json_object_get(j, "gpu_step_scale"));
	r->ratio_lo = json_number_value(json_object_get(j, "paper_gpu_over_preprocessing_lo"));
	r->ratio_hi = json_number_value(json_object_get(j, "paper_gpu_over_preprocessing_hi"));
	r->cpus = (int)json_integer_value(json_object_get(j, "cpus"));
	r->npaper_w = ints_from(json_object_get(j, "paper_workers"), r->paper_w, REGIME_MAX_WORKERS);
	r->nw = ints_from(json_object_get(j, "workers"), r->w, REGIME_MAX_WORKERS);
	r->extended = (int)json_integer_value(json_object_get(j, "workers_added"));
	return r->probe_ms > 0 && r->paper_ms > 0 && r->scale > 0 && r->nw ? 0 : -1;
}

void regime_workers_list(const struct regime *r, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (size_t i = 0; i < r->nw && l + 12 < n; i++)
		l += (size_t)snprintf(out + l, n - l, "%s%d", i ? " " : "", r->w[i]);
}

void regime_step_text(const struct regime *r, char *out, size_t n)
{
	char probe[160];
	if (r->probe_rounds > 0)
		snprintf(probe, sizeof(probe), "%.3f ms of CPU per image (%s %.3f-%.3f over %d "
			 "rounds of %d images, one thread)", r->probe_ms,
			 r->probe_ci ? "95 % interval" : "min-max", r->probe_lo, r->probe_hi,
			 r->probe_rounds, r->probe_images);
	else
		snprintf(probe, sizeof(probe), "%.3f ms of CPU per image (given, not measured)",
			 r->probe_ms);
	snprintf(out, n, "the simulated GPU step is the paper's V100 step x %.3f: this machine's "
		 "%s takes %s, the paper's %.2f ms (Table II: the per-sample ops' means and "
		 "collation per image), so GPU time over preprocessing time per image is the "
		 "paper's, %.3f-%.3f over its configurations", r->scale,
		 r->pipeline[0] ? r->pipeline : "pipeline", probe, r->paper_ms, r->ratio_lo,
		 r->ratio_hi);
}

void regime_grid_text(const struct regime *r, char *out, size_t n)
{
	char w[256];
	regime_workers_list(r, w, sizeof(w));
	int len = snprintf(out, n, "workers %s: the paper's %d-%d workers on its %d hardware "
			   "threads (%d/%d to %d/%d of them) taken as the same shares of the %d "
			   "CPU%s the runs may use, rounded, at least 1", w,
			   r->npaper_w ? r->paper_w[0] : 0,
			   r->npaper_w ? r->paper_w[r->npaper_w - 1] : 0, REGIME_PAPER_THREADS,
			   r->npaper_w ? r->paper_w[0] : 0, REGIME_PAPER_THREADS,
			   r->npaper_w ? r->paper_w[r->npaper_w - 1] : 0, REGIME_PAPER_THREADS,
			   r->cpus, plural_s(r->cpus));
	if (len > 0 && (size_t)len < n && r->extended)
		snprintf(out + len, n - (size_t)len, "; %d worker count%s added past them, as the knee "
			 "rule needs %d%s", r->extended, plural_s(r->extended), REGIME_MIN_WORKER_COUNTS,
			 r->w[r->nw - 1] > r->cpus ? " (more workers than CPUs: oversubscribed)" : "");
}

/* ---- the report -------------------------------------------------------------*/

static int load_file(const char *dir, struct regime *r)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/regime.json", dir);
	char why[256];
	json_t *j = json_load_regular(path, why, sizeof(why));
	int rc = j ? regime_from_json(j, r) : -1;
	json_decref(j);
	return rc;
}

int report_regime_load(const struct sweep *s, struct regime *r)
{
	if (!load_file(s->dir, r))
		return 0;
	if (!s->nparts)
		return -1;
	char up[2048];
	snprintf(up, sizeof(up), "%s", s->parts[0].dir);
	strip_slashes(up);
	char *slash = strrchr(up, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return load_file(up, r);
}

/* The regime the runs stood in, measured: the GPU step over the workers'
 * per-batch preprocessing time, and that time per image over the probe,
 * over the ok runs without oversubscription; the most others took. */
struct regime_seen {
	size_t k;
	double q_lo, q_hi;           /* GPU step / per-batch preprocessing */
	double slow_lo, slow_hi;     /* preprocessing per image / the probe */
	double others_max;
	size_t busy;                 /* runs past REPORT_BUSY_PCT */
};

static void regime_seen(const struct sweep *s, const struct regime *r, struct regime_seen *v)
{
	memset(v, 0, sizeof(*v));
	v->q_lo = v->slow_lo = INFINITY;
	v->q_hi = v->slow_hi = -INFINITY;
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sweep_row *x = &s->rows[i];
		if (!sweep_row_ok(x) || report_oversubscribed(x, s->cpus) ||
		    !(x->preproc_avg_ms > 0) || !(x->batch_size > 0))
			continue;
		double step_ms = 1e3 * report_gpu_step_s(s, x->part, x->batch_size, x->gpus);
		if (isfinite(step_ms)) {
			double q = step_ms / x->preproc_avg_ms;
			v->q_lo = fmin(v->q_lo, q);
			v->q_hi = fmax(v->q_hi, q);
		}
		double slow = x->preproc_avg_ms / x->batch_size / r->probe_ms;
		v->slow_lo = fmin(v->slow_lo, slow);
		v->slow_hi = fmax(v->slow_hi, slow);
		if (isfinite(x->others_cpu_pct)) {
			v->others_max = fmax(v->others_max, x->others_cpu_pct);
			v->busy += x->others_cpu_pct > REPORT_BUSY_PCT;
		}
		v->k++;
	}
}

/* The regime as planned, briefly (beside each verdict). */
static void plan_text(const struct regime *r, char *out, size_t n)
{
	snprintf(out, n, "regime: GPU step x %.3f from this machine's probe (%.3f ms of CPU per "
		 "image; the paper's %.2f), GPU : preprocessing time per image %.3f-%.3f as the "
		 "paper's", r->scale, r->probe_ms, r->paper_ms, r->ratio_lo, r->ratio_hi);
}

/* The regime as the runs measured it, and what the noise guard saw ("" when
 * no run tells). */
static void seen_text(const struct regime_seen *v, char *out, size_t n)
{
	out[0] = 0;
	if (!v->k || !isfinite(v->q_lo))
		return;
	int len = snprintf(out, n, "in these runs (the GPU step over the workers' per-batch "
			   "preprocessing, %zu run%s without oversubscription) %.3f-%.3f", v->k,
			   plural_s((long)v->k), v->q_lo, v->q_hi);
	if (len < 0 || (size_t)len >= n)
		return;
	if (v->busy)
		snprintf(out + len, n - (size_t)len, "; the noise guard: others took up to %.0f %% of "
			 "the CPUs in %zu of them, and preprocessing took %.1f-%.1fx the probe's time "
			 "per image: load moved these runs further towards preprocessing-bound than "
			 "the paper's regime", v->others_max, v->busy, v->slow_lo, v->slow_hi);
	else
		snprintf(out + len, n - (size_t)len, " (preprocessing took %.1f-%.1fx the probe's "
			 "time per image; the noise guard saw no other load past %.0f %%)", v->slow_lo,
			 v->slow_hi, REPORT_BUSY_PCT);
}

void report_regime_notes(const struct sweep *s, struct finding *fd, size_t nf)
{
	struct regime r;
	struct regime_seen v;
	char text[1024], grid[512];
	if (report_regime_load(s, &r))
		return;
	char plan[512];
	regime_seen(s, &r, &v);
	plan_text(&r, plan, sizeof(plan));
	seen_text(&v, text, sizeof(text));
	regime_grid_text(&r, grid, sizeof(grid));
	/* findings 2-4 rest on the balance of CPU and GPU; 4 on the grid too */
	for (size_t i = 1; i < nf && i <= 3; i++) {
		finding_why_add(&fd[i], "; %s%s%s", plan, text[0] ? "; " : "", text);
		if (i == 3)
			finding_why_add(&fd[i], "; %s", grid);
	}
}

void report_regime_section(struct doc *d, const struct sweep *s)
{
	struct regime r;
	struct regime_seen v;
	char step[1024], grid[512], seen[1024];
	if (report_regime_load(s, &r))
		return;
	regime_step_text(&r, step, sizeof(step));
	regime_grid_text(&r, grid, sizeof(grid));
	regime_seen(s, &r, &v);
	seen_text(&v, seen, sizeof(seen));
	doc_h(d, 2, "The paper's regime on this machine");
	doc_p(d, "make reproduce scaled the experiments to this machine (regime.json): %s. The "
		 "worker sweep: %s.%s%s%s", step, grid, seen[0] ? " As run: " : "", seen,
		 seen[0] ? "." : "");
}
