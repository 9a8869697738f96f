/* The readers of results folders that report, merge and --resume use:
 * sweep.json and a run's summary.json (bench/report/report_table.c: sweep_load,
 * sweep_row_from_summary; the metric table's metric_from_json). The input
 * holds a sweep.json and a summary.json separated by a line "%%" (no
 * separator: the input is both); the summary is the run folder "r". */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
	fuzz_write("sweep.json", sw, nsw);
	fuzz_write("r/summary.json", sum, nsum);
	struct sweep s;
	char err[1024];
	if (sweep_load(&s, fuzz_dir(), err, sizeof(err)) == 0)
		sweep_free(&s);
	return 0;
}
