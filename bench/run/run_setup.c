/* A run's set-up (run.h): its inputs, its loader configuration, its GPU
 * step, the room for its results, and its environment (counters, pin plan). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "consumer.h"
#include "counted.h"
#include "counters.h"
#include "emit.h"
#include "exitcode.h"
#include "fsutil.h"
#include "generate.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "pipeline.h"
#include "run.h"
#include "topology.h"

/* Load o->pipeline into pipe and scan o->data into data; without --data, the
 * default dataset (generated on first use; its path in data_path, which
 * o->data then points to). *have_pipe and *have_data say what to release.
 * 0, or the exit code after the message: 2 (EXIT_USAGE) for a bad pipeline
 * or dataset, 1 when the default dataset cannot be made. */
int run_open_inputs(struct run_opts *o, struct pipeline *pipe, struct dataset *data,
		    char *data_path, size_t len, int *have_pipe, int *have_data)
{
	char err[1024];   /* as before: the class-list error fits what it can and counts the rest */
	if (pipeline_load(pipe, o->pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	*have_pipe = 1;
	if (!o->data) {
		if (dataset_ensure_default(data_path, len, err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		o->data = data_path;
	}
	if (dataset_scan(data, o->data, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	*have_data = 1;
	return 0;
}

/* The loader configuration of a run's options; pipe, data and the GPU step
 * are resolved by the caller. */
struct loader_cfg run_loader_cfg(const struct run_opts *o, const struct pipeline *pipe,
				 const struct dataset *data, uint64_t step_ns)
{
	struct loader_cfg lc = {
		.pipe = pipe,
		.data = data,
		.workers = (int)o->workers,
		.batch_size = (int)o->batch_size,
		.prefetch_factor = (int)o->prefetch_factor,
		.epochs = (int)o->epochs,
		.max_batches = o->max_batches,
		.shuffle = o->shuffle,
		.drop_last = o->drop_last,
		.seed = o->seed,
		.backend = (enum loader_backend)o->backend,   /* *_CHOICES: in the enums' order */
		.order = (enum loader_order)o->order,
		.rng = (enum loader_rng)o->rng,
		.on_error = (enum loader_on_error)o->on_error,
		.policy = (enum loader_policy)o->policy,
		.speedy_timeout_pct = o->speedy_pct,
		.pin_memory = o->pin,
		.trace = o->trace,
		.checksum = o->checksum,
		.trace_capacity = o->trace_capacity,
		.max_pixels = o->max_pixels,
		.max_file_bytes = o->max_file_size,
		.gpu_step_ns = step_ns,
		.h2d_bytes_per_s = o->h2d,
		.data_timeout_ns = o->timeout,
		.stall_notice_ns = o->stall_notice,
	};
	return lc;
}

/* A disk without room for the results is refused before anything runs:
 * the bytes the results will take (results_size_estimate) against the free
 * bytes where they go. 0, or -1 with err. */
int run_check_space(const struct run_opts *o, const struct pipeline *pipe,
		    const struct dataset *data, char *err, size_t errlen)
{
	uint64_t images = (uint64_t)data->n * (uint64_t)o->epochs;
	if (o->max_batches && o->max_batches * (uint64_t)o->batch_size < images)
		images = o->max_batches * (uint64_t)o->batch_size;
	uint64_t batches = (images + (uint64_t)o->batch_size - 1) / (uint64_t)o->batch_size;
	uint64_t events = batches * 10 + (o->trace ? images * (uint64_t)(pipe->nops + 2) : 0);
	uint64_t need = results_size_estimate(events, batches, o->trace, o->trace) *
			(uint64_t)o->repeat;
	uint64_t avail;
	char where[PATH_MAX];
	if (free_bytes_at(o->out, &avail, where, sizeof(where)))
		return 0;   /* cannot tell: the writer reports a full disk itself */
	if (avail >= need)
		return 0;
	errf(err, errlen, "not enough free space for the results in '%s': about %.1f MiB needed "
	     "(%" PRIu64 " trace events, %" PRIu64 " batches%s), %.1f MiB free (free some space, or "
	     "give --out another folder; --trace off needs less)", where, (double)need / 1048576.0,
	     events, batches, o->repeat > 1 ? ", every repeat" : "", (double)avail / 1048576.0);
	return -1;
}

int run_gpu_step(const struct run_opts *o, uint64_t *step_ns, char *err, size_t errlen)
{
	uint64_t ns = o->gpu_step;
	if (ns == OPT_AUTO && gpu_step_auto(o->batch_size, o->gpus, &ns, err, errlen)) {
		char why[512];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--gpu-step auto: %s", why);
		return -1;
	}
	double scaled = (double)ns * (o->gpu_step_scale > 0 ? o->gpu_step_scale : 1);
	if (scaled > 60e9) {
		snprintf(err, errlen, "--gpu-step-scale %g makes a GPU step of %.0f s: at most 60 s",
			 o->gpu_step_scale, scaled / 1e9);
		return -1;
	}
	*step_ns = (uint64_t)(scaled + 0.5);
	return 0;
}

/* Before anything runs: the counters (parse, probe, what a read costs) and
 * the pin plan on this machine's topology. 0, or an exit status. */
int run_env_prepare(struct run_env *x, const struct run_opts *o)
{
	char err[1024] = "";
	x->spec = calloc(1, sizeof(*x->spec));
	x->req = calloc(1, sizeof(*x->req));
	if (!x->spec || !x->req) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	if (counters_parse(o->counters, x->spec, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (pin_parse(o->pin_cpus, x->req, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (topo_load(&x->topo, err, sizeof(err))) {
		if (x->req->policy != PIN_NONE) {
			error_msg("--pin %s: %s", o->pin_cpus, err);
			return EXIT_FAIL;
		}
		warn_msg("%s: no topology.xml in the results", err);
	} else {
		x->have_topo = 1;
		if (pin_plan_compute(&x->topo, x->req, (int)o->workers, &x->plan, err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_USAGE;
		}
		x->have_plan = 1;
	}
	return 0;
}

/* The counters, once the run is known to go ahead: probe (and say so when
 * hardware events fall back), and measure what counting costs. */
void run_env_probe(struct run_env *x)
{
	char err[1024] = "";
	counters_probe(x->spec);
	if (x->spec->note[0])
		info("%s", x->spec->note);
	if (!x->spec->n)
		return;
	if (counters_measure_overhead(x->spec, err, sizeof(err)))
		warn_msg("cannot measure the cost of a counter read: %s", err);
	if (counted_null_overhead(x->spec, &x->null_ov, err, sizeof(err)))
		warn_msg("cannot measure counting on the null op: %s", err);
	else
		x->null_ok = 1;
}

void run_env_release(struct run_env *x)
{
	if (x->have_plan)
		pin_plan_free(&x->plan);
	if (x->have_topo)
		topo_release(&x->topo);
	free(x->spec);
	free(x->req);
}
