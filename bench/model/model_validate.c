/* ppbench model --validate: the model against the paper's own figures.
 *  1. Figs. 4-5: from each configuration's per-batch mean and std and the
 *     GPU step table alone: out-of-order % and stall % within a median of 5
 *     points over the 15 configurations, E2E within 3 % in each.
 *  2. This machine: see docs/model.md (made with measured runs, not here).
 *  3. Fig. 6: the contention model fitted to the paper's per-batch times at
 *     8..28 workers (16 cores, 2 threads each), then E2E within 10 % for
 *     W >= 16 and the knee where the paper's E2E puts it by the report's rule.
 * Deterministic (seed 0). */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "commands.h"
#include "fsutil.h"
#include "consumer.h"
#include "csv.h"
#include "metrics.h"
#include "log.h"
#include "model.h"
#include "report.h"
#include "stats.h"

#define PAPER_IMAGES 1281167
#define V1_POINTS 5.0          /* median error of ooo % and stall %, points */
#define V1_E2E_PCT 3.0
#define V3_E2E_PCT 10.0

/* The paper's machine and run: P = 2, pin memory on, one epoch, in order. */
static void paper_cfg(struct model_cfg *c, int W, int B, int G, const struct model_src *s)
{
	memset(c, 0, sizeof(*c));
	c->workers = W;
	c->batch = B;
	c->gpus = G;
	c->prefetch = 2;
	c->images = PAPER_IMAGES;
	c->epochs = 1;
	c->shuffle = 1;
	c->order = ORDER_INORDER;
	c->policy = POLICY_TORCH;
	c->pin_memory = 1;
	c->pin_bytes_per_s = 8e9;
	c->sample_bytes = 3 * 224 * 224 * 4;
	c->src = s;
	c->machine.tpc = 2;
	c->machine.main_threads = 1;
	uint64_t ns = 0;
	char why[128];
	if (!gpu_step_auto(B, G, &ns, why, sizeof(why)))
		c->gpu_step_ns = (double)ns;
}

static int ref_table(const char *file, struct table *t, char *err, size_t errlen)
{
	char top[4096], path[4300];
	if (report_find_top(top, sizeof(top))) {
		snprintf(err, errlen, "the repository's datasets/reference/lotus/figures/ was not found "
			 "(run ppbench from the repository)");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/datasets/reference/lotus/figures/%s", top, file);
	return table_read(t, path, err, errlen);
}

static int run_metrics_of(const struct model_cfg *c, struct run_metrics *m, char *err, size_t errlen)
{
	struct model_out o;
	if (model_run(c, &o, err, errlen))
		return -1;
	int rc = model_metrics(c, &o, m, err, errlen);
	model_out_free(&o);
	return rc;
}

static double median_abs(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i]);
	stats_sort(v, n);
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : NAN;
}

static int validate_grid(int csv, int *ok)
{
	struct table t;
	char err[512];
	if (ref_table("lotus_ic_batch_gpu_sweep.csv", &t, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	int cb = table_col(&t, "batch"), cg = table_col(&t, "gpus"), cw = table_col(&t, "workers");
	int ce = table_col(&t, "e2e_s"), co = table_col(&t, "ooo_pct"), cs = table_col(&t, "stall_pct");
	int cm = table_col(&t, "preproc_avg_ms"), cd = table_col(&t, "preproc_std_pct");
	double eo[32], es[32], ee[32], worst = 0;
	size_t n = 0;
	printf(csv ? "validation,batch,gpus,workers,paper_e2e_s,model_e2e_s,e2e_err_pct,paper_ooo_pct,"
		     "model_ooo_pct,paper_stall_pct,model_stall_pct\n" :
		     "validation 1: the paper's Figs. 4-5 from its per-batch mean and std and its GPU step "
		     "table\n%5s %4s %3s %10s %10s %7s %8s %8s %8s %8s\n",
	       "B", "GPUs", "W", "paper E2E", "model E2E", "err %", "paper ooo", "model", "paper stall",
	       "model");
	for (size_t r = 0; r < t.nrows && n < 32; r++) {
		int B = (int)table_num(&t, r, cb), G = (int)table_num(&t, r, cg), W = (int)table_num(&t, r, cw);
		struct model_src s;
		model_src_batch_normal(&s, table_num(&t, r, cm), table_num(&t, r, cd), B);
		struct model_cfg c;
		paper_cfg(&c, W, B, G, &s);
		struct run_metrics m;
		if (run_metrics_of(&c, &m, err, sizeof(err))) {
			error_msg("%s", err);
			table_free(&t);
			return -1;
		}
		double pe = table_num(&t, r, ce), po = table_num(&t, r, co), ps = table_num(&t, r, cs);
		ee[n] = (m.e2e_s - pe) / pe * 100;
		eo[n] = m.ooo_pct - po;
		es[n] = m.stall_pct - ps;
		if (fabs(ee[n]) > worst)
			worst = fabs(ee[n]);
		printf(csv ? "1,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n" :
			     "%5d %4d %3d %10.1f %10.1f %7.2f %8.2f %8.2f %8.2f %8.2f\n",
		       B, G, W, pe, m.e2e_s, ee[n], po, m.ooo_pct, ps, m.stall_pct);
		n++;
		analysis_free(&m);
	}
	table_free(&t);
	double mo = median_abs(eo, n), ms = median_abs(es, n);
	int good = mo <= V1_POINTS && ms <= V1_POINTS && worst <= V1_E2E_PCT;
	if (!csv)
		printf("validation 1: %s: out-of-order median error %.2f points, stall %.2f points "
		       "(target %.0f); largest E2E error %.2f %% (target %.0f %%)\n",
		       good ? "met" : "NOT met", mo, ms, V1_POINTS, worst, V1_E2E_PCT);
	*ok &= good;
	return 0;
}

/* The paper's Fig. 6 rows and the contention fitted to them (16 cores x 2
 * threads, main process 1 busy thread + the pin thread, threads keep their
 * place): k rows, or -1 with err. */
static int fit_fig6(int *w, double *tb, double *pe, struct model_machine *mm, double *base,
		    double *std_pct, double *fit_err, char *err, size_t errlen)
{
	struct table t;
	if (ref_table("lotus_ic_worker_sweep.csv", &t, err, errlen))
		return -1;
	int cw = table_col(&t, "workers"), ce = table_col(&t, "e2e_s");
	int cm = table_col(&t, "preproc_avg_ms"), cd = table_col(&t, "preproc_std_pct");
	double nb[32], sd[32];
	size_t k = 0;
	*mm = (struct model_machine){ .cores = 16, .tpc = 2, .main_threads = 1, .smt_static = 1 };
	for (size_t r = 0; r < t.nrows && k < 32; r++) {
		w[k] = (int)table_num(&t, r, cw);
		nb[k] = w[k] + mm->main_threads + 1;      /* + the pin thread */
		tb[k] = table_num(&t, r, cm);
		pe[k] = table_num(&t, r, ce);
		sd[k] = table_num(&t, r, cd);
		k++;
	}
	table_free(&t);
	if (k < 2) {
		snprintf(err, errlen, "lotus_ic_worker_sweep.csv has fewer than 2 rows");
		return -1;
	}
	model_fit(mm, nb, w, tb, k, base, fit_err);
	stats_sort(sd, k);
	*std_pct = k % 2 ? sd[k / 2] : (sd[k / 2 - 1] + sd[k / 2]) / 2;
	return (int)k;
}

static int validate_workers(int csv, int *ok)
{
	char err[512];
	int w[32];
	double tb[32], pe[32], me[32], base, fe, std_pct;
	struct model_machine mm;
	int kk = fit_fig6(w, tb, pe, &mm, &base, &std_pct, &fe, err, sizeof(err));
	if (kk < 0) {
		error_msg("%s", err);
		return -1;
	}
	size_t k = (size_t)kk;
	if (!csv)
		printf("\nvalidation 3: the paper's Fig. 6 (b1024, 4 GPUs, 16 cores x 2 threads)\n"
		       "fitted to its per-batch times: alpha %.5f (each further busy core slows a sample by "
		       "%.2f %%), beta %.2f (a second hardware thread adds %.0f %% of a core), per-batch "
		       "time alone %.1f ms (std %.2f %%, the median of the rows); fit error median %.2f %%\n"
		       "%7s %10s %10s %10s %7s\n", mm.alpha, mm.alpha * 100, mm.beta, mm.beta * 100, base,
		       std_pct, fe, "workers", "paper ms", "paper E2E", "model E2E", "err %");
	struct model_src s;
	model_src_batch_normal(&s, base, std_pct, 1024);
	int good = 1;
	for (size_t i = 0; i < k; i++) {
		struct model_cfg c;
		paper_cfg(&c, w[i], 1024, 4, &s);
		c.machine = mm;
		struct run_metrics m;
		if (run_metrics_of(&c, &m, err, sizeof(err))) {
			error_msg("%s", err);
			return -1;
		}
		me[i] = m.e2e_s;
		double e = (me[i] - pe[i]) / pe[i] * 100;
		if (w[i] >= 16 && fabs(e) > V3_E2E_PCT)
			good = 0;
		if (csv)
			printf("3,1024,4,%d,%.2f,%.2f,%.2f,,,,\n", w[i], pe[i], me[i], e);
		else
			printf("%7d %10.1f %10.1f %10.1f %7.2f\n", w[i], tb[i], pe[i], me[i], e);
		analysis_free(&m);
	}
	int kp = report_knee(w, pe, k, REPORT_KNEE_GAIN_PCT), km = report_knee(w, me, k, REPORT_KNEE_GAIN_PCT);
	int e2e_ok = good;
	good &= kp == km;
	if (!csv)
		printf("validation 3: %s: E2E within %.0f %% for W >= 16: %s; knee (first step gaining under "
		       "%.0f %%; 0: none): paper %d, model %d\n", good ? "met" : "NOT met", V3_E2E_PCT,
		       e2e_ok ? "yes" : "no", REPORT_KNEE_GAIN_PCT, kp, km);
	*ok &= good;
	return 0;
}

/* ---- validation 2: this machine's measured runs ------------------------ */

#define V2_E2E_PCT 10.0
#define V2_POINTS 10.0
#define V2_NOISY_PCT 10.0      /* other processes' CPU share above which a run is not judged */
#define V2_MAX_RUNS 256

struct mrun {
	char dir[4096];
	int W, B, G, pin;
	uint64_t images;
	double step_ns, h2d, e2e, ooo, stall, others, sample_bytes, cpus;
	int smt;
};

static int load_run(const char *dir, struct mrun *r)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	json_t *j = json_load_regular(path, NULL, 0);
	if (!j)
		return -1;
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	r->W = (int)metric_json_get(j, "workers");
	r->B = (int)metric_json_get(j, "batch_size");
	r->G = (int)metric_json_get(j, "gpus");
	r->images = (uint64_t)metric_json_get(j, "images");
	r->e2e = metric_json_get(j, "e2e_s");
	r->ooo = metric_json_get(j, "main.out_of_order_pct");
	r->stall = metric_json_get(j, "main.stall_pct");
	r->others = metric_json_get(j, "noise.others_cpu_pct");
	r->step_ns = metric_json_get(j, "loader.gpu_step_ns");
	r->h2d = metric_json_get(j, "loader.h2d_bandwidth_bytes_per_s");
	r->sample_bytes = 3 * 4 * metric_json_get(j, "loader.sample_height_px") *
			  metric_json_get(j, "loader.sample_width_px");
	r->cpus = metric_json_get(j, "machine.cpus_usable");
	if (!(r->cpus > 0))
		r->cpus = metric_json_get(j, "machine.cpus_online");
	if (!(r->cpus > 0))
		r->cpus = 0;                  /* not known: no contention */
	if (!(r->sample_bytes >= 0))
		r->sample_bytes = 0;
	if (!(r->h2d >= 0))
		r->h2d = 0;
	json_t *smt = json_path(j, "machine.smt_active");
	r->smt = smt && json_is_true(smt);
	json_t *pin = json_path(j, "options.pin_memory");
	r->pin = !pin || json_is_true(pin);
	json_t *ok = json_object_get(j, "complete");
	int good = ok && json_is_true(ok) && r->W > 0 && r->B > 0 && r->images > 0 && r->e2e > 0;
	json_decref(j);
	return good ? 0 : -1;
}

static size_t load_sweeps(const char *const *sweeps, size_t ns, struct mrun *r, size_t max)
{
	size_t n = 0;
	for (size_t s = 0; s < ns; s++) {
		char runs[4200];
		snprintf(runs, sizeof(runs), "%s/runs", sweeps[s]);
		DIR *d = opendir(runs);
		if (!d) {
			warn_msg("'%s' is not a sweep folder (no runs/): left out", sweeps[s]);
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d)) && n < max) {
			if (e->d_name[0] == '.')
				continue;
			char dir[4096];
			if (snprintf(dir, sizeof(dir), "%s/%s", runs, e->d_name) >= (int)sizeof(dir))
				continue;
			if (!load_run(dir, &r[n]))
				n++;
		}
		closedir(d);
	}
	return n;
}

static int cmp_mrun(const void *a, const void *b)
{
	const struct mrun *x = a, *y = b;
	if (x->step_ns != y->step_ns)
		return x->step_ns < y->step_ns ? -1 : 1;
	if (x->B != y->B)
		return x->B - y->B;
	return x->W - y->W;
}

/* A run of this machine modelled: the target run's settings (workers,
 * batch, GPUs, images, step, copy, pin memory, sample size), the costs s of
 * the source run, the machine's CPUs as the source run recorded them (no
 * contention model beyond the cores: the simulated GPU sleeps, so the main
 * process is not a busy thread; the source's one worker is the reference). */
static void machine_cfg(const struct mrun *src, const struct model_src *s, const struct mrun *t,
			struct model_cfg *c)
{
	paper_cfg(c, t->W, t->B, t->G > 0 ? t->G : 1, s);
	c->images = t->images;
	c->gpu_step_ns = t->step_ns;
	c->h2d_bytes_per_s = t->h2d;
	c->pin_memory = t->pin;
	c->sample_bytes = t->sample_bytes;
	c->pin_bytes_per_s = s->pin_ns_per_image > 0 ? t->sample_bytes / s->pin_ns_per_image * 1e9 : 0;
	c->machine = (struct model_machine){ .cores = src->cpus / (src->smt ? 2 : 1),
					     .tpc = src->smt ? 2 : 1, .beta = 0.3, .main_threads = 0,
					     .ref_busy = src->W };
}

int model_like_run(const char *src_dir, int W, struct run_metrics *m, char *err, size_t errlen)
{
	struct mrun src, t;
	struct model_src s;
	if (load_run(src_dir, &src)) {
		snprintf(err, errlen, "'%s' is not a complete run's results folder", src_dir);
		return -1;
	}
	if (model_src_from_results(&s, src_dir, NULL, NULL, err, errlen))
		return -1;
	t = src;
	t.W = W;
	struct model_cfg c;
	machine_cfg(&src, &s, &t, &c);
	int rc = run_metrics_of(&c, m, err, errlen);
	model_src_free(&s);
	return rc;
}

static int validate_machine(int csv, const char *const *sweeps, size_t ns, int *ok)
{
	struct mrun *r = calloc(V2_MAX_RUNS, sizeof(*r));
	char err[1024];
	if (!r)
		return -1;
	size_t n = load_sweeps(sweeps, ns, r, V2_MAX_RUNS);
	qsort(r, n, sizeof(*r), cmp_mrun);
	const struct mrun *src_run = NULL;
	for (size_t i = 0; i < n && !src_run; i++)
		if (r[i].W == 1)
			src_run = &r[i];
	if (!src_run) {
		error_msg("validation 2: no complete W = 1 run in the sweep folders given");
		free(r);
		return -1;
	}
	struct model_src s;
	if (model_src_from_results(&s, src_run->dir, NULL, NULL, err, sizeof(err))) {
		error_msg("validation 2: %s", err);
		free(r);
		return -1;
	}
	if (!csv)
		printf("\nvalidation 2: this machine (%.0f CPUs%s), from the costs of one W = 1 run: %s\n"
		       "%3s %4s %8s %10s %10s %7s %9s %9s %9s %9s\n", src_run->cpus,
		       src_run->smt ? ", SMT" : "", s.what, "W", "B", "step ms", "measured", "model",
		       "err %", "meas ooo", "model ooo", "meas stall", "others %");
	double worst_e = 0, worst_o = 0, others[V2_MAX_RUNS];
	for (size_t i = 0; i < n; i++) {
		struct model_cfg c;
		machine_cfg(src_run, &s, &r[i], &c);
		struct run_metrics m;
		if (run_metrics_of(&c, &m, err, sizeof(err))) {
			error_msg("validation 2: %s", err);
			model_src_free(&s);
			free(r);
			return -1;
		}
		double e = (m.e2e_s - r[i].e2e) / r[i].e2e * 100, o = m.ooo_pct - r[i].ooo;
		worst_e = fmax(worst_e, fabs(e));
		worst_o = fmax(worst_o, fabs(o));
		others[i] = r[i].others;
		if (csv)
			printf("2,%d,%d,%d,%.3f,%.3f,%.2f,%.2f,%.2f,%.2f,%.2f\n", r[i].B, r[i].G, r[i].W,
			       r[i].e2e, m.e2e_s, e, r[i].ooo, m.ooo_pct, r[i].stall, m.stall_pct);
		else
			printf("%3d %4d %8.1f %10.3f %10.3f %7.2f %9.2f %9.2f %9.2f %9.1f\n", r[i].W, r[i].B,
			       r[i].step_ns / 1e6, r[i].e2e, m.e2e_s, e, r[i].ooo, m.ooo_pct, r[i].stall,
			       r[i].others);
		analysis_free(&m);
	}
	stats_sort(others, n);
	double mo = n ? others[n / 2] : NAN;
	int good = worst_e <= V2_E2E_PCT && worst_o <= V2_POINTS;
	if (!csv) {
		if (!(mo <= V2_NOISY_PCT))
			printf("validation 2: cannot be judged: other processes used a median %.1f %% of the "
			       "CPUs during these runs (above %.0f %%), so the measured runs are not this "
			       "machine's alone; largest errors: E2E %.1f %%, out-of-order %.1f points\n",
			       mo, V2_NOISY_PCT, worst_e, worst_o);
		else
			printf("validation 2: %s: largest E2E error %.1f %% (target %.0f %%), out-of-order "
			       "%.1f points (target %.0f)\n", good ? "met" : "NOT met", worst_e, V2_E2E_PCT,
			       worst_o, V2_POINTS);
	}
	if (mo <= V2_NOISY_PCT)
		*ok &= good;
	model_src_free(&s);
	free(r);
	return 0;
}

int model_validate(int csv, const char *const *sweeps, size_t nsweeps)
{
	int ok = 1;
	if (validate_grid(csv, &ok) || validate_workers(csv, &ok))
		return EXIT_FAIL;
	if (nsweeps) {
		if (validate_machine(csv, sweeps, nsweeps, &ok))
			return EXIT_FAIL;
	} else if (!csv) {
		printf("\nvalidation 2 (this machine's measured runs): give sweep folders, e.g. "
		       "ppbench model --validate results/*-sweep-*\n");
	}
	return ok ? EXIT_OK : EXIT_FAIL;
}

/* ---- the report: a model where this machine cannot judge ----------------- */

int model_paper_shape(double image_ms, double std_pct, char *out, size_t n)
{
	char err[512];
	int w[32];
	double tb[32], pe[32], base, fe, sp;
	struct model_machine mm;
	int k = fit_fig6(w, tb, pe, &mm, &base, &sp, &fe, err, sizeof(err));
	if (k < 0 || !(image_ms > 0)) {
		snprintf(out, n, "%s", k < 0 ? err : "no per-image cost");
		return -1;
	}
	struct model_src s;
	model_src_batch_normal(&s, image_ms * 1024, isfinite(std_pct) ? std_pct : sp, 1024);
	double e2e[32];
	for (int i = 0; i < k; i++) {
		struct model_cfg c;
		paper_cfg(&c, w[i], 1024, 4, &s);
		c.machine = mm;
		c.machine.ref_busy = 1 + mm.main_threads + 1;   /* the costs come from a W = 1 run */
		struct run_metrics m;
		if (run_metrics_of(&c, &m, err, sizeof(err))) {
			snprintf(out, n, "%s", err);
			return -1;
		}
		e2e[i] = m.e2e_s;
		analysis_free(&m);
	}
	int knee = report_knee(w, e2e, (size_t)k, REPORT_KNEE_GAIN_PCT);
	int len = snprintf(out, n, "a model, not a measurement (ppbench model, docs/model.md): with this "
			   "machine's %.3f ms per image on the paper's machine shape (16 cores x 2 threads, "
			   "4 GPUs, b1024, contention fitted to the paper's Fig. 6), E2E", image_ms);
	for (int i = 0; i < k && len > 0 && (size_t)len < n; i++)
		len += snprintf(out + len, n - (size_t)len, "%s %.0f s at %d", i ? "," : "", e2e[i], w[i]);
	if (len > 0 && (size_t)len < n) {
		if (knee)
			snprintf(out + len, n - (size_t)len, " workers; knee by the rule at %d", knee);
		else
			snprintf(out + len, n - (size_t)len, " workers; no knee by the rule in this range");
	}
	return knee;
}

/* ---- make bench: the model's speed at paper scale ------------------------ */

#define BENCH_ROUNDS 5

void model_bench(FILE *f)
{
	static const struct {
		const char *what;
		int B, W;
		enum loader_policy policy;
	} cases[] = {
		{ "torch, b1024, 28 workers", 1024, 28, POLICY_TORCH },
		{ "torch, b128, 28 workers", 128, 28, POLICY_TORCH },
		{ "shared-queue, b128, 28 workers", 128, 28, POLICY_SHARED_QUEUE },
	};
	fprintf(f, "\n## model: paper scale (1,281,167 images, 4 GPUs, Table II per-sample costs, "
		   "16 cores x 2 threads), %d rounds\n\n| case | median s | min s | max s |\n"
		   "|---|---|---|---|\n", BENCH_ROUNDS);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct model_src s;
		model_src_sample(&s, 6.48, 0.19, 49.76 * cases[k].B / 128.0, cases[k].B);
		s.batch_noise = 0.0694;
		struct model_cfg c;
		paper_cfg(&c, cases[k].W, cases[k].B, 4, &s);
		c.policy = cases[k].policy;
		c.machine.cores = 16;
		c.machine.beta = 0.29;
		c.machine.smt_static = 1;
		double t[BENCH_ROUNDS];
		char err[256];
		for (int r = 0; r < BENCH_ROUNDS; r++) {
			uint64_t t0 = clock_now_ns();
			struct model_out o;
			if (model_run(&c, &o, err, sizeof(err))) {
				fprintf(f, "| %s | %s | | |\n", cases[k].what, err);
				break;
			}
			model_out_free(&o);
			t[r] = (double)(clock_now_ns() - t0) / 1e9;
		}
		struct stats_summary sm;
		if (!stats_summarise(t, BENCH_ROUNDS, 0.95, &sm))
			fprintf(f, "| %s | %.3f | %.3f | %.3f |\n", cases[k].what, sm.median, sm.min, sm.max);
	}
	fprintf(f, "\ntarget: about 1 s each (the model's run only; analysis of its events adds a few ms)\n");
}
