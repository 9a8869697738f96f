/* random_horizontal_flip p=P: torchvision RandomHorizontalFlip on the PIL
 * image: flip iff torch.rand(1) < p (one draw per sample, always made). */
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "op.h"
#include "rng.h"

struct flip_cfg {
	float p;
};

struct flip_args {
	double p;
};

static const struct opt flip_args[] = {
	OP_ARG(struct flip_args, p, OPT_DOUBLE, "0.5", 0, 1),
	OPT_END
};

static int flip_init(const void *args, void **cfg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct flip_args *a = args;
	struct flip_cfg *c = malloc(sizeof(*c));
	if (!c)
		return -1;
	c->p = (float)a->p;
	*cfg = c;
	return 0;
}

static int flip_run(const void *cfg, struct sample *s)
{
	const struct flip_cfg *c = cfg;
	/* torch: `torch.rand(1) < self.p`; a python scalar takes the tensor's
	 * dtype, so the comparison is in float32 */
	int flip = rng_torch_rand(s->rng) < c->p;
	if (s->fixed && s->fixed->flip >= 0)
		flip = s->fixed->flip;
	if (!flip)
		return 0;
	size_t row = (size_t)s->w * 3;
	if (buf_reserve(&s->scr->tmp, row * (size_t)s->h))
		return sample_fail(s, "out of memory for a %dx%d image", s->w, s->h);
	const struct kernels *k = kernels_active();
	const uint8_t *in = s->data.p;
	uint8_t *out = s->scr->tmp.p;
	for (int y = 0; y < s->h; y++)
		k->flip_row(in + (size_t)y * row, out + (size_t)y * row, s->w);
	sample_swap_tmp(s);   /* a new image, as PIL's transpose makes */
	return 0;
}

const struct op_ops op_random_horizontal_flip = {
	.version = OP_ABI_VERSION,
	.name = "random_horizontal_flip",
	.lotus_name = "SRandomHorizontalFlip",
	.what = "mirror left-right with probability p",
	.args = flip_args,
	.args_size = sizeof(struct flip_args),
	.flags = OP_RANDOM,
	.in = PIX_U8_HWC,
	.out = PIX_U8_HWC,
	.init = flip_init,
	.run = flip_run,
	.release = free,
};
