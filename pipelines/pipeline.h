/* A pipeline: an ordered list of configured ops, read from a .pipe file. */
#ifndef PPBENCH_PIPELINE_H
#define PPBENCH_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "op.h"

#define PIPE_MAX_OPS 16
/* The largest .pipe file read (a pipeline is a few lines): a bigger one,
 * or one that is no regular file (/dev/zero, a FIFO), is refused unread. */
#define PIPELINE_FILE_MAX ((off_t)1 << 20)

struct pipe_op {
	const struct op_ops *ops;
	void *cfg;
	char line[256];            /* the line it came from, for the results */
};

struct pipeline {
	char name[64];             /* file name without .pipe */
	char path[512];
	int nops;
	struct pipe_op op[PIPE_MAX_OPS];
	int batch_op;              /* index of the OP_BATCH op, or -1 */
};

/* Find NAME as a path, else pipelines/NAME.pipe next to the executable's
 * source tree or the installed data dir. 0, or -1 with err. */
int pipeline_load(struct pipeline *p, const char *name_or_path, char *err, size_t errlen);
int pipeline_parse(struct pipeline *p, const char *text, const char *origin,
		   char *err, size_t errlen);
void pipeline_release(struct pipeline *p);
/* Index of the op named `name`, or -1. */
int pipeline_find(const struct pipeline *p, const char *name);
/* Keep only ops up to and including index `last`. */
void pipeline_truncate(struct pipeline *p, int last);

/* Per-op timing of one sample: what the harness records. */
struct op_time {
	uint64_t start_ns;   /* clock_now_ns() before the op */
	uint64_t dur_ns;
};

/* Run the per-sample ops (all but the batch op) on s. t[] receives one entry
 * per op index (the batch op's entry is untouched). Returns 0, or the index+1
 * of the op that failed (s->err says why). Between two clock reads there is
 * only the op itself. */
int pipeline_run_sample(const struct pipeline *p, struct sample *s, struct op_time *t);

#endif
