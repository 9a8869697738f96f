/* decode: torchvision's pil_loader, `Image.open(f).convert('RGB')` with
 * Pillow 9.4: read the file, sniff JPEG or PNG from its bytes, decode to
 * uint8 RGB (decode.h). */
#include "decode.h"
#include "op.h"

static int decode_run(const void *cfg, struct sample *s)
{
	(void)cfg;
	char why[sizeof(s->err)];
	size_t n;
	int h, w;
	if (decode_read_file(s->path, s->max_file_bytes, &s->scr->file, &n, why, sizeof(why)) ||
	    decode_image_mem(s->scr->file.p, n, s->max_pixels, &s->scr->tmp, &h, &w,
			     why, sizeof(why)))
		return sample_fail(s, "%s", why);
	sample_swap_tmp(s);
	s->kind = PIX_U8_HWC;
	s->h = h;
	s->w = w;
	return 0;
}

const struct op_ops op_decode = {
	.version = OP_ABI_VERSION,
	.name = "decode",
	.lotus_name = "SLoader",
	.what = "read the file, decode JPEG or PNG to RGB as Pillow's "
		"Image.open(f).convert('RGB') (no arguments)",
	.in = PIX_NONE,
	.out = PIX_U8_HWC,
	.run = decode_run,
};
