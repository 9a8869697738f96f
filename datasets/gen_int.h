/* The generator's parts (datasets/gen_*.c, generate.c, default_data.c):
 * what they share and nothing else. Private to datasets/. */
#ifndef PPBENCH_GEN_INT_H
#define PPBENCH_GEN_INT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <turbojpeg.h>
#include "generate.h"

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

static inline double rnormal(uint64_t *s)
{
	double u = runif(s), v = runif(s);
	return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* ---- the plan of one image (gen_plan.c) ------------------------------- */

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

extern const struct profile gen_profiles[GEN_PROFILES];

/* Image i's random stream: every image its own, whatever thread makes it. */
uint64_t gen_image_stream(uint64_t seed, uint64_t index);
/* ImageNet-like synset number of class c, increasing with c. */
unsigned gen_class_id(size_t c, size_t classes);
/* Image i -> class c, position j in its class. */
void gen_image_class(size_t i, size_t images, size_t classes, size_t *c, size_t *j);
/* ImageNet's file numbers have gaps: n01440764_10026.JPEG. */
uint64_t gen_file_number(size_t c, size_t j);
/* Draw the plan of an image of this kind from its stream. */
void gen_plan_image(struct plan *p, const struct profile *pf, int kind, uint64_t *s);

/* ---- synthesis (gen_synth.c) ------------------------------------------ */

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

/* 0, or -1 when out of memory: wk holds an image of w x h. */
int gen_work_reserve(struct work *wk, int w, int h);
void gen_work_release(struct work *wk);
/* The shared table of uniform int16 noise (malloc'd; NULL: out of memory). */
int16_t *gen_noise_table(uint64_t seed);
/* 1 when the image is encoded from planes (Y, then Cb and Cr at half size). */
int gen_plan_planar(const struct plan *p);
/* Fill wk->pix: Y, Cb, Cr planes (gen_plan_planar), or pixels of 3 (RGB) or
 * 4 (inverted CMYK) bytes. */
void gen_synthesize(struct work *wk, const struct plan *p, uint64_t *s);

/* ---- encoders (gen_encode.c) ------------------------------------------ */

/* Synthesize the image and write it to path (created, must not exist):
 * its size into *bytes. 0, or -1 with err. */
int gen_make_image(struct work *wk, const struct plan *p, uint64_t *s, const char *path,
		   uint64_t *bytes, char *err, size_t errlen);
/* Create path (it must not exist) holding the n bytes. 0, or -1 with err. */
int gen_write_all(const char *path, const unsigned char *data, size_t n, char *err,
		  size_t errlen);

/* ---- the tree (generate.c) -------------------------------------------- */

/* 1 if the folder has entries, 0 if empty, -1 if it cannot be read. */
int gen_dir_has_entries(const char *path);

#endif
