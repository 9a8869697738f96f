/* The caching ladder's verdict (bench/studies/bottleneck.h): pure, no I/O. */
#include <math.h>
#include <string.h>
#include "bottleneck.h"

enum step_change bottleneck_step_change(const struct stats_summary *slow)
{
	if (!slow->n || !isfinite(slow->median))
		return STEP_NO_BOUND;
	/* the interval (CI, else min-max) wholly on one side of "no change" */
	if (slow->lo > 1)
		return STEP_SLOWER;
	if (slow->hi < 1)
		return STEP_FASTER;
	return STEP_WITHIN_NOISE;
}

const char *bottleneck_change_name(enum step_change c)
{
	switch (c) {
	case STEP_SLOWER:
		return "slower";
	case STEP_FASTER:
		return "faster";
	case STEP_WITHIN_NOISE:
		return "within noise";
	default:
		return "no bound";
	}
}

void bottleneck_decide(const struct stats_summary *slow, int nsteps, struct bottleneck_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->step = v->candidate = -1;
	v->slowdown = NAN;
	double best = 1, cand = 1;
	for (int i = 1; i < nsteps; i++) {
		const struct stats_summary *s = &slow[i];
		if (!s->n || !isfinite(s->median))
			continue;
		if (s->n > v->repeats)
			v->repeats = s->n;
		/* the largest drop whatever its noise: said, never named, when no
		 * step is slower beyond noise */
		if (s->median > cand) {
			cand = s->median;
			v->candidate = i;
		}
		if (s->n < 2 || bottleneck_step_change(s) != STEP_SLOWER)
			continue;
		if (s->median > best) {
			best = s->median;
			v->step = i;
		}
	}
	if (v->step >= 0)
		v->slowdown = best;
	else if (v->candidate >= 0)
		v->slowdown = cand;
}
