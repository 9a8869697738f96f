/* The probe of `ppbench regime` (report/regime.h says what it is for):
 * the pipeline's CPU time per image on one thread over the dataset's first
 * images (ops_cpu_probe, whatif.h). */
#ifndef PPBENCH_REGIME_PROBE_H
#define PPBENCH_REGIME_PROBE_H

#include <stddef.h>

struct stats_summary;

/* rounds passes of pipeline over the first images of the dataset in data:
 * their median CPU ms per image and its interval into s. 0, or -1 (said on
 * stderr). */
int regime_probe(const char *pipeline, const char *data, size_t images, size_t rounds,
		 struct stats_summary *s);

#endif
