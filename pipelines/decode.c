/* Reading and sniffing an image file, and the table of decoders behind
 * decode_image_mem (decode.h): the op (op_decode.c) and every other reader
 * of samples call down here, the decoders (decode_jpeg.c, decode_png.c)
 * are reached only through the table. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "decode.h"
#include "fsutil.h"

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

static int is_jpeg(const uint8_t *d, size_t n)
{
	return n >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff;
}

static int is_png(const uint8_t *d, size_t n)
{
	static const uint8_t png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	return n >= 8 && !memcmp(d, png_magic, 8);
}

/* The formats we decode: the first whose magic matches decodes the bytes. */
static const struct decoder {
	const char *name;
	int (*match)(const uint8_t *data, size_t n);
	int (*decode)(const uint8_t *data, size_t n, uint64_t max_pixels,
		      struct buf *out, int *h, int *w, char *err, size_t errlen);
} decoders[] = {
	{ "JPEG", is_jpeg, decode_jpeg_mem },
	{ "PNG", is_png, decode_png_mem },
};

static const struct decoder *decoder_of(const uint8_t *data, size_t n)
{
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (decoders[i].match(data, n))
			return &decoders[i];
	return NULL;
}

int decode_sniff(const uint8_t *data, size_t n, char *err, size_t errlen)
{
	if (n == 0) {
		snprintf(err, errlen, "empty file");
		return -1;
	}
	if (decoder_of(data, n))
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
	return decoder_of(data, n)->decode(data, n, max_pixels, out, h, w, err, errlen);
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
