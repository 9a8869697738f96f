/* The encoders: TurboJPEG (from planes or pixels), plain CMYK with the
 * libjpeg API, and libpng for the PNG named .JPEG. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jpeglib.h>
#include <png.h>
#include <turbojpeg.h>
#include "gen_int.h"

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	char msg[JMSG_LENGTH_MAX];
	unsigned char *mem;
	unsigned long size;
};

static void jerr_exit(j_common_ptr c)
{
	struct jerr *e = (struct jerr *)c->err;
	c->err->format_message(c, e->msg);
	longjmp(e->jb, 1);
}

static void jerr_silent(j_common_ptr c)
{
	(void)c;
}

/* Plain CMYK (Adobe transform 0) with the libjpeg API: TurboJPEG only
 * writes YCCK. The file goes to e->mem (malloc'd by libjpeg). */
static int encode_cmyk_plain(const struct plan *p, const unsigned char *pix, struct jerr *e,
			     char *err, size_t errlen)
{
	struct jpeg_compress_struct ci;
	memset(&ci, 0, sizeof(ci));
	ci.err = jpeg_std_error(&e->pub);
	e->pub.error_exit = jerr_exit;
	e->pub.output_message = jerr_silent;
	e->mem = NULL;
	e->size = 0;
	if (setjmp(e->jb)) {
		jpeg_destroy_compress(&ci);
		free(e->mem);
		e->mem = NULL;
		snprintf(err, errlen, "cannot encode CMYK JPEG: %s", e->msg);
		return -1;
	}
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, &e->mem, &e->size);
	ci.image_width = (JDIMENSION)p->w;
	ci.image_height = (JDIMENSION)p->h;
	ci.input_components = 4;
	ci.in_color_space = JCS_CMYK;
	jpeg_set_defaults(&ci);
	jpeg_set_colorspace(&ci, JCS_CMYK);
	ci.write_Adobe_marker = TRUE;
	jpeg_set_quality(&ci, p->quality, TRUE);
	if (p->progressive)
		jpeg_simple_progression(&ci);
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		JSAMPROW row = (JSAMPROW)(pix + (size_t)ci.next_scanline * p->w * 4);
		jpeg_write_scanlines(&ci, &row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	return 0;
}

int gen_write_all(const char *path, const unsigned char *data, size_t n, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	while (n) {
		ssize_t k = write(fd, data, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, "cannot write '%s': %s", path, k < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		data += k;
		n -= (size_t)k;
	}
	if (close(fd)) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* An RGB PNG (what ImageNet's n02105855_2933.JPEG really is). */
static int write_png(const char *path, const struct plan *p, const unsigned char *pix,
		     uint64_t *bytes, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wbx");
	if (!f) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		fclose(f);
		snprintf(err, errlen, "cannot write '%s': out of memory", path);
		return -1;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		fclose(f);
		snprintf(err, errlen, "cannot write '%s': libpng error", path);
		return -1;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, (png_uint_32)p->w, (png_uint_32)p->h, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (int y = 0; y < p->h; y++)
		png_write_row(png, (png_const_bytep)(pix + (size_t)y * p->w * 3));
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	long end = ftell(f);
	if (fclose(f) || end < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	*bytes = (uint64_t)end;
	return 0;
}

int gen_make_image(struct work *wk, const struct plan *p, uint64_t *s, const char *path,
		      uint64_t *bytes, char *err, size_t errlen)
{
	if (gen_work_reserve(wk, p->w, p->h)) {
		snprintf(err, errlen, "cannot make '%s': out of memory", path);
		return -1;
	}
	gen_synthesize(wk, p, s);
	if (p->kind == K_PNG)
		return write_png(path, p, wk->pix, bytes, err, errlen);
	if (p->kind == K_CMYK) {
		struct jerr e;
		if (encode_cmyk_plain(p, wk->pix, &e, err, errlen))
			return -1;
		int rc = gen_write_all(path, e.mem, e.size, err, errlen);
		free(e.mem);
		*bytes = e.size;
		return rc;
	}
	/* TurboJPEG 2.1 keeps a progressive scan script in the handle that
	 * breaks later baseline encodes from planes: progressive images get a
	 * handle of their own */
	tjhandle tj = p->progressive ? tjInitCompress() : wk->tj ? wk->tj : (wk->tj = tjInitCompress());
	if (!tj) {
		snprintf(err, errlen, "cannot start TurboJPEG: %s", tjGetErrorStr());
		return -1;
	}
	/* a buffer of the worst-case size, so TurboJPEG never reallocates it
	 * (2.1 would drop ours without freeing it) */
	unsigned long need = tjBufSize(p->w, p->h, TJSAMP_444);
	if (need > wk->jcap) {
		if (wk->jpg)
			tjFree(wk->jpg);
		wk->jcap = 0;
		if (!(wk->jpg = tjAlloc((int)need))) {
			snprintf(err, errlen, "cannot encode '%s': out of memory", path);
			if (tj != wk->tj)
				tjDestroy(tj);
			return -1;
		}
		wk->jcap = need;
	}
	unsigned long size = wk->jcap;
	const int flags = TJFLAG_NOREALLOC | (p->progressive ? TJFLAG_PROGRESSIVE : 0);
	int bad;
	if (gen_plan_planar(p)) {
		const int cw = (p->w + 1) / 2, ch = (p->h + 1) / 2;
		const unsigned char *planes[3] = {
			wk->pix, wk->pix + (size_t)p->w * p->h, wk->pix + (size_t)p->w * p->h + (size_t)cw * ch
		};
		const int strides[3] = { p->w, cw, cw };
		bad = tjCompressFromYUVPlanes(tj, planes, p->w, strides, p->h, p->subsamp, &wk->jpg,
					      &size, p->quality, flags);
	} else {
		const int pf = p->kind == K_YCCK ? TJPF_CMYK : TJPF_RGB;
		bad = tjCompress2(tj, wk->pix, p->w, p->w * tjPixelSize[pf], p->h, pf, &wk->jpg,
				  &size, p->subsamp, p->quality, flags);
	}
	if (bad)
		snprintf(err, errlen, "cannot encode '%s': %s", path, tjGetErrorStr2(tj));
	if (tj != wk->tj)
		tjDestroy(tj);
	if (bad)
		return -1;
	*bytes = size;
	return gen_write_all(path, wk->jpg, size, err, errlen);
}
