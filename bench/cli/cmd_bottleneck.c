/* ppbench bottleneck: climb the caching ladder, one stage at a time, and
 * name the stage whose inclusion costs the most throughput. Steps 3 to 5
 * run the loader (loader.h) as `ppbench run` does (torch policy, in order),
 * steps 1 and 2 the simulated GPU of the consumer alone, so the numbers are
 * comparable. --repeat climbs the whole ladder N times; every figure is the
 * median over the climbs with its spread, and a stage is named only when
 * its step is slower than the one before beyond noise (bottleneck_decide). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>
#include "escape.h"
#include "fsutil.h"
#include "bottleneck.h"
#include "emit.h"
#include "machine.h"
#include "noise.h"
#include "run.h"
#include "clock.h"
#include "commands.h"
#include "consumer.h"
#include "generate.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "options.h"
#include "pipeline.h"


static const char usage[] = "ppbench bottleneck [options]";
static const char description[] =
	"The caching ladder: images/s with (1) one batch cached on the GPU (step only),\n"
	"(2) one batch cached on the host (copy + step), (3) one processed sample cached\n"
	"(collate + loader + copy + step), (4) the files' bytes in memory, the page cache\n"
	"(every op + collate + copy + step), (5) the full pipeline from storage with a cold\n"
	"page cache. The ladder is climbed --repeat times; each figure is\n"
	"the median with its spread, and the stage named is the one whose inclusion causes\n"
	"the largest drop beyond noise (none when every drop is within noise). Leaves\n"
	"OUT/<UTC time>-<tag>/ with bottleneck.json and bottleneck.csv.\n"
	"Takes the options of ppbench run, with one difference: --max-batches counts\n"
	"the batches of each step, and its 0 (run's \"every batch\") means 20 here, as\n"
	"five passes over every batch would take too long. A step that fails is exit 1.";

#define NSTEPS 5
static const char *const step_name[NSTEPS] = {
	"1 batch cached on the GPU (step)",
	"2 batch cached on the host (+ copy)",
	"3 processed sample cached (+ collate, loader)",
	"4 raw bytes in memory (+ transforms)",
	"5 full pipeline, cold page cache (+ storage)",
};
static const char *const stage_name[NSTEPS] = {
	"",
	"the host-to-device copy",
	"collate and the loader (workers, IPC, pin memory)",
	"the transforms (every per-sample op of the pipeline)",
	"reading the files from storage",
};

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
	char buf[65536];
	for (size_t i = 0; i < d->n; i++) {
		char why[256];
		struct stat st;
		int fd = open_regular(d->items[i].path, &st, why, sizeof(why));
		if (fd < 0)
			continue;
		if (drop) {
			drop_page_cache(fd);
		} else {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
		}
		close(fd);
	}
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

#define BOTTLENECK_SCHEMA_VERSION 1
#define BOTTLENECK_DEFAULT_REPEAT_TEXT "3"

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

/* The figures of n climbs: ips[k * NSTEPS + i] of climb k. */
struct ladder {
	size_t n;
	double *ips;
	struct noise *noise;              /* [n] each climb's window */
	struct stats_summary sp[NSTEPS];  /* images/s of each step */
	struct stats_summary slow[NSTEPS];/* slowdown against the step before (slow[0] unused) */
	double *slow_v;                   /* [n * NSTEPS] the per-climb slowdowns (NaN: none) */
	struct bottleneck_verdict v;
};

static int ladder_summarise(struct ladder *l)
{
	double *col = malloc((l->n ? l->n : 1) * sizeof(*col));
	if (!col)
		return -1;
	for (int i = 0; i < NSTEPS; i++) {
		for (size_t k = 0; k < l->n; k++) {
			double x = l->ips[k * NSTEPS + i], p = i ? l->ips[k * NSTEPS + i - 1] : 0;
			/* a step of 0 has no GPU bound: step 1 is then infinite */
			l->slow_v[k * NSTEPS + i] = i && p > 0 && x > 0 ? p / x : NAN;
			col[k] = x > 0 ? x : NAN;
		}
		if (stats_summarise(col, l->n, STATS_CI_LEVEL, &l->sp[i]))
			goto oom;
		for (size_t k = 0; k < l->n; k++)
			col[k] = l->slow_v[k * NSTEPS + i];
		if (stats_summarise(col, l->n, STATS_CI_LEVEL, &l->slow[i]))
			goto oom;
	}
	free(col);
	bottleneck_decide(l->slow, NSTEPS, &l->v);
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

static void print_ladder(const struct ladder *l)
{
	printf("%-46s %-36s %s\n", "step", "images/s", "vs prev (images/s), verdict");
	for (int i = 0; i < NSTEPS; i++) {
		char a[96] = "no bound", rel[128] = "";
		if (l->sp[i].n)
			stats_format(a, sizeof(a), &l->sp[i], "%.1f");
		if (i && l->slow[i].n) {
			format_change(rel, sizeof(rel), &l->slow[i]);
			size_t k = strlen(rel);
			snprintf(rel + k, sizeof(rel) - k, ", %s",
				 bottleneck_change_name(bottleneck_step_change(&l->slow[i])));
		}
		printf("%-46s %-36s %s\n", step_name[i], a, rel);
	}
	const struct bottleneck_verdict *v = &l->v;
	if (v->step >= 0) {
		char sl[96];
		stats_format(sl, sizeof(sl), &l->slow[v->step], "%.2f");
		printf("bottleneck: %s (step %d: slower than step %d by a factor %s, beyond noise)\n",
		       stage_name[v->step], v->step + 1, v->step, sl);
	} else if (v->candidate >= 0 && l->n < 2) {
		printf("bottleneck: not judged: one climb measures no noise (--repeat 3 or more); "
		       "the largest drop was at step %d (%s, %.2fx)\n", v->candidate + 1,
		       stage_name[v->candidate], v->slowdown);
	} else if (v->candidate >= 0) {
		printf("bottleneck: no step is a bottleneck beyond noise (the largest drop, step %d, "
		       "%s, %.2fx, lies within noise)\n", v->candidate + 1, stage_name[v->candidate],
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

static int write_ladder(const char *dir, const struct ladder *l, const struct opt *table,
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
	for (int i = 0; i < NSTEPS; i++) {
		json_t *s = json_object();
		json_object_set_new(s, "step", json_integer(i + 1));
		json_object_set_new(s, "name", json_string(step_name[i]));
		json_object_set_new(s, "stage_added", i ? json_string(stage_name[i]) : json_null());
		json_object_set_new(s, "images_per_s", values_json(l->ips + i, l->n, NSTEPS));
		json_object_set_new(s, "images_per_s_summary", stats_summary_json(&l->sp[i]));
		if (i) {
			json_object_set_new(s, "slowdown", values_json(l->slow_v + i, l->n, NSTEPS));
			json_object_set_new(s, "slowdown_summary", stats_summary_json(&l->slow[i]));
			json_object_set_new(s, "vs_prev", json_string(bottleneck_change_name(
				bottleneck_step_change(&l->slow[i]))));
		}
		json_array_append_new(steps, s);
	}
	json_object_set_new(j, "steps", steps);
	json_t *b = json_object();
	json_object_set_new(b, "step", l->v.step >= 0 ? json_integer(l->v.step + 1) : json_null());
	json_object_set_new(b, "stage", l->v.step >= 0 ? json_string(stage_name[l->v.step]) : json_null());
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
	for (int i = 0; i < NSTEPS; i++) {
		const struct stats_summary *a = &l->sp[i], *s = &l->slow[i];
		fprintf(f, "%d,", i + 1);
		csv_put(f, step_name[i]);   /* names hold commas */
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
static int climb_all(const struct run_opts *o, struct loader_cfg *lc, const struct dataset *data,
		     uint64_t step_ns, size_t bytes, const struct cpus *cp, struct ladder *l,
		     char *err, size_t errlen)
{
	for (long k = 0; k < o->repeat; k++) {
		char what[64];
		struct noise_snap a, b;
		if (noise_require_idle(o->require_idle, noise_idle_wait_s(), cp, err, errlen))
			return -1;
		if (o->repeat > 1)
			info("bottleneck: climb %ld of %ld", k + 1, o->repeat);
		noise_read(&a, cp);
		int r = climb(o, lc, data, step_ns, bytes, l->ips + (size_t)k * NSTEPS, err, errlen);
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

/* run's options with bottleneck's own --repeat (its default and meaning);
 * a copy, so that --help shows the default the command uses. */
static struct opt *options_table(void)
{
	size_t n = 0;
	while (run_opts_table[n].name)
		n++;
	struct opt *t = malloc((n + 1) * sizeof(*t));
	if (!t)
		return NULL;
	memcpy(t, run_opts_table, (n + 1) * sizeof(*t));
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, "repeat")) {
			t[i].def = BOTTLENECK_DEFAULT_REPEAT_TEXT;   /* one climb cannot tell a drop from noise */
			t[i].help = "climbs of the ladder; each figure is the median over them with its "
				    "spread, and a stage is named only when its drop is beyond noise";
		} else if (!strcmp(t[i].name, "tag")) {
			t[i].help = "name of the results folder after the time (default: "
				    "bottleneck-PIPELINE-bB-wW)";
		}
	return t;
}

int cmd_bottleneck(int argc, char **argv)
{
	struct run_opts o;
	struct pipeline pipe;
	struct dataset data;
	struct ladder l = { 0 };
	struct cpus cp;
	char err[1024], data_path[4096], tagbuf[256], tmp[PATH_MAX], name[512], final[PATH_MAX];
	int npos = 0, rc = EXIT_USAGE, have_pipe = 0, have_data = 0, have_dir = 0;
	struct opt *table = options_table();
	if (!table) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	int pr = opts_prelude(table, &o, argc, argv, &npos, usage, description, "bottleneck");
	if (pr >= 0) {
		free(table);
		return pr;
	}
	if (!o.max_batches)   /* run's "every batch" is too long for five steps */
		o.max_batches = 20;
	uint64_t step_ns;
	if (run_gpu_step(&o, &step_ns, err, sizeof(err))) {
		error_msg("%s", err);
		free(table);
		return EXIT_USAGE;
	}
	{
		int orc = run_open_inputs(&o, &pipe, &data, data_path, sizeof(data_path),
					  &have_pipe, &have_data);
		if (orc) {
			rc = orc;
			goto out;
		}
	}

	struct loader_cfg lc = run_loader_cfg(&o, &pipe, &data, step_ns);
	lc.epochs = 1;     /* each step measures at most one epoch */
	lc.trace = 0;      /* throughput only */
	lc.checksum = 0;
	struct loader_plan plan;
	if (loader_plan(&lc, &plan, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	size_t bytes = (size_t)o.batch_size * (3 * (size_t)plan.sample_h * (size_t)plan.sample_w * 4 + 8);
	if (!o.tag) {
		snprintf(tagbuf, sizeof(tagbuf), "bottleneck-%s-b%ld-w%ld", pipe.name, o.batch_size,
			 o.workers);
		o.tag = tagbuf;
	}
	if (results_dir_begin(o.out, o.tag, tmp, sizeof(tmp), name, sizeof(name), err,
			      sizeof(err))) {
		error_msg("%s", err);
		rc = EXIT_FAIL;
		goto out;
	}
	have_dir = 1;
	l.ips = calloc((size_t)o.repeat * NSTEPS, sizeof(double));
	l.slow_v = calloc((size_t)o.repeat * NSTEPS, sizeof(double));
	l.noise = calloc((size_t)o.repeat, sizeof(*l.noise));
	rc = EXIT_FAIL;
	if (!l.ips || !l.slow_v || !l.noise) {
		error_msg("out of memory");
		goto out;
	}
	cpus_read(&cp);
	if (climb_all(&o, &lc, &data, step_ns, bytes, &cp, &l, err, sizeof(err))) {
		error_msg("%s", err);
		if (!l.n)
			goto out;
		warn_msg("the %zu climb%s done are kept", l.n, l.n == 1 ? "" : "s");
	}
	if (ladder_summarise(&l)) {
		error_msg("out of memory");
		goto out;
	}
	int climbs_failed = l.n < (size_t)o.repeat;

	printf("caching ladder: pipeline %s, %zu images, B %ld, W %ld, GPU step %.1f ms, "
	       "%" PRIu64 " batches per step, %zu climb%s\n", pipe.name, data.n, o.batch_size, o.workers,
	       (double)step_ns / 1e6, o.max_batches, l.n, l.n == 1 ? "" : "s");
	if (l.n > 1)
		printf("each figure: the median [%s], or (min, max) with fewer than 6 climbs\n",
		       STATS_CI_METHOD);
	print_ladder(&l);
	printf("caveats (from the post):\n"
	       "  - a drop when a stage is included does not prove that stage needs optimizing:\n"
	       "    another stage may already have the CPUs near their limit, and this one tips it over;\n"
	       "  - a single cached sample or batch may not reflect real inputs of varying size;\n"
	       "  - nor a model whose work depends on its input (here the GPU step is simulated\n"
	       "    and fixed, so this one does not arise).\n"
	       "  - here: step 4 keeps the files in the page cache (read once before), not an\n"
	       "    application cache, so it still pays open/read system calls; step 5 drops\n"
	       "    them with posix_fadvise(DONTNEED), which cannot evict pages others hold dirty.\n");
	if (write_ladder(tmp, &l, table, &o, pipe.name, data.n, step_ns, &cp, err, sizeof(err)) ||
	    results_dir_commit(o.out, tmp, name, final, sizeof(final), err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	have_dir = 0;
	printf("results: %s\n", final);
	rc = climbs_failed ? EXIT_FAIL : EXIT_OK;
out:
	if (have_dir)
		rmdir(tmp);
	free(l.ips);
	free(l.slow_v);
	free(l.noise);
	free(table);
	if (have_data)
		dataset_release(&data);
	if (have_pipe)
		pipeline_release(&pipe);
	return rc;
}
