/* ppbench strategies: PRESTO's preprocessing strategies (Isenko et al.,
 * "Where Is My Training Bottleneck? Hidden Trade-Offs in Deep Learning
 * Preprocessing Pipelines", SIGMOD 2022) on a ppbench pipeline.
 *
 * A strategy splits the pipeline in two: a deterministic leading prefix of
 * ops is run once, offline, on every sample and its output materialised in
 * a store (store.h) in one format (raw, zstd, lz4); every epoch then reads
 * the stored sample, decompresses it and runs the rest of the ops (the
 * suffix, with the sample's usual random draws) and collates the batches.
 * Only a prefix that draws nothing can be materialised without changing
 * what the model sees: it stops at the first OP_RANDOM op and never goes
 * past the batch op. The split "none" reads the dataset's own files (the
 * full pipeline, the baseline). A "+cache" strategy also keeps the split's
 * output in memory (PRESTO's application-level cache): its first epoch
 * reads the raw store (or the files) and fills the cache, later epochs copy
 * from memory.
 *
 * Every strategy's tensors are checked against the full pipeline's: the
 * sum over an epoch of each sample's XXH64 (checksum.h) must be the same,
 * epoch after epoch (the suffix's random ops are seeded per sample from
 * (seed, epoch, index) exactly as in `ppbench run`). */
#include <stdio.h>
#include <stdlib.h>
#include "commands.h"
#include "log.h"
#include "stopsig.h"
#include "strategies_engine.h"

#define O(f) offsetof(struct strat_opts, f)
static const struct opt strat_opts_table[] = {
	OPT_DATA(struct strat_opts, data),
	{ "images", 'n', OPT_INT, O(images), "500", "N",
	  "use the first N images of the dataset (0: all)", .lo = 0, .hi = 1e12 },
	OPT_PIPELINE(struct strat_opts, pipeline, OPT_PIPELINE_HELP),
	{ "splits", 0, OPT_LIST, O(splits), "all", "LIST",
	  "splits to measure, by the name of their last offline op (none: the dataset's files, "
	  "always measured)", .choices = NULL },
	{ "formats", 'f', OPT_LIST, O(formats), "raw,zstd,lz4", "LIST",
	  "storage formats of the materialised samples: raw, zstd, lz4", .choices = NULL },
	{ "zstd-level", 0, OPT_INT, O(zstd_level), "1", "L", "zstd compression level",
	  .lo = -7, .hi = 22 },
	{ "cache", 0, OPT_BOOL, O(cache), "on", NULL,
	  "also each split with its output cached in memory (filled by the first epoch)",
	  .choices = NULL },
	{ "epochs", 'e', OPT_INT, O(epochs), "3", "E", "online epochs per strategy",
	  .lo = 1, .hi = 1000 },
	{ "repeat", 'r', OPT_INT, O(repeat), "3", "N",
	  "measure each strategy's online epochs N times (the offline pass once); each "
	  "timing is the median over them with its spread, and strategies within noise of "
	  "each other share a rank", .lo = 1, .hi = 1000 },
	NOISE_OPT(struct strat_opts, require_idle),
	{ "batch", 'b', OPT_INT, O(batch_size), "128", "B", "samples per batch", .lo = 1, .hi = 65536 },
	{ "workers", 'w', OPT_INT, O(workers), "1", "W",
	  "threads of the online epochs (OpenMP; 1: one process, no workers)", .lo = 1, .hi = 1024 },
	{ "offline-threads", 0, OPT_INT, O(offline_threads), "0", "T",
	  "threads of the offline pass (OpenMP, one shard each; 0: one per CPU)",
	  .lo = 0, .hi = 1024 },
	{ "shuffle", 0, OPT_BOOL, O(shuffle), "on", NULL,
	  "visit the samples in a new random order each epoch (torch RandomSampler)",
	  .choices = NULL },
	{ "warm", 0, OPT_BOOL, O(warm), "off", NULL,
	  "keep the page cache warm (off: the store's or the dataset's pages are dropped before "
	  "each epoch, the dataset's before the offline pass)", .choices = NULL },
	OPT_SEED(struct strat_opts, seed, "seed of the run (order and random ops)"),
	OPT_MAX_PIXELS(struct strat_opts, max_pixels, OPT_MAX_PIXELS_HELP),
	{ "checksum", 0, OPT_BOOL, O(checksum), "on", NULL,
	  "hash every sample's output to check that each strategy gives the full pipeline's "
	  "tensors", .choices = NULL },
	{ "weight", 0, OPT_DOUBLE, O(weight), "0.5", "W",
	  "ranking: weight of throughput (storage gets 1 - W - offline weight)", .lo = 0, .hi = 1 },
	{ "offline-weight", 0, OPT_DOUBLE, O(offline_weight), "0", "P",
	  "ranking: weight of the offline time", .lo = 0, .hi = 1 },
	{ "store", 0, OPT_STR, O(store), NULL, "DIR",
	  "where the stores are written (default: store/ in the results folder)", .choices = NULL },
	{ "keep", 0, OPT_BOOL, O(keep), "off", NULL, "keep the stores after measuring them",
	  .choices = NULL },
	{ "plot", 0, OPT_BOOL, O(plot), "on", NULL, "draw the figure with gnuplot",
	  .choices = NULL },
	OPT_TAG(struct strat_opts, tag, "name of the results folder after the time (default: strategies-PIPELINE)"),
	OPT_OUT(struct strat_opts, out, "results", OPT_OUT_HELP),
	OPT_END
};
#undef O

static const char usage[] = "ppbench strategies [options]";
static const char description[] =
	"PRESTO's preprocessing strategies: for each split of the pipeline between ops done\n"
	"once offline (a leading prefix that draws no random numbers, materialised in a store)\n"
	"and ops done every epoch, and each storage format (raw, zstd, lz4), plus the split's\n"
	"output cached in memory: the offline time, the storage size, and the images/s of E\n"
	"epochs that read the stored samples, decompress them, run the remaining ops and\n"
	"collate. Prints the table and PRESTO's ranking by a weighted objective; leaves\n"
	"OUT/<UTC time>-<tag>/ with strategies.csv, strategies.json, strategies.md and\n"
	"figures/strategies.png (throughput against storage). Checks that every strategy\n"
	"gives the full pipeline's tensors.\n"
	"Exit status: 0 done; 1 a strategy failed or gave other tensors; 2 a bad option.";


/* The options, the pipeline and its splits. An exit code, or -1 to go on. */
static int strat_args(struct strat_cmd *x, int argc, char **argv)
{
	struct strat_opts *o = &x->o;
	struct ctx *c = x->c;
	char err[1024];
	int npos = 0;

	c->o = o;
	int pr = opts_prelude(strat_opts_table, o, argc, argv, &npos, usage, description, NULL);
	if (pr >= 0)
		return pr;
	if (npos) {
		error_msg("strategies takes no arguments, got '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (o->weight + o->offline_weight > 1 + 1e-9) {
		error_msg("--weight %g and --offline-weight %g add up to more than 1", o->weight,
		      o->offline_weight);
		return EXIT_USAGE;
	}
	if (strat_parse_formats(c, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	c->decode = op_find("decode");
	if (pipeline_load(&c->pipe, o->pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	strat_find_splits(c);
	if (strat_parse_splits(c, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_strategies(int argc, char **argv)
{
	struct strat_cmd *x = calloc(1, sizeof(*x));
	struct stop_saved saved;
	int rc;

	if (!x || !(x->c = calloc(1, sizeof(*x->c)))) {
		free(x);
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	x->table = strat_opts_table;
	rc = strat_args(x, argc, argv);
	if (rc == EXIT_OK) {            /* --help */
		free(x->c);
		free(x);
		return EXIT_OK;
	}
	if (rc < 0)
		rc = strat_load(x);
	if (rc < 0)
		rc = strat_folders(x) ? EXIT_FAIL : -1;
	if (rc >= 0)
		goto out;
	info("strategies: %s on %zu images of %s, %d split%s, %ld epoch%s each; stores in %s",
	     x->c->pipe.name, x->c->n, x->c->ds.root, x->c->nsplits, x->c->nsplits == 1 ? "" : "s",
	     x->o.epochs, x->o.epochs == 1 ? "" : "s", x->c->store_root);

	/* SIGINT / SIGTERM: stop at the next sample, remove the stores, exit 128 + sig */
	stop_catch(&saved, 0);
	int failed = strat_measure(x);
	rc = EXIT_FAIL;
	if (failed >= 0 && !strat_write(x)) {
		strat_print_table(stdout, x->c, x->final);
		rc = failed ? EXIT_FAIL : EXIT_OK;
	}
	stop_release(&saved);
	if (stop_signal())
		rc = 128 + stop_signal();
out:
	if (x->have_dir)
		strat_abandon(x);
	strat_ctx_free(x->c);
	free(x->c);
	free(x);
	return rc;
}
