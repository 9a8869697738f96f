/* STUB: being written. */
#include "rng.h"
void rng_seed(struct rng *r, uint64_t seed) { r->mti = 0; r->mt[0] = (uint32_t)seed; }
uint32_t rng_u32(struct rng *r) { return r->mt[0]++; }
uint64_t rng_u64(struct rng *r) { return ((uint64_t)rng_u32(r) << 32) | rng_u32(r); }
uint64_t rng_sample_seed(uint64_t seed, uint64_t epoch, uint64_t index) { return seed ^ epoch ^ index; }
int64_t rng_torch_int64(struct rng *r) { return (int64_t)(rng_u64(r) & 0x7fffffffffffffffull); }
float rng_torch_uniform(struct rng *r, float a, float b) { return a + (b - a) * (float)(rng_u32(r) & 0xffffff) * 0x1p-24f; }
float rng_torch_rand(struct rng *r) { return (float)(rng_u32(r) & 0xffffff) * 0x1p-24f; }
uint32_t rng_torch_randint(struct rng *r, uint32_t n) { return rng_u32(r) % n; }
float rng_torch_expf(float d) { return d; }
