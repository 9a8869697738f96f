/* ppbench strategies' output (strategies_engine.h): the table (by rank,
 * ties within noise), strategies.csv and strategies.json. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "describe.h"
#include "emit.h"
#include "escape.h"
#include "log.h"
#include "machine.h"
#include "strategies_engine.h"

#define STRAT_SCHEMA_VERSION 1

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

void strat_print_table(FILE *f, const struct ctx *c, const char *results)
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

int strat_write_csv(const struct ctx *c, const char *path, char *err, size_t errlen)
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

int strat_write_json(const struct ctx *c, json_t *options, const char *path, char *err,
		     size_t errlen)
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
	json_object_set_new(j, "options", options);
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
