#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sample.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* A pool buffer of at least n bytes, *cap set: whole pages; from 2 MiB
 * on, whole huge pages the kernel may back as such (transparent huge
 * pages, "madvise" mode): a large image's buffer then costs a fault per
 * 2 MiB when it is first written, not one per 4 KiB. NULL: out of memory. */
static void *pool_alloc(size_t n, size_t *cap)
{
	if (n < HUGE_PAGE || n > SIZE_MAX - HUGE_PAGE) {
		*cap = n > SIZE_MAX - 4095 ? n : (n + 4095) & ~(size_t)4095;
		return malloc(*cap);
	}
	void *p;
	*cap = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (posix_memalign(&p, HUGE_PAGE, *cap))
		return NULL;
	madvise(p, *cap, MADV_HUGEPAGE);   /* a hint: without it, small pages */
	return p;
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

/* buf_reserve of a pool's buffer (sample.h: struct buf_pool). */
static int pool_reserve(struct buf *b, size_t n)
{
	struct buf_pool *pl = b->pool;
	if (n > pl->hw)
		pl->hw = n;
	/* the smallest storage that fits: b's own (SIZE_MAX) or spare k's */
	size_t k = SIZE_MAX, best = SIZE_MAX;
	int fits = b->p && b->cap >= n;
	if (fits)
		best = b->cap;
	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].cap >= n && pl->v[i].cap < best) {
			best = pl->v[i].cap;
			k = i;
			fits = 1;
		}
	int room = pl->owned < pl->max;
	if (fits && !(room && best - n > n / 2)) {
		if (k != SIZE_MAX)
			pool_take(pl, k, b);
		return 0;
	}
	if (room) {
		size_t cap;
		void *p = pool_alloc(n, &cap);
		if (!p)
			return -1;
		pool_put(pl, b);
		b->p = p;
		b->cap = cap;
		pl->owned++;
		pl->allocs++;
		return 0;
	}
	/* every buffer exists and none fits: grow the largest to the largest
	 * size asked for yet, so that it fits every image seen so far */
	size_t big = SIZE_MAX, bigcap = b->p ? b->cap : 0;
	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].cap > bigcap) {
			bigcap = pl->v[i].cap;
			big = i;
		}
	if (big != SIZE_MAX)
		pool_take(pl, big, b);
	if (b->p) {
		free(b->p);
		pl->owned--;
	}
	b->p = pool_alloc(pl->hw, &b->cap);
	if (!b->p) {
		b->cap = 0;
		return -1;
	}
	pl->owned++;
	pl->regrows++;
	return 0;
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
	/* the samples, tmp, and a few of the ops' sizes (decode, crop, flip) */
	size_t max = samples + 8;
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
