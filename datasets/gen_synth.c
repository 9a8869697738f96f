/* The synthesis of one image's pixels from its plan: octaves of value
 * noise, a modulated texture, chroma fields, shapes and illumination
 * (generate.c's header). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include "gen_int.h"

int gen_work_reserve(struct work *wk, int w, int h)
{
	size_t px = (size_t)w * h;
	if (px <= wk->cap)
		return 0;
	/* generous: any image up to px pixels, whatever its shape */
	size_t half = px / 4 + (size_t)w + (size_t)h + 16 + px / 2;
	wk->cap = 0;          /* until everything is allocated */
	float **full[] = { &wk->lum, &wk->t1, &wk->t2, &wk->hb };
	float **part[] = { &wk->cb, &wk->cr, &wk->mod };
	for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++) {
		free(*full[i]);
		if (!(*full[i] = malloc(px * sizeof(float))))
			return -1;
	}
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		free(*part[i]);
		if (!(*part[i] = malloc(half * sizeof(float))))
			return -1;
	}
	free(wk->row);
	free(wk->pix);
	wk->row = malloc(6 * ROW * sizeof(float));
	wk->pix = malloc(px * 4);
	if (!wk->row || !wk->pix)
		return -1;
	wk->cap = px;
	return 0;
}

void gen_work_release(struct work *wk)
{
	free(wk->lum);
	free(wk->t1);
	free(wk->t2);
	free(wk->hb);
	free(wk->cb);
	free(wk->cr);
	free(wk->mod);
	free(wk->row);
	free(wk->pix);
	if (wk->jpg)
		tjFree(wk->jpg);
	if (wk->tj)
		tjDestroy(wk->tj);
	memset(wk, 0, sizeof(*wk));
}

/* A row of uniform int16 noise: a random window of a shared table (the
 * windows of the rows of an image are independent enough for a texture,
 * and cost nothing to make). */
static const int16_t *noise_row(const struct work *wk, uint64_t *s)
{
	return wk->noise + (rnext(s) & (NOISE_LEN - 1));
}

int16_t *gen_noise_table(uint64_t seed)
{
	int16_t *t = malloc((NOISE_LEN + ROW) * sizeof(*t));
	uint64_t s = mix64(seed ^ 0x6e6f697365ull);
	for (size_t i = 0; t && i < NOISE_LEN + ROW; i++)
		t[i] = (int16_t)rnext(&s);
	return t;
}

/* Level k of a w x h image: (w, h) halved k times, rounded up. */
struct levels {
	int n;
	int w[MAX_LEVELS + 1], h[MAX_LEVELS + 1];
};

static void levels_init(struct levels *lv, int w, int h, int kmax)
{
	lv->n = kmax;
	lv->w[0] = w;
	lv->h[0] = h;
	for (int k = 1; k <= kmax; k++) {
		lv->w[k] = (lv->w[k - 1] + 1) / 2;
		lv->h[k] = (lv->h[k - 1] + 1) / 2;
	}
}

/* 2x bilinear upsampling (pixel centres), src sw x sh -> dst dw x dh with
 * sw = ceil(dw / 2); hb holds dw x sh. */
static void upsample2(const float *src, int sw, int sh, float *dst, int dw, int dh, float *hb)
{
	for (int y = 0; y < sh; y++) {
		const float *s = src + (size_t)y * sw;
		float *o = hb + (size_t)y * dw;
		o[0] = s[0];
		const int pairs = (dw - 1) / 2;
		#pragma omp simd
		for (int i = 0; i < pairs; i++) {
			o[2 * i + 1] = 0.75f * s[i] + 0.25f * s[i + 1];
			o[2 * i + 2] = 0.25f * s[i] + 0.75f * s[i + 1];
		}
		if (!(dw & 1))
			o[dw - 1] = s[sw - 1];
	}
	for (int y = 0; y < dh; y++) {
		int i = y >> 1;
		int j = (y & 1) ? (i + 1 < sh ? i + 1 : i) : (i > 0 ? i - 1 : 0);
		const float *a = hb + (size_t)i * dw, *b = hb + (size_t)j * dw;
		float *o = dst + (size_t)y * dw;
		#pragma omp simd
		for (int x = 0; x < dw; x++)
			o[x] = 0.75f * a[x] + 0.25f * b[x];
	}
}

/* out (level `to` of lv) = base + sum over k in [to, kmax] of value noise
 * with cells of 2^k pixels and amplitude amp[k]; from level 2 down the
 * amplitude is also multiplied by the texture strength wk->mod (quarter
 * size) when mod is set. */
static void octave_noise(struct work *wk, float *out, const struct levels *lv, int to,
			 float base, const float *amp, int mod, uint64_t *s)
{
	const int kmax = lv->n;
	float *cur = kmax == to ? out : ((kmax - to) & 1) ? wk->t1 : wk->t2;
	for (int y = 0; y < lv->h[kmax]; y++) {
		float *o = cur + (size_t)y * lv->w[kmax];
		const int16_t *r = noise_row(wk, s);
		for (int x = 0; x < lv->w[kmax]; x++)
			o[x] = base + amp[kmax] * (1.0f / 32768) * (float)r[x];
	}
	for (int k = kmax - 1; k >= to; k--) {
		float *dst = k == to ? out : ((k - to) & 1) ? wk->t1 : wk->t2;
		const int w = lv->w[k], h = lv->h[k];
		upsample2(cur, lv->w[k + 1], lv->h[k + 1], dst, w, h, wk->hb);
		cur = dst;
		if (amp[k] == 0)
			continue;
		const float a = amp[k] * (1.0f / 32768);
		const int sh = 2 - k;
		int expanded = -1;
		for (int y = 0; y < h; y++) {
			float *o = dst + (size_t)y * w;
			const int16_t *r = noise_row(wk, s);
			if (mod && k <= 2) {
				/* the strength row at this level's size, made once for
				 * the 2^sh rows that share it */
				float *mr = wk->row;
				if (expanded != y >> sh) {
					const float *m = wk->mod + (size_t)(y >> sh) * lv->w[2];
					expanded = y >> sh;
					for (int x = 0; x < w; x++)
						mr[x] = a * m[x >> sh];
				}
				#pragma omp simd
				for (int x = 0; x < w; x++)
					o[x] += mr[x] * (float)r[x];
			} else {
				#pragma omp simd
				for (int x = 0; x < w; x++)
					o[x] += a * (float)r[x];
			}
		}
	}
}

struct shape {
	int type;             /* 0 ellipse, 1 rectangle, 2 line */
	double cx, cy, a, b, c, s;   /* centre, half sizes, cos and sin of the angle */
	float lum, keep, mod, cb, cr;
};

/* The x range [*x0, *x1) of row y covered by a shape drawn at 1/scale. */
static int shape_row(const struct shape *sh, double scale, int y, int w, int *x0, int *x1)
{
	const double cx = sh->cx / scale, cy = sh->cy / scale;
	const double a = sh->a / scale, b = sh->b / scale;
	double dy = y + 0.5 - cy, lo, hi;
	if (sh->type == 0) {
		double ia = 1.0 / (a * a), ib = 1.0 / (b * b);
		double A = sh->c * sh->c * ia + sh->s * sh->s * ib;
		double B = 2 * dy * sh->c * sh->s * (ia - ib);
		double C = dy * dy * (sh->s * sh->s * ia + sh->c * sh->c * ib) - 1;
		double disc = B * B - 4 * A * C;
		if (disc < 0)
			return 0;
		double r = sqrt(disc);
		lo = (-B - r) / (2 * A);
		hi = (-B + r) / (2 * A);
	} else {
		/* |dx c + dy s| <= a and |-dx s + dy c| <= b */
		lo = -1e18;
		hi = 1e18;
		const double k[2] = { sh->c, -sh->s }, off[2] = { dy * sh->s, dy * sh->c };
		const double lim[2] = { a, b };
		for (int i = 0; i < 2; i++) {
			if (fabs(k[i]) < 1e-12) {
				if (fabs(off[i]) > lim[i])
					return 0;
				continue;
			}
			double l = (-lim[i] - off[i]) / k[i], h = (lim[i] - off[i]) / k[i];
			if (l > h) {
				double t = l;
				l = h;
				h = t;
			}
			lo = lo > l ? lo : l;
			hi = hi < h ? hi : h;
		}
		if (lo > hi)
			return 0;
	}
	double fx0 = ceil(cx + lo - 0.5), fx1 = floor(cx + hi - 0.5) + 1;
	if (fx0 < 0)
		fx0 = 0;
	if (fx1 > w)
		fx1 = w;
	if (fx0 >= fx1)
		return 0;
	*x0 = (int)fx0;
	*x1 = (int)fx1;
	return 1;
}

static int plan_shapes(struct shape *out, const struct plan *p, uint64_t *s)
{
	const int w = p->w, h = p->h;
	const double m = w < h ? w : h, M = w > h ? w : h;
	for (int n = 0; n < p->shapes; n++) {
		struct shape *sh = &out[n];
		double u = runif(s), ang = rrange(s, 0, 3.141592653589793);
		sh->type = u < 0.45 ? 0 : u < 0.8 ? 1 : 2;
		sh->cx = rrange(s, -0.1 * w, 1.1 * w);
		sh->cy = rrange(s, -0.1 * h, 1.1 * h);
		if (sh->type == 2) {
			sh->a = rrange(s, 0.05, 0.6) * M;
			sh->b = rrange(s, 0.5, 4);
		} else {
			sh->a = rlog(s, 0.03, 0.5) * m;
			sh->b = sh->a * rlog(s, 0.3, 1.0);
		}
		sh->c = cos(ang);
		sh->s = sin(ang);
		double lum = p->y0 + 50 * rnormal(s);
		sh->lum = (float)(lum < 10 ? 10 : lum > 245 ? 245 : lum);
		sh->keep = (float)rrange(s, 0.3, 1.0);
		sh->mod = (float)rlog(s, 0.1, 2.0);
		sh->cb = (float)rrange(s, -35, 35);
		sh->cr = (float)rrange(s, -35, 35);
	}
	return p->shapes;
}

#define MAX_SHAPES 16


/* round and clamp to [0, 255]; integer min/max, so that it vectorizes */
static inline int32_t to8(float v)
{
	int32_t i = (int32_t)(v + 0.5f);
	i = i > 0 ? i : 0;
	return i < 255 ? i : 255;
}

int gen_plan_planar(const struct plan *p)
{
	return p->kind == K_GRAY || (p->kind == K_RGB && p->subsamp == TJSAMP_420);
}

/* What the steps of gen_synthesize share: the image's plan, its pyramid of
 * levels, its shapes, and the octave amplitudes (each step starts from the
 * amplitudes the one before left). */
struct synth {
	struct work *wk;
	const struct plan *p;
	uint64_t *s;
	struct levels lv;
	struct shape shapes[MAX_SHAPES];
	float amp[MAX_LEVELS + 1];
	int kmax, nshapes;
};

/* texture strength, quarter size: smooth regions and detailed ones */
static void synth_texture(struct synth *sy)
{
	struct work *wk = sy->wk;
	const struct levels *lv = &sy->lv;
	memset(sy->amp, 0, sizeof(sy->amp));
	for (int k = sy->kmax; k >= 4 && k > sy->kmax - 3; k--)
		sy->amp[k] = sy->p->mod_amp * (k == sy->kmax ? 1.0f : 0.6f);
	octave_noise(wk, wk->mod, lv, 2, sy->p->mod0, sy->amp, 0, sy->s);
	for (int n = 0; n < sy->nshapes; n++)
		for (int y = 0; y < lv->h[2]; y++) {
			int x0, x1;
			if (!shape_row(&sy->shapes[n], 4, y, lv->w[2], &x0, &x1))
				continue;
			float *m = wk->mod + (size_t)y * lv->w[2];
			for (int x = x0; x < x1; x++)
				m[x] *= sy->shapes[n].mod;
		}
	for (size_t i = 0; i < (size_t)lv->w[2] * lv->h[2]; i++)
		wk->mod[i] = wk->mod[i] < 0.05f ? 0.05f : wk->mod[i];
}

/* chroma, half size: smooth, a little fine noise */
static void synth_chroma(struct synth *sy)
{
	struct work *wk = sy->wk;
	const struct plan *p = sy->p;
	const struct levels *lv = &sy->lv;
	float *amp = sy->amp;
	const int kmax = sy->kmax;
	memset(amp, 0, sizeof(sy->amp));
	for (int k = kmax; k >= 3; k--)
		amp[k] = k == kmax ? p->chroma_amp : amp[k + 1] * 0.6f;
	amp[2] = 1.0f + p->pf->t.cf2 * p->fine_amp;
	amp[1] = 1.0f + p->pf->t.cf1 * p->fine_amp;
	if (p->kind == K_GRAY)
		return;
	octave_noise(wk, wk->cb, lv, 1, p->cb0, amp, 0, sy->s);
	octave_noise(wk, wk->cr, lv, 1, p->cr0, amp, 0, sy->s);
	for (int n = 0; n < sy->nshapes; n++)
		for (int y = 0; y < lv->h[1]; y++) {
			int x0, x1;
			const struct shape *sh = &sy->shapes[n];
			if (!shape_row(sh, 2, y, lv->w[1], &x0, &x1))
				continue;
			float *cb = wk->cb + (size_t)y * lv->w[1], *cr = wk->cr + (size_t)y * lv->w[1];
			for (int x = x0; x < x1; x++) {
				cb[x] = sh->cb + 0.5f * (cb[x] - p->cb0);
				cr[x] = sh->cr + 0.5f * (cr[x] - p->cr0);
			}
		}
}

/* luminance: 1/f-like coarse octaves, modulated fine texture */
static void synth_luminance(struct synth *sy)
{
	struct work *wk = sy->wk;
	const struct plan *p = sy->p;
	float *amp = sy->amp;
	const int w = p->w, h = p->h, kmax = sy->kmax;
	for (int k = kmax; k >= 0; k--)
		amp[k] = k == kmax ? p->coarse_amp : amp[k + 1] * p->coarse_p;
	amp[2] = p->pf->t.c2 * p->fine_amp;
	amp[1] = p->pf->t.c1 * p->fine_amp;
	amp[0] = p->pf->t.c0 * p->fine_amp;
	octave_noise(wk, wk->lum, &sy->lv, 0, p->y0, amp, 1, sy->s);
	for (int n = 0; n < sy->nshapes; n++)
		for (int y = 0; y < h; y++) {
			int x0, x1;
			const struct shape *sh = &sy->shapes[n];
			if (!shape_row(sh, 1, y, w, &x0, &x1))
				continue;
			float *l = wk->lum + (size_t)y * w;
			for (int x = x0; x < x1; x++)
				l[x] = sh->lum + sh->keep * (l[x] - p->y0);
		}
}

/* the Cb and Cr planes (half size) after the Y plane, for a planar colour
 * image */
static void synth_chroma_planes(struct synth *sy)
{
	struct work *wk = sy->wk;
	const size_t nc = (size_t)sy->lv.w[1] * sy->lv.h[1];
	unsigned char *pcb = wk->pix + (size_t)sy->p->w * sy->p->h, *pcr = pcb + nc;
	#pragma omp simd
	for (size_t i = 0; i < nc; i++) {
		pcb[i] = (unsigned char)to8(128.0f + wk->cb[i]);
		pcr[i] = (unsigned char)to8(128.0f + wk->cr[i]);
	}
}

/* naive CMYK of a row of RGB, stored inverted (Adobe): 255 - ink */
static void row_to_cmyk(unsigned char *q, const int32_t *ri, const int32_t *gi,
			const int32_t *bi, int w)
{
	for (int x = 0; x < w; x++, q += 4) {
		const int r = ri[x], g = gi[x], b = bi[x];
		const int mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
		if (!mx) {
			q[0] = q[1] = q[2] = 255;
		} else {
			q[0] = (unsigned char)(255 - (mx - r) * 255 / mx);
			q[1] = (unsigned char)(255 - (mx - g) * 255 / mx);
			q[2] = (unsigned char)(255 - (mx - b) * 255 / mx);
		}
		q[3] = (unsigned char)mx;
	}
}

/* illumination, colour conversion, a row at a time */
static void synth_rows(struct synth *sy, int planar)
{
	struct work *wk = sy->wk;
	const struct plan *p = sy->p;
	const int w = p->w, h = p->h;
	const float gx = p->gx / (float)w, vig = p->vig;
	float *L = wk->row, *cbw = L + ROW, *crw = cbw + ROW;
	int32_t *ri = (int32_t *)(crw + ROW), *gi = ri + ROW, *bi = gi + ROW;
	for (int y = 0; y < h; y++) {
		const float fy = (float)y / (float)h - 0.5f;
		const float gy = 1.0f + p->gy * fy - vig * fy * fy - 0.5f * p->gx;
		const float *l = wk->lum + (size_t)y * w;
		#pragma omp simd
		for (int x = 0; x < w; x++) {
			const float fx = (float)x / (float)w - 0.5f;
			L[x] = l[x] * (gy + gx * (float)x - vig * fx * fx);
		}
		const size_t o = (size_t)y * w;
		if (planar) {
			unsigned char *q = wk->pix + o;
			#pragma omp simd
			for (int x = 0; x < w; x++)
				q[x] = (unsigned char)to8(L[x]);
			continue;
		}
		const float *cb = wk->cb + (size_t)(y >> 1) * sy->lv.w[1];
		const float *cr = wk->cr + (size_t)(y >> 1) * sy->lv.w[1];
		for (int x = 0; x < w; x++) {
			cbw[x] = cb[x >> 1];
			crw[x] = cr[x >> 1];
		}
		#pragma omp simd
		for (int x = 0; x < w; x++) {
			const float Y = L[x], u = cbw[x], v = crw[x];
			ri[x] = to8(Y + 1.402f * v);
			gi[x] = to8(Y - 0.344136f * u - 0.714136f * v);
			bi[x] = to8(Y + 1.772f * u);
		}
		if (p->kind == K_YCCK || p->kind == K_CMYK) {
			row_to_cmyk(wk->pix + 4 * o, ri, gi, bi, w);
			continue;
		}
		unsigned char *q = wk->pix + 3 * o;
		for (int x = 0; x < w; x++) {
			q[3 * x] = (unsigned char)ri[x];
			q[3 * x + 1] = (unsigned char)gi[x];
			q[3 * x + 2] = (unsigned char)bi[x];
		}
	}
}

/* Fill wk->pix: Y, Cb, Cr planes (gen_plan_planar), or pixels of 3 (RGB) or 4
 * (inverted CMYK) bytes. */
void gen_synthesize(struct work *wk, const struct plan *p, uint64_t *s)
{
	const int w = p->w, h = p->h;
	struct synth sy = { .wk = wk, .p = p, .s = s, .kmax = 3 };
	while (sy.kmax < MAX_LEVELS && (4 << sy.kmax) <= (w < h ? w : h))
		sy.kmax++;
	levels_init(&sy.lv, w, h, sy.kmax);
	sy.nshapes = plan_shapes(sy.shapes, p, s);
	synth_texture(&sy);
	synth_chroma(&sy);
	synth_luminance(&sy);
	/* 4:2:0 and grayscale JPEGs are encoded from planes (Y, then Cb and Cr
	 * at half size), the others from RGB or CMYK pixels */
	const int planar = gen_plan_planar(p);
	if (planar && p->kind != K_GRAY)
		synth_chroma_planes(&sy);
	synth_rows(&sy, planar);
}
