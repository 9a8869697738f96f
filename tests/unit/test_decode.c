/* decode: bit-identical to Pillow 9.4 `Image.open(f).convert('RGB')` on the
 * goldens of scripts/fixtures_decode.py; broken files fail cleanly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "decode.h"
#include "npy.h"
#include "op.h"

extern const struct op_ops op_decode;

#define GOOD "tests/fixtures/decode/"
#define BAD "tests/fixtures/bad/"
#define PILLOW_LIMIT 178956970ull   /* 2 x Image.MAX_IMAGE_PIXELS */

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open '%s'", path);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(len ? (size_t)len : 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* out (h x w x 3) against the golden path.npy; names the first difference */
static void check_golden(const char *path, const uint8_t *px, int h, int w, int line)
{
	char npy_path[300], err[300];
	struct npy a;
	snprintf(npy_path, sizeof(npy_path), "%s.npy", path);
	if (npy_read(npy_path, &a, err, sizeof(err)))
		fail_msg("line %d: %s", line, err);
	if (strcmp(a.dtype, "|u1") || a.ndim != 3 || a.shape[2] != 3)
		fail_msg("line %d: %s: not a uint8 HxWx3 array", line, npy_path);
	if (a.shape[0] != (size_t)h || a.shape[1] != (size_t)w)
		fail_msg("line %d: %s: decoded %dx%d (WxH), Pillow %zux%zu", line, path, w, h,
			 a.shape[1], a.shape[0]);
	const uint8_t *e = a.data;
	for (size_t i = 0; i < a.count; i++)
		if (px[i] != e[i]) {
			size_t p = i / 3;
			fail_msg("line %d: %s: pixel (x %zu, y %zu) channel %zu is %u, Pillow %u", line,
				 path, p % (size_t)w, p / (size_t)w, i % 3, px[i], e[i]);
		}
	npy_free(&a);
}

/* Every file of tests/fixtures/decode (its manifest.json lists them). */
static const struct golden {
	const char *name;
	int line;
} goldens[] = {
#define G(n) { n, __LINE__ }
	G("j420.jpg"), G("j422.jpg"), G("j444.jpg"), G("jq50.jpg"), G("jprog.jpg"), G("jopt.jpg"),
	G("jgray.jpg"), G("jgray_prog.jpg"), G("jcmyk.jpg"), G("jcmyk_k.jpg"), G("jycck.jpg"),
	G("j440.jpg"), G("j37x23_s2.jpg"), G("j37x23_s1.jpg"), G("j1x1_s2.jpg"),
	G("j1x300_s2.jpg"), G("j300x1_s2.jpg"), G("j17x9_s0.jpg"),
	G("prgb.png"), G("prgba.png"), G("pla.png"), G("pl.png"), G("ppal.png"),
	G("ppal_trns1.png"), G("ppal_trns.png"), G("ppal4.png"), G("p1bit.png"),
	G("pgray1.png"), G("pgray2.png"), G("pgray4.png"), G("pgray16.png"),
	G("pgray16_trns.png"), G("prgb16.png"), G("prgba16.png"), G("pla16.png"),
	G("prgb_trns.png"), G("ppal_short.png"), G("ppal2.png"), G("ppal1.png"),
	G("padam7_rgb.png"), G("padam7_gray2.png"), G("padam7_rgba16.png"),
	G("padam7_tiny.png"), G("png_named.JPEG"),
#undef G
};

static void test_goldens(void **state)
{
	(void)state;
	struct buf out = { 0 };
	char path[300], err[256];
	for (size_t i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++) {
		const struct golden *g = &goldens[i];
		snprintf(path, sizeof(path), GOOD "%s", g->name);
		size_t n;
		uint8_t *data = slurp(path, &n);
		int h = -1, w = -1;
		if (decode_image_mem(data, n, PILLOW_LIMIT, &out, &h, &w, err, sizeof(err)))
			fail_msg("line %d: %s: %s", g->line, path, err);
		check_golden(path, out.p, h, w, g->line);
		free(data);
	}
	buf_free(&out);
}

/* What we do with each file of tests/fixtures/bad (see its manifest.json
 * for what Pillow does): ok rows decode as Pillow decodes them. */
static const struct bad {
	const char *name;
	const char *expect;   /* NULL: decodes, equal to name.npy; else a part of the error */
	int line;
} bads[] = {
#define B(n, e) { n, e, __LINE__ }
	B("trunc_scan.jpg", "image file is truncated"),
	B("trunc_prog.jpg", "image file is truncated"),
	B("noeoi.jpg", "image file is truncated"),
	B("eoi_to_dqt.jpg", NULL),             /* Pillow stops at the last row */
	B("trunc_noeoi_1.jpg", "image file is truncated"),
	B("garbled_scan.jpg", NULL),           /* Pillow decodes it: so do we */
	B("garbled_header.jpg", "Bogus marker length"),
	B("garbled_both.jpg", "Bogus marker length"),
	B("empty.jpg", "empty file"),
	B("header_only.jpg", "image file is truncated"),
	B("text.JPEG", "not a JPEG or PNG file"),
	B("gif.JPEG", "not a JPEG or PNG file (GIF)"),  /* Pillow would decode it */
	B("bmp.JPEG", "not a JPEG or PNG file (BMP)"),
	B("webp.JPEG", "not a JPEG or PNG file (WebP)"),
	B("huge.jpg", "image is 30000x30000 = 900000000 pixels, over the limit of 178956970"),
	B("empty_scan.jpg", NULL),             /* no entropy data: libjpeg's grey */
	B("bits12.jpg", "Unsupported JPEG data precision 12"),
	B("trunc.png", "image file is truncated"),
	B("png_sig_only.png", "image file is truncated"),
	B("png_noiend.png", NULL),             /* Pillow never looks for IEND */
	B("png_cut_crc.png", NULL),            /* nor at IDAT CRCs */
	B("png_idat_crc.png", NULL),
	B("png_cut_adler.png", NULL),          /* all rows are in before the adler32 */
	B("png_idat_len.png", "PNG unsigned integer out of range"),  /* Pillow: ok (decode.h) */
	B("png_zero_size.png", "Invalid IHDR data"),
	B("png_zero_size_crc.png", "IHDR: CRC error"),
	B("png_bad_zlib.png", "broken data stream (IDAT: ADLER32 checksum mismatch)"),
	B("huge.png", "image is 20000x20000 = 400000000 pixels, over the limit of 178956970"),
#undef B
};

static void test_bad_files(void **state)
{
	(void)state;
	struct buf out = { 0 };
	char path[300], err[256];
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		snprintf(path, sizeof(path), BAD "%s", b->name);
		size_t n;
		uint8_t *data = slurp(path, &n);
		int h = -1, w = -1;
		err[0] = 0;
		int rc = decode_image_mem(data, n, PILLOW_LIMIT, &out, &h, &w, err, sizeof(err));
		free(data);
		if (!b->expect) {
			if (rc)
				fail_msg("line %d: %s: %s", b->line, path, err);
			check_golden(path, out.p, h, w, b->line);
			continue;
		}
		if (rc != -1)
			fail_msg("line %d: %s decoded (%dx%d), expected '%s'", b->line, path, w, h,
				 b->expect);
		if (!strstr(err, b->expect))
			fail_msg("line %d: %s: error '%s' lacks '%s'", b->line, path, err, b->expect);
	}
	buf_free(&out);
}

static void test_pixel_limit(void **state)
{
	(void)state;
	static const char *files[] = { GOOD "j420.jpg", GOOD "prgb.png", GOOD "jcmyk.jpg" };
	struct buf out = { 0 };
	char err[256];
	for (size_t i = 0; i < 3; i++) {
		size_t n;
		uint8_t *data = slurp(files[i], &n);
		int h, w;
		assert_int_equal(decode_image_mem(data, n, 0, &out, &h, &w, err, sizeof(err)), 0);
		uint64_t px = (uint64_t)h * (uint64_t)w;
		assert_int_equal(decode_image_mem(data, n, px, &out, &h, &w, err, sizeof(err)), 0);
		assert_int_equal(decode_image_mem(data, n, px - 1, &out, &h, &w, err, sizeof(err)), -1);
		assert_string_equal(err, "image is 48x40 = 1920 pixels, over the limit of 1919 "
				    "(--max-pixels)");
		free(data);
	}
	buf_free(&out);
}

/* The format comes from the bytes (a PNG named .JPEG decodes), and each
 * decoder refuses the other's files. */
static void test_sniff(void **state)
{
	(void)state;
	struct buf out = { 0 };
	char err[256];
	size_t n;
	int h, w;
	uint8_t *data = slurp(GOOD "j420.jpg", &n);
	assert_int_equal(decode_jpeg_mem(data, n, 0, &out, &h, &w, err, sizeof(err)), 0);
	assert_int_equal(decode_png_mem(data, n, 0, &out, &h, &w, err, sizeof(err)), -1);
	assert_string_equal(err, "Not a PNG file");
	free(data);
	data = slurp(GOOD "png_named.JPEG", &n);
	assert_int_equal(decode_image_mem(data, n, 0, &out, &h, &w, err, sizeof(err)), 0);
	check_golden(GOOD "prgb.png", out.p, h, w, __LINE__);
	assert_int_equal(decode_jpeg_mem(data, n, 0, &out, &h, &w, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Not a JPEG file"));
	free(data);
	static const uint8_t two[] = { 0xff, 0xd8 };
	assert_int_equal(decode_image_mem(two, 2, 0, &out, &h, &w, err, sizeof(err)), -1);
	assert_string_equal(err, "not a JPEG or PNG file");
	buf_free(&out);
}

/* Every prefix of a file decodes as Pillow: a JPEG prefix never, a PNG one
 * once it holds all the rows (the shortest is from Pillow: it ends a few
 * bits into the final deflate block's data, before its adler32, CRC and
 * IEND). Then single-byte corruptions of the first 400 bytes: -1 or 0,
 * never a crash or a leak (run under ASan). */
static void test_fuzz_prefixes(void **state)
{
	(void)state;
	static const struct {
		const char *path;
		long shortest;   /* bytes short of the whole file Pillow still decodes */
	} files[] = {
		{ GOOD "j420.jpg", 0 }, { GOOD "jprog.jpg", 0 }, { GOOD "jcmyk.jpg", 0 },
		{ GOOD "padam7_rgb.png", 22 }, { GOOD "ppal4.png", 21 },
		{ GOOD "prgba16.png", 21 }, { GOOD "padam7_tiny.png", 21 },
	};
	struct buf out = { 0 };
	char err[256];
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t n;
		const char *path = files[f].path;
		uint8_t *data = slurp(path, &n);
		int h, w;
		for (size_t k = 0; k <= n; k += 1 + (k + 64 < n) * k / 64) {
			uint8_t *cut = malloc(k ? k : 1);   /* exact size: ASan sees overreads */
			memcpy(cut, data, k);
			err[0] = 0;
			int rc = decode_image_mem(cut, k, PILLOW_LIMIT, &out, &h, &w, err, sizeof(err));
			free(cut);
			int want = k + (size_t)files[f].shortest >= n ? 0 : -1;
			if (rc != want)
				fail_msg("%s cut to %zu of %zu bytes: got %d (%s), want %d", path, k, n,
					 rc, err, want);
			if (rc)
				assert_true(err[0] != 0);
			else
				check_golden(path, out.p, h, w, __LINE__);
		}
		uint8_t *copy = malloc(n);
		for (size_t k = 0; k < 400 && k < n; k++) {
			memcpy(copy, data, n);
			copy[k] ^= 0xa5;
			int rc = decode_image_mem(copy, n, PILLOW_LIMIT, &out, &h, &w, err, sizeof(err));
			assert_true(rc == 0 || rc == -1);
			if (rc == 0)
				assert_true(h > 0 && w > 0);
		}
		free(copy);
		free(data);
	}
	buf_free(&out);
}

/* Through the op table, with one scratch reused over files of different
 * sizes and kinds, as a worker does. */
static void test_op(void **state)
{
	(void)state;
	assert_ptr_equal(op_find("decode"), &op_decode);
	assert_string_equal(op_decode.lotus_name, "SLoader");
	assert_int_equal(op_decode.in, PIX_NONE);
	assert_int_equal(op_decode.out, PIX_U8_HWC);
	assert_null(op_decode.init);

	static const char *files[] = { "j1x300_s2.jpg", "jprog.jpg", "jcmyk.jpg", "j1x1_s2.jpg",
				       "prgba16.png", "j420.jpg", "png_named.JPEG", "jgray.jpg" };
	struct scratch scr = { 0 };
	struct sample s = { .max_pixels = PILLOW_LIMIT, .scr = &scr };
	char path[300];
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), GOOD "%s", files[i]);
			s.path = path;
			s.kind = PIX_NONE;
			if (op_decode.run(NULL, &s))
				fail_msg("%s: %s", path, s.err);
			assert_int_equal(s.kind, PIX_U8_HWC);
			assert_int_equal(sample_bytes(&s), (size_t)s.h * (size_t)s.w * 3);
			check_golden(path, s.data.p, s.h, s.w, __LINE__);
		}

	static const struct {
		const char *path, *err;
	} fails[] = {
		{ "tests/fixtures/decode/no-such-file.JPEG", "cannot open: No such file or directory" },
		{ "tests/fixtures/decode", "not a regular file (a folder)" },
		{ BAD "empty.jpg", "empty file" },
		{ BAD "trunc_scan.jpg", "image file is truncated (Premature end of JPEG file)" },
		{ BAD "huge.jpg", "image is 30000x30000 = 900000000 pixels, over the limit of "
				  "178956970 (--max-pixels)" },
	};
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++) {
		s.path = fails[i].path;
		s.kind = PIX_NONE;
		assert_int_equal(op_decode.run(NULL, &s), -1);
		assert_string_equal(s.err, fails[i].err);
	}
	/* a FIFO named like an image: refused at once, never a blocking open */
	char fifo[] = "/tmp/ppbench-test-fifo-XXXXXX";
	assert_non_null(mkdtemp(fifo));
	char fifo_file[sizeof(fifo) + 16];
	snprintf(fifo_file, sizeof(fifo_file), "%s/x.JPEG", fifo);
	assert_int_equal(mkfifo(fifo_file, 0600), 0);
	s.path = fifo_file;
	s.kind = PIX_NONE;
	assert_int_equal(op_decode.run(NULL, &s), -1);
	assert_string_equal(s.err, "not a regular file (a FIFO)");
	unlink(fifo_file);
	rmdir(fifo);
	sample_release(&s);
	scratch_release(&scr);
}

static void test_npy_roundtrip(void **state)
{
	(void)state;
	char path[] = "/tmp/ppbench-test-npy-XXXXXX", err[256];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	float f[2 * 3 * 5];
	for (int i = 0; i < 30; i++)
		f[i] = (float)i / 7.0f - 1.0f;
	size_t shape[3] = { 2, 3, 5 };
	assert_int_equal(npy_write(path, "<f4", shape, 3, f, err, sizeof(err)), 0);
	struct npy a;
	assert_int_equal(npy_read(path, &a, err, sizeof(err)), 0);
	assert_string_equal(a.dtype, "<f4");
	assert_int_equal(a.ndim, 3);
	assert_int_equal(a.shape[0], 2);
	assert_int_equal(a.shape[2], 5);
	assert_memory_equal(a.data, f, sizeof(f));
	npy_free(&a);

	uint8_t u[7] = { 1, 2, 3, 4, 5, 6, 7 };
	size_t one[1] = { 7 };
	assert_int_equal(npy_write(path, "|u1", one, 1, u, err, sizeof(err)), 0);
	assert_int_equal(npy_read(path, &a, err, sizeof(err)), 0);
	assert_int_equal(a.ndim, 1);
	assert_int_equal(a.count, 7);
	assert_memory_equal(a.data, u, 7);
	npy_free(&a);
	assert_int_equal(npy_write(path, "<f8", one, 1, u, err, sizeof(err)), -1);
	unlink(path);
	assert_int_equal(npy_read(path, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_goldens),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_pixel_limit),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_fuzz_prefixes),
		cmocka_unit_test(test_op),
		cmocka_unit_test(test_npy_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
