/* random_resized_crop, resize and center_crop against torchvision 0.14 /
 * Pillow 9.4 (fixtures from scripts/fixtures_geometry.py): the crop
 * parameters and flip draw of every fixture sample, the ops' pixels, and
 * the whole training chain with its draws. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rng.h"
#include "rrc.h"
#include "sample.h"
#include "testutil.h"

static void check_params(const char *fix_params, const char *fix_seeds,
			 double s0, double s1, double r0, double r1)
{
	struct npy shapes, seeds, par;
	load(FIX "rrc_shapes.npy", "<i4", &shapes);
	load(fix_seeds, "<u8", &seeds);
	load(fix_params, "<u2", &par);
	assert_int_equal(par.shape[0], seeds.count);
	assert_int_equal(par.shape[2], 5);
	const int32_t *sh = shapes.data;
	const uint64_t *sd = seeds.data;
	const uint16_t *want = par.data;
	size_t ns = shapes.shape[0], nsamp = par.shape[1];
	struct rrc_params p;
	rrc_params_init(&p, s0, s1, r0, r1);
	for (size_t a = 0; a < seeds.count; a++) {
		struct rng r;
		rng_seed(&r, sd[a]);
		for (size_t n = 0; n < nsamp; n++) {
			int W = sh[2 * (n % ns)], H = sh[2 * (n % ns) + 1], i, j, h, w;
			rrc_get_params(&r, &p, W, H, &i, &j, &h, &w);
			int flip = rng_torch_rand(&r) < 0.5f;
			const uint16_t *e = want + (a * nsamp + n) * 5;
			if (i != e[0] || j != e[1] || h != e[2] || w != e[3] || flip != e[4])
				fail_msg("seed %llu sample %zu (%dx%d): (%d, %d, %d, %d) flip %d, "
					 "torchvision (%u, %u, %u, %u) flip %u",
					 (unsigned long long)sd[a], n, W, H, i, j, h, w, flip,
					 e[0], e[1], e[2], e[3], e[4]);
		}
	}
	npy_free(&shapes);
	npy_free(&seeds);
	npy_free(&par);
}

static void test_rrc_params_fixture(void **state)
{
	(void)state;
	check_params(FIX "rrc_params.npy", FIX "rrc_seeds.npy", 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0);
}

/* RRC_ALT of the script: scale (0.25, 0.5), ratio (0.5, 2.0) */
static void test_rrc_params_alt(void **state)
{
	(void)state;
	check_params(FIX "rrc_alt_params.npy", FIX "rrc_alt_seeds.npy", 0.25, 0.5, 0.5, 2.0);
}

/* samples where a non-FMA uniform_ or a correctly rounded expf would give
 * another box (RRC_HARD of the script): replay each stream up to it */
static void test_rrc_params_hard(void **state)
{
	(void)state;
	struct npy shapes, hard;
	load(FIX "rrc_shapes.npy", "<i4", &shapes);
	load(FIX "rrc_hard.npy", "<i8", &hard);
	assert_int_equal(hard.shape[1], 7);
	const int32_t *sh = shapes.data;
	size_t ns = shapes.shape[0];
	struct rrc_params p;
	rrc_params_init(&p, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0);
	for (size_t k = 0; k < hard.shape[0]; k++) {
		const int64_t *e = (const int64_t *)hard.data + 7 * k;
		struct rng r;
		rng_seed(&r, (uint64_t)e[0]);
		int i = 0, j = 0, h = 0, w = 0, flip = 0;
		for (int64_t n = 0; n <= e[1]; n++) {
			rrc_get_params(&r, &p, sh[2 * (n % ns)], sh[2 * (n % ns) + 1], &i, &j, &h, &w);
			flip = rng_torch_rand(&r) < 0.5f;
		}
		if (i != e[2] || j != e[3] || h != e[4] || w != e[5] || flip != e[6])
			fail_msg("seed %lld sample %lld: (%d, %d, %d, %d) flip %d, torchvision "
				 "(%lld, %lld, %lld, %lld) flip %lld", (long long)e[0], (long long)e[1],
				 i, j, h, w, flip, (long long)e[2], (long long)e[3], (long long)e[4],
				 (long long)e[5], (long long)e[6]);
	}
	npy_free(&shapes);
	npy_free(&hard);
}

/* every shape from 1 to 3000 on both sides gives a box inside the image */
static void test_rrc_params_valid(void **state)
{
	(void)state;
	struct rrc_params def, alt;
	rrc_params_init(&def, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0);
	rrc_params_init(&alt, 0.9, 1.0, 0.2, 5.0);
	struct rng shapes, r;
	rng_seed(&shapes, 2718);
	rng_seed(&r, 31415);
	int fallbacks = 0;
	for (int n = 0; n < 40000; n++) {
		int W = 1 + (int)rng_torch_randint(&shapes, 3000);
		int H = 1 + (int)rng_torch_randint(&shapes, 3000);
		if (n % 7 == 0)   /* extreme aspect ratios */
			H = 1 + (int)rng_torch_randint(&shapes, 4);
		const struct rrc_params *p = n % 2 ? &alt : &def;
		int i, j, h, w;
		struct rng before = r;
		rrc_get_params(&r, p, W, H, &i, &j, &h, &w);
		if (!(h > 0 && w > 0 && h <= H && w <= W && i >= 0 && j >= 0 && i + h <= H &&
		      j + w <= W))
			fail_msg("%dx%d: box (%d, %d, %d, %d) is not inside", W, H, i, j, h, w);
		/* 2 draws per attempt, 2 more if one is accepted */
		int draws = 0;
		while (memcmp(&before, &r, sizeof(r)) && draws < 30) {
			rng_u32(&before);
			draws++;
		}
		assert_true(draws % 2 == 0 && draws >= 4 && draws <= 22);
		/* too wide for any attempt to fit: 10 attempts, then the
		 * central crop with python's double ratio */
		if (p == &def && H <= 4 && W > 1000) {
			assert_int_equal(draws, 20);
			assert_int_equal(h, H);
			assert_int_equal(w, (int)nearbyint(H * (4.0 / 3.0)));
			assert_int_equal(i, 0);
			assert_int_equal(j, (W - w) / 2);
			fallbacks++;
		}
	}
	assert_true(fallbacks > 100);
}

static void test_op_rrc_fixed(void **state)
{
	kernel_or_skip(state);
	const struct op_ops *o = op_find("random_resized_crop");
	assert_non_null(o);
	assert_string_equal(o->lotus_name, "SRandomResizedCrop");
	static const struct { int w, h; uint32_t salt; } src_dims[] = { { 300, 260, 1 }, { 500, 375, 2 } };
	uint8_t *src[2];
	for (int k = 0; k < 2; k++)
		src[k] = make_image(src_dims[k].w, src_dims[k].h, src_dims[k].salt);
	FILE *f = fopen(FIX "resample.csv", "r");
	assert_non_null(f);
	char line[256], err[200];
	assert_non_null(fgets(line, sizeof(line), f));
	struct scratch scr = { 0 };
	struct sample s = { 0 };
	struct rng r;
	int cases = 0;
	while (fgets(line, sizeof(line), f)) {
		char file[64], kind[16], args[64];
		int si, top, left, h, w, ow, oh;
		assert_int_equal(sscanf(line, "%63[^,],%d,%d,%d,%d,%d,%d,%d,%15[a-z]", file, &si, &top,
					&left, &h, &w, &ow, &oh, kind), 9);
		if (ow != oh)
			continue;
		snprintf(args, sizeof(args), "size=%d", ow);
		void *cfg = op_make(o, args, err, sizeof(err));
		assert_non_null(cfg);
		sample_set(&s, &scr, src[si], src_dims[si].w, src_dims[si].h);
		struct fixed_choice fc = { .has_crop = 1, .crop = { top, left, h, w }, .flip = -1 };
		s.fixed = &fc;
		rng_seed(&r, 1);
		struct rng before = r;
		s.rng = &r;
		assert_int_equal(o->run(op_cfg(o, cfg), &s), 0);
		assert_memory_equal(&before, &r, sizeof(r));   /* nothing drawn */
		assert_int_equal(s.kind, PIX_U8_HWC);
		assert_int_equal(s.w, ow);
		assert_int_equal(s.h, oh);
		check_image(file, s.data.p, ow, oh, kind);
		op_free(o, cfg);
		cases++;
	}
	fclose(f);
	assert_true(cases >= 10);
	/* a box outside the image is refused, with the reason */
	void *cfg = op_make(o, "size=8", err, sizeof(err));
	assert_non_null(cfg);
	static const int bad[][4] = { { -1, 0, 5, 5 }, { 0, -1, 5, 5 }, { 0, 0, 0, 5 }, { 0, 0, 5, 0 },
				      { 256, 0, 5, 5 }, { 0, 296, 5, 5 }, { 0, 0, 261, 300 } };
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		sample_set(&s, &scr, src[0], 300, 260);
		struct fixed_choice fc = { .has_crop = 1, .flip = -1 };
		memcpy(fc.crop, bad[b], sizeof(fc.crop));
		s.fixed = &fc;
		s.rng = &r;
		assert_int_equal(o->run(op_cfg(o, cfg), &s), -1);
		assert_non_null(strstr(s.err, "not inside"));
	}
	op_free(o, cfg);
	sample_release(&s);
	scratch_release(&scr);
	free(src[0]);
	free(src[1]);
}

static void test_op_rrc_args(void **state)
{
	(void)state;
	const struct op_ops *o = op_find("random_resized_crop");
	char err[200];
	static const char *const bad[] = { "size=0", "scale=1,0.5", "ratio=0,1", "ratio=2,1",
					   "ratio=1", "scale=-0.1,1", "size=x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_null(op_make(o, bad[i], err, sizeof(err)));
		assert_true(err[0] != 0);
	}
	void *cfg = op_make(o, "size=224 scale=0.08,1 ratio=0.75,1.3333333333333333", err,
			    sizeof(err));
	assert_non_null(cfg);
	op_free(o, cfg);
}

/* RandomResizedCrop(32), RandomHorizontalFlip, ToTensor, Normalize on one
 * stream per seed, two samples each (CHAIN_* of the script) */
static void test_train_chain(void **state)
{
	kernel_or_skip(state);
	struct npy seeds, want;
	load(FIX "chain_seeds.npy", "<u8", &seeds);
	load(FIX "chain.npy", "<f4", &want);
	assert_int_equal(want.shape[0], 2 * seeds.count);
	const char *names[] = { "random_resized_crop", "random_horizontal_flip", "to_tensor",
				"normalize" };
	const char *args[] = { "size=32", NULL, NULL, NULL };
	const struct op_ops *o[4];
	void *cfg[4];
	char err[200];
	for (int k = 0; k < 4; k++) {
		o[k] = op_find(names[k]);
		assert_non_null(o[k]);
		cfg[k] = op_make(o[k], args[k], err, sizeof(err));
		assert_non_null(cfg[k]);
	}
	uint8_t *src = make_image(500, 375, 2);
	struct scratch scr = { 0 };
	struct sample s = { 0 };
	const uint64_t *sd = seeds.data;
	size_t one = 3 * 32 * 32;
	for (size_t a = 0; a < seeds.count; a++) {
		struct rng r;
		rng_seed(&r, sd[a]);
		for (int m = 0; m < 2; m++) {
			sample_set(&s, &scr, src, 500, 375);
			s.rng = &r;
			for (int k = 0; k < 4; k++)
				if (o[k]->run(op_cfg(o[k], cfg[k]), &s))
					fail_msg("%s: %s", names[k], s.err);
			assert_int_equal(s.kind, PIX_F32_CHW);
			assert_int_equal(s.w, 32);
			assert_int_equal(s.h, 32);
			const float *e = (const float *)want.data + (2 * a + m) * one;
			if (memcmp(s.data.p, e, one * sizeof(float)))
				fail_msg("seed %llu sample %d differs from torchvision",
					 (unsigned long long)sd[a], m);
		}
	}
	for (int k = 0; k < 4; k++)
		op_free(o[k], cfg[k]);
	sample_release(&s);
	scratch_release(&scr);
	free(src);
	npy_free(&seeds);
	npy_free(&want);
}

/* Resize, CenterCrop and Resize(256) + CenterCrop(224) (ops.csv) */
static void test_resize_center_crop(void **state)
{
	kernel_or_skip(state);
	const struct op_ops *rs = op_find("resize"), *cc = op_find("center_crop");
	assert_non_null(rs);
	assert_non_null(cc);
	assert_string_equal(rs->lotus_name, "SResize");
	assert_string_equal(cc->lotus_name, "SCenterCrop");
	FILE *f = fopen(FIX "ops.csv", "r");
	assert_non_null(f);
	char line[256], err[200];
	assert_non_null(fgets(line, sizeof(line), f));
	struct scratch scr = { 0 };
	struct sample s = { 0 };
	int cases = 0;
	while (fgets(line, sizeof(line), f)) {
		char file[64], op[32], kind[16], args[32];
		int size, W, H, ow, oh;
		unsigned salt;
		assert_int_equal(sscanf(line, "%63[^,],%31[^,],%d,%d,%d,%u,%d,%d,%15[a-z]", file, op,
					&size, &W, &H, &salt, &ow, &oh, kind), 9);
		uint8_t *img = make_image(W, H, salt);
		sample_set(&s, &scr, img, W, H);
		snprintf(args, sizeof(args), "size=%d", size);
		if (!strcmp(op, "val")) {
			void *c1 = op_make(rs, args, err, sizeof(err));
			void *c2 = op_make(cc, "size=224", err, sizeof(err));
			assert_true(c1 && c2);
			assert_int_equal(rs->run(c1, &s), 0);
			assert_int_equal(cc->run(c2, &s), 0);
			op_free(rs, c1);
			op_free(cc, c2);
		} else {
			const struct op_ops *o = !strcmp(op, "resize") ? rs : cc;
			void *c = op_make(o, args, err, sizeof(err));
			assert_non_null(c);
			if (o->run(c, &s))
				fail_msg("%s: %s", file, s.err);
			op_free(o, c);
		}
		assert_int_equal(s.kind, PIX_U8_HWC);
		assert_int_equal(s.w, ow);
		assert_int_equal(s.h, oh);
		check_image(file, s.data.p, ow, oh, kind);
		free(img);
		cases++;
	}
	fclose(f);
	assert_true(cases >= 20);
	assert_null(op_make(rs, "size=0", err, sizeof(err)));
	assert_null(op_make(cc, "size=-3", err, sizeof(err)));
	sample_release(&s);
	scratch_release(&scr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rrc_params_fixture),
		cmocka_unit_test(test_rrc_params_alt),
		cmocka_unit_test(test_rrc_params_hard),
		cmocka_unit_test(test_rrc_params_valid),
		KERNEL_TESTS(test_op_rrc_fixed),
		cmocka_unit_test(test_op_rrc_args),
		KERNEL_TESTS(test_train_chain),
		KERNEL_TESTS(test_resize_center_crop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
