/* ppbench bottleneck: the caching ladder of "A Caching Strategy for
 * Identifying Bottlenecks on the Data Input Pipeline", automated. */
#ifndef PPBENCH_BOTTLENECK_H
#define PPBENCH_BOTTLENECK_H

#include "stats.h"

/* How one step compares with the step before it, from its slowdown over
 * the repeats (images/s of the step before / images/s of this one; > 1:
 * slower): the interval (stats_summarise: the CI, else min-max) lies wholly
 * above 1 (slower), wholly below (faster), or straddles it. */
enum step_change {
	STEP_SLOWER,
	STEP_FASTER,
	STEP_WITHIN_NOISE,
	STEP_NO_BOUND,          /* no figure (a step of no GPU bound, or none measured) */
};
enum step_change bottleneck_step_change(const struct stats_summary *slow);
const char *bottleneck_change_name(enum step_change c);   /* "slower", "faster", ... */

struct bottleneck_verdict {
	int step;               /* the step named (index in slow[]), -1: none */
	int candidate;          /* the step of the largest median drop, -1: no step slower */
	double slowdown;        /* the median slowdown of step (else of candidate), NaN: none */
	size_t repeats;         /* the most repeats behind a step's figure */
};

/* The verdict of the ladder: slow[i] (i = 1..nsteps-1; slow[0] unused) the
 * slowdown of step i against step i-1 over the repeats. Names the step with
 * the largest median slowdown among those slower beyond noise; never a
 * step that was faster than the one before it, nor one whose slowdown is
 * within noise, nor any step from a single repeat (it measures no noise).
 * Otherwise step = -1, and candidate names the largest drop, for the user. */
void bottleneck_decide(const struct stats_summary *slow, int nsteps, struct bottleneck_verdict *v);

#endif
