/* XXH64, written from the xxHash specification (doc/xxhash_spec.md). */
#include <string.h>
#include "checksum.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;      /* little-endian hosts only (x86-64, aarch64) */
}

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t round1(uint64_t acc, uint64_t in)
{
	acc += in * P2;
	acc = rotl(acc, 31);
	return acc * P1;
}

static inline uint64_t merge(uint64_t acc, uint64_t v)
{
	acc ^= round1(0, v);
	return acc * P1 + P4;
}

uint64_t checksum_xxh64(const void *data, size_t n, uint64_t seed)
{
	const unsigned char *p = data, *end = p + n;
	uint64_t h;
	if (n >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		const unsigned char *lim = end - 32;
		do {
			v1 = round1(v1, rd64(p));
			v2 = round1(v2, rd64(p + 8));
			v3 = round1(v3, rd64(p + 16));
			v4 = round1(v4, rd64(p + 24));
			p += 32;
		} while (p <= lim);
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge(h, v1);
		h = merge(h, v2);
		h = merge(h, v3);
		h = merge(h, v4);
	} else {
		h = seed + P5;
	}
	h += (uint64_t)n;
	for (; p + 8 <= end; p += 8) {
		h ^= round1(0, rd64(p));
		h = rotl(h, 27) * P1 + P4;
	}
	if (p + 4 <= end) {
		h ^= (uint64_t)rd32(p) * P1;
		h = rotl(h, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++) {
		h ^= (uint64_t)*p * P5;
		h = rotl(h, 11) * P1;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}
