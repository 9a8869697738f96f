/* Callgrind client requests around a measured op (ppbench map), stubbed
 * when valgrind's headers are missing: Debian's `valgrind` package ships
 * /usr/include/valgrind/callgrind.h. The requests are a few no-op
 * instructions when the program does not run under valgrind. */
#ifndef PPBENCH_VALGRIND_MARKS_H
#define PPBENCH_VALGRIND_MARKS_H

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#define PPBENCH_HAVE_CALLGRIND 1
#endif
#endif

#ifdef PPBENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>

static inline const char *marks_unavailable_reason(void)
{
	return NULL;
}

/* With --collect-atstart=no: the first toggle starts collecting, the next stops. */
static inline void marks_callgrind_toggle(void)
{
	CALLGRIND_TOGGLE_COLLECT;
}

static inline int marks_on_valgrind(void)
{
	return RUNNING_ON_VALGRIND;
}
#else
static inline const char *marks_unavailable_reason(void)
{
	return "ppbench was built without valgrind/callgrind.h (install valgrind, then rebuild)";
}

static inline void marks_callgrind_toggle(void)
{
}

static inline int marks_on_valgrind(void)
{
	return 0;
}
#endif

/* Valgrind cannot run a program built with AddressSanitizer. */
#if defined(__SANITIZE_ADDRESS__)
static inline int marks_built_with_asan(void)
{
	return 1;
}
#else
static inline int marks_built_with_asan(void)
{
	return 0;
}
#endif

#endif
