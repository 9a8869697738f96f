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

static void load(const char *path, const char *descr, struct npy *n)
{
	assert_int_equal(npy_load(path, n), 0);
	assert_string_equal(n->descr, descr);
}

/* An op configured from "key=value key=value" (NULL: no arguments). */
static void *op_make(const struct op_ops *o, const char *argline, char *err, size_t errlen)
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
	if (o->init && o->init(&a, &cfg, err, errlen))
		return NULL;
	if (op_args_check_used(&a, o->name, err, errlen)) {
		if (o->release)
			o->release(cfg);
		return NULL;
	}
	/* ops without configuration give NULL: hand back a non-NULL token */
	return cfg ? cfg : (void *)o;
}

static void op_free(const struct op_ops *o, void *cfg)
{
	if (cfg != (void *)o && o->release)
		o->release(cfg);
}

static const void *op_cfg(const struct op_ops *o, void *cfg)
{
	return cfg == (void *)o ? NULL : cfg;
}

/* s holds a copy of the W x H image */
static void sample_set(struct sample *s, struct scratch *scr, const uint8_t *img, int W, int H)
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
	(void)state;
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
	(void)state;
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
	(void)state;
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
		cmocka_unit_test(test_op_rrc_fixed),
		cmocka_unit_test(test_op_rrc_args),
		cmocka_unit_test(test_train_chain),
		cmocka_unit_test(test_resize_center_crop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
