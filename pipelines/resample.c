/* Pillow's two-pass bilinear resample (Resample.c, 8 bits per channel):
 * coefficients in double, normalized to 22-bit fixed point, a horizontal
 * pass over only the rows the vertical pass reads into a uint8 image (so
 * the intermediate is rounded and clipped as in Pillow), then the vertical
 * pass. A pass whose size does not change is skipped, as Pillow does.
 *
 * Every output byte is clip8(2^21 + sum of pixel * weight), with the
 * weights Pillow computes. The true sum fits in int32, so it can be formed
 * in any order, and even modulo 2^32: each weight is split into parts the
 * multiply instructions take, each part's sum formed apart, and the parts'
 * sums shifted and added with wrapping 32-bit adds, which gives the exact
 * sum (kernels_body.h):
 * - with VNNI (avx512vnni) in three int8 parts, w = a 2^16 + b 2^8 + c,
 *   through vpdpbusd (four 8-bit pixels times four int8 into an int32),
 *   or for outputs of at most two taps as (a 2^8 + b) 2^8 + c through
 *   vpdpwssd and vpdpbusd. Every w in [W3_MIN, W3_MAX] splits so
 *   (kernels.h; Pillow's weights lie in [0, 2^22]); the kernel's coeffs
 *   checks each axis at plan time, and an axis with a weight that does
 *   not split runs the pmaddwd kernels instead;
 * - otherwise in 15 low and 8 high bits (both fit pmaddwd's int16), adding
 *   (high sum << 15) + low sum.
 * The vertical pass runs the kernel's `taps` over "lanes" that lie `step`
 * bytes apart per tap (columns of consecutive rows), or with VNNI its
 * vpass8 (the same, and outputs that share their two rows, when
 * upscaling, from one interleave of them). The horizontal pass runs, by
 * the first that applies:
 * - the VNNI row kernel (hrows8): every output byte its own int32 lane,
 *   its taps gathered from a 64- or 128-byte window of the row by vpermb /
 *   vpermi2b, four rows per load of the plan (struct hplan8; an axis whose
 *   groups of 16 output bytes span more than 128 input bytes, a huge
 *   downscale, or whose rows are shorter than the window, falls back);
 * - the row kernel (AVX2 and AVX-512: one output pixel per 128-bit lane,
 *   its taps gathered with pshufb);
 * - `taps` over 16 rows interleaved so that a pixel's taps lie 48 bytes
 *   apart. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "kernels.h"
#include "resample.h"
#include "resample_geom.h"

/* One axis: for each output index, the first input index, the number of
 * taps, `ksize` int32 weights (only the first `count` used) and the same
 * weights packed in pairs for the kernel, and (where the kernel has
 * vpdpbusd) split in three bytes. */
struct axis {
	int ksize;          /* Pillow's ksize: ceil(support) * 2 + 1 */
	int npairs;         /* (ksize + 1) / 2 */
	int ngroups;        /* (ksize + 3) / 4 with w3, else 0 */
	int split3;         /* every weight split in three bytes (w3 valid) */
	int32_t *bounds;    /* [2 * out]: first, count */
	int32_t *kk;        /* [out * ksize] */
	uint32_t *lo, *hi;  /* [out * npairs]: taps 2m, 2m+1 as two int16 */
	uint32_t *w3;       /* [3 * ngroups * out]: kernels.h */
};

int resample_split3(int32_t w, int8_t part[3])
{
	if (w < W3_MIN || w > W3_MAX)
		return -1;
	for (int q = 0; q < 3; q++)
		part[q] = (int8_t)w3_part(w, q);
	return 0;
}

/* Axis a's weights packed in pairs for pmaddwd (lo, hi) for out outputs:
 * w = (w >> 15) * 2^15 + (w & 0x7fff), |w >> 15| <= 2^8 */
static void axis_pairs(struct axis *a, int out)
{
	a->split3 = 0;
	for (int xx = 0; xx < out; xx++) {
		const int32_t *kk = a->kk + (size_t)xx * a->ksize;
		const int n = a->bounds[2 * xx + 1];
		uint32_t *lo = a->lo + (size_t)xx * a->npairs, *hi = a->hi + (size_t)xx * a->npairs;
		for (int m = 0; 2 * m < n; m++) {
			int32_t k0 = kk[2 * m], k1 = 2 * m + 1 < n ? kk[2 * m + 1] : 0;
			lo[m] = (uint32_t)(k0 & 0x7fff) | (uint32_t)(k1 & 0x7fff) << 16;
			hi[m] = (uint32_t)(uint16_t)(k0 >> 15) | (uint32_t)(uint16_t)(k1 >> 15) << 16;
		}
	}
}

static int axis_ksize(int in_size, int out_size)
{
	double filterscale = (double)(float)in_size / out_size;
	if (filterscale < 1.0)
		filterscale = 1.0;
	return (int)ceil(1.0 * filterscale) * 2 + 1;
}

/* out[i] = clip8(2^21 + sum over taps t < n of p[t * step + i] * w_t) for
 * `lanes` consecutive i; w is output index j's weights of axis a (the
 * kernel of the CPU: kernels.h) */
static inline void taps(const struct kernels *kn, const uint8_t *p, size_t step,
			const struct axis *a, size_t j, size_t lanes, uint8_t *out)
{
		kn->taps(p, step, a->bounds[2 * j + 1], a->kk + j * a->ksize, a->lo + j * a->npairs,
			 a->hi + j * a->npairs, lanes, out);
}

#define HROWS 16                /* rows per horizontal block (48 lanes: 32 + 16, 3 x 16 or 6 x 8) */
#define HLANES (3 * HROWS)      /* bytes per interleaved column */

/* The weights of axis a's first `np` pairs repeated four times,
 * pair-major, zero past each output's last pair (struct hplan) */
static void axis_expand(const struct axis *a, int out, int np, uint32_t *lo4, uint32_t *hi4)
{
	for (int m = 0; m < np; m++)
		for (int xx = 0; xx < out; xx++) {
			int used = 2 * m < a->bounds[2 * xx + 1];
			uint32_t l = used ? a->lo[(size_t)xx * a->npairs + m] : 0;
			uint32_t h = used ? a->hi[(size_t)xx * a->npairs + m] : 0;
			size_t i = ((size_t)m * out + xx) * 4;
			for (int k = 0; k < 4; k++) {
				lo4[i + k] = l;
				hi4[i + k] = h;
			}
		}
}

/* hp's maxpairs and nvec for rows of in_w pixels (the first taps rise
 * with the output index, so the groups whose loads stay in the row come
 * first) */
static void hplan_groups(struct hplan *hp, int in_w)
{
	int n = 0;
	for (int xx = 0; xx < hp->out_w; xx++)
		n = hp->bounds[2 * xx + 1] > n ? hp->bounds[2 * xx + 1] : n;
	hp->maxpairs = (n + 1) / 2;
	const int last = 4 * ((hp->maxpairs + 1) / 2 - 1);   /* the last load's first tap */
	hp->nvec = 0;
	while (hp->nvec + 4 <= hp->out_w &&
	       3 * ((size_t)hp->bounds[2 * (hp->nvec + 3)] + (size_t)last) + 16 <= 3 * (size_t)in_w)
		hp->nvec += 4;
}

/* Rows [y0, y1) of `in` resampled horizontally into rows 0.. of out
 * (out_w pixels each) by the kernel's row pass */
static void pass_rows(const struct kernels *kn, const uint8_t *in, size_t in_stride,
		      int y0, int y1, uint8_t *out, const struct hplan *hp)
{
	const size_t out_stride = (size_t)hp->out_w * 3;
	for (int y = y0; y < y1; y++)
		kn->hrow(in + (size_t)y * in_stride, out + (size_t)(y - y0) * out_stride, hp);
}

/* Rows [y0, y1) of `in` resampled horizontally into rows 0.. of out
 * (out_w pixels each), reading input columns [x_lo, x_hi), where the
 * kernel has no row pass. t: scratch of HLANES * (x_hi - x_lo) bytes for
 * the interleaved rows. */
static void pass_horizontal(const uint8_t *in, size_t in_stride, int y0, int y1,
			    uint8_t *out, int out_w, const struct axis *a,
			    int x_lo, int x_hi, uint8_t *t)
{
	const size_t out_stride = (size_t)out_w * 3;
	const int nx = x_hi - x_lo;
	uint8_t res[HLANES];
	const struct kernels *kn = kernels_active();
	for (int y = y0; y < y1; y += HROWS) {
		int nr = y1 - y < HROWS ? y1 - y : HROWS;
		/* column x of t: pixel x of rows y .. y + HROWS - 1 */
		for (int r = 0; r < HROWS; r++) {
			uint8_t *d = t + 3 * r;
			if (r >= nr) {
				for (int x = 0; x < nx; x++, d += HLANES)
					d[0] = d[1] = d[2] = 0;
				continue;
			}
			const uint8_t *s = in + (size_t)(y + r) * in_stride + (size_t)x_lo * 3;
			int x = 0;
			/* 4-byte moves: the extra byte lands in row r + 1's slot,
			 * written next; not for the last row of t (it would hit
			 * the next column's row 0) nor the last pixel (it would
			 * read past the row, maybe past the image) */
			if (r < HROWS - 1)
				for (; x < nx - 1; x++, d += HLANES, s += 3)
					memcpy(d, s, 4);
			for (; x < nx; x++, d += HLANES, s += 3)
				memcpy(d, s, 3);
		}
		uint8_t *o = out + (size_t)(y - y0) * out_stride;
		for (int xx = 0; xx < out_w; xx++) {
			const uint8_t *p = t + (size_t)(a->bounds[2 * xx] - x_lo) * HLANES;
			taps(kn, p, HLANES, a, (size_t)xx, HLANES, res);
			for (int r = 0; r < nr; r++)
				memcpy(o + (size_t)r * out_stride + (size_t)xx * 3, res + 3 * r, 3);
		}
	}
}

/* `in` rows hold `width` bytes each; a's bounds are relative to row 0 */
static void pass_vertical(const uint8_t *in, size_t in_stride, size_t width,
			  uint8_t *out, int out_h, const struct axis *a)
{
	const struct kernels *kn = kernels_active();
	if (a->split3) {
		kn->vpass8(in, in_stride, width, out, out_h, a->bounds, a->w3);
		return;
	}
	for (int yy = 0; yy < out_h; yy++)
		taps(kn, in + (size_t)a->bounds[2 * yy] * in_stride, in_stride, a, (size_t)yy, width,
		     out + (size_t)yy * width);
}

/* a * b + c, or 0 on overflow (b > 0 here) */
static size_t mul_add(size_t a, size_t b, size_t c)
{
	if (b && a > (SIZE_MAX - c) / b)
		return 0;
	return a * b + c;
}

/* Bytes of one axis's tables; with p, also point them into p. (With
 * ksize <= 2 * in / out + 3 and sizes below 2^31 this cannot overflow a
 * 64-bit size_t.) */
static size_t axis_place(struct axis *a, int out, char *p)
{
	size_t n = (size_t)out;
	if (p) {
		a->bounds = (int32_t *)p;
		a->kk = a->bounds + 2 * n;
		a->lo = (uint32_t *)(a->kk + n * a->ksize);
		a->hi = a->lo + n * a->npairs;
		a->w3 = a->hi + n * a->npairs;
	}
	return n * (2 + (size_t)a->ksize + 2 * (size_t)a->npairs + 3 * (size_t)a->ngroups) * 4;
}

/* the taps of one axis: their sum over the outputs, and the input span read */
static uint64_t axis_taps(int in_size, int out_size, int *first, int *end)
{
	struct rs_geom g;
	rs_geom_init(&g, in_size, out_size);
	uint64_t sum = 0;
	for (int xx = 0; xx < out_size; xx++) {
		double center;
		int n, x0 = rs_span(&g, in_size, xx, &n, &center);
		sum += (uint64_t)n;
		if (xx == 0)
			*first = x0;
		if (xx == out_size - 1)
			*end = x0 + n;
	}
	return sum;
}

uint64_t resample_macs(int in_w, int in_h, int out_w, int out_h)
{
	int need_h = out_w != in_w, need_v = out_h != in_h, y0 = 0, y1 = in_h, x0, x1;
	uint64_t v = need_v ? axis_taps(in_h, out_h, &y0, &y1) : 0;
	uint64_t h = need_h ? axis_taps(in_w, out_w, &x0, &x1) : 0;
	return 3 * (h * (uint64_t)(y1 - y0) + v * (uint64_t)out_w);
}

int resample_bilinear_u8_how(const uint8_t *in, int in_w, int in_h, int in_stride,
			     uint8_t *out, int out_w, int out_h,
			     struct buf *scratch_coeffs, struct buf *scratch_tmp, struct resample_how *how)
{
	struct resample_how dummy;
	if (!how)
		how = &dummy;
	how->h = how->v = RESAMPLE_SKIPPED;
	if (in_w <= 0 || in_h <= 0 || out_w <= 0 || out_h <= 0 ||
	    in_stride < 3 * in_w)
		return -1;
	const size_t stride = (size_t)in_stride;
	const size_t out_row = (size_t)out_w * 3;
	const int need_h = out_w != in_w, need_v = out_h != in_h;

	if (!need_h && !need_v) {
		for (int y = 0; y < out_h; y++)
			memcpy(out + (size_t)y * out_row, in + (size_t)y * stride, out_row);
		return 0;
	}

	/* scratch_coeffs: ksize doubles, then the vertical and horizontal
	 * tables (only those of the passes that run), then the horizontal
	 * pass's plan */
	const struct kernels *kn = kernels_active();
	struct axis av = { 0 }, ah = { 0 };
	av.ksize = need_v ? axis_ksize(in_h, out_h) : 0;
	ah.ksize = need_h ? axis_ksize(in_w, out_w) : 0;
	av.npairs = (av.ksize + 1) / 2;
	ah.npairs = (ah.ksize + 1) / 2;
	av.ngroups = kn->vpass8 && av.ksize <= 4 * W3_MAX_GROUPS ? (av.ksize + 3) / 4 : 0;
	ah.ngroups = kn->hrows8 ? (ah.ksize + 3) / 4 : 0;
	int kmax = av.ksize > ah.ksize ? av.ksize : ah.ksize, omax = out_w > out_h ? out_w : out_h;
	size_t kbytes = (2 * (size_t)kmax + 3) * (size_t)omax * sizeof(double);   /* coeffs' tmp */
	size_t vbytes = need_v ? axis_place(&av, out_h, NULL) : 0;
	size_t hbytes = need_h ? axis_place(&ah, out_w, NULL) : 0;
	/* the plans: hplan8's, or the row pass's repeated weights (hplan's
	 * lo4, hi4), whichever is larger */
	size_t ebytes = need_h && kn->hrow ? (size_t)ah.npairs * (size_t)out_w * 32 : 0;
	size_t e8 = need_h && ah.ngroups ? hplan8_bytes(out_w, ah.ksize) : 0;
	if (e8 > ebytes)
		ebytes = e8;
	if (buf_reserve(scratch_coeffs, kbytes + vbytes + hbytes + ebytes))
		return -1;
	char *c = scratch_coeffs->p;
	double *k = (double *)c;
	if (need_v) {
		axis_place(&av, out_h, c + kbytes);
		av.split3 = !kn->coeffs(in_h, out_h, av.ksize, av.bounds, av.kk, av.ngroups ? av.w3 : NULL, k) &&
			    av.ngroups;
		if (!av.split3)
			axis_pairs(&av, out_h);
		how->v = av.split3 ? RESAMPLE_SPLIT3 : RESAMPLE_SPLIT2;
	}
	if (!need_h) {
		pass_vertical(in, stride, out_row, out, out_h, &av);
		return 0;
	}
	axis_place(&ah, out_w, c + kbytes + vbytes);
	char *plan = c + kbytes + vbytes + hbytes;
	struct hplan8 hp8;
	int split = !kn->coeffs(in_w, out_w, ah.ksize, ah.bounds, ah.kk, ah.ngroups ? ah.w3 : NULL, k) &&
		    ah.ngroups;
	int use8 = split && !kn->hplan8(&hp8, in_w, out_w, ah.ksize, ah.bounds, ah.w3, plan);
	if (!use8) {
		if (split)   /* the weights as kk, for the pmaddwd kernels */
			kn->coeffs(in_w, out_w, ah.ksize, ah.bounds, ah.kk, NULL, k);
		axis_pairs(&ah, out_w);
	}
	struct hplan hp = { out_w, ah.ksize, 0, 0, ah.bounds, ah.kk, NULL, NULL };
	if (!use8 && kn->hrow) {
		hplan_groups(&hp, in_w);
		uint32_t *lo4 = (uint32_t *)plan;
		uint32_t *hi4 = lo4 + (size_t)hp.maxpairs * out_w * 4;
		axis_expand(&ah, out_w, hp.maxpairs, lo4, hi4);
		hp.lo4 = lo4;
		hp.hi4 = hi4;
	}
	how->h = use8 ? RESAMPLE_SPLIT3 : RESAMPLE_SPLIT2;

	/* rows of the source the vertical pass reads (all if it is skipped) */
	int y_first = 0, y_last = in_h;
	if (need_v) {
		y_first = av.bounds[0];
		y_last = av.bounds[2 * out_h - 2] + av.bounds[2 * out_h - 1];
		for (int i = 0; i < out_h; i++)
			av.bounds[2 * i] -= y_first;
	}
	int x_lo = ah.bounds[0];
	int x_hi = ah.bounds[2 * out_w - 2] + ah.bounds[2 * out_w - 1];
	/* scratch_tmp: the horizontal pass's output, then (without a row
	 * pass) the interleaved rows */
	const int rowpass = use8 || kn->hrow;
	size_t tmp_bytes = need_v ? mul_add((size_t)(y_last - y_first), out_row, 0) : 0;
	size_t all = rowpass ? tmp_bytes : mul_add((size_t)(x_hi - x_lo), HLANES, tmp_bytes);
	if ((need_v && !tmp_bytes) || (all && buf_reserve(scratch_tmp, all)) || (!all && !rowpass))
		return -1;
	uint8_t *tmp = scratch_tmp->p, *hout = need_v ? tmp : out;
	if (use8)
		kn->hrows8(in + (size_t)y_first * stride, stride, y_last - y_first, hout, out_row, &hp8);
	else if (kn->hrow)
		pass_rows(kn, in, stride, y_first, y_last, hout, &hp);
	else
		pass_horizontal(in, stride, y_first, y_last, hout, out_w, &ah, x_lo, x_hi,
				tmp + tmp_bytes);
	if (need_v)
		pass_vertical(tmp, out_row, out_row, out, out_h, &av);
	return 0;
}

int resample_bilinear_u8(const uint8_t *in, int in_w, int in_h, int in_stride,
			 uint8_t *out, int out_w, int out_h,
			 struct buf *scratch_coeffs, struct buf *scratch_tmp)
{
	return resample_bilinear_u8_how(in, in_w, in_h, in_stride, out, out_w, out_h, scratch_coeffs,
					scratch_tmp, NULL);
}
