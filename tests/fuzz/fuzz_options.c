/* The option parser (bench/util/options.c) with run's table, the unit parsers
 * (times, sizes, rates), the CPU lists of --pin and the event lists of
 * --counters: one argument per line of the input. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "fuzz.h"
#include "options.h"
#include "run.h"
#include "topology.h"

#define MAXARGS 64

void fuzz_init(void)
{
}

int fuzz_one(const uint8_t *data, size_t n)
{
	char *text = malloc(n + 1);
	char *argv[MAXARGS + 2];
	int argc = 0;
	if (!text)
		return 0;
	memcpy(text, data, n);
	text[n] = 0;
	argv[argc++] = "run";
	for (char *s = text, *e; argc < MAXARGS && s <= text + n; s = e + 1) {
		e = memchr(s, '\n', (size_t)(text + n - s));
		if (!e)
			e = text + n;
		*e = 0;
		argv[argc++] = s;
	}
	argv[argc] = NULL;

	/* each argument through the unit parsers, as other commands use them */
	for (int i = 1; i < argc; i++) {
		uint64_t u;
		double d;
		parse_time_ns(argv[i], "ms", &u);
		parse_size_bytes(argv[i], &u);
		parse_rate(argv[i], "B/s", &d);
	}
	struct run_opts o;
	char err[1024];
	int npos = 0;
	if (opts_defaults(run_opts_table, &o, err, sizeof(err)) == 0 &&
	    opts_parse(run_opts_table, &o, argc, argv, 1, &npos, err, sizeof(err)) == 0) {
		static struct pin_req pin;
		if (o.pin_cpus)
			pin_parse(o.pin_cpus, &pin, err, sizeof(err));
		static struct counter_spec spec;
		if (o.counters && strlen(o.counters) < 4096)
			counters_parse(o.counters, &spec, err, sizeof(err));
		json_decref(opts_json(run_opts_table, &o));
		if (npos)
			opts_unexpected(argv[1], "run", err, sizeof(err));
	}
	free(text);
	return 0;
}
