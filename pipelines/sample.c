#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sample.h"

int buf_reserve(struct buf *b, size_t n)
{
	if (n <= b->cap)
		return 0;
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
	free(b->p);
	b->p = NULL;
	b->cap = 0;
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
}
