/* What the files of the loader (loader.c and loader_*.c) share: the state
 * of one run and the functions one phase calls in another. Private to
 * bench/loader/; loader.h is the interface. */
#ifndef PPBENCH_LOADER_INT_H
#define PPBENCH_LOADER_INT_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/time.h>
#include "backend.h"
#include "consumer.h"

#define PAGE 4096u

static inline size_t page_round(size_t n)
{
	return (n + PAGE - 1) / PAGE * PAGE;
}

static inline double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* ---- signals (loader_signals.c): a self-pipe, so a signal wakes the poll
 * of the main thread */
extern volatile sig_atomic_t loader_sig_attention;  /* any handled signal arrived */
extern volatile sig_atomic_t loader_sig_stop;       /* SIGINT, SIGTERM or SIGHUP, 0 none */
extern int loader_sig_pipe[2];

struct sig_saved {
	struct sigaction intr, term, hup, chld, pipe;
};

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

/* What loader_run changes in the main thread for the run and gives back
 * after it: its CPU placement, its signal handlers; its usage at the start. */
struct main_saved {
	struct rusage ru0;
	cpu_set_t main_cpus;
	int main_restore;          /* main_cpus to set back */
	struct sig_saved old;
	int sigs;                  /* old to restore */
};

/* Handlers installed (the old ones into old): 0, or -1 (errno). */
int loader_signals_install(struct sig_saved *old);
void loader_signals_restore(const struct sig_saved *old);

/* ---- the plan (loader_plan.c) */
/* Per-sample ops, and the span of STransform (loader_plan.c). */
void loader_transform_span(const struct pipeline *p, int *first, int *last, int *nsample_ops);

/* ---- the per-batch loop and its helpers (loader_flow.c) */
int loader_read_msg(int fd, struct result_msg *m);
int loader_write_all(int fd, const void *p, size_t n);
/* The run's first stop reason and exit code (later ones are dropped). */
void loader_set_stop(struct loader_state *R, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Signals, then the backend's check of its workers: 1 when the run must stop. */
int loader_check_now(void *arg);
/* A message names a batch in flight, a slot and a worker that exist. */
int loader_msg_ok(const struct loader *L, const struct result_msg *m);
/* The pool of batch buffers: take one (-1: none; with wait, wait for one
 * unless the pin thread is told to stop), give one back. */
int loader_pool_take(struct loader_state *R, int wait);
void loader_pool_give(struct loader_state *R, uint32_t b);
/* The epochs: dispatch, receive, reorder, consume. 0, or -1 to stop. */
int loader_run_epochs(struct loader_state *R);

/* ---- the pin memory thread and the main thread's placement (loader_pin.c) */
void loader_main_thread_place(struct loader_state *R, struct main_saved *ms);
void loader_pin_thread_start(struct loader_state *R);
void loader_pin_stop(struct loader_state *R);

/* ---- set up and tear down (loader_setup.c) */
struct loader_state *loader_state_new(const struct loader_cfg *c, const struct loader_plan *pl,
				      struct loader_result *r);
int loader_setup(struct loader_state *R, char *err, size_t errlen);
void loader_close_index_pipes(struct loader *L);
void loader_state_free(struct loader_state *R);

/* ---- the results (loader_result.c) */
void loader_run_gather(struct loader_state *R, const struct rusage *ru0);
void loader_collect_errors(struct loader_state *R);
int loader_merge_trace(struct loader_state *R, int unclean);
void loader_dump_batch(struct loader_state *R, int64_t id);

#endif
