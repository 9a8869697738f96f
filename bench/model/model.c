/* The discrete-event model of the loader's protocol (model.h). One event
 * queue (a binary heap on time, then on the order the events were made, so
 * that a seed gives one result); the main thread, the pin thread and every
 * worker are small state machines driven by it, with the rules of loader.c,
 * worker.c and consumer.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "model.h"
#include "run.h"
#include "sampler.h"

#define T0 1000000000ull        /* the model's clock starts at 1 s: 0 means "never" in rows */

enum mev_kind { MEV_CPU, MEV_READY, MEV_MAIN, MEV_PRIME };

/* Who a piece of CPU work belongs to: a worker id, or these. */
#define WHO_PIN (-1)
#define WHO_MAIN (-2)

/* An entry of a binary heap: the event queue's (on t, then seq: the order
 * the events were made) and the CPU classes' (on v, the virtual end, then
 * seq). */
struct hent {
	uint64_t t;
	double v;
	uint64_t seq;
	int kind, who;
};

struct heap {
	struct hent *h;
	size_t n, cap;
};

/* A FIFO of int64 (a ring that grows). */
struct fifo {
	int64_t *v;
	size_t cap, head, n;
};

static int fifo_push(struct fifo *f, int64_t x)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		int64_t *v = malloc(cap * sizeof(*v));
		if (!v)
			return -1;
		for (size_t i = 0; i < f->n; i++)
			v[i] = f->v[(f->head + i) % f->cap];
		free(f->v);
		f->v = v;
		f->cap = cap;
		f->head = 0;
	}
	f->v[(f->head + f->n++) % f->cap] = x;
	return 0;
}

static int64_t fifo_pop(struct fifo *f)
{
	int64_t x = f->v[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return x;
}

struct mworker {
	struct fifo q;          /* torch: batch ids; policies: unused */
	int busy;
	int64_t batch;          /* torch: the batch at work; policies: the batch it collates, -1 */
	uint64_t off, t0;       /* policies: the sample's schedule position and start */
	double cpu_ns;          /* its CPU time so far */
	double u0;              /* its class's on-CPU clock when its work started */
	int cls;
};

/* CPU work shares the machine (processor sharing): every piece of work of
 * a class advances at the class's rate, set by the busy threads of the
 * moment and changed whenever a piece starts or ends. A piece of cost c
 * ends when its class's virtual clock V has advanced by c since it
 * started, so the order in which a class's pieces end never changes: one
 * heap per class, on the virtual end. U is the class's on-CPU clock (CPU
 * time = its advance while the piece ran). */
enum { CLS_MEAN = MODEL_CLS_MEAN, CLS_LONE = MODEL_CLS_LONE, CLS_SHARED = MODEL_CLS_SHARED,
       CLS_OTHER, NCLS };

struct pclass {
	struct heap q;          /* its pieces of work: v their virtual end, who their owner */
	double V, U, rate, share;
};

struct sim {
	const struct model_cfg *c;
	struct model_out *o;
	int W, policy;
	/* the schedule: batch j holds positions first[j] .. first[j] + n[j] - 1 of idx[] */
	size_t nb, npos;
	uint64_t *first, *idx;
	uint32_t *n, *epoch;
	size_t *epoch_first;
	int epochs;
	/* per batch */
	uint64_t *queued, *started, *finished;
	unsigned char *have;
	uint32_t *fill;
	/* the event queue */
	struct heap ev;
	uint64_t seq, now;
	struct mworker *w;
	int busy;               /* workers at work */
	int ready;              /* the workers have started */
	struct fifo results;    /* finished, not yet pinned (pin on) */
	struct fifo pipe;       /* what the main thread can read */
	int pin_busy;
	int64_t pin_batch;
	uint64_t pin_t0;
	double pin_u0, main_u0;
	int64_t main_batch;     /* the batch whose own work the main thread does */
	/* CPU work */
	struct pclass cls[NCLS];
	double oncpu;           /* workers' on-CPU share of their work (1: all) */
	uint64_t tcpu;          /* the classes' clocks are at this time */
	unsigned cpu_gen;       /* the pending MEV_CPU event's generation */
	int cpu_dirty;          /* the busy threads changed at now: new rates and next end due
				   (once, after the event at hand: no time passes within it) */
	uint64_t gpu_model_ns;  /* the GPU's copies and steps without gpu_over_ns */
	int by_index;           /* the source's costs by image and epoch apply */
	int main_busy;          /* main_busy_step: the main thread is in a step */
	/* main */
	int waiting, done;
	uint64_t entry, last_end;
	int64_t send, rcvd, yielded, efirst, eend;
	int e;
	/* policies */
	struct fifo fast, slow;
	uint64_t claim;
	uint32_t *mark;         /* speedy: per dataset index, epoch + 2 from which it is slow */
	uint64_t warm[WARM_CAP];
	uint32_t warm_n, warm_target;
	uint64_t timeout_ns;
	struct trace_proc *tmain, *tpin, *tgpu, *tw;
};

/* ---- deterministic randomness: a hash of (seed, stream, key) ------------ */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double unif(uint64_t seed, uint64_t stream, uint64_t key)
{
	uint64_t h = mix64(mix64(seed ^ mix64(stream)) ^ key);
	return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(uint64_t seed, uint64_t stream, uint64_t key)
{
	double u1 = unif(seed, stream, 2 * key), u2 = unif(seed, stream, 2 * key + 1);
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* ---- costs ----------------------------------------------------------------- */

/* One sample's cost (ns, before contention): fixed per dataset index, as a
 * given image always decodes at about the same cost. */
static double sample_cost(const struct sim *S, uint64_t di, uint32_t epoch)
{
	const struct model_src *s = S->c->src;
	uint64_t seed = S->c->seed;
	switch (s->kind) {
	case MSRC_SAMPLE_EMPIRICAL:
		if (S->by_index) {
			/* the measured run's cost of this image in this epoch (the
			 * page cache's state with it), else in its nearest epoch */
			int e0 = epoch < (uint32_t)s->by_epochs ? (int)epoch : s->by_epochs - 1;
			for (int d = 0; d < s->by_epochs; d++)
				for (int k = -1; k <= 1; k += 2) {
					int e = e0 + k * d;
					double v = e >= 0 && e < s->by_epochs ?
						   s->by_index[(size_t)e * s->by_images + di] : NAN;
					if (!isnan(v))
						return v;
				}
		}
		return s->v[(size_t)(unif(seed, 1, di) * (double)s->n) % s->n];
	case MSRC_SAMPLE_LOGNORMAL: {
		double cv = s->std_ns / s->mean_ns, sg = sqrt(log(1 + cv * cv));
		return s->mean_ns * exp(sg * gauss(seed, 2, di) - sg * sg / 2);
	}
	case MSRC_BATCH_LIST:
		return s->mean_ns / S->c->batch_size;
	default: {
		/* per-batch figures: a lognormal per sample whose sum over a
		 * batch has the stated mean and std (independent samples) */
		double m = s->mean_ns / s->batch_of;
		double cv = s->std_ns / s->mean_ns * sqrt((double)s->batch_of);
		if (s->kind == MSRC_BATCH_EMPIRICAL) {
			double u = unif(seed, 3, di);
			m = s->v[(size_t)(u * (double)s->n) % s->n] / s->batch_of;
			cv = 0;
		}
		double sg = sqrt(log(1 + cv * cv));
		return m * exp(sg * gauss(seed, 2, di) - sg * sg / 2);
	}
	}
}

/* The factor a batch's samples share (a lognormal of mean 1). */
static double noise(const struct sim *S, int64_t j)
{
	double cv = S->c->src->batch_noise;
	if (cv <= 0)
		return 1;
	double sg = sqrt(log(1 + cv * cv));
	return exp(sg * gauss(S->c->seed, 6, (uint64_t)j) - sg * sg / 2);
}

/* A torch task's cost: batch j of n samples. */
static double batch_cost(const struct sim *S, int64_t j)
{
	const struct model_src *s = S->c->src;
	double n = S->n[j], r = n / (s->batch_of > 0 ? s->batch_of : 1);
	uint64_t seed = S->c->seed;
	if (s->kind == MSRC_BATCH_LIST)
		return s->v[(size_t)j % s->n];
	if (s->kind == MSRC_BATCH_NORMAL || s->kind == MSRC_BATCH_EMPIRICAL) {
		/* n samples of independent costs: the mean scales by r, the
		 * spread by sqrt(r) */
		double dev = s->kind == MSRC_BATCH_NORMAL ? s->std_ns * gauss(seed, 4, (uint64_t)j) :
			     s->v[(size_t)(unif(seed, 5, (uint64_t)j) * (double)s->n) % s->n] - s->mean_ns;
		double t = s->mean_ns * r + dev * sqrt(r);
		double lo = 0.05 * s->mean_ns * r;
		return t > lo ? t : lo;
	}
	double t = 0;
	for (uint32_t k = 0; k < S->n[j]; k++)
		t += sample_cost(S, S->idx[S->first[j] + k], S->epoch[j]);
	return (t + n * (s->collate_ns + s->harness_ns)) * noise(S, j);
}

/* ---- the event queue, and the heaps ------------------------------------ */

static int h_less(const struct hent *a, const struct hent *b)
{
	return a->t < b->t || (a->t == b->t && (a->v < b->v || (a->v == b->v && a->seq < b->seq)));
}

static int h_push(struct heap *q, struct hent e)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct hent *h = realloc(q->h, cap * sizeof(*h));
		if (!h)
			return -1;
		q->h = h;
		q->cap = cap;
	}
	size_t i = q->n++;
	while (i && h_less(&e, &q->h[(i - 1) / 2])) {
		q->h[i] = q->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->h[i] = e;
	return 0;
}

static struct hent h_pop(struct heap *q)
{
	struct hent top = q->h[0], last = q->h[--q->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct hent *best = &last;
		if (l < q->n && h_less(&q->h[l], best)) {
			m = l;
			best = &q->h[l];
		}
		if (r < q->n && h_less(&q->h[r], best))
			m = r;
		if (m == i)
			break;
		q->h[i] = q->h[m];
		i = m;
	}
	if (q->n)
		q->h[i] = last;
	return top;
}

static int ev_push(struct sim *S, uint64_t t, int kind, int who)
{
	return h_push(&S->ev, (struct hent){ .t = t, .seq = S->seq++, .kind = kind, .who = who });
}

/* ---- CPU work: processor sharing ---------------------------------------- */

/* The classes' clocks to now, at the rates set at the last change. */
static void cpu_advance(struct sim *S)
{
	double dt = (double)(S->now - S->tcpu);
	for (int k = 0; k < NCLS && dt > 0; k++) {
		S->cls[k].V += dt * S->cls[k].rate;
		S->cls[k].U += dt * S->cls[k].share;
	}
	S->tcpu = S->now;
}

/* The rates for the busy threads of now, and the next end of a piece
 * (after every change: cpu_dirty). */
static double busy_now(const struct sim *S)
{
	const struct pclass *p = S->cls;
	return S->c->machine.main_threads + S->main_busy +
	       S->oncpu * (double)(p[CLS_MEAN].q.n + p[CLS_LONE].q.n + p[CLS_SHARED].q.n) + (double)p[CLS_OTHER].q.n;
}

static int cpu_reschedule(struct sim *S)
{
	const struct model_machine *m = &S->c->machine;
	double n = busy_now(S), phi = S->oncpu, f_first, f_rest, sh_first, sh_rest;
	/* the pin thread and the main thread's own work sleep between short
	 * pieces: served first (their costs are without contention; the
	 * workers' were measured at ref_busy) */
	model_first_split(m, n, (double)S->cls[CLS_OTHER].q.n, &f_first, &f_rest, &sh_first, &sh_rest);
	double best = INFINITY;
	for (int k = 0; k < NCLS; k++) {
		struct pclass *p = &S->cls[k];
		double f = k == CLS_OTHER ? f_first : k == CLS_MEAN ? f_rest : model_class_factor(m, n, k);
		/* a worker's I/O (1 - phi of its work) does not slow down */
		p->rate = k == CLS_OTHER ? 1 / f : 1 / (phi * f + (1 - phi));
		p->share = k == CLS_OTHER ? sh_first : phi * sh_rest;
		if (p->q.n) {
			double t = (p->q.h[0].v - p->V) / p->rate;
			if (t < best)
				best = t;
		}
	}
	if (best == INFINITY)
		return 0;
	uint64_t at = S->now + (uint64_t)ceil(best > 0 ? best : 0);
	return ev_push(S, at, MEV_CPU, (int)++S->cpu_gen);
}

/* A piece of work of base cost ns starts now in class k. */
static int cpu_start(struct sim *S, int k, int who, double ns)
{
	cpu_advance(S);
	struct pclass *p = &S->cls[k];
	if (h_push(&p->q, (struct hent){ .v = p->V + (ns > 0 ? ns : 0), .seq = S->seq++, .who = who }))
		return -1;
	S->cpu_dirty = 1;
	return 0;
}

static int worker_done(struct sim *S, int w);
static int pin_done(struct sim *S);
static int main_work_done(struct sim *S);

/* The pending end of a piece of work: the one whose class clock reaches
 * its end first (within rounding: the event's time was rounded up). */
static int cpu_event(struct sim *S, unsigned gen)
{
	if (gen != S->cpu_gen)
		return 0;               /* a change since made it stale */
	cpu_advance(S);
	int kb = -1;
	double best = INFINITY;
	for (int k = 0; k < NCLS; k++) {
		struct pclass *p = &S->cls[k];
		if (!p->q.n)
			continue;
		double t = (p->q.h[0].v - p->V) / p->rate;
		if (t < best) {
			best = t;
			kb = k;
		}
	}
	if (kb < 0)
		return 0;
	struct pclass *p = &S->cls[kb];
	struct hent j = h_pop(&p->q);
	if (p->V < j.v)
		p->V = j.v;
	S->cpu_dirty = 1;
	return j.who == WHO_PIN ? pin_done(S) : j.who == WHO_MAIN ? main_work_done(S) : worker_done(S, j.who);
}

/* ---- workers ----------------------------------------------------------- */

/* Worker w starts work of base cost ns now. */
static int work(struct sim *S, int w, double ns)
{
	struct mworker *mw = &S->w[w];
	mw->busy = 1;
	S->busy++;
	cpu_advance(S);
	mw->cls = model_worker_class(&S->c->machine, busy_now(S) + S->oncpu, S->W, w);
	mw->u0 = S->cls[mw->cls].U;
	return cpu_start(S, mw->cls, w, ns);
}

static int torch_next(struct sim *S, int w)
{
	struct mworker *mw = &S->w[w];
	if (mw->busy || !mw->q.n || !S->ready)
		return 0;
	int64_t j = fifo_pop(&mw->q);
	mw->batch = j;
	S->started[j] = S->now;
	return work(S, w, batch_cost(S, j));
}

static int64_t batch_of(const struct sim *S, uint64_t off);

/* Policies: an idle worker takes a sample (worker W - 1 of speedy serves
 * the slow lane first). */
static int sample_next(struct sim *S, int w)
{
	struct mworker *mw = &S->w[w];
	if (mw->busy || !S->ready)
		return 0;
	int bg = S->policy == POLICY_SPEEDY && S->W >= 2 && w == S->W - 1;
	struct fifo *a = bg ? &S->slow : &S->fast, *b = bg ? &S->fast : &S->slow;
	struct fifo *f = a->n ? a : b->n ? b : NULL;
	if (!f)
		return 0;
	mw->off = (uint64_t)fifo_pop(f);
	mw->t0 = S->now;
	mw->batch = -1;
	return work(S, w, sample_cost(S, S->idx[mw->off], S->epoch[batch_of(S, mw->off)]) +
		       S->c->src->harness_ns);
}

static int idle_workers_take(struct sim *S)
{
	for (int w = 0; w < S->W; w++)
		if ((S->policy == POLICY_TORCH ? torch_next(S, w) : sample_next(S, w)))
			return -1;
	return 0;
}

static int main_poll(struct sim *S);

/* The pin thread takes the next finished batch, if it is free. */
static int pin_next(struct sim *S)
{
	if (S->pin_busy || !S->results.n)
		return 0;
	int64_t j = fifo_pop(&S->results);
	S->pin_busy = 1;
	S->pin_batch = j;
	S->pin_t0 = S->now;
	cpu_advance(S);
	S->pin_u0 = S->cls[CLS_OTHER].U;
	double bytes = S->n[j] * S->c->sample_bytes;
	double d = S->c->pin_bytes_per_s > 0 ? bytes / S->c->pin_bytes_per_s * 1e9 : 0;
	return cpu_start(S, CLS_OTHER, WHO_PIN, d);
}

/* A batch leaves its worker: to the pin thread, or straight to the main thread. */
static int batch_done(struct sim *S, int w, int64_t j)
{
	S->finished[j] = S->now;
	trace_add(&S->tw[w], EV_BATCH_PREPROC, 0, j, UINT32_MAX, T0 + S->started[j],
		  S->now - S->started[j]);
	if (!S->c->pin_memory) {
		if (fifo_push(&S->pipe, j))
			return -1;
		return S->waiting ? main_poll(S) : 0;
	}
	if (fifo_push(&S->results, j))
		return -1;
	return pin_next(S);
}

static int pin_done(struct sim *S)
{
	int64_t j = S->pin_batch;
	trace_add(S->tpin, EV_BATCH_PINNED, 0, j, UINT32_MAX, T0 + S->pin_t0, S->now - S->pin_t0);
	S->o->pin_ns += S->now - S->pin_t0;
	S->o->main_cpu_s += (S->cls[CLS_OTHER].U - S->pin_u0) / 1e9;
	S->pin_busy = 0;
	if (fifo_push(&S->pipe, j) || pin_next(S))
		return -1;
	return S->waiting ? main_poll(S) : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* speedy_note of worker.c: the warm-up's percentile is the timeout; a
 * slower sample goes to the slow lane from the next epoch on. */
static void speedy_note(struct sim *S, uint64_t di, uint32_t epoch, uint64_t ns)
{
	if (S->timeout_ns) {
		if (ns > S->timeout_ns)
			S->mark[di] = epoch + 2;
		return;
	}
	if (S->warm_n >= S->warm_target)
		return;
	S->warm[S->warm_n++] = ns;
	if (S->warm_n != S->warm_target)
		return;
	uint64_t v[WARM_CAP];
	memcpy(v, S->warm, S->warm_n * sizeof(*v));
	qsort(v, S->warm_n, sizeof(*v), cmp_u64);
	double pct = S->c->speedy_timeout_pct > 0 ? S->c->speedy_timeout_pct : 75;
	size_t i = (size_t)(pct / 100.0 * (double)(S->warm_n - 1) + 0.5);
	if (i >= S->warm_n)
		i = S->warm_n - 1;
	S->timeout_ns = v[i] ? v[i] : 1;
}

/* The schedule position's batch (batches are contiguous). */
static int64_t batch_of(const struct sim *S, uint64_t off)
{
	size_t lo = 0, hi = S->nb;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (S->first[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return (int64_t)lo;
}

static int worker_done(struct sim *S, int w)
{
	struct mworker *mw = &S->w[w];
	mw->busy = 0;
	S->busy--;
	mw->cpu_ns += S->cls[mw->cls].U - mw->u0;   /* the clocks are at now (cpu_event) */
	if (S->policy == POLICY_TORCH) {
		if (batch_done(S, w, mw->batch))
			return -1;
		return torch_next(S, w);
	}
	if (mw->batch >= 0) {           /* its collation ended */
		if (batch_done(S, w, mw->batch))
			return -1;
		return sample_next(S, w);
	}
	uint64_t di = S->idx[mw->off];
	int64_t own = batch_of(S, mw->off);
	if (S->policy == POLICY_SPEEDY)
		speedy_note(S, di, S->epoch[own], S->now - mw->t0);
	/* the next completion position: batch j */
	int64_t j = batch_of(S, S->claim++);
	if (mw->t0 < S->started[j])
		S->started[j] = mw->t0;
	if (++S->fill[j] == S->n[j]) {
		mw->batch = j;
		return work(S, w, S->n[j] * S->c->src->collate_ns);
	}
	return sample_next(S, w);
}

/* ---- the main thread --------------------------------------------------- */

static int dispatch(struct sim *S)
{
	if (S->send >= S->eend)
		return 0;
	int64_t j = S->send++;
	S->queued[j] = S->now;
	trace_add(S->tmain, EV_BATCH_QUEUED, 0, j, UINT32_MAX, T0 + S->now, TRACE_MARKER_NS);
	unsigned inflight = (unsigned)(S->send - S->efirst - S->yielded);
	if (inflight > S->o->max_inflight)
		S->o->max_inflight = inflight;
	if (S->policy == POLICY_TORCH) {
		int w = (int)((j - S->efirst) % S->W);
		if (fifo_push(&S->w[w].q, j))
			return -1;
		return torch_next(S, w);
	}
	for (uint32_t k = 0; k < S->n[j]; k++) {
		uint64_t off = S->first[j] + k;
		uint32_t mk = S->mark ? S->mark[S->idx[off]] : 0;
		int slow = S->policy == POLICY_SPEEDY && S->W >= 2 && mk && mk - 1 <= S->epoch[j];
		if (slow)
			S->o->slow_lane++;
		if (fifo_push(slow ? &S->slow : &S->fast, (int64_t)off))
			return -1;
	}
	return idle_workers_take(S);
}

static int prime(struct sim *S)
{
	S->efirst = (int64_t)S->epoch_first[S->e];
	S->eend = (int64_t)S->epoch_first[S->e + 1];
	S->send = S->rcvd = S->efirst;
	S->yielded = 0;
	for (int i = 0; i < S->c->prefetch_factor * S->W; i++)
		if (dispatch(S))
			return -1;
	return 0;
}

/* main_busy_step: the main thread becomes (1) or stops being (0) a busy
 * thread: the work at hand goes on at the new rates. */
static int main_busy(struct sim *S, int busy)
{
	cpu_advance(S);
	S->main_busy = busy;
	S->cpu_dirty = 1;
	return 0;
}

/* The GPU takes batch j: copy and step, both blocking the main thread. */
static int gpu_start(struct sim *S, int64_t j)
{
	S->o->gpu_idle_ns += S->now - S->last_end;
	double bytes = S->n[j] * S->c->sample_bytes + S->n[j] * 8.0;
	uint64_t copy = S->c->h2d_bytes_per_s > 0 ? (uint64_t)(bytes / S->c->h2d_bytes_per_s * 1e9) : 0;
	uint64_t step = (uint64_t)llround(S->c->gpu_step_ns + S->c->gpu_over_ns);
	trace_add(S->tgpu, EV_GPU_COPY, 0, j, UINT32_MAX, T0 + S->now, copy);
	trace_add(S->tgpu, EV_GPU_STEP, 0, j, UINT32_MAX, T0 + S->now + copy, step);
	S->o->gpu_copy_ns += copy;
	S->o->gpu_busy_ns += copy + step;
	S->gpu_model_ns += copy + (uint64_t)llround(S->c->gpu_step_ns);
	S->last_end = S->now + copy + step;
	if (S->c->main_busy_step && main_busy(S, 1))
		return -1;
	return ev_push(S, S->last_end, MEV_MAIN, 0);
}

/* Batch j handed to the consumer: one new task, the main thread's own
 * work, then copy and step. */
static int hand_over(struct sim *S, int64_t j)
{
	if (!S->o->batches)
		S->o->first_ns = S->now;
	S->o->yield_order[S->o->batches] = j;
	S->yielded++;
	S->waiting = 0;
	if (dispatch(S))
		return -1;
	trace_add(S->tmain, EV_BATCH_CONSUMED, 0, j, UINT32_MAX, T0 + S->now, TRACE_MARKER_NS);
	S->o->batches++;
	S->o->images += S->n[j];
	if (S->c->main_ns > 0) {
		S->main_batch = j;
		cpu_advance(S);
		S->main_u0 = S->cls[CLS_OTHER].U;
		return cpu_start(S, CLS_OTHER, WHO_MAIN, S->c->main_ns);
	}
	return gpu_start(S, j);
}

static int main_work_done(struct sim *S)
{
	S->o->main_cpu_s += (S->cls[CLS_OTHER].U - S->main_u0) / 1e9;
	return gpu_start(S, S->main_batch);
}

static void arrived(struct sim *S, int64_t j)
{
	trace_add(S->tmain, EV_BATCH_ARRIVED, 0, j, UINT32_MAX, T0 + S->now, TRACE_MARKER_NS);
}

/* The main thread waits for data: what next_inorder / next_arrival do. */
static int main_poll(struct sim *S)
{
	int inorder = S->c->order == ORDER_INORDER && S->policy == POLICY_TORCH;
	while (S->waiting) {
		if (inorder && S->have[S->rcvd]) {
			S->have[S->rcvd] = 0;
			return hand_over(S, S->rcvd++);
		}
		if (!S->pipe.n)
			return 0;
		int64_t j = fifo_pop(&S->pipe);
		arrived(S, j);
		if (inorder && j != S->rcvd) {
			trace_add(S->tmain, EV_BATCH_WAIT, 0, j, UINT32_MAX, T0 + S->now, TRACE_MARKER_NS);
			S->have[j] = 1;
			continue;
		}
		trace_add(S->tmain, EV_BATCH_WAIT, 0, j, UINT32_MAX, T0 + S->entry, S->now - S->entry);
		if (inorder)
			S->rcvd++;
		return hand_over(S, j);
	}
	return 0;
}

/* The consumer is done with a batch: the next one, or the next epoch. */
static int main_free(struct sim *S)
{
	if (S->main_busy && main_busy(S, 0))
		return -1;
	if (S->yielded >= S->eend - S->efirst) {
		if (++S->e >= S->epochs) {
			S->done = 1;
			return 0;
		}
		if (prime(S))
			return -1;
	}
	S->waiting = 1;
	S->entry = S->now;
	return main_poll(S);
}

/* The main thread's start: the first tasks, then it waits. */
static int main_start(struct sim *S)
{
	if (prime(S))
		return -1;
	S->waiting = 1;
	S->entry = S->now;
	return main_poll(S);
}

/* ---- set up ----------------------------------------------------------- */

static int schedule(struct sim *S, char *err, size_t errlen)
{
	const struct model_cfg *c = S->c;
	uint64_t N = c->images, B = (uint64_t)c->batch_size;
	uint64_t per = c->drop_last ? N / B : (N + B - 1) / B;
	uint64_t total = per * (uint64_t)c->epochs;
	if (!per) {
		snprintf(err, errlen, "no batch to model: %llu images, batch %llu%s",
			 (unsigned long long)N, (unsigned long long)B, c->drop_last ? " with --drop-last" : "");
		return -1;
	}
	if (c->max_batches && c->max_batches < total)
		total = c->max_batches;
	S->epochs = (int)((total + per - 1) / per);
	S->nb = total;
	S->first = malloc(total * sizeof(*S->first));
	S->n = malloc(total * sizeof(*S->n));
	S->epoch = malloc(total * sizeof(*S->epoch));
	S->epoch_first = malloc(((size_t)S->epochs + 1) * sizeof(*S->epoch_first));
	/* the dataset order matters to per-sample costs and the sample
	 * policies only: a torch model of per-batch costs needs none (and
	 * skips shuffling an ImageNet epoch) */
	int need_idx = c->policy != POLICY_TORCH || c->src->kind == MSRC_SAMPLE_LOGNORMAL ||
		       c->src->kind == MSRC_SAMPLE_EMPIRICAL;
	S->idx = need_idx ? malloc((size_t)N * (size_t)S->epochs * sizeof(*S->idx)) : NULL;
	if (!S->first || !S->n || !S->epoch || !S->epoch_first || (need_idx && !S->idx)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (need_idx) {
		/* the loader's own sampler: the same batches as the run modelled
		 * (its --seed), positions contiguous over the samples batched */
		struct schedule sch;
		if (schedule_build(&sch, (size_t)N, (size_t)B, c->epochs, c->shuffle, c->drop_last,
				   c->sched_seed, c->max_batches, err, errlen))
			return -1;
		for (size_t j = 0; j < total; j++) {
			S->first[j] = sch.b[j].first;
			S->n[j] = sch.b[j].n;
			S->epoch[j] = sch.b[j].epoch;
		}
		for (int e = 0; e <= S->epochs; e++)
			S->epoch_first[e] = sch.epoch_first[e];
		memcpy(S->idx, sch.idx, sch.nidx * sizeof(*S->idx));
		S->npos = sch.nidx;
		schedule_free(&sch);
		return 0;
	}
	size_t j = 0;
	uint64_t pos = 0;
	/* positions are contiguous over the samples batched (a dropped last
	 * batch takes none), as the loader's schedule */
	for (int e = 0; e < S->epochs; e++) {
		S->epoch_first[e] = j;
		for (uint64_t b = 0; b < per && j < total; b++, j++) {
			S->first[j] = pos + b * B;
			S->n[j] = (uint32_t)(b * B + B <= N ? B : N - b * B);
			S->epoch[j] = (uint32_t)e;
		}
		pos += per * B < N ? per * B : N;
	}
	S->epoch_first[S->epochs] = j;
	S->npos = pos;
	return 0;
}

static int alloc_proc(struct trace_proc *tp, enum proc_role role, int id, size_t cap)
{
	memset(tp, 0, sizeof(*tp));
	tp->role = role;
	tp->id = id;
	tp->pid = 1000 + id + (role == ROLE_WORKER ? 1 : 0);
	tp->cap = cap;
	tp->ev = malloc((cap ? cap : 1) * sizeof(*tp->ev));
	return tp->ev ? 0 : -1;
}

static int setup(struct sim *S, char *err, size_t errlen)
{
	const struct model_cfg *c = S->c;
	struct model_out *o = S->o;
	if (schedule(S, err, errlen))
		return -1;
	size_t nb = S->nb, W = (size_t)c->workers;
	S->queued = calloc(nb, sizeof(uint64_t));
	S->started = malloc(nb * sizeof(uint64_t));
	S->finished = calloc(nb, sizeof(uint64_t));
	S->have = calloc(nb, 1);
	S->fill = calloc(nb, sizeof(uint32_t));
	S->w = calloc(W, sizeof(*S->w));
	o->worker_busy_s = calloc(W, sizeof(double));
	o->yield_order = calloc(nb, sizeof(int64_t));
	if (c->policy == POLICY_SPEEDY)
		S->mark = calloc((size_t)c->images, sizeof(uint32_t));
	size_t nprocs = W + 2 + (c->pin_memory ? 1 : 0);
	o->trace.procs = calloc(nprocs, sizeof(struct trace_proc));
	if (!S->queued || !S->started || !S->finished || !S->have || !S->fill || !S->w ||
	    !o->worker_busy_s || !o->yield_order || (c->policy == POLICY_SPEEDY && !S->mark) ||
	    !o->trace.procs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t j = 0; j < nb; j++)
		S->started[j] = UINT64_MAX;
	struct trace *t = &o->trace;
	t->nprocs = nprocs;
	int bad = alloc_proc(&t->procs[0], ROLE_MAIN, 0, nb * 5 + 16);
	for (size_t w = 0; w < W; w++)
		bad |= alloc_proc(&t->procs[1 + w], ROLE_WORKER, (int)w, nb + 16);
	if (c->pin_memory)
		bad |= alloc_proc(&t->procs[1 + W], ROLE_PIN, 0, nb + 16);
	bad |= alloc_proc(&t->procs[nprocs - 1], ROLE_GPU, 0, nb * 2 + 16);
	if (bad) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	S->tmain = &t->procs[0];
	S->tw = &t->procs[1];
	S->tpin = c->pin_memory ? &t->procs[1 + W] : NULL;
	S->tgpu = &t->procs[nprocs - 1];
	/* speedy's warm-up: P x W x B samples, 8 to WARM_CAP, within epoch 0 */
	uint64_t warm = (uint64_t)c->prefetch_factor * W * (uint64_t)c->batch_size;
	uint64_t e0 = S->epoch_first[1] ? S->first[S->epoch_first[1] - 1] + S->n[S->epoch_first[1] - 1] : 0;
	warm = warm < 8 ? 8 : warm > WARM_CAP ? WARM_CAP : warm;
	S->warm_target = (uint32_t)(warm > e0 ? e0 : warm);
	return 0;
}

static void sim_free(struct sim *S)
{
	free(S->first);
	free(S->n);
	free(S->epoch);
	free(S->epoch_first);
	free(S->idx);
	free(S->queued);
	free(S->started);
	free(S->finished);
	free(S->have);
	free(S->fill);
	for (int w = 0; S->w && w < S->W; w++)
		free(S->w[w].q.v);
	free(S->w);
	free(S->ev.h);
	free(S->results.v);
	free(S->pipe.v);
	free(S->fast.v);
	free(S->slow.v);
	free(S->mark);
	for (int k = 0; k < NCLS; k++)
		free(S->cls[k].q.h);
}

static int check_cfg(const struct model_cfg *c, char *err, size_t errlen)
{
	if (c->workers < 1 || c->batch_size < 1 || c->prefetch_factor < 1 || c->epochs < 1 || !c->images) {
		snprintf(err, errlen, "the model needs workers, batch, prefetch factor, epochs and "
			 "images of at least 1");
		return -1;
	}
	const struct model_machine *m = &c->machine;
	if (!(c->gpu_step_ns >= 0) || !(c->h2d_bytes_per_s >= 0) || !(c->pin_bytes_per_s >= 0) ||
	    !(c->sample_bytes >= 0) || !(c->main_ns >= 0) || !(c->startup_ns >= 0) ||
	    !(c->gpu_over_ns >= 0) || !(c->prime_ns >= 0) || isinf(c->main_ns) ||
	    isinf(c->startup_ns) || isinf(c->prime_ns) || !(m->cores >= 0) || !(m->tpc >= 1 || m->cores == 0) ||
	    !(m->alpha >= 0) || !(m->beta >= 0) || !(m->main_threads >= 0) || !(m->ref_busy >= 0) ||
	    isinf(c->gpu_step_ns) || isinf(m->cores)) {
		snprintf(err, errlen, "the model's step, bandwidths, sample size and machine must be "
			 "finite and not negative (step %g ns, cores %g, threads per core %g)",
			 c->gpu_step_ns, m->cores, m->tpc);
		return -1;
	}
	if (!c->src || (c->src->kind <= MSRC_BATCH_EMPIRICAL && c->src->batch_of < 1) ||
	    ((c->src->kind == MSRC_BATCH_EMPIRICAL || c->src->kind == MSRC_SAMPLE_EMPIRICAL ||
	      c->src->kind == MSRC_BATCH_LIST) &&
	     !c->src->n)) {
		snprintf(err, errlen, "the model has no costs to draw from");
		return -1;
	}
	return 0;
}

int model_run(const struct model_cfg *c, struct model_out *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (check_cfg(c, err, errlen))
		return -1;
	struct sim *S = calloc(1, sizeof(*S));
	if (!S) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	S->c = c;
	S->o = o;
	S->W = c->workers;
	S->policy = c->policy;
	int rc = setup(S, err, errlen);
	S->oncpu = c->src && c->src->oncpu > 0 && c->src->oncpu < 1 ? c->src->oncpu : 1;
	S->ready = !(c->startup_ns > 0);
	S->by_index = c->src && c->src->by_index && c->src->by_images == c->images;
	if (!rc && !S->ready)
		rc = ev_push(S, (uint64_t)llround(c->startup_ns), MEV_READY, 0);
	if (!rc && c->prime_ns > 0)
		rc = ev_push(S, (uint64_t)llround(c->prime_ns), MEV_PRIME, 0);
	else if (!rc)
		rc = main_start(S);
	for (;;) {
		if (!rc && S->cpu_dirty) {
			S->cpu_dirty = 0;
			rc = cpu_reschedule(S);
		}
		if (rc || S->done || !S->ev.n)
			break;
		struct hent e = h_pop(&S->ev);
		S->now = e.t;
		rc = e.kind == MEV_CPU ? cpu_event(S, (unsigned)e.who) :
		     e.kind == MEV_READY ? (S->ready = 1, idle_workers_take(S)) :
		     e.kind == MEV_PRIME ? main_start(S) : main_free(S);
	}
	if (!rc && !S->done) {
		snprintf(err, errlen, "internal error: the model stopped after %llu of %zu batches",
			 (unsigned long long)o->batches, S->nb);
		rc = -1;
	}
	if (!rc) {
		for (int w = 0; w < S->W; w++)
			o->worker_busy_s[w] = S->w[w].cpu_ns / 1e9;
		o->timeout_ns = S->timeout_ns;
		/* the facts the model simulates, in the loader's terms, through
		 * the one adapter (run.h): no counters, no noise window; o->opts
		 * keeps no pointer into r (complete, no usage read, no error) */
		struct loader_result r;
		memset(&r, 0, sizeof(r));
		r.start_ns = T0;
		r.end_ns = T0 + S->now;
		r.images = o->images;
		r.batches = o->batches;
		r.workers = c->workers;
		r.worker_cpu_s = o->worker_busy_s;
		r.gpu_busy_ns = o->gpu_busy_ns;
		r.gpu_idle_ns = o->gpu_idle_ns;
		r.gpu_copy_ns = o->gpu_copy_ns;
		r.gpu_model_ns = S->gpu_model_ns;
		r.main_cpu_s = o->main_cpu_s;
		r.pin_copy_ns = o->pin_ns;
		r.complete = 1;
		r.max_inflight = o->max_inflight;
		r.slow_lane = o->slow_lane;
		r.timeout_ns = o->timeout_ns;
		struct run_opts ro = { .workers = c->workers, .batch_size = c->batch_size,
				       .gpus = c->gpus, .policy = c->policy };
		run_analysis_opts(&ro, &r, NULL, NULL, NULL, &o->opts);
		/* the CPUs of the machine modelled */
		o->opts.cpus_usable = c->machine.cores > 0 ? c->machine.cores * c->machine.tpc : 0;
	}
	sim_free(S);
	free(S);
	if (rc)
		model_out_free(o);
	return rc;
}

int model_metrics(const struct model_cfg *c, struct model_out *o, struct run_metrics *m,
		  char *err, size_t errlen)
{
	(void)c;
	return analysis_compute(&o->trace, &o->opts, m, err, errlen);
}

void model_out_free(struct model_out *o)
{
	for (size_t i = 0; i < o->trace.nprocs; i++)
		free(o->trace.procs[i].ev);
	free(o->trace.procs);
	free(o->worker_busy_s);
	free(o->yield_order);
	memset(o, 0, sizeof(*o));
}
