/* ppbench run: one configuration of the loader, start to results folder. */
#ifndef PPBENCH_RUN_H
#define PPBENCH_RUN_H

#include <stdint.h>
#include "loader.h"
#include "options.h"

/* The options of a run: one table (cmd_run.c) that `run` and the commands that
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

struct pipeline;
struct dataset;
/* The loader configuration of the options o (pipe, data and the GPU step
 * resolved by the caller; no pin plan). */
struct loader_cfg run_loader_cfg(const struct run_opts *o, const struct pipeline *pipe,
				 const struct dataset *data, uint64_t step_ns);

/* The GPU step of o in ns: --gpu-step (auto: the measured ResNet18/V100
 * step for the batch and GPU count) times --gpu-step-scale. 0, or -1 with
 * err (auto has no step for that GPU count). */
int run_gpu_step(const struct run_opts *o, uint64_t *step_ns, char *err, size_t errlen);

/* Load the pipeline and the dataset of the options (cmd_run.c). */
int run_open_inputs(struct run_opts *o, struct pipeline *pipe, struct dataset *data,
		    char *data_path, size_t len, int *have_pipe, int *have_data);

#endif
