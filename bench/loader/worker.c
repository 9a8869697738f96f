/* The worker loop (PyTorch's _worker_loop): for each task, fetch its
 * samples one after the other through the pipeline, collate them into the
 * task's shared slot, and send the result. Events go to the worker's own
 * buffer; between two clock reads there is only the op (pipeline.c), and
 * everything the harness adds (events, seeding, checksum) is outside the op
 * spans. The checksum of a sample is taken right after its last op, while
 * its data is in cache (about 8 GB/s, against 3 GB/s from the collated
 * slot): it is inside the batch span, and its time is reported.
 *
 * The harness's cost beside the pipeline's: each worker sums the wall
 * time of its tasks (torch: from the batch span's start to its result
 * sent; policies: from a sample message read to its sample staged, and
 * its batch sent when it completed one) and the op spans in them, from
 * the op times the pipeline measures anyway: one clock read per task
 * more, nothing per op. The difference is what the harness did there.
 *
 * Counters (cfg->counters): each worker opens one group for itself when it
 * starts (a group counts the thread that opened it, so after the fork or
 * at thread start) and reads it at every op boundary (counted.h); the
 * sums go to its shared accumulators. Pinning (cfg->pin_plan): each
 * worker binds itself at start; a binding that fails is a warning. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "backend.h"
#include "checksum.h"
#include "clock.h"
#include "counted.h"
#include "imagefolder.h"
#include "log.h"
#include "pipeline.h"
#include "rng.h"
#include "rrc.h"
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
		     const char *reason, int oom)
{
	uint32_t k = atomic_fetch_add(&sh->nerr, 1);
	if (k >= ERR_LOG_CAP)
		return -1;
	struct err_rec *e = &sh->err[k];
	e->worker = wid;
	e->op = op;
	e->batch = batch;
	e->index = index;
	e->oom = oom;
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
	struct sample csmp;        /* CACHE_SAMPLE: the processed sample, once */
	uint64_t chash;
	int have_cached;
	struct sample *stg;        /* [B] policies: views of a batch's staged samples */
	uint64_t task_start;       /* torch: the current task's batch span start */
	uint64_t fused_r0, fused_f0;   /* fused_fallbacks when the worker started */
	unsigned char *slot_seen;  /* [nslots]: slots this worker has populated */
};

void loader_populate(void *p, size_t n)
{
	if (!p || !n || !madvise(p, n, MADV_POPULATE_READ) || errno != EINVAL)
		return;
	long pg = sysconf(_SC_PAGESIZE);
	for (size_t o = 0; o < n; o += (size_t)(pg > 0 ? pg : 4096))
		__atomic_fetch_add((unsigned char *)p + o, 0, __ATOMIC_RELAXED);
}

/* A slot this worker has not written yet is populated before the task's
 * clock starts, so that collate, a measured op, does not fault on each of
 * its pages (74 faults per image at B = 512). When all workers' views of
 * all slots come to at most LOADER_POPULATE_AT_START bytes, each worker
 * populates every slot before its loop (start-up, once per run: the steady
 * state then holds no first touch); beyond that (the paper's W = 28,
 * B = 1024: 28 views of 6.9 GiB, which cost more than the run) a worker
 * populates only the slots it meets, once each. PyTorch's worker pays a
 * first touch on every batch anyway (a new shared tensor per batch). */
static uint64_t populate_at_start(void)
{
	/* tests take the path of a run past the bound with a small one */
	const char *e = getenv("PPBENCH_TEST_POPULATE_AT_START");
	return e && *e ? strtoull(e, NULL, 10) : LOADER_POPULATE_AT_START;
}

static void slot_ready(struct wstate *st, uint32_t slot)
{
	struct loader *L = st->L;
	if (!st->slot_seen || st->slot_seen[slot])
		return;
	st->slot_seen[slot] = 1;
	loader_populate(L->slots + (size_t)slot * L->plan->slot_bytes, L->plan->slot_bytes);
}

/* The sum of one sample's op spans: its nran ops that ran (the failed one
 * included, as its events are), the batch op excepted. */
static uint64_t sample_ops_ns(const struct pipeline *p, const struct op_time *t, int nran)
{
	uint64_t ns = 0;
	for (int i = 0; i < nran; i++)
		if (i != p->batch_op)
			ns += t[i].dur_ns;
	return ns;
}

/* This worker's usage now into ws->use[k] (its process, or its thread);
 * at USE_FIRST its counter sums too. Between tasks, never inside one. */
static void note_use(struct wstate *st, int k)
{
	struct worker_shared *ws = st->ws;
	int who = st->L->cfg->backend == BACKEND_THREAD ? RUSAGE_THREAD : RUSAGE_SELF;
	if (proc_use_now(&ws->use[k], who))
		return;
	ws->use[k].samples = ws->samples;
	ws->use[k].batches = ws->batches;
	if (k == USE_FIRST)
		memcpy(ws->cacc_first, ws->cacc, sizeof(ws->cacc_first));
	ws->use_ok |= 1 << k;
}

/* At this worker's first task of a later epoch than the first: its counter
 * sums then (the ops' figures after the first epoch). Between tasks. */
static void note_epoch(struct wstate *st, uint32_t epoch)
{
	struct worker_shared *ws = st->ws;
	if (epoch > 0 && !ws->epoch_noted) {
		memcpy(ws->cacc_epoch, ws->cacc, sizeof(ws->cacc_epoch));
		ws->epoch_noted = 1;
	}
}

/* The fused op's counts since the worker started, after each batch. */
static void note_fused(struct wstate *st)
{
	uint64_t r, f = fused_fallbacks(&r);
	st->ws->fused_regions = r - st->fused_r0;
	st->ws->fused_full = f - st->fused_f0;
}

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

/* CACHE_SAMPLE: keep a copy of the first sample that worked. */
static void keep_cached(struct wstate *st, const struct sample *s)
{
	size_t nb = sample_bytes(s);
	if (st->have_cached || (nb && buf_reserve(&st->csmp.data, nb)))
		return;
	if (nb)
		memcpy(st->csmp.data.p, s->data.p, nb);
	st->csmp.kind = s->kind;
	st->csmp.h = s->h;
	st->csmp.w = s->w;
	st->csmp.label = s->label;
	st->csmp.index = s->index;
	st->csmp.path = s->path;
	st->csmp.scr = &st->scr;
	st->chash = checksum_sample(nb ? st->csmp.data.p : NULL, nb, s->label);
	st->have_cached = 1;
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
	uint64_t sum = 0, ops = 0;

	memset(m, 0, sizeof(*m));
	m->batch = tk->batch;
	m->slot = tk->slot;
	m->worker = st->wid;
	m->err = -1;
	m->pinned = -1;
	slot_ready(st, tk->slot);
	note_epoch(st, tk->epoch);
	if (c->rng == RNG_TORCH && st->epoch != (int64_t)tk->epoch) {
		/* a new epoch is a new DataLoader iterator: fresh workers seeded
		 * base_seed + worker_id */
		rng_seed(&st->wrng, (uint64_t)L->sched.base_seed[tk->epoch] + (uint64_t)st->wid);
		st->epoch = tk->epoch;
	}

	uint64_t t0 = clock_now_ns();
	st->task_start = t0;
	for (uint32_t k = 0; k < tk->n; k++) {
		if (atomic_load_explicit(&L->sh->stop, memory_order_relaxed))
			return;
		if (c->cache == CACHE_SAMPLE && st->have_cached) {
			st->ok[nok++] = &st->csmp;
			sum += st->chash;
			continue;
		}
		uint64_t di = L->sched.idx[tk->first + k];
		struct sample *s = &st->smp[k];
		sample_setup(s, c->data->items[di].path, c->data->items[di].label, di, NULL,
			     &st->scr, c->max_pixels, c->max_file_bytes);
		if (c->rng == RNG_TORCH) {
			s->rng = &st->wrng;
		} else {
			/* seeding costs about 2 us: only when an op draws */
			if (L->random)
				rng_seed(&st->srng, rng_sample_seed(c->seed, tk->epoch, di));
			s->rng = &st->srng;
		}
		int rc = pipeline_run_sample_counted(p, s, t, st->cg, st->ws->cacc);
		ops += sample_ops_ns(p, t, rc ? rc : p->nops);
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
			if (c->cache == CACHE_SAMPLE)
				keep_cached(st, s);
			continue;
		}
		int e = log_error(L->sh, st->wid, rc - 1, tk->batch, (int64_t)di, s->err, s->oom);
		m->nskipped += !s->oom;
		if (c->on_error == ON_ERROR_FAIL || s->oom) {
			/* the exception ends the fetch of this batch (out of
			 * memory always: the machine failed, not the file) */
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
		ops += ct.dur_ns;
		if (c->trace)
			trace_add(tp, EV_COLLATE, (uint16_t)p->batch_op, tk->batch, UINT32_MAX,
				  ct.start_ns + off, ct.dur_ns);
		if (rc) {
			m->status = RES_BATCH_ERROR;
			m->err = log_error(L->sh, st->wid, p->batch_op, tk->batch, -1, why, 0);
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
	st->ws->ops_ns += ops;
	note_fused(st);

	m->n = (uint32_t)nok;
	m->checksum = sum;
	m->started = t0 + off;
	m->finished = t1 + off;
	atomic_store_explicit(&st->ws->published, tp->n, memory_order_release);
}

/* ---- policies shared-queue and speedy ----------------------------------- */

/* The batch of the schedule holding offset off of schedule.idx. */
static int64_t batch_of(const struct schedule *sc, uint64_t off)
{
	size_t lo = 0, hi = sc->nbatches;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (sc->b[mid].first <= off)
			lo = mid;
		else
			hi = mid;
	}
	return (int64_t)lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* speedy: record one sample's time in the warm-up, or compare it with the
 * timeout and send the sample to the slow lane from the next epoch on. */
static void speedy_note(struct wstate *st, uint64_t di, uint32_t epoch, uint64_t ns)
{
	struct loader *L = st->L;
	struct shared *sh = L->sh;
	uint64_t to = atomic_load(&sh->timeout_ns);
	if (to) {
		if (ns > to)
			atomic_store(&L->slow[di], epoch + 2);
		return;
	}
	uint32_t k = atomic_fetch_add(&sh->warm_claimed, 1);
	if (k >= L->warm_target)
		return;
	sh->warm_ns[k] = ns;
	if (atomic_fetch_add(&sh->warm_done, 1) + 1 != L->warm_target)
		return;
	/* the last of the warm-up: the timeout is its percentile */
	uint64_t v[WARM_CAP];
	uint32_t n = L->warm_target;
	memcpy(v, sh->warm_ns, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u64);
	double pct = L->cfg->speedy_timeout_pct > 0 ? L->cfg->speedy_timeout_pct : 75;
	size_t i = (size_t)(pct / 100.0 * (double)(n - 1) + 0.5);
	if (i >= n)
		i = n - 1;
	atomic_store(&sh->timeout_ns, v[i] ? v[i] : 1);
}

/* The worker that wrote the last position of batch j collates it. Returns
 * the collation's span (ns; 0 when none ran). */
static uint64_t complete_batch(struct wstate *st, int64_t j, uint32_t slot)
{
	struct loader *L = st->L;
	const struct loader_cfg *c = L->cfg;
	const struct pipeline *p = c->pipe;
	const struct sched_batch *sb = &L->sched.b[j];
	size_t B = L->plan->batch_max, nok = 0; /* the staging stride */
	struct result_msg m;
	memset(&m, 0, sizeof(m));
	m.batch = j;
	m.slot = slot;
	m.worker = st->wid;
	m.err = -1;
	m.pinned = -1;
	m.started = UINT64_MAX;
	slot_ready(st, slot);
	for (uint32_t k = 0; k < sb->n; k++) {
		const struct stage_meta *mt = &L->meta[(size_t)slot * B + k];
		if (mt->started < m.started)
			m.started = mt->started;
		m.moved += mt->moved;
		if (mt->ok != 1) {
			m.nskipped += mt->ok == 0;
			if ((c->on_error == ON_ERROR_FAIL || mt->ok < 0) && m.status == RES_OK) {
				m.status = RES_DATA_ERROR;
				m.err = mt->err;
			}
			continue;
		}
		struct sample *s = &st->stg[nok];
		s->data.p = L->stage + ((size_t)slot * B + k) * L->plan->stage_bytes;
		s->data.cap = L->plan->stage_bytes;
		s->kind = (enum pix_kind)mt->kind;
		s->h = mt->h;
		s->w = mt->w;
		s->label = mt->label;
		s->scr = &st->scr;
		st->ok[nok++] = s;
		m.checksum += mt->checksum;
	}
	unsigned char *mem = L->slots + (size_t)slot * L->plan->slot_bytes;
	uint64_t off = (uint64_t)L->wall_off, ops = 0;
	if (m.status == RES_OK && p->batch_op >= 0) {
		struct batch_out out = { .mem = mem, .capacity = L->plan->slot_bytes, .n = nok };
		char why[256] = "";
		struct op_time ct;
		int rc = counted_run_batch(p, st->ok, nok, &out, why, sizeof(why), &ct, st->cg,
					   st->ws->cacc);
		ops = ct.dur_ns;
		if (c->trace)
			trace_add(&st->ws->tp, EV_COLLATE, (uint16_t)p->batch_op, j, UINT32_MAX,
				  ct.start_ns + off, ct.dur_ns);
		if (rc) {
			m.status = RES_BATCH_ERROR;
			m.err = log_error(L->sh, st->wid, p->batch_op, j, -1, why, 0);
		} else {
			m.bytes = out.image_bytes + nok * sizeof(int64_t);
		}
	} else if (m.status == RES_OK) {
		int64_t *labels = (int64_t *)(void *)mem;
		for (size_t i = 0; i < nok; i++)
			labels[i] = st->ok[i]->label;
		m.bytes = nok * sizeof(int64_t);
	}
	for (size_t i = 0; i < nok; i++)
		st->stg[i].data.p = NULL;
	uint64_t t1 = clock_now_ns() + off;
	if (m.started == UINT64_MAX || m.started > t1)
		m.started = t1;
	m.finished = t1;
	m.n = (uint32_t)nok;
	trace_add(&st->ws->tp, EV_BATCH_PREPROC, 0, j, UINT32_MAX, m.started, t1 - m.started);
	st->ws->batches++;
	note_fused(st);
	atomic_store_explicit(&st->ws->published, st->ws->tp.n, memory_order_release);
	if (!atomic_load(&L->sh->stop))
		write_result(L->res_wr, &m);
	return ops;
}

/* One sample of the shared queue: run it, take the next completion
 * position, stage it in that batch's slot, collate if it was the last. */
static void run_one(struct wstate *st, const struct sample_msg *sm)
{
	struct loader *L = st->L;
	const struct loader_cfg *c = L->cfg;
	const struct pipeline *p = c->pipe;
	struct op_time t[PIPE_MAX_OPS];
	uint64_t ts = clock_now_ns();   /* the harness's share: from here to the end */
	uint64_t di = L->sched.idx[sm->off];
	struct sample *s = &st->smp[0];
	note_epoch(st, sm->epoch);
	sample_setup(s, c->data->items[di].path, c->data->items[di].label, di, NULL,
		     &st->scr, c->max_pixels, c->max_file_bytes);
	if (c->rng == RNG_TORCH) {
		if (st->epoch != (int64_t)sm->epoch) {
			rng_seed(&st->wrng, (uint64_t)L->sched.base_seed[sm->epoch] + (uint64_t)st->wid);
			st->epoch = sm->epoch;
		}
		s->rng = &st->wrng;
	} else {
		if (L->random)
			rng_seed(&st->srng, rng_sample_seed(c->seed, sm->epoch, di));
		s->rng = &st->srng;
	}
	uint64_t t0 = clock_now_ns();
	int rc = pipeline_run_sample_counted(p, s, t, st->cg, st->ws->cacc);
	uint64_t t1 = clock_now_ns();
	if (c->policy == POLICY_SPEEDY && !rc)
		speedy_note(st, di, sm->epoch, t1 - t0);
	size_t nb = rc ? 0 : sample_bytes(s);
	uint64_t hash = 0;
	if (!rc && c->checksum) {
		uint64_t h0 = clock_now_ns();
		hash = checksum_sample(nb ? s->data.p : NULL, nb, s->label);
		st->ws->hash_ns += clock_now_ns() - h0;
		st->ws->hash_bytes += nb;
	}
	char why[256];
	if (!rc && nb > L->plan->stage_bytes) {
		snprintf(why, sizeof(why), "a sample of %zu bytes is larger than the first one "
			 "(%zu bytes): samples of different sizes cannot be batched", nb,
			 L->plan->stage_bytes);
		rc = -1;
	}

	/* the next completion position: batch j, position k */
	uint64_t pos = atomic_fetch_add(&L->sh->claim, 1);
	int64_t j = batch_of(&L->sched, pos);
	uint32_t k = (uint32_t)(pos - L->sched.b[j].first);
	uint32_t slot = atomic_load(&L->slot_of[j]);
	size_t B = L->plan->batch_max;
	struct stage_meta *mt = &L->meta[(size_t)slot * B + k];
	memset(mt, 0, sizeof(*mt));
	mt->err = -1;
	mt->started = t0 + (uint64_t)L->wall_off;
	mt->finished = t1 + (uint64_t)L->wall_off;
	mt->moved = batch_of(&L->sched, sm->off) != j;
	uint64_t ops = sample_ops_ns(p, t, rc > 0 ? rc : p->nops);
	if (c->trace)
		trace_sample(st, t, rc > 0 ? rc : p->nops, j, k);
	if (!rc) {
		mt->ok = 1;
		mt->bytes = nb;
		mt->checksum = hash;
		mt->label = s->label;
		mt->kind = (int32_t)s->kind;
		mt->h = s->h;
		mt->w = s->w;
		if (nb)
			memcpy(L->stage + ((size_t)slot * B + k) * L->plan->stage_bytes, s->data.p, nb);
		st->ws->samples++;
	} else {
		int oom = rc > 0 && s->oom;
		mt->ok = oom ? -1 : 0;
		mt->err = log_error(L->sh, st->wid, rc > 0 ? rc - 1 : p->batch_op, j, (int64_t)di,
				    rc > 0 ? s->err : why, oom);
		st->ws->skipped += !oom;
	}
	if (atomic_fetch_add_explicit(&L->fill[j], 1, memory_order_acq_rel) + 1 == L->sched.b[j].n)
		ops += complete_batch(st, j, slot);
	st->ws->ops_ns += ops;
	st->ws->loop_ns += clock_now_ns() - ts;
	if (!(st->ws->use_ok & 1 << USE_FIRST) && st->ws->samples >= L->plan->batch_max)
		note_use(st, USE_FIRST);
}

/* Read one message without blocking: 1 got one, 0 end of file, -1 none. */
static int read_sample_nb(int fd, struct sample_msg *m)
{
	ssize_t r = read(fd, m, sizeof(*m));
	if (r == (ssize_t)sizeof(*m))
		return 1;
	if (r == 0)
		return 0;
	return -1;
}

static void sample_loop(struct wstate *st)
{
	struct loader *L = st->L;
	/* speedy: the background worker serves the slow lane first, the
	 * others the fast lane first (then the slow one when it is empty) */
	int bg = L->slow_rd >= 0 && st->wid == L->W - 1;
	int fd[2] = { bg ? L->slow_rd : L->sq_rd, bg ? L->sq_rd : L->slow_rd };
	int open[2] = { fd[0] >= 0, fd[1] >= 0 };
	while ((open[0] || open[1]) && !atomic_load(&L->sh->stop)) {
		struct pollfd pf[2];
		nfds_t n = 0;
		for (int i = 0; i < 2; i++)
			if (open[i])
				pf[n++] = (struct pollfd){ fd[i], POLLIN, 0 };
		if (poll(pf, n, 200) <= 0)
			continue;
		struct sample_msg m;
		int got = -1;
		for (int i = 0; i < 2 && got != 1; i++) {
			if (!open[i])
				continue;
			got = read_sample_nb(fd[i], &m);
			if (!got)
				open[i] = 0;
		}
		if (got == 1)
			run_one(st, &m);
	}
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
	st->fused_f0 = fused_fallbacks(&st->fused_r0);
	char why[256] = "";
	if (c->pin_plan) {
		int rc = pin_apply_self(c->pin_plan, ROLE_WORKER, wid, why, sizeof(why));
		if (rc < 0)
			warn_msg("worker %d: %s", wid, why);
		st->ws->pinned = rc == 0;
	}
	if (c->counters && c->counters->n) {
		st->cg = counters_open_thread(c->counters, why, sizeof(why));
		if (!st->cg)
			warn_msg("worker %d: %s; its ops are not counted", wid, why);
		st->ws->counted = st->cg != NULL;
	}
	rng_seed(&st->srng, c->seed);
	st->smp = calloc(L->plan->batch_max, sizeof(*st->smp));
	st->ok = calloc(L->plan->batch_max, sizeof(*st->ok));
	st->stg = calloc(L->plan->batch_max, sizeof(*st->stg));
	st->slot_seen = calloc((size_t)L->plan->nslots, 1);
	if (st->slot_seen && (uint64_t)L->W * L->slots_bytes <= populate_at_start())
		for (int k = 0; k < L->plan->nslots; k++)
			slot_ready(st, (uint32_t)k);
	/* the samples' buffers reused at their sizes (sample.h: struct buf_pool) */
	int mem = st->smp && st->ok && st->stg && !scratch_pool_init(&st->scr, L->plan->batch_max);
	if (mem)
		note_use(st, USE_START);
	if (mem && c->policy != POLICY_TORCH) {
		sample_loop(st);
	} else if (mem) {
		struct task_msg tk;
		struct result_msg m;
		while (!read_task(L->idx_rd[wid], &tk)) {
			if (atomic_load(&L->sh->stop))
				break;
			run_task(st, &tk, &m);
			if (atomic_load(&L->sh->stop) || write_result(L->res_wr, &m))
				break;
			/* the task's wall time, its result sent (queue put included) */
			st->ws->loop_ns += clock_now_ns() - st->task_start;
			if (!(st->ws->use_ok & 1 << USE_FIRST))
				note_use(st, USE_FIRST);
		}
	}
	/* a worker that never finished a batch: nothing after its first */
	if (mem && !(st->ws->use_ok & 1 << USE_FIRST))
		note_use(st, USE_FIRST);
	if (mem)
		note_use(st, USE_END);
	if (st->smp)
		for (size_t i = 0; i < L->plan->batch_max; i++)
			sample_release(&st->smp[i]);
	sample_release(&st->csmp);
	counters_close(st->cg);
	scratch_release(&st->scr);
	free(st->slot_seen);
	free(st->stg);
	free(st->smp);
	free(st->ok);
	free(st);
}
