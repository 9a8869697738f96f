/* ppbench strategies' execution engine (strategies_engine.h): the splits
 * of a pipeline, the offline pass that materialises a split's output into a
 * store, the online epochs that read it back and run the rest of the ops,
 * and the in-memory cache; every strategy's measurements into struct
 * strategy. The command (options, output) is bench/studies/cmd_strategies.c,
 * PRESTO's ranking bench/studies/strategies_rank.c. */
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
#include "conventions.h"
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
#include "stopsig.h"
#include "store.h"
#include "strategies.h"
#include "fsutil.h"
#include "plot.h"
#include "strategies_engine.h"

static void set_fatal(struct ctx *c, const char *msg)
{
#pragma omp critical(strat_fatal)
	{
		if (!c->fatal[0])
			snprintf(c->fatal, sizeof(c->fatal), "%s", msg);
	}
	__atomic_store_n(&c->fatal_set, 1, __ATOMIC_RELEASE);
}


static int has_fatal(struct ctx *c)
{
	if (stop_signal() && !__atomic_load_n(&c->fatal_set, __ATOMIC_ACQUIRE))
		set_fatal(c, stop_signal() == SIGINT ? "interrupted" : "terminated");
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
void strat_find_splits(struct ctx *c)
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

int strat_parse_splits(struct ctx *c, char *err, size_t errlen)
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

int strat_parse_formats(struct ctx *c, char *err, size_t errlen)
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
	if (store_create(st, dir, f, (int)c->o->zstd_level, c->n, c->threads, err, errlen))
		return -1;
	clear_fatal(c);
#pragma omp parallel num_threads(c->threads)
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
	for (int w = 0; w < c->workers; w++) {
		c->thr[w].fetch_ns = c->thr[w].suffix_ns = 0;
	}
	for (int e = 0; e < E; e++) {
		if (!o->warm && (!sg->cache || e == 0)) {
			if (st)
				store_drop_cache(st);
			else
				drop_dataset_pages(c);
		}
		for (int w = 0; w < c->workers; w++) {
			c->thr[w].sum = 0;
			c->thr[w].nok = c->thr[w].nskip = 0;
		}
		int *got = calloc((size_t)o->batch_size, sizeof(int));
		if (!got) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		uint64_t t0 = clock_now_ns();
		for (size_t b = c->sched.epoch_first[e]; b < c->sched.epoch_first[e + 1]; b++) {
			const struct sched_batch *sb = &c->sched.b[b];
			const uint64_t *idx = c->sched.idx + sb->first;
			int nb = (int)sb->n;
#pragma omp parallel for num_threads(c->workers) schedule(dynamic, 1)
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
		for (int w = 0; w < c->workers; w++) {
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
	for (int w = 0; w < c->workers; w++) {
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
void strat_epoch_summary(const struct ctx *c, const struct strategy *sg, int e,
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
		strat_epoch_summary(c, sg, e, &s);
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
int strat_run_split(struct ctx *c, int si)
{
	const struct split *sp = &c->split[si];
	char err[1024], dir[PATH_MAX + 200], why[200];
	int failed = 0;

	for (int f = 0; f < STORE_NFORMATS && !stop_signal() && !c->idle_refused; f++) {
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
#pragma omp parallel for num_threads(c->threads) schedule(static)
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

void strat_ctx_free(struct ctx *c)
{
	int nt = c->workers > c->threads ? c->workers : c->threads;
	if (c->thr)
		for (int i = 0; i < nt; i++) {
			scratch_release(&c->thr[i].scr);
			store_io_release(&c->thr[i].io);
			sample_release(&c->thr[i].s);
		}
	free(c->thr);
	if (c->smp)
		for (long i = 0; i < c->o->batch_size; i++)
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
