/* ppbench model's library (model.h, "the command's parts"): the options
 * turned into a model configuration and a cost source, one configuration
 * run (and written as a results folder), the fit of the machine's
 * contention, and the provisioning search. The command: cli/cmd_model.c. */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "consumer.h"
#include "emit.h"
#include "knee.h"
#include "model.h"
#include "options.h"

/* A bandwidth, or none (0). */
int model_rate_opt(const char *name, const char *s, double *out, char *err, size_t errlen)
{
	*out = 0;
	if (!strcmp(s, "none"))
		return 0;
	if (parse_rate(s, "B/s", out)) {
		snprintf(err, errlen, "%s: '%s' is not a rate (examples: 12GB/s, 800MiB/s) or none", name, s);
		return -1;
	}
	return 0;
}

/* --gpu-step: a time, auto, or N img/s per GPU. */
int model_step_ns(const struct model_opts *o, double *out, char *err, size_t errlen)
{
	const char *s = o->gpu_step;
	char why[256];
	if (!strcmp(s, "auto")) {
		uint64_t ns;
		if (gpu_step_auto(o->batch_size, o->gpus, &ns, why, sizeof(why))) {
			snprintf(err, errlen, "--gpu-step auto: %s", why);
			return -1;
		}
		*out = (double)ns;
		return 0;
	}
	char *end;
	double v = strtod(s, &end);
	if (end != s && (!strcmp(end, "img/s") || !strcmp(end, "images/s")) && v > 0) {
		/* data parallel: each of the G GPUs takes B / G of the batch */
		*out = (double)o->batch_size / ((double)o->gpus * v) * 1e9;
		return 0;
	}
	uint64_t ns;
	if (parse_time_ns(s, "ms", &ns)) {
		snprintf(err, errlen, "--gpu-step: '%s' is not a time (e.g. 120ms), auto or a "
			 "throughput per GPU (e.g. 3000img/s)", s);
		return -1;
	}
	*out = (double)ns;
	return 0;
}

/* The paper's Table II (per image, b1024_gpu4 row): the per-op means and
 * p90s; collation per batch of 128. The per-sample cv is the one of a
 * lognormal with the sum's p90 / mean. */
static void paper_src(struct model_src *s, int batch)
{
	const double mean = 4.76 + 1.11 + 0.06 + 0.34 + 0.21, p90 = 6.02 + 1.39 + 0.08 + 0.39 + 0.23;
	/* p90 / mean = exp(1.2816 sg - sg^2 / 2): solve for sg by bisection */
	double lo = 0, hi = 2, r = log(p90 / mean);
	for (int i = 0; i < 60; i++) {
		double sg = (lo + hi) / 2;
		if (1.2816 * sg - sg * sg / 2 < r)
			lo = sg;
		else
			hi = sg;
	}
	double cv = sqrt(exp(lo * lo) - 1);
	model_src_sample(s, mean, cv, 49.76 * batch / 128.0, batch);
	/* the per-batch spread the per-sample figures cannot give: the median
	 * std of Figs. 4-5 (6.94 %) */
	s->batch_noise = 0.0694;
	snprintf(s->what, sizeof(s->what), "the paper's Table II: %.2f ms per sample (cv %.2f from "
		 "its p90), collation 49.76 ms per 128 images, batch noise 6.94 %% (Figs. 4-5)", mean, cv);
}

/* Skip the spaces and commas before a list's next item: 1 if there is
 * one at *p, 0 at the end. */
static int list_next(const char **p)
{
	while (**p == ' ' || **p == ',')
		(*p)++;
	return **p != 0;
}

static int batch_times(const char *list, struct model_src *s, char *err, size_t errlen)
{
	double v[4096];
	size_t n = 0;
	const char *p = list;
	while (list_next(&p)) {
		char *end;
		double x = strtod(p, &end);
		if (end == p || !(x > 0) || n == 4096) {
			snprintf(err, errlen, "--batch-times: '%s' is not a list of up to 4096 times in ms "
				 "above 0", list);
			return -1;
		}
		v[n++] = x;
		p = end;
	}
	if (!n || model_src_batch_list(s, v, n)) {
		snprintf(err, errlen, "--batch-times: %s", n ? "out of memory" : "empty list");
		return -1;
	}
	return 0;
}

int model_make_src(const struct model_opts *o, struct model_src *s, int *ref_w, char *err,
		   size_t errlen)
{
	int n = !!o->from + (o->batch_ms > 0) + (o->sample_ms > 0) + !!o->paper + !!o->batch_times;
	*ref_w = (int)o->ref_workers;
	if (!n && o->fit)
		return 1;         /* the fit's per-batch time, once fitted */
	if (n != 1) {
		snprintf(err, errlen, "%s: give one of --from RESULTS, --batch-ms MS, --sample-ms MS, "
			 "--batch-times MS,... or --paper", n ? "more than one cost source" : "no costs to model");
		return -1;
	}
	if (o->from) {
		if (model_src_from_results(s, o->from, NULL, NULL, err, errlen))
			return -1;
		/* the run's workers: its costs include their contention */
		if (!*ref_w)
			*ref_w = s->workers;
		return 0;
	}
	if (o->batch_times)
		return batch_times(o->batch_times, s, err, errlen);
	if (o->batch_ms > 0)
		model_src_batch_normal(s, o->batch_ms, o->batch_std, o->batch_of ? (int)o->batch_of : (int)o->batch_size);
	else if (o->sample_ms > 0)
		model_src_sample(s, o->sample_ms, o->sample_cv, o->collate_ms, (int)o->batch_size);
	else
		paper_src(s, (int)o->batch_size);
	return 0;
}

void model_base_cfg(const struct model_opts *o, struct model_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->batch_size = (int)o->batch_size;
	c->gpus = (int)o->gpus;
	c->prefetch_factor = (int)o->prefetch_factor;
	c->images = o->images;
	c->epochs = (int)o->epochs;
	c->max_batches = o->max_batches;
	c->shuffle = o->shuffle;
	c->drop_last = o->drop_last;
	c->seed = o->seed;
	c->sched_seed = o->seed;
	c->order = (enum loader_order)o->order;   /* ORDER_CHOICES: in the enum's order */
	c->policy = (enum loader_policy)o->policy;
	c->speedy_timeout_pct = o->speedy_pct;
	c->pin_memory = o->pin;
	c->h2d_bytes_per_s = o->h2d;
	c->pin_bytes_per_s = o->pin_bw;
	c->sample_bytes = (double)o->sample_bytes;
	c->machine.cores = o->cores;
	c->machine.tpc = o->tpc;
	c->machine.alpha = o->alpha;
	c->machine.beta = o->beta;
	c->machine.main_threads = o->main_threads;
	c->machine.smt_static = o->smt_static;
}

/* The "model" block of a results folder: what the figures come from. */
static json_t *model_block(const struct model_cfg *c)
{
	json_t *b = json_object();
	json_object_set_new(b, "source", json_string(c->src->what));
	json_object_set_new(b, "gpu_step_ns", json_real(c->gpu_step_ns));
	json_object_set_new(b, "cores", json_real(c->machine.cores));
	json_object_set_new(b, "threads_per_core", json_real(c->machine.tpc));
	json_object_set_new(b, "alpha", json_real(c->machine.alpha));
	json_object_set_new(b, "beta", json_real(c->machine.beta));
	json_object_set_new(b, "main_threads", json_real(c->machine.main_threads));
	json_object_set_new(b, "smt_static", json_boolean(c->machine.smt_static));
	json_object_set_new(b, "ref_busy_threads", json_real(c->machine.ref_busy));
	return b;
}

/* --out: the modelled run as a results folder, as `ppbench run` writes one
 * (summary.json with tool "model", batches.csv, ops.csv). */
static int write_folder(const char *root, const struct model_cfg *c, const struct model_out *o,
			const struct run_metrics *m, json_t *options, char *final, size_t finallen,
			char *err, size_t errlen)
{
	char tag[64], tmp[PATH_MAX], name[256];
	snprintf(tag, sizeof(tag), "model-w%d-b%d-g%d", c->workers, c->batch_size, c->gpus);
	if (results_dir_begin(root, tag, tmp, sizeof(tmp), name, sizeof(name), err, errlen))
		return -1;
	json_t *blocks = json_object();
	json_object_set(blocks, "options", options);
	json_object_set_new(blocks, "model", model_block(c));
	struct results_in in = { .m = m, .t = &o->trace, .tool = "model", .no_checksum = 1,
				 .blocks = blocks };
	int rc = results_write(tmp, &in, err, errlen);
	if (!rc)
		rc = results_dir_commit(root, tmp, name, final, finallen, err, errlen);
	json_decref(blocks);
	return rc;
}

/* One configuration: its figures in m (analysis_free after); with --out,
 * its results folder too. */
int model_one_out(const struct model_cfg *c, struct run_metrics *m, const char *out,
		  json_t *options, char *final, size_t finallen, char *err, size_t errlen)
{
	struct model_out o;
	if (model_run(c, &o, err, errlen))
		return -1;
	int rc = model_metrics(c, &o, m, err, errlen);
	if (!rc && out && write_folder(out, c, &o, m, options, final, finallen, err, errlen)) {
		analysis_free(m);
		rc = -1;
	}
	model_out_free(&o);
	return rc;
}

int model_parse_ints(const char *s, int *v, int max, const char *what, char *err, size_t errlen)
{
	int n = 0;
	const char *p = s;
	while (list_next(&p)) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p || x < 1 || x > 100000 || n == max) {
			snprintf(err, errlen, "%s: '%s' is not a list of up to %d counts of at least 1", what, s, max);
			return -1;
		}
		v[n++] = (int)x;
		p = end;
	}
	if (!n)
		snprintf(err, errlen, "%s: empty list", what);
	return n ? n : -1;
}

/* --fit "W:MS,...": alpha and beta of the machine. */
int model_do_fit(const struct model_opts *o, struct model_machine *mm, double *base_ms, char *err,
		 size_t errlen)
{
	double n[64], t[64];
	int W[64];
	size_t k = 0;
	const char *p = o->fit;
	while (k < 64 && list_next(&p)) {
		char *e1, *e2;
		long w = strtol(p, &e1, 10);
		double ms = *e1 == ':' ? strtod(e1 + 1, &e2) : 0;
		if (e1 == p || *e1 != ':' || w < 1 || !(ms > 0)) {
			snprintf(err, errlen, "--fit: '%s' is not a list of W:MS pairs (e.g. 8:8018,16:8954)", o->fit);
			return -1;
		}
		W[k] = (int)w;
		n[k] = (double)w + o->main_threads + (o->pin ? 1 : 0);
		t[k++] = ms;
		p = e2;
	}
	if (k < 2 || mm->cores <= 0) {
		snprintf(err, errlen, "--fit needs --cores and at least two W:MS pairs");
		return -1;
	}
	double base, e;
	model_fit(mm, n, W, t, k, &base, &e);
	*base_ms = base;
	printf("fit: alpha %.5f (each further busy core slows a sample by %.2f %%), beta %.2f (a second "
	       "hardware thread adds %.0f %% of a core), per-batch time alone %.2f ms; median error %.2f %% "
	       "over %zu points\n", mm->alpha, mm->alpha * 100, mm->beta, mm->beta * 100, base, e, k);
	return 0;
}

/* The GPU utilisation of c at W workers (c->machine as it is) once the
 * first batch is there (the wait for it is the same at any scale), or -1. */
static double util_at(struct model_cfg *c, int W, double *e2e, char *err, size_t errlen)
{
	struct model_out o;
	c->workers = W;
	if (model_run(c, &o, err, errlen))
		return -1;
	double busy = (double)o.gpu_busy_ns, idle = (double)(o.gpu_idle_ns - o.first_ns);
	double u = busy + idle > 0 ? 100 * busy / (busy + idle) : 0;
	if (e2e)
		*e2e = (double)(o.opts.end_ns - o.opts.start_ns) / 1e9;
	model_out_free(&o);
	return u;
}

/* The fewest workers in [1, hi] that reach target (utilisation grows with
 * W up to the machine's threads: a binary search), 0 when hi does not. */
static int fewest_workers(struct model_cfg *c, int hi, double target, char *err, size_t errlen)
{
	double u = util_at(c, hi, NULL, err, errlen);
	if (u < 0)
		return -1;
	if (u < target)
		return 0;
	int lo = 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		u = util_at(c, mid, NULL, err, errlen);
		if (u < 0)
			return -1;
		if (u >= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

#define PROV_MAX_WORKERS 512

/* --target-gpu-util: the fewest workers on this machine shape, the fewest
 * cores (same threads per core and contention) with their workers, and
 * where E2E flattens. */
int model_provision(struct model_cfg *c, double target, char *err, size_t errlen)
{
	struct model_machine mm = c->machine;
	int G = c->gpus;
	/* the workers the GPUs need if nothing else mattered: a bound to search under */
	double need = c->gpu_step_ns > 0 ? target / 100 * c->batch_size / c->gpu_step_ns *
					   model_src_image_ns(c->src) : PROV_MAX_WORKERS;
	int cap = (int)fmin(fmax(4 * need, 64), 65536);
	int hiw = mm.cores > 0 ? (int)(mm.cores * mm.tpc) + 4 : cap;
	int W = fewest_workers(c, hiw, target, err, errlen);
	if (W < 0)
		return -1;
	printf("provisioning for %.0f %% GPU utilisation (after the first batch), %d GPU%s:\n", target,
	       G, G == 1 ? "" : "s");
	double pin_ns = c->pin_memory && c->pin_bytes_per_s > 0 ?
			c->batch_size * c->sample_bytes / c->pin_bytes_per_s * 1e9 : 0;
	if (pin_ns > c->gpu_step_ns * 100 / target)
		printf("  note: the pin thread copies a batch in %.2f ms, longer than the step (%.2f ms): "
		       "it caps the GPUs below the target whatever the workers (--pin-bandwidth)\n",
		       pin_ns / 1e6, c->gpu_step_ns / 1e6);
	if (!W)
		printf("  workers: not reached with up to %d workers on this machine shape\n", hiw);
	else
		printf("  workers: %d (%.1f per GPU)%s\n", W, (double)W / G,
		       mm.cores > 0 ? " on this machine shape" : " (no contention: --cores 0)");
	if (mm.cores > 0) {
		/* the fewest cores: a binary search over the core count */
		int lo = 1, hi = cap, best = 0, bw = 0;
		while (lo <= hi) {
			int mid = (lo + hi) / 2;
			c->machine.cores = mid;
			int w = fewest_workers(c, (int)(mid * mm.tpc) + 4, target, err, errlen);
			if (w < 0)
				return -1;
			if (w) {
				best = mid;
				bw = w;
				hi = mid - 1;
			} else {
				lo = mid + 1;
			}
		}
		c->machine = mm;
		if (best)
			printf("  cores: %d (%.1f per GPU, %.0f threads each), with %d workers\n", best,
			       (double)best / G, mm.tpc, bw);
		else
			printf("  cores: not reached with up to %d cores\n", cap);
	}
	/* where the curve flattens: E2E at 1, 2, 4, ... workers */
	int ws[16], n = 0;
	double e2e[16];
	for (int w = 1; w <= (W ? 4 * W : hiw) && n < 16; w *= 2) {
		if (util_at(c, w, &e2e[n], err, errlen) < 0)
			return -1;
		ws[n++] = w;
	}
	int knee = knee_of(ws, e2e, (size_t)n, KNEE_GAIN_PCT);
	if (knee)
		printf("  E2E flattens at %d workers (the next doubling gains under %.0f %%)\n", knee,
		       KNEE_GAIN_PCT);
	else
		printf("  E2E still falls by %.0f %% or more per doubling up to %d workers\n",
		       KNEE_GAIN_PCT, ws[n - 1]);
	return 0;
}
