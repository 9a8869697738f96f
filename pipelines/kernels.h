/* The inner loops of the ops after decode, in one table per instruction
 * set, chosen at run time from the CPU's features: SSE2 (the x86-64
 * baseline, always there), AVX2 (with FMA), AVX-512 (F+BW+VL) and AVX-512
 * with VNNI and VBMI (avx512vnni: the resampler's sums through vpdpbusd).
 * Every kernel gives the same bits (integer sums are exact in any order;
 * float ops are IEEE-correctly rounded per element and -ffp-contract=off
 * keeps them apart; to_tensor's one explicit fma sequence is exact for its
 * 256 inputs), which the golden tests check once per kernel.
 *
 * PPBENCH_KERNEL=sse2|avx2|avx512|avx512vnni|auto forces one (auto, the
 * default: the widest the CPU has); a kernel the CPU lacks is refused at
 * start-up. */
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

/* The resampler's weights split in three bytes for vpdpbusd (resample.c,
 * resample_split3): w = a 2^16 + b 2^8 + c with a, b, c int8 (c the low
 * byte, then b), and a 2^8 + b = (w + 2^7) >> 8 in int16 (the kernels'
 * words mode), which every w in [W3_MIN, W3_MAX] has. Taps go in groups
 * of four; for `out` outputs, w3[(3 g + q) out + xx] holds part q (a, b,
 * c) of taps 4g .. 4g + 3 of output xx (tap 4g + t in byte t), zero past
 * its last tap. */
#define W3_MIN (-8388736)      /* -(2^23 + 2^7): a 2^8 + b = -2^15 */
#define W3_MAX 8355711         /* 127 (2^16 + 2^8 + 1): a = b = c = 127 */
/* part q (0: a, 1: b, 2: c) of w as a byte: c the low byte as int8;
 * (w + 2^7) >> 8 = a 2^8 + b since c + 2^7 is in [0, 255]; likewise
 * (w + 2^7 + 2^15) >> 16 = a */
static inline uint8_t w3_part(int32_t w, int q)
{
	return (uint8_t)(q == 0 ? (w + 0x8080) >> 16 : q == 1 ? (w + 0x80) >> 8 : w);
}
#define W3_MAX_GROUPS 8        /* vpass8 takes outputs of at most 4 W3_MAX_GROUPS taps */

/* The horizontal pass's byte-gather plan (kernels with hrows8, whose
 * hplan8 builds it). Output byte o = 3 xx + c of a row is int32 lane o % 16 of
 * group o / 16. Group g reads `win` bytes (64 or 128) of the input row
 * from byte start[g] on, all inside the row's 3 in_w bytes; its tap group
 * k (taps 4k .. 4k + 3) is four 64-byte vectors at tab + (g ntg + k) 256
 * (64-byte aligned): each lane's four taps as byte indices into the
 * window (byte 4 lane + t; the index modulo win is used), then the a, b
 * and c bytes of their weights (as w3; zero past an output's last tap and
 * in the lanes past out_bytes). In words mode (no output has more than
 * two taps; ntg 1) the lane's two taps are at bytes 4 lane and 4 lane + 2,
 * and the weights are two vectors: a 2^8 + b of each tap as int16, and c
 * at bytes 0 and 2. */
struct hplan8 {
	int out_bytes;         /* 3 out_w */
	int groups;            /* (out_bytes + 15) / 16 */
	int ntg;               /* tap groups: (the most taps of any output + 3) / 4 */
	int win;               /* 64 (vpermb) or 128 (vpermi2b) */
	int words;             /* words mode */
	const int32_t *start;  /* [groups] */
	const uint8_t *tab;    /* [groups * ntg * 256] */
};

/* The groups of the byte-gather plan to out_w pixels, and its bytes with
 * taps of at most ksize (start, then tab 64-byte aligned) */
static inline int hplan8_groups(int out_w)
{
	return (3 * out_w + 15) / 16;
}
static inline size_t hplan8_bytes(int out_w, int ksize)
{
	size_t groups = (size_t)hplan8_groups(out_w), ntg = ((size_t)ksize + 3) / 4;
	return groups * 4 + 64 + groups * ntg * 256;
}

struct kernels {
	const char *name;          /* "sse2", "avx2", "avx512", "avx512vnni" */
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
	/* Pillow's bilinear weights for `out` outputs from in_size inputs
	 * (precompute_coeffs on the box (0, in_size), normalize_coeffs_8bpc):
	 * bounds[2 xx] = the first input, bounds[2 xx + 1] = the taps, and
	 * the weights: with w3 (room for 3 (ksize + 3) / 4 * out) split in
	 * three bytes (above), else (or if one does not split) in kk[xx *
	 * ksize + t] for t < taps. tmp: room for (2 ksize + 3) * out doubles.
	 * Each double and int op per element as Pillow does it, at the set's
	 * width (resample_geom.h). 0, or -1 if a weight does not split (then
	 * kk holds them, and w3 is not to be used). */
	int (*coeffs)(int in_size, int out, int ksize, int32_t *bounds, int32_t *kk, uint32_t *w3,
		      double *tmp);
	/* the vertical pass with the weights split in three bytes (w3, above,
	 * as coeffs made them for out_h outputs): out row yy (width bytes) =
	 * clip8(2^21 + sum over its taps t of in row bounds[2 yy] + t times
	 * the weight), rows in_stride bytes apart in `in`; NULL where the set
	 * has no vpdpbusd */
	void (*vpass8)(const uint8_t *in, size_t in_stride, size_t width, uint8_t *out, int out_h,
		       const int32_t *bounds, const uint32_t *w3);
	/* the byte-gather plan (above) of the horizontal pass from in_w to
	 * out_w pixels with the weights of `coeffs` (ksize, bounds, w3) into
	 * mem (room for hplan8_bytes): 0, or -1 if it cannot run: a group of
	 * 16 output bytes reads more than 128 bytes of the row (a huge
	 * downscale), or the row is shorter than the window (its loads would
	 * pass the row's end). NULL where the set has no hrows8. */
	int (*hplan8)(struct hplan8 *hp, int in_w, int out_w, int ksize, const int32_t *bounds,
		      const uint32_t *w3, void *mem);
	/* the horizontal pass on `rows` rows (in_stride bytes apart in, out_stride
	 * in out) by the byte-gather plan; NULL where the set has none */
	void (*hrows8)(const uint8_t *in, size_t in_stride, int rows, uint8_t *out,
		       size_t out_stride, const struct hplan8 *hp);
	/* the peak the resampler's exact sums can reach with this set: `iters`
	 * rounds of its best exact instruction mix (exact_mix) at its widest
	 * vector, in registers; returns the taps x channels summed (the unit of
	 * resample_macs: one 8-bit pixel times one 22-bit weight), the bound of
	 * `make bench` */
	double (*exact_peak)(uint64_t iters);
	const char *exact_mix;     /* "3 vpdpbusd per 64 taps x channels ..." */
};

enum kernel_id { KERNEL_SSE2, KERNEL_AVX2, KERNEL_AVX512, KERNEL_AVX512VNNI, KERNEL_COUNT };

extern const struct kernels kernels_sse2, kernels_avx2, kernels_avx512, kernels_avx512vnni;

/* The kernels in use (chosen on first call: PPBENCH_KERNEL, else auto). */
const struct kernels *kernels_active(void);
/* The table of a kernel id. */
const struct kernels *kernels_of(enum kernel_id id);
/* 1 if this CPU runs kernel id; else 0 and *why says what it lacks. */
int kernels_supported(enum kernel_id id, const char **why);
/* Use kernel `name` ("sse2", "avx2", "avx512", "avx512vnni", "auto") from now on. 0, or
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
