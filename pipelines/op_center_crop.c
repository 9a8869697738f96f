/* center_crop size=N: torchvision F.center_crop (0.14) on a PIL image: an
 * image smaller than the crop is first padded with zeros, (d // 2) before
 * and ((d + 1) // 2) after; then the box starts at
 * int(round((image - crop) / 2.0)) (python round: half to even). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"

/* the arguments are the configuration */
struct center_crop_args {
	long size;
};

static const struct opt center_crop_args[] = {
	OP_ARG(struct center_crop_args, size, OPT_INT, "224", 1, 16384),
	OPT_END
};

/* the offset of the crop in the source along one axis (may be negative:
 * padding) */
static int crop_offset(int image, int crop)
{
	int pad_before = 0;
	if (crop > image) {
		pad_before = (crop - image) / 2;
		image = crop;  /* pad_before + image + (crop - image + 1) / 2 */
	}
	return (int)nearbyint((image - crop) / 2.0) - pad_before;
}

static int center_crop_run(const void *cfg, struct sample *s)
{
	const struct center_crop_args *c = cfg;
	int W = s->w, H = s->h, cs = (int)c->size;
	if (s->kind != PIX_U8_HWC || W <= 0 || H <= 0 || W > INT_MAX / 3)
		return sample_fail(s, "center_crop needs a uint8 image, got %dx%d", W, H);
	if (W == cs && H == cs)
		return 0;
	if (op_check_out(s, cs, cs))
		return -1;
	int top = crop_offset(H, cs), left = crop_offset(W, cs);
	if (buf_reserve(&s->scr->tmp, (size_t)cs * (size_t)cs * 3))
		return sample_fail(s, "out of memory for a %dx%d image", cs, cs);
	const uint8_t *in = s->data.p;
	uint8_t *out = s->scr->tmp.p;
	/* the columns of the output that come from the image */
	int x0 = left < 0 ? -left : 0;
	int x1 = W - left < cs ? W - left : cs;
	size_t row = (size_t)cs * 3;
	for (int y = 0; y < cs; y++) {
		uint8_t *o = out + (size_t)y * row;
		int sy = top + y;
		if (sy < 0 || sy >= H || x1 <= x0) {
			memset(o, 0, row);
			continue;
		}
		memset(o, 0, (size_t)x0 * 3);
		memcpy(o + (size_t)x0 * 3, in + ((size_t)sy * W + (size_t)(left + x0)) * 3,
		       (size_t)(x1 - x0) * 3);
		memset(o + (size_t)x1 * 3, 0, (size_t)(cs - x1) * 3);
	}
	sample_swap_tmp(s);
	s->w = s->h = cs;
	return 0;
}

const struct op_ops op_center_crop = {
	.version = OP_ABI_VERSION,
	.name = "center_crop",
	.lotus_name = "SCenterCrop",
	.what = "torchvision CenterCrop(size), zero padding if smaller",
	.args = center_crop_args,
	.args_size = sizeof(struct center_crop_args),
	.in = PIX_U8_HWC,
	.out = PIX_U8_HWC,
	.run = center_crop_run,
	.release = free,
};
