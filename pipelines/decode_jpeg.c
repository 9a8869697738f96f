/* JPEG through the libjpeg API of libjpeg-turbo, set up as Pillow 9.4's
 * JpegDecode.c (+ JpegImagePlugin.py and Convert.c for CMYK). */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include "decode.h"

struct jpeg_err {
	struct jpeg_error_mgr pub;  /* first: libjpeg sees only this */
	jmp_buf jump;
	int eof_fatal;              /* running out of data is an error (not in finish) */
	int truncated;              /* we left because it was */
	int done;                   /* we left finish early, as Pillow does */
};

/* libjpeg's message for its error; its running out of memory worded as
 * every op words it (SAMPLE_OOM: the run fails, the file is not skipped) */
static void jerr_reason(j_common_ptr c, char *err, size_t errlen)
{
	char msg[JMSG_LENGTH_MAX];
	c->err->format_message(c, msg);
	if (c->err->msg_code == JERR_OUT_OF_MEMORY)
		snprintf(err, errlen, "out of memory (libjpeg: %s)", msg);
	else
		snprintf(err, errlen, "%s", msg);
}

static void jerr_exit(j_common_ptr c)
{
	struct jpeg_err *e = (struct jpeg_err *)c->err;
	longjmp(e->jump, 1);
}

/* Pillow feeds libjpeg through a suspending source: where our memory source
 * would warn "Premature end of JPEG file" and invent an EOI, Pillow's
 * decoder suspends, gets no more data, and load() raises "image file is
 * truncated". In jpeg_finish_decompress, Pillow takes a suspension, once
 * all rows are out, as the end: so do we, before libjpeg reads on into the
 * invented bytes. Other warnings are silenced, as Pillow's output_message
 * is a no-op. */
static void jerr_emit(j_common_ptr c, int level)
{
	struct jpeg_err *e = (struct jpeg_err *)c->err;
	if (level >= 0)
		return;
	if (e->pub.msg_code == JWRN_JPEG_EOF) {
		if (e->eof_fatal)
			e->truncated = 1;
		else
			e->done = 1;
		longjmp(e->jump, 1);
	}
	e->pub.num_warnings++;
}

static void jerr_output(j_common_ptr c)
{
	(void)c;
}

/* Pillow's CMYK;I unpacker (255 - v) then cmyk2rgb (Convert.c):
 * nk = 255 - K; R = CLIP8(nk - MULDIV255(C, nk)), MULDIV255(a, b) =
 * (t = a * b + 128, ((t >> 8) + t) >> 8). The result is never out of range,
 * so CLIP8 has nothing to do. In place: the 4-byte pixel x is read before
 * the 3-byte pixel x is written, and 3x <= 4x. */
static void cmyk_inv_to_rgb(uint8_t *row, unsigned w)
{
	for (unsigned x = 0; x < w; x++) {
		const uint8_t *in = row + 4 * (size_t)x;
		unsigned nk = in[3];  /* 255 - (255 - k) */
		unsigned c = 255u - in[0], m = 255u - in[1], y = 255u - in[2];
		unsigned tc = c * nk + 128, tm = m * nk + 128, ty = y * nk + 128;
		uint8_t *out = row + 3 * (size_t)x;
		out[0] = (uint8_t)(nk - (((tc >> 8) + tc) >> 8));
		out[1] = (uint8_t)(nk - (((tm >> 8) + tm) >> 8));
		out[2] = (uint8_t)(nk - (((ty >> 8) + ty) >> 8));
	}
}

#define ROWS_PER_CALL 32

/* Create, read the header, check it and set the output as Pillow does.
 * May longjmp (the caller holds the setjmp). 0, or -1 with err. */
static int jpeg_setup(struct jpeg_decompress_struct *cinfo, const uint8_t *data, size_t n,
		      uint64_t max_pixels, char *err, size_t errlen)
{
	jpeg_create_decompress(cinfo);
	jpeg_mem_src(cinfo, data, (unsigned long)n);
	jpeg_read_header(cinfo, TRUE);

	/* JpegImagePlugin's SOF handler: 8-bit only; 1, 3 or 4 layers */
	if (cinfo->data_precision != 8) {
		snprintf(err, errlen, "cannot handle %d-bit layers", cinfo->data_precision);
		return -1;
	}
	int nc = cinfo->num_components;
	if (nc != 1 && nc != 3 && nc != 4) {
		snprintf(err, errlen, "cannot handle %d-layer images", nc);
		return -1;
	}
	if (decode_check_pixels(cinfo->image_width, cinfo->image_height, max_pixels, err, errlen))
		return -1;

	/* Pillow: "L" -> JCS_GRAYSCALE then L -> RGB replicates, which is what
	 * libjpeg-turbo's gray -> RGB conversion does, so ask for RGB directly.
	 * "RGB" -> JCS_RGB; "CMYK;I" -> JCS_CMYK (libjpeg turns YCCK into CMYK).
	 * dct_method and do_fancy_upsampling stay at their defaults, as Pillow
	 * leaves them (JDCT_ISLOW, TRUE). */
	cinfo->out_color_space = nc == 4 ? JCS_CMYK : JCS_EXT_RGB;
	return 0;
}

/* Read rows into px (stride bytes apart) until output_scanline reaches
 * end; CMYK rows are converted to RGB in place. -1 with err. */
static int jpeg_rows(struct jpeg_decompress_struct *cinfo, uint8_t *px, size_t stride,
		     unsigned first, unsigned end, char *err, size_t errlen)
{
	const unsigned ow = cinfo->output_width;
	const int cmyk = cinfo->num_components == 4;
	JSAMPROW rows[ROWS_PER_CALL];
	while (cinfo->output_scanline < end) {
		unsigned y = cinfo->output_scanline, k = 0;
		unsigned max = cmyk ? 1 : ROWS_PER_CALL;
		for (; k < max && y + k < end; k++)
			rows[k] = px + (size_t)(y - first + k) * stride;
		unsigned got = jpeg_read_scanlines(cinfo, rows, k);
		if (got == 0) {
			snprintf(err, errlen, "libjpeg returned no rows at row %u", y);
			return -1;
		}
		if (cmyk)
			cmyk_inv_to_rgb(rows[0], ow);
	}
	return 0;
}

/* The part that may longjmp; cinfo and its error manager live in the
 * caller, so nothing here needs to survive the jump. */
static int jpeg_decode(struct jpeg_decompress_struct *cinfo, struct jpeg_err *je,
		       const uint8_t *data, size_t n, uint64_t max_pixels, struct buf *out,
		       int *h, int *w, char *err, size_t errlen)
{
	if (setjmp(je->jump)) {
		if (je->done)
			return 0;
		if (je->truncated) {
			snprintf(err, errlen, "image file is truncated (Premature end of JPEG file)");
		} else {
			jerr_reason((j_common_ptr)cinfo, err, errlen);
		}
		return -1;
	}
	if (jpeg_setup(cinfo, data, n, max_pixels, err, errlen))
		return -1;
	int nc = cinfo->num_components;
	jpeg_start_decompress(cinfo);

	const unsigned ow = cinfo->output_width, oh = cinfo->output_height;
	const size_t stride = (size_t)ow * 3;
	/* CMYK rows are decoded (4 bytes a pixel) where their RGB goes and
	 * converted in place: the last one runs ow bytes past the image */
	size_t need = stride * oh + (nc == 4 ? ow : 0);
	if (buf_reserve(out, need)) {
		snprintf(err, errlen, "out of memory (%zu bytes for %ux%u pixels)", need, ow, oh);
		return -1;
	}
	if (jpeg_rows(cinfo, out->p, stride, 0, oh, err, errlen))
		return -1;
	*h = (int)oh;
	*w = (int)ow;
	je->eof_fatal = 0;
	jpeg_finish_decompress(cinfo);
	return 0;
}

/* cinfo zeroed (destroy is safe before create) with our error manager */
static void jerr_init(struct jpeg_decompress_struct *cinfo, struct jpeg_err *je)
{
	memset(cinfo, 0, sizeof(*cinfo));
	cinfo->err = jpeg_std_error(&je->pub);
	je->pub.error_exit = jerr_exit;
	je->pub.emit_message = jerr_emit;
	je->pub.output_message = jerr_output;
	je->eof_fatal = 1;
	je->truncated = 0;
	je->done = 0;
}

int decode_jpeg_mem(const uint8_t *data, size_t n, uint64_t max_pixels,
		    struct buf *out, int *h, int *w, char *err, size_t errlen)
{
	struct jpeg_decompress_struct cinfo;
	struct jpeg_err je;
	jerr_init(&cinfo, &je);
	int rc = jpeg_decode(&cinfo, &je, data, n, max_pixels, out, h, w, err, errlen);
	/* frees everything, also after a jump, also before create (zeroed) */
	jpeg_destroy_decompress(&cinfo);
	return rc;
}

/* ---- the crop-region decode (decode_random_resized_crop) ------------------ */

/* The part that may longjmp: header, the box from the caller, then only
 * the rows of the box and its columns widened by one on each side (fancy
 * upsampling reads a neighbour column; libjpeg widens further to whole
 * iMCUs), stopping after the box's last row. */
static int jpeg_region(struct jpeg_decompress_struct *cinfo, struct jpeg_err *je,
		       const uint8_t *data, size_t n, uint64_t max_pixels,
		       int (*box_fn)(void *ctx, int W, int H, int box[4]), void *ctx,
		       struct decode_region *r, char *err, size_t errlen)
{
	if (setjmp(je->jump)) {
		jerr_reason((j_common_ptr)cinfo, err, errlen);
		return r->box_done ? DECODE_REGION_FALLBACK : -1;
	}
	if (jpeg_setup(cinfo, data, n, max_pixels, err, errlen))
		return -1;
	r->W = (int)cinfo->image_width;
	r->H = (int)cinfo->image_height;
	if (box_fn(ctx, r->W, r->H, r->box))
		return DECODE_REGION_BOX_FAILED;
	r->box_done = 1;
	jpeg_start_decompress(cinfo);
	if ((int)cinfo->output_width != r->W || (int)cinfo->output_height != r->H)
		return DECODE_REGION_FALLBACK;
	const int i = r->box[0], j = r->box[1], h = r->box[2], w = r->box[3];
	JDIMENSION x0 = j > 0 ? (JDIMENSION)j - 1 : 0;
	JDIMENSION xw = (JDIMENSION)(j + w + 1 < r->W ? j + w + 1 : r->W) - x0;
	jpeg_crop_scanline(cinfo, &x0, &xw);
	const unsigned ow = cinfo->output_width;
	const size_t stride = (size_t)ow * 3;
	size_t need = stride * (size_t)h + (cinfo->num_components == 4 ? ow : 0);
	if (buf_reserve(r->out, need)) {
		snprintf(err, errlen, "out of memory (%zu bytes for %ux%d pixels)", need, ow, h);
		return -1;
	}
	if (i > 0 && jpeg_skip_scanlines(cinfo, (JDIMENSION)i) != (JDIMENSION)i)
		return DECODE_REGION_FALLBACK;
	if (jpeg_rows(cinfo, r->out->p, stride, (unsigned)i, (unsigned)(i + h), err, errlen))
		return DECODE_REGION_FALLBACK;
	r->x0 = (int)x0;
	r->stride = (int)stride;
	return 0;
}

int decode_jpeg_region(const uint8_t *data, size_t n, uint64_t max_pixels,
		       int (*box_fn)(void *ctx, int W, int H, int box[4]), void *ctx,
		       struct decode_region *r, char *err, size_t errlen)
{
	r->box_done = 0;
	/* Pillow refuses a JPEG whose data runs out; a region decode stops
	 * early and would not see it: without the EOI at the end, let the
	 * full decode judge */
	if (n < 4 || data[n - 2] != 0xFF || data[n - 1] != 0xD9)
		return DECODE_REGION_NOT_TRIED;
	struct jpeg_decompress_struct cinfo;
	struct jpeg_err je;
	jerr_init(&cinfo, &je);
	int rc = jpeg_region(&cinfo, &je, data, n, max_pixels, box_fn, ctx, r, err, errlen);
	/* also stops a decode that has rows left (we never finish it) */
	jpeg_destroy_decompress(&cinfo);
	return rc;
}
