/* A synthetic ImageNet-like ImageFolder tree. */
#ifndef PPBENCH_GENERATE_H
#define PPBENCH_GENERATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gen_options {
	const char *out;       /* folder to create (must not exist, or be empty) */
	size_t images;         /* total images */
	size_t classes;        /* class folders */
	uint64_t seed;
	int threads;           /* 0: OpenMP default */
	int quiet;             /* no progress */
};

struct gen_stats {
	size_t images, gray, cmyk, png;
	uint64_t total_bytes;
	double mean_kb, median_kb, p25_kb, p75_kb, p99_kb, min_kb, max_kb, std_kb;
	double mean_w, mean_h, pct_500x375;  /* share of images 500 x 375 or 375 x 500 */
	int min_side, max_side;
	double seconds;
};

/* Write the tree; byte-identical output for the same options (threads do not
 * matter). 0, or -1 with err. */
int dataset_generate(const struct gen_options *o, struct gen_stats *st, char *err, size_t errlen);
void gen_stats_print(const struct gen_stats *st, FILE *f);

#endif
