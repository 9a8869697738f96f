/* ppbench merge: one merge from the folders to the merge folder (merge.h). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsutil.h"
#include "log.h"
#include "resdir.h"
#include "conventions.h"
#include "merge_int.h"

void merge_free(struct merge *m)
{
	for (size_t i = 0; i < m->nfolders; i++)
		sweep_free(&m->folders[i].sw);
	free(m->folders);
	for (size_t i = 0; i < m->nmach; i++) {
		free(m->mach[i].rows);
		free(m->mach[i].own);
		free(m->mach[i].ownpt);
		free(m->mach[i].pt);
		free(m->mach[i].mod);
	}
	free(m->mach);
	free(m->overlap);
}

/* The merge folder: summary.csv, comparison.csv, figures/, the report. 0,
 * or -1 (said). */
int merge_write(struct merge *m, long ref, char *outbuf, size_t outlen)
{
	char err[2048], path[4200];

	if (!m->out) {
		char name[256];
		results_dir_name(name, sizeof(name), "merge", NULL);
		errf(outbuf, outlen, "results/%s", name);
		m->out = outbuf;
	}
	errf(path, sizeof(path), "%s/figures/data", m->out);
	if (mkdir_p(path, 0777)) {
		error_msg("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	errf(path, sizeof(path), "%s/summary.csv", m->out);
	if (merge_write_summary(m, path, err, sizeof(err)))
		goto fail;
	errf(path, sizeof(path), "%s/comparison.csv", m->out);
	if (merge_write_comparison(m, path, err, sizeof(err)))
		goto fail;
	if (m->model && merge_model_machines(m, err, sizeof(err)))
		goto fail;
	errf(path, sizeof(path), "%s/figures/data", m->out);
	if (merge_write_fig_data(m, path, err, sizeof(err)))
		goto fail;
	merge_draw_figures(m);
	if (merge_write_report(m, ref, err, sizeof(err)))
		goto fail;
	return 0;
fail:
	error_msg("%s", err);
	return -1;
}

/* --price NAME=USD_PER_HOUR, each: the names (allocated) and prices. An exit
 * code, or -1 to go on. */
static int parse_prices(const struct merge_opts *o, char **names, double *usd)
{
	char err[2048];

	for (size_t i = 0; i < o->price.n; i++) {
		char name[256];
		if (merge_parse_price(o->price.v[i], name, sizeof(name), &usd[i], err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_USAGE;
		}
		names[i] = strdup(name);
		if (!names[i]) {
			error_msg("out of memory");
			return EXIT_FAIL;
		}
	}
	return -1;
}

/* After the merge: the figures not drawn, the folders still running or not
 * compared, the series the model could not draw. */
static void merge_warnings(const struct merge *m)
{
	for (size_t i = 0; i < m->nfigs; i++)
		if (!m->figs[i].drawn && m->nmach)
			info("%s: not drawn: %s", m->figs[i].name, m->figs[i].why);
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *f = &m->folders[i];
		if (f->running)
			warn_msg("'%s' is a sweep still running (it holds %s/.lock): %d of its %d runs "
				 "are not finished and are missing from this merge%s%s%s; merge again when "
				 "it ends", f->name, f->dir, f->npending, f->nruns,
				 f->npending ? " (" : "", f->pending, f->npending ? ")" : "");
		if (!f->compared)
			warn_msg("'%s' is not compared: %s", f->name, f->why);
	}
	for (size_t i = 0; m->model && i < m->nmach; i++)
		if (m->mach[i].model_why[0])
			warn_msg("--model: %s: %s", m->mach[i].label, m->mach[i].model_why);
}

/* Read the folders, compare the machines, price them. An exit code, or -1
 * to go on; *ref: the folder the others are compared with. */
static int merge_read_all(struct merge *m, const struct merge_opts *o, char **pnames,
			  double *pusd, long *ref)
{
	char err[2048];

	for (size_t i = 0; i < o->ndirs; i++)
		if (input_missing(o->dirs[i]))
			return EXIT_USAGE;
	for (size_t i = 0; i < o->ndirs; i++)
		if (merge_add_dir(m, o->dirs[i], err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
	*ref = merge_choose_compared(m);
	if (merge_build_machines(m, err, sizeof(err)) || merge_analyse(m, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (merge_apply_prices(m, pnames, pusd, o->price.n, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	return -1;
}

int merge_execute(const struct merge_opts *o)
{
	struct merge m;
	char **pnames = calloc(o->price.n + 1, sizeof(*pnames));
	double *pusd = calloc(o->price.n + 1, sizeof(*pusd));
	char outbuf[4096];
	long ref = -1;
	int rc = EXIT_FAIL;

	memset(&m, 0, sizeof(m));
	m.out = o->out;
	m.by_cpu = o->by_cpu;
	m.model = o->model;
	if (!pnames || !pusd) {
		error_msg("out of memory");
		goto out;
	}
	rc = parse_prices(o, pnames, pusd);
	if (rc >= 0)
		goto out;
	rc = merge_read_all(&m, o, pnames, pusd, &ref);
	if (rc >= 0)
		goto out;
	rc = EXIT_FAIL;
	if (merge_write(&m, ref, outbuf, sizeof(outbuf)))
		goto out;
	merge_warnings(&m);
	printf("%s/report.md\n%s/report.html\n", m.out, m.out);
	if (ref < 0) {
		error_msg("no run of any sweep folder succeeded: nothing to compare");
		goto out;
	}
	rc = EXIT_OK;
out:
	for (size_t i = 0; pnames && i < o->price.n; i++)
		free(pnames[i]);
	free(pnames);
	free(pusd);
	merge_free(&m);
	return rc;
}
