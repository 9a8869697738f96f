/* ppbench strategies' steps after the options (strategies_engine.h): the
 * dataset and schedule, the folders, the measurement in a noise window, the
 * results written, a failed run's stores removed. The engine:
 * strategies_engine.c; the command: cli/cmd_strategies.c. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "conventions.h"
#include "emit.h"
#include "log.h"
#include "options.h"
#include "stopsig.h"
#include "fsutil.h"
#include "plot.h"
#include "strategies_engine.h"

/* gnuplot -c plots/strategies.gp data out title, output in log. 0, or -1. */
static int draw(const char *data, const char *out, const char *title, const char *log)
{
	char top[PATH_MAX], why[256];
	const char *args[] = { data, out, title, NULL };

	if (find_top(TOP_OF_PLOTS, top, sizeof(top)))
		return -1;
	return plot_run(top, "strategies.gp", args, log, why, sizeof(why));
}

/* The dataset, the epochs' schedule, the threads' state. An exit code, or
 * -1 to go on. */
int strat_load(struct strat_cmd *x)
{
	struct strat_opts *o = &x->o;
	struct ctx *c = x->c;
	char err[1024];

	if (!o->data) {
		if (dataset_ensure_default(x->data_path, sizeof(x->data_path), err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		o->data = x->data_path;
	}
	if (dataset_scan(&c->ds, o->data, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	c->n = o->images && (size_t)o->images < c->ds.n ? (size_t)o->images : c->ds.n;
	for (size_t i = 0; i < c->n; i++)
		c->orig_bytes += c->ds.items[i].bytes;
	if (schedule_build(&c->sched, c->n, (size_t)o->batch_size, (int)o->epochs, o->shuffle, 0,
			   o->seed, 0, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	c->workers = (int)o->workers;
	c->threads = o->offline_threads ? (int)o->offline_threads : omp_get_num_procs();
	int nt = c->workers > c->threads ? c->workers : c->threads;
	c->thr = calloc((size_t)nt, sizeof(*c->thr));
	c->smp = calloc((size_t)o->batch_size, sizeof(*c->smp));
	c->ok = calloc((size_t)o->batch_size, sizeof(*c->ok));
	if (!c->thr || !c->smp || !c->ok) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	for (int i = 0; i < nt; i++)
		rng_seed(&c->thr[i].rng, o->seed);
	return -1;
}

/* The results folder (under a temporary name) and the stores' folder. 0, or -1. */
int strat_folders(struct strat_cmd *x)
{
	struct strat_opts *o = &x->o;
	struct ctx *c = x->c;
	char err[1024];

	if (!o->tag) {
		snprintf(x->tag, sizeof(x->tag), "strategies-%s", c->pipe.name);
		o->tag = x->tag;
	}
	if (results_dir_begin(o->out, o->tag, x->tmp, sizeof(x->tmp), x->name, sizeof(x->name),
			      err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	x->have_dir = 1;
	if (o->store) {
		snprintf(c->store_root, sizeof(c->store_root), "%s", o->store);
		if (mkdir_p(c->store_root, 0777)) {
			error_msg("cannot create '%s': %s", c->store_root, strerror(errno));
			return -1;
		}
	} else {
		snprintf(c->store_root, sizeof(c->store_root), "%.4000s/store", x->tmp);
		if (mkdir(c->store_root, 0777)) {
			error_msg("cannot create '%s': %s", c->store_root, strerror(errno));
			return -1;
		}
		c->made_store_root = 1;
	}
	return 0;
}

/* Every wanted split's strategies, in a noise window, then the ranking.
 * 0 all measured, 1 one failed, -1 stopped (said). */
int strat_measure(struct strat_cmd *x)
{
	struct ctx *c = x->c;
	char err[1024];
	int failed = 0;

	cpus_read(&c->cpus);
	if (noise_require_idle(x->o.require_idle, noise_idle_wait_s(), &c->cpus, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	struct noise_snap n0, n1;
	noise_read(&n0, &c->cpus);
	for (int si = 0; si < c->nsplits && !stop_signal() && !c->idle_refused; si++) {
		if (!c->want_split[si])
			continue;
		if (strat_run_split(c, si))
			failed = 1;
		if (si == 0 && (c->nst == 0 || !c->st[0].ran) && !stop_signal()) {
			error_msg("the full pipeline (none/raw) failed: nothing to compare with");
			return -1;
		}
	}
	if (stop_signal())
		return -1;
	noise_read(&n1, &c->cpus);
	noise_between(&n0, &n1, &c->cpus, &c->noise);
	noise_warn(&c->noise, "the strategies' measurements");
	if (c->idle_refused)
		warn_msg("--require-idle: the strategies measured before the machine got busy are kept");
	if (c->made_store_root && !x->o.keep)
		rmdir(c->store_root);
	strat_rank_all(c);
	return failed;
}

/* The throughput-against-storage figure in figures/ (a warning if not drawn). */
static void strat_figure(const struct strat_cmd *x)
{
	const struct strat_opts *o = &x->o;
	const struct ctx *c = x->c;
	char path[PATH_MAX + 64], fig[PATH_MAX + 64], log[PATH_MAX + 64], title[512];

	snprintf(fig, sizeof(fig), "%.4000s/figures", x->tmp);
	snprintf(log, sizeof(log), "%.4000s/figures/gnuplot.log", x->tmp);
	snprintf(path, sizeof(path), "%.4000s/strategies.csv", x->tmp);
	snprintf(title, sizeof(title), "PRESTO's strategies: %s, %zu images, %ld epochs, "
		 "%ld thread%s, %s", c->pipe.name, c->n, o->epochs, o->workers,
		 o->workers == 1 ? "" : "s", o->warm ? "warm" : "cold page cache");
	if (mkdir(fig, 0777) && errno != EEXIST) {
		warn_msg("cannot create '%s': %s", fig, strerror(errno));
		return;
	}
	snprintf(fig, sizeof(fig), "%.4000s/figures/strategies", x->tmp);
	if (draw(path, fig, title, log))
		warn_msg("figure not drawn (gnuplot or plots/strategies.gp missing? see %s)", log);
}

/* strategies.csv, .json, .md and the figure; the folder committed. 0, or -1. */
int strat_write(struct strat_cmd *x)
{
	struct ctx *c = x->c;
	char err[1024], path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%.4000s/strategies.csv", x->tmp);
	if (strat_write_csv(c, path, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	snprintf(path, sizeof(path), "%.4000s/strategies.json", x->tmp);
	if (strat_write_json(c, opts_json(x->table, &x->o), path, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	if (x->o.plot)
		strat_figure(x);
	snprintf(path, sizeof(path), "%.4000s/strategies.md", x->tmp);
	FILE *md = fopen(path, "w");
	if (md) {
		strat_print_table(md, c, NULL);
		if (ferror(md) | fclose(md))
			md = NULL;
	}
	if (!md) {
		error_msg("cannot write '%s'", path);
		return -1;
	}
	if (results_dir_commit(x->o.out, x->tmp, x->name, x->final, sizeof(x->final), err,
			       sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	x->have_dir = 0;
	return 0;
}

/* A failed run: remove the stores; the folder stays with what it has. */
void strat_abandon(struct strat_cmd *x)
{
	struct ctx *c = x->c;
	char err[1024];

	if (c->made_store_root && !x->o.keep) {
		for (int si = 0; si < c->nsplits; si++)
			for (int f = 0; f < STORE_NFORMATS; f++) {
				char dir[PATH_MAX + 200];
				snprintf(dir, sizeof(dir), "%s/%s-%s", c->store_root, c->split[si].name,
					 store_format_name((enum store_format)f));
				store_remove(dir, err, sizeof(err));
			}
		rmdir(c->store_root);
	}
	rmdir(x->tmp);
}
