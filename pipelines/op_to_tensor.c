/* to_tensor: HWC uint8 -> CHW float32, x / 255.0f by true division, as
 * torchvision ToTensor (a reciprocal multiply rounds differently). */
#include "kernels.h"
#include "op.h"

static int to_tensor_run(const void *cfg, struct sample *s)
{
	(void)cfg;
	size_t hw = (size_t)s->h * (size_t)s->w;
	if (buf_reserve(&s->scr->tmp, hw * 3 * sizeof(float)))
		return sample_fail(s, "out of memory for a %dx%d tensor", s->w, s->h);
	const uint8_t *in = s->data.p;
	float *r = s->scr->tmp.p, *g = r + hw, *b = g + hw;
	kernels_active()->to_tensor(in, hw, r, g, b);
	sample_swap_tmp(s);
	s->kind = PIX_F32_CHW;
	return 0;
}

const struct op_ops op_to_tensor = {
	.version = OP_ABI_VERSION,
	.name = "to_tensor",
	.lotus_name = "SToTensor",
	.what = "uint8 HWC image to float32 CHW tensor in [0, 1]",
	.in = PIX_U8_HWC,
	.out = PIX_F32_CHW,
	.run = to_tensor_run,
};
