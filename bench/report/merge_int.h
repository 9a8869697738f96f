/* The parts of ppbench merge (merge_read.c, analyse.c, merge_csv.c,
 * merge_figures.c, merge_doc.c, merge.c) share these; the command's
 * interface is merge.h. */
#ifndef PPBENCH_MERGE_INT_H
#define PPBENCH_MERGE_INT_H

#include <stddef.h>
#include <stdio.h>
#include "merge.h"
#include "report.h"
#include "sweep_row.h"

struct doc;

#define MAX_OPS MERGE_MAX_OPS
#define MAX_SERIES 64             /* (batch, GPUs) pairs of the compared configurations */

/* one configuration: workers, batch size, GPUs */
struct conf {
	int workers, batch_size, gpus;
};

/* one sweep folder */
struct folder {
	char dir[2048];
	char name[256];
	struct sweep sw;
	char host[256], cpu[256];
	/* what, besides the host, makes a machine: the CPUs the runs could use
	 * (their list, and how many a cgroup quota left usable), SMT, the
	 * governor, the kernel, and the sweep's --label */
	char cpulist[64], usable[32], smt[8], gov[32], kernel[96];
	char ident[256], label[128];
	int cpus, cores, cores_known;
	double usable_cpus;           /* machine.cpus_usable as recorded (a quota may make it 0.5); NaN: not recorded */
	char version[64];
	char ds_fp[128], ds_path[1024];
	char ds_origin[160];          /* profile, generator version, seed; "" if not recorded */
	double ds_images, ds_bytes;
	char pipeline[512], run_args[1024], cache[16];
	char slurm[256];              /* "job 12_3, partition p, constraint c" */
	int nruns, nok;
	int running;                  /* a sweep still holds its .lock */
	char pending[512];            /* the tags of its runs not finished yet */
	int npending;
	int compared;
	char why[1536];               /* not compared: what differed */
	int machine;                  /* index into the machines, -1: not compared */
};

/* the model at one configuration (--model on) */
struct model_point {
	double e2e_s, images_per_s, gpu_util_pct;   /* NaN: not modelled */
	int src_workers;              /* the workers of the run it was modelled from */
};

/* one machine: the compared folders that share a host name (or a CPU model) */
struct machine {
	char key[384], label[320], hosts[512], cpu[256];
	int cpus, cores, cores_known;
	double usable_cpus;           /* as in struct folder */
	double price;                 /* USD per hour, NaN: not given */
	size_t nrows;
	struct sweep_row *rows;       /* the runs of its folders */
	size_t nown;
	struct conf *own;             /* configurations with an ok run */
	struct merge_point *ownpt;    /* [nown] */
	struct merge_point *pt;       /* [noverlap] */
	long best, own_best;          /* in pt / ownpt (best: among the clean ones when
					 there are any); -1: none */
	int best_clean;               /* best is clean (merge_point_clean) */
	struct finding knee[MAX_SERIES];   /* the knee of each series (struct merge.bg) */
	struct model_point *mod;      /* [noverlap], --model on */
	char model_why[512];          /* a series that could not be modelled: why */
};

struct fig {
	char name[64];
	char title[160];
	int drawn;
	char why[320];
};

struct merge {
	const char *out;
	int by_cpu;
	size_t nfolders;
	struct folder *folders;
	size_t nmach;
	struct machine *mach;
	size_t noverlap;
	struct conf *overlap;
	size_t nbg;
	struct conf bg[MAX_SERIES];   /* the (batch, GPUs) series of the overlap (w = 0) */
	int model;                    /* --model on: the model's lines beside the measured ones */
	size_t nops;
	char ops[MAX_OPS][40];
	long op_conf;                 /* overlap index the per-op figure shows, -1: none */
	int max_wcounts;              /* most worker counts at one (batch, GPUs) of the overlap */
	size_t nfigs;
	struct fig figs[8];
	char top[4096];
};

/* append to a string buffer (cut when full) */
void merge_cat(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* line ends and other control characters would break a line of the report
 * (CSV fields are quoted and escaped by csv_put, table cells by doc.c) */
void merge_clean(char *s);

int merge_ok_row(const struct sweep_row *r);

/* the sweep's order: batch, GPUs, then workers */
int merge_conf_cmp(const void *x, const void *y);

void merge_conf_name(const struct conf *c, char *out, size_t n);

long merge_conf_find(const struct conf *v, size_t n, const struct conf *c);

const char *merge_num(char *buf, size_t n, double v, const char *fmt);

/* The identity and the machine of a loaded folder. */
void merge_describe(struct folder *f);

/* Add dir (a sweep folder), or the sweep folders inside it. 0, or -1 with err. */
int merge_add_dir(struct merge *m, const char *dir, char *err, size_t errlen);

void merge_ds_text(const struct folder *f, char *out, size_t n);

/* The largest group of folders with the same identity (ties: the first
 * named) is compared; the others are not, with what differed. Folders with
 * no ok run are not compared either. Returns the reference folder, -1 if
 * none has an ok run. */
long merge_choose_compared(struct merge *m);

int merge_build_machines(struct merge *m, char *err, size_t errlen);

/* images/s per core of a point's images/s (NaN figures when the cores are unknown) */
struct stats_summary merge_per_core(const struct machine *mc, const struct merge_point *p);

int merge_analyse(struct merge *m, char *err, size_t errlen);

int merge_apply_prices(struct merge *m, char **names, double *usd, size_t n, char *err,
			size_t errlen);

/* The machine with the highest median images/s at its best configuration
 * among those whose best is clean (none: among all); -1 if none. */
long merge_fastest(const struct merge *m, int need_clean);

/* USD per million images at a point: from the median, and lo/hi from the
 * images/s interval (the cost falls as images/s rise) */
void merge_cost_of(const struct machine *mc, const struct merge_point *p, double *med,
		    double *lo, double *hi);

void merge_put_num(FILE *f, double v);

/* ",median,lo,hi" of s (empty when not known) */
void merge_put_spread(FILE *f, const struct stats_summary *s);

/* "ci95" or "min-max": what lo and hi are */
const char *merge_interval_name(const struct stats_summary *s);

/* the series (index in m->bg) of configuration c, -1 if none */
long merge_series_of(const struct merge *m, const struct conf *c);

/* summary.csv: the sweep's columns (sweep_write_csv) after host columns */
int merge_write_summary(const struct merge *m, const char *path, char *err, size_t errlen);

int merge_write_comparison(const struct merge *m, const char *path, char *err, size_t errlen);

/* --model on: each machine at each compared configuration, modelled
 * (ppbench model) from its series' run with the fewest workers: its costs,
 * settings and machine (model_like_run). Fills mc->mod; a series that
 * cannot be modelled says why in mc->model_why. */
int merge_model_machines(struct merge *m, char *err, size_t errlen);

int merge_write_fig_data(const struct merge *m, const char *dir, char *err, size_t errlen);

void merge_draw_figures(struct merge *m);

void merge_figure(struct doc *d, const struct fig *fg);

void merge_conf_list(const struct conf *c, size_t n, char *out, size_t len);

int merge_write_report(struct merge *m, long ref, char *err, size_t errlen);

void merge_free(struct merge *m);

/* The merge folder: summary.csv, comparison.csv, figures/, the report. 0,
 * or -1 (said). */
int merge_write(struct merge *m, long ref, char *outbuf, size_t outlen);

#endif
