/* decode_random_resized_crop (the fused what-if) against the faithful
 * decode + random_resized_crop: the same bytes and the same draws, for
 * every golden decode fixture (4:2:0, 4:2:2, 4:4:0, 4:4:4, progressive,
 * grayscale, CMYK, YCCK, odd sizes, and PNGs, which fall back) and for
 * larger photo-like JPEGs made here with TurboJPEG in each subsampling,
 * progressive and grayscale, over many crop boxes each. */
#include <dirent.h>
#include <math.h>
#include <unistd.h>
#include <turbojpeg.h>
#include "rng.h"
#include "rrc.h"
#include "testutil.h"

#define GOOD "tests/fixtures/decode/"

struct chain {
	const struct op_ops *dec, *rrc, *fused;
	void *rcfg, *fcfg;
};

static void chain_init(struct chain *c, const char *args)
{
	char err[200];
	c->dec = op_find("decode");
	c->rrc = op_find("random_resized_crop");
	c->fused = op_find("decode_random_resized_crop");
	assert_non_null(c->dec);
	assert_non_null(c->rrc);
	assert_non_null(c->fused);
	c->rcfg = op_make(c->rrc, args, err, sizeof(err));
	c->fcfg = op_make(c->fused, args, err, sizeof(err));
	assert_non_null(c->rcfg);
	assert_non_null(c->fcfg);
}

static void chain_free(struct chain *c)
{
	op_free(c->rrc, c->rcfg);
	op_free(c->fused, c->fcfg);
}

/* seeds draws of one file: faithful and fused agree in bytes, size and the
 * state of the stream after */
static void check_file(struct chain *c, const char *path, int seeds)
{
	struct scratch s1 = { 0 }, s2 = { 0 };
	struct sample a = { 0 }, b = { 0 };
	for (int k = 0; k < seeds; k++) {
		struct rng ra, rb;
		rng_seed(&ra, 1000 + (uint64_t)k);
		rng_seed(&rb, 1000 + (uint64_t)k);
		a.path = b.path = path;
		a.scr = &s1;
		b.scr = &s2;
		a.rng = &ra;
		b.rng = &rb;
		a.kind = b.kind = PIX_NONE;
		a.max_pixels = b.max_pixels = 0;
		int ea = c->dec->run(NULL, &a) || c->rrc->run(op_cfg(c->rrc, c->rcfg), &a);
		int eb = c->fused->run(op_cfg(c->fused, c->fcfg), &b);
		if (ea != eb)
			fail_msg("%s seed %d: faithful %s, fused %s", path, k, ea ? a.err : "ok",
				 eb ? b.err : "ok");
		if (ea) {
			assert_string_equal(a.err, b.err);
			continue;
		}
		assert_int_equal(a.w, b.w);
		assert_int_equal(a.h, b.h);
		if (memcmp(a.data.p, b.data.p, (size_t)a.w * a.h * 3))
			fail_msg("%s seed %d: the fused op's pixels differ", path, k);
		assert_memory_equal(&ra, &rb, sizeof(ra));
	}
	sample_release(&a);
	sample_release(&b);
	scratch_release(&s1);
	scratch_release(&s2);
}

static void test_fixtures(void **state)
{
	(void)state;
	struct chain c;
	chain_init(&c, "size=24");
	DIR *d = opendir(GOOD);
	assert_non_null(d);
	struct dirent *e;
	int files = 0;
	uint64_t r0, f0 = fused_fallbacks(&r0), r1, f1;
	while ((e = readdir(d))) {
		const char *x = strrchr(e->d_name, '.');
		if (!x || !(strcmp(x, ".jpg") == 0 || strcmp(x, ".png") == 0 || strcmp(x, ".JPEG") == 0))
			continue;
		char path[512];
		snprintf(path, sizeof(path), GOOD "%s", e->d_name);
		check_file(&c, path, 12);
		files++;
	}
	closedir(d);
	f1 = fused_fallbacks(&r1);
	assert_true(files >= 40);
	/* the JPEGs went through the region decode, the PNGs fell back */
	assert_true(r1 - r0 >= 17 * 12);
	assert_true(f1 - f0 >= 20 * 12);
	chain_free(&c);
}

/* a smooth photo-like image with texture: gradients, a disc, noise */
static uint8_t *photo(int W, int H, int ch)
{
	uint8_t *p = malloc((size_t)W * H * ch);
	assert_non_null(p);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			for (int k = 0; k < ch; k++) {
				double v = 128 + 90 * sin(x * 0.05 + k) * cos(y * 0.03 - k);
				if ((x - W / 2) * (x - W / 2) + (y - H / 3) * (y - H / 3) < W * H / 16)
					v = 255 - v;
				v += (double)(hash32((uint32_t)x, (uint32_t)y, (uint32_t)k, 5) % 23) - 11;
				p[((size_t)y * W + x) * ch + k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
			}
	return p;
}

static void test_generated(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int subsamp, flags, pf;
	} kinds[] = {
		{ "420", TJSAMP_420, 0, TJPF_RGB },
		{ "422", TJSAMP_422, 0, TJPF_RGB },
		{ "440", TJSAMP_440, 0, TJPF_RGB },
		{ "444", TJSAMP_444, 0, TJPF_RGB },
		{ "411", TJSAMP_411, 0, TJPF_RGB },
		{ "420prog", TJSAMP_420, TJFLAG_PROGRESSIVE, TJPF_RGB },
		{ "gray", TJSAMP_GRAY, 0, TJPF_GRAY },
		{ "cmyk", TJSAMP_444, 0, TJPF_CMYK },
	};
	char dir[] = "/tmp/ppbench-fused.XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct chain c;
	chain_init(&c, "size=32");
	tjhandle tj = tjInitCompress();
	assert_non_null(tj);
	const int W = 301, H = 203;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		int ch = tjPixelSize[kinds[k].pf];
		uint8_t *img = photo(W, H, ch);
		unsigned char *jpg = NULL;
		unsigned long n = 0;
		assert_int_equal(tjCompress2(tj, img, W, 0, H, kinds[k].pf, &jpg, &n, kinds[k].subsamp, 88,
					     kinds[k].flags), 0);
		char path[512];
		snprintf(path, sizeof(path), "%s/%s.jpg", dir, kinds[k].name);
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(jpg, 1, n, f), n);
		fclose(f);
		uint64_t r0, r1;
		fused_fallbacks(&r0);
		check_file(&c, path, 60);
		fused_fallbacks(&r1);
		if (r1 - r0 != 60)
			fail_msg("%s: %llu of 60 by region", kinds[k].name, (unsigned long long)(r1 - r0));
		unlink(path);
		tjFree(jpg);
		free(img);
	}
	tjDestroy(tj);
	rmdir(dir);
	chain_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
