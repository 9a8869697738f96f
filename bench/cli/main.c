/* ppbench: a benchmark of CPU-side ML preprocessing (the Lotus study in C). */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "kernels.h"
#include "plot.h"
#include "version.h"


struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "run", cmd_run, "run one configuration: workers, loader, simulated GPU, results" },
	{ "sweep", cmd_sweep, "run many configurations (lists of workers, batch, GPUs), figures, report" },
	{ "ls", cmd_ls, "past results, newest first (kind, time, configuration, images/s, noise); --clean" },
	{ "report", cmd_report, "write the findings report (report.md, report.html) of a sweep, or a run's report" },
	{ "merge", cmd_merge, "sweep folders of several machines as one comparison (CPU SKUs)" },
	{ "plots", cmd_plots, "redraw the figures of a sweep or run folder" },
	{ "compare", cmd_compare, "the same configuration through ppbench and the real PyTorch DataLoader" },
	{ "model", cmd_model, "a discrete-event model of the loader: predict runs past this machine" },
	{ "bottleneck", cmd_bottleneck, "the caching ladder: which stage of the input pipeline costs most" },
	{ "strategies", cmd_strategies, "PRESTO: what to do offline vs every epoch, storage vs throughput" },
	{ "apply", cmd_apply, "run a pipeline on one image and write the result as .npy" },
	{ "dataset", cmd_dataset, "generate a synthetic ImageNet-like dataset, or describe one" },
	{ "regime", cmd_regime, "make reproduce's scaling: probe this machine's cost per image, scale GPU step and workers" },
	{ "bench", cmd_bench, "speed and overhead benchmark (make bench)" },
	{ "info", cmd_info, "the machine: CPU, topology, counters that open, the clock" },
	{ "map", cmd_map, "which library functions each op spends its time in (Table I)" },
	{ "ops", cmd_ops, "list the ops and their arguments" },
	{ "metrics", cmd_metrics, "list every figure of a run: JSON path, CSV column, unit, definition" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ppbench <command> [options]   (ppbench <command> --help for its options)\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "  %-10s %s\n", "version", "print the version");
	exit_codes_help(f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *c = argv[1];
	if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(c, "version") || !strcmp(c, "--version")) {
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			printf("usage: ppbench version\n\nPrints the version of ppbench.\n");
			exit_codes_help(stdout);
			return EXIT_OK;
		}
		printf("ppbench %s\n", PPBENCH_VERSION);
		return EXIT_OK;
	}
	char err[256];
	if (kernels_from_env(err, sizeof(err))) {   /* before any worker starts */
		fprintf(stderr, "ppbench: error: %s\n", err);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(c, commands[i].name)) {
			int rc = commands[i].fn(argc - 1, argv + 1);
			/* the figures that could not be drawn, named in the last lines;
			 * results that could not be written: exit 1 (README) */
			if (plot_summary() && rc == EXIT_OK)
				rc = EXIT_FAIL;
			return rc;
		}
	const char *names[sizeof(commands) / sizeof(commands[0]) + 1];
	size_t n = 0;
	for (; n < sizeof(commands) / sizeof(commands[0]); n++)
		names[n] = commands[n].name;
	names[n++] = "version";
	const char *near = nearest_name(c, names, n);
	if (near) {
		fprintf(stderr, "ppbench: error: unknown command '%s'; did you mean '%s'?\n", c, near);
		return EXIT_USAGE;
	}
	fprintf(stderr, "ppbench: error: unknown command '%s'\n", c);
	usage(stderr);
	return EXIT_USAGE;
}
