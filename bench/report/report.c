/* A sweep's report.md and report.html: the sweep, its runs, the five Lotus
 * findings with the paper's numbers, this machine's and a verdict, the loader
 * policies. */
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
#include "regime.h"
#include "report.h"
#include "stats.h"
#include "trace.h"


const char *report_num(char *buf, size_t n, double v, int prec)
{
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.*f", prec, v);
	return buf;
}

/* A configuration's figure (a metric's name) with its spread over the
 * repeats, "12.34 (min 11.90, max 12.80, n=3)" or from 6 repeats on
 * "12.34 [11.90, 12.80]" (stats_format); one repeat: the figure alone. */
static void cell_spread(char *out, size_t n, const struct sweep_config *a, const char *metric,
			const char *fmt)
{
	const struct stats_summary *sp = combined_spread(&a->c, metric);
	if (!sp->n)
		snprintf(out, n, "n/a");
	else
		stats_format(out, n, sp, fmt);
}

/* What the tables say of their figures: the median over the repeats with
 * its spread, or one measurement. */
static const char *spread_words(const struct sweep_config *a, size_t na)
{
	int most = 0;
	for (size_t i = 0; i < na; i++)
		most = a[i].n > most ? a[i].n : most;
	return most > 1 ? "each figure the median over the repeats with its spread (min-max and n; "
			  "from 6 repeats on, its 95 % interval in brackets)" :
			  "one run per configuration: each figure is one measurement";
}

/* A reference table of the paper, columns picked by name and renamed. */
static void doc_ref_table(struct doc *d, const char *top, const char *file,
			  const char *const *cols, const char *const *titles, size_t n,
			  const char *filter_col, const char *filter_val)
{
	char path[4096], err[512];
	struct table t;
	int ci[16], fc;
	const char *cell[16];

	if (!top) {
		doc_p(d, "(The paper's table %s was not found: run the report from the repository.)", file);
		return;
	}
	snprintf(path, sizeof(path), "%s/datasets/reference/lotus/figures/%s", top, file);
	if (table_read(&t, path, err, sizeof(err))) {
		doc_p(d, "(The paper's table is missing: %s.)", err);
		return;
	}
	for (size_t i = 0; i < n && i < 16; i++)
		ci[i] = table_col(&t, cols[i]);
	fc = filter_col ? table_col(&t, filter_col) : -1;
	doc_row(d, titles, n, 1);
	for (size_t r = 0; r < t.nrows; r++) {
		if (fc >= 0 && strcmp(table_str(&t, r, fc), filter_val))
			continue;
		for (size_t i = 0; i < n && i < 16; i++)
			cell[i] = *table_str(&t, r, ci[i]) ? table_str(&t, r, ci[i]) : "-";
		doc_row(d, cell, n, 0);
	}
	doc_table_end(d);
	table_free(&t);
}

static void doc_verdict(struct doc *d, const struct finding *f, const char *rule)
{
	static const char *const cls[] = { "holds", "nothold", "cannot" };
	char lead[64];

	char why[sizeof(f->why)];

	snprintf(lead, sizeof(lead), "Verdict: %s.", verdict_name(f->v));
	snprintf(why, sizeof(why), "%s", f->why);
	if (why[0] >= 'a' && why[0] <= 'z')
		why[0] = (char)(why[0] - 'a' + 'A');
	doc_lead(d, cls[f->v], lead, "%s.", why);
	doc_lead(d, "rule", "Rule:", "%s.", rule);
}

static void json_compact(json_t *v, char *out, size_t n)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
	snprintf(out, n, "%s", s ? s : "?");
	free(s);
}

/* The last non-empty line of a file (a failed run's error) */
static void last_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen_regular(path, FILE_MAX_DOC, NULL, 0);
	char line[1024];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (line[0])
			snprintf(out, n, "%s", line);
	}
	fclose(f);
}

static void list_ints(json_t *arr, char *out, size_t n)
{
	size_t i, l = 0;
	json_t *v;

	out[0] = 0;
	json_array_foreach(arr, i, v) {
		if (l + 16 >= n)
			break;
		l += (size_t)snprintf(out + l, n - l, "%s%lld", i ? " " : "",
				      (long long)json_integer_value(v));
	}
	if (!l)
		snprintf(out, n, "-");
}

/* One sweep folder's line items: its grid and runs, dataset and page cache,
 * the options every run got. */
static void write_sweep_part(struct doc *d, const struct sweep *s, size_t p)
{
	char a[256], b[256], c[256], buf[8192];
	json_t *args, *v;
	size_t i;

	json_t *doc = s->parts[p].doc;
	size_t nok = 0, nfail = 0, ninc = 0, npend = 0, nrun = 0;
	char pre[300] = "";
	if (!doc)
		return;
	if (s->nparts > 1)
		snprintf(pre, sizeof(pre), "Sweep %zu (%s): ", p + 1, s->parts[p].name);
	for (i = 0; i < s->nrows; i++) {
		const char *st_ = s->rows[i].status;
		if (s->rows[i].part != (int)p)
			continue;
		nrun++;
		nok += !strcmp(st_, RUN_OK);
		nfail += !strcmp(st_, RUN_FAILED);
		ninc += !strcmp(st_, RUN_INCOMPLETE);
		npend += !strcmp(st_, RUN_PENDING);
	}
	const char *cache = jget_str(doc, "page_cache", "?");
	list_ints(json_object_get(doc, "workers"), a, sizeof(a));
	list_ints(json_object_get(doc, "batch_size"), b, sizeof(b));
	list_ints(json_object_get(doc, "gpus"), c, sizeof(c));
	int tied = json_is_true(json_object_get(doc, "workers_equal_gpus"));
	doc_li(d, "%sconfigurations: workers {%s} x batch {%s} x GPUs {%s}, %d repeat%s, in "
	       "that order (repeats outermost): %zu runs: %zu ok, %zu failed, %zu incomplete, "
	       "%zu not run.", pre, tied ? "= GPUs" : a, b, c, jint(doc, "repeat", 1),
	       jint(doc, "repeat", 1) == 1 ? "" : "s", nrun, nok, nfail, ninc, npend);
	double res = 0;
	int nres = 0;
	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].part == (int)p && isfinite(s->rows[i].cache_resident_pct)) {
			res += s->rows[i].cache_resident_pct;
			nres++;
		}
	if (nres)
		snprintf(c, sizeof(c), " (then %.1f %% of the dataset was in the page cache, "
			 "mean over the runs, by mincore)", res / nres);
	else
		c[0] = 0;
	char origin[160], paren[170] = "";
	if (dataset_origin_text(json_object_get(doc, "dataset"), origin, sizeof(origin)) >= 0)
		snprintf(paren, sizeof(paren), " (%s)", origin);
	doc_li(d, "%sdataset %s%s; page cache before each run: %s%s.", pre, jget_str(doc, "data", "?"), paren,
	       !strcmp(cache, "warm") ? "kept warm (--warm)" :
	       "the dataset's pages dropped (posix_fadvise DONTNEED on every file, as the "
	       "paper evicted with vmtouch -e)", c);
	args = json_object_get(doc, "run_args");
	buf[0] = 0;
	json_array_foreach(args, i, v) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof(buf) - l, "%s%s", l ? " " : "", json_string_value(v));
	}
	doc_li(d, "%soptions given to every run: %s; started %s; folder %s.", pre,
	       buf[0] ? buf : "none (the defaults)", jget_str(doc, "created_utc", "?"),
	       s->parts[p].dir);
	/* what the sweep's plan said of the epochs (sweep.json "plan") */
	const char *note = jget_str(json_object_get(doc, "plan"), "epochs_note", "");
	if (*note)
		doc_li(d, "%sthe plan, before the runs: %s.", pre, note);
}

/* Was the machine idle? The others' CPU share while the runs measured, and
 * a warning above REPORT_BUSY_PCT (it ends the list). */
static void write_idle_note(struct doc *d, const struct sweep *s)
{
	size_t i;

	double sum = 0, max = -1;
	size_t k = 0, imax = 0;
	for (i = 0; i < s->nrows; i++)
		if (isfinite(s->rows[i].others_cpu_pct)) {
			sum += s->rows[i].others_cpu_pct;
			k++;
			if (s->rows[i].others_cpu_pct > max) {
				max = s->rows[i].others_cpu_pct;
				imax = i;
			}
		}
	if (k)
		doc_li(d, "Other processes took %.1f %% of the CPUs the runs could use while they "
		       "measured, on average, %.1f %% at most (run %s; the noise guard, "
		       "noise.others_cpu_pct).", sum / (double)k, max, s->rows[imax].tag);
	/* what the noise guard's judgement of each run did to the verdicts */
	size_t nbusy = 0, nok = 0, ibusy = 0;
	char why[320] = "";
	for (i = 0; i < s->nrows; i++) {
		if (!sweep_row_ok(&s->rows[i]))
			continue;
		nok++;
		if (report_run_busy(&s->rows[i], 0, nbusy ? NULL : why, sizeof(why)) && !nbusy++)
			ibusy = i;
	}
	if (nbusy)
		doc_li(d, "The noise guard saw other load take CPU time the runs wanted in %zu of %zu "
		       "runs (first run %s: %s): finding 1 is then judged on each call's own time on a "
		       "CPU, finding 4 leaves those runs out (or, when a worker count has no other, "
		       "judges every run of its group on the model's replay of it without the load), "
		       "and findings 2-3 "
		       "say how far the load moved the runs towards preprocessing-bound.", nbusy, nok,
		       s->rows[ibusy].tag, why);
	double nice_lo = INFINITY, nice_hi = -INFINITY;
	for (i = 0; i < s->nrows; i++)
		if (isfinite(s->rows[i].nice)) {
			nice_lo = fmin(nice_lo, s->rows[i].nice);
			nice_hi = fmax(nice_hi, s->rows[i].nice);
		}
	if (isfinite(nice_lo) && nice_hi > nice_lo)
		doc_li(d, "The runs' CPU priority: nice %.0f to %.0f (noise.nice; below 0 a raised "
		       "priority, which takes CPU time from other processes).", nice_lo, nice_hi);
	else if (isfinite(nice_lo))
		doc_li(d, "The runs' CPU priority: nice %.0f (noise.nice; below 0 a raised priority, "
		       "which takes CPU time from other processes; 0 the default).", nice_lo);
	if (k && max > REPORT_BUSY_PCT) {
		doc_list_end(d);
		doc_lead(d, "nothold", "Warning: the machine was not idle.",
			 "Other processes took over %.0f %% of the CPUs during some runs (up to "
			 "%.1f %%, run %s): their timings, and the verdicts that rest on them, are "
			 "not this machine's; rerun on an idle machine (ppbench sweep --resume "
			 "does not redo finished runs: start a new sweep).", REPORT_BUSY_PCT, max,
			 s->rows[imax].tag);
	}
}

/* The resolved options, from the first finished run's summary.json. */
static void write_resolved_options(struct doc *d, const struct sweep *s)
{
	char buf[8192];
	json_t *v;
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		char path[4096];
		json_t *sum, *o;
		const char *key;
		if (!s->rows[i].run_dir[0])
			continue;
		char why[200];
		sweep_run_path(s, &s->rows[i], "summary.json", path, sizeof(path));
		sum = sweep_row_ok(&s->rows[i]) ? summary_read(path, why, sizeof(why)) : NULL;
		o = json_object_get(sum, "options");
		if (!o) {
			json_decref(sum);
			continue;
		}
		buf[0] = 0;
		json_object_foreach(o, key, v) {
			size_t l = strlen(buf);
			char val[512];
			json_compact(v, val, sizeof(val));
			snprintf(buf + l, sizeof(buf) - l, "%s%s=%s", l ? ", " : "", key, val);
		}
		doc_li(d, "Resolved run options (run %s): %s.", s->rows[i].tag, buf);
		json_decref(sum);
		break;
	}
}

static void write_sweep_section(struct doc *d, const struct sweep *s, const struct fig_status *st,
				size_t nst)
{
	json_t *m = json_object_get(s->doc, "machine");
	char a[256];
	size_t i;

	doc_h(d, 2, s->nparts > 1 ? "The sweeps" : "The sweep");
	if (m) {
		double mem = metric_json_get(m, "memory_total_bytes");
		doc_li(d, "Machine: %s, %d CPU%s online, %s GiB memory, %s %s; %s.",
		       jget_str(m, "cpu_model", "unknown CPU"), s->cpus, plural_s(s->cpus),
		       report_num(a, sizeof(a), mem / 1073741824.0, 1),
		       jget_str(json_object_get(m, "kernel"), "sysname", ""),
		       jget_str(json_object_get(m, "kernel"), "release", ""), jget_str(m, "compiler", ""));
	}
	for (size_t p = 0; p < s->nparts; p++)
		write_sweep_part(d, s, p);
	write_idle_note(d, s);
	write_resolved_options(d, s);
	doc_list_end(d);

	/* figures not drawn */
	size_t nnot = 0;
	for (i = 0; i < nst; i++)
		nnot += !st[i].drawn;
	if (nnot) {
		doc_p(d, "Figures not drawn:");
		for (i = 0; i < nst; i++)
			if (!st[i].drawn)
				doc_li(d, "%s: %s", st[i].name, st[i].why);
		doc_list_end(d);
	}
}

static void write_runs_section(struct doc *d, const struct sweep *s)
{
	static const char *const hdr[] = { "run", "status", "W", "B", "G", "E2E (s)", "images/s",
					   "op spans (s)", "out of order (%)", "stall (%)",
					   "GPU util (%)", "folder" };
	char c[12][128];
	double skipped = 0;
	size_t i, nbad = 0;

	doc_h(d, 2, "All runs");
	doc_p(d, "One row per configuration and repeat (summary.csv has every column).");
	doc_row(d, hdr, 12, 1);
	for (i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		if (s->nparts > 1)
			snprintf(c[0], sizeof(c[0]), "%d: %s", r->part + 1, r->tag);
		else
			snprintf(c[0], sizeof(c[0]), "%s", r->tag);
		snprintf(c[1], sizeof(c[1]), "%s", r->status);
		snprintf(c[2], sizeof(c[2]), "%d", r->workers);
		snprintf(c[3], sizeof(c[3]), "%d", r->batch_size);
		snprintf(c[4], sizeof(c[4]), "%d", r->gpus);
		report_num(c[5], sizeof(c[5]), r->e2e_s, 2);
		report_num(c[6], sizeof(c[6]), r->images_per_s, 1);
		report_num(c[7], sizeof(c[7]), r->ops_span_s, 2);
		report_num(c[8], sizeof(c[8]), r->ooo_pct, 1);
		report_num(c[9], sizeof(c[9]), r->stall_pct, 1);
		report_num(c[10], sizeof(c[10]), r->gpu_util_pct, 1);
		snprintf(c[11], sizeof(c[11]), "%.120s", r->run_dir[0] ? r->run_dir : "-");
		/* a run the noise guard found noisy is marked */
		if (r->others_cpu_pct > REPORT_BUSY_PCT || r->steal_pct > REPORT_BUSY_PCT)
			snprintf(c[1], sizeof(c[1]), "%s, NOISY (others %.0f %%)", r->status,
				 r->others_cpu_pct);
		else if (r->oversubscribed > 0.5)
			snprintf(c[1], sizeof(c[1]), "%s, oversubscribed", r->status);
		if (r->problem[0] && sweep_row_ok(r))
			snprintf(c[1] + strlen(c[1]), sizeof(c[1]) - strlen(c[1]), ", a file unreadable");
		doc_row_cells(d, c[0], sizeof(c[0]), 12);
		if (isfinite(r->skipped_files))
			skipped += r->skipped_files;
		nbad += strcmp(r->status, RUN_OK) != 0 || r->problem[0];
	}
	doc_table_end(d);

	doc_h(d, 3, "Failed, incomplete, missing and unreadable runs");
	if (!nbad)
		doc_p(d, "None: every planned run finished, and its files read.");
	for (i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		char log[4096], line[1024];
		if (r->problem[0]) {
			doc_li(d, "%s: %s: %s%s.", r->tag, sweep_row_ok(r) ? "a file of it cannot be "
			       "read" : "unreadable", r->problem, sweep_row_ok(r) ? " (the figures "
			       "drawn from it leave this run out)" : " (the run is left out of every "
			       "table, figure and verdict)");
			continue;
		}
		if (!strcmp(r->status, RUN_OK))
			continue;
		if (!strcmp(r->status, RUN_PENDING)) {
			doc_li(d, "%s: not run (ppbench sweep --resume %s runs it).", r->tag,
			       s->parts[r->part].dir);
			continue;
		}
		errf(log, sizeof(log), "%s/logs/%s.log", s->parts[r->part].dir, r->tag);
		last_line(log, line, sizeof(line));
		doc_li(d, "%s: %s, exit code %d%s%s (log: %s).", r->tag, r->status, r->exit_code,
		       line[0] ? ": " : "", line, log);
	}
	doc_list_end(d);

	doc_h(d, 3, "Skipped files");
	if (!(skipped > 0)) {
		doc_p(d, "No run skipped a file.");
		return;
	}
	doc_p(d, "%.0f files skipped over all runs (--on-error skip); the first ones:", skipped);
	int listed = 0;
	for (i = 0; i < s->nrows && listed < 20; i++) {
		char path[4096];
		json_t *sum, *files, *v;
		size_t k;
		if (!s->rows[i].run_dir[0] || !(s->rows[i].skipped_files > 0))
			continue;
		char why[200];
		sweep_run_path(s, &s->rows[i], "summary.json", path, sizeof(path));
		sum = summary_read(path, why, sizeof(why));
		files = json_object_get(json_object_get(sum, "skipped"), "files");
		/* each file is {"path", "reason"} (escaped text, shown as written);
		 * a plain string in older summaries */
		json_array_foreach(files, k, v) {
			const char *p = json_is_string(v) ? json_string_value(v) : jget_str(v, "path", "?");
			const char *reason = jget_str(v, "reason", NULL);
			if (listed++ >= 20)
				break;
			doc_li(d, "%s%s%s (run %s)", p, reason ? ": " : "", reason ? reason : "",
			       s->rows[i].tag);
		}
		json_decref(sum);
	}
	doc_list_end(d);
}

/* Lotus's per-op CPU seconds are wall durations: with on-CPU time counted
 * (--counters), say how much of them was time on a CPU and how much time
 * descheduled (waiting for a core), per configuration. */
static void doc_oncpu(struct doc *d, const struct sweep *s, const struct sweep_config *a, size_t na)
{
	char names[2 * SWEEP_MAX_OPS][40], c[4][32];
	size_t nn = op_union(s->rows, s->nrows, names, 2 * SWEEP_MAX_OPS);
	size_t on = offsetof(struct sweep_op, oncpu_s), off = offsetof(struct sweep_op, descheduled_s);
	int any = 0;

	for (size_t i = 0; i < na; i++)
		for (size_t k = 0; k < nn; k++)
			any |= strcmp(names[k], "transform") &&
			       isfinite(agg_op(&a[i], names[k], on));
	if (!any) {
		doc_p(d, "The runs did not count on-CPU time (ppbench run --counters none): the "
			 "per-op CPU seconds below are wall durations, as Lotus's, and cannot tell "
			 "an op that needs more cycles from one that waits for a core.");
		return;
	}
	static const char *const tit[] = { "configuration", "ops wall (s)", "on a CPU (s)",
					   "descheduled (s)" };
	doc_p(d, "The sum of op spans (Lotus's per-op \"CPU seconds\" are these wall durations) "
		 "split into time on a CPU (task-clock, or the thread's CPU clock) and time "
		 "descheduled, summed over ops (median over repeats):");
	doc_row(d, tit, 4, 1);
	for (size_t i = 0; i < na; i++) {
		double w = 0, o = 0, x = 0;
		for (size_t k = 0; k < nn; k++) {
			if (!strcmp(names[k], "transform"))
				continue;
			double vw = agg_op(&a[i], names[k], offsetof(struct sweep_op, span_s));
			double vo = agg_op(&a[i], names[k], on);
			double vx = agg_op(&a[i], names[k], off);
			w += isfinite(vw) ? vw : 0;
			o += isfinite(vo) ? vo : 0;
			x += isfinite(vx) ? vx : 0;
		}
		agg_label(s, &a[i], c[0], sizeof(c[0]));
		report_num(c[1], sizeof(c[1]), w, 2);
		report_num(c[2], sizeof(c[2]), o, 2);
		report_num(c[3], sizeof(c[3]), x, 2);
		doc_row_cells(d, c[0], sizeof(c[0]), 4);
	}
	doc_table_end(d);
}


/* What the five findings' sections read: the sweep, its configurations
 * (median over repeats), the paper's numbers and reference tables (top), the
 * figures drawn and the verdicts. */
struct findings_ctx {
	struct doc *d;
	const struct sweep *s;
	const char *top;
	const struct paper *pp;
	const struct fig_status *st;
	size_t nst;
	const struct finding *fd;
	const struct sweep_config *a;
	size_t na;
};

/* The configuration with the next worker count after i at the same batch,
 * GPUs and policy (in a's order), or -1 when i has the most workers. */
static long next_step(const struct sweep_config *a, size_t na, size_t i)
{
	long next = -1;
	for (size_t j = 0; j < na; j++)
		if (a[j].part == a[i].part && a[j].batch_size == a[i].batch_size && a[j].gpus == a[i].gpus &&
		    a[j].pol == a[i].pol && a[j].workers > a[i].workers &&
		    (next < 0 || a[j].workers < a[next].workers))
			next = (long)j;
	return next;
}

/* The E2E gain (%) of the step from configuration i to the next worker
 * count, from the medians, then the gain in each repeat alone
 * (knee_step_gain) and whether the knee rule's threshold lies within
 * them: "3.1 (each repeat: -1.2 to 7.9, n=3; within noise of 5 %)". */
static void step_gain_cell(const struct findings_ctx *x, size_t i, char *out, size_t n)
{
	const struct sweep_config *a = x->a;
	long j = next_step(a, x->na, i);
	if (j < 0) {
		snprintf(out, n, "n/a");
		return;
	}
	double gain = 100 * (a[i].c.r.e2e_s - a[j].c.r.e2e_s) / a[i].c.r.e2e_s;
	struct stats_summary sp;
	report_num(out, n, gain, 1);
	if (knee_step_gain(x->s->rows, x->s->nrows, a[i].config, a[j].config, &sp) || sp.n < 2)
		return;
	enum stats_target t = stats_judge(&sp, KNEE_GAIN_PCT, 0);
	size_t l = strlen(out);
	snprintf(out + l, n - l, " (each repeat: %.1f to %.1f, n=%zu; %s %.0f %%)", sp.min, sp.max,
		 sp.n, t == TARGET_WITHIN_NOISE ? "within noise of the rule's" :
		 t == TARGET_MET ? "at least" : "under", KNEE_GAIN_PCT);
}

/* Finding 1: short ops dominate (Table II). */
static void write_finding_short_ops(const struct findings_ctx *x)
{
	struct doc *d = x->d;
	const struct sweep *s = x->s;
	char c[8][64];

	doc_h(d, 3, "1. Short ops dominate (Table II)");
	if (x->pp->ok)
		doc_p(d, "The paper (Table II): the per-sample ops have %.2f-%.2f %% of their calls "
			 "under 10 ms, RandomHorizontalFlip %.1f %% under 100 us. In its table below the "
			 "per-image means and p90 are the artifact's b1024 / 4-GPU row and the shares and "
			 "Collation (per batch of 128) its b128 / 1-GPU row, as the artifact's logs show:",
			 x->pp->t2_under10_lo, x->pp->t2_under10_hi, x->pp->t2_flip_under100us);
	{
		static const char *const cols[] = { "op", "mean_ms", "p90_ms", "pct_under_10ms",
						    "pct_under_100us" };
		static const char *const tit[] = { "op", "mean (ms)", "p90 (ms)", "under 10 ms (%)",
						   "under 100 us (%)" };
		doc_ref_table(d, x->top, "lotus_ic_per_op_ms.csv", cols, tit, 5, NULL, NULL);
	}
	long t2 = report_table2_row(s->rows, s->nrows, 0);
	if (t2 >= 0 && s->rows[t2].nops) {
		static const char *const tit[] = { "op", "calls", "mean (ms)", "p90 (ms)", "p99 (ms)",
						   "under 10 ms (%)", "under 100 us (%)" };
		const struct sweep_row *r = &s->rows[t2];
		doc_p(d, "This machine, run %s (per sample; collate per batch of %d, transform = all "
			 "transforms of a sample):", r->tag, r->batch_size);
		doc_row(d, tit, 7, 1);
		for (size_t k = 0; k < r->nops; k++) {
			const struct sweep_op *o = &r->ops[k];
			snprintf(c[0], sizeof(c[0]), "%s", o->name);
			report_num(c[1], sizeof(c[1]), o->count, 0);
			report_num(c[2], sizeof(c[2]), o->mean_ms, 3);
			report_num(c[3], sizeof(c[3]), o->p90_ms, 3);
			report_num(c[4], sizeof(c[4]), o->p99_ms, 3);
			report_num(c[5], sizeof(c[5]), o->under_10ms_pct, 2);
			report_num(c[6], sizeof(c[6]), o->under_100us_pct, 2);
			doc_row_cells(d, c[0], sizeof(c[0]), 7);
		}
		doc_table_end(d);
	}
	doc_fig(d, x->st, x->nst, "table2_op_cdf", "This machine: per-op time distributions (CDF), 100 us "
		"and 10 ms marked");
	doc_verdict(d, &x->fd[0], REPORT_RULE_SHORT_OPS);
}

/* Finding 2: per-batch preprocessing time varies (Fig. 4). */
static void write_finding_variance(const struct findings_ctx *x)
{
	struct doc *d = x->d;
	const struct sweep *s = x->s;
	const struct sweep_config *a = x->a;
	size_t na = x->na;
	char c[8][64];

	doc_h(d, 3, "2. Per-batch preprocessing time varies (Fig. 4)");
	if (x->pp->ok)
		doc_p(d, "The paper (Figs. 4-5, %zu configurations): the per-batch preprocessing time "
			 "has a std of %.2f-%.2f %% of the mean (median %.2f %%) after Lotus's cut of the "
			 "low tail, and its largest IQR is %.1fx its smallest (stated in its text; its "
			 "per-configuration IQRs are not published):", x->pp->variance.k,
			 x->pp->variance.std_pct.min, x->pp->variance.std_pct.max,
			 x->pp->variance.std_pct.median,
			 x->pp->iqr_ratio_quoted);
	{
		static const char *const cols[] = { "batch", "gpus", "workers", "preproc_avg_ms",
						    "preproc_std_pct" };
		static const char *const tit[] = { "batch", "GPUs", "workers", "mean (ms)",
						   "std (% of mean)" };
		doc_ref_table(d, x->top, "lotus_ic_batch_gpu_sweep.csv", cols, tit, 5, NULL, NULL);
	}
	{
		static const char *const tit[] = { "configuration", "batches (after the cut)",
						   "mean (ms)", "std (% of mean)", "IQR (ms)" };
		doc_p(d, "This machine (%s; Lotus's cut of the low tail below q1 - 2 x IQR):",
		      spread_words(a, na));
		doc_row(d, tit, 5, 1);
		for (size_t i = 0; i < na; i++) {
			agg_label(s, &a[i], c[0], sizeof(c[0]));
			report_num(c[1], sizeof(c[1]), a[i].c.r.preproc_batches, 0);
			cell_spread(c[2], sizeof(c[2]), &a[i], "preproc_avg_ms", "%.2f");
			cell_spread(c[3], sizeof(c[3]), &a[i], "preproc_std_pct", "%.2f");
			cell_spread(c[4], sizeof(c[4]), &a[i], "preproc_iqr_ms", "%.2f");
			doc_row_cells(d, c[0], sizeof(c[0]), 5);
		}
		doc_table_end(d);
	}
	doc_fig(d, x->st, x->nst, "fig4_preproc_boxplot", "This machine: per-batch preprocessing time by "
		"configuration (full batches)");
	doc_verdict(d, &x->fd[1], REPORT_RULE_VARIANCE);
}

/* Finding 3: out-of-order arrival and a stalled main process (Fig. 5). */
static void write_finding_out_of_order(const struct findings_ctx *x)
{
	struct doc *d = x->d;
	const struct sweep *s = x->s;
	const struct sweep_config *a = x->a;
	size_t na = x->na;
	char c[8][64];

	doc_h(d, 3, "3. Out-of-order arrival and a stalled main process (Fig. 5)");
	if (x->pp->ok)
		doc_p(d, "The paper (workers = GPUs), over its %zu configurations with 2 or more "
			 "workers: %.2f-%.2f %% of batches arrive out of order (median %.2f %%) and the "
			 "main process is stalled %.1f-%.1f %% of the wall time (median %.1f %%); at b512 "
			 "with 2+ workers, %.2f-%.2f %% of batches wait over 500 ms and %.2f-%.2f %% are "
			 "delayed over 500 ms (its 1-worker runs deliver in order and are left out, as "
			 "here):", x->pp->ooo.k, x->pp->ooo.ooo.min, x->pp->ooo.ooo.max, x->pp->ooo.ooo.median,
			 x->pp->ooo.stall.min, x->pp->ooo.stall.max, x->pp->ooo.stall.median, x->pp->ooo.wait500.min,
			 x->pp->ooo.wait500.max, x->pp->ooo.delay500.min, x->pp->ooo.delay500.max);
	{
		static const char *const cols[] = { "batch", "gpus", "workers", "ooo_pct", "stall_pct",
						    "wait_gt_500ms_pct", "delay_gt_500ms_pct" };
		static const char *const tit[] = { "batch", "GPUs", "workers", "out of order (%)",
						   "stall (%)", "wait > 500 ms (%)",
						   "delay > 500 ms (%)" };
		doc_ref_table(d, x->top, "lotus_ic_batch_gpu_sweep.csv", cols, tit, 7, NULL, NULL);
	}
	{
		static const char *const tit[] = { "configuration", "out of order (%)", "stall (%)",
						   "wait > 500 ms (%)", "delay > 500 ms (%)",
						   "GPU util (%)" };
		doc_p(d, "This machine (%s):", spread_words(a, na));
		doc_row(d, tit, 6, 1);
		for (size_t i = 0; i < na; i++) {
			agg_label(s, &a[i], c[0], sizeof(c[0]));
			cell_spread(c[1], sizeof(c[1]), &a[i], "ooo_pct", "%.1f");
			cell_spread(c[2], sizeof(c[2]), &a[i], "stall_pct", "%.1f");
			cell_spread(c[3], sizeof(c[3]), &a[i], "wait_gt_500ms_pct", "%.1f");
			cell_spread(c[4], sizeof(c[4]), &a[i], "delay_gt_500ms_pct", "%.1f");
			cell_spread(c[5], sizeof(c[5]), &a[i], "gpu_util_pct", "%.1f");
			doc_row_cells(d, c[0], sizeof(c[0]), 6);
		}
		doc_table_end(d);
	}
	doc_fig(d, x->st, x->nst, "paper/grid_ooo_stall_vs_workers", "The paper: out of order and stall "
		"against workers (= GPUs), Figs. 4-5 grid");
	doc_fig(d, x->st, x->nst, "paper/grid_ooo_stall_vs_batch", "The paper: out of order and stall "
		"against batch size");
	doc_fig(d, x->st, x->nst, "paper/ooo_stall_vs_workers", "The paper: out of order and stall "
		"against workers, Fig. 6 worker sweep (b1024, 4 GPUs)");
	doc_fig(d, x->st, x->nst, "ooo_stall_vs_workers", "This machine: out of order and stall against "
		"workers");
	doc_fig(d, x->st, x->nst, "ooo_stall_vs_batch", "This machine: out of order and stall against "
		"batch size");
	doc_fig(d, x->st, x->nst, "fig5a_wait_per_batch", "This machine: main-process wait per batch "
		"(log scale)");
	doc_fig(d, x->st, x->nst, "fig5b_delay_percentiles", "This machine: delay by percentile, 500 ms "
		"line");
	doc_verdict(d, &x->fd[2], REPORT_RULE_OUT_OF_ORDER);
}

/* Finding 4: diminishing returns from more workers (Fig. 6). */
static void write_finding_diminishing(const struct findings_ctx *x)
{
	struct doc *d = x->d;
	const struct sweep *s = x->s;
	const struct sweep_config *a = x->a;
	size_t na = x->na;
	char c[8][96];

	doc_h(d, 3, "4. Diminishing returns from more workers (Fig. 6)");
	if (x->pp->ok && x->pp->dim.n)
		doc_p(d, "The paper (b%d, %d GPUs): from %d to %d workers E2E falls %.1f %% (%.1f s to "
			 "%.1f s), and the sum of the ops' spans, which it calls CPU seconds, rises %.1f %% "
			 "(%.1f s to %.1f s), every op's with it; the front-end-bound share of decode rises "
			 "from %.1f %% to %.1f %% (its text; hardware counters, which ppbench counts per op "
			 "where the machine has a PMU, Figs. 6e-h below):", x->pp->dim.batch_size, x->pp->dim.gpus,
			 x->pp->dim.workers[0], x->pp->dim.workers[x->pp->dim.n - 1], x->pp->dim.drop_all_pct, x->pp->dim.e2e[0],
			 x->pp->dim.e2e[x->pp->dim.n - 1], x->pp->dim.span_rise_pct, x->pp->dim.span[0],
			 x->pp->dim.span[x->pp->dim.n - 1], x->pp->fe_w8_pct, x->pp->fe_w28_pct);
	{
		static const char *const cols[] = { "workers", "e2e_s", "cpu_s", "ooo_pct",
						    "stall_pct" };
		static const char *const tit[] = { "workers", "E2E (s)", "op spans (s)",
						   "out of order (%)", "stall (%)" };
		doc_ref_table(d, x->top, "lotus_ic_worker_sweep.csv", cols, tit, 5, NULL, NULL);
	}
	{
		/* the rule of this report applied to the paper's own curve (paper_load) */
		if (x->pp->ok && x->pp->dim.knee)
			doc_p(d, "Under the rule of this report (below), the paper's own knee is at "
				 "%d workers.", x->pp->dim.knee);
	}
	{
		static const char *const tit[] = { "configuration", "runs", "E2E (s)",
						   "gain of the next step (%)", "op spans (s)",
						   "images/s" };
		doc_p(d, "This machine (%s; the gain of a step from the medians, with the gain in "
		      "each repeat alone and whether the rule's %.0f %% lies within them):",
		      spread_words(a, na), KNEE_GAIN_PCT);
		doc_row(d, tit, 6, 1);
		for (size_t i = 0; i < na; i++) {
			agg_label(s, &a[i], c[0], sizeof(c[0]));
			snprintf(c[1], sizeof(c[1]), "%d", a[i].n);
			cell_spread(c[2], sizeof(c[2]), &a[i], "e2e_s", "%.2f");
			step_gain_cell(x, i, c[3], sizeof(c[3]));
			cell_spread(c[4], sizeof(c[4]), &a[i], "ops_span_s", "%.2f");
			cell_spread(c[5], sizeof(c[5]), &a[i], "images_per_s", "%.1f");
			doc_row_cells(d, c[0], sizeof(c[0]), 6);
		}
		doc_table_end(d);
	}
	doc_fig(d, x->st, x->nst, "paper/fig6a_e2e_vs_workers",
		"The paper: E2E against workers (Fig. 6a)");
	doc_fig(d, x->st, x->nst, "paper/fig6b_cpu_vs_workers", "The paper: the sum of op spans (its "
		"\"CPU seconds\") by op against workers (Fig. 6b)");
	doc_fig(d, x->st, x->nst, "fig6a_e2e_vs_workers", "This machine: E2E against workers (bars: "
		"min-max over repeats)");
	doc_oncpu(d, s, a, na);
	doc_fig(d, x->st, x->nst, "fig6b_cpu_vs_workers", "This machine: the sum of op spans by op "
		"against workers (solid: on a CPU; hatched: descheduled, when the runs counted on-CPU "
		"time)");
	for (size_t k = 0; k < NCOUNTER_FIGS; k++) {
		char cap[160];
		snprintf(cap, sizeof(cap), "This machine: %s", counter_figs[k].title);
		doc_fig(d, x->st, x->nst, counter_figs[k].fig, cap);
	}
	doc_fig(d, x->st, x->nst, "gpu_util_vs_workers", "This machine: simulated GPU utilization "
		"against workers");
	doc_verdict(d, &x->fd[3], REPORT_RULE_DIMINISHING);
}

/* Finding 5: low tracing overhead. */
static void write_finding_overhead(const struct findings_ctx *x)
{
	struct doc *d = x->d;

	doc_h(d, 3, "5. Low tracing overhead");
	if (x->pp->ok)
		doc_p(d, "The paper: LotusTrace costs +%.2f %% of E2E on full ImageNet and +%.1f %% on "
			 "a 26,061-image subset, against the sampling profilers below:",
			 x->pp->overhead_full_pct, x->pp->overhead_subset_pct);
	{
		static const char *const cols[] = { "dataset", "images", "profiler", "wall_s",
						    "overhead_pct" };
		static const char *const tit[] = { "dataset", "images", "profiler", "wall (s)",
						   "overhead (%)" };
		doc_ref_table(d, x->top, "lotus_tracing_overhead.csv", cols, tit, 5, NULL, NULL);
	}
	doc_verdict(d, &x->fd[4], REPORT_RULE_OVERHEAD);
}

static void write_findings(struct doc *d, const struct sweep *s, const char *top,
			   const struct paper *pp, const struct fig_status *st, size_t nst,
			   const struct finding *fd)
{
	struct sweep_config *a = NULL;
	size_t na = sweep_configs(s->rows, s->nrows, &a);
	struct findings_ctx x = { .d = d, .s = s, .top = top, .pp = pp, .st = st, .nst = nst,
				  .fd = fd, .a = a, .na = na };

	write_finding_short_ops(&x);
	write_finding_variance(&x);
	write_finding_out_of_order(&x);
	write_finding_diminishing(&x);
	write_finding_overhead(&x);
	free(a);
}

/* "Loader policies": a table per policy, the comparison figure, what a
 * user gives up, and whether the checksums agree across policies. */
static void write_policies_section(struct doc *d, const struct sweep *s,
				   const struct fig_status *st, size_t nst)
{
	char pols[SWEEP_MAX_POLICIES][16];
	size_t npol = sweep_policies(s->rows, s->nrows, pols, SWEEP_MAX_POLICIES);
	struct sweep_config *a = NULL;
	size_t na = sweep_configs(s->rows, s->nrows, &a);
	static const char *const hdr[] = { "workers", "batch", "GPUs", "runs", "E2E (s)",
					   "images/s", "GPU util (%)", "GPU idle (s)",
					   "main wait (s)", "out of order (%)",
					   "reordered across batches" };

	if (npol < 2)
		goto out;
	doc_h(d, 2, "Loader policies");
	doc_p(d, "The sweep compared %zu loader policies (ppbench run --policy). torch is "
		 "PyTorch's DataLoader: each batch is the sampler's batch, delivered in order; "
		 "shared-queue forms batches from finished samples in completion order; speedy "
		 "moves samples that run past the warm-up's timeout to a slow lane. What a user "
		 "gives up with the last two: samples are reordered across batches (a sample may "
		 "arrive in another batch than the one the sampler put it in); every sample of the "
		 "epoch is still seen exactly once.", npol);
	doc_fig(d, st, nst, "policies_compare", "E2E, images/s, GPU utilization and idle, "
		"main-process wait and out-of-order batches per policy");
	for (size_t p = 0; p < npol; p++) {
		char title[64], c[11][96];
		snprintf(title, sizeof(title), "Policy %s", pols[p]);
		doc_h(d, 3, title);
		doc_p(d, "%s.", spread_words(a, na));
		doc_row(d, hdr, 11, 1);
		for (size_t i = 0; i < na; i++) {
			if (a[i].pol != (int)p)
				continue;
			snprintf(c[0], 96, "%d", a[i].workers);
			snprintf(c[1], 96, "%d", a[i].batch_size);
			snprintf(c[2], 96, "%d", a[i].gpus);
			snprintf(c[3], 96, "%d", a[i].n);
			cell_spread(c[4], 96, &a[i], "e2e_s", "%.3f");
			cell_spread(c[5], 96, &a[i], "images_per_s", "%.1f");
			cell_spread(c[6], 96, &a[i], "gpu_util_pct", "%.1f");
			cell_spread(c[7], 96, &a[i], "gpu_idle_s", "%.3f");
			cell_spread(c[8], 96, &a[i], "sum_wait_s", "%.3f");
			cell_spread(c[9], 96, &a[i], "ooo_pct", "%.1f");
			if (isnan(a[i].c.r.samples_reordered_count))
				snprintf(c[10], 96, "n/a");
			else if (a[i].c.r.samples_reordered_count > 0)
				snprintf(c[10], 96, "yes (%.0f samples)", a[i].c.r.samples_reordered_count);
			else
				snprintf(c[10], 96, "no");
			doc_row_cells(d, c[0], sizeof(c[0]), 11);
		}
		doc_table_end(d);
	}
	/* the checksum of the samples of each configuration, across policies */
	{
		size_t groups = 0, same = 0, nodata = 0;
		char diff[1024] = "";
		for (size_t i = 0; i < s->nrows; i++) {
			const struct sweep_row *r = &s->rows[i], *q;
			int first = 1, policies = 1, equal = 1, known = r->checksum[0] != 0;
			if (!sweep_row_ok(r))
				continue;
			for (size_t j = 0; j < i && first; j++)
				first = !(sweep_row_ok(&s->rows[j]) && s->rows[j].part == r->part &&
					  s->rows[j].batch_size == r->batch_size && s->rows[j].gpus == r->gpus &&
					  s->rows[j].workers == r->workers &&
					  s->rows[j].repeat == r->repeat);
			if (!first)
				continue;
			for (size_t j = i + 1; j < s->nrows; j++) {
				q = &s->rows[j];
				if (!sweep_row_ok(q) || q->part != r->part || q->batch_size != r->batch_size ||
				    q->gpus != r->gpus || q->workers != r->workers ||
				    q->repeat != r->repeat)
					continue;
				policies++;
				known &= q->checksum[0] != 0;
				equal &= !strcmp(q->checksum, r->checksum);
			}
			if (policies < 2)
				continue;
			groups++;
			if (!known)
				nodata++;
			else if (equal)
				same++;
			else if (strlen(diff) < sizeof(diff) - 64) {
				size_t l = strlen(diff);
				snprintf(diff + l, sizeof(diff) - l, "%sw%d b%d g%d r%d", l ? ", " : "",
					 r->workers, r->batch_size, r->gpus, r->repeat);
			}
		}
		if (!groups)
			doc_p(d, "Checksum: no configuration finished with two policies, so the "
				 "samples seen cannot be compared.");
		else if (same == groups)
			doc_p(d, "Checksum: identical across policies in all %zu configurations "
				 "(same workers, batch size, GPUs and repeat): each policy saw the same "
				 "samples over the run, possibly in other batches.", groups);
		else
			doc_p(d, "Checksum: identical across policies in %zu of %zu configurations%s%s"
				 "%s. A policy forms batches in another order, so with --max-batches "
				 "(part of an epoch) the samples seen can differ; over whole epochs "
				 "they must not.", same, groups, nodata ? " (some runs have no "
				 "checksum)" : "", diff[0] ? "; it differs in " : "", diff);
	}
out:
	free(a);
}

/* What the verdicts rest on: one measurement per configuration, or the
 * repeats, and how a comparison within noise is said. */
static const char *repeats_note(const struct sweep_row *r, size_t n, const struct finding *fd)
{
	static char buf[1024];
	char times[48];
	int most = 0, least = 0, noisy = 0;
	struct sweep_config *a = NULL;
	size_t na = sweep_configs(r, n, &a);
	for (size_t i = 0; i < na; i++) {
		most = a[i].n > most ? a[i].n : most;
		least = !least || a[i].n < least ? a[i].n : least;
	}
	free(a);
	for (int i = 0; i < REPORT_NFINDINGS; i++)
		noisy += fd[i].within_noise;
	if (most <= 1) {
		snprintf(buf, sizeof(buf), "Each configuration ran once: every verdict above rests on "
			 "one measurement per configuration, with no interval to tell a difference "
			 "from noise. ppbench sweep --repeat 3 (or more) measures each configuration "
			 "several times: the tables then give each figure's spread, and each verdict "
			 "says whether the comparisons it turns on lie within noise.");
		return buf;
	}
	if (least == most)
		snprintf(times, sizeof(times), "%d times", most);
	else
		snprintf(times, sizeof(times), "%d to %d times", least, most);
	snprintf(buf, sizeof(buf), "Each configuration ran %s (--repeat): the tables give each "
		 "figure's median with its spread (min-max and n; from 6 repeats on, a 95 %% "
		 "interval), and each comparison a verdict makes with its rule's threshold is judged "
		 "on the values of the repeats judged alone: within noise when they hold the "
		 "threshold. %s", times, noisy ? "A verdict marked (within noise) turns on such a "
		 "comparison: its text says which, and more repeats would settle it." :
		 "No verdict turns on a comparison within noise.");
	return buf;
}

/* When the noise guard saw other load take CPU time a run wanted, finding 4
 * judges its group on replays (findings.c: replay_dim): every complete run
 * of the sweep modelled without that load (model_replay_quiet: its ops'
 * time on a CPU), into fs's rows' replay_e2e_s (s: the sweep
 * whose folder holds them). Nothing when no run was busy. */
static void replay_busy(const struct sweep *s, struct sweep *fs)
{
	size_t busy = 0;
	for (size_t i = 0; i < fs->nrows; i++)
		busy += sweep_row_ok(&fs->rows[i]) && report_run_busy(&fs->rows[i], s->cpus, NULL, 0);
	if (!busy)
		return;
	for (size_t i = 0; i < fs->nrows; i++) {
		struct sweep_row *r = &fs->rows[i];
		double share = report_run_oncpu_share(r);
		if (!sweep_row_ok(r) || !(share > 0))
			continue;
		char dir[4096], err[600];
		struct run_metrics m;
		sweep_run_path(s, r, "", dir, sizeof(dir));
		if (model_replay_quiet(dir, fmin(share, 1), &m, err, sizeof(err))) {
			warn_msg("finding 4: run %s not replayed without the other load: %s", r->tag, err);
			continue;
		}
		r->replay_e2e_s = m.e2e_s;
		analysis_free(&m);
	}
}

static int report_write_locked(const struct sweep *s, char *err, size_t errlen)
{
	struct fig_status st[REPORT_MAX_FIGS];
	struct finding fd[REPORT_NFINDINGS];
	char path[4096], topbuf[4096], stamp[64];
	const char *top = find_top(TOP_OF_PLOTS, topbuf, sizeof(topbuf)) ? NULL : topbuf;
	struct doc d = { .dir = s->dir };
	size_t nst = 0;
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;
	static const char *const titles[] = {
		"Short ops dominate (Table II)",
		"Per-batch preprocessing time varies (Fig. 4)",
		"Out-of-order arrival and a stalled main process (Fig. 5)",
		"Diminishing returns from more workers (Fig. 6)",
		"Low tracing overhead",
	};

	snprintf(path, sizeof(path), "%s/summary.csv", s->dir);
	if (sweep_write_csv(s, path, err, errlen))
		return -1;
	if (report_figures(s, st, REPORT_MAX_FIGS, &nst, err, errlen))
		return -1;
	/* with several loader policies, the findings judge the first one's runs
	 * (torch when it was swept: the paper's DataLoader) */
	char pols[SWEEP_MAX_POLICIES][16];
	size_t npol = sweep_policies(s->rows, s->nrows, pols, SWEEP_MAX_POLICIES);
	const char *judged = npol ? pols[0] : "torch";
	struct sweep fs = *s;
	if (npol > 1) {
		for (size_t p = 0; p < npol; p++)
			if (!strcmp(pols[p], "torch"))
				judged = "torch";
		fs.rows = calloc(s->nrows ? s->nrows : 1, sizeof(*fs.rows));
		if (!fs.rows) {
			errf(err, errlen, "out of memory");
			return -1;
		}
		fs.nrows = 0;
		for (size_t i = 0; i < s->nrows; i++)
			if (!strcmp(sweep_row_policy(&s->rows[i]), judged))
				fs.rows[fs.nrows++] = s->rows[i];
	}
	replay_busy(s, &fs);
	struct paper paper;
	if (paper_load(top, &paper, paper.why, sizeof(paper.why)))
		paper.ok = 0;
	struct judge_ctx cx = { .cpus = s->cpus, .paper = &paper };
	static const finding_fn fns[REPORT_NFINDINGS] = { finding_short_ops, finding_variance, finding_out_of_order,
					    finding_diminishing, finding_overhead };
	for (int i = 0; i < REPORT_NFINDINGS; i++)
		finding_judge(fns[i], fs.rows, fs.nrows, &cx, &fd[i]);
	/* make reproduce's regime beside the verdicts (regime.h; nothing without it) */
	report_regime_notes(&fs, fd, REPORT_NFINDINGS);

	if (doc_begin(&d, "The Lotus findings on this machine: ", err, errlen))
		goto out;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", &tm);
	doc_p(&d, "Written by ppbench report on %s. The study: Bachkaniwala et al., \"Lotus: "
		  "Characterization of Machine Learning Preprocessing Pipelines via Framework and "
		  "Hardware Profiling\", IISWC 2024. Each finding below shows the paper's numbers "
		  "(datasets/reference/lotus/figures/), this machine's, and a verdict from a stated "
		  "rule: holds, does not hold, or cannot be judged here (with the reason).", stamp);
	{
		static const char *const hdr[] = { "#", "finding", "verdict", "why" };
		char n[16], v[64];
		const char *cell[4];
		doc_row(&d, hdr, 4, 1);
		for (int i = 0; i < REPORT_NFINDINGS; i++) {
			snprintf(n, sizeof(n), "%d", i + 1);
			snprintf(v, sizeof(v), "%s%s", verdict_name(fd[i].v), fd[i].within_noise ?
				 " (within noise)" : "");
			cell[0] = n;
			cell[1] = titles[i];
			cell[2] = v;
			cell[3] = fd[i].why;
			doc_row(&d, cell, 4, 0);
		}
		doc_table_end(&d);
	}
	doc_p(&d, "%s", repeats_note(fs.rows, fs.nrows, fd));
	report_regime_section(&d, s);
	write_sweep_section(&d, s, st, nst);
	write_policies_section(&d, s, st, nst);
	report_whatif_section(&d, s);
	doc_h(&d, 2, "Findings");
	if (npol > 1)
		doc_p(&d, "The sweep has %zu loader policies: the findings judge the runs of %s "
			  "only.", npol, judged);
	doc_p(&d, "How to read: the paper measured one epoch of ImageNet (1.28 M images) on a "
		  "32-thread Xeon with 4 V100s; a sweep here usually runs fewer images on fewer "
		  "cores with a simulated GPU, so compare shapes and shares (percentages, ratios, "
		  "where the curve flattens), not seconds.");
	write_findings(&d, &fs, top, &paper, st, nst, fd);
	write_runs_section(&d, s);
	rc = 0;
out:
	if (d.md || d.html)
		rc = doc_end(&d, !rc, err, errlen);
	if (fs.rows != s->rows)
		free(fs.rows);
	return rc;
}

int report_write(const struct sweep *s, char *err, size_t errlen)
{
	int lk = report_lock(s->dir);
	int rc = report_write_locked(s, err, errlen);
	report_unlock(lk);
	return rc;
}

/* The common parent folder of the sweep folders dirs into out; -1 (said)
 * when they have different parents. */
int report_common_parent(char **dirs, size_t n, char *out, size_t outlen)
{
	char *slash;

	snprintf(out, outlen, "%s", dirs[0]);
	strip_slashes(out);
	slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(out, outlen, ".");
	for (size_t i = 1; i < n; i++) {
		char other[4096];
		snprintf(other, sizeof(other), "%s", dirs[i]);
		strip_slashes(other);
		slash = strrchr(other, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(other, sizeof(other), ".");
		if (strcmp(other, out)) {
			error_msg("the sweep folders have different parents: give --out DIR");
			return -1;
		}
	}
	return 0;
}
