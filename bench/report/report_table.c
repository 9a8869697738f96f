/* The sweep table: summary.json of each run to a row of summary.csv (through
 * the metric table), loading sweep folders, summary.csv written and read back,
 * and the repeats of a configuration combined. */
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
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "analysis.h"
#include "conventions.h"
#include "emit.h"
#include "escape.h"
#include "csv.h"
#include "doc.h"
#include "log.h"
#include "fsutil.h"
#include "metrics.h"
#include "model.h"
#include "repeats.h"
#include "plot.h"
#include "report.h"
#include "resdir.h"
#include "escape.h"
#include "stats.h"
#include "trace.h"


int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int report_lock(const char *dir)
{
	char path[4096];
	errf(path, sizeof(path), "%s/.report.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

void report_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---- rows -------------------------------------------------------------- */

/* The identity columns of summary.csv; the figures follow from the metric
 * table (bench/results/metrics.h). */
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
	CI(workers), { "batch", CT_INT, offsetof(struct sweep_row, batch_size), 0 }, CI(gpus), CS(policy), CI(complete), CS(checksum), CS(counters),
	CS(hw_events), CS(problem),
};
#undef CI
#undef CIO
#undef CS
#define NRCOLS (sizeof(rcols) / sizeof(rcols[0]))

#define FIELD(base, off, type) ((type *)((char *)(base) + (off)))

/* ---- loading a sweep ------------------------------------------------------*/

void sweep_free(struct sweep *s)
{
	for (size_t i = 0; i < s->nparts; i++)
		json_decref(s->parts[i].doc);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

void strip_slashes(char *p)
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

/* ---- reading a run's files, checked ----------------------------------------*/

json_t *summary_read(const char *path, char *why, size_t whylen)
{
	json_t *j = json_load_regular(path, why, whylen);
	if (j && (!json_is_object(j) || !json_is_boolean(json_object_get(j, "complete")))) {
		snprintf(why, whylen, "%s", json_is_object(j) ? "not a run's summary (no \"complete\")"
			 : "not a JSON object");
		json_decref(j);
		errno = 0;
		j = NULL;
	}
	return j;
}

int batches_csv_check(const char *path, double batches, char *why, size_t whylen)
{
	static const char *const need[] = { "id", "worker", "preproc_ns", "wait_ns", "delay_ns",
					    "out_of_order" };
	struct table t;
	char err[512];
	/* table_read opens it through fopen_regular: type and size checked */
	if (table_read(&t, path, err, sizeof(err))) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	int rc = -1;
	for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		if (table_col(&t, need[k]) < 0) {
			snprintf(why, whylen, "no column '%s'", need[k]);
			goto out;
		}
	int id = table_col(&t, "id");
	for (size_t i = 0; i < t.nrows; i++) {
		size_t have = 0;
		while (have < t.ncols && t.cell[i * t.ncols + have])
			have++;
		if (have < t.ncols) {
			snprintf(why, whylen, "row %zu has %zu of %zu fields", i + 1, have, t.ncols);
			goto out;
		}
		double v = table_num(&t, i, id);
		if (!isfinite(v) || v != floor(v)) {
			snprintf(why, whylen, "row %zu: id '%.32s' is not a batch number", i + 1,
				 table_str(&t, i, id));
			goto out;
		}
	}
	if (isfinite(batches) && (double)t.nrows != batches) {
		snprintf(why, whylen, "%zu rows, for a run of %.0f batches", t.nrows, batches);
		goto out;
	}
	rc = 0;
out:
	table_free(&t);
	return rc;
}

/* A value of sweep.json's run entry e that would reach a path, checked:
 * its tag (logs/<tag>.log, the run's --tag) a plain name, its run_dir ""
 * or runs/<plain name>. 0, or -1 with why. */
int sweep_entry_check(json_t *e, char *why, size_t whylen)
{
	json_t *tag = json_object_get(e, "tag"), *rd = json_object_get(e, "run_dir");
	static const char *const nums[] = { "workers", "batch_size", "gpus" };
	if (!json_is_object(e)) {
		snprintf(why, whylen, "not a JSON object");
		return -1;
	}
	char bad[256];
	if (!json_is_string(tag) || !json_string_value(tag)[0] ||
	    results_tag_check(json_string_value(tag), bad, sizeof(bad))) {
		char esc[160];
		bytes_escape(json_is_string(tag) ? json_string_value(tag) : "", esc, sizeof(esc));
		snprintf(why, whylen, "tag '%s' is not a plain name (no '/', not starting with '.', no "
			 "control character)", json_is_string(tag) ? esc : "(none)");
		return -1;
	}
	if (rd && !json_is_null(rd)) {
		const char *v = json_string_value(rd);
		if (!v || (v[0] && (strncmp(v, "runs/", 5) || !v[5] ||
				    results_tag_check(v + 5, bad, sizeof(bad))))) {
			char esc[160];
			bytes_escape(v ? v : "", esc, sizeof(esc));
			snprintf(why, whylen, "run_dir '%s' is not a folder of the sweep's runs/", esc);
			return -1;
		}
	}
	for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++) {
		json_t *v = json_object_get(e, nums[k]);
		if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65536) {
			snprintf(why, whylen, "%s is not a number from 1 to 65536", nums[k]);
			return -1;
		}
	}
	return 0;
}

/* The row's run folder read: summary.json into r (status RUN_UNREADABLE
 * when it cannot be), batches.csv checked; r->problem says what could not
 * be read. */
static void load_run_files(const struct sweep *s, struct sweep_row *r)
{
	char path[4096], why[200];
	sweep_run_path(s, r, "summary.json", path, sizeof(path));
	json_t *sum = summary_read(path, why, sizeof(why));
	if (!sum) {
		/* a run the sweep never finished has none: that is its status */
		if (!strcmp(r->status, RUN_OK) || !strcmp(r->status, RUN_INCOMPLETE) ||
		    file_exists(path)) {
			snprintf(r->problem, sizeof(r->problem), "%s/summary.json: %s", r->run_dir, why);
			snprintf(r->status, sizeof(r->status), "%s", RUN_UNREADABLE);
		}
		return;
	}
	sweep_row_from_summary(r, sum);
	int complete = json_is_true(json_object_get(sum, "complete"));
	json_decref(sum);
	sweep_run_path(s, r, "batches.csv", path, sizeof(path));
	if (batches_csv_check(path, complete ? r->batches : NAN, why, sizeof(why)))
		snprintf(r->problem, sizeof(r->problem), "%s/batches.csv: %s", r->run_dir, why);
}

/* Appends the runs of the sweep folder dir as part s->nparts. */
static int load_part(struct sweep *s, const char *dir, char *err, size_t errlen)
{
	struct sweep_part *pt;
	char path[4096];
	char why[512];
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
	pt->doc = json_load_regular(path, why, sizeof(why));
	if (!pt->doc) {
		if (errno == ENOENT)
			errf(err, errlen, "'%s' is not a sweep folder: no sweep.json", pt->dir);
		else
			errf(err, errlen, "cannot read '%s': %s", path, why);
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
		json_t *e = json_array_get(runs, i);
		struct sweep_row *r = &rows[base + i];

		sweep_row_init(r);
		r->part = (int)s->nparts - 1;
		r->config = config0 + jint(e, "config", (int)i + 1);
		r->repeat = jint(e, "repeat", 1);
		r->workers = jint(e, "workers", 0);
		r->batch_size = jint(e, "batch_size", 0);
		r->gpus = jint(e, "gpus", 0);
		snprintf(r->policy, sizeof(r->policy), "%s", jget_str(e, "policy", ""));
		r->exit_code = jint(e, "exit_code", -1);
		snprintf(r->tag, sizeof(r->tag), "%s", jget_str(e, "tag", ""));
		snprintf(r->status, sizeof(r->status), "%s", jget_str(e, "status", RUN_PENDING));
		snprintf(r->run_dir, sizeof(r->run_dir), "%s", jget_str(e, "run_dir", ""));
		snprintf(r->cache, sizeof(r->cache), "%s", jget_str(e, "page_cache", ""));
		for (size_t m = 0; m < metric_count; m++)
			if (metric_table[m].src == MSRC_SWEEP)
				*metric_row_field(&metric_table[m], r) = metric_json_get(e, metric_table[m].json);
		s->nrows++;
		/* nothing read from sweep.json reaches a path unchecked */
		if (sweep_entry_check(e, why, sizeof(why))) {
			snprintf(r->problem, sizeof(r->problem), "sweep.json: run %zu: %.200s", i + 1, why);
			snprintf(r->status, sizeof(r->status), "%s", RUN_UNREADABLE);
			r->run_dir[0] = 0;
			if (!r->tag[0] || results_tag_check(r->tag, why, sizeof(why)))
				snprintf(r->tag, sizeof(r->tag), "run-%zu", i + 1);
			continue;
		}
		if (r->run_dir[0])
			load_run_files(s, r);
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
size_t op_union(const struct sweep_row *r, size_t n, char (*names)[40], size_t max)
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

int sweep_write_csv(const struct sweep *s, const char *path, char *err, size_t errlen)
{
	char names[2 * SWEEP_MAX_OPS][40];
	size_t nn = op_union(s->rows, s->nrows, names, 2 * SWEEP_MAX_OPS);
	char tmp[4096];
	FILE *f;

	/* a name of its own: two reports of one folder never share it */
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
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
		for (size_t c = 0; c < op_metric_count; c++) {
			char h[128];
			snprintf(h, sizeof(h), "op_%.39s_%.64s", names[k], op_metric_table[c].name);
			csv_put_next(f, h);
		}
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
				csv_put(f, FIELD(r, rc->off, const char));
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
			/* the longest field name that ends the column's name
			 * (under_10ms_pct also ends oncpu_under_10ms_pct) */
			size_t best = op_metric_count, bl = 0;
			for (size_t k = 0; k < op_metric_count; k++) {
				const char *mn = op_metric_table[k].name;
				size_t sl = strlen(mn);
				if (hl < 3 + sl + 2 || h[hl - sl - 1] != '_' || strcmp(h + hl - sl, mn) ||
				    sl <= bl)
					continue;
				best = k;
				bl = sl;
			}
			if (best < op_metric_count) {
				char name[40];
				snprintf(name, sizeof(name), "%.*s", (int)(hl - bl - 4), h + 3);
				struct sweep_op *o = sweep_row_op_add(r, name);
				if (o)
					*op_metric_field(&op_metric_table[best], o) = table_num(&t, i, (int)c);
			}
		}
	}
	free(mcols);
	table_free(&t);
	return 0;
}

/* A figure (its offset in struct sweep_op) of an op in a configuration,
 * the repeats combined; NaN if the op is not there. */
double agg_op(const struct sweep_config *a, const char *op, size_t off)
{
	const struct sweep_op *o = sweep_row_op(&a->c.r, op);
	return o ? *(const double *)((const char *)o + off) : NAN;
}
