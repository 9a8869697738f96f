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
#include "model.h"

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
	s->v = NULL;
	s->n = 0;
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
	double coll = 0, bs = 0, bss = 0, nbt = 0, pin = 0;
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
			else if (e->kind == EV_OP && e->batch >= 0 && e->sample < (uint32_t)B)
				sum[(size_t)e->batch * (size_t)B + e->sample] += (double)e->dur_ns;
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
			lotustrace_free(&t);
			if (rc < 0) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			if (!rc) {
				snprintf(s->what, sizeof(s->what), "%zu per-sample costs (mean %.3f ms, "
					 "collation %.3f ms per image, batch noise %.1f %%) of %s", s->n,
					 s->mean_ns / 1e6, s->collate_ns / 1e6, s->batch_noise * 100, dir);
				return 0;
			}
		}
	}
	if (from_batches(s, dir, B, err, errlen))
		return -1;
	s->workers = W;
	snprintf(s->what, sizeof(s->what), "%zu per-batch times (mean %.2f ms at batch %d) of %s",
		 s->n, s->mean_ns / 1e6, B, dir);
	return 0;
}
