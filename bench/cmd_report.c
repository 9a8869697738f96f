/* ppbench report DIR / ppbench plots DIR: a sweep's table (summary.csv),
 * its figures (data files drawn by the plots/ scripts), the verdicts on the Lotus
 * findings, and report.md / report.html. */
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
#include "commands.h"
#include "emit.h"
#include "csv.h"
#include "doc.h"
#include "log.h"
#include "fsutil.h"
#include "metrics.h"
#include "model.h"
#include "repeats.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "trace.h"

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ---- rows -------------------------------------------------------------- */

/* The identity columns of summary.csv; the figures follow from the metric
 * table (bench/metrics.h). */
enum ctype { CT_INT, CT_INT_OPT, CT_STR };

struct rcol {
	const char *name;
	enum ctype type;
	size_t off, size;
};

#define CI(f) { #f, CT_INT, offsetof(struct sweep_row, f), 0 }
#define CIO(f) { #f, CT_INT_OPT, offsetof(struct sweep_row, f), 0 }
#define CS(f) { #f, CT_STR, offsetof(struct sweep_row, f), sizeof(((struct sweep_row *)0)->f) }
static const struct rcol rcols[] = {
	CI(part), CI(config), CI(repeat), CS(tag), CS(status), CIO(exit_code), CS(run_dir), CS(cache),
	CI(workers), CI(batch), CI(gpus), CS(policy), CI(complete), CS(checksum), CS(counters),
	CS(hw_events),
};
#undef CI
#undef CIO
#undef CS
#define NRCOLS (sizeof(rcols) / sizeof(rcols[0]))

#define FIELD(base, off, type) ((type *)((char *)(base) + (off)))

void sweep_row_init(struct sweep_row *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < metric_count; i++)
		*metric_row_field(&metric_table[i], r) = NAN;
	r->exit_code = -1;
	snprintf(r->status, sizeof(r->status), "%s", RUN_PENDING);
}

static void op_init(struct sweep_op *o, const char *name)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	for (size_t i = 0; i < op_metric_count; i++)
		*op_metric_field(&op_metric_table[i], o) = NAN;
}

const struct sweep_op *sweep_row_op(const struct sweep_row *r, const char *name)
{
	for (size_t i = 0; i < r->nops; i++)
		if (!strcmp(r->ops[i].name, name))
			return &r->ops[i];
	return NULL;
}

static struct sweep_op *row_op_add(struct sweep_row *r, const char *name)
{
	struct sweep_op *o = (struct sweep_op *)sweep_row_op(r, name);
	if (o)
		return o;
	if (r->nops == SWEEP_MAX_OPS)
		return NULL;
	o = &r->ops[r->nops++];
	op_init(o, name);
	return o;
}

/* What the hardware events of a run came to (struct sweep_row hw_events). */
static void hw_events_status(json_t *events, char *out, size_t n)
{
	json_t *e;
	size_t i;
	int asked = 0, ok = 0;
	const char *first = NULL, *why = NULL;

	json_array_foreach(events, i, e) {
		const char *st = json_string_value(json_object_get(e, "status"));
		if (!json_is_true(json_object_get(e, "hw")) || !st)
			continue;
		asked++;
		if (!strcmp(st, "ok") || !strcmp(st, "scaled"))
			ok++;
		else if (!first) {
			first = json_string_value(json_object_get(e, "name"));
			why = json_string_value(json_object_get(e, "reason"));
			if (!why)
				why = st;
		}
	}
	if (!asked)
		snprintf(out, n, "%s", "");
	else if (ok)
		snprintf(out, n, "ok");
	else
		snprintf(out, n, "not supported: %s: %s", first ? first : "?", why ? why : "?");
}

void sweep_row_from_summary(struct sweep_row *r, json_t *s)
{
	json_t *ops, *v, *c = json_object_get(s, "counters");
	const char *key;

	for (size_t i = 0; i < metric_count; i++)
		if (metric_table[i].src == MSRC_RUN)
			*metric_row_field(&metric_table[i], r) = metric_from_json(&metric_table[i], s);
	r->complete = json_is_true(json_object_get(s, "complete"));
	v = json_object_get(json_object_get(s, "options"), "policy");
	if (json_is_string(v))
		snprintf(r->policy, sizeof(r->policy), "%s", json_string_value(v));
	v = json_object_get(s, "checksum");
	if (json_is_string(v))
		snprintf(r->checksum, sizeof(r->checksum), "%s", json_string_value(v));
	ops = json_object_get(s, "ops");
	r->nops = 0;
	json_object_foreach(ops, key, v) {
		struct sweep_op *o = row_op_add(r, key);
		if (!o)
			break;
		for (size_t i = 0; i < op_metric_count; i++)
			*op_metric_field(&op_metric_table[i], o) =
				metric_json_get(v, op_metric_table[i].json);
	}
	if (json_is_object(c)) {
		v = json_object_get(c, "list");
		snprintf(r->counters, sizeof(r->counters), "%s", json_is_string(v) ? json_string_value(v) : "");
		hw_events_status(json_object_get(c, "events"), r->hw_events, sizeof(r->hw_events));
	}
}

/* ---- loading a sweep ------------------------------------------------------*/

void sweep_free(struct sweep *s)
{
	for (size_t i = 0; i < s->nparts; i++)
		json_decref(s->parts[i].doc);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static const char *jstr(json_t *o, const char *key, const char *def)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : def;
}

static int jint(json_t *o, const char *key, int def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

static void strip_slashes(char *p)
{
	for (size_t l = strlen(p); l > 1 && p[l - 1] == '/'; l--)
		p[l - 1] = 0;
}

void sweep_run_path(const struct sweep *s, const struct sweep_row *r, const char *file,
		    char *out, size_t n)
{
	const char *base = r->part >= 0 && (size_t)r->part < s->nparts ? s->parts[r->part].dir : s->dir;

	if (r->run_dir[0] == '/')
		errf(out, n, "%s%s%s", r->run_dir, *file ? "/" : "", file);
	else
		errf(out, n, "%s/%s%s%s", base, r->run_dir, *file ? "/" : "", file);
}

/* Appends the runs of the sweep folder dir as part s->nparts. */
static int load_part(struct sweep *s, const char *dir, char *err, size_t errlen)
{
	struct sweep_part *pt;
	char path[4096];
	json_error_t je;
	json_t *runs;
	size_t n, base = s->nrows;
	int config0 = 0;

	if (s->nparts == SWEEP_MAX_PARTS) {
		errf(err, errlen, "at most %d sweep folders in one report", SWEEP_MAX_PARTS);
		return -1;
	}
	pt = &s->parts[s->nparts];
	snprintf(pt->dir, sizeof(pt->dir), "%s", dir);
	strip_slashes(pt->dir);
	{
		const char *slash = strrchr(pt->dir, '/');
		snprintf(pt->name, sizeof(pt->name), "%s", slash && slash[1] ? slash + 1 : pt->dir);
	}
	errf(path, sizeof(path), "%s/sweep.json", pt->dir);
	pt->doc = json_load_file(path, 0, &je);
	if (!pt->doc) {
		if (!file_exists(path))
			errf(err, errlen, "'%s' is not a sweep folder: no sweep.json", pt->dir);
		else
			errf(err, errlen, "cannot read '%s': line %d: %s", path, je.line, je.text);
		return -1;
	}
	s->nparts++;
	/* the CPUs the sweep's runs could use (affinity, cpuset, quota), else
	 * the machine's */
	if (!s->cpus && metric_json_get(pt->doc, "machine.cpus_usable") >= 1)
		s->cpus = (int)metric_json_get(pt->doc, "machine.cpus_usable");
	if (!s->cpus && metric_json_get(pt->doc, "machine.cpus_online") > 0)
		s->cpus = (int)metric_json_get(pt->doc, "machine.cpus_online");
	runs = json_object_get(pt->doc, "runs");
	if (!json_is_array(runs)) {
		errf(err, errlen, "'%s': no \"runs\" array", path);
		return -1;
	}
	n = json_array_size(runs);
	struct sweep_row *rows = realloc(s->rows, (base + n + 1) * sizeof(*rows));
	if (!rows) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	s->rows = rows;
	for (size_t i = 0; i < base; i++)
		if (rows[i].config > config0)
			config0 = rows[i].config;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(runs, i), *sum;
		struct sweep_row *r = &rows[base + i];

		sweep_row_init(r);
		r->part = (int)s->nparts - 1;
		r->config = config0 + jint(e, "config", (int)i + 1);
		r->repeat = jint(e, "repeat", 1);
		r->workers = jint(e, "workers", 0);
		r->batch = jint(e, "batch_size", 0);
		r->gpus = jint(e, "gpus", 0);
		snprintf(r->policy, sizeof(r->policy), "%s", jstr(e, "policy", ""));
		r->exit_code = jint(e, "exit_code", -1);
		snprintf(r->tag, sizeof(r->tag), "%s", jstr(e, "tag", ""));
		snprintf(r->status, sizeof(r->status), "%s", jstr(e, "status", RUN_PENDING));
		snprintf(r->run_dir, sizeof(r->run_dir), "%s", jstr(e, "run_dir", ""));
		snprintf(r->cache, sizeof(r->cache), "%s", jstr(e, "page_cache", ""));
		for (size_t m = 0; m < metric_count; m++)
			if (metric_table[m].src == MSRC_SWEEP)
				*metric_row_field(&metric_table[m], r) = metric_json_get(e, metric_table[m].json);
		s->nrows++;
		if (!r->run_dir[0])
			continue;
		sweep_run_path(s, r, "summary.json", path, sizeof(path));
		sum = json_load_file(path, 0, &je);
		if (!sum)
			continue;
		sweep_row_from_summary(r, sum);
		json_decref(sum);
	}
	return 0;
}

int sweep_load(struct sweep *s, const char *dir, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	strip_slashes(s->dir);
	if (load_part(s, s->dir, err, errlen)) {
		sweep_free(s);
		return -1;
	}
	s->doc = s->parts[0].doc;
	return 0;
}

int sweep_load_many(struct sweep *s, char *const *dirs, size_t n, const char *out,
		    char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", out);
	strip_slashes(s->dir);
	for (size_t i = 0; i < n; i++)
		if (load_part(s, dirs[i], err, errlen)) {
			sweep_free(s);
			return -1;
		}
	s->doc = s->nparts ? s->parts[0].doc : NULL;
	return 0;
}

/* ---- summary.csv ------------------------------------------------------- */

/* The union of the rows' op names, in order of first appearance. */
static size_t op_union(const struct sweep_row *r, size_t n, char (*names)[40], size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < r[i].nops; j++) {
			size_t m;
			for (m = 0; m < k; m++)
				if (!strcmp(names[m], r[i].ops[j].name))
					break;
			if (m == k && k < max)
				snprintf(names[k++], 40, "%s", r[i].ops[j].name);
		}
	return k;
}

/* CSV-safe text: commas and newlines become spaces */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ',' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

int sweep_write_csv(const struct sweep *s, const char *path, char *err, size_t errlen)
{
	char names[2 * SWEEP_MAX_OPS][40];
	size_t nn = op_union(s->rows, s->nrows, names, 2 * SWEEP_MAX_OPS);
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		errf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
		return -1;
	}
	for (size_t c = 0; c < NRCOLS; c++)
		fprintf(f, "%s%s", c ? "," : "", rcols[c].name);
	for (size_t c = 0; c < metric_count; c++)
		fprintf(f, ",%s", metric_table[c].name);
	for (size_t k = 0; k < nn; k++)
		for (size_t c = 0; c < op_metric_count; c++)
			fprintf(f, ",op_%s_%s", names[k], op_metric_table[c].name);
	fputc('\n', f);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		for (size_t c = 0; c < NRCOLS; c++) {
			const struct rcol *rc = &rcols[c];
			if (c)
				fputc(',', f);
			switch (rc->type) {
			case CT_INT:
				fprintf(f, "%d", *FIELD(r, rc->off, const int));
				break;
			case CT_INT_OPT:
				if (*FIELD(r, rc->off, const int) >= 0)
					fprintf(f, "%d", *FIELD(r, rc->off, const int));
				break;
			case CT_STR:
				put_text(f, FIELD(r, rc->off, const char));
				break;
			}
		}
		for (size_t c = 0; c < metric_count; c++) {
			fputc(',', f);
			metric_put_num(f, metric_row_get(&metric_table[c], r));
		}
		for (size_t k = 0; k < nn; k++) {
			const struct sweep_op *o = sweep_row_op(r, names[k]);
			for (size_t c = 0; c < op_metric_count; c++) {
				fputc(',', f);
				if (o)
					metric_put_num(f, op_metric_get(&op_metric_table[c], o));
			}
		}
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int sweep_read_csv(struct sweep *s, const char *path, char *err, size_t errlen)
{
	struct table t;
	int cols[NRCOLS], *mcols;

	memset(s, 0, sizeof(*s));
	if (table_read(&t, path, err, errlen))
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s", path);
	char *slash = strrchr(s->dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(s->dir, sizeof(s->dir), ".");
	s->nparts = 1;
	snprintf(s->parts[0].dir, sizeof(s->parts[0].dir), "%s", s->dir);
	snprintf(s->parts[0].name, sizeof(s->parts[0].name), "%s", "summary.csv");
	s->rows = calloc(t.nrows ? t.nrows : 1, sizeof(*s->rows));
	mcols = calloc(metric_count, sizeof(*mcols));
	if (!s->rows || !mcols) {
		free(mcols);
		table_free(&t);
		errf(err, errlen, "out of memory");
		return -1;
	}
	s->nrows = t.nrows;
	for (size_t c = 0; c < NRCOLS; c++)
		cols[c] = table_col(&t, rcols[c].name);
	for (size_t c = 0; c < metric_count; c++)
		mcols[c] = table_col(&t, metric_table[c].name);
	for (size_t i = 0; i < t.nrows; i++) {
		struct sweep_row *r = &s->rows[i];
		sweep_row_init(r);
		for (size_t c = 0; c < NRCOLS; c++) {
			const struct rcol *rc = &rcols[c];
			const char *v = table_str(&t, i, cols[c]);
			if (cols[c] < 0)
				continue;
			switch (rc->type) {
			case CT_INT:
			case CT_INT_OPT:
				*FIELD(r, rc->off, int) = *v ? atoi(v) : (rc->type == CT_INT_OPT ? -1 : 0);
				break;
			case CT_STR:
				snprintf(FIELD(r, rc->off, char), rc->size, "%s", v);
				break;
			}
		}
		for (size_t c = 0; c < metric_count; c++)
			if (mcols[c] >= 0)
				*metric_row_field(&metric_table[c], r) = table_num(&t, i, mcols[c]);
		/* op_<name>_<field> */
		for (size_t c = 0; c < t.ncols; c++) {
			const char *h = t.hdr[c];
			size_t hl = strlen(h);
			if (strncmp(h, "op_", 3) || !*table_str(&t, i, (int)c))
				continue;
			for (size_t k = 0; k < op_metric_count; k++) {
				const char *mn = op_metric_table[k].name;
				size_t sl = strlen(mn);
				char name[40];
				struct sweep_op *o;
				if (hl < 3 + sl + 2 || h[hl - sl - 1] != '_' || strcmp(h + hl - sl, mn))
					continue;
				snprintf(name, sizeof(name), "%.*s", (int)(hl - sl - 4), h + 3);
				o = row_op_add(r, name);
				if (o)
					*op_metric_field(&op_metric_table[k], o) = table_num(&t, i, (int)c);
				break;
			}
		}
	}
	free(mcols);
	table_free(&t);
	return 0;
}

/* A figure (its offset in struct sweep_op) of an op in a configuration,
 * the repeats combined; NaN if the op is not there. */
static double agg_op(const struct sweep_config *a, const char *op, size_t off)
{
	const struct sweep_op *o = sweep_row_op(&a->c.r, op);
	return o ? *(const double *)((const char *)o + off) : NAN;
}


/* ---- figures ----------------------------------------------------------- */

static int is_top(const char *dir)
{
	char p[4096];
	errf(p, sizeof(p), "%s/plots/common.gp", dir);
	return file_exists(p);
}

int report_find_top(char *out, size_t n)
{
	char exe[4096], cwd[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len > 0) {
		exe[len] = 0;
		/* bench/ppbench, build/<tree>/ppbench, build/<tree>/tests/test_x */
		for (int up = 0; up < 4; up++) {
			char *slash = strrchr(exe, '/');
			if (!slash || slash == exe)
				break;
			*slash = 0;
			if (is_top(exe)) {
				snprintf(out, n, "%s", exe);
				return 0;
			}
		}
	}
	if (getcwd(cwd, sizeof(cwd)) && is_top(cwd)) {
		snprintf(out, n, "%s", cwd);
		return 0;
	}
	return -1;
}

/* out.png is a PNG and out.svg an SVG */
static int figure_ok(const char *out)
{
	char p[4096];
	errf(p, sizeof(p), "%s.png", out);
	if (!file_has_magic(p, "\x89PNG\r\n\x1a\n", 8, 8))
		return 0;
	errf(p, sizeof(p), "%s.svg", out);
	return file_has_magic(p, "<svg", 4, 1024);
}

/* gnuplot -c script data out [arg3], output appended to log; then OUT.png
 * and OUT.svg must be valid. 0, or -1 with why. */
static int gnuplot(const char *top, const char *script, const char *data, const char *out,
		   const char *arg3, const char *log, char *why, size_t whylen)
{
	char p[4096];
	const char *args[] = { data, out, arg3 ? arg3 : "", NULL };

	errf(p, sizeof(p), "%s.png", out);
	unlink(p);
	errf(p, sizeof(p), "%s.svg", out);
	unlink(p);
	if (plot_run(top, script, args, log, why, whylen))
		return -1;
	if (!figure_ok(out)) {
		errf(why, whylen, "gnuplot wrote no valid PNG and SVG for plots/%s "
			"(see figures/gnuplot.log)", script);
		return -1;
	}
	return 0;
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
		k[4] = a->batch;
	} else {
		k[1] = a->batch;
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
		snprintf(out, n, "%sb%d / workers = GPUs", pre, a->batch);
	} else {
		snprintf(out, n, "%sb%d / %d GPU%s", pre, a->batch, a->gpus, a->gpus == 1 ? "" : "s");
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
static void agg_label(const struct sweep *s, const struct sweep_config *a, char *out, size_t n)
{
	if (s->nparts > 1)
		snprintf(out, n, "%d: w%d b%d g%d", a->part + 1, a->workers, a->batch, a->gpus);
	else
		snprintf(out, n, "w%d b%d g%d", a->workers, a->batch, a->gpus);
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
		fprintf(f, "%d,%s,%d,%d,%d,%d", out, label, s[i].workers, s[i].batch, s[i].gpus,
			s[i].n);
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
		fprintf(f, ",%s\n", s[i].policy);
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
				fprintf(f, "%d,model: %s,%d,%d,%d,1", out, label, s[j].workers, s[j].batch,
					s[j].gpus);
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
			if (a[j].part == a[i].part && a[j].batch == a[i].batch &&
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
	return x->part == g->part && x->batch == g->batch && x->gpus == g->gpus;
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
				fprintf(f, "%d,%s,%d,%d,%d,%d,%d", p + 1, a[i].policy, a[i].workers, xi,
					a[i].batch, a[i].gpus, a[i].n);
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
			fprintf(f, "%d,%s,%d", series, names[k], s[i].workers);
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
static const struct {
	const char *fig, *col, *title, *ylabel, *needs;
	size_t off;
} counter_figs[] = {
	{ "fig6e_ipc_vs_workers", "ipc", "Instructions per cycle by op against workers (Fig. 6e)",
	  "instructions per cycle", "cycles and instructions (--counters basic)",
	  offsetof(struct sweep_op, ipc) },
	{ "fig6f_cache_mpki_vs_workers", "cache_mpki",
	  "Cache misses per kilo-instruction by op against workers (Fig. 6f)",
	  "cache misses per 1000 instructions",
	  "cache-misses and instructions (--counters basic)",
	  offsetof(struct sweep_op, cache_mpki) },
	{ "fig6g_frontend_stall_vs_workers", "frontend_stall_pct",
	  "Front-end stall cycles by op against workers (Fig. 6g)", "front-end stall cycles (%)",
	  "front-end stall cycles (--counters topdown)",
	  offsetof(struct sweep_op, frontend_stall_pct) },
	{ "fig6h_backend_stall_vs_workers", "backend_stall_pct",
	  "Back-end stall cycles by op against workers (Fig. 6h)", "back-end stall cycles (%)",
	  "back-end stall cycles (--counters topdown)",
	  offsetof(struct sweep_op, backend_stall_pct) },
};
#define NCOUNTER_FIGS (sizeof(counter_figs) / sizeof(counter_figs[0]))

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
			fprintf(f, "%d,%s,%d", series, names[k], s[i].workers);
			csv_real(f, v);
			fputc('\n', f);
		}
	}
	return vals;
}

/* Why a derived counter figure has nothing to draw: what the ok runs say
 * of their hardware events. */
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
	else if (!known)
		snprintf(why, n, "the runs did not count events (ppbench run --counters)");
	else
		snprintf(why, n, "the runs did not count %s", counter_figs[fig].needs);
}

static void config_label(const struct sweep *s, const struct sweep_row *r, char *out, size_t n)
{
	if (!s->nparts)   /* a run report: its repeats */
		snprintf(out, n, "%s", r->tag);
	else if (s->nparts > 1)
		snprintf(out, n, "%d: w%d b%d g%d", r->part + 1, r->workers, r->batch, r->gpus);
	else
		snprintf(out, n, "w%d b%d g%d", r->workers, r->batch, r->gpus);
}

/* Per-configuration data from each configuration's first ok run:
 * batches.csv, preproc_box.csv, percentiles.csv. Returns the number of
 * configurations written, or -1 with err. */
static int write_per_config(const struct sweep *s, const char *datadir, char *err, size_t errlen)
{
	char p[4096], label[64];
	FILE *fb = NULL, *fx = NULL, *fp = NULL;
	struct sweep_config *a = NULL;
	size_t na = sweep_configs(s->rows, s->nrows, &a);
	int series = 0, rc = -1;

	errf(p, sizeof(p), "%s/batches.csv", datadir);
	fb = fopen(p, "w");
	errf(p, sizeof(p), "%s/preproc_box.csv", datadir);
	fx = fopen(p, "w");
	errf(p, sizeof(p), "%s/percentiles.csv", datadir);
	fp = fopen(p, "w");
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
		if (!r->run_dir[0] || table_read(&t, p, NULL, 0))
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
			fprintf(fb, "%d,%s,%s", series, label, table_str(&t, i, cid));
			csv_real(fb, w / 1e6);
			csv_real(fb, d / 1e6);
			csv_real(fb, pr / 1e6);
			fprintf(fb, ",%d\n", ooo);
			if (isfinite(pr) && (!isfinite(sm) || sm >= r->batch))
				pre[npre++] = pr / 1e6;
			if (isfinite(d))
				del[ndel++] = d / 1e6;
			if (isfinite(w) && !ooo)
				wai[nwai++] = w / 1e6;
		}
		analysis_cut_low_tail(pre, npre, &first);
		for (size_t i = first; i < npre; i++) {
			fprintf(fx, "%d,%s", series, label);
			csv_real(fx, pre[i]);
			fputc('\n', fx);
		}
		stats_sort(del, ndel);
		stats_sort(wai, nwai);
		for (int q = 0; q <= 100 && ndel; q++) {
			fprintf(fp, "%d,%s,%d", series, label, q);
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
		snprintf(sub, sizeof(sub), "lotustrace/b%d_gpu%d", r->batch, r->gpus);
		sweep_run_path(s, r, sub, dir, sizeof(dir));
	}
	if (lotustrace_read(dir, LOTUSTRACE_PREFIX, &t, err, sizeof(err))) {
		errf(why, whylen, "no LotusTrace files in run %s (--trace off?): %s", r->tag, err);
		return 0;
	}
	f = fopen(path, "w");
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
			fprintf(f, "%d,%s", series, name);
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

/* draws figures/<name> from data with plots/<script>, recording the outcome */
static void draw(const char *top, const char *figdir, const char *log, struct fig_status *f,
		 const char *script, const char *data, const char *arg3)
{
	char out[4096];
	if (!top) {
		snprintf(f->why, sizeof(f->why), "the plots/ folder was not found (run from the "
			 "repository, or keep bench/ppbench in it)");
		return;
	}
	snprintf(out, sizeof(out), "%s/%s", figdir, f->name);
	f->drawn = gnuplot(top, script, data, out, arg3, log, f->why, sizeof(f->why)) == 0;
}

/* The figures of single runs, a sweep's and a run report's: Table II's CDF
 * (the run with the fewest workers) and Figs. 4, 5a, 5b (one series per
 * configuration). 0, or -1 with err when a data file cannot be written. */
static int draw_run_figures(const struct sweep *s, const char *top, const char *figdir,
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
			draw(top, figdir, log, f, "table2_op_cdf.gp", p, sub);
		}
	}

	/* per configuration: Figs. 4, 5a, 5b */
	int ncfg = write_per_config(s, datadir, err, errlen);
	if (ncfg < 0)
		return -1;
	static const struct {
		const char *name, *script, *data;
	} per_cfg[] = {
		{ "fig4_preproc_boxplot", "fig4_preproc_boxplot.gp", "preproc_box.csv" },
		{ "fig5a_wait_per_batch", "fig5a_wait_per_batch.gp", "batches.csv" },
		{ "fig5b_delay_percentiles", "fig5b_delay_percentiles.gp", "percentiles.csv" },
	};
	for (size_t k = 0; k < sizeof(per_cfg) / sizeof(per_cfg[0]); k++) {
		f = fig_add(st, max, nst, per_cfg[k].name);
		errf(p, sizeof(p), "%s/%s", datadir, per_cfg[k].data);
		if (!ncfg)
			snprintf(f->why, sizeof(f->why), "no finished run has a batches.csv");
		else
			draw(top, figdir, log, f, per_cfg[k].script, p, NULL);
	}
	return 0;
}

int report_figures(const struct sweep *s, struct fig_status *st, size_t max, size_t *nst,
		   char *err, size_t errlen)
{
	char topbuf[4096], figdir[4096], datadir[4096], log[4096], p[4096], p2[4096], sub[160];
	const char *top = report_find_top(topbuf, sizeof(topbuf)) ? NULL : topbuf;
	struct sweep_config *a = NULL, *sw = NULL, *sb = NULL;
	size_t na = sweep_configs(s->rows, s->nrows, &a);
	struct seriesing zw, zb;
	int best_w = 0, best_b = 0, ptw, ptb, rc = -1;
	struct fig_status *f;
	FILE *fh;

	seriesing_init(&zw, 0, s, a, na);
	seriesing_init(&zb, 1, s, a, na);
	*nst = 0;
	snprintf(figdir, sizeof(figdir), "%s/figures", s->dir);
	snprintf(datadir, sizeof(datadir), "%s/figures/data", s->dir);
	snprintf(p, sizeof(p), "%s/figures/paper", s->dir);
	if (mkdir_p(datadir, 0777) || mkdir_p(p, 0777)) {
		errf(err, errlen, "cannot create '%s': %s", datadir, strerror(errno));
		goto out;
	}
	errf(log, sizeof(log), "%s/gnuplot.log", figdir);
	fh = fopen(log, "w");
	if (fh)
		fclose(fh);

	if (draw_run_figures(s, top, figdir, datadir, log, st, max, nst, err, errlen))
		goto out;

	/* against workers, against batch size */
	errf(p, sizeof(p), "%s/vs_workers.csv", datadir);
	fh = fopen(p, "w");
	if (!fh) {
		errf(err, errlen, "cannot create '%s': %s", p, strerror(errno));
		goto out;
	}
	ptw = write_vs(fh, a, na, &zw, &best_w, &sw);
	if (s->model && ptw >= 2)
		write_vs_model(fh, s, sw, na, &zw);
	if (fclose(fh) || ptw < 0) {
		errf(err, errlen, "cannot write '%s'", p);
		goto out;
	}
	errf(p2, sizeof(p2), "%s/vs_batch.csv", datadir);
	fh = fopen(p2, "w");
	if (!fh) {
		errf(err, errlen, "cannot create '%s': %s", p2, strerror(errno));
		goto out;
	}
	ptb = write_vs(fh, a, na, &zb, &best_b, &sb);
	if (fclose(fh) || ptb < 0) {
		errf(err, errlen, "cannot write '%s'", p2);
		goto out;
	}
	static const char no_w[] = "the sweep has one worker count per batch size and GPU count: "
				   "there is no line against workers to draw";
	static const char no_b[] = "the sweep has one batch size per worker and GPU count: "
				   "there is no line against batch size to draw";
	f = fig_add(st, max, nst, "ooo_stall_vs_workers");
	if (ptw < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	else
		draw(top, figdir, log, f, "ooo_stall.gp", p, "workers");
	f = fig_add(st, max, nst, "ooo_stall_vs_batch");
	if (ptb < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_b);
	else
		draw(top, figdir, log, f, "ooo_stall.gp", p2, "batch");
	f = fig_add(st, max, nst, "fig6a_e2e_vs_workers");
	if (ptw < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	else
		draw(top, figdir, log, f, "fig6a_e2e_vs_workers.gp", p, NULL);
	f = fig_add(st, max, nst, "gpu_util_vs_workers");
	if (ptw < 2)
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	else
		draw(top, figdir, log, f, "gpu_util_vs_workers.gp", p, NULL);
	/* the loader policies side by side */
	f = fig_add(st, max, nst, "policies_compare");
	{
		size_t pick = 0;
		int np = na ? policy_group(a, na, &pick) : 0;
		if (zw.npol < 2) {
			snprintf(f->why, sizeof(f->why), "the sweep has one loader policy (compare them "
				 "with sweep --policy \"torch speedy shared-queue\")");
		} else if (np < 2) {
			snprintf(f->why, sizeof(f->why), "no batch size and GPU count finished with "
				 "two policies");
		} else {
			errf(p2, sizeof(p2), "%s/policies.csv", datadir);
			fh = fopen(p2, "w");
			if (!fh) {
				errf(err, errlen, "cannot create '%s': %s", p2, strerror(errno));
				goto out;
			}
			int rows = write_policies(fh, a, na, &a[pick], zw.npol);
			if (fclose(fh) || rows < 0) {
				errf(err, errlen, "cannot write '%s'", p2);
				goto out;
			}
			char part[32] = "";
			if (s->nparts > 1)
				snprintf(part, sizeof(part), "sweep %d: ", a[pick].part + 1);
			snprintf(sub, sizeof(sub), "%sbatch %d, %d GPU%s", part, a[pick].batch,
				 a[pick].gpus, a[pick].gpus == 1 ? "" : "s");
			draw(top, figdir, log, f, "policies.gp", p2, sub);
		}
	}
	f = fig_add(st, max, nst, "fig6b_cpu_vs_workers");
	size_t from = 0, cnt = 0;
	if (ptw < 2) {
		snprintf(f->why, sizeof(f->why), "%s", no_w);
	} else {
		/* the series with the most worker counts */
		int series = 0, prev[NKEY] = { -1, -1, -1, -1, -1 };
		for (size_t i = 0; i < na; i++) {
			int k[NKEY];
			series_key(&zw, &sw[i], k);
			if (new_series(k, prev))
				series++;
			if (series == best_w && !cnt++)
				from = i;
		}
		errf(p2, sizeof(p2), "%s/cpu_by_op.csv", datadir);
		fh = fopen(p2, "w");
		if (!fh) {
			errf(err, errlen, "cannot create '%s': %s", p2, strerror(errno));
			goto out;
		}
		int nops = write_cpu_by_op(fh, s, sw + from, cnt);
		if (fclose(fh) || nops < 0) {
			errf(err, errlen, "cannot write '%s'", p2);
			goto out;
		}
		series_label(&zw, &sw[from], sub, sizeof(sub));
		if (!nops)
			snprintf(f->why, sizeof(f->why), "the runs have no per-op CPU times");
		else
			draw(top, figdir, log, f, "fig6b_cpu_vs_workers.gp", p2, sub);
	}
	/* Figs. 6e-h: derived counters per op, same series */
	for (size_t k = 0; k < NCOUNTER_FIGS; k++) {
		f = fig_add(st, max, nst, counter_figs[k].fig);
		if (ptw < 2) {
			snprintf(f->why, sizeof(f->why), "%s", no_w);
			continue;
		}
		errf(p2, sizeof(p2), "%s/counter_%s.csv", datadir, counter_figs[k].col);
		fh = fopen(p2, "w");
		if (!fh) {
			errf(err, errlen, "cannot create '%s': %s", p2, strerror(errno));
			goto out;
		}
		int nv = write_counter_by_op(fh, s, sw + from, cnt, k);
		if (fclose(fh)) {
			errf(err, errlen, "cannot write '%s'", p2);
			goto out;
		}
		if (!nv)
			counter_fig_why(s, k, f->why, sizeof(f->why));
		else
			draw(top, figdir, log, f, "fig6e_h_counter_vs_workers.gp", p2, sub);
	}

	/* the paper's data, same scripts */
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
	for (size_t k = 0; k < sizeof(paper) / sizeof(paper[0]); k++) {
		f = fig_add(st, max, nst, paper[k].name);
		if (!top) {
			snprintf(f->why, sizeof(f->why), "the repository (plots/, datasets/reference/) "
				 "was not found");
			continue;
		}
		errf(p, sizeof(p), "%s/datasets/reference/lotus/figures/%s", top, paper[k].data);
		draw(top, figdir, log, f, paper[k].script, p, paper[k].arg3);
	}
	rc = 0;
out:
	free(a);
	free(sw);
	free(sb);
	return rc;
}

static const char *num(char *buf, size_t n, double v, int prec)
{
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.*f", prec, v);
	return buf;
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
	FILE *f = fopen(path, "r");
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

static void write_sweep_section(struct doc *d, const struct sweep *s, const struct fig_status *st,
				size_t nst)
{
	json_t *m = json_object_get(s->doc, "machine"), *args, *v;
	char a[256], b[256], c[256], buf[8192];
	size_t i;

	doc_h(d, 2, s->nparts > 1 ? "The sweeps" : "The sweep");
	if (m) {
		double mem = metric_json_get(m, "memory_total_bytes");
		doc_li(d, "Machine: %s, %d CPUs online, %s GiB memory, %s %s; %s.",
		       jstr(m, "cpu_model", "unknown CPU"), s->cpus,
		       num(a, sizeof(a), mem / 1073741824.0, 1),
		       jstr(json_object_get(m, "kernel"), "sysname", ""),
		       jstr(json_object_get(m, "kernel"), "release", ""), jstr(m, "compiler", ""));
	}
	for (size_t p = 0; p < s->nparts; p++) {
		json_t *doc = s->parts[p].doc;
		size_t nok = 0, nfail = 0, ninc = 0, npend = 0, nrun = 0;
		char pre[300] = "";
		if (!doc)
			continue;
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
		const char *cache = jstr(doc, "page_cache", "?");
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
		doc_li(d, "%sdataset %s; page cache before each run: %s%s.", pre, jstr(doc, "data", "?"),
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
		       buf[0] ? buf : "none (the defaults)", jstr(doc, "created_utc", "?"),
		       s->parts[p].dir);
	}
	/* was the machine idle? */
	{
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
	/* the resolved options, from the first finished run */
	for (i = 0; i < s->nrows; i++) {
		char path[4096];
		json_t *sum, *o;
		const char *key;
		if (!s->rows[i].run_dir[0])
			continue;
		sweep_run_path(s, &s->rows[i], "summary.json", path, sizeof(path));
		sum = json_load_file(path, 0, NULL);
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
	const char *cell[12];
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
		snprintf(c[3], sizeof(c[3]), "%d", r->batch);
		snprintf(c[4], sizeof(c[4]), "%d", r->gpus);
		num(c[5], sizeof(c[5]), r->e2e_s, 2);
		num(c[6], sizeof(c[6]), r->images_per_s, 1);
		num(c[7], sizeof(c[7]), r->ops_span_s, 2);
		num(c[8], sizeof(c[8]), r->ooo_pct, 1);
		num(c[9], sizeof(c[9]), r->stall_pct, 1);
		num(c[10], sizeof(c[10]), r->gpu_util_pct, 1);
		snprintf(c[11], sizeof(c[11]), "%.120s", r->run_dir[0] ? r->run_dir : "-");
		/* a run the noise guard found noisy is marked */
		if (r->others_cpu_pct > REPORT_BUSY_PCT || r->steal_pct > REPORT_BUSY_PCT)
			snprintf(c[1], sizeof(c[1]), "%s, NOISY (others %.0f %%)", r->status,
				 r->others_cpu_pct);
		else if (r->oversubscribed > 0.5)
			snprintf(c[1], sizeof(c[1]), "%s, oversubscribed", r->status);
		for (int k = 0; k < 12; k++)
			cell[k] = c[k];
		doc_row(d, cell, 12, 0);
		if (isfinite(r->skipped_files))
			skipped += r->skipped_files;
		nbad += strcmp(r->status, RUN_OK) != 0;
	}
	doc_table_end(d);

	doc_h(d, 3, "Failed, incomplete and missing runs");
	if (!nbad)
		doc_p(d, "None: every planned run finished.");
	for (i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		char log[4096], line[1024];
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
		sweep_run_path(s, &s->rows[i], "summary.json", path, sizeof(path));
		sum = json_load_file(path, 0, NULL);
		files = json_object_get(json_object_get(sum, "skipped"), "files");
		json_array_foreach(files, k, v) {
			if (listed++ >= 20)
				break;
			doc_li(d, "%s (run %s)", json_string_value(v), s->rows[i].tag);
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
	const char *cell[4];
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
		num(c[1], sizeof(c[1]), w, 2);
		num(c[2], sizeof(c[2]), o, 2);
		num(c[3], sizeof(c[3]), x, 2);
		for (int k = 0; k < 4; k++)
			cell[k] = c[k];
		doc_row(d, cell, 4, 0);
	}
	doc_table_end(d);
}


static void write_findings(struct doc *d, const struct sweep *s, const char *top,
			   const struct paper *pp, const struct fig_status *st, size_t nst,
			   const struct finding *fd)
{
	struct sweep_config *a = NULL;
	size_t na = sweep_configs(s->rows, s->nrows, &a);
	char c[8][64];
	const char *cell[8];

	/* 1 */
	doc_h(d, 3, "1. Short ops dominate (Table II)");
	if (pp->ok)
		doc_p(d, "The paper (Table II): the per-sample ops have %.2f-%.2f %% of their calls "
			 "under 10 ms, RandomHorizontalFlip %.1f %% under 100 us. In its table below the "
			 "per-image means and p90 are the artifact's b1024 / 4-GPU row and the shares and "
			 "Collation (per batch of 128) its b128 / 1-GPU row, as the artifact's logs show:",
			 pp->t2_under10_lo, pp->t2_under10_hi, pp->t2_flip_under100us);
	{
		static const char *const cols[] = { "op", "mean_ms", "p90_ms", "pct_under_10ms",
						    "pct_under_100us" };
		static const char *const tit[] = { "op", "mean (ms)", "p90 (ms)", "under 10 ms (%)",
						   "under 100 us (%)" };
		doc_ref_table(d, top, "lotus_ic_per_op_ms.csv", cols, tit, 5, NULL, NULL);
	}
	long t2 = report_table2_row(s->rows, s->nrows, 0);
	if (t2 >= 0 && s->rows[t2].nops) {
		static const char *const tit[] = { "op", "calls", "mean (ms)", "p90 (ms)", "p99 (ms)",
						   "under 10 ms (%)", "under 100 us (%)" };
		const struct sweep_row *r = &s->rows[t2];
		doc_p(d, "This machine, run %s (per sample; collate per batch of %d, transform = all "
			 "transforms of a sample):", r->tag, r->batch);
		doc_row(d, tit, 7, 1);
		for (size_t k = 0; k < r->nops; k++) {
			const struct sweep_op *o = &r->ops[k];
			snprintf(c[0], sizeof(c[0]), "%s", o->name);
			num(c[1], sizeof(c[1]), o->count, 0);
			num(c[2], sizeof(c[2]), o->mean_ms, 3);
			num(c[3], sizeof(c[3]), o->p90_ms, 3);
			num(c[4], sizeof(c[4]), o->p99_ms, 3);
			num(c[5], sizeof(c[5]), o->under_10ms_pct, 2);
			num(c[6], sizeof(c[6]), o->under_100us_pct, 2);
			for (int k2 = 0; k2 < 7; k2++)
				cell[k2] = c[k2];
			doc_row(d, cell, 7, 0);
		}
		doc_table_end(d);
	}
	doc_fig(d, st, nst, "table2_op_cdf", "This machine: per-op time distributions (CDF), 100 us "
		"and 10 ms marked");
	doc_verdict(d, &fd[0], REPORT_RULE_SHORT_OPS);

	/* 2 */
	doc_h(d, 3, "2. Per-batch preprocessing time varies (Fig. 4)");
	if (pp->ok)
		doc_p(d, "The paper (Figs. 4-5, %zu configurations): the per-batch preprocessing time "
			 "has a std of %.2f-%.2f %% of the mean (median %.2f %%) after Lotus's cut of the "
			 "low tail, and its largest IQR is %.1fx its smallest (stated in its text; its "
			 "per-configuration IQRs are not published):", pp->variance.k,
			 pp->variance.std_pct.min, pp->variance.std_pct.max, pp->variance.std_pct.median,
			 pp->iqr_ratio_quoted);
	{
		static const char *const cols[] = { "batch", "gpus", "workers", "preproc_avg_ms",
						    "preproc_std_pct" };
		static const char *const tit[] = { "batch", "GPUs", "workers", "mean (ms)",
						   "std (% of mean)" };
		doc_ref_table(d, top, "lotus_ic_batch_gpu_sweep.csv", cols, tit, 5, NULL, NULL);
	}
	{
		static const char *const tit[] = { "configuration", "batches (after the cut)",
						   "mean (ms)", "std (% of mean)", "IQR (ms)" };
		doc_p(d, "This machine (median over repeats; Lotus's cut of the low tail below "
			 "q1 - 2 x IQR):");
		doc_row(d, tit, 5, 1);
		for (size_t i = 0; i < na; i++) {
			agg_label(s, &a[i], c[0], sizeof(c[0]));
			num(c[1], sizeof(c[1]), a[i].c.r.preproc_batches, 0);
			num(c[2], sizeof(c[2]), a[i].c.r.preproc_avg_ms, 2);
			num(c[3], sizeof(c[3]), a[i].c.r.preproc_std_pct, 2);
			num(c[4], sizeof(c[4]), a[i].c.r.preproc_iqr_ms, 2);
			for (int k = 0; k < 5; k++)
				cell[k] = c[k];
			doc_row(d, cell, 5, 0);
		}
		doc_table_end(d);
	}
	doc_fig(d, st, nst, "fig4_preproc_boxplot", "This machine: per-batch preprocessing time by "
		"configuration (full batches)");
	doc_verdict(d, &fd[1], REPORT_RULE_VARIANCE);

	/* 3 */
	doc_h(d, 3, "3. Out-of-order arrival and a stalled main process (Fig. 5)");
	if (pp->ok)
		doc_p(d, "The paper (workers = GPUs), over its %zu configurations with 2 or more "
			 "workers: %.2f-%.2f %% of batches arrive out of order (median %.2f %%) and the "
			 "main process is stalled %.1f-%.1f %% of the wall time (median %.1f %%); at b512 "
			 "with 2+ workers, %.2f-%.2f %% of batches wait over 500 ms and %.2f-%.2f %% are "
			 "delayed over 500 ms (its 1-worker runs deliver in order and are left out, as "
			 "here):", pp->ooo.k, pp->ooo.ooo.min, pp->ooo.ooo.max, pp->ooo.ooo.median,
			 pp->ooo.stall.min, pp->ooo.stall.max, pp->ooo.stall.median, pp->ooo.wait500.min,
			 pp->ooo.wait500.max, pp->ooo.delay500.min, pp->ooo.delay500.max);
	{
		static const char *const cols[] = { "batch", "gpus", "workers", "ooo_pct", "stall_pct",
						    "wait_gt_500ms_pct", "delay_gt_500ms_pct" };
		static const char *const tit[] = { "batch", "GPUs", "workers", "out of order (%)",
						   "stall (%)", "wait > 500 ms (%)",
						   "delay > 500 ms (%)" };
		doc_ref_table(d, top, "lotus_ic_batch_gpu_sweep.csv", cols, tit, 7, NULL, NULL);
	}
	{
		static const char *const tit[] = { "configuration", "out of order (%)", "stall (%)",
						   "wait > 500 ms (%)", "delay > 500 ms (%)",
						   "GPU util (%)" };
		doc_p(d, "This machine (median over repeats):");
		doc_row(d, tit, 6, 1);
		for (size_t i = 0; i < na; i++) {
			agg_label(s, &a[i], c[0], sizeof(c[0]));
			num(c[1], sizeof(c[1]), a[i].c.r.ooo_pct, 1);
			num(c[2], sizeof(c[2]), a[i].c.r.stall_pct, 1);
			num(c[3], sizeof(c[3]), a[i].c.r.wait_gt_500ms_pct, 1);
			num(c[4], sizeof(c[4]), a[i].c.r.delay_gt_500ms_pct, 1);
			num(c[5], sizeof(c[5]), a[i].c.r.gpu_util_pct, 1);
			for (int k = 0; k < 6; k++)
				cell[k] = c[k];
			doc_row(d, cell, 6, 0);
		}
		doc_table_end(d);
	}
	doc_fig(d, st, nst, "paper/grid_ooo_stall_vs_workers", "The paper: out of order and stall "
		"against workers (= GPUs), Figs. 4-5 grid");
	doc_fig(d, st, nst, "paper/grid_ooo_stall_vs_batch", "The paper: out of order and stall "
		"against batch size");
	doc_fig(d, st, nst, "paper/ooo_stall_vs_workers", "The paper: out of order and stall "
		"against workers, Fig. 6 worker sweep (b1024, 4 GPUs)");
	doc_fig(d, st, nst, "ooo_stall_vs_workers", "This machine: out of order and stall against "
		"workers");
	doc_fig(d, st, nst, "ooo_stall_vs_batch", "This machine: out of order and stall against "
		"batch size");
	doc_fig(d, st, nst, "fig5a_wait_per_batch", "This machine: main-process wait per batch "
		"(log scale)");
	doc_fig(d, st, nst, "fig5b_delay_percentiles", "This machine: delay by percentile, 500 ms "
		"line");
	doc_verdict(d, &fd[2], REPORT_RULE_OUT_OF_ORDER);

	/* 4 */
	doc_h(d, 3, "4. Diminishing returns from more workers (Fig. 6)");
	if (pp->ok && pp->dim.n)
		doc_p(d, "The paper (b%d, %d GPUs): from %d to %d workers E2E falls %.1f %% (%.1f s -> "
			 "%.1f s), and the sum of the ops' spans, which it calls CPU seconds, rises %.1f %% "
			 "(%.1f s -> %.1f s), every op's with it; the front-end-bound share of decode rises "
			 "from %.1f %% to %.1f %% (its text; hardware counters, which ppbench counts per op "
			 "where the machine has a PMU, Figs. 6e-h below):", pp->dim.batch, pp->dim.gpus,
			 pp->dim.w[0], pp->dim.w[pp->dim.n - 1], pp->dim.drop_all_pct, pp->dim.e2e[0],
			 pp->dim.e2e[pp->dim.n - 1], pp->dim.span_rise_pct, pp->dim.span[0],
			 pp->dim.span[pp->dim.n - 1], pp->fe_w8_pct, pp->fe_w28_pct);
	{
		static const char *const cols[] = { "workers", "e2e_s", "cpu_s", "ooo_pct",
						    "stall_pct" };
		static const char *const tit[] = { "workers", "E2E (s)", "op spans (s)",
						   "out of order (%)", "stall (%)" };
		doc_ref_table(d, top, "lotus_ic_worker_sweep.csv", cols, tit, 5, NULL, NULL);
	}
	{
		/* the rule of this report applied to the paper's own curve (paper_load) */
		if (pp->ok && pp->dim.knee)
			doc_p(d, "Under the rule of this report (below), the paper's own knee is at "
				 "%d workers.", pp->dim.knee);
	}
	{
		static const char *const tit[] = { "configuration", "runs", "E2E (s)",
						   "gain of the next step (%)", "op spans (s)",
						   "images/s" };
		doc_p(d, "This machine (median over repeats):");
		doc_row(d, tit, 6, 1);
		for (size_t i = 0; i < na; i++) {
			double gain = NAN;
			/* the next worker count at the same batch and GPUs */
			for (size_t j = 0; j < na; j++)
				if (a[j].part == a[i].part && a[j].batch == a[i].batch &&
				    a[j].gpus == a[i].gpus && a[j].workers > a[i].workers) {
					double g = 100 * (a[i].c.r.e2e_s - a[j].c.r.e2e_s) / a[i].c.r.e2e_s;
					int closer = 1;
					for (size_t k = 0; k < na; k++)
						if (a[k].part == a[i].part && a[k].batch == a[i].batch &&
						    a[k].gpus == a[i].gpus &&
						    a[k].workers > a[i].workers && a[k].workers < a[j].workers)
							closer = 0;
					if (closer)
						gain = g;
				}
			agg_label(s, &a[i], c[0], sizeof(c[0]));
			snprintf(c[1], sizeof(c[1]), "%d", a[i].n);
			num(c[2], sizeof(c[2]), a[i].c.r.e2e_s, 2);
			num(c[3], sizeof(c[3]), gain, 1);
			num(c[4], sizeof(c[4]), a[i].c.r.ops_span_s, 2);
			num(c[5], sizeof(c[5]), a[i].c.r.images_per_s, 1);
			for (int k = 0; k < 6; k++)
				cell[k] = c[k];
			doc_row(d, cell, 6, 0);
		}
		doc_table_end(d);
	}
	doc_fig(d, st, nst, "paper/fig6a_e2e_vs_workers", "The paper: E2E against workers (Fig. 6a)");
	doc_fig(d, st, nst, "paper/fig6b_cpu_vs_workers", "The paper: the sum of op spans (its "
		"\"CPU seconds\") by op against workers (Fig. 6b)");
	doc_fig(d, st, nst, "fig6a_e2e_vs_workers", "This machine: E2E against workers (bars: "
		"min-max over repeats)");
	doc_oncpu(d, s, a, na);
	doc_fig(d, st, nst, "fig6b_cpu_vs_workers", "This machine: the sum of op spans by op "
		"against workers (solid: on a CPU; hatched: descheduled, when the runs counted on-CPU "
		"time)");
	for (size_t k = 0; k < NCOUNTER_FIGS; k++) {
		char cap[160];
		snprintf(cap, sizeof(cap), "This machine: %s", counter_figs[k].title);
		doc_fig(d, st, nst, counter_figs[k].fig, cap);
	}
	doc_fig(d, st, nst, "gpu_util_vs_workers", "This machine: simulated GPU utilization "
		"against workers");
	doc_verdict(d, &fd[3], REPORT_RULE_DIMINISHING);

	/* 5 */
	doc_h(d, 3, "5. Low tracing overhead");
	if (pp->ok)
		doc_p(d, "The paper: LotusTrace costs +%.2f %% of E2E on full ImageNet and +%.1f %% on "
			 "a 26,061-image subset, against the sampling profilers below:",
			 pp->overhead_full_pct, pp->overhead_subset_pct);
	{
		static const char *const cols[] = { "dataset", "images", "profiler", "wall_s",
						    "overhead_pct" };
		static const char *const tit[] = { "dataset", "images", "profiler", "wall (s)",
						   "overhead (%)" };
		doc_ref_table(d, top, "lotus_tracing_overhead.csv", cols, tit, 5, NULL, NULL);
	}
	doc_verdict(d, &fd[4], REPORT_RULE_OVERHEAD);
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
		char title[64], c[11][48];
		const char *cell[11];
		snprintf(title, sizeof(title), "Policy %s", pols[p]);
		doc_h(d, 3, title);
		doc_row(d, hdr, 11, 1);
		for (size_t i = 0; i < na; i++) {
			if (a[i].pol != (int)p)
				continue;
			snprintf(c[0], 48, "%d", a[i].workers);
			snprintf(c[1], 48, "%d", a[i].batch);
			snprintf(c[2], 48, "%d", a[i].gpus);
			snprintf(c[3], 48, "%d", a[i].n);
			num(c[4], 48, a[i].c.r.e2e_s, 3);
			num(c[5], 48, a[i].c.r.images_per_s, 1);
			num(c[6], 48, a[i].c.r.gpu_util_pct, 1);
			num(c[7], 48, a[i].c.r.gpu_idle_s, 3);
			num(c[8], 48, a[i].c.r.sum_wait_s, 3);
			num(c[9], 48, a[i].c.r.ooo_pct, 1);
			if (isnan(a[i].c.r.samples_reordered_count))
				snprintf(c[10], 48, "n/a");
			else if (a[i].c.r.samples_reordered_count > 0)
				snprintf(c[10], 48, "yes (%.0f samples)", a[i].c.r.samples_reordered_count);
			else
				snprintf(c[10], 48, "no");
			for (int k = 0; k < 11; k++)
				cell[k] = c[k];
			doc_row(d, cell, 11, 0);
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
					  s->rows[j].batch == r->batch && s->rows[j].gpus == r->gpus &&
					  s->rows[j].workers == r->workers &&
					  s->rows[j].repeat == r->repeat);
			if (!first)
				continue;
			for (size_t j = i + 1; j < s->nrows; j++) {
				q = &s->rows[j];
				if (!sweep_row_ok(q) || q->part != r->part || q->batch != r->batch ||
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
					 r->workers, r->batch, r->gpus, r->repeat);
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

int report_write(const struct sweep *s, char *err, size_t errlen)
{
	struct fig_status st[REPORT_MAX_FIGS];
	struct finding fd[REPORT_NFINDINGS];
	char path[4096], topbuf[4096], stamp[64];
	const char *top = report_find_top(topbuf, sizeof(topbuf)) ? NULL : topbuf;
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
	struct paper paper;
	if (paper_load(top, &paper, paper.why, sizeof(paper.why)))
		paper.ok = 0;
	struct judge_ctx cx = { .cpus = s->cpus, .paper = &paper };
	static const finding_fn fns[REPORT_NFINDINGS] = { finding_short_ops, finding_variance, finding_out_of_order,
					    finding_diminishing, finding_overhead };
	for (int i = 0; i < REPORT_NFINDINGS; i++)
		finding_judge(fns[i], fs.rows, fs.nrows, &cx, &fd[i]);

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
		char n[16];
		const char *cell[4];
		doc_row(&d, hdr, 4, 1);
		for (int i = 0; i < REPORT_NFINDINGS; i++) {
			snprintf(n, sizeof(n), "%d", i + 1);
			cell[0] = n;
			cell[1] = titles[i];
			cell[2] = verdict_name(fd[i].v);
			cell[3] = fd[i].why;
			doc_row(&d, cell, 4, 0);
		}
		doc_table_end(&d);
	}
	write_sweep_section(&d, s, st, nst);
	write_policies_section(&d, s, st, nst);
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

/* ---- the report of one run (and its repeats) ------------------------------*/

/* The figures of a run report's tables, by metric-table name. */
static const char *const run_main_figs[] = {
	"images_per_s", "e2e_s", "images", "batches", "workers_cpu_s", "ops_span_s",
	"preproc_avg_ms", "preproc_std_pct", "preproc_iqr_ms", "ooo_pct", "stall_pct",
	"gpu_util_pct", "worker_rss_max_kib", "main_max_rss_kib",
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
			snprintf(v, sizeof(v), "%.6g", metric_row_get(mt, &c->r));
		else if (sp->n)
			stats_format(v, sizeof(v), sp, "%.5g");
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
	const char *cell[10];

	doc_row(d, hdr, 10, 1);
	for (size_t i = 0; i < r->nops; i++) {
		snprintf(c[0], sizeof(c[0]), "%s", r->ops[i].name);
		for (size_t k = 0; k < 9; k++) {
			double v = op_metric_get(op_metric_find(col[k]), &r->ops[i]);
			if (isfinite(v))
				snprintf(c[k + 1], sizeof(c[k + 1]), "%.4g", v);
			else
				snprintf(c[k + 1], sizeof(c[k + 1]), "n/a");
		}
		for (size_t k = 0; k < 10; k++)
			cell[k] = c[k];
		doc_row(d, cell, 10, 0);
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
	       jstr(o, "policy", "torch"), jstr(o, "backend", "?"), jstr(o, "order", "?"),
	       jint(o, "prefetch_factor", 0),
	       json_is_true(json_object_get(o, "pin_memory")) ? "on" : "off",
	       jint(o, "epochs", 1), jint(o, "epochs", 1) == 1 ? "" : "s", jint(o, "seed", 0));
	doc_li(d, "Dataset %s, pipeline %s.", jstr(o, "data", "?"), jstr(o, "pipeline", "?"));
	if (s->nrows > 1)
		doc_li(d, "%zu repeats of this configuration (--repeat): every figure below is the "
		       "median over them with its spread: %s, or (min, max) with fewer than 6.",
		       s->nrows, STATS_CI_METHOD);
	else
		doc_li(d, "One measurement (no --repeat): the figures have no spread; repeat the "
		       "run (ppbench run --repeat 5) to know how far to trust them.");
	if (m)
		doc_li(d, "Machine: %s (%s), %s CPUs usable of %d online, %s GiB memory, %s %s, "
		       "ppbench %s built with %s.", jstr(m, "cpu_model", "unknown CPU"),
		       jstr(m, "hostname", "?"), num(a, sizeof(a), metric_json_get(m, "cpus_usable"), 0),
		       jint(m, "cpus_online", 0),
		       num(a + 32, 32, metric_json_get(m, "memory_total_bytes") / 1073741824.0, 1),
		       jstr(json_object_get(m, "kernel"), "sysname", ""),
		       jstr(json_object_get(m, "kernel"), "release", ""),
		       jstr(m, "ppbench_version", "?"), jstr(m, "compiler", "?"));
	doc_list_end(d);
}

static void doc_run_repeats(struct doc *d, const struct sweep *s)
{
	static const char *const hdr[] = { "repeat", "complete", "images/s", "E2E (s)",
					   "others' CPU (%)", "checksum", "folder" };
	char c[7][300];
	const char *cell[7];

	doc_h(d, 2, s->nrows > 1 ? "The repeats" : "The folder");
	doc_row(d, hdr, 7, 1);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		snprintf(c[0], sizeof(c[0]), "%d", r->repeat);
		snprintf(c[1], sizeof(c[1]), "%s", r->complete ? "yes" : "NO");
		num(c[2], sizeof(c[2]), r->images_per_s, 1);
		num(c[3], sizeof(c[3]), r->e2e_s, 3);
		num(c[4], sizeof(c[4]), r->others_cpu_pct, 1);
		snprintf(c[5], sizeof(c[5]), "%s", r->checksum[0] ? r->checksum : "-");
		snprintf(c[6], sizeof(c[6]), "%.250s", r->run_dir);
		for (size_t k = 0; k < 7; k++)
			cell[k] = c[k];
		doc_row(d, cell, 7, 0);
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
	const char *top = report_find_top(topbuf, sizeof(topbuf)) ? NULL : topbuf;
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
	if (mkdir_p(datadir, 0777)) {
		errf(err, errlen, "cannot create '%s': %s", datadir, strerror(errno));
		goto out;
	}
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
		doc_lead(&d, "nothold", "Incomplete:", "%s.", jstr(sum, "stop_reason",
			 jstr(sum, "write_error", "a repeat did not finish")));
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
	json_error_t je;
	errf(path, sizeof(path), "%s/summary.json", dir);
	json_t *j = json_load_file(path, 0, &je);
	if (!j) {
		if (!file_exists(path))
			errf(err, errlen, "'%s' is not a run or sweep folder: no summary.json nor "
			     "sweep.json", dir);
		else
			errf(err, errlen, "cannot read '%s': line %d: %s", path, je.line, je.text);
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
	r->batch = jint(j, "batch_size", 0);
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
	errf(path, sizeof(path), "%s/summary.json", dir);
	json_t *j = json_load_file(path, 0, NULL);
	int reps = jint(json_object_get(j, "options"), "repeat", 1);
	snprintf(tagbuf, sizeof(tagbuf), "%s", jstr(json_object_get(j, "options"), "tag", ""));
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
static int run_load(struct sweep *s, char **dirs, size_t n, json_t **sum, char *err, size_t errlen)
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
			snprintf(r->tag, sizeof(r->tag), "w%d b%d g%d", r->workers, r->batch, r->gpus);
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
static int is_run_dir(const char *dir)
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
static int cmd_report_run(char **dirs, size_t n)
{
	struct sweep s;
	json_t *sum;
	char err[1024];
	int rc = EXIT_FAIL;

	if (run_load(&s, dirs, n, &sum, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (report_write_run(&s, sum, err, sizeof(err)))
		error_msg("%s", err);
	else {
		printf("%s/report.md\n%s/report.html\n", s.dir, s.dir);
		rc = EXIT_OK;
	}
	json_decref(sum);
	free(s.rows);
	return rc;
}

/* ---- commands -------------------------------------------------------------*/

static int one_dir_arg(int argc, char **argv, const char *usage, const char *what)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n\n%s\n", usage, what);
		exit_codes_help(stdout);
		return 1;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s\n", usage);
		return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const char usage[] = "ppbench report DIR [DIR...] [--out DIR] [--model on|off]\n"
				    "       ppbench report RUN_DIR [RUN_DIR...]";
	struct sweep s;
	char err[1024], outbuf[4096];
	char **dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	const char *out = NULL;
	size_t n = 0;
	int rc, model = 0;

	if (!dirs) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: %s\n\n"
			       "Reads the sweep folder DIR (made by ppbench sweep) and writes its\n"
			       "summary.csv, figures/ (gnuplot, PNG and SVG), report.md and a\n"
			       "self-contained report.html: for each finding of the Lotus paper, the\n"
			       "paper's numbers, this machine's, and a verdict. Several sweep folders\n"
			       "(make reproduce's two experiments) make one report, written in --out\n"
			       "(default: their common parent folder). --model on adds the model's\n"
			       "lines (ppbench model, from each series' run with the fewest workers)\n"
			       "to the figures against workers.\n\n"
			       "A run folder RUN_DIR (made by ppbench run) gets a report of its own,\n"
			       "written into it: the configuration, the main figures, the ops, batch\n"
			       "wait and delay, noise and the machine, with figures (op CDF, Figs. 4,\n"
			       "5a, 5b). A run made with --repeat N is reported with all its repeats\n"
			       "(found next to it; or give them all): each figure is then the median\n"
			       "with its spread.\n", usage);
			exit_codes_help(stdout);
			free(dirs);
			return EXIT_OK;
		}
		if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "-o")) {
			if (i + 1 >= argc) {
				error_msg("--out needs a value");
				free(dirs);
				return EXIT_USAGE;
			}
			out = argv[++i];
		} else if (!strncmp(argv[i], "--out=", 6)) {
			out = argv[i] + 6;
		} else if (!strcmp(argv[i], "--model") || !strncmp(argv[i], "--model=", 8)) {
			const char *v = argv[i][7] == '=' ? argv[i] + 8 : i + 1 < argc ? argv[++i] : "";
			if (strcmp(v, "on") && strcmp(v, "off")) {
				error_msg("--model: '%s' is not on or off", v);
				free(dirs);
				return EXIT_USAGE;
			}
			model = !strcmp(v, "on");
		} else if (argv[i][0] == '-') {
			error_msg("unknown option '%s' (see --help)", argv[i]);
			free(dirs);
			return EXIT_USAGE;
		} else {
			dirs[n++] = argv[i];
		}
	}
	if (!n) {
		fprintf(stderr, "usage: %s\n", usage);
		free(dirs);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < n; i++)
		if (input_missing(dirs[i])) {
			free(dirs);
			return EXIT_USAGE;
		}
	if (is_run_dir(dirs[0])) {
		if (out) {
			error_msg("--out is for sweeps: a run's report goes into its folder");
			free(dirs);
			return EXIT_USAGE;
		}
		rc = cmd_report_run(dirs, n);
		free(dirs);
		return rc;
	}
	if (n == 1 && !out) {
		rc = sweep_load(&s, dirs[0], err, sizeof(err));
	} else {
		if (!out) {
			/* the common parent of the folders */
			char *slash;
			snprintf(outbuf, sizeof(outbuf), "%s", dirs[0]);
			strip_slashes(outbuf);
			slash = strrchr(outbuf, '/');
			if (slash)
				*slash = 0;
			else
				snprintf(outbuf, sizeof(outbuf), ".");
			for (size_t i = 1; i < n; i++) {
				char other[4096];
				snprintf(other, sizeof(other), "%s", dirs[i]);
				strip_slashes(other);
				slash = strrchr(other, '/');
				if (slash)
					*slash = 0;
				else
					snprintf(other, sizeof(other), ".");
				if (strcmp(other, outbuf)) {
					error_msg("the sweep folders have different parents: give --out DIR");
					free(dirs);
					return EXIT_USAGE;
				}
			}
			out = outbuf;
		}
		if (mkdir_p(out, 0777)) {
			error_msg("cannot create '%s': %s", out, strerror(errno));
			free(dirs);
			return EXIT_FAIL;
		}
		rc = sweep_load_many(&s, dirs, n, out, err, sizeof(err));
	}
	free(dirs);
	if (rc) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	s.model = model;
	rc = report_write(&s, err, sizeof(err));
	if (rc)
		error_msg("%s", err);
	else
		printf("%s/report.md\n%s/report.html\n", s.dir, s.dir);
	sweep_free(&s);
	return rc ? EXIT_FAIL : EXIT_OK;
}

int cmd_plots(int argc, char **argv)
{
	static const char usage[] = "ppbench plots DIR";
	struct fig_status st[REPORT_MAX_FIGS];
	struct sweep s;
	char err[1024], path[4096];
	size_t n = 0, drawn = 0;
	int rc = one_dir_arg(argc, argv, usage,
			     "Redraws the figures of the sweep folder DIR (figures/: the data files,\n"
			     "PNG and SVG) and its summary.csv, without the report. For a run folder\n"
			     "(made by ppbench run): its figures (op CDF, Figs. 4, 5a, 5b), with its\n"
			     "repeats when it was run with --repeat.");
	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	if (input_missing(argv[1]))
		return EXIT_USAGE;
	if (is_run_dir(argv[1])) {
		json_t *sum;
		char topbuf[4096], figdir[4096], datadir[4096], log[4096];
		const char *top = report_find_top(topbuf, sizeof(topbuf)) ? NULL : topbuf;
		if (run_load(&s, argv + 1, 1, &sum, err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		json_decref(sum);
		errf(figdir, sizeof(figdir), "%s/figures", s.dir);
		errf(datadir, sizeof(datadir), "%s/figures/data", s.dir);
		errf(log, sizeof(log), "%s/gnuplot.log", figdir);
		if (mkdir_p(datadir, 0777)) {
			error_msg("cannot create '%s': %s", datadir, strerror(errno));
			rc = -1;
		} else {
			rc = draw_run_figures(&s, top, figdir, datadir, log, st, REPORT_MAX_FIGS, &n,
					      err, sizeof(err));
			if (rc)
				error_msg("%s", err);
		}
	} else if (sweep_load(&s, argv[1], err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	} else {
		snprintf(path, sizeof(path), "%s/summary.csv", s.dir);
		rc = sweep_write_csv(&s, path, err, sizeof(err));
		if (!rc)
			rc = report_figures(&s, st, REPORT_MAX_FIGS, &n, err, sizeof(err));
		if (rc)
			error_msg("%s", err);
	}
	if (rc) {
		sweep_free(&s);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		if (st[i].drawn) {
			drawn++;
			printf("%s/figures/%s.png\n", s.dir, st[i].name);
		} else {
			info("%s: not drawn: %s", st[i].name, st[i].why);
		}
	}
	sweep_free(&s);
	return drawn ? EXIT_OK : EXIT_FAIL;
}
