/* The knee rule (knee.h). */
#include <math.h>
#include <stdlib.h>
#include "knee.h"
#include "repeats.h"

int knee_step_gain(const struct sweep_row *r, size_t n, int from, int to,
		   struct stats_summary *s)
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (r[i].config != from || !sweep_row_ok(&r[i]) || !(r[i].e2e_s > 0))
			continue;
		for (size_t j = 0; j < n; j++)
			if (r[j].config == to && r[j].repeat == r[i].repeat && sweep_row_ok(&r[j]) &&
			    isfinite(r[j].e2e_s)) {
				v[k++] = 100 * (r[i].e2e_s - r[j].e2e_s) / r[i].e2e_s;
				break;
			}
	}
	int rc = stats_summarise(v, k, STATS_CI_LEVEL, s);
	free(v);
	return rc;
}

int knee_of(const int *w, const double *e2e, size_t n, double gain_pct)
{
	for (size_t i = 0; i + 1 < n; i++)
		if ((e2e[i] - e2e[i + 1]) / e2e[i] < gain_pct / 100)
			return w[i];
	return 0;
}
