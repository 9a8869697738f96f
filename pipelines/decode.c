/* decode: torchvision's pil_loader, `Image.open(f).convert('RGB')` with
 * Pillow 9.4: read the file, sniff JPEG or PNG from its bytes, decode to
 * uint8 RGB (decode.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "decode.h"
#include "fsutil.h"
#include "op.h"

int decode_check_pixels(uint64_t w, uint64_t h, uint64_t max_pixels, char *err, size_t errlen)
{
	uint64_t px = w * h;
	if (w == 0 || h == 0) {
		snprintf(err, errlen, "image is %" PRIu64 "x%" PRIu64 ": no pixels", w, h);
		return -1;
	}
	if (max_pixels && px > max_pixels) {
		snprintf(err, errlen, "image is %" PRIu64 "x%" PRIu64 " = %" PRIu64
			 " pixels, over the limit of %" PRIu64 " (--max-pixels)", w, h, px, max_pixels);
		return -1;
	}
	return 0;
}

/* Names for the magics of formats Pillow opens and we do not. */
static const char *other_format(const uint8_t *d, size_t n)
{
	if (n >= 6 && (!memcmp(d, "GIF87a", 6) || !memcmp(d, "GIF89a", 6)))
		return "GIF";
	if (n >= 2 && !memcmp(d, "BM", 2))
		return "BMP";
	if (n >= 12 && !memcmp(d, "RIFF", 4) && !memcmp(d + 8, "WEBP", 4))
		return "WebP";
	if (n >= 4 && (!memcmp(d, "II*\0", 4) || !memcmp(d, "MM\0*", 4)))
		return "TIFF";
	if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6')
		return "PPM/PGM";
	if (n >= 12 && !memcmp(d, "\0\0\0\x0cjP  \r\n\x87\n", 12))
		return "JPEG 2000";
	return NULL;
}

int decode_sniff(const uint8_t *data, size_t n, char *err, size_t errlen)
{
	static const uint8_t png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	if (n == 0) {
		snprintf(err, errlen, "empty file");
		return -1;
	}
	if (n >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
		return 0;
	if (n >= 8 && !memcmp(data, png_magic, 8))
		return 0;
	const char *other = other_format(data, n);
	if (other)
		snprintf(err, errlen, "not a JPEG or PNG file (%s)", other);
	else
		snprintf(err, errlen, "not a JPEG or PNG file");
	return -1;
}

int decode_image_mem(const uint8_t *data, size_t n, uint64_t max_pixels,
		     struct buf *out, int *h, int *w, char *err, size_t errlen)
{
	if (decode_sniff(data, n, err, errlen))
		return -1;
	if (data[0] == 0xff)
		return decode_jpeg_mem(data, n, max_pixels, out, h, w, err, errlen);
	return decode_png_mem(data, n, max_pixels, out, h, w, err, errlen);
}

/* Read into p up to want bytes; the count read (short at end of file), or -1. */
static ssize_t read_full(int fd, uint8_t *p, size_t want)
{
	size_t got = 0;
	while (got < want) {
		ssize_t r = read(fd, p + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;   /* it shrank: decode what there is */
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int decode_read_file(const char *path, uint64_t max_bytes, struct buf *file, size_t *n,
		     char *err, size_t errlen)
{
	struct stat st;
	int fd = open_regular(path, &st, err, errlen);
	if (fd < 0)
		return -1;
	int rc = -1;
	uint64_t size = (uint64_t)st.st_size;
	if (max_bytes && size > max_bytes) {
		snprintf(err, errlen, "file is %" PRIu64 " bytes, over the limit of %" PRIu64
			 " (--max-file-size)", size, max_bytes);
		goto out;
	}
	if (size > SIZE_MAX / 2 || buf_reserve(file, size > DECODE_SNIFF_BYTES ? (size_t)size
					       : DECODE_SNIFF_BYTES)) {
		snprintf(err, errlen, "out of memory (%" PRIu64 " bytes for the file)", size);
		goto out;
	}
	/* The header first: a large file that is no image costs one read. */
	size_t head = size < DECODE_SNIFF_BYTES ? (size_t)size : DECODE_SNIFF_BYTES;
	ssize_t got = read_full(fd, file->p, head);
	if (got < 0) {
		snprintf(err, errlen, "cannot read: %s", strerror(errno));
		goto out;
	}
	if (decode_sniff(file->p, (size_t)got, err, errlen))
		goto out;
	ssize_t rest = (size_t)got < head ? 0
		: read_full(fd, (uint8_t *)file->p + got, (size_t)size - (size_t)got);
	if (rest < 0) {
		snprintf(err, errlen, "cannot read: %s", strerror(errno));
		goto out;
	}
	*n = (size_t)got + (size_t)rest;
	rc = 0;
out:
	close(fd);
	return rc;
}

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
	.help = "decode: read the file, decode JPEG or PNG to RGB as Pillow's "
		"Image.open(f).convert('RGB') (no arguments)",
	.in = PIX_NONE,
	.out = PIX_U8_HWC,
	.run = decode_run,
};
