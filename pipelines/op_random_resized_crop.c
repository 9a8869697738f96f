/* random_resized_crop size=N scale=LO,HI ratio=LO,HI:
 * torchvision RandomResizedCrop on a PIL image. get_params draws the box
 * (rrc.c), then img.crop(box).resize((size, size), BILINEAR), done as one
 * Pillow-exact resample of the box in place (resample.c). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "op.h"
#include "resample.h"
#include "rng.h"
#include "rrc.h"

struct rrc_cfg {
	int size;
	struct rrc_params p;
};

/* The default ratio's text is 4/3 to 17 digits: strtod gives 4.0 / 3.0
 * exactly (rrc.h: log_lo, log_hi). */
const struct opt rrc_args[] = {
	OP_ARG(struct rrc_args, size, OPT_INT, "224", 1, 16384),
	OP_ARG_LIST(struct rrc_args, scale, 2, "0.08,1", 0, DBL_MAX),
	OP_ARG_LIST(struct rrc_args, ratio, 2, "0.75,1.3333333333333333", DBL_MIN, DBL_MAX),
	OPT_END
};

int rrc_op_init(const void *args, void **cfg, char *err, size_t errlen)
{
	const struct rrc_args *a = args;
	long size = a->size;
	const double *scale = a->scale, *ratio = a->ratio;
	/* torch's uniform_ refuses from > to; log needs ratios > 0 */
	if (!(scale[0] >= 0 && scale[0] <= scale[1] && isfinite(scale[1]))) {
		snprintf(err, errlen, "scale: (%g, %g) is not a range 0 <= lo <= hi", scale[0], scale[1]);
		return -1;
	}
	if (!(ratio[0] > 0 && ratio[0] <= ratio[1] && isfinite(ratio[1]))) {
		snprintf(err, errlen, "ratio: (%g, %g) is not a range 0 < lo <= hi", ratio[0], ratio[1]);
		return -1;
	}
	struct rrc_cfg *c = malloc(sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->size = (int)size;
	rrc_params_init(&c->p, scale[0], scale[1], ratio[0], ratio[1]);
	*cfg = c;
	return 0;
}

int rrc_op_box(const void *cfg, struct sample *s, int W, int H, int box[4])
{
	const struct rrc_cfg *c = cfg;
	int i, j, h, w;
	if (s->fixed && s->fixed->has_crop) {
		i = s->fixed->crop[0];
		j = s->fixed->crop[1];
		h = s->fixed->crop[2];
		w = s->fixed->crop[3];
		if (i < 0 || j < 0 || h <= 0 || w <= 0 || h > H - i || w > W - j)
			return sample_fail(s, "crop (top %d, left %d, height %d, width %d) is not "
					   "inside the %dx%d image", i, j, h, w, W, H);
	} else {
		rrc_get_params(s->rng, &c->p, W, H, &i, &j, &h, &w);
		if (h <= 0 || w <= 0)
			/* only with odd ratios: the fallback rounds to 0 */
			return sample_fail(s, "random_resized_crop: empty crop %dx%d of a %dx%d image",
					   w, h, W, H);
	}
	box[0] = i;
	box[1] = j;
	box[2] = h;
	box[3] = w;
	return 0;
}

int rrc_op_resample(const void *cfg, struct sample *s, const uint8_t *px, int stride,
		    const int box[4])
{
	const struct rrc_cfg *c = cfg;
	int h = box[2], w = box[3];
	size_t out_bytes = (size_t)c->size * (size_t)c->size * 3;
	if (op_check_out(s, c->size, c->size))
		return -1;
	if (buf_reserve(&s->scr->tmp, out_bytes))
		return sample_fail(s, "out of memory for a %dx%d image", c->size, c->size);
	if (resample_bilinear_u8(px, w, h, stride, s->scr->tmp.p, c->size, c->size,
				 &s->scr->aux[0], &s->scr->aux[1]))
		return sample_fail(s, "out of memory resizing %dx%d to %dx%d", w, h,
				   c->size, c->size);
	sample_swap_tmp(s);
	s->kind = PIX_U8_HWC;
	s->h = s->w = c->size;
	return 0;
}

static int rrc_run(const void *cfg, struct sample *s)
{
	int W = s->w, H = s->h, box[4];
	if (s->kind != PIX_U8_HWC || W <= 0 || H <= 0 || W > INT_MAX / 3)
		return sample_fail(s, "random_resized_crop needs a uint8 image, got %dx%d", W, H);
	if (rrc_op_box(cfg, s, W, H, box))
		return -1;
	const uint8_t *src = (const uint8_t *)s->data.p + ((size_t)box[0] * W + (size_t)box[1]) * 3;
	return rrc_op_resample(cfg, s, src, W * 3, box);
}

const struct op_ops op_random_resized_crop = {
	.version = OP_ABI_VERSION,
	.name = "random_resized_crop",
	.lotus_name = "SRandomResizedCrop",
	.what = "torchvision RandomResizedCrop, bilinear",
	.args = rrc_args,
	.args_size = sizeof(struct rrc_args),
	.flags = OP_RANDOM,
	.in = PIX_U8_HWC,
	.out = PIX_U8_HWC,
	.init = rrc_op_init,
	.run = rrc_run,
	.release = free,
};
