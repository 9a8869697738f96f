/* The one analysis module: every metric of a run, computed from its trace
 * events (bench/measure/trace.h) plus the few figures that are not events (wall
 * time of the run, rusage, GPU accounting, checksum). Whatever produced the
 * events (ppbench's loader, or LotusTrace files read back from the PyTorch
 * side of `compare`), the same code turns them into numbers.
 *
 * Definitions follow Lotus (IISWC 2024) and its artifact's scripts
 * (github.com/rajveerb/lotus; docs/metrics.md is the metric table):
 *
 *   E2E            o->end_ns - o->start_ns
 *   images/s       o->images / E2E
 *   per op         count/sum/mean/std/min/p50/p90/p99/max of the op's event
 *                  durations over all workers; span_s = sum of durations
 *                  (the sum of the op's wall spans: what Lotus calls the
 *                  op's "CPU seconds"; the time the op was on a CPU, where
 *                  counters measured it, is oncpu_s); share of events < 10 ms and
 *                  < 100 us (strictly less, Table II). Ops are keyed by
 *                  LotusTrace name: EV_OP events of op i count as
 *                  t->op_names[i]; EV_TRANSFORM as "STransform"; EV_COLLATE
 *                  as "SCollation" (merged with a pipeline op of that Lotus
 *                  name, if any).
 *   batch preproc  durations of EV_BATCH_PREPROC; the low tail below
 *                  q1 - 2 x (q3 - q1) is dropped (Lotus's rule for the short
 *                  last batch), then mean, std (ddof 0), std % of mean,
 *                  p25/p50/p75 and IQR = p75 - p25. Uncut figures are kept
 *                  too (preproc_all).
 *   out of order   share (%) of the batches that arrived before a batch with
 *                  a smaller id: from EV_BATCH_ARRIVED events, the batches
 *                  whose arrival precedes the latest arrival of a smaller id
 *                  (whatever the hand-over order or loader policy); in a
 *                  trace without arrival events (PyTorch's LotusTrace), the
 *                  EV_BATCH_WAIT events whose duration is exactly
 *                  TRACE_MARKER_NS (1000 ns): with in-order hand-over they
 *                  mark exactly those batches. Denominator: the batches
 *                  with an arrival (resp. an SBatchWait record).
 *   stall          sum of the in-order waits (markers excluded: they are
 *                  not waits) / E2E, in %. Lotus's script sums the markers
 *                  too (1 us per out-of-order batch): a negligible difference.
 *   wait           statistics over in-order waits only (markers excluded).
 *                  wait_over_500ms_pct uses Lotus's denominator: ALL batches
 *                  with an SBatchWait record, out-of-order markers included
 *                  (its script divides by every SBatchWait row);
 *                  wait_inorder_over_500ms_pct divides by in-order waits.
 *   delay          start of EV_BATCH_CONSUMED - end of EV_BATCH_PREPROC, for
 *                  every batch that has both; share > 500 ms of those
 *                  batches (Lotus's denominator). Lotus's ad hoc drop of
 *                  delays < 80 ms for b512 is not applied.
 *   harness        per sample handed over, in us of CPU time (user +
 *                  system), from the processes' own usage: the process
 *                  tree's CPU minus the ops' CPU, in parts: the workers'
 *                  start-up and exit (their CPU outside their loops), the
 *                  counter reads (reads x one read's cost, measured at
 *                  start-up), the checksum, the workers' per-task work
 *                  (their loops' CPU minus the ops', the counter reads and
 *                  the checksum: queue put and get, sample set-up and
 *                  seeding, events, buffers), and the main process (its
 *                  CPU minus the pin copy); their sum, per_sample, beside
 *                  the pin copy (apart: PyTorch's pin thread copies too)
 *                  and the pipeline (the ops' CPU: their on-CPU time, of
 *                  which the counters take the reads inside their windows
 *                  off, or, not counted, their spans times the share of
 *                  the workers' task wall time spent on a CPU, as for the
 *                  checksum). NaN when the loader did not read
 *                  its workers' usage (use_workers 0, a PyTorch trace).
 *   faults, sys    page faults (minor + major) and system time per image
 *                  handed over, per process (the workers' own reads; the
 *                  main process's over the run) and, from the counters, per
 *                  op call; "after the first batch": from the end of each
 *                  worker's first batch (its buffers grown) to the end.
 *   GPU            o->gpu_busy_ns / o->gpu_idle_ns when given (non-zero sum);
 *                  otherwise busy = sum of EV_GPU_COPY + EV_GPU_STEP
 *                  durations and idle = E2E - busy. utilization =
 *                  busy / (busy + idle), in %.
 *
 * The worker of a batch is the trace_proc that holds its EV_BATCH_PREPROC
 * event (its `id`). Times in batch rows are ns relative to o->start_ns.
 *
 * Not on any hot path: runs after the measured run, allocates freely. */
#ifndef PPBENCH_ANALYSIS_H
#define PPBENCH_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include "counters.h"
#include "loader.h"
#include "stats.h"
#include "trace.h"

/* What the loader knows that is not an event. Pointers are borrowed for the
 * duration of analysis_compute (everything needed is copied into the
 * metrics). Zeroed fields mean "not known". */
struct analysis_opts {
	uint64_t start_ns, end_ns;     /* E2E window, wall-clock ns (same clock as events) */
	int batch_size;                /* --batch */
	int workers;                   /* --workers */
	int gpus;                      /* --gpus */
	uint64_t images;               /* images handed to the consumer */
	uint64_t batches;              /* batches handed to the consumer (0: count events) */
	const double *worker_cpu_s;    /* [workers]: user + sys seconds (rusage), or NULL */
	const long *worker_maxrss_kib; /* [workers]: ru_maxrss (KiB), or NULL */
	double main_cpu_s;             /* main process (all its threads) user + sys, s */
	/* its CPU setting the run up and tearing it down, outside main_cpu_s
	 * (loader.h); has_setup 0: not known */
	double main_setup_cpu_s, main_teardown_cpu_s;
	int has_setup;
	long main_maxrss_kib;
	uint64_t gpu_busy_ns, gpu_idle_ns;  /* from the consumer; both 0: derive from events */
	uint64_t checksum;             /* of every batch's tensor and labels */
	int complete;                  /* 1: the run finished; 0: stopped early */
	const char *stop_reason;       /* why it is incomplete ("worker 2 killed by SIGKILL"), or NULL */
	uint64_t nskipped;             /* files skipped (--on-error skip) */
	const char *const *skipped;    /* their paths (may hold fewer than nskipped), or NULL */
	const char *const *skipped_reasons;  /* why each was skipped, or NULL */
	size_t nskipped_listed;        /* entries in skipped[] */
	double trace_cost_ns;          /* measured cost of one trace event, ns (0: unknown) */
	/* counters (--counters): per trace op index [t->nops], or NULL */
	const struct counter_derived *op_counted;
	const uint64_t *op_regions;    /* regions counted per op (0: not counted) */
	/* the harness and the loader policy (not events) */
	uint64_t checksum_ns, checksum_bytes;  /* time and bytes hashed (--checksum) */
	uint64_t gpu_copy_ns;          /* simulated host-to-device copies */
	/* the harness beside the pipeline (loader.h: struct loader_result);
	 * worker_loop_ns 0: not measured */
	uint64_t worker_loop_ns, worker_ops_ns;
	uint64_t main_harness_ns, pin_harness_ns, pin_copy_ns;
	uint64_t gpu_model_ns;         /* the simulated GPU's modelled copies and steps */
	/* the processes' own usage (loader.h): the workers' reads summed over
	 * use_workers of them (0 or fewer than workers: not known), the main
	 * process's over the run (NULL: not known) */
	const struct proc_use *worker_use;  /* [USE_N] */
	int use_workers;
	const struct proc_use *main_use;
	uint64_t pin_copy_cpu_ns;      /* the pin copies' CPU time (0: none or not measured) */
	/* per trace op index [t->nops], from the counters: page faults in its
	 * calls, all and after each worker's first batch, and those calls
	 * (NULL, NaN or 0: not counted) */
	const double *op_faults, *op_faults_after;
	const uint64_t *op_regions_after;
	/* the same from each worker's first task of a later epoch than its
	 * first (the data met once) */
	const double *op_faults_after_epoch;
	const uint64_t *op_regions_after_epoch;
	/* the counters' own cost: reads made and one read's cost (ns; 0: none;
	 * the part inside the ops' windows is already off their on-CPU time) */
	uint64_t counter_reads;
	double counter_read_ns;
	unsigned max_inflight;         /* most batches in flight at once */
	uint64_t samples_moved;        /* samples that left the batch the sampler put them in */
	uint64_t slow_lane;            /* speedy: samples sent to the slow lane */
	uint64_t speedy_timeout_ns;    /* speedy: its timeout (0: none) */
	int speedy;                    /* the policy was speedy */
	/* decode_random_resized_crop (the fused what-if): images decoded by
	 * region and in full; fused 0: the pipeline has no such op */
	int fused;
	uint64_t fused_regions, fused_full;
	/* the noise guard (bench/measure/noise.h): NaN / 0 when not measured */
	double others_cpu_pct, steal_pct, load1;
	int have_priority;             /* nice and group_nice were read (noise_priority) */
	double nice, group_nice;       /* (group_nice NaN: autogroups off) */
	double cpus_usable;            /* CPUs the run may use (0: unknown) */
};

/* Per-op figures. Times in ns. */
struct op_metrics {
	char name[40];          /* ppbench op id ("decode", "transform", "collate") */
	char lotus_name[40];    /* LotusTrace name ("SLoader", "STransform", "SCollation") */
	int trace_op;           /* its index among the trace's ops (t->op_names), -1: STransform
				   or a collation the pipeline does not name */
	struct stats st;        /* durations, ns (n = count, sum, mean, std, min, p25..p99, max) */
	double span_s;          /* st.sum / 1e9: the sum of the op's wall spans (Lotus's "CPU seconds") */
	double under_10ms_pct;  /* share of events with dur < 10 ms, % */
	double under_100us_pct; /* share of events with dur < 100 us, % */
	/* counters (NaN where not counted; a hardware figure is NaN where the
	 * event is not supported, never 0) */
	double regions;         /* calls counted (NaN: not counted) */
	double faults_per_call; /* page faults per counted call (NaN: not counted) */
	double faults_per_call_after;  /* the same after each worker's first batch */
	double faults_per_call_after_epoch;  /* the same in the epochs after each worker's first
					       (NaN: one epoch) */
	double oncpu_s;         /* time on a CPU */
	double descheduled_s;   /* counted regions' wall time - oncpu_s */
	double oncpu_pct;       /* oncpu / wall of the counted regions, % */
	double oncpu_under_10ms_pct;   /* counted calls whose own on-CPU time was under 10 ms, % */
	double oncpu_under_100us_pct;  /* ... under 100 us, % */
	double ipc, cache_mpki, branch_mpki, frontend_stall_pct, backend_stall_pct;
};

#define BATCH_NONE INT64_MIN   /* a batch row time that was not recorded */

/* One row per batch id found in the events, sorted by id. Times are ns
 * relative to o->start_ns, or BATCH_NONE. */
struct batch_row {
	int64_t id;
	int worker;             /* trace_proc.id of its EV_BATCH_PREPROC, -1: unknown */
	int pid;                /* trace_proc.pid of that worker, 0: unknown */
	uint32_t samples;       /* distinct sample positions among its EV_OP/EV_TRANSFORM events */
	int64_t queued;         /* EV_BATCH_QUEUED start */
	int64_t started;        /* EV_BATCH_PREPROC start */
	int64_t finished;       /* EV_BATCH_PREPROC end */
	int64_t arrived;        /* EV_BATCH_ARRIVED start */
	int64_t pinned;         /* EV_BATCH_PINNED end */
	int64_t consumed;       /* EV_BATCH_CONSUMED start */
	int64_t wait_ns;        /* EV_BATCH_WAIT duration (TRACE_MARKER_NS for a marker), or BATCH_NONE */
	int64_t delay_ns;       /* consumed - finished (may be < 0 if clocks disagree), or BATCH_NONE */
	int out_of_order;       /* its SBatchWait is the 1000 ns marker */
};

struct run_metrics {
	/* run */
	int complete;
	char stop_reason[256];
	int batch_size, workers, gpus;
	uint64_t start_ns, end_ns;     /* wall-clock ns */
	double e2e_s;
	uint64_t images, batches;
	double images_per_s;
	uint64_t checksum;

	/* per op, in pipeline order then STransform (and SCollation if no
	 * pipeline op has that name); only ops with at least one event */
	size_t nops;
	struct op_metrics *ops;
	double ops_span_s;             /* sum of span_s of the pipeline ops + collation
					  (STransform excluded: it contains the transforms) */
	double ops_oncpu_s;            /* the same sum of oncpu_s (NaN: not counted) */

	/* CPU and memory from rusage (copied from the opts) */
	double *worker_cpu_s;          /* [workers], or NULL */
	long *worker_maxrss_kib;       /* [workers], or NULL */
	double workers_cpu_s;          /* sum of worker_cpu_s */
	double workers_cpu_ms_per_image;  /* workers_cpu_s / images, in ms (NaN: no image) */
	double ops_span_ms_per_image;  /* ops_span_s / images, in ms (NaN: no image) */
	double worker_rss_max_kib;     /* the largest worker_maxrss_kib (NaN: unknown) */
	double worker_rss_mean_kib;    /* their mean */
	double main_cpu_s;
	long main_maxrss_kib;

	/* batch preprocessing time (EV_BATCH_PREPROC), ns */
	struct stats preproc_all;      /* every batch */
	struct stats preproc;          /* after the low-tail cut */
	size_t preproc_dropped;        /* batches cut as low tail */
	double preproc_std_pct;        /* 100 * preproc.std / preproc.mean */
	double preproc_iqr_ns;         /* preproc.p75 - preproc.p25 */

	/* main process */
	size_t wait_events;            /* SBatchWait records (in order + markers) */
	size_t ooo_batches;            /* markers */
	double ooo_pct;
	double wait_total_s;           /* sum of in-order waits */
	double stall_pct;
	struct stats wait;             /* in-order waits, ns */
	double wait_over_500ms_pct;    /* of all SBatchWait records (Lotus) */
	double wait_inorder_over_500ms_pct;
	struct stats delay;            /* ns */
	double delay_over_500ms_pct;

	/* simulated GPU */
	double gpu_busy_s, gpu_idle_s, gpu_util_pct;

	/* the harness */
	double checksum_s;             /* time spent hashing batches (0: --checksum off) */
	uint64_t checksum_bytes;
	double checksum_gb_per_s;      /* NaN when nothing was hashed */
	double gpu_copy_s;             /* simulated host-to-device copies */
	double pin_copy_s;             /* the pin thread's copies (modelled work) */
	double gpu_overshoot_s;        /* the simulated GPU's busy time beyond its model */
	/* per sample handed over, us of CPU (NaN: not measured; ratio NaN: no
	 * pipeline time); harness_us = startup + counters + checksum + workers
	 * + main; the pin copy apart */
	double harness_startup_us;     /* workers' CPU outside their loops */
	double harness_counters_us;    /* counter reads */
	double harness_checksum_us;    /* hashing the samples */
	double harness_workers_us;     /* workers' loops - ops - counter reads - checksum */
	double harness_main_us;        /* main process - pin copy */
	double harness_us;             /* their sum */
	double pin_copy_us;            /* the pin thread's copies */
	double pipeline_us;            /* the ops' CPU */
	double harness_ratio;          /* harness_us / pipeline_us */
	/* CPU, system time and page faults per image handed over (NaN: not read) */
	double tree_cpu_ms_per_image;  /* workers + main process, user + system */
	double main_setup_cpu_s, main_teardown_cpu_s;  /* NaN: not known */
	double run_cpu_ms_per_image;   /* the tree's with the main process's set-up and teardown */
	double workers_sys_ms_per_image, main_sys_ms_per_image;
	double workers_faults_per_image, main_faults_per_image;
	double workers_faults_after_per_image;  /* after each worker's first batch, per sample then */
	double workers_cpu_after_ms_per_image;  /* the workers' CPU likewise (user + system) */
	unsigned inflight_max;         /* most batches in flight at once */

	/* the loader policy */
	uint64_t samples_reordered;    /* samples that left the batch the sampler put them in */
	uint64_t speedy_slow_lane;     /* speedy: samples sent to the slow lane */
	double speedy_timeout_s;       /* speedy: its timeout (NaN: not speedy or none) */

	/* the fused what-if (NaN: no decode_random_resized_crop in the pipeline) */
	double fused_region_decodes, fused_full_decodes;

	/* the machine during the run */
	double others_cpu_pct;         /* other processes' CPU time, % of the usable CPUs */
	double steal_pct;              /* stolen by the hypervisor, % */
	double load1;                  /* 1-minute load average at the end */
	double nice;                   /* the run's nice value (NaN: unknown) */
	double group_nice;             /* its session's autogroup's nice (NaN: autogroups off, unknown) */
	double cpus_usable;            /* CPUs the run could use (NaN: unknown) */
	double busy_threads;           /* workers + the main process's busy share (main_cpu_s / e2e_s) */
	double oversubscribed;         /* 1: busy_threads > cpus_usable + 0.5; 0: not; NaN: unknown */

	/* tracing */
	uint64_t trace_events;         /* events in the trace */
	uint64_t trace_dropped;        /* sum of trace_proc.dropped */
	double trace_cost_ns;

	/* skipped files */
	uint64_t nskipped;
	size_t nskipped_listed;
	char **skipped;                /* [nskipped_listed] copies */
	char **skipped_reason;         /* [nskipped_listed] copies ("" when not known) */

	/* per batch */
	size_t nbatches;
	struct batch_row *rows;
};

/* Compute every metric. m is overwritten (call analysis_free after). 0, or
 * -1 with err (out of memory; inconsistent input such as end < start). An
 * empty trace is not an error: the figures are zeros. */
int analysis_compute(const struct trace *t, const struct analysis_opts *o,
		     struct run_metrics *m, char *err, size_t errlen);
void analysis_free(struct run_metrics *m);

/* Lotus's low-tail cut on v[0..n) (any order): sorts v, drops the values
 * below q1 - 2 x (q3 - q1) (they are the smallest, so the kept ones are
 * v[*first..n)), returns how many were dropped. */
size_t analysis_cut_low_tail(double *v, size_t n, size_t *first);

#endif
