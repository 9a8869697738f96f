#include <errno.h>
#include <stdlib.h>
#include "clock.h"

int64_t clock_wall_offset_ns(void)
{
	static int64_t off;
	static int done;
	if (!done) {
		/* bracket the realtime read by two monotonic reads, take the middle */
		struct timespec rt;
		uint64_t a = clock_now_ns();
		clock_gettime(CLOCK_REALTIME, &rt);
		uint64_t b = clock_now_ns();
		int64_t wall = (int64_t)rt.tv_sec * 1000000000ll + rt.tv_nsec;
		off = wall - (int64_t)(a + (b - a) / 2);
		done = 1;
	}
	return off;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

double clock_read_cost_ns(void)
{
	enum { ROUNDS = 31, READS = 1000 };
	uint64_t per[ROUNDS];
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = clock_now_ns(), t = 0;
		for (int i = 0; i < READS; i++)
			t += clock_now_ns();
		uint64_t t1 = clock_now_ns();
		per[r] = (t1 - t0) + (t & 1); /* keep t alive; adds at most 1 ns */
	}
	qsort(per, ROUNDS, sizeof(per[0]), cmp_u64);
	return (double)per[ROUNDS / 2] / READS;
}

uint64_t clock_resolution_ns(void)
{
	struct timespec ts;
	if (clock_getres(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *clock_source(void)
{
	return "clock_gettime(CLOCK_MONOTONIC)";
}

void clock_sleep_ns(uint64_t ns, volatile sig_atomic_t *stop)
{
	struct timespec req = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) }, rem;
	while (nanosleep(&req, &rem) && errno == EINTR) {
		if (stop && *stop)
			return;
		req = rem;
	}
}
