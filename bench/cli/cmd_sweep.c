/* ppbench sweep: a grid of `ppbench run` processes, one per configuration
 * and repeat, with the page cache dropped between them, then the report.
 * The plan and state: studies/sweep.c; the runs: studies/sweep_exec.c. */
#include <stddef.h>
#include <stdio.h>
#include "commands.h"
#include "log.h"
#include "options.h"
#include "run.h"
#include "stopsig.h"
#include "sweep.h"

#define O(f) offsetof(struct sweep_cfg, f)
static const struct opt sweep_opts[] = {
	{ "workers", 'w', OPT_LIST, O(workers), "1 2 3 4", "LIST",
	  "worker counts, e.g. \"8 12 16\"; \"gpus\": workers = GPUs (the paper's grid)",
	  .choices = NULL },
	{ "batch", 'b', OPT_LIST, O(batch), "32 128", "LIST", "batch sizes", .choices = NULL },
	{ "gpus", 'g', OPT_LIST, O(gpus), "2", "LIST",
	  "simulated GPU counts (the default is run's: a sweep's default configurations are "
	  "runs with their defaults)", .choices = NULL },
	{ "policy", 0, OPT_LIST, O(policy), "torch", "LIST",
	  "loader policies compared, e.g. \"torch speedy shared-queue\" (see ppbench run --policy)",
	  .choices = NULL },
	{ "repeat", 'r', OPT_INT, O(repeat), "1", "N", "runs of each configuration",
	  .lo = 1, .hi = 1000 },
	{ "warm", 0, OPT_BOOL, O(warm), "off", NULL,
	  "keep the page cache between runs (off: drop the dataset's pages before each run)",
	  .choices = NULL },
	{ "report", 0, OPT_BOOL, O(report), "on", NULL,
	  "write the figures and report at the end", .choices = NULL },
	{ "model", 0, OPT_BOOL, O(model), "off", NULL,
	  "add the model's lines (ppbench model) to the figures against workers", .choices = NULL },
	{ "dry-run", 0, OPT_BOOL, O(dry_run), "off", NULL,
	  "print the plan (per configuration the memory it needs and whether it fits, its "
	  "batches and images, an estimated time and the findings it counts for; what each "
	  "finding of the report can judge; the total and its time) and run nothing; every "
	  "sweep prints it first", .choices = NULL },
	{ "resume", 0, OPT_STR, O(resume), NULL, "DIR",
	  "run what is missing in the sweep folder DIR (its plan and options)", .choices = NULL },
	{ "fused", 0, OPT_STR, O(fused), "on", "NAME|FILE|on|off",
	  "before the runs, measure the fused what-if (one thread, the sweep's dataset): the "
	  "pipeline against this fused counterpart (on: imagenet_train_fused beside "
	  "imagenet_train, nothing for other pipelines); the report shows the CPU cores it "
	  "would save per GPU", .choices = NULL },
	{ "fused-images", 0, OPT_U64, O(fused_images), "200", "N",
	  "images of the dataset the fused what-if passes over (6 alternating passes of each "
	  "pipeline)", .lo = 1, .hi = 100000 },
	OPT_DATA(struct sweep_cfg, data),
	OPT_TAG(struct sweep_cfg, tag, "name of the sweep folder after the time"),
	OPT_OUT(struct sweep_cfg, out, "results", "where the sweep folder is made"),
	{ "label", 0, OPT_STR, O(label), NULL, "TEXT",
	  "what sets this sweep's machine apart (\"SMT off\", \"4 cores\"): merge never averages "
	  "sweeps whose labels or machine identities differ", .choices = NULL },
	OPT_END
};
#undef O

static const char usage[] = "ppbench sweep [options] [run options]";
static const char description[] =
	"Runs every configuration of workers x batch x GPUs x loader policy (and\n"
	"repeats) as its own `ppbench run` process, in a stable order (repeats\n"
	"outermost, then batch, GPUs, policy, workers), dropping the dataset's pages\n"
	"from the page cache before each run unless --warm. Any other option is passed\n"
	"to every run (see ppbench run --help): --pipeline, --max-batches, --epochs,\n"
	"--seed, --gpu-step, ...\n"
	"Without --epochs or --max-batches, every run gets the fewest epochs that give\n"
	"each configuration 8 batches (the least a finding of the report rests on),\n"
	"unless that stops a configuration fitting in memory or the sweep would take\n"
	"over an hour; the plan says what it chose and why.\n"
	"Leaves OUT/<UTC time>-sweep[-TAG]/ with sweep.json, runs/, logs/, summary.csv,\n"
	"figures/, report.md and report.html. Interrupted, it keeps the finished runs:\n"
	"--resume DIR runs the rest.";

/* The command line: the sweep's own options, and those passed on to the runs
 * (checked against run's names here, their values later). */
static int sweep_parse(struct sweep_state *t, int argc, char **argv)
{
	char err[1024];
	int npos = 0;
	int split = opts_split(sweep_opts, run_opts_table, argc, argv, &t->args, err, sizeof(err));

	if (split < 0) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	int pr_ = opts_prelude(sweep_opts, &t->c, t->args.nown, t->args.own, &npos, usage,
			       description, "sweep");
	if (pr_ >= 0)
		return pr_;
	if (split) {
		error_msg("%s (see ppbench sweep --help and ppbench run --help)", err);
		return EXIT_USAGE;
	}
	return STEP_GO;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_state t = { .lockfd = -1 };
	struct stop_saved saved;
	int rc = sweep_parse(&t, argc, argv);

	if (rc == STEP_GO)
		rc = t.c.resume ? sweep_resume(&t) : sweep_new(&t);
	if (rc == STEP_GO)
		rc = sweep_prepare(&t);
	if (rc != STEP_GO) {
		sweep_state_free(&t);
		return rc;
	}
	stop_catch(&saved, 1);
	size_t nok = sweep_runs(&t);
	sweep_finish(&t);
	/* interrupted: 128 + the signal, as a shell reports it */
	rc = stop_signal() ? 128 + stop_signal() : !nok ? EXIT_FAIL : EXIT_OK;
	stop_release(&saved);
	sweep_state_free(&t);
	return rc;
}
