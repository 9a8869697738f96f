/* The kernels' source, compiled once per instruction set (kernels_sse2.c,
 * kernels_avx2.c, kernels_avx512.c define KERNEL_NAME and get their -m
 * flags and -O3 from the Makefile): plain loops the compiler vectorizes at
 * the set's width, so every set computes the same expression per element,
 * and the resampler's integer sums written for each width. */
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include "kernels.h"
#include "resample_geom.h"

#define KCAT2(a, b) a##_##b
#define KCAT(a, b) KCAT2(a, b)
#define K(f) KCAT(f, KERNEL_NAME)

/* torchvision ToTensor: x / 255.0f, correctly rounded. With FMA, as the
 * reciprocal product corrected by its residual: q = x * r, e = x - 255 q
 * (exact in one fma), q + e r: the correctly rounded quotient for every x
 * in 0..255 (the golden test checks all 256 values with every kernel; the
 * plain product x * r alone differs for 126 of them). Division's
 * throughput is what bounds this loop otherwise. */
static void K(to_tensor)(const uint8_t *restrict in, size_t hw, float *restrict r,
			 float *restrict g, float *restrict b)
{
#ifdef __FMA__
	const float inv = 1.0f / 255.0f;   /* the float nearest 1/255 */
#define TT(x) __extension__({ float x_ = (float)(x), q_ = x_ * inv; \
			       __builtin_fmaf(__builtin_fmaf(-q_, 255.0f, x_), inv, q_); })
#else
#define TT(x) ((float)(x) / 255.0f)
#endif
	size_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
	/* 16 pixels at a time: three pshufb per channel gather its 16 bytes
	 * from the three 16-byte chunks (the compiler's stride-3 loads cost
	 * more than the arithmetic), then the same fma sequence as TT */
	const __m128i m0[3] = { _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
				_mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
				_mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1) };
	const __m128i m1[3] = { _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1),
				_mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1),
				_mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1) };
	const __m128i m2[3] = { _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13),
				_mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14),
				_mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15) };
	float *const dst[3] = { r, g, b };
#ifdef __AVX512BW__
	/* 16 pixels per 64-byte load: vpermd gives 128-bit lane k the bytes
	 * 12k .. 12k + 15 (pixels 4k .. 4k + 3 and one more), then one
	 * in-lane pshufb per channel spreads its four bytes into dwords; the
	 * load reads 16 bytes past the 16 pixels, so it stops 6 pixels short */
	{
		const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 11, 12);
		const __m512i ch[3] = {
			_mm512_broadcast_i32x4(_mm_setr_epi8(0, -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 9, -1, -1, -1)),
			_mm512_broadcast_i32x4(_mm_setr_epi8(1, -1, -1, -1, 4, -1, -1, -1, 7, -1, -1, -1, 10, -1, -1, -1)),
			_mm512_broadcast_i32x4(_mm_setr_epi8(2, -1, -1, -1, 5, -1, -1, -1, 8, -1, -1, -1, 11, -1, -1, -1)) };
		const __m512 vinv = _mm512_set1_ps(inv), v255 = _mm512_set1_ps(255.0f);
		for (; 3 * (i + 16) + 16 <= 3 * hw; i += 16) {
			__m512i v = _mm512_permutexvar_epi32(lanes, _mm512_loadu_si512(in + 3 * i));
			for (int k = 0; k < 3; k++) {
				__m512 x = _mm512_cvtepi32_ps(_mm512_shuffle_epi8(v, ch[k]));
				__m512 qq = _mm512_mul_ps(x, vinv);
				__m512 e = _mm512_fnmadd_ps(qq, v255, x);
				_mm512_storeu_ps(dst[k] + i, _mm512_fmadd_ps(e, vinv, qq));
			}
		}
	}
#endif
#ifndef __AVX512F__
	const __m256 vinv = _mm256_set1_ps(inv), v255 = _mm256_set1_ps(255.0f);
#endif
	for (; i + 16 <= hw; i += 16) {
		const uint8_t *q = in + 3 * i;
		__m128i c0 = _mm_loadu_si128((const __m128i *)q);
		__m128i c1 = _mm_loadu_si128((const __m128i *)(q + 16));
		__m128i c2 = _mm_loadu_si128((const __m128i *)(q + 32));
		for (int k = 0; k < 3; k++) {
			__m128i v = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(c0, m0[k]), _mm_shuffle_epi8(c1, m1[k])),
						 _mm_shuffle_epi8(c2, m2[k]));
#ifdef __AVX512F__
			__m512 x = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(v));
			__m512 qq = _mm512_mul_ps(x, _mm512_set1_ps(inv));
			__m512 e = _mm512_fnmadd_ps(qq, _mm512_set1_ps(255.0f), x);
			_mm512_storeu_ps(dst[k] + i, _mm512_fmadd_ps(e, _mm512_set1_ps(inv), qq));
#else
			for (int h = 0; h < 2; h++) {
				__m256 x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(h ? _mm_srli_si128(v, 8) : v));
				__m256 qq = _mm256_mul_ps(x, vinv);
				__m256 e = _mm256_fnmadd_ps(qq, v255, x);
				_mm256_storeu_ps(dst[k] + i + 8 * h, _mm256_fmadd_ps(e, vinv, qq));
			}
#endif
		}
	}
#endif
	for (; i < hw; i++) {
		r[i] = TT(in[3 * i]);
		g[i] = TT(in[3 * i + 1]);
		b[i] = TT(in[3 * i + 2]);
	}
#undef TT
}

/* torchvision Normalize: (x - mean) / std in float32, true division */
static void K(normalize)(float *restrict p, size_t n, float m, float sd)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (p[i] - m) / sd;
}

/* PIL's FLIP_LEFT_RIGHT of one row into dst (a new image, as PIL's
 * transpose makes). With SSSE3, five pixels per pshufb: dst pixels
 * x..x+4 are src pixels w-1-x..w-5-x; the 16-byte load reads one byte of
 * src pixel w-x (there while x >= 1) and the 16-byte store writes one byte
 * of dst pixel x+5 (there while x + 5 < w; the next store rewrites it). */
static void K(flip_row)(const uint8_t *restrict src, uint8_t *restrict dst, int w)
{
	int x = 0;
#ifdef __SSSE3__
	const __m128i rev = _mm_setr_epi8(12, 13, 14, 9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2, -1);
	if (w > 6) {
		memcpy(dst, src + 3 * (size_t)(w - 1), 3);
		for (x = 1; x + 5 < w; x += 5) {
			__m128i v = _mm_loadu_si128((const __m128i *)(src + 3 * (size_t)(w - 5 - x)));
			_mm_storeu_si128((__m128i *)(dst + 3 * (size_t)x), _mm_shuffle_epi8(v, rev));
		}
	}
#endif
	for (; x < w; x++) {
		const uint8_t *s = src + 3 * (size_t)(w - 1 - x);
		dst[3 * x] = s[0];
		dst[3 * x + 1] = s[1];
		dst[3 * x + 2] = s[2];
	}
}

/* Pillow's weights in passes over all outputs at once, each loop over
 * the outputs (the inner one) plain enough to vectorize: the spans; per
 * tap, the filter and the running sum ww (taps in Pillow's order, so the
 * same rounding); per tap, the normalized fixed-point weight; then the
 * split, or the weights moved to kk output by output. tmp: centers, sums,
 * spans, then the weights tap-major as doubles, then as ints. */
static int K(coeffs)(int in_size, int out, int ksize, int32_t *restrict bounds, int32_t *restrict kk,
		     uint32_t *restrict w3, double *restrict tmp)
{
	struct rs_geom g;
	rs_geom_init(&g, in_size, out);
	const double scale = g.scale, support = g.support, ss = 1.0 / g.filterscale;
	double *restrict center = tmp, *restrict ww = tmp + out, *restrict kd = tmp + 3 * (size_t)out;
	int32_t *restrict first = (int32_t *)(tmp + 2 * (size_t)out), *restrict cnt = first + out;
	for (int xx = 0; xx < out; xx++) {
		double c = (xx + 0.5) * scale;
		int xmin = (int)(c - support + 0.5);
		int xmax = (int)(c + support + 0.5);
		xmin = xmin < 0 ? 0 : xmin;
		xmax = xmax > in_size ? in_size : xmax;
		center[xx] = c;
		first[xx] = xmin;
		cnt[xx] = xmax - xmin;
		ww[xx] = 0.0;
	}
	/* the taps of the widest output (ksize bounds them; often one less) */
	int nt = 0;
	for (int xx = 0; xx < out; xx++)
		nt = cnt[xx] > nt ? cnt[xx] : nt;
	for (int t = 0; t < nt; t++) {
		double *restrict kt = kd + (size_t)t * out;
		for (int xx = 0; xx < out; xx++) {
			/* bilinear_filter((x + xmin - center + 0.5) * ss) */
			double x = ((double)(t + first[xx]) - center[xx] + 0.5) * ss;
			x = x < 0.0 ? -x : x;
			double w = x < 1.0 ? 1.0 - x : 0.0;
			w = t < cnt[xx] ? w : 0.0;
			kt[xx] = w;
			ww[xx] += w;    /* + 0.0 past the taps: ww is never -0.0 */
		}
	}
	const double one = (double)(1 << RS_PRECISION_BITS);
	int32_t *restrict ki = (int32_t *)(kd + (size_t)ksize * out);
	for (int t = 0; t < nt; t++) {
		const double *restrict kt = kd + (size_t)t * out;
		int32_t *restrict it = ki + (size_t)t * out;
		for (int xx = 0; xx < out; xx++) {
			double k = kt[xx];
			k = ww[xx] != 0.0 ? k / ww[xx] : k;
			it[xx] = k < 0 ? (int32_t)(-0.5 + k * one) : (int32_t)(0.5 + k * one);
		}
	}
	for (int xx = 0; xx < out; xx++) {
		bounds[2 * xx] = first[xx];
		bounds[2 * xx + 1] = cnt[xx];
	}
	int ok = w3 != NULL;
	if (w3) {
		/* the split (kernels.h), from the weights tap-major (zero past
		 * each output's taps, whose parts are then zero; a tap past the
		 * widest output reads a row of zeros: ww, no longer needed) */
		int32_t *restrict zero = (int32_t *)ww;
		for (int xx = 0; xx < out; xx++)
			zero[xx] = 0;
		for (int g = 0; 4 * g < ksize; g++) {
			uint32_t *restrict wa = w3 + 3 * (size_t)g * out, *restrict wb = wa + out;
			uint32_t *restrict wc = wb + out;
			const int32_t *restrict t0 = 4 * g < nt ? ki + (size_t)(4 * g) * out : zero;
			const int32_t *restrict t1 = 4 * g + 1 < nt ? ki + (size_t)(4 * g + 1) * out : zero;
			const int32_t *restrict t2 = 4 * g + 2 < nt ? ki + (size_t)(4 * g + 2) * out : zero;
			const int32_t *restrict t3 = 4 * g + 3 < nt ? ki + (size_t)(4 * g + 3) * out : zero;
			for (int xx = 0; xx < out; xx++) {
				const int32_t w[4] = { t0[xx], t1[xx], t2[xx], t3[xx] };
				uint32_t pa = 0, pb = 0, pc = 0;
				for (int u = 0; u < 4; u++) {
					ok &= (w[u] >= W3_MIN) & (w[u] <= W3_MAX);
					pa |= (uint32_t)w3_part(w[u], 0) << (8 * u);
					pb |= (uint32_t)w3_part(w[u], 1) << (8 * u);
					pc |= (uint32_t)w3_part(w[u], 2) << (8 * u);
				}
				wa[xx] = pa;
				wb[xx] = pb;
				wc[xx] = pc;
			}
		}
	}
	if (ok)
		return 0;
	/* kk, output by output */
	for (int xx = 0; xx < out; xx++)
		for (int t = 0; t < cnt[xx]; t++)
			kk[(size_t)xx * ksize + t] = ki[(size_t)t * out + xx];
	return w3 ? -1 : 0;
}

static inline uint8_t K(clip8)(int32_t ss)
{
	ss >>= 22;
	return ss < 0 ? 0 : ss > 255 ? 255 : (uint8_t)ss;
}

/* taps' blocks of L lanes with vectors of type T (intrinsics F_..., loads
 * and stores F_loadu_S): the bytes of taps 2m and 2m + 1 interleaved, then
 * each byte zero-extended in place (all in-lane unpacks, no lane-crossing
 * zero-extend): int16 pairs of lanes 0-3, 4-7, 8-11 and 12-15 of every
 * 128-bit lane, which the saturating packs (the clamp to [0, 255]) put
 * back in order */
#define VF(F, f) F##_##f
#define TAPS_FIN(F, h, l, half) \
	VF(F, srai_epi32)(VF(F, add_epi32)(VF(F, add_epi32)(VF(F, slli_epi32)(h, 15), l), half), 22)
#define TAPS_BLOCKS(T, F, S, L)                                                                  \
	for (; i + (L) <= lanes; i += (L)) {                                                     \
		const uint8_t *q = p + i;                                                        \
		const T z = VF(F, setzero_##S)();                                                \
		T l0 = z, l1 = z, l2 = z, l3 = z, h0 = z, h1 = z, h2 = z, h3 = z;                 \
		for (int m = 0; 2 * m < n; m++, q += 2 * step) {                                 \
			T r = VF(F, loadu_##S)((const void *)q);                                 \
			T t = 2 * m + 1 < n ? VF(F, loadu_##S)((const void *)(q + step)) : z;    \
			T lo8 = VF(F, unpacklo_epi8)(r, t), hi8 = VF(F, unpackhi_epi8)(r, t);     \
			T a0 = VF(F, unpacklo_epi8)(lo8, z), a1 = VF(F, unpackhi_epi8)(lo8, z);   \
			T a2 = VF(F, unpacklo_epi8)(hi8, z), a3 = VF(F, unpackhi_epi8)(hi8, z);   \
			T kl = VF(F, set1_epi32)((int32_t)lo[m]);                                \
			T kh = VF(F, set1_epi32)((int32_t)hi[m]);                                \
			l0 = VF(F, add_epi32)(l0, VF(F, madd_epi16)(a0, kl));                    \
			l1 = VF(F, add_epi32)(l1, VF(F, madd_epi16)(a1, kl));                    \
			l2 = VF(F, add_epi32)(l2, VF(F, madd_epi16)(a2, kl));                    \
			l3 = VF(F, add_epi32)(l3, VF(F, madd_epi16)(a3, kl));                    \
			h0 = VF(F, add_epi32)(h0, VF(F, madd_epi16)(a0, kh));                    \
			h1 = VF(F, add_epi32)(h1, VF(F, madd_epi16)(a1, kh));                    \
			h2 = VF(F, add_epi32)(h2, VF(F, madd_epi16)(a2, kh));                    \
			h3 = VF(F, add_epi32)(h3, VF(F, madd_epi16)(a3, kh));                    \
		}                                                                                \
		const T half = VF(F, set1_epi32)(1 << 21);                                       \
		T v = VF(F, packus_epi16)(                                                        \
			VF(F, packs_epi32)(TAPS_FIN(F, h0, l0, half), TAPS_FIN(F, h1, l1, half)), \
			VF(F, packs_epi32)(TAPS_FIN(F, h2, l2, half), TAPS_FIN(F, h3, l3, half))); \
		VF(F, storeu_##S)((void *)(out + i), v);                                         \
	}

/* The resampler's sums (resample.c): pmaddwd on the weights split into 15
 * low and 8 high bits (both fit int16); (high sum << 15) + low sum with
 * wrapping 32-bit adds is the exact sum, so every width gives the same
 * bytes. Blocks of 64 lanes (AVX-512 BW), 32 (AVX2), 16 (SSE2), then one by
 * one. */
static void K(taps)(const uint8_t *p, size_t step, int n, const int32_t *k, const uint32_t *lo,
		    const uint32_t *hi, size_t lanes, uint8_t *out)
{
	size_t i = 0;
#ifdef __AVX512BW__
	TAPS_BLOCKS(__m512i, _mm512, si512, 64);
#endif
#ifdef __AVX2__
	TAPS_BLOCKS(__m256i, _mm256, si256, 32);
#endif
#ifdef __SSE2__
	TAPS_BLOCKS(__m128i, _mm, si128, 16);
#else
	(void)lo;
	(void)hi;
#endif
	for (; i < lanes; i++) {
		int32_t s = 1 << 21;
		for (int t = 0; t < n; t++)
			s += p[t * step + i] * k[t];
		out[i] = K(clip8)(s);
	}
}

#ifdef __AVX2__
/* output xx alone, as Pillow sums it (the row's last outputs, whose
 * 16-byte loads would pass the row's end) */
static void K(hpixel)(const uint8_t *in, const struct hplan *hp, int xx, uint8_t *out)
{
	const int32_t *k = hp->kk + (size_t)xx * hp->ksize;
	const uint8_t *p = in + 3 * (size_t)hp->bounds[2 * xx];
	int n = hp->bounds[2 * xx + 1];
	for (int c = 0; c < 3; c++) {
		int32_t s = 1 << 21;
		for (int t = 0; t < n; t++)
			s += p[3 * t + c] * k[t];
		out[3 * (size_t)xx + c] = K(clip8)(s);
	}
}

/* 16 bytes from input pixel f0 in the low 128-bit lane, from f1 in the
 * high one */
static inline __m256i K(hload2)(const uint8_t *in, int f0, int f1)
{
	return _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(in + 3 * (size_t)f0))),
		_mm_loadu_si128((const __m128i *)(in + 3 * (size_t)f1)), 1);
}

/* Outputs [0, hp->nvec) of one row, four at a time, one output per
 * 128-bit lane (two registers): a 16-byte load from the output's first
 * tap + 4c holds taps 4c .. 4c + 3 of its three channels; pshufb lays out
 * taps (4c, 4c+1), then (4c+2, 4c+3), as int16 pairs [r r g g b b 0 0] and
 * pmaddwd with the split weights gives [r g b 0] sums. The same exact
 * sums as `taps`, so the same bytes. np (the row's most pairs) is a
 * constant where inlined, so every group runs the same unrolled loop. */
static inline __attribute__((always_inline)) void
K(hgroups)(const uint8_t *in, uint8_t *out, const struct hplan *hp, const int np)
{
	const int W = hp->out_w;
	const int32_t *b = hp->bounds;
	const __m256i s0 = _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1,
					    0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
	const __m256i s1 = _mm256_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1,
					    6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
	const __m128i pick = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
	const __m256i half = _mm256_set1_epi32(1 << 21);
	const size_t pstep = 4 * (size_t)W;
	/* locals: a store through `out` could alias *hp */
	const int nvec = hp->nvec;
	const uint32_t *const lo4 = hp->lo4, *const hi4 = hp->hi4;
	for (int xx = 0; xx < nvec; xx += 4) {
		const int32_t *g = b + 2 * xx;
		__m256i la = _mm256_setzero_si256(), lb = la, ha = la, hb = la, pa = la, pb = la;
		const uint32_t *wl = lo4 + 4 * (size_t)xx, *wh = hi4 + 4 * (size_t)xx;
		for (int m = 0; m < np; m++, wl += pstep, wh += pstep) {
			if (!(m & 1)) {
				const int o = 2 * m;
				pa = K(hload2)(in, g[0] + o, g[2] + o);
				pb = K(hload2)(in, g[4] + o, g[6] + o);
			}
			__m256i xa = _mm256_shuffle_epi8(pa, m & 1 ? s1 : s0);
			__m256i xb = _mm256_shuffle_epi8(pb, m & 1 ? s1 : s0);
			__m256i kla = _mm256_loadu_si256((const __m256i *)wl);
			__m256i klb = _mm256_loadu_si256((const __m256i *)(wl + 8));
			__m256i kha = _mm256_loadu_si256((const __m256i *)wh);
			__m256i khb = _mm256_loadu_si256((const __m256i *)(wh + 8));
			la = _mm256_add_epi32(la, _mm256_madd_epi16(xa, kla));
			lb = _mm256_add_epi32(lb, _mm256_madd_epi16(xb, klb));
			ha = _mm256_add_epi32(ha, _mm256_madd_epi16(xa, kha));
			hb = _mm256_add_epi32(hb, _mm256_madd_epi16(xb, khb));
		}
		__m256i sa = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(ha, 15), la), half);
		__m256i sb = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(hb, 15), lb), half);
		sa = _mm256_srai_epi32(sa, 22);
		sb = _mm256_srai_epi32(sb, 22);
		/* saturating packs clamp to [0, 255]; per lane: outputs (xx, xx+2),
		 * (xx+1, xx+3) as 4-byte pixels, interleaved back in order */
		__m256i v = _mm256_packs_epi32(sa, sb);
		v = _mm256_packus_epi16(v, v);
		__m128i px = _mm_unpacklo_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
		px = _mm_shuffle_epi8(px, pick);
		uint8_t *o = out + 3 * (size_t)xx;
		if (3 * (size_t)xx + 16 <= 3 * (size_t)W)
			_mm_storeu_si128((__m128i *)o, px);
		else {
			uint8_t tmp[16];
			_mm_storeu_si128((__m128i *)tmp, px);
			memcpy(o, tmp, 12);
		}
	}
}

/* The horizontal pass on one row: the vector groups (hp->nvec outputs,
 * whose loads stay inside the row), then the rest one by one */
static void K(hrow)(const uint8_t *in, uint8_t *out, const struct hplan *hp)
{
	switch (hp->maxpairs) {
	case 1: K(hgroups)(in, out, hp, 1); break;
	case 2: K(hgroups)(in, out, hp, 2); break;
	case 3: K(hgroups)(in, out, hp, 3); break;
	case 4: K(hgroups)(in, out, hp, 4); break;
	default: K(hgroups)(in, out, hp, hp->maxpairs); break;
	}
	for (int xx = hp->nvec; xx < hp->out_w; xx++)
		K(hpixel)(in, hp, xx, out);
}
#endif

#if defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
#define KERNEL_VNNI 1
/* The sums with the weights split in three bytes (kernels.h, w3): the
 * bytes of all taps in Horner's order into one int32 sum per lane,
 * ((2^5 + A) 2^8 + B) 2^8 + C = 2^21 + sum of p w, A = sum of p a (and B,
 * C) each by vpdpbusd (four 8-bit pixels times four int8 into an int32),
 * with wrapping 32-bit adds (exact: the true sum fits in int32), then
 * >> 22. With at most two taps, as words: (2^13 + H) 2^8 + C with H = sum
 * of p (a 2^8 + b) by vpdpwssd on the pixels as int16 (a 2^8 + b =
 * (w + 2^7) >> 8 fits int16), and C by vpdpbusd on the same lanes (each
 * pixel's high byte zero): two multiplies and one shift instead of three
 * and two. */
#define T8_A(acc, d, w) acc = _mm512_dpbusd_epi32(acc, d, w)
#define T8_SHL(acc) acc = _mm512_slli_epi32(acc, 8)
#define T8_HALF _mm512_set1_epi32(1 << 5)
#define T8_HALFW _mm512_set1_epi32(1 << 13)

/* the words mode's weights of two taps from their w3 words: H as two
 * int16 (a 2^8 + b of taps 0 and 1, b signed), C as bytes 0 and 2 */
static inline uint32_t K(w3_h)(uint32_t wa, uint32_t wb)
{
	uint16_t h0 = (uint16_t)((wa & 0xffu) << 8) + (uint16_t)(int16_t)(int8_t)(uint8_t)wb;
	uint16_t h1 = (uint16_t)(wa & 0xff00u) + (uint16_t)(int16_t)(int8_t)(uint8_t)(wb >> 8);
	return h0 | (uint32_t)h1 << 16;
}
static inline uint32_t K(w3_c)(uint32_t wc)
{
	return (wc & 0xffu) | (wc & 0xff00u) << 8;
}

/* The vertical pass's 64 lanes (columns) at a time. A block's loads are
 * masked to its lanes where tail (the last block of a row). */
#define V8_LOAD(ptr) (tail ? _mm512_maskz_loadu_epi8(m, (const void *)(ptr)) : _mm512_loadu_si512((const void *)(ptr)))

/* words mode: rows r0 and r1 interleaved, each byte then zero-extended in
 * place, so that every int32 holds one column's two taps as int16; d[0]
 * .. d[3] hold columns 0-3, 4-7, 8-11, 12-15 of each 128-bit lane */
static inline void K(v8_rows2)(__m512i r0, __m512i r1, __m512i d[4])
{
	const __m512i z = _mm512_setzero_si512();
	__m512i l01 = _mm512_unpacklo_epi8(r0, r1), h01 = _mm512_unpackhi_epi8(r0, r1);
	d[0] = _mm512_unpacklo_epi8(l01, z);
	d[1] = _mm512_unpackhi_epi8(l01, z);
	d[2] = _mm512_unpacklo_epi8(h01, z);
	d[3] = _mm512_unpackhi_epi8(h01, z);
}

/* rows r0 .. r3 interleaved (two rounds of in-lane unpacks) so that every
 * int32 holds one column's four taps, in v8_rows2's column order */
static inline void K(v8_rows4)(__m512i r0, __m512i r1, __m512i r2, __m512i r3, __m512i d[4])
{
	__m512i l01 = _mm512_unpacklo_epi8(r0, r1), h01 = _mm512_unpackhi_epi8(r0, r1);
	__m512i l23 = _mm512_unpacklo_epi8(r2, r3), h23 = _mm512_unpackhi_epi8(r2, r3);
	d[0] = _mm512_unpacklo_epi16(l01, l23);
	d[1] = _mm512_unpackhi_epi16(l01, l23);
	d[2] = _mm512_unpacklo_epi16(h01, h23);
	d[3] = _mm512_unpackhi_epi16(h01, h23);
}

/* s >> 22 as int16 for the int32 sums of a and b: their high words (s >>
 * 16, which int16 holds for any int32 s) picked by idx from the two, then
 * >> 6; a saturating pack of two such then clamps to [0, 255] (two word
 * permutes and two word shifts for the four dword shifts and two packs) */
static inline __m512i K(t8_hi)(__m512i a, __m512i b, __m512i idx)
{
	return _mm512_srai_epi16(_mm512_permutex2var_epi16(a, idx, b), 6);
}

/* the output bytes of sums s[0..3] in the unpacks' column order (s[k]:
 * columns 4k .. 4k + 3 of each 128-bit lane): each lane's first 8 words
 * from s[0] and s[1], then from s[2] and s[3], so the pack puts them in
 * order */
static inline __m512i K(v8_out)(const __m512i s[4])
{
	const __m512i idx = _mm512_set_epi16(
		63, 61, 59, 57, 31, 29, 27, 25, 55, 53, 51, 49, 23, 21, 19, 17,
		47, 45, 43, 41, 15, 13, 11, 9, 39, 37, 35, 33, 7, 5, 3, 1);
	return _mm512_packus_epi16(K(t8_hi)(s[0], s[1], idx), K(t8_hi)(s[2], s[3], idx));
}

/* words mode's output bytes of v8_rows2's d with the weights wh, wc
 * (K(w3_h), K(w3_c)) broadcast */
static inline __m512i K(v8_words)(const __m512i d[4], uint32_t wh, uint32_t wc)
{
	const __m512i h = _mm512_set1_epi32((int32_t)wh), c = _mm512_set1_epi32((int32_t)wc);
	__m512i s[4];
	for (int k = 0; k < 4; k++) {
		s[k] = _mm512_dpwssd_epi32(T8_HALFW, d[k], h);
		T8_SHL(s[k]);
		T8_A(s[k], d[k], c);
	}
	return K(v8_out)(s);
}

/* 64 lanes of taps8 (fewer where tail), n taps: words mode (n <= 2, NG =
 * -1); else the taps in groups of four, NG (1 or 2) groups kept in
 * registers for the three rounds, 0: any number, each round interleaving
 * them again */
static inline __attribute__((always_inline)) void
K(taps8_block)(const uint8_t *q, size_t step, int n, const uint32_t *w3, __mmask64 m, const int tail,
	       const int NG, uint8_t *out)
{
	const __m512i z = _mm512_setzero_si512();
	__m512i v;
	if (NG < 0) {
		__m512i d[4];
		K(v8_rows2)(V8_LOAD(q), n > 1 ? V8_LOAD(q + step) : z, d);
		v = K(v8_words)(d, K(w3_h)(w3[0], w3[1]), K(w3_c)(w3[2]));
	} else {
		__m512i s[4] = { T8_HALF, T8_HALF, T8_HALF, T8_HALF }, d[2][4];
#define T8_ROWS(g, dd)                                                                  \
	do {                                                                            \
		const uint8_t *q_ = q + 4 * (size_t)(g) * step;                         \
		const int t_ = 4 * (g);                                                 \
		K(v8_rows4)(V8_LOAD(q_), t_ + 1 < n ? V8_LOAD(q_ + step) : z,           \
			    t_ + 2 < n ? V8_LOAD(q_ + 2 * step) : z,                    \
			    t_ + 3 < n ? V8_LOAD(q_ + 3 * step) : z, dd);               \
	} while (0)
#define T8_ROUND(dd, b, g)                                                              \
	do {                                                                            \
		const __m512i w_ = _mm512_set1_epi32((int32_t)w3[3 * (g) + (b)]);     \
		for (int k_ = 0; k_ < 4; k_++)                                          \
			T8_A(s[k_], dd[k_], w_);                                        \
	} while (0)
		const int ng = (n + 3) / 4;
		if (NG)
			for (int g = 0; g < NG; g++)
				T8_ROWS(g, d[g]);
		for (int b = 0; b < 3; b++) {
			if (b)
				for (int k = 0; k < 4; k++)
					T8_SHL(s[k]);
			if (NG)
				for (int g = 0; g < NG; g++)
					T8_ROUND(d[g], b, g);
			else
				for (int g = 0; g < ng; g++) {
					T8_ROWS(g, d[0]);
					T8_ROUND(d[0], b, g);
				}
		}
#undef T8_ROWS
#undef T8_ROUND
		v = K(v8_out)(s);
	}
	if (tail)
		_mm512_mask_storeu_epi8((void *)out, m, v);
	else
		_mm512_storeu_si512((void *)out, v);
}

static inline __attribute__((always_inline)) void
K(taps8_ng)(const uint8_t *p, size_t step, int n, const uint32_t *w3, size_t lanes, uint8_t *out,
	    const int NG)
{
	size_t i = 0;
	for (; i + 64 <= lanes; i += 64)
		K(taps8_block)(p + i, step, n, w3, ~(__mmask64)0, 0, NG, out + i);
	if (i < lanes)
		K(taps8_block)(p + i, step, n, w3, ((__mmask64)1 << (lanes - i)) - 1, 1, NG, out + i);
}

/* out[i] = clip8(2^21 + sum over taps t < n of p[t * step + i] * w_t) for
 * i < lanes, the weights split as w3 (kernels.h) for one output */
static void K(taps8)(const uint8_t *p, size_t step, int n, const uint32_t *w3, size_t lanes,
		     uint8_t *out)
{
	if (n <= 2)
		K(taps8_ng)(p, step, n, w3, lanes, out, -1);
	else if (n <= 4)
		K(taps8_ng)(p, step, n, w3, lanes, out, 1);
	else if (n <= 8)
		K(taps8_ng)(p, step, n, w3, lanes, out, 2);
	else
		K(taps8_ng)(p, step, n, w3, lanes, out, 0);
}

/* 64 lanes (fewer where tail) of a window of the vertical pass: its two
 * rows (the second zero if rows is 1) interleaved once in words mode for
 * the nout outputs whose taps lie in them, each with its weights H and C
 * moved to its taps' slots in wv, stored at outp[k] + i */
static inline __attribute__((always_inline)) void
K(vwin8_block)(const uint8_t *q, size_t step, int rows, const uint32_t (*wv)[2], int nout,
	       uint8_t *const *outp, size_t i, __mmask64 m, const int tail)
{
	__m512i d[4];
	K(v8_rows2)(V8_LOAD(q), rows > 1 ? V8_LOAD(q + step) : _mm512_setzero_si512(), d);
	for (int k = 0; k < nout; k++) {
		__m512i v = K(v8_words)(d, wv[k][0], wv[k][1]);
		if (tail)
			_mm512_mask_storeu_epi8((void *)(outp[k] + i), m, v);
		else
			_mm512_storeu_si512((void *)(outp[k] + i), v);
	}
}
#undef V8_LOAD

/* The vertical pass with the split weights (kernels.h, vpass8): outputs
 * of at most two taps that share their rows (upscaling: up to 1 / scale
 * outputs each) in windows, the two rows interleaved once per 64 columns
 * for all of them; the others one by one, by taps8 (a window of four rows
 * shared by outputs of three or four taps measured slower: they rarely
 * share one). */
#define V8_MAXOUT 16
static void K(vpass8)(const uint8_t *in, size_t in_stride, size_t width, uint8_t *out, int out_h,
		      const int32_t *bd, const uint32_t *w3)
{
	int yy = 0;
	while (yy < out_h) {
		const int f = bd[2 * yy], n = bd[2 * yy + 1];
		const uint8_t *q = in + (size_t)f * in_stride;
		if (n > 2 || yy + 1 == out_h || bd[2 * yy + 2] != f) {
			/* alone */
			uint32_t w[3 * W3_MAX_GROUPS];
			for (int k = 0; k < 3 * ((n + 3) / 4); k++)
				w[k] = w3[(size_t)k * out_h + yy];
			K(taps8)(q, in_stride, n, w, width, out + (size_t)yy * width);
			yy++;
			continue;
		}
		uint32_t wv[V8_MAXOUT][2];
		uint8_t *outp[V8_MAXOUT];
		int nout = 0, end = f + n;
		for (; yy < out_h && nout < V8_MAXOUT; yy++, nout++) {
			const int d = bd[2 * yy] - f, n2 = bd[2 * yy + 1];
			if (d < 0 || d + n2 > 2)
				break;
			const int sh = 8 * d;
			wv[nout][0] = K(w3_h)(w3[yy] << sh, w3[(size_t)out_h + yy] << sh);
			wv[nout][1] = K(w3_c)(w3[2 * (size_t)out_h + yy] << sh);
			outp[nout] = out + (size_t)yy * width;
			end = d + f + n2 > end ? d + f + n2 : end;
		}
		size_t i = 0;
		for (; i + 64 <= width; i += 64)
			K(vwin8_block)(q + i, in_stride, end - f, (const uint32_t (*)[2])wv, nout, outp, i,
				       ~(__mmask64)0, 0);
		if (i < width)
			K(vwin8_block)(q + i, in_stride, end - f, (const uint32_t (*)[2])wv, nout, outp, i,
				       ((__mmask64)1 << (width - i)) - 1, 1);
	}
}

/* The byte-gather plan (kernels.h): each group's window from its lowest
 * and highest input byte (the first taps and the ends first + taps both
 * rise with xx, so these are at the group's first or last lanes, or at
 * the next or previous pixel's channel 0 or 2), then the table group by
 * group, the lanes' words spread from the group's pixels by vpermd. */
static int K(hplan8)(struct hplan8 *hp, int in_w, int out_w, int ksize, const int32_t *restrict bd,
		     const uint32_t *restrict w3, void *mem)
{
	const int ob = 3 * out_w, G = hplan8_groups(out_w);
	int32_t *restrict start = (int32_t *)mem;
	int maxn = 0, span = 0;
	for (int xx = 0; xx < out_w; xx++)
		maxn = bd[2 * xx + 1] > maxn ? bd[2 * xx + 1] : maxn;
	for (int g = 0; g < G; g++) {
		const int o0 = 16 * g, o1 = o0 + 15 < ob ? o0 + 15 : ob - 1;
		const int x0 = o0 / 3, x1 = o1 / 3;
		int lo = 3 * bd[2 * x0] + o0 % 3, hi = 3 * (bd[2 * x1] + bd[2 * x1 + 1] - 1) + o1 % 3;
		if (o0 % 3 && x0 < x1 && 3 * bd[2 * x0 + 2] < lo)
			lo = 3 * bd[2 * x0 + 2];
		if (o1 % 3 != 2 && x1 > x0) {
			int e = 3 * (bd[2 * x1 - 2] + bd[2 * x1 - 1] - 1) + 2;
			hi = e > hi ? e : hi;
		}
		start[g] = lo;
		span = hi - lo + 1 > span ? hi - lo + 1 : span;
	}
	const int win = span <= 64 ? 64 : 128;
	if (span > 128 || 3 * (size_t)in_w < (size_t)win)
		return -1;
	const int ntg = (maxn + 3) / 4, words = maxn <= 2 && win == 64;
	uint8_t *tab = (uint8_t *)mem + ((((uintptr_t)mem + 4 * (size_t)G + 63) & ~(uintptr_t)63) -
					 (uintptr_t)mem);
	hp->out_bytes = ob;
	hp->groups = G;
	hp->ntg = ntg;
	hp->win = win;
	hp->words = words;
	hp->start = start;
	hp->tab = tab;
	/* group g's lanes j: output pixel 16 g / 3 + dx[r][j], channel c[r][j]
	 * with r = 16 g % 3; the group's 6 pixels' words spread over its
	 * lanes by vpermd (loads masked to the arrays' ends; a lane past the
	 * row gets zero weights, and an index that does not matter) */
	static const int8_t dxr[3][16] = { { 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5 },
					   { 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5 },
					   { 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5 } };
	static const int8_t cr[3][16] = { { 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0 },
					  { 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1 },
					  { 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2 } };
	const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m512i lo8 = _mm512_set1_epi32(0xff), hi8 = _mm512_set1_epi32(0xff00);
	for (int g = 0; g < G; g++) {
		start[g] = start[g] < 3 * in_w - win ? start[g] : 3 * in_w - win;   /* inside the row */
		const int o0 = 16 * g, x0 = o0 / 3, r = o0 % 3, n8 = out_w - x0 < 8 ? out_w - x0 : 8;
		const __mmask16 m8 = (__mmask16)((1u << n8) - 1), m16 = (__mmask16)((1u << (2 * n8)) - 1);
		const __mmask16 in = _mm512_cmplt_epi32_mask(_mm512_add_epi32(iota, _mm512_set1_epi32(o0)),
							     _mm512_set1_epi32(ob));
		const __m512i dx = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)dxr[r]));
		const __m512i c = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)cr[r]));
		/* the lanes' first taps: bounds[2 (x0 + dx)] */
		const __m512i fb = _mm512_maskz_loadu_epi32(m16, bd + 2 * (size_t)x0);
		const __m512i first = _mm512_permutexvar_epi32(_mm512_add_epi32(dx, dx), fb);
		/* 3 first + c - start: the byte index of tap 0 */
		const __m512i base = _mm512_sub_epi32(_mm512_add_epi32(_mm512_add_epi32(first, _mm512_add_epi32(first, first)), c),
						      _mm512_set1_epi32(start[g]));
		for (int k = 0; k < ntg; k++) {
			uint8_t *t = tab + ((size_t)g * ntg + k) * 256;
			const uint32_t *wk = w3 + 3 * (size_t)k * out_w + x0;
			__m512i w[3];
			for (int q = 0; q < 3; q++)
				w[q] = _mm512_maskz_permutexvar_epi32(in, dx, _mm512_maskz_loadu_epi32(m8, wk + (size_t)q * out_w));
			if (words) {
				/* taps 0 and 1 at bytes 0 and 2 (bytes 1 and 3 are
				 * zeroed by the gather's mask); H and C (K(w3_h)) */
				_mm512_store_si512((void *)t, _mm512_add_epi32(_mm512_mullo_epi32(base, _mm512_set1_epi32(0x00010001)),
									      _mm512_set1_epi32(0x00030000)));
				__m512i ha = _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(w[0], lo8), 8),
							     _mm512_slli_epi32(_mm512_and_si512(w[0], hi8), 16));
				__m512i hb = _mm512_or_si512(_mm512_and_si512(w[1], lo8),
							     _mm512_slli_epi32(_mm512_and_si512(w[1], hi8), 8));
				__m512i h = _mm512_add_epi16(ha, _mm512_srai_epi16(_mm512_slli_epi16(hb, 8), 8));
				_mm512_store_si512((void *)(t + 64), h);
				_mm512_store_si512((void *)(t + 128), _mm512_or_si512(_mm512_and_si512(w[2], lo8),
										 _mm512_slli_epi32(_mm512_and_si512(w[2], hi8), 8)));
			} else {
				/* the four taps' indices (past a lane's last tap any index
				 * will do: its weight is zero; a carry from one goes only
				 * into a later tap's byte), then a, b, c */
				_mm512_store_si512((void *)t, _mm512_add_epi32(_mm512_mullo_epi32(base, _mm512_set1_epi32(0x01010101)),
									      _mm512_set1_epi32(0x09060300 + 0x0c0c0c0c * k)));
				for (int q = 0; q < 3; q++)
					_mm512_store_si512((void *)(t + 64 * (q + 1)), w[q]);
			}
		}
	}
	(void)ksize;
	return 0;
}

/* rows per load of the plan (4: 8-9 % faster than 2, 2: 5-7 % faster than 1) */
#define HROWS8 4
/* J (1 to 4) groups (up to 64 output bytes) of the byte-gather plan from
 * group g0 on, on R rows (1 to 4) at once, the plan's vectors loaded once
 * for all: per tap group, the window's bytes gathered into each lane's
 * taps (vpermb, or vpermi2b over a 128-byte window; in words mode two
 * taps as int16, the high bytes zeroed by the mask), then the rounds of
 * multiplies; the groups' sums >> 22 as words (K(t8_hi)), packed with
 * saturation (the clamp) and put back in order by one vpermq, the store
 * masked to the row's end. NTG:
 * the plan's tap groups where 1 or 2 (their gathered taps kept in
 * registers for the three rounds), else 0 (gathered again each round). */
static inline __attribute__((always_inline)) void
K(hquad8)(const uint8_t *in, size_t in_stride, uint8_t *out, size_t out_stride,
	  const struct hplan8 *hp, int g0, int J, const int R, const int win, const int NTG, const int WORDS)
{
	__m512i res[4][2], p01[4];   /* [row]: a pair of groups' sums; groups 0 and 1 packed */
	const int ntg = NTG ? NTG : hp->ntg;
#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		__m512i s[4];
		if (j >= J) {
			for (int r = 0; r < R; r++)
				s[r] = _mm512_setzero_si512();
		} else {
			const int g = g0 + j;
			const uint8_t *row = in + hp->start[g];
			__m512i x[4], y[4];
			for (int r = 0; r < R; r++) {
				x[r] = _mm512_loadu_si512((const void *)(row + r * in_stride));
				y[r] = win == 128 ? _mm512_loadu_si512((const void *)(row + r * in_stride + 64)) : x[r];
			}
			const uint8_t *t = hp->tab + (size_t)g * ntg * 256;
			if (WORDS) {
				const __m512i idx = _mm512_load_si512((const void *)t);
				__m512i wh = _mm512_load_si512((const void *)(t + 64));
				__m512i wc = _mm512_load_si512((const void *)(t + 128));
				if (R > 1)
					__asm__("" : "+v"(wh), "+v"(wc));   /* one load each (as below) */
				for (int r = 0; r < R; r++) {
					__m512i d = _mm512_maskz_permutexvar_epi8(0x5555555555555555ull, idx, x[r]);
					s[r] = _mm512_dpwssd_epi32(T8_HALFW, d, wh);
					T8_SHL(s[r]);
					T8_A(s[r], d, wc);
				}
			} else {
#define H8_GATHER(idx, x, y) (win == 128 ? _mm512_permutex2var_epi8(x, idx, y) : _mm512_permutexvar_epi8(idx, x))
				__m512i d[2][4];
				for (int r = 0; r < R; r++)
					s[r] = T8_HALF;
				if (NTG)
					for (int k = 0; k < NTG; k++) {
						const __m512i idx = _mm512_load_si512((const void *)(t + 256 * k));
						for (int r = 0; r < R; r++)
							d[k][r] = H8_GATHER(idx, x[r], y[r]);
					}
				for (int b = 0; b < 3; b++) {
					if (b)
						for (int r = 0; r < R; r++)
							T8_SHL(s[r]);
					for (int k = 0; k < ntg; k++) {
						__m512i w = _mm512_load_si512((const void *)(t + 256 * k + 64 * (b + 1)));
						/* one load for all rows (else the compiler folds
						 * it into each row's vpdpbusd, and loads bound
						 * the loop) */
						if (R > 1)
							__asm__("" : "+v"(w));
						if (NTG)
							for (int r = 0; r < R; r++)
								T8_A(s[r], d[k][r], w);
						else {
							const __m512i idx = _mm512_load_si512((const void *)(t + 256 * k));
							for (int r = 0; r < R; r++)
								T8_A(s[r], H8_GATHER(idx, x[r], y[r]), w);
						}
					}
				}
#undef H8_GATHER
			}
		}
		/* a pair of groups' s >> 22 as int16 (K(t8_hi): group j's
		 * lanes, then group j + 1's) as soon as both are done */
		const __m512i pair = _mm512_set_epi16(
			63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33,
			31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
		for (int r = 0; r < R; r++) {
			if (!(j & 1))
				res[r][0] = s[r];
			else if (j == 1)
				p01[r] = K(t8_hi)(res[r][0], s[r], pair);
			else
				res[r][1] = K(t8_hi)(res[r][0], s[r], pair);
		}
	}
	/* the pack (the clamp) interleaves the pairs per 128-bit lane: qwords
	 * put back in order */
	const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
	const int left = hp->out_bytes - 16 * g0;
	for (int r = 0; r < R; r++) {
		__m512i v = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(p01[r], res[r][1]));
		uint8_t *o = out + (size_t)r * out_stride + 16 * (size_t)g0;
		if (left >= 64)
			_mm512_storeu_si512((void *)o, v);
		else
			_mm512_mask_storeu_epi8((void *)o, ((__mmask64)1 << left) - 1, v);
	}
}

/* the rows RB at a time (the last ones one by one), the groups four at a
 * time (the last quad with the rest) */
static inline __attribute__((always_inline)) void
K(hrows8_w)(const uint8_t *in, size_t in_stride, int rows, uint8_t *out, size_t out_stride,
	    const struct hplan8 *hp, const int win, const int NTG, const int WORDS)
{
	const int G = hp->groups, G4 = G & ~3, RB = HROWS8;
	int y = 0;
	for (; y + RB <= rows; y += RB) {
		const uint8_t *i0 = in + y * in_stride;
		uint8_t *o0 = out + y * out_stride;
		for (int g0 = 0; g0 < G4; g0 += 4)
			K(hquad8)(i0, in_stride, o0, out_stride, hp, g0, 4, RB, win, NTG, WORDS);
		if (G4 < G)
			K(hquad8)(i0, in_stride, o0, out_stride, hp, G4, G - G4, RB, win, NTG, WORDS);
	}
	for (; y < rows; y++)
		for (int g0 = 0; g0 < G; g0 += 4)
			K(hquad8)(in + y * in_stride, in_stride, out + y * out_stride, out_stride, hp, g0,
				  G - g0 < 4 ? G - g0 : 4, 1, win, NTG, WORDS);
}

static void K(hrows8)(const uint8_t *in, size_t in_stride, int rows, uint8_t *out,
		      size_t out_stride, const struct hplan8 *hp)
{
	if (hp->words)
		K(hrows8_w)(in, in_stride, rows, out, out_stride, hp, 64, 1, 1);
	else if (hp->win == 64 && hp->ntg == 1)
		K(hrows8_w)(in, in_stride, rows, out, out_stride, hp, 64, 1, 0);
	else if (hp->win == 64 && hp->ntg == 2)
		K(hrows8_w)(in, in_stride, rows, out, out_stride, hp, 64, 2, 0);
	else if (hp->win == 64)
		K(hrows8_w)(in, in_stride, rows, out, out_stride, hp, 64, 0, 0);
	else if (hp->ntg == 2)
		K(hrows8_w)(in, in_stride, rows, out, out_stride, hp, 128, 2, 0);
	else
		K(hrows8_w)(in, in_stride, rows, out, out_stride, hp, 128, 0, 0);
}
#undef T8_A
#undef T8_SHL
#undef T8_HALF
#undef T8_HALFW
#endif

/* The peak of the set's best exact mix for the resampler's sums, in
 * registers (kernels.h, exact_peak); the empty asm makes the inputs look
 * changed every round, so nothing is hoisted out of the loop or merged.
 * Named variables, not arrays: an array of accumulators is kept on the
 * stack and each add waits for a store to be forwarded.
 * - VNNI: 3 vpdpbusd per 64 taps x channels (weights in three int8 parts);
 * - SSSE3 and up: the high byte of the weight (at most 64 for Pillow's
 *   weights) through pmaddubsw + paddw, its low 16 bits through pmaddwd +
 *   paddd: per vector of W bytes of pixels, 1 pmaddubsw and 2 pmaddwd;
 * - SSE2: 2 pmaddwd per W / 2 taps x channels (15 + 8 bits). */
static double K(exact_peak)(uint64_t iters)
{
#if defined(__AVX512BW__)
#define PEAK_T __m512i
#define PEAK_(f) _mm512_##f
#elif defined(__AVX2__)
#define PEAK_T __m256i
#define PEAK_(f) _mm256_##f
#else
#define PEAK_T __m128i
#define PEAK_(f) _mm_##f
#endif
	const double W = (double)sizeof(PEAK_T);
	/* six chains, each with its own input (13 registers: SSE2 and AVX2
	 * have 16; an input shared by two chains would let the compiler
	 * compute a non-fused product once for both) */
	PEAK_T y = PEAK_(set1_epi16)(5);
	PEAK_T a0 = PEAK_(set1_epi16)(0), a1 = PEAK_(set1_epi16)(1), a2 = PEAK_(set1_epi16)(2);
	PEAK_T a3 = PEAK_(set1_epi16)(3), a4 = PEAK_(set1_epi16)(4), a5 = PEAK_(set1_epi16)(5);
	PEAK_T x0 = PEAK_(set1_epi16)(3), x1 = PEAK_(set1_epi16)(4), x2 = PEAK_(set1_epi16)(5);
	PEAK_T x3 = PEAK_(set1_epi16)(6), x4 = PEAK_(set1_epi16)(7), x5 = PEAK_(set1_epi16)(8);
#if defined(KERNEL_VNNI)
#define PEAK_OP(a, x, hi) a = PEAK_(dpbusd_epi32)(a, x, y)
	const double per_round = 6 * W / 3;          /* 6 vpdpbusd, 3 per W taps */
#elif defined(__SSSE3__)
#define PEAK_OP(a, x, hi) a = (hi) ? PEAK_(add_epi16)(a, PEAK_(maddubs_epi16)(x, y)) \
				   : PEAK_(add_epi32)(a, PEAK_(madd_epi16)(x, y))
	/* per round 2 W taps: 2 pmaddubsw (high bytes), 4 pmaddwd (low halves) */
	const double per_round = 2 * W;
#else
#define PEAK_OP(a, x, hi) a = PEAK_(add_epi32)(a, PEAK_(madd_epi16)(x, y))
	const double per_round = 6 * W / 4;          /* 6 pmaddwd, 2 per W / 2 taps */
#endif
	for (uint64_t r = 0; r < iters; r++) {
		__asm__ volatile("" : "+v"(x0), "+v"(x1), "+v"(x2), "+v"(x3), "+v"(x4), "+v"(x5), "+v"(y));
		PEAK_OP(a0, x0, 0);
		PEAK_OP(a1, x1, 0);
		PEAK_OP(a2, x2, 0);
		PEAK_OP(a3, x3, 0);
		PEAK_OP(a4, x4, 1);
		PEAK_OP(a5, x5, 1);
	}
	PEAK_T t = PEAK_(add_epi32)(PEAK_(add_epi32)(PEAK_(add_epi32)(a0, a1), PEAK_(add_epi32)(a2, a3)),
				    PEAK_(add_epi32)(a4, a5));
	volatile PEAK_T sink = t;
	(void)sink;
	return (double)iters * per_round;
#undef PEAK_T
#undef PEAK_
#undef PEAK_OP
}

const struct kernels KCAT(kernels, KERNEL_NAME) = {
	.name = KERNEL_STR,
	.to_tensor = K(to_tensor),
	.normalize = K(normalize),
	.flip_row = K(flip_row),
	.taps = K(taps),
	.coeffs = K(coeffs),
#ifdef __AVX2__
	.hrow = K(hrow),
#endif
#ifdef KERNEL_VNNI
	.vpass8 = K(vpass8),
	.hplan8 = K(hplan8),
	.hrows8 = K(hrows8),
	.exact_mix = "3 vpdpbusd per 64 taps x channels (weights in three int8 parts)",
#elif defined(__SSSE3__)
	.exact_mix = "per W taps x channels: 1 pmaddubsw + paddw (the weights' high bytes), "
		     "2 pmaddwd + paddd (their low 16 bits)",
#else
	.exact_mix = "2 pmaddwd + paddd per W / 2 taps x channels (weights in 15 + 8 bits)",
#endif
	.exact_peak = K(exact_peak),
};
