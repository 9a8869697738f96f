/* ppbench strategies: PRESTO's preprocessing strategies for a pipeline. */
#ifndef PPBENCH_STRATEGIES_H
#define PPBENCH_STRATEGIES_H

struct stats_summary;

/* The ranking: score[i] the PRESTO score of strategy i over the repeats
 * (valid[i] 0: not measured, rank 0). rank[i] = 1 + the number of
 * strategies whose score is higher beyond noise (their intervals do not
 * overlap, stats_differ; from one repeat each, any higher score), so that
 * strategies within noise of each other share a rank ("1, 1, 3").
 * tied[i]: another measured strategy lies within noise of i. */
void strategies_rank(const struct stats_summary *score, const int *valid, int n, int *rank,
		     int *tied);

#endif
