/* decode_random_resized_crop size=N scale=LO,HI ratio=LO,HI: decode +
 * random_resized_crop fused, as DALI's image_random_crop and tf.data's
 * decode_and_crop_jpeg do it: a what-if beside the faithful pipeline.
 *
 * The same draws as decode then random_resized_crop (the box is drawn from
 * the image size in the header, with the sample's stream, before any pixel
 * is decoded), then only the box's rows and columns of a JPEG are decoded
 * (decode_jpeg_region: widened by a pixel on each side so fancy
 * upsampling sees the neighbours it sees in a full decode) and resampled
 * as random_resized_crop does. The tensors are the faithful pipeline's
 * (tests/unit/test_fused.c and `make bench` check it).
 *
 * A PNG, a JPEG without its EOI at the end (only a full decode can tell a
 * truncated file), or one whose region decode fails, is decoded in full
 * and cropped with the box already drawn; fused_fallbacks() counts them. */
#include <stdlib.h>
#include "decode.h"
#include "op.h"
#include "rrc.h"

/* per thread: a worker (thread or process) reads its own counts */
static _Thread_local uint64_t fallbacks, regions;

uint64_t fused_fallbacks(uint64_t *region_decodes)
{
	if (region_decodes)
		*region_decodes = regions;
	return fallbacks;
}

struct box_ctx {
	const void *cfg;
	struct sample *s;
};

static int draw_box(void *ctx, int W, int H, int box[4])
{
	struct box_ctx *b = ctx;
	return rrc_op_box(b->cfg, b->s, W, H, box);
}

static int fused_run(const void *cfg, struct sample *s)
{
	char why[sizeof(s->err)];
	size_t n;
	if (decode_read_file(s->path, s->max_file_bytes, &s->scr->file, &n, why, sizeof(why)))
		return sample_fail(s, "%s", why);
	const uint8_t *data = s->scr->file.p;
	struct decode_region r = { .out = &s->data };
	struct box_ctx bc = { cfg, s };
	int rc = DECODE_REGION_NOT_TRIED;
	if (n >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
		rc = decode_jpeg_region(data, n, s->max_pixels, draw_box, &bc, &r, why, sizeof(why));
	if (rc == DECODE_REGION_BOX_FAILED)
		return -1;
	if (rc < 0)
		return sample_fail(s, "%s", why);
	if (rc == 0) {
		regions++;
		const uint8_t *px = (const uint8_t *)s->data.p + (size_t)(r.box[1] - r.x0) * 3;
		return rrc_op_resample(cfg, s, px, r.stride, r.box);
	}
	/* the full decode, then the box (drawn now if it was not yet) */
	fallbacks++;
	int h, w;
	if (decode_image_mem(data, n, s->max_pixels, &s->data, &h, &w, why, sizeof(why)))
		return sample_fail(s, "%s", why);
	if (rc == DECODE_REGION_NOT_TRIED && rrc_op_box(cfg, s, w, h, r.box))
		return -1;
	const uint8_t *px = (const uint8_t *)s->data.p + ((size_t)r.box[0] * (size_t)w + (size_t)r.box[1]) * 3;
	return rrc_op_resample(cfg, s, px, w * 3, r.box);
}

const struct op_ops op_decode_random_resized_crop = {
	.version = OP_ABI_VERSION,
	.name = "decode_random_resized_crop",
	.lotus_name = "SLoader",
	.what = "decode + random_resized_crop fused (decode only the crop of a JPEG): a what-if, "
		"the same tensors",
	.args = rrc_args,
	.args_size = sizeof(struct rrc_args),
	.flags = OP_RANDOM,
	.in = PIX_NONE,
	.out = PIX_U8_HWC,
	.init = rrc_op_init,
	.run = fused_run,
	.release = free,
};
