/* Workers as forked processes (PyTorch's default on Linux). The shared area
 * and the slots are MAP_SHARED | MAP_ANONYMOUS mappings made before the
 * fork: nothing has a name, so nothing can be left behind in /dev/shm, even
 * after SIGKILL. A worker dies with its parent (PR_SET_PDEATHSIG), ignores
 * SIGINT and SIGHUP (the main process stops it), and leaves through _exit. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "backend.h"

struct proc_priv {
	pid_t *pid;             /* [W]; 0 once reaped */
	int *status;            /* wait status once reaped */
	struct rusage *ru;      /* [W] */
	int *reaped;
};

static void child(struct loader *L, int w)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);   /* the main process stops the workers */
	sa.sa_handler = SIG_DFL;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	for (int i = 0; i < L->W; i++) {
		if (L->idx_wr[i] >= 0)
			close(L->idx_wr[i]);
		if (i != w && L->idx_rd[i] >= 0)
			close(L->idx_rd[i]);
	}
	close(L->res_rd);
	/* policies: the main process alone writes samples (end of file ends them) */
	if (L->sq_wr >= 0)
		close(L->sq_wr);
	if (L->slow_wr >= 0)
		close(L->slow_wr);
	L->sh->w[w].pid = getpid();
	/* the policy area: small, and every worker writes it (the slots are
	 * populated as each worker first meets one: worker.c slot_ready) */
	loader_populate(L->pol, L->pol_bytes);
	worker_loop(L, w);
	_exit(0);
}

static int proc_start(struct loader *L, char *err, size_t errlen)
{
	struct proc_priv *p = calloc(1, sizeof(*p));
	if (!p)
		goto oom;
	L->be_priv = p;
	p->pid = calloc((size_t)L->W, sizeof(*p->pid));
	p->status = calloc((size_t)L->W, sizeof(*p->status));
	p->ru = calloc((size_t)L->W, sizeof(*p->ru));
	p->reaped = calloc((size_t)L->W, sizeof(*p->reaped));
	if (!p->pid || !p->status || !p->ru || !p->reaped)
		goto oom;
	pid_t self = getpid();
	/* nothing buffered may be written twice */
	fflush(NULL);
	for (int w = 0; w < L->W; w++) {
		pid_t pid = fork();
		if (pid < 0) {
			snprintf(err, errlen, "cannot start worker %d: fork: %s", w, strerror(errno));
			return -1;
		}
		if (pid == 0) {
			/* the parent may have died between fork and prctl */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(1);
			child(L, w);
		}
		p->pid[w] = pid;
		L->sh->w[w].pid = pid;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static void proc_after_start(struct loader *L)
{
	/* the main process reads results and writes tasks: with its copy of the
	 * result pipe's write end closed, the pipe ends when every worker has */
	close(L->res_wr);
	L->res_wr = -1;
	for (int w = 0; w < L->W; w++) {
		close(L->idx_rd[w]);
		L->idx_rd[w] = -1;
	}
}

static const char *signame(int sig)
{
	const char *a = sigabbrev_np(sig);
	static __thread char buf[32];
	snprintf(buf, sizeof(buf), "SIG%s", a ? a : "?");
	return buf;
}

/* Reap worker w if it has ended. 1 if it has. */
static int reap(struct proc_priv *p, int w, int block)
{
	if (!p->pid[w] || p->reaped[w])
		return p->reaped[w];
	for (;;) {
		pid_t r = wait4(p->pid[w], &p->status[w], block ? 0 : WNOHANG, &p->ru[w]);
		if (r == p->pid[w]) {
			p->reaped[w] = 1;
			return 1;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			/* not our child any more (someone reaped it): count it gone */
			p->reaped[w] = 1;
			p->status[w] = 0;
			return 1;
		}
		return 0;
	}
}

static int proc_check(struct loader *L)
{
	struct proc_priv *p = L->be_priv;
	for (int w = 0; w < L->W; w++) {
		if (p->reaped[w] || !reap(p, w, 0))
			continue;
		int st = p->status[w];
		L->stop_code = 3;
		if (WIFSIGNALED(st))
			snprintf(L->stop_reason, sizeof(L->stop_reason),
				 "worker %d (pid %d) was killed by signal %d (%s)", w, (int)p->pid[w],
				 WTERMSIG(st), signame(WTERMSIG(st)));
		else
			snprintf(L->stop_reason, sizeof(L->stop_reason),
				 "worker %d (pid %d) exited unexpectedly with status %d", w,
				 (int)p->pid[w], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 1;
	}
	return 0;
}

static int proc_stop(struct loader *L, int graceful, double *cpu_s, long *maxrss_kib)
{
	struct proc_priv *p = L->be_priv;
	if (!p || !p->pid)
		return 0;
	if (graceful) {
		/* they saw the end of their index queue: give them 5 s */
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		for (int i = 0; i < 1000; i++) {
			int alive = 0;
			for (int w = 0; w < L->W; w++)
				alive += !reap(p, w, 0);
			if (!alive)
				break;
			nanosleep(&ts, NULL);
		}
	}
	for (int w = 0; w < L->W; w++)
		if (p->pid[w] && !p->reaped[w])
			kill(p->pid[w], SIGKILL);
	int unclean = 0;
	for (int w = 0; w < L->W; w++) {
		if (!p->pid[w])
			continue;
		reap(p, w, 1);
		int st = p->status[w];
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			unclean++;
		cpu_s[w] = (double)p->ru[w].ru_utime.tv_sec + p->ru[w].ru_utime.tv_usec / 1e6 +
			   (double)p->ru[w].ru_stime.tv_sec + p->ru[w].ru_stime.tv_usec / 1e6;
		if (maxrss_kib)
			maxrss_kib[w] = p->ru[w].ru_maxrss;
	}
	free(p->pid);
	free(p->status);
	free(p->ru);
	free(p->reaped);
	p->pid = NULL;
	return unclean;
}

const struct backend_ops backend_process = {
	.name = "process",
	.start = proc_start,
	.after_start = proc_after_start,
	.check = proc_check,
	.stop = proc_stop,
};
