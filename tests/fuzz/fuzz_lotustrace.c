/* The LotusTrace reader (bench/results/emit_lotustrace.c: lotustrace_read) that
 * compare uses on a real DataLoader's logs. The input holds a main log and
 * a worker log separated by a line "%%" (no separator: a worker log only). */
#include <string.h>
#include "emit.h"
#include "fuzz.h"
#include "trace.h"

void fuzz_init(void)
{
}

int fuzz_one(const uint8_t *data, size_t n)
{
	static const char sep[] = "\n%%\n";
	const uint8_t *cut = NULL;
	for (size_t i = 0; i + 4 <= n && !cut; i++)
		if (!memcmp(data + i, sep, 4))
			cut = data + i;
	if (cut) {
		fuzz_write("lotustrace_log_main_pid_1", data, (size_t)(cut - data));
		fuzz_write("lotustrace_log_worker_pid_2", cut + 4, n - (size_t)(cut - data) - 4);
	} else {
		fuzz_write("lotustrace_log_main_pid_1", (const uint8_t *)"", 0);
		fuzz_write("lotustrace_log_worker_pid_2", data, n);
	}
	struct trace t;
	char err[1024];
	memset(&t, 0, sizeof(t));
	if (lotustrace_read(fuzz_dir(), "lotustrace_log", &t, err, sizeof(err)) == 0)
		lotustrace_free(&t);
	else
		lotustrace_free(&t);
	return 0;
}
