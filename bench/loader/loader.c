/* The DataLoader protocol in the main process (spec 2.3-2.6, 2.9, 2.13):
 * dispatch, pin thread, reorder buffer, consumer, faults. The names follow
 * PyTorch's: send (send_idx), rcvd (rcvd_idx), outstanding
 * (tasks_outstanding).
 *
 * This file: loader_run, which goes through the phases in order:
 * loader_signals.c (the handlers), loader_setup.c (state, memory, pipes), the backend's start,
 * loader_pin.c (placement, the pin thread), loader_flow.c (the per-batch
 * loop), the stop, loader_result.c (figures, errors, trace). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "clock.h"
#include "exitcode.h"
#include "loader_int.h"
#include "log.h"

/* stop: tell the workers (end of their index queues), then reap; the
 * exit code and reason; the main thread as it was. Returns the backend's
 * "unclean" (a worker did not end well). */
static int run_stop(struct loader_state *R, int rc, struct main_saved *ms)
{
	struct loader *L = &R->L;
	struct loader_result *r = R->r;
	if (rc)
		atomic_store(&L->sh->stop, 1);
	loader_close_index_pipes(L);
	loader_pin_stop(R);
	int unclean = L->be->stop(L, !rc, r->worker_cpu_s, r->worker_maxrss_kib);
	if (rc && !L->stop_code)
		loader_set_stop(R, EXIT_FAIL, "stopped");
	r->exit_code = L->stop_code;
	snprintf(r->stop_reason, sizeof(r->stop_reason), "%s", L->stop_reason);
	if (ms->main_restore)
		pthread_setaffinity_np(pthread_self(), sizeof(ms->main_cpus), &ms->main_cpus);
	if (L->cfg->pin_plan && R->pin)
		r->pin_pinned = R->pin_bound;
	if (ms->sigs)
		loader_signals_restore(&ms->old);
	return unclean;
}

/* The main process's CPU so far (user + system, all its threads); NaN
 * when it cannot be read. */
static double self_cpu_s(void)
{
	struct proc_use u;
	return proc_use_now(&u, RUSAGE_SELF) ? NAN : u.cpu_s;
}

int loader_run(const struct loader_cfg *c, const struct loader_plan *pl, struct loader_result *r,
	       char *err, size_t errlen)
{
	struct loader_state *R = loader_state_new(c, pl, r);
	if (!R) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct loader *L = &R->L;
	double cpu0 = self_cpu_s();
	if (loader_setup(R, err, errlen)) {
		loader_state_free(R);
		loader_result_free(r);
		return -1;
	}

	struct main_saved ms;
	getrusage(RUSAGE_SELF, &ms.ru0);
	r->main_setup_cpu_s = tv_s(ms.ru0.ru_utime) + tv_s(ms.ru0.ru_stime) - cpu0;
	uint64_t start = clock_now_ns();
	r->start_ns = start + (uint64_t)L->wall_off;
	if (L->be->start(L, err, errlen)) {
		L->be->stop(L, 0, r->worker_cpu_s, r->worker_maxrss_kib);
		loader_state_free(R);
		loader_result_free(r);
		return -1;
	}
	L->be->after_start(L);
	loader_main_thread_place(R, &ms);
	ms.sigs = !loader_signals_install(&ms.old);
	if (!ms.sigs)
		warn_msg("cannot install signal handlers: %s", strerror(errno));
	loader_pin_thread_start(R);
	/* the GPU waits for data from the start, workers' start-up included */
	gpu_init(&R->gpu, c->gpu_step_ns, c->h2d_bytes_per_s, start);

	int rc = L->stop_code ? -1 : loader_run_epochs(R);
	uint64_t end = clock_now_ns();
	r->end_ns = end + (uint64_t)L->wall_off;
	if (R->mark && end > R->mark)
		R->main_harness_ns += end - R->mark;
	r->complete = !rc && r->batches == r->nbatches;

	int unclean = run_stop(R, rc, &ms);
	loader_run_gather(R, &ms.ru0);
	loader_collect_errors(R);
	int mrc = loader_merge_trace(R, unclean || rc);
	r->shm = L->sh;
	r->shm_bytes = L->sh_bytes;
	L->sh = NULL;
	cpu0 = self_cpu_s();
	loader_state_free(R);
	r->main_teardown_cpu_s = self_cpu_s() - cpu0;
	if (mrc) {
		loader_result_free(r);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
