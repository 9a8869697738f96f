/* Pillow's bilinear resize: crop + resize against Pillow 9.4 for every box
 * of tests/fixtures/geometry/resample.csv (scripts/fixtures_geometry.py). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resample.h"
#include "sample.h"

#define FIX "tests/fixtures/geometry/"

/* A private .npy reader (version 1/2, little-endian, C order) so this test
 * does not depend on bench/npy.c. */
struct npy {
	char descr[8];     /* "<u4", "|u1", "<f4"... */
	int ndim;
	size_t shape[4];
	size_t count;      /* elements */
	size_t itemsize;
	void *data;        /* malloc'd, count * itemsize bytes */
};

static int npy_load(const char *path, struct npy *n)
{
	memset(n, 0, sizeof(*n));
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open '%s'\n", path);
		return -1;
	}
	unsigned char pre[12];
	char hdr[4096];
	size_t hlen;
	int rc = -1;
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6))
		goto out;
	if (pre[6] == 1) {
		hlen = pre[8] | (size_t)pre[9] << 8;
	} else {
		if (fread(pre + 10, 1, 2, f) != 2)
			goto out;
		hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen >= sizeof(hdr) || fread(hdr, 1, hlen, f) != hlen)
		goto out;
	hdr[hlen] = 0;
	char *d = strstr(hdr, "'descr': '");
	char *s = strstr(hdr, "'shape': (");
	if (!d || !s || !strstr(hdr, "'fortran_order': False"))
		goto out;
	d += 10;
	size_t k = 0;
	while (d[k] && d[k] != '\'' && k < sizeof(n->descr) - 1) {
		n->descr[k] = d[k];
		k++;
	}
	n->itemsize = (size_t)atoi(n->descr + 2);
	s += 10;
	n->count = 1;
	while (*s && *s != ')') {
		char *end;
		unsigned long long v = strtoull(s, &end, 10);
		if (end == s) {
			s++;
			continue;
		}
		if (n->ndim == 4)
			goto out;
		n->shape[n->ndim++] = (size_t)v;
		n->count *= (size_t)v;
		s = end;
	}
	if (!n->itemsize)
		goto out;
	n->data = malloc(n->count * n->itemsize + 1);
	if (!n->data || fread(n->data, n->itemsize, n->count, f) != n->count)
		goto out;
	rc = 0;
out:
	if (rc) {
		fprintf(stderr, "cannot read '%s': not a .npy file this test understands\n", path);
		free(n->data);
		n->data = NULL;
	}
	fclose(f);
	return rc;
}

static void npy_free(struct npy *n)
{
	free(n->data);
	n->data = NULL;
}

/* make_image() of scripts/fixtures_geometry.py: a photo-like RGB image
 * drawn with integers only, so C and numpy agree on every byte */
static uint32_t hash32(uint32_t x, uint32_t y, uint32_t c, uint32_t salt)
{
	uint32_t h = (x * 0x9E3779B1u) ^ (y * 0x85EBCA77u) ^ (c * 0xC2B2AE3Du + salt);
	h ^= h >> 16;
	h *= 0x7FEB352Du;
	h ^= h >> 15;
	h *= 0x846CA68Bu;
	h ^= h >> 16;
	return h;
}

static uint8_t *make_image(int W, int H, uint32_t salt)
{
	uint8_t *img = malloc((size_t)W * H * 3);
	assert_non_null(img);
	for (int64_t y = 0; y < H; y++)
		for (int64_t x = 0; x < W; x++)
			for (int c = 0; c < 3; c++) {
				int64_t g = (x * 160) / W + (y * 60) / H;
				int64_t blk = (((x / 23) + (y / 17) + c) % 3) * 20;
				int64_t dx = 2 * x - W, dy = 2 * y - H;
				int64_t disc = dx * dx + dy * dy < ((int64_t)W * W + (int64_t)H * H) / 9 ? 30 : 0;
				int64_t noise = hash32((uint32_t)x, (uint32_t)y, (uint32_t)c, salt) & 31;
				int64_t v = g + blk + disc + noise - 40 + c * 15;
				img[((size_t)y * W + (size_t)x) * 3 + c] = v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
			}
	return img;
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* compare out (w x h, packed) with a fixture: the whole image or row digests */
static void check_image(const char *file, const uint8_t *out, int w, int h, const char *kind)
{
	char path[256];
	struct npy n;
	snprintf(path, sizeof(path), FIX "%s", file);
	assert_int_equal(npy_load(path, &n), 0);
	size_t row = (size_t)w * 3;
	if (!strcmp(kind, "full")) {
		assert_string_equal(n.descr, "|u1");
		assert_int_equal(n.count, row * h);
		for (int y = 0; y < h; y++)
			for (size_t i = 0; i < row; i++) {
				uint8_t want = ((uint8_t *)n.data)[y * row + i];
				if (out[y * row + i] != want)
					fail_msg("%s: pixel (%zu, %d) channel %zu is %u, Pillow %u", file,
						 i / 3, y, i % 3, out[y * row + i], want);
			}
	} else {
		assert_string_equal(n.descr, "<u8");
		assert_int_equal(n.count, (size_t)h);
		for (int y = 0; y < h; y++)
			if (fnv1a(out + y * row, row) != ((uint64_t *)n.data)[y])
				fail_msg("%s: row %d differs from Pillow's", file, y);
	}
	npy_free(&n);
}

struct source {
	int w, h;
	uint32_t salt;
};
/* SOURCES of the script */
static const struct source sources[] = { { 300, 260, 1 }, { 500, 375, 2 } };

static void test_fixture_boxes(void **state)
{
	(void)state;
	uint8_t *src[2];
	for (int k = 0; k < 2; k++)
		src[k] = make_image(sources[k].w, sources[k].h, sources[k].salt);
	FILE *f = fopen(FIX "resample.csv", "r");
	assert_non_null(f);
	char line[256];
	assert_non_null(fgets(line, sizeof(line), f));  /* header */
	struct buf coeffs = { 0 }, tmp = { 0 };
	int cases = 0;
	while (fgets(line, sizeof(line), f)) {
		char file[64], kind[16];
		int s, top, left, h, w, ow, oh;
		assert_int_equal(sscanf(line, "%63[^,],%d,%d,%d,%d,%d,%d,%d,%15[a-z]", file, &s, &top,
					&left, &h, &w, &ow, &oh, kind), 9);
		int W = sources[s].w;
		uint8_t *out = malloc((size_t)ow * oh * 3);
		uint8_t *crop = malloc((size_t)w * h * 3);
		assert_true(out && crop);
		/* the crop in place, rows W * 3 bytes apart */
		const uint8_t *box = src[s] + ((size_t)top * W + left) * 3;
		assert_int_equal(resample_bilinear_u8(box, w, h, W * 3, out, ow, oh, &coeffs, &tmp), 0);
		check_image(file, out, ow, oh, kind);
		/* and copied out first: the same bytes */
		for (int y = 0; y < h; y++)
			memcpy(crop + (size_t)y * w * 3, box + (size_t)y * W * 3, (size_t)w * 3);
		memset(out, 0xAA, (size_t)ow * oh * 3);
		assert_int_equal(resample_bilinear_u8(crop, w, h, w * 3, out, ow, oh, &coeffs, &tmp), 0);
		check_image(file, out, ow, oh, kind);
		free(out);
		free(crop);
		cases++;
	}
	fclose(f);
	assert_true(cases >= 20);
	buf_free(&coeffs);
	buf_free(&tmp);
	free(src[0]);
	free(src[1]);
}

/* in place (strided) and copied crops agree for random boxes and sizes,
 * with the scratch buffers reused from call to call as in a worker */
static void test_stride_sweep(void **state)
{
	(void)state;
	const int W = 157, H = 131;
	uint8_t *src = make_image(W, H, 99);
	uint8_t *a = malloc(300 * 300 * 3), *b = malloc(300 * 300 * 3), *crop = malloc(W * H * 3);
	assert_true(a && b && crop);
	struct buf c1 = { 0 }, t1 = { 0 }, c2 = { 0 }, t2 = { 0 };
	uint32_t r = 12345;
	for (int n = 0; n < 300; n++) {
		r = r * 1103515245u + 12345u;
		int h = 1 + (int)(r >> 8) % H;
		r = r * 1103515245u + 12345u;
		int w = 1 + (int)(r >> 8) % W;
		r = r * 1103515245u + 12345u;
		int top = (int)(r >> 8) % (H - h + 1);
		r = r * 1103515245u + 12345u;
		int left = (int)(r >> 8) % (W - w + 1);
		r = r * 1103515245u + 12345u;
		int ow = 1 + (int)(r >> 8) % 300;
		r = r * 1103515245u + 12345u;
		int oh = n % 3 ? 1 + (int)(r >> 8) % 300 : h;   /* some skip the vertical pass */
		if (n % 5 == 0)
			ow = w;                                 /* some skip the horizontal one */
		const uint8_t *box = src + ((size_t)top * W + left) * 3;
		for (int y = 0; y < h; y++)
			memcpy(crop + (size_t)y * w * 3, box + (size_t)y * W * 3, (size_t)w * 3);
		assert_int_equal(resample_bilinear_u8(box, w, h, W * 3, a, ow, oh, &c1, &t1), 0);
		assert_int_equal(resample_bilinear_u8(crop, w, h, w * 3, b, ow, oh, &c2, &t2), 0);
		assert_memory_equal(a, b, (size_t)ow * oh * 3);
	}
	buf_free(&c1);
	buf_free(&t1);
	buf_free(&c2);
	buf_free(&t2);
	free(src);
	free(a);
	free(b);
	free(crop);
}

static void test_properties(void **state)
{
	(void)state;
	struct buf c = { 0 }, t = { 0 };
	/* a flat image stays flat at any size */
	uint8_t flat[7 * 5 * 3], out[40 * 3 * 3];
	for (size_t i = 0; i < sizeof(flat); i++)
		flat[i] = (uint8_t)(i % 3 == 0 ? 17 : i % 3 == 1 ? 200 : 255);
	assert_int_equal(resample_bilinear_u8(flat, 7, 5, 21, out, 40, 3, &c, &t), 0);
	for (size_t i = 0; i < 40 * 3 * 3; i++)
		assert_int_equal(out[i], i % 3 == 0 ? 17 : i % 3 == 1 ? 200 : 255);
	/* same size: a copy */
	assert_int_equal(resample_bilinear_u8(flat, 7, 5, 21, out, 7, 5, &c, &t), 0);
	assert_memory_equal(out, flat, sizeof(flat));
	/* bad sizes are refused */
	assert_int_equal(resample_bilinear_u8(flat, 0, 5, 21, out, 7, 5, &c, &t), -1);
	assert_int_equal(resample_bilinear_u8(flat, 7, 5, 21, out, 7, 0, &c, &t), -1);
	assert_int_equal(resample_bilinear_u8(flat, 7, 5, 20, out, 7, 5, &c, &t), -1);
	buf_free(&c);
	buf_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_boxes),
		cmocka_unit_test(test_stride_sweep),
		cmocka_unit_test(test_properties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
