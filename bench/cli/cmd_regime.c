/* ppbench regime: make reproduce's regime on this machine (regime.h): a
 * probe of the pipeline's CPU time per image on one thread, the factor that
 * puts the simulated GPU step in the paper's balance with it, and the
 * paper's worker grid scaled to the CPUs the runs may use. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "commands.h"
#include "fsutil.h"
#include "generate.h"
#include "log.h"
#include "noise.h"
#include "options.h"
#include "regime.h"
#include "regime_probe.h"
#include "stats.h"

struct regime_cfg {
	const char *data, *pipeline, *out;
	uint64_t images;
	long rounds, cpus;
	double probe_ms;
};

#define O(f) offsetof(struct regime_cfg, f)
static const struct opt regime_opts[] = {
	OPT_DATA(struct regime_cfg, data),
	OPT_PIPELINE(struct regime_cfg, pipeline, OPT_PIPELINE_HELP),
	{ "images", 0, OPT_U64, O(images), "200", "N", "images of the dataset the probe passes over",
	  .lo = 1, .hi = 100000 },
	{ "rounds", 0, OPT_INT, O(rounds), "6", "N",
	  "passes measured (6 or more give a 95 % interval)", .lo = 1, .hi = 1000 },
	{ "probe-ms", 0, OPT_DOUBLE, O(probe_ms), "0", "MS",
	  "take this CPU time per image instead of measuring it (0: measure)", .lo = 0, .hi = 1e6 },
	{ "cpus", 0, OPT_INT, O(cpus), "0", "N",
	  "the CPUs the runs may use (0: this process's, its affinity and cgroup quota)",
	  .lo = 0, .hi = 65536 },
	{ "out", 'o', OPT_STR, O(out), NULL, "FILE", "also write the regime as JSON (regime.json)",
	  .choices = NULL },
	OPT_END
};
#undef O

static const char usage[] = "ppbench regime [options]";
static const char description[] =
	"What make reproduce scales to this machine. It measures the pipeline's CPU\n"
	"time per image on one thread (the probe: --rounds passes over --images images\n"
	"of the dataset), divides it by the paper's (Table II: 6.87 ms) and prints that\n"
	"factor: the runs' simulated GPU step times it (run --gpu-step-scale) keeps GPU\n"
	"time over preprocessing time per image as in the paper, whatever this machine's\n"
	"speed. It also scales the paper's worker grid (8..28 workers on 32 hardware\n"
	"threads) to the CPUs the runs may use, with at least 3 worker counts (the knee\n"
	"rule's least). The last two lines are the options make reproduce passes on:\n"
	"  every sweep:      --gpu-step-scale X\n"
	"  the worker sweep: --workers \"W...\"";

int cmd_regime(int argc, char **argv)
{
	struct regime_cfg c;
	struct regime r;
	struct stats_summary s = { 0 };
	char err[1024], data[4096], top[4096], text[2048], w[256];
	int npos = 0;

	int pr = opts_prelude(regime_opts, &c, argc, argv, &npos, usage, description, "regime");
	if (pr >= 0)
		return pr;
	if (find_top(TOP_OF_PLOTS, top, sizeof(top))) {
		error_msg("the repository's datasets/reference/lotus/figures/ was not found");
		return EXIT_FAIL;
	}
	int cpus = (int)c.cpus;
	if (!cpus) {
		struct cpus cp;
		cpus_read(&cp);
		cpus = cpus_usable_int(&cp);
	}
	if (c.probe_ms > 0) {
		s.median = s.lo = s.hi = c.probe_ms;
	} else {
		if (c.data) {
			if (input_missing(c.data))
				return EXIT_USAGE;
			snprintf(data, sizeof(data), "%s", c.data);
		} else if (dataset_ensure_default(data, sizeof(data), err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		if (regime_probe(c.pipeline, data, (size_t)c.images, (size_t)c.rounds, &s))
			return EXIT_USAGE;
	}
	if (regime_make(&r, top, c.pipeline, s.median, s.lo, s.hi, s.has_ci,
			c.probe_ms > 0 ? 0 : (int)c.rounds, c.probe_ms > 0 ? 0 : (int)s.n, cpus, err,
			sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (c.probe_ms <= 0)
		r.probe_images = (int)(c.images);
	if (c.out) {
		json_t *j = regime_json(&r);
		if (json_dump_file(j, c.out, JSON_INDENT(2) | JSON_REAL_PRECISION(6))) {
			error_msg("cannot write '%s'", c.out);
			json_decref(j);
			return EXIT_FAIL;
		}
		json_decref(j);
	}
	regime_step_text(&r, text, sizeof(text));
	printf("regime: %s\n", text);
	regime_grid_text(&r, text, sizeof(text));
	printf("regime: %s\n", text);
	regime_workers_list(&r, w, sizeof(w));
	printf("  every sweep:      --gpu-step-scale %.4f\n", r.scale);
	printf("  the worker sweep: --workers \"%s\"\n", w);
	return EXIT_OK;
}
