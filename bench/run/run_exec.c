/* A run measured, analysed and written (run.h), and the repeats of a
 * configuration combined in memory. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analysis.h"
#include "clock.h"
#include "emit.h"
#include "loader.h"
#include "log.h"
#include "metrics.h"
#include "noise.h"
#include "repeats.h"
#include "run.h"
#include "sweep_row.h"
#include "topology.h"

/* ---- progress line (stderr, terminals only) ---------------------------- */

struct progress {
	uint64_t start, last;
	int shown;
};

static void progress_cb(void *arg, uint64_t batches, uint64_t total, uint64_t images)
{
	struct progress *pr = arg;
	uint64_t now = clock_now_ns();
	if (now - pr->last < 500000000ull && batches < total)
		return;
	if (now - pr->start < 1000000000ull && batches < total)
		return;
	pr->last = now;
	double s = (double)(now - pr->start) / 1e9;
	fprintf(stderr, "\r  batch %" PRIu64 "/%" PRIu64 "  %.0f images/s  %.1f s ", batches, total,
		s > 0 ? (double)images / s : 0.0, s);
	pr->shown = 1;
}

/* Run the loader once (run.h). */
int run_measure(const struct run_opts *o, struct run_env *env, struct loader_cfg lc,
		const struct loader_plan *plan, const char *tmp, struct run_out *out,
		char *err, size_t errlen)
{
	char dump_dir[PATH_MAX + 16];
	memset(out, 0, sizeof(*out));
	if (o->dump_batches) {
		snprintf(dump_dir, sizeof(dump_dir), "%s/batches", tmp);
		if (mkdir(dump_dir, 0777)) {
			snprintf(err, errlen, "cannot create '%s': %s", dump_dir, strerror(errno));
			return -1;
		}
		lc.dump_batches = o->dump_batches;
		lc.dump_dir = dump_dir;
	}
	if (env->spec->n)
		lc.counters = env->spec;

	struct progress prog = { .start = clock_now_ns() };
	prog.last = prog.start;
	if (isatty(STDERR_FILENO)) {
		lc.progress = progress_cb;
		lc.progress_arg = &prog;
	}
	int rc = noise_require_idle(o->require_idle, noise_idle_wait_s(), &env->cpus, err, errlen);
	if (!rc) {
		struct noise_snap before, after;
		noise_read(&before, &env->cpus);
		rc = loader_run(&lc, plan, &out->r, err, errlen);
		noise_read(&after, &env->cpus);
		noise_between(&before, &after, &env->cpus, &env->noise);
	}
	if (rc) {
		if (lc.dump_dir)
			rmdir(lc.dump_dir);
		return -1;
	}
	out->have_r = 1;
	if (prog.shown)
		fputc('\n', stderr);
	return 0;
}

int run_analyse(const struct run_opts *o, const struct run_env *env, uint64_t step_ns,
		struct run_out *out, char *err, size_t errlen)
{
	struct run_counted c;
	struct analysis_opts ao;
	run_analysis_opts(o, &out->r, env, env->pipe, &c, &ao);
	if (analysis_compute(&out->r.trace, &ao, &out->m, err, errlen))
		return -1;
	out->have_m = 1;
	out->blocks = run_summary_blocks(o, &out->r, step_ns, env);
	out->in = (struct results_in){
		.m = &out->m,
		.t = &out->r.trace,
		.blocks = out->blocks,
		.spec = env->spec->n ? env->spec : NULL,
		.cacc = out->r.cacc,
		.lotustrace = o->trace,
		.chrome = o->trace,
	};
	return 0;
}

/* A results folder that could not be written completely is kept, under a
 * name that says so, with a summary.json that says why (when even that
 * can be written). Prints what was kept. */
static void keep_partial(const struct run_opts *o, const char *tmp, const char *name,
			 struct results_in *in, const char *why)
{
	char kept[PATH_MAX + 32], path[PATH_MAX + 64];
	snprintf(kept, sizeof(kept), "%s/%s.partial", o->out, name);
	if (rename(tmp, kept))
		snprintf(kept, sizeof(kept), "%s", tmp);
	in->write_error = why;
	json_t *sum = results_summary_json(in);
	snprintf(path, sizeof(path), "%s/summary.json", kept);
	int ok = sum && !json_dump_file(sum, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					JSON_REAL_PRECISION(METRIC_JSON_PRECISION));
	json_decref(sum);
	if (ok)
		info("kept what was written in '%s' (its summary.json says \"complete\": false and why); "
		     "the figures above are the run's", kept);
	else {
		unlink(path);
		info("kept what was written in '%s' (summary.json could not be written either: %s); "
		     "the figures above are the run's", kept, strerror(errno ? errno : EIO));
	}
}

int run_write(const struct run_opts *o, const struct run_env *env, struct run_out *out,
	      const char *tmp, const char *name, char *final, size_t finallen)
{
	char err[PATH_MAX + 1024] = "";
	final[0] = 0;
	int rc = results_write(tmp, &out->in, err, sizeof(err));
	if (!rc && env->have_topo) {
		char xml[PATH_MAX + 16];
		snprintf(xml, sizeof(xml), "%s/topology.xml", tmp);
		rc = topo_export_xml(&env->topo, xml, err, sizeof(err));
	}
	if (rc) {
		error_msg("cannot write the results: %s", err);
		keep_partial(o, tmp, name, &out->in, err);
	} else if (results_dir_commit(o->out, tmp, name, final, finallen, err, sizeof(err))) {
		error_msg("%s", err);
		info("the results are in '%s'", tmp);
		rc = -1;
	}
	if (rc)
		final[0] = 0;
	return rc;
}

void run_out_free(struct run_out *out)
{
	json_decref(out->blocks);
	if (out->have_m)
		analysis_free(&out->m);
	if (out->have_r)
		loader_result_free(&out->r);
	memset(out, 0, sizeof(*out));
}

/* ---- repeats, in memory ------------------------------------------------- */

int run_series_add(struct run_series *s, const struct run_out *out)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct sweep_row *rows = realloc(s->rows, cap * sizeof(*rows));
		if (!rows)
			return -1;
		s->rows = rows;
		s->cap = cap;
	}
	json_t *sum = results_summary_json(&out->in);
	if (!sum)
		return -1;
	sweep_row_init(&s->rows[s->n]);
	sweep_row_from_summary(&s->rows[s->n], sum);
	json_decref(sum);
	s->n++;
	return 0;
}

int run_series_combine(const struct run_series *s, struct combined *c)
{
	if (!s->n)
		return -1;
	const struct sweep_row **rp = calloc(s->n, sizeof(*rp));
	if (!rp)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		rp[i] = &s->rows[i];
	int rc = repeats_combine(rp, s->n, c);
	free(rp);
	return rc;
}

void run_series_free(struct run_series *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}
