/* A run read back from its results folder (run.h): the facts of its
 * summary.json that the analysis needs, in the loader's own terms, so that
 * a run written earlier goes through the one adapter (run_analysis_opts)
 * as a fresh one does. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonget.h"
#include "log.h"
#include "metrics.h"
#include "run.h"

int run_read_summary(json_t *sum, const char *dir, struct loader_result *r,
		     struct run_opts *o, int *fused, char *err, size_t errlen)
{
	const json_t *cpu = json_object_get(sum, "cpu"), *mem = json_object_get(sum, "memory");
	const char *ck = json_string_value(json_object_get(sum, "checksum"));
	memset(r, 0, sizeof(*r));
	memset(o, 0, sizeof(*o));
	o->batch_size = (long)jget_int(sum, "batch_size", 0);
	o->workers = (long)jget_int(sum, "workers", 0);
	o->gpus = (long)jget_int(sum, "gpus", 0);
	r->workers = (int)o->workers;
	r->start_ns = (uint64_t)jget_int(sum, "start_wall_ns", 0);
	r->end_ns = (uint64_t)jget_int(sum, "end_wall_ns", 0);
	r->images = (uint64_t)jget_int(sum, "images", 0);
	r->batches = (uint64_t)jget_int(sum, "batches", 0);
	r->main_cpu_s = jget_num(cpu, "main_s");
	r->main_setup_cpu_s = jget_num(cpu, "main_setup_s");
	r->main_teardown_cpu_s = jget_num(cpu, "main_teardown_s");
	r->main_maxrss_kib = (long)jget_int(mem, "main_max_rss_kib", 0);
	r->complete = json_is_true(json_object_get(sum, "complete"));
	r->trace_cost_ns = jget_num(json_object_get(sum, "trace"), "cost_per_event_ns");
	r->checksum = strtoull(ck ? ck : "0", NULL, 16);
	/* the fused op's decodes (null: no fused op in the pipeline) */
	double reg = metric_from_json(metric_find("fused_region_decodes"), sum);
	double full = metric_from_json(metric_find("fused_full_decodes"), sum);
	*fused = !isnan(reg) && !isnan(full);
	r->fused_regions = *fused ? (uint64_t)reg : 0;
	r->fused_full = *fused ? (uint64_t)full : 0;
	if (o->workers <= 0 || r->end_ns < r->start_ns) {
		errf(err, errlen, "'%s/summary.json': no workers or no E2E window", dir);
		return -1;
	}
	if (isnan(r->main_cpu_s))
		r->main_cpu_s = 0;
	if (isnan(r->trace_cost_ns))
		r->trace_cost_ns = 0;
	r->worker_cpu_s = calloc((size_t)o->workers, sizeof(*r->worker_cpu_s));
	r->worker_maxrss_kib = calloc((size_t)o->workers, sizeof(*r->worker_maxrss_kib));
	if (!r->worker_cpu_s || !r->worker_maxrss_kib) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	json_t *a = json_object_get(cpu, "per_worker_s");
	json_t *rs = json_object_get(mem, "worker_max_rss_kib");
	long rss_any = 0;
	for (int w = 0; w < o->workers; w++) {
		r->worker_cpu_s[w] = json_number_value(json_array_get(a, (size_t)w));
		r->worker_maxrss_kib[w] = (long)json_integer_value(json_array_get(rs, (size_t)w));
		rss_any |= r->worker_maxrss_kib[w];
	}
	if (!rss_any) {   /* thread workers have no RSS of their own */
		free(r->worker_maxrss_kib);
		r->worker_maxrss_kib = NULL;
	}
	return 0;
}
