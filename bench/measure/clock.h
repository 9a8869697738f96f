/* The one clock. Only clock.c reads time.
 *
 * Source: CLOCK_MONOTONIC (vDSO, no syscall). Times are ns since an arbitrary
 * origin; clock_wall_offset_ns() converts them to wall-clock ns since the
 * epoch (LotusTrace files use wall-clock ns). */
#ifndef PPBENCH_CLOCK_H
#define PPBENCH_CLOCK_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time, ns (CLOCK_THREAD_CPUTIME_ID: a system
 * call, about 0.7 us here; for regions of a batch, not of a sample). */
static inline uint64_t clock_thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* wall-clock ns = monotonic ns + this (measured once, at first call) */
int64_t clock_wall_offset_ns(void);
/* Cost of one clock_now_ns() in ns (median of repeated measurements), and
 * its resolution (clock_getres). */
double clock_read_cost_ns(void);
uint64_t clock_resolution_ns(void);
const char *clock_source(void);
/* Sleep for ns (nanosleep, restarted on EINTR unless *stop becomes set). */
void clock_sleep_ns(uint64_t ns, volatile sig_atomic_t *stop);

#endif
