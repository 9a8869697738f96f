#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analysis.h"
#include "clock.h"
#include "commands.h"
#include "consumer.h"
#include "counted.h"
#include "counters.h"
#include "decode.h"
#include "emit.h"
#include "escape.h"
#include "fsutil.h"
#include "describe.h"
#include "generate.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "machine.h"
#include "metrics.h"
#include "noise.h"
#include "options.h"
#include "pipeline.h"
#include "repeats.h"
#include "report.h"
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

static const char usage[] = "ppbench run [options]";
static const char description[] =
	"Run one configuration: W workers following PyTorch's DataLoader protocol run the\n"
	"pipeline on the dataset, batch after batch, into a simulated GPU. Leaves\n"
	"OUT/<UTC time>-<tag>/ with summary.json, batches.csv, ops.csv, LotusTrace files,\n"
	"a Chrome trace and the machine's topology (topology.xml), and prints a summary.\n"
	"Counters (--counters) are read around every op in each worker: per op, their sums,\n"
	"the time on a CPU beside the wall time, and the difference, the time descheduled.\n"
	"Exit status: 0 done; 1 the run failed (a data error with --on-error fail); 2 a bad\n"
	"option, or a run that cannot fit in memory (nothing ran); 3 a worker died; 130, 143\n"
	"and 129 SIGINT, SIGTERM and SIGHUP. A run that stopped early still leaves its results folder,\n"
	"with \"complete\": false.";

/* ---- progress line (stderr, terminals only) ---------------------------- */

struct progress {
	uint64_t start, last;
	int shown;
};

static void progress_cb(void *arg, uint64_t batches, uint64_t total, uint64_t images)
{
	struct progress *pr = arg;
	uint64_t now = clock_now_ns();
	if (now - pr->last < 500000000ull && batches < total)
		return;
	if (now - pr->start < 1000000000ull && batches < total)
		return;
	pr->last = now;
	double s = (double)(now - pr->start) / 1e9;
	fprintf(stderr, "\r  batch %" PRIu64 "/%" PRIu64 "  %.0f images/s  %.1f s ", batches, total,
		s > 0 ? (double)images / s : 0.0, s);
	pr->shown = 1;
}

/* ---- results ------------------------------------------------------------ */


/* Peak resident memory summed over the main process and the workers (a
 * shared page touched by several processes counts in each: an upper bound). */
static long rss_sum_kib(const struct loader_result *r)
{
	long rss = r->main_maxrss_kib;
	for (int w = 0; r->worker_maxrss_kib && w < r->workers; w++)
		rss += r->worker_maxrss_kib[w];
	return rss;
}

/* summary.json "loader.memory": what the run planned and used beside what
 * PyTorch 1.13 would hold (docs/protocol.md, "Memory"). */
static json_t *loader_memory_json(const struct loader_result *r)
{
	const struct loader_plan *pl = &r->plan;
	json_t *j = json_object();
	long rss = rss_sum_kib(r);
	int have_rss = rss > 0;
	json_object_set_new(j, "batch_buffer_bytes", json_integer((json_int_t)pl->slot_bytes));
	json_object_set_new(j, "batch_buffers", json_integer(pl->nslots));
	json_object_set_new(j, "batch_buffers_peak", json_integer(r->buffers_peak));
	json_object_set_new(j, "largest_batch", json_integer((json_int_t)pl->batch_max));
	json_object_set_new(j, "planned_bytes", json_integer((json_int_t)pl->need_bytes));
	json_object_set_new(j, "planned_batch_bytes", json_integer((json_int_t)pl->batch_bytes));
	json_object_set_new(j, "planned_trace_bytes", json_integer((json_int_t)pl->trace_bytes));
	json_object_set_new(j, "planned_sample_bytes", json_integer((json_int_t)pl->sample_bytes));
	json_object_set_new(j, "torch_batch_buffers", json_integer(pl->torch_buffers));
	json_object_set_new(j, "torch_bytes",
			    json_integer((json_int_t)((uint64_t)pl->torch_buffers * pl->slot_bytes +
						      pl->sample_bytes)));
	json_object_set_new(j, "measured_peak_rss_sum_bytes",
			    have_rss ? json_integer((json_int_t)rss * 1024) : json_null());
	json_object_set_new(j, "available_bytes", json_integer((json_int_t)pl->avail_bytes));
	return j;
}

/* summary.json "loader": the loader's configuration and plan (its measured
 * figures are in the metric table's blocks). */
static json_t *loader_json(const struct run_opts *o, const struct loader_result *r,
			   uint64_t step_ns)
{
	json_t *j = json_object();
	json_object_set_new(j, "backend", json_string(loader_backend_names[o->backend]));
	json_object_set_new(j, "order", json_string(loader_order_names[o->order]));
	json_object_set_new(j, "policy", json_string(loader_policy_names[o->policy]));
	if (o->policy == POLICY_SPEEDY)
		json_object_set_new(j, "speedy_timeout_pct", json_real(o->speedy_pct));
	json_object_set_new(j, "rng", json_string(loader_rng_names[o->rng]));
	json_object_set_new(j, "exit_code", json_integer(r->exit_code));
	json_object_set_new(j, "batches_scheduled", json_integer((json_int_t)r->nbatches));
	json_object_set_new(j, "sample_height_px", json_integer(r->plan.sample_h));
	json_object_set_new(j, "sample_width_px", json_integer(r->plan.sample_w));
	json_object_set_new(j, "pinned_locked",
			    r->pin_locked < 0 ? json_null() : json_boolean(r->pin_locked));
	json_object_set_new(j, "memory", loader_memory_json(r));
	json_object_set_new(j, "inflight_bound_batches", json_integer(o->prefetch_factor * o->workers));
	json_object_set_new(j, "gpu_step_ns", json_integer((json_int_t)step_ns));
	json_object_set_new(j, "h2d_bandwidth_bytes_per_s", json_real(o->h2d));
	json_object_set_new(j, "checksum_enabled", json_boolean(o->checksum));
	json_object_set_new(j, "trace_capacity_events", json_integer((json_int_t)r->plan.trace_events));
	return j;
}

/* ---- counters and placement --------------------------------------------- */

/* What the run knows about counters and where it runs. */
struct run_ctx {
	const struct pipeline *pipe;
	struct counter_spec *spec;       /* parsed, then probed; n == 0: off */
	struct counted_overhead null_ov;
	int null_ok;
	struct pin_req *req;
	struct topo topo;
	int have_topo;
	struct pin_plan plan;
	int have_plan;
	struct cpus cpus;                /* the CPUs the run may use */
	const struct dataset *data;      /* what it reads (summary.json "dataset") */
	struct noise noise;              /* what else used them while it measured */
};

/* Results keys of the pipeline's ops, as summary.json's "ops" makes them
 * ("name", then "name#2" for a second op of the same name). */
static void op_key(const struct pipeline *p, int i, char *key, size_t n)
{
	int k = 1;
	for (int j = 0; j < i; j++)
		k += !strcmp(p->op[j].ops->name, p->op[i].ops->name);
	if (k == 1)
		snprintf(key, n, "%s", p->op[i].ops->name);
	else
		snprintf(key, n, "%s#%d", p->op[i].ops->name, k);
}

/* summary.json "counters": the events and their status, the overheads, and
 * per op the raw sums (the figures derived from them are op figures). */
static json_t *counters_block(const struct run_ctx *x, const struct loader_result *r)
{
	const struct pipeline *p = x->pipe;
	json_t *j = counters_spec_json(x->spec);
	if (!j)
		return NULL;
	json_object_set_new(j, "workers_counted", json_integer(r->workers_counted));
	if (x->null_ok) {
		json_t *n = json_object();
		json_object_set_new(n, "plain_ns_per_sample", json_real(x->null_ov.plain_ns));
		json_object_set_new(n, "counted_ns_per_sample", json_real(x->null_ov.counted_ns));
		json_object_set_new(n, "per_op_ns", json_real(x->null_ov.per_op_ns));
		json_object_set_new(n, "samples", json_integer((json_int_t)x->null_ov.samples));
		json_object_set_new(j, "null_op_overhead", n);
	}
	json_t *ops = json_object();
	for (int i = 0; r->cacc && i < p->nops; i++) {
		char key[64];
		op_key(p, i, key, sizeof(key));
		json_object_set_new(ops, key, counters_op_json(x->spec, &r->cacc[i], r->samples_done));
	}
	json_object_set_new(j, "ops", ops);
	return j;
}

static const char *oncpu_source_name(enum oncpu_source s)
{
	return s == ONCPU_TASK_CLOCK ? "task-clock" : s == ONCPU_THREAD_CLOCK ? "thread CPU clock" :
									   "none";
}

/* The human summary's counters section: per op, on-CPU vs wall time (and
 * IPC, misses per kilo-instruction where hardware events count). */
static void print_counters(FILE *f, const struct run_ctx *x, const struct loader_result *r)
{
	const struct counter_spec *sp = x->spec;
	const struct pipeline *p = x->pipe;
	if (!sp->n) {
		fprintf(f, "counters: none (--counters sw gives on-CPU vs wall time per op)\n");
		return;
	}
	fprintf(f, "counters: %s; on-CPU time from %s; %d of %d worker%s counted", sp->list,
		oncpu_source_name(sp->oncpu), r->workers_counted, r->workers, plural_s(r->workers));
	if (sp->has_overhead)
		fprintf(f, "; a read costs %.0f ns", sp->ov.read_ns);
	if (x->null_ok)
		fprintf(f, " (null op: %.0f ns per sample counted, %.0f plain)", x->null_ov.counted_ns,
			x->null_ov.plain_ns);
	fputc('\n', f);
	int hw = 0;
	for (int i = 0; i < sp->n; i++)
		hw |= sp->ev[i].hw && sp->ev[i].slot >= 0;
	fprintf(f, "  %-22s %10s %12s %12s %8s", "op", "regions", "wall ms", "on-CPU ms", "off-CPU");
	if (hw)
		fprintf(f, " %6s %11s %12s", "IPC", "cache MPKI", "branch MPKI");
	fputc('\n', f);
	for (int i = 0; r->cacc && i < p->nops; i++) {
		const struct counter_acc *a = &r->cacc[i];
		if (!a->regions)
			continue;
		struct counter_derived d;
		char key[64];
		counters_derived(sp, a, &d);
		op_key(p, i, key, sizeof(key));
		double n = (double)a->regions;
		fprintf(f, "  %-22s %10" PRIu64 " %12.4f %12.4f %7.1f%%", key, a->regions,
			d.wall_ns / n / 1e6, d.oncpu_ns / n / 1e6,
			d.wall_ns > 0 ? 100.0 * d.descheduled_ns / d.wall_ns : NAN);
		if (hw)
			fprintf(f, " %6.2f %11.2f %12.2f", d.ipc, d.cache_mpki, d.branch_mpki);
		fputc('\n', f);
	}
	fprintf(f, "  (ms per region; off-CPU = wall - on-CPU: the time the op was descheduled; "
		"within about one read cost, %.1f us, of 0 it is noise)\n",
		sp->has_overhead ? sp->ov.read_ns / 1e3 : NAN);
	if (sp->note[0])
		fprintf(f, "  %s\n", sp->note);
	else if (!sp->have_pmu)
		fprintf(f, "  counters: hardware events are not supported here (no hardware PMU%s); "
			"software events only\n", sp->forced_no_pmu ? ": PPBENCH_FORCE_NO_PMU=1" : "");
}

/* One line on where things ran, when a plan binds anything. */
static void print_placement(FILE *f, const struct run_ctx *x, const struct loader_result *r)
{
	if (!x->have_plan || x->plan.policy == PIN_NONE)
		return;
	char line[512];
	int pinned = 0;
	pin_plan_format(&x->plan, line, sizeof(line));
	for (int w = 0; w < r->workers; w++)
		pinned += r->worker_pinned[w] == 1;
	fprintf(f, "placement: --pin %s: %s; %d of %d worker%s bound%s\n", x->plan.text, line, pinned,
		r->workers, plural_s(r->workers), x->plan.oversubscribed ? " (oversubscribed)" : "");
}

/* The human summary's last lines: what the harness itself cost. */
static void print_harness(FILE *f, const struct run_opts *o, const struct loader_result *r)
{
	fprintf(f, "harness: %s backend, %s, trace event %.1f ns, ", loader_backend_names[o->backend],
		loader_order_names[o->order], r->trace_cost_ns);
	if (o->checksum)
		fprintf(f, "checksum %.3f s (%.1f GB/s)", (double)r->hash_ns / 1e9,
			r->hash_ns ? (double)r->hash_bytes / (double)r->hash_ns : 0.0);
	else
		fprintf(f, "checksum off");
	fprintf(f, ", in flight max %u of %ld", r->max_inflight, o->prefetch_factor * o->workers);
	if (r->pin_locked >= 0)
		fprintf(f, ", pinned buffers %s", r->pin_locked ? "locked" : "NOT locked (mlock failed)");
	char pl[32], tb[32], rs[32];
	uint64_t torch = (uint64_t)r->plan.torch_buffers * r->plan.slot_bytes + r->plan.sample_bytes;
	long rss = rss_sum_kib(r);
	loader_human_bytes(r->plan.need_bytes, pl, sizeof(pl));
	loader_human_bytes(torch, tb, sizeof(tb));
	loader_human_bytes((uint64_t)rss * 1024, rs, sizeof(rs));
	fprintf(f, ", memory planned %s (PyTorch %s), batch buffers %d of %d used, peak RSS summed %s",
		pl, tb, r->buffers_peak, r->plan.nslots, rs);
	if (r->trace_dropped)
		fprintf(f, ", %" PRIu64 " trace events DROPPED (raise --trace-capacity)", r->trace_dropped);
	fputc('\n', f);
}

/* The descriptive blocks of summary.json: options, dataset, machine,
 * loader, counters, pin, noise. New reference. */
static json_t *summary_blocks(const struct run_opts *o, const struct loader_result *r,
			      uint64_t step_ns, const struct run_ctx *x)
{
	json_t *b = json_object();
	json_object_set_new(b, "options", opts_json(run_opts_table, o));
	json_object_set_new(b, "dataset", dataset_json(x->data));
	json_object_set_new(b, "machine", machine_json());
	json_object_set_new(b, "loader", loader_json(o, r, step_ns));
	json_t *cb = counters_block(x, r);
	if (cb)
		json_object_set_new(b, "counters", cb);
	if (x->have_plan)
		json_object_set_new(b, "pin", pin_plan_json(&x->plan, r->worker_pinned,
							   r->main_pinned, r->pin_pinned));
	json_object_set_new(b, "noise", noise_json(&x->noise));
	return b;
}

/* The figures of the run, computed once (analysis_compute). */
static int analyse(const struct run_opts *o, const struct loader_result *r,
		   const struct run_ctx *x, struct run_metrics *m, char *err, size_t errlen)
{
	struct counter_derived d[PIPE_MAX_OPS];
	uint64_t regions[PIPE_MAX_OPS] = { 0 }, after[PIPE_MAX_OPS] = { 0 }, reads = 0;
	double faults[PIPE_MAX_OPS], faults_after[PIPE_MAX_OPS];
	int counted = x->spec->n && r->cacc;
	int pf = -1;   /* the page-faults event, if counted */
	for (int e = 0; counted && e < x->spec->n; e++)
		if (!strcmp(x->spec->ev[e].name, "page-faults"))
			pf = e;
	for (int i = 0; counted && i < x->pipe->nops && i < PIPE_MAX_OPS; i++) {
		counters_derived(x->spec, &r->cacc[i], &d[i]);
		regions[i] = r->cacc[i].regions;
		after[i] = r->cacc[i].regions - r->cacc_first[i].regions;
		/* a chain of k ops takes k + 1 reads: one more per sample and per batch */
		reads += regions[i] + (i == 0 || i == x->pipe->batch_op ? regions[i] : 0);
		struct counter_value all[COUNTERS_MAX], first[COUNTERS_MAX];
		counters_values(x->spec, &r->cacc[i], all);
		counters_values(x->spec, &r->cacc_first[i], first);
		faults[i] = pf >= 0 ? all[pf].value : NAN;
		faults_after[i] = pf >= 0 ? all[pf].value - (r->cacc_first[i].regions ? first[pf].value : 0) : NAN;
	}
	struct analysis_opts ao = {
		.start_ns = r->start_ns,
		.end_ns = r->end_ns,
		.batch_size = (int)o->batch_size,
		.workers = (int)o->workers,
		.gpus = (int)o->gpus,
		.images = r->images,
		.batches = r->batches,
		.worker_cpu_s = r->worker_cpu_s,
		.worker_maxrss_kib = r->worker_maxrss_kib,
		.main_cpu_s = r->main_cpu_s,
		.main_maxrss_kib = r->main_maxrss_kib,
		.gpu_busy_ns = r->gpu_busy_ns,
		.gpu_idle_ns = r->gpu_idle_ns,
		.checksum = r->checksum,
		.complete = r->complete,
		.stop_reason = r->complete ? NULL : r->stop_reason,
		.nskipped = r->nskipped,
		.skipped = (const char *const *)r->err_path,
		.skipped_reasons = (const char *const *)r->err_reason,
		.nskipped_listed = r->nerrors,
		.trace_cost_ns = r->trace_cost_ns,
		.op_counted = counted ? d : NULL,
		.op_regions = counted ? regions : NULL,
		.op_faults = counted ? faults : NULL,
		.op_faults_after = counted ? faults_after : NULL,
		.op_regions_after = counted ? after : NULL,
		.counter_reads = counted ? reads : 0,
		.counter_read_ns = counted && x->spec->has_overhead ? x->spec->ov.read_ns : 0,
		.worker_use = r->wuse,
		.use_workers = r->wuse_workers,
		.main_use = &r->main_use,
		.pin_copy_cpu_ns = r->pin_copy_cpu_ns,
		.checksum_ns = r->hash_ns,
		.checksum_bytes = r->hash_bytes,
		.gpu_copy_ns = r->gpu_copy_ns,
		.worker_loop_ns = r->worker_loop_ns,
		.worker_ops_ns = r->worker_ops_ns,
		.main_harness_ns = r->main_harness_ns,
		.pin_harness_ns = r->pin_harness_ns,
		.pin_copy_ns = r->pin_copy_ns,
		.gpu_model_ns = r->gpu_model_ns,
		.max_inflight = r->max_inflight,
		.samples_moved = r->samples_moved,
		.slow_lane = r->slow_lane,
		.speedy_timeout_ns = r->timeout_ns,
		.speedy = o->policy == POLICY_SPEEDY,
		.fused = pipeline_find(x->pipe, "decode_random_resized_crop") >= 0,
		.fused_regions = r->fused_regions,
		.fused_full = r->fused_full,
		.others_cpu_pct = x->noise.others_cpu_pct,
		.steal_pct = x->noise.steal_pct,
		.load1 = x->noise.load1,
		.have_priority = 1,
		.nice = x->noise.nice,
		.group_nice = x->noise.group_nice,
		.cpus_usable = x->cpus.usable,
	};
	return analysis_compute(&r->trace, &ao, m, err, errlen);
}

/* A results folder that could not be written completely is kept, under a
 * name that says so, with a summary.json that says why (when even that
 * can be written). Prints what was kept. */
static void keep_partial(const struct run_opts *o, const char *tmp, const char *name,
			 struct results_in *in, const char *why)
{
	char kept[PATH_MAX + 32], path[PATH_MAX + 64];
	snprintf(kept, sizeof(kept), "%s/%s.partial", o->out, name);
	if (rename(tmp, kept))
		snprintf(kept, sizeof(kept), "%s", tmp);
	in->write_error = why;
	json_t *sum = results_summary_json(in);
	snprintf(path, sizeof(path), "%s/summary.json", kept);
	int ok = sum && !json_dump_file(sum, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					JSON_REAL_PRECISION(METRIC_JSON_PRECISION));
	json_decref(sum);
	if (ok)
		info("kept what was written in '%s' (its summary.json says \"complete\": false and why); "
		     "the figures above are the run's", kept);
	else {
		unlink(path);
		info("kept what was written in '%s' (summary.json could not be written either: %s); "
		     "the figures above are the run's", kept, strerror(errno ? errno : EIO));
	}
}

static int write_results(const struct run_opts *o, const struct loader_result *r,
			 uint64_t step_ns, const struct run_ctx *x, const char *tmp, const char *name,
			 char *final, size_t finallen)
{
	char err[PATH_MAX + 1024] = "";
	struct run_metrics m;
	if (analyse(o, r, x, &m, err, sizeof(err))) {
		error_msg("cannot analyse the run: %s", err);
		return -1;
	}
	/* the figures first: whatever happens to the files, they are printed */
	json_t *blocks = summary_blocks(o, r, step_ns, x);
	char origin[160];
	dataset_origin_text(json_object_get(blocks, "dataset"), origin, sizeof(origin));
	outf(stdout, "dataset %s: %zu images; %s\n", x->data->root, x->data->n, origin);
	results_print_human(stdout, &m);
	print_counters(stdout, x, r);
	print_placement(stdout, x, r);
	print_harness(stdout, o, r);
	fflush(stdout);

	struct results_in in = {
		.m = &m,
		.t = &r->trace,
		.blocks = blocks,
		.spec = x->spec->n ? x->spec : NULL,
		.cacc = r->cacc,
		.lotustrace = o->trace,
		.chrome = o->trace,
	};
	int rc = results_write(tmp, &in, err, sizeof(err));
	if (!rc && x->have_topo) {
		char xml[PATH_MAX + 16];
		snprintf(xml, sizeof(xml), "%s/topology.xml", tmp);
		rc = topo_export_xml(&x->topo, xml, err, sizeof(err));
	}
	if (rc) {
		error_msg("cannot write the results: %s", err);
		keep_partial(o, tmp, name, &in, err);
	} else if (results_dir_commit(o->out, tmp, name, final, finallen, err, sizeof(err))) {
		error_msg("%s", err);
		info("the results are in '%s'", tmp);
		rc = -1;
	}
	json_decref(blocks);
	analysis_free(&m);
	return rc;
}

/* Before anything runs: the counters (parse, probe, what a read costs) and
 * the pin plan on this machine's topology. 0, or an exit status. */
static int prepare_ctx(struct run_ctx *x, const struct run_opts *o)
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
static void probe_counters(struct run_ctx *x)
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

static void release_ctx(struct run_ctx *x)
{
	if (x->have_plan)
		pin_plan_free(&x->plan);
	if (x->have_topo)
		topo_release(&x->topo);
	free(x->spec);
	free(x->req);
}

/* The files left out, one line each. With
 * --on-error fail the error line already names the one that stopped the run. */
static void report_errors(const struct loader_result *r, int fail)
{
	if (!r->nerrors || (fail && r->nerrors == 1))
		return;
	const char *what = fail ? "failed" : "skipped";
	size_t show = r->nerrors < 10 ? r->nerrors : 10;
	for (size_t i = 0; i < show; i++) {
		char path[1100];
		bytes_escape(r->err_path[i], path, sizeof(path));   /* a newline stays one line */
		warn_msg("%s '%s': %s", what, path, r->err_reason[i]);
	}
	if (r->nskipped > show)
		warn_msg("%" PRIu64 " samples %s in all (summary.json lists up to %zu)", r->nskipped,
		     what, r->nerrors);
}

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

/* One measured run into its own results folder: 0 (EXIT_OK), or an exit
 * status. final gets the folder ("" when none was kept). */
static int run_once(const struct run_opts *o, struct run_ctx *ctx, struct loader_cfg lc,
		    const struct loader_plan *plan, uint64_t step_ns, const char *tagname,
		    char *final, size_t finallen)
{
	char err[1024] = "", tmp[PATH_MAX], name[PATH_MAX];
	final[0] = 0;
	if (results_dir_begin(o->out, tagname, tmp, sizeof(tmp), name, sizeof(name), err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}

	char dump_dir[PATH_MAX + 16];
	if (o->dump_batches) {
		snprintf(dump_dir, sizeof(dump_dir), "%s/batches", tmp);
		if (mkdir(dump_dir, 0777)) {
			error_msg("cannot create '%s': %s", dump_dir, strerror(errno));
			rmdir(tmp);
			return EXIT_FAIL;
		}
		lc.dump_batches = o->dump_batches;
		lc.dump_dir = dump_dir;
	}
	if (ctx->spec->n)
		lc.counters = ctx->spec;

	struct progress prog = { .start = clock_now_ns() };
	prog.last = prog.start;
	if (isatty(STDERR_FILENO)) {
		lc.progress = progress_cb;
		lc.progress_arg = &prog;
	}
	if (noise_require_idle(o->require_idle, noise_idle_wait_s(), &ctx->cpus, err, sizeof(err))) {
		error_msg("%s", err);
		if (lc.dump_dir)
			rmdir(lc.dump_dir);
		rmdir(tmp);
		return EXIT_FAIL;
	}
	struct loader_result r;
	struct noise_snap before, after;
	noise_read(&before, &ctx->cpus);
	int lr = loader_run(&lc, plan, &r, err, sizeof(err));
	noise_read(&after, &ctx->cpus);
	noise_between(&before, &after, &ctx->cpus, &ctx->noise);
	if (lr) {
		error_msg("%s", err);
		if (lc.dump_dir)
			rmdir(lc.dump_dir);
		rmdir(tmp);
		return EXIT_FAIL;
	}
	if (prog.shown)
		fputc('\n', stderr);
	noise_warn(&ctx->noise, "the run");
	report_errors(&r, o->on_error);
	if (!r.complete)
		error_msg("%s", r.stop_reason);
	int wr = write_results(o, &r, step_ns, ctx, tmp, name, final, finallen);
	if (!wr)
		outf(stdout, "results: %s%s\n", final, r.complete ? "" : " (incomplete)");
	else
		final[0] = 0;
	int rc = r.exit_code ? r.exit_code : r.complete ? (wr ? EXIT_FAIL : EXIT_OK) : EXIT_FAIL;
	loader_result_free(&r);
	return rc;
}

/* The figures --repeat summarises. */
static const char *const repeat_figures[] = {
	"images_per_s", "e2e_s", "ooo_pct", "stall_pct", "preproc_avg_ms", "preproc_std_pct",
	"gpu_util_pct", "harness_per_sample_us", "pipeline_per_sample_us", "others_cpu_pct",
};

/* --repeat N: N runs, each its own results folder (-r1, -r2, ... after the
 * tag), then the median and spread of the main figures over them. */
static int run_repeats(const struct run_opts *o, struct run_ctx *ctx, const struct loader_cfg *lc,
		       const struct loader_plan *plan, uint64_t step_ns)
{
	long n = o->repeat;
	struct sweep_row *rows = calloc((size_t)n, sizeof(*rows));
	const struct sweep_row **rp = calloc((size_t)n, sizeof(*rp));
	size_t ok = 0;
	int rc = EXIT_OK;
	if (!rows || !rp) {
		free(rows);
		free(rp);
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	for (long k = 1; k <= n; k++) {
		char tagname[300], final[PATH_MAX], path[PATH_MAX + 16];
		if (n > 1)
			snprintf(tagname, sizeof(tagname), "%s-r%ld", o->tag, k);
		else
			snprintf(tagname, sizeof(tagname), "%s", o->tag);
		int r = run_once(o, ctx, *lc, plan, step_ns, tagname, final, sizeof(final));
		if (r && !rc)
			rc = r;
		if (r >= 128 || !final[0])
			break;   /* interrupted, or nothing kept: no further repeat */
		snprintf(path, sizeof(path), "%s/summary.json", final);
		json_t *j = json_load_regular(path, NULL, 0);
		if (j) {
			sweep_row_init(&rows[ok]);
			sweep_row_from_summary(&rows[ok], j);
			rp[ok] = &rows[ok];
			ok++;
			json_decref(j);
		}
	}
	if (n > 1 && ok > 1) {
		struct combined *c = malloc(sizeof(*c));
		if (c && !repeats_combine(rp, ok, c)) {
			printf("\n%zu repeats: median [%s] or (min, max) with fewer than 6:\n", ok,
			       STATS_CI_METHOD);
			for (size_t i = 0; i < sizeof(repeat_figures) / sizeof(repeat_figures[0]); i++) {
				char buf[128];
				const struct metric *mt = metric_find(repeat_figures[i]);
				stats_format(buf, sizeof(buf), combined_spread(c, mt->name), NULL);
				printf("  %-22s %s %s\n", mt->name, buf, mt->unit);
			}
			if (c->same_differs)
				warn_msg("the repeats differ in %s, which should be the same in every repeat",
				     c->same_what);
		}
		free(c);
	}
	free(rows);
	free(rp);
	return rc;
}

/* A disk without room for the results is refused before anything runs:
 * the bytes the results will take (results_size_estimate) against the free
 * bytes where they go. 0, or -1 with err. */
static int check_free_space(const struct run_opts *o, const struct pipeline *pipe,
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

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	char err[1024] = "";
	int npos = 0, rc = EXIT_USAGE;
	struct pipeline pipe;
	struct dataset data;
	int have_pipe = 0, have_data = 0;
	struct run_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	char data_path[PATH_MAX], tag[256];

	int pr = opts_prelude(run_opts_table, &o, argc, argv, &npos, usage, description, "run");
	if (pr >= 0)
		return pr;
	if (o.prefetch_factor * o.workers > 8192) {
		error_msg("--prefetch-factor x --workers is %ld: at most 8192 batches can be in flight",
		      o.prefetch_factor * o.workers);
		return EXIT_USAGE;
	}
	uint64_t step_ns;
	if (run_gpu_step(&o, &step_ns, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	o.gpu_step = step_ns;
	if (!*o.out) {
		error_msg("--out: empty folder name");
		return EXIT_USAGE;
	}
	cpus_read(&ctx.cpus);
	warn_oversubscribed(&o.workers, 1, cpus_usable_int(&ctx.cpus), "this run");
	rc = prepare_ctx(&ctx, &o);
	if (rc)
		goto out;
	rc = EXIT_USAGE;

	rc = run_open_inputs(&o, &pipe, &data, data_path, sizeof(data_path), &have_pipe,
			     &have_data);
	if (rc)
		goto out;
	rc = EXIT_USAGE;
	ctx.pipe = &pipe;
	ctx.data = &data;

	struct loader_cfg lc = run_loader_cfg(&o, &pipe, &data, step_ns);
	lc.pin_plan = ctx.have_plan ? &ctx.plan : NULL;
	struct loader_plan plan;
	if (loader_plan(&lc, &plan, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	if (!o.tag) {
		snprintf(tag, sizeof(tag), "%s-b%ld-w%ld-g%ld", pipe.name, o.batch_size, o.workers, o.gpus);
		o.tag = tag;
	}
	if (results_path_check(o.out, o.tag, o.repeat > 1 ? 6 : 0, err, sizeof(err)) ||
	    mkdir_out(o.out, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;   /* EXIT_USAGE: nothing ran */
	}
	if (check_free_space(&o, &pipe, &data, err, sizeof(err))) {
		error_msg("%s", err);
		rc = EXIT_FAIL;
		goto out;
	}
	probe_counters(&ctx);
	rc = run_repeats(&o, &ctx, &lc, &plan, step_ns);
out:
	if (have_data)
		dataset_release(&data);
	if (have_pipe)
		pipeline_release(&pipe);
	release_ctx(&ctx);
	return rc;
}
