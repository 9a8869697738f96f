/* Emitters: the results of a run as files. One results model (struct
 * run_metrics from analysis.h, struct trace from trace.h), several
 * renderers: LotusTrace text files (written and read back), a Chrome trace,
 * summary.json, batches.csv, ops.csv and a human summary.
 *
 * All run after the measured run. Errors: -1 with err filled, git style
 * ("cannot write 'path': reason"); nothing is printed. */
#ifndef PPBENCH_EMIT_H
#define PPBENCH_EMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis.h"
#include "trace.h"

struct json_t;

/* ---- LotusTrace ----------------------------------------------------------
 *
 * One file per trace_proc, lines "NAME,START_NS,DUR_NS\n" (no header, no
 * spaces, wall-clock ns, unsigned decimal), events in the order they are
 * stored. Files:
 *
 *   <prefix>_worker_pid_<pid>   ROLE_WORKER: S<Op> (t->op_names[op]) for EV_OP,
 *                               STransform, SCollation, SBatchPreprocessed_<id>
 *   <prefix>_main_pid_<pid>     ROLE_MAIN: SBatchQueued_<id>, SBatchWait_<id>,
 *                               SBatchConsumed_<id>
 *   <prefix>_ppbench_<role>_<pid>   ppbench-only events, role = main, pin,
 *                               gpu or worker: SBatchArrived_<id> (main),
 *                               SBatchPinned_<id> (pin), SGpuCopy_<id> and
 *                               SGpuStep_<id> (gpu)
 *
 * Why the ppbench-only events have their own files: Lotus's scripts pick
 * files by the substrings "worker_pid" and "main_pid" (and its delay
 * script keeps only ONE main_pid file: it assigns, not concatenates), so
 * these names must contain neither. Its Chrome converter
 * (visualization_augmenter.py) reads every file that starts with the
 * prefix and takes the pid from the last "_" field: the extra files are
 * shown there too (SGpu* spans in --fine mode; SBatchArrived/Pinned, like
 * every SBatch* other than Preprocessed/Wait/Consumed, are ignored).
 * A proc with no events writes no file (pandas fails on an empty file).
 *
 * To run Lotus's analysis scripts unchanged, put the files in a folder
 * named like Lotus's configs, "b<batch>_gpu<gpus>" (its scripts parse the
 * batch size from that folder name): results_write does
 * <results>/lotustrace/b<B>_gpu<G>/LOTUSTRACE_PREFIX_*.
 *
 * Lotus names carry no sample position and no batch for S<Op>, STransform
 * and SCollation. EV_OP events of the collate op are not expected: the
 * loader records collation as EV_COLLATE. */
#define LOTUSTRACE_PREFIX "lotustrace_log"   /* Lotus's default --custom_log_prefix */

int lotustrace_write(const struct trace *t, const char *dir, const char *prefix,
		     char *err, size_t errlen);

/* Read every "<prefix>_worker_pid_<pid>", "<prefix>_main_pid_<pid>" and
 * "<prefix>_ppbench_<role>_<pid>" file of dir (other files are ignored)
 * into t, which must be zeroed or hold op names already (t->op_names /
 * t->op_ids / t->nops: names found in files are mapped to those indexes;
 * an unknown S<Op> name gets a new index, its op_id being the name without
 * the leading 'S'; -1 when more than 16 ops). STransform -> EV_TRANSFORM,
 * SCollation -> EV_COLLATE. Allocates t->procs and their events: free with
 * lotustrace_free.
 *
 * Reconstructed on read: worker ids (workers sorted by the smallest batch
 * id they preprocessed, then pid: with PyTorch's round-robin dispatch this
 * is the DataLoader's worker id); the batch of S<Op>/STransform/SCollation
 * events (the SBatchPreprocessed_<id> span of the same file that contains
 * their start), and their sample position (within a batch, in start order,
 * a new sample begins when an op repeats). Events outside any batch span
 * keep batch -1 and sample UINT32_MAX. Procs are ordered main, workers by
 * id, pin, gpu.
 *
 * Errors name the file and the line: "'dir/x_worker_pid_12':3: expected
 * NAME,START_NS,DUR_NS". A missing folder, a folder without any such file,
 * or no main/worker file is an error. */
int lotustrace_read(const char *dir, const char *prefix, struct trace *t,
		    char *err, size_t errlen);
/* Free what lotustrace_read allocated and zero t->nprocs/procs (op names kept). */
void lotustrace_free(struct trace *t);

/* ---- Chrome trace --------------------------------------------------------
 *
 * trace.json.gz (gzip'd JSON: Perfetto and chrome://tracing open it):
 * {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}:
 * "X" events, ts/dur in us with 3 decimals, ts relative to the earliest
 * event (its wall-clock ns goes in otherData.origin_wall_ns, so that the
 * doubles keep ns precision). Tracks: one per worker (pid = the worker's
 * pid, thread "worker <id>"), the main process (pid = main pid), and the pin
 * thread and the GPU as threads of the main process; process_name,
 * thread_name and sort-index metadata. Events of a track are sorted by
 * start, longer first, so that ops nest inside STransform and everything
 * inside SBatchPreprocessed. Events are named by kind (SBatchPreprocessed,
 * SBatchQueued, ..., the op's LotusTrace name), so that they group; the
 * batch id and sample are in their args. Flow arrows ("s" then "f" with
 * "bp":"e", cat "batch", id = the batch id) go from the end of a batch's
 * SBatchPreprocessed (1 ns before its end, inside the span) to its
 * SBatchConsumed.
 *
 * Past CHROME_TRACE_MAX_EVENTS events (about 150 MB of JSON, what
 * Perfetto's UI opens comfortably), the per-sample events (ops, STransform)
 * are kept for every Nth batch only, N the smallest that fits; every batch
 * event is kept. otherData says so ("sampled", "op_events_every_nth_batch",
 * "op_events", "op_events_kept", "max_events"), and so does summary.json
 * (trace.chrome). lotustrace/ always has every event. */
#define CHROME_TRACE_MAX_EVENTS 1000000ull
struct chrome_sampling {
	uint64_t limit_events;         /* CHROME_TRACE_MAX_EVENTS */
	uint64_t every;                /* per-sample events of every Nth batch (1: all) */
	uint64_t sample_events;        /* per-sample events in the trace */
	uint64_t kept_sample_events;   /* of them in trace.json.gz */
};
/* What chrome_trace_write keeps of t. */
void chrome_trace_plan(const struct trace *t, struct chrome_sampling *s);
int chrome_trace_write(const struct trace *t, const char *path, char *err, size_t errlen);

/* ---- results -------------------------------------------------------------*/

/* 2: the metric table (bench/results/metrics.h): cpu.ops_span_s and ops.<op>.span_s
 * (were cpu.ops_total_s and cpu_s), harness and policy blocks, every figure
 * written once. */
#define RESULTS_SCHEMA_VERSION 2

struct counter_spec;
struct counter_acc;

/* What results_write puts in a folder. */
struct results_in {
	const struct run_metrics *m;
	const struct trace *t;          /* NULL: no trace files */
	const char *tool;               /* "ppbench" when NULL; "pytorch" for compare's other side */
	int no_checksum;                /* leave "checksum" out (a side that does not hash) */
	/* descriptive blocks, appended to summary.json in their order (options,
	 * machine, loader, counters, pin, noise, ...: each a key of summary_keys
	 * in bench/results/metrics.c); borrowed, NULL: none */
	struct json_t *blocks;
	/* --counters: the raw event sums per pipeline op, as ops.csv columns;
	 * cacc[i] for trace op i (NULL: none) */
	const struct counter_spec *spec;
	const struct counter_acc *cacc;
	int lotustrace;                 /* write lotustrace/b<B>_gpu<G>/ (needs t) */
	int chrome;                     /* write trace.json (needs t) */
	const char *write_error;        /* a folder kept after a failed write: why (NULL: none) */
};

/* summary.json as a JSON object (new reference), every figure at its
 * metric-table path (bench/results/metrics.h), once. Top level: schema_version,
 * tool, complete, stop_reason (only when incomplete), write_error (only
 * then), checksum (16 lowercase hex digits as a string: a 64-bit identity,
 * not a quantity), batch_size, workers, gpus, the E2E window, the figures
 * ("cpu", "memory", "batch_preproc", "main", "gpu", "harness", "policy",
 * "trace", "skipped" blocks), "ops" (keyed by op id, in pipeline order),
 * then in->blocks. */
struct json_t *results_summary_json(const struct results_in *in);

/* batches.csv: header then one row per batch: id,worker,pid,samples,
 * queued_ns,started_ns,finished_ns,arrived_ns,pinned_ns,consumed_ns,
 * preproc_ns,wait_ns,delay_ns,out_of_order (times ns since the run start;
 * an empty field when not recorded). */
int results_write_batches_csv(const struct run_metrics *m, const char *path,
			      char *err, size_t errlen);
/* ops.csv: header then one row per op: op,lotus_name, one column per row of
 * op_metric_table (bench/results/metrics.h), then, with counters, each event's raw
 * sum (<event> or <event>_ns). */
int results_write_ops_csv(const struct results_in *in, const char *path, char *err,
			  size_t errlen);

/* Write summary.json, batches.csv, ops.csv, and the trace files asked for,
 * into dir (which exists: the temporary folder of results_dir_begin). */
int results_write(const char *dir, const struct results_in *in, char *err, size_t errlen);

/* The bytes a results folder of a run will take, about: for the check of
 * free space before a run (summary, CSVs, LotusTrace and Chrome trace for
 * `events` trace events and `batches` batches). */
uint64_t results_size_estimate(uint64_t events, uint64_t batches, int lotustrace, int chrome);

/* Results folders, never overwritten. begin: creates
 * <root>/.<UTC YYYYmmdd-HHMMSS>-<tag>.tmp (root is created if missing; tag
 * may be NULL or empty: no "-<tag>"; a name already taken by a final or a
 * temporary folder gets -2, -3, ...) and fills tmp with its path and name
 * with the final name ("20250101-120000-tag"). commit: renames tmp to
 * <root>/<name> without replacing anything (renameat2 RENAME_NOREPLACE;
 * -2, -3, ... if the name appeared meanwhile) and fills final_path. */
int results_dir_begin(const char *root, const char *tag, char *tmp, size_t tmplen,
		      char *name, size_t namelen, char *err, size_t errlen);
/* Before a run: can root hold a results folder for tag (plus suffix_len
 * bytes, e.g. "-r3") and the files in it? The tag fits in a folder name
 * (at most RESULTS_TAG_MAX bytes), the longest path below root within
 * PATH_MAX. 0, or -1 with err naming the option and the limit. */
#define RESULTS_TAG_MAX 200
int results_path_check(const char *root, const char *tag, size_t suffix_len,
		       char *err, size_t errlen);
int results_dir_commit(const char *root, const char *tmp, const char *name,
		       char *final_path, size_t finallen, char *err, size_t errlen);

/* A compact human summary (E2E, images/s, per-op table, batch
 * preprocessing, out-of-order %, stall %, wait/delay, GPU) for stdout. */
void results_print_human(FILE *f, const struct run_metrics *m);

#endif
