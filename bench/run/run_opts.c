/* The options of a run (run.h): the one table that `run` and the commands
 * taking "the same options as run" parse with, and their checks. */
#include <stddef.h>
#include <stdio.h>
#include "counters.h"
#include "decode.h"
#include "loader.h"
#include "noise.h"
#include "options.h"
#include "pipeline.h"
#include "run.h"
#include "topology.h"

/* The --counters default. sw costs one group read per op boundary (about
 * 0.4 us here), measured against imagenet_train in BENCHMARKS.md. */
#define COUNTERS_DEFAULT "sw"
#define COUNTERS_DEFAULT_WHY "sw by default: it gives on-CPU vs wall time per op for under 1 % " \
	"of imagenet_train's time (none: nothing counted)"

#define O(f) offsetof(struct run_opts, f)
const struct opt run_opts_table[] = {
	OPT_DATA(struct run_opts, data),
	OPT_PIPELINE(struct run_opts, pipeline, OPT_PIPELINE_HELP),
	{ "workers", 'w', OPT_INT, O(workers), "2", "W", "worker processes (or threads)",
	  .lo = 1, .hi = 1024 },
	{ "batch", 'b', OPT_INT, O(batch_size), "128", "B", "samples per batch", .lo = 1, .hi = 65536 },
	{ "gpus", 'g', OPT_INT, O(gpus), "2", "G", "simulated GPUs (chooses the auto step time)",
	  .lo = 1, .hi = 64 },
	{ "gpu-step", 0, OPT_TIME, O(gpu_step), "auto", "TIME|auto",
	  "simulated training step per batch; auto: measured ResNet18/V100 step for B and G",
	  .unit = "ms", .lo = 0, .hi = 60e9 },
	{ "gpu-step-scale", 0, OPT_DOUBLE, O(gpu_step_scale), "1", "X",
	  "multiply the GPU step by X (make reproduce: this machine's preprocessing cost per image "
	  "over the paper's, so that GPU and CPU time per image stand as in the paper)",
	  .lo = 1e-4, .hi = 1e4 },
	{ "h2d-bandwidth", 0, OPT_RATE, O(h2d), "12GB/s", "RATE",
	  "simulated host-to-device copy bandwidth (0: no copy); a batch's copy may last a minute at most, as --gpu-step", .unit = "B/s", .lo = 0, .hi = 1e13 },
	{ "prefetch-factor", 'P', OPT_INT, O(prefetch_factor), "2", "P",
	  "batches in flight per worker (P x W in all)", .lo = 1, .hi = 1024 },
	{ "pin-memory", 0, OPT_BOOL, O(pin), "on", NULL,
	  "copy each batch into page-locked memory in a pin thread", .choices = NULL },
	{ "epochs", 'e', OPT_INT, O(epochs), "1", "N", "passes over the dataset", .lo = 1, .hi = 1000000 },
	{ "max-batches", 'n', OPT_U64, O(max_batches), "0", "N",
	  "stop after N batches in all (0: every batch)", .choices = NULL },
	{ "shuffle", 0, OPT_BOOL, O(shuffle), "on", NULL, "shuffle each epoch (torch RandomSampler)", .choices = NULL },
	{ "drop-last", 0, OPT_BOOL, O(drop_last), "off", NULL, "drop the last, smaller batch", .choices = NULL },
	OPT_SEED(struct run_opts, seed, "seed of the run (torch.manual_seed)"),
	{ "backend", 0, OPT_ENUM, O(backend), "process", NULL,
	  "workers as forked processes or as threads", .choices = BACKEND_CHOICES },
	{ "order", 0, OPT_ENUM, O(order), "inorder", NULL,
	  "hand batches over by id (reorder buffer) or as they arrive", .choices = ORDER_CHOICES },
	{ "policy", 0, OPT_ENUM, O(policy), "torch", NULL,
	  "torch: a batch per task, one worker each (with --order); shared-queue: workers "
	  "take samples from one queue, batches form in completion order; speedy: "
	  "shared-queue plus SpeedyLoader's slow lane", .choices = POLICY_CHOICES },
	{ "speedy-timeout-pct", 0, OPT_DOUBLE, O(speedy_pct), "75", "PCT",
	  "speedy: a sample slower than this percentile of the warm-up goes to the slow lane",
	  .lo = 1, .hi = 100 },
	{ "rng", 0, OPT_ENUM, O(rng), "per-sample", NULL,
	  "random stream per sample (independent of W, B, order) or per worker as torch",
	  .choices = RNG_CHOICES },
	{ "on-error", 0, OPT_ENUM, O(on_error), "skip", NULL,
	  "a sample that fails: leave it out of its batch, or stop the run", .choices = ON_ERROR_CHOICES },
	{ "timeout", 0, OPT_TIME, O(timeout), "0", "TIME",
	  "fail the run when no batch comes from the workers for TIME (PyTorch's DataLoader "
	  "timeout; 0: wait for ever, as PyTorch)", .unit = "s", .lo = 0, .hi = 86400e9 },
	{ "stall-notice", 0, OPT_TIME, O(stall_notice), "30s", "TIME",
	  "say so, naming any stopped worker, each TIME without a batch from the workers "
	  "(0: never)", .unit = "s", .lo = 0, .hi = 86400e9 },
	OPT_MAX_PIXELS(struct run_opts, max_pixels, OPT_MAX_PIXELS_HELP),
	OPT_MAX_FILE_SIZE(struct run_opts, max_file_size),
	{ .name = "counters", .type = OPT_LIST, .off = O(counters), .def = COUNTERS_DEFAULT,
	  .metavar = "LIST", .help = "events counted around each op: presets "
	  COUNTERS_PRESETS_SHORT ", or libpfm4/perf event names (ppbench info shows them); "
	  COUNTERS_DEFAULT_WHY },
	PIN_OPT(struct run_opts, pin_cpus),
	NOISE_OPT(struct run_opts, require_idle),
	{ "repeat", 'r', OPT_INT, O(repeat), "1", "N",
	  "runs of the configuration, each its own results folder (-r1, -r2, ...), then the "
	  "median and spread of the main figures", .lo = 1, .hi = 1000 },
	{ "trace", 0, OPT_BOOL, O(trace), "on", NULL,
	  "record per-sample and per-op events (batch events are always recorded)", .choices = NULL },
	{ "checksum", 0, OPT_BOOL, O(checksum), "on", NULL,
	  "hash every sample's output and label (proof of work; costs about 2 % of decode-bound work)",
	  .choices = NULL },
	{ "trace-capacity", 0, OPT_U64, O(trace_capacity), "0", "N",
	  "events per worker buffer (0: what the run needs); more are counted as dropped",
	  .lo = 0, .hi = 1e9 },
	{ "dump-batches", 0, OPT_U64, O(dump_batches), "0", "N",
	  "write the first N batches handed over as batches/batch_<id>.npy (for checks, not timing)",
	  .choices = NULL },
	OPT_TAG(struct run_opts, tag, "name of the results folder after the time (default: PIPELINE-bB-wW-gG)"),
	OPT_OUT(struct run_opts, out, "results", OPT_OUT_HELP),
	OPT_END
};
#undef O

int run_opts_check(struct run_opts *o, uint64_t *step_ns, char *err, size_t errlen)
{
	if (o->prefetch_factor * o->workers > 8192) {
		snprintf(err, errlen, "--prefetch-factor x --workers is %ld: at most 8192 batches can "
			 "be in flight", o->prefetch_factor * o->workers);
		return -1;
	}
	if (run_gpu_step(o, step_ns, err, errlen))
		return -1;
	o->gpu_step = *step_ns;
	if (!*o->out) {
		snprintf(err, errlen, "--out: empty folder name");
		return -1;
	}
	return 0;
}
