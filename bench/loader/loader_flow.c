/* The DataLoader protocol's per-batch loop in the main process (spec
 * 2.3-2.6, 2.9, 2.13): dispatch, receive, the reorder buffer, the consumer,
 * faults. The names follow PyTorch's: send (send_idx), rcvd (rcvd_idx),
 * outstanding (tasks_outstanding). The loop and its helpers are in this one
 * file so that the compiler inlines them. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "escape.h"
#include "exitcode.h"
#include "imagefolder.h"
#include "loader_int.h"
#include "log.h"
#include "pipeline.h"

#define POLL_MS 200           /* worker deaths are looked for at least this often */

static void drain(int fd)
{
	char buf[64];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

int loader_read_msg(int fd, struct result_msg *m)
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

int loader_write_all(int fd, const void *p, size_t n)
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

void loader_set_stop(struct loader_state *R, int code, const char *fmt, ...)
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
	if (loader_sig_stop) {
		loader_set_stop(R, 128 + loader_sig_stop, "interrupted by %s", loader_sig_stop == SIGINT ? "SIGINT"
			 : loader_sig_stop == SIGHUP ? "SIGHUP" : "SIGTERM");
		return 1;
	}
	return 0;
}

int loader_check_now(void *arg)
{
	struct loader_state *R = arg;
	loader_sig_attention = 0;
	if (loader_sig_pipe[0] >= 0)
		drain(loader_sig_pipe[0]);
	if (must_stop(R))
		return 1;
	return R->L.be->check(&R->L);
}

/* A message names a batch in flight, a slot and a worker that exist. */
int loader_msg_ok(const struct loader *L, const struct result_msg *m)
{
	return m->batch >= 0 && (size_t)m->batch < L->sched.nbatches &&
	       m->slot < (uint32_t)L->plan->nslots && m->worker >= 0 && m->worker < L->W &&
	       m->bytes <= L->plan->slot_bytes && m->pinned < L->plan->npinned;
}

/* Take a buffer from the pool (-1: none free; with wait, wait for one
 * unless the pin thread is told to stop). */
int loader_pool_take(struct loader_state *R, int wait)
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

void loader_pool_give(struct loader_state *R, uint32_t b)
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
			loader_set_stop(R, EXIT_FAIL, "no batch from the workers in %.3g s (--timeout, as "
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
		struct pollfd pf[2] = { { R->data_fd, POLLIN, 0 }, { loader_sig_pipe[0], POLLIN, 0 } };
		int n = poll(pf, 2, POLL_MS);
		if (n < 0 && errno != EINTR) {
			loader_set_stop(R, EXIT_FAIL, "cannot wait for the workers: %s", strerror(errno));
			return -1;
		}
		if (n <= 0 || (pf[1].revents & POLLIN)) {
			if (loader_check_now(R))
				return -1;
			continue;
		}
		if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		int rc = loader_read_msg(R->data_fd, m);
		if (!rc && !loader_msg_ok(&R->L, m)) {
			loader_set_stop(R, EXIT_FAIL, "internal error: a bad result message (batch %" PRId64
				 ", slot %u, worker %d)", m->batch, m->slot, m->worker);
			return -1;
		}
		if (!rc)
			return 0;
		if (!loader_check_now(R))
			loader_set_stop(R, EXIT_WORKER, "the result queue closed: %s",
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
		if (loader_write_all(fd, &m, sizeof(m))) {
			if (!loader_check_now(R))
				loader_set_stop(R, EXIT_WORKER, "cannot send a sample to the workers: %s",
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
	int got = loader_pool_take(R, 0);
	if (got < 0) {
		loader_set_stop(R, EXIT_FAIL, "internal error: no free batch buffer for batch %" PRId64, id);
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
	} else if (loader_write_all(L->idx_wr[w], &t, sizeof(t))) {
		if (!loader_check_now(R))
			loader_set_stop(R, EXIT_WORKER, "cannot send batch %" PRId64 " to worker %d: %s", id, w,
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
		loader_pool_give(R, m->slot);
	else if (m->pinned >= 0)
		loader_pool_give(R, (uint32_t)m->pinned);
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
		loader_set_stop(R, EXIT_FAIL, "batch %" PRId64 " failed in worker %d", id, m->worker);
		return;
	}
	const char *op = e->op >= 0 ? c->pipe->op[e->op].ops->name : "?";
	if (e->index >= 0) {
		char path[1100];
		bytes_escape(c->data->items[e->index].path, path, sizeof(path));   /* one line */
		if (e->oom)
			loader_set_stop(R, EXIT_FAIL, "worker %d ran out of memory on '%s' (op %s: %s): the "
				 "run failed, the file is not bad (lower --batch, --workers or "
				 "--prefetch-factor, or free memory)", e->worker, path, op, e->reason);
		else
			loader_set_stop(R, EXIT_FAIL, "cannot process '%s' (op %s, in worker %d): %s",
				 path, op, e->worker, e->reason);
	} else {
		loader_set_stop(R, EXIT_FAIL, "cannot collate batch %" PRId64 " (op %s, in worker %d): %s",
			 id, op, e->worker, e->reason);
	}
}

int loader_run_epochs(struct loader_state *R)
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
					     &loader_sig_attention, loader_check_now, R);
			R->mark = R->gpu.last_end;
			if (c->dump_dir && (uint64_t)b->yield_pos < c->dump_batches)
				loader_dump_batch(R, id);
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
