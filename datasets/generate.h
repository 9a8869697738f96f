/* A synthetic ImageNet-like ImageFolder tree. */
#ifndef PPBENCH_GENERATE_H
#define PPBENCH_GENERATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "describe.h"   /* enum gen_profile, GEN_PROFILE_CHOICES */

/* The profile's name, or NULL if p is out of range. */
const char *gen_profile_name(int p);
/* The profile called name, or -1. */
int gen_profile_find(const char *name);

struct gen_options {
	const char *out;       /* folder to create (must not exist, or be empty) */
	int profile;           /* enum gen_profile (0: imagenet) */
	size_t images;         /* total images */
	size_t classes;        /* class folders */
	uint64_t seed;
	int threads;           /* 0: OpenMP default */
	int quiet;             /* no progress */
};

struct gen_stats {
	size_t images, gray, cmyk, png;      /* all, grayscale and CMYK JPEGs, PNGs */
	uint64_t total_bytes;
	/* file sizes in KiB (1024 bytes, as ImageNet's 111.98 KB mean and
	 * 136.8 GB total); percentiles interpolated as numpy's; std over n */
	double mean_kb, median_kb, p25_kb, p75_kb, p99_kb, min_kb, max_kb, std_kb;
	double mean_w, mean_h, pct_500x375;  /* share of images 500 x 375 or 375 x 500 */
	double mean_mp, median_mp;           /* megapixels (10^6 pixels) */
	double bytes_per_px;                 /* total bytes / total pixels */
	int profile;
	int min_side, max_side;              /* smallest short side, largest long side */
	double seconds;                      /* wall time */
};

/* Write the tree; byte-identical output for the same options whatever the
 * thread count (on one machine: libm, libjpeg-turbo and zlib versions are
 * part of the recipe). 0, or -1 with err.
 *
 * Layout: out/n%08d/n%08d_<k>.JPEG, classes as even as possible, plus
 * out/ppbench-dataset.txt (generator version and options; ImageFolder ignores
 * files at the top). Written into a temporary folder beside out, renamed at
 * the end; out's parent folders are created. Special files, chosen by seed:
 * about 1.5 % grayscale JPEGs, 0.1 % CMYK JPEGs (Adobe marker, inverted as
 * Photoshop writes them; YCCK and plain CMYK alternate), from 20 images on at
 * least one grayscale and two CMYK (one of each flavour), and exactly one PNG
 * named .JPEG from 2 images on. */
int dataset_generate(const struct gen_options *o, struct gen_stats *st, char *err, size_t errlen);
/* Human summary; sizes in KiB (1024 bytes), as the ImageNet figures. */
void gen_stats_print(const struct gen_stats *st, FILE *f);

/* Version of the generator's output: bumped whenever the bytes of a
 * profile's images change (a new profile leaves the others' bytes alone). */
#define GEN_VERSION 1

/* The default dataset. */
#define GEN_DEFAULT_IMAGES 2000
#define GEN_DEFAULT_CLASSES 50
#define GEN_DEFAULT_SEED 1

/* Where the default dataset lives: $PPBENCH_DATA if set, else
 * $PPBENCH_CACHE/default if set, else <repo>/datasets/cache/default (repo
 * found above the executable: bench/, build/<tree>/ or build/<tree>/tests/),
 * else $XDG_CACHE_HOME/ppbench/default, else $HOME/.cache/ppbench/default.
 * It is made on first use: 2000 images, about 230 MB (photos: 120 MB).
 * 0, or -1 if n is too small. */
int dataset_default_path(char *out, size_t n);
/* The same for a profile: imagenet's is dataset_default_path(); another's
 * is the folder named after it beside where the default would be without
 * $PPBENCH_DATA (<repo>/datasets/cache/photos, $PPBENCH_CACHE/photos). */
int dataset_profile_path(int profile, char *out, size_t n);
/* Generate the default dataset at dataset_default_path() unless it exists
 * (saying so on stderr, with its statistics); path_out gets the path. A
 * dataset made by another generator version is kept, with a warning.
 * 0, or -1 with err. */
int dataset_ensure_default(char *path_out, size_t n, char *err, size_t errlen);
/* The same for a profile's default dataset (same count, classes and seed)
 * at dataset_profile_path(); a folder there made with another profile is
 * refused. */
int dataset_ensure_profile(int profile, char *path_out, size_t n, char *err, size_t errlen);

#endif
