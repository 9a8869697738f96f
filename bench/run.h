/* ppbench run: one configuration of the loader, start to results folder. */
#ifndef PPBENCH_RUN_H
#define PPBENCH_RUN_H

/* argv[0] = "run". Exit codes: 0 done; 1 the run failed (a data error with
 * --on-error fail) or its results could not be written; 2 a bad option or
 * argument, or a run that cannot fit in memory (nothing ran); 3 a worker
 * died; 130 / 143 SIGINT / SIGTERM. Once the run has started, its results
 * are written in every case ("complete": false when it stopped early). */
int cmd_run(int argc, char **argv);

#endif
