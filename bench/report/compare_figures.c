/* ppbench compare: the figures (plots/compare_*.gp) and compare.md's
 * context (compare.h). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsutil.h"
#include "describe.h"
#include "plot.h"
#include "escape.h"
#include "log.h"
#include "compare_int.h"

/* ---- figures ------------------------------------------------------------- */

/* series,series_label,x_ms,cum_pct: the CDF of a batch figure per side.
 * what: 0 in-order wait, 1 delay, 2 batch preprocessing. */
static int write_cdf(const char *path, const struct compare_side *const *side, int what)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "series,series_label,x_ms,cum_pct\n");
	for (int s = 0; s < 2; s++) {
		const struct run_metrics *m = &side[s]->m;
		double *v = malloc((m->nbatches ? m->nbatches : 1) * sizeof(*v));
		size_t n = 0;
		if (!v) {
			fclose(f);
			return -1;
		}
		for (size_t i = 0; i < m->nbatches; i++) {
			const struct batch_row *r = &m->rows[i];
			if (what == 0 && r->wait_ns != BATCH_NONE && !r->out_of_order)
				v[n++] = (double)r->wait_ns / 1e6;
			else if (what == 1 && r->delay_ns != BATCH_NONE)
				v[n++] = (double)r->delay_ns / 1e6;
			else if (what == 2 && r->started != BATCH_NONE && r->finished != BATCH_NONE)
				v[n++] = (double)(r->finished - r->started) / 1e6;
		}
		stats_sort(v, n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%d,%s,%.6f,%.4f\n", s + 1, s ? "PyTorch" : "ppbench", v[i],
				100.0 * (double)(i + 1) / (double)n);
		free(v);
	}
	return ferror(f) | fclose(f) ? -1 : 0;
}

static int write_ops_data(const char *path, const struct compare_side *a,
			  const struct compare_side *b)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "op,ppbench_mean_ms,ppbench_p90_ms,pytorch_mean_ms,pytorch_p90_ms\n");
	for (size_t i = 0; i < a->m.nops; i++) {
		const struct op_metrics *x = &a->m.ops[i], *y = compare_find_op(&b->m, x->name);
		if (compare_op_per_batch(x->lotus_name))
			continue;   /* per batch: another scale */
		csv_put(f, x->name);
		fprintf(f, ",%.6f,%.6f,", x->st.mean / 1e6, x->st.p90 / 1e6);
		if (y)
			fprintf(f, "%.6f,%.6f\n", y->st.mean / 1e6, y->st.p90 / 1e6);
		else
			fprintf(f, ",\n");
	}
	return ferror(f) | fclose(f) ? -1 : 0;
}

static int write_batches_data(const char *path, const struct compare_side *const *side)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "series,series_label,batch,preproc_ms,wait_ms\n");
	for (int s = 0; s < 2; s++) {
		const struct run_metrics *m = &side[s]->m;
		for (size_t i = 0; i < m->nbatches; i++) {
			const struct batch_row *r = &m->rows[i];
			if (r->started == BATCH_NONE || r->finished == BATCH_NONE)
				continue;
			fprintf(f, "%d,%s,%" PRId64 ",%.6f,", s + 1, s ? "PyTorch" : "ppbench", r->id,
				(double)(r->finished - r->started) / 1e6);
			if (r->wait_ns != BATCH_NONE && !r->out_of_order)
				fprintf(f, "%.6f\n", (double)r->wait_ns / 1e6);
			else
				fprintf(f, "\n");
		}
	}
	return ferror(f) | fclose(f) ? -1 : 0;
}

/* gnuplot -c plots/script data out title; 0, or -1 (why in the log) */
static int gnuplot(const char *top, const char *script, const char *data, const char *out,
		   const char *title, const char *log)
{
	const char *args[] = { data, out, title, NULL };
	char why[256];

	return plot_run(top, script, args, log, why, sizeof(why));
}

/* The figures' data, and the figures when gnuplot and plots/ are there.
 * Returns how many figures could not be drawn. */
int compare_draw_figures(const char *dir, const struct compare_side *a,
			const struct compare_side *b, const char *subtitle)
{
	const struct compare_side *side[2] = { a, b };
	char fig[PATH_MAX], data[PATH_MAX], out[PATH_MAX], log[PATH_MAX], top[PATH_MAX];
	static const struct {
		const char *data, *script, *out, *title;
		int what;
	} figs[] = {
		{ "ops.csv", "compare_ops.gp", "ops", "Per-op time per image", -1 },
		{ "wait_cdf.csv", "compare_cdf.gp", "wait_cdf",
		  "Main-process wait for the next in-order batch", 0 },
		{ "delay_cdf.csv", "compare_cdf.gp", "delay_cdf",
		  "Delay: batch ready until consumed", 1 },
		{ "preproc_cdf.csv", "compare_cdf.gp", "preproc_cdf", "Batch preprocessing time", 2 },
		{ "batches.csv", "compare_batches.gp", "batches", "Batch preprocessing time per batch",
		  -2 },
	};
	int failed = 0, have_top = find_top(TOP_OF_PLOTS, top, sizeof(top)) == 0;

	errf(fig, sizeof(fig), "%s/figures", dir);
	if (mkdir(fig, 0777) && errno != EEXIST) {
		warn_msg("cannot create '%s': %s", fig, strerror(errno));
		return 1;
	}
	errf(log, sizeof(log), "%s/gnuplot.log", fig);
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		int rc;
		char title[1024];
		errf(data, sizeof(data), "%s/%s", fig, figs[i].data);
		if (figs[i].what == -1)
			rc = write_ops_data(data, a, b);
		else if (figs[i].what == -2)
			rc = write_batches_data(data, side);
		else
			rc = write_cdf(data, side, figs[i].what);
		if (rc) {
			warn_msg("cannot write '%s'", data);
			failed++;
			continue;
		}
		if (!have_top) {
			failed++;
			continue;
		}
		errf(out, sizeof(out), "%s/%s", fig, figs[i].out);
		snprintf(title, sizeof(title), "%s\n%s", figs[i].title, subtitle);
		if (gnuplot(top, figs[i].script, data, out, title, log))
			failed++;
	}
	if (!have_top)
		warn_msg("figures not drawn: plots/ not found next to the executable (data in %s)", fig);
	else if (failed)
		warn_msg("%d figure%s not drawn (see %s)", failed, failed == 1 ? "" : "s", log);
	return failed;
}

/* compare.md ends with what ran (so that the table can be read, and
 * the comparison run again, without the logs) and links to its figures. */
void compare_md_context(const char *md, const char *dir, const json_t *opt, const json_t *ds,
		       const char *pipe, const char *torch_info)
{
	char figdir[PATH_MAX], origin[160];
	struct dirent **ents = NULL;
	FILE *f = fopen(md, "a");

	if (!f)
		return;
	if (dataset_origin_text(ds, origin, sizeof(origin)) < 0)
		snprintf(origin, sizeof(origin), "not recorded whether generated");
	fprintf(f, "\n## What ran\n\n"
		"- pipeline %s on the dataset %s (%s)\n"
		"- %lld workers, batch %lld, %lld simulated GPUs (step %.6g ms), prefetch factor %lld, "
		"pin memory %s\n"
		"- %lld epoch(s), at most %lld batches (0: all), shuffle %s, drop last %s, seed %lld, "
		"--rng %s, loader policy %s, backend %s\n"
		"- PyTorch side: %s\n",
		pipe, jget_str(opt, "data", "?"), origin, jget_int(opt, "workers", 0), jget_int(opt, "batch", 0),
		jget_int(opt, "gpus", 0), jget_num(opt, "gpu_step_ns") / 1e6, jget_int(opt, "prefetch_factor", 0),
		json_is_true(json_object_get(opt, "pin_memory")) ? "on" : "off",
		jget_int(opt, "epochs", 1), jget_int(opt, "max_batches", 0),
		json_is_true(json_object_get(opt, "shuffle")) ? "on" : "off",
		json_is_true(json_object_get(opt, "drop_last")) ? "on" : "off", jget_int(opt, "seed", 0),
		jget_str(opt, "rng", "?"), jget_str(opt, "policy", "torch"), jget_str(opt, "backend", "?"),
		torch_info);
	errf(figdir, sizeof(figdir), "%s/figures", dir);
	int n = scandir(figdir, &ents, NULL, alphasort), k = 0;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);
		if (l > 4 && !strcmp(ents[i]->d_name + l - 4, ".png")) {
			if (!k++)
				fprintf(f, "\n## Figures\n\n");
			fprintf(f, "![%.*s](figures/%s) ([SVG](figures/%.*s.svg))\n\n", (int)l - 4,
				ents[i]->d_name, ents[i]->d_name, (int)l - 4, ents[i]->d_name);
		}
		free(ents[i]);
	}
	free(ents);
	if (!k)
		fprintf(f, "\nNo figures were drawn (see figures/gnuplot.log); their data is in figures/.\n");
	fclose(f);
}

