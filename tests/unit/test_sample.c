/* A worker's pool of sample buffers (pipelines/sample.h: struct buf_pool):
 * the buffers of the imagenet_train chain, batch after batch, are reused
 * at their sizes; after the first batch nothing is allocated or grown
 * again unless an image larger than every one before comes. Without the
 * pool, the B + 1 buffers that rotate through decode are grown again and
 * again (the page faults of issue 22). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "sample.h"

#define B 16
#define TENSOR ((size_t)224 * 224 * 3 * 4)
#define CROP ((size_t)224 * 224 * 3)

/* The buffer moves of the faithful chain on one sample: decode (an image
 * of `decoded` bytes into tmp, then swapped in), random_resized_crop,
 * random_horizontal_flip when flip, to_tensor, as the ops make them. */
static void chain(struct sample *s, size_t decoded, int flip)
{
	assert_int_equal(buf_reserve(&s->scr->tmp, decoded), 0);
	memset(s->scr->tmp.p, 1, decoded);
	sample_swap_tmp(s);
	assert_int_equal(buf_reserve(&s->scr->tmp, CROP), 0);
	sample_swap_tmp(s);
	if (flip) {
		assert_int_equal(buf_reserve(&s->scr->tmp, CROP), 0);
		sample_swap_tmp(s);
	}
	assert_int_equal(buf_reserve(&s->scr->tmp, TENSOR), 0);
	memset(s->scr->tmp.p, 2, TENSOR);
	sample_swap_tmp(s);
	assert_true(s->data.cap >= TENSOR);
}

/* decoded sizes that vary as photos do (0.9 to 1.5 MB), the largest in the first batch */
static size_t decoded_size(unsigned k)
{
	return (size_t)(900000 + (k * 2654435761u) % 600000);
}

static void run_batches(struct sample *smp, struct scratch *scr, int batches, unsigned *k)
{
	for (int b = 0; b < batches; b++)
		for (int i = 0; i < B; i++, (*k)++) {
			sample_setup(&smp[i], "x", 0, *k, NULL, scr, 0, 0);
			chain(&smp[i], decoded_size(*k) + (*k == 3 ? 700000 : 0), (*k * 7) % 2);
		}
}

static void test_pool_reuses_after_first_batch(void **state)
{
	(void)state;
	struct scratch scr = { 0 };
	struct sample smp[B];
	memset(smp, 0, sizeof(smp));
	assert_int_equal(scratch_pool_init(&scr, B), 0);
	unsigned k = 0;
	run_batches(smp, &scr, 1, &k);
	uint64_t allocs = scr.pool.allocs, regrows = scr.pool.regrows;
	assert_true(scr.pool.owned <= scr.pool.max);
	run_batches(smp, &scr, 20, &k);
	/* the first batch held the largest image: nothing new after it */
	assert_int_equal(scr.pool.regrows, regrows);
	assert_true(scr.pool.allocs - allocs <= scr.pool.max - B);
	/* memory: one buffer per sample and a few more */
	assert_true(scr.pool.owned <= (size_t)B + 16);
	for (int i = 0; i < B; i++)
		sample_release(&smp[i]);
	scratch_release(&scr);
}

/* A larger image after the first batch grows one buffer (to the largest
 * size asked for), once; the pool never holds more than its max. */
static void test_pool_grows_once_for_a_record(void **state)
{
	(void)state;
	struct scratch scr = { 0 };
	struct sample smp[B];
	memset(smp, 0, sizeof(smp));
	assert_int_equal(scratch_pool_init(&scr, B), 0);
	unsigned k = 0;
	run_batches(smp, &scr, 3, &k);
	uint64_t made = scr.pool.allocs + scr.pool.regrows;
	sample_setup(&smp[0], "x", 0, k++, NULL, &scr, 0, 0);
	chain(&smp[0], 5 << 20, 0);
	assert_int_equal(scr.pool.allocs + scr.pool.regrows, made + 1);
	run_batches(smp, &scr, 3, &k);
	/* the large buffer went back to the pool, not into a sample */
	made = scr.pool.allocs + scr.pool.regrows;
	sample_setup(&smp[1], "x", 0, k++, NULL, &scr, 0, 0);
	chain(&smp[1], 5 << 20, 1);
	assert_int_equal(scr.pool.allocs + scr.pool.regrows, made);
	assert_true(scr.pool.owned <= scr.pool.max);
	for (int i = 0; i < B; i++)
		sample_release(&smp[i]);
	scratch_release(&scr);
	assert_int_equal(scr.pool.max, 0);
}

/* Without a pool a buffer grows on its own (1.5x), as before. */
static void test_no_pool(void **state)
{
	(void)state;
	struct buf b = { 0 };
	assert_int_equal(buf_reserve(&b, 100), 0);
	assert_int_equal(b.cap, 100);
	assert_int_equal(buf_reserve(&b, 120), 0);
	assert_int_equal(b.cap, 150);
	assert_int_equal(buf_reserve(&b, 10), 0);
	assert_int_equal(b.cap, 150);
	buf_free(&b);
	assert_null(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_reuses_after_first_batch),
		cmocka_unit_test(test_pool_grows_once_for_a_record),
		cmocka_unit_test(test_no_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
