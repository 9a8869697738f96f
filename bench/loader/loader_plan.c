/* The plan of a run before anything is mapped or started: the output size
 * of a sample (probe), the buffers and their memory, checked against what
 * the machine and ulimit -v leave (loader.h: loader_plan). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "clock.h"
#include "imagefolder.h"
#include "loader_int.h"
#include "machine.h"
#include "pipeline.h"
#include "rng.h"

static int passthrough(const struct op_ops *o)
{
	return o->in == PIX_NONE && o->out == PIX_NONE;
}

/* The output size of one sample: run the ops that change it (not the
 * passthrough ones such as sleep) on the first samples until one works. */
static int probe(const struct loader_cfg *c, int *h, int *w, size_t *peak, size_t *out,
		 char *err, size_t errlen)
{
	const struct pipeline *p = c->pipe;
	int any = 0;
	for (int i = 0; i < p->nops; i++)
		if (i != p->batch_op && !passthrough(p->op[i].ops))
			any = 1;
	*h = *w = 0;
	*peak = *out = 0;
	if (!any)
		return 0;
	struct rng *r = malloc(sizeof(*r));
	struct scratch scr = { 0 };
	struct sample s = { 0 };
	int rc = -1;
	size_t tries = c->data->n < 16 ? c->data->n : 16;
	char first_err[300] = "";
	for (size_t k = 0; r && k < tries && rc; k++) {
		sample_setup(&s, c->data->items[k].path, c->data->items[k].label, k, r, &scr,
			     c->max_pixels, c->max_file_bytes);
		rng_seed(r, rng_sample_seed(c->seed, 0, k));
		rc = 0;
		for (int i = 0; i < p->nops && !rc; i++) {
			if (i == p->batch_op || passthrough(p->op[i].ops))
				continue;
			if (p->op[i].ops->run(p->op[i].cfg, &s)) {
				if (!first_err[0])
					snprintf(first_err, sizeof(first_err), "'%s' (op %s): %s", s.path,
						 p->op[i].ops->name, s.err);
				rc = -1;
			} else if (sample_bytes(&s) > *peak) {
				*peak = sample_bytes(&s);
			}
		}
	}
	if (!rc) {
		*h = s.h;
		*w = s.w;
		*out = sample_bytes(&s);
	} else {
		snprintf(err, errlen, "cannot find the output size of pipeline '%s': the first %zu "
			 "samples fail, the first with %s", p->name, tries, first_err);
	}
	sample_release(&s);
	scratch_release(&scr);
	free(r);
	return rc;
}

void loader_human_bytes(uint64_t b, char *out, size_t n)
{
	if (b >= (1ull << 30))
		snprintf(out, n, "%.1f GiB", b / 1073741824.0);
	else if (b >= (1ull << 20))
		snprintf(out, n, "%.1f MiB", b / 1048576.0);
	else
		snprintf(out, n, "%.1f KiB", b / 1024.0);
}

/* Per-sample ops, and the span of STransform: the ops after the last one
 * that makes an image from a file (the loader, Lotus's SLoader), or all of
 * them when there is none. */
void loader_transform_span(const struct pipeline *p, int *first, int *last, int *nsample_ops)
{
	int loader = -1, n = 0;
	*first = *last = -1;
	for (int i = 0; i < p->nops; i++) {
		if (i == p->batch_op)
			continue;
		n++;
		if (p->op[i].ops->in == PIX_NONE && p->op[i].ops->out != PIX_NONE)
			loader = i;
	}
	for (int i = loader + 1; i < p->nops; i++) {
		if (i == p->batch_op)
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
	}
	*nsample_ops = n;
}

/* The address space this process may still map under ulimit -v
 * (RLIMIT_AS), UINT64_MAX when it is unlimited. A worker, forked from it,
 * starts with the same mappings and the same limit. */
static uint64_t address_space_left(void)
{
	struct rlimit rl;
	unsigned long long pages = 0;
	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	if (f)
		fclose(f);
	uint64_t used = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
	return rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
}

int loader_plan(const struct loader_cfg *c, struct loader_plan *pl, char *err, size_t errlen)
{
	const struct pipeline *p = c->pipe;
	memset(pl, 0, sizeof(*pl));
	size_t B = (size_t)c->batch_size, W = (size_t)c->workers, P = (size_t)c->prefetch_factor;
	if (!c->data->n) {
		snprintf(err, errlen, "the dataset '%s' has no images", c->data->root);
		return -1;
	}
	if (c->drop_last && c->data->n < B) {
		snprintf(err, errlen, "no batch to run: the dataset has %zu images, fewer than one batch "
			 "of %zu, and --drop-last drops it", c->data->n, B);
		return -1;
	}
	size_t peak = 0, out = 0;
	if (probe(c, &pl->sample_h, &pl->sample_w, &peak, &out, err, errlen))
		return -1;
	if (c->policy != POLICY_TORCH)
		pl->stage_bytes = out;
	/* events per worker: torch, its share of the batches (round-robin, each
	 * epoch restarting at worker 0), each with its samples' events. The
	 * other policies hand any sample to any worker (the others take on the
	 * work of one held by a slow sample), so each buffer can hold the whole
	 * run's events; those buffers are not populated up front (map_shared),
	 * so the memory they take is the events written: the run's, once. */
	int tf_first, tf_last, nsops;
	loader_transform_span(p, &tf_first, &tf_last, &nsops);
	size_t n = c->data->n;
	size_t Bx = B < n ? B : n;
	size_t per_epoch = c->drop_last ? n / B : (n + B - 1) / B;
	size_t total = per_epoch * (size_t)c->epochs;
	if (c->max_batches && c->max_batches < total)
		total = (size_t)c->max_batches;
	size_t epochs = per_epoch ? (total + per_epoch - 1) / per_epoch : 0;
	int torch = c->policy == POLICY_TORCH;
	size_t mine = torch ? (total + W - 1) / W + epochs : total;
	size_t per_batch = 1 + (c->trace ? Bx * (size_t)(nsops + (tf_first >= 0)) + 1 : 0);
	pl->trace_events = c->trace_capacity ? c->trace_capacity : mine * per_batch + 16;

	/* memory from the batches that exist: none is larger than the
	 * dataset, no more than the run's batches are in flight, and only the
	 * workers an epoch's batches reach hold samples */
	size_t inflight = P * W < total ? P * W : total;
	size_t busy = W < per_epoch ? W : per_epoch;
	if (busy > total)
		busy = total;
	pl->batch_max = Bx;
	size_t bytes = Bx * sizeof(int64_t);
	if (p->batch_op >= 0 && p->op[p->batch_op].ops->batch_bytes)
		bytes = p->op[p->batch_op].ops->batch_bytes(p->op[p->batch_op].cfg, Bx,
							    pl->sample_h, pl->sample_w);
	pl->slot_bytes = page_round(bytes ? bytes : 1);
	pl->nslots = (int)(inflight + 1 + (c->pin_memory ? 1 : 0));
	pl->npinned = c->pin_memory ? pl->nslots : 0;
	pl->torch_buffers = pl->nslots;

	pl->batch_bytes = (uint64_t)pl->nslots * pl->slot_bytes;
	pl->trace_bytes = (uint64_t)(torch ? W : 1) * pl->trace_events * sizeof(struct trace_ev) +
			  (torch ? 0 : (uint64_t)W * 4096) +
			  (uint64_t)total * 8 * sizeof(struct trace_ev);
	/* each worker holds B samples until collate, plus its scratch */
	pl->sample_bytes = (uint64_t)busy * (Bx + 2) * (uint64_t)peak;
	/* policies: a worker holds one sample; each slot stages B */
	if (c->policy != POLICY_TORCH)
		pl->sample_bytes = (uint64_t)W * 3 * (uint64_t)peak +
				   (uint64_t)pl->nslots * Bx * (uint64_t)pl->stage_bytes;
	pl->need_bytes = pl->batch_bytes + pl->trace_bytes + pl->sample_bytes;
	pl->avail_bytes = machine_memory_available();
	if (pl->avail_bytes && pl->need_bytes > pl->avail_bytes) {
		char need[32], avail[32], one[32], tr[32], sm[32];
		loader_human_bytes(pl->need_bytes, need, sizeof(need));
		loader_human_bytes(pl->avail_bytes, avail, sizeof(avail));
		loader_human_bytes(pl->slot_bytes, one, sizeof(one));
		loader_human_bytes(pl->trace_bytes, tr, sizeof(tr));
		loader_human_bytes(pl->sample_bytes, sm, sizeof(sm));
		snprintf(err, errlen, "this run needs %s but only %s is available: %d batch buffers "
			 "of %s (batch %zu of %dx%d), %s of trace buffers, %s of "
			 "samples in the workers; lower --batch, --workers or --prefetch-factor%s%s",
			 need, avail, pl->nslots, one, Bx, pl->sample_w,
			 pl->sample_h, tr, sm, c->pin_memory ? ", or use --pin-memory off" : "",
			 c->trace ? ", or --trace off" : "");
		return -1;
	}
	/* the simulated copy of the largest batch, bounded as --gpu-step is */
	if (gpu_copy_ns(pl->slot_bytes, c->h2d_bytes_per_s) > GPU_MAX_NS) {
		char one[32];
		loader_human_bytes(pl->slot_bytes, one, sizeof(one));
		snprintf(err, errlen, "--h2d-bandwidth %g B/s makes the simulated copy of each batch "
			 "(%s) last %.3g s, more than a minute (the bound of --gpu-step): give at "
			 "least %.0f B/s, or 0 for no copy", c->h2d_bytes_per_s, one,
			 (double)pl->slot_bytes / c->h2d_bytes_per_s,
			 ceil((double)pl->slot_bytes / ((double)GPU_MAX_NS / 1e9)));
		return -1;
	}
	/* ulimit -v: every worker maps the batch and trace buffers and holds
	 * its own samples (the thread backend's process, all of them) */
	uint64_t as_left = address_space_left();
	uint64_t mine_samples = c->backend == BACKEND_THREAD || !busy ? pl->sample_bytes
				: pl->sample_bytes / busy;
	uint64_t as_need = pl->batch_bytes + pl->trace_bytes + mine_samples;
	if (as_need > as_left) {
		char need[32], left[32], one[32], tr[32], sm[32];
		loader_human_bytes(as_need, need, sizeof(need));
		loader_human_bytes(as_left, left, sizeof(left));
		loader_human_bytes(pl->slot_bytes, one, sizeof(one));
		loader_human_bytes(pl->trace_bytes, tr, sizeof(tr));
		loader_human_bytes(mine_samples, sm, sizeof(sm));
		snprintf(err, errlen, "this run needs %s of address space in each %s but ulimit -v "
			 "leaves %s: %d batch buffers of %s (batch %zu of %dx%d), %s of trace "
			 "buffers, %s of samples; lower --batch, --workers or --prefetch-factor%s, "
			 "or raise ulimit -v", need, c->backend == BACKEND_THREAD ? "process" :
			 "worker", left, pl->nslots, one, Bx, pl->sample_w, pl->sample_h, tr, sm,
			 c->trace ? ", or --trace off" : "");
		return -1;
	}
	return 0;
}

double loader_trace_cost_ns(size_t n)
{
	struct trace_proc tp = { .cap = n };
	tp.ev = calloc(n, sizeof(*tp.ev));
	if (!tp.ev)
		return 0;
	double best = 0;
	for (int round = 0; round < 3; round++) {
		tp.n = 0;
		uint64_t t0 = clock_now_ns();
		for (size_t i = 0; i < n; i++)
			trace_add(&tp, EV_OP, 1, (int64_t)i, 0, t0, i);
		uint64_t t1 = clock_now_ns();
		double per = (double)(t1 - t0) / (double)n;
		if (round == 0 || per < best)
			best = per;
	}
	free(tp.ev);
	return best;
}
