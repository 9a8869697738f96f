/* The DataLoader protocol in the main process (spec 2.3-2.6, 2.9, 2.13):
 * dispatch, pin thread, reorder buffer, consumer, faults. The names follow
 * PyTorch's: send (send_idx), rcvd (rcvd_idx), outstanding
 * (tasks_outstanding). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "backend.h"
#include "clock.h"
#include "exitcode.h"
#include "consumer.h"
#include "escape.h"
#include "counters.h"
#include "imagefolder.h"
#include "log.h"
#include "machine.h"
#include "npy.h"
#include "pipeline.h"
#include "rng.h"
#include "topology.h"

#define PAGE 4096u
#define POLL_MS 200           /* worker deaths are looked for at least this often */

static size_t page_round(size_t n)
{
	return (n + PAGE - 1) / PAGE * PAGE;
}

/* ---- signals: a self-pipe, so a signal wakes the poll of the main thread */

static volatile sig_atomic_t sig_attention;        /* any handled signal arrived */
static volatile sig_atomic_t sig_stop;    /* SIGINT, SIGTERM or SIGHUP, 0 none */
static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	int stop = sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
	if (stop && sig_stop) {
		/* a second one: stop now (the workers die with their parent) */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (stop)
		sig_stop = sig;
	sig_attention = 1;
	if (sig_pipe[1] >= 0) {
		ssize_t w = write(sig_pipe[1], "", 1);
		(void)w;
	}
	errno = saved;
}

struct sig_saved {
	struct sigaction intr, term, hup, chld, pipe;
};

static int signals_install(struct sig_saved *old)
{
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		return -1;
	sig_stop = 0;
	sig_attention = 0;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old->intr);
	sigaction(SIGTERM, &sa, &old->term);
	sigaction(SIGHUP, &sa, &old->hup);   /* a closed terminal: stop as on SIGTERM */
	sigaction(SIGCHLD, &sa, &old->chld);
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old->pipe);
	return 0;
}

static void signals_restore(const struct sig_saved *old)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGHUP, &old->hup, NULL);
	sigaction(SIGCHLD, &old->chld, NULL);
	sigaction(SIGPIPE, &old->pipe, NULL);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[0] = sig_pipe[1] = -1;
}

static void drain(int fd)
{
	char buf[64];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* ---- plan ------------------------------------------------------------- */

static int passthrough(const struct op_ops *o)
{
	return o->in == PIX_NONE && o->out == PIX_NONE;
}

/* The output size of one sample: run the ops that change it (not the
 * passthrough ones such as sleep) on the first samples until one works. */
static int probe(const struct loader_cfg *c, int *h, int *w, size_t *peak, size_t *out,
		 char *err, size_t errlen)
{
	const struct pipeline *p = c->pipe;
	int any = 0;
	for (int i = 0; i < p->nops; i++)
		if (i != p->batch_op && !passthrough(p->op[i].ops))
			any = 1;
	*h = *w = 0;
	*peak = *out = 0;
	if (!any)
		return 0;
	struct rng *r = malloc(sizeof(*r));
	struct scratch scr = { 0 };
	struct sample s = { 0 };
	int rc = -1;
	size_t tries = c->data->n < 16 ? c->data->n : 16;
	char first_err[300] = "";
	for (size_t k = 0; r && k < tries && rc; k++) {
		sample_setup(&s, c->data->items[k].path, c->data->items[k].label, k, r, &scr,
			     c->max_pixels, c->max_file_bytes);
		rng_seed(r, rng_sample_seed(c->seed, 0, k));
		rc = 0;
		for (int i = 0; i < p->nops && !rc; i++) {
			if (i == p->batch_op || passthrough(p->op[i].ops))
				continue;
			if (p->op[i].ops->run(p->op[i].cfg, &s)) {
				if (!first_err[0])
					snprintf(first_err, sizeof(first_err), "'%s' (op %s): %s", s.path,
						 p->op[i].ops->name, s.err);
				rc = -1;
			} else if (sample_bytes(&s) > *peak) {
				*peak = sample_bytes(&s);
			}
		}
	}
	if (!rc) {
		*h = s.h;
		*w = s.w;
		*out = sample_bytes(&s);
	} else {
		snprintf(err, errlen, "cannot find the output size of pipeline '%s': the first %zu "
			 "samples fail, the first with %s", p->name, tries, first_err);
	}
	sample_release(&s);
	scratch_release(&scr);
	free(r);
	return rc;
}

void loader_human_bytes(uint64_t b, char *out, size_t n)
{
	if (b >= (1ull << 30))
		snprintf(out, n, "%.1f GiB", b / 1073741824.0);
	else if (b >= (1ull << 20))
		snprintf(out, n, "%.1f MiB", b / 1048576.0);
	else
		snprintf(out, n, "%.1f KiB", b / 1024.0);
}

/* Per-sample ops, and the span of STransform: the ops after the last one
 * that makes an image from a file (the loader, Lotus's SLoader), or all of
 * them when there is none. */
static void transform_span(const struct pipeline *p, int *first, int *last, int *nsample_ops)
{
	int loader = -1, n = 0;
	*first = *last = -1;
	for (int i = 0; i < p->nops; i++) {
		if (i == p->batch_op)
			continue;
		n++;
		if (p->op[i].ops->in == PIX_NONE && p->op[i].ops->out != PIX_NONE)
			loader = i;
	}
	for (int i = loader + 1; i < p->nops; i++) {
		if (i == p->batch_op)
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
	}
	*nsample_ops = n;
}

/* The address space this process may still map under ulimit -v
 * (RLIMIT_AS), UINT64_MAX when it is unlimited. A worker, forked from it,
 * starts with the same mappings and the same limit. */
static uint64_t address_space_left(void)
{
	struct rlimit rl;
	unsigned long long pages = 0;
	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	if (f)
		fclose(f);
	uint64_t used = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
	return rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
}

int loader_plan(const struct loader_cfg *c, struct loader_plan *pl, char *err, size_t errlen)
{
	const struct pipeline *p = c->pipe;
	memset(pl, 0, sizeof(*pl));
	size_t B = (size_t)c->batch_size, W = (size_t)c->workers, P = (size_t)c->prefetch_factor;
	if (!c->data->n) {
		snprintf(err, errlen, "the dataset '%s' has no images", c->data->root);
		return -1;
	}
	if (c->drop_last && c->data->n < B) {
		snprintf(err, errlen, "no batch to run: the dataset has %zu images, fewer than one batch "
			 "of %zu, and --drop-last drops it", c->data->n, B);
		return -1;
	}
	size_t peak = 0, out = 0;
	if (probe(c, &pl->sample_h, &pl->sample_w, &peak, &out, err, errlen))
		return -1;
	if (c->policy != POLICY_TORCH)
		pl->stage_bytes = out;
	/* events per worker: torch, its share of the batches (round-robin, each
	 * epoch restarting at worker 0), each with its samples' events. The
	 * other policies hand any sample to any worker (the others take on the
	 * work of one held by a slow sample), so each buffer can hold the whole
	 * run's events; those buffers are not populated up front (map_shared),
	 * so the memory they take is the events written: the run's, once. */
	int tf_first, tf_last, nsops;
	transform_span(p, &tf_first, &tf_last, &nsops);
	size_t n = c->data->n;
	size_t Bx = B < n ? B : n;
	size_t per_epoch = c->drop_last ? n / B : (n + B - 1) / B;
	size_t total = per_epoch * (size_t)c->epochs;
	if (c->max_batches && c->max_batches < total)
		total = (size_t)c->max_batches;
	size_t epochs = per_epoch ? (total + per_epoch - 1) / per_epoch : 0;
	int torch = c->policy == POLICY_TORCH;
	size_t mine = torch ? (total + W - 1) / W + epochs : total;
	size_t per_batch = 1 + (c->trace ? Bx * (size_t)(nsops + (tf_first >= 0)) + 1 : 0);
	pl->trace_events = c->trace_capacity ? c->trace_capacity : mine * per_batch + 16;

	/* memory from the batches that exist: none is larger than the
	 * dataset, no more than the run's batches are in flight, and only the
	 * workers an epoch's batches reach hold samples */
	size_t inflight = P * W < total ? P * W : total;
	size_t busy = W < per_epoch ? W : per_epoch;
	if (busy > total)
		busy = total;
	pl->batch_max = Bx;
	size_t bytes = Bx * sizeof(int64_t);
	if (p->batch_op >= 0 && p->op[p->batch_op].ops->batch_bytes)
		bytes = p->op[p->batch_op].ops->batch_bytes(p->op[p->batch_op].cfg, Bx,
							    pl->sample_h, pl->sample_w);
	pl->slot_bytes = page_round(bytes ? bytes : 1);
	pl->nslots = (int)(inflight + 1 + (c->pin_memory ? 1 : 0));
	pl->npinned = c->pin_memory ? pl->nslots : 0;
	pl->torch_buffers = pl->nslots;

	pl->batch_bytes = (uint64_t)pl->nslots * pl->slot_bytes;
	pl->trace_bytes = (uint64_t)(torch ? W : 1) * pl->trace_events * sizeof(struct trace_ev) +
			  (torch ? 0 : (uint64_t)W * 4096) +
			  (uint64_t)total * 8 * sizeof(struct trace_ev);
	/* each worker holds B samples until collate, plus its scratch */
	pl->sample_bytes = (uint64_t)busy * (Bx + 2) * (uint64_t)peak;
	/* policies: a worker holds one sample; each slot stages B */
	if (c->policy != POLICY_TORCH)
		pl->sample_bytes = (uint64_t)W * 3 * (uint64_t)peak +
				   (uint64_t)pl->nslots * Bx * (uint64_t)pl->stage_bytes;
	pl->need_bytes = pl->batch_bytes + pl->trace_bytes + pl->sample_bytes;
	pl->avail_bytes = machine_memory_available();
	if (pl->avail_bytes && pl->need_bytes > pl->avail_bytes) {
		char need[32], avail[32], one[32], tr[32], sm[32];
		loader_human_bytes(pl->need_bytes, need, sizeof(need));
		loader_human_bytes(pl->avail_bytes, avail, sizeof(avail));
		loader_human_bytes(pl->slot_bytes, one, sizeof(one));
		loader_human_bytes(pl->trace_bytes, tr, sizeof(tr));
		loader_human_bytes(pl->sample_bytes, sm, sizeof(sm));
		snprintf(err, errlen, "this run needs %s but only %s is available: %d batch buffers "
			 "of %s (batch %zu of %dx%d), %s of trace buffers, %s of "
			 "samples in the workers; lower --batch, --workers or --prefetch-factor%s%s",
			 need, avail, pl->nslots, one, Bx, pl->sample_w,
			 pl->sample_h, tr, sm, c->pin_memory ? ", or use --pin-memory off" : "",
			 c->trace ? ", or --trace off" : "");
		return -1;
	}
	/* the simulated copy of the largest batch, bounded as --gpu-step is */
	if (gpu_copy_ns(pl->slot_bytes, c->h2d_bytes_per_s) > GPU_MAX_NS) {
		char one[32];
		loader_human_bytes(pl->slot_bytes, one, sizeof(one));
		snprintf(err, errlen, "--h2d-bandwidth %g B/s makes the simulated copy of each batch "
			 "(%s) last %.3g s, more than a minute (the bound of --gpu-step): give at "
			 "least %.0f B/s, or 0 for no copy", c->h2d_bytes_per_s, one,
			 (double)pl->slot_bytes / c->h2d_bytes_per_s,
			 ceil((double)pl->slot_bytes / ((double)GPU_MAX_NS / 1e9)));
		return -1;
	}
	/* ulimit -v: every worker maps the batch and trace buffers and holds
	 * its own samples (the thread backend's process, all of them) */
	uint64_t as_left = address_space_left();
	uint64_t mine_samples = c->backend == BACKEND_THREAD || !busy ? pl->sample_bytes
				: pl->sample_bytes / busy;
	uint64_t as_need = pl->batch_bytes + pl->trace_bytes + mine_samples;
	if (as_need > as_left) {
		char need[32], left[32], one[32], tr[32], sm[32];
		loader_human_bytes(as_need, need, sizeof(need));
		loader_human_bytes(as_left, left, sizeof(left));
		loader_human_bytes(pl->slot_bytes, one, sizeof(one));
		loader_human_bytes(pl->trace_bytes, tr, sizeof(tr));
		loader_human_bytes(mine_samples, sm, sizeof(sm));
		snprintf(err, errlen, "this run needs %s of address space in each %s but ulimit -v "
			 "leaves %s: %d batch buffers of %s (batch %zu of %dx%d), %s of trace "
			 "buffers, %s of samples; lower --batch, --workers or --prefetch-factor%s, "
			 "or raise ulimit -v", need, c->backend == BACKEND_THREAD ? "process" :
			 "worker", left, pl->nslots, one, Bx, pl->sample_w, pl->sample_h, tr, sm,
			 c->trace ? ", or --trace off" : "");
		return -1;
	}
	return 0;
}

double loader_trace_cost_ns(size_t n)
{
	struct trace_proc tp = { .cap = n };
	tp.ev = calloc(n, sizeof(*tp.ev));
	if (!tp.ev)
		return 0;
	double best = 0;
	for (int round = 0; round < 3; round++) {
		tp.n = 0;
		uint64_t t0 = clock_now_ns();
		for (size_t i = 0; i < n; i++)
			trace_add(&tp, EV_OP, 1, (int64_t)i, 0, t0, i);
		uint64_t t1 = clock_now_ns();
		double per = (double)(t1 - t0) / (double)n;
		if (round == 0 || per < best)
			best = per;
	}
	free(tp.ev);
	return best;
}

/* ---- the run ---------------------------------------------------------- */

/* the state of one loader_run() */
struct loader_state {
	struct loader L;
	struct loader_result *r;
	struct trace_proc main_tp, pin_tp, gpu_tp;
	struct result_msg *msg;    /* [nbatches]: what arrived */
	unsigned char *have;       /* [nbatches]: arrived, not yet handed over (reorder buffer) */

	/* the pool of batch buffers (loader.h); under pin_lock when pin is on, as
	 * the pin thread takes and gives back buffers too */
	uint32_t *free_slots;
	int nfree;

	/* pin memory */
	int pin;
	pthread_mutex_t pin_lock;
	pthread_cond_t pin_cond;
	int pin_stop;              /* under pin_lock */
	pthread_t pin_thr;
	int pin_started;
	int pin_bound;             /* the pin thread's pin_apply_self: 1 bound, 0 not, -1 */
	int pin_out[2];            /* pin thread -> main */
	int pin_wake[2];           /* main -> pin thread: stop */

	int data_fd;               /* what the main thread reads results from */

	int64_t epoch_first, epoch_end, send, rcvd, yielded;
	int64_t outstanding;
	struct gpu_sim gpu;
	/* the harness's time: the main loop's since `mark` (the end of its last
	 * wait or GPU step) is added up to the next one; the pin thread's own */
	uint64_t mark, main_harness_ns;
	uint64_t pin_harness_ns, pin_copy_ns;   /* written by the pin thread, read after its join */
	uint64_t pin_copy_cpu_ns;
};

static int read_msg(int fd, struct result_msg *m)
{
	size_t got = 0;
	while (got < sizeof(*m)) {
		ssize_t r = read(fd, (char *)m + got, sizeof(*m) - got);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0)
			return 1;
		else if (errno != EINTR && errno != EAGAIN)
			return -1;
	}
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static void set_stop(struct loader_state *R, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_stop(struct loader_state *R, int code, const char *fmt, ...)
{
	if (R->L.stop_code)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(R->L.stop_reason, sizeof(R->L.stop_reason), fmt, ap);
	va_end(ap);
	R->L.stop_code = code;
}

/* 1 if the run must stop (signal, dead worker, earlier reason). */
static int must_stop(struct loader_state *R)
{
	if (R->L.stop_code)
		return 1;
	if (sig_stop) {
		set_stop(R, 128 + sig_stop, "interrupted by %s", sig_stop == SIGINT ? "SIGINT"
			 : sig_stop == SIGHUP ? "SIGHUP" : "SIGTERM");
		return 1;
	}
	return 0;
}

static int check_now(void *arg)
{
	struct loader_state *R = arg;
	sig_attention = 0;
	if (sig_pipe[0] >= 0)
		drain(sig_pipe[0]);
	if (must_stop(R))
		return 1;
	return R->L.be->check(&R->L);
}

/* A message names a batch in flight, a slot and a worker that exist. */
static int msg_ok(const struct loader *L, const struct result_msg *m)
{
	return m->batch >= 0 && (size_t)m->batch < L->sched.nbatches &&
	       m->slot < (uint32_t)L->plan->nslots && m->worker >= 0 && m->worker < L->W &&
	       m->bytes <= L->plan->slot_bytes && m->pinned < L->plan->npinned;
}

/* Take a buffer from the pool (-1: none free; with wait, wait for one
 * unless the pin thread is told to stop). */
static int pool_take(struct loader_state *R, int wait)
{
	if (R->pin)
		pthread_mutex_lock(&R->pin_lock);
	while (wait && !R->nfree && !R->pin_stop)
		pthread_cond_wait(&R->pin_cond, &R->pin_lock);
	int b = R->nfree > 0 && !(wait && R->pin_stop) ? (int)R->free_slots[--R->nfree] : -1;
	int used = R->L.plan->nslots - R->nfree;
	if (used > R->r->buffers_peak)
		R->r->buffers_peak = used;
	if (R->pin)
		pthread_mutex_unlock(&R->pin_lock);
	return b;
}

static void pool_give(struct loader_state *R, uint32_t b)
{
	if (R->pin)
		pthread_mutex_lock(&R->pin_lock);
	R->free_slots[R->nfree++] = b;
	if (R->pin) {
		pthread_cond_signal(&R->pin_cond);
		pthread_mutex_unlock(&R->pin_lock);
	}
}

/* The workers the kernel shows stopped (SIGSTOP, a debugger): "; worker 1
 * (pid 123) is stopped" for each, "" when none (or threads). */
static void stopped_workers(const struct loader *L, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	if (L->cfg->backend != BACKEND_PROCESS)
		return;
	for (int w = 0; w < L->W && len < n; w++) {
		char p[64], line[512];
		int pid = L->sh->w[w].pid;
		snprintf(p, sizeof(p), "/proc/%d/stat", pid);
		FILE *f = pid > 0 ? fopen(p, "r") : NULL;
		const char *paren = f && fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		if (f)
			fclose(f);
		if (paren && (paren[2] == 'T' || paren[2] == 't'))
			len += (size_t)snprintf(out + len, n - len, "; worker %d (pid %d) is stopped%s",
						w, pid, paren[2] == 't' ? " by a debugger" : "");
	}
}

/* Next message from the data queue, watching signals and workers. 0, or -1
 * when the run must stop: also when no batch came for --timeout (PyTorch's
 * DataLoader timeout); each --stall-notice without one, a warning. */
static int receive(struct loader_state *R, struct result_msg *m)
{
	const struct loader_cfg *c = R->L.cfg;
	uint64_t since = clock_now_ns(), notice = c->stall_notice_ns;
	for (;;) {
		if (must_stop(R))
			return -1;
		uint64_t waited = clock_now_ns() - since;
		if (c->data_timeout_ns && waited >= c->data_timeout_ns) {
			char who[512];
			stopped_workers(&R->L, who, sizeof(who));
			set_stop(R, EXIT_FAIL, "no batch from the workers in %.3g s (--timeout, as "
				 "PyTorch's DataLoader timeout)%s", (double)c->data_timeout_ns / 1e9, who);
			return -1;
		}
		if (notice && waited >= notice) {
			char who[512];
			stopped_workers(&R->L, who, sizeof(who));
			warn_msg("no batch from the workers for %.0f s%s; still waiting (the wait is "
				 "counted as the loader's; --timeout fails a run that waits too long)",
				 (double)waited / 1e9, who);
			notice += c->stall_notice_ns;
		}
		struct pollfd pf[2] = { { R->data_fd, POLLIN, 0 }, { sig_pipe[0], POLLIN, 0 } };
		int n = poll(pf, 2, POLL_MS);
		if (n < 0 && errno != EINTR) {
			set_stop(R, EXIT_FAIL, "cannot wait for the workers: %s", strerror(errno));
			return -1;
		}
		if (n <= 0 || (pf[1].revents & POLLIN)) {
			if (check_now(R))
				return -1;
			continue;
		}
		if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		int rc = read_msg(R->data_fd, m);
		if (!rc && !msg_ok(&R->L, m)) {
			set_stop(R, EXIT_FAIL, "internal error: a bad result message (batch %" PRId64
				 ", slot %u, worker %d)", m->batch, m->slot, m->worker);
			return -1;
		}
		if (!rc)
			return 0;
		if (!check_now(R))
			set_stop(R, EXIT_WORKER, "the result queue closed: %s",
				 R->pin ? "the pin memory thread exited unexpectedly" :
					  "every worker exited");
		return -1;
	}
}

/* Policies: the batch's samples, one message each, on the shared pipe, or
 * (speedy) on the slow lane for a sample found slow in an earlier epoch. */
static int send_samples(struct loader_state *R, const struct sched_batch *sb)
{
	struct loader *L = &R->L;
	for (uint32_t k = 0; k < sb->n; k++) {
		struct sample_msg m = { .off = sb->first + k, .epoch = sb->epoch };
		int fd = L->sq_wr;
		if (L->slow_wr >= 0) {
			uint32_t mark = atomic_load(&L->slow[L->sched.idx[m.off]]);
			if (mark && mark - 1 <= sb->epoch) {
				fd = L->slow_wr;
				R->r->slow_lane++;
			}
		}
		if (write_all(fd, &m, sizeof(m))) {
			if (!check_now(R))
				set_stop(R, EXIT_WORKER, "cannot send a sample to the workers: %s",
					 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* _try_put_index: send the next task of the epoch to worker k mod W. */
static int dispatch(struct loader_state *R)
{
	struct loader *L = &R->L;
	if (R->send >= R->epoch_end)
		return 0;
	int64_t id = R->send;
	const struct sched_batch *sb = &L->sched.b[id];
	int w = (int)((id - R->epoch_first) % L->W);
	int got = pool_take(R, 0);
	if (got < 0) {
		set_stop(R, EXIT_FAIL, "internal error: no free batch buffer for batch %" PRId64, id);
		return -1;
	}
	uint32_t slot = (uint32_t)got;
	struct task_msg t = { .batch = id, .first = sb->first, .n = sb->n, .slot = slot,
			      .epoch = sb->epoch };
	uint64_t now = clock_now_ns();
	if (L->cfg->policy != POLICY_TORCH) {
		/* the batch's slot first: a sample finishing takes a position in
		 * a batch whose samples were all sent, so its slot is known */
		atomic_store(&L->fill[id], 0);
		atomic_store(&L->slot_of[id], slot);
		w = -1;
		if (send_samples(R, sb))
			return -1;
	} else if (write_all(L->idx_wr[w], &t, sizeof(t))) {
		if (!check_now(R))
			set_stop(R, EXIT_WORKER, "cannot send batch %" PRId64 " to worker %d: %s", id, w,
				 strerror(errno));
		return -1;
	}
	uint64_t wall = now + (uint64_t)L->wall_off;
	trace_add(&R->main_tp, EV_BATCH_QUEUED, 0, id, UINT32_MAX, wall, TRACE_MARKER_NS);
	struct loader_batch *b = &R->r->b[id];
	b->worker = w;
	b->queued = wall;
	R->send++;
	R->outstanding++;
	b->inflight = (uint32_t)(R->send - R->epoch_first - R->yielded);
	if (b->inflight > R->r->max_inflight)
		R->r->max_inflight = b->inflight;
	return 0;
}

/* A message taken from the data queue. */
static void arrived(struct loader_state *R, const struct result_msg *m, uint64_t now)
{
	struct loader *L = &R->L;
	uint64_t wall = now + (uint64_t)L->wall_off;
	struct loader_batch *b = &R->r->b[m->batch];
	R->msg[m->batch] = *m;
	b->arrived = wall;
	b->started = m->started;
	b->finished = m->finished;
	b->n = m->n;
	b->nskipped = m->nskipped;
	b->status = m->status;
	b->moved = m->moved;
	if (L->cfg->policy != POLICY_TORCH)
		b->worker = m->worker;
	b->checksum = m->checksum;
	b->bytes = m->bytes;
	R->outstanding--;
	trace_add(&R->main_tp, EV_BATCH_ARRIVED, 0, m->batch, UINT32_MAX, wall, TRACE_MARKER_NS);
}

/* _next_data, in order: the batch rcvd, from the reorder buffer or waited for. */
static int next_inorder(struct loader_state *R, uint64_t entry, int64_t *id)
{
	int64_t want = R->rcvd;
	uint64_t off = (uint64_t)R->L.wall_off;
	if (R->have[want]) {
		R->have[want] = 0;
		R->rcvd++;
		*id = want;
		return 0;
	}
	for (;;) {
		struct result_msg m;
		if (receive(R, &m))
			return -1;
		uint64_t now = clock_now_ns();
		arrived(R, &m, now);
		if (m.batch != want) {
			trace_add(&R->main_tp, EV_BATCH_WAIT, 0, m.batch, UINT32_MAX, now + off,
				  TRACE_MARKER_NS);
			R->have[m.batch] = 1;
			continue;
		}
		trace_add(&R->main_tp, EV_BATCH_WAIT, 0, want, UINT32_MAX, entry + off, now - entry);
		R->r->b[want].wait_ns = now - entry;
		R->rcvd++;
		*id = want;
		return 0;
	}
}

/* in_order=False: whatever arrives first. */
static int next_arrival(struct loader_state *R, uint64_t entry, int64_t *id)
{
	struct result_msg m;
	if (receive(R, &m))
		return -1;
	uint64_t now = clock_now_ns();
	arrived(R, &m, now);
	trace_add(&R->main_tp, EV_BATCH_WAIT, 0, m.batch, UINT32_MAX, entry + (uint64_t)R->L.wall_off,
		  now - entry);
	R->r->b[m.batch].wait_ns = now - entry;
	*id = m.batch;
	return 0;
}

/* The consumer is done with batch id: its memory can be reused. */
static void release(struct loader_state *R, int64_t id)
{
	const struct result_msg *m = &R->msg[id];
	if (!R->pin)
		pool_give(R, m->slot);
	else if (m->pinned >= 0)
		pool_give(R, (uint32_t)m->pinned);
}

static void stop_reason_for_error(struct loader_state *R, int64_t id)
{
	const struct result_msg *m = &R->msg[id];
	const struct loader_cfg *c = R->L.cfg;
	const struct err_rec *e = NULL;
	if (m->err >= 0 && m->err < ERR_LOG_CAP &&
	    atomic_load_explicit(&R->L.sh->err[m->err].ready, memory_order_acquire))
		e = &R->L.sh->err[m->err];
	if (!e) {
		set_stop(R, EXIT_FAIL, "batch %" PRId64 " failed in worker %d", id, m->worker);
		return;
	}
	const char *op = e->op >= 0 ? c->pipe->op[e->op].ops->name : "?";
	if (e->index >= 0) {
		char path[1100];
		bytes_escape(c->data->items[e->index].path, path, sizeof(path));   /* one line */
		if (e->oom)
			set_stop(R, EXIT_FAIL, "worker %d ran out of memory on '%s' (op %s: %s): the "
				 "run failed, the file is not bad (lower --batch, --workers or "
				 "--prefetch-factor, or free memory)", e->worker, path, op, e->reason);
		else
			set_stop(R, EXIT_FAIL, "cannot process '%s' (op %s, in worker %d): %s",
				 path, op, e->worker, e->reason);
	} else {
		set_stop(R, EXIT_FAIL, "cannot collate batch %" PRId64 " (op %s, in worker %d): %s",
			 id, op, e->worker, e->reason);
	}
}

/* ---- pin memory thread ------------------------------------------------ */

static void *pin_main(void *arg)
{
	struct loader_state *R = arg;
	struct loader *L = &R->L;
	size_t sb = L->plan->slot_bytes;
	if (L->cfg->pin_plan) {
		char why[256] = "";
		int rc = pin_apply_self(L->cfg->pin_plan, ROLE_PIN, 0, why, sizeof(why));
		if (rc < 0)
			warn_msg("pin thread: %s", why);
		R->pin_bound = rc == 0;
	}
	for (;;) {
		struct pollfd pf[2] = { { L->res_rd, POLLIN, 0 }, { R->pin_wake[0], POLLIN, 0 } };
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents)
			break;
		struct result_msg m;
		if (read_msg(L->res_rd, &m))
			break;
		uint64_t t0 = clock_now_ns(), tc0 = t0, tc1 = t0;
		int ok = msg_ok(L, &m);
		if (m.status == RES_OK && ok) {
			int b = pool_take(R, 1);
			if (b < 0)
				break;
			/* the copy is modelled work; the rest is the harness's (its
			 * CPU time too: wall time counts time descheduled) */
			uint64_t cpu0 = clock_thread_cpu_ns();
			tc0 = clock_now_ns();
			memcpy(L->slots + (size_t)b * sb, L->slots + (size_t)m.slot * sb, m.bytes);
			tc1 = clock_now_ns();
			R->pin_copy_cpu_ns += clock_thread_cpu_ns() - cpu0;
			m.pinned = b;
		}
		/* the batch lives in its pinned copy now: its slot goes back to
		 * the pool before the copy is handed on (_pin_memory_loop drops
		 * the shared tensor when it rebinds r) */
		if (ok)
			pool_give(R, m.slot);
		uint64_t t1 = clock_now_ns();
		trace_add(&R->pin_tp, EV_BATCH_PINNED, 0, m.batch, UINT32_MAX,
			  t0 + (uint64_t)L->wall_off, t1 - t0);
		if (write_all(R->pin_out[1], &m, sizeof(m)))
			break;
		R->pin_copy_ns += tc1 - tc0;
		R->pin_harness_ns += clock_now_ns() - t0 - (tc1 - tc0);
	}
	/* the main thread sees the end of its data queue */
	close(R->pin_out[1]);
	R->pin_out[1] = -1;
	return NULL;
}

static void pin_stop(struct loader_state *R)
{
	if (!R->pin_started)
		return;
	pthread_mutex_lock(&R->pin_lock);
	R->pin_stop = 1;
	pthread_cond_broadcast(&R->pin_cond);
	pthread_mutex_unlock(&R->pin_lock);
	ssize_t w = write(R->pin_wake[1], "", 1);
	(void)w;
	pthread_join(R->pin_thr, NULL);
	R->pin_started = 0;
}

/* ---- set up and tear down --------------------------------------------- */

static int make_pipe(int fd[2], size_t need, char *err, size_t errlen)
{
	if (pipe2(fd, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	if (need > 65536 && fcntl(fd[1], F_SETPIPE_SZ, (int)need) < 0) {
		snprintf(err, errlen, "cannot make a pipe hold %zu bytes of messages: %s "
			 "(lower --prefetch-factor or --workers, or raise /proc/sys/fs/pipe-max-size)",
			 need, strerror(errno));
		close(fd[0]);
		close(fd[1]);
		fd[0] = fd[1] = -1;
		return -1;
	}
	return 0;
}

/* Populated up front, so that no batch pays for first-touch page faults
 * (PyTorch allocates a new shared tensor per batch and pays them every
 * time; ppbench reuses slots and keeps that cost out of the window). */
static void *map_shared(size_t n, int populate)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE | (populate ? MAP_POPULATE : 0),
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static int alloc_proc(struct trace_proc *tp, enum proc_role role, int id, size_t cap)
{
	memset(tp, 0, sizeof(*tp));
	tp->role = role;
	tp->id = id;
	tp->pid = getpid();
	tp->cap = cap;
	tp->ev = malloc((cap ? cap : 1) * sizeof(*tp->ev));
	return tp->ev ? 0 : -1;
}

/* Policies: the shared area of batch assembly, and the sample pipes. */
static int setup_policy(struct loader_state *R, size_t window, char *err, size_t errlen)
{
	struct loader *L = &R->L;
	const struct loader_cfg *c = L->cfg;
	const struct loader_plan *pl = L->plan;
	size_t nb = L->sched.nbatches, B = (size_t)c->batch_size, ns = c->data->n;
	size_t nstage = (size_t)pl->nslots * pl->batch_max;
	size_t o_fill = 0, o_slot = o_fill + nb * 4, o_slow = o_slot + nb * 4;
	size_t o_meta = (o_slow + ns * 4 + 63) / 64 * 64;
	size_t o_stage = page_round(o_meta + nstage * sizeof(struct stage_meta));
	L->pol_bytes = page_round(o_stage + nstage * pl->stage_bytes);
	L->pol = map_shared(L->pol_bytes, 1);
	if (!L->pol) {
		snprintf(err, errlen, "cannot map %zu bytes of shared memory for batch assembly: %s",
			 L->pol_bytes, strerror(errno));
		return -1;
	}
	unsigned char *base = L->pol;
	L->fill = (_Atomic uint32_t *)(void *)(base + o_fill);
	L->slot_of = (_Atomic uint32_t *)(void *)(base + o_slot);
	L->slow = (_Atomic uint32_t *)(void *)(base + o_slow);
	L->meta = (struct stage_meta *)(void *)(base + o_meta);
	L->stage = base + o_stage;
	/* speedy's warm-up: the first P x W x B samples, 8 to WARM_CAP */
	size_t warm = (size_t)c->prefetch_factor * (size_t)L->W * B;
	size_t first = L->sched.epoch_first[1] > 0 ?
		       L->sched.b[L->sched.epoch_first[1] - 1].first + L->sched.b[L->sched.epoch_first[1] - 1].n : 0;
	if (warm < 8)
		warm = 8;
	if (warm > WARM_CAP)
		warm = WARM_CAP;
	if (warm > first)
		warm = first;
	L->warm_target = (uint32_t)warm;

	int fd[2];
	if (make_pipe(fd, window * B * sizeof(struct sample_msg), err, errlen))
		return -1;
	L->sq_rd = fd[0];
	L->sq_wr = fd[1];
	/* workers poll, then read without blocking (another may take it) */
	fcntl(L->sq_rd, F_SETFL, fcntl(L->sq_rd, F_GETFL) | O_NONBLOCK);
	if (c->policy == POLICY_SPEEDY && L->W >= 2) {
		if (make_pipe(fd, window * B * sizeof(struct sample_msg), err, errlen))
			return -1;
		L->slow_rd = fd[0];
		L->slow_wr = fd[1];
		fcntl(L->slow_rd, F_SETFL, fcntl(L->slow_rd, F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

static int setup(struct loader_state *R, char *err, size_t errlen)
{
	struct loader *L = &R->L;
	const struct loader_cfg *c = L->cfg;
	const struct loader_plan *pl = L->plan;
	struct loader_result *r = R->r;
	int W = c->workers;

	if (schedule_build(&L->sched, c->data->n, (size_t)c->batch_size, c->epochs, c->shuffle,
			   c->drop_last, c->seed, c->max_batches, err, errlen))
		return -1;
	size_t nb = L->sched.nbatches;
	r->nbatches = nb;
	r->b = calloc(nb, sizeof(*r->b));
	r->yield_order = calloc(nb, sizeof(*r->yield_order));
	R->msg = calloc(nb, sizeof(*R->msg));
	R->have = calloc(nb, 1);
	R->free_slots = calloc((size_t)pl->nslots, sizeof(*R->free_slots));
	r->worker_cpu_s = calloc((size_t)W, sizeof(double));
	r->worker_maxrss_kib = calloc((size_t)W, sizeof(long));
	r->worker_pinned = calloc((size_t)W, sizeof(int));
	if (c->counters && c->counters->n) {
		r->cacc = calloc(PIPE_MAX_OPS, sizeof(*r->cacc));
		r->cacc_first = calloc(PIPE_MAX_OPS, sizeof(*r->cacc_first));
	}
	L->idx_rd = malloc((size_t)W * sizeof(int));
	L->idx_wr = malloc((size_t)W * sizeof(int));
	if (!r->b || !r->yield_order || !R->msg || !R->have || !R->free_slots || !r->worker_cpu_s ||
	    !r->worker_maxrss_kib || !r->worker_pinned || (c->counters && c->counters->n && (!r->cacc || !r->cacc_first)) ||
	    !L->idx_rd || !L->idx_wr ||
	    alloc_proc(&R->main_tp, ROLE_MAIN, 0, nb * 4 + 16) ||
	    alloc_proc(&R->pin_tp, ROLE_PIN, 0, c->pin_memory ? nb + 16 : 0) ||
	    alloc_proc(&R->gpu_tp, ROLE_GPU, 0, nb * 2 + 16)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < nb; i++) {
		r->b[i].worker = -1;
		r->b[i].yield_pos = -1;
	}
	for (int w = 0; w < W; w++)
		L->idx_rd[w] = L->idx_wr[w] = -1;

	/* the shared area: control, error log, then each worker's events */
	size_t head = sizeof(struct shared) + (size_t)W * sizeof(struct worker_shared);
	head = (head + 63) / 64 * 64;
	size_t evbytes = (size_t)pl->trace_events * sizeof(struct trace_ev);
	L->sh_bytes = page_round(head + (size_t)W * evbytes);
	/* not populated for the shared-queue policies: their buffers are sized
	 * for the whole run each (loader_plan) */
	L->sh = map_shared(L->sh_bytes, c->policy == POLICY_TORCH);
	L->slots_bytes = (size_t)pl->nslots * pl->slot_bytes;
	L->slots = map_shared(L->slots_bytes, 1);
	if (!L->sh || !L->slots) {
		snprintf(err, errlen, "cannot map %zu bytes of shared memory: %s",
			 L->sh_bytes + L->slots_bytes, strerror(errno));
		return -1;
	}
	for (int w = 0; w < W; w++) {
		struct trace_proc *tp = &L->sh->w[w].tp;
		L->sh->w[w].pinned = -1;
		L->sh->w[w].counted = -1;
		tp->role = ROLE_WORKER;
		tp->id = w;
		tp->cap = pl->trace_events;
		tp->ev = (struct trace_ev *)(void *)((char *)L->sh + head + (size_t)w * evbytes);
	}
	for (int s = 0; s < pl->nslots; s++)
		R->free_slots[R->nfree++] = (uint32_t)(pl->nslots - 1 - s);

	if (R->pin) {
		/* pinned copies come from the same pool: lock all of it (the
		 * workers' slots too, which costs them nothing: populated already) */
		if (mlock(L->slots, L->slots_bytes)) {
			warn_msg("cannot lock the batch buffers in memory (mlock of %zu bytes: %s): "
			     "pin memory copies into unlocked memory", L->slots_bytes, strerror(errno));
			r->pin_locked = 0;
		} else {
			r->pin_locked = 1;
		}
	} else {
		r->pin_locked = -1;
	}

	/* queues: a task per batch of the window can wait in one index pipe,
	 * and the whole window in the result pipe */
	size_t window = (size_t)c->prefetch_factor * (size_t)W + 1;
	for (int w = 0; w < W; w++) {
		int fd[2];
		if (make_pipe(fd, window * sizeof(struct task_msg), err, errlen))
			return -1;
		L->idx_rd[w] = fd[0];
		L->idx_wr[w] = fd[1];
	}
	int fd[2];
	if (make_pipe(fd, (window + (size_t)W) * sizeof(struct result_msg), err, errlen))
		return -1;
	L->res_rd = fd[0];
	L->res_wr = fd[1];
	if (c->policy != POLICY_TORCH && setup_policy(R, window, err, errlen))
		return -1;
	if (R->pin) {
		if (make_pipe(R->pin_out, (window + (size_t)W) * sizeof(struct result_msg), err, errlen) ||
		    make_pipe(R->pin_wake, 0, err, errlen))
			return -1;
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_index_pipes(struct loader *L)
{
	for (int w = 0; w < L->W; w++)
		if (L->idx_wr)
			close_fd(&L->idx_wr[w]);
	close_fd(&L->sq_wr);
	close_fd(&L->slow_wr);
}

static void teardown(struct loader_state *R)
{
	struct loader *L = &R->L;
	for (int w = 0; L->idx_rd && w < L->W; w++) {
		close_fd(&L->idx_rd[w]);
		close_fd(&L->idx_wr[w]);
	}
	close_fd(&L->res_rd);
	close_fd(&L->res_wr);
	close_fd(&L->sq_rd);
	close_fd(&L->sq_wr);
	close_fd(&L->slow_rd);
	close_fd(&L->slow_wr);
	if (L->pol)
		munmap(L->pol, L->pol_bytes);
	L->pol = NULL;
	close_fd(&R->pin_out[0]);
	close_fd(&R->pin_out[1]);
	close_fd(&R->pin_wake[0]);
	close_fd(&R->pin_wake[1]);
	free(L->idx_rd);
	free(L->idx_wr);
	L->idx_rd = L->idx_wr = NULL;
	pthread_mutex_destroy(&R->pin_lock);
	pthread_cond_destroy(&R->pin_cond);
	free(R->msg);
	free(R->have);
	free(R->free_slots);
	if (L->slots)
		munmap(L->slots, L->slots_bytes);
	if (L->sh)
		munmap(L->sh, L->sh_bytes);
	schedule_free(&L->sched);
	free(L->be_priv);
}

/* The workers' events and the main side's, as one struct trace. */
static int merge_trace(struct loader_state *R, int unclean)
{
	struct loader *L = &R->L;
	const struct pipeline *p = L->cfg->pipe;
	struct trace *t = &R->r->trace;
	size_t n = 2 + (size_t)L->W + (R->pin ? 1 : 0);
	t->procs = calloc(n, sizeof(*t->procs));
	if (!t->procs)
		return -1;
	t->nops = (size_t)p->nops;
	for (int i = 0; i < p->nops && i < 16; i++) {
		snprintf(t->op_names[i], sizeof(t->op_names[i]), "%s", p->op[i].ops->lotus_name);
		snprintf(t->op_ids[i], sizeof(t->op_ids[i]), "%s", p->op[i].ops->name);
	}
	t->procs[t->nprocs++] = R->main_tp;
	for (int w = 0; w < L->W; w++) {
		struct worker_shared *ws = &L->sh->w[w];
		struct trace_proc tp = ws->tp;
		/* a worker that did not end cleanly may have stopped inside an
		 * event: keep what it published after its last whole batch */
		if (unclean)
			tp.n = (size_t)atomic_load_explicit(&ws->published, memory_order_acquire);
		tp.pid = ws->pid;
		R->r->trace_dropped += tp.dropped;
		t->procs[t->nprocs++] = tp;
	}
	if (R->pin)
		t->procs[t->nprocs++] = R->pin_tp;
	else
		free(R->pin_tp.ev);
	t->procs[t->nprocs++] = R->gpu_tp;
	R->r->trace_dropped += R->main_tp.dropped + R->pin_tp.dropped + R->gpu_tp.dropped;
	R->main_tp.ev = R->pin_tp.ev = R->gpu_tp.ev = NULL;
	return 0;
}

static void collect_errors(struct loader_state *R)
{
	struct loader *L = &R->L;
	struct loader_result *r = R->r;
	uint32_t n = atomic_load(&L->sh->nerr);
	if (n > ERR_LOG_CAP)
		n = ERR_LOG_CAP;
	r->err_path = calloc(n ? n : 1, sizeof(char *));
	r->err_reason = calloc(n ? n : 1, sizeof(char *));
	if (!r->err_path || !r->err_reason)
		return;
	uint64_t nbatch = 0, noom = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct err_rec *e = &L->sh->err[k];
		if (!atomic_load_explicit(&e->ready, memory_order_acquire))
			continue;
		/* out of memory: the run failed (its stop reason), no file was bad */
		if (e->oom) {
			noom++;
			continue;
		}
		char path[1100], reason[400];
		const char *op = e->op >= 0 ? L->cfg->pipe->op[e->op].ops->name : "?";
		if (e->index >= 0)
			snprintf(path, sizeof(path), "%s", L->cfg->data->items[e->index].path);
		else
			snprintf(path, sizeof(path), "(batch %" PRId64 ")", e->batch);
		snprintf(reason, sizeof(reason), "op %s: %s", op, e->reason);
		r->err_path[r->nerrors] = strdup(path);
		r->err_reason[r->nerrors] = strdup(reason);
		if (r->err_path[r->nerrors] && r->err_reason[r->nerrors])
			r->nerrors++;
		nbatch += e->index < 0;
	}
	/* The count agrees with the list: every file that failed, also in a
	 * batch never handed over (the one that stopped an --on-error fail run,
	 * those in flight at a stop); the list holds the first ERR_LOG_CAP. */
	uint64_t files = atomic_load(&L->sh->nerr) - nbatch - noom;
	if (files > r->nskipped)
		r->nskipped = files;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int proc_use_now(struct proc_use *u, int who)
{
	struct rusage ru;
	if (getrusage(who, &ru))
		return -1;
	u->sys_s = tv_s(ru.ru_stime);
	u->cpu_s = tv_s(ru.ru_utime) + u->sys_s;
	u->faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
	return 0;
}

/* --dump-batches: batch id as .npy files, from the memory the consumer
 * read (the pinned copy, or the slot). A failure is a warning. */
static void dump_batch(struct loader_state *R, int64_t id)
{
	const struct loader_cfg *c = R->L.cfg;
	const struct result_msg *m = &R->msg[id];
	const struct loader_batch *b = &R->r->b[id];
	size_t sb = R->L.plan->slot_bytes, n = b->n;
	size_t h = (size_t)R->L.plan->sample_h, w = (size_t)R->L.plan->sample_w;
	size_t img = n * 3 * h * w * sizeof(float);
	const unsigned char *mem = !R->pin ? R->L.slots + (size_t)m->slot * sb :
				   m->pinned >= 0 ? R->L.slots + (size_t)m->pinned * sb : NULL;
	char path[4096], err[4200] = "";
	float *lab = malloc((n ? n : 1) * sizeof(float));
	if (!mem || !lab || b->bytes != img + n * sizeof(int64_t)) {
		warn_msg("cannot dump batch %" PRId64 ": %s", id,
		     !lab ? "out of memory" : "not a collated [n, 3, h, w] batch");
		free(lab);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t l;
		memcpy(&l, mem + img + i * sizeof(l), sizeof(l));
		lab[i] = (float)l;
	}
	size_t shape[4] = { n, 3, h, w };
	snprintf(path, sizeof(path), "%s/batch_%" PRId64 ".npy", c->dump_dir, id);
	int rc = npy_write(path, "<f4", shape, 4, mem, err, sizeof(err));
	snprintf(path, sizeof(path), "%s/labels_%" PRId64 ".npy", c->dump_dir, id);
	if (!rc)
		rc = npy_write(path, "<f4", shape, 1, lab, err, sizeof(err));
	if (rc)
		warn_msg("%s", err);
	free(lab);
}

static int run_epochs(struct loader_state *R)
{
	struct loader *L = &R->L;
	const struct loader_cfg *c = L->cfg;
	struct loader_result *r = R->r;
	uint64_t off = (uint64_t)L->wall_off;
	R->mark = clock_now_ns();
	for (int e = 0; e < L->sched.epochs; e++) {
		R->epoch_first = (int64_t)L->sched.epoch_first[e];
		R->epoch_end = (int64_t)L->sched.epoch_first[e + 1];
		R->send = R->rcvd = R->epoch_first;
		R->yielded = 0;
		/* prime: prefetch_factor x W tasks */
		for (int i = 0; i < c->prefetch_factor * L->W; i++)
			if (dispatch(R))
				return -1;
		while (R->yielded < R->epoch_end - R->epoch_first) {
			int64_t id;
			uint64_t entry = clock_now_ns();
			R->main_harness_ns += entry - R->mark;
			if (c->order == ORDER_INORDER && c->policy == POLICY_TORCH ?
			    next_inorder(R, entry, &id) : next_arrival(R, entry, &id))
				return -1;
			struct loader_batch *b = &r->b[id];
			b->yield_pos = (int64_t)(R->epoch_first + R->yielded);
			r->yield_order[b->yield_pos] = id;
			R->yielded++;
			/* _process_data: one new task per batch handed over */
			if (dispatch(R))
				return -1;
			uint64_t now = clock_now_ns();
			trace_add(&R->main_tp, EV_BATCH_CONSUMED, 0, id, UINT32_MAX, now + off,
				  TRACE_MARKER_NS);
			b->consumed = now + off;
			/* from the end of its wait (0 from the reorder buffer) */
			R->main_harness_ns += now - entry - b->wait_ns;
			R->mark = now;
			if (b->status != RES_OK) {
				stop_reason_for_error(R, id);
				release(R, id);
				return -1;
			}
			int rc = gpu_consume(&R->gpu, b->bytes, id, &R->gpu_tp, L->wall_off,
					     &sig_attention, check_now, R);
			R->mark = R->gpu.last_end;
			if (c->dump_dir && (uint64_t)b->yield_pos < c->dump_batches)
				dump_batch(R, id);
			release(R, id);
			if (rc)
				return -1;
			r->batches++;
			r->images += b->n;
			r->nskipped += b->nskipped;
			r->checksum += b->checksum;
			r->samples_moved += b->moved;
			if (c->progress)
				c->progress(c->progress_arg, r->batches, r->nbatches, r->images);
		}
	}
	return 0;
}

/* The one way out of loader_run: the run's resources, then its state. */
static void state_free(struct loader_state *R)
{
	teardown(R);
	free(R->main_tp.ev);
	free(R->pin_tp.ev);
	free(R->gpu_tp.ev);
	free(R);
}

/* A run's state before setup(): the configuration, the plan, the result
 * zeroed, no resource held yet; NULL when out of memory (r untouched). */
static struct loader_state *state_new(const struct loader_cfg *c, const struct loader_plan *pl,
				      struct loader_result *r)
{
	struct loader_state *R = calloc(1, sizeof(*R));
	if (!R)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->plan = *pl;
	r->workers = c->workers;
	struct loader *L = &R->L;
	L->cfg = c;
	L->plan = &r->plan;
	L->W = c->workers;
	L->res_rd = L->res_wr = -1;
	L->sq_rd = L->sq_wr = L->slow_rd = L->slow_wr = -1;
	L->be = c->backend == BACKEND_THREAD ? &backend_thread : &backend_process;
	R->r = r;
	r->main_pinned = r->pin_pinned = -1;
	R->pin_bound = -1;
	R->pin = c->pin_memory;
	pthread_mutex_init(&R->pin_lock, NULL);
	pthread_cond_init(&R->pin_cond, NULL);
	R->pin_out[0] = R->pin_out[1] = R->pin_wake[0] = R->pin_wake[1] = -1;
	int nsops;
	transform_span(c->pipe, &L->tf_first, &L->tf_last, &nsops);
	for (int i = 0; i < c->pipe->nops; i++)
		if (c->pipe->op[i].ops->flags & OP_RANDOM)
			L->random = 1;
	/* measured once here, so every process and thread uses the same offset */
	L->wall_off = clock_wall_offset_ns();
	r->trace_cost_ns = loader_trace_cost_ns(100000);
	return R;
}

/* What loader_run changes in the main thread for the run and gives back
 * after it: its CPU placement, its signal handlers; its usage at the start. */
struct main_saved {
	struct rusage ru0;
	cpu_set_t main_cpus;
	int main_restore;          /* main_cpus to set back */
	struct sig_saved old;
	int sigs;                  /* old to restore */
};

/* the main thread (and the GPU in it) after the workers started, so
 * that they do not inherit its placement; the pin thread inherits it
 * until it binds itself */
static void main_thread_place(struct loader_state *R, struct main_saved *ms)
{
	const struct loader_cfg *c = R->L.cfg;
	ms->main_restore = 0;
	if (c->pin_plan) {
		char why[256] = "";
		int saved = !pthread_getaffinity_np(pthread_self(), sizeof(ms->main_cpus),
						    &ms->main_cpus);
		int prc = pin_apply_self(c->pin_plan, ROLE_MAIN, 0, why, sizeof(why));
		if (prc < 0)
			warn_msg("main process: %s", why);
		R->r->main_pinned = prc == 0;
		ms->main_restore = saved && prc == 0;
	}
}

/* Where the main thread reads results from: the workers' pipe, or the pin
 * thread's when pin memory is on (started here; a failure stops the run). */
static void pin_thread_start(struct loader_state *R)
{
	R->data_fd = R->L.res_rd;
	if (R->pin) {
		/* the pin thread must not take the main thread's signals */
		sigset_t all, prev;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &prev);
		int rc = pthread_create(&R->pin_thr, NULL, pin_main, R);
		pthread_sigmask(SIG_SETMASK, &prev, NULL);
		if (rc)
			set_stop(R, EXIT_FAIL, "cannot start the pin memory thread: %s", strerror(rc));
		else
			R->pin_started = 1;
		R->data_fd = R->pin_out[0];
	}
}

/* stop: tell the workers (end of their index queues), then reap; the
 * exit code and reason; the main thread as it was. Returns the backend's
 * "unclean" (a worker did not end well). */
static int run_stop(struct loader_state *R, int rc, struct main_saved *ms)
{
	struct loader *L = &R->L;
	struct loader_result *r = R->r;
	if (rc)
		atomic_store(&L->sh->stop, 1);
	close_index_pipes(L);
	pin_stop(R);
	int unclean = L->be->stop(L, !rc, r->worker_cpu_s, r->worker_maxrss_kib);
	if (rc && !L->stop_code)
		set_stop(R, EXIT_FAIL, "stopped");
	r->exit_code = L->stop_code;
	snprintf(r->stop_reason, sizeof(r->stop_reason), "%s", L->stop_reason);
	if (ms->main_restore)
		pthread_setaffinity_np(pthread_self(), sizeof(ms->main_cpus), &ms->main_cpus);
	if (L->cfg->pin_plan && R->pin)
		r->pin_pinned = R->pin_bound;
	if (ms->sigs)
		signals_restore(&ms->old);
	return unclean;
}

/* The run's figures from the GPU, the main process's usage since ru0 and
 * the workers' shared counters. */
static void run_gather(struct loader_state *R, const struct rusage *ru0)
{
	struct loader *L = &R->L;
	struct loader_result *r = R->r;
	const struct loader_cfg *c = L->cfg;
	struct rusage ru;
	r->timeout_ns = atomic_load(&L->sh->timeout_ns);
	r->gpu_busy_ns = R->gpu.busy_ns;
	r->gpu_idle_ns = R->gpu.idle_ns;
	r->gpu_copy_ns = R->gpu.copy_ns;
	r->gpu_model_ns = R->gpu.model_ns;
	r->main_harness_ns = R->main_harness_ns;
	r->pin_harness_ns = R->pin_harness_ns;
	r->pin_copy_ns = R->pin_copy_ns;
	r->pin_copy_cpu_ns = R->pin_copy_cpu_ns;
	/* the main process during the run (its threads, and thread workers) */
	getrusage(RUSAGE_SELF, &ru);
	r->main_cpu_s = tv_s(ru.ru_utime) + tv_s(ru.ru_stime) - tv_s(ru0->ru_utime) - tv_s(ru0->ru_stime);
	r->main_maxrss_kib = ru.ru_maxrss;
	r->main_use.sys_s = tv_s(ru.ru_stime) - tv_s(ru0->ru_stime);
	r->main_use.faults = (uint64_t)(ru.ru_minflt - ru0->ru_minflt + ru.ru_majflt - ru0->ru_majflt);
	if (c->backend == BACKEND_THREAD) {
		for (int w = 0; w < L->W; w++) {
			const struct proc_use *u = &L->sh->w[w].use[USE_END];
			r->main_cpu_s -= r->worker_cpu_s[w];
			r->main_use.sys_s -= u->sys_s;
			r->main_use.faults -= u->faults < r->main_use.faults ? u->faults : r->main_use.faults;
		}
		free(r->worker_maxrss_kib);
		r->worker_maxrss_kib = NULL;
	}
	r->main_use.cpu_s = r->main_cpu_s;
	for (int w = 0; w < L->W; w++) {
		const struct worker_shared *ws = &L->sh->w[w];
		r->hash_ns += ws->hash_ns;
		r->hash_bytes += ws->hash_bytes;
		r->worker_loop_ns += ws->loop_ns;
		r->worker_ops_ns += ws->ops_ns;
		r->samples_done += ws->samples;
		r->fused_regions += ws->fused_regions;
		r->fused_full += ws->fused_full;
		r->worker_pinned[w] = c->pin_plan ? ws->pinned : -1;
		if (r->cacc && ws->counted == 1) {
			r->workers_counted++;
			for (int i = 0; i < PIPE_MAX_OPS; i++) {
				counters_acc_add(&r->cacc[i], &ws->cacc[i]);
				counters_acc_add(&r->cacc_first[i], &ws->cacc_first[i]);
			}
		}
		if (ws->use_ok == (1 << USE_N) - 1) {
			r->wuse_workers++;
			for (int k = 0; k < USE_N; k++) {
				r->wuse[k].cpu_s += ws->use[k].cpu_s;
				r->wuse[k].sys_s += ws->use[k].sys_s;
				r->wuse[k].faults += ws->use[k].faults;
				r->wuse[k].samples += ws->use[k].samples;
				r->wuse[k].batches += ws->use[k].batches;
			}
		}
	}
}

int loader_run(const struct loader_cfg *c, const struct loader_plan *pl, struct loader_result *r,
	       char *err, size_t errlen)
{
	struct loader_state *R = state_new(c, pl, r);
	if (!R) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct loader *L = &R->L;
	if (setup(R, err, errlen)) {
		state_free(R);
		loader_result_free(r);
		return -1;
	}

	struct main_saved ms;
	getrusage(RUSAGE_SELF, &ms.ru0);
	uint64_t start = clock_now_ns();
	r->start_ns = start + (uint64_t)L->wall_off;
	if (L->be->start(L, err, errlen)) {
		L->be->stop(L, 0, r->worker_cpu_s, r->worker_maxrss_kib);
		state_free(R);
		loader_result_free(r);
		return -1;
	}
	L->be->after_start(L);
	main_thread_place(R, &ms);
	ms.sigs = !signals_install(&ms.old);
	if (!ms.sigs)
		warn_msg("cannot install signal handlers: %s", strerror(errno));
	pin_thread_start(R);
	/* the GPU waits for data from the start, workers' start-up included */
	gpu_init(&R->gpu, c->gpu_step_ns, c->h2d_bytes_per_s, start);

	int rc = L->stop_code ? -1 : run_epochs(R);
	uint64_t end = clock_now_ns();
	r->end_ns = end + (uint64_t)L->wall_off;
	if (R->mark && end > R->mark)
		R->main_harness_ns += end - R->mark;
	r->complete = !rc && r->batches == r->nbatches;

	int unclean = run_stop(R, rc, &ms);
	run_gather(R, &ms.ru0);
	collect_errors(R);
	int mrc = merge_trace(R, unclean || rc);
	r->shm = L->sh;
	r->shm_bytes = L->sh_bytes;
	L->sh = NULL;
	state_free(R);
	if (mrc) {
		loader_result_free(r);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void loader_result_free(struct loader_result *r)
{
	for (size_t i = 0; i < r->trace.nprocs; i++)
		if (r->trace.procs[i].role != ROLE_WORKER)
			free(r->trace.procs[i].ev);
	free(r->trace.procs);
	free(r->b);
	free(r->yield_order);
	free(r->worker_cpu_s);
	free(r->worker_maxrss_kib);
	free(r->worker_pinned);
	free(r->cacc);
	free(r->cacc_first);
	for (size_t i = 0; i < r->nerrors; i++) {
		free(r->err_path[i]);
		free(r->err_reason[i]);
	}
	free(r->err_path);
	free(r->err_reason);
	if (r->shm && r->shm_bytes)
		munmap(r->shm, r->shm_bytes);
	memset(r, 0, sizeof(*r));
}

/* ---- names of the enums' values (loader.h: *_CHOICES in the same order) */

const char *const loader_backend_names[BACKEND_THREAD + 1] = {
	[BACKEND_PROCESS] = "process", [BACKEND_THREAD] = "thread" };
const char *const loader_order_names[ORDER_ARRIVAL + 1] = {
	[ORDER_INORDER] = "inorder", [ORDER_ARRIVAL] = "arrival" };
const char *const loader_rng_names[RNG_TORCH + 1] = {
	[RNG_PER_SAMPLE] = "per-sample", [RNG_TORCH] = "torch" };
const char *const loader_policy_names[POLICY_SPEEDY + 1] = {
	[POLICY_TORCH] = "torch", [POLICY_SHARED_QUEUE] = "shared-queue", [POLICY_SPEEDY] = "speedy" };
