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
#include "options.h"
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

struct op_ops;

/* A row of an op's argument table: the key is the field's name. */
#define OP_ARG(T, f, ty, df, lo_, hi_) \
	{ .name = #f, .type = ty, .off = offsetof(T, f), .def = df, .lo = lo_, .hi = hi_ }
#define OP_ARG_LIST(T, f, n, df, lo_, hi_) \
	{ .name = #f, .type = OPT_DOUBLES, .off = offsetof(T, f), .def = df, .lo = lo_, \
	  .hi = hi_, .count = n }

/* An op's arguments are the rows of its table (struct op_ops.args, the
 * option table of options.h, OPT_END last): each row names a field of the
 * op's argument struct, its type (OPT_INT: long, OPT_DOUBLE: double,
 * OPT_DOUBLES: double[count]), its range [lo, hi] and its default as text
 * (.def, written once: parsed into the struct and shown by op_help).
 * Every value must lie in [lo, hi]; a number is also finite ("nan", "inf",
 * "1e999" are refused), so every op states its range in its table and none
 * checks on its own.
 *
 * op_args_parse fills out (op->args_size bytes) with the defaults, then
 * with the values given: 0, or -1 with err ("size: 'x' is not an integer",
 * "ms: '-1' is out of range [0, 60000]"). */
int op_args_parse(const struct op_ops *op, struct op_args *a, void *out,
		  char *err, size_t errlen);
/* An op configured from the arguments of its line: parsed, given to init,
 * then every argument must have been read (today's order). 0 with *cfg set
 * (NULL for an op without configuration), or -1 with err naming the op:
 * "resize: size: 'x' is not an integer", "op 'resize' has no argument
 * 'sise'". */
int op_configure(const struct op_ops *op, struct op_args *a, void **cfg,
		 char *err, size_t errlen);
/* The op's line in `ppbench ops`: "NAME [key=DEF] ...: what" (a row without
 * a default shows key=METAVAR). */
void op_help(const struct op_ops *op, char *buf, size_t n);
/* An op's output of w x h pixels, checked before it is allocated: over
 * the sample's --max-pixels (the decompression-bomb bound decode applies,
 * here to every op: a 65000x1 image resized to a short side of 256 would be
 * 16640000x256, 13.6 GiB), the sample fails with the size and the limit, a
 * data error as a corrupt file is (skipped, or the run stopped with
 * --on-error fail). 0, or -1 (sample_fail) to return from the op. */
int op_check_out(struct sample *s, long long w, long long h);

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
	const char *what;          /* what it does: op_help's text after the colon */
	unsigned flags;
	enum pix_kind in, out;     /* PIX_NONE as `in` for decode, any for null */

	/* Its arguments (NULL: none) and the size of the struct they fill. */
	const struct opt *args;
	size_t args_size;
	/* From the parsed arguments (args_size bytes, NULL without a table),
	 * make *cfg (heap; NULL is fine). 0 or -1 with err. An op with a table
	 * and no init is configured by its arguments: *cfg is the parsed struct
	 * (malloc'd: release is free). */
	int (*init)(const void *args, void **cfg, char *err, size_t errlen);
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
