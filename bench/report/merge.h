/* ppbench merge: sweep folders from several machines (Slurm array tasks, or
 * copied by hand) as one table, one set of figures with a line per machine,
 * and a comparison report (bench/report/merge*.c; the command: bench/cli/cmd_merge.c).
 *
 * The merge folder (--out, default results/<UTC time>-merge/) holds
 *   summary.csv      every run of every folder: host, cpu_model,
 *                    cpus_online, cores, machine, sweep, compared,
 *                    in_overlap, the run's noise marks, its configuration's
 *                    figures on its machine (median, lo, hi, n), then the
 *                    sweep's columns (bench/report/report.h)
 *   comparison.csv   one row per compared machine: its best configuration,
 *                    each figure with lo, hi and n, images/s per core, CPU per
 *                    image, the knee of the best configuration's series, the
 *                    fastest machine over it (judged), cost
 *   figures/         data/ (the CSVs), PNG and SVG (plots/merge_*.gp)
 *   report.md, report.html
 *
 * Machines are compared only on the configurations (workers, batch, GPUs)
 * that every one of them ran, and only when their sweeps used the same
 * dataset, pipeline, ppbench version, run options and page-cache policy;
 * the report says what was left out and why.
 *
 * Every figure is the median of a machine's runs at a configuration (its
 * repeats, and the runs of several folders of one machine) with its spread
 * (merge_stats.c): min-max and n below 6 runs, a 95 % interval of the
 * median from 6 on (bench/util/stats.h). A ratio between two machines is the
 * ratio of the medians with the interval lo_a / hi_b .. hi_a / lo_b: within
 * noise when it holds 1, not judged when a side has one run. */
#ifndef PPBENCH_MERGE_H
#define PPBENCH_MERGE_H

#include <stddef.h>
#include "options.h"
#include "stats.h"
#include "sweep_row.h"

/* What ppbench merge was asked (bench/cli/cmd_merge.c parses it). */
struct merge_opts {
	struct opt_multi price;       /* --price NAME=USD_PER_HOUR, each */
	int by_cpu;                   /* --by cpu: one machine per CPU model and count */
	int model;                    /* --model on */
	const char *out;              /* NULL: results/<UTC time>-merge */
	char **dirs;                  /* the sweep folders (or folders holding them) */
	size_t ndirs;
};

/* The merge: read the folders, compare the machines on the configurations
 * they share, write the merge folder. Prints its report's paths; an exit
 * code (commands.h's cmd_merge). */
int merge_execute(const struct merge_opts *o);

/* USD per million images at `images_per_s` on a machine that costs
 * `usd_per_hour`; NaN when either is not a positive number. */
double merge_cost_per_million(double usd_per_hour, double images_per_s);

/* Parse "NAME=USD_PER_HOUR" (a positive number): the name into name[n],
 * the price into *usd. 0, or -1 with err. */
int merge_parse_price(const char *arg, char *name, size_t n, double *usd, char *err,
		      size_t errlen);

/* ---- figures with their spread (merge_stats.c) ---------------------------- */

#define MERGE_MAX_OPS (2 * SWEEP_MAX_OPS)

/* One machine at one configuration: its ok runs combined by the metric
 * table's rule (repeats_combine: the median with its spread), and the noise
 * guard's marks. */
struct merge_point {
	size_t runs;
	struct stats_summary e2e_s, images_per_s, gpu_util_pct;
	struct stats_summary cpu_ms_per_image;   /* workers + main process CPU per image */
	double op_ms[MERGE_MAX_OPS];  /* median CPU ms per image of each op (NaN: not run) */
	size_t noisy;                 /* runs the noise guard found noisy (merge_row_noisy) */
	double others_max_pct;        /* the most other processes took in them (NaN: none) */
	size_t oversubscribed;        /* runs with more busy threads than usable CPUs */
};

/* Other processes (or a hypervisor's steal) took more than
 * REPORT_BUSY_PCT of the run's CPUs. */
int merge_row_noisy(const struct sweep_row *r);
/* The ok runs of rows[0..n) at w workers, batch b, g GPUs as one point
 * (cpus: the CPUs the runs could use, for runs that do not say whether they
 * were oversubscribed); ops[0..nops): the ops of op_ms. 0, or -1 (out of
 * memory). */
int merge_point_of(const struct sweep_row *rows, size_t n, int w, int b, int g, int cpus,
		   const char (*ops)[40], size_t nops, struct merge_point *p);
/* It has runs, none noisy, none oversubscribed. */
int merge_point_clean(const struct merge_point *p);
/* "NOISY in 2 of 3 runs (others up to 68 %); oversubscribed in 3 of 3
 * runs", "" when clean. */
void merge_marks(const struct merge_point *p, char *out, size_t n);
/* Every figure of s times k (k > 0): images/s per core from images/s. */
void merge_scale(struct stats_summary *s, double k);
/* stats_format, and " (n=1)" after a single run. */
void merge_format(char *out, size_t n, const struct stats_summary *s, const char *fmt);

/* A ratio between two machines, judged on their intervals. */
enum merge_judgement {
	MERGE_NOT_JUDGED,             /* a side has one run (or none): no spread to judge by */
	MERGE_WITHIN_NOISE,           /* the interval holds 1 */
	MERGE_HIGHER,                 /* the whole interval above 1 */
	MERGE_LOWER,                  /* below 1 */
};
struct merge_ratio {
	double r, lo, hi;             /* a / b of the medians; lo_a / hi_b .. hi_a / lo_b */
	enum merge_judgement v;
};
void merge_ratio_of(const struct stats_summary *a, const struct stats_summary *b,
		    struct merge_ratio *r);
/* "not judged", "within noise", "higher", "lower" */
const char *merge_judgement_name(enum merge_judgement v);
/* "1.16x [0.98, 1.35], within noise", "1.60x [1.45, 1.77], higher",
 * "1.16x (not judged: one run on a side)", "-" */
void merge_ratio_format(char *out, size_t n, const struct merge_ratio *r);

#endif
