/* Single-threaded passes of a pipeline over a dataset's first images (the
 * ops section of `ppbench bench`), and the fused what-if built on them:
 * the faithful pipeline and its fused counterpart (decode +
 * random_resized_crop as one op that decodes only the crop), pass by pass
 * in alternating order over the same images with the same seeds. `make
 * bench` prints it; `ppbench sweep` measures it before its runs and the
 * report turns it into the CPU a user would save per GPU. */
#ifndef PPBENCH_WHATIF_H
#define PPBENCH_WHATIF_H

#include <stddef.h>
#include <stdint.h>
#include "pipeline.h"
#include "stats.h"

struct dataset;
struct json_t;

/* What one pass of a pipeline over the images measured. */
struct ops_pass {
	double ms[PIPE_MAX_OPS];   /* mean ms per image of each op (collate: per batch / B) */
	size_t cnt[PIPE_MAX_OPS];
	size_t failed;
	uint64_t checksum;         /* sum of the samples' hashes (checksum_sample) */
};

/* The buffers of a pass, reused from pass to pass. */
struct ops_ws {
	size_t batch_size;
	struct sample *smp;
	struct sample **ptr;
	struct rng *rngs;
	struct scratch scr;
	struct batch_out out;
};

void ops_ws_init(struct ops_ws *w, size_t B);
void ops_ws_release(struct ops_ws *w);

/* One pass of pipeline p over the first n images of d, single-threaded,
 * with the same seeds every pass (so two pipelines drawing alike see the
 * same crops), batches of w->B for the batch op. */
void ops_pass(const struct pipeline *p, const struct dataset *d, size_t n, struct ops_ws *w,
	      struct ops_pass *a);

/* The CPU time per image of the pipeline pipe on this thread (user +
 * system, getrusage RUSAGE_THREAD: time descheduled by other load is not
 * in it) in rounds passes over the first n images of d, after one
 * unmeasured pass; batches of `batch` for the batch op. ms[r]: round r's
 * ms per image. 0, or -1 with err (the pipeline cannot be loaded, every
 * image failed). make reproduce's probe (ppbench regime). */
int ops_cpu_probe(const char *pipe, const struct dataset *d, size_t n, size_t rounds,
		  size_t batch, double *ms, char *err, size_t errlen);

/* The fused what-if, measured: rounds x (one pass of each, alternating who
 * goes first), after one unmeasured pass of each (files into the page
 * cache, buffers grown). Per round: images/s of each (1 / the sum of the
 * op means, wall time), the CPU time per image of each pass (the thread's
 * user + system time, getrusage RUSAGE_THREAD, over the images: the ops
 * and each tensor's checksum; time descheduled by other load is not in
 * it), the CPU ms per image saved (faithful - fused) and the ratio fused /
 * faithful images/s. */
struct whatif {
	char faithful[64], fused[64];   /* the pipelines' names */
	size_t images, rounds, failed;
	double *ips[2];         /* [rounds] images/s: [0] faithful, [1] fused */
	double *cpu_ms[2];      /* [rounds] CPU ms per image */
	double *saved_ms;       /* [rounds] cpu_ms[0] - cpu_ms[1] */
	double *ratio;          /* [rounds] ips[1] / ips[0] */
	double *front;          /* [rounds] (decode + random_resized_crop ms) / fused op ms */
	uint64_t checksum[2];   /* of round 1 */
	int identical;          /* the checksums agree, and every round gave the same */
	uint64_t regions, full; /* the fused op's images by region and in full, in one pass */
};

/* Measure w over the first n images of d. 0, or -1 with err (a pipeline
 * that cannot be loaded, out of memory). Free with whatif_release. */
int whatif_measure(const char *faithful, const char *fused, const struct dataset *d, size_t n,
		   size_t rounds, size_t batch, struct whatif *w, char *err, size_t errlen);
void whatif_release(struct whatif *w);

/* As sweep.json's "fused_whatif" keeps it: the pipelines, images, rounds,
 * "single_threaded": true, per figure its per-round values and summary
 * (faithful_cpu_ms_per_image, fused_cpu_ms_per_image,
 * saved_cpu_ms_per_image, fused_over_faithful_images_per_s), the checksums, tensors_identical,
 * region_decodes, full_decodes. New reference. */
struct json_t *whatif_json(const struct whatif *w);

#endif
