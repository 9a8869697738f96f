/* A sweep's results as one table, its figures, and the findings report.
 *
 * A sweep folder (written by `ppbench sweep`, bench/studies/sweep.h) holds
 *   sweep.json    the plan and the state of every run (status, folder, time)
 *   runs/         one `ppbench run` results folder per configuration and repeat
 *   logs/         each run's stdout and stderr
 *   summary.csv   one row per configuration and repeat (struct sweep_row); a
 *                 configuration is workers x batch x GPUs x loader policy
 *   figures/      data/ (the CSVs the plots/ scripts draw), PNG and SVG files,
 *                 paper/ (the Lotus paper's data drawn by the same scripts)
 *   report.md, report.html
 *
 * Everything here runs after the measurements: it allocates freely and
 * never touches a measured region. Errors: -1 with err, git style. */
#ifndef PPBENCH_REPORT_H
#define PPBENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "stats.h"

struct json_t;
struct sweep_config;

#include "knee.h"
#include "sweep_row.h"

/* A loaded sweep: one sweep folder, or several judged together (for
 * example the paper's two experiments, as `make reproduce` runs them). */
#define SWEEP_MAX_PARTS 8
struct sweep_part {
	char dir[2048];               /* the sweep folder */
	char name[256];               /* its last path component */
	struct json_t *doc;           /* its sweep.json, owned (NULL when read from a CSV) */
};

struct sweep {
	char dir[2048];               /* where summary.csv, figures/ and the report go */
	struct json_t *doc;           /* parts[0].doc */
	size_t nparts;
	struct sweep_part parts[SWEEP_MAX_PARTS];
	int cpus;                     /* CPUs its runs could use (machine.cpus_usable, else
					 cpus_online; 0: unknown) */
	int model;                    /* --model on: the model's lines beside the measured ones
					 in the figures against workers (ppbench model) */
	size_t nrows;
	struct sweep_row *rows;       /* plan order, part after part */
};

/* ---- the table ----------------------------------------------------------*/

/* Read dir/sweep.json and every run's summary.json (the run folders named
 * in it). s is overwritten; free with sweep_free. */
int sweep_load(struct sweep *s, const char *dir, char *err, size_t errlen);
/* Several sweep folders as one (configurations numbered on), reported in
 * out. */
int sweep_load_many(struct sweep *s, char *const *dirs, size_t n, const char *out,
		    char *err, size_t errlen);
/* The path of file in the run folder of r ("" file: the folder). */
void sweep_run_path(const struct sweep *s, const struct sweep_row *r, const char *file,
		    char *out, size_t n);
void sweep_free(struct sweep *s);

/* summary.csv: header then one row per run: the identity columns, one
 * column per row of metric_table, then op_<id>_<name> for every row of
 * op_metric_table and the union of ops, in order of first appearance. */
int sweep_write_csv(const struct sweep *s, const char *path, char *err, size_t errlen);
/* Read a summary.csv back into s (no doc; cpus = 0). Unknown columns are
 * ignored, missing ones stay NaN. */
int sweep_read_csv(struct sweep *s, const char *path, char *err, size_t errlen);

/* ---- verdicts -------------------------------------------------------------
 *
 * The five findings of the Lotus study, each judged by a pure function of
 * the rows (bench/report/findings.c: only ok rows count; repeats of a configuration
 * are combined by their median, bench/results/repeats.h), by a stated rule
 * (REPORT_RULE_*, which the report prints). Every figure of the paper a
 * verdict quotes is computed from the reference tables
 * (datasets/reference/lotus/figures/) by the same code as this machine's.
 *
 * Every finding rests only on configurations with at least
 * REPORT_MIN_BATCHES batches; findings 2 and 3 on the configurations that
 * were not oversubscribed (more busy threads than usable CPUs) when there
 * are any, the others shown apart. */
enum verdict {
	VERDICT_HOLDS,
	VERDICT_DOES_NOT_HOLD,
	VERDICT_CANNOT_JUDGE,
};

/* One comparison of a figure with a rule's threshold that a verdict makes,
 * judged on its interval: the same figure in each repeat judged alone
 * (finding_judge), against the threshold by stats_judge. */
enum test_role {
	TEST_VALUE,                   /* recorded only: the same figure in another repeat */
	TEST_KNEE,                    /* says where the knee is, not whether the finding holds */
	TEST_DECIDES,                 /* the verdict turns on it */
};
#define FINDING_MAX_TESTS 24
struct finding_test {
	char key[32];                 /* the same in every repeat judged alone ("step 2 3") */
	char what[96];                /* in words ("the step from 2 to 3 workers' E2E gain") */
	char unit[8];                 /* "%" or "x" */
	double value;                 /* over all repeats (what the verdict used) */
	double target;                /* the rule's threshold */
	int at_most;                  /* the rule asks value <= target; else value >= target */
	enum test_role role;
	struct stats_summary rep;     /* the value in each repeat judged alone (n 0: one repeat) */
	enum stats_target judged;     /* rep against target; TARGET_UNKNOWN under 2 repeats */
};

struct finding {
	enum verdict v;
	char why[2560];               /* sentences with the figures, the paper's, the support */
	int knee_workers;             /* finding 4: the knee (0: none) */
	int judged;                   /* a rule was applied (not "cannot be judged") */
	int oversubscribed;           /* every run it rests on was oversubscribed */
	int repeats, agree;           /* repeats in the sweep; how many judged alone agree */
	size_t ntests;
	struct finding_test tests[FINDING_MAX_TESTS];
	int within_noise;             /* a deciding comparison is within noise */
};

const char *verdict_name(enum verdict v);   /* "holds", "does not hold", "cannot be judged here" */

/* the paper's findings the report judges, in order: short ops, variance,
 * out-of-order arrival, diminishing returns, tracing overhead */
#define REPORT_NFINDINGS 5
#define REPORT_MIN_BATCHES 8
/* finding 1: a run whose ops were on a CPU under this share of their wall
 * time (the rest waiting for one) cannot show that they are short */
#define REPORT_MIN_ONCPU_SHARE 0.5
/* other processes above this share of the CPUs during a run: the report warns */
#define REPORT_BUSY_PCT 10.0

/* The noise guard's judgement of one run, for the verdicts: did other load
 * take CPU time the run wanted? Busy when the hypervisor stole over
 * REPORT_BUSY_PCT % of its CPUs, or when other processes took over
 * REPORT_BUSY_PCT % and the run's ops were descheduled more than its own
 * threads explain: on a CPU for less than (100 - REPORT_BUSY_PCT) % of the
 * share min(1, CPUs / busy threads) its own threads leave them (--counters:
 * cpu.ops_oncpu_s over cpu.ops_span_s; without it, others over
 * REPORT_BUSY_PCT % is enough). Others that took only CPU time the run left
 * (a run at a raised priority, one with fewer busy threads than CPUs) do not
 * make it busy. cpus: the CPUs when the row does not say. why (NULL: not
 * wanted): the figures in words. 1 busy, 0 not. */
int report_run_busy(const struct sweep_row *r, int cpus, char *why, size_t n);
/* What r's op spans would have been without the other load, over what they
 * were: the share of its ops' wall time they were on a CPU over the share
 * its own threads leave them (at most 1; *own that share, may be NULL);
 * NaN when not known (--counters none). Finding 4 judges a busy sweep's
 * spans at it, and its E2E on replays (model_replay_quiet). */
double report_run_quiet_scale(const struct sweep_row *r, int cpus, double *own);
/* The share of r's ops' wall time they were on a CPU (cpu.ops_oncpu_s over
 * cpu.ops_span_s; NaN when not counted). */
double report_run_oncpu_share(const struct sweep_row *r);
#define REPORT_RULE_SHORT_OPS \
	"holds when, in the run with the fewest workers (Table II used 1) among those with at " \
	"least 8 batches, every per-sample op (all but collation and the whole-transform span) " \
	"has at least 90 % of its calls under 10 ms, and random_horizontal_flip has at least " \
	"90 % under 100 us; each call's share is of its wall time, or, when the noise guard saw " \
	"other load take CPU time that run wanted (report_run_busy) or the run had more busy " \
	"threads than CPUs (oversubscribed), of its own time on a CPU " \
	"(--counters: the task-clock between the reads around the call), which waits for a CPU " \
	"do not stretch; cannot be judged without a decode op in the pipeline, nor when that " \
	"run was busy, its calls' time on a CPU was not counted and a wall-time share fails"
#define REPORT_RULE_VARIANCE \
	"over configurations with at least 8 batches (without oversubscription where there are " \
	"any), holds when the median per-batch preprocessing std is at least half the paper's " \
	"lowest (computed from its table, after the same low-tail cut), and, when the sweep has " \
	"several batch sizes, the IQR at the largest batch is larger than at the smallest"
#define REPORT_RULE_OUT_OF_ORDER \
	"over configurations with 2 or more workers and at least 8 batches (without " \
	"oversubscription where there are any), holds when the median out-of-order share and " \
	"the median stall are each at least half the paper's lowest figure over its 2+ worker " \
	"configurations (computed from its table)"
#define REPORT_RULE_DIMINISHING \
	"at a fixed batch size and GPU count with at least 3 worker counts of at least 8 batches " \
	"each, the knee is the smallest W whose next step gains under 5 % of E2E; holds when the " \
	"knee is above the smallest W (adding workers helped, then stopped helping) and the sum " \
	"of op spans rises from the smallest to the largest W; cannot be judged when the smallest " \
	"W already has as many workers as the runs could use CPUs; runs the noise guard saw " \
	"other load take CPU time from (report_run_busy) are left out; when a worker count has " \
	"no other run, every run of the group is judged on the model's replay of it without " \
	"that load (its ops' own time on a CPU, time-sliced on the CPUs it could use), and it " \
	"cannot be judged when a run has no replay"
#define REPORT_RULE_OVERHEAD \
	"needs the same configuration with tracing off and on, interleaved (make bench); a " \
	"sweep only gives the tracer's per-event cost"

/* The figures of findings 2-4 over a set of configurations: the same
 * functions compute this machine's and the paper's. */
struct variance_figs {
	size_t k;                     /* configurations */
	struct stats_summary std_pct; /* per-batch std, % of the mean */
	int bmin, bmax;               /* smallest and largest batch */
	double iqr_growth;            /* mean IQR at bmax over that at bmin (NaN: one batch) */
	double iqr_ratio;             /* largest over smallest IQR across the configurations */
};
struct ooo_figs {
	size_t k;                     /* configurations (2+ workers) */
	struct stats_summary ooo, stall;
	size_t k512;                  /* of which at b512 */
	struct stats_summary wait500, delay500;
};
#define DIM_MAX 64
struct dim_figs {
	size_t n;                     /* worker counts in the group (0: none) */
	int part, batch_size, gpus;
	int workers[DIM_MAX];
	double e2e[DIM_MAX], span[DIM_MAX];
	int knee;                     /* by the rule (0: none) */
	size_t ki;                    /* its index */
	double drop_pct;              /* E2E from the first W to the knee, % */
	double drop_all_pct;          /* from the first W to the last */
	double span_rise_pct;         /* the sum of op spans from the first W to the last */
};

/* The paper's figures, from the reference tables. */
struct paper {
	int ok;
	char why[256];                /* not ok: why */
	double t2_under10_lo, t2_under10_hi;   /* Table II: per-sample ops under 10 ms, % */
	double t2_flip_under100us;    /* Table II: the flip under 100 us, % */
	struct variance_figs variance;  /* Figs. 4-5 grid */
	double iqr_ratio_quoted;      /* lotus_ic_quoted.csv: largest over smallest IQR */
	struct ooo_figs ooo;          /* Figs. 4-5 grid, 2+ workers */
	struct dim_figs dim;          /* Fig. 6 */
	double overhead_full_pct, overhead_subset_pct;  /* LotusTrace's overhead */
	double fe_w8_pct, fe_w28_pct; /* lotus_ic_quoted.csv: decode's front-end-bound share */
};

/* Load the paper's figures from top/datasets/reference/lotus/figures/ (top
 * from find_top, fsutil.h; NULL: not found). 0, or -1 with err (p->ok = 0). */
int paper_load(const char *top, struct paper *p, char *err, size_t errlen);

/* What a finding is judged with: the CPUs the runs could use (0: unknown),
 * and the paper's figures (NULL or not ok: the findings that state their
 * rule against them cannot be judged). */
struct judge_ctx {
	int cpus;
	const struct paper *paper;
};

typedef void (*finding_fn)(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
			   struct finding *f);
/* Appends printf-style text to f->why (the verdict's reasons), as far as it fits. */
void finding_why_add(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void finding_short_ops(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		       struct finding *f);
void finding_variance(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		      struct finding *f);
void finding_out_of_order(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
			  struct finding *f);
void finding_diminishing(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
			 struct finding *f);
void finding_overhead(const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		      struct finding *f);
/* fn on every row, then on each repeat alone: f says in how many repeats
 * the verdict is the same ("holds in 3 of 3 repeats judged alone"), and
 * each comparison of f->tests is judged on its interval over the repeats
 * judged alone: one within noise is said to be so, with what more repeats
 * would settle when the verdict turns on it (f->within_noise); with one
 * repeat, that the verdict rests on one measurement per configuration. */
void finding_judge(finding_fn fn, const struct sweep_row *r, size_t n, const struct judge_ctx *cx,
		   struct finding *f);

/* What a sweep can judge before it runs (ppbench sweep's plan): the rows
 * r[0..n) are its configurations as planned (workers, batch, GPUs, policy,
 * config, status ok, batches = the batches each run will have), cpus the
 * CPUs the runs can use, has_decode whether the pipeline has a decode op.
 * For each finding: whether it can be judged, on how many configurations,
 * and why (the rules' needs: REPORT_MIN_BATCHES batches, 2+ workers, 3
 * worker counts at a batch and GPU count below the CPUs...); mask[i] (may be
 * NULL): the findings row i counts for (bit k: finding k + 1). */
struct plan_finding {
	int can;
	size_t k;                     /* configurations it would rest on */
	char why[320];
};
void report_plan_findings(const struct sweep_row *r, size_t n, int cpus, int has_decode,
			  struct plan_finding pf[REPORT_NFINDINGS], unsigned *mask);

/* A run has enough batches for a finding (REPORT_MIN_BATCHES; unknown: yes). */
int report_enough_batches(const struct sweep_row *r);
/* It had more busy threads than usable CPUs (its cpu.oversubscribed; for
 * older runs, workers > cpus). */
int report_oversubscribed(const struct sweep_row *r, int cpus);
/* The run closest to Table II's setting (b128, 1 worker): the fewest
 * workers, then the batch closest to 128 (log scale), then plan order,
 * among the ok runs (need_batches: with enough batches; finding 1 is
 * judged on it). -1 if none. */
long report_table2_row(const struct sweep_row *r, size_t n, int need_batches);

/* Finding 4 (diminishing returns) is judged on the sweep part, batch size
 * and GPU count with the most worker counts (finished, with enough
 * batches), the largest batch among equals: one of its configurations
 * (an index into a), or -1 if none. Fig. 6b is drawn there too. */
long report_dim_config(const struct sweep_config *a, size_t na);


/* The loader policy of r ("torch" when the run did not say). */
const char *sweep_row_policy(const struct sweep_row *r);

/* ---- figures and report ---------------------------------------------------*/


/* What became of one figure. */
#define REPORT_MAX_FIGS 24
struct fig_status {
	char name[64];        /* "fig6a_e2e_vs_workers", "paper/fig6a_e2e_vs_workers" */
	int drawn;            /* figures/<name>.png and .svg were written */
	int failed;           /* not drawn although its data was there (gnuplot
	                       * failed or is missing: plot_summary() names it) */
	char why[320];        /* not drawn: why (the report prints it) */
};

/* dir/figures and dir/figures/data (and figures/paper with paper), made
 * when missing. A symbolic link or a file in their place is refused:
 * ppbench never writes through a symbolic link into another folder. 0, or
 * -1 with err. */
int report_fig_dirs(const char *dir, int paper, char *err, size_t errlen);

/* Write the data files under figures/data/, then draw figures/NAME.png and
 * .svg with gnuplot (and figures/paper/NAME: the paper's data with the same
 * scripts). Figures that the sweep's dimensions do not support are not
 * drawn; st[0..*n) says, for every figure, whether it was drawn or why not.
 * 0, or -1 with err when the data files cannot be written. A missing
 * gnuplot is not an error: every figure says so. */
int report_figures(const struct sweep *s, struct fig_status *st, size_t max, size_t *n,
		   char *err, size_t errlen);

/* The fused what-if section (report_whatif.c): sweep.json's "fused_whatif"
 * of each part as the CPU cores per GPU a user would need faithful and
 * fused, and save, at the sweep's GPU demand. Nothing without it. */
struct doc;
void report_whatif_section(struct doc *d, const struct sweep *s);
/* Its parts, shared with ppbench merge's per-machine what-if: */
/* the section's heading and the paragraph saying what the what-if is */
void report_whatif_intro(struct doc *d);
/* "1.23 [1.10, 1.31]" (median [95 % interval]) of w[key]'s per-round
 * values x scale, with fmt; ", within noise" after a saving whose interval
 * holds 0 */
void report_whatif_cell(struct json_t *w, const char *key, double scale, const char *fmt,
			char *out, size_t n);
/* The GPU step in s of the first ok run of batch b and g GPUs in part p
 * (its summary.json options.gpu_step_ns), NaN when unknown. */
double report_gpu_step_s(const struct sweep *s, int p, int b, int g);
/* The cells under report_whatif_demand_hdr of batch b, g GPUs and a GPU
 * step step_s (NaN or 0: per 1,000 images/s): the images/s one GPU
 * consumes and the cores it needs faithful, fused, and saved. */
#define REPORT_WHATIF_CELL 96
#define REPORT_WHATIF_DEMAND_COLS 7
extern const char *const report_whatif_demand_hdr[REPORT_WHATIF_DEMAND_COLS];
void report_whatif_demand_cells(struct json_t *w, int b, int g, double step_s,
				char (*c)[REPORT_WHATIF_CELL]);

/* Write summary.csv, the figures, report.md and report.html into s->dir. */
int report_write(const struct sweep *s, char *err, size_t errlen);

/* ---- shared by the report's files -----------------------------------------
 * report_table.c (rows, loading, summary.csv), report_figures.c, report.c
 * (a sweep's report), report_run.c (a run's report), cmd_report.c. */

/* ---- reading a run's files, checked (every reader of results folders) -------
 * Each file is checked for its type and size before it is read (a FIFO
 * cannot hang a reader) and for its shape after: a run whose files cannot
 * be read is marked (struct sweep_row's problem, status RUN_UNREADABLE),
 * never shown as ok with every figure unknown. */

/* A run's summary.json: json_load_regular (fsutil.h: a regular file of at
 * most FILE_MAX_DOC), and a JSON object with "complete". New reference, or
 * NULL with why ("not a JSON object", "line 3: ...", "not a regular file
 * (a FIFO)") and errno as json_load_regular sets it (ENOENT: no file; 0:
 * read but not a run's summary). */
struct json_t *summary_read(const char *path, char *why, size_t whylen);
/* A run's batches.csv: a regular file with batches.csv's columns, every
 * row whole with a batch number, and `batches` rows (NaN: not checked). 0,
 * or -1 with why ("row 5 has 3 of 14 fields"). */
int batches_csv_check(const char *path, double batches, char *why, size_t whylen);
/* A run entry of sweep.json whose values will reach paths: its tag a plain
 * name (results_tag_check, not empty), its run_dir "" or runs/<plain name>,
 * its workers, batch size and GPUs numbers. 0, or -1 with why. */
int sweep_entry_check(struct json_t *e, char *why, size_t whylen);

/* path exists (stat succeeds) */
int file_exists(const char *path);
/* Reports, plots and a sweep's own report of one folder write summary.csv,
 * figures/ and report.* one at a time: an exclusive lock on
 * dir/.report.lock, waited for. The fd to give report_unlock, or -1 when
 * the lock file cannot be made (nothing locked: the writes say why). */
int report_lock(const char *dir);
void report_unlock(int fd);
/* Trailing slashes removed (not the root's). */
void strip_slashes(char *p);
/* The names of the ops of rows r[0..n) in first-seen order, at most max. */
size_t op_union(const struct sweep_row *r, size_t n, char (*names)[40], size_t max);
/* A figure (its offset in struct sweep_op) of an op in a configuration,
 * the repeats combined; NaN if the op is not there. */
double agg_op(const struct sweep_config *a, const char *op, size_t off);
/* A configuration's label: "w4 b128 g2" ("2: w4 b128 g2" with several sweeps). */
void agg_label(const struct sweep *s, const struct sweep_config *a, char *out, size_t n);
/* v with prec decimals into buf, "n/a" when not finite; buf. */
const char *report_num(char *buf, size_t n, double v, int prec);

/* Figs. 6e-h: a derived counter per op against workers. */
#define NCOUNTER_FIGS 4
struct counter_fig {
	const char *fig, *col, *title, *ylabel;
	const char *events, *preset;   /* the hardware events it needs, the --counters preset */
	size_t off;   /* in struct sweep_op */
};
extern const struct counter_fig counter_figs[NCOUNTER_FIGS];

/* The figures of single runs, a sweep's and a run report's (Table II's CDF,
 * Figs. 4, 5a, 5b) into figdir, data in datadir, gnuplot's output in log;
 * top is the repository (NULL: not found). 0, or -1 with err. */
int draw_run_figures(const struct sweep *s, const char *top, const char *figdir,
		     const char *datadir, const char *log, struct fig_status *st, size_t max,
		     size_t *nst, char *err, size_t errlen);

/* A run folder (summary.json, no sweep.json)? */
int is_run_dir(const char *dir);
/* The run folders dirs[0..n) and their repeats as a sweep s (its rows), the
 * first's summary.json in *sum. 0, or -1 with err. */
int report_run_load(struct sweep *s, char **dirs, size_t n, struct json_t **sum, char *err,
	     size_t errlen);
/* ppbench report RUN_DIR...: the report of one run into its folder. */
int cmd_report_run(char **dirs, size_t n);

/* The common parent folder of the sweep folders dirs[0..n) into out (where
 * several sweeps' report goes); -1 (said) when they have different
 * parents. */
int report_common_parent(char **dirs, size_t n, char *out, size_t outlen);

#endif
