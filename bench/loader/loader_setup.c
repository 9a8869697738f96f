/* A run's resources: its state, the schedule, the shared memory of the
 * batch buffers and the workers' events, the pipes; and their release. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clock.h"
#include "imagefolder.h"
#include "loader_int.h"
#include "log.h"
#include "pipeline.h"

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

int loader_setup(struct loader_state *R, char *err, size_t errlen)
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
		r->cacc_epoch = calloc(PIPE_MAX_OPS, sizeof(*r->cacc_epoch));
	}
	L->idx_rd = malloc((size_t)W * sizeof(int));
	L->idx_wr = malloc((size_t)W * sizeof(int));
	if (!r->b || !r->yield_order || !R->msg || !R->have || !R->free_slots || !r->worker_cpu_s ||
	    !r->worker_maxrss_kib || !r->worker_pinned || (c->counters && c->counters->n && (!r->cacc || !r->cacc_first || !r->cacc_epoch)) ||
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

void loader_close_index_pipes(struct loader *L)
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

/* The one way out of loader_run: the run's resources, then its state. */
void loader_state_free(struct loader_state *R)
{
	teardown(R);
	free(R->main_tp.ev);
	free(R->pin_tp.ev);
	free(R->gpu_tp.ev);
	free(R);
}

/* A run's state before loader_setup(): the configuration, the plan, the result
 * zeroed, no resource held yet; NULL when out of memory (r untouched). */
struct loader_state *loader_state_new(const struct loader_cfg *c, const struct loader_plan *pl,
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
	loader_transform_span(c->pipe, &L->tf_first, &L->tf_last, &nsops);
	for (int i = 0; i < c->pipe->nops; i++)
		if (c->pipe->op[i].ops->flags & OP_RANDOM)
			L->random = 1;
	/* measured once here, so every process and thread uses the same offset */
	L->wall_off = clock_wall_offset_ns();
	r->trace_cost_ns = loader_trace_cost_ns(100000);
	return R;
}
