/* One row of a sweep's summary.csv: the figures of one run, as the metric
 * table (metrics.h) names them. Shared by the results layer (repeats,
 * metrics) and the report, which reads and writes these rows. */
#ifndef PPBENCH_SWEEP_ROW_H
#define PPBENCH_SWEEP_ROW_H

#include <stddef.h>
#include "jsonget.h"

#define SWEEP_SCHEMA_VERSION 1
#define SWEEP_MAX_OPS 16

/* Status of one planned run. */
#define RUN_PENDING "pending"        /* not run yet (or the sweep stopped during it) */
#define RUN_OK "ok"                  /* exit 0 and a complete summary.json */
#define RUN_FAILED "failed"          /* non-zero exit, or no summary.json */
#define RUN_INCOMPLETE "incomplete"  /* summary.json says "complete": false */
#define RUN_UNREADABLE "unreadable"  /* its summary.json (or its entry in sweep.json) cannot
					be read: the row's problem says which file and why */

/* One op of a run: its figures, one field per row of op_metric_table
 * (bench/results/metrics.h) with the row's name; NaN where not known. */
struct sweep_op {
	char name[40];                /* ppbench op id ("decode", "transform", "collate") */
	double count;
	double mean_ms;
	double std_ms;
	double min_ms;
	double p50_ms;
	double p90_ms;
	double p99_ms;
	double max_ms;
	double span_s;
	double under_10ms_pct;
	double under_100us_pct;
	double regions;
	double page_faults_per_call;
	double page_faults_per_call_after_first_batch;
	double page_faults_per_call_after_first_epoch;
	double oncpu_s;
	double descheduled_s;
	double oncpu_pct;
	double oncpu_under_10ms_pct;
	double oncpu_under_100us_pct;
	double ipc;
	double cache_mpki;
	double branch_mpki;
	double frontend_stall_pct;
	double backend_stall_pct;
};

/* One row of summary.csv: one configuration and repeat. The identity and
 * settings of the run, then one field per row of metric_table
 * (bench/results/metrics.h) with the row's name; a figure that is not known is NaN
 * (an empty CSV field). */
struct sweep_row {
	int part;                     /* which sweep folder (struct sweep.parts) */
	int config;                   /* configuration number, 1.. in plan order (over all parts) */
	int repeat;                   /* 1.. */
	char tag[64];                 /* the run's tag: w<W>-b<B>-g<G>-r<R> */
	char status[16];              /* RUN_* */
	int exit_code;                /* of `ppbench run`; -1: not run / unknown */
	char run_dir[256];            /* relative to the sweep folder; "" if none */
	char cache[16];               /* page cache before the run: "dropped" or "warm" */
	int workers, batch_size, gpus;
	char policy[16];              /* loader policy (summary.json options.policy; "" unknown: torch) */
	int complete;                 /* summary.json "complete" (0 if none) */
	char checksum[24];
	char counters[64];            /* --counters of the run ("" unknown) */
	/* hardware events: "ok" (some count), "not supported: <event>:
	 * <reason>" (none does), or "" when none was asked for */
	char hw_events[160];
	/* a file of the run that could not be read, and why ("runs/X/batches.csv:
	 * row 5 has 3 of 14 fields"); "" when every file read. With status
	 * RUN_UNREADABLE its figures are unknown; otherwise (batches.csv) only
	 * the figures drawn from that file are */
	char problem[256];
	/* the figures the sweep records about the run (MSRC_SWEEP) */
	double wall_s;
	double cache_resident_pct;
	/* the run's figures (MSRC_RUN) */
	double e2e_s;
	double images;
	double batches;
	double images_per_s;
	double workers_cpu_s;
	double main_cpu_s;
	double ops_span_s;
	double ops_oncpu_s;
	double workers_cpu_per_image_ms;
	double ops_span_per_image_ms;
	double tree_cpu_per_image_ms;
	double main_setup_s;
	double main_teardown_s;
	double run_cpu_per_image_ms;
	double workers_sys_per_image_ms;
	double main_sys_per_image_ms;
	double workers_faults_per_image;
	double workers_faults_after_first_batch_per_image;
	double workers_cpu_after_first_batch_per_image_ms;
	double main_faults_per_image;
	double worker_rss_max_kib;
	double worker_rss_mean_kib;
	double main_max_rss_kib;
	double preproc_batches;
	double preproc_avg_ms;
	double preproc_std_ms;
	double preproc_min_ms;
	double preproc_p25_ms;
	double preproc_p50_ms;
	double preproc_p75_ms;
	double preproc_p90_ms;
	double preproc_p99_ms;
	double preproc_max_ms;
	double preproc_std_pct;
	double preproc_iqr_ms;
	double preproc_low_tail_dropped;
	double preproc_all_batches;
	double preproc_all_avg_ms;
	double preproc_all_std_ms;
	double wait_records;
	double ooo_batches;
	double ooo_pct;
	double stall_pct;
	double sum_wait_s;
	double wait_count;
	double wait_avg_ms;
	double wait_std_ms;
	double wait_min_ms;
	double wait_p50_ms;
	double wait_p90_ms;
	double wait_p99_ms;
	double wait_max_ms;
	double wait_gt_500ms_pct;
	double wait_inorder_gt_500ms_pct;
	double delay_count;
	double delay_avg_ms;
	double delay_std_ms;
	double delay_min_ms;
	double delay_p50_ms;
	double delay_p90_ms;
	double delay_p99_ms;
	double delay_max_ms;
	double delay_gt_500ms_pct;
	double gpu_busy_s;
	double gpu_idle_s;
	double gpu_util_pct;
	double checksum_s;
	double checksum_bytes;
	double checksum_gb_per_s;
	double gpu_copy_s;
	double pin_copy_s;
	double gpu_overshoot_s;
	double harness_per_sample_us;
	double harness_startup_per_sample_us;
	double harness_counters_per_sample_us;
	double harness_checksum_per_sample_us;
	double harness_workers_per_sample_us;
	double harness_main_per_sample_us;
	double pin_copy_per_sample_us;
	double pipeline_per_sample_us;
	double harness_to_pipeline_ratio;
	double inflight_max;
	double samples_reordered_count;
	double speedy_slow_lane;
	double speedy_timeout_s;
	double fused_region_decodes;
	double fused_full_decodes;
	double others_cpu_pct;
	double steal_pct;
	double load_avg_1min;
	double nice;
	double autogroup_nice;
	double cpus_usable;
	double busy_threads;
	double oversubscribed;
	double trace_events;
	double trace_dropped;
	double trace_cost_ns;
	double skipped_files;
	/* not from summary.json: the report's replay of this run without the
	 * other load that slowed it (model_replay_quiet), s; NaN: not made */
	double replay_e2e_s;
	size_t nops;
	struct sweep_op ops[SWEEP_MAX_OPS];
};

/* The op named `name` in r, or NULL (repeats.c). */
const struct sweep_op *sweep_row_op(const struct sweep_row *r, const char *name);

struct json_t;
/* A row with every figure NaN, status pending, exit_code -1 (sweep_row.c). */
void sweep_row_init(struct sweep_row *r);
/* The op named `name` in r, added (every figure NaN) when r has none and
 * room for one; NULL when full. */
struct sweep_op *sweep_row_op_add(struct sweep_row *r, const char *name);
/* Fill the measured fields of r from a run's summary.json object. */
void sweep_row_from_summary(struct sweep_row *r, struct json_t *summary);
/* o[key] as an int, or def when absent or not an integer */
int jint(struct json_t *o, const char *key, int def);

#endif
