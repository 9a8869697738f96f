#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sample.h"

/* A pool buffer of at least n bytes, *cap set: whole pages. NULL: out of
 * memory. (Transparent huge pages were tried for the large ones: fewer
 * faults, but the kernel's compaction and 2 MiB clears cost this VM's
 * workers three times the system time.) */
static void *pool_alloc(size_t n, size_t *cap)
{
	*cap = n > SIZE_MAX - 4095 ? n : (n + 4095) & ~(size_t)4095;
	return malloc(*cap);
}

/* b's storage to the pool's spares (freed if they are full); b is empty. */
static void pool_put(struct buf_pool *pl, struct buf *b)
{
	if (b->p && pl->n < pl->max) {
		pl->v[pl->n].p = b->p;
		pl->v[pl->n++].cap = b->cap;
	} else if (b->p) {
		free(b->p);
		pl->owned--;
	}
	b->p = NULL;
	b->cap = 0;
}

/* Spare k's storage to b, b's own (if any) to the spares in its place. */
static void pool_take(struct buf_pool *pl, size_t k, struct buf *b)
{
	struct buf_slot t = pl->v[k];
	if (b->p) {
		pl->v[k].p = b->p;
		pl->v[k].cap = b->cap;
	} else {
		pl->v[k] = pl->v[--pl->n];
	}
	b->p = t.p;
	b->cap = t.cap;
}

/* b's storage becomes a new buffer of n bytes (twice that for the
 * largest size asked for yet: a run of ever larger images grows it a few
 * times only). 0, or -1 out of memory (b unchanged). */
static int pool_new(struct buf_pool *pl, struct buf *b, size_t n, int record)
{
	size_t cap;
	void *p = pool_alloc(record ? 2 * n : n, &cap);
	if (!p)
		return -1;
	if (b->p) {
		free(b->p);
		pl->owned--;
	}
	b->p = p;
	b->cap = cap;
	pl->owned++;
	return 0;
}

#define POOL_RESERVE 16

/* buf_reserve of a pool's buffer (sample.h: struct buf_pool). */
static int pool_reserve(struct buf *b, size_t n)
{
	struct buf_pool *pl = b->pool;
	int record = n > pl->hw;
	if (record)
		pl->hw = n;
	/* the smallest storage that fits (b's own: k = SIZE_MAX, or spare k's),
	 * and the smallest that does not (s, likewise; b's own: SIZE_MAX) */
	size_t k = SIZE_MAX, best = SIZE_MAX, sk = SIZE_MAX, small = SIZE_MAX;
	size_t largest = b->p ? b->cap : 0;
	int fits = 0, smalls = 0;
	if (b->p && b->cap >= n) {
		best = b->cap;
		fits = 1;
	} else if (b->p) {
		small = b->cap;
		smalls = 1;
	}
	for (size_t i = 0; i < pl->n; i++) {
		size_t c = pl->v[i].cap;
		if (c > largest)
			largest = c;
		if (c >= n && c < best) {
			best = c;
			k = i;
			fits = 1;
		} else if (c < n && c < small) {
			small = c;
			sk = i;
			smalls = 1;
		}
	}
	/* a fit more than 1.5 times the need is taken only once the pool has
	 * made a buffer per sample (the rest is kept for needs none fits), and
	 * the largest buffer not for a need under half the largest yet while
	 * another one can be made: a sample would keep it a batch long, and
	 * the next large decode would find none */
	int wasteful = fits && best - n > n / 2;
	int keep = best == largest && n < pl->hw / 2 && (smalls || pl->owned < pl->max);
	if (fits && (!wasteful || (pl->owned + POOL_RESERVE >= pl->max && !keep))) {
		if (k != SIZE_MAX)
			pool_take(pl, k, b);
		return 0;
	}
	if (pl->owned < pl->max) {
		/* a new buffer; b's storage, if any, to the spares */
		struct buf t = { 0 };
		if (pool_new(pl, &t, n, record))
			return -1;
		pool_put(pl, b);
		b->p = t.p;
		b->cap = t.cap;
		pl->allocs++;
		return 0;
	}
	if (smalls) {
		/* every buffer exists and none fits but the largest, or none
		 * fits: the smallest one is made anew */
		if (sk != SIZE_MAX)
			pool_take(pl, sk, b);
		pl->regrows++;
		return pool_new(pl, b, n, record);
	}
	pl->allocs++;   /* no storage at all (the samples hold every buffer) */
	return pool_new(pl, b, n, record);
}

int buf_reserve(struct buf *b, size_t n)
{
	if (n <= b->cap)
		return b->pool ? pool_reserve(b, n) : 0;
	if (b->pool)
		return pool_reserve(b, n);
	/* grow by 1.5x so a slowly rising image size does not realloc each time */
	size_t cap = b->cap + b->cap / 2;
	if (cap < n)
		cap = n;
	free(b->p);
	b->p = malloc(cap);
	if (!b->p) {
		b->cap = 0;
		return -1;
	}
	b->cap = cap;
	return 0;
}

void buf_free(struct buf *b)
{
	if (b->p && b->pool)
		b->pool->owned--;
	free(b->p);
	b->p = NULL;
	b->cap = 0;
}

int scratch_pool_init(struct scratch *scr, size_t samples)
{
	struct buf_pool *pl = &scr->pool;
	/* the samples, tmp, and the ops' other sizes (decode's, the crop's...) */
	size_t max = samples + 16;
	pl->v = calloc(max, sizeof(*pl->v));
	if (!pl->v)
		return -1;
	pl->max = max;
	scr->tmp.pool = pl;
	return 0;
}

void sample_setup(struct sample *s, const char *path, int64_t label, uint64_t index,
		  struct rng *rng, struct scratch *scr, uint64_t max_pixels,
		  uint64_t max_file_bytes)
{
	s->path = path;
	s->label = label;
	s->index = index;
	s->rng = rng;
	s->fixed = NULL;
	s->max_pixels = max_pixels;
	s->max_file_bytes = max_file_bytes;
	s->kind = PIX_NONE;
	s->h = s->w = 0;
	s->scr = scr;
	s->err[0] = 0;
	s->oom = 0;
	if (scr && scr->pool.max) {
		s->data.pool = &scr->pool;
		pool_put(&scr->pool, &s->data);
	}
}

size_t sample_bytes(const struct sample *s)
{
	size_t px = (size_t)s->h * (size_t)s->w * 3;
	switch (s->kind) {
	case PIX_U8_HWC:
		return px;
	case PIX_F32_CHW:
		return px * sizeof(float);
	default:
		return 0;
	}
}

int sample_fail(struct sample *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	s->oom = !strncmp(s->err, SAMPLE_OOM, sizeof(SAMPLE_OOM) - 1);
	return -1;
}

void sample_release(struct sample *s)
{
	buf_free(&s->data);
}

void scratch_release(struct scratch *scr)
{
	buf_free(&scr->file);
	buf_free(&scr->tmp);
	for (int i = 0; i < 3; i++)
		buf_free(&scr->aux[i]);
	for (size_t i = 0; i < scr->pool.n; i++)
		free(scr->pool.v[i].p);
	free(scr->pool.v);
	memset(&scr->pool, 0, sizeof(scr->pool));
	scr->tmp.pool = NULL;
}
