/* The materialised-sample store: round trips for raw, zstd and lz4, and
 * clear errors on corrupt, truncated or missing files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pipeline.h"
#include "rng.h"
#include "sample.h"
#include "store.h"

#define NREC 7

struct fixture {
	char root[256];              /* a fresh temporary folder */
	char dir[300];               /* the store: root/s */
	struct store_rec rec[NREC];
	unsigned char *data[NREC];
};

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* Seven records: smooth and noisy uint8 images, a float32 tensor, encoded
 * file bytes, an empty payload, a failed sample, one larger image. */
static void make_records(struct fixture *f)
{
	static const struct { int kind, failed, h, w; uint64_t raw; } shape[NREC] = {
		{ PIX_U8_HWC, 0, 5, 7, 0 },
		{ PIX_U8_HWC, 0, 9, 4, 0 },
		{ PIX_F32_CHW, 0, 3, 4, 0 },
		{ PIX_NONE, 0, 0, 0, 1000 },
		{ PIX_NONE, 0, 0, 0, 0 },
		{ PIX_U8_HWC, 1, 0, 0, 0 },
		{ PIX_U8_HWC, 0, 150, 200, 0 },
	};
	uint32_t seed = 12345;
	for (int i = 0; i < NREC; i++) {
		struct store_rec *r = &f->rec[i];
		memset(r, 0, sizeof(*r));
		r->kind = shape[i].kind;
		r->failed = shape[i].failed;
		r->h = shape[i].h;
		r->w = shape[i].w;
		r->label = i % 3 - 1;        /* -1 too: labels are int64 */
		r->index = 100 + (uint64_t)i;
		const char *why = "cannot decode: image file is truncated";
		if (r->failed)
			r->bytes = strlen(why);
		else if (r->kind == PIX_NONE)
			r->bytes = shape[i].raw;
		else
			r->bytes = (uint64_t)r->h * r->w * 3 * (r->kind == PIX_F32_CHW ? 4 : 1);
		f->data[i] = malloc(r->bytes ? r->bytes : 1);
		assert_non_null(f->data[i]);
		if (r->failed) {
			memcpy(f->data[i], why, r->bytes);
			continue;
		}
		for (uint64_t k = 0; k < r->bytes; k++)
			f->data[i][k] = i == 1 || i == 3 ? (unsigned char)lcg(&seed)
							 : (unsigned char)(k / 7 + i);
	}
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	const char *tmp = getenv("PPBENCH_TEST_TMP");
	snprintf(f->root, sizeof(f->root), "%s/test_store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->root))
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s/s", f->root);
	make_records(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char err[512];
	store_remove(f->dir, err, sizeof(err));
	rmdir(f->root);
	for (int i = 0; i < NREC; i++)
		free(f->data[i]);
	free(f);
	return 0;
}

/* Write the records into a store of 2 shards, out of order, as two threads would. */
static void write_store(struct fixture *f, enum store_format fmt)
{
	static const int order[NREC] = { 3, 0, 6, 1, 5, 2, 4 };
	struct store st;
	struct store_io io[2] = { { 0 }, { 0 } };
	char err[512] = "";
	assert_int_equal(store_create(&st, f->dir, fmt, 3, NREC, 2, err, sizeof(err)), 0);
	for (int k = 0; k < NREC; k++) {
		int i = order[k];
		int rc = store_put(&st, &io[k % 2], k % 2, (size_t)i, &f->rec[i], f->data[i],
				   err, sizeof(err));
		if (rc)
			fail_msg("put %d: %s", i, err);
	}
	if (store_finish(&st, err, sizeof(err)))
		fail_msg("finish: %s", err);
	store_io_release(&io[0]);
	store_io_release(&io[1]);
}

static uint64_t file_size(const char *dir, const char *name)
{
	char p[600];
	struct stat sb;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &sb) ? 0 : (uint64_t)sb.st_size;
}

static void round_trip(void **state, enum store_format fmt)
{
	struct fixture *f = *state;
	write_store(f, fmt);

	struct store st;
	struct store_io io = { 0 };
	struct buf out = { 0 };
	char err[512] = "";
	if (store_open(&st, f->dir, err, sizeof(err)))
		fail_msg("open: %s", err);
	assert_int_equal(st.format, fmt);
	assert_int_equal(st.n, NREC);
	assert_int_equal(st.nshards, 2);
	uint64_t files = file_size(f->dir, "index") + file_size(f->dir, "shard-000.bin") +
			 file_size(f->dir, "shard-001.bin");
	assert_int_equal(st.stored_bytes, files);
	uint64_t payload = 0;
	for (int i = 0; i < NREC; i++)
		payload += f->rec[i].bytes;
	assert_int_equal(st.payload_bytes, payload);

	store_drop_cache(&st);
	/* twice, in reverse order: reads do not depend on each other */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < NREC; k++) {
			int i = pass ? NREC - 1 - k : k;
			struct store_rec r;
			if (store_get(&st, &io, (size_t)i, &r, &out, err, sizeof(err)))
				fail_msg("get %d: %s", i, err);
			const struct store_rec *w = &f->rec[i];
			assert_int_equal(r.kind, w->kind);
			assert_int_equal(r.failed, w->failed);
			assert_int_equal(r.h, w->h);
			assert_int_equal(r.w, w->w);
			assert_int_equal(r.label, w->label);
			assert_int_equal(r.index, w->index);
			assert_int_equal(r.bytes, w->bytes);
			if (w->bytes)
				assert_memory_equal(out.p, f->data[i], w->bytes);
		}
	struct store_rec r;
	assert_int_equal(store_get(&st, &io, NREC, &r, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no sample 7"));
	store_close(&st);
	store_io_release(&io);
	buf_free(&out);
}

static void test_round_trip_raw(void **state)
{
	round_trip(state, STORE_RAW);
}

static void test_round_trip_zstd(void **state)
{
	round_trip(state, STORE_ZSTD);
}

static void test_round_trip_lz4(void **state)
{
	round_trip(state, STORE_LZ4);
}

/* Compression shrinks a smooth image and the store says so. */
static void test_compression_shrinks(void **state)
{
	struct fixture *f = *state;
	uint64_t size[STORE_NFORMATS];
	for (int fmt = 0; fmt < STORE_NFORMATS; fmt++) {
		char err[512];
		write_store(f, (enum store_format)fmt);
		size[fmt] = file_size(f->dir, "shard-000.bin") + file_size(f->dir, "shard-001.bin");
		assert_int_equal(store_remove(f->dir, err, sizeof(err)), 0);
	}
	assert_true(size[STORE_ZSTD] < size[STORE_RAW]);
	assert_true(size[STORE_LZ4] < size[STORE_RAW]);
}

/* Overwrite one byte of a store file at offset off (from the end if < 0). */
static void poke(const char *dir, const char *name, long off, unsigned char x)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	off_t at = off >= 0 ? off : lseek(fd, 0, SEEK_END) + off;
	unsigned char c;
	assert_int_equal(pread(fd, &c, 1, at), 1);
	c ^= x;
	assert_int_equal(pwrite(fd, &c, 1, at), 1);
	close(fd);
}

static void cut(const char *dir, const char *name, long by)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(truncate(p, (off_t)(file_size(dir, name) - (uint64_t)by)), 0);
}

/* Read every sample; the error of the first that fails (or "" if none). */
static int read_all_samples(const char *dir, char *err, size_t errlen)
{
	struct store st;
	struct store_io io = { 0 };
	struct buf out = { 0 };
	int bad = 0;
	err[0] = 0;
	if (store_open(&st, dir, err, errlen))
		return -2;
	for (size_t i = 0; i < st.n; i++) {
		struct store_rec r;
		char e[512];
		if (store_get(&st, &io, i, &r, &out, e, sizeof(e))) {
			if (!bad++)
				snprintf(err, errlen, "%s", e);
		}
	}
	store_close(&st);
	store_io_release(&io);
	buf_free(&out);
	return bad;
}

static const struct {
	int line;
	enum store_format fmt;
	const char *file;
	long off;            /* byte to flip; 0 with `by`: truncate by `by` bytes */
	long by;
	int open_fails;      /* 1: store_open refuses; 0: one sample's read fails */
	const char *want;
} corrupt[] = {
	{ __LINE__, STORE_RAW, "shard-000.bin", -3, 0, 0, "checksum mismatch" },
	{ __LINE__, STORE_ZSTD, "shard-001.bin", -1, 0, 0, "checksum mismatch" },
	{ __LINE__, STORE_LZ4, "shard-000.bin", -5, 0, 0, "checksum mismatch" },
	{ __LINE__, STORE_RAW, "shard-000.bin", 1, 0, 0, "no record header there" },
	{ __LINE__, STORE_ZSTD, "shard-000.bin", 20, 0, 0, "checksum mismatch" },
	{ __LINE__, STORE_LZ4, "shard-001.bin", 0, 10, 1, "truncated?" },
	{ __LINE__, STORE_RAW, "index", 0, 1, 1, "truncated?" },
	{ __LINE__, STORE_ZSTD, "index", 2, 0, 1, "not a ppbench store index" },
	{ __LINE__, STORE_LZ4, "index", -9, 0, 1, "checksum mismatch" },
	{ __LINE__, STORE_RAW, "index", 60, 0, 1, "bad header" },
	{ __LINE__, STORE_ZSTD, "index", 34, 0, 1, "checksum mismatch" },
	{ __LINE__, STORE_LZ4, "index", 30, 0, 1, "truncated?" },
};

static void test_corrupt(void **state)
{
	struct fixture *f = *state;
	for (size_t k = 0; k < sizeof(corrupt) / sizeof(corrupt[0]); k++) {
		char err[512];
		write_store(f, corrupt[k].fmt);
		assert_int_equal(read_all_samples(f->dir, err, sizeof(err)), 0);
		if (corrupt[k].by)
			cut(f->dir, corrupt[k].file, corrupt[k].by);
		else
			poke(f->dir, corrupt[k].file, corrupt[k].off, 0x5a);
		int bad = read_all_samples(f->dir, err, sizeof(err));
		if (corrupt[k].open_fails ? bad != -2 : bad != 1)
			fail_msg("line %d: %d failures (%s)", corrupt[k].line, bad, err);
		if (!strstr(err, corrupt[k].want) || !strstr(err, corrupt[k].file))
			fail_msg("line %d: error '%s' lacks '%s' or the file name", corrupt[k].line,
				 err, corrupt[k].want);
		assert_int_equal(store_remove(f->dir, err, sizeof(err)), 0);
	}
}

static void test_missing(void **state)
{
	struct fixture *f = *state;
	char err[512];
	struct store st;
	assert_int_equal(store_open(&st, f->dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open store index"));

	write_store(f, STORE_RAW);
	char p[600];
	snprintf(p, sizeof(p), "%s/shard-001.bin", f->dir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(store_open(&st, f->dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open"));
	assert_non_null(strstr(err, "shard-001.bin"));
}

static void test_writer_errors(void **state)
{
	struct fixture *f = *state;
	struct store st;
	struct store_io io = { 0 };
	char err[512];

	assert_int_equal(store_create(&st, f->dir, STORE_LZ4, 0, 3, 1, err, sizeof(err)), 0);
	assert_int_equal(store_put(&st, &io, 0, 1, &f->rec[0], f->data[0], err, sizeof(err)), 0);
	assert_int_equal(store_put(&st, &io, 0, 1, &f->rec[0], f->data[0], err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sample 1 stored twice"));
	assert_int_equal(store_put(&st, &io, 1, 0, &f->rec[0], f->data[0], err, sizeof(err)), -1);
	assert_int_equal(store_put(&st, &io, 0, 3, &f->rec[0], f->data[0], err, sizeof(err)), -1);
	assert_int_equal(store_finish(&st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sample 0 was never stored"));
	store_io_release(&io);

	/* the folder exists now: a second store there is refused */
	assert_int_equal(store_create(&st, f->dir, STORE_RAW, 0, 1, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot create store"));
	assert_int_equal(store_remove(f->dir, err, sizeof(err)), 0);
	assert_int_equal(access(f->dir, F_OK), -1);
	/* removing what is not there is fine */
	assert_int_equal(store_remove(f->dir, err, sizeof(err)), 0);
}

static void test_format_names(void **state)
{
	(void)state;
	char lib[64];
	for (int i = 0; i < STORE_NFORMATS; i++)
		assert_int_equal(store_format_parse(store_format_name((enum store_format)i)), i);
	assert_int_equal(store_format_parse("gzip"), -1);
	store_format_library(STORE_ZSTD, lib, sizeof(lib));
	assert_non_null(strstr(lib, "libzstd 1."));
	store_format_library(STORE_LZ4, lib, sizeof(lib));
	assert_non_null(strstr(lib, "liblz4 1."));
}

/* ---- a pipeline split through the store -------------------------------------
 *
 * The prefix of the pipeline run on an image, put in a store, read back and
 * pushed through the rest of the ops gives the bytes of the whole pipeline,
 * for every split that draws nothing before it and every format (what
 * `ppbench strategies` relies on; its CLI test checks it through checksums
 * on a dataset). */

/* Ops [from, to) of p on s (the batch op skipped). 0 or the failing op + 1. */
static int run_range(const struct pipeline *p, struct sample *s, int from, int to)
{
	for (int i = from; i < to; i++)
		if (i != p->batch_op && p->op[i].ops->run(p->op[i].cfg, s))
			return i + 1;
	return 0;
}

static void sample_start(struct sample *s, struct scratch *scr, struct rng *r, const char *path,
			 uint64_t index)
{
	s->path = path;
	s->label = 2;
	s->index = index;
	s->rng = r;
	s->fixed = NULL;
	s->max_pixels = 0;
	s->kind = PIX_NONE;
	s->h = s->w = 0;
	s->scr = scr;
	/* as ppbench run seeds a sample: (seed, epoch, index) */
	rng_seed(r, rng_sample_seed(7, 1, index));
}

static void split_case(struct fixture *f, const char *pipe_name, const char *image,
		       int expect_splits)
{
	struct pipeline p;
	char err[512];
	if (pipeline_load(&p, pipe_name, err, sizeof(err)))
		fail_msg("%s", err);
	struct scratch scr = { 0 };
	struct rng r;
	struct sample full = { 0 }, s = { 0 };

	sample_start(&full, &scr, &r, image, 5);
	if (run_range(&p, &full, 0, p.nops))
		fail_msg("%s: %s", image, full.err);
	size_t nfull = sample_bytes(&full);
	assert_int_equal(full.kind, PIX_F32_CHW);

	int K = 0;
	while (K < p.nops && !(p.op[K].ops->flags & (OP_RANDOM | OP_BATCH)))
		K++;
	assert_int_equal(K, expect_splits);
	for (int k = 1; k <= K; k++)
		for (int fmt = 0; fmt < STORE_NFORMATS; fmt++) {
			struct store st;
			struct store_io io = { 0 };
			struct store_rec rec;
			sample_start(&s, &scr, &r, image, 5);
			assert_int_equal(run_range(&p, &s, 0, k), 0);
			rec = (struct store_rec){ .kind = s.kind, .h = s.h, .w = s.w, .label = s.label,
						  .index = 5, .bytes = sample_bytes(&s) };
			assert_int_equal(store_create(&st, f->dir, (enum store_format)fmt, 1, 1, 1,
						      err, sizeof(err)), 0);
			assert_int_equal(store_put(&st, &io, 0, 0, &rec, s.data.p, err, sizeof(err)), 0);
			assert_int_equal(store_finish(&st, err, sizeof(err)), 0);

			/* a fresh sample: only what the store gives */
			sample_release(&s);
			memset(&s, 0, sizeof(s));
			sample_start(&s, &scr, &r, image, 5);
			assert_int_equal(store_open(&st, f->dir, err, sizeof(err)), 0);
			if (store_get(&st, &io, 0, &rec, &s.data, err, sizeof(err)))
				fail_msg("%s", err);
			store_close(&st);
			s.kind = (enum pix_kind)rec.kind;
			s.h = rec.h;
			s.w = rec.w;
			if (run_range(&p, &s, k, p.nops))
				fail_msg("%s split %d: %s", pipe_name, k, s.err);
			assert_int_equal(s.kind, full.kind);
			assert_int_equal(s.h, full.h);
			assert_int_equal(s.w, full.w);
			assert_int_equal(sample_bytes(&s), nfull);
			if (memcmp(s.data.p, full.data.p, nfull))
				fail_msg("%s: split after op %d, %s: other tensor than the full pipeline",
					 pipe_name, k, store_format_name((enum store_format)fmt));
			assert_int_equal(store_remove(f->dir, err, sizeof(err)), 0);
			store_io_release(&io);
		}
	sample_release(&s);
	sample_release(&full);
	scratch_release(&scr);
	pipeline_release(&p);
}

static void test_split_val(void **state)
{
	/* decode, resize, center_crop, to_tensor, normalize: five splits */
	split_case(*state, "imagenet_val", "tests/fixtures/decode/j420.jpg", 5);
	split_case(*state, "imagenet_val", "tests/fixtures/decode/j37x23_s1.jpg", 5);
}

static void test_split_train(void **state)
{
	/* random_resized_crop draws: only the decoded pixels can be stored */
	split_case(*state, "imagenet_train", "tests/fixtures/decode/j420.jpg", 1);
	split_case(*state, "imagenet_train", "tests/fixtures/decode/j444.jpg", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip_zstd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip_lz4, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compression_shrinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_errors, setup, teardown),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test_setup_teardown(test_split_val, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_train, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
