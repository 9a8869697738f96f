/* A run's figures and descriptive blocks (run.h): the one adapter from
 * what the loader recorded to the analysis options (analysis.h), used by
 * run, model and compare alike, and the blocks of summary.json that
 * describe the run (options, dataset, machine, loader, counters, pin, noise). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "analysis.h"
#include "counted.h"
#include "counters.h"
#include "describe.h"
#include "imagefolder.h"
#include "loader.h"
#include "machine.h"
#include "noise.h"
#include "options.h"
#include "pipeline.h"
#include "run.h"
#include "topology.h"

/* The page faults (event pf of sp; NaN when not counted) of the calls after
 * the snapshot snap (of every call when snap has none), from all[], the sums
 * at the end. */
static double faults_since(const struct counter_spec *sp, int pf, const struct counter_value *all,
			   const struct counter_acc *snap)
{
	if (pf < 0)
		return NAN;
	struct counter_value v[COUNTERS_MAX];
	if (!snap->regions)
		return all[pf].value;
	counters_values(sp, snap, v);
	return all[pf].value - v[pf].value;
}

/* The counter figures by pipeline op: derived figures, regions (all and
 * after each worker's first batch), page faults, and the reads made (a
 * chain of k ops takes k + 1 reads: one more per sample and per batch). */
static void counted_figures(const struct counter_spec *sp, const struct loader_result *r,
			    const struct pipeline *pipe, struct run_counted *c)
{
	int pf = -1;   /* the page-faults event, if counted */
	for (int e = 0; e < sp->n; e++)
		if (!strcmp(sp->ev[e].name, "page-faults"))
			pf = e;
	c->reads = 0;
	for (int i = 0; i < pipe->nops && i < PIPE_MAX_OPS; i++) {
		counters_derived(sp, &r->cacc[i], &c->d[i]);
		c->regions[i] = r->cacc[i].regions;
		c->after[i] = r->cacc[i].regions - r->cacc_first[i].regions;
		c->after_epoch[i] = r->cacc[i].regions - r->cacc_epoch[i].regions;
		c->reads += c->regions[i] + (i == 0 || i == pipe->batch_op ? c->regions[i] : 0);
		struct counter_value all[COUNTERS_MAX];
		counters_values(sp, &r->cacc[i], all);
		c->faults[i] = pf >= 0 ? all[pf].value : NAN;
		c->faults_after[i] = faults_since(sp, pf, all, &r->cacc_first[i]);
		c->faults_after_epoch[i] = faults_since(sp, pf, all, &r->cacc_epoch[i]);
	}
}

void run_analysis_opts(const struct run_opts *o, const struct loader_result *r,
		       const struct run_env *env, const struct pipeline *pipe,
		       struct run_counted *scr, struct analysis_opts *ao)
{
	int counted = env && env->spec && env->spec->n && r->cacc && pipe && scr;
	if (counted)
		counted_figures(env->spec, r, pipe, scr);
	*ao = (struct analysis_opts){
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
		.main_setup_cpu_s = r->main_setup_cpu_s,
		.main_teardown_cpu_s = r->main_teardown_cpu_s,
		.has_setup = isfinite(r->main_setup_cpu_s) && isfinite(r->main_teardown_cpu_s),
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
		.op_counted = counted ? scr->d : NULL,
		.op_regions = counted ? scr->regions : NULL,
		.op_faults = counted ? scr->faults : NULL,
		.op_faults_after = counted ? scr->faults_after : NULL,
		.op_regions_after = counted ? scr->after : NULL,
		.op_faults_after_epoch = counted ? scr->faults_after_epoch : NULL,
		.op_regions_after_epoch = counted ? scr->after_epoch : NULL,
		.counter_reads = counted ? scr->reads : 0,
		.counter_read_ns = counted && env->spec->has_overhead ? env->spec->ov.read_ns : 0,
		/* analysis reads the workers' usage only when all of them made it */
		.worker_use = r->wuse_workers > 0 ? r->wuse : NULL,
		.use_workers = r->wuse_workers,
		.main_use = env ? &r->main_use : NULL,
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
		.fused = pipe && pipeline_find(pipe, "decode_random_resized_crop") >= 0,
		.fused_regions = r->fused_regions,
		.fused_full = r->fused_full,
		.others_cpu_pct = env ? env->noise.others_cpu_pct : NAN,
		.steal_pct = env ? env->noise.steal_pct : NAN,
		.load1 = env ? env->noise.load1 : NAN,
		.have_priority = env != NULL,
		.nice = env ? env->noise.nice : 0,
		.group_nice = env ? env->noise.group_nice : 0,
		.cpus_usable = env ? env->cpus.usable : 0,
	};
}

/* Peak resident memory summed over the main process and the workers (a
 * shared page touched by several processes counts in each: an upper bound). */
long run_rss_sum_kib(const struct loader_result *r)
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
	long rss = run_rss_sum_kib(r);
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

/* Results keys of the pipeline's ops, as summary.json's "ops" makes them
 * ("name", then "name#2" for a second op of the same name). */
void run_op_key(const struct pipeline *p, int i, char *key, size_t n)
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
static json_t *counters_block(const struct run_env *x, const struct loader_result *r)
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
		run_op_key(p, i, key, sizeof(key));
		json_object_set_new(ops, key, counters_op_json(x->spec, &r->cacc[i], r->samples_done));
	}
	json_object_set_new(j, "ops", ops);
	return j;
}

/* The descriptive blocks of summary.json: options, dataset, machine,
 * loader, counters, pin, noise. New reference. */
json_t *run_summary_blocks(const struct run_opts *o, const struct loader_result *r,
			   uint64_t step_ns, const struct run_env *x)
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
