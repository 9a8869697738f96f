/* Single-threaded passes of a pipeline, and the fused what-if measured with
 * them (whatif.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <jansson.h>
#include "checksum.h"
#include "clock.h"
#include "decode.h"
#include "imagefolder.h"
#include "log.h"
#include "pipeline.h"
#include "rng.h"
#include "rrc.h"
#include "stats.h"
#include "whatif.h"

void ops_ws_init(struct ops_ws *w, size_t B)
{
	memset(w, 0, sizeof(*w));
	w->batch_size = B;
	w->smp = calloc(B, sizeof(*w->smp));
	w->ptr = calloc(B, sizeof(*w->ptr));
	w->rngs = calloc(B, sizeof(*w->rngs));
	/* buffers reused at their sizes, as in a worker (sample.h: struct buf_pool) */
	if (!w->smp || !w->ptr || !w->rngs || scratch_pool_init(&w->scr, B))
		die("out of memory");
}

void ops_ws_release(struct ops_ws *w)
{
	for (size_t i = 0; i < w->batch_size; i++)
		sample_release(&w->smp[i]);
	scratch_release(&w->scr);
	free(w->out.mem);
	free(w->smp);
	free(w->ptr);
	free(w->rngs);
}

/* Collate k samples (timed), growing the batch buffer outside the clock reads. */
static void ops_collate(const struct pipeline *p, struct ops_ws *w, size_t k, struct ops_pass *a)
{
	char err[512];
	const struct pipe_op *bo = &p->op[p->batch_op];
	size_t need = bo->ops->batch_bytes(bo->cfg, k, w->ptr[0]->h, w->ptr[0]->w);
	if (need > w->out.capacity) {
		free(w->out.mem);
		w->out.capacity = need;
		w->out.mem = malloc(need);
		if (!w->out.mem)
			die("out of memory");
	}
	w->out.n = k;
	uint64_t t0 = clock_now_ns();
	int rc = bo->ops->run_batch(bo->cfg, w->ptr, k, &w->out, err, sizeof(err));
	uint64_t t1 = clock_now_ns();
	if (rc)
		warn_msg("collate: %s", err);
	else {   /* per image, so a short last batch counts for what it is */
		a->ms[p->batch_op] += (double)(t1 - t0) / 1e6;
		a->cnt[p->batch_op] += k;
	}
}

void ops_pass(const struct pipeline *p, const struct dataset *d, size_t n, struct ops_ws *w,
	      struct ops_pass *a)
{
	struct op_time t[PIPE_MAX_OPS];
	memset(a, 0, sizeof(*a));
	size_t done = 0;
	while (done < n) {
		size_t k = 0;
		for (; k < w->batch_size && done < n; done++) {
			struct sample *s = &w->smp[k];
			rng_seed(&w->rngs[k], rng_sample_seed(0, 0, done));
			sample_setup(s, d->items[done].path, d->items[done].label, done,
				     &w->rngs[k], &w->scr, DECODE_BOMB_PIXELS, 0);
			if (pipeline_run_sample(p, s, t)) {
				a->failed++;
				continue;
			}
			for (int i = 0; i < p->nops; i++)
				if (i != p->batch_op) {
					a->ms[i] += (double)t[i].dur_ns / 1e6;
					a->cnt[i]++;
				}
			a->checksum += checksum_sample(s->data.p, sample_bytes(s), s->label);
			w->ptr[k++] = s;
		}
		if (p->batch_op >= 0 && k)
			ops_collate(p, w, k, a);
	}
	for (int i = 0; i < p->nops; i++)
		a->ms[i] = a->cnt[i] ? a->ms[i] / (double)a->cnt[i] : NAN;
}

void whatif_release(struct whatif *w)
{
	free(w->ips[0]);
	memset(w, 0, sizeof(*w));
}

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* One pass of p (ops_pass) and the thread's CPU time (user + system) per
 * image it took, NaN when every image failed. */
static double pass_cpu_ms(const struct pipeline *p, const struct dataset *d, size_t n,
			  struct ops_ws *ws, struct ops_pass *a)
{
	struct rusage u0, u1;
	getrusage(RUSAGE_THREAD, &u0);
	ops_pass(p, d, n, ws, a);
	getrusage(RUSAGE_THREAD, &u1);
	double cpu_ms = 1e3 * (tv_s(u1.ru_utime) + tv_s(u1.ru_stime) - tv_s(u0.ru_utime) -
			       tv_s(u0.ru_stime));
	return n > a->failed ? cpu_ms / (double)(n - a->failed) : NAN;
}

int ops_cpu_probe(const char *pipe, const struct dataset *d, size_t n, size_t rounds,
		  size_t batch, double *ms, char *err, size_t errlen)
{
	struct pipeline p;
	struct ops_ws ws;
	struct ops_pass a;

	if (pipeline_load(&p, pipe, err, errlen))
		return -1;
	ops_ws_init(&ws, batch);
	ops_pass(&p, d, n, &ws, &a);   /* files into the page cache, buffers grown */
	for (size_t r = 0; r < rounds; r++)
		ms[r] = pass_cpu_ms(&p, d, n, &ws, &a);
	ops_ws_release(&ws);
	pipeline_release(&p);
	if (a.failed >= n) {
		errf(err, errlen, "every one of the %zu images failed in the pipeline", n);
		return -1;
	}
	return 0;
}

/* One round: a pass of each pipeline, k0 first. */
static void whatif_round(const struct pipeline *p, const struct dataset *d, size_t n,
			 struct ops_ws *ws, struct whatif *w, size_t r, int k0)
{
	/* the ops the fused op stands for: decode + random_resized_crop, or the fused op */
	static const int nfront[2] = { 2, 1 };
	double front[2] = { 0, 0 };
	struct ops_pass a;

	for (int side = 0; side < 2; side++) {
		int k = side ? 1 - k0 : k0;
		w->cpu_ms[k][r] = pass_cpu_ms(&p[k], d, n, ws, &a);
		double t = 0;
		for (int i = 0; i < p[k].nops; i++)
			t += a.ms[i];
		for (int i = 0; i < nfront[k] && i < p[k].nops; i++)
			front[k] += a.ms[i];
		w->ips[k][r] = 1e3 / t;
		w->failed = a.failed;
		if (r == 0)
			w->checksum[k] = a.checksum;
		else if (w->checksum[k] != a.checksum)
			w->identical = 0;
	}
	w->saved_ms[r] = w->cpu_ms[0][r] - w->cpu_ms[1][r];
	w->ratio[r] = w->ips[1][r] / w->ips[0][r];
	w->front[r] = front[0] / front[1];
}

int whatif_measure(const char *faithful, const char *fused, const struct dataset *d, size_t n,
		   size_t rounds, size_t batch, struct whatif *w, char *err, size_t errlen)
{
	struct pipeline p[2];
	struct ops_ws ws;
	struct ops_pass a;

	memset(w, 0, sizeof(*w));
	if (pipeline_load(&p[0], faithful, err, errlen))
		return -1;
	if (pipeline_load(&p[1], fused, err, errlen)) {
		pipeline_release(&p[0]);
		return -1;
	}
	double *mem = calloc(7 * (rounds ? rounds : 1), sizeof(double));
	if (!mem) {
		errf(err, errlen, "out of memory");
		pipeline_release(&p[0]);
		pipeline_release(&p[1]);
		return -1;
	}
	w->ips[0] = mem, w->ips[1] = mem + rounds, w->cpu_ms[0] = mem + 2 * rounds;
	w->cpu_ms[1] = mem + 3 * rounds, w->saved_ms = mem + 4 * rounds;
	w->ratio = mem + 5 * rounds, w->front = mem + 6 * rounds;
	snprintf(w->faithful, sizeof(w->faithful), "%s", p[0].name);
	snprintf(w->fused, sizeof(w->fused), "%s", p[1].name);
	w->images = n;
	w->rounds = rounds;
	w->identical = 1;
	ops_ws_init(&ws, batch);
	for (int k = 0; k < 2; k++)     /* files into the page cache, buffers grown */
		ops_pass(&p[k], d, n, &ws, &a);
	uint64_t r0, f0 = fused_fallbacks(&r0), r1;
	for (size_t r = 0; r < rounds; r++)
		whatif_round(p, d, n, &ws, w, r, (int)(r % 2));   /* alternate who goes first */
	uint64_t f1 = fused_fallbacks(&r1);
	w->regions = rounds ? (r1 - r0) / rounds : 0;   /* every pass decodes alike */
	w->full = rounds ? (f1 - f0) / rounds : 0;
	w->identical &= w->checksum[0] == w->checksum[1];
	ops_ws_release(&ws);
	pipeline_release(&p[0]);
	pipeline_release(&p[1]);
	return 0;
}

static json_t *values_summary(const double *v, size_t n)
{
	struct stats_summary s;
	json_t *o = json_object(), *a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a, isfinite(v[k]) ? json_real(v[k]) : json_null());
	json_object_set_new(o, "values", a);
	if (stats_summarise(v, n, STATS_CI_LEVEL, &s) == 0)
		json_object_set_new(o, "summary", stats_summary_json(&s));
	return o;
}

json_t *whatif_json(const struct whatif *w)
{
	json_t *j = json_object();
	char h[2][20];

	snprintf(h[0], sizeof(h[0]), "%016" PRIx64, w->checksum[0]);
	snprintf(h[1], sizeof(h[1]), "%016" PRIx64, w->checksum[1]);
	json_object_set_new(j, "faithful_pipeline", json_string(w->faithful));
	json_object_set_new(j, "fused_pipeline", json_string(w->fused));
	json_object_set_new(j, "single_threaded", json_true());
	json_object_set_new(j, "images", json_integer((json_int_t)w->images));
	json_object_set_new(j, "failed_images", json_integer((json_int_t)w->failed));
	json_object_set_new(j, "rounds", json_integer((json_int_t)w->rounds));
	json_object_set_new(j, "faithful_cpu_ms_per_image", values_summary(w->cpu_ms[0], w->rounds));
	json_object_set_new(j, "fused_cpu_ms_per_image", values_summary(w->cpu_ms[1], w->rounds));
	json_object_set_new(j, "saved_cpu_ms_per_image", values_summary(w->saved_ms, w->rounds));
	json_object_set_new(j, "fused_over_faithful_images_per_s", values_summary(w->ratio, w->rounds));
	json_object_set_new(j, "faithful_checksum", json_string(h[0]));
	json_object_set_new(j, "fused_checksum", json_string(h[1]));
	json_object_set_new(j, "tensors_identical", json_boolean(w->identical));
	json_object_set_new(j, "region_decodes", json_integer((json_int_t)w->regions));
	json_object_set_new(j, "full_decodes", json_integer((json_int_t)w->full));
	return j;
}
