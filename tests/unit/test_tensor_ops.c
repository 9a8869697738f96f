/* to_tensor, normalize, random_horizontal_flip and collate: ToTensor and
 * Normalize bit for bit against torchvision 0.14 (fixtures from
 * scripts/fixtures_geometry.py), the flip and the collate layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rng.h"
#include "sample.h"
#include "testutil.h"

/* 16x16, every value 0..255 in each channel (fixtures_tensor) */
static void all_values(uint8_t img[16 * 16 * 3])
{
	for (int p = 0; p < 256; p++)
		for (int c = 0; c < 3; c++)
			img[3 * p + c] = (uint8_t)((p + 85 * c) % 256);
}

static void check_f32(const char *path, const float *got, size_t n)
{
	struct npy e;
	assert_int_equal(npy_load(path, &e), 0);
	assert_string_equal(e.dtype, "<f4");
	assert_int_equal(e.count, n);
	const float *want = e.data;
	for (size_t i = 0; i < n; i++)
		if (memcmp(&got[i], &want[i], sizeof(float)))
			fail_msg("%s: element %zu (channel %zu) is %a, torch %a", path, i, i / 256,
				 got[i], want[i]);
	npy_free(&e);
}

static void test_to_tensor_normalize(void **state)
{
	kernel_or_skip(state);
	const struct op_ops *tt = op_find("to_tensor"), *nm = op_find("normalize");
	assert_non_null(tt);
	assert_non_null(nm);
	char err[200];
	void *ncfg = op_make(nm, NULL, err, sizeof(err));
	assert_non_null(ncfg);
	uint8_t img[16 * 16 * 3];
	all_values(img);
	struct scratch scr = { 0 };
	struct sample s = { 0 };
	sample_set(&s, &scr, img, 16, 16);
	assert_int_equal(tt->run(NULL, &s), 0);
	assert_int_equal(s.kind, PIX_F32_CHW);
	assert_int_equal(s.w, 16);
	assert_int_equal(s.h, 16);
	check_f32(FIX "to_tensor.npy", s.data.p, 3 * 256);
	assert_int_equal(nm->run(ncfg, &s), 0);
	check_f32(FIX "normalize.npy", s.data.p, 3 * 256);
	/* the explicit default arguments are the same op */
	nm->release(ncfg);
	ncfg = op_make(nm, "mean=0.485,0.456,0.406 std=0.229,0.224,0.225", err, sizeof(err));
	assert_non_null(ncfg);
	sample_set(&s, &scr, img, 16, 16);
	assert_int_equal(tt->run(NULL, &s), 0);
	assert_int_equal(nm->run(ncfg, &s), 0);
	check_f32(FIX "normalize.npy", s.data.p, 3 * 256);
	nm->release(ncfg);
	assert_null(op_make(nm, "std=1,0,1", err, sizeof(err)));
	sample_release(&s);
	scratch_release(&scr);
}

static void mirror(const uint8_t *in, uint8_t *out, int W, int H)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			memcpy(out + ((size_t)y * W + x) * 3, in + ((size_t)y * W + (W - 1 - x)) * 3, 3);
}

static void test_flip(void **state)
{
	kernel_or_skip(state);
	const struct op_ops *o = op_find("random_horizontal_flip");
	assert_non_null(o);
	char err[200];
	void *cfg = op_make(o, NULL, err, sizeof(err));
	assert_non_null(cfg);
	struct scratch scr = { 0 };
	struct sample s = { 0 };
	static const int dims[][2] = { { 1, 1 }, { 2, 3 }, { 7, 5 }, { 224, 224 }, { 33, 1 } };
	for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		int W = dims[d][0], H = dims[d][1];
		size_t n = (size_t)W * H * 3;
		uint8_t *img = malloc(n), *mir = malloc(n);
		assert_true(img && mir);
		for (size_t i = 0; i < n; i++)
			img[i] = (uint8_t)(i * 37 + i / 7);
		mirror(img, mir, W, H);
		struct rng r, ref;
		rng_seed(&r, 100 + d);
		rng_seed(&ref, 100 + d);
		/* drawn: flip iff torch.rand(1) < 0.5, one draw per sample */
		for (int k = 0; k < 16; k++) {
			sample_set(&s, &scr, img, W, H);
			s.rng = &r;
			assert_int_equal(o->run(cfg, &s), 0);
			int flip = rng_torch_rand(&ref) < 0.5f;
			assert_memory_equal(s.data.p, flip ? mir : img, n);
			assert_memory_equal(&r, &ref, sizeof(r));
		}
		/* forced */
		for (int f = 0; f <= 1; f++) {
			struct fixed_choice fc = { .flip = f };
			sample_set(&s, &scr, img, W, H);
			s.rng = &r;
			s.fixed = &fc;
			assert_int_equal(o->run(cfg, &s), 0);
			assert_memory_equal(s.data.p, f ? mir : img, n);
		}
		free(img);
		free(mir);
	}
	o->release(cfg);
	/* p = 0 never flips, p = 1 always does */
	char args[16];
	for (int p = 0; p <= 1; p++) {
		snprintf(args, sizeof(args), "p=%d", p);
		void *c = op_make(o, args, err, sizeof(err));
		assert_non_null(c);
		uint8_t img[4 * 3] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, mir[4 * 3];
		mirror(img, mir, 4, 1);
		struct rng r;
		rng_seed(&r, 5);
		for (int k = 0; k < 8; k++) {
			sample_set(&s, &scr, img, 4, 1);
			s.rng = &r;
			assert_int_equal(o->run(c, &s), 0);
			assert_memory_equal(s.data.p, p ? mir : img, sizeof(img));
		}
		o->release(c);
	}
	assert_null(op_make(o, "p=1.5", err, sizeof(err)));
	sample_release(&s);
	scratch_release(&scr);
}

/* to_tensor, normalize and the flip give the sse2 kernel's bits with every
 * kernel the CPU runs, at sizes that leave vector tails */
static void test_kernels_agree(void **state)
{
	(void)state;
	static const int dims[][2] = { { 37, 23 }, { 224, 224 }, { 1, 1 }, { 65, 3 }, { 333, 2 },
				       { 6, 2 }, { 7, 2 }, { 11, 1 }, { 12, 3 } };
	for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		size_t hw = (size_t)dims[d][0] * dims[d][1];
		uint8_t *img = make_image(dims[d][0], dims[d][1], 3);
		float *want = malloc(hw * 12), *got = malloc(hw * 12);
		uint8_t *fw = malloc(hw * 3), *fg = malloc(hw * 3);
		assert_true(img && want && got && fw && fg);
		for (int id = 0; id < KERNEL_COUNT; id++) {
			if (!kernels_supported((enum kernel_id)id, NULL))
				continue;
			const struct kernels *k = kernels_of((enum kernel_id)id);
			float *o = id ? got : want;
			uint8_t *f = id ? fg : fw;
			k->to_tensor(img, hw, o, o + hw, o + 2 * hw);
			k->normalize(o, hw * 3, 0.456f, 0.224f);
			for (int y = 0; y < dims[d][1]; y++)
				k->flip_row(img + (size_t)y * dims[d][0] * 3, f + (size_t)y * dims[d][0] * 3,
					    dims[d][0]);
			if (id && (memcmp(want, got, hw * 12) || memcmp(fw, fg, hw * 3)))
				fail_msg("kernel %s differs from sse2 at %dx%d", k->name, dims[d][0], dims[d][1]);
		}
		free(img);
		free(want);
		free(got);
		free(fw);
		free(fg);
	}
}

/* default_collate: [n, 3, h, w] float32 in sample order, then n int64 labels */
static void test_collate(void **state)
{
	(void)state;
	const struct op_ops *o = op_find("collate");
	assert_non_null(o);
	assert_true(o->flags & OP_BATCH);
	enum { N = 3, H = 4, W = 5 };
	struct scratch scr = { 0 };
	struct sample smp[N];
	struct sample *ptr[N];
	memset(smp, 0, sizeof(smp));
	size_t one = 3 * H * W;
	for (int k = 0; k < N; k++) {
		smp[k].scr = &scr;
		smp[k].kind = PIX_F32_CHW;
		smp[k].h = H;
		smp[k].w = W;
		smp[k].label = 1000 + 7 * k;
		assert_int_equal(buf_reserve(&smp[k].data, one * sizeof(float)), 0);
		float *f = smp[k].data.p;
		for (size_t i = 0; i < one; i++)
			f[i] = (float)k * 1000.0f + (float)i;
		ptr[k] = &smp[k];
	}
	size_t bytes = o->batch_bytes(NULL, N, H, W);
	assert_int_equal(bytes, N * one * sizeof(float) + N * sizeof(int64_t));
	void *mem = malloc(bytes);
	assert_non_null(mem);
	struct batch_out out = { .mem = mem, .capacity = bytes, .n = N };
	char err[256];
	assert_int_equal(o->run_batch(NULL, ptr, N, &out, err, sizeof(err)), 0);
	assert_int_equal(out.image_bytes, N * one * sizeof(float));
	assert_int_equal(out.h, H);
	assert_int_equal(out.w, W);
	const float *img = mem;
	for (int k = 0; k < N; k++)
		assert_memory_equal(img + k * one, smp[k].data.p, one * sizeof(float));
	int64_t labels[N];
	memcpy(labels, (const char *)mem + N * one * sizeof(float), sizeof(labels));
	for (int k = 0; k < N; k++)
		assert_int_equal(labels[k], 1000 + 7 * k);
	/* too small a slot, and samples of different sizes, are refused */
	out.capacity = bytes - 1;
	assert_int_equal(o->run_batch(NULL, ptr, N, &out, err, sizeof(err)), -1);
	out.capacity = bytes;
	smp[1].w = W - 1;
	assert_int_equal(o->run_batch(NULL, ptr, N, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "equal size"));
	smp[1].w = W;
	/* an empty batch is empty */
	assert_int_equal(o->run_batch(NULL, ptr, 0, &out, err, sizeof(err)), 0);
	assert_int_equal(out.image_bytes, 0);
	free(mem);
	for (int k = 0; k < N; k++)
		sample_release(&smp[k]);
	scratch_release(&scr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KERNEL_TESTS(test_to_tensor_normalize),
		KERNEL_TESTS(test_flip),
		cmocka_unit_test(test_collate),
		cmocka_unit_test(test_kernels_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
