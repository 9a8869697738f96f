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
 * loader policies (their index and name), repeats; the images of the fused
 * what-if the sweep measures first (0: none); whether it drops the page
 * cache before each run. */
struct sweep_grid {
	const int *workers, *batch_size, *gpus, *pol;
	size_t nw, nb, ng, np;
	int tied;
	const char *const *pol_name;   /* names by policy index */
	long repeat;
	size_t whatif_images;
	int drop_cache;                /* the dataset's pages dropped before each run (not --warm) */
};

/* The fused what-if's passes of each pipeline (6: the least that gives a
 * 95 % interval). */
#define SWEEP_WHATIF_ROUNDS 6
/* The time estimate's fixed parts: a run's start and its results written
 * (besides the scan of the dataset, measured), and the report (gnuplot's
 * figures). */
#define SWEEP_RUN_FIXED_S 0.3
#define SWEEP_REPORT_S 4.0
/* The sweep raises the runs' epochs by itself (sweep_plan) only while its
 * estimated time stays within this. */
#define SWEEP_AUTO_EPOCHS_MAX_S 3600.0

/* What the plan decided for the runs. */
struct sweep_plan_out {
	long epochs;          /* --epochs the sweep chose for every run (0: none: the runs' own) */
	char epochs_why[1024]; /* what the plan said of the epochs ("" nothing) */
	double estimate_s;    /* the whole sweep's estimated time (NaN: no probe) */
	int stopped;          /* 128 + the signal that stopped the plan (its probe); 0 */
};

/* Plan every configuration of g with the run options run_args ("--data
 * DIR", then what is passed to every run), and print the plan to f: one
 * line per configuration (memory needed, as the run plans it, and whether
 * it fits, with the nearest change that makes it fit when it does not;
 * batches and images; an estimated time from a short probe of one worker;
 * the findings of the report it counts for), what each finding can judge
 * with this plan (report_plan_findings), and the total with its time (the
 * runs, the fused what-if, the report).
 *
 * When run_args give neither --epochs nor --max-batches, the epochs every
 * run gets are chosen: the fewest that give each configuration
 * REPORT_MIN_BATCHES batches, unless that makes a configuration stop
 * fitting in memory or the sweep last over SWEEP_AUTO_EPOCHS_MAX_S; the
 * plan says which and why (out->epochs; the caller passes --epochs on).
 * dry_run: nothing else; otherwise a configuration that cannot fit is also
 * an error on stderr. 0 every configuration fits; 1 some do not; -1
 * (message printed) the plan could not be made. */
int sweep_plan(const struct sweep_grid *g, char **run_args, size_t nargs, int dry_run, FILE *f,
	       struct sweep_plan_out *out);

#endif
