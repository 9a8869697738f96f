/* The hashes come from Debian's libxxhash (xxHash 0.8): XXH64 for stored
 * data whose format must not change, XXH3 for the per-sample checksum on the
 * workers' path (several times faster than XXH64 on large buffers).
 *
 * The per-sample XXH3 goes through the library's own x86 dispatcher
 * (xxh_x86dispatch.h), which picks its AVX-512, AVX2 or SSE2 code at run time
 * and gives the same hash as the generic XXH3. Measured on this VM (AVX-512),
 * a 224x224x3 float sample in cache: 13-15 us against 31-45 us for the
 * SSE2 build the plain symbol uses. The dispatched code returns with the
 * upper halves of the vector registers dirty (no vzeroupper), which made the
 * SSE code that follows it (libjpeg-turbo's, the plain XXH3) run 2-3x slower
 * in the same measurement; checksum_sample clears them before returning. */
#include <xxhash.h>
#include <xxh_x86dispatch.h>
#include <immintrin.h>
#include "checksum.h"

uint64_t checksum_xxh64(const void *p, size_t n, uint64_t seed)
{
	return XXH64(p, n, seed);
}

__attribute__((target("avx"))) static void clear_upper(void)
{
	_mm256_zeroupper();
}

uint64_t checksum_sample(const void *data, size_t n, int64_t label)
{
	uint64_t h = XXH3_64bits_withSeed_dispatch(data, n, (uint64_t)label);
	if (__builtin_cpu_supports("avx"))
		clear_upper();
	return h;
}
