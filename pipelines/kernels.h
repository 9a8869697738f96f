/* The inner loops of the ops after decode, in one table per instruction
 * set, chosen at run time from the CPU's features: SSE2 (the x86-64
 * baseline, always there), AVX2 (with FMA) and AVX-512 (F+BW+VL). Every kernel gives
 * the same bits (integer sums are exact in any order; float ops are
 * IEEE-correctly rounded per element and -ffp-contract=off keeps them
 * apart; to_tensor's one explicit fma sequence is exact for its 256
 * inputs), which the golden tests check once per kernel.
 *
 * PPBENCH_KERNEL=sse2|avx2|avx512|auto forces one (auto, the default: the
 * widest the CPU has); a kernel the CPU lacks is refused at start-up. */
#ifndef PPBENCH_KERNELS_H
#define PPBENCH_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* The horizontal pass's plan for one output row (resample.c): output
 * pixel xx reads input pixels first .. first + count - 1 (bounds[2 xx],
 * bounds[2 xx + 1]) with weights kk[xx * ksize + t]; lo4/hi4 hold the
 * same weights split and packed in pairs as for `taps`, pair-major and
 * each repeated four times, zero past an output's last tap:
 * lo4[((m * out_w) + xx) * 4 + 0..3] = pair m of output xx (for
 * m < maxpairs). */
struct hplan {
	int out_w, ksize;
	int maxpairs;          /* the most pairs of taps of any output */
	int nvec;              /* outputs [0, nvec), a multiple of 4, whose
				* 16-byte loads at first + 4c (4c < 2 maxpairs)
				* stay inside the row's 3 in_w bytes */
	const int32_t *bounds, *kk;
	const uint32_t *lo4, *hi4;
};

struct kernels {
	const char *name;          /* "sse2", "avx2", "avx512" */
	/* HWC uint8 -> three float32 planes, x / 255.0f (bit for bit) */
	void (*to_tensor)(const uint8_t *in, size_t hw, float *r, float *g, float *b);
	/* p[i] = (p[i] - m) / sd */
	void (*normalize)(float *p, size_t n, float m, float sd);
	/* a row of w RGB pixels mirrored into dst (no overlap) */
	void (*flip_row)(const uint8_t *src, uint8_t *dst, int w);
	/* out[i] = clip8(2^21 + sum over taps t < n of p[t * step + i] * k[t]) for
	 * i < lanes; lo/hi: the weights split for pmaddwd (resample.c) */
	void (*taps)(const uint8_t *p, size_t step, int n, const int32_t *k, const uint32_t *lo,
		     const uint32_t *hi, size_t lanes, uint8_t *out);
	/* one row of the horizontal pass: out pixel xx, channel c =
	 * clip8(2^21 + sum over its taps t of in[3 (first + t) + c] * k[t]),
	 * reading only the row's 3 in_w bytes (hp->nvec); NULL where the set
	 * has no such kernel (the pass then uses `taps` over interleaved rows) */
	void (*hrow)(const uint8_t *in, uint8_t *out, const struct hplan *hp);
	/* the peak the resampler's sums can reach: `iters` rounds of 8
	 * independent pmaddwd + add at the set's widest vector, in registers;
	 * returns the int16 multiply-adds done (the bound of `make bench`) */
	uint64_t (*madd_peak)(uint64_t iters);
};

enum kernel_id { KERNEL_SSE2, KERNEL_AVX2, KERNEL_AVX512, KERNEL_COUNT };

extern const struct kernels kernels_sse2, kernels_avx2, kernels_avx512;

/* The kernels in use (chosen on first call: PPBENCH_KERNEL, else auto). */
const struct kernels *kernels_active(void);
/* The table of a kernel id. */
const struct kernels *kernels_of(enum kernel_id id);
/* 1 if this CPU runs kernel id; else 0 and *why says what it lacks. */
int kernels_supported(enum kernel_id id, const char **why);
/* Use kernel `name` ("sse2", "avx2", "avx512", "auto") from now on. 0, or
 * -1 with err (unknown name, or the CPU lacks it). Not thread-safe: call
 * before starting workers (start-up, tests). */
int kernels_use(const char *name, char *err, size_t errlen);
/* Apply PPBENCH_KERNEL if set (start-up). 0, or -1 with err. */
int kernels_from_env(char *err, size_t errlen);
/* "avx512 (auto: the widest this CPU runs; sse2 yes, avx2 yes, avx512 yes)"
 * or "avx2 (PPBENCH_KERNEL=avx2; ...)" with the reason a kernel cannot run. */
void kernels_describe(char *out, size_t n);
/* How the active kernels were chosen: "auto", "PPBENCH_KERNEL=name" or
 * "forced name" (kernels_use). */
const char *kernels_chosen_by(void);
/* Put back kernels and how they were chosen (after trying each in turn). */
void kernels_restore(const struct kernels *k, const char *chosen);
/* The widest kernel this CPU runs. */
enum kernel_id kernels_best(void);

#endif
