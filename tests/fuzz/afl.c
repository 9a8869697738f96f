/* afl++ persistent-mode driver (built with afl-clang-fast by `make fuzz`). */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include "fuzz.h"

__AFL_FUZZ_INIT();

int main(void)
{
	fuzz_init();
	fuzz_dir();
#ifdef __AFL_HAVE_MANUAL_CONTROL
	__AFL_INIT();
#endif
	const uint8_t *buf = __AFL_FUZZ_TESTCASE_BUF;
	while (__AFL_LOOP(10000)) {
		size_t n = (size_t)__AFL_FUZZ_TESTCASE_LEN;
		fuzz_one(buf, n);
	}
	return 0;
}
