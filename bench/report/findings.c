/* The five Lotus findings judged on a sweep's rows (bench/report/report.h): pure
 * functions of the rows, each by a stated rule, each beside the paper's
 * figure computed from the reference tables (datasets/reference/lotus/
 * figures/) by the same code and definition as this machine's. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "log.h"
#include "metrics.h"
#include "repeats.h"
#include "model.h"
#include "report.h"
#include "stats.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_HOLDS:
		return "holds";
	case VERDICT_DOES_NOT_HOLD:
		return "does not hold";
	default:
		return "cannot be judged here";
	}
}

static void verdict(struct finding *f, enum verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void verdict(struct finding *f, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	f->v = v;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}

void finding_why_add(struct finding *f, const char *fmt, ...)
{
	size_t l = strlen(f->why);
	va_list ap;

	if (l + 1 >= sizeof(f->why))
		return;
	va_start(ap, fmt);
	vsnprintf(f->why + l, sizeof(f->why) - l, fmt, ap);
	va_end(ap);
}

/* Records a comparison the verdict makes (struct finding_test). */
static void add_test(struct finding *f, const char *key, const char *what, const char *unit,
		     double value, double target, int at_most, enum test_role role)
{
	if (f->ntests >= FINDING_MAX_TESTS || !isfinite(value))
		return;
	struct finding_test *t = &f->tests[f->ntests++];
	memset(t, 0, sizeof(*t));
	snprintf(t->key, sizeof(t->key), "%s", key);
	snprintf(t->what, sizeof(t->what), "%s", what);
	snprintf(t->unit, sizeof(t->unit), "%s", unit);
	t->value = value;
	t->target = target;
	t->at_most = at_most;
	t->role = role;
	t->judged = TARGET_UNKNOWN;
}

/* ---- which runs a finding may rest on -------------------------------------*/

/* Batches a run handed over (or preprocessed, for tables without the count). */
static double row_batches(const struct sweep_row *r)
{
	if (!isnan(r->batches))
		return r->batches;
	if (!isnan(r->preproc_all_batches))
		return r->preproc_all_batches;
	return r->preproc_batches;
}

int report_enough_batches(const struct sweep_row *r)
{
	double b = row_batches(r);
	return isnan(b) || b >= REPORT_MIN_BATCHES;
}

int report_oversubscribed(const struct sweep_row *r, int cpus)
{
	if (!isnan(r->oversubscribed))
		return r->oversubscribed > 0.5;
	return cpus > 0 && r->workers > cpus;
}

double report_run_oncpu_share(const struct sweep_row *r)
{
	return r->ops_oncpu_s / r->ops_span_s;
}

/* The share of its ops' wall time r's ops were on a CPU (*share) and the
 * share its own busy threads leave them on its CPUs (*own, min(1, CPUs /
 * busy threads)); *threads and *c: those threads and CPUs. 0, or -1 when
 * not known (--counters none, no CPU count). */
static int oncpu_shares(const struct sweep_row *r, int cpus, double *share, double *own,
			double *threads, double *c)
{
	*c = r->cpus_usable > 0 ? r->cpus_usable : cpus;
	*threads = r->busy_threads > 0 ? r->busy_threads : r->workers;
	*share = report_run_oncpu_share(r);
	if (!isfinite(*share) || !(*c > 0) || !(*threads > 0))
		return -1;
	*own = fmin(1, *c / *threads);
	return 0;
}

int report_run_busy(const struct sweep_row *r, int cpus, char *why, size_t n)
{
	char dummy[8];
	if (!why) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = 0;
	if (isfinite(r->steal_pct) && r->steal_pct > REPORT_BUSY_PCT) {
		snprintf(why, n, "the hypervisor stole %.0f %% of its CPUs", r->steal_pct);
		return 1;
	}
	if (!(r->others_cpu_pct > REPORT_BUSY_PCT))
		return 0;
	double share, own, threads, c;
	if (oncpu_shares(r, cpus, &share, &own, &threads, &c)) {
		snprintf(why, n, "others took %.0f %% of the CPUs (its ops' time on a CPU was not "
			 "counted: --counters none)", r->others_cpu_pct);
		return 1;
	}
	if (share >= own * (1 - REPORT_BUSY_PCT / 100))
		return 0;   /* they took only what the run left */
	snprintf(why, n, "others took %.0f %% of the CPUs and its ops were on a CPU %.0f %% of their "
		 "wall time, where its own %.1f busy threads on %.0f CPU%s leave them %.0f %%",
		 r->others_cpu_pct, 100 * share, threads, c, c == 1 ? "" : "s", 100 * own);
	return 1;
}

double report_run_quiet_scale(const struct sweep_row *r, int cpus, double *own)
{
	double share, o, threads, c;
	if (oncpu_shares(r, cpus, &share, &o, &threads, &c) || !(share > 0))
		return NAN;
	if (own)
		*own = o;
	return fmin(1, share / o);
}

/* The configurations of a finding: enough batches and (want 0) not
 * oversubscribed, (want 1) oversubscribed, (want -1) either; and at least
 * min_workers workers. Writes their indexes into idx, returns how many. */
static size_t pick(const struct sweep_config *a, size_t na, int want, int cpus, int min_workers,
		   size_t *idx)
{
	size_t k = 0;
	for (size_t i = 0; i < na; i++) {
		if (a[i].workers < min_workers || !report_enough_batches(&a[i].c.r))
			continue;
		if (want >= 0 && report_oversubscribed(&a[i].c.r, cpus) != want)
			continue;
		idx[k++] = i;
	}
	return k;
}

/* The configurations a finding is judged on: those without
 * oversubscription when there are any (*apart gets the others), else all. */
static size_t pick_judged(const struct sweep_config *a, size_t na, int cpus, int min_workers,
			  size_t *idx, size_t *apart_idx, size_t *napart, int *all_over)
{
	size_t k = pick(a, na, 0, cpus, min_workers, idx);
	*napart = pick(a, na, 1, cpus, min_workers, apart_idx);
	*all_over = 0;
	if (!k && *napart) {
		memcpy(idx, apart_idx, *napart * sizeof(*idx));
		k = *napart;
		*napart = 0;
		*all_over = 1;
	}
	return k;
}

/* The configurations of a sweep a finding is judged on: all of them (a, na),
 * the judged ones idx[0..k) and the oversubscribed ones shown apart
 * apart[0..napart) (pick_judged). */
struct judged_set {
	struct sweep_config *a;
	size_t na, k, napart;
	size_t *idx, *apart;
	int all_over;
};

/* Fill j from the rows; 0, or -1 with f's verdict set (out of memory). j is
 * always closed with judged_close. */
static int judged_open(struct judged_set *j, const struct sweep_row *r, size_t n, int cpus,
		       int min_workers, struct finding *f)
{
	memset(j, 0, sizeof(*j));
	j->na = sweep_configs(r, n, &j->a);
	j->idx = calloc(j->na ? j->na : 1, sizeof(*j->idx));
	j->apart = calloc(j->na ? j->na : 1, sizeof(*j->apart));
	if (!j->idx || !j->apart) {
		verdict(f, VERDICT_CANNOT_JUDGE, "out of memory");
		return -1;
	}
	j->k = pick_judged(j->a, j->na, cpus, min_workers, j->idx, j->apart, &j->napart,
			   &j->all_over);
	return 0;
}

static void judged_close(struct judged_set *j)
{
	free(j->idx);
	free(j->apart);
	free(j->a);
}

/* 1 with f's verdict set when the paper's figures a rule is stated against
 * are missing (have: the figures this rule needs are there). */
static int paper_missing(struct finding *f, const struct paper *p, int have)
{
	if (p && p->ok && have)
		return 0;
	verdict(f, VERDICT_CANNOT_JUDGE, "the paper's figures are not available (%s), and the "
		"rule is stated against them", p && p->why[0] ? p->why : "no reference tables");
	return 1;
}

/* A figure of the configurations idx[0..k) summarised. */
static void summarise(const struct sweep_config *a, const size_t *idx, size_t k, size_t off,
		      struct stats_summary *s)
{
	double *v = calloc(k ? k : 1, sizeof(*v));
	for (size_t i = 0; v && i < k; i++)
		v[i] = *(const double *)((const char *)&a[idx[i]].c.r + off);
	if (!v || stats_summarise(v, k, STATS_CI_LEVEL, s))
		memset(s, 0, sizeof(*s));
	free(v);
}

#define ROW_OFF(f) offsetof(struct sweep_row, f)

/* ---- the figures of each finding, for this machine and for the paper --------*/

/* Finding 2 over idx[0..k). */
static void variance_figures(const struct sweep_config *a, const size_t *idx, size_t k,
			     struct variance_figs *v)
{
	memset(v, 0, sizeof(*v));
	v->k = k;
	v->iqr_growth = v->iqr_ratio = NAN;
	summarise(a, idx, k, ROW_OFF(preproc_std_pct), &v->std_pct);
	double iq_lo = INFINITY, iq_hi = -INFINITY;
	for (size_t i = 0; i < k; i++) {
		const struct sweep_config *c = &a[idx[i]];
		if (!v->bmin || c->batch_size < v->bmin)
			v->bmin = c->batch_size;
		if (c->batch_size > v->bmax)
			v->bmax = c->batch_size;
		if (isfinite(c->c.r.preproc_iqr_ms) && c->c.r.preproc_iqr_ms > 0) {
			iq_lo = fmin(iq_lo, c->c.r.preproc_iqr_ms);
			iq_hi = fmax(iq_hi, c->c.r.preproc_iqr_ms);
		}
	}
	if (isfinite(iq_lo) && iq_hi > iq_lo)
		v->iqr_ratio = iq_hi / iq_lo;
	if (v->bmax > v->bmin) {
		double iq[2] = { 0, 0 };
		int c[2] = { 0, 0 };
		for (size_t i = 0; i < k; i++) {
			const struct sweep_config *x = &a[idx[i]];
			int w = x->batch_size == v->bmin ? 0 : x->batch_size == v->bmax ? 1 : -1;
			if (w < 0 || !isfinite(x->c.r.preproc_iqr_ms))
				continue;
			iq[w] += x->c.r.preproc_iqr_ms;
			c[w]++;
		}
		if (c[0] && c[1] && iq[0] > 0)
			v->iqr_growth = (iq[1] / c[1]) / (iq[0] / c[0]);
	}
}

/* Finding 3 over idx[0..k). */
static void ooo_figures(const struct sweep_config *a, const size_t *idx, size_t k,
			struct ooo_figs *o)
{
	size_t b512[256], n512 = 0;
	memset(o, 0, sizeof(*o));
	o->k = k;
	summarise(a, idx, k, ROW_OFF(ooo_pct), &o->ooo);
	summarise(a, idx, k, ROW_OFF(stall_pct), &o->stall);
	for (size_t i = 0; i < k && n512 < 256; i++)
		if (a[idx[i]].batch_size == 512)
			b512[n512++] = idx[i];
	o->k512 = n512;
	summarise(a, b512, n512, ROW_OFF(wait_gt_500ms_pct), &o->wait500);
	summarise(a, b512, n512, ROW_OFF(delay_gt_500ms_pct), &o->delay500);
}

static int cmp_config_workers(const void *x, const void *y)
{
	const struct sweep_config *a = *(const struct sweep_config *const *)x;
	const struct sweep_config *b = *(const struct sweep_config *const *)y;
	return (a->workers > b->workers) - (a->workers < b->workers);
}

long report_dim_config(const struct sweep_config *a, size_t na)
{
	size_t best = 0, bestn = 0;
	for (size_t i = 0; i < na; i++) {
		size_t c = 0;
		if (!isfinite(a[i].c.r.e2e_s) || !report_enough_batches(&a[i].c.r))
			continue;
		for (size_t j = 0; j < na; j++)
			c += a[j].part == a[i].part && a[j].batch_size == a[i].batch_size &&
			     a[j].gpus == a[i].gpus && isfinite(a[j].c.r.e2e_s) &&
			     report_enough_batches(&a[j].c.r);
		if (c > bestn || (c == bestn && a[i].batch_size > a[best].batch_size)) {
			bestn = c;
			best = i;
		}
	}
	return bestn ? (long)best : -1;
}

/* Finding 4: the (part, batch, GPUs) group of the configurations with enough
 * batches that has the most worker counts (ties: the larger batch:
 * report_dim_config), sorted by workers; its knee and what E2E and the op
 * spans did. */
static void dim_figures(const struct sweep_config *a, size_t na, struct dim_figs *d)
{
	long bi = report_dim_config(a, na);
	memset(d, 0, sizeof(*d));
	d->drop_pct = d->drop_all_pct = d->span_rise_pct = NAN;
	if (bi < 0)
		return;
	size_t best = (size_t)bi;
	const struct sweep_config *g[DIM_MAX];
	size_t k = 0;
	for (size_t j = 0; j < na && k < DIM_MAX; j++)
		if (a[j].part == a[best].part && a[j].batch_size == a[best].batch_size &&
		    a[j].gpus == a[best].gpus && isfinite(a[j].c.r.e2e_s) &&
		    report_enough_batches(&a[j].c.r))
			g[k++] = &a[j];
	qsort(g, k, sizeof(g[0]), cmp_config_workers);
	d->n = k;
	d->part = g[0]->part;
	d->batch_size = g[0]->batch_size;
	d->gpus = g[0]->gpus;
	for (size_t i = 0; i < k; i++) {
		d->workers[i] = g[i]->workers;
		d->e2e[i] = g[i]->c.r.e2e_s;
		d->span[i] = g[i]->c.r.ops_span_s;
	}
	d->knee = knee_of(d->workers, d->e2e, k, KNEE_GAIN_PCT);
	for (size_t i = 0; i < k; i++)
		if (d->workers[i] == d->knee)
			d->ki = i;
	d->drop_pct = 100 * (d->e2e[0] - d->e2e[d->ki]) / d->e2e[0];
	d->drop_all_pct = 100 * (d->e2e[0] - d->e2e[k - 1]) / d->e2e[0];
	if (isfinite(d->span[0]) && isfinite(d->span[k - 1]) && d->span[0] > 0)
		d->span_rise_pct = 100 * (d->span[k - 1] - d->span[0]) / d->span[0];
}

/* ---- the paper --------------------------------------------------------------*/

/* A reference table as rows: ok, complete, one configuration each. */
static int ref_rows(const char *dir, const char *file, struct sweep *s, char *err, size_t n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (sweep_read_csv(s, path, err, n))
		return -1;
	for (size_t i = 0; i < s->nrows; i++) {
		struct sweep_row *r = &s->rows[i];
		snprintf(r->status, sizeof(r->status), "%s", RUN_OK);
		r->complete = 1;
		r->config = (int)i + 1;
		r->repeat = 1;
	}
	return 0;
}

/* The number of the row whose column `key` is `name`, column `col`. */
static double ref_cell(const struct table *t, const char *key, const char *name, const char *col)
{
	int ck = table_col(t, key), cv = table_col(t, col);
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(table_str(t, i, ck), name))
			return table_num(t, i, cv);
	return NAN;
}

int paper_load(const char *top, struct paper *p, char *err, size_t errlen)
{
	char dir[4096], path[4200];
	struct sweep grid, ws;
	struct table t;
	struct sweep_config *a = NULL;
	size_t idx[256] = { 0 };

	memset(p, 0, sizeof(*p));
	if (!top) {
		errf(err, errlen, "the repository's datasets/reference/lotus/figures/ was not found");
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/datasets/reference/lotus/figures", top);

	/* Figs. 4-5: findings 2 and 3, by the functions this machine's use */
	if (ref_rows(dir, "lotus_ic_batch_gpu_sweep.csv", &grid, err, errlen))
		return -1;
	size_t na = sweep_configs(grid.rows, grid.nrows, &a);
	if (na > sizeof(idx) / sizeof(idx[0]))
		na = sizeof(idx) / sizeof(idx[0]);
	size_t k = pick(a, na, -1, 0, 1, idx);
	variance_figures(a, idx, k, &p->variance);
	k = pick(a, na, -1, 0, 2, idx);
	ooo_figures(a, idx, k, &p->ooo);
	free(a);
	sweep_free(&grid);

	/* Fig. 6: finding 4; the op spans are the per-op table's rows summed
	 * (they sum to the worker sweep's cpu_s) */
	if (ref_rows(dir, "lotus_ic_worker_sweep.csv", &ws, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/lotus_ic_cpu_s_per_op_vs_workers.csv", dir);
	if (table_read(&t, path, err, errlen)) {
		sweep_free(&ws);
		return -1;
	}
	for (size_t i = 0; i < ws.nrows; i++) {
		struct sweep_row *r = &ws.rows[i];
		r->batch_size = 1024;
		r->gpus = 4;
		r->ops_span_s = 0;
		char w[16];
		snprintf(w, sizeof(w), "%d", r->workers);
		for (size_t c = 0; c < t.ncols; c++)
			if (strcmp(t.hdr[c], "workers"))
				r->ops_span_s += ref_cell(&t, "workers", w, t.hdr[c]);
	}
	table_free(&t);
	na = sweep_configs(ws.rows, ws.nrows, &a);
	dim_figures(a, na, &p->dim);
	free(a);
	sweep_free(&ws);

	/* Table II: finding 1 */
	snprintf(path, sizeof(path), "%s/lotus_ic_per_op_ms.csv", dir);
	if (table_read(&t, path, err, errlen))
		return -1;
	p->t2_under10_lo = INFINITY;
	p->t2_under10_hi = -INFINITY;
	for (size_t i = 0; i < t.nrows; i++) {
		const char *op = table_str(&t, i, table_col(&t, "op"));
		double v = table_num(&t, i, table_col(&t, "pct_under_10ms"));
		if (!strcmp(op, "Collation") || !isfinite(v))
			continue;   /* per batch, as this machine's collate */
		p->t2_under10_lo = fmin(p->t2_under10_lo, v);
		p->t2_under10_hi = fmax(p->t2_under10_hi, v);
	}
	p->t2_flip_under100us = ref_cell(&t, "op", "RandomHorizontalFlip", "pct_under_100us");
	table_free(&t);

	/* finding 5 */
	snprintf(path, sizeof(path), "%s/lotus_tracing_overhead.csv", dir);
	if (table_read(&t, path, err, errlen))
		return -1;
	int cd = table_col(&t, "dataset"), cp = table_col(&t, "profiler"), co = table_col(&t, "overhead_pct");
	p->overhead_full_pct = p->overhead_subset_pct = NAN;
	for (size_t i = 0; i < t.nrows; i++) {
		if (strcmp(table_str(&t, i, cp), "lotustrace"))
			continue;
		if (!strcmp(table_str(&t, i, cd), "imagenet"))
			p->overhead_full_pct = table_num(&t, i, co);
		else
			p->overhead_subset_pct = table_num(&t, i, co);
	}
	table_free(&t);

	/* figures the paper states without per-configuration data */
	snprintf(path, sizeof(path), "%s/lotus_ic_quoted.csv", dir);
	if (table_read(&t, path, err, errlen))
		return -1;
	p->iqr_ratio_quoted = ref_cell(&t, "figure", "preproc_iqr_ratio_max", "value");
	p->fe_w8_pct = ref_cell(&t, "figure", "decode_frontend_bound_pct_w8", "value");
	p->fe_w28_pct = ref_cell(&t, "figure", "decode_frontend_bound_pct_w28", "value");
	table_free(&t);
	p->ok = 1;
	return 0;
}

/* ---- the findings --------------------------------------------------------------*/

/* "a-b" (min-max) with dec decimals, or "a" when they are equal; from a
 * ring of buffers, so that several fit in one message */
static const char *rng(const struct stats_summary *s, int dec)
{
	static char buf[8][64];
	static int next;
	char *b = buf[next++ % 8];
	if (s->min == s->max)
		snprintf(b, 64, "%.*f", dec, s->min);
	else
		snprintf(b, 64, "%.*f-%.*f", dec, s->min, dec, s->max);
	return b;
}

/* "; the paper: ..." or nothing, for a summary of the paper's figures */
static void paper_range(struct finding *f, const char *what, const struct stats_summary *s,
			const char *unit)
{
	if (s->n)
		finding_why_add(f, "%s%s%s (median %.2f%s)", what, rng(s, 2), unit, s->median, unit);
}

long report_table2_row(const struct sweep_row *r, size_t n, int need_batches)
{
	long best = -1;

	for (size_t i = 0; i < n; i++) {
		if (!sweep_row_ok(&r[i]) || (need_batches && !report_enough_batches(&r[i])))
			continue;
		if (best < 0 || r[i].workers < r[best].workers ||
		    (r[i].workers == r[best].workers &&
		     fabs(log2((double)r[i].batch_size / 128)) < fabs(log2((double)r[best].batch_size / 128))))
			best = (long)i;
	}
	return best;
}

static int is_batch_op(const char *name)
{
	return !strcmp(name, "collate") || !strcmp(name, "transform");
}

static void too_few_batches(struct finding *f)
{
	verdict(f, VERDICT_CANNOT_JUDGE, "no finished configuration has %d or more batches, the "
		"least any finding rests on (raise --epochs, or use a larger dataset; --max-batches "
		"only caps the batches of a run, it cannot add any)", REPORT_MIN_BATCHES);
}

/* Every per-sample op of r has its calls' on-CPU shares (--counters). */
static int oncpu_shares_known(const struct sweep_row *r)
{
	size_t k = 0;
	for (size_t i = 0; i < r->nops; i++) {
		const struct sweep_op *o = &r->ops[i];
		if (is_batch_op(o->name))
			continue;
		if (!isfinite(o->oncpu_under_10ms_pct) || !isfinite(o->oncpu_under_100us_pct))
			return 0;
		k++;
	}
	return k > 0;
}

void finding_short_ops(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		       struct finding *f)
{
	long i = report_table2_row(r, n, 1);
	const struct sweep_row *x;
	const struct sweep_op *flip;
	int bad = 0;

	memset(f, 0, sizeof(*f));
	if (i < 0) {
		too_few_batches(f);
		return;
	}
	x = &r[i];
	if (!sweep_row_op(x, "decode")) {
		verdict(f, VERDICT_CANNOT_JUDGE,
			"the pipeline has no decode op: Table II is about the ImageNet chain "
			"(run with --pipeline imagenet_train)");
		return;
	}
	/* when other load (the noise guard) or the run's own threads beyond its
	 * CPUs (oversubscription) took CPU time the ops wanted, their wall times
	 * hold waits for a CPU, which Table II's dedicated machine did not have;
	 * each call's own time on a CPU (--counters) does not */
	char busy[320], why[360];
	int over = report_oversubscribed(x, cx->cpus);
	if (report_run_busy(x, cx->cpus, busy, sizeof(busy)))
		snprintf(why, sizeof(why), "the noise guard: %s", busy);
	else if (over)
		snprintf(why, sizeof(why), "the run was oversubscribed (more busy threads than the %d "
			 "CPU%s it could use): its calls waited for a CPU", cx->cpus,
			 plural_s(cx->cpus));
	else
		why[0] = 0;
	int on_cpu = why[0] && oncpu_shares_known(x);
	const char *of_cpu = on_cpu ? " of CPU" : "";
	f->judged = 1;
	verdict(f, VERDICT_HOLDS, "in run %s (%d worker%s, batch %d): ", x->tag, x->workers,
		plural_s((size_t)x->workers), x->batch_size);
	if (on_cpu)
		finding_why_add(f, "%s; so each call is judged on its own time on a CPU (the "
			"task-clock between the counter reads around it), which waits for a CPU do not "
			"stretch, as on Table II's dedicated machine: ", why);
	finding_why_add(f, "under 10 ms%s:", of_cpu);
	double least = INFINITY;
	const char *least_op = "";
	for (size_t k = 0; k < x->nops; k++) {
		const struct sweep_op *o = &x->ops[k];
		if (is_batch_op(o->name))
			continue;
		double v = on_cpu ? o->oncpu_under_10ms_pct : o->under_10ms_pct;
		finding_why_add(f, " %s %.1f %%,", o->name, v);
		if (!(v >= 90))
			bad = 1;
		if (v < least) {
			least = v;
			least_op = o->name;
		}
	}
	f->why[strlen(f->why) - 1] = 0;
	char what[96];
	snprintf(what, sizeof(what), "the share of %s's calls under 10 ms%s (the least of any op)",
		 least_op, of_cpu);
	add_test(f, "under 10 ms", what, "%", least, 90, 0, TEST_DECIDES);
	flip = sweep_row_op(x, "random_horizontal_flip");
	if (flip) {
		double v = on_cpu ? flip->oncpu_under_100us_pct : flip->under_100us_pct;
		finding_why_add(f, "; random_horizontal_flip under 100 us%s: %.1f %%", of_cpu, v);
		if (!(v >= 90))
			bad = 1;
		snprintf(what, sizeof(what), "the share of flips under 100 us%s", of_cpu);
		add_test(f, "flip", what, "%", v, 90, 0, TEST_DECIDES);
	}
	if (on_cpu) {
		finding_why_add(f, " (in wall time, which holds the waits: under 10 ms");
		for (size_t k = 0; k < x->nops; k++)
			if (!is_batch_op(x->ops[k].name))
				finding_why_add(f, " %s %.1f %%,", x->ops[k].name, x->ops[k].under_10ms_pct);
		f->why[strlen(f->why) - 1] = 0;
		if (flip)
			finding_why_add(f, "; the flip under 100 us %.1f %%", flip->under_100us_pct);
		finding_why_add(f, ")");
	}
	if (cx->paper && cx->paper->ok)
		finding_why_add(f, " (the paper, Table II: the per-sample ops %.2f-%.2f %% under 10 ms, the flip "
			"%.1f %% under 100 us)", cx->paper->t2_under10_lo, cx->paper->t2_under10_hi,
			cx->paper->t2_flip_under100us);
	if (over && !on_cpu)
		finding_why_add(f, "; that run was oversubscribed (more busy threads than the %d CPU%s it could "
			"use): its op times include time-slicing", cx->cpus, plural_s((size_t)cx->cpus));
	/* without each call's time on a CPU (--counters none, or a run made
	 * before it was counted): ops that spent most of their wall time
	 * waiting for a CPU were not measured as Table II measured them; their
	 * wall-time shares under 10 ms are lower bounds of the ops' own */
	double oncpu = report_run_oncpu_share(x);
	if (!on_cpu && isfinite(oncpu) && oncpu < REPORT_MIN_ONCPU_SHARE) {
		finding_why_add(f, "; the noise guard: that run's ops were on a CPU %.0f %% of their wall time "
			"(others took %.0f %% of the CPUs), so their wall times are mostly waits for a "
			"CPU and these shares are lower bounds of the ops' own", 100 * oncpu,
			x->others_cpu_pct);
		if (bad) {
			finding_why_add(f, "; rerun when the machine is quieter (--require-idle)");
			f->v = VERDICT_CANNOT_JUDGE;
			f->judged = 0;
			return;
		}
	}
	if (bad)
		f->v = VERDICT_DOES_NOT_HOLD;
}

/* ", k configurations without oversubscription" and the rest */
static void say_support(struct finding *f, size_t k, size_t napart, int all_over, int cpus)
{
	if (all_over)
		finding_why_add(f, "; every one of these runs was oversubscribed (more busy threads than the %d "
			"CPU%s it could use), so part of the figure comes from time-slicing, not from "
			"the protocol and the data", cpus, plural_s((size_t)cpus));
	else if (napart)
		finding_why_add(f, "; judged on %zu configuration%s without oversubscription, %zu oversubscribed "
			"one%s shown apart", k, plural_s(k), napart, plural_s(napart));
	f->oversubscribed = all_over;
}

void finding_variance(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		      struct finding *f)
{
	struct judged_set j;
	struct variance_figs v, va;
	const struct paper *p = cx->paper;

	memset(f, 0, sizeof(*f));
	if (judged_open(&j, r, n, cx->cpus, 1, f))
		goto out;
	struct sweep_config *a = j.a;
	size_t *idx = j.idx, *apart = j.apart, k = j.k, napart = j.napart;
	int all_over = j.all_over;
	if (!k) {
		too_few_batches(f);
		goto out;
	}
	if (paper_missing(f, p, p && p->variance.std_pct.n))
		goto out;
	variance_figures(a, idx, k, &v);
	double threshold = p->variance.std_pct.min / 2;
	f->judged = 1;
	verdict(f, v.std_pct.median >= threshold ? VERDICT_HOLDS : VERDICT_DOES_NOT_HOLD,
		"per-batch preprocessing std is %s %% of the mean (median %.2f %%) over %zu "
		"configuration%s; the rule asks at least %.2f %%, half the paper's lowest",
		rng(&v.std_pct, 2), v.std_pct.median, k, plural_s(k), threshold);
	paper_range(f, " (the paper, after the same low-tail cut: ", &p->variance.std_pct, " %");
	finding_why_add(f, ")");
	add_test(f, "std", "the median per-batch std", "%", v.std_pct.median, threshold, 0,
		 TEST_DECIDES);
	if (v.bmax > v.bmin && isfinite(v.iqr_growth)) {
		finding_why_add(f, "; the IQR is %.2fx from b%d to b%d (mean over configurations)", v.iqr_growth,
			v.bmin, v.bmax);
		if (!(v.iqr_growth > 1))
			f->v = VERDICT_DOES_NOT_HOLD;
		char what[96];
		snprintf(what, sizeof(what), "the IQR's growth from b%d to b%d", v.bmin, v.bmax);
		add_test(f, "iqr", what, "x", v.iqr_growth, 1, 0, TEST_DECIDES);
	} else {
		finding_why_add(f, "; one batch size, so the IQR's growth with batch size is not judged");
	}
	if (isfinite(v.iqr_ratio) && isfinite(p->iqr_ratio_quoted))
		finding_why_add(f, "; largest over smallest IQR across configurations: %.2fx (the paper, same "
			"definition over its 15 configurations: %.1fx)", v.iqr_ratio, p->iqr_ratio_quoted);
	say_support(f, k, napart, all_over, cx->cpus);
	if (napart) {
		variance_figures(a, apart, napart, &va);
		finding_why_add(f, " (std %s %% of the mean)", rng(&va.std_pct, 2));
	}
out:
	judged_close(&j);
}

void finding_out_of_order(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
			  struct finding *f)
{
	struct judged_set j;
	struct ooo_figs o, oa;
	const struct paper *p = cx->paper;

	memset(f, 0, sizeof(*f));
	if (judged_open(&j, r, n, cx->cpus, 2, f))
		goto out;
	struct sweep_config *a = j.a;
	size_t *idx = j.idx, *apart = j.apart, k = j.k, napart = j.napart, na = j.na;
	int all_over = j.all_over;
	if (!k) {
		if (pick(a, na, -1, cx->cpus, 1, idx))
			verdict(f, VERDICT_CANNOT_JUDGE, "no finished configuration with %d or more "
				"batches has 2 or more workers (one worker delivers in order)",
				REPORT_MIN_BATCHES);
		else
			too_few_batches(f);
		goto out;
	}
	if (paper_missing(f, p, p && p->ooo.k))
		goto out;
	ooo_figures(a, idx, k, &o);
	double t_ooo = p->ooo.ooo.min / 2, t_stall = p->ooo.stall.min / 2;
	f->judged = 1;
	verdict(f, o.ooo.median >= t_ooo && o.stall.median >= t_stall ? VERDICT_HOLDS :
		VERDICT_DOES_NOT_HOLD,
		"with 2+ workers (%zu configuration%s): out of order %s %% of batches (median "
		"%.1f %%; the rule asks at least %.1f %%), stall %s %% of the wall time (median "
		"%.1f %%; at least %.1f %%): half the paper's lowest figures", k, plural_s(k),
		rng(&o.ooo, 1), o.ooo.median, t_ooo, rng(&o.stall, 1), o.stall.median, t_stall);
	add_test(f, "ooo", "the median out-of-order share", "%", o.ooo.median, t_ooo, 0,
		 TEST_DECIDES);
	add_test(f, "stall", "the median stall", "%", o.stall.median, t_stall, 0, TEST_DECIDES);
	paper_range(f, "; the paper, over its 2+ worker configurations: out of order ", &p->ooo.ooo,
		    " %");
	paper_range(f, ", stall ", &p->ooo.stall, " %");
	if (o.k512 && p->ooo.k512)
		finding_why_add(f, "; at b512 with 2+ workers, %s %% of batches wait over 500 ms (the paper: "
			"%s %%) and %s %% are delayed over 500 ms (the paper: %s %%)",
			rng(&o.wait500, 1), rng(&p->ooo.wait500, 2), rng(&o.delay500, 1),
			rng(&p->ooo.delay500, 2));
	say_support(f, k, napart, all_over, cx->cpus);
	if (napart) {
		ooo_figures(a, apart, napart, &oa);
		finding_why_add(f, " (out of order %s %%, stall %s %%)", rng(&oa.ooo, 1), rng(&oa.stall, 1));
	}
out:
	judged_close(&j);
}

/* What the model predicts for the paper's machine shape from the per-image
 * cost of the run with the fewest workers, labelled as a model: beside the
 * verdict, never deciding it. */
static void model_note(struct finding *f, const struct sweep_row *r, size_t n)
{
	long best = -1;
	for (size_t i = 0; i < n; i++)
		if (sweep_row_ok(&r[i]) && r[i].ops_span_per_image_ms > 0 &&
		    (best < 0 || r[i].workers < r[best].workers))
			best = (long)i;
	char s[700];
	if (best >= 0 && model_paper_shape(r[best].ops_span_per_image_ms, r[best].preproc_std_pct, s,
					   sizeof(s)) >= 0)
		finding_why_add(f, "; %s", s);
}

/* Finding 4's comparisons: every step's E2E gain against the knee rule.
 * The steps before the knee must gain KNEE_GAIN_PCT or more, the
 * knee's step less; the verdict turns on the first step (adding workers
 * helped) and on the knee's step (then it stopped helping), or with no knee
 * on every step; the others say where the knee is. Steps past the knee are
 * recorded for the repeats judged alone only. */
static void dim_tests(struct finding *f, const struct dim_figs *d)
{
	for (size_t i = 0; i + 1 < d->n; i++) {
		char key[32], what[96];
		double gain = 100 * (d->e2e[i] - d->e2e[i + 1]) / d->e2e[i];
		int before = !d->knee || i < d->ki, at = d->knee && i == d->ki;
		enum test_role role = !before && !at ? TEST_VALUE :
				      !d->knee || i == 0 || at ? TEST_DECIDES : TEST_KNEE;
		snprintf(key, sizeof(key), "step %d %d", d->workers[i], d->workers[i + 1]);
		snprintf(what, sizeof(what), "the step from %d to %d workers' E2E gain", d->workers[i],
			 d->workers[i + 1]);
		add_test(f, key, what, "%", gain, KNEE_GAIN_PCT, at, role);
	}
}

/* Finding 4's figures from the rows q[0..k) (freed here): 0 with *d from
 * them when they give d's group with as many worker counts, else -1. */
static int dim_of_rows(struct sweep_row *q, size_t k, struct dim_figs *d)
{
	struct sweep_config *a;
	size_t na = sweep_configs(q, k, &a);
	struct dim_figs dq;
	dim_figures(a, na, &dq);
	free(a);
	free(q);
	if (dq.n != d->n || dq.part != d->part || dq.batch_size != d->batch_size || dq.gpus != d->gpus)
		return -1;
	*d = dq;
	return 0;
}

/* Finding 4's group d judged on every run of it replayed without the other
 * load (sweep_row.replay_e2e_s, made by the report: model_replay_quiet) and
 * its op spans as they would have been without it (times
 * report_run_quiet_scale): 0 with *d from them, or -1 when a run of the
 * group has no replay. */
static int replay_dim(const struct sweep_row *r, size_t n, int cpus, struct dim_figs *d)
{
	struct sweep_row *q = calloc(n ? n : 1, sizeof(*q));
	size_t k = 0;
	if (!q)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!sweep_row_ok(&r[i]) || r[i].part != d->part || r[i].batch_size != d->batch_size ||
		    r[i].gpus != d->gpus)
			continue;
		double scale = report_run_quiet_scale(&r[i], cpus, NULL);
		if (!(r[i].replay_e2e_s > 0) || !(scale > 0)) {
			free(q);
			return -1;
		}
		q[k] = r[i];
		q[k].e2e_s = r[i].replay_e2e_s;
		q[k++].ops_span_s = r[i].ops_span_s * scale;
	}
	return dim_of_rows(q, k, d);
}

/* Finding 4's group d (from every row) judged on the runs the noise guard
 * saw undisturbed (report_run_busy): 0 with d recomputed from them (*nbusy:
 * the group's busy runs left out); when a worker count of the group has no
 * such run, 0 with d from every run replayed without the other load
 * (replay_dim) and `replayed` saying so (the busy runs named, the measured
 * E2E beside), or 1 with f's verdict set when a run has no replay. */
static int quiet_dim(const struct sweep_row *r, size_t n, int cpus, struct dim_figs *d,
		     size_t *nbusy, char *replayed, size_t rn, struct finding *f)
{
	struct sweep_row *q = calloc(n ? n : 1, sizeof(*q));
	char why[320], runs[1200] = "";
	size_t k = 0, listed = 0;
	*nbusy = 0;
	replayed[0] = 0;
	if (!q)
		return 0;   /* out of memory: judged on every run */
	for (size_t i = 0; i < n; i++) {
		int in_group = r[i].part == d->part && r[i].batch_size == d->batch_size && r[i].gpus == d->gpus;
		if (sweep_row_ok(&r[i]) && report_run_busy(&r[i], cpus, why, sizeof(why))) {
			if (in_group) {
				(*nbusy)++;
				size_t l = strlen(runs);
				if (listed++ < 4 && l < sizeof(runs) - 1)
					snprintf(runs + l, sizeof(runs) - l, "%srun %s: %s", l ? "; " : "",
						 r[i].tag, why);
			}
			continue;
		}
		q[k++] = r[i];
	}
	if (!*nbusy) {
		free(q);
		return 0;
	}
	struct dim_figs seen = *d;
	if (!dim_of_rows(q, k, d))
		return 0;
	if (!replay_dim(r, n, cpus, d)) {
		int l = snprintf(replayed, rn, "these E2E are each run of b%d and %d GPU%s replayed by the "
			"model without the other load (its ops' own time on a CPU and its other CPU work "
			"alike, time-sliced by the model on the CPUs it could use; its op spans that time "
			"over the share of the CPUs its own threads leave it), because the noise guard saw "
			"other load take CPU time they wanted (%s%s), and load that slows each worker count "
			"by its own amount moves the knee; measured E2E:", seen.batch_size, seen.gpus,
			plural_s((size_t)seen.gpus), runs, listed > 4 ? "; ..." : "");
		for (size_t i = 0; i < seen.n && l > 0 && (size_t)l < rn; i++)
			l += snprintf(replayed + l, rn - (size_t)l, " %.2f s at %d worker%s%s", seen.e2e[i],
				      seen.workers[i], plural_s((size_t)seen.workers[i]),
				      i + 1 < seen.n ? "," : "");
		for (size_t i = 0; i < d->n && l > 0 && (size_t)l < rn; i++)
			l += snprintf(replayed + l, rn - (size_t)l, "%s %.2f s at %d worker%s", i ? "," :
				      "; replayed E2E:", d->e2e[i], d->workers[i], plural_s((size_t)d->workers[i]));
		return 0;
	}
	verdict(f, VERDICT_CANNOT_JUDGE, "the machine was busy: the noise guard saw other load take "
		"CPU time the runs of b%d and %d GPU%s wanted (%s%s), and load that slows each worker "
		"count by its own amount moves the knee (more workers win a larger share of the CPUs "
		"from it); observed, not judged: E2E", d->batch_size, d->gpus, plural_s((size_t)d->gpus), runs,
		listed > 4 ? "; ..." : "");
	for (size_t i = 0; i < d->n; i++)
		finding_why_add(f, " %.2f s at %d worker%s%s", d->e2e[i], d->workers[i], plural_s((size_t)d->workers[i]),
			i + 1 < d->n ? "," : "");
	finding_why_add(f, "; rerun on a quieter machine, or with the other load at a lower CPU priority "
		"than the runs (nice, renice; each run records its own: noise.nice)");
	return 1;
}

void finding_diminishing(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
			 struct finding *f)
{
	struct sweep_config *a;
	size_t na = sweep_configs(r, n, &a);
	struct dim_figs d;
	const struct paper *p = cx->paper;
	int cpus = cx->cpus;

	memset(f, 0, sizeof(*f));
	dim_figures(a, na, &d);
	free(a);
	if (d.n < 3) {
		verdict(f, VERDICT_CANNOT_JUDGE,
			"needs at least 3 worker counts at one batch size and GPU count, each with %d or "
			"more batches; this sweep has at most %zu", REPORT_MIN_BATCHES, d.n);
		return;
	}
	size_t last = d.n - 1;
	f->knee_workers = d.knee;   /* (the quiet runs' own, below) */
	const char *gs = plural_s((size_t)d.gpus);
	if (cpus > 0 && d.workers[0] >= cpus) {
		verdict(f, VERDICT_CANNOT_JUDGE,
			"the runs could use %d CPU%s and the smallest worker count of the sweep is %d: "
			"every run has at least as many workers as CPUs, so what E2E does is not the "
			"parallel speed-up the finding is about; observed at b%d and %d GPU%s: E2E "
			"%.2f s at %d worker%s, %.2f s at %d", cpus, plural_s((size_t)cpus), d.workers[0], d.batch_size,
			d.gpus, gs, d.e2e[0], d.workers[0], plural_s((size_t)d.workers[0]), d.e2e[last], d.workers[last]);
		if (d.knee)
			finding_why_add(f, ", knee by the rule at %d", d.knee);
		f->oversubscribed = 1;
		goto paper;
	}
	/* the noise guard: a knee from runs that other load slowed, each by
	 * its own amount, is the load's (more workers win a larger share of
	 * the CPUs from it); busy repeats are left out, and when a worker
	 * count has no quiet one left, every run is judged on its replay
	 * without that load (quiet_dim) */
	size_t nbusy = 0;
	char replayed[1600];
	if (quiet_dim(r, n, cpus, &d, &nbusy, replayed, sizeof(replayed), f))
		goto paper;
	f->knee_workers = d.knee;
	f->judged = 1;
	dim_tests(f, &d);
	if (!d.knee) {
		verdict(f, VERDICT_DOES_NOT_HOLD,
			"at b%d and %d GPU%s, E2E still falls by %.0f %% or more at every step from %d "
			"to %d workers (%.2f s to %.2f s): no knee in this range", d.batch_size, d.gpus, gs,
			KNEE_GAIN_PCT, d.workers[0], d.workers[last], d.e2e[0], d.e2e[last]);
		goto judged;
	}
	if (d.ki == 0) {
		verdict(f, VERDICT_DOES_NOT_HOLD,
			"at b%d and %d GPU%s, going from %d to %d workers gains under %.0f %% of E2E "
			"(%.2f s to %.2f s): adding workers did not help at all", d.batch_size, d.gpus, gs,
			d.workers[0], d.workers[1], KNEE_GAIN_PCT, d.e2e[0], d.e2e[1]);
		goto judged;
	}
	verdict(f, VERDICT_HOLDS,
		"at b%d and %d GPU%s the knee is at %d workers: E2E falls %.1f %% from %d to %d "
		"workers (%.2f s to %.2f s), then each step gains under %.0f %%", d.batch_size, d.gpus, gs,
		d.knee, d.drop_pct, d.workers[0], d.workers[d.ki], d.e2e[0], d.e2e[d.ki], KNEE_GAIN_PCT);
	if (cpus > 0)
		finding_why_add(f, " (the runs could use %d CPU%s)", cpus, plural_s((size_t)cpus));
	if (isfinite(d.span_rise_pct)) {
		finding_why_add(f, "; the sum of op spans %s %.1f %% from %d to %d workers (%.2f s to %.2f s)",
			d.span_rise_pct > 0 ? "rises" : "changes by", d.span_rise_pct, d.workers[0], d.workers[last],
			d.span[0], d.span[last]);
		if (!(d.span_rise_pct > 0))
			f->v = VERDICT_DOES_NOT_HOLD;
		add_test(f, "span", "the sum of op spans' rise", "%", d.span_rise_pct, 0, 0,
			 TEST_DECIDES);
	} else {
		finding_why_add(f, "; the op spans are not known, so only the E2E part is judged");
	}
judged:
	if (replayed[0])
		finding_why_add(f, "; %s", replayed);
	else if (nbusy)
		finding_why_add(f, "; %zu run%s of these worker counts left out: the noise guard saw other load "
			"take CPU time they wanted", nbusy, plural_s(nbusy));
paper:
	/* beside every judgement: the model's prediction for the paper's machine */
	model_note(f, r, n);
	if (p && p->ok && p->dim.n)
		finding_why_add(f, " (the paper, b%d with %d GPUs: E2E falls %.1f %% from %d to %d workers, "
			"%.2f s to %.2f s; knee by this rule at %d; the sum of op spans rises %.1f %%)",
			p->dim.batch_size, p->dim.gpus, p->dim.drop_all_pct, p->dim.workers[0],
			p->dim.workers[p->dim.n - 1], p->dim.e2e[0], p->dim.e2e[p->dim.n - 1], p->dim.knee,
			p->dim.span_rise_pct);
}

void finding_overhead(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		      struct finding *f)
{
	double *v = calloc(n ? n : 1, sizeof(double)), cost = NAN;
	size_t k = 0;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; v && i < n; i++) {
		if (!sweep_row_ok(&r[i]) || !(r[i].trace_cost_ns > 0) || !(r[i].trace_events > 0) ||
		    !(r[i].workers_cpu_s > 0))
			continue;
		v[k++] = 100 * r[i].trace_cost_ns * r[i].trace_events / 1e9 /
			 (r[i].workers_cpu_s + (isfinite(r[i].main_cpu_s) ? r[i].main_cpu_s : 0));
		cost = r[i].trace_cost_ns;
	}
	verdict(f, VERDICT_CANNOT_JUDGE,
		"a sweep runs every configuration with tracing on; the overhead needs the same "
		"configuration with tracing off and on, interleaved (make bench, BENCHMARKS.md)");
	if (k) {
		struct stats_summary s;
		stats_summarise(v, k, STATS_CI_LEVEL, &s);
		finding_why_add(f, ". Estimate from this sweep: %.0f ns per event x the events of a run = "
			"%.2g %% of its CPU time (median over %zu run%s)", cost, s.median, k, plural_s(k));
	}
	if (cx->paper && cx->paper->ok)
		finding_why_add(f, " (the paper: +%.2f %% of E2E on ImageNet, +%.1f %% on a 26,061-image "
			"subset)", cx->paper->overhead_full_pct, cx->paper->overhead_subset_pct);
	free(v);
}

/* ---- support: repeats ---------------------------------------------------------*/

/* "<what> is 3.8 % (each repeat alone: -1.0 to 9.1 %, n=3): within noise of
 * the rule's 5.0 %" of a test into out */
static void test_text(const struct finding_test *t, char *out, size_t n)
{
	const char *sp = strcmp(t->unit, "%") ? "" : " ";
	int dec = strcmp(t->unit, "%") ? 2 : 1;
	snprintf(out, n, "%s is %.*f%s%s (each repeat alone: %.*f to %.*f%s%s, n=%zu): within noise "
		 "of the rule's %.*f%s%s", t->what, dec, t->value, sp, t->unit, dec, t->rep.min, dec,
		 t->rep.max, sp, t->unit, t->rep.n, dec, t->target, sp, t->unit);
}

void finding_judge(finding_fn fn, const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		   struct finding *f)
{
	int reps = 0;
	fn(r, n, cx, f);
	for (size_t i = 0; i < n; i++)
		if (sweep_row_ok(&r[i]) && r[i].repeat > reps)
			reps = r[i].repeat;
	f->repeats = reps;
	f->agree = 0;
	f->within_noise = 0;
	if (reps < 2) {
		if (f->judged)
			finding_why_add(f, "; each configuration ran once, so this verdict rests on one "
				"measurement per configuration, with no interval to tell its "
				"comparisons from noise (--repeat 3 or more gives one)");
		return;
	}
	struct sweep_row *sub = calloc(n, sizeof(*sub));
	double *vals = calloc((size_t)reps * FINDING_MAX_TESTS, sizeof(*vals));
	struct finding *g = malloc(sizeof(*g));
	size_t *nv = calloc(FINDING_MAX_TESTS, sizeof(*nv));
	if (!sub || !vals || !g || !nv)
		goto out;
	for (int k = 1; k <= reps; k++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (r[i].repeat == k)
				sub[m++] = r[i];
		fn(sub, m, cx, g);
		f->agree += g->v == f->v;
		/* the same comparison in this repeat alone, by its key */
		for (size_t t = 0; t < f->ntests; t++)
			for (size_t u = 0; u < g->ntests; u++)
				if (!strcmp(f->tests[t].key, g->tests[u].key)) {
					vals[t * (size_t)reps + nv[t]++] = g->tests[u].value;
					break;
				}
	}
	if (f->v != VERDICT_CANNOT_JUDGE)
		finding_why_add(f, "; %s in %d of %d repeats judged alone", verdict_name(f->v), f->agree, reps);
	/* each comparison on its interval */
	char txt[512];
	const char *settle = NULL;
	for (size_t t = 0; t < f->ntests; t++) {
		struct finding_test *x = &f->tests[t];
		if (nv[t] < 2 || stats_summarise(vals + t * (size_t)reps, nv[t], STATS_CI_LEVEL, &x->rep))
			continue;
		x->judged = stats_judge(&x->rep, x->target, x->at_most);
		if (x->judged != TARGET_WITHIN_NOISE || x->role == TEST_VALUE)
			continue;
		test_text(x, txt, sizeof(txt));
		finding_why_add(f, "; %s", txt);
		if (x->role == TEST_DECIDES) {
			f->within_noise = 1;
			settle = x->what;
		}
	}
	if (f->within_noise && f->v != VERDICT_CANNOT_JUDGE)
		finding_why_add(f, "; so this verdict rests on a comparison within noise: more repeats (%s) "
			"would settle whether %s meets the rule", reps < 6 ? "6 or more give a 95 % "
			"interval of the median" : "a narrower interval", settle);
out:
	free(sub);
	free(vals);
	free(g);
	free(nv);
}
