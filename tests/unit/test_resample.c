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
#include "kernels.h"
#include "resample.h"
#include "sample.h"
#include "testutil.h"

struct source {
	int w, h;
	uint32_t salt;
};
/* SOURCES of the script */
static const struct source sources[] = { { 300, 260, 1 }, { 500, 375, 2 } };

static void test_fixture_boxes(void **state)
{
	kernel_or_skip(state);
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
	kernel_or_skip(state);
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

/* every kernel the CPU runs gives the sse2 kernel's bytes, at sizes whose
 * lanes exercise every block width (64, 32, 16 and the scalar tail) */
static void test_kernels_agree(void **state)
{
	(void)state;
	const int W = 301, H = 211;
	uint8_t *src = make_image(W, H, 7);
	uint8_t *want = malloc(400 * 400 * 3), *got = malloc(400 * 400 * 3);
	assert_true(src && want && got);
	struct buf c = { 0 }, t = { 0 };
	char err[256];
	uint32_t r = 777;
	for (int n = 0; n < 120; n++) {
		int v[6];
		for (int i = 0; i < 6; i++) {
			r = r * 1103515245u + 12345u;
			v[i] = (int)(r >> 8);
		}
		int h = 1 + v[0] % H, w = 1 + v[1] % W, top = v[2] % (H - h + 1), left = v[3] % (W - w + 1);
		int ow = 1 + v[4] % 400, oh = 1 + v[5] % 400;
		const uint8_t *box = src + ((size_t)top * W + left) * 3;
		assert_int_equal(kernels_use("sse2", err, sizeof(err)), 0);
		assert_int_equal(resample_bilinear_u8(box, w, h, W * 3, want, ow, oh, &c, &t), 0);
		for (int id = KERNEL_AVX2; id < KERNEL_COUNT; id++) {
			if (!kernels_supported((enum kernel_id)id, NULL))
				continue;
			assert_int_equal(kernels_use(kernels_of((enum kernel_id)id)->name, err, sizeof(err)), 0);
			assert_int_equal(resample_bilinear_u8(box, w, h, W * 3, got, ow, oh, &c, &t), 0);
			if (memcmp(want, got, (size_t)ow * oh * 3))
				fail_msg("kernel %s differs from sse2: %dx%d box to %dx%d",
					 kernels_of((enum kernel_id)id)->name, w, h, ow, oh);
		}
	}
	assert_int_equal(kernels_use("auto", err, sizeof(err)), 0);
	buf_free(&c);
	buf_free(&t);
	free(src);
	free(want);
	free(got);
}

/* the three-byte split of the VNNI kernel: every weight in [W3_MIN,
 * W3_MAX] splits (a, b, c in int8, a 2^8 + b in int16) and the parts give
 * it back; the first weights outside are refused (the axis then runs the
 * pmaddwd kernels) */
static void test_split3(void **state)
{
	(void)state;
	int8_t p[3];
	const int32_t edge[] = { W3_MIN, W3_MIN + 1, -1, 0, 1, 127, 128, 255, 256, 32767, 32768,
				 1 << 21, (1 << 22) - 1, 1 << 22, W3_MAX - 1, W3_MAX };
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		assert_int_equal(resample_split3(edge[i], p), 0);
		assert_int_equal((int32_t)p[0] * 65536 + (int32_t)p[1] * 256 + p[2], edge[i]);
	}
	/* every 97th weight across the range, and a 2^8 + b fits int16 */
	for (int32_t w = W3_MIN; w <= W3_MAX; w += 97) {
		assert_int_equal(resample_split3(w, p), 0);
		assert_int_equal((int32_t)p[0] * 65536 + (int32_t)p[1] * 256 + p[2], w);
		int32_t h = (int32_t)p[0] * 256 + p[1];
		assert_true(h >= -32768 && h <= 32767);
	}
	assert_int_equal(resample_split3(W3_MAX + 1, p), -1);
	assert_int_equal(resample_split3(W3_MIN - 1, p), -1);
	assert_int_equal(resample_split3(1 << 23, p), -1);
	assert_int_equal(resample_split3(INT32_MIN, p), -1);
	assert_int_equal(resample_split3(INT32_MAX, p), -1);
}

/* The avx512vnni kernel takes each path it has (words mode, four rows at a
 * time with a partial last quad, 64- and 128-byte windows, one to three
 * tap groups, the vertical windows of upscaling) and falls back to the
 * pmaddwd kernels where it cannot (a huge downscale, rows narrower than a
 * window, more than 32 taps): the same bytes as sse2 every time, and each
 * pass split as expected. Skipped where the CPU has no VNNI. */
static void test_vnni_paths(void **state)
{
	(void)state;
	const char *why;
	if (!kernels_supported(KERNEL_AVX512VNNI, &why)) {
		print_message("avx512vnni: %s\n", why);
		skip();
	}
	const enum resample_split S3 = RESAMPLE_SPLIT3, S2 = RESAMPLE_SPLIT2, NO = RESAMPLE_SKIPPED;
	static const struct {
		int w, h, ow, oh;
		enum resample_split eh, ev;
	} c[] = {
		{ 330, 250, 224, 224, S3, S3 },   /* 3-4 taps across, 2-3 down */
		{ 150, 120, 224, 224, S3, S3 },   /* upscaling: words mode, shared rows */
		{ 301, 211, 157, 113, S3, S3 },   /* 211 rows (4 at a time and 3), a partial quad */
		{ 450, 300, 224, 224, S3, S3 },   /* 5 taps: two tap groups, 64-byte windows */
		{ 780, 620, 224, 224, S3, S3 },   /* 7-8 taps: 128-byte windows */
		{ 1000, 950, 224, 224, S3, S3 },  /* 9-10 taps: three tap groups, 128-byte windows */
		{ 2400, 30, 224, 30, S2, NO },    /* 11 taps over 171 bytes: no window holds them */
		{ 20, 300, 50, 100, S2, S3 },     /* rows of 60 bytes, narrower than a window */
		{ 30, 2000, 30, 40, NO, S2 },     /* 101 taps down */
	};
	const int W = 2400, H = 2000;
	uint8_t *src = make_image(W, H, 5), *want = malloc(224 * 224 * 3), *got = malloc(224 * 224 * 3);
	assert_true(src && want && got);
	struct buf cf = { 0 }, t = { 0 };
	char err[256];
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct resample_how how;
		size_t n = (size_t)c[i].ow * c[i].oh * 3;
		assert_int_equal(kernels_use("sse2", err, sizeof(err)), 0);
		assert_int_equal(resample_bilinear_u8(src, c[i].w, c[i].h, W * 3, want, c[i].ow, c[i].oh, &cf, &t), 0);
		assert_int_equal(kernels_use("avx512vnni", err, sizeof(err)), 0);
		memset(got, 0xAA, n);
		assert_int_equal(resample_bilinear_u8_how(src, c[i].w, c[i].h, W * 3, got, c[i].ow, c[i].oh, &cf,
							  &t, &how), 0);
		if (memcmp(want, got, n))
			fail_msg("avx512vnni differs from sse2: %dx%d to %dx%d", c[i].w, c[i].h, c[i].ow, c[i].oh);
		if (how.h != c[i].eh || how.v != c[i].ev)
			fail_msg("%dx%d to %dx%d: passes split %d, %d (wanted %d, %d)", c[i].w, c[i].h,
				 c[i].ow, c[i].oh, how.h, how.v, c[i].eh, c[i].ev);
	}
	assert_int_equal(kernels_use("auto", err, sizeof(err)), 0);
	buf_free(&cf);
	buf_free(&t);
	free(src);
	free(want);
	free(got);
}

static void test_properties(void **state)
{
	kernel_or_skip(state);
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
		KERNEL_TESTS(test_fixture_boxes),
		KERNEL_TESTS(test_stride_sweep),
		KERNEL_TESTS(test_properties),
		cmocka_unit_test(test_kernels_agree),
		cmocka_unit_test(test_split3),
		cmocka_unit_test(test_vnni_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
