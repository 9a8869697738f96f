/* collate: torch default_collate of (tensor, int) samples: images stacked
 * into [n, 3, h, w] float32, then labels as int64, in one buffer. */
#include <string.h>
#include "op.h"

static size_t collate_bytes(const void *cfg, size_t n, int h, int w)
{
	(void)cfg;
	return n * 3 * (size_t)h * (size_t)w * sizeof(float) + n * sizeof(int64_t);
}

static int collate_run(const void *cfg, struct sample *const *smp, size_t n,
		       struct batch_out *out, char *err, size_t errlen)
{
	if (n == 0) {
		out->image_bytes = 0;
		out->h = out->w = 0;
		return 0;
	}
	int h = smp[0]->h, w = smp[0]->w;
	for (size_t i = 1; i < n; i++)
		if (smp[i]->h != h || smp[i]->w != w) {
			/* torch.stack's error, in our words */
			snprintf(err, errlen,
				 "stack expects each tensor to be equal size, but got [3, %d, %d] at "
				 "entry 0 and [3, %d, %d] at entry %zu",
				 h, w, smp[i]->h, smp[i]->w, i);
			return -1;
		}
	size_t one = 3 * (size_t)h * (size_t)w * sizeof(float);
	if (collate_bytes(cfg, n, h, w) > out->capacity) {
		snprintf(err, errlen, "batch of %zu samples of 3x%dx%d needs %zu bytes, slot has %zu",
			 n, h, w, collate_bytes(cfg, n, h, w), out->capacity);
		return -1;
	}
	char *dst = out->mem;
	for (size_t i = 0; i < n; i++)
		memcpy(dst + i * one, smp[i]->data.p, one);
	int64_t *labels = (int64_t *)(dst + n * one);
	for (size_t i = 0; i < n; i++)
		labels[i] = smp[i]->label;
	out->image_bytes = n * one;
	out->h = h;
	out->w = w;
	return 0;
}

const struct op_ops op_collate = {
	.version = OP_ABI_VERSION,
	.name = "collate",
	.lotus_name = "SCollation",
	.what = "stack the batch into [B, 3, H, W] float32 plus int64 labels",
	.flags = OP_BATCH,
	.in = PIX_F32_CHW,
	.out = PIX_F32_CHW,
	.run_batch = collate_run,
	.batch_bytes = collate_bytes,
};
