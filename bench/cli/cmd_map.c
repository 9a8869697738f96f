/* ppbench map: which functions of which libraries each op of a pipeline
 * spends its time in (the Lotus paper's Table I, measured).
 *
 * Each op runs alone, repeatedly, on one large image, in a child process
 * (`ppbench map --child K`) that prepares the op's input with the ops
 * before it and marks only the op's own calls: under callgrind with client
 * requests toggling collection (no PMU needed; exact instruction counts,
 * simulated cache misses with --cache-sim), or under `perf record` started
 * disabled and enabled around each call through its control FIFO.
 *
 * Libraries that Debian ships stripped (libjpeg.so.62: its decoder's
 * functions are static, so a profile shows bare addresses) are replaced in
 * the children by a stand-in linked from the same package's static archive
 * (libjpeg.a keeps the names), found next to the shared object; the output
 * says which libraries were replaced.
 *
 * Output folder: map.csv (op, library, function, count, share), ops.csv
 * (per-op totals), map.md (the table and the functions shared between ops),
 * and the raw profiles, which callgrind_annotate / perf report read. */
#include <stdio.h>
#include <stdlib.h>
#include "commands.h"
#include "log.h"
#include "options.h"
#include "map.h"

#define O(f) offsetof(struct map_cfg, f)
static const struct opt map_opts[] = {
	OPT_PIPELINE(struct map_cfg, pipeline, "pipeline whose ops are mapped"),
	{ .name = "tool", .type = OPT_ENUM, .off = O(tool), .def = "auto",
	  .choices = "auto|perf|callgrind",
	  .help = "auto: perf where hardware events sample, else callgrind, else perf on cpu-clock" },
	{ .name = "repeat", .shortname = 'n', .type = OPT_INT, .off = O(repeat), .def = "0",
	  .metavar = "N", .help = "calls of each op (0: 3 under callgrind, --seconds of calls under perf)",
	  .lo = 0, .hi = 1000000 },
	{ .name = "seconds", .type = OPT_DOUBLE, .off = O(seconds), .def = "2", .metavar = "S",
	  .help = "perf: time spent in each op, at least", .lo = 0.001, .hi = 3600 },
	{ .name = "batch", .shortname = 'b', .type = OPT_INT, .off = O(batch_size), .def = "32",
	  .metavar = "B", .help = "samples given to the batch op (collate)", .lo = 1, .hi = 4096 },
	{ .name = "size", .type = OPT_STR, .off = O(size), .def = "2000x1500", .metavar = "WxH",
	  .help = "size of the generated JPEG when no IMAGE is given" },
	OPT_OUT(struct map_cfg, out, NULL, "output folder, created (default: results/<UTC time>-map-<pipeline>)"),
	{ .name = "top", .type = OPT_INT, .off = O(top), .def = "8", .metavar = "N",
	  .help = "functions per op in map.md", .lo = 1, .hi = 1000 },
	{ .name = "min-share", .type = OPT_DOUBLE, .off = O(min_share), .def = "1", .metavar = "PCT",
	  .help = "functions below this share of their op are left out of map.md and the shared list",
	  .lo = 0, .hi = 100 },
	{ .name = "cache-sim", .type = OPT_BOOL, .off = O(cache_sim), .def = "off",
	  .help = "callgrind: simulate the caches (D1 and LL misses per op; about 2x slower)" },
	{ .name = "standins", .type = OPT_BOOL, .off = O(standins), .def = "on",
	  .help = "replace stripped libraries by stand-ins linked from their static archives" },
	{ .name = "seed", .type = OPT_U64, .off = O(seed), .def = "0", .metavar = "N",
	  .help = "seed of the random ops' draws" },
	{ .name = "child", .type = OPT_INT, .off = O(child), .def = "-1", .metavar = "K",
	  .help = "(internal) run op K alone, marking its calls", .lo = -1, .hi = PIPE_MAX_OPS },
	{ .name = "perf-ctl", .type = OPT_STR, .off = O(perf_ctl), .metavar = "CTL,ACK",
	  .help = "(internal) perf's control and ack FIFOs" },
	OPT_END
};
#undef O

/* The options; the child's work when --child. An exit code, or -1 to go on. */
static int map_args(struct map_cmd *x, int argc, char **argv, int *npos)
{
	static const char usage[] = "ppbench map [IMAGE] [--pipeline NAME] [--tool auto|perf|callgrind] "
				    "[--out DIR]";
	struct map_cfg *cfg = &x->cfg;
	int rc = opts_prelude(map_opts, cfg, argc, argv, npos, usage,
			  "Runs each op of the pipeline alone, repeatedly, on IMAGE (default: a generated\n"
			  "JPEG of --size) and records which functions of which libraries it runs:\n"
			  "map.csv, ops.csv and map.md (the op-to-function table and the functions\n"
			  "shared between ops), with the raw callgrind or perf profiles.", NULL);
	if (rc >= 0)
		return rc;
	if (*npos > 1) {
		error_msg("map takes at most one image, got %d", *npos);
		return EXIT_USAGE;
	}
	if (cfg->child >= 0) {
		if (*npos != 1) {
			error_msg("--child needs the image");
			return EXIT_USAGE;
		}
		return map_child(cfg, argv[1]);
	}
	if (*npos == 1 && input_missing(argv[1]))
		return EXIT_USAGE;
	char tail;
	if (*npos == 0 && (sscanf(cfg->size, "%dx%d%c", &x->iw, &x->ih, &tail) != 2 || x->iw < 1 ||
			   x->ih < 1 || x->iw > 20000 || x->ih > 20000)) {
		error_msg("--size: '%s' is not WxH (at most 20000x20000)", cfg->size);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_map(int argc, char **argv)
{
	struct map_cmd *x = calloc(1, sizeof(*x));
	char err[1024];
	int npos = 0, status;
	if (!x)
		die("out of memory");
	status = map_args(x, argc, argv, &npos);
	if (status >= 0) {
		free(x);
		return status;
	}
	if (pipeline_load(&x->p, x->cfg.pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		free(x);
		return EXIT_USAGE;
	}
	status = map_choose_tool(x) ? EXIT_FAIL : map_all(x, npos, argv[1]);
	if (x->maps)
		for (int k = 0; k < x->p.nops; k++)
			free(x->maps[k].f);
	free(x->maps);
	free(x->notes);
	pipeline_release(&x->p);
	free(x);
	return status;
}
