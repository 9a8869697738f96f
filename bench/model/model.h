/* ppbench model: a discrete-event model of the loader's protocol (loader.h),
 * driven by cost distributions instead of a pipeline.
 *
 * The rules are the loader's, event for event:
 *  - torch policy: W workers, one FIFO task queue each; P x W tasks at the
 *    start of each epoch, task k of the epoch to worker k mod W; then one
 *    new task per batch handed to the consumer, sent right after the hand-
 *    over and before the consumer's copy and step.
 *  - A finished batch goes to the result queue in completion order; with pin
 *    memory one pin thread copies the batches one at a time, in that order,
 *    before the main thread can take them.
 *  - The main thread takes results only while it waits for data (never
 *    while the GPU steps: the simulated GPU runs in it). In order: the batch
 *    it wants, others go to the reorder buffer (out of order, a 1000 ns wait
 *    marker); arrival: the first one.
 *  - The GPU: idle until the hand-over, then copy (bytes / bandwidth) and
 *    step, both blocking the main thread.
 *  - shared-queue: the batch's samples go to one shared FIFO; a worker that
 *    finishes a sample takes the next completion position (batch j,
 *    position k), and the one that fills a batch collates and sends it;
 *    batches are handed over as they arrive. speedy: shared-queue, plus the
 *    warm-up percentile timeout and the slow lane served first by worker
 *    W - 1, from the next epoch on.
 *
 * What the model adds is a cost for each piece of work (model_src) and the
 * machine it shares (model_fit): the workers' work, the pin thread's copies
 * and the main thread's own work are CPU work that advances at the rate the
 * busy threads of the moment leave it (processor sharing), the harness's
 * terms of a measured run (start-up, the main thread's work, the GPU's
 * lateness) included. Its output is a struct trace with the loader's per-batch
 * events (queued, preprocessed, arrived, pinned, wait, consumed, GPU copy
 * and step), so bench/results/analysis.c computes every figure under the same names
 * as a measured run. Deterministic for a seed. */
#ifndef PPBENCH_MODEL_H
#define PPBENCH_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis.h"
#include "loader.h"
#include "trace.h"

/* ---- cost sources (model_src.c) ---------------------------------------- */

enum model_src_kind {
	MSRC_BATCH_NORMAL,    /* per-batch mean and std at batch_of samples (the paper's Figs. 4-5) */
	MSRC_BATCH_EMPIRICAL, /* resampled per-batch times of a measured run, at batch_of samples */
	MSRC_SAMPLE_LOGNORMAL,/* per-sample mean and coefficient of variation (per-op means) */
	MSRC_SAMPLE_EMPIRICAL,/* resampled per-sample costs of a measured run (its trace) */
	MSRC_BATCH_LIST,      /* batch j costs v[j mod n], whatever its size (a replay, tests) */
};

struct model_src {
	enum model_src_kind kind;
	int batch_of;                  /* batch kinds: the batch size the figures are for */
	double mean_ns, std_ns;        /* batch kinds: per batch; sample lognormal: per sample */
	double *v;                     /* empirical kinds: the values (ns), owned */
	size_t n;
	double collate_ns;             /* per image, added by sample kinds (0: in the sample cost) */
	double batch_noise;            /* sample kinds: cv of a factor common to a batch's samples
					  (what the machine adds: samples of one batch are not
					  independent), 0: none */
	double *by_index;              /* MSRC_SAMPLE_EMPIRICAL of a torch run: [by_epochs x
					  by_images] the cost (ns) of image i in epoch e of the run,
					  NaN where it had none; used when the model's dataset has
					  by_images images (NULL: costs are drawn from v) */
	size_t by_images;
	int by_epochs;
	double harness_ns;             /* sample kinds: per image, the worker's own work in a task
					  beyond the ops (sample set-up, checksum, events), 0: none */
	double oncpu;                  /* share of the workers' work spent on a CPU (the rest, I/O,
					  does not slow with contention), 0: all of it */
	/* what a measured run says of the machine and the harness (0: not
	 * known); the callers copy them into the configuration */
	double pin_ns_per_image;       /* the pin thread's copy per image */
	double main_ns;                /* per batch: the main thread's own work (its time outside
					  the waits and the GPU) */
	double prime_ns;               /* from the start to the main thread's first dispatch (the
					  workers forked) */
	double startup_ns;             /* from the start to the first worker's first task */
	double gpu_over_ns;            /* per batch: the simulated GPU's sleeps beyond its model */
	int workers;                   /* workers of the run measured (its contention is in the costs), 0: none */
	char what[256];                /* where the figures come from, for the output */
};

/* Per-batch mean and std (std_pct % of the mean) at batch b. */
void model_src_batch_normal(struct model_src *s, double mean_ms, double std_pct, int b);
/* Batch j costs ms[j mod n]. 0, or -1 (out of memory). */
int model_src_batch_list(struct model_src *s, const double *ms, size_t n);
/* Per-sample mean (ms) and coefficient of variation; collate_ms per batch of b. */
void model_src_sample(struct model_src *s, double mean_ms, double cv, double collate_ms, int b);
/* From a results folder of `ppbench run`: per-sample costs (the sum of the
 * ops of each sample, and collation per image) from its LotusTrace files
 * when there are any, else the per-batch times of batches.csv. The batch
 * size and GPU count of the run go to *batch, *gpus (may be NULL). 0, or
 * -1 with err. */
int model_src_from_results(struct model_src *s, const char *dir, int *batch, int *gpus,
			   char *err, size_t errlen);
void model_src_free(struct model_src *s);
/* The first worker's first task of a run's results folder, ns after its
 * start (batches.csv), 0 when not known. */
double model_first_start_ns(const char *dir);
/* What a measured source says of the harness into c: the main thread's
 * start-up and own work, the workers' start-up, the GPU's lateness, the pin copy's
 * bandwidth (from c->sample_bytes). */
struct model_cfg;
void model_cfg_run_terms(struct model_cfg *c, const struct model_src *s);
/* Every CPU-work cost and term of s times f (f > 0). */
void model_src_scale(struct model_src *s, double f);
/* Mean per-image cost (ns) of the source. */
double model_src_image_ns(const struct model_src *s);

/* ---- the machine and its contention (model_fit.c) ---------------------- */

/* Per-sample cost at n busy threads = base x factor(n), with
 *   factor(n) = (1 + alpha x (min(n, cores) - 1)) x n / capacity(n)
 *   capacity(n) = min(n, cores) + beta x min(max(n - cores, 0), cores x (tpc - 1))
 * capped at capacity(cores x tpc) beyond the hardware threads.
 * alpha: the slowdown each further busy core causes (shared caches, memory
 * bandwidth); beta: what a second hardware thread adds to a core (SMT gain,
 * 0..1). Busy threads: the workers at work, plus main_threads (the main
 * process) and the pin thread. */
struct model_machine {
	double cores, tpc;             /* physical cores, hardware threads per core */
	double alpha, beta;
	double main_threads;           /* busy threads the main process adds */
	int smt_static;                /* 1: a thread keeps its place: the workers that share a
					  core run at (1 + beta) / 2 for the whole task, the
					  others alone (Linux leaves a running thread where it
					  is); 0: every worker gets the mean */
	double ref_busy;               /* busy threads when the costs were measured: factors are
					  relative to it (0: costs are without contention) */
};

double model_factor(const struct model_machine *m, double busy);
/* How a piece of work shares the machine: the mean factor, or (smt_static,
 * cores < busy <= 2 x cores) a thread alone on its core or sharing it. */
enum { MODEL_CLS_MEAN, MODEL_CLS_LONE, MODEL_CLS_SHARED };
/* Worker w of W's class when it starts work at busy threads. */
int model_worker_class(const struct model_machine *m, double busy, int W, int w);
/* The factor of a class at busy threads (relative to ref_busy). */
double model_class_factor(const struct model_machine *m, double busy, int cls);
/* Worker w of W's factor (smt_static), else model_factor. */
double model_worker_factor(const struct model_machine *m, double busy, int W, int w);
/* The share of the time a busy thread is on a hardware thread (beyond
 * cores x tpc busy threads they take turns): CPU time = wall x share. */
double model_oncpu_share(const struct model_machine *m, double busy);
/* Beyond the hardware threads, `first` of the busy threads are served
 * first: threads that sleep between short pieces of work (the pin thread,
 * the main thread's own work), which the scheduler runs ahead of those that
 * have used their share. Their factor (without contention in the costs)
 * and on-CPU share, and the rest's (relative to ref_busy). Within the
 * hardware threads every thread has one: the same for all. */
void model_first_split(const struct model_machine *m, double busy, double first, double *f_first,
		       double *f_rest, double *share_first, double *share_rest);

/* Fit alpha and beta (and the base time, free) to per-batch means t[i] at
 * busy thread counts n[i] of W[i] workers (k points; W NULL: smt_static off), minimising the sum of |log| errors
 * (robust to one odd point). Fills m->alpha, m->beta; *base the per-batch
 * time at factor 1; *err_pct the median absolute error, %. */
void model_fit(struct model_machine *m, const double *n, const int *W, const double *t, size_t k,
	       double *base, double *err_pct);

/* ---- the model ---------------------------------------------------------- */

struct model_cfg {
	int workers, batch_size, prefetch_factor, gpus;
	uint64_t images;               /* dataset size */
	int epochs;
	uint64_t max_batches;          /* 0: all */
	int shuffle, drop_last;
	uint64_t seed;                 /* the model's draws */
	uint64_t sched_seed;           /* the loader's seed (--seed of the run modelled): which
					  images go in which batch, by the loader's own sampler */
	enum loader_order order;
	enum loader_policy policy;
	double speedy_timeout_pct;     /* 0: 75 */
	int pin_memory;
	double gpu_step_ns;            /* per batch */
	double h2d_bytes_per_s;        /* 0: no copy */
	double pin_bytes_per_s;        /* the pin thread's copy (0: free) */
	double sample_bytes;           /* one sample's output bytes (batch bytes = n x this + labels) */
	double main_ns;                /* per batch: the main thread's own work, after the hand-over
					  and before the GPU copy (CPU work, shares the machine) */
	double prime_ns;               /* the main thread sends its first tasks (and waits) this
					  long after the start */
	double startup_ns;             /* the workers start work this long after the start */
	double gpu_over_ns;            /* per batch: added to the GPU step (a simulated GPU's
					  lateness), 0: none */
	int main_busy_step;            /* the main thread is a busy thread during the step (it
					  spins on the GPU, as CUDA's synchronisation does by
					  default), not while it waits for data */
	const struct model_src *src;
	struct model_machine machine;  /* cores 0: no contention */
};

struct model_out {
	struct trace trace;            /* procs: main, workers, pin (if on), gpu */
	struct analysis_opts opts;     /* for analysis_compute (worker_cpu_s points into this) */
	double *worker_busy_s;         /* [workers] CPU time (wall x the on-CPU share) */
	double main_cpu_s;             /* the main thread's work and the pin thread's copies, CPU */
	uint64_t pin_ns;               /* the pin thread's copies, wall */
	uint64_t gpu_busy_ns, gpu_idle_ns, gpu_copy_ns;
	uint64_t first_ns;             /* the first hand-over (the GPU's unavoidable wait) */
	uint64_t batches, images;
	uint64_t slow_lane, timeout_ns;
	unsigned max_inflight;
	int64_t *yield_order;          /* [batches] ids in hand-over order */
};

/* Run the model. 0, or -1 with err (bad configuration, out of memory). */
int model_run(const struct model_cfg *c, struct model_out *o, char *err, size_t errlen);
/* The figures of a model run, as analysis_compute gives them for a run. */
int model_metrics(const struct model_cfg *c, struct model_out *o, struct run_metrics *m,
		  char *err, size_t errlen);
void model_out_free(struct model_out *o);

/* --validate (model_validate.c): the paper's Figs. 4-6, and with sweep
 * folders of this machine (NULL-terminated, may be empty) validation 2. */
int model_validate(int csv, const char *const *sweeps, size_t nsweeps);
/* The report, where this machine has too few CPUs to judge the knee: the
 * model's E2E at the paper's machine shape (16 cores x 2 threads, 4 GPUs,
 * b1024, W = 8..28) from this machine's per-image cost (ms, measured at one
 * worker) and per-batch std (%, NaN: the paper's), as one sentence in out.
 * Returns the knee (0: none), or -1 with the reason in out. */
int model_paper_shape(double image_ms, double std_pct, char *out, size_t n);
/* The report's --model on: the run whose folder is src_dir (ppbench run's)
 * modelled at W workers, with its costs, settings and machine (the same
 * model as validation 2). m as analysis_compute fills it (analysis_free
 * after). 0, or -1 with err. */
int model_like_run(const char *src_dir, int W, struct run_metrics *m, char *err, size_t errlen);
/* The run whose folder is src_dir as it would have gone without the other
 * load that slowed it: at its own worker count, settings and CPUs, each of
 * its CPU-work costs (the workers' costs, the main thread's work, the pin
 * copy, start-up, the GPU's lateness) times oncpu_share, the share of its
 * ops' wall time they were on a CPU, so that only time on a CPU is left,
 * and all of it CPU work that the model time-slices on those CPUs (no
 * contention taken as held in the costs). 0, or -1 with err. */
int model_replay_quiet(const char *src_dir, double oncpu_share, struct run_metrics *m, char *err,
		       size_t errlen);
/* make bench's section "model": the model's speed at paper scale, as markdown. */
void model_bench(FILE *f);

/* ---- the command's parts (model_sweep.c; cli/cmd_model.c parses) */

/* ppbench model's options (cli/cmd_model.c's table fills it). */
struct model_opts {
	const char *workers;
	long batch_size, gpus, prefetch_factor, epochs, batch_of;
	const char *gpu_step, *h2d_s, *pin_s;
	double h2d, pin_bw;
	int pin, order, policy, shuffle, drop_last, paper, validate, csv;
	double speedy_pct;
	uint64_t images, max_batches, seed, sample_bytes;
	const char *from, *fit, *batch_times;
	double batch_ms, batch_std, batch_noise, sample_ms, sample_cv, collate_ms;
	double cores, tpc, alpha, beta, main_threads, ref_workers;
	int smt_static;
	double target_util;
	const char *out;
};

/* A bandwidth (parse_rate's), or none (0). 0, or -1 with err naming the option. */
int model_rate_opt(const char *name, const char *s, double *out, char *err, size_t errlen);
/* --gpu-step: a time, auto, or N img/s per GPU, in ns. 0, or -1 with err. */
int model_step_ns(const struct model_opts *o, double *out, char *err, size_t errlen);
/* The cost source of o (--from, --batch-ms, --sample-ms, --batch-times or
 * --paper) into s, and the workers its costs were measured at (0: none). 0;
 * 1 when the costs are to come from --fit's per-batch time; -1 with err. */
int model_make_src(const struct model_opts *o, struct model_src *s, int *ref_w, char *err,
		   size_t errlen);
/* The model's configuration from o (no source, no GPU step yet). */
void model_base_cfg(const struct model_opts *o, struct model_cfg *c);
/* One configuration: its figures in m (analysis_free after); with out (a
 * folder), its results folder too, as `ppbench run` writes one (final: its
 * path). 0, or -1 with err. */
int model_one_out(const struct model_cfg *c, struct run_metrics *m, const char *out,
		  struct json_t *options, char *final, size_t finallen, char *err, size_t errlen);
/* "1 2,4": up to max counts of at least 1 into v; their number, or -1 with
 * err naming what. */
int model_parse_ints(const char *s, int *v, int max, const char *what, char *err, size_t errlen);
/* --fit "W:MS,...": alpha and beta of the machine mm, printed; base_ms: the
 * per-batch time alone. 0, or -1 with err. */
int model_do_fit(const struct model_opts *o, struct model_machine *mm, double *base_ms, char *err,
		 size_t errlen);
/* --target-gpu-util: the fewest workers on this machine shape, the fewest
 * cores with their workers, and where E2E flattens, printed. 0, or -1 with
 * err. */
int model_provision(struct model_cfg *c, double target, char *err, size_t errlen);

#endif
