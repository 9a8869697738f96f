/* The figures of one `ppbench bench`: each figure summarised over its
 * repeats (stats_summarise: the median, min-max and, from 6 repeats on, a
 * 95 % interval), a target judged against that interval (stats_judge:
 * met, NOT met, within noise), printed as it is measured and written at the
 * end to a results folder as bench.json and bench.csv. */
#ifndef PPBENCH_BENCH_RESULT_H
#define PPBENCH_BENCH_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "stats.h"

struct json_t;

#define BENCH_MAX_FIGS 256

struct bench_fig {
	char section[24];          /* "ops", "decode", "bounds", "fused", "trace", "pool" */
	char name[128];            /* "decode ppbench / TurboJPEG" */
	char unit[24];             /* "ratio", "ms", "GB/s", "images/s" */
	struct stats_summary s;    /* over the repeats */
	int has_target, at_most;   /* at_most: lower is better */
	double target;
	enum stats_target verdict;
};

struct bench_result {
	size_t n;
	struct bench_fig fig[BENCH_MAX_FIGS];
};

/* Summarise v[0..n) as one figure (NaN values skipped) and keep it; with
 * has_target, judge it. The figure, or NULL when the table is full or
 * memory runs out. */
const struct bench_fig *bench_figure(struct bench_result *r, const char *section, const char *name,
				     const char *unit, const double *v, size_t n,
				     int has_target, double target, int at_most);

/* "12.3 [11.9, 12.8]" with the figure's own format */
void bench_fig_format(char *out, size_t n, const struct bench_fig *f, const char *fmt);
/* "met", "NOT met", "within noise", "unknown" (the printed verdict) */
const char *bench_verdict_word(enum stats_target t);
/* One line: "NAME: MEDIAN [LO, HI] UNIT; target <= T: VERDICT" */
void bench_print_target(FILE *f, const struct bench_fig *g, const char *fmt);

/* bench.json ({"command", "machine", "noise", "interval_method",
 * "figures": [...]}) and bench.csv (section,figure,unit,n,median,lo,hi,
 * interval,target,direction,verdict) into dir. 0, or -1 with err. */
int bench_result_write(const struct bench_result *r, const char *dir, struct json_t *extra,
		       char *err, size_t errlen);

/* The "bounds" section of `ppbench bench` (bench_bounds.c): the ops after
 * decode of `pipeline` against their bounds, `rounds` rounds; B: the
 * batch of collate. 0, or -1 (said on stderr). */
int bench_bounds(const char *pipeline, size_t rounds, size_t B, struct bench_result *res);

/* The resampler's exact multiply floor on this CPU: taps x channels (the
 * unit of resample_macs: an 8-bit pixel times a 22-bit weight) per ns at
 * the best exact instruction mix of the kernels it runs (each kernel's
 * exact_peak in registers, the best of 5 short loops each): the bound of
 * the bounds section. */
double bench_resample_peak_per_ns(void);

/* `ppbench run --data DATA --out TMP/r<k> ARGS...` as a child (its own
 * process, as a user would run it): its summary.json, or NULL (warned). */
struct json_t *bench_run_child(const char *data, const char *const *args, const char *tmp, int k);

/* The sections "batch" and "chain" (bench_batch.c). */
struct bench_batch_cfg {
	const char *data;          /* the dataset folder */
	const char *sizes;         /* --batch-sizes: "32,128,512" */
	const char *tmp;           /* where the runs' results go */
	size_t images_have;        /* images in the dataset */
	long repeats;              /* rounds */
};
#define BENCH_CHAIN_MAX 64
/* ppbench's chain as the batch section measured it (B = 128), for chain */
struct bench_chain_in {
	size_t images, rounds;     /* 0 rounds: not measured */
	double tree_ms[BENCH_CHAIN_MAX];   /* the process tree's CPU ms per image, per round */
};
struct dataset;
/* 0, or -1 with err: --batch-sizes is not a list of batch sizes. */
int bench_batch_check(const char *sizes, char *err, size_t errlen);
/* 0, or -1 (said on stderr); out (may be NULL) gets the B = 128 runs. */
int bench_batch(const struct bench_batch_cfg *c, struct bench_result *res, struct bench_chain_in *out);
int bench_chain(const struct bench_batch_cfg *c, const struct dataset *d, size_t rounds,
		struct bench_result *res, struct bench_chain_in *in);

/* ---- the sections of `ppbench bench` (bench.c); the command, its table
 * and the order of the sections: cli/cmd_bench.c */

/* The command's options (cli/cmd_bench.c's table fills it). */
struct bench_cfg {
	const char *data;
	const char *pipeline;
	uint64_t images;
	long rounds;
	uint64_t batch_size;
	long repeats;
	uint64_t loader_batches;
	const char *sections;
	const char *out, *tag;
	const char *fused;
	const char *batch_sizes;
	double require_idle;
};
struct noise;

/* Each section prints its figures as it measures them and keeps them in res;
 * n: the images of d used. The int ones: 0, or -1 (said on stderr). */
int bench_ops(const struct bench_cfg *c, const struct dataset *d, size_t n,
	      struct bench_result *res);
int bench_kernels(const struct bench_cfg *c, const struct dataset *d, size_t n,
		  struct bench_result *res);
int bench_fused(const struct bench_cfg *c, const struct dataset *d, size_t n,
		struct bench_result *res);
int bench_decode(const struct bench_cfg *c, const struct dataset *d, size_t n,
		 struct bench_result *res);
/* The loader sections: runs as children (bench_run_child), results in tmp. */
void bench_trace(const struct bench_cfg *c, const char *data, const char *tmp,
		 struct bench_result *res);
void bench_pool(const struct bench_cfg *c, const char *data, const char *tmp,
		struct bench_result *res);
void bench_harness(const struct bench_cfg *c, const char *data, const char *tmp,
		   struct bench_result *res);
/* The results folder dir: every figure, and what it was measured on (argv:
 * the command line). 0, or -1 with err. */
int bench_write(const struct bench_result *res, const struct bench_cfg *c,
		const struct dataset *d, size_t n, const struct noise *nz, int argc,
		char **argv, const char *dir, char *err, size_t errlen);

#endif
