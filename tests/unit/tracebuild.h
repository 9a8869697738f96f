/* The hand-built trace shared by test_analysis.c and test_emit.c (each its
 * own binary, so everything here is static).
 *
 * A hand-built run where every figure is known.
 *
 * 2 workers, 4 batches of 2 samples, pipeline SLoader + SRandomHorizontalFlip.
 * Times in ms after T0; E2E = 1000 ms.
 *   worker 0 (pid 100): b0 [1, 101], b2 [101, 801]
 *   worker 1 (pid 101): b1 [1, 51],  b3 [51, 61]
 *   main: b0 waited [0, 101], consumed 101; b1 arrived 51 (marker), consumed 102;
 *         b2 waited [102, 801], consumed 801; b3 arrived 61 (marker), consumed 802
 * => out of order 2/4, waits 101 + 699 ms, stall 80 %, delays 0, 51, 0, 741 ms. */
#ifndef PPBENCH_TRACEBUILD_H
#define PPBENCH_TRACEBUILD_H

#include <stdint.h>
#include <string.h>
#include "analysis.h"

#define T0 1700000000000000000ull
#define MS(x) ((uint64_t)((x) * 1e6 + 0.5))

struct fx {
	struct trace t;
	struct trace_proc procs[5];
	struct trace_ev ev[5][64];
};

static const double preproc_ms[4][2] = { { 1, 101 }, { 1, 51 }, { 101, 801 }, { 51, 61 } };
static const double loader_ms[8] = { 5, 6, 1, 2, 7, 8, 3, 4 };

static void add(struct trace_proc *p, uint16_t kind, uint16_t op, int64_t b, uint32_t s,
		double start_ms, uint64_t dur_ns)
{
	trace_add(p, kind, op, b, s, T0 + MS(start_ms), dur_ns);
}

static void fx_build(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	f->t.nprocs = 5;
	f->t.procs = f->procs;
	f->t.nops = 2;
	strcpy(f->t.op_names[0], "SLoader");
	strcpy(f->t.op_ids[0], "decode");
	strcpy(f->t.op_names[1], "SRandomHorizontalFlip");
	strcpy(f->t.op_ids[1], "random_horizontal_flip");
	for (int i = 0; i < 5; i++) {
		f->procs[i].cap = 64;
		f->procs[i].ev = f->ev[i];
	}
	f->procs[0] = (struct trace_proc){ ROLE_MAIN, 0, 1000, 0, 64, f->ev[0], 0 };
	f->procs[1] = (struct trace_proc){ ROLE_WORKER, 0, 100, 0, 64, f->ev[1], 0 };
	f->procs[2] = (struct trace_proc){ ROLE_WORKER, 1, 101, 0, 64, f->ev[2], 0 };
	f->procs[3] = (struct trace_proc){ ROLE_PIN, 0, 1001, 0, 64, f->ev[3], 0 };
	f->procs[4] = (struct trace_proc){ ROLE_GPU, 0, 1002, 0, 64, f->ev[4], 0 };

	/* workers: per sample SLoader, then STransform around the flip; then
	 * collation; SBatchPreprocessed is appended last, when it ends */
	for (int b = 0; b < 4; b++) {
		struct trace_proc *w = &f->procs[1 + b % 2];
		double cur = preproc_ms[b][0] + 0.1;
		for (int s = 0; s < 2; s++) {
			int g = b * 2 + s;
			double rhf = g % 2 ? 0.150 : 0.050;
			add(w, EV_OP, 0, b, (uint32_t)s, cur, MS(loader_ms[g]));
			cur += loader_ms[g];
			add(w, EV_OP, 1, b, (uint32_t)s, cur, MS(rhf));
			add(w, EV_TRANSFORM, 0, b, (uint32_t)s, cur, MS(rhf + 0.010));
			cur += rhf + 0.020;
		}
		add(w, EV_COLLATE, 0, b, UINT32_MAX, cur, MS(0.5));
		add(w, EV_BATCH_PREPROC, 0, b, UINT32_MAX, preproc_ms[b][0],
		    MS(preproc_ms[b][1] - preproc_ms[b][0]));
	}

	struct trace_proc *m = &f->procs[0];
	for (int b = 0; b < 4; b++)
		add(m, EV_BATCH_QUEUED, 0, b, UINT32_MAX, 0, TRACE_MARKER_NS);
	add(m, EV_BATCH_ARRIVED, 0, 1, UINT32_MAX, 51, TRACE_MARKER_NS);
	add(m, EV_BATCH_WAIT, 0, 1, UINT32_MAX, 51, TRACE_MARKER_NS);
	add(m, EV_BATCH_ARRIVED, 0, 3, UINT32_MAX, 61, TRACE_MARKER_NS);
	add(m, EV_BATCH_WAIT, 0, 3, UINT32_MAX, 61, TRACE_MARKER_NS);
	add(m, EV_BATCH_ARRIVED, 0, 0, UINT32_MAX, 101, TRACE_MARKER_NS);
	add(m, EV_BATCH_WAIT, 0, 0, UINT32_MAX, 0, MS(101));
	add(m, EV_BATCH_CONSUMED, 0, 0, UINT32_MAX, 101, TRACE_MARKER_NS);
	add(m, EV_BATCH_CONSUMED, 0, 1, UINT32_MAX, 102, TRACE_MARKER_NS);
	add(m, EV_BATCH_ARRIVED, 0, 2, UINT32_MAX, 801, TRACE_MARKER_NS);
	add(m, EV_BATCH_WAIT, 0, 2, UINT32_MAX, 102, MS(699));
	add(m, EV_BATCH_CONSUMED, 0, 2, UINT32_MAX, 801, TRACE_MARKER_NS);
	add(m, EV_BATCH_CONSUMED, 0, 3, UINT32_MAX, 802, TRACE_MARKER_NS);

	static const int arr[4] = { 101, 51, 801, 61 };
	for (int b = 0; b < 4; b++)
		add(&f->procs[3], EV_BATCH_PINNED, 0, b, UINT32_MAX, arr[b], MS(1));
	for (int b = 0; b < 4; b++) {
		add(&f->procs[4], EV_GPU_COPY, 0, b, UINT32_MAX, 900 + 20 * b, MS(5));
		add(&f->procs[4], EV_GPU_STEP, 0, b, UINT32_MAX, 905 + 20 * b, MS(10));
	}
}

static struct analysis_opts fx_opts(void)
{
	struct analysis_opts o = { 0 };
	o.start_ns = T0;
	o.end_ns = T0 + MS(1000);
	o.batch_size = 2;
	o.workers = 2;
	o.gpus = 1;
	o.images = 8;
	o.checksum = 0x0123456789abcdefull;
	o.complete = 1;
	return o;
}

#endif
