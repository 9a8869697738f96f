/* The plan of a sweep before it runs (ppbench sweep --dry-run, and the
 * check every sweep makes up front): per configuration the memory it needs
 * (the loader's own plan, loader_plan), whether it fits, its images, and an
 * estimated time from a short probe; for a configuration that cannot fit,
 * the nearest change that makes it fit and what that change does to the
 * measurement. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "consumer.h"
#include "generate.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "noise.h"
#include "pipeline.h"
#include "run.h"
#include "sweep.h"

/* The memory a configuration needs; 1 when it does not fit, 0 when it
 * does, -1 with err when it cannot be planned at all. */
static int plan_fits(const struct run_opts *o, const struct pipeline *pipe,
		     const struct dataset *ds, struct loader_plan *pl, char *err, size_t errlen)
{
	struct loader_cfg lc = run_loader_cfg(o, pipe, ds, 0);
	if (loader_plan(&lc, pl, err, errlen) == 0)
		return 0;
	return pl->need_bytes && pl->avail_bytes && pl->need_bytes > pl->avail_bytes ? 1 : -1;
}

/* The nearest change that makes o fit, least change to the measurement
 * first: into `change` (the options) and `effect` (what it changes). 0
 * found (*fix has its plan), -1 none. */
static int nearest_fit(const struct run_opts *o, const struct pipeline *pipe,
		       const struct dataset *ds, struct loader_plan *fix, char *change, size_t nc,
		       char *effect, size_t ne)
{
	char err[1024];
	struct run_opts t = *o;
	if (o->pin) {
		t.pin = 0;
		if (plan_fits(&t, pipe, ds, fix, err, sizeof(err)) == 0) {
			snprintf(change, nc, "--pin-memory off");
			snprintf(effect, ne, "no pin thread: its copy of each batch into page-locked "
				 "memory, and the delay it adds to the batch that is due, are not measured");
			return 0;
		}
		t.pin = o->pin;
	}
	if (o->prefetch > 1) {
		t.prefetch = 1;
		if (plan_fits(&t, pipe, ds, fix, err, sizeof(err)) == 0) {
			snprintf(change, nc, "--prefetch-factor 1");
			snprintf(effect, ne, "W batches in flight instead of %ld x W: less buffering "
				 "against a slow batch, so more waiting than PyTorch's default", o->prefetch);
			return 0;
		}
		t.prefetch = o->prefetch;
	}
	for (long b = o->batch / 2; b >= 1; b /= 2) {
		t.batch = b;
		if (plan_fits(&t, pipe, ds, fix, err, sizeof(err)) == 0) {
			snprintf(change, nc, "--batch %ld", b);
			snprintf(effect, ne, "per-batch figures (collate, wait, delay) are for %ld images; "
				 "the simulated GPU step scales with the batch (as make reproduce does), "
				 "so the CPU:GPU balance per image stays the paper's", b);
			return 0;
		}
	}
	return -1;
}

/* Batches and images a configuration runs (its schedule's sizes). */
static void run_size(const struct run_opts *o, size_t n, uint64_t *batches, uint64_t *images)
{
	size_t B = (size_t)o->batch;
	size_t per_epoch = o->drop_last ? n / B : (n + B - 1) / B;
	size_t per_images = o->drop_last ? per_epoch * B : n;
	uint64_t nb = (uint64_t)per_epoch * (uint64_t)o->epochs;
	uint64_t ni = (uint64_t)per_images * (uint64_t)o->epochs;
	if (o->max_batches && o->max_batches < nb) {
		nb = o->max_batches;
		ni = nb * B < ni ? nb * B : ni;
	}
	*batches = nb;
	*images = ni;
}

/* Seconds of one worker's preprocessing per image: a short run of 1
 * worker over up to 32 images (no trace, no pin, no GPU step). */
static double probe_s_per_image(const struct run_opts *o, const struct pipeline *pipe,
				const struct dataset *ds)
{
	struct run_opts t = *o;
	char err[1024];
	t.workers = 1;
	t.batch = ds->n < 16 ? (long)ds->n : 16;
	t.max_batches = 2;
	t.epochs = 1;
	t.pin = 0;
	t.trace = 0;
	t.checksum = 0;
	t.policy = 0;
	struct loader_cfg lc = run_loader_cfg(&t, pipe, ds, 0);
	struct loader_plan pl;
	struct loader_result r;
	if (loader_plan(&lc, &pl, err, sizeof(err)) || loader_run(&lc, &pl, &r, err, sizeof(err)))
		return -1;
	double s = r.images ? (double)(r.end_ns - r.start_ns) / 1e9 / (double)r.images : -1;
	loader_result_free(&r);
	return s;
}

static void fmt_time(double s, char *out, size_t n)
{
	if (s < 90)
		snprintf(out, n, "%.0f s", s);
	else if (s < 5400)
		snprintf(out, n, "%.0f min", s / 60);
	else
		snprintf(out, n, "%.1f h", s / 3600);
}

/* What the steps of sweep_plan share: the options, pipeline and dataset
 * every configuration starts from, and the running totals. */
struct plan_state {
	const struct sweep_grid *g;
	int dry_run;
	FILE *f;
	char **argv;
	struct run_opts o;
	struct pipeline pipe;
	struct dataset ds;
	char data_path[4096];
	int ncpu;
	double per_img;                /* probe's seconds per image; <= 0 none */
	size_t nconf, nfit, nother;
	uint64_t total_images;
	double total_s;
	char avail[32];                /* memory available, as the last plan saw it */
};

/* Parse run_args as ppbench run does, load the pipeline and scan the
 * dataset. 0 done; -1 (message printed, nothing left to release). */
static int plan_load(struct plan_state *ps, char **run_args, size_t nargs)
{
	char err[1024];
	int npos = 0;
	ps->argv = calloc(nargs + 2, sizeof(*ps->argv));
	if (!ps->argv) {
		error_msg("out of memory");
		return -1;
	}
	ps->argv[0] = "run";
	for (size_t i = 0; i < nargs; i++)
		ps->argv[i + 1] = run_args[i];
	if (opts_defaults(run_opts_table, &ps->o, err, sizeof(err)) ||
	    opts_parse(run_opts_table, &ps->o, (int)nargs + 1, ps->argv, 1, &npos, err, sizeof(err)) < 0) {
		error_msg("%s", err);
		free(ps->argv);
		return -1;
	}
	if (pipeline_load(&ps->pipe, ps->o.pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		free(ps->argv);
		return -1;
	}
	if (!ps->o.data) {
		if (dataset_ensure_default(ps->data_path, sizeof(ps->data_path), err, sizeof(err))) {
			error_msg("%s", err);
			pipeline_release(&ps->pipe);
			free(ps->argv);
			return -1;
		}
		ps->o.data = ps->data_path;
	}
	if (dataset_scan(&ps->ds, ps->o.data, err, sizeof(err))) {
		error_msg("%s", err);
		pipeline_release(&ps->pipe);
		free(ps->argv);
		return -1;
	}
	return 0;
}

/* The estimated time of a configuration that fits (est: "?" without a
 * probe), added to the total. */
static void plan_estimate(struct plan_state *ps, const struct run_opts *t, uint64_t nbat,
			  uint64_t nimg, char *est, size_t n)
{
	char err[1024];
	uint64_t step_ns = 0;
	snprintf(est, n, "?");
	if (run_gpu_step(t, &step_ns, err, sizeof(err)))
		step_ns = 0;
	if (ps->per_img > 0) {
		long par = t->workers < ps->ncpu ? t->workers : ps->ncpu;
		double cpu_s = (double)nimg * ps->per_img / (double)par;
		double gpu_s = (double)nbat * (double)step_ns / 1e9;
		double s = (cpu_s > gpu_s ? cpu_s : gpu_s) + 0.5;
		ps->total_s += s * (double)ps->g->repeat;
		fmt_time(s, est, n);
	}
}

/* A configuration that does not fit: the nearest change that makes it
 * fit, on f with --dry-run, as an error otherwise. */
static void plan_report_unfit(struct plan_state *ps, const struct run_opts *t, const char *tag,
			      const char *need)
{
	struct loader_plan fix;
	char change[64], effect[512], line[1024];
	if (nearest_fit(t, &ps->pipe, &ps->ds, &fix, change, sizeof(change), effect,
			sizeof(effect)) == 0) {
		char fx[32];
		loader_human_bytes(fix.need_bytes, fx, sizeof(fx));
		snprintf(line, sizeof(line), "memory %9s  DOES NOT FIT (%s available); nearest: "
			 "%s (%s): %s", need, ps->avail, change, fx, effect);
	} else {
		snprintf(line, sizeof(line), "memory %9s  DOES NOT FIT (%s available), even with "
			 "batch 1: fewer workers", need, ps->avail);
	}
	fprintf(ps->dry_run ? ps->f : stderr, "%s%-22s %s\n", ps->dry_run ? "  " : "ppbench: error: ",
		tag, line);
}

/* Plan one configuration t (named tag) and count it. */
static void plan_config(struct plan_state *ps, const struct run_opts *t, const char *tag)
{
	struct loader_plan pl;
	char err[1024], need[32];
	int rc = plan_fits(t, &ps->pipe, &ps->ds, &pl, err, sizeof(err));
	if (rc < 0) {
		/* not a question of memory: the run itself says why (and a
		 * sweep records it as a failed run) */
		ps->nother++;
		if (ps->dry_run)
			fprintf(ps->f, "  %-22s CANNOT RUN: %s\n", tag, err);
		return;
	}
	loader_human_bytes(pl.need_bytes, need, sizeof(need));
	loader_human_bytes(pl.avail_bytes, ps->avail, sizeof(ps->avail));
	uint64_t nbat, nimg;
	run_size(t, ps->ds.n, &nbat, &nimg);
	if (rc != 0) {
		plan_report_unfit(ps, t, tag, need);
		return;
	}
	ps->nfit++;
	ps->total_images += nimg * (uint64_t)ps->g->repeat;
	char est[32];
	plan_estimate(ps, t, nbat, nimg, est, sizeof(est));
	if (ps->dry_run)
		fprintf(ps->f, "  %-22s memory %9s  fits         %9" PRIu64 " images  about %s\n",
			tag, need, nimg, est);
}

/* the first line of a dry run: the grid, the pipeline, the data, the probe */
static void plan_print_header(const struct plan_state *ps)
{
	const struct sweep_grid *g = ps->g;
	char probe[64] = "no probe (it failed)";
	if (ps->per_img > 0)
		snprintf(probe, sizeof(probe), "probe %.2f ms per image on 1 worker",
			 ps->per_img * 1e3);
	fprintf(ps->f, "sweep plan: %zu configuration%s x %ld repeat%s, pipeline %s, %s (%zu images); "
		"%s, %d CPU%s\n", ps->nconf, ps->nconf == 1 ? "" : "s", g->repeat,
		g->repeat == 1 ? "" : "s", ps->pipe.name, ps->ds.root, ps->ds.n, probe, ps->ncpu,
		ps->ncpu == 1 ? "" : "s");
}

/* the total line of a dry run, or the error that nothing ran */
static void plan_print_total(const struct plan_state *ps)
{
	const size_t nconf = ps->nconf, nfit = ps->nfit, nother = ps->nother;
	if (ps->dry_run) {
		char tot[32] = "?";
		if (ps->per_img > 0)
			fmt_time(ps->total_s, tot, sizeof(tot));
		fprintf(ps->f, "total: %zu of %zu configuration%s fit in %s; the %zu that fit: %" PRIu64
			" images, about %s (estimate: the probe's time per image over min(W, CPUs) "
			"workers, or the GPU steps if longer)\n", nfit, nconf, nconf == 1 ? "" : "s",
			ps->avail, nfit, ps->total_images, tot);
	} else if (nfit + nother < nconf) {
		error_msg("%zu of %zu configurations cannot fit in memory (%s available): nothing ran; "
		      "apply the change named to those, or leave them out (ppbench sweep --dry-run "
		      "shows the plan)", nconf - nfit - nother, nconf, ps->avail);
	}
}

int sweep_plan(const struct sweep_grid *g, char **run_args, size_t nargs, int dry_run, FILE *f)
{
	struct plan_state st = { .g = g, .dry_run = dry_run, .f = f, .avail = "?" };
	struct plan_state *ps = &st;
	if (plan_load(ps, run_args, nargs))
		return -1;
	struct cpus cpus;
	cpus_read(&cpus);
	ps->ncpu = cpus_usable_int(&cpus);
	ps->per_img = dry_run ? probe_s_per_image(&ps->o, &ps->pipe, &ps->ds) : -1;
	ps->nconf = g->nb * g->ng * g->np * (g->tied ? 1 : g->nw);
	{	/* more workers than CPUs: said before anything runs (commands.h) */
		long wk[256];
		size_t nk = 0;
		for (size_t i = 0; i < (g->tied ? g->ng : g->nw) && nk < 256; i++)
			wk[nk++] = g->tied ? g->g[i] : g->w[i];
		warn_oversubscribed(wk, nk, ps->ncpu, "the sweep's runs");
	}
	if (dry_run)
		plan_print_header(ps);
	for (size_t ib = 0; ib < g->nb; ib++)
	for (size_t ig = 0; ig < g->ng; ig++)
	for (size_t ip = 0; ip < g->np; ip++)
	for (size_t iw = 0; iw < (g->tied ? 1 : g->nw); iw++) {
		struct run_opts t = ps->o;
		t.batch = g->b[ib];
		t.gpus = g->g[ig];
		t.workers = g->tied ? g->g[ig] : g->w[iw];
		t.policy = g->pol[ip];
		char tag[64];
		snprintf(tag, sizeof(tag), "w%ld-b%ld-g%ld%s%s", t.workers, t.batch, t.gpus,
			 g->np > 1 ? "-" : "", g->np > 1 ? g->pol_name[g->pol[ip]] : "");
		plan_config(ps, &t, tag);
	}
	plan_print_total(ps);
	int rc = ps->nfit + ps->nother < ps->nconf ? 1 : 0;
	dataset_release(&ps->ds);
	pipeline_release(&ps->pipe);
	free(ps->argv);
	return rc;
}
