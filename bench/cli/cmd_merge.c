/* ppbench merge DIR...: sweep folders from several machines as one table,
 * figures with one line per machine, and a comparison report. The command:
 * its options, then merge_execute (bench/report/merge.h). */
#include <stddef.h>
#include <stdio.h>
#include "commands.h"
#include "merge.h"
#include "optpos.h"

static const char usage_line[] =
	"ppbench merge DIR... [--price NAME=USD_PER_HOUR ...] [--by host|cpu] [--model on|off] "
	"[--out DIR]";

static const char description[] =
	"Merges sweep folders (made by ppbench sweep, on one machine each, for example\n"
	"by the array tasks of scripts/slurm/sweep.sbatch) into one comparison: a DIR\n"
	"is a sweep folder or a folder holding sweep folders. Machines are compared\n"
	"only on the configurations (workers x batch x GPUs) that all of them ran, and\n"
	"only when their sweeps used the same dataset, pipeline, ppbench version, run\n"
	"options and page-cache policy; the report says what was left out and why.\n"
	"Writes summary.csv (every run with host and CPU columns), comparison.csv,\n"
	"figures/ (one line per machine: E2E, images/s, images/s per core and CPU time\n"
	"per image against workers, CPU time per image by op, GPU utilization),\n"
	"report.md and a self-contained report.html; when the sweeps measured the fused\n"
	"crop-decode what-if (on by default for imagenet_train), the report shows it\n"
	"per machine.\n"
	"Every figure is the median over a machine's runs of a configuration with its\n"
	"spread (min-max and n below 6 runs, a 95 % interval from 6 on); every ratio\n"
	"between machines has its interval and says \"within noise\" when it holds 1;\n"
	"noisy and oversubscribed configurations are marked and no headline rests on\n"
	"them. A sweep still running is named, with its runs missing.";

static const struct opt merge_optt[] = {
	{ .name = "price", .type = OPT_MULTI, .off = offsetof(struct merge_opts, price),
	  .metavar = "NAME=USD_PER_HOUR", .help = "price per hour of a machine (host name, or "
	  "CPU model with --by cpu): adds the cost per million images" },
	{ .name = "by", .type = OPT_ENUM, .off = offsetof(struct merge_opts, by_cpu),
	  .def = "host", .choices = "host|cpu", .help = "one machine per host name, or per CPU "
	  "model and CPU count (array tasks of one node type on several nodes)" },
	OPT_ROW("model", 0, OPT_BOOL, struct merge_opts, model, "off", NULL,
		"on: the model's lines (ppbench model, from each machine's run with the fewest "
		"workers) beside the measured ones, labelled a model"),
	OPT_OUT(struct merge_opts, out, NULL,
		"where the merge goes (default: results/<UTC time>-merge)"),
	OPT_END
};

int cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	int npos, rc = opts_prelude(merge_optt, &o, argc, argv, &npos, usage_line, description,
				    NULL);

	/* "--model maybe": the word after an on|off option is not a folder */
	if (rc < 0 && opts_positional_bad(argv + 1, npos, "merge"))
		rc = EXIT_USAGE;
	if (rc < 0 && !npos) {
		fprintf(stderr, "usage: %s\n", usage_line);
		rc = EXIT_USAGE;
	}
	if (rc < 0) {
		o.dirs = argv + 1;
		o.ndirs = (size_t)npos;
		rc = merge_execute(&o);
	}
	opts_free(merge_optt, &o);
	return rc;
}
