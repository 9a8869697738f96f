/* ppbench run: one configuration of the loader, start to results folder.
 * The run itself is the library bench/run/ (run.h); this file parses, prints
 * and repeats. */
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis.h"
#include "commands.h"
#include "counted.h"
#include "counters.h"
#include "describe.h"
#include "emit.h"
#include "escape.h"
#include "fsutil.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "metrics.h"
#include "noise.h"
#include "options.h"
#include "pipeline.h"
#include "repeats.h"
#include "run.h"
#include "topology.h"

static const char usage[] = "ppbench run [options]";
static const char description[] =
	"Run one configuration: W workers following PyTorch's DataLoader protocol run the\n"
	"pipeline on the dataset, batch after batch, into a simulated GPU. Leaves\n"
	"OUT/<UTC time>-<tag>/ with summary.json, batches.csv, ops.csv, LotusTrace files,\n"
	"a Chrome trace and the machine's topology (topology.xml), and prints a summary.\n"
	"Counters (--counters) are read around every op in each worker: per op, their sums,\n"
	"the time on a CPU beside the wall time, and the difference, the time descheduled.\n"
	"Exit status: 0 done; 1 the run failed (a data error with --on-error fail); 2 a bad\n"
	"option, or a run that cannot fit in memory (nothing ran); 3 a worker died; 130, 143\n"
	"and 129 SIGINT, SIGTERM and SIGHUP. A run that stopped early still leaves its results folder,\n"
	"with \"complete\": false.";

static const char *oncpu_source_name(enum oncpu_source s)
{
	return s == ONCPU_TASK_CLOCK ? "task-clock" : s == ONCPU_THREAD_CLOCK ? "thread CPU clock" :
									   "none";
}

/* The human summary's counters section: per op, on-CPU vs wall time (and
 * IPC, misses per kilo-instruction where hardware events count). */
static void print_counters(FILE *f, const struct run_env *x, const struct loader_result *r)
{
	const struct counter_spec *sp = x->spec;
	const struct pipeline *p = x->pipe;
	if (!sp->n) {
		fprintf(f, "counters: none (--counters sw gives on-CPU vs wall time per op)\n");
		return;
	}
	fprintf(f, "counters: %s; on-CPU time from %s; %d of %d worker%s counted", sp->list,
		oncpu_source_name(sp->oncpu), r->workers_counted, r->workers, plural_s(r->workers));
	if (sp->has_overhead)
		fprintf(f, "; a read costs %.0f ns", sp->ov.read_ns);
	if (x->null_ok)
		fprintf(f, " (null op: %.0f ns per sample counted, %.0f plain)", x->null_ov.counted_ns,
			x->null_ov.plain_ns);
	fputc('\n', f);
	int hw = 0;
	for (int i = 0; i < sp->n; i++)
		hw |= sp->ev[i].hw && sp->ev[i].slot >= 0;
	fprintf(f, "  %-22s %10s %12s %12s %8s", "op", "regions", "wall ms", "on-CPU ms", "off-CPU");
	if (hw)
		fprintf(f, " %6s %11s %12s", "IPC", "cache MPKI", "branch MPKI");
	fputc('\n', f);
	for (int i = 0; r->cacc && i < p->nops; i++) {
		const struct counter_acc *a = &r->cacc[i];
		if (!a->regions)
			continue;
		struct counter_derived d;
		char key[64];
		counters_derived(sp, a, &d);
		run_op_key(p, i, key, sizeof(key));
		double n = (double)a->regions;
		fprintf(f, "  %-22s %10" PRIu64 " %12.4f %12.4f %7.1f%%", key, a->regions,
			d.wall_ns / n / 1e6, d.oncpu_ns / n / 1e6,
			d.wall_ns > 0 ? 100.0 * d.descheduled_ns / d.wall_ns : NAN);
		if (hw)
			fprintf(f, " %6.2f %11.2f %12.2f", d.ipc, d.cache_mpki, d.branch_mpki);
		fputc('\n', f);
	}
	fprintf(f, "  (ms per region; off-CPU = wall - on-CPU: the time the op was descheduled; "
		"within about one read cost, %.1f us, of 0 it is noise)\n",
		sp->has_overhead ? sp->ov.read_ns / 1e3 : NAN);
	if (sp->note[0])
		fprintf(f, "  %s\n", sp->note);
	else if (!sp->have_pmu)
		fprintf(f, "  counters: hardware events are not supported here (no hardware PMU%s); "
			"software events only\n", sp->forced_no_pmu ? ": PPBENCH_FORCE_NO_PMU=1" : "");
}

/* One line on where things ran, when a plan binds anything. */
static void print_placement(FILE *f, const struct run_env *x, const struct loader_result *r)
{
	if (!x->have_plan || x->plan.policy == PIN_NONE)
		return;
	char line[512];
	int pinned = 0;
	pin_plan_format(&x->plan, line, sizeof(line));
	for (int w = 0; w < r->workers; w++)
		pinned += r->worker_pinned[w] == 1;
	fprintf(f, "placement: --pin %s: %s; %d of %d worker%s bound%s\n", x->plan.text, line, pinned,
		r->workers, plural_s(r->workers), x->plan.oversubscribed ? " (oversubscribed)" : "");
}

/* The human summary's last lines: what the harness itself cost. */
static void print_harness(FILE *f, const struct run_opts *o, const struct loader_result *r)
{
	fprintf(f, "harness: %s backend, %s, trace event %.1f ns, ", loader_backend_names[o->backend],
		loader_order_names[o->order], r->trace_cost_ns);
	if (o->checksum)
		fprintf(f, "checksum %.3f s (%.1f GB/s)", (double)r->hash_ns / 1e9,
			r->hash_ns ? (double)r->hash_bytes / (double)r->hash_ns : 0.0);
	else
		fprintf(f, "checksum off");
	fprintf(f, ", in flight max %u of %ld", r->max_inflight, o->prefetch_factor * o->workers);
	if (r->pin_locked >= 0)
		fprintf(f, ", pinned buffers %s", r->pin_locked ? "locked" : "NOT locked (mlock failed)");
	char pl[32], tb[32], rs[32];
	uint64_t torch = (uint64_t)r->plan.torch_buffers * r->plan.slot_bytes + r->plan.sample_bytes;
	long rss = run_rss_sum_kib(r);
	loader_human_bytes(r->plan.need_bytes, pl, sizeof(pl));
	loader_human_bytes(torch, tb, sizeof(tb));
	loader_human_bytes((uint64_t)rss * 1024, rs, sizeof(rs));
	fprintf(f, ", memory planned %s (PyTorch %s), batch buffers %d of %d used, peak RSS summed %s",
		pl, tb, r->buffers_peak, r->plan.nslots, rs);
	if (r->trace_dropped)
		fprintf(f, ", %" PRIu64 " trace events DROPPED (raise --trace-capacity)", r->trace_dropped);
	fputc('\n', f);
}

/* The files left out, one line each. With
 * --on-error fail the error line already names the one that stopped the run. */
static void report_errors(const struct loader_result *r, int fail)
{
	if (!r->nerrors || (fail && r->nerrors == 1))
		return;
	const char *what = fail ? "failed" : "skipped";
	size_t show = r->nerrors < 10 ? r->nerrors : 10;
	for (size_t i = 0; i < show; i++) {
		char path[1100];
		bytes_escape(r->err_path[i], path, sizeof(path));   /* a newline stays one line */
		warn_msg("%s '%s': %s", what, path, r->err_reason[i]);
	}
	if (r->nskipped > show)
		warn_msg("%" PRIu64 " samples %s in all (summary.json lists up to %zu)", r->nskipped,
		     what, r->nerrors);
}

/* The figures of a measured run, before anything is written: whatever
 * happens to the files, they are printed. */
static void print_run(const struct run_opts *o, const struct run_env *x, const struct run_out *out)
{
	char origin[160];
	dataset_origin_text(json_object_get(out->blocks, "dataset"), origin, sizeof(origin));
	outf(stdout, "dataset %s: %zu images; %s\n", x->data->root, x->data->n, origin);
	results_print_human(stdout, &out->m);
	print_counters(stdout, x, &out->r);
	print_placement(stdout, x, &out->r);
	print_harness(stdout, o, &out->r);
	fflush(stdout);
}

/* One measured run into its own results folder (out: the run, analysed
 * when final is set): 0 (EXIT_OK), or an exit status. final gets the folder
 * ("" when none was kept). */
static int run_once(const struct run_opts *o, struct run_env *env, const struct loader_cfg *lc,
		    const struct loader_plan *plan, uint64_t step_ns, const char *tagname,
		    struct run_out *out, char *final, size_t finallen)
{
	char err[PATH_MAX + 1024] = "", tmp[PATH_MAX], name[PATH_MAX];
	final[0] = 0;
	memset(out, 0, sizeof(*out));
	if (results_dir_begin(o->out, tagname, tmp, sizeof(tmp), name, sizeof(name), err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (run_measure(o, env, *lc, plan, tmp, out, err, sizeof(err))) {
		error_msg("%s", err);
		rmdir(tmp);
		return EXIT_FAIL;
	}
	const struct loader_result *r = &out->r;
	noise_warn(&env->noise, "the run");
	report_errors(r, o->on_error);
	if (!r->complete)
		error_msg("%s", r->stop_reason);
	int wr = -1;
	if (run_analyse(o, env, step_ns, out, err, sizeof(err)))
		error_msg("cannot analyse the run: %s", err);
	else {
		print_run(o, env, out);
		wr = run_write(o, env, out, tmp, name, final, finallen);
	}
	if (!wr)
		outf(stdout, "results: %s%s\n", final, r->complete ? "" : " (incomplete)");
	return r->exit_code ? r->exit_code : r->complete ? (wr ? EXIT_FAIL : EXIT_OK) : EXIT_FAIL;
}

/* The figures --repeat summarises. */
static const char *const repeat_figures[] = {
	"images_per_s", "e2e_s", "ooo_pct", "stall_pct", "preproc_avg_ms", "preproc_std_pct",
	"gpu_util_pct", "harness_per_sample_us", "pipeline_per_sample_us", "others_cpu_pct",
};

/* The median and spread of the main figures over the repeats. */
static void print_repeats(const struct run_series *s)
{
	struct combined *c = malloc(sizeof(*c));
	if (c && !run_series_combine(s, c)) {
		printf("\n%zu repeats: median [%s] or (min, max) with fewer than 6:\n", s->n,
		       STATS_CI_METHOD);
		for (size_t i = 0; i < sizeof(repeat_figures) / sizeof(repeat_figures[0]); i++) {
			char buf[128];
			const struct metric *mt = metric_find(repeat_figures[i]);
			stats_format(buf, sizeof(buf), combined_spread(c, mt->name), NULL);
			printf("  %-22s %s %s\n", mt->name, buf, mt->unit);
		}
		if (c->same_differs)
			warn_msg("the repeats differ in %s, which should be the same in every repeat",
			     c->same_what);
	}
	free(c);
}

/* --repeat N: N runs, each its own results folder (-r1, -r2, ... after the
 * tag), then the median and spread of the main figures over them, combined
 * in memory. */
static int run_repeats(const struct run_opts *o, struct run_env *env, const struct loader_cfg *lc,
		       const struct loader_plan *plan, uint64_t step_ns)
{
	long n = o->repeat;
	struct run_series s = { 0 };
	int rc = EXIT_OK;
	for (long k = 1; k <= n; k++) {
		char tagname[300], final[PATH_MAX];
		struct run_out out;
		if (n > 1)
			snprintf(tagname, sizeof(tagname), "%s-r%ld", o->tag, k);
		else
			snprintf(tagname, sizeof(tagname), "%s", o->tag);
		int r = run_once(o, env, lc, plan, step_ns, tagname, &out, final, sizeof(final));
		if (r && !rc)
			rc = r;
		if (final[0] && n > 1 && run_series_add(&s, &out))
			warn_msg("out of memory: repeat %ld is left out of the median", k);
		run_out_free(&out);
		if (r >= 128 || !final[0])
			break;   /* interrupted, or nothing kept: no further repeat */
	}
	if (n > 1 && s.n > 1)
		print_repeats(&s);
	run_series_free(&s);
	return rc;
}

/* Parse and check the options, and read the CPUs the run may use. -1 to go
 * on, else the exit status. */
static int parse(int argc, char **argv, struct run_opts *o, uint64_t *step_ns, struct run_env *env)
{
	char err[1024] = "";
	int npos = 0;
	int pr = opts_prelude(run_opts_table, o, argc, argv, &npos, usage, description, "run");
	if (pr >= 0)
		return pr;
	if (run_opts_check(o, step_ns, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	cpus_read(&env->cpus);
	warn_oversubscribed(&o->workers, 1, cpus_usable_int(&env->cpus), "this run");
	return -1;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	char err[1024] = "";
	int rc;
	struct pipeline pipe;
	struct dataset data;
	int have_pipe = 0, have_data = 0;
	struct run_env env;
	memset(&env, 0, sizeof(env));
	char data_path[PATH_MAX], tag[256];
	uint64_t step_ns;

	rc = parse(argc, argv, &o, &step_ns, &env);
	if (rc >= 0)
		return rc;
	rc = run_env_prepare(&env, &o);
	if (rc)
		goto out;
	rc = run_open_inputs(&o, &pipe, &data, data_path, sizeof(data_path), &have_pipe,
			     &have_data);
	if (rc)
		goto out;
	rc = EXIT_USAGE;
	env.pipe = &pipe;
	env.data = &data;

	struct loader_cfg lc = run_loader_cfg(&o, &pipe, &data, step_ns);
	lc.pin_plan = env.have_plan ? &env.plan : NULL;
	struct loader_plan plan;
	if (loader_plan(&lc, &plan, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	if (!o.tag) {
		snprintf(tag, sizeof(tag), "%s-b%ld-w%ld-g%ld", pipe.name, o.batch_size, o.workers, o.gpus);
		o.tag = tag;
	}
	if (results_path_check(o.out, o.tag, o.repeat > 1 ? 6 : 0, err, sizeof(err)) ||
	    mkdir_out(o.out, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;   /* EXIT_USAGE: nothing ran */
	}
	if (run_check_space(&o, &pipe, &data, err, sizeof(err))) {
		error_msg("%s", err);
		rc = EXIT_FAIL;
		goto out;
	}
	run_env_probe(&env);
	rc = run_repeats(&o, &env, &lc, &plan, step_ns);
out:
	if (have_data)
		dataset_release(&data);
	if (have_pipe)
		pipeline_release(&pipe);
	run_env_release(&env);
	return rc;
}
