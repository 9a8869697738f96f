/* Workers as threads of the main process: the same protocol (pipes, slots,
 * events in the shared area), without the fork. A thread cannot die alone;
 * each one reports its own CPU time (RUSAGE_THREAD) when it ends. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "backend.h"

struct thr_arg {
	struct loader *L;
	int wid;
};

struct thr_priv {
	pthread_t *t;
	struct thr_arg *a;
	int *started;
};

static void *thr_main(void *arg)
{
	struct thr_arg *a = arg;
	struct worker_shared *ws = &a->L->sh->w[a->wid];
	ws->pid = (int)gettid();
	worker_loop(a->L, a->wid);
	struct rusage ru;
	if (!getrusage(RUSAGE_THREAD, &ru))
		ws->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	atomic_store(&ws->exited, 1);
	return NULL;
}

static int thr_start(struct loader *L, char *err, size_t errlen)
{
	struct thr_priv *p = calloc(1, sizeof(*p));
	if (p) {
		p->t = calloc((size_t)L->W, sizeof(*p->t));
		p->a = calloc((size_t)L->W, sizeof(*p->a));
		p->started = calloc((size_t)L->W, sizeof(*p->started));
	}
	L->be_priv = p;
	if (!p || !p->t || !p->a || !p->started) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* signals are for the main thread */
	sigset_t all, prev;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &prev);
	int rc = 0;
	for (int w = 0; w < L->W && !rc; w++) {
		p->a[w].L = L;
		p->a[w].wid = w;
		rc = pthread_create(&p->t[w], NULL, thr_main, &p->a[w]);
		if (rc)
			snprintf(err, errlen, "cannot start worker thread %d: %s", w, strerror(rc));
		else
			p->started[w] = 1;
	}
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	return rc ? -1 : 0;
}

static void thr_after_start(struct loader *L)
{
	(void)L;
}

static int thr_check(struct loader *L)
{
	for (int w = 0; w < L->W; w++)
		if (atomic_load(&L->sh->w[w].exited)) {
			L->stop_code = 3;
			snprintf(L->stop_reason, sizeof(L->stop_reason),
				 "worker thread %d ended unexpectedly", w);
			return 1;
		}
	return 0;
}

static int thr_stop(struct loader *L, int graceful, double *cpu_s, long *maxrss_kib)
{
	struct thr_priv *p = L->be_priv;
	(void)maxrss_kib;
	if (!p || !p->t)
		return 0;
	if (!graceful)
		atomic_store(&L->sh->stop, 1);
	/* the index pipes are closed: idle threads see their end, busy ones
	 * the stop flag at their next sample */
	int unclean = 0;
	for (int w = 0; w < L->W; w++) {
		if (!p->started[w])
			continue;
		pthread_join(p->t[w], NULL);
		cpu_s[w] = L->sh->w[w].cpu_s;
		unclean += !graceful;
	}
	free(p->t);
	free(p->a);
	free(p->started);
	p->t = NULL;
	return unclean;
}

const struct backend_ops backend_thread = {
	.name = "thread",
	.start = thr_start,
	.after_start = thr_after_start,
	.check = thr_check,
	.stop = thr_stop,
};
