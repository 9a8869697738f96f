#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "log.h"
#include "stats.h"

#define MS_500 500000000.0
#define MS_10 10000000.0
#define US_100 100000.0

size_t analysis_cut_low_tail(double *v, size_t n, size_t *first)
{
	size_t k = 0;

	if (n) {
		stats_sort(v, n);
		double q1 = stats_percentile_sorted(v, n, 25);
		double q3 = stats_percentile_sorted(v, n, 75);
		double lim = q1 - 2.0 * (q3 - q1);
		while (k < n && v[k] < lim)
			k++;
	}
	if (first)
		*first = k;
	return k;
}

/* An op key: what its events are summed under. */
struct op_acc {
	char name[40], lotus_name[40];
	size_t n, cap;
	double *v;
};

static int acc_push(struct op_acc *a, double x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		double *v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

/* A batch event with where it happened. */
struct bev {
	int64_t batch;
	const struct trace_ev *e;
	const struct trace_proc *p;
};

static int cmp_bev(const void *a, const void *b)
{
	const struct bev *x = a, *y = b;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	if (x->e->start_ns != y->e->start_ns)
		return x->e->start_ns < y->e->start_ns ? -1 : 1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int64_t rel(uint64_t t, uint64_t origin)
{
	return (int64_t)(t - origin);
}

/* f[k] / n[k]: per call, NaN when either is missing or n[k] is 0. */
static double per_call(const double *f, const uint64_t *n, size_t k)
{
	return f && n && n[k] ? f[k] / (double)n[k] : NAN;
}

/* The counters of trace op k (a pipeline op), when counted. */
static void op_counters(struct op_metrics *om, const struct analysis_opts *o, size_t k, size_t nops)
{
	om->regions = om->oncpu_s = om->descheduled_s = om->oncpu_pct = NAN;
	om->oncpu_under_10ms_pct = om->oncpu_under_100us_pct = NAN;
	om->faults_per_call = om->faults_per_call_after = om->faults_per_call_after_epoch = NAN;
	om->ipc = om->cache_mpki = om->branch_mpki = NAN;
	om->frontend_stall_pct = om->backend_stall_pct = NAN;
	if (!o->op_counted || !o->op_regions || k >= nops || !o->op_regions[k])
		return;
	const struct counter_derived *d = &o->op_counted[k];
	om->regions = (double)o->op_regions[k];
	om->faults_per_call = per_call(o->op_faults, o->op_regions, k);
	om->faults_per_call_after = per_call(o->op_faults_after, o->op_regions_after, k);
	om->faults_per_call_after_epoch = per_call(o->op_faults_after_epoch, o->op_regions_after_epoch, k);
	om->oncpu_s = d->oncpu_ns / 1e9;
	om->descheduled_s = d->descheduled_ns / 1e9;
	om->oncpu_pct = d->oncpu_pct;
	om->oncpu_under_10ms_pct = d->oncpu_under_10ms_pct;
	om->oncpu_under_100us_pct = d->oncpu_under_100us_pct;
	om->ipc = d->ipc;
	om->cache_mpki = d->cache_mpki;
	om->branch_mpki = d->branch_mpki;
	om->frontend_stall_pct = d->frontend_stall_pct;
	om->backend_stall_pct = d->backend_stall_pct;
}

static int compute_ops(const struct trace *t, const struct analysis_opts *o, struct run_metrics *m,
		       char *err, size_t errlen)
{
	size_t nkeys = t->nops, collate = SIZE_MAX, transform;
	struct op_acc acc[sizeof(t->op_names) / sizeof(t->op_names[0]) + 2];
	int ret = -1;

	memset(acc, 0, sizeof(acc));
	if (nkeys > sizeof(t->op_names) / sizeof(t->op_names[0])) {
		errf(err, errlen, "trace has %zu ops (at most %zu)", nkeys,
			sizeof(t->op_names) / sizeof(t->op_names[0]));
		return -1;
	}
	for (size_t i = 0; i < nkeys; i++) {
		snprintf(acc[i].lotus_name, sizeof(acc[i].lotus_name), "%s", t->op_names[i]);
		snprintf(acc[i].name, sizeof(acc[i].name), "%s",
			 t->op_ids[i][0] ? t->op_ids[i] : t->op_names[i]);
		if (collate == SIZE_MAX && !strcmp(t->op_names[i], "SCollation"))
			collate = i;
	}
	if (collate == SIZE_MAX) {
		collate = nkeys++;
		strcpy(acc[collate].name, "collate");
		strcpy(acc[collate].lotus_name, "SCollation");
	}
	transform = nkeys++;
	strcpy(acc[transform].name, "transform");
	strcpy(acc[transform].lotus_name, "STransform");

	for (size_t p = 0; p < t->nprocs; p++) {
		const struct trace_proc *pr = &t->procs[p];
		for (size_t i = 0; i < pr->n; i++) {
			const struct trace_ev *e = &pr->ev[i];
			size_t k;
			if (e->kind == EV_OP) {
				if (e->op >= t->nops) {
					errf(err, errlen, "event of op %u but the trace has %zu ops",
						(unsigned)e->op, t->nops);
					goto out;
				}
				k = e->op;
			} else if (e->kind == EV_TRANSFORM) {
				k = transform;
			} else if (e->kind == EV_COLLATE) {
				k = collate;
			} else {
				continue;
			}
			if (acc_push(&acc[k], (double)e->dur_ns) < 0) {
				errf(err, errlen, "out of memory");
				goto out;
			}
		}
	}

	m->ops = calloc(nkeys, sizeof(*m->ops));
	if (!m->ops) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	m->ops_oncpu_s = NAN;
	for (size_t k = 0; k < nkeys; k++) {
		struct op_acc *a = &acc[k];
		struct op_metrics *om;
		size_t u10 = 0, u100 = 0;
		int counted = o->op_regions && k < t->nops && o->op_regions[k];

		/* an op counted without op events (--trace off) still gets a row */
		if (!a->n && !counted)
			continue;
		om = &m->ops[m->nops++];
		memcpy(om->name, a->name, sizeof(om->name));
		memcpy(om->lotus_name, a->lotus_name, sizeof(om->lotus_name));
		om->trace_op = k < t->nops ? (int)k : -1;
		for (size_t i = 0; i < a->n; i++) {
			u10 += a->v[i] < MS_10;
			u100 += a->v[i] < US_100;
		}
		stats_compute(a->v, a->n, &om->st);
		om->span_s = om->st.sum / 1e9;
		om->under_10ms_pct = a->n ? 100.0 * (double)u10 / (double)a->n : NAN;
		om->under_100us_pct = a->n ? 100.0 * (double)u100 / (double)a->n : NAN;
		op_counters(om, o, k, t->nops);
		if (!a->n) {
			/* no events: nothing but the counted figures is known */
			om->st.mean = om->st.std = om->st.min = om->st.max = NAN;
			om->st.p25 = om->st.p50 = om->st.p75 = om->st.p90 = om->st.p99 = NAN;
			om->span_s = NAN;
		}
		if (k != transform) {
			m->ops_span_s += a->n ? om->span_s : 0;
			if (!isnan(om->oncpu_s))
				m->ops_oncpu_s = (isnan(m->ops_oncpu_s) ? 0 : m->ops_oncpu_s) + om->oncpu_s;
		}
	}
	ret = 0;
out:
	for (size_t k = 0; k < sizeof(acc) / sizeof(acc[0]); k++)
		free(acc[k].v);
	return ret;
}

static void init_row(struct batch_row *r, int64_t id)
{
	r->id = id;
	r->worker = -1;
	r->pid = 0;
	r->samples = 0;
	r->queued = r->started = r->finished = r->arrived = BATCH_NONE;
	r->pinned = r->consumed = r->wait_ns = r->delay_ns = BATCH_NONE;
	r->out_of_order = 0;
}

/* Every event of a batch (batch >= 0), sorted by batch id (cmp_bev);
 * NULL when out of memory. */
static struct bev *collect_batch_events(const struct trace *t, size_t *nbp)
{
	struct bev *bv;
	size_t nb = 0;
	for (size_t p = 0; p < t->nprocs; p++)
		for (size_t i = 0; i < t->procs[p].n; i++)
			nb += t->procs[p].ev[i].batch >= 0;
	bv = malloc((nb ? nb : 1) * sizeof(*bv));
	if (!bv)
		return NULL;
	nb = 0;
	for (size_t p = 0; p < t->nprocs; p++) {
		const struct trace_proc *pr = &t->procs[p];
		for (size_t i = 0; i < pr->n; i++) {
			if (pr->ev[i].batch < 0)
				continue;
			bv[nb].batch = pr->ev[i].batch;
			bv[nb].e = &pr->ev[i];
			bv[nb].p = pr;
			nb++;
		}
	}
	qsort(bv, nb, sizeof(*bv), cmp_bev);
	*nbp = nb;
	return bv;
}

/* One event of a batch into its row; a sample id it names into smp. */
static void row_take_event(struct batch_row *r, const struct bev *b,
			   const struct analysis_opts *o, uint32_t *smp, size_t *ns)
{
	const struct trace_ev *e = b->e;
	switch (e->kind) {
	case EV_OP:
	case EV_TRANSFORM:
		if (e->sample != UINT32_MAX)
			smp[(*ns)++] = e->sample;
		break;
	case EV_BATCH_PREPROC:
		r->worker = b->p->role == ROLE_WORKER ? b->p->id : -1;
		r->pid = b->p->pid;
		r->started = rel(e->start_ns, o->start_ns);
		r->finished = rel(e->start_ns + e->dur_ns, o->start_ns);
		break;
	case EV_BATCH_QUEUED:
		r->queued = rel(e->start_ns, o->start_ns);
		break;
	case EV_BATCH_WAIT:
		r->wait_ns = (int64_t)e->dur_ns;
		r->out_of_order = e->dur_ns == TRACE_MARKER_NS;
		break;
	case EV_BATCH_CONSUMED:
		r->consumed = rel(e->start_ns, o->start_ns);
		break;
	case EV_BATCH_ARRIVED:
		r->arrived = rel(e->start_ns, o->start_ns);
		break;
	case EV_BATCH_PINNED:
		r->pinned = rel(e->start_ns + e->dur_ns, o->start_ns);
		break;
	default:
		break;
	}
}

/* One row per batch id from the sorted events bv; -1 when out of memory. */
static int build_batch_rows(const struct bev *bv, size_t nb, const struct analysis_opts *o,
			    struct run_metrics *m)
{
	uint32_t *smp = NULL;
	size_t ngroups = 0, nsmp_cap = 0;
	int ret = -1;

	for (size_t i = 0; i < nb; i++)
		ngroups += i == 0 || bv[i].batch != bv[i - 1].batch;
	m->rows = calloc(ngroups ? ngroups : 1, sizeof(*m->rows));
	if (!m->rows)
		goto out;
	for (size_t i = 0; i < nb;) {
		size_t j = i, ns = 0;
		struct batch_row *r = &m->rows[m->nbatches++];

		init_row(r, bv[i].batch);
		while (j < nb && bv[j].batch == bv[i].batch)
			j++;
		if (j - i > nsmp_cap) {
			uint32_t *s = realloc(smp, (j - i) * sizeof(*s));
			if (!s)
				goto out;
			smp = s;
			nsmp_cap = j - i;
		}
		for (size_t k = i; k < j; k++)
			row_take_event(r, &bv[k], o, smp, &ns);
		qsort(smp, ns, sizeof(*smp), cmp_u32);
		for (size_t k = 0; k < ns; k++)
			r->samples += k == 0 || smp[k] != smp[k - 1];
		if (r->consumed != BATCH_NONE && r->finished != BATCH_NONE)
			r->delay_ns = r->consumed - r->finished;
		i = j;
	}
	ret = 0;
out:
	free(smp);
	return ret;
}

/* batch preprocessing, with Lotus's low-tail cut; v: room for a value
 * per batch */
static void summarise_preproc(struct run_metrics *m, double *v)
{
	size_t n = 0, first;
	for (size_t i = 0; i < m->nbatches; i++)
		if (m->rows[i].started != BATCH_NONE)
			v[n++] = (double)(m->rows[i].finished - m->rows[i].started);
	stats_compute(v, n, &m->preproc_all);
	m->preproc_dropped = analysis_cut_low_tail(v, n, &first);
	stats_compute(v + first, n - first, &m->preproc);
	m->preproc_std_pct = m->preproc.mean > 0 ? 100.0 * m->preproc.std / m->preproc.mean : 0;
	m->preproc_iqr_ns = m->preproc.p75 - m->preproc.p25;
}

/* out of order: arrived before a batch with a smaller id. From the
 * arrival events where the trace has them (rows are sorted by id: a
 * batch is out of order when an earlier id arrived later); else from
 * the SBatchWait markers (set by row_take_event). */
static void count_out_of_order(struct run_metrics *m)
{
	int64_t latest = INT64_MIN;
	size_t arrivals = 0;
	for (size_t i = 0; i < m->nbatches; i++)
		arrivals += m->rows[i].arrived != BATCH_NONE;
	if (arrivals) {
		/* the latest arrival among smaller ids, from the right */
		for (size_t i = 0; i < m->nbatches; i++) {
			struct batch_row *r = &m->rows[i];
			if (r->arrived == BATCH_NONE) {
				r->out_of_order = 0;
				continue;
			}
			r->out_of_order = r->arrived < latest;
			if (r->arrived > latest)
				latest = r->arrived;
			m->ooo_batches += (size_t)r->out_of_order;
		}
		m->ooo_pct = 100.0 * (double)m->ooo_batches / (double)arrivals;
	} else {
		size_t records = 0;
		for (size_t i = 0; i < m->nbatches; i++) {
			records += m->rows[i].wait_ns != BATCH_NONE;
			m->ooo_batches += (size_t)m->rows[i].out_of_order;
		}
		m->ooo_pct = records ? 100.0 * (double)m->ooo_batches / (double)records : 0;
	}
}

/* waits: the SBatchWait markers (1000 ns) are not waits; the rest are
 * the main process's waits for the batch it hands over next */
static void summarise_waits(struct run_metrics *m, double *v)
{
	size_t n = 0, over = 0;
	double sum = 0;
	for (size_t i = 0; i < m->nbatches; i++) {
		const struct batch_row *r = &m->rows[i];
		if (r->wait_ns == BATCH_NONE)
			continue;
		m->wait_events++;
		if (r->wait_ns == TRACE_MARKER_NS)
			continue;
		v[n++] = (double)r->wait_ns;
		sum += (double)r->wait_ns;
		over += (double)r->wait_ns > MS_500;
	}
	m->wait_total_s = sum / 1e9;
	m->stall_pct = m->e2e_s > 0 ? 100.0 * m->wait_total_s / m->e2e_s : 0;
	m->wait_over_500ms_pct = m->wait_events ?
		100.0 * (double)over / (double)m->wait_events : 0;
	m->wait_inorder_over_500ms_pct = stats_share_above(v, n, MS_500);
	stats_compute(v, n, &m->wait);
}

/* delay: a finished batch waiting to be consumed */
static void summarise_delays(struct run_metrics *m, double *v)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nbatches; i++)
		if (m->rows[i].delay_ns != BATCH_NONE)
			v[n++] = (double)m->rows[i].delay_ns;
	m->delay_over_500ms_pct = stats_share_above(v, n, MS_500);
	stats_compute(v, n, &m->delay);
}

static int compute_batches(const struct trace *t, const struct analysis_opts *o,
			   struct run_metrics *m, char *err, size_t errlen)
{
	struct bev *bv;
	double *v = NULL;
	size_t nb = 0;
	int ret = -1;

	bv = collect_batch_events(t, &nb);
	if (!bv || build_batch_rows(bv, nb, o, m) < 0)
		goto oom;
	v = malloc((m->nbatches ? m->nbatches : 1) * sizeof(*v));
	if (!v)
		goto oom;
	summarise_preproc(m, v);
	count_out_of_order(m);
	summarise_waits(m, v);
	summarise_delays(m, v);
	ret = 0;
	goto out;
oom:
	errf(err, errlen, "out of memory");
out:
	free(bv);
	free(v);
	return ret;
}

/* Per image: the processes' CPU, system time and page faults (analysis.h). */
static void compute_usage(const struct analysis_opts *o, struct run_metrics *m)
{
	double n = (double)o->images;
	const struct proc_use *u = o->worker_use;
	int all = u && o->use_workers > 0 && o->use_workers == o->workers;
	m->tree_cpu_ms_per_image = n > 0 && o->worker_cpu_s ?
				   (m->workers_cpu_s + o->main_cpu_s) / n * 1e3 : NAN;
	m->main_setup_cpu_s = o->has_setup ? o->main_setup_cpu_s : NAN;
	m->main_teardown_cpu_s = o->has_setup ? o->main_teardown_cpu_s : NAN;
	m->run_cpu_ms_per_image = o->has_setup && n > 0 ? m->tree_cpu_ms_per_image +
				  (o->main_setup_cpu_s + o->main_teardown_cpu_s) / n * 1e3 : NAN;
	m->workers_sys_ms_per_image = all && n > 0 ? u[USE_END].sys_s / n * 1e3 : NAN;
	m->workers_faults_per_image = all && n > 0 ? (double)u[USE_END].faults / n : NAN;
	uint64_t after = all ? u[USE_END].samples - u[USE_FIRST].samples : 0;
	m->workers_faults_after_per_image = after ?
		(double)(u[USE_END].faults - u[USE_FIRST].faults) / (double)after : NAN;
	m->workers_cpu_after_ms_per_image = after ?
		(u[USE_END].cpu_s - u[USE_FIRST].cpu_s) / (double)after * 1e3 : NAN;
	m->main_sys_ms_per_image = o->main_use && n > 0 ? o->main_use->sys_s / n * 1e3 : NAN;
	m->main_faults_per_image = o->main_use && n > 0 ? (double)o->main_use->faults / n : NAN;
}

/* The harness's cost per sample beside the pipeline's (analysis.h), after
 * compute_ops (the ops' on-CPU time). */
static void compute_harness(const struct analysis_opts *o, struct run_metrics *m)
{
	m->pin_copy_s = (double)o->pin_copy_ns / 1e9;
	m->harness_startup_us = m->harness_counters_us = m->harness_checksum_us = NAN;
	m->harness_workers_us = m->harness_main_us = m->harness_us = m->pin_copy_us = NAN;
	m->pipeline_us = m->harness_ratio = m->gpu_overshoot_s = NAN;
	const struct proc_use *u = o->worker_use;
	if (!u || o->use_workers <= 0 || o->use_workers != o->workers || !o->images ||
	    !o->worker_cpu_s)
		return;
	/* a sleep lasts at least the kernel's timer slack (about 50 us) */
	uint64_t over = o->gpu_busy_ns > o->gpu_model_ns ? o->gpu_busy_ns - o->gpu_model_ns : 0;
	m->gpu_overshoot_s = (double)over / 1e9;
	double per = 1e6 / (double)o->images;   /* s -> us per sample */
	double loop = u[USE_END].cpu_s - u[USE_START].cpu_s;
	double counters = (double)o->counter_reads * o->counter_read_ns / 1e9;
	/* the checksum's CPU: its wall time times the share of their loops'
	 * wall time the workers spent on a CPU (a clock read of CPU time per
	 * sample would cost more than a tenth of the hash) */
	double share = o->worker_loop_ns ? loop / ((double)o->worker_loop_ns / 1e9) : 1;
	if (share > 1)
		share = 1;
	double hash = (double)o->checksum_ns / 1e9 * share;
	/* the ops' CPU: their on-CPU time (counted: the reads inside their
	 * windows are off it), else their spans times the same share */
	double ops = isnan(m->ops_oncpu_s) ? (double)o->worker_ops_ns / 1e9 * share : m->ops_oncpu_s;
	double pin = (double)o->pin_copy_cpu_ns / 1e9;
	m->harness_startup_us = (m->workers_cpu_s - loop) * per;
	m->harness_counters_us = counters * per;
	m->harness_checksum_us = hash * per;
	m->harness_workers_us = (loop - ops - counters - hash) * per;
	m->harness_main_us = (o->main_cpu_s - pin) * per;
	m->pin_copy_us = pin * per;
	m->harness_us = m->harness_startup_us + m->harness_counters_us + m->harness_checksum_us +
			m->harness_workers_us + m->harness_main_us;
	m->pipeline_us = ops * per;
	if (m->pipeline_us > 0)
		m->harness_ratio = m->harness_us / m->pipeline_us;
}

/* The run's facts as given: window, counts, checksum, the processes' CPU
 * and memory, the files skipped. 0, or -1 (out of memory). */
static int copy_run(const struct analysis_opts *o, struct run_metrics *m)
{
	m->complete = o->complete;
	if (o->stop_reason)
		snprintf(m->stop_reason, sizeof(m->stop_reason), "%s", o->stop_reason);
	m->batch_size = o->batch_size;
	m->workers = o->workers;
	m->gpus = o->gpus;
	m->start_ns = o->start_ns;
	m->end_ns = o->end_ns;
	m->e2e_s = (double)(o->end_ns - o->start_ns) / 1e9;
	m->images = o->images;
	m->images_per_s = m->e2e_s > 0 ? (double)o->images / m->e2e_s : 0;
	m->checksum = o->checksum;
	m->main_cpu_s = o->main_cpu_s;
	m->main_maxrss_kib = o->main_maxrss_kib;
	m->trace_cost_ns = o->trace_cost_ns;

	if (o->workers > 0 && o->worker_cpu_s) {
		m->worker_cpu_s = malloc((size_t)o->workers * sizeof(double));
		if (!m->worker_cpu_s)
			return -1;
		for (int i = 0; i < o->workers; i++) {
			m->worker_cpu_s[i] = o->worker_cpu_s[i];
			m->workers_cpu_s += o->worker_cpu_s[i];
		}
	}
	m->worker_rss_max_kib = m->worker_rss_mean_kib = NAN;
	if (o->workers > 0 && o->worker_maxrss_kib) {
		m->worker_maxrss_kib = malloc((size_t)o->workers * sizeof(long));
		if (!m->worker_maxrss_kib)
			return -1;
		memcpy(m->worker_maxrss_kib, o->worker_maxrss_kib, (size_t)o->workers * sizeof(long));
		double sum = 0, mx = 0;
		for (int i = 0; i < o->workers; i++) {
			sum += (double)o->worker_maxrss_kib[i];
			mx = fmax(mx, (double)o->worker_maxrss_kib[i]);
		}
		m->worker_rss_max_kib = mx;
		m->worker_rss_mean_kib = sum / o->workers;
	}
	m->nskipped = o->nskipped;
	if (o->skipped && o->nskipped_listed) {
		m->skipped = calloc(o->nskipped_listed, sizeof(char *));
		m->skipped_reason = calloc(o->nskipped_listed, sizeof(char *));
		if (!m->skipped || !m->skipped_reason)
			return -1;
		for (size_t i = 0; i < o->nskipped_listed; i++) {
			const char *why = o->skipped_reasons ? o->skipped_reasons[i] : NULL;
			m->skipped[i] = strdup(o->skipped[i] ? o->skipped[i] : "");
			m->skipped_reason[i] = strdup(why ? why : "");
			m->nskipped_listed++;
			if (!m->skipped[i] || !m->skipped_reason[i])
				return -1;
		}
	}
	return 0;
}

/* The run's surroundings and the loader's own figures: trace size, noise,
 * placement, checksum, copies, usage, policies, the fused op. */
static void copy_context(const struct trace *t, const struct analysis_opts *o,
			 struct run_metrics *m)
{
	for (size_t p = 0; p < t->nprocs; p++) {
		m->trace_events += t->procs[p].n;
		m->trace_dropped += t->procs[p].dropped;
	}
	m->others_cpu_pct = o->others_cpu_pct;
	m->steal_pct = o->steal_pct;
	m->load1 = o->load1;
	m->nice = o->have_priority ? o->nice : NAN;
	m->group_nice = o->have_priority ? o->group_nice : NAN;
	m->cpus_usable = o->cpus_usable > 0 ? o->cpus_usable : NAN;
	m->busy_threads = m->e2e_s > 0 ? (double)o->workers + o->main_cpu_s / m->e2e_s : NAN;
	m->oversubscribed = isnan(m->cpus_usable) || isnan(m->busy_threads) ? NAN :
			    m->busy_threads > m->cpus_usable + 0.5;
	m->checksum_s = (double)o->checksum_ns / 1e9;
	m->checksum_bytes = o->checksum_bytes;
	m->checksum_gb_per_s = o->checksum_ns ? (double)o->checksum_bytes / (double)o->checksum_ns : NAN;
	m->gpu_copy_s = (double)o->gpu_copy_ns / 1e9;
	compute_usage(o, m);
	m->inflight_max = o->max_inflight;
	m->samples_reordered = o->samples_moved;
	m->speedy_slow_lane = o->slow_lane;
	m->speedy_timeout_s = o->speedy && o->speedy_timeout_ns ? (double)o->speedy_timeout_ns / 1e9 : NAN;
	m->fused_region_decodes = o->fused ? (double)o->fused_regions : NAN;
	m->fused_full_decodes = o->fused ? (double)o->fused_full : NAN;
}

/* GPU busy and idle: the consumer's accounting when given, else the copy
 * and step events against E2E (analysis.h). */
static void compute_gpu(const struct trace *t, const struct analysis_opts *o,
			struct run_metrics *m)
{
	if (o->gpu_busy_ns || o->gpu_idle_ns) {
		m->gpu_busy_s = (double)o->gpu_busy_ns / 1e9;
		m->gpu_idle_s = (double)o->gpu_idle_ns / 1e9;
	} else {
		uint64_t busy = 0;
		for (size_t p = 0; p < t->nprocs; p++)
			for (size_t i = 0; i < t->procs[p].n; i++) {
				const struct trace_ev *e = &t->procs[p].ev[i];
				if (e->kind == EV_GPU_COPY || e->kind == EV_GPU_STEP)
					busy += e->dur_ns;
			}
		m->gpu_busy_s = (double)busy / 1e9;
		m->gpu_idle_s = busy ? (m->e2e_s > m->gpu_busy_s ? m->e2e_s - m->gpu_busy_s : 0) : 0;
	}
	if (m->gpu_busy_s + m->gpu_idle_s > 0)
		m->gpu_util_pct = 100.0 * m->gpu_busy_s / (m->gpu_busy_s + m->gpu_idle_s);
}

int analysis_compute(const struct trace *t, const struct analysis_opts *o,
		     struct run_metrics *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (o->end_ns < o->start_ns) {
		errf(err, errlen, "run ends before it starts (%llu < %llu)",
			(unsigned long long)o->end_ns, (unsigned long long)o->start_ns);
		return -1;
	}
	if (copy_run(o, m)) {
		errf(err, errlen, "out of memory");
		goto fail;
	}
	copy_context(t, o, m);
	if (compute_ops(t, o, m, err, errlen) < 0)
		goto fail;
	compute_harness(o, m);
	if (compute_batches(t, o, m, err, errlen) < 0)
		goto fail;
	m->workers_cpu_ms_per_image = m->images ? 1e3 * m->workers_cpu_s / (double)m->images : NAN;
	m->ops_span_ms_per_image = m->images ? 1e3 * m->ops_span_s / (double)m->images : NAN;
	m->batches = o->batches;
	if (!m->batches)
		for (size_t i = 0; i < m->nbatches; i++)
			m->batches += m->rows[i].consumed != BATCH_NONE;
	compute_gpu(t, o, m);
	return 0;
fail:
	analysis_free(m);
	return -1;
}

void analysis_free(struct run_metrics *m)
{
	free(m->ops);
	free(m->worker_cpu_s);
	free(m->worker_maxrss_kib);
	for (size_t i = 0; i < m->nskipped_listed; i++) {
		free(m->skipped[i]);
		free(m->skipped_reason ? m->skipped_reason[i] : NULL);
	}
	free(m->skipped);
	free(m->skipped_reason);
	m->skipped_reason = NULL;
	free(m->rows);
	m->ops = NULL;
	m->nops = 0;
	m->worker_cpu_s = NULL;
	m->worker_maxrss_kib = NULL;
	m->skipped = NULL;
	m->nskipped_listed = 0;
	m->rows = NULL;
	m->nbatches = 0;
}
