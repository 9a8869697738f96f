/* The plan of one image: its random stream, its place in the tree and the
 * profile's draws of its geometry, JPEG settings and detail (generate.c's
 * header says what the generator makes). */
#include <math.h>
#include <string.h>
#include <turbojpeg.h>
#include "gen_int.h"

uint64_t gen_image_stream(uint64_t seed, uint64_t index)
{
	return mix64(mix64(seed ^ 0x5eed5eed5eedull) + index);
}

/* ---- names and layout ------------------------------------------------ */

/* ImageNet-like synset number of class c, increasing with c. */
unsigned gen_class_id(size_t c, size_t classes)
{
	uint64_t gap = 98000000ull / classes;
	if (gap > 9973)
		gap = 9973;
	uint64_t jitter = gap > 1 ? mix64(c + 77) % (gap / 2 + 1) : 0;
	return (unsigned)(1440764ull + c * gap + jitter);
}

/* Image i -> class c, position j in its class. */
void gen_image_class(size_t i, size_t images, size_t classes, size_t *c, size_t *j)
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
uint64_t gen_file_number(size_t c, size_t j)
{
	return (uint64_t)j * 8 + 1 + mix64(((uint64_t)c << 32) ^ j) % 7;
}

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
const struct profile gen_profiles[GEN_PROFILES] = {
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
	return p >= 0 && p < GEN_PROFILES ? gen_profiles[p].name : NULL;
}

int gen_profile_find(const char *name)
{
	for (int i = 0; name && i < GEN_PROFILES; i++)
		if (!strcmp(name, gen_profiles[i].name))
			return i;
	return -1;
}

void gen_plan_image(struct plan *p, const struct profile *pf, int kind, uint64_t *s)
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
