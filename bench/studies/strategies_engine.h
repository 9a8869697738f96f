/* ppbench strategies: the model shared by the command (cli/cmd_strategies.c),
 * its steps (strategies_run.c), its execution engine (strategies_engine.c),
 * PRESTO's ranking (strategies_rank.c) and the output (strategies_out.c). */
#ifndef PPBENCH_STRATEGIES_ENGINE_H
#define PPBENCH_STRATEGIES_ENGINE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "decode.h"
#include "generate.h"
#include "imagefolder.h"
#include "machine.h"
#include "noise.h"
#include "pipeline.h"
#include "rng.h"
#include "sampler.h"
#include "stats.h"
#include "store.h"

struct json_t;
struct opt;

struct strat_opts {
	const char *data, *pipeline, *formats, *splits, *store, *out, *tag;
	long images, epochs, batch_size, workers, offline_threads, zstd_level, repeat;
	uint64_t seed, max_pixels;
	double weight, offline_weight, require_idle;
	int shuffle, warm, cache, keep, checksum, plot;
};

/* ---- the model -------------------------------------------------------------*/

struct split {
	int k;                  /* ops [0, k) run offline */
	char name[64];
	enum pix_kind kind;     /* the sample after the prefix */
	int suffix_random;      /* an op of the suffix draws */
	int from_memory;        /* the suffix can start from the file's bytes in memory */
};

struct strategy {
	char name[96];
	int split;              /* index in ctx.split */
	int format;             /* enum store_format */
	int cache;
	int files;              /* reads the dataset's own files (no store) */
	int ran;                /* measured to the end */
	double offline_s;
	uint64_t storage_bytes, cache_bytes;
	double *ips;            /* [R * E] images/s of each epoch of each repeat */
	uint64_t *sum;          /* [R * E] checksum of each epoch */
	size_t *images;         /* [R * E] samples delivered */
	double *steady_r;       /* [R] steady images/s of each repeat */
	double *score_r;        /* [R] score of each repeat */
	struct stats_summary sp_steady, sp_score;
	struct noise noise;     /* the window of its online measurements */
	size_t skipped;         /* samples skipped in the last epoch */
	uint64_t fetch_ns, suffix_ns, delivered;
	double mean_ips, steady_ips;
	int tensors;            /* 1 same as the full pipeline, 0 not, -1 not checked */
	double score;           /* the median score */
	int rank, tied;         /* tied: within noise of another strategy */
};

/* One thread's state; padded apart. */
struct thr {
	struct scratch scr;
	struct rng rng;
	struct store_io io;
	struct sample s;        /* the offline pass's sample */
	uint64_t fetch_ns, suffix_ns, sum;
	size_t nok, nskip;
	char pad[64];
};

/* A cached sample: the split's output (or the failure's reason). */
struct centry {
	struct store_rec rec;
	void *p;
};

struct ctx {
	const struct strat_opts *o;
	struct pipeline pipe;
	struct dataset ds;
	size_t n;                       /* samples used: the first n of ds */
	uint64_t orig_bytes;            /* their files' bytes */
	struct split split[PIPE_MAX_OPS + 1];
	int nsplits;
	int want_split[PIPE_MAX_OPS + 1];
	int want_format[STORE_NFORMATS];
	const struct op_ops *decode;    /* the op that reads and decodes a file */
	struct schedule sched;
	int workers, threads;
	struct thr *thr;                /* [max(W, T)] */
	struct sample *smp;             /* [B] */
	struct sample **ok;             /* [B] */
	struct buf batch;
	struct centry *cache;           /* [n] while a +cache strategy runs */
	char store_root[PATH_MAX];
	int made_store_root;
	struct strategy st[(PIPE_MAX_OPS + 1) * (STORE_NFORMATS + 1)];
	int nst;
	struct cpus cpus;               /* the CPUs the noise guard watches */
	struct noise noise;             /* the window of the whole measurement */
	int idle_refused;               /* --require-idle: never quiet; nothing more is measured */
	char fatal[768];                /* the error that ended the current strategy */
	int fatal_set;                  /* fatal[] holds it (read without the lock) */
};


/* SIGINT / SIGTERM: the command catches them (stopsig.h); the engine stops
 * at the next sample once stop_signal() says so. */

/* ---- strategies_engine.c ---- */

/* The splits: k = 0 .. K where op K is the first that draws or batches. */
void strat_find_splits(struct ctx *c);
/* --splits and --formats into want_split[] / want_format[]. 0, or -1 with err. */
int strat_parse_splits(struct ctx *c, char *err, size_t errlen);
int strat_parse_formats(struct ctx *c, char *err, size_t errlen);
/* Every wanted strategy of split si: its offline pass, online epochs and
 * checks, into c->st. 0, or -1 if one failed. */
int strat_run_split(struct ctx *c, int si);
void strat_ctx_free(struct ctx *c);
/* The images/s of sg's epoch e over the repeats. */
void strat_epoch_summary(const struct ctx *c, const struct strategy *sg, int e,
			 struct stats_summary *out);

/* ---- strategies_rank.c ---- */

/* PRESTO's score of every strategy measured, per repeat, its median and
 * spread, and the ranks with ties within noise (strategies_rank). */
void strat_rank_all(struct ctx *c);
/* The score's formula with c's weights, in words. */
void strat_formula(const struct ctx *c, char *out, size_t n);

/* ---- strategies_out.c ---- */

/* The table and what it rests on, by rank; results: the folder (NULL: none). */
void strat_print_table(FILE *f, const struct ctx *c, const char *results);
/* strategies.csv; strategies.json with options (the resolved options, a
 * reference it takes). 0, or -1 with err. */
int strat_write_csv(const struct ctx *c, const char *path, char *err, size_t errlen);
int strat_write_json(const struct ctx *c, struct json_t *options, const char *path, char *err,
		     size_t errlen);

/* ---- strategies_run.c: the command's steps ---- */

/* What one `ppbench strategies` holds besides the engine's context. */
struct strat_cmd {
	struct strat_opts o;
	struct ctx *c;
	const struct opt *table;   /* the command's options (summary's "options") */
	char tag[128], tmp[PATH_MAX], name[256], final[PATH_MAX], data_path[PATH_MAX];
	int have_dir;           /* tmp is the results folder, not yet committed */
};

/* The dataset, the epochs' schedule, the threads' state. An exit code, or
 * -1 to go on. */
int strat_load(struct strat_cmd *x);
/* The results folder (under a temporary name) and the stores' folder. 0, or -1. */
int strat_folders(struct strat_cmd *x);
/* Every wanted split's strategies, in a noise window, then the ranking.
 * 0 all measured, 1 one failed, -1 stopped (said). */
int strat_measure(struct strat_cmd *x);
/* strategies.csv, .json, .md and the figure; the folder committed. 0, or -1. */
int strat_write(struct strat_cmd *x);
/* A failed run: remove the stores; the folder stays with what it has. */
void strat_abandon(struct strat_cmd *x);

#endif
