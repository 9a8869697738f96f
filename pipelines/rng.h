/* Random streams for the ops.
 *
 * One generator, MT19937, used as torch uses it (init_genrand with the low 32
 * bits of the seed; random64 = (r1 << 32) | r2), so the draws of the ops
 * follow torch's functions in both seeding modes:
 *  - per-sample (default): the stream of a sample is MT19937 seeded from
 *    (seed, epoch, sample index), so results do not depend on workers, batch
 *    size, backend or order;
 *  - torch: a worker's stream is MT19937(base_seed + worker_id), drawn in the
 *    order the worker processes its samples, as in a DataLoader worker. */
#ifndef PPBENCH_RNG_H
#define PPBENCH_RNG_H

#include <stdint.h>

struct rng {
	uint32_t mt[624];
	int mti;
};

void rng_seed(struct rng *r, uint64_t seed);      /* torch.manual_seed(seed) */
uint32_t rng_u32(struct rng *r);                  /* torch random() */
uint64_t rng_u64(struct rng *r);                  /* torch random64() */

/* The per-sample seed: a hash of (seed, epoch, index). */
uint64_t rng_sample_seed(uint64_t seed, uint64_t epoch, uint64_t index);

/* torch.empty((), int64).random_() : random64() & (2^63 - 1) */
int64_t rng_torch_int64(struct rng *r);
/* torch's float32 uniform_(a, b) on an AVX2 CPU: fmaf(x, b - a, a) with
 * x = (random() & 0xFFFFFF) * 2^-24 */
float rng_torch_uniform(struct rng *r, float a, float b);
/* torch.rand(1) */
float rng_torch_rand(struct rng *r);
/* torch.randint(0, n): random() % n (n > 0) */
uint32_t rng_torch_randint(struct rng *r, uint32_t n);
/* torch.exp on float32 (Sleef expf_u10, the AVX2 path) */
float rng_torch_expf(float d);

#endif
