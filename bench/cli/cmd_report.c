/* ppbench report DIR... / RUN_DIR... and ppbench plots DIR: the commands.
 * The work is in report_table.c (rows, loading, summary.csv), report_figures.c
 * (figure data and gnuplot), report.c (a sweep's report), report_run.c (a
 * run's report), findings.c (the verdicts) and doc.c (Markdown and HTML). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "fsutil.h"
#include "report.h"
#include "optpos.h"
#include "options.h"


/* ---- commands -------------------------------------------------------------*/

/* dir is neither a sweep folder nor a run folder: said, 1 (the caller exits
 * EXIT_USAGE: nothing was read). */
static int not_results(const char *dir)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/sweep.json", dir);
	if (file_exists(p) || is_run_dir(dir))
		return 0;
	error_msg("'%s' is neither a sweep folder (it has no sweep.json) nor a run folder (no "
		  "summary.json): give a folder made by ppbench sweep or ppbench run (ppbench ls %s "
		  "lists the results folders in it)", dir, dir);
	return 1;
}

static const char report_usage[] = "ppbench report DIR [DIR...] [--out DIR] [--model on|off]\n"
				   "       ppbench report RUN_DIR [RUN_DIR...]";

static const char report_description[] =
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
	"with its spread.";

struct report_opts {
	const char *out;
	int model;
};

static const struct opt report_optt[] = {
	OPT_OUT(struct report_opts, out, NULL,
		"where several sweeps' report goes (default: their common parent folder)"),
	OPT_ROW("model", 0, OPT_BOOL, struct report_opts, model, "off", NULL,
		"the model's lines in the figures against workers"),
	OPT_END
};

/* The sweep folders dirs[0..n) as one sweep: one folder in place, several
 * into out (default: their common parent). An exit code, or -1 to go on. */
static int load_sweeps(struct sweep *s, char **dirs, size_t n, const char *out)
{
	char err[1024], outbuf[4096];

	if (n == 1 && !out) {
		if (!sweep_load(s, dirs[0], err, sizeof(err)))
			return -1;
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (!out) {
		if (report_common_parent(dirs, n, outbuf, sizeof(outbuf)))
			return EXIT_USAGE;
		out = outbuf;
	}
	if (mkdir_p(out, 0777)) {
		error_msg("cannot create '%s': %s", out, strerror(errno));
		return EXIT_FAIL;
	}
	if (!sweep_load_many(s, dirs, n, out, err, sizeof(err)))
		return -1;
	error_msg("%s", err);
	return EXIT_FAIL;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct sweep s;
	char err[1024];
	char **dirs = argv + 1;
	int n, rc = opts_prelude(report_optt, &o, argc, argv, &n, report_usage,
				 report_description, NULL);

	if (rc >= 0)
		return rc;
	if (opts_positional_bad(dirs, n, "report"))
		return EXIT_USAGE;
	if (!n) {
		fprintf(stderr, "usage: %s\n", report_usage);
		return EXIT_USAGE;
	}
	for (int i = 0; i < n; i++)
		if (input_missing(dirs[i]) || not_results(dirs[i]))
			return EXIT_USAGE;
	if (is_run_dir(dirs[0])) {
		if (o.out) {
			error_msg("--out is for sweeps: a run's report goes into its folder");
			return EXIT_USAGE;
		}
		return cmd_report_run(dirs, (size_t)n);
	}
	rc = load_sweeps(&s, dirs, (size_t)n, o.out);
	if (rc >= 0)
		return rc;
	s.model = o.model;
	rc = report_write(&s, err, sizeof(err));
	if (rc)
		error_msg("%s", err);
	else
		printf("%s/report.md\n%s/report.html\n", s.dir, s.dir);
	sweep_free(&s);
	return rc ? EXIT_FAIL : EXIT_OK;
}

static const char plots_description[] =
	"Redraws the figures of the sweep folder DIR (figures/: the data files,\n"
	"PNG and SVG) and its summary.csv, without the report. For a run folder\n"
	"(made by ppbench run): its figures (op CDF, Figs. 4, 5a, 5b), with its\n"
	"repeats when it was run with --repeat.";
static const struct opt plots_optt[] = { OPT_END };

int cmd_plots(int argc, char **argv)
{
	static const char usage[] = "ppbench plots DIR";
	struct fig_status st[REPORT_MAX_FIGS];
	struct sweep s;
	char err[1024], path[4096];
	size_t n = 0, drawn = 0;
	int npos, rc = opts_prelude(plots_optt, &s, argc, argv, &npos, usage, plots_description,
				    NULL);
	if (rc >= 0)
		return rc;
	if (npos != 1) {
		fprintf(stderr, "usage: %s\n", usage);
		return EXIT_USAGE;
	}
	if (input_missing(argv[1]) || not_results(argv[1]))
		return EXIT_USAGE;
	int lk = -1;
	if (is_run_dir(argv[1])) {
		json_t *sum;
		char topbuf[4096], figdir[4096], datadir[4096], log[4096];
		const char *top = find_top(TOP_OF_PLOTS, topbuf, sizeof(topbuf)) ? NULL : topbuf;
		if (report_run_load(&s, argv + 1, 1, &sum, err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		json_decref(sum);
		lk = report_lock(s.dir);
		errf(figdir, sizeof(figdir), "%s/figures", s.dir);
		errf(datadir, sizeof(datadir), "%s/figures/data", s.dir);
		errf(log, sizeof(log), "%s/gnuplot.log", figdir);
		if (report_fig_dirs(s.dir, 0, err, sizeof(err))) {
			error_msg("%s", err);
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
		lk = report_lock(s.dir);
		snprintf(path, sizeof(path), "%s/summary.csv", s.dir);
		rc = sweep_write_csv(&s, path, err, sizeof(err));
		if (!rc)
			rc = report_figures(&s, st, REPORT_MAX_FIGS, &n, err, sizeof(err));
		if (rc)
			error_msg("%s", err);
	}
	report_unlock(lk);
	if (rc) {
		sweep_free(&s);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		if (st[i].drawn) {
			drawn++;
			printf("%s/figures/%s.png\n", s.dir, st[i].name);
		} else if (!st[i].failed) {
			/* the failed ones: plot_summary() at the end */
			info("%s: not drawn: %s", st[i].name, st[i].why);
		}
	}
	sweep_free(&s);
	return drawn ? EXIT_OK : EXIT_FAIL;
}
