/* PNG through libpng, converted to RGB as Pillow 9.4 does: the mode and raw
 * mode of PngImagePlugin._MODES, then Image.convert('RGB'):
 *
 *   gray 1     "1"    -> 0 / 255            gray 2, 4  "L;2", "L;4" -> v * 0x55, v * 0x11
 *   gray 8     "L"    -> replicate          gray 16    "I" ("I;16B") -> clip to 255
 *   RGB 8, 16  "RGB", "RGB;16B" (high byte) palette    palette[i], Pillow's palette
 *   GA 8       "LA"   -> replicate, drop A     is a grey ramp beyond the PLTE entries
 *   GA 16      "RGBA" ("LA;16B") -> high byte of G, drop A
 *   RGBA 8, 16 "RGBA", "RGBA;16B" -> drop A (high bytes)
 *
 * tRNS, gAMA, sBIT and the rest change no pixel, so libpng applies no
 * transform: the progressive reader hands over each row (each pass row of
 * an Adam7 image) and it is converted straight to its place in the output.
 *
 * Pillow's decoder stops once it has every row and reads what follows
 * (the adler32, CRCs, later chunks, IEND) leniently or not at all; it checks
 * the CRC of every chunk before the first IDAT but of no IDAT. The
 * progressive reader lets us do the same: we stop at the last row, and data
 * running out before it is "image file is truncated". */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <png.h>
#include "decode.h"

struct pngdec {
	uint64_t max_pixels;
	struct buf *out;
	char msg[256];            /* why it failed */
	char idat_warning[128];   /* libpng's first warning once in the image data */
	int in_idat;
	png_uint_32 w, h;
	int depth, ctype, interlaced;
	uint64_t rows_total;      /* rows to receive, over all passes */
	uint64_t rows_seen;
	uint8_t pal[256 * 3];     /* Pillow's palette */
};

static void on_error(png_structp png, png_const_charp msg)
{
	struct pngdec *d = png_get_error_ptr(png);
	/* libpng's "Out of memory" worded as every op words it (SAMPLE_OOM) */
	if (!strncasecmp(msg, "out of memory", 13))
		snprintf(d->msg, sizeof(d->msg), "out of memory (libpng: %s)", msg);
	else
		snprintf(d->msg, sizeof(d->msg), "%s", msg);
	png_longjmp(png, 1);
}

/* Warnings are silenced, but a broken zlib stream only warns ("IDAT:
 * ADLER32 checksum mismatch" is a benign error) and then rows stop coming:
 * keep it to say why. */
static void on_warning(png_structp png, png_const_charp msg)
{
	struct pngdec *d = png_get_error_ptr(png);
	if (!strncmp(msg, "IDAT: IDAT: ", 12))
		msg += 6;   /* libpng names the chunk twice */
	if (d->in_idat && !d->idat_warning[0])
		snprintf(d->idat_warning, sizeof(d->idat_warning), "%s", msg);
}

/* n raw pixels at src to RGB pixels dst[0], dst[dx], dst[2 dx]... */
static void convert_pixels(uint8_t *dst, size_t dx, const uint8_t *src, png_uint_32 n,
			   int ctype, int depth, const uint8_t *pal)
{
	const size_t step = 3 * dx;
	png_uint_32 x;
	uint8_t *o = dst;
	switch (ctype << 8 | depth) {
	case PNG_COLOR_TYPE_RGB << 8 | 8:
		if (dx == 1) {
			memcpy(dst, src, (size_t)n * 3);
			break;
		}
		for (x = 0; x < n; x++, o += step, src += 3)
			o[0] = src[0], o[1] = src[1], o[2] = src[2];
		break;
	case PNG_COLOR_TYPE_RGB << 8 | 16:
		for (x = 0; x < n; x++, o += step, src += 6)
			o[0] = src[0], o[1] = src[2], o[2] = src[4];
		break;
	case PNG_COLOR_TYPE_RGBA << 8 | 8:
		for (x = 0; x < n; x++, o += step, src += 4)
			o[0] = src[0], o[1] = src[1], o[2] = src[2];
		break;
	case PNG_COLOR_TYPE_RGBA << 8 | 16:
		for (x = 0; x < n; x++, o += step, src += 8)
			o[0] = src[0], o[1] = src[2], o[2] = src[4];
		break;
	case PNG_COLOR_TYPE_GA << 8 | 8:
		for (x = 0; x < n; x++, o += step, src += 2)
			o[0] = o[1] = o[2] = src[0];
		break;
	case PNG_COLOR_TYPE_GA << 8 | 16:
		for (x = 0; x < n; x++, o += step, src += 4)
			o[0] = o[1] = o[2] = src[0];
		break;
	case PNG_COLOR_TYPE_GRAY << 8 | 8:
		for (x = 0; x < n; x++, o += step, src++)
			o[0] = o[1] = o[2] = src[0];
		break;
	case PNG_COLOR_TYPE_GRAY << 8 | 16:
		for (x = 0; x < n; x++, o += step, src += 2)
			o[0] = o[1] = o[2] = src[0] ? 255 : src[1];
		break;
	case PNG_COLOR_TYPE_GRAY << 8 | 1:
	case PNG_COLOR_TYPE_GRAY << 8 | 2:
	case PNG_COLOR_TYPE_GRAY << 8 | 4: {
		const unsigned mask = (1u << depth) - 1, scale = 255 / mask;
		for (x = 0; x < n; x++, o += step) {
			size_t bit = (size_t)x * (unsigned)depth;
			unsigned v = (src[bit >> 3] >> (8 - depth - (bit & 7))) & mask;
			o[0] = o[1] = o[2] = (uint8_t)(v * scale);
		}
		break;
	}
	case PNG_COLOR_TYPE_PALETTE << 8 | 1:
	case PNG_COLOR_TYPE_PALETTE << 8 | 2:
	case PNG_COLOR_TYPE_PALETTE << 8 | 4:
	case PNG_COLOR_TYPE_PALETTE << 8 | 8: {
		const unsigned mask = (1u << depth) - 1;
		for (x = 0; x < n; x++, o += step) {
			size_t bit = (size_t)x * (unsigned)depth;
			const uint8_t *c = pal + 3 * ((src[bit >> 3] >> (8 - depth - (bit & 7))) & mask);
			o[0] = c[0], o[1] = c[1], o[2] = c[2];
		}
		break;
	}
	}
}

/* At the first IDAT: size, limit, palette, output buffer. */
static void on_info(png_structp png, png_infop info)
{
	struct pngdec *d = png_get_progressive_ptr(png);
	int interlace;
	png_get_IHDR(png, info, &d->w, &d->h, &d->depth, &d->ctype, &interlace, NULL, NULL);
	if (decode_check_pixels(d->w, d->h, d->max_pixels, d->msg, sizeof(d->msg)))
		png_longjmp(png, 1);
	/* CRCs were checked up to here; Pillow never checks those of IDAT */
	png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_ERROR_QUIT);

	if (d->ctype == PNG_COLOR_TYPE_PALETTE) {
		png_colorp plte = NULL;
		int np = 0;
		for (int i = 0; i < 256; i++)
			d->pal[3 * i] = d->pal[3 * i + 1] = d->pal[3 * i + 2] = (uint8_t)i;
		png_get_PLTE(png, info, &plte, &np);
		for (int i = 0; i < np && i < 256; i++) {
			d->pal[3 * i] = plte[i].red;
			d->pal[3 * i + 1] = plte[i].green;
			d->pal[3 * i + 2] = plte[i].blue;
		}
	}
	d->interlaced = interlace != PNG_INTERLACE_NONE;
	d->rows_total = d->h;
	if (d->interlaced) {
		d->rows_total = 0;
		for (int p = 0; p < 7; p++)
			if (PNG_PASS_COLS(d->w, p))
				d->rows_total += PNG_PASS_ROWS(d->h, p);
	}
	size_t need = (size_t)d->w * d->h * 3;
	if (buf_reserve(d->out, need)) {
		snprintf(d->msg, sizeof(d->msg), "out of memory (%zu bytes for %ux%u pixels)", need,
			 (unsigned)d->w, (unsigned)d->h);
		png_longjmp(png, 1);
	}
	png_start_read_image(png);
	d->in_idat = 1;
}

/* A row, or without interlace handling a row of pass `pass`, as it is in
 * the file (unfiltered). The last one ends the decode. */
static void on_row(png_structp png, png_bytep row, png_uint_32 y, int pass)
{
	struct pngdec *d = png_get_progressive_ptr(png);
	if (!row)
		return;
	uint8_t *px = d->out->p;
	const size_t stride = (size_t)d->w * 3;
	if (d->interlaced) {
		png_uint_32 iy = PNG_ROW_FROM_PASS_ROW(y, pass);
		png_uint_32 x0 = PNG_COL_FROM_PASS_COL(0, pass);
		if (iy >= d->h)
			png_error(png, "interlaced row out of the image");
		convert_pixels(px + iy * stride + (size_t)x0 * 3, (size_t)PNG_PASS_COL_OFFSET(pass),
			       row, PNG_PASS_COLS(d->w, pass), d->ctype, d->depth, d->pal);
	} else {
		if (y >= d->h)
			png_error(png, "row out of the image");
		convert_pixels(px + y * stride, 1, row, d->w, d->ctype, d->depth, d->pal);
	}
	if (++d->rows_seen == d->rows_total)
		png_longjmp(png, 2);   /* done: what follows is not read */
}

static int process(png_structp png, png_infop info, struct pngdec *d, const uint8_t *data,
		   size_t n)
{
	switch (setjmp(png_jmpbuf(png))) {
	case 0:
		break;
	case 2:
		return 0;
	default:
		return -1;
	}
	/* Pillow verifies the CRC of every chunk before the image data,
	 * ancillary ones included (on_info relaxes this for IDAT) */
	png_set_crc_action(png, PNG_CRC_DEFAULT, PNG_CRC_ERROR_QUIT);
	png_set_progressive_read_fn(png, d, on_info, on_row, NULL);
	png_process_data(png, info, (png_bytep)(uintptr_t)data, n);
	/* all the data is in, and rows are missing */
	if (d->idat_warning[0])
		snprintf(d->msg, sizeof(d->msg), "broken data stream (%s)", d->idat_warning);
	else
		snprintf(d->msg, sizeof(d->msg), "image file is truncated");
	return -1;
}

int decode_png_mem(const uint8_t *data, size_t n, uint64_t max_pixels,
		   struct buf *out, int *h, int *w, char *err, size_t errlen)
{
	struct pngdec d = { .max_pixels = max_pixels, .out = out };
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d, on_error, on_warning);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		snprintf(err, errlen, "out of memory (libpng)");
		png_destroy_read_struct(&png, NULL, NULL);
		return -1;
	}
	int rc = process(png, info, &d, data, n);
	png_destroy_read_struct(&png, &info, NULL);
	if (rc) {
		snprintf(err, errlen, "%s", d.msg);
		return -1;
	}
	*h = (int)d.h;
	*w = (int)d.w;
	return 0;
}
