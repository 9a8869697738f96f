/* A run's results: the figures gathered from the GPU, the main process and
 * the workers' shared counters, the error list, the merged trace,
 * --dump-batches, and loader_result_free; the names of the enums' values. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "counters.h"
#include "loader_int.h"
#include "log.h"
#include "npy.h"
#include "pipeline.h"
#include "imagefolder.h"

/* The workers' events and the main side's, as one struct trace. */
int loader_merge_trace(struct loader_state *R, int unclean)
{
	struct loader *L = &R->L;
	const struct pipeline *p = L->cfg->pipe;
	struct trace *t = &R->r->trace;
	size_t n = 2 + (size_t)L->W + (R->pin ? 1 : 0);
	t->procs = calloc(n, sizeof(*t->procs));
	if (!t->procs)
		return -1;
	t->nops = (size_t)p->nops;
	for (int i = 0; i < p->nops && i < 16; i++) {
		snprintf(t->op_names[i], sizeof(t->op_names[i]), "%s", p->op[i].ops->lotus_name);
		snprintf(t->op_ids[i], sizeof(t->op_ids[i]), "%s", p->op[i].ops->name);
	}
	t->procs[t->nprocs++] = R->main_tp;
	for (int w = 0; w < L->W; w++) {
		struct worker_shared *ws = &L->sh->w[w];
		struct trace_proc tp = ws->tp;
		/* a worker that did not end cleanly may have stopped inside an
		 * event: keep what it published after its last whole batch */
		if (unclean)
			tp.n = (size_t)atomic_load_explicit(&ws->published, memory_order_acquire);
		tp.pid = ws->pid;
		R->r->trace_dropped += tp.dropped;
		t->procs[t->nprocs++] = tp;
	}
	if (R->pin)
		t->procs[t->nprocs++] = R->pin_tp;
	else
		free(R->pin_tp.ev);
	t->procs[t->nprocs++] = R->gpu_tp;
	R->r->trace_dropped += R->main_tp.dropped + R->pin_tp.dropped + R->gpu_tp.dropped;
	R->main_tp.ev = R->pin_tp.ev = R->gpu_tp.ev = NULL;
	return 0;
}

void loader_collect_errors(struct loader_state *R)
{
	struct loader *L = &R->L;
	struct loader_result *r = R->r;
	uint32_t n = atomic_load(&L->sh->nerr);
	if (n > ERR_LOG_CAP)
		n = ERR_LOG_CAP;
	r->err_path = calloc(n ? n : 1, sizeof(char *));
	r->err_reason = calloc(n ? n : 1, sizeof(char *));
	if (!r->err_path || !r->err_reason)
		return;
	uint64_t nbatch = 0, noom = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct err_rec *e = &L->sh->err[k];
		if (!atomic_load_explicit(&e->ready, memory_order_acquire))
			continue;
		/* out of memory: the run failed (its stop reason), no file was bad */
		if (e->oom) {
			noom++;
			continue;
		}
		char path[1100], reason[400];
		const char *op = e->op >= 0 ? L->cfg->pipe->op[e->op].ops->name : "?";
		if (e->index >= 0)
			snprintf(path, sizeof(path), "%s", L->cfg->data->items[e->index].path);
		else
			snprintf(path, sizeof(path), "(batch %" PRId64 ")", e->batch);
		snprintf(reason, sizeof(reason), "op %s: %s", op, e->reason);
		r->err_path[r->nerrors] = strdup(path);
		r->err_reason[r->nerrors] = strdup(reason);
		if (r->err_path[r->nerrors] && r->err_reason[r->nerrors])
			r->nerrors++;
		nbatch += e->index < 0;
	}
	/* The count agrees with the list: every file that failed, also in a
	 * batch never handed over (the one that stopped an --on-error fail run,
	 * those in flight at a stop); the list holds the first ERR_LOG_CAP. */
	uint64_t files = atomic_load(&L->sh->nerr) - nbatch - noom;
	if (files > r->nskipped)
		r->nskipped = files;
}

/* --dump-batches: batch id as .npy files, from the memory the consumer
 * read (the pinned copy, or the slot). A failure is a warning. */
void loader_dump_batch(struct loader_state *R, int64_t id)
{
	const struct loader_cfg *c = R->L.cfg;
	const struct result_msg *m = &R->msg[id];
	const struct loader_batch *b = &R->r->b[id];
	size_t sb = R->L.plan->slot_bytes, n = b->n;
	size_t h = (size_t)R->L.plan->sample_h, w = (size_t)R->L.plan->sample_w;
	size_t img = n * 3 * h * w * sizeof(float);
	const unsigned char *mem = !R->pin ? R->L.slots + (size_t)m->slot * sb :
				   m->pinned >= 0 ? R->L.slots + (size_t)m->pinned * sb : NULL;
	char path[4096], err[4200] = "";
	float *lab = malloc((n ? n : 1) * sizeof(float));
	if (!mem || !lab || b->bytes != img + n * sizeof(int64_t)) {
		warn_msg("cannot dump batch %" PRId64 ": %s", id,
		     !lab ? "out of memory" : "not a collated [n, 3, h, w] batch");
		free(lab);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t l;
		memcpy(&l, mem + img + i * sizeof(l), sizeof(l));
		lab[i] = (float)l;
	}
	size_t shape[4] = { n, 3, h, w };
	snprintf(path, sizeof(path), "%s/batch_%" PRId64 ".npy", c->dump_dir, id);
	int rc = npy_write(path, "<f4", shape, 4, mem, err, sizeof(err));
	snprintf(path, sizeof(path), "%s/labels_%" PRId64 ".npy", c->dump_dir, id);
	if (!rc)
		rc = npy_write(path, "<f4", shape, 1, lab, err, sizeof(err));
	if (rc)
		warn_msg("%s", err);
	free(lab);
}

/* The run's figures from the GPU, the main process's usage since ru0 and
 * the workers' shared counters. */
void loader_run_gather(struct loader_state *R, const struct rusage *ru0)
{
	struct loader *L = &R->L;
	struct loader_result *r = R->r;
	const struct loader_cfg *c = L->cfg;
	struct rusage ru;
	r->timeout_ns = atomic_load(&L->sh->timeout_ns);
	r->gpu_busy_ns = R->gpu.busy_ns;
	r->gpu_idle_ns = R->gpu.idle_ns;
	r->gpu_copy_ns = R->gpu.copy_ns;
	r->gpu_model_ns = R->gpu.model_ns;
	r->main_harness_ns = R->main_harness_ns;
	r->pin_harness_ns = R->pin_harness_ns;
	r->pin_copy_ns = R->pin_copy_ns;
	r->pin_copy_cpu_ns = R->pin_copy_cpu_ns;
	/* the main process during the run (its threads, and thread workers) */
	getrusage(RUSAGE_SELF, &ru);
	r->main_cpu_s = tv_s(ru.ru_utime) + tv_s(ru.ru_stime) - tv_s(ru0->ru_utime) - tv_s(ru0->ru_stime);
	r->main_maxrss_kib = ru.ru_maxrss;
	r->main_use.sys_s = tv_s(ru.ru_stime) - tv_s(ru0->ru_stime);
	r->main_use.faults = (uint64_t)(ru.ru_minflt - ru0->ru_minflt + ru.ru_majflt - ru0->ru_majflt);
	if (c->backend == BACKEND_THREAD) {
		for (int w = 0; w < L->W; w++) {
			const struct proc_use *u = &L->sh->w[w].use[USE_END];
			r->main_cpu_s -= r->worker_cpu_s[w];
			r->main_use.sys_s -= u->sys_s;
			r->main_use.faults -= u->faults < r->main_use.faults ? u->faults : r->main_use.faults;
		}
		free(r->worker_maxrss_kib);
		r->worker_maxrss_kib = NULL;
	}
	r->main_use.cpu_s = r->main_cpu_s;
	for (int w = 0; w < L->W; w++) {
		const struct worker_shared *ws = &L->sh->w[w];
		r->hash_ns += ws->hash_ns;
		r->hash_bytes += ws->hash_bytes;
		r->worker_loop_ns += ws->loop_ns;
		r->worker_ops_ns += ws->ops_ns;
		r->samples_done += ws->samples;
		r->fused_regions += ws->fused_regions;
		r->fused_full += ws->fused_full;
		r->worker_pinned[w] = c->pin_plan ? ws->pinned : -1;
		if (r->cacc && ws->counted == 1) {
			r->workers_counted++;
			for (int i = 0; i < PIPE_MAX_OPS; i++) {
				counters_acc_add(&r->cacc[i], &ws->cacc[i]);
				counters_acc_add(&r->cacc_first[i], &ws->cacc_first[i]);
				counters_acc_add(&r->cacc_epoch[i],
						 ws->epoch_noted ? &ws->cacc_epoch[i] : &ws->cacc[i]);
			}
		}
		if (ws->use_ok == (1 << USE_N) - 1) {
			r->wuse_workers++;
			for (int k = 0; k < USE_N; k++) {
				r->wuse[k].cpu_s += ws->use[k].cpu_s;
				r->wuse[k].sys_s += ws->use[k].sys_s;
				r->wuse[k].faults += ws->use[k].faults;
				r->wuse[k].samples += ws->use[k].samples;
				r->wuse[k].batches += ws->use[k].batches;
			}
		}
	}
}

void loader_result_free(struct loader_result *r)
{
	for (size_t i = 0; i < r->trace.nprocs; i++)
		if (r->trace.procs[i].role != ROLE_WORKER)
			free(r->trace.procs[i].ev);
	free(r->trace.procs);
	free(r->b);
	free(r->yield_order);
	free(r->worker_cpu_s);
	free(r->worker_maxrss_kib);
	free(r->worker_pinned);
	free(r->cacc);
	free(r->cacc_first);
	free(r->cacc_epoch);
	for (size_t i = 0; i < r->nerrors; i++) {
		free(r->err_path[i]);
		free(r->err_reason[i]);
	}
	free(r->err_path);
	free(r->err_reason);
	if (r->shm && r->shm_bytes)
		munmap(r->shm, r->shm_bytes);
	memset(r, 0, sizeof(*r));
}

/* ---- names of the enums' values (loader.h: *_CHOICES in the same order) */

const char *const loader_backend_names[BACKEND_THREAD + 1] = {
	[BACKEND_PROCESS] = "process", [BACKEND_THREAD] = "thread" };
const char *const loader_order_names[ORDER_ARRIVAL + 1] = {
	[ORDER_INORDER] = "inorder", [ORDER_ARRIVAL] = "arrival" };
const char *const loader_rng_names[RNG_TORCH + 1] = {
	[RNG_PER_SAMPLE] = "per-sample", [RNG_TORCH] = "torch" };
const char *const loader_policy_names[POLICY_SPEEDY + 1] = {
	[POLICY_TORCH] = "torch", [POLICY_SHARED_QUEUE] = "shared-queue", [POLICY_SPEEDY] = "speedy" };
