/* ppbench model: the loader's protocol as a discrete-event model (model.h),
 * for one configuration or a worker sweep, and its validation against the
 * paper's figures (--validate). */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "consumer.h"
#include "emit.h"
#include "knee.h"
#include "log.h"
#include "metrics.h"
#include "model.h"
#include "options.h"

struct model_opts {
	const char *workers;
	long batch_size, gpus, prefetch_factor, epochs, batch_of;
	const char *gpu_step, *h2d_s, *pin_s;
	double h2d, pin_bw;
	int pin, order, policy, shuffle, drop_last, paper, validate, csv;
	double speedy_pct;
	uint64_t images, max_batches, seed, sample_bytes;
	const char *from, *fit, *batch_times;
	double batch_ms, batch_std, batch_noise, sample_ms, sample_cv, collate_ms;
	double cores, tpc, alpha, beta, main_threads, ref_workers;
	int smt_static;
	double target_util;
	const char *out;
};

#define O(f) offsetof(struct model_opts, f)
static const struct opt model_optt[] = {
	{ "workers", 'w', OPT_LIST, O(workers), "2", "LIST",
	  "worker count, or a list (\"8 12 16\"): a worker sweep with its knee", .choices = NULL },
	{ "batch", 'b', OPT_INT, O(batch_size), "128", "B", "samples per batch", .lo = 1, .hi = 65536 },
	{ "gpus", 'g', OPT_INT, O(gpus), "2", "G", "GPUs (chooses the auto step time)", .lo = 1, .hi = 1024 },
	{ "gpu-step", 0, OPT_STR, O(gpu_step), "auto", "TIME|auto|Nimg/s",
	  "step per batch: a time, the measured ResNet18/V100 table, or a throughput per GPU" , .choices = NULL },
	{ "h2d-bandwidth", 0, OPT_STR, O(h2d_s), "none", "RATE|none",
	  "host-to-device copy before each step (none: the auto step includes it)", .choices = NULL },
	{ "pin-bandwidth", 0, OPT_STR, O(pin_s), "8GB/s", "RATE|none",
	  "the pin thread's copy of each batch (none: free)", .choices = NULL },
	{ "sample-bytes", 0, OPT_SIZE, O(sample_bytes), "602112", "BYTES",
	  "one sample's output (3 x 224 x 224 float32)" , .choices = NULL },
	{ "prefetch-factor", 'P', OPT_INT, O(prefetch_factor), "2", "P", "tasks per worker in flight", .lo = 1, .hi = 1024 },
	{ "pin-memory", 0, OPT_BOOL, O(pin), "on", NULL, "a pin thread copies each batch" , .choices = NULL },
	{ "order", 0, OPT_ENUM, O(order), "inorder", NULL, "hand-over order", .choices = ORDER_CHOICES },
	{ "policy", 0, OPT_ENUM, O(policy), "torch", NULL, "loader policy",
	  .choices = POLICY_CHOICES },
	{ "speedy-timeout-pct", 0, OPT_DOUBLE, O(speedy_pct), "75", "PCT",
	  "speedy: the warm-up percentile that is the timeout", .lo = 1, .hi = 100 },
	{ "images", 'n', OPT_U64, O(images), "1281167", "N", "dataset size (ImageNet train)", .lo = 1, .hi = 1e12 },
	{ "epochs", 'e', OPT_INT, O(epochs), "1", "N", "passes over the dataset", .lo = 1, .hi = 10000 },
	{ "max-batches", 0, OPT_U64, O(max_batches), "0", "N", "stop after N batches (0: all)" , .choices = NULL },
	{ "shuffle", 0, OPT_BOOL, O(shuffle), "on", NULL, "shuffle each epoch" , .choices = NULL },
	{ "drop-last", 0, OPT_BOOL, O(drop_last), "off", NULL, "drop the last, smaller batch" , .choices = NULL },
	OPT_SEED(struct model_opts, seed, "seed of the model's draws"),
	{ "from", 0, OPT_STR, O(from), NULL, "RESULTS",
	  "costs of a measured run (ppbench run's folder): per-sample costs, or per-batch times" , .choices = NULL },
	{ "batch-ms", 0, OPT_DOUBLE, O(batch_ms), "0", "MS", "costs: per-batch mean, ms", .lo = 0, .hi = 1e9 },
	{ "batch-std", 0, OPT_DOUBLE, O(batch_std), "10", "PCT", "costs: per-batch std, % of the mean",
	  .lo = 0, .hi = 1000 },
	{ "batch-of", 0, OPT_INT, O(batch_of), "0", "B", "the batch size --batch-ms is for (0: --batch)",
	  .lo = 0, .hi = 65536 },
	{ "batch-times", 0, OPT_LIST, O(batch_times), NULL, "MS,...",
	  "costs: batch j takes the (j mod n)-th time, ms (a replay)", .choices = NULL },
	{ "sample-ms", 0, OPT_DOUBLE, O(sample_ms), "0", "MS", "costs: per-sample mean (sum of the op means), ms",
	  .lo = 0, .hi = 1e9 },
	{ "sample-cv", 0, OPT_DOUBLE, O(sample_cv), "0.2", "CV", "costs: per-sample std / mean", .lo = 0, .hi = 100 },
	{ "collate-ms", 0, OPT_DOUBLE, O(collate_ms), "0", "MS", "costs: collation per batch of --batch, ms",
	  .lo = 0, .hi = 1e9 },
	{ "batch-noise", 0, OPT_DOUBLE, O(batch_noise), "-1", "PCT",
	  "per-sample costs: spread (cv, %) of a factor common to a batch's samples (-1: --from's "
	  "estimate, 6.94 with --paper, 0 otherwise)", .lo = -1, .hi = 1000 },
	{ "paper", 0, OPT_BOOL, O(paper), "off", NULL,
	  "costs: the paper's Table II per-op means (per sample, and collation)" , .choices = NULL },
	{ "cores", 0, OPT_DOUBLE, O(cores), "0", "N", "the machine's physical cores (0: no contention)",
	  .lo = 0, .hi = 1e6 },
	{ "threads-per-core", 0, OPT_DOUBLE, O(tpc), "2", "N", "hardware threads per core", .lo = 1, .hi = 8 },
	{ "alpha", 0, OPT_DOUBLE, O(alpha), "0", "A", "contention: slowdown per further busy core", .lo = 0, .hi = 1 },
	{ "beta", 0, OPT_DOUBLE, O(beta), "0.3", "B", "contention: what a second hardware thread adds to a core",
	  .lo = 0, .hi = 1 },
	{ "smt-static", 0, OPT_BOOL, O(smt_static), "on", NULL,
	  "threads keep their place: workers sharing a core are slower for whole tasks", .choices = NULL },
	{ "main-threads", 0, OPT_DOUBLE, O(main_threads), "1", "N", "busy threads of the main process",
	  .lo = 0, .hi = 64 },
	{ "ref-workers", 0, OPT_DOUBLE, O(ref_workers), "0", "W",
	  "workers of the run the costs come from (0: --from's, or no contention in the costs)", .lo = 0, .hi = 1e6 },
	{ "fit", 0, OPT_LIST, O(fit), NULL, "W:MS,...",
	  "fit alpha and beta to per-batch means (ms) measured at worker counts" , .choices = NULL },
	{ "target-gpu-util", 0, OPT_DOUBLE, O(target_util), "0", "PCT",
	  "provisioning: the fewest workers and cores that keep the GPUs this busy (0: off)",
	  .lo = 0, .hi = 100 },
	OPT_OUT(struct model_opts, out, NULL,
		"also write each configuration as a results folder (tool \"model\") under DIR"),
	{ "validate", 0, OPT_BOOL, O(validate), "off", NULL, "compare the model with the paper's figures" , .choices = NULL },
	{ "csv", 0, OPT_BOOL, O(csv), "off", NULL, "machine-readable output (CSV, metric-table names)" , .choices = NULL },
	OPT_END
};
#undef O

static const char usage[] = "ppbench model [options]   |   ppbench model --validate [SWEEP_DIR...]";
static const char description[] =
	"A discrete-event model of the loader's protocol (the same rules as ppbench run), driven\n"
	"by costs from a measured run (--from), stated figures (--batch-ms/--batch-std,\n"
	"--sample-ms/--collate-ms) or the paper's Table II (--paper); the machine's contention\n"
	"(--cores, --threads-per-core, --alpha/--beta, or --fit). Prints the run's figures\n"
	"under the metric table's names; a worker list prints one row per count and the knee.\n"
	"--validate compares the model with the paper's Figs. 4-6, and with the measured runs\n"
	"of sweep folders of this machine when given (costs from their W = 1 run). See docs/model.md.\n"
	"Exit status: 0 done; 1 the model failed (or a validation missed); 2 a bad option.";

/* The figures printed for each configuration: metric-table names. */
static const char *const shown[] = {
	"e2e_s", "images_per_s", "ooo_pct", "stall_pct", "wait_gt_500ms_pct", "delay_gt_500ms_pct",
	"delay_avg_ms", "gpu_util_pct", "preproc_avg_ms", "preproc_std_pct", "workers_cpu_s",
};
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

/* A bandwidth, or none (0). */
static int rate_opt(const char *name, const char *s, double *out, char *err, size_t errlen)
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
static int step_ns(const struct model_opts *o, double *out, char *err, size_t errlen)
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

static int make_src(const struct model_opts *o, struct model_src *s, int *ref_w, char *err,
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

static void base_cfg(const struct model_opts *o, struct model_cfg *c)
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
static int model_one_out(const struct model_cfg *c, struct run_metrics *m, const char *out,
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

static int parse_ints(const char *s, int *v, int max, const char *what, char *err, size_t errlen)
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
static int do_fit(const struct model_opts *o, struct model_machine *mm, double *base_ms, char *err,
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

static void print_header(FILE *f, int csv)
{
	fprintf(f, csv ? "workers" : "%7s", "workers");
	for (size_t i = 0; i < NSHOWN; i++)
		fprintf(f, csv ? ",%s" : " %14s", shown[i]);
	fputc('\n', f);
}

static void print_row(FILE *f, int w, const struct run_metrics *m, int csv)
{
	fprintf(f, csv ? "%d" : "%7d", w);
	for (size_t i = 0; i < NSHOWN; i++) {
		double v = metric_of_run(metric_find(shown[i]), m);
		if (csv) {
			fputc(',', f);
			metric_put_num(f, v);
		} else {
			fprintf(f, " %14.2f", v);
		}
	}
	fputc('\n', f);
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
static int provision(struct model_cfg *c, double target, char *err, size_t errlen)
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

int cmd_model(int argc, char **argv)
{
	struct model_opts o;
	char err[1024];
	int npos = 0;
	int rc = opts_prelude(model_optt, &o, argc, argv, &npos, usage, description, NULL);
	if (rc >= 0)
		return rc;
	if (npos && !o.validate) {
		error_msg("ppbench model takes no arguments (sweep folders go with --validate)");
		return EXIT_USAGE;
	}
	if (o.validate)
		return model_validate(o.csv, (const char *const *)argv + 1, (size_t)npos);
	int ws[256];
	int nw = parse_ints(o.workers, ws, 256, "--workers", err, sizeof(err));
	struct model_src src;
	int ref_w, src_rc = 0;
	double step;
	if (nw < 0 || rate_opt("--h2d-bandwidth", o.h2d_s, &o.h2d, err, sizeof(err)) ||
	    rate_opt("--pin-bandwidth", o.pin_s, &o.pin_bw, err, sizeof(err)) ||
	    step_ns(&o, &step, err, sizeof(err)) || (src_rc = make_src(&o, &src, &ref_w, err, sizeof(err))) < 0) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	struct model_cfg c;
	base_cfg(&o, &c);
	c.gpu_step_ns = step;
	c.src = &src;
	if (o.from) {
		/* what the run says of its harness: the main thread's own work,
		 * the workers' start-up, the GPU's lateness (the pin copy's
		 * bandwidth stays --pin-bandwidth's) */
		model_cfg_run_terms(&c, &src);
		c.pin_bytes_per_s = o.pin_bw;
	}
	double fit_ms = 0;
	if (o.fit && do_fit(&o, &c.machine, &fit_ms, err, sizeof(err))) {
		error_msg("%s", err);
		if (!src_rc)
			model_src_free(&src);
		return EXIT_USAGE;
	}
	if (src_rc == 1)
		model_src_batch_normal(&src, fit_ms, o.batch_std, o.batch_of ? (int)o.batch_of : c.batch_size);
	if (ref_w > 0)
		c.machine.ref_busy = ref_w + o.main_threads + (o.pin ? 1 : 0);
	if (o.batch_noise >= 0 && src.kind != MSRC_BATCH_NORMAL && src.kind != MSRC_BATCH_EMPIRICAL &&
	    src.kind != MSRC_BATCH_LIST)
		src.batch_noise = o.batch_noise / 100;
	if (!o.csv)
		printf("model: costs from %s; step %.2f ms per batch\n", src.what, step / 1e6);
	if (!o.csv && c.machine.cores <= 0)
		printf("machine: without contention (--cores 0)\n");
	if (!o.csv && c.machine.cores > 0)
		printf("machine: %.0f cores x %.0f threads, alpha %.5f, beta %.2f, main process %.1f "
		       "busy threads\n", c.machine.cores, c.machine.tpc, c.machine.alpha,
		       c.machine.beta, c.machine.main_threads);
	if (o.target_util > 0) {
		int rc2 = provision(&c, o.target_util, err, sizeof(err));
		if (rc2)
			error_msg("%s", err);
		model_src_free(&src);
		return rc2 ? EXIT_FAIL : EXIT_OK;
	}
	print_header(stdout, o.csv);
	double e2e[256];
	int ret = EXIT_OK;
	json_t *options = o.out ? opts_json(model_optt, &o) : NULL;
	for (int i = 0; i < nw; i++) {
		c.workers = ws[i];
		struct run_metrics m;
		char final[PATH_MAX + 256] = "";
		if (model_one_out(&c, &m, o.out, options, final, sizeof(final), err, sizeof(err))) {
			error_msg("%s", err);
			ret = EXIT_FAIL;
			break;
		}
		print_row(stdout, ws[i], &m, o.csv);
		if (final[0] && !o.csv)
			printf("%7s results: %s\n", "", final);
		e2e[i] = m.e2e_s;
		analysis_free(&m);
	}
	if (!ret && nw > 1 && !o.csv) {
		int knee = knee_of(ws, e2e, (size_t)nw, KNEE_GAIN_PCT);
		if (knee)
			printf("knee: %d workers (the first step that gains under %.0f %% of E2E)\n", knee,
			       KNEE_GAIN_PCT);
		else
			printf("knee: none in this range (every step gains %.0f %% of E2E or more)\n",
			       KNEE_GAIN_PCT);
	}
	json_decref(options);
	model_src_free(&src);
	return ret;
}
