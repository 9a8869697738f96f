/* ppbench strategies: PRESTO's preprocessing strategies for a pipeline. */
#ifndef PPBENCH_STRATEGIES_H
#define PPBENCH_STRATEGIES_H

/* argv[0] = "strategies". For every split of the pipeline between ops done
 * once offline (a deterministic leading prefix, materialised into a store:
 * store.h) and ops done every epoch, and for every storage format (raw,
 * zstd, lz4), plus an in-memory application cache of the split's output:
 * the offline time, the storage size and the online images/s over a few
 * epochs; a table (stdout and strategies.csv / strategies.json in a results
 * folder), a figure of throughput against storage, and PRESTO's ranking by
 * a weighted objective. Checks that every strategy delivers the same
 * tensors as the full pipeline.
 *
 * Exit codes: 0 done; 1 a strategy failed (its store could not be written
 * or read back) or delivered other tensors than the full pipeline; 2 a bad
 * option or argument (nothing ran). */
int cmd_strategies(int argc, char **argv);

#endif
