/* The run as a library: one configuration of the loader, from its options
 * to its results folder. `ppbench run` (bench/cli/cmd_run.c) strings these
 * together; bottleneck, sweep, model and compare use the parts they need.
 *   run_opts.c     the option table and its checks
 *   run_setup.c    inputs, loader configuration, counters, pin plan, space
 *   run_analyse.c  the one loader-to-analysis adapter; summary.json's blocks
 *   run_exec.c     measure, analyse, write; repeats combined in memory
 *   run_read.c     a run's facts read back from its summary.json */
#ifndef PPBENCH_RUN_H
#define PPBENCH_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "analysis.h"
#include "counted.h"
#include "counters.h"
#include "emit.h"
#include "loader.h"
#include "noise.h"
#include "options.h"
#include "pipeline.h"
#include "repeats.h"
#include "sweep_row.h"
#include "topology.h"

/* The options of a run: one table (run_opts.c) that `run` and the commands that
 * take "the same options as run" (bottleneck) parse with. Enum fields hold
 * the index of the value in the option's choices. */
struct run_opts {
	const char *data, *pipeline, *tag, *out, *counters, *pin_cpus;
	long workers, batch_size, gpus, prefetch_factor, epochs, repeat;
	uint64_t gpu_step, max_batches, seed, max_pixels, max_file_size, trace_capacity, dump_batches;
	uint64_t timeout, stall_notice;
	double h2d, speedy_pct, require_idle, gpu_step_scale;
	int policy;
	int pin, shuffle, drop_last, trace, backend, order, rng, on_error, checksum;
};

extern const struct opt run_opts_table[];

/* ---- run_opts.c ---------------------------------------------------------- */

/* The checks of parsed options before anything runs: batches in flight
 * (prefetch x workers at most 8192), the GPU step (run_gpu_step; o->gpu_step
 * and *step_ns get it, in ns), a non-empty --out. 0, or -1 with err. */
int run_opts_check(struct run_opts *o, uint64_t *step_ns, char *err, size_t errlen);

/* ---- run_setup.c --------------------------------------------------------- */

struct dataset;
/* The loader configuration of the options o (pipe, data and the GPU step
 * resolved by the caller; no pin plan). */
struct loader_cfg run_loader_cfg(const struct run_opts *o, const struct pipeline *pipe,
				 const struct dataset *data, uint64_t step_ns);

/* The GPU step of o in ns: --gpu-step (auto: the measured ResNet18/V100
 * step for the batch and GPU count) times --gpu-step-scale. 0, or -1 with
 * err (auto has no step for that GPU count). */
int run_gpu_step(const struct run_opts *o, uint64_t *step_ns, char *err, size_t errlen);

/* Load o->pipeline into pipe and scan o->data into data; without --data, the
 * default dataset (generated on first use; its path in data_path, which
 * o->data then points to). *have_pipe and *have_data say what to release.
 * 0, or the exit code after the message: 2 (EXIT_USAGE) for a bad pipeline
 * or dataset, 1 when the default dataset cannot be made. */
int run_open_inputs(struct run_opts *o, struct pipeline *pipe, struct dataset *data,
		    char *data_path, size_t len, int *have_pipe, int *have_data);

/* A disk without room for the results is refused before anything runs:
 * the bytes the results will take (results_size_estimate) against the free
 * bytes where they go. 0, or -1 with err. */
int run_check_space(const struct run_opts *o, const struct pipeline *pipe,
		    const struct dataset *data, char *err, size_t errlen);

/* What a run knows about counters and where it runs. */
struct run_env {
	const struct pipeline *pipe;
	struct counter_spec *spec;       /* parsed, then probed; n == 0: off */
	struct counted_overhead null_ov;
	int null_ok;
	struct pin_req *req;
	struct topo topo;
	int have_topo;
	struct pin_plan plan;
	int have_plan;
	struct cpus cpus;                /* the CPUs the run may use */
	const struct dataset *data;      /* what it reads (summary.json "dataset") */
	struct noise noise;              /* what else used them while it measured */
};

/* Before anything runs (x zeroed, x->cpus read): the counters (parsed) and
 * the pin plan on this machine's topology. 0, or an exit status after the
 * message. run_env_release frees x either way. */
int run_env_prepare(struct run_env *x, const struct run_opts *o);
/* The counters, once the run is known to go ahead: probe (and say so when
 * hardware events fall back), and measure what counting costs. */
void run_env_probe(struct run_env *x);
void run_env_release(struct run_env *x);

/* ---- run_analyse.c ------------------------------------------------------- */

/* The counter figures of a run by pipeline op, which analysis_opts points
 * into (the caller keeps it as long as the analysis_opts). */
struct run_counted {
	struct counter_derived d[PIPE_MAX_OPS];
	uint64_t regions[PIPE_MAX_OPS], after[PIPE_MAX_OPS], after_epoch[PIPE_MAX_OPS], reads;
	double faults[PIPE_MAX_OPS], faults_after[PIPE_MAX_OPS], faults_after_epoch[PIPE_MAX_OPS];
};

/* The one loader-to-analysis adapter: the analysis options of a run from
 * its options o (workers, batch_size, gpus, policy) and what the loader (or
 * a model of it, or a results folder read back) recorded in r. env NULL: no
 * counters, no noise window (NaN), no CPU priority, no CPU count, no
 * main-process usage (r->main_use is not read); else env->spec's counters
 * (into scr) and env->noise (its priority too). pipe NULL: not the fused
 * op. ao points into r (and scr). */
void run_analysis_opts(const struct run_opts *o, const struct loader_result *r,
		       const struct run_env *env, const struct pipeline *pipe,
		       struct run_counted *scr, struct analysis_opts *ao);

/* The descriptive blocks of summary.json: options, dataset, machine,
 * loader, counters, pin, noise. New reference. */
json_t *run_summary_blocks(const struct run_opts *o, const struct loader_result *r,
			   uint64_t step_ns, const struct run_env *x);

/* Results key of the pipeline's op i, as summary.json's "ops" makes them
 * ("name", then "name#2" for a second op of the same name). */
void run_op_key(const struct pipeline *p, int i, char *key, size_t n);

/* Peak resident memory summed over the main process and the workers (a
 * shared page touched by several processes counts in each: an upper bound). */
long run_rss_sum_kib(const struct loader_result *r);

/* ---- run_exec.c ---------------------------------------------------------- */

/* One measured run: the loader's result, its figures, summary.json's
 * blocks and what the writers take (in points into the others: a run_out
 * does not move once analysed). */
struct run_out {
	struct loader_result r;
	struct run_metrics m;
	json_t *blocks;
	struct results_in in;
	int have_r, have_m;
};

/* Run the loader once into out->r (out zeroed): the dump folder under tmp
 * (--dump-batches), the counters of env, a progress line on a terminal,
 * --require-idle, and env->noise over the run. 0, or -1 with err (nothing
 * measured; the dump folder is removed). */
int run_measure(const struct run_opts *o, struct run_env *env, struct loader_cfg lc,
		const struct loader_plan *plan, const char *tmp, struct run_out *out,
		char *err, size_t errlen);
/* The figures of out->r (analysis_compute through run_analysis_opts) and
 * summary.json's blocks. 0, or -1 with err. */
int run_analyse(const struct run_opts *o, const struct run_env *env, uint64_t step_ns,
		struct run_out *out, char *err, size_t errlen);
/* Write an analysed run into tmp (results_write, topology.xml) and commit
 * it as OUT/name (final gets its path). A folder that cannot be written
 * completely is kept as name.partial with a summary.json that says why.
 * Prints its messages. 0, or -1 (final ""). */
int run_write(const struct run_opts *o, const struct run_env *env, struct run_out *out,
	      const char *tmp, const char *name, char *final, size_t finallen);
void run_out_free(struct run_out *out);

/* The repeats of a configuration, as sweep rows made in memory from each
 * run's summary (results_summary_json): no file is read back. */
struct run_series {
	struct sweep_row *rows;
	size_t n, cap;
};
/* Add an analysed run. 0, or -1 (out of memory). */
int run_series_add(struct run_series *s, const struct run_out *out);
/* The median and spread of every figure over the repeats (repeats_combine).
 * 0, or -1 (fewer than one row, or out of memory). */
int run_series_combine(const struct run_series *s, struct combined *c);
void run_series_free(struct run_series *s);

/* ---- run_read.c ---------------------------------------------------------- */

/* A run's facts read back from its summary.json object sum (dir: its
 * results folder, for messages): into r the window, images, batches,
 * checksum, complete, the trace cost, the processes' CPU and peak RSS
 * (r->worker_cpu_s and, when any worker has one, r->worker_maxrss_kib:
 * allocated, loader_result_free frees them), the fused op's decodes (*fused:
 * the summary has them, so the pipeline had the op); into o workers,
 * batch_size, gpus (r and o zeroed first). 0, or -1 with err. */
int run_read_summary(json_t *sum, const char *dir, struct loader_result *r,
		     struct run_opts *o, int *fused, char *err, size_t errlen);

#endif
