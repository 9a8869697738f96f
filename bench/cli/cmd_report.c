/* ppbench report DIR... / RUN_DIR... and ppbench plots DIR: the commands.
 * The work is in report_table.c (rows, loading, summary.csv), report_figures.c
 * (figure data and gnuplot), report.c (a sweep's report), report_run.c (a
 * run's report), findings.c (the verdicts) and doc.c (Markdown and HTML). */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "analysis.h"
#include "commands.h"
#include "emit.h"
#include "csv.h"
#include "doc.h"
#include "log.h"
#include "fsutil.h"
#include "metrics.h"
#include "model.h"
#include "repeats.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "trace.h"


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

static int one_dir_arg(int argc, char **argv, const char *usage, const char *what)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n\n%s\n", usage, what);
		exit_codes_help(stdout);
		return 1;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s\n", usage);
		return -1;
	}
	return 0;
}

static const char report_usage[] = "ppbench report DIR [DIR...] [--out DIR] [--model on|off]\n"
				   "       ppbench report RUN_DIR [RUN_DIR...]";

/* report's command line: the folders into dirs (*n of them), --out, --model.
 * -1 to go on, else the exit status (--help, a bad option). */
static int report_parse(int argc, char **argv, char **dirs, size_t *n, const char **out,
			int *model)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: %s\n\n"
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
			       "with its spread.\n\n"
			       "options:\n"
			       "  -o, --out DIR                    where several sweeps' report goes (default: their\n"
			       "                                   common parent folder)\n"
			       "      --model on|off               the model's lines in the figures against workers\n"
			       "                                   (default: off)\n"
			       "  -h, --help                       show this help\n", report_usage);
			exit_codes_help(stdout);
			return EXIT_OK;
		}
		if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "-o")) {
			if (i + 1 >= argc) {
				error_msg("--out needs a value");
				return EXIT_USAGE;
			}
			*out = argv[++i];
		} else if (!strncmp(argv[i], "--out=", 6)) {
			*out = argv[i] + 6;
		} else if (!strcmp(argv[i], "--model") || !strncmp(argv[i], "--model=", 8)) {
			const char *v = argv[i][7] == '=' ? argv[i] + 8 : i + 1 < argc ? argv[++i] : "";
			if (strcmp(v, "on") && strcmp(v, "off")) {
				error_msg("--model: '%s' is not on or off", v);
				return EXIT_USAGE;
			}
			*model = !strcmp(v, "on");
		} else if (argv[i][0] == '-') {
			error_msg("unknown option '%s' (see --help)", argv[i]);
			return EXIT_USAGE;
		} else {
			dirs[(*n)++] = argv[i];
		}
	}
	return -1;
}

/* The common parent folder of the sweep folders dirs into out; -1 (said)
 * when they have different parents. */
static int common_parent(char **dirs, size_t n, char *out, size_t outlen)
{
	char *slash;

	snprintf(out, outlen, "%s", dirs[0]);
	strip_slashes(out);
	slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(out, outlen, ".");
	for (size_t i = 1; i < n; i++) {
		char other[4096];
		snprintf(other, sizeof(other), "%s", dirs[i]);
		strip_slashes(other);
		slash = strrchr(other, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(other, sizeof(other), ".");
		if (strcmp(other, out)) {
			error_msg("the sweep folders have different parents: give --out DIR");
			return -1;
		}
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct sweep s;
	char err[1024], outbuf[4096];
	char **dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	const char *out = NULL;
	size_t n = 0;
	int rc, model = 0;

	if (!dirs) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	rc = report_parse(argc, argv, dirs, &n, &out, &model);
	if (rc >= 0) {
		free(dirs);
		return rc;
	}
	if (!n) {
		fprintf(stderr, "usage: %s\n", report_usage);
		free(dirs);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < n; i++)
		if (input_missing(dirs[i]) || not_results(dirs[i])) {
			free(dirs);
			return EXIT_USAGE;
		}
	if (is_run_dir(dirs[0])) {
		if (out) {
			error_msg("--out is for sweeps: a run's report goes into its folder");
			free(dirs);
			return EXIT_USAGE;
		}
		rc = cmd_report_run(dirs, n);
		free(dirs);
		return rc;
	}
	if (n == 1 && !out) {
		rc = sweep_load(&s, dirs[0], err, sizeof(err));
	} else {
		if (!out) {
			/* the common parent of the folders */
			if (common_parent(dirs, n, outbuf, sizeof(outbuf))) {
				free(dirs);
				return EXIT_USAGE;
			}
			out = outbuf;
		}
		if (mkdir_p(out, 0777)) {
			error_msg("cannot create '%s': %s", out, strerror(errno));
			free(dirs);
			return EXIT_FAIL;
		}
		rc = sweep_load_many(&s, dirs, n, out, err, sizeof(err));
	}
	free(dirs);
	if (rc) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	s.model = model;
	rc = report_write(&s, err, sizeof(err));
	if (rc)
		error_msg("%s", err);
	else
		printf("%s/report.md\n%s/report.html\n", s.dir, s.dir);
	sweep_free(&s);
	return rc ? EXIT_FAIL : EXIT_OK;
}

int cmd_plots(int argc, char **argv)
{
	static const char usage[] = "ppbench plots DIR";
	struct fig_status st[REPORT_MAX_FIGS];
	struct sweep s;
	char err[1024], path[4096];
	size_t n = 0, drawn = 0;
	int rc = one_dir_arg(argc, argv, usage,
			     "Redraws the figures of the sweep folder DIR (figures/: the data files,\n"
			     "PNG and SVG) and its summary.csv, without the report. For a run folder\n"
			     "(made by ppbench run): its figures (op CDF, Figs. 4, 5a, 5b), with its\n"
			     "repeats when it was run with --repeat.");
	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	if (input_missing(argv[1]) || not_results(argv[1]))
		return EXIT_USAGE;
	int lk = -1;
	if (is_run_dir(argv[1])) {
		json_t *sum;
		char topbuf[4096], figdir[4096], datadir[4096], log[4096];
		const char *top = find_top(TOP_OF_PLOTS, topbuf, sizeof(topbuf)) ? NULL : topbuf;
		if (run_load(&s, argv + 1, 1, &sum, err, sizeof(err))) {
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
