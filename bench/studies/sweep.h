/* ppbench sweep: every configuration of a grid (workers x batch x GPUs,
 * repeated) as its own `ppbench run` process, then the figures and the
 * findings report (bench/report/report.h).
 *
 * The sweep folder, <out>/<UTC time>-sweep[-<tag>]/, holds sweep.json (the
 * plan and the state of every run, rewritten after each run), runs/ (the
 * run folders), logs/ (each run's output), summary.csv, figures/,
 * report.md and report.html. `ppbench sweep --resume DIR` runs the planned
 * runs that have not finished (status other than "ok"). */
#ifndef PPBENCH_SWEEP_H
#define PPBENCH_SWEEP_H

#include <stddef.h>
#include <stdio.h>

struct dataset;

/* When drop is set, drop the page-cache pages of every file of d
 * (fdatasync, then posix_fadvise POSIX_FADV_DONTNEED, as the paper's
 * vmtouch -e); then measure the share of d's bytes still resident
 * (mincore). Returns that share, 0..100, or -1 if nothing could be
 * measured. Files that cannot be opened are passed over. */
double sweep_page_cache(const struct dataset *d, int drop);

/* A sweep's grid: workers (tied: workers = GPUs), batch sizes, GPU counts,
 * loader policies (their index and name), repeats. */
struct sweep_grid {
	const int *w, *b, *g, *pol;
	size_t nw, nb, ng, np;
	int tied;
	const char *const *pol_name;   /* names by policy index */
	long repeat;
};

/* Plan every configuration of g with the run options run_args ("--data
 * DIR", then what is passed to every run): memory needed (as the run plans
 * it) and whether it fits, images, and for those that do not fit the
 * nearest change that makes them fit and what it changes in the
 * measurement. dry_run: print one line per configuration, an estimated
 * time from a short probe (one worker, 32 images), and the total, to f.
 * Otherwise print only the configurations that cannot fit, as errors.
 * 0 every configuration fits; 1 some do not; -1 (message printed) the plan
 * could not be made. */
int sweep_plan(const struct sweep_grid *g, char **run_args, size_t nargs, int dry_run, FILE *f);

#endif
