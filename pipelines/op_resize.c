/* resize size=N: torchvision Resize(size) with an int size on a PIL image
 * (0.14): the shorter side becomes `size`, the longer one
 * int(size * long / short) (python true division, truncated); an image
 * already of that size is returned as is; otherwise Pillow's bilinear
 * resize (resample.c). */
#include <limits.h>
#include <stdlib.h>
#include "op.h"
#include "resample.h"

/* the arguments are the configuration */
struct resize_args {
	long size;
};

static const struct opt resize_args[] = {
	OP_ARG(struct resize_args, size, OPT_INT, "256", 1, 16384),
	OPT_END
};

static int resize_run(const void *cfg, struct sample *s)
{
	const struct resize_args *c = cfg;
	const int size = (int)c->size;
	int W = s->w, H = s->h;
	if (s->kind != PIX_U8_HWC || W <= 0 || H <= 0 || W > INT_MAX / 3)
		return sample_fail(s, "resize needs a uint8 image, got %dx%d", W, H);
	/* _compute_resized_output_size */
	int short_side = W <= H ? W : H, long_side = W <= H ? H : W;
	double nl = (double)((int64_t)size * long_side) / (double)short_side;
	if (nl >= (double)INT_MAX / 3)
		return sample_fail(s, "resize: %dx%d scaled to a short side of %d is too large",
				   W, H, size);
	int new_short = size, new_long = (int)nl;
	int ow = W <= H ? new_short : new_long;
	int oh = W <= H ? new_long : new_short;
	if (ow == W && oh == H)
		return 0;
	if (ow <= 0 || oh <= 0)
		return sample_fail(s, "resize: %dx%d would become %dx%d", W, H, ow, oh);
	if (op_check_out(s, ow, oh))
		return -1;
	if (buf_reserve(&s->scr->tmp, (size_t)ow * (size_t)oh * 3))
		return sample_fail(s, "out of memory for a %dx%d image", ow, oh);
	if (resample_bilinear_u8(s->data.p, W, H, W * 3, s->scr->tmp.p, ow, oh,
				 &s->scr->aux[0], &s->scr->aux[1]))
		return sample_fail(s, "out of memory resizing %dx%d to %dx%d", W, H, ow, oh);
	sample_swap_tmp(s);
	s->w = ow;
	s->h = oh;
	return 0;
}

const struct op_ops op_resize = {
	.version = OP_ABI_VERSION,
	.name = "resize",
	.lotus_name = "SResize",
	.what = "torchvision Resize(size): shorter side to size, bilinear",
	.args = resize_args,
	.args_size = sizeof(struct resize_args),
	.in = PIX_U8_HWC,
	.out = PIX_U8_HWC,
	.run = resize_run,
	.release = free,
};
