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
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "checksum.h"
#include "clock.h"
#include "commands.h"
#include "decode.h"
#include "emit.h"
#include "escape.h"
#include "describe.h"
#include "imagefolder.h"
#include "log.h"
#include "machine.h"
#include "noise.h"
#include "options.h"
#include "pipeline.h"
#include "report.h"
#include "rng.h"
#include "sampler.h"
#include "stats.h"
#include "store.h"
#include "strategies.h"
#include "fsutil.h"
#include "plot.h"
#include "strategies_engine.h"

#define STRAT_SCHEMA_VERSION 1

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


/* SIGINT / SIGTERM: stop at the next sample, remove the stores, exit 128 + sig. */
static void on_stop(int sig)
{
	strat_stop_signal = sig;
}

/* ---- output -----------------------------------------------------------------------*/

static const char *tensors_text(int t)
{
	return t > 0 ? "same" : t == 0 ? "DIFFERENT" : "not checked";
}

static int *by_rank(const struct ctx *c)
{
	int *ord = malloc(sizeof(int) * (size_t)(c->nst ? c->nst : 1));
	if (!ord)
		die("out of memory");
	int n = 0;
	/* by rank, then by median score within a rank (ties), then as measured */
	for (int i = 0; i < c->nst; i++) {
		if (!c->st[i].ran)
			continue;
		const struct strategy *s = &c->st[i];
		int k = n++;
		while (k > 0) {
			const struct strategy *p = &c->st[ord[k - 1]];
			if (p->rank < s->rank || (p->rank == s->rank && p->score >= s->score))
				break;
			ord[k] = ord[k - 1];
			k--;
		}
		ord[k] = i;
	}
	for (int i = 0; i < c->nst; i++)
		if (!c->st[i].ran)
			ord[n++] = i;
	return ord;
}

static void print_table(FILE *f, const struct ctx *c, const char *results)
{
	const struct strat_opts *o = c->o;
	int E = (int)o->epochs;
	char lib[64], fm[1024];

	char origin[160];
	dataset_origin(&c->ds, origin, sizeof(origin));
	fprintf(f, "# PRESTO's preprocessing strategies: %s on %zu images (%.1f MB) of %s (%s)\n\n",
		c->pipe.name, c->n, c->orig_bytes / 1e6, c->ds.root, origin);
	fprintf(f, "- offline: the ops before the split run once on every sample, %d OpenMP "
		"thread%s each writing its own shard, the files fsync'ed; the time includes "
		"reading the dataset (%s)\n", c->threads, c->threads == 1 ? "" : "s",
		o->warm ? "page cache kept" : "its pages dropped first");
	fprintf(f, "- online: %d epoch%s of %zu samples, %ld thread%s (OpenMP%s), batches of "
		"%ld%s; each epoch reads the stored sample, decompresses it, runs the ops after "
		"the split (random draws seeded per sample as in `ppbench run`) and collates; "
		"%s\n", E, E == 1 ? "" : "s", c->n, o->workers, o->workers == 1 ? "" : "s",
		o->workers == 1 ? "; one process, no worker" : "", o->batch_size,
		o->shuffle ? ", shuffled" : ", in order",
		o->warm ? "page cache kept (warm)" :
		"the store's (or dataset's) pages dropped before each epoch with posix_fadvise "
		"DONTNEED (cold)");
	store_format_library(STORE_ZSTD, lib, sizeof(lib));
	fprintf(f, "- formats: raw; zstd level %ld (%s)", o->zstd_level, lib);
	store_format_library(STORE_LZ4, lib, sizeof(lib));
	fprintf(f, "; lz4 default (%s); every record checked with XXH64 when read; "
		"none/raw reads the dataset's own files\n", lib);
	fprintf(f, "- +cache: the split's output kept in memory by the application: the first "
		"epoch reads the raw store (or the files) and fills it, later epochs copy from "
		"memory\n");
	fprintf(f, "- steady images/s: the mean of epochs 2..%d%s\n", E,
		E == 1 ? " (epoch 1 here)" : "");
	if (o->repeat > 1)
		fprintf(f, "- repeats: the online epochs of each strategy measured %ld times (the "
			"offline pass once: its time is one measurement); each images/s and score is "
			"the median over them with %s\n", o->repeat, o->repeat >= 6 ?
			"its " STATS_CI_METHOD " in brackets" :
			"its (min, max) over the repeats (fewer than 6: no confidence interval)");
	else
		fprintf(f, "- one repeat: no figure has a spread, so no difference can be called "
			"within noise (--repeat 3 or more)\n");
	if (isfinite(c->noise.others_cpu_pct))
		fprintf(f, "- noise: other processes took %.0f %% of the CPUs this run could use "
			"while it measured%s\n", c->noise.others_cpu_pct, c->noise.noisy ?
			" (over the threshold: the timings are not this machine's alone)" : "");
	fprintf(f, "\n");

	fprintf(f, "| rank | strategy | offline s (one pass) | storage MB | vs dataset |");
	for (int e = 0; e < E; e++)
		fprintf(f, " epoch %d img/s |", e + 1);
	fprintf(f, " steady img/s | cache MB | tensors | score |\n|---:|---|---:|---:|---:|");
	for (int e = 0; e < E; e++)
		fprintf(f, "---:|");
	fprintf(f, "---:|---:|---|---:|\n");
	int *ord = by_rank(c);
	for (int k = 0; k < c->nst; k++) {
		const struct strategy *s = &c->st[ord[k]];
		if (!s->ran) {
			fprintf(f, "| - | %s | failed |\n", s->name);
			continue;
		}
		char v[128];
		fprintf(f, "| %d%s | %s | %.2f | %.1f | %.2fx |", s->rank, s->tied ? "=" : "",
			s->name, s->offline_s, s->storage_bytes / 1e6, c->orig_bytes ?
			(double)s->storage_bytes / (double)c->orig_bytes : 0.0);
		for (int e = 0; e < E; e++) {
			struct stats_summary es;
			strat_epoch_summary(c, s, e, &es);
			stats_format(v, sizeof(v), &es, "%.0f");
			fprintf(f, " %s |", v);
		}
		stats_format(v, sizeof(v), &s->sp_steady, "%.0f");
		fprintf(f, " %s | ", v);
		if (s->cache)
			fprintf(f, "%.1f", s->cache_bytes / 1e6);
		else
			fprintf(f, "-");
		stats_format(v, sizeof(v), &s->sp_score, "%.3f");
		fprintf(f, " | %s | %s |\n", tensors_text(s->tensors), v);
	}
	free(ord);
	strat_formula(c, fm, sizeof(fm));
	fprintf(f, "\n%s.\n", fm);
	int nbest = 0;
	for (int i = 0; i < c->nst; i++)
		nbest += c->st[i].ran && c->st[i].rank == 1;
	if (nbest > 1)
		fprintf(f, "\nBest by this weighting, within noise of each other:\n");
	for (int i = 0; i < c->nst; i++) {
		const struct strategy *s = &c->st[i];
		if (!s->ran || s->rank != 1)
			continue;
		char v[128];
		stats_format(v, sizeof(v), &s->sp_steady, "%.0f");
		fprintf(f, nbest > 1 ? "- **%s** (%s images/s, %.1f MB on storage%s)\n" :
			"\nBest by this weighting: **%s** (%s images/s, %.1f MB on storage%s).\n",
			s->name, v, s->storage_bytes / 1e6, s->cache ? " plus the cache" : "");
	}
	if (results)
		fprintf(f, "\nresults: %s\n", results);
}

/* The figure's series: one per kind of storage. */
static int series_of(const struct strategy *s)
{
	return s->cache ? 4 : s->format + 1;
}

static const char *series_label(const struct strategy *s)
{
	static const char *const l[] = { "raw", "zstd", "lz4", "in-memory cache" };
	return l[series_of(s) - 1];
}

static int write_csv(const struct ctx *c, const char *path, char *err, size_t errlen)
{
	int E = (int)c->o->epochs;
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write '%.900s': %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "strategy,split,split_ops,format,cache,offline_s,storage_bytes,storage_ratio");
	for (int e = 0; e < E; e++)
		fprintf(f, ",epoch%d_images_per_s", e + 1);
	fprintf(f, ",mean_images_per_s,steady_images_per_s,cache_bytes,fetch_ms_per_image,"
		"suffix_ms_per_image,skipped_per_epoch,tensors,epoch1_checksum,score,rank,series,"
		"series_label,repeats,steady_images_per_s_lo,steady_images_per_s_hi,score_lo,"
		"score_hi,interval,tied,others_cpu_pct\n");
	for (int i = 0; i < c->nst; i++) {
		const struct strategy *s = &c->st[i];
		if (!s->ran)
			continue;
		csv_put(f, s->name);
		csv_put_next(f, c->split[s->split].name);
		fprintf(f, ",%d", c->split[s->split].k);
		csv_put_next(f, store_format_name((enum store_format)s->format));
		fprintf(f, ",%d,%.6f,%" PRIu64 ",%.6f", s->cache, s->offline_s,
			s->storage_bytes, c->orig_bytes ? (double)s->storage_bytes /
			(double)c->orig_bytes : 0.0);
		for (int e = 0; e < E; e++) {
			struct stats_summary es;   /* the median over the repeats */
			strat_epoch_summary(c, s, e, &es);
			fprintf(f, ",%.3f", es.median);
		}
		fprintf(f, ",%.3f,%.3f,%" PRIu64 ",", s->mean_ips, s->steady_ips, s->cache_bytes);
		double per = s->delivered ? 1e-6 / (double)s->delivered : 0;
		if (s->files && !s->cache)
			fprintf(f, ",");   /* the read is inside the first op */
		else
			fprintf(f, "%.6f,", (double)s->fetch_ns * per);
		fprintf(f, "%.6f,%zu,%s,", (double)s->suffix_ns * per, s->skipped,
			s->tensors > 0 ? "same" : s->tensors == 0 ? "different" : "");
		if (c->o->checksum)
			fprintf(f, "%016" PRIx64, s->sum[0]);
		fprintf(f, ",%.6f,%d,%d", s->score, s->rank, series_of(s));
		csv_put_next(f, series_label(s));
		fprintf(f, ",%zu,%.3f,%.3f,%.6f,%.6f,%s,%d,", s->sp_steady.n, s->sp_steady.lo,
			s->sp_steady.hi, s->sp_score.lo, s->sp_score.hi,
			s->sp_steady.has_ci ? "ci95" : "min-max", s->tied);
		if (isfinite(s->noise.others_cpu_pct))
			fprintf(f, "%.2f", s->noise.others_cpu_pct);
		fprintf(f, "\n");
	}
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "cannot write '%.900s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_json(const struct ctx *c, const char *path, char *err, size_t errlen)
{
	int E = (int)c->o->epochs;
	char fm[1024], lib[64], hex[32];
	json_t *j = json_object();
	json_object_set_new(j, "schema_version", json_integer(STRAT_SCHEMA_VERSION));
	json_object_set_new(j, "tool", json_string("ppbench strategies"));
	json_object_set_new(j, "pipeline", json_string(c->pipe.name));
	json_t *d = dataset_json(&c->ds);
	json_object_set_new(d, "images_used", json_integer((json_int_t)c->n));
	json_object_set_new(d, "bytes_used", json_integer((json_int_t)c->orig_bytes));
	json_object_set_new(j, "dataset", d);
	json_object_set_new(j, "offline_threads", json_integer(c->threads));
	json_object_set_new(j, "online_threads", json_integer(c->workers));
	json_object_set_new(j, "cold", json_boolean(!c->o->warm));
	store_format_library(STORE_ZSTD, lib, sizeof(lib));
	json_object_set_new(j, "zstd", json_string(lib));
	store_format_library(STORE_LZ4, lib, sizeof(lib));
	json_object_set_new(j, "lz4", json_string(lib));
	strat_formula(c, fm, sizeof(fm));
	json_t *rk = json_object();
	json_object_set_new(rk, "formula", json_string(fm));
	json_object_set_new(rk, "throughput_weight", json_real(c->o->weight));
	json_object_set_new(rk, "storage_weight",
			    json_real(1 - c->o->weight - c->o->offline_weight));
	json_object_set_new(rk, "offline_weight", json_real(c->o->offline_weight));
	json_object_set_new(j, "ranking", rk);
	json_object_set_new(j, "repeats", json_integer(c->o->repeat));
	json_object_set_new(j, "interval_method", json_string(STATS_CI_METHOD));
	/* one window: the whole measurement; each strategy's own is beside it */
	json_object_set_new(j, "noise", noise_study_json(&c->noise, 1, "windows",
							 c->o->require_idle, &c->cpus));
	json_t *arr = json_array();
	for (int i = 0; i < c->nst; i++) {
		const struct strategy *s = &c->st[i];
		json_t *o = json_object();
		json_object_set_new(o, "strategy", json_string(s->name));
		json_object_set_new(o, "split", json_string(c->split[s->split].name));
		json_object_set_new(o, "split_ops", json_integer(c->split[s->split].k));
		json_object_set_new(o, "format",
				    json_string(store_format_name((enum store_format)s->format)));
		json_object_set_new(o, "cache", json_boolean(s->cache));
		json_object_set_new(o, "measured", json_boolean(s->ran));
		if (s->ran) {
			json_object_set_new(o, "offline_s", json_real(s->offline_s));
			json_object_set_new(o, "storage_bytes", json_integer((json_int_t)s->storage_bytes));
			json_object_set_new(o, "cache_bytes", json_integer((json_int_t)s->cache_bytes));
			json_t *ep = json_array();
			json_t *cs = json_array();
			for (int e = 0; e < E; e++) {
				struct stats_summary es;
				strat_epoch_summary(c, s, e, &es);
				json_array_append_new(ep, json_real(es.median));
				snprintf(hex, sizeof(hex), "%016" PRIx64, s->sum[e]);
				json_array_append_new(cs, json_string(hex));
			}
			json_object_set_new(o, "epoch_images_per_s", ep);
			if (c->o->checksum)
				json_object_set_new(o, "epoch_checksums", cs);
			else
				json_decref(cs);
			json_object_set_new(o, "mean_images_per_s", json_real(s->mean_ips));
			json_object_set_new(o, "steady_images_per_s", json_real(s->steady_ips));
			json_object_set_new(o, "skipped_per_epoch", json_integer((json_int_t)s->skipped));
			if (s->tensors >= 0)
				json_object_set_new(o, "same_tensors_as_full_pipeline",
						    json_boolean(s->tensors));
			json_object_set_new(o, "score", json_real(s->score));
			json_object_set_new(o, "rank", json_integer(s->rank));
			json_object_set_new(o, "tied", json_boolean(s->tied));
			json_object_set_new(o, "steady_images_per_s_summary", stats_summary_json(&s->sp_steady));
			json_object_set_new(o, "score_summary", stats_summary_json(&s->sp_score));
			json_t *rs = json_array();
			for (int r = 0; r < (int)c->o->repeat; r++) {
				json_t *x = json_object(), *xe = json_array();
				for (int e = 0; e < E; e++)
					json_array_append_new(xe, json_real(s->ips[r * E + e]));
				json_object_set_new(x, "epoch_images_per_s", xe);
				json_object_set_new(x, "steady_images_per_s", json_real(s->steady_r[r]));
				json_object_set_new(x, "score", json_real(s->score_r[r]));
				json_array_append_new(rs, x);
			}
			json_object_set_new(o, "repeats", rs);
			json_object_set_new(o, "noise", noise_window_json(&s->noise));
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(j, "strategies", arr);
	json_object_set_new(j, "options", opts_json(strat_opts_table, c->o));
	json_t *m = machine_json();
	if (m)
		json_object_set_new(j, "machine", m);
	int rc = json_dump_file(j, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (rc) {
		snprintf(err, errlen, "cannot write '%.900s'", path);
		return -1;
	}
	return 0;
}

/* gnuplot -c plots/strategies.gp data out title, output in log. 0, or -1. */
static int draw(const char *data, const char *out, const char *title, const char *log)
{
	char top[PATH_MAX], why[256];
	const char *args[] = { data, out, title, NULL };

	if (find_top(TOP_OF_PLOTS, top, sizeof(top)))
		return -1;
	return plot_run(top, "strategies.gp", args, log, why, sizeof(why));
}

/* ---- the command ----------------------------------------------------------------*/

/* What one `ppbench strategies` holds besides the engine's context. */
struct strat_cmd {
	struct strat_opts o;
	struct ctx *c;
	char tag[128], tmp[PATH_MAX], name[256], final[PATH_MAX], data_path[PATH_MAX];
	int have_dir;           /* tmp is the results folder, not yet committed */
};

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

/* The dataset, the epochs' schedule, the threads' state. An exit code, or
 * -1 to go on. */
static int strat_load(struct strat_cmd *x)
{
	struct strat_opts *o = &x->o;
	struct ctx *c = x->c;
	char err[1024];

	if (!o->data) {
		if (dataset_ensure_default(x->data_path, sizeof(x->data_path), err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		o->data = x->data_path;
	}
	if (dataset_scan(&c->ds, o->data, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	c->n = o->images && (size_t)o->images < c->ds.n ? (size_t)o->images : c->ds.n;
	for (size_t i = 0; i < c->n; i++)
		c->orig_bytes += c->ds.items[i].bytes;
	if (schedule_build(&c->sched, c->n, (size_t)o->batch_size, (int)o->epochs, o->shuffle, 0,
			   o->seed, 0, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	c->workers = (int)o->workers;
	c->threads = o->offline_threads ? (int)o->offline_threads : omp_get_num_procs();
	int nt = c->workers > c->threads ? c->workers : c->threads;
	c->thr = calloc((size_t)nt, sizeof(*c->thr));
	c->smp = calloc((size_t)o->batch_size, sizeof(*c->smp));
	c->ok = calloc((size_t)o->batch_size, sizeof(*c->ok));
	if (!c->thr || !c->smp || !c->ok) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	for (int i = 0; i < nt; i++)
		rng_seed(&c->thr[i].rng, o->seed);
	return -1;
}

/* The results folder (under a temporary name) and the stores' folder. 0, or -1. */
static int strat_folders(struct strat_cmd *x)
{
	struct strat_opts *o = &x->o;
	struct ctx *c = x->c;
	char err[1024];

	if (!o->tag) {
		snprintf(x->tag, sizeof(x->tag), "strategies-%s", c->pipe.name);
		o->tag = x->tag;
	}
	if (results_dir_begin(o->out, o->tag, x->tmp, sizeof(x->tmp), x->name, sizeof(x->name),
			      err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	x->have_dir = 1;
	if (o->store) {
		snprintf(c->store_root, sizeof(c->store_root), "%s", o->store);
		if (mkdir_p(c->store_root, 0777)) {
			error_msg("cannot create '%s': %s", c->store_root, strerror(errno));
			return -1;
		}
	} else {
		snprintf(c->store_root, sizeof(c->store_root), "%.4000s/store", x->tmp);
		if (mkdir(c->store_root, 0777)) {
			error_msg("cannot create '%s': %s", c->store_root, strerror(errno));
			return -1;
		}
		c->made_store_root = 1;
	}
	return 0;
}

/* Every wanted split's strategies, in a noise window, then the ranking.
 * 0 all measured, 1 one failed, -1 stopped (said). */
static int strat_measure(struct strat_cmd *x)
{
	struct ctx *c = x->c;
	char err[1024];
	int failed = 0;

	cpus_read(&c->cpus);
	if (noise_require_idle(x->o.require_idle, noise_idle_wait_s(), &c->cpus, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	struct noise_snap n0, n1;
	noise_read(&n0, &c->cpus);
	for (int si = 0; si < c->nsplits && !strat_stop_signal && !c->idle_refused; si++) {
		if (!c->want_split[si])
			continue;
		if (strat_run_split(c, si))
			failed = 1;
		if (si == 0 && (c->nst == 0 || !c->st[0].ran) && !strat_stop_signal) {
			error_msg("the full pipeline (none/raw) failed: nothing to compare with");
			return -1;
		}
	}
	if (strat_stop_signal)
		return -1;
	noise_read(&n1, &c->cpus);
	noise_between(&n0, &n1, &c->cpus, &c->noise);
	noise_warn(&c->noise, "the strategies' measurements");
	if (c->idle_refused)
		warn_msg("--require-idle: the strategies measured before the machine got busy are kept");
	if (c->made_store_root && !x->o.keep)
		rmdir(c->store_root);
	strat_rank_all(c);
	return failed;
}

/* The throughput-against-storage figure in figures/ (a warning if not drawn). */
static void strat_figure(const struct strat_cmd *x)
{
	const struct strat_opts *o = &x->o;
	const struct ctx *c = x->c;
	char path[PATH_MAX + 64], fig[PATH_MAX + 64], log[PATH_MAX + 64], title[512];

	snprintf(fig, sizeof(fig), "%.4000s/figures", x->tmp);
	snprintf(log, sizeof(log), "%.4000s/figures/gnuplot.log", x->tmp);
	snprintf(path, sizeof(path), "%.4000s/strategies.csv", x->tmp);
	snprintf(title, sizeof(title), "PRESTO's strategies: %s, %zu images, %ld epochs, "
		 "%ld thread%s, %s", c->pipe.name, c->n, o->epochs, o->workers,
		 o->workers == 1 ? "" : "s", o->warm ? "warm" : "cold page cache");
	if (mkdir(fig, 0777) && errno != EEXIST) {
		warn_msg("cannot create '%s': %s", fig, strerror(errno));
		return;
	}
	snprintf(fig, sizeof(fig), "%.4000s/figures/strategies", x->tmp);
	if (draw(path, fig, title, log))
		warn_msg("figure not drawn (gnuplot or plots/strategies.gp missing? see %s)", log);
}

/* strategies.csv, .json, .md and the figure; the folder committed. 0, or -1. */
static int strat_write(struct strat_cmd *x)
{
	struct ctx *c = x->c;
	char err[1024], path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%.4000s/strategies.csv", x->tmp);
	if (write_csv(c, path, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	snprintf(path, sizeof(path), "%.4000s/strategies.json", x->tmp);
	if (write_json(c, path, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	if (x->o.plot)
		strat_figure(x);
	snprintf(path, sizeof(path), "%.4000s/strategies.md", x->tmp);
	FILE *md = fopen(path, "w");
	if (md) {
		print_table(md, c, NULL);
		if (ferror(md) | fclose(md))
			md = NULL;
	}
	if (!md) {
		error_msg("cannot write '%s'", path);
		return -1;
	}
	if (results_dir_commit(x->o.out, x->tmp, x->name, x->final, sizeof(x->final), err,
			       sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	x->have_dir = 0;
	return 0;
}

/* A failed run: remove the stores; the folder stays with what it has. */
static void strat_abandon(struct strat_cmd *x)
{
	struct ctx *c = x->c;
	char err[1024];

	if (c->made_store_root && !x->o.keep) {
		for (int si = 0; si < c->nsplits; si++)
			for (int f = 0; f < STORE_NFORMATS; f++) {
				char dir[PATH_MAX + 200];
				snprintf(dir, sizeof(dir), "%s/%s-%s", c->store_root, c->split[si].name,
					 store_format_name((enum store_format)f));
				store_remove(dir, err, sizeof(err));
			}
		rmdir(c->store_root);
	}
	rmdir(x->tmp);
}

int cmd_strategies(int argc, char **argv)
{
	struct strat_cmd *x = calloc(1, sizeof(*x));
	struct sigaction old_int, old_term;
	int rc;

	if (!x || !(x->c = calloc(1, sizeof(*x->c)))) {
		free(x);
		error_msg("out of memory");
		return EXIT_FAIL;
	}
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

	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int failed = strat_measure(x);
	rc = EXIT_FAIL;
	if (failed >= 0 && !strat_write(x)) {
		print_table(stdout, x->c, x->final);
		rc = failed ? EXIT_FAIL : EXIT_OK;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (strat_stop_signal)
		rc = 128 + strat_stop_signal;
out:
	if (x->have_dir)
		strat_abandon(x);
	strat_ctx_free(x->c);
	free(x->c);
	free(x);
	return rc;
}
