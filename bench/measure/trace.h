/* Trace events: the one record of what happened in a run.
 *
 * Every process (worker or main) appends fixed-size events to its own
 * preallocated buffer; nothing is formatted, locked or written while a run
 * is measured. After the run the buffers are merged into a `struct trace`,
 * from which analysis.c computes every metric, and which the emitters write
 * as LotusTrace files and a Chrome trace. The PyTorch side of `compare`
 * produces LotusTrace files that read back into the same struct trace, so
 * both systems are measured by the same code. */
#ifndef PPBENCH_TRACE_H
#define PPBENCH_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* What an event is. Op events use EV_OP with `op` = the op's index in the
 * pipeline (its LotusTrace name is the op's lotus_name, e.g. "SLoader"). */
enum ev_kind {
	EV_OP = 1,            /* S<Op>: one sample, one op (worker) */
	EV_TRANSFORM,         /* STransform: all transforms of a sample (worker) */
	EV_COLLATE,           /* SCollation (worker) */
	EV_BATCH_PREPROC,     /* SBatchPreprocessed_<id>: samples + collation (worker) */
	EV_BATCH_QUEUED,      /* SBatchQueued_<id>: task sent to a worker (main), marker */
	EV_BATCH_WAIT,        /* SBatchWait_<id> (main); dur 1000 = arrived out of order */
	EV_BATCH_CONSUMED,    /* SBatchConsumed_<id> (main), marker */
	EV_BATCH_ARRIVED,     /* ppbench: batch taken from the result queue (main), marker */
	EV_BATCH_PINNED,      /* ppbench: pin copy of a batch (pin thread) */
	EV_GPU_COPY,          /* ppbench: simulated host-to-device copy (gpu) */
	EV_GPU_STEP,          /* ppbench: simulated training step (gpu) */
};

#define TRACE_MARKER_NS 1000u   /* LotusTrace: "no duration" */
#define EV_KIND_LAST EV_GPU_STEP

/* The LotusTrace name of an event kind other than EV_OP: "STransform",
 * "SCollation", or a per-batch prefix ("SBatchWait_": the batch id follows,
 * see trace_kind_per_batch); NULL for EV_OP and unknown kinds. */
const char *trace_kind_name(unsigned kind);
/* 1 when the kind's LotusTrace name is followed by a batch id. */
static inline int trace_kind_per_batch(unsigned kind)
{
	return kind >= EV_BATCH_PREPROC && kind <= EV_KIND_LAST;
}

struct trace_ev {
	uint64_t start_ns;    /* wall-clock ns (clock_now_ns() + clock_wall_offset_ns()) */
	uint64_t dur_ns;
	int64_t batch;        /* batch id, or -1 */
	uint32_t sample;      /* position of the sample in its batch, or UINT32_MAX */
	uint16_t kind;        /* enum ev_kind */
	uint16_t op;          /* pipeline op index for EV_OP */
};

/* Where an event happened. */
enum proc_role { ROLE_MAIN, ROLE_WORKER, ROLE_PIN, ROLE_GPU };

struct trace_proc {
	enum proc_role role;
	int id;               /* worker id (ROLE_WORKER), else 0 */
	int pid;              /* pid (process backend) or tid (thread backend) */
	size_t n, cap;
	struct trace_ev *ev;  /* preallocated; appending past cap counts `dropped` */
	uint64_t dropped;
};

/* Append without allocating; counts a drop when full. */
static inline void trace_add(struct trace_proc *p, uint16_t kind, uint16_t op, int64_t batch,
			     uint32_t sample, uint64_t start_ns, uint64_t dur_ns)
{
	if (p->n == p->cap) {
		p->dropped++;
		return;
	}
	struct trace_ev *e = &p->ev[p->n++];
	e->start_ns = start_ns;
	e->dur_ns = dur_ns;
	e->batch = batch;
	e->sample = sample;
	e->kind = kind;
	e->op = op;
}

/* A whole run's events. op_names[i] is the LotusTrace name of op i. */
struct trace {
	size_t nprocs;
	struct trace_proc *procs;
	size_t nops;
	char op_names[16][40];
	char op_ids[16][40];   /* ppbench op names ("decode"), for results keys */
};

#endif
