/* ppbench sweep: every configuration of a grid (workers x batch x GPUs,
 * repeated) as its own `ppbench run` process, then the figures and the
 * findings report (bench/report.h).
 *
 * The sweep folder, <out>/<UTC time>-sweep[-<tag>]/, holds sweep.json (the
 * plan and the state of every run, rewritten after each run), runs/ (the
 * run folders), logs/ (each run's output), summary.csv, figures/,
 * report.md and report.html. `ppbench sweep --resume DIR` runs the planned
 * runs that have not finished (status other than "ok"). */
#ifndef PPBENCH_SWEEP_H
#define PPBENCH_SWEEP_H

/* argv[0] = "sweep". Exit codes: 0 the sweep ran (some runs may have failed:
 * the report lists them); 1 no run succeeded, the sweep was interrupted,
 * or its folder could not be written; 2 a bad option (nothing ran). */
int cmd_sweep(int argc, char **argv);

struct dataset;

/* When drop is set, drop the page-cache pages of every file of d
 * (fdatasync, then posix_fadvise POSIX_FADV_DONTNEED, as the paper's
 * vmtouch -e); then measure the share of d's bytes still resident
 * (mincore). Returns that share, 0..100, or -1 if nothing could be
 * measured. Files that cannot be opened are passed over. */
double sweep_page_cache(const struct dataset *d, int drop);

#endif
