/* The loader: a worker pool that follows PyTorch's DataLoader protocol
 * (spec section 2), feeding a simulated GPU in the main thread.
 *
 *  - W workers (processes or threads), one index queue each (a pipe), all
 *    writing to one result queue (a pipe). A task is (batch id, slot, offset
 *    and count of its sample indices in the schedule); a result is (batch id,
 *    slot, worker, status, ...). Collated batches live in shared-memory
 *    slots: only the slot id travels, as PyTorch passes shared tensors.
 *  - Dispatch: P x W tasks are sent at the start of an epoch, task k to
 *    worker k mod W; then exactly one per batch handed to the consumer.
 *  - --order inorder: batches are handed over strictly by id; early
 *    arrivals wait in a reorder buffer (head-of-line blocking). arrival:
 *    handed over as they come (PyTorch 2.6 in_order=False).
 *  - Pin memory: a pin thread copies each batch, in arrival order, into a
 *    page-locked buffer before the reorder step, and frees its slot.
 *
 * Batch buffers, as PyTorch 1.13 holds them (docs/protocol.md): one pool
 * in shared memory. A batch holds one buffer at a time: its slot from
 * dispatch until the pin thread has copied it into a second buffer of the
 * pool (the pinned copy; the slot goes back to the pool before the copy is
 * handed on, as _pin_memory_loop drops the shared tensor), or until the
 * consumer is done with it (pin memory off). At most P x W tasks are
 * dispatched and not yet handed over and one batch is being consumed, so
 * the pool holds P x W + 1 buffers (off) or P x W + 2 (on: one more for the
 * copy in progress), never runs out, and no buffer is reused while it is
 * read. With pin memory the whole pool is mlock-ed. Fewer batches than
 * P x W in the run: the pool is sized from the batches that exist.
 *
 * Events (trace.h) are recorded in preallocated buffers: per worker in
 * shared memory, and for the main thread, the pin thread and the GPU. */
#ifndef PPBENCH_LOADER_H
#define PPBENCH_LOADER_H

#include <stddef.h>
#include <stdint.h>
#include "trace.h"

struct pipeline;
struct dataset;
struct counter_spec;
struct counter_acc;
struct pin_plan;

enum loader_backend { BACKEND_PROCESS, BACKEND_THREAD };
enum loader_order { ORDER_INORDER, ORDER_ARRIVAL };
enum loader_rng { RNG_PER_SAMPLE, RNG_TORCH };
enum loader_on_error { ON_ERROR_SKIP, ON_ERROR_FAIL };
/* torch: batches as tasks, one worker each (above). shared-queue: workers
 * take SAMPLES from one shared pipe, and a finished sample takes the next
 * free position of the batches in schedule order (completion order): the
 * worker that writes a batch's last position collates it from the batch
 * slot's staging area (B samples per slot, so in-flight memory stays
 * P x W batches) and sends it; batches are handed over as they arrive.
 * speedy: shared-queue, plus a warm-up that measures per-sample time; a
 * sample slower than the timeout (percentile speedy_timeout_pct of the
 * warm-up) is finished where it runs (no cancellation in C) and, from the
 * next epoch on, is sent to a slow lane served first by worker W - 1 (the
 * background worker) while the others take the fast lane. */
enum loader_policy { POLICY_TORCH, POLICY_SHARED_QUEUE, POLICY_SPEEDY };
/* The names of the values of each enum above, in its order, for the options
 * (OPT_ENUM choices: the field holds the enum value) and for the results
 * (summary.json's words): loader.c's arrays list the same words by enum name. */
#define BACKEND_CHOICES "process|thread"
#define ORDER_CHOICES "inorder|arrival"
#define RNG_CHOICES "per-sample|torch"
#define ON_ERROR_CHOICES "skip|fail"
#define POLICY_CHOICES "torch|shared-queue|speedy"
extern const char *const loader_backend_names[BACKEND_THREAD + 1];
extern const char *const loader_order_names[ORDER_ARRIVAL + 1];
extern const char *const loader_rng_names[RNG_TORCH + 1];
extern const char *const loader_policy_names[POLICY_SPEEDY + 1];
/* The caching ladder (ppbench bottleneck): CACHE_NONE runs the pipeline;
 * CACHE_SAMPLE: each worker processes one sample once and collates it in
 * every position of every batch (collate + protocol + copy + step remain;
 * torch policy only). */
enum loader_cache { CACHE_NONE, CACHE_SAMPLE };

struct loader_cfg {
	const struct pipeline *pipe;   /* borrowed */
	const struct dataset *data;    /* borrowed: paths and labels */
	int workers, batch_size, prefetch_factor;  /* W, B, P (all >= 1) */
	int epochs;
	uint64_t max_batches;          /* 0: every batch of every epoch */
	int shuffle, drop_last;
	uint64_t seed;
	enum loader_backend backend;
	enum loader_order order;
	enum loader_rng rng;
	enum loader_on_error on_error;
	enum loader_policy policy;
	double speedy_timeout_pct;     /* speedy: the timeout's percentile (0: 75) */
	enum loader_cache cache;
	int pin_memory;
	int trace;                     /* 1: per-sample and per-op events too */
	int checksum;                  /* 1: hash every sample (checksum.h); 0: checksum stays 0 */
	uint64_t trace_capacity;       /* events per worker buffer; 0: what the run needs */
	uint64_t max_pixels;           /* decode refuses larger images; 0: no limit */
	uint64_t max_file_bytes;       /* decode refuses larger files; 0: no limit */
	uint64_t gpu_step_ns;          /* simulated step per batch */
	double h2d_bytes_per_s;        /* simulated copy bandwidth; 0: no copy */
	/* PyTorch's DataLoader(timeout=): the run fails when no batch comes
	 * from the workers for this long (0: it waits for ever, as PyTorch) */
	uint64_t data_timeout_ns;
	/* a warning, naming any stopped worker, each this long without a
	 * batch (0: none) */
	uint64_t stall_notice_ns;
	/* The first dump_batches batches handed over are written to dump_dir
	 * as batch_<id>.npy (float32 [n, 3, h, w]) and labels_<id>.npy
	 * (float32 [n]), after their step. For fidelity checks (compare): the
	 * writes fall inside the run's wall time. 0 / NULL: none. */
	uint64_t dump_batches;
	const char *dump_dir;
	/* Called in the main thread after each consumed batch (NULL: none). */
	void (*progress)(void *arg, uint64_t batches, uint64_t total, uint64_t images);
	void *progress_arg;
	/* Counters around each op (counters.h): a probed spec, borrowed; each
	 * worker opens its own group for itself (process or thread). NULL or
	 * no event: ops are not counted. */
	const struct counter_spec *counters;
	/* Where the workers, the main thread (and the simulated GPU in it) and
	 * the pin thread run (topology.h), borrowed. NULL: nobody is bound.
	 * The main thread is bound after the workers start and gets its
	 * previous placement back at the end. */
	const struct pin_plan *pin_plan;
};

/* What a run needs, computed before it starts. */
struct loader_plan {
	int sample_h, sample_w;        /* output size of one sample (probed); 0: no image */
	size_t slot_bytes;             /* one batch as the batch op collates it (page-rounded) */
	int nslots;                    /* batch buffers in the pool (slots and pinned copies) */
	int npinned;                   /* of them locked for pinned copies: nslots, or 0 (pin off) */
	size_t batch_max;              /* the largest batch that exists: min(B, images) */
	int torch_buffers;             /* batch buffers PyTorch 1.13 holds at most (= nslots) */
	uint64_t batch_bytes;          /* nslots x slot_bytes */
	uint64_t trace_bytes;          /* trace buffers */
	uint64_t sample_bytes;         /* samples held by the workers before collation */
	size_t stage_bytes;            /* policies: one sample's output bytes (0: no image) */
	uint64_t trace_events;         /* per worker buffer */
	uint64_t need_bytes;           /* slots + pinned + trace buffers + workers' sample buffers */
	uint64_t avail_bytes;          /* MemAvailable (or the cgroup's limit, if lower) */
};

/* Probe the output size (runs the pipeline's shape-changing ops on the first
 * sample that works), size the slots, pinned buffers and trace buffers, and
 * compare with the memory available. 0, or -1 with err: a probe that fails,
 * or a refusal with the figures and what to lower. */
int loader_plan(const struct loader_cfg *c, struct loader_plan *p, char *err, size_t errlen);

/* A size as ppbench prints sizes: "1.5 GiB", "588.0 MiB", "12.0 KiB". */
void loader_human_bytes(uint64_t b, char *out, size_t n);

/* What a process or thread had used at one moment (getrusage). */
struct proc_use {
	double cpu_s;              /* user + system */
	double sys_s;              /* system */
	uint64_t faults;           /* page faults, minor + major */
	uint64_t samples;          /* a worker's samples through every op by then */
	uint64_t batches;          /* a worker's batches by then */
};
/* A worker's three reads: its loop's start, the end of its first batch
 * (its buffers grown: what comes after is its steady state), its loop's end. */
enum { USE_START, USE_FIRST, USE_END, USE_N };

/* u's times and faults now: who is RUSAGE_SELF or RUSAGE_THREAD (samples and
 * batches untouched). 0, or -1 when getrusage failed. */
int proc_use_now(struct proc_use *u, int who);

/* One batch as the main process saw it. Times: wall-clock ns, 0 = never. */
struct loader_batch {
	int worker;                /* the worker it was sent to, -1: not sent */
	uint32_t n, nskipped;      /* samples collated, samples left out */
	int status;                /* enum result_status of backend.h */
	uint64_t checksum;         /* sum of its samples' hashes */
	uint64_t bytes;            /* collated bytes */
	uint64_t queued, started, finished, arrived, consumed;
	uint64_t wait_ns;          /* in-order wait for it (0: served from the reorder buffer) */
	uint32_t moved;            /* policies: its samples that the schedule put in another batch */
	uint32_t inflight;         /* dispatched - handed over, right after its dispatch */
	int64_t yield_pos;         /* position in the order batches were handed over, -1 */
};

struct loader_result {
	int complete;              /* every scheduled batch was consumed */
	int exit_code;             /* 0, 1 (data error, --on-error fail), 3 (a worker died),
				      128 + signal (SIGINT, SIGTERM) */
	char stop_reason[512];
	struct trace trace;        /* procs: main, workers 0..W-1, pin (if on), gpu */
	uint64_t start_ns, end_ns; /* wall-clock ns: workers started .. last step done */
	uint64_t images, batches, checksum;    /* consumed */
	uint64_t samples_moved;    /* consumed samples in another batch than the schedule's */
	uint64_t slow_lane;        /* speedy: samples sent to the slow lane */
	uint64_t timeout_ns;       /* speedy: the timeout (0: never set) */
	size_t nbatches;           /* scheduled */
	struct loader_batch *b;    /* [nbatches] */
	int64_t *yield_order;      /* batch ids in the order handed over [batches] */
	uint32_t max_inflight;
	int workers;
	double *worker_cpu_s;      /* [workers] user + sys */
	long *worker_maxrss_kib;   /* [workers]; NULL for threads */
	double main_cpu_s;         /* main process (without thread workers) */
	/* the main process's CPU (user + sys) outside the loop: setting the
	 * run up (mapping, populating and locking the batch slots, the
	 * shared area) and tearing it down (unmapping them); NaN: not read */
	double main_setup_cpu_s, main_teardown_cpu_s;
	long main_maxrss_kib;
	uint64_t gpu_busy_ns, gpu_idle_ns, gpu_copy_ns;
	uint64_t gpu_model_ns;     /* what its copies and steps should have taken */
	uint64_t nskipped;         /* samples left out (--on-error skip) */
	size_t nerrors;            /* listed in err_path/err_reason */
	char **err_path, **err_reason;
	double trace_cost_ns;      /* one trace_add, measured at start-up */
	uint64_t hash_ns, hash_bytes;  /* checksum cost, summed over workers */
	/* The harness's cost beside the pipeline's (ns). Workers: the wall
	 * time of their tasks (a batch span and its result sent; policies: a
	 * sample from its message to staged) and the op spans in them. Main
	 * process: its loop's time outside the waits for batches and the
	 * simulated GPU (reorder, dispatch, events, releasing buffers, the
	 * pin thread's queue and pool handling), from the first dispatch to
	 * the end; start-up (starting the workers) is not in it. The pin
	 * copy itself is modelled work (what PyTorch's pin thread does), apart. */
	uint64_t worker_loop_ns, worker_ops_ns;
	uint64_t main_harness_ns, pin_harness_ns, pin_copy_ns;
	uint64_t pin_copy_cpu_ns;  /* the pin copies' CPU time (the thread's CPU clock) */
	/* The workers' own reads of their usage (struct proc_use, USE_*),
	 * summed over the workers that made all three (wuse_workers); the
	 * main process's usage over the run (its own threads only). */
	struct proc_use wuse[USE_N];
	int wuse_workers;
	struct proc_use main_use;
	uint64_t trace_dropped;
	int pin_locked;            /* pinned buffers are mlock-ed: 1, 0 (mlock failed), -1 (no pin) */
	int buffers_peak;          /* most batch buffers of the pool in use at once */
	/* Counters (cfg->counters): sums over all workers by pipeline op index
	 * [PIPE_MAX_OPS], NULL when off; workers whose group opened. */
	struct counter_acc *cacc;
	struct counter_acc *cacc_first;   /* the same sums at the end of each worker's first batch */
	struct counter_acc *cacc_epoch;   /* and when each took its first task of a later epoch
					     (a worker that had none: its sums at the end) */
	int workers_counted;
	uint64_t samples_done;     /* samples through every op, in all workers */
	uint64_t fused_regions, fused_full; /* decode_random_resized_crop: by region, in full */
	/* Pinning (cfg->pin_plan): 1 bound, 0 not bound (the plan leaves it, or
	 * binding failed: warned), -1 unknown (never started, or no plan). */
	int *worker_pinned;        /* [workers] */
	int main_pinned, pin_pinned;
	struct loader_plan plan;
	void *shm;                 /* owned: the shared area holding the workers' events */
	size_t shm_bytes;
};

/* Run a configuration to the end, or until a worker dies, a data error
 * stops it (--on-error fail) or SIGINT/SIGTERM arrives: then the others are
 * stopped, and r holds what was recorded with complete = 0. Returns 0 when r
 * is filled (complete or not), -1 with err when the run could not start. */
int loader_run(const struct loader_cfg *c, const struct loader_plan *p, struct loader_result *r,
	       char *err, size_t errlen);
void loader_result_free(struct loader_result *r);

/* Cost of one trace_add (ns), measured over n events. */
double loader_trace_cost_ns(size_t n);

#endif
