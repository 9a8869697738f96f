/* ppbench bottleneck: the caching ladder of "A Caching Strategy for
 * Identifying Bottlenecks on the Data Input Pipeline", automated. */
#ifndef PPBENCH_BOTTLENECK_H
#define PPBENCH_BOTTLENECK_H

#include <stddef.h>
#include <stdint.h>
#include "loader.h"
#include "noise.h"
#include "options.h"
#include "run.h"
#include "stats.h"

#define BOTTLENECK_STEPS 5

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

/* The figures of n climbs: ips[k * BOTTLENECK_STEPS + i] of climb k. */
struct bottleneck_ladder {
	size_t n;
	double *ips;
	struct noise *noise;              /* [n] each climb's window */
	struct stats_summary sp[BOTTLENECK_STEPS];   /* images/s of each step */
	struct stats_summary slow[BOTTLENECK_STEPS]; /* slowdown against the step before (slow[0] unused) */
	double *slow_v;                   /* [n * BOTTLENECK_STEPS] the per-climb slowdowns (NaN: none) */
	struct bottleneck_verdict v;
};

struct dataset;
/* o->repeat climbs of the ladder into l (ips, slow_v and noise allocated
 * for o->repeat climbs; l->n counts those done): steps 1 and 2 the
 * simulated GPU alone on one batch of `bytes`, steps 3 to 5 the loader lc
 * (sample cached, page cache warm, page cache dropped), each in a noise
 * window of cp. 0, or -1 with err (l->n climbs were done). */
int bottleneck_climb_all(const struct run_opts *o, struct loader_cfg *lc, const struct dataset *data,
			 uint64_t step_ns, size_t bytes, const struct cpus *cp,
			 struct bottleneck_ladder *l, char *err, size_t errlen);
void bottleneck_ladder_free(struct bottleneck_ladder *l);
/* The summaries of the climbs and the verdict (bottleneck_decide). 0, or -1
 * (out of memory). */
int bottleneck_summarise(struct bottleneck_ladder *l);
/* The ladder's table and verdict on stdout. */
void bottleneck_print(const struct bottleneck_ladder *l);
/* bottleneck.json and bottleneck.csv into dir. 0, or -1 with err. */
int bottleneck_write(const char *dir, const struct bottleneck_ladder *l, const struct opt *table,
		     const struct run_opts *o, const char *pipe, size_t images, uint64_t step_ns,
		     const struct cpus *cp, char *err, size_t errlen);

#endif
