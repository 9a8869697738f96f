/* The results folders in a folder, one entry each (listing.h): what ppbench ls
 * shows. Every figure is read through the metric table (bench/results/metrics.h)
 * and repeats are combined by bench/results/repeats.c, as the report does. */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "fsutil.h"
#include "metrics.h"
#include "repeats.h"
#include "report.h"
#include "resdir.h"

#include "listing.h"

static struct ls_entry *ls_add(struct ls_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct ls_entry *e = realloc(l->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		l->e = e;
		l->cap = cap;
	}
	struct ls_entry *e = &l->e[l->n++];
	memset(e, 0, sizeof(*e));
	e->complete = -1;
	e->workers = e->batch_size = e->gpus = -1;
	return e;
}

static int is_file(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

const char *listing_base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

static void add_note(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_note(char *out, size_t n, const char *fmt, ...)
{
	size_t l = strlen(out);
	va_list ap;
	if (l && l + 2 < n) {
		snprintf(out + l, n - l, "; ");
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(out + l, n - l, fmt, ap);
	va_end(ap);
}

/* The noise warnings of one run's summary.json (the noise guard's keys
 * and cpu.oversubscribed, read through the metric table). */
static void run_noise(json_t *s, char *out, size_t n)
{
	double others = metric_from_json(metric_find("others_cpu_pct"), s);
	double steal = metric_from_json(metric_find("steal_pct"), s);
	double over = metric_from_json(metric_find("oversubscribed"), s);
	double thr = metric_json_get(s, "noise.threshold_pct");
	json_t *noisy = json_path(s, "noise.noisy");

	if (isnan(thr))
		thr = REPORT_BUSY_PCT;
	if (json_is_true(noisy) || (!json_is_boolean(noisy) && others > thr))
		add_note(out, n, "busy (others took %.0f %% of its CPUs)", others);
	if (steal > thr)
		add_note(out, n, "steal %.0f %%", steal);
	if (over > 0.5)
		add_note(out, n, "oversubscribed");
}

static int json_int(json_t *o, const char *path, int def)
{
	json_t *v = json_path(o, path);
	return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

static const char *json_text(json_t *o, const char *path, const char *def)
{
	json_t *v = json_path(o, path);
	return json_is_string(v) ? json_string_value(v) : def;
}

/* A run folder's line from its summary.json (NULL: unknown; e->kind set). */
static void fill_run(struct ls_entry *e, json_t *s)
{
	const char *pol = json_text(s, "options.policy", "torch");
	int w = json_int(s, "workers", -1), b = json_int(s, "batch_size", -1);
	int g = json_int(s, "gpus", -1);

	snprintf(e->dataset, sizeof(e->dataset), "%s", json_text(s, "options.data", ""));
	snprintf(e->pipeline, sizeof(e->pipeline), "%s", json_text(s, "options.pipeline", ""));
	if (w >= 0)
		snprintf(e->config, sizeof(e->config), "w%d b%d g%d %s", w, b, g, pol);
	e->workers = w;
	e->batch_size = b;
	e->gpus = g;
	snprintf(e->policy, sizeof(e->policy), "%s", pol);
	double ips = metric_from_json(metric_find("images_per_s"), s);
	stats_summarise(&ips, 1, STATS_CI_LEVEL, &e->ips);
	e->complete = json_is_true(json_object_get(s, "complete"));
	snprintf(e->status, sizeof(e->status), "%s", e->complete ? "complete" : "incomplete");
	if (!e->complete) {
		const char *why = json_text(s, "write_error", json_text(s, "stop_reason", NULL));
		if (why)
			add_note(e->status, sizeof(e->status), "%s", why);
	}
	run_noise(s, e->noise, sizeof(e->noise));
	e->rep_n = json_int(s, "options.repeat", 1);
	snprintf(e->rep_tag, sizeof(e->rep_tag), "%s", json_text(s, "options.tag", ""));
	if (e->rep_n > 1) {
		const char *r = strrchr(e->name, '-');
		if (r && r[1] == 'r')
			e->rep_k = atoi(r + 2);
	}
	e->row = malloc(sizeof(*e->row));
	if (e->row) {
		sweep_row_init(e->row);
		sweep_row_from_summary(e->row, s);
		snprintf(e->row->status, sizeof(e->row->status), "%s", RUN_OK);
	}
}

static void join_ints(json_t *a, char *out, size_t n)
{
	size_t i;
	json_t *v;
	out[0] = 0;
	json_array_foreach(a, i, v) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, "%s%lld", i ? "," : "", (long long)json_integer_value(v));
	}
}

static void fill_sweep(struct ls_entry *e)
{
	struct sweep s;
	struct sweep_config *a = NULL;
	char err[512], w[64], b[64], g[64];
	size_t ok = 0, pending = 0, busy = 0, over = 0, unread = 0;

	if (sweep_load(&s, e->path, err, sizeof(err))) {
		snprintf(e->status, sizeof(e->status), "unreadable: %s", err);
		e->complete = 0;
		return;
	}
	snprintf(e->dataset, sizeof(e->dataset), "%s",
		 json_text(s.doc, "dataset.path", json_text(s.doc, "data", "")));
	join_ints(json_object_get(s.doc, "workers"), w, sizeof(w));
	join_ints(json_object_get(s.doc, "batch_size"), b, sizeof(b));
	join_ints(json_object_get(s.doc, "gpus"), g, sizeof(g));
	if (json_is_true(json_object_get(s.doc, "workers_equal_gpus")))
		snprintf(w, sizeof(w), "=g");
	snprintf(e->config, sizeof(e->config), "w%s b%s g%s", w, b, g);
	json_t *pol = json_object_get(s.doc, "policy");
	if (json_is_array(pol) && json_array_size(pol) > 1)
		add_note(e->config, sizeof(e->config), "%zu policies", json_array_size(pol));
	int rep = json_int(s.doc, "repeat", 1);
	if (rep > 1) {
		size_t l = strlen(e->config);
		snprintf(e->config + l, sizeof(e->config) - l, " x%d", rep);
	}
	for (size_t i = 0; i < s.nrows; i++) {
		const struct sweep_row *r = &s.rows[i];
		ok += sweep_row_ok(r);
		pending += !strcmp(r->status, RUN_PENDING);
		busy += r->others_cpu_pct > REPORT_BUSY_PCT;
		over += sweep_row_ok(r) && report_oversubscribed(r, s.cpus);
		unread += r->problem[0] != 0;
	}
	/* the pipeline, as its first finished run records it */
	for (size_t i = 0; i < s.nrows && !e->pipeline[0]; i++) {
		char sp[PATH_MAX];
		if (!sweep_row_ok(&s.rows[i]))
			continue;
		sweep_run_path(&s, &s.rows[i], "summary.json", sp, sizeof(sp));
		char why[256];
		json_t *sum = json_load_regular(sp, why, sizeof(why));
		snprintf(e->pipeline, sizeof(e->pipeline), "%s", json_text(sum, "options.pipeline", ""));
		json_decref(sum);
	}
	/* the best configuration: the highest median images/s */
	size_t na = sweep_configs(s.rows, s.nrows, &a), best = 0;
	for (size_t i = 1; i < na; i++)
		if (a[i].c.r.images_per_s > a[best].c.r.images_per_s)
			best = i;
	if (na) {
		e->ips = *combined_spread(&a[best].c, "images_per_s");
		snprintf(e->ips_note, sizeof(e->ips_note), "best: w%d b%d g%d", a[best].workers,
			 a[best].batch_size, a[best].gpus);
	}
	e->complete = s.nrows && ok == s.nrows;
	char lock[PATH_MAX + 8];
	snprintf(lock, sizeof(lock), "%s/.lock", e->path);
	int running = pending && results_dir_held(lock) == 1;
	if (running)
		snprintf(e->status, sizeof(e->status), "running: %zu of %zu runs done", ok, s.nrows);
	else if (e->complete)
		snprintf(e->status, sizeof(e->status), "complete: %zu run%s", ok, ok == 1 ? "" : "s");
	else
		snprintf(e->status, sizeof(e->status), "incomplete: %zu of %zu runs ok%s", ok, s.nrows,
			 pending ? " (sweep --resume finishes it)" : "");
	if (unread)   /* sweep_load names each file (struct sweep_row.problem) */
		add_note(e->status, sizeof(e->status), "%zu run%s with a file that cannot be read "
			 "(ppbench report names it)", unread, unread == 1 ? "" : "s");
	if (busy)
		add_note(e->noise, sizeof(e->noise), "busy in %zu of %zu runs", busy, s.nrows);
	if (over)
		add_note(e->noise, sizeof(e->noise), "%zu oversubscribed", over);
	free(a);
	sweep_free(&s);
}

/* why (may be NULL) gets the reason when it cannot be read */
static json_t *load(const char *dir, const char *file, char *why, size_t whylen)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return json_load_regular(p, why, whylen);
}

/* compare.json's images/s of both sides over the repeats, summarised as
 * compare.md summarises them (the same function of the same values). 0, or
 * -1 when the folder has no compare.json with them. */
static int compare_ips(const char *dir, struct stats_summary *a, struct stats_summary *b)
{
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/compare.json", dir);
	char why[256];
	json_t *j = json_load_regular(p, why, sizeof(why)), *m;
	size_t i;
	int rc = -1;
	json_array_foreach(json_object_get(j, "metrics"), i, m) {
		const char *name = json_string_value(json_object_get(m, "metric"));
		if (!name || strcmp(name, "images_per_s"))
			continue;
		json_t *side[2] = { json_object_get(m, "ppbench"), json_object_get(m, "pytorch") };
		struct stats_summary *out[2] = { a, b };
		rc = 0;
		for (int k = 0; k < 2; k++) {
			size_t n = json_array_size(side[k]), got = 0;
			double *v = calloc(n ? n : 1, sizeof(*v));
			for (size_t r = 0; v && r < n; r++) {
				json_t *x = json_array_get(side[k], r);
				if (json_is_number(x))
					v[got++] = json_number_value(x);
			}
			if (!v || !got || stats_summarise(v, got, STATS_CI_LEVEL, out[k]))
				memset(out[k], 0, sizeof(*out[k]));
			free(v);
		}
		break;
	}
	json_decref(j);
	return rc;
}

static void fill_compare(struct ls_entry *e)
{
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/ppbench", e->path);
	json_t *a = load(p, "summary.json", NULL, 0);
	snprintf(p, sizeof(p), "%s/pytorch", e->path);
	json_t *b = load(p, "summary.json", NULL, 0);
	if (a) {
		fill_run(e, a);
		free(e->row);
		e->row = NULL;
		e->rep_n = 0;
	}
	/* the figures compare.md gives: the medians over the repeats */
	struct stats_summary sa, sb;
	if (!compare_ips(e->path, &sa, &sb)) {
		char cell[64];
		e->ips = sa;
		e->ips_as_compare = 1;
		compare_fmt_cell(cell, sizeof(cell), &sb, NULL);
		if (sb.n)
			snprintf(e->ips_note, sizeof(e->ips_note), "ppbench; PyTorch %s", cell);
	} else {
		/* an older folder: repeat 1's figures */
		double tb = b ? metric_from_json(metric_find("images_per_s"), b) : NAN;
		if (isfinite(tb))
			snprintf(e->ips_note, sizeof(e->ips_note), "ppbench; PyTorch %.1f", tb);
	}
	e->complete = a && b && is_file(e->path, "compare.md") &&
		json_is_true(json_object_get(a, "complete")) && json_is_true(json_object_get(b, "complete"));
	snprintf(e->status, sizeof(e->status), "%s", e->complete ? "complete" :
		 !is_file(e->path, "compare.md") ? "incomplete: no compare.md" : "incomplete");
	json_decref(a);
	json_decref(b);
}

/* What kind of results folder path is ("" when none): by its files. why
 * gets the reason when its summary.json cannot be read. */
static const char *kind_of(const char *path, json_t **summary, char *why, size_t whylen)
{
	*summary = NULL;
	if (is_file(path, "sweep.json"))
		return "sweep";
	if (is_file(path, "compare.md") || (is_file(path, "ppbench") && is_file(path, "pytorch")))
		return "compare";
	if (is_file(path, "map.csv"))
		return "map";
	if (is_file(path, "comparison.csv"))
		return "merge";
	if (is_file(path, "strategies.json"))
		return "strategies";
	if (is_file(path, "bottleneck.json"))
		return "bottleneck";
	if (is_file(path, "bench.json"))
		return "bench";
	if (!is_file(path, "summary.json"))
		return "";
	*summary = load(path, "summary.json", why, whylen);
	/* a results folder of another command says so in "tool" ("ppbench bench") */
	const char *tool = json_text(*summary, "tool", "ppbench");
	static char k[16];
	if (!strncmp(tool, "ppbench ", 8)) {
		snprintf(k, sizeof(k), "%s", tool + 8);
		return k;
	}
	return "run";
}

/* linked: root was reached through a symbolic link (what is under it may
 * be outside DIR) */
static int collect_one(struct ls_list *l, const char *root, const char *prefix, const char *name,
		       int depth, int linked);

/* Is path a symbolic link? */
static int is_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* Only the temporary folders of root (a sweep's runs/). */
static int collect_tmp(struct ls_list *l, const char *root, const char *prefix, int linked)
{
	DIR *d = opendir(root);
	struct dirent *de;
	struct results_name rn;
	int rc = 0;

	if (!d)
		return 0;
	while (!rc && (de = readdir(d)))
		if (de->d_name[0] == '.' && !results_name_parse(de->d_name, &rn) && rn.tmp)
			rc = collect_one(l, root, prefix, de->d_name, 2, linked);
	closedir(d);
	return rc;
}

/* One entry of root named name: a results folder, a temporary one, or a
 * folder of results (listed with its contents). */
static int collect_one(struct ls_list *l, const char *root, const char *prefix, const char *name,
		       int depth, int linked)
{
	struct results_name rn;
	struct stat st;
	char path[PATH_MAX];
	json_t *sum = NULL;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return 0;
	int named = !results_name_parse(name, &rn);
	if (name[0] == '.' && !(named && rn.tmp))
		return 0;
	/* a temporary folder is ppbench's own, never a link to something else */
	if (named && rn.tmp && (lstat(path, &st) || !S_ISDIR(st.st_mode)))
		return 0;
	char why[300] = "";
	const char *kind = rn.tmp ? "tmp" : kind_of(path, &sum, why, sizeof(why));
	if (!*kind && is_file(path, "reproduce.args")) {
		/* make reproduce's folder: its own line (done or not), then its sweeps */
		struct ls_entry *e = ls_add(l);
		if (!e)
			return -1;
		snprintf(e->name, sizeof(e->name), "%s%s", prefix, name);
		snprintf(e->path, sizeof(e->path), "%s", path);
		snprintf(e->kind, sizeof(e->kind), "reproduce");
		e->t = named ? rn.t : st.st_mtime;
		snprintf(e->tag, sizeof(e->tag), "%s", named ? rn.tag : "");
		e->complete = is_file(path, "report.md");
		if (e->complete)
			snprintf(e->status, sizeof(e->status), "complete: report.md");
		else
			snprintf(e->status, sizeof(e->status), "incomplete: make reproduce RESUME=%.500s "
				 "finishes it", path);
	}
	if (!*kind) {
		/* a folder of results (make reproduce, a Slurm job): its contents */
		if (depth < 2) {
			char pre[512];
			snprintf(pre, sizeof(pre), "%s%s/", prefix, name);
			return listing_collect(l, path, pre, depth + 1, linked || is_link(path));
		}
		return 0;
	}
	struct ls_entry *e = ls_add(l);
	if (!e) {
		json_decref(sum);
		return -1;
	}
	snprintf(e->name, sizeof(e->name), "%s%s", prefix, name);
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	e->t = named ? rn.t : st.st_mtime;
	snprintf(e->tag, sizeof(e->tag), "%s", named ? rn.tag : "");
	if (rn.tmp) {
		int held = results_dir_held(path);
		e->stale = held == 0;
		e->linked = linked;
		e->complete = 0;
		snprintf(e->status, sizeof(e->status), "%s", held == 1 ? "in progress" : held != 0 ?
			 "temporary (cannot tell whether a process holds it)" : linked ?
			 "stale, reached through a symbolic link (ls --clean removes nothing outside the "
			 "folder listed)" : "stale: left by a killed run (ppbench ls --clean removes it)");
	} else if (!strcmp(kind, "sweep")) {
		fill_sweep(e);
	} else if (!strcmp(kind, "compare")) {
		fill_compare(e);
	} else if (sum) {
		fill_run(e, sum);
	} else if (why[0]) {
		e->complete = 0;
		snprintf(e->status, sizeof(e->status), "unreadable summary.json: %s", why);
	} else {
		e->complete = is_file(path, "report.md") || is_file(path, "map.md") ||
			is_file(path, "strategies.md") || is_file(path, "bottleneck.csv") ||
			is_file(path, "bench.csv");
		snprintf(e->status, sizeof(e->status), "%s", e->complete ? "complete" : "incomplete");
	}
	if (!strcmp(kind, "sweep")) {
		/* a killed sweep leaves its run's temporary folder in runs/ */
		char runs[PATH_MAX + 8], pre[600];
		snprintf(runs, sizeof(runs), "%s/runs", path);
		snprintf(pre, sizeof(pre), "%s%s/runs/", prefix, name);
		json_decref(sum);
		return collect_tmp(l, runs, pre, linked || is_link(runs));
	}
	if (named && rn.partial) {
		e->complete = 0;
		snprintf(e->status, sizeof(e->status), "partial: kept when it could not be completed");
		if (sum && json_text(sum, "write_error", NULL))
			add_note(e->status, sizeof(e->status), "%s", json_text(sum, "write_error", ""));
	}
	json_decref(sum);
	return 0;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

int listing_collect(struct ls_list *l, const char *root, const char *prefix, int depth, int linked)
{
	DIR *d = opendir(root);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return depth ? 0 : -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*nn));
			if (!nn)
				break;
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		if (!rc && collect_one(l, root, prefix, names[i], depth, linked))
			rc = -2;
		free(names[i]);
	}
	free(names);
	return rc;
}

/* The noise of the repeats of one run, in one phrase. */
static void repeats_noise(const struct sweep_row *const *rp, size_t m, char *out, size_t n)
{
	size_t busy = 0, steal = 0, over = 0;
	double most = 0;
	out[0] = 0;
	for (size_t i = 0; i < m; i++) {
		if (rp[i]->others_cpu_pct > REPORT_BUSY_PCT) {
			busy++;
			if (rp[i]->others_cpu_pct > most)
				most = rp[i]->others_cpu_pct;
		}
		steal += rp[i]->steal_pct > REPORT_BUSY_PCT;
		over += rp[i]->oversubscribed > 0.5;
	}
	if (busy)
		add_note(out, n, "busy in %zu of %zu repeats (others up to %.0f %%)", busy, m, most);
	if (steal)
		add_note(out, n, "steal in %zu of %zu", steal, m);
	if (over)
		add_note(out, n, "oversubscribed in %zu of %zu", over, m);
}

/* The repeats of one `run --repeat N` (tag-r1 .. tag-rN, one after the
 * other) become one line with the median and spread. */
void listing_group_repeats(struct ls_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct ls_entry *e = &l->e[i];
		if (strcmp(e->kind, "run") || e->rep_n < 2 || e->rep_k != 1 || !e->row)
			continue;
		const struct sweep_row **rp = calloc((size_t)e->rep_n, sizeof(*rp));
		size_t m = 0;
		if (!rp)
			return;
		rp[m++] = e->row;
		for (size_t j = i + 1; j < l->n && m < (size_t)e->rep_n; j++) {
			struct ls_entry *f = &l->e[j];
			if (!strcmp(f->kind, "run") && f->row && f->rep_k == (int)m + 1 &&
			    f->rep_n == e->rep_n && !strcmp(f->rep_tag, e->rep_tag) &&
			    !strcmp(f->config, e->config) && !strcmp(f->dataset, e->dataset)) {
				rp[m++] = f->row;
				f->absorbed = 1;
				if (!f->complete)
					e->complete = 0;
			}
		}
		repeats_noise(rp, m, e->noise, sizeof(e->noise));
		struct combined *c = malloc(sizeof(*c));
		if (c && !repeats_combine(rp, m, c))
			e->ips = *combined_spread(c, "images_per_s");
		free(c);
		if (m < (size_t)e->rep_n) {
			snprintf(e->ips_note, sizeof(e->ips_note), "%zu of %d repeats", m, e->rep_n);
			e->complete = 0;
		}
		snprintf(e->tag, sizeof(e->tag), "%s", e->rep_tag);
		free(rp);
	}
}
