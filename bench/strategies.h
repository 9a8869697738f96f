/* ppbench strategies: PRESTO's preprocessing strategies for a pipeline. */
#ifndef PPBENCH_STRATEGIES_H
#define PPBENCH_STRATEGIES_H

struct stats_summary;

/* argv[0] = "strategies". For every split of the pipeline between ops done
 * once offline (a deterministic leading prefix, materialised into a store:
 * store.h) and ops done every epoch, and for every storage format (raw,
 * zstd, lz4), plus an in-memory application cache of the split's output:
 * the offline time, the storage size and the online images/s over a few
 * epochs; a table (stdout and strategies.csv / strategies.json in a results
 * folder), a figure of throughput against storage, and PRESTO's ranking by
 * a weighted objective. Checks that every strategy delivers the same
 * tensors as the full pipeline. --repeat N measures each strategy's online
 * epochs N times (the offline pass once): every timing is the median over
 * the repeats with its spread, and strategies whose scores lie within noise
 * of each other share a rank (strategies_rank).
 *
 * Exit codes: 0 done; 1 a strategy failed (its store could not be written
 * or read back) or delivered other tensors than the full pipeline; 2 a bad
 * option or argument (nothing ran). */
int cmd_strategies(int argc, char **argv);

/* The ranking: score[i] the PRESTO score of strategy i over the repeats
 * (valid[i] 0: not measured, rank 0). rank[i] = 1 + the number of
 * strategies whose score is higher beyond noise (their intervals do not
 * overlap, stats_differ; from one repeat each, any higher score), so that
 * strategies within noise of each other share a rank ("1, 1, 3").
 * tied[i]: another measured strategy lies within noise of i. */
void strategies_rank(const struct stats_summary *score, const int *valid, int n, int *rank,
		     int *tied);

#endif
