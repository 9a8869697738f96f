/* MT19937 as torch's CPU generator uses it, and the few torch functions the
 * ops draw through (see rng.h and the spec, sections 2.11 and 3). */
#include <math.h>
#include <string.h>
#include "rng.h"

#define MT_N 624
#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

/* torch's mt19937 constructor: init_genrand with the low 32 bits */
void rng_seed(struct rng *r, uint64_t seed)
{
	r->mt[0] = (uint32_t)(seed & 0xffffffffu);
	for (int j = 1; j < MT_N; j++)
		r->mt[j] = 1812433253u * (r->mt[j - 1] ^ (r->mt[j - 1] >> 30)) + (uint32_t)j;
	r->mti = MT_N;
}

static void mt_refill(struct rng *r)
{
	uint32_t *mt = r->mt;
	int k;
	for (k = 0; k < MT_N - MT_M; k++) {
		uint32_t y = (mt[k] & MT_UPPER) | (mt[k + 1] & MT_LOWER);
		mt[k] = mt[k + MT_M] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX_A : 0u);
	}
	for (; k < MT_N - 1; k++) {
		uint32_t y = (mt[k] & MT_UPPER) | (mt[k + 1] & MT_LOWER);
		mt[k] = mt[k + MT_M - MT_N] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX_A : 0u);
	}
	uint32_t y = (mt[MT_N - 1] & MT_UPPER) | (mt[0] & MT_LOWER);
	mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX_A : 0u);
	r->mti = 0;
}

uint32_t rng_u32(struct rng *r)
{
	/* rng_seed() comes first; a bad index refills rather than reading
	 * out of bounds */
	if (r->mti >= MT_N || r->mti < 0)
		mt_refill(r);
	uint32_t y = r->mt[r->mti++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

uint64_t rng_u64(struct rng *r)
{
	/* the first draw is the high word; two statements fix the order */
	uint64_t hi = rng_u32(r);
	uint64_t lo = rng_u32(r);
	return (hi << 32) | lo;
}

/* splitmix64's output function (Steele, Lea, Flood 2014), a bijection of
 * 64-bit values with full avalanche. */
static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^ index): chaining keeps
 * (seed, epoch, index) triples apart (a plain xor would map (1, 0, 2) and
 * (0, 0, 3) to nearby seeds), and every bit of the result depends on every
 * input bit. Only the low 32 bits reach MT19937 (torch truncates the same
 * way), so two samples share a stream with probability 2^-32 per pair. */
uint64_t rng_sample_seed(uint64_t seed, uint64_t epoch, uint64_t index)
{
	return splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^ index);
}

int64_t rng_torch_int64(struct rng *r)
{
	return (int64_t)(rng_u64(r) & 0x7fffffffffffffffull);
}

/* at::uniform_real_distribution<float>: the 24 low bits of one random() as
 * x in [0, 1), then x * (to - from) + from, which gcc contracts to an FMA in
 * torch's AVX2 build. fmaf is exact in glibc, with or without -mfma. */
float rng_torch_uniform(struct rng *r, float a, float b)
{
	float x = (float)(rng_u32(r) & 0xffffffu) * 0x1p-24f;
	return fmaf(x, b - a, a);
}

/* torch.rand(1): uniform_(0, 1), where fmaf(x, 1, 0) == x */
float rng_torch_rand(struct rng *r)
{
	return (float)(rng_u32(r) & 0xffffffu) * 0x1p-24f;
}

uint32_t rng_torch_randint(struct rng *r, uint32_t n)
{
	uint32_t v = rng_u32(r);
	return n ? v % n : 0;
}

static float f32_from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Sleef's pow2i: 2^q for q in the normal exponent range */
static float pow2i(int q)
{
	return f32_from_bits((uint32_t)(q + 0x7f) << 23);
}

/* Sleef xexpf (expf_u10), FMA variant, as in torch's AVX2 Vectorized<float>::exp */
float rng_torch_expf(float d)
{
	if (isnan(d))
		return d;
	if (d < -104.0f)
		return 0.0f;
	if (d > 100.0f)
		return INFINITY;
	int q = (int)rintf(d * 0x1.715476p+0f);           /* R_LN2f */
	float s = fmaf((float)q, -0x1.62e4p-1f, d);        /* -L2Uf */
	s = fmaf((float)q, -0x1.7f7d1cp-20f, s);           /* -L2Lf */
	float u = 0x1.a057b4p-13f;
	u = fmaf(u, s, 0x1.6d2d92p-10f);
	u = fmaf(u, s, 0x1.11114cp-7f);
	u = fmaf(u, s, 0x1.5554f4p-5f);
	u = fmaf(u, s, 0x1.555556p-3f);
	u = fmaf(u, s, 0x1.0p-1f);
	u = 1.0f + fmaf(s * s, u, s);
	/* vldexp2: two multiplies by powers of two, as Sleef does */
	int h = q >> 1;
	return u * pow2i(h) * pow2i(q - h);
}
