/* Proof that the work was done: a 64-bit checksum of every sample's final
 * data and label. A sample's hash is XXH3-64 of its bytes seeded with its
 * label (libxxhash); a batch's checksum is the sum of its samples' hashes and the run's
 * the sum over batches (both mod 2^64), so the run's checksum does not
 * depend on how samples are grouped into batches, on the number of workers,
 * the backend or the order batches arrive in. */
#ifndef PPBENCH_CHECKSUM_H
#define PPBENCH_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* XXH64 (Yann Collet's xxHash, 64-bit variant) of p[0..n) with seed. */
uint64_t checksum_xxh64(const void *p, size_t n, uint64_t seed);

/* The hash of one sample: its data bytes and its label. */
uint64_t checksum_sample(const void *data, size_t n, int64_t label);

#endif
