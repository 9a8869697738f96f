/* Helpers shared by the geometry unit tests (test_ops_geometry.c,
 * test_resample.c, test_tensor_ops.c, test_rng.c): fixture loading through
 * the library's .npy reader, the synthetic images of
 * scripts/fixtures_geometry.py, and ops configured from a string. Each test
 * is its own binary, so everything here is static inline. */
#ifndef PPBENCH_TESTUTIL_H
#define PPBENCH_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "npy.h"
#include "op.h"
#include "sample.h"

/* the fixtures of scripts/fixtures_geometry.py */
#define FIX "tests/fixtures/geometry/"

/* npy_read, saying why on stderr when it fails */
static inline int npy_load(const char *path, struct npy *n)
{
	char err[512];
	if (npy_read(path, n, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

/* load a fixture that must exist and have dtype descr */
static inline void load(const char *path, const char *descr, struct npy *n)
{
	assert_int_equal(npy_load(path, n), 0);
	assert_string_equal(n->dtype, descr);
}

/* make_image() of scripts/fixtures_geometry.py: a photo-like RGB image
 * drawn with integers only, so C and numpy agree on every byte */
static inline uint32_t hash32(uint32_t x, uint32_t y, uint32_t c, uint32_t salt)
{
	uint32_t h = (x * 0x9E3779B1u) ^ (y * 0x85EBCA77u) ^ (c * 0xC2B2AE3Du + salt);
	h ^= h >> 16;
	h *= 0x7FEB352Du;
	h ^= h >> 15;
	h *= 0x846CA68Bu;
	h ^= h >> 16;
	return h;
}

static inline uint8_t *make_image(int W, int H, uint32_t salt)
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

static inline uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* compare out (w x h, packed) with a fixture: the whole image or row digests */
static inline void check_image(const char *file, const uint8_t *out, int w, int h, const char *kind)
{
	char path[256];
	struct npy n;
	snprintf(path, sizeof(path), FIX "%s", file);
	assert_int_equal(npy_load(path, &n), 0);
	size_t row = (size_t)w * 3;
	if (!strcmp(kind, "full")) {
		assert_string_equal(n.dtype, "|u1");
		assert_int_equal(n.count, row * h);
		for (int y = 0; y < h; y++)
			for (size_t i = 0; i < row; i++) {
				uint8_t want = ((uint8_t *)n.data)[y * row + i];
				if (out[y * row + i] != want)
					fail_msg("%s: pixel (%zu, %d) channel %zu is %u, Pillow %u", file,
						 i / 3, y, i % 3, out[y * row + i], want);
			}
	} else {
		assert_string_equal(n.dtype, "<u8");
		assert_int_equal(n.count, (size_t)h);
		for (int y = 0; y < h; y++)
			if (fnv1a(out + y * row, row) != ((uint64_t *)n.data)[y])
				fail_msg("%s: row %d differs from Pillow's", file, y);
	}
	npy_free(&n);
}

/* An op configured from "key=value key=value" (NULL: no arguments). */
static inline void *op_make(const struct op_ops *o, const char *argline, char *err, size_t errlen)
{
	struct op_args a = { 0 };
	char tmp[256];
	snprintf(tmp, sizeof(tmp), "%s", argline ? argline : "");
	char *save = NULL;
	for (char *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');
		assert_non_null(eq);
		*eq = 0;
		snprintf(a.key[a.n], sizeof(a.key[0]), "%s", t);
		snprintf(a.val[a.n], sizeof(a.val[0]), "%s", eq + 1);
		a.n++;
	}
	void *cfg = NULL;
	err[0] = 0;
	if (op_configure(o, &a, &cfg, err, errlen))
		return NULL;
	/* ops without configuration give NULL: hand back a non-NULL token */
	return cfg ? cfg : (void *)o;
}

static inline void op_free(const struct op_ops *o, void *cfg)
{
	if (cfg != (void *)o && o->release)
		o->release(cfg);
}

/* the configuration to hand to o->run: NULL for op_make's token */
static inline const void *op_cfg(const struct op_ops *o, void *cfg)
{
	return cfg == (void *)o ? NULL : cfg;
}

/* s holds a copy of the W x H image */
static inline void sample_set(struct sample *s, struct scratch *scr, const uint8_t *img, int W, int H)
{
	struct buf keep = s->data;
	memset(s, 0, sizeof(*s));
	s->data = keep;
	s->scr = scr;
	assert_int_equal(buf_reserve(&s->data, (size_t)W * H * 3), 0);
	memcpy(s->data.p, img, (size_t)W * H * 3);
	s->kind = PIX_U8_HWC;
	s->w = W;
	s->h = H;
}

/* ---- golden tests once per kernel (pipelines/kernels.h) ----------------------
 * KERNEL_TESTS(f) registers f once per kernel, "f/sse2", "f/avx2", "f/avx512",
 * "f/avx512vnni";
 * each begins with kernel_or_skip(state), which makes that kernel the one
 * the ops use (as PPBENCH_KERNEL would), or skips with the reason when the
 * CPU lacks it. */
static const enum kernel_id kernel_ids[KERNEL_COUNT] = { KERNEL_SSE2, KERNEL_AVX2, KERNEL_AVX512,
							  KERNEL_AVX512VNNI };

static inline void kernel_or_skip(void **state)
{
	enum kernel_id id = *(const enum kernel_id *)*state;
	const char *why;
	if (!kernels_supported(id, &why)) {
		print_message("kernel %s: %s\n", kernels_of(id)->name, why);
		skip();
	}
	char err[256];
	if (kernels_use(kernels_of(id)->name, err, sizeof(err)))
		fail_msg("%s", err);
}

#define KERNEL_TEST1(f, k, i) \
	{ #f "/" k, f, NULL, NULL, (void *)&kernel_ids[i] }
#define KERNEL_TESTS(f) \
	KERNEL_TEST1(f, "sse2", 0), KERNEL_TEST1(f, "avx2", 1), KERNEL_TEST1(f, "avx512", 2), \
		KERNEL_TEST1(f, "avx512vnni", 3)

#endif
