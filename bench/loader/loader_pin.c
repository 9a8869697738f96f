/* The pin memory thread (PyTorch's _pin_memory_loop: each batch copied
 * into a locked buffer before the main thread takes it) and the main
 * thread's placement under --pin. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "exitcode.h"
#include "loader_int.h"
#include "log.h"
#include "topology.h"

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
		if (loader_read_msg(L->res_rd, &m))
			break;
		uint64_t t0 = clock_now_ns(), tc0 = t0, tc1 = t0;
		int ok = loader_msg_ok(L, &m);
		if (m.status == RES_OK && ok) {
			int b = loader_pool_take(R, 1);
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
			loader_pool_give(R, m.slot);
		uint64_t t1 = clock_now_ns();
		trace_add(&R->pin_tp, EV_BATCH_PINNED, 0, m.batch, UINT32_MAX,
			  t0 + (uint64_t)L->wall_off, t1 - t0);
		if (loader_write_all(R->pin_out[1], &m, sizeof(m)))
			break;
		R->pin_copy_ns += tc1 - tc0;
		R->pin_harness_ns += clock_now_ns() - t0 - (tc1 - tc0);
	}
	/* the main thread sees the end of its data queue */
	close(R->pin_out[1]);
	R->pin_out[1] = -1;
	return NULL;
}

void loader_pin_stop(struct loader_state *R)
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

/* the main thread (and the GPU in it) after the workers started, so
 * that they do not inherit its placement; the pin thread inherits it
 * until it binds itself */
void loader_main_thread_place(struct loader_state *R, struct main_saved *ms)
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
void loader_pin_thread_start(struct loader_state *R)
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
			loader_set_stop(R, EXIT_FAIL, "cannot start the pin memory thread: %s", strerror(rc));
		else
			R->pin_started = 1;
		R->data_fd = R->pin_out[0];
	}
}
