/* Image decoding as Pillow 9.4 does `Image.open(f).convert('RGB')`, for the
 * two formats of ImageNet: JPEG (libjpeg-turbo, the same library and
 * settings as Pillow: ISLOW IDCT, fancy upsampling) and PNG (libpng, with
 * Pillow's mode mapping and integer conversions to RGB). The output is
 * uint8 RGB, h x w x 3, no row padding, bit-identical to Pillow for every
 * file Pillow decodes without error.
 *
 * Errors are Pillow's too: a file Pillow refuses is refused, one it decodes
 * is decoded, identically. Data running out before the last row is an error
 * ("image file is truncated"; for a JPEG that includes a missing EOI, as
 * libjpeg reads ahead for it), while what follows the last row is read as
 * leniently as Pillow reads it (a JPEG's final markers cut short; a PNG's
 * adler32, IDAT CRCs, IEND). libjpeg's warnings (corrupt entropy data,
 * extraneous bytes) are ignored as Pillow ignores them.
 * scripts/fixtures_decode.py records Pillow's verdict on each broken file
 * in tests/fixtures/bad/manifest.json. Known differences, all refusals:
 *  - formats other than JPEG and PNG (GIF, BMP, WebP, TIFF...);
 *  - a PNG chunk length over 2^31 - 1 (invalid; libpng stops there, Pillow
 *    reads on to the end of the file). */
#ifndef PPBENCH_DECODE_H
#define PPBENCH_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include "options.h"
#include "sample.h"

/* The default --max-pixels: Pillow's decompression-bomb error threshold,
 * twice Image.MAX_IMAGE_PIXELS (1024 * 1024 * 1024 // 4 // 3). The string
 * is for option tables' defaults. */
#define DECODE_BOMB_PIXELS 178956970
#define DECODE_BOMB_PIXELS_STR "178956970"

/* Decode the n bytes of an encoded JPEG or PNG at data into out (grown as
 * needed; it may end up larger than h * w * 3). The format is sniffed from
 * the bytes, never from a file name. Images of more than max_pixels pixels
 * are refused before any pixel is decoded (0: no limit). Returns 0 with *h,
 * *w set, or -1 with the reason in err ("image file is truncated ..."). */
int decode_image_mem(const uint8_t *data, size_t n, uint64_t max_pixels,
		     struct buf *out, int *h, int *w, char *err, size_t errlen);

/* The first bytes of a file say JPEG or PNG: 0, or -1 with the reason in err
 * ("empty file", "not a JPEG or PNG file (GIF)"). Looks at up to 12 bytes. */
int decode_sniff(const uint8_t *data, size_t n, char *err, size_t errlen);
#define DECODE_SNIFF_BYTES 12

/* --max-file-size's default: ImageNet's largest file is about 15 MB, and
 * 256 MiB holds any JPEG or PNG under --max-pixels' default at normal ratios. */
#define DECODE_MAX_FILE_DEFAULT "256MiB"
#define DECODE_MAX_FILE_BYTES (256ull << 20)
#define DECODE_MAX_FILE_HELP "refuse larger files before reading them (0: no limit)"

/* The option-table rows of --max-pixels and --max-file-size (options.h's
 * OPT_ROW: T the command's config struct, f its field). */
#define OPT_MAX_PIXELS(T, f, why) OPT_ROW("max-pixels", 0, OPT_U64, T, f, \
					  DECODE_BOMB_PIXELS_STR, "N", why)
#define OPT_MAX_PIXELS_HELP "refuse images with more pixels, as Pillow, and any op's output of more (0: no limit)"
#define OPT_MAX_FILE_SIZE(T, f) \
	{ .name = "max-file-size", .type = OPT_SIZE, .off = offsetof(T, f), \
	  .def = DECODE_MAX_FILE_DEFAULT, .metavar = "SIZE", .help = DECODE_MAX_FILE_HELP, \
	  .lo = 0, .hi = 1099511627776.0 }

/* Read the file a sample decodes into file (*n bytes), as every reader of
 * samples does: only a regular file (open_regular), its first bytes sniffed
 * before the rest is read, refused before reading when it is larger than
 * max_bytes (0: no limit). 0, or -1 with the reason in err. */
int decode_read_file(const char *path, uint64_t max_bytes, struct buf *file, size_t *n,
		     char *err, size_t errlen);

/* The two decoders behind it, same contract, for data already sniffed. */
int decode_jpeg_mem(const uint8_t *data, size_t n, uint64_t max_pixels,
		    struct buf *out, int *h, int *w, char *err, size_t errlen);
int decode_png_mem(const uint8_t *data, size_t n, uint64_t max_pixels,
		   struct buf *out, int *h, int *w, char *err, size_t errlen);

/* The crop-region decode of a JPEG (decode_random_resized_crop): read the
 * header, ask box_fn for the box (top, left, height, width) of the W x H
 * image, then decode only the box's rows, and its columns widened by one
 * pixel on each side (libjpeg widens further to whole iMCUs), and stop
 * after the box's last row. Returns:
 *   0: r->out holds the rows of the box, r->stride bytes apart, starting at
 *      column r->x0 (so the box's pixels are at (box[1] - x0) * 3);
 *   -1: the file is refused as the full decode would refuse it (err);
 *   DECODE_REGION_BOX_FAILED: box_fn returned nonzero (its own error);
 *   DECODE_REGION_NOT_TRIED: before the box was asked for (no EOI at the
 *      end: only the full decode can tell a truncated file);
 *   DECODE_REGION_FALLBACK: after (r->box holds it): the region decode
 *      could not finish (err says why); decode in full and use r->box. */
enum {
	DECODE_REGION_BOX_FAILED = 1,
	DECODE_REGION_NOT_TRIED = 2,
	DECODE_REGION_FALLBACK = 3,
};
struct decode_region {
	struct buf *out;        /* set by the caller */
	int W, H;               /* the image */
	int box[4];             /* from box_fn */
	int box_done;           /* box_fn was called and succeeded */
	int x0, stride;         /* the decoded region's first column, row bytes */
};
int decode_jpeg_region(const uint8_t *data, size_t n, uint64_t max_pixels,
		       int (*box_fn)(void *ctx, int W, int H, int box[4]), void *ctx,
		       struct decode_region *r, char *err, size_t errlen);

/* Shared by both: -1 with err set if w x h is over the limit. */
int decode_check_pixels(uint64_t w, uint64_t h, uint64_t max_pixels,
			char *err, size_t errlen);

#endif
