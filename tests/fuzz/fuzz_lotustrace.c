/* The LotusTrace reader (bench/results/emit_lotustrace.c: lotustrace_read) that
 * compare uses on a real DataLoader's logs. The input holds a main log and
 * a worker log separated by a line "%%" (no separator: a worker log only).
 * Each input is read twice more: with the worker log a FIFO no one writes
 * to, then grown past FILE_MAX_TABLE (sparse): both must be refused for
 * what they are, before a byte is read. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "fsutil.h"
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
	const uint8_t *wk = data;
	size_t nwk = n;
	if (cut) {
		fuzz_write("lotustrace_log_main_pid_1", data, (size_t)(cut - data));
		wk = cut + 4;
		nwk = n - (size_t)(cut - data) - 4;
	} else {
		fuzz_write("lotustrace_log_main_pid_1", (const uint8_t *)"", 0);
	}
	for (int shape = 0; shape < 3; shape++) {
		if (shape == 1)
			fuzz_fifo("lotustrace_log_worker_pid_2");
		else if (shape == 2)
			fuzz_oversized("lotustrace_log_worker_pid_2", wk, nwk,
				       (long long)FILE_MAX_TABLE + 1);
		else
			fuzz_write("lotustrace_log_worker_pid_2", wk, nwk);
		struct trace t;
		char err[1024] = "";
		memset(&t, 0, sizeof(t));
		int rc = lotustrace_read(fuzz_dir(), "lotustrace_log", &t, err, sizeof(err));
		lotustrace_free(&t);
		/* the main log is read first: it may be what was refused */
		if (shape && rc == 0)
			abort();
		if (shape && !strstr(err, "worker_pid_2") && !strstr(err, "main_pid_1"))
			abort();
		if (shape && strstr(err, "worker_pid_2") &&
		    !strstr(err, shape == 1 ? "not a regular file" : "ppbench reads"))
			abort();
	}
	return 0;
}
