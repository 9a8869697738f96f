/* The figures of a report: their data files (figures/data/) and gnuplot drawing
 * them with the plots/ scripts, the paper's data beside this machine's. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "analysis.h"
#include "conventions.h"
#include "counters.h"
#include "emit.h"
#include "csv.h"
#include "doc.h"
#include "escape.h"
#include "log.h"
#include "fsutil.h"
#include "metrics.h"
#include "model.h"
#include "repeats.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "trace.h"


/* ---- figures ----------------------------------------------------------- */

/* A data file created anew (a file or a symbolic link there is replaced,
 * never written through). NULL with errno. */
static FILE *fig_create(const char *path)
{
	if (unlink(path) && errno != ENOENT)
		return NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* dir/sub: a folder, made when missing; a symbolic link or a file there is
 * refused. 0, or -1 with err. */
static int fig_dir(const char *dir, const char *sub, char *err, size_t errlen)
{
	char p[4096];
	struct stat st;

	errf(p, sizeof(p), "%s/%s", dir, sub);
	if (lstat(p, &st) && errno == ENOENT && mkdir(p, 0777) && errno != EEXIST) {
		errf(err, errlen, "cannot create '%s': %s", p, strerror(errno));
		return -1;
	}
	if (lstat(p, &st)) {
		errf(err, errlen, "cannot read '%s': %s", p, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		errf(err, errlen, "'%s' is a symbolic link: ppbench never writes through one (its "
		     "figures would overwrite the files where it points); remove the link and run "
		     "the command again", p);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errf(err, errlen, "'%s' is %s, not a folder: remove it and run the command again", p,
		     file_kind(st.st_mode));
		return -1;
	}
	return 0;
}

int report_fig_dirs(const char *dir, int paper, char *err, size_t errlen)
{
	if (fig_dir(dir, "figures", err, errlen) || fig_dir(dir, "figures/data", err, errlen))
		return -1;
	return paper ? fig_dir(dir, "figures/paper", err, errlen) : 0;
}

/* Series of configurations for a chart against workers (x = workers) or
 * batch size (x = batch). Against workers a series is one (batch, GPUs)
 * pair, or one batch size when workers and GPUs move together (the paper's
 * grid, workers = GPUs); against batch size a series is one (workers,
 * GPUs) pair. */
struct seriesing {
	int by_batch;                 /* 1: x = batch */
	int nparts;                   /* > 1: labels name the part */
	int npol;                     /* > 1: a series per policy, labels name it */
	int tied[SWEEP_MAX_PARTS];    /* the part's configurations all have workers ==
					 gpus, with several GPU counts */
};

/* k[0..NKEY-2] name the series, k[NKEY-1] is x */
#define NKEY 5
static void series_key(const struct seriesing *z, const struct sweep_config *a, int k[NKEY])
{
	k[0] = a->part;
	k[3] = a->pol;
	if (z->by_batch) {
		k[1] = a->workers;
		k[2] = a->gpus;
		k[4] = a->batch_size;
	} else {
		k[1] = a->batch_size;
		k[2] = z->tied[a->part] ? 0 : a->gpus;
		k[4] = a->workers;
	}
}

/* k starts another series than prev (and prev becomes k) */
static int new_series(const int k[NKEY], int prev[NKEY])
{
	if (!memcmp(k, prev, (NKEY - 1) * sizeof(int)))
		return 0;
	memcpy(prev, k, NKEY * sizeof(int));
	return 1;
}

static int cmp_series(const void *x, const void *y, void *ctx)
{
	int kx[NKEY], ky[NKEY];
	series_key(ctx, x, kx);
	series_key(ctx, y, ky);
	for (int i = 0; i < NKEY; i++)
		if (kx[i] != ky[i])
			return (kx[i] > ky[i]) - (kx[i] < ky[i]);
	return 0;
}

static void series_label(const struct seriesing *z, const struct sweep_config *a, char *out, size_t n)
{
	char pre[16] = "";
	int tied = z->tied[a->part];

	if (z->nparts > 1)
		snprintf(pre, sizeof(pre), "%d: ", a->part + 1);
	if (z->by_batch) {
		if (tied)
			snprintf(out, n, "%sworkers = GPUs = %d", pre, a->workers);
		else
			snprintf(out, n, "%s%d worker%s / %d GPU%s", pre, a->workers,
				 a->workers == 1 ? "" : "s", a->gpus, a->gpus == 1 ? "" : "s");
	} else if (tied) {
		snprintf(out, n, "%sb%d / workers = GPUs", pre, a->batch_size);
	} else {
		snprintf(out, n, "%sb%d / %d GPU%s", pre, a->batch_size, a->gpus, a->gpus == 1 ? "" : "s");
	}
	if (z->npol > 1) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, " / %s", a->policy);
	}
}

/* every configuration of the part has workers == gpus, with several GPU counts */
static int is_tied(const struct sweep_config *a, size_t n, int part)
{
	int g0 = -1, several = 0;
	for (size_t i = 0; i < n; i++) {
		if (a[i].part != part)
			continue;
		if (a[i].workers != a[i].gpus)
			return 0;
		if (g0 < 0)
			g0 = a[i].gpus;
		several |= a[i].gpus != g0;
	}
	return several;
}

static void seriesing_init(struct seriesing *z, int by_batch, const struct sweep *s,
			   const struct sweep_config *a, size_t n)
{
	memset(z, 0, sizeof(*z));
	z->by_batch = by_batch;
	z->nparts = (int)s->nparts;
	for (size_t i = 0; i < n; i++)
		if (a[i].pol + 1 > z->npol)
			z->npol = a[i].pol + 1;
	for (size_t p = 0; p < s->nparts && p < SWEEP_MAX_PARTS; p++)
		z->tied[p] = is_tied(a, n, (int)p);
}

static void csv_real(FILE *f, double v)
{
	fputc(',', f);
	metric_put_num(f, v);
}

/* Writes the aggregated configurations as series (a sorted copy). Returns
 * the largest number of points of a series; *best_series gets the series
 * with the most points (the first of equals) and its first agg in *best. */
void agg_label(const struct sweep *s, const struct sweep_config *a, char *out, size_t n)
{
	if (s->nparts > 1)
		snprintf(out, n, "%d: w%d b%d g%d", a->part + 1, a->workers, a->batch_size, a->gpus);
	else
		snprintf(out, n, "w%d b%d g%d", a->workers, a->batch_size, a->gpus);
}

static int write_vs(FILE *f, struct sweep_config *a, size_t n, const struct seriesing *z,
		    int *best_series, struct sweep_config **sorted)
{
	struct sweep_config *s = malloc((n ? n : 1) * sizeof(*s));
	int *size = calloc(n + 2, sizeof(int));
	int series = 0, out = 0, maxpts = 0, pts = 0, prev[NKEY] = { -1, -1, -1, -1, -1 };
	char label[128];

	*sorted = s;
	if (!s || !size) {
		free(size);
		return -1;
	}
	memcpy(s, a, n * sizeof(*s));
	qsort_r(s, n, sizeof(*s), cmp_series, (void *)z);
	/* points per series: a series of one point draws no line and is left out */
	for (size_t i = 0; i < n; i++) {
		int k[NKEY];
		series_key(z, &s[i], k);
		if (new_series(k, prev))
			series++;
		size[series]++;
	}
	series = 0;
	for (int i = 0; i < NKEY; i++)
		prev[i] = -1;
	fprintf(f, "series,series_label,workers,batch,gpus,runs,e2e_s,e2e_min_s,e2e_max_s,ops_span_s,"
		   "ooo_pct,stall_pct,gpu_util_pct,images_per_s,wait_gt_500ms_pct,"
		   "delay_gt_500ms_pct,preproc_avg_ms,preproc_std_pct,policy\n");
	for (size_t i = 0; i < n; i++) {
		int k[NKEY];
		series_key(z, &s[i], k);
		if (new_series(k, prev)) {
			series++;
			pts = 0;
			out += size[series] > 1;
		}
		pts++;
		if (pts > maxpts) {
			maxpts = pts;
			*best_series = series;
		}
		if (size[series] < 2)
			continue;
		series_label(z, &s[i], label, sizeof(label));
		fprintf(f, "%d,", out);
		plot_csv_text(f, label);
		fprintf(f, ",%d,%d,%d,%d", s[i].workers, s[i].batch_size, s[i].gpus, s[i].n);
		csv_real(f, s[i].c.r.e2e_s);
		csv_real(f, s[i].c.sp[metric_find("e2e_s") - metric_table].min);
		csv_real(f, s[i].c.sp[metric_find("e2e_s") - metric_table].max);
		csv_real(f, s[i].c.r.ops_span_s);
		csv_real(f, s[i].c.r.ooo_pct);
		csv_real(f, s[i].c.r.stall_pct);
		csv_real(f, s[i].c.r.gpu_util_pct);
		csv_real(f, s[i].c.r.images_per_s);
		csv_real(f, s[i].c.r.wait_gt_500ms_pct);
		csv_real(f, s[i].c.r.delay_gt_500ms_pct);
		csv_real(f, s[i].c.r.preproc_avg_ms);
		csv_real(f, s[i].c.r.preproc_std_pct);
		fputc(',', f);
		plot_csv_text(f, s[i].policy);
		fputc('\n', f);
	}
	free(size);
	return maxpts;
}

/* --model on: after the measured series of vs_workers.csv (sorted s, n),
 * one "model: <label>" series per measured series of 2+ worker counts: each
 * count modelled from the series' run with the fewest workers (its costs,
 * settings and machine: ppbench model, validation 2's model). Other
 * figures' columns are left empty. */
static void write_vs_model(FILE *f, const struct sweep *sw, const struct sweep_config *s, size_t n,
			   const struct seriesing *z)
{
	int prev[NKEY] = { -1, -1, -1, -1, -1 }, out = 0;
	size_t start = 0;
	char label[128], dir[4096], err[512];

	/* the measured series' count, as write_vs numbered them */
	for (size_t i = 0; i <= n; i++) {
		int k[NKEY];
		if (i < n)
			series_key(z, &s[i], k);
		if (i == n || new_series(k, prev)) {
			if (i > start + 1)
				out++;
			start = i;
		}
	}
	for (int i = 0; i < NKEY; i++)
		prev[i] = -1;
	start = 0;
	for (size_t i = 0; i <= n; i++) {
		int k[NKEY];
		if (i < n)
			series_key(z, &s[i], k);
		if (i < n && !new_series(k, prev))
			continue;
		if (i > start + 1) {
			/* s[start..i): one series, sorted by workers */
			sweep_run_path(sw, &sw->rows[s[start].first], "", dir, sizeof(dir));
			series_label(z, &s[start], label, sizeof(label));
			out++;
			for (size_t j = start; j < i; j++) {
				struct run_metrics m;
				if (model_like_run(dir, s[j].workers, &m, err, sizeof(err))) {
					warn_msg("--model: %s", err);
					break;
				}
				fprintf(f, "%d,model: ", out);
				plot_csv_text(f, label);
				fprintf(f, ",%d,%d,%d,1", s[j].workers, s[j].batch_size, s[j].gpus);
				csv_real(f, m.e2e_s);
				fputs(",,,", f);
				csv_real(f, m.ooo_pct);
				csv_real(f, m.stall_pct);
				csv_real(f, m.gpu_util_pct);
				csv_real(f, m.images_per_s);
				csv_real(f, m.wait_over_500ms_pct);
				csv_real(f, m.delay_over_500ms_pct);
				csv_real(f, m.preproc.mean / 1e6);
				csv_real(f, m.preproc_std_pct);
				fprintf(f, ",model\n");
				analysis_free(&m);
			}
		}
		start = i;
	}
}

/* The configurations the policy comparison shows: those of the part, batch
 * size and GPU count with the most policies (the last such in plan order).
 * Returns the number of policies there; *pick is one of its aggs. */
static int policy_group(const struct sweep_config *a, size_t n, size_t *pick)
{
	int best = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned seen = 0;
		int np = 0;
		for (size_t j = 0; j < n; j++)
			if (a[j].part == a[i].part && a[j].batch_size == a[i].batch_size &&
			    a[j].gpus == a[i].gpus && a[j].pol < 32 && !(seen & (1u << a[j].pol))) {
				seen |= 1u << a[j].pol;
				np++;
			}
		if (np >= best) {
			best = np;
			*pick = i;
		}
	}
	return best;
}

static int in_group(const struct sweep_config *x, const struct sweep_config *g)
{
	return x->part == g->part && x->batch_size == g->batch_size && x->gpus == g->gpus;
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/* policies.csv: per policy (series) and worker count of the group of g, the
 * figures a policy changes; xi is the index of the worker count (the bar
 * group). Returns the number of rows. */
static int write_policies(FILE *f, const struct sweep_config *a, size_t n, const struct sweep_config *g, int npol)
{
	int *w = malloc((n ? n : 1) * sizeof(*w)), nw = 0, rows = 0;

	if (!w)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (in_group(&a[i], g))
			w[nw++] = a[i].workers;
	qsort(w, (size_t)nw, sizeof(*w), cmp_int);
	fprintf(f, "series,series_label,workers,xi,batch,gpus,runs,e2e_s,images_per_s,"
		   "gpu_util_pct,gpu_idle_s,main_wait_s,ooo_pct,stall_pct,samples_reordered_count\n");
	for (int p = 0; p < npol; p++) {
		int xi = -1, last = -1;
		for (int k = 0; k < nw; k++) {
			if (w[k] == last)
				continue;
			last = w[k];
			xi++;
			for (size_t i = 0; i < n; i++) {
				if (!in_group(&a[i], g) || a[i].pol != p || a[i].workers != w[k])
					continue;
				fprintf(f, "%d,", p + 1);
				plot_csv_text(f, a[i].policy);
				fprintf(f, ",%d,%d,%d,%d,%d", a[i].workers, xi, a[i].batch_size, a[i].gpus,
					a[i].n);
				csv_real(f, a[i].c.r.e2e_s);
				csv_real(f, a[i].c.r.images_per_s);
				csv_real(f, a[i].c.r.gpu_util_pct);
				csv_real(f, a[i].c.r.gpu_idle_s);
				csv_real(f, a[i].c.r.sum_wait_s);
				csv_real(f, a[i].c.r.ooo_pct);
				csv_real(f, a[i].c.r.stall_pct);
				csv_real(f, a[i].c.r.samples_reordered_count);
				fputc('\n', f);
				rows++;
				break;
			}
		}
	}
	free(w);
	return rows;
}

/* cpu_by_op.csv for the configurations of one series (sorted by workers).
 * When the runs counted on-CPU time (--counters), each op's wall seconds
 * (Lotus's CPU seconds) are split: cum_oncpu_s is the top of its on-CPU
 * part in the stack, the rest up to cum_span_s the time it was descheduled.
 * Returns the number of ops written. */
static int write_cpu_by_op(FILE *f, const struct sweep *sw, const struct sweep_config *s, size_t n)
{
	char names[2 * SWEEP_MAX_OPS][40];
	size_t nn = op_union(sw->rows, sw->nrows, names, 2 * SWEEP_MAX_OPS);
	size_t on = offsetof(struct sweep_op, oncpu_s);
	double *cum = calloc(n ? n : 1, sizeof(double));
	int series = 0, split = 0;

	if (!cum)
		return -1;
	for (size_t k = 0; k < nn; k++)
		for (size_t i = 0; i < n && strcmp(names[k], "transform"); i++)
			split |= isfinite(agg_op(&s[i], names[k], on));
	fprintf(f, "series,series_label,workers,span_s,cum_span_s%s\n",
		split ? ",oncpu_s,descheduled_s,cum_oncpu_s" : "");
	for (size_t k = 0; k < nn; k++) {
		int any = 0;
		if (!strcmp(names[k], "transform"))
			continue;
		for (size_t i = 0; i < n; i++)
			any |= isfinite(agg_op(&s[i], names[k], offsetof(struct sweep_op, span_s)));
		if (!any)
			continue;
		series++;
		for (size_t i = 0; i < n; i++) {
			double c = agg_op(&s[i], names[k], offsetof(struct sweep_op, span_s));
			double o = agg_op(&s[i], names[k], on);
			double below = cum[i];
			if (isfinite(c))
				cum[i] += c;
			fprintf(f, "%d,", series);
			plot_csv_text(f, names[k]);
			fprintf(f, ",%d", s[i].workers);
			csv_real(f, c);
			csv_real(f, cum[i]);
			if (split) {
				/* on-CPU outside [0, wall] (a short op, within a counter
				 * read's cost of the wall time) is drawn clamped */
				double oc = o < 0 ? 0 : o < c ? o : c;
				double top = isfinite(o) && isfinite(c) ? below + oc : NAN;
				csv_real(f, o);
				csv_real(f, isfinite(o) && isfinite(c) ? c - o : NAN);
				csv_real(f, top);
			}
			fputc('\n', f);
		}
	}
	free(cum);
	return series;
}

/* The derived counter figures (Figs. 6e-h), drawn per op against workers. */
const struct counter_fig counter_figs[NCOUNTER_FIGS] = {
	{ "fig6e_ipc_vs_workers", "ipc", "Instructions per cycle by op against workers (Fig. 6e)",
	  "instructions per cycle", "cycles and instructions", "basic",
	  offsetof(struct sweep_op, ipc) },
	{ "fig6f_cache_mpki_vs_workers", "cache_mpki",
	  "Cache misses per kilo-instruction by op against workers (Fig. 6f)",
	  "cache misses per 1000 instructions",
	  "cache-misses and instructions", "basic",
	  offsetof(struct sweep_op, cache_mpki) },
	{ "fig6g_frontend_stall_vs_workers", "frontend_stall_pct",
	  "Front-end stall cycles by op against workers (Fig. 6g)", "front-end stall cycles (%)",
	  "front-end stall cycles", "topdown",
	  offsetof(struct sweep_op, frontend_stall_pct) },
	{ "fig6h_backend_stall_vs_workers", "backend_stall_pct",
	  "Back-end stall cycles by op against workers (Fig. 6h)", "back-end stall cycles (%)",
	  "back-end stall cycles", "topdown",
	  offsetof(struct sweep_op, backend_stall_pct) },
};

/* counter_<col>.csv (series, series_label, workers, value) for one derived
 * counter and the configurations of one series. Returns the number of
 * values written (0: the runs do not have it). */
static int write_counter_by_op(FILE *f, const struct sweep *sw, const struct sweep_config *s, size_t n,
			       size_t fig)
{
	char names[2 * SWEEP_MAX_OPS][40];
	size_t nn = op_union(sw->rows, sw->nrows, names, 2 * SWEEP_MAX_OPS);
	int series = 0, vals = 0;

	fprintf(f, "# title: %s\n# ylabel: %s\n", counter_figs[fig].title,
		counter_figs[fig].ylabel);
	fprintf(f, "series,series_label,workers,value\n");
	for (size_t k = 0; k < nn; k++) {
		int any = 0;
		if (!strcmp(names[k], "transform"))
			continue;
		for (size_t i = 0; i < n; i++)
			any |= isfinite(agg_op(&s[i], names[k], counter_figs[fig].off));
		if (!any)
			continue;
		series++;
		for (size_t i = 0; i < n; i++) {
			double v = agg_op(&s[i], names[k], counter_figs[fig].off);
			vals += isfinite(v);
			fprintf(f, "%d,", series);
			plot_csv_text(f, names[k]);
			fprintf(f, ",%d", s[i].workers);
			csv_real(f, v);
			fputc('\n', f);
		}
	}
	return vals;
}

/* Hardware events open on this machine (counters_probe of "cycles"; it
 * says no when PPBENCH_FORCE_NO_PMU=1): 1, 0, or -1 unknown. */
static int have_pmu_here(void)
{
	struct counter_spec *spec = calloc(1, sizeof(*spec));
	char err[256];
	int r = -1;

	if (spec && !counters_parse("cycles", spec, err, sizeof(err))) {
		counters_probe(spec);
		r = spec->have_pmu;
	}
	free(spec);
	return r;
}

/* Why a derived counter figure has nothing to draw: what the ok runs say
 * of their hardware events, and whether a PMU here could count them. */
static void counter_fig_why(const struct sweep *s, size_t fig, char *why, size_t n)
{
	const struct sweep_row *unsup = NULL, *asked = NULL;
	int known = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		if (!sweep_row_ok(r))
			continue;
		known |= r->counters[0] != 0;
		if (!strncmp(r->hw_events, "not supported", 13) && !unsup)
			unsup = r;
		if (!strcmp(r->hw_events, "ok") && !asked)
			asked = r;
	}
	if (unsup && !asked)
		snprintf(why, n, "hardware events are not supported here (%s); the runs "
			 "fell back to software events, so there is no %s to draw",
			 unsup->hw_events + (unsup->hw_events[13] == ':' ? 15 : 0),
			 counter_figs[fig].ylabel);
	else if (have_pmu_here() == 0)
		snprintf(why, n, "this figure needs a hardware PMU to count %s, and this machine has "
			 "none (hardware events do not open here: ppbench info; a virtual machine "
			 "has one only with PMU passthrough)", counter_figs[fig].events);
	else if (!known)
		snprintf(why, n, "the runs did not count events (sweep --counters %s)",
			 counter_figs[fig].preset);
	else
		snprintf(why, n, "the runs did not count %s (sweep --counters %s)",
			 counter_figs[fig].events, counter_figs[fig].preset);
}

static void config_label(const struct sweep *s, const struct sweep_row *r, char *out, size_t n)
{
	if (!s->nparts)   /* a run report: its repeats */
		snprintf(out, n, "%s", r->tag);
	else if (s->nparts > 1)
		snprintf(out, n, "%d: w%d b%d g%d", r->part + 1, r->workers, r->batch_size, r->gpus);
	else
		snprintf(out, n, "w%d b%d g%d", r->workers, r->batch_size, r->gpus);
}

/* Per-configuration data from each configuration's first ok run:
 * batches.csv, preproc_box.csv, percentiles.csv; pts[] gets the points each
 * of Figs. 4, 5a, 5b has to draw (full batches' preprocessing times, waits
 * over 0, delays). Returns the number of configurations written, or -1
 * with err. */
static int write_per_config(const struct sweep *s, const char *datadir, size_t pts[3], char *err,
			    size_t errlen)
{
	char p[4096], label[64];
	FILE *fb = NULL, *fx = NULL, *fp = NULL;
	struct sweep_config *a = NULL;
	size_t na = sweep_configs(s->rows, s->nrows, &a);
	int series = 0, rc = -1;

	errf(p, sizeof(p), "%s/batches.csv", datadir);
	fb = fig_create(p);
	errf(p, sizeof(p), "%s/preproc_box.csv", datadir);
	fx = fig_create(p);
	errf(p, sizeof(p), "%s/percentiles.csv", datadir);
	fp = fig_create(p);
	if (!fb || !fx || !fp) {
		errf(err, errlen, "cannot create '%s': %s", p, strerror(errno));
		goto out;
	}
	fprintf(fb, "series,series_label,id,wait_ms,delay_ms,preproc_ms,out_of_order\n");
	fprintf(fx, "series,series_label,preproc_ms\n");
	fprintf(fp, "series,series_label,pct,delay_ms,wait_ms\n");
	for (size_t j = 0; j < na; j++) {
		const struct sweep_row *r = &s->rows[a[j].first];
		struct table t;
		double *pre, *del, *wai;
		size_t npre = 0, ndel = 0, nwai = 0, first = 0;

		sweep_run_path(s, r, "batches.csv", p, sizeof(p));
		if (!r->run_dir[0] || r->problem[0] || table_read(&t, p, NULL, 0))
			continue;
		int cid = table_col(&t, "id"), cw = table_col(&t, "wait_ns"),
		    cd = table_col(&t, "delay_ns"), cp = table_col(&t, "preproc_ns"),
		    cs = table_col(&t, "samples"), co = table_col(&t, "out_of_order");
		pre = calloc(t.nrows + 1, sizeof(double));
		del = calloc(t.nrows + 1, sizeof(double));
		wai = calloc(t.nrows + 1, sizeof(double));
		if (!pre || !del || !wai) {
			free(pre);
			free(del);
			free(wai);
			table_free(&t);
			errf(err, errlen, "out of memory");
			goto out;
		}
		series++;
		config_label(s, r, label, sizeof(label));
		for (size_t i = 0; i < t.nrows; i++) {
			double w = table_num(&t, i, cw), d = table_num(&t, i, cd);
			double pr = table_num(&t, i, cp), sm = table_num(&t, i, cs);
			int ooo = (int)table_num(&t, i, co) == 1;
			fprintf(fb, "%d,", series);
			plot_csv_text(fb, label);
			fprintf(fb, ",%s", table_str(&t, i, cid));
			csv_real(fb, w / 1e6);
			csv_real(fb, d / 1e6);
			csv_real(fb, pr / 1e6);
			fprintf(fb, ",%d\n", ooo);
			pts[1] += w > 0;
			if (isfinite(pr) && (!isfinite(sm) || sm >= r->batch_size))
				pre[npre++] = pr / 1e6;
			if (isfinite(d))
				del[ndel++] = d / 1e6;
			if (isfinite(w) && !ooo)
				wai[nwai++] = w / 1e6;
		}
		analysis_cut_low_tail(pre, npre, &first);
		pts[0] += npre - first;
		pts[2] += ndel;
		for (size_t i = first; i < npre; i++) {
			fprintf(fx, "%d,", series);
			plot_csv_text(fx, label);
			csv_real(fx, pre[i]);
			fputc('\n', fx);
		}
		stats_sort(del, ndel);
		stats_sort(wai, nwai);
		for (int q = 0; q <= 100 && ndel; q++) {
			fprintf(fp, "%d,", series);
			plot_csv_text(fp, label);
			fprintf(fp, ",%d", q);
			csv_real(fp, stats_percentile_sorted(del, ndel, q));
			csv_real(fp, nwai ? stats_percentile_sorted(wai, nwai, q) : NAN);
			fputc('\n', fp);
		}
		free(pre);
		free(del);
		free(wai);
		table_free(&t);
	}
	rc = series;
out:
	if ((fb && fclose(fb)) | (fx && fclose(fx)) | (fp && fclose(fp)))
		if (rc >= 0) {
			errf(err, errlen, "cannot write the data files in '%s'", datadir);
			rc = -1;
		}
	free(a);
	return rc;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* op_cdf.csv from the LotusTrace files of row r: one series per op
 * (Lotus's names without the leading S), up to 400 points each. Returns
 * the number of ops, 0 with why when there is no trace. */
static int write_op_cdf(const struct sweep *s, const struct sweep_row *r, const char *path,
			char *why, size_t whylen)
{
	char dir[4096], err[512];
	struct trace t;
	FILE *f = NULL;
	int series = 0;

	memset(&t, 0, sizeof(t));
	{
		char sub[64];
		snprintf(sub, sizeof(sub), "lotustrace/b%d_gpu%d", r->batch_size, r->gpus);
		sweep_run_path(s, r, sub, dir, sizeof(dir));
	}
	if (lotustrace_read(dir, LOTUSTRACE_PREFIX, &t, err, sizeof(err))) {
		errf(why, whylen, "no LotusTrace files in run %s (--trace off?): %s", r->tag, err);
		return 0;
	}
	f = fig_create(path);
	if (!f) {
		errf(why, whylen, "cannot create '%s': %s", path, strerror(errno));
		goto out;
	}
	fprintf(f, "series,series_label,dur_us,cum_pct\n");
	/* ops 0..nops-1, then collation */
	for (size_t op = 0; op <= t.nops; op++) {
		size_t n = 0, k = 0;
		uint64_t *v;
		/* the op's id, as the tables name it (decode, collate, ...) */
		const char *name = op < t.nops ? (t.op_ids[op][0] ? t.op_ids[op] : t.op_names[op]) :
				   "collate";
		for (size_t p = 0; p < t.nprocs; p++)
			for (size_t e = 0; e < t.procs[p].n; e++) {
				const struct trace_ev *ev = &t.procs[p].ev[e];
				n += op < t.nops ? ev->kind == EV_OP && ev->op == op : ev->kind == EV_COLLATE;
			}
		if (!n || !(v = malloc(n * sizeof(*v))))
			continue;
		for (size_t p = 0; p < t.nprocs; p++)
			for (size_t e = 0; e < t.procs[p].n; e++) {
				const struct trace_ev *ev = &t.procs[p].ev[e];
				if (op < t.nops ? ev->kind == EV_OP && ev->op == op : ev->kind == EV_COLLATE)
					v[k++] = ev->dur_ns;
			}
		qsort(v, n, sizeof(*v), cmp_u64);
		series++;
		size_t pts = n < 400 ? n : 400;
		for (size_t i = 0; i < pts; i++) {
			size_t idx = pts == 1 ? n - 1 : (size_t)llround((double)i * (double)(n - 1) / (double)(pts - 1));
			double us = (double)v[idx] / 1e3;
			fprintf(f, "%d,", series);
			plot_csv_text(f, name);
			csv_real(f, us < 0.01 ? 0.01 : us);
			csv_real(f, 100.0 * (double)(idx + 1) / (double)n);
			fputc('\n', f);
		}
		free(v);
	}
	if (fclose(f)) {
		errf(why, whylen, "cannot write '%s'", path);
		series = 0;
	}
	if (!series)
		errf(why, whylen, "the trace of run %s has no op events", r->tag);
out:
	lotustrace_free(&t);
	return series;
}

static struct fig_status *fig_add(struct fig_status *st, size_t max, size_t *n, const char *name)
{
	static struct fig_status spare;
	struct fig_status *f = *n < max ? &st[(*n)++] : &spare;
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

/* draws figures/<name> from data with plots/<script> (its 3rd to 5th
 * arguments text, or NULL), recording the outcome */
static void draw(const char *top, const char *figdir, const char *log, struct fig_status *f,
		 const char *script, const char *data, const char *arg3, const char *arg4,
		 const char *arg5)
{
	char out[4096];
	const char *args[] = { data, out, arg3 ? arg3 : "", arg4, arg5, NULL };

	errf(out, sizeof(out), "%s/%s", figdir, f->name);
	f->drawn = plot_run(top, script, args, log, f->why, sizeof(f->why)) == 0;
	f->failed = !f->drawn;
}

/* The figures of single runs, a sweep's and a run report's: Table II's CDF
 * (the run with the fewest workers) and Figs. 4, 5a, 5b (one series per
 * configuration). 0, or -1 with err when a data file cannot be written. */
int draw_run_figures(const struct sweep *s, const char *top, const char *figdir,
			    const char *datadir, const char *log, struct fig_status *st, size_t max,
			    size_t *nst, char *err, size_t errlen)
{
	char p[4096], sub[160];
	struct fig_status *f;

	/* Table II */
	f = fig_add(st, max, nst, "table2_op_cdf");
	{
		long i = report_table2_row(s->rows, s->nrows, 0);
		errf(p, sizeof(p), "%s/op_cdf.csv", datadir);
		if (i < 0)
			snprintf(f->why, sizeof(f->why), "no run finished");
		else if (write_op_cdf(s, &s->rows[i], p, f->why, sizeof(f->why)) > 0) {
			snprintf(sub, sizeof(sub), "run %s", s->rows[i].tag);
			draw(top, figdir, log, f, "table2_op_cdf.gp", p, sub, NULL, NULL);
		}
	}

	/* per configuration: Figs. 4, 5a, 5b */
	size_t pts[3] = { 0, 0, 0 };
	int ncfg = write_per_config(s, datadir, pts, err, errlen);
	if (ncfg < 0)
		return -1;
	static const struct {
		const char *name, *script, *data, *none;
	} per_cfg[] = {
		{ "fig4_preproc_boxplot", "fig4_preproc_boxplot.gp", "preproc_box.csv",
		  "no full batch has a preprocessing time (a batch that lost samples is left out)" },
		{ "fig5a_wait_per_batch", "fig5a_wait_per_batch.gp", "batches.csv",
		  "the main process never waited for a batch" },
		{ "fig5b_delay_percentiles", "fig5b_delay_percentiles.gp", "percentiles.csv",
		  "no batch has a delay" },
	};
	for (size_t k = 0; k < sizeof(per_cfg) / sizeof(per_cfg[0]); k++) {
		f = fig_add(st, max, nst, per_cfg[k].name);
		errf(p, sizeof(p), "%s/%s", datadir, per_cfg[k].data);
		if (!ncfg)
			snprintf(f->why, sizeof(f->why), "no finished run has a batches.csv");
		else if (!pts[k])
			snprintf(f->why, sizeof(f->why), "%s", per_cfg[k].none);
		else
			draw(top, figdir, log, f, per_cfg[k].script, p, NULL, NULL, NULL);
	}
	return 0;
}

/* Where report_figures draws: the sweep, the repository (top, NULL when not
 * found), the folders and log, and the figures' outcomes so far. */
struct fig_ctx {
	const struct sweep *s;
	const char *top, *figdir, *datadir, *log;
	struct fig_status *st;
	size_t max, *nst;
	char *err;
	size_t errlen;
};

static struct fig_status *fig_next(const struct fig_ctx *c, const char *name)
{
	return fig_add(c->st, c->max, c->nst, name);
}

static void fig_draw(const struct fig_ctx *c, struct fig_status *f, const char *script,
		     const char *data, const char *arg3)
{
	draw(c->top, c->figdir, c->log, f, script, data, arg3, NULL, NULL);
}

static const char no_w[] = "the sweep has one worker count per batch size and GPU count: "
			   "there is no line against workers to draw";
static const char no_b[] = "the sweep has one batch size per worker and GPU count: "
			   "there is no line against batch size to draw";

/* The figures against workers and against batch size (vs_workers.csv,
 * vs_batch.csv): out of order and stall, E2E, GPU utilisation. The points
 * of each line's longest series in *ptw, *ptb; the configurations in series
 * order in *sw, *sb. 0, or -1 with err. */
static int figs_vs(const struct fig_ctx *c, struct sweep_config *a, size_t na,
		   struct seriesing *zw, struct seriesing *zb, int *best_w, int *best_b,
		   struct sweep_config **sw, struct sweep_config **sb, int *ptw, int *ptb)
{
	char p[4096], p2[4096];
	struct fig_status *f;
	FILE *fh;

	errf(p, sizeof(p), "%s/vs_workers.csv", c->datadir);
	fh = fig_create(p);
	if (!fh) {
		errf(c->err, c->errlen, "cannot create '%s': %s", p, strerror(errno));
		return -1;
	}
	*ptw = write_vs(fh, a, na, zw, best_w, sw);
	if (c->s->model && *ptw >= 2)
		write_vs_model(fh, c->s, *sw, na, zw);
	if (fclose(fh) || *ptw < 0) {
		errf(c->err, c->errlen, "cannot write '%s'", p);
		return -1;
	}
	errf(p2, sizeof(p2), "%s/vs_batch.csv", c->datadir);
	fh = fig_create(p2);
	if (!fh) {
		errf(c->err, c->errlen, "cannot create '%s': %s", p2, strerror(errno));
		return -1;
	}
	*ptb = write_vs(fh, a, na, zb, best_b, sb);
	if (fclose(fh) || *ptb < 0) {
		errf(c->err, c->errlen, "cannot write '%s'", p2);
		return -1;
	}
	f = fig_next(c, "ooo_stall_vs_workers");
	if (*ptw < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	else
		fig_draw(c, f, "ooo_stall.gp", p, "workers");
	f = fig_next(c, "ooo_stall_vs_batch");
	if (*ptb < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_b);
	else
		fig_draw(c, f, "ooo_stall.gp", p2, "batch");
	f = fig_next(c, "fig6a_e2e_vs_workers");
	if (*ptw < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	else
		fig_draw(c, f, "fig6a_e2e_vs_workers.gp", p, NULL);
	f = fig_next(c, "gpu_util_vs_workers");
	if (*ptw < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	else
		fig_draw(c, f, "gpu_util_vs_workers.gp", p, NULL);
	return 0;
}

/* The loader policies side by side (policies.csv). 0, or -1 with err. */
static int figs_policies(const struct fig_ctx *c, struct sweep_config *a, size_t na, int npol)
{
	char p2[4096], sub[160];
	struct fig_status *f = fig_next(c, "policies_compare");
	size_t pick = 0;
	int np = na ? policy_group(a, na, &pick) : 0;
	FILE *fh;

	if (npol < 2) {
		snprintf(f->why, sizeof(f->why), "the sweep has one loader policy (compare them "
			 "with sweep --policy \"torch speedy shared-queue\")");
		return 0;
	}
	if (np < 2) {
		snprintf(f->why, sizeof(f->why), "no batch size and GPU count finished with "
			 "two policies");
		return 0;
	}
	errf(p2, sizeof(p2), "%s/policies.csv", c->datadir);
	fh = fig_create(p2);
	if (!fh) {
		errf(c->err, c->errlen, "cannot create '%s': %s", p2, strerror(errno));
		return -1;
	}
	int rows = write_policies(fh, a, na, &a[pick], npol);
	if (fclose(fh) || rows < 0) {
		errf(c->err, c->errlen, "cannot write '%s'", p2);
		return -1;
	}
	char part[32] = "";
	if (c->s->nparts > 1)
		snprintf(part, sizeof(part), "sweep %d: ", a[pick].part + 1);
	snprintf(sub, sizeof(sub), "%sbatch %d, %d GPU%s", part, a[pick].batch_size,
		 a[pick].gpus, a[pick].gpus == 1 ? "" : "s");
	fig_draw(c, f, "policies.gp", p2, sub);
	return 0;
}

/* The series of Figs. 6b and 6e-h (its first configuration in sw and its
 * length): the one finding 4 is judged at, report_dim_config() among the
 * configurations of the policy the findings judge (report_write: torch
 * when it was swept, else the first). 1, or 0 when that is not a series of
 * two or more worker counts. */
static int fig6b_series(const struct seriesing *zw, const struct sweep_config *sw, size_t na,
			size_t *from, size_t *cnt)
{
	struct sweep_config *j = malloc((na ? na : 1) * sizeof(*j));
	size_t nj = 0;
	int pol = 0, kt[NKEY], k[NKEY];
	long bi;

	if (!j)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (!strcmp(sw[i].policy, "torch"))
			pol = sw[i].pol;
	for (size_t i = 0; i < na; i++)
		if (sw[i].pol == pol)
			j[nj++] = sw[i];
	bi = report_dim_config(j, nj);
	if (bi >= 0)
		series_key(zw, &j[bi], kt);
	free(j);
	if (bi < 0)
		return 0;
	*cnt = 0;
	for (size_t i = 0; i < na; i++) {
		series_key(zw, &sw[i], k);
		if (memcmp(k, kt, (NKEY - 1) * sizeof(int)))
			continue;
		if (!(*cnt)++)
			*from = i;
	}
	return *cnt >= 2;
}

/* Per op against workers, for the series finding 4 is judged at: the
 * sum of op spans (Fig. 6b, cpu_by_op.csv) and the derived counters (Figs.
 * 6e-h, counter_*.csv). 0, or -1 with err. */
static int figs_by_op(const struct fig_ctx *c, const struct seriesing *zw,
		      const struct sweep_config *sw, size_t na, int best_w, int ptw)
{
	char p2[4096], sub[160];
	struct fig_status *f = fig_next(c, "fig6b_cpu_vs_workers");
	size_t from = 0, cnt = 0;
	FILE *fh;

	if (ptw < 2) {
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	} else {
		int judged = fig6b_series(zw, sw, na, &from, &cnt);
		if (!judged) {
			/* the series with the most worker counts */
			int series = 0, prev[NKEY] = { -1, -1, -1, -1, -1 };
			from = cnt = 0;
			for (size_t i = 0; i < na; i++) {
				int k[NKEY];
				series_key(zw, &sw[i], k);
				if (new_series(k, prev))
					series++;
				if (series == best_w && !cnt++)
					from = i;
			}
		}
		errf(p2, sizeof(p2), "%s/cpu_by_op.csv", c->datadir);
		fh = fig_create(p2);
		if (!fh) {
			errf(c->err, c->errlen, "cannot create '%s': %s", p2, strerror(errno));
			return -1;
		}
		int nops = write_cpu_by_op(fh, c->s, sw + from, cnt);
		if (fclose(fh) || nops < 0) {
			errf(c->err, c->errlen, "cannot write '%s'", p2);
			return -1;
		}
		series_label(zw, &sw[from], sub, sizeof(sub));
		if (judged) {
			size_t l = strlen(sub);
			snprintf(sub + l, sizeof(sub) - l, ", where finding 4 is judged");
		}
		if (!nops)
			snprintf(f->why, sizeof(f->why), "the runs have no per-op CPU times");
		else
			fig_draw(c, f, "fig6b_cpu_vs_workers.gp", p2, sub);
	}
	/* Figs. 6e-h: derived counters per op, same series */
	for (size_t k = 0; k < NCOUNTER_FIGS; k++) {
		f = fig_next(c, counter_figs[k].fig);
		if (ptw < 2) {
			snprintf(f->why, sizeof(f->why), "%s", no_w);
			continue;
		}
		errf(p2, sizeof(p2), "%s/counter_%s.csv", c->datadir, counter_figs[k].col);
		fh = fig_create(p2);
		if (!fh) {
			errf(c->err, c->errlen, "cannot create '%s': %s", p2, strerror(errno));
			return -1;
		}
		int nv = write_counter_by_op(fh, c->s, sw + from, cnt, k);
		if (fclose(fh)) {
			errf(c->err, c->errlen, "cannot write '%s'", p2);
			return -1;
		}
		if (!nv)
			counter_fig_why(c->s, k, f->why, sizeof(f->why));
		else
			draw(c->top, c->figdir, c->log, f, "fig6e_h_counter_vs_workers.gp", p2, sub,
			     counter_figs[k].title, counter_figs[k].ylabel);
	}
	return 0;
}

/* The paper's data (datasets/reference/lotus/figures/), drawn by the same
 * scripts as this machine's. */
static void figs_paper(const struct fig_ctx *c)
{
	static const struct {
		const char *name, *script, *data, *arg3;
	} paper[] = {
		{ "paper/fig6a_e2e_vs_workers", "fig6a_e2e_vs_workers.gp", "paper_worker_sweep.csv", NULL },
		{ "paper/fig6b_cpu_vs_workers", "fig6b_cpu_vs_workers.gp", "paper_cpu_by_op.csv",
		  "paper: b1024 / 4 GPUs; per-op split not published per worker count" },
		{ "paper/ooo_stall_vs_workers", "ooo_stall.gp", "paper_worker_sweep.csv", "workers" },
		{ "paper/grid_ooo_stall_vs_workers", "ooo_stall.gp", "paper_grid_vs_workers.csv", "workers" },
		{ "paper/grid_ooo_stall_vs_batch", "ooo_stall.gp", "paper_grid_vs_batch.csv", "batch" },
	};
	char p[4096];

	for (size_t k = 0; k < sizeof(paper) / sizeof(paper[0]); k++) {
		struct fig_status *f = fig_next(c, paper[k].name);
		errf(p, sizeof(p), "%s/datasets/reference/lotus/figures/%s", c->top ? c->top : "",
		     paper[k].data);
		fig_draw(c, f, paper[k].script, p, paper[k].arg3);
	}
}

int report_figures(const struct sweep *s, struct fig_status *st, size_t max, size_t *nst,
		   char *err, size_t errlen)
{
	char topbuf[4096], figdir[4096], datadir[4096], log[4096];
	const char *top = find_top(TOP_OF_PLOTS, topbuf, sizeof(topbuf)) ? NULL : topbuf;
	struct sweep_config *a = NULL, *sw = NULL, *sb = NULL;
	size_t na = sweep_configs(s->rows, s->nrows, &a);
	struct seriesing zw, zb;
	int best_w = 0, best_b = 0, ptw, ptb, rc = -1;
	struct fig_ctx c = { .s = s, .top = top, .figdir = figdir, .datadir = datadir, .log = log,
			     .st = st, .max = max, .nst = nst, .err = err, .errlen = errlen };
	FILE *fh;

	seriesing_init(&zw, 0, s, a, na);
	seriesing_init(&zb, 1, s, a, na);
	*nst = 0;
	snprintf(figdir, sizeof(figdir), "%s/figures", s->dir);
	snprintf(datadir, sizeof(datadir), "%s/figures/data", s->dir);
	if (report_fig_dirs(s->dir, 1, err, errlen))
		goto out;
	errf(log, sizeof(log), "%s/gnuplot.log", figdir);
	fh = fig_create(log);
	if (fh)
		fclose(fh);

	if (draw_run_figures(s, top, figdir, datadir, log, st, max, nst, err, errlen) ||
	    figs_vs(&c, a, na, &zw, &zb, &best_w, &best_b, &sw, &sb, &ptw, &ptb) ||
	    figs_policies(&c, a, na, zw.npol) ||
	    figs_by_op(&c, &zw, sw, na, best_w, ptw))
		goto out;
	figs_paper(&c);
	rc = 0;
out:
	free(a);
	free(sw);
	free(sb);
	return rc;
}
