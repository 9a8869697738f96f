/* `make bench` section "bounds": each op after decode against the bound of
 * its work on this machine, measured side by side in every round.
 *
 * to_tensor, normalize, the flip and collate move bytes: their bound is the
 * time memcpy takes to read and write as many bytes as the op reads and
 * writes (a copy of (in + out) / 2 bytes, hot in cache as the op's input
 * is). The resampler multiplies and adds: its bound is its multiply-adds
 * (taps x channels, resample_macs: an 8-bit pixel times a 22-bit weight) at
 * the peak rate of the best exact instruction mix of the kernels this CPU
 * runs, in registers (kernels.h, exact_peak): with AVX-512 VNNI, 3 vpdpbusd
 * per 64 (the weights split in three int8); without, pmaddubsw for the
 * weights' high bytes and pmaddwd for their low 16 bits.
 *
 * Inputs are 224 x 224 (the pipeline's output size) and, for the
 * resampler, crops drawn as RandomResizedCrop draws them from a 500 x 375
 * image. Between two clock reads there is only the op or the copy; inputs
 * are restored outside them. Each round takes the median of its calls (a
 * call the scheduler interrupted on a shared machine does not move it);
 * the rounds give the interval. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_result.h"
#include "clock.h"
#include "kernels.h"
#include "log.h"
#include "pipeline.h"
#include "resample.h"
#include "rng.h"
#include "rrc.h"
#include "stats.h"

#define SIDE 224
#define SRC_W 500
#define SRC_H 375
#define CROPS 32
#define MAX_CALLS 128           /* timed calls per op and round */

/* B_HPASS, B_VPASS: the resampler's two passes alone (the same crops,
 * resized in one direction), to show which of them is far from the bound */
enum { B_TO_TENSOR, B_NORMALIZE, B_FLIP, B_COLLATE, B_RESAMPLE, B_HPASS, B_VPASS, B_ITEMS };

struct bounds_ws {
	const struct pipeline *p;
	int op[B_ITEMS];               /* index in p, or -1 */
	uint8_t *img, *src;            /* 224 x 224 and 500 x 375 RGB */
	float *tensor;                 /* 224 x 224 x 3 float32 */
	char *copy_a, *copy_b;         /* memcpy buffers (the largest copy) */
	struct sample s, *bs, **bp;    /* one sample; a batch for collate */
	size_t B;
	struct scratch scr;
	struct batch_out out;
	int crop[CROPS][4];            /* i, j, h, w */
	uint64_t macs, macs_h, macs_v; /* of the CROPS resamples; of their passes alone */
	uint8_t *pass_out;             /* a pass's output (up to 500 x 375) */
};

static void put(struct sample *s, struct scratch *scr, const void *p, size_t bytes,
		enum pix_kind kind, int w, int h)
{
	if (buf_reserve(&s->data, bytes))
		die("out of memory");
	memcpy(s->data.p, p, bytes);
	s->scr = scr;
	s->kind = kind;
	s->w = w;
	s->h = h;
}

/* the median of the k call times in d (sorted in place): a call the
 * scheduler interrupted on a shared machine does not move it */
static double median_ns(double *d, int k)
{
	stats_sort(d, (size_t)k);
	return stats_percentile_sorted(d, (size_t)k, 50);
}

/* ns of one memcpy of n bytes (hot), the median of k */
static double copy_ns(struct bounds_ws *w, size_t n, int k)
{
	double d[MAX_CALLS];
	memcpy(w->copy_b, w->copy_a, n);
	for (int r = 0; r < k; r++) {
		uint64_t t0 = clock_now_ns();
		memcpy(w->copy_b, w->copy_a, n);
		uint64_t t1 = clock_now_ns();
		d[r] = (double)(t1 - t0);
		__asm__ volatile("" ::: "memory");
	}
	return median_ns(d, k);
}

/* ns of one call of a per-sample op on a fresh copy of its input, median of
 * k; the resampler crops w->crop[crop] */
static double op_ns(struct bounds_ws *w, int item, int k, int crop)
{
	const struct pipe_op *o = &w->p->op[w->op[item]];
	struct fixed_choice fc = { .flip = 1 };
	struct rng r;
	double d[MAX_CALLS];
	rng_seed(&r, 1);
	for (int c = 0; c < k; c++) {
		if (item == B_TO_TENSOR || item == B_FLIP)
			put(&w->s, &w->scr, w->img, (size_t)SIDE * SIDE * 3, PIX_U8_HWC, SIDE, SIDE);
		else if (item == B_NORMALIZE)
			put(&w->s, &w->scr, w->tensor, (size_t)SIDE * SIDE * 12, PIX_F32_CHW, SIDE, SIDE);
		else
			put(&w->s, &w->scr, w->src, (size_t)SRC_W * SRC_H * 3, PIX_U8_HWC, SRC_W, SRC_H);
		if (item == B_RESAMPLE) {
			fc.has_crop = 1;
			memcpy(fc.crop, w->crop[crop], sizeof(fc.crop));
		}
		w->s.fixed = &fc;
		w->s.rng = &r;
		uint64_t t0 = clock_now_ns();
		int rc = o->ops->run(o->cfg, &w->s);
		uint64_t t1 = clock_now_ns();
		if (rc)
			die("bench bounds: %s: %s", o->ops->name, w->s.err);
		d[c] = (double)(t1 - t0);
	}
	return median_ns(d, k);
}

/* ns of the CROPS resamples, each the median of 3 calls on its crop */
static double resample_ns(struct bounds_ws *w)
{
	double t = 0;
	for (int c = 0; c < CROPS; c++)
		t += op_ns(w, B_RESAMPLE, 3, c);
	return t;
}

/* ns of the CROPS crops resized in one direction only (horizontal: to 224
 * wide, keeping the height; vertical: to 224 high), median of 3 each */
static double pass_ns(struct bounds_ws *w, int horizontal)
{
	double t = 0, d[3];
	for (int c = 0; c < CROPS; c++) {
		const int *b = w->crop[c];
		const uint8_t *px = w->src + ((size_t)b[0] * SRC_W + (size_t)b[1]) * 3;
		int ow = horizontal ? SIDE : b[3], oh = horizontal ? b[2] : SIDE;
		for (int k = 0; k < 3; k++) {
			uint64_t t0 = clock_now_ns();
			int rc = resample_bilinear_u8(px, b[3], b[2], SRC_W * 3, w->pass_out, ow, oh,
						      &w->scr.aux[0], &w->scr.aux[1]);
			uint64_t t1 = clock_now_ns();
			if (rc)
				die("bench bounds: out of memory resampling");
			d[k] = (double)(t1 - t0);
		}
		t += median_ns(d, 3);
	}
	return t;
}

static double collate_ns(struct bounds_ws *w, int k)
{
	const struct pipe_op *o = &w->p->op[w->op[B_COLLATE]];
	char err[256];
	double d[MAX_CALLS];
	for (int c = 0; c < k; c++) {
		w->out.n = w->B;
		uint64_t t0 = clock_now_ns();
		int rc = o->ops->run_batch(o->cfg, w->bp, w->B, &w->out, err, sizeof(err));
		uint64_t t1 = clock_now_ns();
		if (rc)
			die("bench bounds: collate: %s", err);
		d[c] = (double)(t1 - t0);
	}
	return median_ns(d, k);
}

static void ws_init(struct bounds_ws *w, const struct pipeline *p, size_t B)
{
	static const char *const names[B_ITEMS] = { "to_tensor", "normalize", "random_horizontal_flip",
						    "collate", "random_resized_crop" };
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->B = B;
	for (int i = 0; i < B_ITEMS; i++)
		w->op[i] = pipeline_find(p, names[i < B_HPASS ? i : B_RESAMPLE]);
	size_t one = (size_t)SIDE * SIDE * 12, big = B * one;
	w->img = malloc((size_t)SIDE * SIDE * 3);
	w->src = malloc((size_t)SRC_W * SRC_H * 3);
	w->tensor = malloc(one);
	w->copy_a = malloc(big);
	w->copy_b = malloc(big);
	w->bs = calloc(B, sizeof(*w->bs));
	w->bp = calloc(B, sizeof(*w->bp));
	w->pass_out = malloc((size_t)SRC_W * SRC_H * 3 > (size_t)SIDE * SRC_H * 3 ?
			     (size_t)SRC_W * SRC_H * 3 : (size_t)SIDE * SRC_H * 3);
	if (!w->img || !w->src || !w->tensor || !w->copy_a || !w->copy_b || !w->bs || !w->bp ||
	    !w->pass_out)
		die("out of memory");
	uint32_t x = 12345;
	for (size_t i = 0; i < (size_t)SRC_W * SRC_H * 3; i++) {
		x = x * 1103515245u + 12345u;
		w->src[i] = (uint8_t)(x >> 16);
		if (i < (size_t)SIDE * SIDE * 3)
			w->img[i] = w->src[i];
	}
	for (size_t i = 0; i < (size_t)SIDE * SIDE * 3; i++)
		w->tensor[i] = (float)w->img[i] / 255.0f;
	memset(w->copy_a, 1, big);
	memset(w->copy_b, 2, big);
	for (size_t i = 0; i < B; i++) {
		put(&w->bs[i], &w->scr, w->tensor, one, PIX_F32_CHW, SIDE, SIDE);
		w->bp[i] = &w->bs[i];
	}
	if (w->op[B_COLLATE] >= 0) {
		const struct pipe_op *o = &p->op[w->op[B_COLLATE]];
		w->out.capacity = o->ops->batch_bytes(o->cfg, B, SIDE, SIDE);
		w->out.mem = malloc(w->out.capacity);
		if (!w->out.mem)
			die("out of memory");
		memset(w->out.mem, 0, w->out.capacity);
	}
	/* the crops RandomResizedCrop draws (default scale and ratio) */
	struct rrc_params rp;
	struct rng r;
	rrc_params_init(&rp, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0);
	rng_seed(&r, 7);
	for (int c = 0; c < CROPS; c++) {
		int *b = w->crop[c];
		rrc_get_params(&r, &rp, SRC_W, SRC_H, &b[0], &b[1], &b[2], &b[3]);
		w->macs += resample_macs(b[3], b[2], SIDE, SIDE);
		w->macs_h += resample_macs(b[3], b[2], SIDE, b[2]);
		w->macs_v += resample_macs(b[3], b[2], b[3], SIDE);
	}
}

static void ws_release(struct bounds_ws *w)
{
	sample_release(&w->s);
	for (size_t i = 0; i < w->B; i++)
		sample_release(&w->bs[i]);
	scratch_release(&w->scr);
	free(w->out.mem);
	free(w->img);
	free(w->src);
	free(w->tensor);
	free(w->copy_a);
	free(w->copy_b);
	free(w->bs);
	free(w->bp);
	free(w->pass_out);
}

/* The resampler's exact bound: taps x channels (resample_macs) per ns at
 * the best exact instruction mix of the kernels this CPU runs (each
 * kernel's exact_peak in registers; a peak is what the CPU reaches
 * uninterrupted: the best of 5 short loops each). per[id] keeps the best
 * each kernel's mix has reached (0 where the CPU lacks the kernel); *by
 * gets the kernel whose mix the bound is. */
static double resample_peak_per_ns(double per[KERNEL_COUNT], const struct kernels **by)
{
	double best = 0;
	*by = kernels_of(KERNEL_SSE2);
	for (int id = 0; id < KERNEL_COUNT; id++) {
		if (!kernels_supported((enum kernel_id)id, NULL))
			continue;
		const struct kernels *k = kernels_of((enum kernel_id)id);
		double mine = 0;
		for (int i = 0; i < 5; i++) {
			uint64_t t0 = clock_now_ns();
			double m = k->exact_peak(400000);
			uint64_t t1 = clock_now_ns();
			double r = m / (double)(t1 - t0);
			mine = r > mine ? r : mine;
		}
		per[id] = mine > per[id] ? mine : per[id];
		if (mine > best) {
			best = mine;
			*by = k;
		}
	}
	return best;
}

double bench_resample_peak_per_ns(void)
{
	double per[KERNEL_COUNT] = { 0 };
	const struct kernels *by;
	return resample_peak_per_ns(per, &by);
}

/* bytes each byte-moving op reads plus writes */
static size_t item_bytes(int item, size_t B)
{
	size_t u8 = (size_t)SIDE * SIDE * 3, f32 = u8 * 4;
	switch (item) {
	case B_TO_TENSOR:
		return u8 + f32;
	case B_NORMALIZE:
		return 2 * f32;
	case B_FLIP:
		return 2 * u8;
	default:
		return 2 * B * f32;
	}
}

static void report(struct bench_result *res, const char *op, const char *unit, double *rate,
		   double *bound, size_t R)
{
	char name[128], a[96], b[96];
	snprintf(name, sizeof(name), "%s achieved %s", op, unit);
	const struct bench_fig *fa = bench_figure(res, "bounds", name, unit, rate, R, 0, 0, 0);
	snprintf(name, sizeof(name), "%s bound %s", op, unit);
	const struct bench_fig *fb = bench_figure(res, "bounds", name, unit, bound, R, 0, 0, 0);
	if (!fa || !fb)
		return;
	bench_fig_format(a, sizeof(a), fa, "%.1f");
	bench_fig_format(b, sizeof(b), fb, "%.1f");
	printf("| %s | %s | %s %s |\n", op, a, b, unit);
}

int bench_bounds(const char *pipeline, size_t rounds, size_t B, struct bench_result *res)
{
	char err[512];
	struct pipeline p;
	if (pipeline_load(&p, pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	struct bounds_ws w;
	ws_init(&w, &p, B);
	size_t R = rounds;
	double *v = calloc((size_t)B_ITEMS * 3 * R, sizeof(double));
	if (!v)
		die("out of memory");
	/* v[(item * 3 + 0) * R + r]: achieved rate; + 1: bound rate; + 2: time / bound */
	const struct kernels *mix = kernels_of(KERNEL_SSE2);
	double mixes[KERNEL_COUNT] = { 0 };   /* each kernel's exact mix, best of the rounds */
	/* kv[id * R + r]: the resampler's time / bound with kernel id (0: the
	 * CPU lacks it), each round, beside the active kernel's */
	double *kv = calloc((size_t)KERNEL_COUNT * R, sizeof(double));
	if (!kv)
		die("out of memory");
	const struct kernels *was = kernels_active();
	char was_by[64];
	snprintf(was_by, sizeof(was_by), "%s", kernels_chosen_by());
#define V(item, k, r) v[((size_t)(item) * 3 + (k)) * R + (r)]
	for (size_t r = 0; r < R; r++) {
		for (int it = 0; it < B_ITEMS; it++) {
			if (w.op[it] < 0)
				continue;
			if (it >= B_RESAMPLE) {
				double peak = resample_peak_per_ns(mixes, &mix);
				double t = it == B_RESAMPLE ? resample_ns(&w) : pass_ns(&w, it == B_HPASS);
				uint64_t m = it == B_RESAMPLE ? w.macs : it == B_HPASS ? w.macs_h : w.macs_v;
				double bound_ns = (double)m / peak;
				V(it, 0, r) = (double)m / t;   /* G multiply-adds / s */
				V(it, 1, r) = peak;
				V(it, 2, r) = t / bound_ns;
				if (it == B_RESAMPLE)
					for (int id = 0; id < KERNEL_COUNT; id++) {
						char kerr[256];
						if (!kernels_supported((enum kernel_id)id, NULL) ||
						    kernels_use(kernels_of((enum kernel_id)id)->name, kerr, sizeof(kerr)))
							continue;
						kv[(size_t)id * R + r] = resample_ns(&w) / bound_ns;
						kernels_restore(was, was_by);
					}
				continue;
			}
			size_t bytes = item_bytes(it, B);
			int k = it == B_COLLATE ? 3 : 100;
			double t = it == B_COLLATE ? collate_ns(&w, k) : op_ns(&w, it, k, 0);
			double c = copy_ns(&w, bytes / 2, k);
			V(it, 0, r) = (double)bytes / t;       /* GB/s */
			V(it, 1, r) = (double)bytes / c;
			V(it, 2, r) = t / c;
		}
	}
	static const char *const label[B_ITEMS] = { "to_tensor", "normalize", "random_horizontal_flip (flipping)",
						    "collate", "random_resized_crop (resample)",
						    "resampler horizontal pass alone", "resampler vertical pass alone" };
	printf("\n## bounds: each op after decode against its bound, %zu rounds side by side, kernels %s\n\n"
	       "Byte ops: (bytes read + written) / time against memcpy moving as many bytes (hot);\n"
	       "the resampler: multiply-adds (taps x channels, 8-bit pixel x 22-bit weight) / time\n"
	       "against the peak of the best exact instruction mix this CPU runs, in registers:\n"
	       "%s's, %s.\n"
	       "Inputs 224x224; resampler crops drawn as RandomResizedCrop draws them from 500x375.\n\n",
	       R, kernels_active()->name, mix->name, mix->exact_mix);
	printf("| op | achieved | bound |\n|---|---:|---:|\n");
	for (int it = 0; it < B_ITEMS; it++)
		if (w.op[it] >= 0)
			report(res, label[it], it >= B_RESAMPLE ? "GMAC/s" : "GB/s", &V(it, 0, 0), &V(it, 1, 0), R);
	putchar('\n');
	for (int it = 0; it < B_ITEMS; it++) {
		if (w.op[it] < 0)
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%s time / bound", label[it]);
		/* the passes are parts of the op: shown, not judged; the
		 * resampler's target is 3x its exact bound (issue 22), the byte
		 * ops' 2x memcpy */
		bench_print_target(stdout, bench_figure(res, "bounds", name, "ratio", &V(it, 2, 0), R,
							it < B_HPASS, it == B_RESAMPLE ? 3.0 : 2.0, 1), "%.2f");
	}
	if (w.op[B_RESAMPLE] >= 0) {
		printf("\nthe resampler with each kernel, side by side in each round (time / the bound above):\n\n");
		for (int id = 0; id < KERNEL_COUNT; id++) {
			if (!kv[(size_t)id * R])
				continue;
			char name[128];
			snprintf(name, sizeof(name), "random_resized_crop (resample) with %s time / bound",
				 kernels_of((enum kernel_id)id)->name);
			bench_print_target(stdout, bench_figure(res, "bounds", name, "ratio", &kv[(size_t)id * R], R,
								0, 0, 1), "%.2f");
		}
		printf("\nthe exact mixes of the kernels this CPU runs (G taps x channels / s, the best of "
		       "the rounds; the bound is the best of them):\n\n| kernel | mix | peak |\n|---|---|---:|\n");
		for (int id = 0; id < KERNEL_COUNT; id++)
			if (mixes[id] > 0)
				printf("| %s | %s | %.1f |\n", kernels_of((enum kernel_id)id)->name,
				       kernels_of((enum kernel_id)id)->exact_mix, mixes[id]);
	}
#undef V
	free(v);
	free(kv);
	ws_release(&w);
	pipeline_release(&p);
	return 0;
}
