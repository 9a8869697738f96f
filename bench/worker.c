/* The worker loop (PyTorch's _worker_loop): for each task, fetch its
 * samples one after the other through the pipeline, collate them into the
 * task's shared slot, and send the result. Events go to the worker's own
 * buffer; between two clock reads there is only the op (pipeline.c), and
 * everything the harness adds (events, seeding, checksum) is outside the op
 * spans. The checksum of a sample is taken right after its last op, while
 * its data is in cache (about 8 GB/s, against 3 GB/s from the collated
 * slot): it is inside the batch span, and its time is reported.
 *
 * Counters (cfg->counters): each worker opens one group for itself when it
 * starts (a group counts the thread that opened it, so after the fork or
 * at thread start) and reads it at every op boundary (counted.h); the
 * sums go to its shared accumulators. Pinning (cfg->pin_plan): each
 * worker binds itself at start; a binding that fails is a warning. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend.h"
#include "checksum.h"
#include "clock.h"
#include "counted.h"
#include "imagefolder.h"
#include "log.h"
#include "pipeline.h"
#include "rng.h"
#include "topology.h"

static int read_task(int fd, struct task_msg *t)
{
	size_t got = 0;
	while (got < sizeof(*t)) {
		ssize_t r = read(fd, (char *)t + got, sizeof(*t) - got);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0 || errno != EINTR)
			return -1;
	}
	return 0;
}

static int write_result(int fd, const struct result_msg *m)
{
	/* one write of less than PIPE_BUF bytes: atomic, never partial */
	for (;;) {
		ssize_t w = write(fd, m, sizeof(*m));
		if (w == (ssize_t)sizeof(*m))
			return 0;
		if (w < 0 && errno == EINTR)
			continue;
		return -1;
	}
}

static int log_error(struct shared *sh, int wid, int op, int64_t batch, int64_t index,
		     const char *reason)
{
	uint32_t k = atomic_fetch_add(&sh->nerr, 1);
	if (k >= ERR_LOG_CAP)
		return -1;
	struct err_rec *e = &sh->err[k];
	e->worker = wid;
	e->op = op;
	e->batch = batch;
	e->index = index;
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
	atomic_store_explicit(&e->ready, 1, memory_order_release);
	return (int)k;
}

struct wstate {
	struct loader *L;
	int wid;
	struct worker_shared *ws;
	struct counter_group *cg;  /* NULL: not counted */
	struct scratch scr;
	struct sample *smp;        /* [B] */
	struct sample **ok;        /* [B]: the samples that made it */
	struct rng srng;           /* per-sample stream, reseeded for each sample (if L->random) */
	struct rng wrng;           /* the worker's torch stream */
	int64_t epoch;             /* of wrng's seed, -1 none */
};

/* Events of one sample: each op that ran, then STransform. */
static void trace_sample(struct wstate *st, const struct op_time *t, int nran, int64_t batch,
			 uint32_t k)
{
	const struct loader *L = st->L;
	const struct pipeline *p = L->cfg->pipe;
	struct trace_proc *tp = &st->ws->tp;
	uint64_t off = (uint64_t)L->wall_off;
	for (int i = 0; i < nran; i++)
		if (i != p->batch_op)
			trace_add(tp, EV_OP, (uint16_t)i, batch, k, t[i].start_ns + off, t[i].dur_ns);
	if (L->tf_first < 0 || L->tf_first >= nran)
		return;
	int last = L->tf_last < nran - 1 ? L->tf_last : nran - 1;
	uint64_t s = t[L->tf_first].start_ns, e = t[last].start_ns + t[last].dur_ns;
	trace_add(tp, EV_TRANSFORM, 0, batch, k, s + off, e - s);
}

static void run_task(struct wstate *st, const struct task_msg *tk, struct result_msg *m)
{
	struct loader *L = st->L;
	const struct loader_cfg *c = L->cfg;
	const struct pipeline *p = c->pipe;
	struct trace_proc *tp = &st->ws->tp;
	uint64_t off = (uint64_t)L->wall_off;
	struct op_time t[PIPE_MAX_OPS];
	size_t nok = 0;
	uint64_t sum = 0;

	memset(m, 0, sizeof(*m));
	m->batch = tk->batch;
	m->slot = tk->slot;
	m->worker = st->wid;
	m->err = -1;
	m->pinned = -1;
	if (c->rng == RNG_TORCH && st->epoch != (int64_t)tk->epoch) {
		/* a new epoch is a new DataLoader iterator: fresh workers seeded
		 * base_seed + worker_id */
		rng_seed(&st->wrng, (uint64_t)L->sched.base_seed[tk->epoch] + (uint64_t)st->wid);
		st->epoch = tk->epoch;
	}

	uint64_t t0 = clock_now_ns();
	for (uint32_t k = 0; k < tk->n; k++) {
		if (atomic_load_explicit(&L->sh->stop, memory_order_relaxed))
			return;
		uint64_t di = L->sched.idx[tk->first + k];
		struct sample *s = &st->smp[k];
		s->path = c->data->items[di].path;
		s->label = c->data->items[di].label;
		s->index = di;
		s->fixed = NULL;
		s->max_pixels = c->max_pixels;
		s->kind = PIX_NONE;
		s->h = s->w = 0;
		s->scr = &st->scr;
		s->err[0] = 0;
		if (c->rng == RNG_TORCH) {
			s->rng = &st->wrng;
		} else {
			/* seeding costs about 2 us: only when an op draws */
			if (L->random)
				rng_seed(&st->srng, rng_sample_seed(c->seed, tk->epoch, di));
			s->rng = &st->srng;
		}
		int rc = pipeline_run_sample_counted(p, s, t, st->cg, st->ws->cacc);
		if (c->trace)
			trace_sample(st, t, rc ? rc : p->nops, tk->batch, k);
		if (!rc) {
			st->ok[nok++] = s;
			/* the checksum, while the sample's data is still in cache */
			size_t nb = c->checksum ? sample_bytes(s) : 0;
			if (!c->checksum) {
				/* no proof asked for */
			} else if (nb) {
				uint64_t h0 = clock_now_ns();
				sum += checksum_sample(s->data.p, nb, s->label);
				st->ws->hash_ns += clock_now_ns() - h0;
				st->ws->hash_bytes += nb;
			} else {
				sum += checksum_sample(NULL, 0, s->label);
			}
			continue;
		}
		int e = log_error(L->sh, st->wid, rc - 1, tk->batch, (int64_t)di, s->err);
		m->nskipped++;
		if (c->on_error == ON_ERROR_FAIL) {
			/* the exception ends the fetch of this batch */
			m->status = RES_DATA_ERROR;
			m->err = e;
			break;
		}
	}

	unsigned char *slot = L->slots + (size_t)tk->slot * L->plan->slot_bytes;
	if (m->status == RES_OK && p->batch_op >= 0) {
		struct batch_out out = { .mem = slot, .capacity = L->plan->slot_bytes, .n = nok };
		char why[256] = "";
		struct op_time ct;
		int rc = counted_run_batch(p, st->ok, nok, &out, why, sizeof(why), &ct, st->cg,
					   st->ws->cacc);
		if (c->trace)
			trace_add(tp, EV_COLLATE, (uint16_t)p->batch_op, tk->batch, UINT32_MAX,
				  ct.start_ns + off, ct.dur_ns);
		if (rc) {
			m->status = RES_BATCH_ERROR;
			m->err = log_error(L->sh, st->wid, p->batch_op, tk->batch, -1, why);
		} else {
			m->bytes = out.image_bytes + nok * sizeof(int64_t);
		}
	} else if (m->status == RES_OK) {
		/* no batch op: the batch is its labels */
		int64_t *labels = (int64_t *)(void *)slot;
		for (size_t i = 0; i < nok; i++)
			labels[i] = st->ok[i]->label;
		m->bytes = nok * sizeof(int64_t);
	}
	uint64_t t1 = clock_now_ns();
	trace_add(tp, EV_BATCH_PREPROC, 0, tk->batch, UINT32_MAX, t0 + off, t1 - t0);
	st->ws->batches++;
	st->ws->samples += nok;
	st->ws->skipped += m->nskipped;

	m->n = (uint32_t)nok;
	m->checksum = sum;
	m->started = t0 + off;
	m->finished = t1 + off;
	atomic_store_explicit(&st->ws->published, tp->n, memory_order_release);
}

void worker_loop(struct loader *L, int wid)
{
	const struct loader_cfg *c = L->cfg;
	struct wstate *st = calloc(1, sizeof(*st));
	if (!st)
		return;
	st->L = L;
	st->wid = wid;
	st->ws = &L->sh->w[wid];
	st->epoch = -1;
	char why[256] = "";
	if (c->pin_plan) {
		int rc = pin_apply_self(c->pin_plan, ROLE_WORKER, wid, why, sizeof(why));
		if (rc < 0)
			warn("worker %d: %s", wid, why);
		st->ws->pinned = rc == 0;
	}
	if (c->counters && c->counters->n) {
		st->cg = counters_open_thread(c->counters, why, sizeof(why));
		if (!st->cg)
			warn("worker %d: %s; its ops are not counted", wid, why);
		st->ws->counted = st->cg != NULL;
	}
	rng_seed(&st->srng, c->seed);
	st->smp = calloc((size_t)c->batch, sizeof(*st->smp));
	st->ok = calloc((size_t)c->batch, sizeof(*st->ok));
	if (st->smp && st->ok) {
		struct task_msg tk;
		struct result_msg m;
		while (!read_task(L->idx_rd[wid], &tk)) {
			if (atomic_load(&L->sh->stop))
				break;
			run_task(st, &tk, &m);
			if (atomic_load(&L->sh->stop) || write_result(L->res_wr, &m))
				break;
		}
	}
	if (st->smp)
		for (int i = 0; i < c->batch; i++)
			sample_release(&st->smp[i]);
	counters_close(st->cg);
	scratch_release(&st->scr);
	free(st->smp);
	free(st->ok);
	free(st);
}
