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

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "imagefolder.h"
#include "loader.h"
#include "options.h"

struct json_t;

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

/* ---- the command's steps (sweep.c, sweep_exec.c; cli/cmd_sweep.c parses) */

/* The sweep's own options (cli/cmd_sweep.c's table fills it). */
struct sweep_cfg {
	const char *workers, *batch, *gpus, *policy;  /* lists */
	long repeat;
	int warm, report, dry_run, model;
	const char *resume, *tag, *out, *data, *label;
	const char *fused;      /* the fused what-if: NAME|FILE|on|off (NULL: on) */
	uint64_t fused_images;
};

#define SWEEP_NPOLICIES (sizeof(loader_policy_names) / sizeof(loader_policy_names[0]))

/* What the command's steps share: the options, the command line split into
 * the sweep's own and the run options passed on (args), the run arguments
 * every run gets (base), the plan (doc) and what the sweep holds until it
 * ends. */
struct sweep_state {
	struct sweep_cfg c;
	struct opts_split args;
	char dir[PATH_MAX], data[PATH_MAX];
	char **base;
	int tied, lockfd, have_data;
	size_t nbase, nw, nb, ng, np;
	size_t own_args;   /* base[2 .. own_args) are copies (a resumed sweep's) */
	int *w, *b, *g, pol[SWEEP_NPOLICIES];
	struct json_t *doc;
	struct dataset ds;
	char epochs_arg[24];       /* --epochs chosen by the plan */
	char epochs_why[1024];     /* what the plan said of it */
	double estimate_s;         /* the plan's estimate of the whole sweep (NaN: none) */
	char pipeline[PATH_MAX];   /* the runs' --pipeline */
	char fused[PATH_MAX];      /* the fused what-if's pipeline, "" none */
};

/* A step's "go on": any other value is the command's exit status. */
#define STEP_GO (-1)

/* --resume: the plan, the data and the run arguments from the sweep folder. */
int sweep_resume(struct sweep_state *t);
/* A new sweep: the grid, the data, the run arguments (checked), the memory
 * plan (--dry-run ends here), then the folder and sweep.json. */
int sweep_new(struct sweep_state *t);
/* The folder locked against a second sweep, its runs/ and logs/, sweep.json
 * saved, and the dataset scanned (its pages are dropped before each run). */
int sweep_prepare(struct sweep_state *t);
/* Every run not yet ok, in plan order, until a stop signal (stopsig.h, caught
 * by the caller); sweep.json saved after each. The number of runs ok (before
 * and now). */
size_t sweep_runs(struct sweep_state *t);
/* The report of the sweep (--report), and the folder's name on stdout. */
void sweep_finish(const struct sweep_state *t);
void sweep_state_free(struct sweep_state *t);

/* Between sweep.c and sweep_exec.c. */
void sweep_utc_stamp(char *out, size_t n, const char *fmt);
int sweep_save_json(struct json_t *doc, const char *dir, char *err, size_t errlen);
/* The run folders present in runs/ (names, sorted); free with sweep_free_list. */
size_t sweep_list_runs(const char *runs, char ***out);
void sweep_free_list(char **v, size_t n);

#endif
