/* MT19937 and the torch draws against torch 1.13 (fixtures from
 * scripts/fixtures_geometry.py), and the per-sample seed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rng.h"
#include "rrc.h"
#include "testutil.h"

/* the seeds of the single-stream fixtures (scripts/fixtures_geometry.py) */
#define SEED_UNIFORM 7
#define SEED_RAND 8
#define SEED_RANDINT 9

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static void test_mt_reference(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 5489);
	assert_int_equal(rng_u32(&r), 3499211612u);
	for (int i = 1; i < 9999; i++)
		rng_u32(&r);
	/* the C++ standard's check: the 10000th output of the default seed */
	assert_int_equal(rng_u32(&r), 4123659995u);
	/* only the low 32 bits of the seed count, as in torch.manual_seed */
	struct rng a, b;
	rng_seed(&a, 5489 + (1ull << 32));
	rng_seed(&b, 5489);
	for (int i = 0; i < 700; i++)
		assert_int_equal(rng_u32(&a), rng_u32(&b));
}

static void test_mt_fixture(void **state)
{
	(void)state;
	struct npy seeds, u32;
	load(FIX "rng_seeds.npy", "<u8", &seeds);
	load(FIX "rng_u32.npy", "<u4", &u32);
	assert_int_equal(u32.shape[0], seeds.count);
	const uint64_t *sd = seeds.data;
	const uint32_t *want = u32.data;
	for (size_t k = 0; k < seeds.count; k++) {
		struct rng r;
		rng_seed(&r, sd[k]);
		for (size_t i = 0; i < u32.shape[1]; i++) {
			uint32_t got = rng_u32(&r);
			if (got != want[k * u32.shape[1] + i])
				fail_msg("seed %llu draw %zu: %u, torch %u", (unsigned long long)sd[k],
					 i, got, want[k * u32.shape[1] + i]);
		}
	}
	npy_free(&seeds);
	npy_free(&u32);
}

static void test_int64_fixture(void **state)
{
	(void)state;
	struct npy seeds, i64;
	load(FIX "rng_seeds.npy", "<u8", &seeds);
	load(FIX "rng_int64.npy", "<i8", &i64);
	const uint64_t *sd = seeds.data;
	const int64_t *want = i64.data;
	for (size_t k = 0; k < seeds.count; k++) {
		struct rng r, r2;
		rng_seed(&r, sd[k]);
		rng_seed(&r2, sd[k]);
		for (size_t i = 0; i < i64.shape[1]; i++) {
			assert_int_equal(rng_torch_int64(&r), want[k * i64.shape[1] + i]);
			/* random64: the first draw is the high word */
			uint64_t hi = rng_u32(&r2), lo = rng_u32(&r2);
			assert_int_equal((int64_t)(((hi << 32) | lo) & INT64_MAX),
					 want[k * i64.shape[1] + i]);
		}
	}
	struct rng a, b;
	rng_seed(&a, 77);
	rng_seed(&b, 77);
	uint64_t hi = rng_u32(&b), lo = rng_u32(&b);
	assert_int_equal(rng_u64(&a), (hi << 32) | lo);
	npy_free(&seeds);
	npy_free(&i64);
}

static void test_uniform_fixture(void **state)
{
	(void)state;
	struct npy u;
	load(FIX "rng_uniform.npy", "<f4", &u);
	assert_int_equal(u.shape[1], 3);
	const float *row = u.data;
	struct rng r;
	rng_seed(&r, SEED_UNIFORM);
	for (size_t i = 0; i < u.shape[0]; i++, row += 3) {
		float got = rng_torch_uniform(&r, row[0], row[1]);
		if (bits(got) != bits(row[2]))
			fail_msg("draw %zu: uniform_(%a, %a) = %a, torch %a", i, row[0], row[1],
				 got, row[2]);
	}
	npy_free(&u);
}

static void test_rand_fixture(void **state)
{
	(void)state;
	struct npy u;
	load(FIX "rng_rand.npy", "<f4", &u);
	const float *want = u.data;
	struct rng r;
	rng_seed(&r, SEED_RAND);
	for (size_t i = 0; i < u.count; i++)
		assert_int_equal(bits(rng_torch_rand(&r)), bits(want[i]));
	npy_free(&u);
}

static void test_randint_fixture(void **state)
{
	(void)state;
	struct npy u;
	load(FIX "rng_randint.npy", "<i8", &u);
	assert_int_equal(u.shape[1], 2);
	const int64_t *row = u.data;
	struct rng r;
	rng_seed(&r, SEED_RANDINT);
	for (size_t i = 0; i < u.shape[0]; i++, row += 2)
		assert_int_equal(rng_torch_randint(&r, (uint32_t)row[0]), row[1]);
	npy_free(&u);
}

static void test_expf_fixture(void **state)
{
	(void)state;
	struct npy u;
	load(FIX "expf.npy", "<f4", &u);
	const float *row = u.data;
	for (size_t i = 0; i < u.shape[0]; i++, row += 2) {
		float got = rng_torch_expf(row[0]);
		if (bits(got) != bits(row[1]))
			fail_msg("exp(%a) = %a, torch %a", row[0], got, row[1]);
	}
	assert_true(isnan(rng_torch_expf(NAN)));
	npy_free(&u);
}

static void test_logf_fixture(void **state)
{
	(void)state;
	struct npy u;
	load(FIX "logf.npy", "<f4", &u);
	const float *row = u.data;
	for (size_t i = 0; i < u.shape[0]; i++, row += 2) {
		float got = rrc_torch_logf(row[0]);
		if (bits(got) != bits(row[1]))
			fail_msg("log(%a) = %a, torch %a", row[0], got, row[1]);
	}
	/* the spec's constants for the default ratio */
	assert_int_equal(bits(rrc_torch_logf(0.75f)), 0xbe934b11u);
	assert_int_equal(bits(rrc_torch_logf((float)(4.0 / 3.0))), 0x3e934b12u);
	assert_true(isnan(rrc_torch_logf(-1.0f)));
	assert_true(isinf(rrc_torch_logf(0.0f)) && rrc_torch_logf(0.0f) < 0);
	npy_free(&u);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_sample_seed(void **state)
{
	(void)state;
	/* deterministic, and a function of all three values */
	assert_int_equal(rng_sample_seed(1, 2, 3), rng_sample_seed(1, 2, 3));
	assert_int_not_equal(rng_sample_seed(1, 0, 2), rng_sample_seed(0, 0, 3));
	assert_int_not_equal(rng_sample_seed(1, 0, 0), rng_sample_seed(0, 1, 0));
	assert_int_not_equal(rng_sample_seed(0, 1, 0), rng_sample_seed(0, 0, 1));
	/* pinned: changing the mix changes every augmentation of a run */
	assert_int_equal(rng_sample_seed(0, 0, 0), 0x238275bc38fcbe91ull);
	/* no 64-bit collision over a grid of neighbours, and the low 32 bits
	 * (what seeds MT19937) of neighbouring indexes differ */
	enum { NS = 8, NE = 8, NI = 4000 };
	uint64_t *v = malloc(sizeof(*v) * NS * NE * NI);
	assert_non_null(v);
	size_t n = 0;
	for (uint64_t s = 0; s < NS; s++)
		for (uint64_t e = 0; e < NE; e++)
			for (uint64_t i = 0; i < NI; i++) {
				v[n] = rng_sample_seed(s, e, i);
				if (i)
					assert_int_not_equal((uint32_t)v[n], (uint32_t)v[n - 1]);
				n++;
			}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t a = 1; a < n; a++)
		if (v[a] == v[a - 1])
			fail_msg("rng_sample_seed collides: %#llx", (unsigned long long)v[a]);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mt_reference),
		cmocka_unit_test(test_mt_fixture),
		cmocka_unit_test(test_int64_fixture),
		cmocka_unit_test(test_uniform_fixture),
		cmocka_unit_test(test_rand_fixture),
		cmocka_unit_test(test_randint_fixture),
		cmocka_unit_test(test_expf_fixture),
		cmocka_unit_test(test_logf_fixture),
		cmocka_unit_test(test_sample_seed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
