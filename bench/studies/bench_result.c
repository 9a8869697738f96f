/* The figures of one `ppbench bench` and its results folder (bench_result.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "bench_result.h"
#include "escape.h"
#include "log.h"
#include "metrics.h"

const struct bench_fig *bench_figure(struct bench_result *r, const char *section, const char *name,
				     const char *unit, const double *v, size_t n,
				     int has_target, double target, int at_most)
{
	if (r->n >= BENCH_MAX_FIGS)
		return NULL;
	struct bench_fig *f = &r->fig[r->n];
	memset(f, 0, sizeof(*f));
	snprintf(f->section, sizeof(f->section), "%s", section);
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->unit, sizeof(f->unit), "%s", unit);
	if (stats_summarise(v, n, STATS_CI_LEVEL, &f->s))
		return NULL;
	f->has_target = has_target;
	f->target = target;
	f->at_most = at_most;
	f->verdict = has_target ? stats_judge(&f->s, target, at_most) : TARGET_UNKNOWN;
	r->n++;
	return f;
}

void bench_fig_format(char *out, size_t n, const struct bench_fig *f, const char *fmt)
{
	stats_format(out, n, &f->s, fmt);
}

const char *bench_verdict_word(enum stats_target t)
{
	return t == TARGET_NOT_MET ? "NOT met" : stats_target_name(t);
}

void bench_print_target(FILE *f, const struct bench_fig *g, const char *fmt)
{
	char v[160], t[64];
	if (!g)
		return;
	bench_fig_format(v, sizeof(v), g, fmt);
	fprintf(f, "%s: %s%s%s", g->name, v, strcmp(g->unit, "ratio") ? " " : "",
		strcmp(g->unit, "ratio") ? g->unit : "");
	if (g->has_target) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(t, sizeof(t), fmt, g->target);
#pragma GCC diagnostic pop
		fprintf(f, "; target %s %s: %s", g->at_most ? "<=" : ">=", t, bench_verdict_word(g->verdict));
	}
	fputc('\n', f);
}

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *fig_json(const struct bench_fig *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "section", json_string(f->section));
	json_object_set_new(o, "figure", json_string(f->name));
	json_object_set_new(o, "unit", json_string(f->unit));
	json_object_set_new(o, "n", json_integer((json_int_t)f->s.n));
	json_object_set_new(o, "median", num_or_null(f->s.median));
	json_object_set_new(o, "min", num_or_null(f->s.min));
	json_object_set_new(o, "max", num_or_null(f->s.max));
	json_object_set_new(o, "lo", num_or_null(f->s.lo));
	json_object_set_new(o, "hi", num_or_null(f->s.hi));
	json_object_set_new(o, "interval", json_string(f->s.has_ci ? "ci95" : "min-max"));
	if (f->has_target) {
		json_object_set_new(o, "target", json_real(f->target));
		json_object_set_new(o, "direction", json_string(f->at_most ? "at_most" : "at_least"));
		json_object_set_new(o, "verdict", json_string(stats_target_name(f->verdict)));
	}
	return o;
}

static void csv_num(FILE *fp, double x)
{
	if (isfinite(x))
		fprintf(fp, METRIC_NUM_FMT, x);
}

static int write_csv(const struct bench_result *r, const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "w");
	if (!fp) {
		errf(err, errlen, "cannot write '%s': %m", path);
		return -1;
	}
	fprintf(fp, "section,figure,unit,n,median,lo,hi,interval,target,direction,verdict\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct bench_fig *f = &r->fig[i];
		csv_put(fp, f->section);
		csv_put_next(fp, f->name);
		csv_put_next(fp, f->unit);
		fprintf(fp, ",%zu,", f->s.n);
		csv_num(fp, f->s.median);
		fputc(',', fp);
		csv_num(fp, f->s.lo);
		fputc(',', fp);
		csv_num(fp, f->s.hi);
		fprintf(fp, ",%s,", f->s.has_ci ? "ci95" : "min-max");
		if (f->has_target) {
			csv_num(fp, f->target);
			fprintf(fp, ",%s,%s", f->at_most ? "at_most" : "at_least",
				stats_target_name(f->verdict));
		} else {
			fputs(",,", fp);
		}
		fputc('\n', fp);
	}
	if (fclose(fp)) {
		errf(err, errlen, "cannot write '%s': %m", path);
		return -1;
	}
	return 0;
}

int bench_result_write(const struct bench_result *r, const char *dir, json_t *extra,
		       char *err, size_t errlen)
{
	char path[4200];
	json_t *doc = extra ? json_incref(extra) : json_object();
	json_t *figs = json_array();
	json_object_set_new(doc, "interval_method", json_string(STATS_CI_METHOD));
	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(figs, fig_json(&r->fig[i]));
	json_object_set_new(doc, "figures", figs);
	snprintf(path, sizeof(path), "%s/bench.json", dir);
	int rc = json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				JSON_REAL_PRECISION(METRIC_JSON_PRECISION));
	json_decref(doc);
	if (rc) {
		errf(err, errlen, "cannot write '%s'", path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/bench.csv", dir);
	return write_csv(r, path, err, errlen);
}
