/* A synthetic ImageNet-like (or photo-like) ImageFolder tree.
 *
 * Every image comes from its own random stream (splitmix64 of seed and
 * index), so the bytes do not depend on the thread that makes them. Content:
 * a luminance field of octaves of value noise with a 1/f-like spectrum (built
 * coarse to fine by 2x bilinear upsampling, so it costs ~4/3 of one pass),
 * a fine texture whose strength is modulated across the image (smooth and
 * detailed regions, as sky and foliage), smooth chroma fields, hard-edged
 * shapes (ellipses, rotated rectangles, lines) and an illumination gradient.
 * A profile (struct profile) draws the geometry, the per-image detail and
 * the JPEG quality: "imagenet" so that the file sizes follow ImageNet
 * train's distribution, "photos" so that they are web-sized photos of
 * about 0.4 MP and 60 KB (see profiles[] and gen_stats_print). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jpeglib.h>
#include <png.h>
#include <jansson.h>
#include <turbojpeg.h>
#include "describe.h"
#include "escape.h"
#include "fsutil.h"
#include "generate.h"
#include "imagefolder.h"
#include "clock.h"

#define MAX_SIDE 2000
#define MAX_LEVELS 12
#define ROW (MAX_SIDE + 16)   /* floats in one row buffer */
#define NOISE_LEN (1 << 16)

enum gen_kind { K_RGB, K_GRAY, K_YCCK, K_CMYK, K_PNG };

/* ---- random streams -------------------------------------------------- */

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rnext(uint64_t *s)
{
	return mix64(*s += 0x9e3779b97f4a7c15ull);
}

/* [0, 1) */
static inline double runif(uint64_t *s)
{
	return (double)(rnext(s) >> 11) * 0x1p-53;
}

static inline double rrange(uint64_t *s, double a, double b)
{
	return a + (b - a) * runif(s);
}

/* exp of a uniform: log-uniform in [a, b] */
static inline double rlog(uint64_t *s, double a, double b)
{
	return a * exp(log(b / a) * runif(s));
}

static double rnormal(uint64_t *s)
{
	double u = runif(s), v = runif(s);
	return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

static uint64_t image_stream(uint64_t seed, uint64_t index)
{
	return mix64(mix64(seed ^ 0x5eed5eed5eedull) + index);
}

/* ---- names and layout ------------------------------------------------ */

/* ImageNet-like synset number of class c, increasing with c. */
static unsigned class_id(size_t c, size_t classes)
{
	uint64_t gap = 98000000ull / classes;
	if (gap > 9973)
		gap = 9973;
	uint64_t jitter = gap > 1 ? mix64(c + 77) % (gap / 2 + 1) : 0;
	return (unsigned)(1440764ull + c * gap + jitter);
}

/* Image i -> class c, position j in its class. */
static void image_class(size_t i, size_t images, size_t classes, size_t *c, size_t *j)
{
	size_t per = images / classes, rem = images % classes;
	size_t big = rem * (per + 1);
	if (i < big) {
		*c = i / (per + 1);
		*j = i % (per + 1);
	} else {
		*c = rem + (i - big) / per;
		*j = (i - big) % per;
	}
}

/* ImageNet's file numbers have gaps: n01440764_10026.JPEG. */
static uint64_t file_number(size_t c, size_t j)
{
	return (uint64_t)j * 8 + 1 + mix64(((uint64_t)c << 32) ^ j) % 7;
}

/* ---- the plan of one image ------------------------------------------- */

/* Texture constants. Changing a profile's changes its bytes: bump
 * GEN_VERSION. */
struct tune {
	float c0, c1, c2;          /* luminance texture octaves 0, 1, 2 (x fine_amp) */
	float cf1, cf2;            /* chroma texture octaves 1, 2 (x fine_amp) */
	double fa;                 /* fine_amp: median */
	double fa_hi, fa_lo;       /* log-normal sigmas above and below the median */
	double fa_large;           /* exponent of the detail drop for large images */
};

struct plan;

/* A profile: the draws of an image's geometry, JPEG settings and detail. */
struct profile {
	const char *name;
	const char *title;         /* the info file's first line */
	void (*geometry)(struct plan *p, uint64_t *s);
	double q_mean, q_sd;       /* JPEG quality: normal, clamped to [q_lo, q_hi] */
	int q_lo, q_hi;
	double p420, p444;         /* 4:2:0 below p420, 4:4:4 below p444, else 4:2:2 */
	double px_ref;             /* larger images get less detail per pixel */
	struct tune t;
	const char *target;        /* what gen_stats_print compares with */
	int default_mb;            /* the default dataset's size on disk, MB (du): said before
				      it is first made */
};
struct plan {
	const struct profile *pf;
	int w, h, kind;
	int quality, subsamp, progressive;
	/* content */
	float y0;             /* mean luminance */
	float coarse_amp;     /* amplitude of the coarsest octave */
	float coarse_p;       /* amplitude ratio finer / coarser octave */
	float fine_amp;       /* texture amplitude: the main size knob */
	float mod0, mod_amp;  /* texture modulation: mean, amplitude */
	float cb0, cr0, chroma_amp;
	float gx, gy, vig;    /* illumination */
	int shapes;
};

static void plan_geometry(struct plan *p, uint64_t *s)
{
	double u = runif(s);
	if (u < 0.50) {
		p->w = 500;
		p->h = 375;
	} else if (u < 0.70) {
		p->w = 375;
		p->h = 500;
	} else if (u < 0.82) {
		/* 500 x 333, 500 x 500, 400 x 500... */
		int other = (int)rrange(s, 250, 501);
		if (runif(s) < 0.7) {
			p->w = 500;
			p->h = other;
		} else {
			p->w = other;
			p->h = 500;
		}
	} else {
		/* a spread: small thumbnails to camera-sized images */
		double v = runif(s);
		double lng = u < 0.93 ? rrange(s, 80, 500) : 500 * pow(MAX_SIDE / 500.0, v * v);
		double ar = rlog(s, 1.0, runif(s) < 0.2 ? 2.0 : 1.6);
		int a = (int)lng, b = (int)(lng / ar);
		if (b < 40)
			b = 40;
		if (runif(s) < 0.7) {
			p->w = a;
			p->h = b;
		} else {
			p->w = b;
			p->h = a;
		}
	}
}

/* Photos downscaled for the web: most at a fixed long side (730 x 548 at
 * 4:3, 775 x 517 at 3:2, about 0.4 MP), the rest spread log-normally
 * around the same area (mean 0.4 MP) with other shapes too; a quarter
 * portrait. */
static void plan_geometry_photos(struct plan *p, uint64_t *s)
{
	double u = runif(s);
	long a, b;            /* long and short side */
	if (u < 0.65) {
		int three2 = runif(s) < 0.35;
		a = three2 ? 775 : 730;
		b = three2 ? 517 : 548;
	} else {
		double v = runif(s);
		double ar = v < 0.4 ? 4.0 / 3 : v < 0.7 ? 1.5 : v < 0.85 ? 16.0 / 9 : v < 0.95 ? 1.0 :
			rrange(s, 1.0, 2.5);
		double area = 400000 * exp(0.5 * rnormal(s) - 0.125);
		a = lrint(sqrt(area * ar));
		if (a > MAX_SIDE)
			a = MAX_SIDE;
		if (a < 64)
			a = 64;
		b = lrint((double)a / ar);
		if (b < 40)
			b = 40;
	}
	if (runif(s) < 0.75) {
		p->w = (int)a;
		p->h = (int)b;
	} else {
		p->w = (int)b;
		p->h = (int)a;
	}
}

/* imagenet: file sizes tuned to ImageNet train's; with 2000 images and seed
 * 1, KiB mean 112.0 median 107.0 p25 60.8 p75 146.9 p99 356.8 (ImageNet
 * train: 112.0, 105.5, 59.0, 144.5, 354.4). photos: tuned to a mean of
 * 60 KB at 0.4 MP (0.15 bytes per pixel); with 2000 images and seed 1,
 * mean 0.402 MP (median 0.400), 59.6 KB (58.2 KiB; median 47.3, p25 26.1,
 * p75 79.5, p99 177.8 KiB), 0.148 bytes per pixel. */
static const struct profile profiles[GEN_PROFILES] = {
	[GEN_PROFILE_IMAGENET] = {
		"imagenet", "ppbench synthetic ImageNet-like dataset", plan_geometry,
		92, 3, 80, 98, 0.88, 0.96, 187500,
		{ 1.5f, 1.0f, 0.6f, 0.1f, 0.1f, 42, 0.6, 1.8, 1.0 },
		"ImageNet train: mean 112.0  std 133.0  median 105.5  p25 59.0  p75 144.5  p99 354.4 KiB",
		230,
	},
	[GEN_PROFILE_PHOTOS] = {
		"photos", "ppbench synthetic photo-like dataset (web-sized photos)", plan_geometry_photos,
		82, 4, 70, 92, 0.92, 0.97, 400000,
		{ 1.5f, 1.0f, 0.6f, 0.1f, 0.1f, 7.5, 0.6, 1.8, 1.0 },
		"target (web photos): mean 0.40 MP, mean 58.6 KiB (60 KB), 0.15 bytes per pixel",
		120,
	},
};

const char *gen_profile_name(int p)
{
	return p >= 0 && p < GEN_PROFILES ? profiles[p].name : NULL;
}

int gen_profile_find(const char *name)
{
	for (int i = 0; name && i < GEN_PROFILES; i++)
		if (!strcmp(name, profiles[i].name))
			return i;
	return -1;
}

static void plan_image(struct plan *p, const struct profile *pf, int kind, uint64_t *s)
{
	memset(p, 0, sizeof(*p));
	p->pf = pf;
	p->kind = kind;
	pf->geometry(p, s);

	/* JPEG settings: mostly 4:2:0, some 4:4:4 and 4:2:2 */
	double q = rnormal(s);
	p->quality = (int)lrint(pf->q_mean + pf->q_sd * q);
	if (p->quality > pf->q_hi)
		p->quality = pf->q_hi;
	if (p->quality < pf->q_lo)
		p->quality = pf->q_lo;
	double u = runif(s);
	p->subsamp = u < pf->p420 ? TJSAMP_420 : u < pf->p444 ? TJSAMP_444 : TJSAMP_422;
	if (kind == K_GRAY)
		p->subsamp = TJSAMP_GRAY;
	if (kind == K_YCCK || kind == K_CMYK)
		p->subsamp = TJSAMP_444;
	p->progressive = runif(s) < 0.02;

	p->y0 = (float)rrange(s, 70, 180);
	p->coarse_amp = (float)rrange(s, 15, 45);
	p->coarse_p = (float)rrange(s, 0.5, 0.8);
	/* large images (camera originals) have less detail per pixel than
	 * the downscaled ones */
	const struct tune *t = &pf->t;
	double px = (double)p->w * p->h;
	double z = rnormal(s);
	p->fine_amp = (float)(t->fa * exp(z * (z > 0 ? t->fa_hi : t->fa_lo)) *
			      (px > pf->px_ref ? pow(pf->px_ref / px, t->fa_large) : 1));
	if (p->fine_amp > 120)
		p->fine_amp = 120;
	p->mod0 = (float)rrange(s, 0.5, 1.1);
	p->mod_amp = (float)rrange(s, 0.3, 0.9);
	p->cb0 = (float)rrange(s, -25, 25);
	p->cr0 = (float)rrange(s, -25, 25);
	p->chroma_amp = (float)rrange(s, 4, 20);
	p->gx = (float)rrange(s, -0.4, 0.4);
	p->gy = (float)rrange(s, -0.4, 0.4);
	p->vig = (float)rrange(s, 0, 0.6);
	p->shapes = (int)(runif(s) * runif(s) * 14);
}

/* ---- synthesis ------------------------------------------------------- */

/* Per-thread memory, grown as needed. Luminance is made at full size,
 * chroma at half size (2 x 2 blocks, as 4:2:0 keeps it), the texture
 * strength at quarter size. */
struct work {
	tjhandle tj;
	size_t cap;                    /* pixels of the largest image so far */
	float *lum, *t1, *t2, *hb;     /* full size */
	float *cb, *cr, *mod;          /* half size (mod: quarter) */
	float *row;                    /* 6 rows of ROW floats */
	const int16_t *noise;          /* NOISE_LEN + ROW uniform int16, shared */
	unsigned char *pix;            /* 4 bytes per pixel */
	unsigned char *jpg;
	unsigned long jcap;
};

static int work_reserve(struct work *wk, int w, int h)
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

static void work_release(struct work *wk)
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

static int16_t *noise_table(uint64_t seed)
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

static int plan_planar(const struct plan *p)
{
	return p->kind == K_GRAY || (p->kind == K_RGB && p->subsamp == TJSAMP_420);
}

/* What the steps of synthesize share: the image's plan, its pyramid of
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

/* Fill wk->pix: Y, Cb, Cr planes (plan_planar), or pixels of 3 (RGB) or 4
 * (inverted CMYK) bytes. */
static void synthesize(struct work *wk, const struct plan *p, uint64_t *s)
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
	const int planar = plan_planar(p);
	if (planar && p->kind != K_GRAY)
		synth_chroma_planes(&sy);
	synth_rows(&sy, planar);
}

/* ---- encoders -------------------------------------------------------- */

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	char msg[JMSG_LENGTH_MAX];
	unsigned char *mem;
	unsigned long size;
};

static void jerr_exit(j_common_ptr c)
{
	struct jerr *e = (struct jerr *)c->err;
	c->err->format_message(c, e->msg);
	longjmp(e->jb, 1);
}

static void jerr_silent(j_common_ptr c)
{
	(void)c;
}

/* Plain CMYK (Adobe transform 0) with the libjpeg API: TurboJPEG only
 * writes YCCK. The file goes to e->mem (malloc'd by libjpeg). */
static int encode_cmyk_plain(const struct plan *p, const unsigned char *pix, struct jerr *e,
			     char *err, size_t errlen)
{
	struct jpeg_compress_struct ci;
	memset(&ci, 0, sizeof(ci));
	ci.err = jpeg_std_error(&e->pub);
	e->pub.error_exit = jerr_exit;
	e->pub.output_message = jerr_silent;
	e->mem = NULL;
	e->size = 0;
	if (setjmp(e->jb)) {
		jpeg_destroy_compress(&ci);
		free(e->mem);
		e->mem = NULL;
		snprintf(err, errlen, "cannot encode CMYK JPEG: %s", e->msg);
		return -1;
	}
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, &e->mem, &e->size);
	ci.image_width = (JDIMENSION)p->w;
	ci.image_height = (JDIMENSION)p->h;
	ci.input_components = 4;
	ci.in_color_space = JCS_CMYK;
	jpeg_set_defaults(&ci);
	jpeg_set_colorspace(&ci, JCS_CMYK);
	ci.write_Adobe_marker = TRUE;
	jpeg_set_quality(&ci, p->quality, TRUE);
	if (p->progressive)
		jpeg_simple_progression(&ci);
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		JSAMPROW row = (JSAMPROW)(pix + (size_t)ci.next_scanline * p->w * 4);
		jpeg_write_scanlines(&ci, &row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	return 0;
}

static int write_all(const char *path, const unsigned char *data, size_t n, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	while (n) {
		ssize_t k = write(fd, data, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, "cannot write '%s': %s", path, k < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		data += k;
		n -= (size_t)k;
	}
	if (close(fd)) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* An RGB PNG (what ImageNet's n02105855_2933.JPEG really is). */
static int write_png(const char *path, const struct plan *p, const unsigned char *pix,
		     uint64_t *bytes, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wbx");
	if (!f) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		fclose(f);
		snprintf(err, errlen, "cannot write '%s': out of memory", path);
		return -1;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		fclose(f);
		snprintf(err, errlen, "cannot write '%s': libpng error", path);
		return -1;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, (png_uint_32)p->w, (png_uint_32)p->h, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (int y = 0; y < p->h; y++)
		png_write_row(png, (png_const_bytep)(pix + (size_t)y * p->w * 3));
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	long end = ftell(f);
	if (fclose(f) || end < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	*bytes = (uint64_t)end;
	return 0;
}

static int make_image(struct work *wk, const struct plan *p, uint64_t *s, const char *path,
		      uint64_t *bytes, char *err, size_t errlen)
{
	if (work_reserve(wk, p->w, p->h)) {
		snprintf(err, errlen, "cannot make '%s': out of memory", path);
		return -1;
	}
	synthesize(wk, p, s);
	if (p->kind == K_PNG)
		return write_png(path, p, wk->pix, bytes, err, errlen);
	if (p->kind == K_CMYK) {
		struct jerr e;
		if (encode_cmyk_plain(p, wk->pix, &e, err, errlen))
			return -1;
		int rc = write_all(path, e.mem, e.size, err, errlen);
		free(e.mem);
		*bytes = e.size;
		return rc;
	}
	/* TurboJPEG 2.1 keeps a progressive scan script in the handle that
	 * breaks later baseline encodes from planes: progressive images get a
	 * handle of their own */
	tjhandle tj = p->progressive ? tjInitCompress() : wk->tj ? wk->tj : (wk->tj = tjInitCompress());
	if (!tj) {
		snprintf(err, errlen, "cannot start TurboJPEG: %s", tjGetErrorStr());
		return -1;
	}
	/* a buffer of the worst-case size, so TurboJPEG never reallocates it
	 * (2.1 would drop ours without freeing it) */
	unsigned long need = tjBufSize(p->w, p->h, TJSAMP_444);
	if (need > wk->jcap) {
		if (wk->jpg)
			tjFree(wk->jpg);
		wk->jcap = 0;
		if (!(wk->jpg = tjAlloc((int)need))) {
			snprintf(err, errlen, "cannot encode '%s': out of memory", path);
			if (tj != wk->tj)
				tjDestroy(tj);
			return -1;
		}
		wk->jcap = need;
	}
	unsigned long size = wk->jcap;
	const int flags = TJFLAG_NOREALLOC | (p->progressive ? TJFLAG_PROGRESSIVE : 0);
	int bad;
	if (plan_planar(p)) {
		const int cw = (p->w + 1) / 2, ch = (p->h + 1) / 2;
		const unsigned char *planes[3] = {
			wk->pix, wk->pix + (size_t)p->w * p->h, wk->pix + (size_t)p->w * p->h + (size_t)cw * ch
		};
		const int strides[3] = { p->w, cw, cw };
		bad = tjCompressFromYUVPlanes(tj, planes, p->w, strides, p->h, p->subsamp, &wk->jpg,
					      &size, p->quality, flags);
	} else {
		const int pf = p->kind == K_YCCK ? TJPF_CMYK : TJPF_RGB;
		bad = tjCompress2(tj, wk->pix, p->w, p->w * tjPixelSize[pf], p->h, pf, &wk->jpg,
				  &size, p->subsamp, p->quality, flags);
	}
	if (bad)
		snprintf(err, errlen, "cannot encode '%s': %s", path, tjGetErrorStr2(tj));
	if (tj != wk->tj)
		tjDestroy(tj);
	if (bad)
		return -1;
	*bytes = size;
	return write_all(path, wk->jpg, size, err, errlen);
}

/* ---- the tree -------------------------------------------------------- */


/* 1 if the folder has entries, 0 if empty, -1 if it cannot be read. */
static int dir_has_entries(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	int any = 0;
	while (!any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return any;
}

/* Choose count distinct images for kind among those still K_RGB. */
static void pick(unsigned char *kind, size_t images, size_t count, int k, int k_alt,
		 uint64_t seed, uint64_t tag)
{
	for (size_t t = 0; t < count; t++) {
		size_t i = mix64(mix64(seed ^ tag) + t) % images;
		while (kind[i] != K_RGB)
			i = (i + 1) % images;
		kind[i] = (unsigned char)(t & 1 ? k_alt : k);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* numpy.percentile (linear) of sorted v, in KiB */
static double pct_kb(const uint64_t *v, size_t n, double q)
{
	double pos = q / 100.0 * (double)(n - 1);
	size_t i = (size_t)pos;
	double f = pos - (double)i;
	double a = (double)v[i], b = (double)v[i + 1 < n ? i + 1 : i];
	return (a + (b - a) * f) / 1024.0;
}

static void fill_stats(struct gen_stats *st, const unsigned char *kind, const uint64_t *bytes,
		       const int *wh, size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	st->images = n;
	st->min_side = INT_MAX;
	st->max_side = 0;
	double sw = 0, sh = 0, ssq = 0;
	size_t n500 = 0;
	for (size_t i = 0; i < n; i++) {
		int w = wh[2 * i], h = wh[2 * i + 1];
		st->gray += kind[i] == K_GRAY;
		st->cmyk += kind[i] == K_YCCK || kind[i] == K_CMYK;
		st->png += kind[i] == K_PNG;
		st->total_bytes += bytes[i];
		sw += w;
		sh += h;
		n500 += (w == 500 && h == 375) || (w == 375 && h == 500);
		int lo = w < h ? w : h, hi = w > h ? w : h;
		if (lo < st->min_side)
			st->min_side = lo;
		if (hi > st->max_side)
			st->max_side = hi;
		if (v)
			v[i] = bytes[i];
	}
	if (!n)
		st->min_side = 0;
	if (!n || !v) {
		free(v);
		return;
	}
	st->mean_kb = (double)st->total_bytes / (double)n / 1024.0;
	for (size_t i = 0; i < n; i++) {
		double d = (double)bytes[i] / 1024.0 - st->mean_kb;
		ssq += d * d;
	}
	st->std_kb = sqrt(ssq / (double)n);
	qsort(v, n, sizeof(*v), cmp_u64);
	st->median_kb = pct_kb(v, n, 50);
	st->p25_kb = pct_kb(v, n, 25);
	st->p75_kb = pct_kb(v, n, 75);
	st->p99_kb = pct_kb(v, n, 99);
	st->min_kb = (double)v[0] / 1024.0;
	st->max_kb = (double)v[n - 1] / 1024.0;
	st->mean_w = sw / (double)n;
	st->mean_h = sh / (double)n;
	st->pct_500x375 = 100.0 * (double)n500 / (double)n;
	free(v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* megapixels: mean and median; bytes per pixel over the whole set */
static void fill_pixels(struct gen_stats *st, const int *wh, size_t n)
{
	double *mp = malloc((n ? n : 1) * sizeof(*mp)), sum = 0;
	if (!mp || !n) {
		free(mp);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		mp[i] = (double)wh[2 * i] * wh[2 * i + 1] * 1e-6;
		sum += mp[i];
	}
	qsort(mp, n, sizeof(*mp), cmp_double);
	st->mean_mp = sum / (double)n;
	st->median_mp = n & 1 ? mp[n / 2] : 0.5 * (mp[n / 2 - 1] + mp[n / 2]);
	st->bytes_per_px = sum > 0 ? (double)st->total_bytes / (sum * 1e6) : 0;
	free(mp);
}

/* 0 if o can be generated (a count that fits, an output folder that is
 * absent or empty), -1 with err if not. */
static int check_request(const struct gen_options *o, char *err, size_t errlen)
{
	struct stat sb;
	if (!o->out || !*o->out) {
		snprintf(err, errlen, "cannot generate: no output folder");
		return -1;
	}
	if (!gen_profile_name(o->profile)) {
		snprintf(err, errlen, "cannot generate: unknown profile %d (%s)", o->profile,
			 GEN_PROFILE_CHOICES);
		return -1;
	}
	if (!o->images || !o->classes || o->classes > o->images) {
		snprintf(err, errlen, "cannot generate %zu images in %zu classes: need at least one image per class",
			 o->images, o->classes);
		return -1;
	}
	if (strlen(o->out) > 3000) {
		snprintf(err, errlen, "cannot generate into '%.100s...': path too long", o->out);
		return -1;
	}
	if (!stat(o->out, &sb)) {
		if (!S_ISDIR(sb.st_mode)) {
			snprintf(err, errlen, "cannot generate into '%s': it exists and is not a folder", o->out);
			return -1;
		}
		int any = dir_has_entries(o->out);
		if (any) {
			snprintf(err, errlen, "cannot generate into '%s': %s", o->out,
				 any > 0 ? "the folder exists and is not empty" : strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Create the temporary folder into tmp (PATH_MAX); it sits beside out, so
 * the final rename is atomic. 0 done, -1 with err. */
static int make_temp_beside(const char *out, char *tmp, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", out);
	size_t len = strlen(parent);
	while (len > 1 && parent[len - 1] == '/')
		parent[--len] = 0;
	char *slash = strrchr(parent, '/');
	const char *base = slash ? slash + 1 : parent;
	char basecopy[NAME_MAX + 1];
	snprintf(basecopy, sizeof(basecopy), "%.255s", base);
	if (slash == parent)
		parent[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(parent, sizeof(parent), ".");
	if (mkdir_p(parent, 0755)) {
		snprintf(err, errlen, "cannot create '%s': %s", parent, strerror(errno));
		return -1;
	}
	snprintf(tmp, PATH_MAX, "%.3000s/.%.200s.tmp-XXXXXX", parent, basecopy);
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "cannot create a temporary folder in '%s': %s", parent, strerror(errno));
		return -1;
	}
	chmod(tmp, 0755);
	return 0;
}

/* Which images are the PNG, the CMYK and the grayscale ones (the rest RGB). */
static void pick_kinds(unsigned char *kind, size_t n, uint64_t seed)
{
	if (n >= 2)
		pick(kind, n, 1, K_PNG, K_PNG, seed, 0x706e67);
	size_t ncmyk = n >= 20 ? (n + 500) / 1000 : 0, ngray = n >= 20 ? (n * 15 + 500) / 1000 : 0;
	if (n >= 20 && ncmyk < 2)
		ncmyk = 2;      /* one of each flavour */
	if (n >= 20 && !ngray)
		ngray = 1;
	pick(kind, n, ncmyk, K_YCCK, K_CMYK, seed, 0x636d796b);
	pick(kind, n, ngray, K_GRAY, K_GRAY, seed, 0x67726179);
}

static int make_class_folders(const char *tmp, size_t nc, char *err, size_t errlen)
{
	char path[PATH_MAX];
	for (size_t c = 0; c < nc; c++) {
		snprintf(path, sizeof(path), "%.3300s/n%08u", tmp, class_id(c, nc));
		if (mkdir(path, 0755)) {
			snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Write every image into tmp in parallel, with progress on a terminal;
 * its kind from kind[], its size into bytes[] and wh[]. 0 done, -1 with
 * the first error in err. */
static int write_images(const struct gen_options *o, const char *tmp, const unsigned char *kind,
			uint64_t *bytes, int *wh, const int16_t *noise, char *err, size_t errlen)
{
	const size_t n = o->images, nc = o->classes;
	int failed = 0;
	size_t done = 0;
	const int show = !o->quiet && isatty(2);
	const int nt = o->threads > 0 ? o->threads : omp_get_max_threads();
	#pragma omp parallel num_threads(nt)
	{
		struct work wk = { .noise = noise };
		char lerr[PATH_MAX + 256];
		char p[PATH_MAX];
		#pragma omp for schedule(dynamic)
		for (long i = 0; i < (long)n; i++) {
			int stop;
			#pragma omp atomic read
			stop = failed;
			if (stop)
				continue;
			size_t c, j;
			image_class((size_t)i, n, nc, &c, &j);
			unsigned id = class_id(c, nc);
			snprintf(p, sizeof(p), "%.3300s/n%08u/n%08u_%llu.JPEG", tmp, id, id,
				 (unsigned long long)file_number(c, j));
			uint64_t s = image_stream(o->seed, (uint64_t)i);
			struct plan pl;
			plan_image(&pl, &profiles[o->profile], kind[i], &s);
			wh[2 * i] = pl.w;
			wh[2 * i + 1] = pl.h;
			if (make_image(&wk, &pl, &s, p, &bytes[i], lerr, sizeof(lerr))) {
				#pragma omp critical(gen_err)
				{
					if (!failed)
						snprintf(err, errlen, "%s", lerr);
					failed = 1;
				}
				continue;
			}
			size_t d;
			#pragma omp atomic capture
			d = ++done;
			if (show && (d % 64 == 0 || d == n))
				fprintf(stderr, "\rgenerating: %zu/%zu images", d, n);
		}
		work_release(&wk);
	}
	if (show)
		fprintf(stderr, "\n");
	return failed ? -1 : 0;
}

/* the INFO_FILE that names the generator version, the counts and the seed */
static int write_info(const struct gen_options *o, const char *tmp, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.3300s/" INFO_FILE, tmp);
	const struct profile *pf = &profiles[o->profile];
	char info[512];
	int il = snprintf(info, sizeof(info),
			  "%s\ngenerator_version %d\nimages %zu\nclasses %zu\nseed %llu\nprofile %s\n",
			  pf->title, GEN_VERSION, o->images, o->classes, (unsigned long long)o->seed,
			  pf->name);
	return write_all(path, (const unsigned char *)info, (size_t)il, err, errlen);
}

int dataset_generate(const struct gen_options *o, struct gen_stats *st, char *err, size_t errlen)
{
	const uint64_t t0 = clock_now_ns();
	char tmp[PATH_MAX] = "";
	unsigned char *kind = NULL;
	uint64_t *bytes = NULL;
	int *wh = NULL;
	int16_t *noise = NULL;
	int made_tmp = 0, rc = -1;

	memset(st, 0, sizeof(*st));
	if (check_request(o, err, errlen) || make_temp_beside(o->out, tmp, err, errlen))
		return -1;
	made_tmp = 1;

	const size_t n = o->images;
	kind = calloc(n, 1);
	bytes = calloc(n, sizeof(*bytes));
	wh = calloc(2 * n, sizeof(*wh));
	if (!kind || !bytes || !wh) {
		snprintf(err, errlen, "cannot generate %zu images: out of memory", n);
		goto out;
	}
	pick_kinds(kind, n, o->seed);
	if (make_class_folders(tmp, o->classes, err, errlen))
		goto out;
	noise = noise_table(o->seed);
	if (!noise) {
		snprintf(err, errlen, "cannot generate %zu images: out of memory", n);
		goto out;
	}
	if (write_images(o, tmp, kind, bytes, wh, noise, err, errlen))
		goto out;
	if (write_info(o, tmp, err, errlen))
		goto out;
	if (rename(tmp, o->out)) {
		snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, o->out, strerror(errno));
		goto out;
	}
	made_tmp = 0;
	fill_stats(st, kind, bytes, wh, n);
	fill_pixels(st, wh, n);
	st->profile = o->profile;
	st->seconds = (double)(clock_now_ns() - t0) * 1e-9;
	rc = 0;
out:
	if (made_tmp)
		remove_tree(tmp);
	free(kind);
	free(bytes);
	free(wh);
	free(noise);
	return rc;
}

void gen_stats_print(const struct gen_stats *st, FILE *f)
{
	fprintf(f, "images      %zu (%zu grayscale, %zu CMYK, %zu PNG named .JPEG)\n",
		st->images, st->gray, st->cmyk, st->png);
	fprintf(f, "total       %.1f MiB\n", (double)st->total_bytes / (1024.0 * 1024.0));
	fprintf(f, "file size   KiB (1024 B): mean %.1f  std %.1f  median %.1f  p25 %.1f  p75 %.1f  p99 %.1f  min %.1f  max %.1f\n",
		st->mean_kb, st->std_kb, st->median_kb, st->p25_kb, st->p75_kb, st->p99_kb,
		st->min_kb, st->max_kb);
	fprintf(f, "            mean %.1f KB (1000 B)\n", (double)st->total_bytes / 1000.0 /
		(double)(st->images ? st->images : 1));
	fprintf(f, "geometry    mean %.0f x %.0f, %.1f %% are 500 x 375 or 375 x 500, sides %d..%d px\n",
		st->mean_w, st->mean_h, st->pct_500x375, st->min_side, st->max_side);
	fprintf(f, "pixels      mean %.3f MP, median %.3f MP, %.3f bytes per pixel\n",
		st->mean_mp, st->median_mp, st->bytes_per_px);
	const char *name = gen_profile_name(st->profile);
	fprintf(f, "profile     %s; %s\n", name ? name : "?",
		name ? profiles[st->profile].target : "");
	fprintf(f, "time        %.2f s, %.0f images/s\n", st->seconds,
		st->seconds > 0 ? (double)st->images / st->seconds : 0.0);
}

/* ---- the default dataset --------------------------------------------- */

/* $PPBENCH_CACHE/<name> when set (the user's choice), else
 * <repo>/datasets/cache/<name> (repo above the executable), else
 * $XDG_CACHE_HOME/ppbench/<name>, else $HOME/.cache/ppbench/<name>. */
static int cache_path(const char *name, char *out, size_t n)
{
	int k;
	char top[PATH_MAX];
	const char *env = getenv("PPBENCH_CACHE");
	if (env && *env) {
		k = snprintf(out, n, "%s/%s", env, name);
		return k < 0 || (size_t)k >= n ? -1 : 0;
	}
	/* bench/ppbench, build/<tree>/ppbench, build/<tree>/tests/test_x */
	if (!find_top_exe("datasets/generate.h:pipelines", 4, top, sizeof(top))) {
		k = snprintf(out, n, "%s/datasets/cache/%s", top, name);
		return k < 0 || (size_t)k >= n ? -1 : 0;
	}
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		k = snprintf(out, n, "%s/ppbench/%s", xdg, name);
	else
		k = snprintf(out, n, "%s/.cache/ppbench/%s", home && *home ? home : "/tmp", name);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

int dataset_default_path(char *out, size_t n)
{
	const char *env = getenv("PPBENCH_DATA");
	if (env && *env) {
		int k = snprintf(out, n, "%s", env);
		return k < 0 || (size_t)k >= n ? -1 : 0;
	}
	return cache_path("default", out, n);
}

int dataset_profile_path(int profile, char *out, size_t n)
{
	if (profile == GEN_PROFILE_IMAGENET)
		return dataset_default_path(out, n);
	const char *name = gen_profile_name(profile);
	return name ? cache_path(name, out, n) : -1;
}

/* An existing folder at a profile's default path: used as it is, with a
 * warning if another generator version made it; refused if it was made
 * with another profile (except $PPBENCH_DATA, the user's own). */
static int use_existing(int profile, const char *path, int user, char *err, size_t errlen)
{
	struct gen_info gi;
	int have = !dataset_info_read(path, &gi);
	if (!user && have && gi.profile != profile) {
		snprintf(err, errlen, "'%s' holds a dataset of profile '%s', not '%s': delete it to regenerate",
			 path, gi.profile_name, gen_profile_name(profile));
		return -1;
	}
	if (gi.version != GEN_VERSION && !user)
		fprintf(stderr, "ppbench: warning: '%s' was made by generator version %d, this is version %d; "
			"delete it to regenerate\n", path, gi.version, GEN_VERSION);
	return 0;
}

int dataset_ensure_profile(int profile, char *path_out, size_t n, char *err, size_t errlen)
{
	const char *name = gen_profile_name(profile);
	if (!name) {
		snprintf(err, errlen, "unknown dataset profile %d (%s)", profile, GEN_PROFILE_CHOICES);
		return -1;
	}
	const char *what = profile == GEN_PROFILE_IMAGENET ? "the default dataset" : "the default dataset of profile";
	if (dataset_profile_path(profile, path_out, n)) {
		snprintf(err, errlen, "cannot find a place for %s%s%s: path too long", what,
			 profile ? " " : "", profile ? name : "");
		return -1;
	}
	struct stat sb;
	if (!stat(path_out, &sb) && S_ISDIR(sb.st_mode) && dir_has_entries(path_out) > 0)
		return use_existing(profile, path_out,
				    profile == GEN_PROFILE_IMAGENET && getenv("PPBENCH_DATA"), err, errlen);
	struct gen_options o = {
		.out = path_out,
		.profile = profile,
		.images = GEN_DEFAULT_IMAGES,
		.classes = GEN_DEFAULT_CLASSES,
		.seed = GEN_DEFAULT_SEED,
	};
	struct gen_stats st;
	fprintf(stderr, "ppbench: generating %s%s%s once (%d images, %d classes, seed %d, about %d MB) "
		"in '%s'; PPBENCH_CACHE=DIR puts it elsewhere, --data DIR uses a dataset of your "
		"own\n", what, profile ? " " : "", profile ? name : "", GEN_DEFAULT_IMAGES,
		GEN_DEFAULT_CLASSES, GEN_DEFAULT_SEED, profiles[profile].default_mb, path_out);
	if (dataset_generate(&o, &st, err, errlen)) {
		/* another process may have made it at the same time */
		if (dataset_version(path_out) == GEN_VERSION)
			return 0;
		return -1;
	}
	gen_stats_print(&st, stderr);
	return 0;
}

int dataset_ensure_default(char *path_out, size_t n, char *err, size_t errlen)
{
	return dataset_ensure_profile(GEN_PROFILE_IMAGENET, path_out, n, err, errlen);
}
