/* The per-sample loop with counters: pipeline_run_sample (pipelines/
 * pipeline.h) plus one counter read at every op boundary, for the loader's
 * workers and for `ppbench info`.
 *
 * Order around op i: counters read (boundary i), clock, op, clock, counters
 * read (boundary i + 1). A boundary's read closes one op and opens the next:
 * n + 1 reads for n ops, and no read ever lands between the two clock reads.
 * The counter window of op i also holds the few stores between its clock
 * reads and the reads at its ends; counters_measure_overhead measures that
 * floor as the "empty region". */
#ifndef PPBENCH_COUNTED_H
#define PPBENCH_COUNTED_H

#include <stddef.h>
#include <stdint.h>
#include "counters.h"
#include "pipeline.h"

/* As pipeline_run_sample, and acc[i] (one per pipeline op index, plain data
 * the caller owns, e.g. in shared memory) gets op i's region. g == NULL:
 * exactly pipeline_run_sample. A failed op's region is not accumulated (its
 * t[] entry is filled, as pipeline_run_sample does); a failed read drops the
 * regions it bounds (acc->failed). */
int pipeline_run_sample_counted(const struct pipeline *p, struct sample *s, struct op_time *t,
				struct counter_group *g, struct counter_acc *acc);

/* The batch op (p->batch_op) on samples[0..n), timed into *t and counted
 * into acc[p->batch_op] (g may be NULL). Returns run_batch's result. */
int counted_run_batch(const struct pipeline *p, struct sample *const *samples, size_t n,
		      struct batch_out *out, char *err, size_t errlen, struct op_time *t,
		      struct counter_group *g, struct counter_acc *acc);

/* What counting costs a sample, measured on a pipeline of one null op:
 * the same samples run plain and counted, in interleaved rounds. */
struct counted_overhead {
	double plain_ns;        /* median time of one sample, plain */
	double counted_ns;      /* median time of one sample, counted (2 reads) */
	double per_op_ns;       /* what each further op adds: one read (spec->ov.read_ns
				   when measured, else (counted - plain) / 2) */
	uint64_t samples;       /* samples behind each median */
};

/* Runs on the calling thread (opens its own group). 0, or -1 with err. */
int counted_null_overhead(const struct counter_spec *spec, struct counted_overhead *o,
			  char *err, size_t errlen);

#endif
