/* ppbench metrics: the metric table (bench/results/metrics.c), printed or
 * checked against results folders. */
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "commands.h"
#include "fsutil.h"
#include "log.h"
#include "metrics.h"
#include "options.h"

static const char metrics_usage[] = "ppbench metrics [--markdown] [RUN_DIR...]";
static const char metrics_description[] =
	"List every figure a run produces: its summary.csv column, where summary.json\n"
	"holds it, its unit, how repeats combine and its definition. --markdown prints\n"
	"docs/metrics.md. With RUN_DIRs (results folders of ppbench run), check instead\n"
	"that each summary.json holds exactly the table's keys: exit 0 when they all do,\n"
	"1 (with the keys) when one does not.";

struct metrics_opts {
	int markdown;
};

#define O(f) offsetof(struct metrics_opts, f)
static const struct opt metrics_opts_table[] = {
	{ "markdown", 0, OPT_BOOL, O(markdown), "off", NULL, "print the table as Markdown (docs/metrics.md)",
	  .choices = NULL },
	OPT_END
};
#undef O

int cmd_metrics(int argc, char **argv)
{
	struct metrics_opts o;
	int npos = 0;

	int pr = opts_prelude(metrics_opts_table, &o, argc, argv, &npos, metrics_usage,
			      metrics_description, NULL);
	if (pr >= 0)
		return pr;
	if (!npos) {
		metrics_print(stdout, o.markdown);
		return EXIT_OK;
	}
	int rc = EXIT_OK;
	for (int i = 1; i <= npos; i++) {
		char path[4096], why[2048];
		if (input_missing(argv[i]))
			return EXIT_USAGE;
		snprintf(path, sizeof(path), "%s/summary.json", argv[i]);
		json_t *j = json_load_regular(path, why, sizeof(why));
		if (!j) {
			error_msg("cannot read '%s': %s", path, why);
			rc = EXIT_FAIL;
			continue;
		}
		int n = metrics_check_summary(j, why, sizeof(why));
		json_decref(j);
		if (n) {
			printf("%s: %d problem%s: %s\n", path, n, n == 1 ? "" : "s", why);
			rc = EXIT_FAIL;
		} else {
			printf("%s: every key is in the metric table\n", path);
		}
	}
	return rc;
}
