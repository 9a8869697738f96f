/* The caching ladder (bench/studies/bottleneck.h): its climbs (the
 * simulated GPU alone, then the loader as `ppbench run` runs it), their
 * summary and verdict, and its printed and written forms. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bottleneck.h"
#include "pagecache.h"
#include "clock.h"
#include "consumer.h"
#include "escape.h"
#include "fsutil.h"
#include "imagefolder.h"
#include "log.h"
#include "machine.h"
#include "noise.h"
#include "options.h"
#include "run.h"

#define BOTTLENECK_SCHEMA_VERSION 1

static const char *const bottleneck_step_name[BOTTLENECK_STEPS] = {
	"1 batch cached on the GPU (step)",
	"2 batch cached on the host (+ copy)",
	"3 processed sample cached (+ collate, loader)",
	"4 raw bytes in memory (+ transforms)",
	"5 full pipeline, cold page cache (+ storage)",
};
static const char *const bottleneck_stage_name[BOTTLENECK_STEPS] = {
	"",
	"the host-to-device copy",
	"collate and the loader (workers, IPC, pin memory)",
	"the transforms (every per-sample op of the pipeline)",
	"reading the files from storage",
};

enum step_change bottleneck_step_change(const struct stats_summary *slow)
{
	if (!slow->n || !isfinite(slow->median))
		return STEP_NO_BOUND;
	/* the interval (CI, else min-max) wholly on one side of "no change" */
	if (slow->lo > 1)
		return STEP_SLOWER;
	if (slow->hi < 1)
		return STEP_FASTER;
	return STEP_WITHIN_NOISE;
}

const char *bottleneck_change_name(enum step_change c)
{
	switch (c) {
	case STEP_SLOWER:
		return "slower";
	case STEP_FASTER:
		return "faster";
	case STEP_WITHIN_NOISE:
		return "within noise";
	default:
		return "no bound";
	}
}

void bottleneck_decide(const struct stats_summary *slow, int nsteps, struct bottleneck_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->step = v->candidate = -1;
	v->slowdown = NAN;
	double best = 1, cand = 1;
	for (int i = 1; i < nsteps; i++) {
		const struct stats_summary *s = &slow[i];
		if (!s->n || !isfinite(s->median))
			continue;
		if (s->n > v->repeats)
			v->repeats = s->n;
		/* the largest drop whatever its noise: said, never named, when no
		 * step is slower beyond noise */
		if (s->median > cand) {
			cand = s->median;
			v->candidate = i;
		}
		if (s->n < 2 || bottleneck_step_change(s) != STEP_SLOWER)
			continue;
		if (s->median > best) {
			best = s->median;
			v->step = i;
		}
	}
	if (v->step >= 0)
		v->slowdown = best;
	else if (v->candidate >= 0)
		v->slowdown = cand;
}

/* Steps 1 and 2: the simulated GPU alone, on one batch of `bytes`. */
static double gpu_only(const struct run_opts *o, uint64_t step_ns, double h2d, size_t bytes)
{
	struct gpu_sim g;
	uint64_t t0 = clock_now_ns();
	gpu_init(&g, step_ns, h2d, t0);
	for (uint64_t i = 0; i < o->max_batches; i++)
		gpu_consume(&g, bytes, (int64_t)i, NULL, 0, NULL, NULL, NULL);
	double s = (double)(clock_now_ns() - t0) / 1e9;
	if (s <= 0)
		return 0; /* a step of 0: no GPU bound */
	return (double)o->max_batches * (double)o->batch_size / s;
}

/* Read every file once (into the page cache), or drop it from there. */
static void page_cache(const struct dataset *d, int drop)
{
	if (drop)
		dataset_cache_drop(d);
	else
		dataset_cache_warm(d);
}

static int loader_step(struct loader_cfg *lc, double *ips, char *err, size_t errlen)
{
	struct loader_plan plan;
	struct loader_result r;
	if (loader_plan(lc, &plan, err, errlen) || loader_run(lc, &plan, &r, err, errlen))
		return -1;
	int ok = r.complete;
	if (!ok)
		snprintf(err, errlen, "%s", r.stop_reason);
	double s = (double)(r.end_ns - r.start_ns) / 1e9;
	*ips = s > 0 ? (double)r.images / s : 0;
	loader_result_free(&r);
	return ok ? 0 : -1;
}

/* One climb of the ladder: images/s of each step (0: no bound). */
static int climb(const struct run_opts *o, struct loader_cfg *lc, const struct dataset *data,
		 uint64_t step_ns, size_t bytes, double *ips, char *err, size_t errlen)
{
	char why[512];
	ips[0] = gpu_only(o, step_ns, 0, 0);
	ips[1] = gpu_only(o, step_ns, o->h2d, bytes);
	lc->cache = CACHE_SAMPLE;
	if (loader_step(lc, &ips[2], why, sizeof(why))) {
		snprintf(err, errlen, "step 3 (processed sample cached): %s", why);
		return -1;
	}
	lc->cache = CACHE_NONE;
	page_cache(data, 0);
	if (loader_step(lc, &ips[3], why, sizeof(why))) {
		snprintf(err, errlen, "step 4 (raw bytes in memory): %s", why);
		return -1;
	}
	page_cache(data, 1);
	if (loader_step(lc, &ips[4], why, sizeof(why))) {
		snprintf(err, errlen, "step 5 (cold page cache): %s", why);
		return -1;
	}
	return 0;
}

int bottleneck_summarise(struct bottleneck_ladder *l)
{
	double *col = malloc((l->n ? l->n : 1) * sizeof(*col));
	if (!col)
		return -1;
	for (int i = 0; i < BOTTLENECK_STEPS; i++) {
		for (size_t k = 0; k < l->n; k++) {
			double x = l->ips[k * BOTTLENECK_STEPS + i], p = i ? l->ips[k * BOTTLENECK_STEPS + i - 1] : 0;
			/* a step of 0 has no GPU bound: step 1 is then infinite */
			l->slow_v[k * BOTTLENECK_STEPS + i] = i && p > 0 && x > 0 ? p / x : NAN;
			col[k] = x > 0 ? x : NAN;
		}
		if (stats_summarise(col, l->n, STATS_CI_LEVEL, &l->sp[i]))
			goto oom;
		for (size_t k = 0; k < l->n; k++)
			col[k] = l->slow_v[k * BOTTLENECK_STEPS + i];
		if (stats_summarise(col, l->n, STATS_CI_LEVEL, &l->slow[i]))
			goto oom;
	}
	free(col);
	bottleneck_decide(l->slow, BOTTLENECK_STEPS, &l->v);
	return 0;
oom:
	free(col);
	return -1;
}

/* "-27.5 % [-30.1, -25.0]": the change in images/s of a slowdown summary */
static void format_change(char *out, size_t n, const struct stats_summary *slow)
{
	struct stats_summary c = *slow;
	/* change = 1 / slowdown - 1, decreasing: the interval's ends swap */
	c.median = 100 * (1 / slow->median - 1);
	c.lo = 100 * (1 / slow->hi - 1);
	c.hi = 100 * (1 / slow->lo - 1);
	stats_format(out, n, &c, "%+.1f");
	size_t l = strlen(out);
	snprintf(out + l, n - l, " %%");
}

void bottleneck_print(const struct bottleneck_ladder *l)
{
	printf("%-46s %-36s %s\n", "step", "images/s", "vs prev (images/s), verdict");
	for (int i = 0; i < BOTTLENECK_STEPS; i++) {
		char a[96] = "no bound", rel[128] = "";
		if (l->sp[i].n)
			stats_format(a, sizeof(a), &l->sp[i], "%.1f");
		if (i && l->slow[i].n) {
			format_change(rel, sizeof(rel), &l->slow[i]);
			size_t k = strlen(rel);
			snprintf(rel + k, sizeof(rel) - k, ", %s",
				 bottleneck_change_name(bottleneck_step_change(&l->slow[i])));
		}
		printf("%-46s %-36s %s\n", bottleneck_step_name[i], a, rel);
	}
	const struct bottleneck_verdict *v = &l->v;
	if (v->step >= 0) {
		char sl[96];
		stats_format(sl, sizeof(sl), &l->slow[v->step], "%.2f");
		printf("bottleneck: %s (step %d: slower than step %d by a factor %s, beyond noise)\n",
		       bottleneck_stage_name[v->step], v->step + 1, v->step, sl);
	} else if (v->candidate >= 0 && l->n < 2) {
		printf("bottleneck: not judged: one climb measures no noise (--repeat 3 or more); "
		       "the largest drop was at step %d (%s, %.2fx)\n", v->candidate + 1,
		       bottleneck_stage_name[v->candidate], v->slowdown);
	} else if (v->candidate >= 0) {
		printf("bottleneck: no step is a bottleneck beyond noise (the largest drop, step %d, "
		       "%s, %.2fx, lies within noise)\n", v->candidate + 1, bottleneck_stage_name[v->candidate],
		       v->slowdown);
	} else {
		printf("bottleneck: none: no step is slower than the one before\n");
	}
}

static json_t *values_json(const double *v, size_t n, size_t stride)
{
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a, isfinite(v[k * stride]) && v[k * stride] > 0 ?
				      json_real(v[k * stride]) : json_null());
	return a;
}

int bottleneck_write(const char *dir, const struct bottleneck_ladder *l, const struct opt *table,
			const struct run_opts *o,
			const char *pipe, size_t images, uint64_t step_ns, const struct cpus *cp,
			char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	json_t *j = json_object();
	json_object_set_new(j, "schema_version", json_integer(BOTTLENECK_SCHEMA_VERSION));
	json_object_set_new(j, "tool", json_string("ppbench bottleneck"));
	json_object_set_new(j, "pipeline", json_string(pipe));
	json_object_set_new(j, "images", json_integer((json_int_t)images));
	json_object_set_new(j, "gpu_step_ns", json_integer((json_int_t)step_ns));
	json_object_set_new(j, "batches_per_step", json_integer((json_int_t)o->max_batches));
	json_object_set_new(j, "repeats", json_integer((json_int_t)l->n));
	json_object_set_new(j, "interval_method", json_string(STATS_CI_METHOD));
	json_t *steps = json_array();
	for (int i = 0; i < BOTTLENECK_STEPS; i++) {
		json_t *s = json_object();
		json_object_set_new(s, "step", json_integer(i + 1));
		json_object_set_new(s, "name", json_string(bottleneck_step_name[i]));
		json_object_set_new(s, "stage_added", i ? json_string(bottleneck_stage_name[i]) : json_null());
		json_object_set_new(s, "images_per_s", values_json(l->ips + i, l->n, BOTTLENECK_STEPS));
		json_object_set_new(s, "images_per_s_summary", stats_summary_json(&l->sp[i]));
		if (i) {
			json_object_set_new(s, "slowdown", values_json(l->slow_v + i, l->n, BOTTLENECK_STEPS));
			json_object_set_new(s, "slowdown_summary", stats_summary_json(&l->slow[i]));
			json_object_set_new(s, "vs_prev", json_string(bottleneck_change_name(
				bottleneck_step_change(&l->slow[i]))));
		}
		json_array_append_new(steps, s);
	}
	json_object_set_new(j, "steps", steps);
	json_t *b = json_object();
	json_object_set_new(b, "step", l->v.step >= 0 ? json_integer(l->v.step + 1) : json_null());
	json_object_set_new(b, "stage", l->v.step >= 0 ? json_string(bottleneck_stage_name[l->v.step]) : json_null());
	json_object_set_new(b, "largest_drop_step",
			    l->v.candidate >= 0 ? json_integer(l->v.candidate + 1) : json_null());
	json_object_set_new(b, "slowdown", isfinite(l->v.slowdown) ? json_real(l->v.slowdown) : json_null());
	json_object_set_new(j, "bottleneck", b);
	json_object_set_new(j, "noise", noise_study_json(l->noise, l->n, "climbs", o->require_idle, cp));
	json_object_set_new(j, "options", opts_json(table, o));
	json_t *m = machine_json();
	if (m)
		json_object_set_new(j, "machine", m);
	snprintf(path, sizeof(path), "%.4000s/bottleneck.json", dir);
	int rc = json_dump_file(j, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (rc) {
		snprintf(err, errlen, "cannot write '%.900s'", path);
		return -1;
	}
	snprintf(path, sizeof(path), "%.4000s/bottleneck.csv", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write '%.900s': %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "step,name,repeats,images_per_s,images_per_s_lo,images_per_s_hi,slowdown,"
		"slowdown_lo,slowdown_hi,interval,vs_prev,bottleneck\n");
	for (int i = 0; i < BOTTLENECK_STEPS; i++) {
		const struct stats_summary *a = &l->sp[i], *s = &l->slow[i];
		fprintf(f, "%d,", i + 1);
		csv_put(f, bottleneck_step_name[i]);   /* names hold commas */
		fprintf(f, ",%zu,", a->n);
		if (a->n)
			fprintf(f, "%.3f,%.3f,%.3f,", a->median, a->lo, a->hi);
		else
			fprintf(f, ",,,");
		if (i && s->n)
			fprintf(f, "%.6f,%.6f,%.6f,%s,%s,", s->median, s->lo, s->hi,
				s->has_ci ? "ci95" : "min-max",
				bottleneck_change_name(bottleneck_step_change(s)));
		else
			fprintf(f, ",,,,,");
		fprintf(f, "%d\n", l->v.step == i);
	}
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "cannot write '%.900s'", path);
		return -1;
	}
	return 0;
}

/* n climbs of the ladder (fewer when one fails: err says why). */
int bottleneck_climb_all(const struct run_opts *o, struct loader_cfg *lc, const struct dataset *data,
		     uint64_t step_ns, size_t bytes, const struct cpus *cp, struct bottleneck_ladder *l,
		     char *err, size_t errlen)
{
	l->ips = calloc((size_t)o->repeat * BOTTLENECK_STEPS, sizeof(double));
	l->slow_v = calloc((size_t)o->repeat * BOTTLENECK_STEPS, sizeof(double));
	l->noise = calloc((size_t)o->repeat, sizeof(*l->noise));
	if (!l->ips || !l->slow_v || !l->noise) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (long k = 0; k < o->repeat; k++) {
		char what[64];
		struct noise_snap a, b;
		if (noise_require_idle(o->require_idle, noise_idle_wait_s(), cp, err, errlen))
			return -1;
		if (o->repeat > 1)
			info("bottleneck: climb %ld of %ld", k + 1, o->repeat);
		noise_read(&a, cp);
		int r = climb(o, lc, data, step_ns, bytes, l->ips + (size_t)k * BOTTLENECK_STEPS, err, errlen);
		noise_read(&b, cp);
		if (r)
			return -1;
		noise_between(&a, &b, cp, &l->noise[k]);
		snprintf(what, sizeof(what), "climb %ld of the ladder", k + 1);
		noise_warn(&l->noise[k], what);
		l->n++;
	}
	return 0;
}

void bottleneck_ladder_free(struct bottleneck_ladder *l)
{
	free(l->ips);
	free(l->slow_v);
	free(l->noise);
	memset(l, 0, sizeof(*l));
}
