/* The readers of results folders that report, merge and --resume use:
 * sweep.json and a run's summary.json (bench/report/report_table.c: sweep_load,
 * sweep_row_from_summary; the metric table's metric_from_json). The input
 * holds a sweep.json and a summary.json separated by a line "%%" (no
 * separator: the input is both); the summary is the run folder "r". Each
 * input is read four more times: with sweep.json, then summary.json, a FIFO
 * no one writes to (a reader that does not check the type first hangs) and
 * grown past FILE_MAX_DOC (sparse: a reader that does not check the size
 * first reads 64 MiB; sweep_load must refuse it by its size). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fsutil.h"
#include "fuzz.h"
#include "report.h"

void fuzz_init(void)
{
	char p[300];
	snprintf(p, sizeof(p), "%s/r", fuzz_dir());
	mkdir(p, 0700);
}

int fuzz_one(const uint8_t *data, size_t n)
{
	static const char sep[] = "\n%%\n";
	const uint8_t *sw = data, *sum = data, *cut = NULL;
	size_t nsw = n, nsum = n;
	for (size_t i = 0; i + 4 <= n && !cut; i++)
		if (!memcmp(data + i, sep, 4))
			cut = data + i;
	if (cut) {
		nsw = (size_t)(cut - data);
		sum = cut + 4;
		nsum = n - nsw - 4;
	}
	json_t *j = json_loadb((const char *)sum, nsum, 0, NULL);
	if (j) {
		struct sweep_row r;
		sweep_row_init(&r);
		sweep_row_from_summary(&r, j);
		json_decref(j);
	}
	struct sweep s;
	char err[1024];
	for (int shape = 0; shape < 5; shape++) {
		if (shape == 1)
			fuzz_fifo("sweep.json");
		else if (shape == 3)
			fuzz_oversized("sweep.json", sw, nsw, (long long)FILE_MAX_DOC + 1);
		else
			fuzz_write("sweep.json", sw, nsw);
		if (shape == 2)
			fuzz_fifo("r/summary.json");
		else if (shape == 4)
			fuzz_oversized("r/summary.json", sum, nsum, (long long)FILE_MAX_DOC + 1);
		else
			fuzz_write("r/summary.json", sum, nsum);
		int rc = sweep_load(&s, fuzz_dir(), err, sizeof(err));
		if (rc == 0)
			sweep_free(&s);
		/* a FIFO or an oversized sweep.json is refused for what it is */
		if ((shape == 1 || shape == 3) &&
		    (rc == 0 || !strstr(err, shape == 1 ? "not a regular file" : "ppbench reads")))
			abort();
	}
	return 0;
}
