/* A sample on its way through a pipeline, and the buffers it uses. */
#ifndef PPBENCH_SAMPLE_H
#define PPBENCH_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

struct rng;

/* A grow-only heap buffer. Ops reuse it from sample to sample, so after the
 * first few images no op allocates. */
struct buf_pool;
struct buf {
	void *p;      /* NULL until first reserve */
	size_t cap;   /* bytes allocated */
	/* NULL: the buffer grows on its own. Else it belongs to the worker's
	 * pool of sample buffers (struct buf_pool): a reserve takes the
	 * storage that fits best from the pool and gives its own back. Only
	 * p and cap move (buf_swap); pool stays with the slot. */
	struct buf_pool *pool;
};

/* The storage of a worker's sample buffers (its samples' data and the
 * scratch tmp of the ops): buffers come back when a sample is set up for
 * the next image (its data was collated) or when an op takes another, and
 * a reserve takes the smallest one that fits, unless that one is more than
 * 1.5 times the need and the pool has not made most of its `max` buffers:
 * then a new one is made. When none fits, a new one is made while fewer
 * than `max` exist, else the smallest one is made anew (twice the need
 * when the need is the largest yet). So a buffer
 * that grew for a large decode stays with decode, samples keep buffers the
 * size of their tensors, and after the first batch little is allocated
 * (at most `max` buffers in all) and nothing freed and faulted in again
 * (glibc serves these sizes by mmap: a freed buffer's pages go back to the
 * kernel and a new one is faulted in anew). */
struct buf_pool {
	struct buf_slot { void *p; size_t cap; } *v;   /* [max] spare storage */
	size_t n;          /* spares held */
	size_t max;        /* most buffers of the pool (held by samples, tmp or spare) */
	size_t owned;      /* buffers of the pool that exist */
	size_t hw;         /* the largest size asked for yet */
	uint64_t allocs;   /* new buffers made */
	uint64_t regrows;  /* buffers freed and made anew at another size */
};

/* Make b hold at least n bytes (contents are not kept). 0, or -1 on ENOMEM. */
int buf_reserve(struct buf *b, size_t n);
void buf_free(struct buf *b);
static inline void buf_swap(struct buf *a, struct buf *b)
{
	void *p = a->p;
	size_t cap = a->cap;
	a->p = b->p;
	a->cap = b->cap;
	b->p = p;
	b->cap = cap;
}

/* What the current data of a sample is. */
enum pix_kind {
	PIX_NONE = 0,     /* nothing decoded yet: only the path */
	PIX_U8_HWC,       /* uint8 RGB, h x w x 3, row-major (Pillow "RGB") */
	PIX_F32_CHW,      /* float32, 3 x h x w (a torch tensor) */
};

/* Random choices forced from outside (ppbench apply), instead of drawn. */
struct fixed_choice {
	int has_crop;          /* 1: random_resized_crop uses crop[] */
	int crop[4];           /* top, left, height, width (torchvision i, j, h, w) */
	int flip;              /* -1: draw; 0: never; 1: always */
};

/* Scratch memory owned by one worker and shared by the samples it processes
 * one after the other. */
struct scratch {
	struct buf file;       /* encoded file bytes */
	struct buf tmp;        /* an op's output before it becomes the sample's data */
	struct buf aux[3];     /* op-private scratch (coefficients, rows...) */
	struct buf_pool pool;  /* max 0: none (tmp and the samples' data grow alone) */
};

/* Give scr a pool of sample buffers for up to `samples` samples held at
 * once (a worker's batch) and its scratch: before the first sample, or the
 * existing buffers stay outside it. 0, or -1 out of memory. */
int scratch_pool_init(struct scratch *scr, size_t samples);

/* One sample. Its data lives in `data` (owned by the sample, so a batch of
 * samples can wait for collate); ops write into scr->tmp and swap it in with
 * sample_swap_tmp(), which moves pointers, never pixels. */
struct sample {
	const char *path;      /* file to read (decode op); not owned */
	int64_t label;         /* class index */
	uint64_t index;        /* index in the dataset */
	struct rng *rng;       /* this sample's random stream */
	const struct fixed_choice *fixed;  /* NULL, or forced choices */
	uint64_t max_pixels;   /* decode refuses images with more pixels (0: no limit) */
	uint64_t max_file_bytes;  /* decode refuses larger files before reading (0: no limit) */

	enum pix_kind kind;
	int h, w;              /* size of the current data; channels are always 3 */
	struct buf data;       /* the current data */
	struct scratch *scr;   /* the worker's scratch, not owned */

	char err[256];         /* the reason of the last failed op */
	int oom;               /* 1: it failed for want of memory (err begins SAMPLE_OOM) */
};

/* Bytes of the current data. */
size_t sample_bytes(const struct sample *s);

/* Set s up for one image of a dataset before its first op: the file, its
 * label and index, its random stream, the worker's scratch and decode's
 * limits; no forced choices, no data yet, no error. The one place a sample
 * is started. s->data keeps its buffer for the next image, or, when scr has
 * a pool, gives it back to the pool (its data must be dead: collated). */
void sample_setup(struct sample *s, const char *path, int64_t label, uint64_t index,
		  struct rng *rng, struct scratch *scr, uint64_t max_pixels,
		  uint64_t max_file_bytes);

/* Make scr->tmp the sample's data (the old data becomes tmp). */
static inline void sample_swap_tmp(struct sample *s)
{
	buf_swap(&s->data, &s->scr->tmp);
}

/* Set s->err from a printf format; always returns -1 so ops can
 * `return sample_fail(s, ...)`. A reason that begins with SAMPLE_OOM
 * ("out of memory ...", as every op and decoder words it) also sets s->oom:
 * the machine, not the file, failed, so the run fails (as PyTorch's
 * MemoryError ends a DataLoader) and the file is never counted skipped. */
#define SAMPLE_OOM "out of memory"
int sample_fail(struct sample *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void sample_release(struct sample *s);
void scratch_release(struct scratch *scr);

#endif
