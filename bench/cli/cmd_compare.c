/* ppbench compare: the same configuration through ppbench and through the
 * real PyTorch DataLoader (scripts/torch_side.py), side by side. The
 * command: its options (its own table, and run's passed on), then
 * compare_execute (bench/report/compare.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "compare.h"
#include "log.h"
#include "noise.h"
#include "run.h"

static const char usage[] = "ppbench compare [compare options] [run options]";

static const char description[] =
	"Runs one configuration with `ppbench run` and with the real PyTorch DataLoader\n"
	"(scripts/torch_side.py on Debian's python3-torch 1.13 and torchvision 0.14): the\n"
	"same ImageFolder, transforms, workers, batch, prefetch factor, pin memory, shuffle,\n"
	"drop_last, seed and simulated GPU step. Both sides write LotusTrace files that\n"
	"ppbench's analysis reads, so every figure is computed by the same code. Then, with\n"
	"--rng torch, the first batches' tensors of both are compared. Leaves\n"
	"OUT/<UTC time>-compare-<tag>/ with both results folders (repeat 1: ppbench/ and\n"
	"pytorch/; repeat K: ppbench-rK/, pytorch-rK/), compare.md, compare.csv,\n"
	"compare.json (every repeat's values, the intervals, the noise windows) and figures/\n"
	"(repeat 1). With the fused what-if (--fused), its side too (fused/, fused-rK/)\n"
	"and compare_fused.csv.\n"
	"\n"
	"Run options are those of `ppbench run` (below), passed on; compare's default for\n"
	"--rng is torch (the same crops and flips as PyTorch's workers). Not supported:\n"
	"--order arrival (PyTorch 1.13 has no in_order=False), --trace off (compare reads\n"
	"both sides' events), --dump-batches (compare uses it). Without python3-torch:\n"
	COMPARE_INSTALL_HINT ".";

#define O(f) offsetof(struct compare_opts, f)
static const struct opt compare_optt[] = {
	{ .name = "fidelity", .type = OPT_INT, .off = O(fidelity), .def = "2", .metavar = "N",
	  .lo = 0, .hi = 1000, .help = "batches whose tensors are compared, with --rng torch, in a "
	  "short extra run of both sides (0: none)" },
	{ .name = "fused", .type = OPT_STR, .off = O(fused), .metavar = "NAME|FILE|off",
	  .help = "the fused what-if: run this pipeline too, as a third side with the same options "
	  "and seed, check that its tensors (checksums) are the faithful side's, and show images/s "
	  "faithful vs fused vs PyTorch and the workers' CPU per image it saves (default: "
	  "imagenet_train_fused when --pipeline is imagenet_train, else off)" },
	OPT_ROW("keep-dumps", 0, OPT_BOOL, struct compare_opts, keep_dumps, "off", NULL,
		"keep the compared batches as .npy files in fidelity/"),
	OPT_ROW("python", 0, OPT_STR, struct compare_opts, python, COMPARE_DEFAULT_PYTHON, "PATH",
		"the Python with torch, torchvision, PIL"),
	{ .name = "repeat", .shortname = 'r', .type = OPT_INT, .off = O(repeat), .def = "3",
	  .metavar = "N", .lo = 1, .hi = 100, .help = "run both sides N times, alternating which "
	  "goes first; each figure is the median with its spread, each ratio the median of the "
	  "repeats' ratios, \"within noise\" when its interval holds 1" },
	NOISE_OPT(struct compare_opts, require_idle),
	OPT_TAG(struct compare_opts, tag, "name of the compare folder after the time (default: "
		"PIPELINE-bB-wW-gG)"),
	OPT_OUT(struct compare_opts, out, "results", "where the compare folder is made"),
	OPT_END
};

/* --help: compare's table, then run's (the options passed on) */
static void help(void)
{
	printf("usage: %s\n\n%s\n", usage, description);
	opts_help_table(compare_optt, stdout, "options");
	opts_help_table(run_opts_table, stdout, "run options (passed on to ppbench run)");
	exit_codes_help(stdout);
}

/* The run options passed on, read as `ppbench run` would read them (nothing
 * runs): the ones compare cannot take are refused, --pipeline and --rng
 * kept. 0, or -1 (said). */
static int check_run_opts(struct compare_opts *c, char **passed, int n)
{
	const struct opt *rng = opts_find(run_opts_table, "rng");
	const struct opt *order = opts_find(run_opts_table, "order");
	static char rng_text[64];
	char err[1024], ord[64];
	struct run_opts r;
	int npos;

	if (opts_defaults(run_opts_table, &r, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	r.rng = r.order = -1;           /* -1: not given */
	r.dump_batches = UINT64_MAX;
	r.pipeline = NULL;
	if (opts_parse(run_opts_table, &r, n, passed, 0, &npos, err, sizeof(err)) < 0) {
		error_msg("%s", err);
		return -1;
	}
	if (npos) {
		opts_unexpected(passed[0], "compare", err, sizeof(err));
		error_msg("%s", err);
		return -1;
	}
	if (r.dump_batches != UINT64_MAX) {
		error_msg("--dump-batches: compare dumps the batches it compares itself (see --fidelity)");
		return -1;
	}
	if (r.order > 0) {
		opts_format(order, &r, ord, sizeof(ord));
		error_msg("--order %s: PyTorch 1.13 (Debian's python3-torch) hands batches over in order "
			  "only (in_order=False came in 2.6); compare runs --order inorder", ord);
		return -1;
	}
	if (!r.trace) {
		error_msg("--trace off: compare reads both sides' per-sample events; leave tracing on");
		return -1;
	}
	if (r.rng >= 0) {
		opts_format(rng, &r, rng_text, sizeof(rng_text));
		c->rng = rng_text;
	}
	c->pipeline = r.pipeline;
	return 0;
}

/* Compare's options and the run options passed on. An exit code, or -1 to
 * go on. */
static int compare_parse(int argc, char **argv, struct compare_opts *c, struct opts_split *s)
{
	char err[1024];
	int npos, rc = opts_split(compare_optt, run_opts_table, argc, argv, s, err, sizeof(err));

	if (rc < 0) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	for (int i = 1; i < s->nown; i++)
		if (!strcmp(s->own[i], "--help") || !strcmp(s->own[i], "-h")) {
			help();
			return EXIT_OK;
		}
	if (rc) {
		error_msg("%s (see ppbench compare --help)", err);
		return EXIT_USAGE;
	}
	if (opts_defaults(compare_optt, c, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (opts_parse(compare_optt, c, s->nown, s->own, 1, &npos, err, sizeof(err)) < 0) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (c->fused && !*c->fused) {
		error_msg("--fused: give a pipeline name, a .pipe file or off");
		return EXIT_USAGE;
	}
	if (!*c->out) {
		error_msg("--out: empty folder name");
		return EXIT_USAGE;
	}
	c->fwd = s->passed;
	c->nfwd = (int)s->npassed;
	return check_run_opts(c, s->passed, c->nfwd) ? EXIT_USAGE : -1;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts c = { 0 };
	struct opts_split s;
	int rc = compare_parse(argc, argv, &c, &s);

	if (rc < 0)
		rc = compare_execute(&c);
	opts_split_free(&s);
	return rc;
}
