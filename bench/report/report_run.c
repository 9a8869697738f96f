/* The report of one run folder (and its repeats): ppbench report RUN_DIR. */
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
#include "emit.h"
#include "csv.h"
#include "doc.h"
#include "log.h"
#include "fsutil.h"
#include "describe.h"
#include "metrics.h"
#include "model.h"
#include "repeats.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "trace.h"


/* ---- the report of one run (and its repeats) ------------------------------*/

/* The figures of a run report's tables, by metric-table name. */
static const char *const run_main_figs[] = {
	"images_per_s", "e2e_s", "images", "batches", "workers_cpu_s", "ops_span_s",
	"preproc_avg_ms", "preproc_std_pct", "preproc_iqr_ms", "ooo_pct", "stall_pct",
	"gpu_util_pct", "harness_per_sample_us", "harness_workers_per_sample_us",
	"harness_main_per_sample_us", "pipeline_per_sample_us", "harness_to_pipeline_ratio",
	"worker_rss_max_kib", "main_max_rss_kib",
};
static const char *const run_wait_figs[] = {
	"sum_wait_s", "wait_p50_ms", "wait_p90_ms", "wait_p99_ms", "wait_max_ms",
	"wait_gt_500ms_pct", "delay_p50_ms", "delay_p90_ms", "delay_p99_ms", "delay_max_ms",
	"delay_gt_500ms_pct",
};
static const char *const run_noise_figs[] = {
	"others_cpu_pct", "steal_pct", "load_avg_1min", "cpus_usable", "busy_threads",
	"oversubscribed", "trace_dropped", "skipped_files",
};

/* One row per figure: its value (the median with its spread over the
 * repeats), unit and definition. */
static void doc_metric_table(struct doc *d, const struct combined *c, const char *const *names,
			     size_t n)
{
	static const char *const hdr[] = { "figure", "value", "unit", "what it is" };
	char v[128];
	const char *cell[4];

	doc_row(d, hdr, 4, 1);
	for (size_t i = 0; i < n; i++) {
		const struct metric *mt = metric_find(names[i]);
		const struct stats_summary *sp = combined_spread(c, names[i]);
		if (sp->n && mt->combine == COMBINE_SAME)
			snprintf(v, sizeof(v), stats_human_fmt(metric_row_get(mt, &c->r)),
				 metric_row_get(mt, &c->r));
		else if (sp->n)
			stats_format(v, sizeof(v), sp, NULL);
		else
			snprintf(v, sizeof(v), "%s", mt->optional ? "not measured" : "n/a");
		cell[0] = mt->name;
		cell[1] = v;
		cell[2] = mt->unit;
		cell[3] = mt->def;
		doc_row(d, cell, 4, 0);
	}
	doc_table_end(d);
}

static void doc_run_ops(struct doc *d, const struct sweep_row *r)
{
	static const char *const hdr[] = { "op", "count", "mean ms", "p50 ms", "p90 ms", "p99 ms",
					   "max ms", "span s", "< 10 ms %", "< 100 us %" };
	static const char *const col[] = { "count", "mean_ms", "p50_ms", "p90_ms", "p99_ms",
					   "max_ms", "span_s", "under_10ms_pct", "under_100us_pct" };
	char c[10][48];

	doc_row(d, hdr, 10, 1);
	for (size_t i = 0; i < r->nops; i++) {
		snprintf(c[0], sizeof(c[0]), "%s", r->ops[i].name);
		for (size_t k = 0; k < 9; k++) {
			double v = op_metric_get(op_metric_find(col[k]), &r->ops[i]);
			if (isfinite(v))
				snprintf(c[k + 1], sizeof(c[k + 1]), stats_human_fmt(v), v);
			else
				snprintf(c[k + 1], sizeof(c[k + 1]), "n/a");
		}
		doc_row_cells(d, c[0], sizeof(c[0]), 10);
	}
	doc_table_end(d);
}

static void doc_run_identity(struct doc *d, const struct sweep *s, json_t *sum)
{
	json_t *o = json_object_get(sum, "options"), *m = json_object_get(sum, "machine");
	char a[64];

	doc_h(d, 2, "The run");
	int w = jint(sum, "workers", 0), g = jint(sum, "gpus", 0);
	doc_li(d, "Configuration: %d worker%s, batch %d, %d simulated GPU%s, loader policy %s, "
	       "backend %s, order %s, prefetch factor %d, pin memory %s; %d epoch%s, seed %d.",
	       w, w == 1 ? "" : "s", jint(sum, "batch_size", 0), g, g == 1 ? "" : "s",
	       jget_str(o, "policy", "torch"), jget_str(o, "backend", "?"), jget_str(o, "order", "?"),
	       jint(o, "prefetch_factor", 0),
	       json_is_true(json_object_get(o, "pin_memory")) ? "on" : "off",
	       jint(o, "epochs", 1), jint(o, "epochs", 1) == 1 ? "" : "s", jint(o, "seed", 0));
	char origin[160], paren[170] = "";
	if (dataset_origin_text(json_object_get(sum, "dataset"), origin, sizeof(origin)) >= 0)
		snprintf(paren, sizeof(paren), " (%s)", origin);
	doc_li(d, "Dataset %s%s, pipeline %s.", jget_str(o, "data", "?"), paren, jget_str(o, "pipeline", "?"));
	if (s->nrows > 1)
		doc_li(d, "%zu repeats of this configuration (--repeat): every figure below is the "
		       "median over them with its spread: %s, or (min, max) with fewer than 6.",
		       s->nrows, STATS_CI_METHOD);
	else
		doc_li(d, "One measurement (no --repeat): the figures have no spread; repeat the "
		       "run (ppbench run --repeat 5) to know how far to trust them.");
	if (m)
		doc_li(d, "Machine: %s (%s), %s CPU%s usable of %d online, %s GiB memory, %s %s, "
		       "ppbench %s built with %s.", jget_str(m, "cpu_model", "unknown CPU"),
		       jget_str(m, "hostname", "?"), report_num(a, sizeof(a), metric_json_get(m, "cpus_usable"), 0),
		       plural_s(metric_json_get(m, "cpus_usable") == 1 ? 1 : 2), jint(m, "cpus_online", 0),
		       report_num(a + 32, 32, metric_json_get(m, "memory_total_bytes") / 1073741824.0, 1),
		       jget_str(json_object_get(m, "kernel"), "sysname", ""),
		       jget_str(json_object_get(m, "kernel"), "release", ""),
		       jget_str(m, "ppbench_version", "?"), jget_str(m, "compiler", "?"));
	doc_list_end(d);
}

static void doc_run_repeats(struct doc *d, const struct sweep *s)
{
	static const char *const hdr[] = { "repeat", "complete", "images/s", "E2E (s)",
					   "others' CPU (%)", "checksum", "folder" };
	char c[7][300];

	doc_h(d, 2, s->nrows > 1 ? "The repeats" : "The folder");
	doc_row(d, hdr, 7, 1);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		snprintf(c[0], sizeof(c[0]), "%d", r->repeat);
		snprintf(c[1], sizeof(c[1]), "%s", r->complete ? "yes" : "NO");
		report_num(c[2], sizeof(c[2]), r->images_per_s, 1);
		report_num(c[3], sizeof(c[3]), r->e2e_s, 3);
		report_num(c[4], sizeof(c[4]), r->others_cpu_pct, 1);
		snprintf(c[5], sizeof(c[5]), "%s", r->checksum[0] ? r->checksum : "-");
		snprintf(c[6], sizeof(c[6]), "%.250s", r->run_dir);
		doc_row_cells(d, c[0], sizeof(c[0]), 7);
	}
	doc_table_end(d);
}

static void doc_run_noise(struct doc *d, const struct sweep *s, const struct combined *c)
{
	size_t busy = 0, over = 0;
	for (size_t i = 0; i < s->nrows; i++) {
		busy += s->rows[i].others_cpu_pct > REPORT_BUSY_PCT ||
			s->rows[i].steal_pct > REPORT_BUSY_PCT;
		over += report_oversubscribed(&s->rows[i], s->cpus);
	}
	doc_h(d, 2, "Noise");
	if (busy)
		doc_lead(d, "nothold", "The machine was busy:", "in %zu of %zu measurement%s, other "
			 "processes or the hypervisor took more than %.0f %% of the CPUs the run "
			 "could use: its times are inflated and vary more than the pipeline's.", busy,
			 s->nrows, s->nrows == 1 ? "" : "s", REPORT_BUSY_PCT);
	else
		doc_p(d, "Other processes and the hypervisor took less than %.0f %% of the CPUs "
		      "the run could use (or were not measured).", REPORT_BUSY_PCT);
	if (over)
		doc_lead(d, "cannot", "Oversubscribed:", "more threads were busy than CPUs were "
			 "usable, so workers were time-sliced: per-batch times include waiting for "
			 "a core.");
	doc_metric_table(d, c, run_noise_figs, sizeof(run_noise_figs) / sizeof(run_noise_figs[0]));
}

/* report.md and report.html of one run folder (s: its repeats as rows,
 * nparts 0, dir the folder; sum: the first repeat's summary.json). */
static int report_write_run(const struct sweep *s, json_t *sum, char *err, size_t errlen)
{
	struct fig_status st[REPORT_MAX_FIGS];
	char topbuf[4096], figdir[4096], datadir[4096], log[4096], stamp[64];
	const char *top = find_top(TOP_OF_PLOTS, topbuf, sizeof(topbuf)) ? NULL : topbuf;
	const struct sweep_row **rp = calloc(s->nrows, sizeof(*rp));
	struct combined *c = malloc(sizeof(*c));
	struct doc d = { .dir = s->dir };
	size_t nst = 0;
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;

	if (!rp || !c) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->nrows; i++)
		rp[i] = &s->rows[i];
	if (repeats_combine(rp, s->nrows, c)) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	errf(figdir, sizeof(figdir), "%s/figures", s->dir);
	errf(datadir, sizeof(datadir), "%s/figures/data", s->dir);
	if (report_fig_dirs(s->dir, 0, err, errlen))
		goto out;
	errf(log, sizeof(log), "%s/gnuplot.log", figdir);
	if (draw_run_figures(s, top, figdir, datadir, log, st, REPORT_MAX_FIGS, &nst, err, errlen))
		goto out;

	if (doc_begin(&d, "Run ", err, errlen))
		goto out;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", &tm);
	doc_p(&d, "Written by ppbench report on %s from the run's summary.json, batches.csv and "
		  "LotusTrace files. Every figure is defined in the metric table (ppbench metrics).",
		  stamp);
	if (!c->r.complete || s->nrows != c->n)
		doc_lead(&d, "nothold", "Incomplete:", "%s.", jget_str(sum, "stop_reason",
			 jget_str(sum, "write_error", "a repeat did not finish")));
	doc_run_identity(&d, s, sum);
	doc_h(&d, 2, "Main figures");
	doc_metric_table(&d, c, run_main_figs, sizeof(run_main_figs) / sizeof(run_main_figs[0]));
	if (c->same_differs)
		doc_lead(&d, "nothold", "The repeats differ", "in %s, which should be the same in "
			 "every repeat.", c->same_what);
	doc_h(&d, 2, "Ops");
	doc_p(&d, "Per op, over every call in every worker%s (Table II of the paper: the share "
		  "of calls under 10 ms and under 100 us).", s->nrows > 1 ?
		  "; each figure the median over the repeats" : "");
	doc_run_ops(&d, &c->r);
	doc_fig(&d, st, nst, "table2_op_cdf", "Share of each op's calls at most t long");
	doc_fig(&d, st, nst, "fig4_preproc_boxplot", "Per-batch preprocessing time (Fig. 4)");
	doc_h(&d, 2, "Batch wait and delay");
	doc_p(&d, "Wait: how long the main process waited for the batch it hands over next. "
		  "Delay: from the end of a batch's preprocessing to its hand-over to the consumer.");
	doc_metric_table(&d, c, run_wait_figs, sizeof(run_wait_figs) / sizeof(run_wait_figs[0]));
	doc_fig(&d, st, nst, "fig5a_wait_per_batch", "Main-process wait for each batch (Fig. 5a)");
	doc_fig(&d, st, nst, "fig5b_delay_percentiles", "Delay by percentile (Fig. 5b)");
	doc_run_noise(&d, s, c);
	doc_run_repeats(&d, s);
	rc = 0;
out:
	if (d.md || d.html)
		rc = doc_end(&d, !rc, err, errlen);
	free(rp);
	free(c);
	return rc;
}

/* Appends the run folder dir as repeat s->nrows + 1; *sum gets its
 * summary.json when it is the first. */
static int run_add(struct sweep *s, const char *dir, json_t **sum, char *err, size_t errlen)
{
	char path[4096], real[PATH_MAX];
	char why[512];
	errf(path, sizeof(path), "%s/summary.json", dir);
	json_t *j = summary_read(path, why, sizeof(why));
	if (!j) {
		if (errno == ENOENT)
			errf(err, errlen, "'%s' is not a run or sweep folder: no summary.json nor "
			     "sweep.json", dir);
		else
			errf(err, errlen, "cannot read '%s': %s", path, why);
		return -1;
	}
	struct sweep_row *rows = realloc(s->rows, (s->nrows + 1) * sizeof(*rows));
	if (!rows || !realpath(dir, real) || strlen(real) >= sizeof(rows->run_dir)) {
		errf(err, errlen, "cannot take '%s': %s", dir, rows ? "its path is too long" :
		     "out of memory");
		s->rows = rows ? rows : s->rows;
		json_decref(j);
		return -1;
	}
	s->rows = rows;
	struct sweep_row *r = &rows[s->nrows++];
	sweep_row_init(r);
	sweep_row_from_summary(r, j);
	r->part = -1;
	r->config = (int)s->nrows;   /* each repeat its own series in the figures */
	r->repeat = (int)s->nrows;
	r->workers = jint(j, "workers", 0);
	r->batch_size = jint(j, "batch_size", 0);
	r->gpus = jint(j, "gpus", 0);
	snprintf(r->status, sizeof(r->status), "%s", RUN_OK);
	errf(r->run_dir, sizeof(r->run_dir), "%s", real);
	if (!s->cpus)
		s->cpus = (int)metric_json_get(j, "machine.cpus_usable");
	if (*sum) {
		/* a repeat of the same configuration, or not comparable */
		static const char *const same[] = { "workers", "batch_size", "gpus" };
		for (size_t k = 0; k < 3; k++)
			if (jint(j, same[k], -1) != jint(*sum, same[k], -1)) {
				errf(err, errlen, "'%s' is another configuration (%s %d, not %d): a run "
				     "report takes the repeats of one configuration (ppbench sweep "
				     "compares several)", dir, same[k], jint(j, same[k], -1),
				     jint(*sum, same[k], -1));
				json_decref(j);
				return -1;
			}
		json_decref(j);
	} else {
		*sum = j;
	}
	return 0;
}

/* The folders of the other repeats of the run folder dir (run --repeat N
 * names them <time>-<tag>-r1 .. -rN, one after the other), in order; just
 * dir when it was not repeated. Caller frees the strings and the array. */
static char **run_repeat_dirs(const char *dir, size_t *n)
{
	char parent[4096], path[8192], tagbuf[300];
	const char *slash;
	char **out = calloc(1, sizeof(*out));
	*n = 0;
	if (!out || !(out[0] = strdup(dir)))
		return out;
	*n = 1;
	char why[200];
	errf(path, sizeof(path), "%s/summary.json", dir);
	json_t *j = summary_read(path, why, sizeof(why));
	int reps = jint(json_object_get(j, "options"), "repeat", 1);
	snprintf(tagbuf, sizeof(tagbuf), "%s", jget_str(json_object_get(j, "options"), "tag", ""));
	json_decref(j);
	snprintf(parent, sizeof(parent), "%s", dir);
	strip_slashes(parent);
	slash = strrchr(parent, '/');
	const char *me = slash ? slash + 1 : parent;
	char mine[512];
	errf(mine, sizeof(mine), "%s", me);
	if (slash)
		parent[slash - parent] = 0;
	else
		snprintf(parent, sizeof(parent), ".");
	/* which repeat this is */
	char suffix[320];
	int k0 = 0;
	for (int k = 1; k <= reps && reps > 1; k++) {
		snprintf(suffix, sizeof(suffix), "-%s-r%d", tagbuf, k);
		size_t l = strlen(mine), sl = strlen(suffix);
		if (l > sl && !strcmp(mine + l - sl, suffix))
			k0 = k;
	}
	if (!k0)
		return out;
	/* the repeats next to it in name (= time) order: the nearest tag-rK for each K */
	struct dirent **ents;
	int ne = scandir(parent, &ents, NULL, alphasort);
	if (ne < 0)
		return out;
	char **v = calloc((size_t)reps, sizeof(*v));
	int at = -1;
	for (int i = 0; i < ne; i++)
		if (!strcmp(ents[i]->d_name, mine))
			at = i;
	for (int k = 1; v && at >= 0 && k <= reps; k++) {
		snprintf(suffix, sizeof(suffix), "-%s-r%d", tagbuf, k);
		size_t sl = strlen(suffix);
		/* repeat k is after this one when k > k0, before it when k < k0 */
		for (int i = at, step = k >= k0 ? 1 : -1; i >= 0 && i < ne; i += step) {
			size_t l = strlen(ents[i]->d_name);
			if (l > sl && !strcmp(ents[i]->d_name + l - sl, suffix)) {
				errf(path, sizeof(path), "%s/%s", parent, ents[i]->d_name);
				v[k - 1] = strdup(path);
				break;
			}
		}
	}
	for (int i = 0; i < ne; i++)
		free(ents[i]);
	free(ents);
	if (!v)
		return out;
	size_t m = 0;
	for (int k = 0; k < reps; k++)
		if (v[k])
			v[m++] = v[k];
	if (m < 2) {
		for (size_t i = 0; i < m; i++)
			free(v[i]);
		free(v);
		return out;
	}
	free(out[0]);
	free(out);
	*n = m;
	return v;
}

/* A run folder (with its repeats found next to it), or the given run
 * folders (the repeats of one configuration), as rows of s (nparts 0, dir
 * the first folder); *sum gets the first one's summary.json. 0, or -1 with
 * err (s freed). */
int report_run_load(struct sweep *s, char **dirs, size_t n, json_t **sum, char *err, size_t errlen)
{
	char **found = NULL;
	size_t nfound = 0;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	*sum = NULL;
	if (n == 1) {
		found = run_repeat_dirs(dirs[0], &nfound);
		if (!found || !nfound) {
			errf(err, errlen, "out of memory");
			free(found);
			return -1;
		}
		if (nfound > 1)
			info("%s is one of %zu repeats: the report takes them all", dirs[0], nfound);
	}
	/* the report goes into the folder given first */
	snprintf(s->dir, sizeof(s->dir), "%s", dirs[0]);
	strip_slashes(s->dir);
	if (found) {
		dirs = found;
		n = nfound;
	}
	for (size_t i = 0; i < n; i++)
		if (run_add(s, dirs[i], sum, err, errlen))
			goto out;
	/* the series labels of the figures */
	for (size_t i = 0; i < s->nrows; i++) {
		struct sweep_row *r = &s->rows[i];
		if (s->nrows > 1)
			snprintf(r->tag, sizeof(r->tag), "repeat %d", r->repeat);
		else
			snprintf(r->tag, sizeof(r->tag), "w%d b%d g%d", r->workers, r->batch_size, r->gpus);
	}
	rc = 0;
out:
	for (size_t i = 0; i < nfound; i++)
		free(found[i]);
	free(found);
	if (rc) {
		json_decref(*sum);
		*sum = NULL;
		free(s->rows);
		memset(s, 0, sizeof(*s));
	}
	return rc;
}

/* A run folder: summary.json and no sweep.json. */
int is_run_dir(const char *dir)
{
	char p[4096];
	errf(p, sizeof(p), "%s/sweep.json", dir);
	if (file_exists(p))
		return 0;
	errf(p, sizeof(p), "%s/summary.json", dir);
	return file_exists(p);
}

/* ppbench report RUN_DIR [RUN_DIR...]: the report of one run, or of the
 * repeats of one configuration, written in the first folder. */
int cmd_report_run(char **dirs, size_t n)
{
	struct sweep s;
	json_t *sum;
	char err[1024];
	int rc = EXIT_FAIL;

	if (report_run_load(&s, dirs, n, &sum, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	int lk = report_lock(s.dir);
	int bad = report_write_run(&s, sum, err, sizeof(err));
	report_unlock(lk);
	if (bad)
		error_msg("%s", err);
	else {
		printf("%s/report.md\n%s/report.html\n", s.dir, s.dir);
		rc = EXIT_OK;
	}
	json_decref(sum);
	free(s.rows);
	return rc;
}
