/* Inside the loader: the messages, the shared area and how workers exist.
 * loader.c runs the protocol, worker.c the worker loop, backend_process.c
 * and backend_thread.c start, watch and stop the workers. */
#ifndef PPBENCH_BACKEND_H
#define PPBENCH_BACKEND_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "counters.h"
#include "loader.h"
#include "pipeline.h"
#include "sampler.h"
#include "trace.h"

/* main -> worker, on the worker's index pipe. */
struct task_msg {
	int64_t batch;             /* global batch id */
	uint64_t first;            /* offset of its indices in schedule.idx */
	uint32_t n;                /* samples */
	uint32_t slot;             /* where to collate */
	uint32_t epoch;
	uint32_t pad;
};

enum result_status {
	RES_OK = 0,
	RES_DATA_ERROR,            /* a sample failed and --on-error fail */
	RES_BATCH_ERROR,           /* the batch op failed (e.g. samples of different sizes) */
};

/* worker -> main on the result pipe (and pin thread -> main). Fixed size,
 * below PIPE_BUF, so that writes of several workers never interleave. */
struct result_msg {
	int64_t batch;
	uint32_t slot;
	int32_t worker;
	int32_t status;            /* enum result_status */
	int32_t err;               /* error log entry of a failure, or -1 */
	uint32_t n, nskipped;
	uint64_t bytes;            /* collated bytes in the slot */
	uint64_t checksum;
	uint64_t started, finished;/* wall-clock ns of the batch span */
	int32_t pinned;            /* pinned buffer holding the copy, or -1 */
	uint32_t moved;            /* samples of another batch of the schedule (policies) */
};

/* main -> workers (--policy shared-queue|speedy), one sample per message on
 * the shared sample pipe (or speedy's slow pipe); 16 bytes, so one write is
 * atomic and a read of 16 bytes takes one whole message. */
struct sample_msg {
	uint64_t off;              /* offset of its dataset index in schedule.idx */
	uint32_t epoch;
	uint32_t pad;
};

/* One finished sample waiting in its batch's staging area (policies). */
struct stage_meta {
	uint64_t bytes, checksum;
	uint64_t started, finished;/* wall-clock ns */
	int64_t label;
	int32_t kind, h, w;
	int32_t ok;                /* 1: through every op; 0: failed (err); -1: out of memory */
	int32_t err;               /* error log entry, or -1 */
	uint32_t moved;            /* 1: the schedule put it in another batch */
};

#define WARM_CAP 256

/* One failed sample (or batch), reported by a worker. */
#define ERR_LOG_CAP 256
struct err_rec {
	_Atomic int ready;         /* set (release) once the fields are written */
	int worker;
	int op;                    /* pipeline op index, -1: none */
	int64_t batch;
	int64_t index;             /* dataset index, -1 for a batch error */
	int oom;                   /* 1: out of memory (sample.h SAMPLE_OOM): the run fails */
	char reason[256];
};

/* Per worker, in shared memory. */
struct worker_shared {
	struct trace_proc tp;      /* its events (ev points into the shared area) */
	_Atomic uint64_t published;/* tp.n after its last complete batch */
	_Atomic int exited;        /* 1 once the loop returned (threads) */
	int pid;                   /* process id, or thread id */
	uint64_t batches, samples, skipped;
	uint64_t hash_ns, hash_bytes;
	/* the harness's cost beside the pipeline's (worker.c): wall time of
	 * its tasks, from the start of a task's first sample to its result
	 * sent, and the sum of the op spans in them */
	uint64_t loop_ns, ops_ns;
	/* decode_random_resized_crop in this worker: images decoded by region
	 * and in full (fused_fallbacks, since the worker started) */
	uint64_t fused_regions, fused_full;
	double cpu_s;              /* thread backend: RUSAGE_THREAD at exit */
	int pinned;                /* 1 bound as the pin plan says, 0 not, -1 not started */
	int counted;               /* 1 its counter group opened, 0 not, -1 not started */
	/* its counter sums by pipeline op index (cfg->counters; zero otherwise) */
	struct counter_acc cacc[PIPE_MAX_OPS];
	/* its own usage (worker.c: getrusage of its process, or of its thread)
	 * at USE_START, USE_FIRST, USE_END; use_ok: bit k set when read k was
	 * made; and cacc as it was at USE_FIRST */
	struct proc_use use[USE_N];
	int use_ok;
	struct counter_acc cacc_first[PIPE_MAX_OPS];
	/* cacc as it was when it took its first task of a later epoch than the
	 * first (epoch_noted 1; 0: the run had one epoch for it) */
	struct counter_acc cacc_epoch[PIPE_MAX_OPS];
	int epoch_noted;
};

struct shared {
	_Atomic uint32_t nerr;     /* errors reported; entries past ERR_LOG_CAP are not kept */
	_Atomic int stop;          /* thread workers: stop at the next sample */
	struct err_rec err[ERR_LOG_CAP];
	/* policies: completion positions claimed so far in the run (a sample
	 * that finishes takes the next position of the schedule's batches) */
	_Atomic uint64_t claim;
	/* speedy: warm-up durations, then the timeout (0: not known yet) */
	_Atomic uint32_t warm_claimed, warm_done;
	_Atomic uint64_t timeout_ns;
	uint64_t warm_ns[WARM_CAP];
	struct worker_shared w[];  /* [workers] */
};

struct backend_ops;

/* Everything a run shares between the main process and its workers. What
 * is written after the workers start lives in `sh` and the slots (shared
 * memory); the rest is read-only once they run. */
struct loader {
	const struct loader_cfg *cfg;
	const struct loader_plan *plan;
	struct schedule sched;
	int W;
	int64_t wall_off;          /* wall-clock ns - monotonic ns */
	int tf_first, tf_last;     /* the per-sample ops that STransform spans, or -1 */
	int random;                /* some op draws (OP_RANDOM): seed a stream per sample */

	struct shared *sh;         /* shared mapping: control, error log, worker events */
	size_t sh_bytes;
	unsigned char *slots;      /* shared mapping: nslots x slot_bytes */
	size_t slots_bytes;

	int *idx_rd, *idx_wr;      /* [W] index pipes */
	int res_rd, res_wr;        /* result pipe */

	const struct backend_ops *be;
	void *be_priv;

	/* --policy shared-queue|speedy (one shared mapping `pol`) */
	void *pol;
	size_t pol_bytes;
	_Atomic uint32_t *fill;    /* [nbatches] positions of the batch written */
	_Atomic uint32_t *slot_of; /* [nbatches] set by main before its samples are sent */
	_Atomic uint32_t *slow;    /* [nsamples] speedy: epoch + 1 from which the sample
				      takes the slow lane, 0: never */
	struct stage_meta *meta;   /* [nslots x B] */
	unsigned char *stage;      /* nslots x B x plan->stage_bytes */
	uint32_t warm_target;      /* speedy: samples measured before the timeout is set */
	int sq_rd, sq_wr;          /* the shared sample pipe */
	int slow_rd, slow_wr;      /* speedy: the slow lane, read by worker W - 1 */

	/* set by a backend when it finds a dead worker */
	int stop_code;
	char stop_reason[512];
};

/* The worker loop: read tasks from idx_rd[wid] until end of file or stop,
 * run each batch, write results to res_wr. Returns when done. */
void worker_loop(struct loader *L, int wid);

/* How workers exist. */
struct backend_ops {
	const char *name;
	/* Start W workers running worker_loop. 0, or -1 with err. */
	int (*start)(struct loader *L, char *err, size_t errlen);
	/* After start, in the main process: close what the main side must not
	 * hold (the result pipe's write end of a process backend). */
	void (*after_start)(struct loader *L);
	/* Look for workers that died: 0 all alive; 1 one died (L->stop_code
	 * and L->stop_reason are set). Never blocks. */
	int (*check)(struct loader *L);
	/* Stop and reap the workers. graceful: they were told to exit (index
	 * pipes closed) and are waited for; otherwise processes are killed and
	 * threads stop at their next sample (sh->stop), and are joined. Fills
	 * cpu and rss figures (maxrss_kib may be NULL). Returns the number of
	 * workers that did not end cleanly (their events are then cut at their
	 * last complete batch). */
	int (*stop)(struct loader *L, int graceful, double *cpu_s, long *maxrss_kib);
};

extern const struct backend_ops backend_process, backend_thread;

/* Maps n bytes at p into this process's page tables without changing a
 * byte. The main process populates the shared buffers (MAP_POPULATE), but a
 * forked worker has page tables of its own. The pages exist, so
 * MADV_POPULATE_READ maps them by read faults, which map up to 16 pages of
 * the page cache each (fault-around), writable, as shared memory needs no
 * dirty tracking: collate then writes them without a fault. A write
 * populate took one fault per page: the workers' start-up at B=512 cost 245
 * us per image then, 110 now (BENCHMARKS.md). Before Linux 5.14, an atomic
 * add of 0 per page. */
void loader_populate(void *p, size_t n);
/* the bytes of slots all workers together populate before their loops; past
 * it each worker populates a slot when it first meets it (worker.c) */
#define LOADER_POPULATE_AT_START (2ull << 30)

#endif
