/* The simulated GPU: the training step that consumes each batch, as the
 * training loop of the Lotus study runs it in the main process. For each
 * batch it "copies" the batch to the device (sleeps bytes / bandwidth), then
 * "computes" (sleeps the step time). It burns no CPU while doing so, and it
 * accounts busy time (copy + step) and idle time (waiting for data, i.e.
 * starved). */
#ifndef PPBENCH_CONSUMER_H
#define PPBENCH_CONSUMER_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include "trace.h"

/* The default step time: the measured ResNet18 step on V100s of the Lotus
 * study (datasets/reference/lotus/lotus_gpu_step_ms.csv: move to device +
 * forward + backward, DataParallel) for batch B on G GPUs. A batch size
 * missing from the table is scaled linearly in B from the nearest measured
 * batch size with the same G. 0, or -1 with why (no row for G GPUs). */
int gpu_step_auto(long batch, long gpus, uint64_t *step_ns, char *why, size_t whylen);

/* The longest simulated step, and copy of one batch: a minute (--gpu-step's
 * bound). A run whose copy would take longer is refused (loader_plan). */
#define GPU_MAX_NS 60000000000ull

/* ns of the simulated copy of bytes at bytes_per_s (0: no copy, 0 ns);
 * UINT64_MAX when it would pass GPU_MAX_NS (1 B/s, 1e-300 B/s). */
uint64_t gpu_copy_ns(uint64_t bytes, double bytes_per_s);

struct gpu_sim {
	uint64_t step_ns;          /* per batch */
	double h2d_bytes_per_s;    /* simulated host-to-device bandwidth */
	uint64_t busy_ns, idle_ns; /* accounted so far */
	uint64_t copy_ns;          /* of which copying */
	uint64_t model_ns;         /* what the copies and steps should have taken: busy_ns
				      beyond it is the sleeps' overshoot, the harness's */
	uint64_t last_end;         /* monotonic ns when the last step ended (or the start) */
	uint64_t batches;
};

/* Start accounting at monotonic time `start`. */
void gpu_init(struct gpu_sim *g, uint64_t step_ns, double h2d_bytes_per_s, uint64_t start);

/* Consume one batch of `bytes`: idle since the last step, copy, step. Events
 * EV_GPU_COPY and EV_GPU_STEP go to tp (NULL: none), in wall-clock ns
 * (monotonic + wall_off). *stop (set by a signal handler) cuts the sleeps
 * short when check(arg) returns non-zero; check runs whenever a signal
 * interrupts a sleep. Returns 0, or -1 if cut short. */
int gpu_consume(struct gpu_sim *g, size_t bytes, int64_t batch, struct trace_proc *tp,
		int64_t wall_off, volatile sig_atomic_t *stop, int (*check)(void *), void *arg);

#endif
