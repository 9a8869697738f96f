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
#include "generate.h"
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

#define STRAT_SCHEMA_VERSION 1

struct strat_opts {
	const char *data, *pipeline, *formats, *splits, *store, *out, *tag;
	long images, epochs, batch, workers, offline_threads, zstd_level, repeat;
	uint64_t seed, max_pixels;
	double weight, offline_weight, require_idle;
	int shuffle, warm, cache, keep, checksum, plot;
};

#define O(f) offsetof(struct strat_opts, f)
static const struct opt strat_opts_table[] = {
	{ "data", 'd', OPT_STR, O(data), NULL, "DIR",
	  "ImageFolder dataset (default: the generated default dataset)", .choices = NULL },
	{ "images", 'n', OPT_INT, O(images), "500", "N",
	  "use the first N images of the dataset (0: all)", .lo = 0, .hi = 1e12 },
	{ "pipeline", 'p', OPT_STR, O(pipeline), "imagenet_train", "NAME|FILE",
	  "pipeline: a name in pipelines/ or a .pipe file", .choices = NULL },
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
	{ "batch", 'b', OPT_INT, O(batch), "128", "B", "samples per batch", .lo = 1, .hi = 65536 },
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
	{ "seed", 's', OPT_U64, O(seed), "0", "S", "seed of the run (order and random ops)",
	  .choices = NULL },
	{ "max-pixels", 0, OPT_U64, O(max_pixels), DECODE_BOMB_PIXELS_STR, "N",
	  "refuse images with more pixels, as Pillow (0: no limit)", .choices = NULL },
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
	{ "tag", 't', OPT_STR, O(tag), NULL, "TAG",
	  "name of the results folder after the time (default: strategies-PIPELINE)",
	  .choices = NULL },
	{ "out", 'o', OPT_STR, O(out), "results", "DIR", "where results folders are made",
	  .choices = NULL },
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

/* ---- the model -------------------------------------------------------------*/

struct split {
	int k;                  /* ops [0, k) run offline */
	char name[64];
	enum pix_kind kind;     /* the sample after the prefix */
	int suffix_random;      /* an op of the suffix draws */
	int from_memory;        /* the suffix can start from the file's bytes in memory */
};

struct strategy {
	char name[96];
	int split;              /* index in ctx.split */
	int format;             /* enum store_format */
	int cache;
	int files;              /* reads the dataset's own files (no store) */
	int ran;                /* measured to the end */
	double offline_s;
	uint64_t storage_bytes, cache_bytes;
	double *ips;            /* [R * E] images/s of each epoch of each repeat */
	uint64_t *sum;          /* [R * E] checksum of each epoch */
	size_t *images;         /* [R * E] samples delivered */
	double *steady_r;       /* [R] steady images/s of each repeat */
	double *score_r;        /* [R] score of each repeat */
	struct stats_summary sp_steady, sp_score;
	struct noise noise;     /* the window of its online measurements */
	size_t skipped;         /* samples skipped in the last epoch */
	uint64_t fetch_ns, suffix_ns, delivered;
	double mean_ips, steady_ips;
	int tensors;            /* 1 same as the full pipeline, 0 not, -1 not checked */
	double score;           /* the median score */
	int rank, tied;         /* tied: within noise of another strategy */
};

/* One thread's state; padded apart. */
struct thr {
	struct scratch scr;
	struct rng rng;
	struct store_io io;
	struct sample s;        /* the offline pass's sample */
	uint64_t fetch_ns, suffix_ns, sum;
	size_t nok, nskip;
	char pad[64];
};

/* A cached sample: the split's output (or the failure's reason). */
struct centry {
	struct store_rec rec;
	void *p;
};

struct ctx {
	const struct strat_opts *o;
	struct pipeline pipe;
	struct dataset ds;
	size_t n;                       /* samples used: the first n of ds */
	uint64_t orig_bytes;            /* their files' bytes */
	struct split split[PIPE_MAX_OPS + 1];
	int nsplits;
	int want_split[PIPE_MAX_OPS + 1];
	int want_format[STORE_NFORMATS];
	const struct op_ops *decode;    /* the op that reads and decodes a file */
	struct schedule sched;
	int W, T;
	struct thr *thr;                /* [max(W, T)] */
	struct sample *smp;             /* [B] */
	struct sample **ok;             /* [B] */
	struct buf batch;
	struct centry *cache;           /* [n] while a +cache strategy runs */
	char store_root[PATH_MAX];
	int made_store_root;
	struct strategy st[(PIPE_MAX_OPS + 1) * (STORE_NFORMATS + 1)];
	int nst;
	struct cpus cpus;               /* the CPUs the noise guard watches */
	struct noise noise;             /* the window of the whole measurement */
	int idle_refused;               /* --require-idle: never quiet; nothing more is measured */
	char fatal[768];                /* the error that ended the current strategy */
	int fatal_set;                  /* fatal[] holds it (read without the lock) */
};

static void set_fatal(struct ctx *c, const char *msg)
{
#pragma omp critical(strat_fatal)
	{
		if (!c->fatal[0])
			snprintf(c->fatal, sizeof(c->fatal), "%s", msg);
	}
	__atomic_store_n(&c->fatal_set, 1, __ATOMIC_RELEASE);
}

/* SIGINT / SIGTERM: stop at the next sample, remove the stores, exit 128 + sig. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static int has_fatal(struct ctx *c)
{
	if (stop_signal && !__atomic_load_n(&c->fatal_set, __ATOMIC_ACQUIRE))
		set_fatal(c, stop_signal == SIGINT ? "interrupted" : "terminated");
	return __atomic_load_n(&c->fatal_set, __ATOMIC_ACQUIRE);
}

static void clear_fatal(struct ctx *c)
{
	c->fatal[0] = 0;
	c->fatal_set = 0;
}

/* ---- splits ------------------------------------------------------------------*/

static int passthrough(const struct op_ops *o)
{
	return o->in == PIX_NONE && o->out == PIX_NONE;
}

/* The splits: k = 0 .. K where op K is the first that draws or batches. */
static void find_splits(struct ctx *c)
{
	const struct pipeline *p = &c->pipe;
	int K = 0;
	while (K < p->nops && !(p->op[K].ops->flags & (OP_RANDOM | OP_BATCH)))
		K++;
	enum pix_kind kind = PIX_NONE;
	c->nsplits = 0;
	for (int k = 0; k <= K; k++) {
		struct split *s = &c->split[c->nsplits++];
		s->k = k;
		if (k > 0 && !passthrough(p->op[k - 1].ops))
			kind = p->op[k - 1].ops->out;
		s->kind = kind;
		if (k == 0) {
			snprintf(s->name, sizeof(s->name), "none");
		} else {
			const char *name = p->op[k - 1].ops->name;
			int dup = 0;
			for (int i = 0; i < K; i++)
				dup += !strcmp(p->op[i].ops->name, name);
			if (dup > 1)
				snprintf(s->name, sizeof(s->name), "%s@%d", name, k);
			else
				snprintf(s->name, sizeof(s->name), "%s", name);
		}
		s->suffix_random = 0;
		for (int i = k; i < p->nops; i++)
			if (p->op[i].ops->flags & OP_RANDOM)
				s->suffix_random = 1;
		/* the file's bytes can be held in memory (a compressed store of the
		 * encoded files, or a cache of them) only if the first op to use
		 * the sample's data is the decode op */
		s->from_memory = 0;
		if (kind == PIX_NONE) {
			int i = k;
			while (i < p->nops && passthrough(p->op[i].ops))
				i++;
			s->from_memory = i < p->nops && p->op[i].ops == c->decode;
		}
	}
}

static int parse_splits(struct ctx *c, char *err, size_t errlen)
{
	char list[1024];
	snprintf(list, sizeof(list), "%s", c->o->splits);
	memset(c->want_split, 0, sizeof(c->want_split));
	c->want_split[0] = 1;
	char *save = NULL;
	for (char *t = strtok_r(list, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
		if (!strcmp(t, "all")) {
			for (int i = 0; i < c->nsplits; i++)
				c->want_split[i] = 1;
			continue;
		}
		int found = -1;
		for (int i = 0; i < c->nsplits; i++)
			if (!strcmp(t, c->split[i].name))
				found = i;
		if (found < 0) {
			char names[512] = "";
			for (int i = 0; i < c->nsplits; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 i ? ", " : "", c->split[i].name);
			if (pipeline_find(&c->pipe, t) >= 0)
				snprintf(err, errlen, "--splits: '%s' cannot be done offline in %s (an op "
					 "before it draws random numbers or batches); the splits are: %s",
					 t, c->pipe.name, names);
			else
				snprintf(err, errlen, "--splits: no split '%s' in %s; the splits are: %s",
					 t, c->pipe.name, names);
			return -1;
		}
		c->want_split[found] = 1;
	}
	return 0;
}

static int parse_formats(struct ctx *c, char *err, size_t errlen)
{
	char list[256];
	int any = 0;
	snprintf(list, sizeof(list), "%s", c->o->formats);
	memset(c->want_format, 0, sizeof(c->want_format));
	char *save = NULL;
	for (char *t = strtok_r(list, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
		int f = store_format_parse(t);
		if (f < 0) {
			snprintf(err, errlen, "--formats: '%s' is not one of raw, zstd, lz4", t);
			return -1;
		}
		c->want_format[f] = 1;
		any = 1;
	}
	if (!any) {
		snprintf(err, errlen, "--formats: empty list");
		return -1;
	}
	return 0;
}

/* ---- the page cache ----------------------------------------------------------*/

static void drop_dataset_pages(const struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		char why[256];
		struct stat st;
		int fd = open_regular(c->ds.items[i].path, &st, why, sizeof(why));
		if (fd < 0)
			continue;
		drop_page_cache(fd);
		close(fd);
	}
}

/* ---- one sample --------------------------------------------------------------*/

/* The whole file into b; *n its size. -1 with s->err set. */
static int read_file(struct sample *s, struct buf *b, uint64_t *n)
{
	char why[sizeof(s->err)];
	size_t got;
	if (decode_read_file(s->path, s->max_file_bytes, b, &got, why, sizeof(why)))
		return sample_fail(s, "%s", why);
	*n = got;
	return 0;
}

static void sample_init(const struct ctx *c, struct sample *s, struct thr *t, size_t i)
{
	sample_setup(s, c->ds.items[i].path, c->ds.items[i].label, i, &t->rng, &t->scr,
		     c->o->max_pixels, DECODE_MAX_FILE_BYTES);
}

/* Ops [from, to) on s; with *nbytes > 0 the file's bytes are in
 * s->scr->file and the decode op decodes them from there (as it would
 * after reading the file: decode.h). 0, or -1 (s->err). */
static int run_ops(const struct ctx *c, struct sample *s, int from, int to, uint64_t *nbytes)
{
	const struct pipeline *p = &c->pipe;
	for (int i = from; i < to; i++) {
		const struct pipe_op *po = &p->op[i];
		if (i == p->batch_op)
			continue;
		if (*nbytes && s->kind == PIX_NONE && po->ops == c->decode) {
			char why[sizeof(s->err)];
			int h, w;
			if (decode_image_mem(s->scr->file.p, (size_t)*nbytes, s->max_pixels,
					     &s->scr->tmp, &h, &w, why, sizeof(why)))
				return sample_fail(s, "%s", why);
			sample_swap_tmp(s);
			s->kind = PIX_U8_HWC;
			s->h = h;
			s->w = w;
			*nbytes = 0;
			continue;
		}
		if (po->ops->run(po->cfg, s))
			return -1;
	}
	return 0;
}

/* Where a fetched sample's payload goes: the file's bytes wait in the
 * scratch's file buffer (the decode op's), pixels are the sample's data. */
static struct buf *payload_buf(const struct split *sp, struct sample *s)
{
	return sp->kind == PIX_NONE ? &s->scr->file : &s->data;
}

static int cache_put(struct ctx *c, size_t i, const struct store_rec *r, const void *p)
{
	struct centry *e = &c->cache[i];
	e->rec = *r;
	e->p = malloc(r->bytes ? r->bytes : 1);
	if (!e->p)
		return -1;
	memcpy(e->p, p, r->bytes);
	return 0;
}

/* One online sample: fetch (store, cache or file), the suffix, the
 * checksum. 1 delivered, 0 skipped (its ops failed, as the full pipeline's
 * would), -1 fatal (c->fatal). */
static int online_sample(struct ctx *c, const struct strategy *sg, const struct store *st,
			 struct thr *t, struct sample *s, size_t i, int epoch)
{
	const struct split *sp = &c->split[sg->split];
	struct store_rec r;
	char err[768];
	uint64_t nbytes = 0;
	int filling = sg->cache && epoch == 0;

	sample_init(c, s, t, i);
	if (sp->suffix_random)
		rng_seed(&t->rng, rng_sample_seed(c->o->seed, (uint64_t)epoch, i));
	uint64_t t0 = clock_now_ns();
	if (sg->cache && epoch > 0) {
		const struct centry *e = &c->cache[i];
		r = e->rec;
		struct buf *b = r.failed ? &s->scr->aux[0] : payload_buf(sp, s);
		if (buf_reserve(b, r.bytes ? r.bytes : 1)) {
			set_fatal(c, "out of memory (a cached sample)");
			return -1;
		}
		memcpy(b->p, e->p, r.bytes);
		if (r.failed) {
			sample_fail(s, "%.*s", (int)r.bytes, (const char *)b->p);
			return 0;
		}
	} else if (sg->files && filling) {
		/* the cache of the encoded files: read them here */
		memset(&r, 0, sizeof(r));
		r.label = s->label;
		r.index = i;
		if (run_ops(c, s, 0, sp->k, &nbytes) || read_file(s, &s->scr->file, &r.bytes)) {
			r.failed = 1;
			r.bytes = strlen(s->err);
			if (cache_put(c, i, &r, s->err)) {
				set_fatal(c, "out of memory (the cache)");
				return -1;
			}
			return 0;
		}
		if (cache_put(c, i, &r, s->scr->file.p)) {
			set_fatal(c, "out of memory (the cache)");
			return -1;
		}
	} else if (!sg->files) {
		struct buf *b = payload_buf(sp, s);
		if (store_get(st, &t->io, i, &r, b, err, sizeof(err))) {
			set_fatal(c, err);
			return -1;
		}
		if (r.failed) {
			/* the prefix failed offline: the reason is the payload */
			sample_fail(s, "%.*s", (int)(r.bytes < 255 ? r.bytes : 255),
				    (const char *)b->p);
			if (filling && cache_put(c, i, &r, b->p)) {
				set_fatal(c, "out of memory (the cache)");
				return -1;
			}
			return 0;
		}
		if (r.kind != (int)sp->kind) {
			snprintf(err, sizeof(err), "store '%.500s': sample %zu is not what split '%s' "
				 "makes", st->dir, i, sp->name);
			set_fatal(c, err);
			return -1;
		}
		if (filling && cache_put(c, i, &r, b->p)) {
			set_fatal(c, "out of memory (the cache)");
			return -1;
		}
	}
	if (!sg->files || sg->cache) {
		if (sp->kind == PIX_NONE) {
			nbytes = r.bytes;
		} else {
			s->kind = (enum pix_kind)r.kind;
			s->h = r.h;
			s->w = r.w;
		}
	}
	uint64_t t1 = clock_now_ns();
	int from = sg->files && !sg->cache ? 0 : sp->k;
	int rc = run_ops(c, s, from, c->pipe.nops, &nbytes);
	uint64_t t2 = clock_now_ns();
	t->fetch_ns += t1 - t0;
	t->suffix_ns += t2 - t1;
	if (rc)
		return 0;
	if (c->o->checksum) {
		size_t nb = sample_bytes(s);
		t->sum += checksum_sample(nb ? s->data.p : NULL, nb, s->label);
	}
	return 1;
}

/* ---- offline ------------------------------------------------------------------*/

/* Run the prefix of split sp on every sample into a new store at dir. */
static int offline(struct ctx *c, const struct split *sp, enum store_format f, const char *dir,
		   struct store *st, char *err, size_t errlen)
{
	if (store_create(st, dir, f, (int)c->o->zstd_level, c->n, c->T, err, errlen))
		return -1;
	clear_fatal(c);
#pragma omp parallel num_threads(c->T)
	{
		int tid = omp_get_thread_num();
		struct thr *t = &c->thr[tid];
		struct sample *s = &t->s;
		char why[768];
#pragma omp for schedule(static)
		for (size_t i = 0; i < c->n; i++) {
			if (has_fatal(c))
				continue;
			uint64_t nbytes = 0;
			sample_init(c, s, t, i);
			struct store_rec r = { .label = s->label, .index = i };
			const void *payload = NULL;
			int rc = run_ops(c, s, 0, sp->k, &nbytes);
			if (!rc && sp->kind == PIX_NONE)
				rc = read_file(s, &s->scr->file, &r.bytes);
			if (rc) {
				r.failed = 1;
				r.bytes = strlen(s->err);
				payload = s->err;
			} else if (sp->kind == PIX_NONE) {
				payload = s->scr->file.p;
			} else {
				r.kind = s->kind;
				r.h = s->h;
				r.w = s->w;
				r.bytes = sample_bytes(s);
				payload = s->data.p;
			}
			if (store_put(st, &t->io, tid, i, &r, payload, why, sizeof(why)))
				set_fatal(c, why);
		}
	}
	if (has_fatal(c)) {
		snprintf(err, errlen, "%s", c->fatal);
		store_close(st);
		return -1;
	}
	return store_finish(st, err, errlen);
}

/* ---- online -------------------------------------------------------------------*/

static int collate(struct ctx *c, size_t nok, char *err, size_t errlen)
{
	const struct pipeline *p = &c->pipe;
	if (p->batch_op < 0 || nok == 0)
		return 0;
	const struct pipe_op *bo = &p->op[p->batch_op];
	size_t need = bo->ops->batch_bytes(bo->cfg, nok, c->ok[0]->h, c->ok[0]->w);
	if (buf_reserve(&c->batch, need)) {
		snprintf(err, errlen, "out of memory (a batch of %zu bytes)", need);
		return -1;
	}
	struct batch_out out = { .mem = c->batch.p, .capacity = need, .n = nok };
	return bo->ops->run_batch(bo->cfg, c->ok, nok, &out, err, errlen);
}

static void free_cache(struct ctx *c)
{
	if (!c->cache)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->cache[i].p);
	free(c->cache);
	c->cache = NULL;
}

/* E epochs of strategy sg reading st (NULL: the dataset's files), its
 * repeat r. */
static int online(struct ctx *c, struct strategy *sg, const struct store *st, int r,
		  char *err, size_t errlen)
{
	const struct strat_opts *o = c->o;
	int E = (int)o->epochs;
	clear_fatal(c);
	if (sg->cache) {
		c->cache = calloc(c->n ? c->n : 1, sizeof(*c->cache));
		if (!c->cache) {
			snprintf(err, errlen, "out of memory (the cache's index)");
			return -1;
		}
	}
	for (int w = 0; w < c->W; w++) {
		c->thr[w].fetch_ns = c->thr[w].suffix_ns = 0;
	}
	for (int e = 0; e < E; e++) {
		if (!o->warm && (!sg->cache || e == 0)) {
			if (st)
				store_drop_cache(st);
			else
				drop_dataset_pages(c);
		}
		for (int w = 0; w < c->W; w++) {
			c->thr[w].sum = 0;
			c->thr[w].nok = c->thr[w].nskip = 0;
		}
		int *got = calloc((size_t)o->batch, sizeof(int));
		if (!got) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		uint64_t t0 = clock_now_ns();
		for (size_t b = c->sched.epoch_first[e]; b < c->sched.epoch_first[e + 1]; b++) {
			const struct sched_batch *sb = &c->sched.b[b];
			const uint64_t *idx = c->sched.idx + sb->first;
			int nb = (int)sb->n;
#pragma omp parallel for num_threads(c->W) schedule(dynamic, 1)
			for (int k = 0; k < nb; k++) {
				struct thr *t = &c->thr[omp_get_thread_num()];
				if (has_fatal(c)) {
					got[k] = -1;
					continue;
				}
				got[k] = online_sample(c, sg, st, t, &c->smp[k], (size_t)idx[k], e);
				if (got[k] > 0)
					t->nok++;
				else if (got[k] == 0)
					t->nskip++;
			}
			if (has_fatal(c))
				break;
			size_t nok = 0;
			for (int k = 0; k < nb; k++)
				if (got[k] > 0)
					c->ok[nok++] = &c->smp[k];
			char why[512];
			if (collate(c, nok, why, sizeof(why))) {
				char msg[600];
				snprintf(msg, sizeof(msg), "collate: %s", why);
				set_fatal(c, msg);
				break;
			}
		}
		uint64_t t1 = clock_now_ns();
		free(got);
		if (has_fatal(c)) {
			snprintf(err, errlen, "%s", c->fatal);
			return -1;
		}
		uint64_t sum = 0;
		size_t nok = 0, nskip = 0;
		for (int w = 0; w < c->W; w++) {
			sum += c->thr[w].sum;
			nok += c->thr[w].nok;
			nskip += c->thr[w].nskip;
		}
		double s = (double)(t1 - t0) / 1e9;
		size_t at = (size_t)r * (size_t)E + (size_t)e;
		sg->ips[at] = s > 0 ? (double)nok / s : 0;
		sg->sum[at] = sum;
		sg->images[at] = nok;
		sg->skipped = nskip;
		sg->delivered += nok + nskip;
	}
	for (int w = 0; w < c->W; w++) {
		sg->fetch_ns += c->thr[w].fetch_ns;
		sg->suffix_ns += c->thr[w].suffix_ns;
	}
	if (sg->cache && r == 0)
		for (size_t i = 0; i < c->n; i++)
			sg->cache_bytes += c->cache[i].rec.bytes;
	return 0;
}

/* The repeats of strategy sg, each from a cold start (the +cache ones
 * refill their cache), inside one noise window; --require-idle waits
 * before them. */
static int online_repeats(struct ctx *c, struct strategy *sg, const struct store *st,
			  char *err, size_t errlen)
{
	struct noise_snap a, b;
	if (noise_require_idle(c->o->require_idle, noise_idle_wait_s(), &c->cpus, err, errlen)) {
		c->idle_refused = 1;
		return -1;
	}
	noise_read(&a, &c->cpus);
	for (int r = 0; r < (int)c->o->repeat; r++) {
		int rc = online(c, sg, st, r, err, errlen);
		free_cache(c);
		if (rc)
			return -1;
	}
	noise_read(&b, &c->cpus);
	noise_between(&a, &b, &c->cpus, &sg->noise);
	return 0;
}

/* ---- strategies ------------------------------------------------------------------*/

static struct strategy *add_strategy(struct ctx *c, int split, int format, int cache, int files)
{
	struct strategy *sg = &c->st[c->nst++];
	memset(sg, 0, sizeof(*sg));
	sg->split = split;
	sg->format = format;
	sg->cache = cache;
	sg->files = files;
	sg->tensors = -1;
	char name[sizeof(sg->name)];
	snprintf(name, sizeof(name), "%s/%s%s", c->split[split].name,
		 store_format_name((enum store_format)format), cache ? "+cache" : "");
	memcpy(sg->name, name, sizeof(name));
	size_t E = (size_t)c->o->epochs, R = (size_t)c->o->repeat;
	sg->ips = calloc(R * E, sizeof(double));
	sg->sum = calloc(R * E, sizeof(uint64_t));
	sg->images = calloc(R * E, sizeof(size_t));
	sg->steady_r = calloc(R, sizeof(double));
	sg->score_r = calloc(R, sizeof(double));
	if (!sg->ips || !sg->sum || !sg->images || !sg->steady_r || !sg->score_r)
		die("out of memory");
	return sg;
}

/* The images/s of epoch e over the repeats. */
static void epoch_summary(const struct ctx *c, const struct strategy *sg, int e,
			  struct stats_summary *out)
{
	int E = (int)c->o->epochs, R = (int)c->o->repeat;
	double v[1000];   /* --repeat is at most 1000 */
	for (int r = 0; r < R; r++)
		v[r] = sg->ips[r * E + e];
	if (stats_summarise(v, (size_t)R, STATS_CI_LEVEL, out))
		die("out of memory");
}

static void finish_strategy(struct ctx *c, struct strategy *sg)
{
	int E = (int)c->o->epochs, R = (int)c->o->repeat;
	double mean[1000];
	for (int r = 0; r < R; r++) {
		const double *ips = sg->ips + (size_t)r * (size_t)E;
		double sum = 0, steady = 0;
		for (int e = 0; e < E; e++) {
			sum += ips[e];
			if (e > 0)
				steady += ips[e];
		}
		mean[r] = sum / E;
		sg->steady_r[r] = E > 1 ? steady / (E - 1) : ips[0];
	}
	struct stats_summary m;
	if (stats_summarise(mean, (size_t)R, STATS_CI_LEVEL, &m) ||
	    stats_summarise(sg->steady_r, (size_t)R, STATS_CI_LEVEL, &sg->sp_steady))
		die("out of memory");
	sg->mean_ips = m.median;
	sg->steady_ips = sg->sp_steady.median;
	sg->ran = 1;
	if (!c->o->checksum) {
		sg->tensors = -1;
		return;
	}
	/* every repeat of every strategy: the full pipeline's first repeat */
	const struct strategy *base = &c->st[0];
	sg->tensors = 1;
	for (int k = 0; k < R * E; k++)
		if (sg->sum[k] != base->sum[k % E] || sg->images[k] != base->images[k % E])
			sg->tensors = 0;
}

static void progress(const struct ctx *c, const struct strategy *sg)
{
	char eps[256] = "";
	for (int e = 0; e < (int)c->o->epochs; e++) {
		struct stats_summary s;
		epoch_summary(c, sg, e, &s);
		snprintf(eps + strlen(eps), sizeof(eps) - strlen(eps), "%s%.0f", e ? " " : "",
			 s.median);
	}
	info("strategies: %-22s offline %6.2f s  storage %8.1f MB  images/s %s%s", sg->name,
	     sg->offline_s, (double)sg->storage_bytes / 1e6, eps,
	     sg->tensors == 0 ? "  OTHER TENSORS than the full pipeline" : "");
}

/* The cache holds the split's output; refuse one that would not fit. */
static int cache_fits(const struct ctx *c, uint64_t need, char *why, size_t n)
{
	uint64_t avail = machine_memory_available();
	if (avail && need > avail / 2) {
		snprintf(why, n, "needs %.0f MB, over half of the %.0f MB available", need / 1e6,
			 avail / 1e6);
		return 0;
	}
	(void)c;
	return 1;
}

/* One split: its formats (and the cache after raw), each store removed
 * once measured unless --keep. -1 if a strategy failed. */
static int run_split(struct ctx *c, int si)
{
	const struct split *sp = &c->split[si];
	char err[1024], dir[PATH_MAX + 200], why[200];
	int failed = 0;

	for (int f = 0; f < STORE_NFORMATS && !stop_signal && !c->idle_refused; f++) {
		int baseline = si == 0 && f == STORE_RAW;
		if (!c->want_format[f] && !baseline)
			continue;
		int files = sp->kind == PIX_NONE && f == STORE_RAW;
		if (sp->kind == PIX_NONE && f != STORE_RAW && !sp->from_memory) {
			info("strategies: %s/%s left out: the first op after the split does not read "
			     "the file (only the decode op can start from bytes in memory)", sp->name,
			     store_format_name((enum store_format)f));
			continue;
		}
		struct strategy *sg = add_strategy(c, si, f, 0, files);
		struct store st;
		int have_store = 0;
		memset(&st, 0, sizeof(st));
		snprintf(dir, sizeof(dir), "%s/%s-%s", c->store_root, sp->name,
			 store_format_name((enum store_format)f));
		if (!c->o->warm)
			drop_dataset_pages(c);
		uint64_t t0 = clock_now_ns();
		if (files) {
			/* the dataset's own files: nothing to store; a prefix of
			 * passthrough ops is still run once on every sample */
			if (sp->k > 0) {
#pragma omp parallel for num_threads(c->T) schedule(static)
				for (size_t i = 0; i < c->n; i++) {
					struct thr *t = &c->thr[omp_get_thread_num()];
					uint64_t nb = 0;
					sample_init(c, &t->s, t, i);
					run_ops(c, &t->s, 0, sp->k, &nb);
				}
			}
			sg->storage_bytes = c->orig_bytes;
		} else {
			if (offline(c, sp, (enum store_format)f, dir, &st, err, sizeof(err))) {
				error_msg("strategy %s: %s", sg->name, err);
				failed = 1;
				store_remove(dir, err, sizeof(err));
				continue;
			}
			sg->storage_bytes = st.stored_bytes;
		}
		sg->offline_s = (double)(clock_now_ns() - t0) / 1e9;
		if (!files) {
			if (store_open(&st, dir, err, sizeof(err))) {
				error_msg("strategy %s: %s", sg->name, err);
				failed = 1;
				goto remove;
			}
			have_store = 1;
		}
		if (online_repeats(c, sg, have_store ? &st : NULL, err, sizeof(err))) {
			error_msg("strategy %s: %s", sg->name, err);
			failed = 1;
			goto remove;
		}
		finish_strategy(c, sg);
		progress(c, sg);
		if (sg->tensors == 0)
			failed = 1;

		if (f == STORE_RAW && c->o->cache && (files ? sp->from_memory || sp->kind != PIX_NONE : 1)) {
			uint64_t need = files ? c->orig_bytes : st.payload_bytes;
			struct strategy *cg = add_strategy(c, si, f, 1, files);
			cg->offline_s = sg->offline_s;
			cg->storage_bytes = sg->storage_bytes;
			if (!cache_fits(c, need, why, sizeof(why))) {
				info("strategies: %s left out: the cache %s", cg->name, why);
				c->nst--;
			} else if (online_repeats(c, cg, have_store ? &st : NULL, err, sizeof(err))) {
				error_msg("strategy %s: %s", cg->name, err);
				failed = 1;
			} else {
				finish_strategy(c, cg);
				progress(c, cg);
				if (cg->tensors == 0)
					failed = 1;
			}
			free_cache(c);
		}
remove:
		if (have_store)
			store_close(&st);
		if (!files && !c->o->keep && store_remove(dir, err, sizeof(err)))
			warn_msg("%s", err);
	}
	return failed ? -1 : 0;
}

/* ---- ranking (PRESTO's weighted objective) ---------------------------------------*/

/* min-max normalisation over the strategies measured, as PRESTO's
 * StrategyAnalysis.normalized_summary; higher is better. A measure whose
 * values are all equal counts 1 for every strategy. */
static double norm(double v, double lo, double hi, int smaller_is_better)
{
	if (!(hi > lo))
		return 1;
	double x = (v - lo) / (hi - lo);
	return smaller_is_better ? 1 - x : x;
}

/* PRESTO's score of each strategy in each repeat (the throughput
 * normalised over that repeat's strategies; storage and offline time are
 * measured once), its median and spread, then the ranks with ties within
 * noise (strategies_rank). */
static void rank_strategies(struct ctx *c)
{
	double wt = c->o->weight, wp = c->o->offline_weight, ws = 1 - wt - wp;
	double slo = INFINITY, shi = -INFINITY, plo = INFINITY, phi = -INFINITY;
	int R = (int)c->o->repeat;
	for (int i = 0; i < c->nst; i++) {
		const struct strategy *s = &c->st[i];
		if (!s->ran)
			continue;
		slo = fmin(slo, (double)s->storage_bytes);
		shi = fmax(shi, (double)s->storage_bytes);
		plo = fmin(plo, s->offline_s);
		phi = fmax(phi, s->offline_s);
	}
	for (int r = 0; r < R; r++) {
		double tlo = INFINITY, thi = -INFINITY;
		for (int i = 0; i < c->nst; i++)
			if (c->st[i].ran) {
				tlo = fmin(tlo, c->st[i].steady_r[r]);
				thi = fmax(thi, c->st[i].steady_r[r]);
			}
		for (int i = 0; i < c->nst; i++) {
			struct strategy *s = &c->st[i];
			if (s->ran)
				s->score_r[r] = wt * norm(s->steady_r[r], tlo, thi, 0) +
						ws * norm((double)s->storage_bytes, slo, shi, 1) +
						wp * norm(s->offline_s, plo, phi, 1);
		}
	}
	struct stats_summary score[sizeof(c->st) / sizeof(c->st[0])];
	int valid[sizeof(c->st) / sizeof(c->st[0])], rank[sizeof(c->st) / sizeof(c->st[0])];
	int tied[sizeof(c->st) / sizeof(c->st[0])];
	for (int i = 0; i < c->nst; i++) {
		struct strategy *s = &c->st[i];
		valid[i] = s->ran;
		memset(&score[i], 0, sizeof(score[i]));
		if (s->ran && stats_summarise(s->score_r, (size_t)R, STATS_CI_LEVEL, &s->sp_score))
			die("out of memory");
		if (s->ran) {
			score[i] = s->sp_score;
			s->score = s->sp_score.median;
		}
	}
	strategies_rank(score, valid, c->nst, rank, tied);
	for (int i = 0; i < c->nst; i++) {
		c->st[i].rank = rank[i];
		c->st[i].tied = tied[i];
	}
}

static void formula(const struct ctx *c, char *out, size_t n)
{
	double wt = c->o->weight, wp = c->o->offline_weight, ws = 1 - wt - wp;
	snprintf(out, n,
		 "score = %.2f x T + %.2f x S + %.2f x P, PRESTO's weighted objective "
		 "(StrategyAnalysis.weighted_summary): T = (thr - min) / (max - min) of the "
		 "steady images/s, S = (max - storage) / (max - min) of the bytes on storage, "
		 "P = (max - offline) / (max - min) of the offline seconds, min and max over the "
		 "strategies measured (a measure equal for all counts 1), per repeat; the score is "
		 "the median over the repeats, and a strategy's rank is 1 + the strategies whose "
		 "score is higher beyond noise (intervals apart), so strategies within noise of "
		 "each other share a rank (=)", wt, ws, wp);
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

	fprintf(f, "# PRESTO's preprocessing strategies: %s on %zu images (%.1f MB) of %s\n\n",
		c->pipe.name, c->n, c->orig_bytes / 1e6, c->ds.root);
	fprintf(f, "- offline: the ops before the split run once on every sample, %d OpenMP "
		"thread%s each writing its own shard, the files fsync'ed; the time includes "
		"reading the dataset (%s)\n", c->T, c->T == 1 ? "" : "s",
		o->warm ? "page cache kept" : "its pages dropped first");
	fprintf(f, "- online: %d epoch%s of %zu samples, %ld thread%s (OpenMP%s), batches of "
		"%ld%s; each epoch reads the stored sample, decompresses it, runs the ops after "
		"the split (random draws seeded per sample as in `ppbench run`) and collates; "
		"%s\n", E, E == 1 ? "" : "s", c->n, o->workers, o->workers == 1 ? "" : "s",
		o->workers == 1 ? "; one process, no worker" : "", o->batch,
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
			epoch_summary(c, s, e, &es);
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
	formula(c, fm, sizeof(fm));
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
		fprintf(f, "%s,%s,%d,%s,%d,%.6f,%" PRIu64 ",%.6f", s->name,
			c->split[s->split].name, c->split[s->split].k,
			store_format_name((enum store_format)s->format), s->cache, s->offline_s,
			s->storage_bytes, c->orig_bytes ? (double)s->storage_bytes /
			(double)c->orig_bytes : 0.0);
		for (int e = 0; e < E; e++) {
			struct stats_summary es;   /* the median over the repeats */
			epoch_summary(c, s, e, &es);
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
		fprintf(f, ",%.6f,%d,%d,%s", s->score, s->rank, series_of(s), series_label(s));
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
	json_t *d = json_object();
	json_object_set_new(d, "path", json_string(c->ds.root));
	json_object_set_new(d, "images", json_integer((json_int_t)c->n));
	json_object_set_new(d, "bytes", json_integer((json_int_t)c->orig_bytes));
	json_object_set_new(j, "dataset", d);
	json_object_set_new(j, "offline_threads", json_integer(c->T));
	json_object_set_new(j, "online_threads", json_integer(c->W));
	json_object_set_new(j, "cold", json_boolean(!c->o->warm));
	store_format_library(STORE_ZSTD, lib, sizeof(lib));
	json_object_set_new(j, "zstd", json_string(lib));
	store_format_library(STORE_LZ4, lib, sizeof(lib));
	json_object_set_new(j, "lz4", json_string(lib));
	formula(c, fm, sizeof(fm));
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
				epoch_summary(c, s, e, &es);
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

	if (report_find_top(top, sizeof(top)))
		return -1;
	return plot_run(top, "strategies.gp", args, log, why, sizeof(why));
}

/* ---- the command ----------------------------------------------------------------*/

static void ctx_free(struct ctx *c)
{
	int nt = c->W > c->T ? c->W : c->T;
	if (c->thr)
		for (int i = 0; i < nt; i++) {
			scratch_release(&c->thr[i].scr);
			store_io_release(&c->thr[i].io);
			sample_release(&c->thr[i].s);
		}
	free(c->thr);
	if (c->smp)
		for (long i = 0; i < c->o->batch; i++)
			sample_release(&c->smp[i]);
	free(c->smp);
	free(c->ok);
	buf_free(&c->batch);
	free_cache(c);
	for (int i = 0; i < c->nst; i++) {
		free(c->st[i].ips);
		free(c->st[i].sum);
		free(c->st[i].images);
		free(c->st[i].steady_r);
		free(c->st[i].score_r);
	}
	schedule_free(&c->sched);
	pipeline_release(&c->pipe);
	dataset_release(&c->ds);
}

int cmd_strategies(int argc, char **argv)
{
	struct strat_opts o;
	char err[1024], tag[128], tmp[PATH_MAX], name[256], final[PATH_MAX];
	char data_path[PATH_MAX];
	int npos = 0, rc = EXIT_USAGE, have_pipe = 0, have_data = 0, have_dir = 0, have_sig = 0;
	struct sigaction old_int, old_term;
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	if (opts_defaults(strat_opts_table, &o, err, sizeof(err)))
		die("%s", err);
	int pr = opts_parse(strat_opts_table, &o, argc, argv, 1, &npos, err, sizeof(err));
	if (pr == 1) {
		opts_help(strat_opts_table, stdout, usage, description);
		free(c);
		return EXIT_OK;
	}
	c->o = &o;
	if (pr) {
		error_msg("%s", err);
		goto out;
	}
	if (npos) {
		error_msg("strategies takes no arguments, got '%s'", argv[1]);
		goto out;
	}
	if (o.weight + o.offline_weight > 1 + 1e-9) {
		error_msg("--weight %g and --offline-weight %g add up to more than 1", o.weight,
		      o.offline_weight);
		goto out;
	}
	if (parse_formats(c, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	c->decode = op_find("decode");
	if (pipeline_load(&c->pipe, o.pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	have_pipe = 1;
	find_splits(c);
	if (parse_splits(c, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}

	rc = EXIT_FAIL;
	if (!o.data) {
		if (dataset_ensure_default(data_path, sizeof(data_path), err, sizeof(err))) {
			error_msg("%s", err);
			goto out;
		}
		o.data = data_path;
	}
	if (dataset_scan(&c->ds, o.data, err, sizeof(err))) {
		error_msg("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	have_data = 1;
	c->n = o.images && (size_t)o.images < c->ds.n ? (size_t)o.images : c->ds.n;
	for (size_t i = 0; i < c->n; i++)
		c->orig_bytes += c->ds.items[i].bytes;
	if (schedule_build(&c->sched, c->n, (size_t)o.batch, (int)o.epochs, o.shuffle, 0, o.seed,
			   0, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	c->W = (int)o.workers;
	c->T = o.offline_threads ? (int)o.offline_threads : omp_get_num_procs();
	int nt = c->W > c->T ? c->W : c->T;
	c->thr = calloc((size_t)nt, sizeof(*c->thr));
	c->smp = calloc((size_t)o.batch, sizeof(*c->smp));
	c->ok = calloc((size_t)o.batch, sizeof(*c->ok));
	if (!c->thr || !c->smp || !c->ok) {
		error_msg("out of memory");
		goto out;
	}
	for (int i = 0; i < nt; i++)
		rng_seed(&c->thr[i].rng, o.seed);

	if (!o.tag) {
		snprintf(tag, sizeof(tag), "strategies-%s", c->pipe.name);
		o.tag = tag;
	}
	if (results_dir_begin(o.out, o.tag, tmp, sizeof(tmp), name, sizeof(name), err,
			      sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	have_dir = 1;
	if (o.store) {
		snprintf(c->store_root, sizeof(c->store_root), "%s", o.store);
		if (mkdir_p(c->store_root, 0777)) {
			error_msg("cannot create '%s': %s", c->store_root, strerror(errno));
			goto out;
		}
	} else {
		snprintf(c->store_root, sizeof(c->store_root), "%.4000s/store", tmp);
		if (mkdir(c->store_root, 0777)) {
			error_msg("cannot create '%s': %s", c->store_root, strerror(errno));
			goto out;
		}
		c->made_store_root = 1;
	}
	info("strategies: %s on %zu images of %s, %d split%s, %ld epoch%s each; stores in %s",
	     c->pipe.name, c->n, c->ds.root, c->nsplits, c->nsplits == 1 ? "" : "s", o.epochs,
	     o.epochs == 1 ? "" : "s", c->store_root);

	int failed = 0;
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	have_sig = 1;
	cpus_read(&c->cpus);
	if (noise_require_idle(o.require_idle, noise_idle_wait_s(), &c->cpus, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	struct noise_snap n0, n1;
	noise_read(&n0, &c->cpus);
	for (int si = 0; si < c->nsplits && !stop_signal && !c->idle_refused; si++) {
		if (!c->want_split[si])
			continue;
		if (run_split(c, si))
			failed = 1;
		if (si == 0 && (c->nst == 0 || !c->st[0].ran) && !stop_signal) {
			error_msg("the full pipeline (none/raw) failed: nothing to compare with");
			goto out;
		}
	}
	if (stop_signal)
		goto out;
	noise_read(&n1, &c->cpus);
	noise_between(&n0, &n1, &c->cpus, &c->noise);
	noise_warn(&c->noise, "the strategies' measurements");
	if (c->idle_refused)
		warn_msg("--require-idle: the strategies measured before the machine got busy are kept");
	if (c->made_store_root && !o.keep)
		rmdir(c->store_root);
	rank_strategies(c);

	char path[PATH_MAX + 64], fig[PATH_MAX + 64], log[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%.4000s/strategies.csv", tmp);
	if (write_csv(c, path, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	snprintf(path, sizeof(path), "%.4000s/strategies.json", tmp);
	if (write_json(c, path, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	if (o.plot) {
		char title[512];
		snprintf(fig, sizeof(fig), "%.4000s/figures", tmp);
		snprintf(log, sizeof(log), "%.4000s/figures/gnuplot.log", tmp);
		snprintf(path, sizeof(path), "%.4000s/strategies.csv", tmp);
		snprintf(title, sizeof(title), "PRESTO's strategies: %s, %zu images, %ld epochs, "
			 "%ld thread%s, %s", c->pipe.name, c->n, o.epochs, o.workers,
			 o.workers == 1 ? "" : "s", o.warm ? "warm" : "cold page cache");
		if (mkdir(fig, 0777) && errno != EEXIST)
			warn_msg("cannot create '%s': %s", fig, strerror(errno));
		else {
			snprintf(fig, sizeof(fig), "%.4000s/figures/strategies", tmp);
			if (draw(path, fig, title, log))
				warn_msg("figure not drawn (gnuplot or plots/strategies.gp missing? see %s)",
				     log);
		}
	}
	snprintf(path, sizeof(path), "%.4000s/strategies.md", tmp);
	FILE *md = fopen(path, "w");
	if (md) {
		print_table(md, c, NULL);
		if (ferror(md) | fclose(md))
			md = NULL;
	}
	if (!md) {
		error_msg("cannot write '%s'", path);
		goto out;
	}
	if (results_dir_commit(o.out, tmp, name, final, sizeof(final), err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	have_dir = 0;
	print_table(stdout, c, final);
	rc = failed ? EXIT_FAIL : EXIT_OK;
out:
	if (have_sig) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		if (stop_signal)
			rc = 128 + stop_signal;
	}
	if (have_dir) {
		/* a failed run: remove the stores; the folder stays with what it has */
		if (c->made_store_root && !o.keep) {
			for (int si = 0; si < c->nsplits; si++)
				for (int f = 0; f < STORE_NFORMATS; f++) {
					char dir[PATH_MAX + 200];
					snprintf(dir, sizeof(dir), "%s/%s-%s", c->store_root,
						 c->split[si].name,
						 store_format_name((enum store_format)f));
					store_remove(dir, err, sizeof(err));
				}
			rmdir(c->store_root);
		}
		rmdir(tmp);
	}
	(void)have_pipe;
	(void)have_data;
	ctx_free(c);
	free(c);
	return rc;
}
