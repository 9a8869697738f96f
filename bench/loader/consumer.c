#include <stdio.h>
#include "clock.h"
#include "consumer.h"

/* Source: Lotus (IISWC 2024) artifact, measured ResNet18 step per batch on
 * V100 GPUs (move to device + forward + backward), DataParallel, in ms; a
 * copy is in datasets/reference/lotus/lotus_gpu_step_ms.csv. The paper has
 * no 1-GPU run at batch 1024. */
static const struct {
	int batch_size, gpus;
	double ms;
} step_table[] = {
	{ 128, 1, 108.5 }, { 128, 2, 68.8 }, { 128, 3, 57.3 }, { 128, 4, 46.4 },
	{ 256, 1, 208.7 }, { 256, 2, 124.8 }, { 256, 3, 100.2 }, { 256, 4, 88.8 },
	{ 512, 1, 416.2 }, { 512, 2, 236.2 }, { 512, 3, 189.9 }, { 512, 4, 166.7 },
	{ 1024, 2, 470.3 }, { 1024, 3, 371.8 }, { 1024, 4, 325.6 },
};
#define NSTEPS (sizeof(step_table) / sizeof(step_table[0]))

int gpu_step_auto(long batch, long gpus, uint64_t *step_ns, char *why, size_t whylen)
{
	int best = -1;
	double best_dist = 0;
	for (size_t i = 0; i < NSTEPS; i++) {
		if (step_table[i].gpus != gpus)
			continue;
		/* nearest batch size by ratio: scaling from it changes the least */
		double r = (double)batch / step_table[i].batch_size;
		double dist = r >= 1 ? r : 1 / r;
		if (best < 0 || dist < best_dist) {
			best = (int)i;
			best_dist = dist;
		}
	}
	if (best < 0) {
		snprintf(why, whylen, "the measured ResNet18/V100 table has no step time for %ld GPUs "
			 "(it has 1 to 4): give --gpu-step", gpus);
		return -1;
	}
	double ms = step_table[best].ms * (double)batch / step_table[best].batch_size;
	*step_ns = (uint64_t)(ms * 1e6 + 0.5);
	return 0;
}

uint64_t gpu_copy_ns(uint64_t bytes, double bytes_per_s)
{
	if (!(bytes_per_s > 0))
		return 0;
	double ns = (double)bytes / bytes_per_s * 1e9;
	return ns > (double)GPU_MAX_NS ? UINT64_MAX : (uint64_t)ns;
}

void gpu_init(struct gpu_sim *g, uint64_t step_ns, double h2d_bytes_per_s, uint64_t start)
{
	g->step_ns = step_ns;
	g->h2d_bytes_per_s = h2d_bytes_per_s;
	g->busy_ns = g->idle_ns = g->copy_ns = g->model_ns = 0;
	g->last_end = start;
	g->batches = 0;
}

/* A sleep ends up to the timer slack (50 us for a normal thread) late, so
 * the last SPIN_NS before a deadline are waited on the clock: a modelled
 * copy of 43 ns lasts about that long, not 60 us. Costs at most about
 * SPIN_NS of CPU per wait. */
#define SPIN_NS 60000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Wait until monotonic `deadline`. -1 if a signal asked to stop. */
static int sleep_until(uint64_t deadline, volatile sig_atomic_t *stop, int (*check)(void *), void *arg)
{
	for (;;) {
		uint64_t now = clock_now_ns();
		if (now >= deadline)
			return 0;
		if (deadline - now > SPIN_NS)
			clock_sleep_ns(deadline - now - SPIN_NS, stop);
		else
			cpu_relax();
		if (stop && *stop && check && check(arg))
			return -1;
	}
}

int gpu_consume(struct gpu_sim *g, size_t bytes, int64_t batch, struct trace_proc *tp,
		int64_t wall_off, volatile sig_atomic_t *stop, int (*check)(void *), void *arg)
{
	uint64_t t0 = clock_now_ns();
	if (t0 > g->last_end)
		g->idle_ns += t0 - g->last_end;
	uint64_t copy = gpu_copy_ns(bytes, g->h2d_bytes_per_s);
	if (copy > GPU_MAX_NS)
		copy = GPU_MAX_NS;	/* loader_plan refuses such a run: never hours */
	int rc = sleep_until(t0 + copy, stop, check, arg);
	uint64_t t1 = clock_now_ns();
	if (tp)
		trace_add(tp, EV_GPU_COPY, 0, batch, UINT32_MAX, t0 + (uint64_t)wall_off, t1 - t0);
	if (!rc)
		rc = sleep_until(t1 + g->step_ns, stop, check, arg);
	uint64_t t2 = clock_now_ns();
	if (tp)
		trace_add(tp, EV_GPU_STEP, 0, batch, UINT32_MAX, t1 + (uint64_t)wall_off, t2 - t1);
	g->copy_ns += t1 - t0;
	g->model_ns += copy + g->step_ns;
	g->busy_ns += t2 - t0;
	g->last_end = t2;
	g->batches++;
	return rc;
}
