/* ppbench bottleneck: climb the caching ladder, one stage at a time, and
 * name the stage whose inclusion costs the most throughput. Steps 3 to 5
 * run the loader (loader.h) as `ppbench run` does (torch policy, in order),
 * steps 1 and 2 the simulated GPU of the consumer alone, so the numbers are
 * comparable. --repeat climbs the whole ladder N times; every figure is the
 * median over the climbs with its spread, and a stage is named only when
 * its step is slower than the one before beyond noise (bottleneck_decide). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bottleneck.h"
#include "commands.h"
#include "emit.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "noise.h"
#include "options.h"
#include "pipeline.h"
#include "run.h"

#define BOTTLENECK_DEFAULT_REPEAT_TEXT "3"

static const char usage[] = "ppbench bottleneck [options]";
static const char description[] =
	"The caching ladder: images/s with (1) one batch cached on the GPU (step only),\n"
	"(2) one batch cached on the host (copy + step), (3) one processed sample cached\n"
	"(collate + loader + copy + step), (4) the files' bytes in memory, the page cache\n"
	"(every op + collate + copy + step), (5) the full pipeline from storage with a cold\n"
	"page cache. The ladder is climbed --repeat times; each figure is\n"
	"the median with its spread, and the stage named is the one whose inclusion causes\n"
	"the largest drop beyond noise (none when every drop is within noise). Leaves\n"
	"OUT/<UTC time>-<tag>/ with bottleneck.json and bottleneck.csv.\n"
	"Takes the options of ppbench run, with one difference: --max-batches counts\n"
	"the batches of each step, and its 0 (run's \"every batch\") means 20 here, as\n"
	"five passes over every batch would take too long. A step that fails is exit 1.";

/* run's options with bottleneck's own --repeat (its default and meaning);
 * a copy, so that --help shows the default the command uses. */
static struct opt *options_table(void)
{
	size_t n = 0;
	while (run_opts_table[n].name)
		n++;
	struct opt *t = malloc((n + 1) * sizeof(*t));
	if (!t)
		return NULL;
	memcpy(t, run_opts_table, (n + 1) * sizeof(*t));
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, "repeat")) {
			t[i].def = BOTTLENECK_DEFAULT_REPEAT_TEXT;   /* one climb cannot tell a drop from noise */
			t[i].help = "climbs of the ladder; each figure is the median over them with its "
				    "spread, and a stage is named only when its drop is beyond noise";
		} else if (!strcmp(t[i].name, "tag")) {
			t[i].help = "name of the results folder after the time (default: "
				    "bottleneck-PIPELINE-bB-wW)";
		}
	return t;
}

/* What cmd_bottleneck holds from its parse to its end. */
struct bn {
	struct run_opts o;
	struct opt *table;
	struct pipeline pipe;
	struct dataset data;
	int have_pipe, have_data;
	uint64_t step_ns;
	struct loader_cfg lc;
	size_t bytes;                    /* one batch handed to the GPU */
	char data_path[4096], tag[256];
};

/* Parse the options; -1 to go on, else the exit status. */
static int parse(struct bn *b, int argc, char **argv)
{
	char err[1024];
	int npos = 0;
	b->table = options_table();
	if (!b->table) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	int pr = opts_prelude(b->table, &b->o, argc, argv, &npos, usage, description, "bottleneck");
	if (pr >= 0)
		return pr;
	if (!b->o.max_batches)   /* run's "every batch" is too long for five steps */
		b->o.max_batches = 20;
	if (run_gpu_step(&b->o, &b->step_ns, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	return -1;
}

/* The pipeline, the dataset, the loader's configuration (one epoch,
 * throughput only) and the tag. -1 to go on, else the exit status. */
static int inputs(struct bn *b)
{
	char err[1024];
	struct run_opts *o = &b->o;
	int rc = run_open_inputs(o, &b->pipe, &b->data, b->data_path, sizeof(b->data_path),
				 &b->have_pipe, &b->have_data);
	if (rc)
		return rc;
	b->lc = run_loader_cfg(o, &b->pipe, &b->data, b->step_ns);
	b->lc.epochs = 1;     /* each step measures at most one epoch */
	b->lc.trace = 0;      /* throughput only */
	b->lc.checksum = 0;
	struct loader_plan plan;
	if (loader_plan(&b->lc, &plan, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	b->bytes = (size_t)o->batch_size * (3 * (size_t)plan.sample_h * (size_t)plan.sample_w * 4 + 8);
	if (!o->tag) {
		snprintf(b->tag, sizeof(b->tag), "bottleneck-%s-b%ld-w%ld", b->pipe.name,
			 o->batch_size, o->workers);
		o->tag = b->tag;
	}
	return -1;
}

/* The ladder's figures and verdict on stdout, with the post's caveats. */
static void print_all(const struct bn *b, const struct bottleneck_ladder *l)
{
	printf("caching ladder: pipeline %s, %zu images, B %ld, W %ld, GPU step %.1f ms, "
	       "%" PRIu64 " batches per step, %zu climb%s\n", b->pipe.name, b->data.n, b->o.batch_size,
	       b->o.workers, (double)b->step_ns / 1e6, b->o.max_batches, l->n, l->n == 1 ? "" : "s");
	if (l->n > 1)
		printf("each figure: the median [%s], or (min, max) with fewer than 6 climbs\n",
		       STATS_CI_METHOD);
	bottleneck_print(l);
	printf("caveats (from the post):\n"
	       "  - a drop when a stage is included does not prove that stage needs optimizing:\n"
	       "    another stage may already have the CPUs near their limit, and this one tips it over;\n"
	       "  - a single cached sample or batch may not reflect real inputs of varying size;\n"
	       "  - nor a model whose work depends on its input (here the GPU step is simulated\n"
	       "    and fixed, so this one does not arise).\n"
	       "  - here: step 4 keeps the files in the page cache (read once before), not an\n"
	       "    application cache, so it still pays open/read system calls; step 5 drops\n"
	       "    them with posix_fadvise(DONTNEED), which cannot evict pages others hold dirty.\n");
}

/* Climb, print and write into a new results folder: the exit status. */
static int climb_and_write(struct bn *b)
{
	char err[1024], tmp[PATH_MAX], name[512], final[PATH_MAX];
	struct bottleneck_ladder l = { 0 };
	struct cpus cp;
	int rc = EXIT_FAIL;
	if (results_dir_begin(b->o.out, b->o.tag, tmp, sizeof(tmp), name, sizeof(name), err,
			      sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	cpus_read(&cp);
	if (bottleneck_climb_all(&b->o, &b->lc, &b->data, b->step_ns, b->bytes, &cp, &l, err,
				 sizeof(err))) {
		error_msg("%s", err);
		if (!l.n)
			goto out;
		warn_msg("the %zu climb%s done are kept", l.n, l.n == 1 ? "" : "s");
	}
	if (bottleneck_summarise(&l)) {
		error_msg("out of memory");
		goto out;
	}
	print_all(b, &l);
	if (bottleneck_write(tmp, &l, b->table, &b->o, b->pipe.name, b->data.n, b->step_ns, &cp,
			     err, sizeof(err)) ||
	    results_dir_commit(b->o.out, tmp, name, final, sizeof(final), err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	tmp[0] = 0;
	printf("results: %s\n", final);
	rc = l.n < (size_t)b->o.repeat ? EXIT_FAIL : EXIT_OK;
out:
	if (tmp[0])
		rmdir(tmp);
	bottleneck_ladder_free(&l);
	return rc;
}

int cmd_bottleneck(int argc, char **argv)
{
	struct bn b = { 0 };
	int rc = parse(&b, argc, argv);
	if (rc < 0)
		rc = inputs(&b);
	if (rc < 0)
		rc = climb_and_write(&b);
	free(b.table);
	if (b.have_data)
		dataset_release(&b.data);
	if (b.have_pipe)
		pipeline_release(&b.pipe);
	return rc;
}
