/* The plan of a sweep before it runs (ppbench sweep --dry-run, and the
 * check every sweep makes up front): per configuration the memory it needs
 * (the loader's own plan, loader_plan), whether it fits, its images, and an
 * estimated time from a short probe; for a configuration that cannot fit,
 * the nearest change that makes it fit and what that change does to the
 * measurement. */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conventions.h"
#include "consumer.h"
#include "generate.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "noise.h"
#include "pipeline.h"
#include "report.h"
#include "run.h"
#include "sweep.h"
#include "pagecache.h"

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
	if (o->prefetch_factor > 1) {
		t.prefetch_factor = 1;
		if (plan_fits(&t, pipe, ds, fix, err, sizeof(err)) == 0) {
			snprintf(change, nc, "--prefetch-factor 1");
			snprintf(effect, ne, "W batches in flight instead of %ld x W: less buffering "
				 "against a slow batch, so more waiting than PyTorch's default", o->prefetch_factor);
			return 0;
		}
		t.prefetch_factor = o->prefetch_factor;
	}
	for (long b = o->batch_size / 2; b >= 1; b /= 2) {
		t.batch_size = b;
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
	size_t B = (size_t)o->batch_size;
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

/* What a short run of 1 worker over up to 32 images (no trace, no pin, no
 * GPU step) says of this machine now. */
struct probe {
	int stopped;       /* 128 + the signal that stopped it (SIGINT, SIGTERM, SIGHUP); 0 */
	double wall;       /* seconds per image of the worker, wall (<= 0: no probe) */
	double cpu;        /* its CPU seconds per image */
	double left;       /* the CPUs other processes left (usable CPUs less their share) */
};

static void probe_run(const struct run_opts *o, const struct pipeline *pipe,
		      const struct dataset *ds, int ncpu, struct probe *pr)
{
	struct run_opts t = *o;
	char err[1024];
	struct cpus cp;
	struct noise_snap n0, n1;
	struct noise nz;
	pr->wall = pr->cpu = -1;
	pr->left = ncpu;
	t.workers = 1;
	t.batch_size = ds->n < 16 ? (long)ds->n : 16;
	t.max_batches = 2;
	t.epochs = 1;
	t.pin = 0;
	t.trace = 0;
	t.checksum = 0;
	t.policy = 0;
	/* a thread: no process of the sweep's but its runs (a signal sent to
	 * the sweep's children reaches a run, never the probe) */
	t.backend = BACKEND_THREAD;
	struct loader_cfg lc = run_loader_cfg(&t, pipe, ds, 0);
	struct loader_plan pl;
	struct loader_result r;
	cpus_read(&cp);
	noise_read(&n0, &cp);
	if (loader_plan(&lc, &pl, err, sizeof(err)) || loader_run(&lc, &pl, &r, err, sizeof(err)))
		return;
	noise_read(&n1, &cp);
	noise_between(&n0, &n1, &cp, &nz);
	if (r.exit_code > 128)
		pr->stopped = r.exit_code;
	else if (r.images) {
		pr->wall = (double)(r.end_ns - r.start_ns) / 1e9 / (double)r.images;
		pr->cpu = r.worker_cpu_s ? r.worker_cpu_s[0] / (double)r.images : pr->wall;
		if (isfinite(nz.others_cpu_pct))
			pr->left = ncpu * (1 - fmin(fmax(nz.others_cpu_pct, 0), 100) / 100);
	}
	loader_result_free(&r);
}

static void fmt_time(double s, char *out, size_t n)
{
	if (!isfinite(s))
		snprintf(out, n, "?");
	else if (s < 90)
		snprintf(out, n, "%.0f s", s);
	else if (s < 5400)
		snprintf(out, n, "%.0f min", s / 60);
	else
		snprintf(out, n, "%.1f h", s / 3600);
}

/* files whose page-cache pass the plan times */
#define SWEEP_PLAN_DROP_FILES 64

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds per byte to set up a run's memory as the loader does (shared
 * anonymous pages populated up front, locked for pinned copies, unmapped at
 * the end), from 64 MiB; NaN when it cannot be measured. */
static double touch_s_per_byte(void)
{
	const size_t n = 64u << 20;
	double t0 = now_s();
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return NAN;
	if (mlock(p, n) == 0)
		munlock(p, n);
	munmap(p, n);
	return (now_s() - t0) / (double)n;
}

/* One configuration of the plan. */
struct plan_conf {
	struct run_opts t;
	char tag[64];
	int rc;                        /* plan_fits: 0 fits, 1 does not, -1 cannot run */
	char err[512];                 /* rc -1: why */
	struct loader_plan pl;
	uint64_t nbat, nimg;
	double est_s;                  /* one run, seconds; NaN: no probe */
	unsigned findings;             /* bit i: it counts for finding i + 1 */
};

/* What the steps of sweep_plan share: the options, pipeline and dataset
 * every configuration starts from, the configurations, and the totals. */
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
	int epochs_given, maxb_given;  /* the run arguments set --epochs, --max-batches */
	long epochs;                   /* what every run gets */
	int epochs_chosen;             /* by the sweep (struct sweep_plan_out) */
	char epochs_note[1024];        /* why chosen, or why not raised; "" nothing to say */
	struct probe pr;               /* the probe; pr.wall <= 0: none */
	double touch;                  /* seconds per byte of memory set up; NaN unknown */
	double start_s;                /* a run's start: the scan of the dataset, measured */
	size_t nconf, nfit, nother;
	struct plan_conf *conf;
	uint64_t total_images, total_batches;
	double runs_s, whatif_s, report_s;
	char avail[32];                /* memory available, as the last plan saw it */
	struct plan_finding pf[REPORT_NFINDINGS];
};

/* Parse run_args as ppbench run does, load the pipeline and scan the
 * dataset (timed: every run scans it). 0 done; -1 (message printed,
 * nothing left to release). */
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
	for (size_t i = 0; i < nargs; i++) {
		const char *a = run_args[i];
		ps->argv[i + 1] = run_args[i];
		ps->epochs_given |= !strcmp(a, "--epochs") || !strncmp(a, "--epochs=", 9) ||
				    !strncmp(a, "-e", 2);
		ps->maxb_given |= !strcmp(a, "--max-batches") || !strncmp(a, "--max-batches=", 14) ||
				  !strncmp(a, "-n", 2);
	}
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
	double t0 = now_s();
	if (dataset_scan(&ps->ds, ps->o.data, err, sizeof(err))) {
		error_msg("%s", err);
		pipeline_release(&ps->pipe);
		free(ps->argv);
		return -1;
	}
	/* a run: its start (exec, the scan), then writing its results */
	ps->start_s = now_s() - t0 + SWEEP_RUN_FIXED_S;
	return 0;
}

/* Batches an epoch has at batch size B (0: none, with --drop-last and
 * fewer images than B). */
static uint64_t batches_per_epoch(const struct run_opts *t, size_t n)
{
	size_t B = (size_t)t->batch_size;
	return t->drop_last ? n / B : (n + B - 1) / B;
}

/* The seconds one run of c takes (NaN without a probe): its start and its
 * memory set up at the measured rate; then its images, each worker as fast
 * as the probe's (the workers that can work at once: min(W, batches)), or
 * the CPU time they need over the CPUs other processes left during the
 * probe, whichever is longer, with the workers' sample buffers touched; or
 * the GPU's steps and copies when they take longer; plus a first batch
 * before the GPU starts, or the last one after the CPUs are done. */
static double run_estimate(const struct plan_state *ps, const struct plan_conf *c)
{
	char err[256];
	uint64_t step_ns = 0;
	const struct probe *pr = &ps->pr;
	if (pr->wall <= 0 || !c->nbat)
		return NAN;
	if (run_gpu_step(&c->t, &step_ns, err, sizeof(err)))
		step_ns = 0;
	double touch = isfinite(ps->touch) ? ps->touch : 0;
	double nimg = (double)c->nimg, nbat = (double)c->nbat;
	double par = fmin((double)c->t.workers, nbat);
	double cpus = fmin(par, fmax(pr->left, pr->cpu / pr->wall));
	double per_batch_gpu = (double)step_ns / 1e9 +
			       (c->t.h2d > 0 ? (double)c->pl.slot_bytes / c->t.h2d : 0);
	double cpu_s = fmax(nimg * pr->wall / par,
			    (nimg * pr->cpu + (double)c->pl.sample_bytes * touch) / cpus);
	double first = nimg / nbat * pr->wall;
	double gpu_s = nbat * per_batch_gpu;
	double e2e = fmax(cpu_s + per_batch_gpu, first + gpu_s);
	return ps->start_s + (double)(c->pl.batch_bytes + c->pl.trace_bytes) * touch + e2e;
}

/* Plan c at ep epochs: fits or not, its batches and images, its time. */
static void plan_conf_eval(struct plan_state *ps, struct plan_conf *c, long ep)
{
	c->t.epochs = ep;
	c->rc = plan_fits(&c->t, &ps->pipe, &ps->ds, &c->pl, c->err, sizeof(c->err));
	if (c->rc >= 0)
		loader_human_bytes(c->pl.avail_bytes, ps->avail, sizeof(ps->avail));
	run_size(&c->t, ps->ds.n, &c->nbat, &c->nimg);
	c->est_s = c->rc == 0 ? run_estimate(ps, c) : NAN;
}

/* Every configuration at ep epochs: how many fit, and their time in all
 * (repeats included; NaN without a probe). */
static size_t plan_all(struct plan_state *ps, long ep, double *total_s)
{
	size_t fit = 0;
	*total_s = 0;
	for (size_t i = 0; i < ps->nconf; i++) {
		plan_conf_eval(ps, &ps->conf[i], ep);
		if (ps->conf[i].rc == 0) {
			fit++;
			*total_s += ps->conf[i].est_s * (double)ps->g->repeat;
		}
	}
	return fit;
}

/* The epochs every run gets. The runs' own --epochs or --max-batches when
 * given; else the fewest that give every configuration REPORT_MIN_BATCHES
 * batches (the least any finding rests on), within the memory plan (no
 * configuration that fits at one epoch may stop fitting) and
 * SWEEP_AUTO_EPOCHS_MAX_S of estimated time; said in epochs_note. */
static void plan_epochs(struct plan_state *ps)
{
	ps->epochs = ps->o.epochs;
	long need = 1;
	const struct plan_conf *worst = NULL;
	uint64_t worst_per = 0;
	for (size_t i = 0; i < ps->nconf; i++) {
		uint64_t per = batches_per_epoch(&ps->conf[i].t, ps->ds.n);
		if (!per)
			continue;
		long e = (long)((REPORT_MIN_BATCHES + per - 1) / per);
		if (e > need) {
			need = e;
			worst = &ps->conf[i];
			worst_per = per;
		}
	}
	if (ps->epochs_given || ps->maxb_given) {
		/* the user's: kept, and said when it leaves the findings too few */
		uint64_t cap = ps->o.max_batches;
		if (ps->maxb_given && cap && cap < REPORT_MIN_BATCHES)
			snprintf(ps->epochs_note, sizeof(ps->epochs_note), "batches: --max-batches %" PRIu64
				 " caps every run under the %d batches each finding rests on", cap,
				 REPORT_MIN_BATCHES);
		else if (worst && need > ps->o.epochs)
			snprintf(ps->epochs_note, sizeof(ps->epochs_note), "epochs: %ld%s: at batch %ld "
				 "the dataset's %zu images make %" PRIu64 " batch%s an epoch, under the %d "
				 "each finding rests on%s; --epochs %ld gives them", ps->o.epochs,
				 ps->epochs_given ? ", as given" : " (with --max-batches the sweep chooses "
				 "none)", worst->t.batch_size, ps->ds.n, worst_per, worst_per == 1 ? "" : "es",
				 REPORT_MIN_BATCHES, ps->maxb_given ? " (--max-batches only caps the batches "
				 "of a run, it cannot add any)" : "", need);
		return;
	}
	if (need <= 1 || !worst)
		return;
	double t1, tn;
	char tt[32];
	size_t fit1 = plan_all(ps, ps->o.epochs, &t1), fitn = plan_all(ps, need, &tn);
	int what = fitn < fit1 ? 1 : isfinite(tn) && tn > SWEEP_AUTO_EPOCHS_MAX_S ? 2 : 0;
	char why[256];
	snprintf(why, sizeof(why), "at batch %ld the dataset's %zu images make %" PRIu64 " batch%s "
		 "an epoch, and each finding rests only on configurations with %d or more",
		 worst->t.batch_size, ps->ds.n, worst_per, worst_per == 1 ? "" : "es", REPORT_MIN_BATCHES);
	fmt_time(tn, tt, sizeof(tt));
	if (what == 1)
		snprintf(ps->epochs_note, sizeof(ps->epochs_note), "epochs: not raised to %ld (%s): "
			 "then %zu configuration%s that fit%s at 1 epoch would not fit in memory; "
			 "give --epochs %ld with the change the plan names, or a larger dataset",
			 need, why, fit1 - fitn, fit1 - fitn == 1 ? "" : "s",
			 fit1 - fitn == 1 ? "s" : "", need);
	else if (what == 2)
		snprintf(ps->epochs_note, sizeof(ps->epochs_note), "epochs: not raised to %ld (%s): "
			 "the sweep would then take about %s, more than the %.0f min a sweep chooses "
			 "alone; give --epochs %ld to run it so", need, why, tt,
			 SWEEP_AUTO_EPOCHS_MAX_S / 60, need);
	else {
		ps->epochs = need;
		ps->epochs_chosen = 1;
		snprintf(ps->epochs_note, sizeof(ps->epochs_note), "epochs: %ld, chosen by the sweep "
			 "(%s): every run gets --epochs %ld; give --epochs or --max-batches to choose",
			 need, why, need);
	}
}

/* The findings the plan can judge (report_plan_findings: findings.c's
 * rules) and the ones each configuration counts for. */
static void plan_findings(struct plan_state *ps)
{
	struct sweep_row *rows = calloc(ps->nconf ? ps->nconf : 1, sizeof(*rows));
	unsigned *mask = calloc(ps->nconf ? ps->nconf : 1, sizeof(*mask));
	size_t k = 0;
	if (!rows || !mask) {
		free(rows);
		free(mask);
		return;
	}
	for (size_t i = 0; i < ps->nconf; i++) {
		const struct plan_conf *c = &ps->conf[i];
		if (c->rc)
			continue;
		struct sweep_row *r = &rows[k++];
		sweep_row_init(r);
		snprintf(r->status, sizeof(r->status), "%s", RUN_OK);
		r->config = (int)i + 1;
		r->workers = (int)c->t.workers;
		r->batch_size = (int)c->t.batch_size;
		r->gpus = (int)c->t.gpus;
		snprintf(r->policy, sizeof(r->policy), "%s", ps->g->pol_name[c->t.policy]);
		r->batches = (double)c->nbat;
	}
	report_plan_findings(rows, k, ps->ncpu, pipeline_find(&ps->pipe, "decode") >= 0, ps->pf, mask);
	for (size_t i = 0, j = 0; i < ps->nconf; i++)
		if (!ps->conf[i].rc)
			ps->conf[i].findings = mask[j++];
	free(rows);
	free(mask);
}

/* A configuration that does not fit: the nearest change that makes it
 * fit, on f with --dry-run, as an error otherwise. */
static void plan_report_unfit(struct plan_state *ps, const struct plan_conf *c)
{
	struct loader_plan fix;
	char change[64], effect[512], line[1024], need[32];
	loader_human_bytes(c->pl.need_bytes, need, sizeof(need));
	if (nearest_fit(&c->t, &ps->pipe, &ps->ds, &fix, change, sizeof(change), effect,
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
		c->tag, line);
}

/* "1 2 3" of a findings mask, or "none" */
static void findings_list(unsigned m, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (int i = 0; i < REPORT_NFINDINGS && l + 4 < n; i++)
		if (m & (1u << i))
			l += (size_t)snprintf(out + l, n - l, "%s%d", l ? " " : "", i + 1);
	if (!l)
		snprintf(out, n, "none");
}

/* One configuration's line: memory, fits, batches, images, time, findings. */
static void plan_print_conf(struct plan_state *ps, const struct plan_conf *c)
{
	FILE *f = ps->f;
	if (c->rc < 0) {
		/* not a question of memory: the run itself says why (and a
		 * sweep records it as a failed run) */
		fprintf(f, "  %-22s CANNOT RUN: %s\n", c->tag, c->err);
		return;
	}
	if (c->rc > 0) {
		plan_report_unfit(ps, c);
		return;
	}
	char need[32], est[32], fl[32];
	loader_human_bytes(c->pl.need_bytes, need, sizeof(need));
	fmt_time(c->est_s, est, sizeof(est));
	findings_list(c->findings, fl, sizeof(fl));
	fprintf(f, "  %-22s memory %9s  fits  %6" PRIu64 " batch%s %9" PRIu64 " images  about %-6s "
		"findings %s\n", c->tag, need, c->nbat, c->nbat == 1 ? "  " : "es", c->nimg, est, fl);
}

/* the first line: the grid, the pipeline, the data, the probe */
static void plan_print_header(const struct plan_state *ps)
{
	const struct sweep_grid *g = ps->g;
	char probe[96] = "no probe (it failed)";
	if (ps->pr.wall > 0)
		snprintf(probe, sizeof(probe), "probe %.2f ms per image on 1 worker (%.2f ms of CPU)",
			 ps->pr.wall * 1e3, ps->pr.cpu * 1e3);
	fprintf(ps->f, "sweep plan: %zu configuration%s x %ld repeat%s, pipeline %s, %s (%zu images); "
		"%s, %d CPU%s\n", ps->nconf, ps->nconf == 1 ? "" : "s", g->repeat,
		g->repeat == 1 ? "" : "s", ps->pipe.name, ps->ds.root, ps->ds.n, probe, ps->ncpu,
		ps->ncpu == 1 ? "" : "s");
	if (ps->epochs_note[0])
		fprintf(ps->f, "%s\n", ps->epochs_note);
}

/* what the findings of the report can judge with this plan */
static void plan_print_findings(const struct plan_state *ps)
{
	static const char *const names[REPORT_NFINDINGS] = {
		"short ops", "variance", "out of order", "diminishing returns", "tracing overhead",
	};
	fprintf(ps->f, "findings the report can judge (each rests only on configurations with %d or "
		"more batches):\n", REPORT_MIN_BATCHES);
	for (int i = 0; i < REPORT_NFINDINGS; i++)
		fprintf(ps->f, "  %d %-20s %s: %s\n", i + 1, names[i], ps->pf[i].can ? "yes" : "no",
			ps->pf[i].why);
}

/* the total lines, or the error that nothing ran */
static void plan_print_total(const struct plan_state *ps)
{
	const size_t nconf = ps->nconf, nfit = ps->nfit, nother = ps->nother;
	char tot[32], runs[32], wi[32], rep[32];
	fmt_time(ps->runs_s + ps->whatif_s + ps->report_s, tot, sizeof(tot));
	fmt_time(ps->runs_s, runs, sizeof(runs));
	fmt_time(ps->whatif_s, wi, sizeof(wi));
	fmt_time(ps->report_s, rep, sizeof(rep));
	fprintf(ps->f, "total: %zu of %zu configuration%s fit in %s; the %zu that fit: %" PRIu64
		" images in %" PRIu64 " batches, about %s in all\n", nfit, nconf,
		nconf == 1 ? "" : "s", ps->avail, nfit, ps->total_images, ps->total_batches, tot);
	if (ps->pr.wall > 0)
		fprintf(ps->f, "time: the runs %s, %s%s%sthe report %s (estimate, for the machine as "
			"busy as during the probe: per run its start, its memory set up at %.1f s/GiB, "
			"then its images at the probe's pace on min(W, batches) workers or their CPU "
			"time over the %.1f CPU%s other processes left, whichever is longer, or the "
			"GPU's steps if longer)\n", runs, ps->whatif_s > 0 ? "the fused what-if " : "",
			ps->whatif_s > 0 ? wi : "", ps->whatif_s > 0 ? ", " : "", rep,
			isfinite(ps->touch) ? ps->touch * 1073741824.0 : 0.0, ps->pr.left,
			ps->pr.left == 1 ? "" : "s");
	if (!ps->dry_run && nfit + nother < nconf)
		error_msg("%zu of %zu configurations cannot fit in memory (%s available): nothing ran; "
		      "apply the change named to those, or leave them out (ppbench sweep --dry-run "
		      "shows the plan)", nconf - nfit - nother, nconf, ps->avail);
}

int sweep_plan(const struct sweep_grid *g, char **run_args, size_t nargs, int dry_run, FILE *f,
	       struct sweep_plan_out *out)
{
	struct plan_state st = { .g = g, .dry_run = dry_run, .f = f, .avail = "?" };
	struct plan_state *ps = &st;
	memset(out, 0, sizeof(*out));
	if (plan_load(ps, run_args, nargs))
		return -1;
	struct cpus cpus;
	cpus_read(&cpus);
	ps->ncpu = cpus_usable_int(&cpus);
	probe_run(&ps->o, &ps->pipe, &ps->ds, ps->ncpu, &ps->pr);
	if (ps->pr.stopped) {
		/* stopped by a signal while it measured: so is the sweep */
		int sig = ps->pr.stopped - 128;
		error_msg("interrupted by %s while planning the sweep: nothing ran",
			  sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
		out->stopped = ps->pr.stopped;
		dataset_release(&ps->ds);
		pipeline_release(&ps->pipe);
		free(ps->argv);
		return -1;
	}
	ps->touch = touch_s_per_byte();
	if (g->drop_cache && ps->ds.n) {
		/* the sweep's pass over the dataset's files before each run: timed
		 * on the first files (their pages dropped, as the sweep will),
		 * scaled to all */
		struct dataset some = ps->ds;
		some.n = ps->ds.n < SWEEP_PLAN_DROP_FILES ? ps->ds.n : SWEEP_PLAN_DROP_FILES;
		double t0 = now_s();
		dataset_cache_resident(&some, 1);
		ps->start_s += (now_s() - t0) * (double)ps->ds.n / (double)some.n;
	}
	ps->nconf = g->nb * g->ng * g->np * (g->tied ? 1 : g->nw);
	{	/* more workers than CPUs: said before anything runs (commands.h) */
		long wk[256];
		size_t nk = 0;
		for (size_t i = 0; i < (g->tied ? g->ng : g->nw) && nk < 256; i++)
			wk[nk++] = g->tied ? g->gpus[i] : g->workers[i];
		warn_oversubscribed(wk, nk, ps->ncpu, "the sweep's runs");
	}
	ps->conf = calloc(ps->nconf ? ps->nconf : 1, sizeof(*ps->conf));
	if (!ps->conf) {
		error_msg("out of memory");
		dataset_release(&ps->ds);
		pipeline_release(&ps->pipe);
		free(ps->argv);
		return -1;
	}
	size_t k = 0;
	for (size_t ib = 0; ib < g->nb; ib++)
	for (size_t ig = 0; ig < g->ng; ig++)
	for (size_t ip = 0; ip < g->np; ip++)
	for (size_t iw = 0; iw < (g->tied ? 1 : g->nw); iw++) {
		struct plan_conf *c = &ps->conf[k++];
		c->t = ps->o;
		c->t.batch_size = g->batch_size[ib];
		c->t.gpus = g->gpus[ig];
		c->t.workers = g->tied ? g->gpus[ig] : g->workers[iw];
		c->t.policy = g->pol[ip];
		snprintf(c->tag, sizeof(c->tag), "w%ld-b%ld-g%ld%s%s", c->t.workers, c->t.batch_size,
			 c->t.gpus, g->np > 1 ? "-" : "", g->np > 1 ? g->pol_name[g->pol[ip]] : "");
	}
	plan_epochs(ps);
	double total;
	ps->nfit = plan_all(ps, ps->epochs, &total);
	ps->runs_s = ps->pr.wall > 0 ? total : NAN;
	for (size_t i = 0; i < ps->nconf; i++) {
		const struct plan_conf *c = &ps->conf[i];
		ps->nother += c->rc < 0;
		if (c->rc == 0) {
			ps->total_images += c->nimg * (uint64_t)g->repeat;
			ps->total_batches += c->nbat * (uint64_t)g->repeat;
		}
	}
	/* the fused what-if (its rounds of each pipeline, one thread) and the
	 * report (its figures: gnuplot) */
	size_t wn = ps->ds.n < g->whatif_images ? ps->ds.n : g->whatif_images;
	ps->whatif_s = ps->pr.wall > 0 ? (double)(2 * SWEEP_WHATIF_ROUNDS * wn) * ps->pr.wall : NAN;
	ps->report_s = SWEEP_REPORT_S;
	plan_findings(ps);
	plan_print_header(ps);
	for (size_t i = 0; i < ps->nconf; i++)
		plan_print_conf(ps, &ps->conf[i]);
	plan_print_findings(ps);
	plan_print_total(ps);
	int rc = ps->nfit + ps->nother < ps->nconf ? 1 : 0;
	out->epochs = ps->epochs_chosen ? ps->epochs : 0;
	snprintf(out->epochs_why, sizeof(out->epochs_why), "%.1000s", ps->epochs_note);
	out->estimate_s = ps->runs_s + ps->whatif_s + ps->report_s;
	free(ps->conf);
	dataset_release(&ps->ds);
	pipeline_release(&ps->pipe);
	free(ps->argv);
	return rc;
}
