/* The hashes come from Debian's libxxhash (xxHash 0.8): XXH64 for stored
 * data whose format must not change, XXH3 for the per-sample checksum on the
 * workers' path (several times faster than XXH64 on large buffers). */
#include <xxhash.h>
#include "checksum.h"

uint64_t checksum_xxh64(const void *p, size_t n, uint64_t seed)
{
	return XXH64(p, n, seed);
}

uint64_t checksum_sample(const void *data, size_t n, int64_t label)
{
	return XXH3_64bits_withSeed(data, n, (uint64_t)label);
}
