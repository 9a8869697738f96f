/* The model's cost sources (model.h): stated figures, or a measured run's
 * per-sample costs (its LotusTrace files) or per-batch times (batches.csv). */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "emit.h"
#include "fsutil.h"
#include "metrics.h"
#include "model.h"
#include "sampler.h"

void model_src_batch_normal(struct model_src *s, double mean_ms, double std_pct, int b)
{
	memset(s, 0, sizeof(*s));
	s->kind = MSRC_BATCH_NORMAL;
	s->batch_of = b;
	s->mean_ns = mean_ms * 1e6;
	s->std_ns = s->mean_ns * std_pct / 100;
	snprintf(s->what, sizeof(s->what), "per-batch time %.2f ms +- %.2f %% at batch %d (normal)",
		 mean_ms, std_pct, b);
}

int model_src_batch_list(struct model_src *s, const double *ms, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->kind = MSRC_BATCH_LIST;
	s->batch_of = 1;
	s->v = malloc((n ? n : 1) * sizeof(double));
	if (!s->v)
		return -1;
	double t = 0;
	for (size_t i = 0; i < n; i++) {
		s->v[i] = ms[i] * 1e6;
		t += s->v[i];
	}
	s->n = n;
	s->mean_ns = n ? t / (double)n : 0;
	snprintf(s->what, sizeof(s->what), "%zu batch times in turn (mean %.2f ms)", n, s->mean_ns / 1e6);
	return 0;
}

void model_src_sample(struct model_src *s, double mean_ms, double cv, double collate_ms, int b)
{
	memset(s, 0, sizeof(*s));
	s->kind = MSRC_SAMPLE_LOGNORMAL;
	s->batch_of = b;
	s->mean_ns = mean_ms * 1e6;
	s->std_ns = s->mean_ns * cv;
	s->collate_ns = b > 0 ? collate_ms * 1e6 / b : 0;
	snprintf(s->what, sizeof(s->what), "per-sample cost %.3f ms (lognormal, cv %.2f), collation "
		 "%.2f ms per batch of %d", mean_ms, cv, collate_ms, b);
}

void model_src_free(struct model_src *s)
{
	free(s->v);
	free(s->by_index);
	s->by_index = NULL;
	s->v = NULL;
	s->n = 0;
}

void model_src_scale(struct model_src *s, double f)
{
	for (size_t i = 0; i < s->n; i++)
		s->v[i] *= f;
	if (s->by_index)
		for (size_t i = 0; i < s->by_images * (size_t)s->by_epochs; i++)
			s->by_index[i] *= f;   /* NaN stays NaN */
	s->mean_ns *= f;
	s->std_ns *= f;
	s->collate_ns *= f;
	s->harness_ns *= f;
	s->pin_ns_per_image *= f;
	s->main_ns *= f;
	s->prime_ns *= f;
	s->startup_ns *= f;
	s->gpu_over_ns *= f;
}

double model_src_image_ns(const struct model_src *s)
{
	if (s->kind == MSRC_BATCH_NORMAL || s->kind == MSRC_BATCH_EMPIRICAL ||
	    s->kind == MSRC_BATCH_LIST)
		return s->mean_ns / s->batch_of;
	return s->mean_ns + s->collate_ns;
}

static double mean_of(const double *v, size_t n)
{
	double t = 0;
	for (size_t i = 0; i < n; i++)
		t += v[i];
	return n ? t / (double)n : 0;
}

/* Per-sample costs from a trace: the sum of each sample's op events, and
 * collation per image. 0, 1 (no per-sample events), -1 (out of memory). */
static int from_trace(struct model_src *s, const struct trace *t, int B)
{
	int64_t maxb = -1;
	for (size_t p = 0; p < t->nprocs; p++)
		for (size_t i = 0; i < t->procs[p].n; i++)
			if (t->procs[p].ev[i].batch > maxb)
				maxb = t->procs[p].ev[i].batch;
	if (maxb < 0)
		return 1;
	size_t cells = (size_t)(maxb + 1) * (size_t)B;
	double *sum = calloc(cells, sizeof(double));
	if (!sum)
		return -1;
	double coll = 0, bs = 0, bss = 0, nbt = 0, pin = 0, ops = 0;
	for (size_t p = 0; p < t->nprocs; p++) {
		const struct trace_proc *tp = &t->procs[p];
		for (size_t i = 0; tp->role == ROLE_PIN && i < tp->n; i++)
			pin += (double)tp->ev[i].dur_ns;
		if (tp->role != ROLE_WORKER)
			continue;
		for (size_t i = 0; i < tp->n; i++) {
			const struct trace_ev *e = &tp->ev[i];
			if (e->kind == EV_COLLATE)
				coll += (double)e->dur_ns;
			else if (e->kind == EV_BATCH_PREPROC) {
				bs += (double)e->dur_ns;
				bss += (double)e->dur_ns * (double)e->dur_ns;
				nbt++;
			}
			else if (e->kind == EV_OP && e->batch >= 0 && e->sample < (uint32_t)B) {
				sum[(size_t)e->batch * (size_t)B + e->sample] += (double)e->dur_ns;
				ops += (double)e->dur_ns;
			}
		}
	}
	size_t n = 0;
	for (size_t i = 0; i < cells; i++)
		if (sum[i] > 0)
			sum[n++] = sum[i];
	if (!n) {
		free(sum);
		return 1;
	}
	s->kind = MSRC_SAMPLE_EMPIRICAL;
	s->v = sum;
	s->n = n;
	s->mean_ns = mean_of(sum, n);
	s->collate_ns = coll / (double)n;
	s->pin_ns_per_image = pin / (double)n;
	/* the worker's own work in its tasks: their spans beyond the ops */
	s->harness_ns = bs > ops + coll ? (bs - ops - coll) / (double)n : 0;
	/* the spread of batch times beyond that of B independent samples is
	 * the machine's: a factor common to a batch */
	double var = 0;
	for (size_t i = 0; i < n; i++)
		var += (sum[i] - s->mean_ns) * (sum[i] - s->mean_ns);
	double cv_iid = n > 1 ? sqrt(var / (double)(n - 1)) / s->mean_ns / sqrt((double)B) : 0;
	if (nbt > 1) {
		double m = bs / nbt, cv = sqrt(fmax(bss / nbt - m * m, 0)) / m;
		s->batch_noise = sqrt(fmax(cv * cv - cv_iid * cv_iid, 0));
	}
	return 0;
}

/* The settings of a run's schedule (summary.json), to find which image
 * each sample of its trace was. */
struct run_sched {
	size_t images;
	int epochs, shuffle, drop_last, torch;
	uint64_t seed, max_batches;
};

static void run_sched_of(json_t *j, struct run_sched *r)
{
	double n = metric_json_get(j, "dataset.images"), e = metric_json_get(j, "options.epochs");
	double seed = metric_json_get(j, "options.seed"), mb = metric_json_get(j, "options.max_batches");
	const char *pol = json_string_value(json_path(j, "options.policy"));
	json_t *sh = json_path(j, "options.shuffle"), *dl = json_path(j, "options.drop_last");
	memset(r, 0, sizeof(*r));
	r->images = n > 0 ? (size_t)n : 0;
	r->epochs = e >= 1 ? (int)e : 0;
	r->seed = seed >= 0 ? (uint64_t)seed : 0;
	r->max_batches = mb > 0 ? (uint64_t)mb : 0;
	r->shuffle = sh && json_is_true(sh);
	r->drop_last = dl && json_is_true(dl);
	r->torch = pol && !strcmp(pol, "torch");
	if (!(seed >= 0) || !sh)
		r->images = 0;            /* not known: no costs by image */
}

/* The trace's per-sample costs by image and epoch (s->by_index), through
 * the run's schedule: the loader's sampler with the run's settings gives
 * the image of each sample of each batch (torch policy: a task's k-th
 * sample is its k-th position). Left NULL when the schedule is not known
 * or does not fit the trace. */
static void by_index(struct model_src *s, const struct trace *t, int B, const struct run_sched *r)
{
	struct schedule sch;
	char err[256];
	if (!r->images || !r->epochs || !r->torch ||
	    schedule_build(&sch, r->images, (size_t)B, r->epochs, r->shuffle, r->drop_last, r->seed,
			   r->max_batches, err, sizeof(err)))
		return;
	size_t cells = (size_t)sch.epochs * r->images;
	double *v = malloc(cells * sizeof(double));
	int bad = !v;
	for (size_t i = 0; v && i < cells; i++)
		v[i] = NAN;
	for (size_t p = 0; !bad && p < t->nprocs; p++) {
		const struct trace_proc *tp = &t->procs[p];
		for (size_t i = 0; tp->role == ROLE_WORKER && i < tp->n && !bad; i++) {
			const struct trace_ev *e = &tp->ev[i];
			if (e->kind != EV_OP || e->batch < 0)
				continue;
			if ((size_t)e->batch >= sch.nbatches || e->sample >= sch.b[e->batch].n) {
				bad = 1;          /* not this schedule */
				break;
			}
			const struct sched_batch *b = &sch.b[e->batch];
			double *c = &v[(size_t)b->epoch * r->images + sch.idx[b->first + e->sample]];
			*c = (isnan(*c) ? 0 : *c) + (double)e->dur_ns;
		}
	}
	if (bad) {
		free(v);
	} else {
		s->by_index = v;
		s->by_images = r->images;
		s->by_epochs = sch.epochs;
	}
	schedule_free(&sch);
}

/* The run's LotusTrace folder (lotustrace/b<B>_gpu<G>), or "" */
static void trace_dir(const char *dir, char *out, size_t n)
{
	char top[3800];
	if (snprintf(top, sizeof(top), "%s/lotustrace", dir) >= (int)sizeof(top))
		return;
	out[0] = 0;
	DIR *d = opendir(top);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] == 'b' && strstr(e->d_name, "_gpu")) {
			snprintf(out, n, "%s/%s", top, e->d_name);
			break;
		}
	closedir(d);
}

/* Full batches' preprocessing times from batches.csv. */
static int from_batches(struct model_src *s, const char *dir, int B, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/batches.csv", dir);
	struct table t;
	if (table_read(&t, path, err, errlen))
		return -1;
	int cp = table_col(&t, "preproc_ns"), cs = table_col(&t, "samples");
	s->v = malloc((t.nrows ? t.nrows : 1) * sizeof(double));
	if (cp < 0 || !s->v) {
		snprintf(err, errlen, "'%s' has no preproc_ns column", path);
		table_free(&t);
		return -1;
	}
	for (size_t r = 0; r < t.nrows; r++) {
		double v = table_num(&t, r, cp), k = cs >= 0 ? table_num(&t, r, cs) : B;
		if (v > 0 && (isnan(k) || k == B))
			s->v[s->n++] = v;
	}
	table_free(&t);
	if (!s->n) {
		snprintf(err, errlen, "'%s' has no full batch with a preprocessing time", path);
		return -1;
	}
	s->kind = MSRC_BATCH_EMPIRICAL;
	s->batch_of = B;
	s->mean_ns = mean_of(s->v, s->n);
	return 0;
}

/* The smallest value of a column of a run's batches.csv (ns after the
 * start), 0 when not known. */
static double first_of(const char *dir, const char *col)
{
	char path[4200], err[256];
	snprintf(path, sizeof(path), "%s/batches.csv", dir);
	struct table t;
	if (table_read(&t, path, err, sizeof(err)))
		return 0;
	int c = table_col(&t, col);
	double first = INFINITY;
	for (size_t r = 0; c >= 0 && r < t.nrows; r++) {
		double v = table_num(&t, r, c);
		if (v >= 0 && v < first)
			first = v;
	}
	table_free(&t);
	return isfinite(first) ? first : 0;
}

double model_first_start_ns(const char *dir)
{
	return first_of(dir, "started_ns");
}

/* What the run's summary says of the machine and the harness: the main
 * thread's start-up (to its first dispatch) and own work per batch (its
 * time outside the waits, the GPU and the start-up), the workers' start-up, the GPU's lateness, the pin copy, the workers' on-CPU
 * share. A figure the run does not have stays 0. */
static void run_terms(struct model_src *s, json_t *j, const char *dir)
{
	double e2e = metric_json_get(j, "e2e_s"), wait = metric_json_get(j, "main.wait_total_s");
	double gpu = metric_json_get(j, "gpu.busy_s"), nb = metric_json_get(j, "batches");
	double images = metric_json_get(j, "images"), over = metric_json_get(j, "harness.gpu_overshoot_s");
	double pin = metric_json_get(j, "harness.pin_copy_s");
	double span = metric_json_get(j, "cpu.ops_span_s"), oncpu = metric_json_get(j, "cpu.ops_oncpu_s");
	s->startup_ns = model_first_start_ns(dir);
	s->prime_ns = first_of(dir, "queued_ns");
	if (nb > 0 && e2e > 0 && wait >= 0 && gpu >= 0) {
		double main = e2e - wait - gpu - s->prime_ns / 1e9;
		s->main_ns = main > 0 ? main / nb * 1e9 : 0;
	}
	if (nb > 0 && over > 0)
		s->gpu_over_ns = over / nb * 1e9;
	if (images > 0 && pin > 0)
		s->pin_ns_per_image = pin / images * 1e9;
	if (span > 0 && oncpu > 0)
		s->oncpu = fmin(oncpu / span, 1);
}

static void terms_copy(struct model_src *s, const struct model_src *t)
{
	s->main_ns = t->main_ns;
	s->startup_ns = t->startup_ns;
	s->prime_ns = t->prime_ns;
	s->gpu_over_ns = t->gpu_over_ns;
	s->oncpu = t->oncpu;
	if (t->pin_ns_per_image > 0)
		s->pin_ns_per_image = t->pin_ns_per_image;   /* the copy alone */
}

int model_src_from_results(struct model_src *s, const char *dir, int *batch, int *gpus,
			   char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	char path[4200];
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	char why[512];
	json_t *j = json_load_regular(path, why, sizeof(why));
	if (!j) {
		snprintf(err, errlen, "cannot read '%s' (is '%s' a results folder of ppbench run?): %s",
			 path, dir, why);
		return -1;
	}
	int B = (int)json_integer_value(json_object_get(j, "batch_size"));
	int G = (int)json_integer_value(json_object_get(j, "gpus"));
	int W = (int)json_integer_value(json_object_get(j, "workers"));
	struct model_src terms;
	memset(&terms, 0, sizeof(terms));
	run_terms(&terms, j, dir);
	struct run_sched rs;
	run_sched_of(j, &rs);
	json_decref(j);
	if (B < 1) {
		snprintf(err, errlen, "'%s' has no batch_size", path);
		return -1;
	}
	if (batch)
		*batch = B;
	if (gpus)
		*gpus = G;
	s->batch_of = B;
	s->workers = W;
	char td[4200];
	trace_dir(dir, td, sizeof(td));
	if (td[0]) {
		struct trace t;
		memset(&t, 0, sizeof(t));
		char terr[512];
		if (!lotustrace_read(td, LOTUSTRACE_PREFIX, &t, terr, sizeof(terr))) {
			int rc = from_trace(s, &t, B);
			if (!rc)
				by_index(s, &t, B, &rs);
			/* replayed by image, the costs hold what a batch's samples
			 * shared on the machine: no factor on top */
			if (!rc && s->by_index)
				s->batch_noise = 0;
			lotustrace_free(&t);
			if (rc < 0) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			if (!rc) {
				terms_copy(s, &terms);
				snprintf(s->what, sizeof(s->what), "%zu per-sample costs (mean %.3f ms%s, "
					 "collation %.3f ms and the worker's own work %.3f ms per image, "
					 "batch noise %.1f %%) of %s", s->n, s->mean_ns / 1e6,
					 s->by_index ? " by image and epoch, replayed" : "", s->collate_ns / 1e6,
					 s->harness_ns / 1e6, s->batch_noise * 100, dir);
				return 0;
			}
		}
	}
	if (from_batches(s, dir, B, err, errlen))
		return -1;
	s->workers = W;
	terms_copy(s, &terms);
	snprintf(s->what, sizeof(s->what), "%zu per-batch times (mean %.2f ms at batch %d) of %s",
		 s->n, s->mean_ns / 1e6, B, dir);
	return 0;
}

void model_cfg_run_terms(struct model_cfg *c, const struct model_src *s)
{
	c->main_ns = s->main_ns;
	c->startup_ns = s->startup_ns;
	c->prime_ns = s->prime_ns;
	c->gpu_over_ns = s->gpu_over_ns;
	if (s->pin_ns_per_image > 0 && c->sample_bytes > 0)
		c->pin_bytes_per_s = c->sample_bytes / s->pin_ns_per_image * 1e9;
}
