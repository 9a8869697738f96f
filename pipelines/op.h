/* The contract of an op. One op, one file (op_<name>.c), one table.
 *
 * An op is configured once (init, from the arguments on its pipeline line)
 * and then run on many samples, possibly from many threads at once: run()
 * must only read the configuration and write the sample and its scratch. */
#ifndef PPBENCH_OP_H
#define PPBENCH_OP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "sample.h"

#define OP_ABI_VERSION 1

/* Arguments of one pipeline line: "name key=value key=value". */
#define OP_MAX_ARGS 8
struct op_args {
	int n;
	char key[OP_MAX_ARGS][32];
	char val[OP_MAX_ARGS][128];
	unsigned used;   /* bit i set once arg i was read; unread args are errors */
};

/* Getters: return 0 (absent: *out keeps the default; present: parsed) or
 * -1 with err filled ("size: 'x' is not an integer", "ms: '-1' is out of
 * range [0, 60000]"). Every value must lie in [lo, hi]; a number is also
 * finite ("nan", "inf", "1e999" are refused), so every op states its range
 * here, in the one parser, and none checks on its own. */
int op_arg_int(struct op_args *a, const char *key, long lo, long hi, long *out,
	       char *err, size_t errlen);
int op_arg_double(struct op_args *a, const char *key, double lo, double hi, double *out,
		  char *err, size_t errlen);
/* A comma-separated list of exactly n (at most OP_MAX_LIST) doubles, each
 * in [lo, hi]; *out is left as it was when one is refused. */
#define OP_MAX_LIST 8
int op_arg_doubles(struct op_args *a, const char *key, int n, double lo, double hi, double *out,
		   char *err, size_t errlen);
/* An op's output of w x h pixels, checked before it is allocated: over
 * the sample's --max-pixels (the decompression-bomb bound decode applies,
 * here to every op: a 65000x1 image resized to a short side of 256 would be
 * 16640000x256, 13.6 GiB), the sample fails with the size and the limit, a
 * data error as a corrupt file is (skipped, or the run stopped with
 * --on-error fail). 0, or -1 (sample_fail) to return from the op. */
int op_check_out(struct sample *s, long long w, long long h);
/* -1 with err naming the first argument nobody read. */
int op_args_check_used(const struct op_args *a, const char *op, char *err, size_t errlen);

enum op_flags {
	OP_RANDOM = 1 << 0,        /* draws from the sample's rng: never materialised offline */
	OP_BATCH = 1 << 1,         /* runs once per batch (collate), through run_batch */
	OP_TEST = 1 << 2,          /* for tests and harness measurement only */
};

/* Where a batch is collated: images then labels, in one buffer. */
struct batch_out {
	void *mem;          /* capacity bytes */
	size_t capacity;
	size_t n;           /* samples in the batch (set by the caller) */
	size_t image_bytes; /* set by run_batch: n * 3 * h * w * 4 */
	int h, w;           /* set by run_batch */
};

struct op_ops {
	int version;               /* OP_ABI_VERSION */
	const char *name;          /* used in pipeline files, --until, results */
	const char *lotus_name;    /* LotusTrace event name ("SRandomResizedCrop") */
	const char *help;          /* one line, with its arguments */
	unsigned flags;
	enum pix_kind in, out;     /* PIX_NONE as `in` for decode, any for null */

	/* Parse arguments into *cfg (heap; NULL is fine). 0 or -1 with err. */
	int (*init)(struct op_args *args, void **cfg, char *err, size_t errlen);
	/* Per-sample ops. 0, or -1 with s->err set (sample_fail). */
	int (*run)(const void *cfg, struct sample *s);
	/* Batch ops (OP_BATCH). 0, or -1 with err. */
	int (*run_batch)(const void *cfg, struct sample *const *samples, size_t n,
			 struct batch_out *out, char *err, size_t errlen);
	void (*release)(void *cfg);
	/* Output bytes of the batch for n samples of the given size (OP_BATCH). */
	size_t (*batch_bytes)(const void *cfg, size_t n, int h, int w);
};

/* The registry: every op, in one list (registry.c). */
const struct op_ops *op_find(const char *name);
const struct op_ops *const *op_all(size_t *n);

#endif
