/* The subcommands of ppbench, every one declared here; each takes argv with
 * argv[0] = its name and returns an exit code (the enum below). */
#ifndef PPBENCH_COMMANDS_H
#define PPBENCH_COMMANDS_H

int cmd_apply(int argc, char **argv);
int cmd_dataset(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_ls(int argc, char **argv);
/* ppbench regime: make reproduce's probe, GPU step factor and worker grid
 * (regime.h). Exit codes: 0 done; 1 the reference tables are missing or
 * the file cannot be written; 2 a bad option or dataset (nothing ran). */
int cmd_regime(int argc, char **argv);
/* ppbench model: the discrete-event model of the loader (model.h). */
int cmd_model(int argc, char **argv);
/* ppbench metrics [--markdown] [RUN_DIR...]: the metric table (metrics.h). */
int cmd_metrics(int argc, char **argv);
/* argv[0] = "bottleneck". Measures images/s with (1) one batch cached on
 * the simulated GPU (step only), (2) one batch cached on the host (copy +
 * step), (3) one processed sample cached in each worker (collate, the
 * loader's protocol, pin memory, copy, step), (4) the dataset's files in
 * the page cache (every per-sample op + the rest), (5) the full pipeline
 * from storage with a cold page cache (posix_fadvise DONTNEED on every
 * file first), --repeat times. Prints a table (each figure a median with
 * its spread) and names the stage whose inclusion causes the largest drop
 * beyond noise (bottleneck_decide), with the post's caveats; leaves
 * OUT/<UTC time>-<tag>/ with bottleneck.json and bottleneck.csv.
 *
 * Exit codes: 0 done; 1 a step failed; 2 a bad option (nothing ran). */
int cmd_bottleneck(int argc, char **argv);
/* argv[0] = "compare". Exit codes: 0 done (tensors that differ are a
 * finding, reported, not an error); 1 a side failed, or its results could
 * not be read or written; 2 a bad option, a pipeline with no torchvision
 * equivalent, or no python3-torch (nothing ran); 3 a worker died (ppbench
 * side); 130 / 143 interrupted. */
int cmd_compare(int argc, char **argv);
/* argv[0] = "merge". Exit codes: 0 merged (the report may say that nothing
 * could be compared); 1 a folder could not be read or the results could not
 * be written; 2 a bad option or argument. */
int cmd_merge(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_model(int argc, char **argv);
/* ppbench report DIR... [--out DIR]  /  ppbench plots DIR */
int cmd_report(int argc, char **argv);
int cmd_plots(int argc, char **argv);
/* argv[0] = "run". Exit codes: 0 done; 1 the run failed (a data error with
 * --on-error fail) or its results could not be written; 2 a bad option or
 * argument, or a run that cannot fit in memory (nothing ran); 3 a worker
 * died; 130 / 143 SIGINT / SIGTERM. Once the run has started, its results
 * are written in every case ("complete": false when it stopped early). */
int cmd_run(int argc, char **argv);
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
/* argv[0] = "sweep". Exit codes: 0 the sweep ran (some runs may have failed:
 * the report lists them); 1 no run succeeded, the sweep was interrupted,
 * or its folder could not be written; 2 a bad option (nothing ran). */
int cmd_sweep(int argc, char **argv);

/* Exit codes (exitcode.h) and the conventions every command shares
 * (exit_codes_help, nearest_name, warn_oversubscribed, input_missing). */
#include "conventions.h"

#endif
