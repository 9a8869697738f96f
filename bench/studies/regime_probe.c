/* make reproduce's probe of this machine (regime_probe.h). */
#include <stdlib.h>
#include "imagefolder.h"
#include "log.h"
#include "regime_probe.h"
#include "stats.h"
#include "whatif.h"

int regime_probe(const char *pipeline, const char *data, size_t images, size_t rounds,
		 struct stats_summary *s)
{
	char err[1024];
	struct dataset d;
	if (dataset_scan(&d, data, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	size_t n = d.n < images ? d.n : images;
	double *ms = calloc(rounds, sizeof(*ms));
	int rc = -1;
	if (!n)
		error_msg("'%s' holds no images", data);
	else if (!ms)
		error_msg("out of memory");
	else if (ops_cpu_probe(pipeline, &d, n, rounds, 32, ms, err, sizeof(err)))
		error_msg("the probe failed: %s", err);
	else if (stats_summarise(ms, rounds, STATS_CI_LEVEL, s))
		error_msg("the probe gave no CPU time per image");
	else
		rc = 0;
	free(ms);
	dataset_release(&d);
	return rc;
}
