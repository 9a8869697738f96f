/* ppbench merge: the cost per million images and the --price parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "merge.h"

static void test_cost(void **state)
{
	static const struct {
		int line;
		double usd, ips, want;        /* want NaN: no cost */
	} rows[] = {
		{ __LINE__, 3.6, 1000, 1.0 },       /* 3.6 USD/h = 0.001 USD/s; 1000 s per million */
		{ __LINE__, 2.5, 256.9444125, 2.5 / 3600 / 256.9444125 * 1e6 },
		{ __LINE__, 36, 1e6, 0.01 },
		{ __LINE__, 0, 100, NAN },
		{ __LINE__, -1, 100, NAN },
		{ __LINE__, 1, 0, NAN },
		{ __LINE__, 1, NAN, NAN },
		{ __LINE__, NAN, 100, NAN },
		{ __LINE__, INFINITY, 100, NAN },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double got = merge_cost_per_million(rows[i].usd, rows[i].ips);
		if (isnan(rows[i].want)) {
			if (!isnan(got))
				fail_msg("line %d: %g, expected no cost", rows[i].line, got);
		} else if (!(fabs(got - rows[i].want) <= 1e-12 * rows[i].want)) {
			fail_msg("line %d: %.15g, expected %.15g", rows[i].line, got, rows[i].want);
		}
	}
}

static void test_price(void **state)
{
	static const struct {
		int line;
		const char *arg;
		int rc;
		const char *name;
		double usd;
		const char *err;              /* part of the message */
	} rows[] = {
		{ __LINE__, "node-skx=2.5", 0, "node-skx", 2.5, NULL },
		{ __LINE__, "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz=1.5", 0,
		  "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz", 1.5, NULL },
		{ __LINE__, "a=b=3", 0, "a=b", 3, NULL },    /* the last '=' splits */
		{ __LINE__, "x=1e-3", 0, "x", 1e-3, NULL },
		{ __LINE__, "node", -1, NULL, 0, "not NAME=USD_PER_HOUR" },
		{ __LINE__, "=3", -1, NULL, 0, "not NAME=USD_PER_HOUR" },
		{ __LINE__, "node=", -1, NULL, 0, "not NAME=USD_PER_HOUR" },
		{ __LINE__, "node=abc", -1, NULL, 0, "'abc' is not a positive price" },
		{ __LINE__, "node=0", -1, NULL, 0, "not a positive price" },
		{ __LINE__, "node=-2", -1, NULL, 0, "not a positive price" },
		{ __LINE__, "node=3usd", -1, NULL, 0, "not a positive price" },
		{ __LINE__, "node=inf", -1, NULL, 0, "not a positive price" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char name[64] = "", err[256] = "";
		double usd = -99;
		int rc = merge_parse_price(rows[i].arg, name, sizeof(name), &usd, err, sizeof(err));
		if (rc != rows[i].rc)
			fail_msg("line %d: '%s' gave %d (%s)", rows[i].line, rows[i].arg, rc, err);
		if (rc == 0 && (strcmp(name, rows[i].name) || usd != rows[i].usd))
			fail_msg("line %d: '%s' gave '%s' %g", rows[i].line, rows[i].arg, name, usd);
		if (rc && !strstr(err, rows[i].err))
			fail_msg("line %d: '%s': message '%s'", rows[i].line, rows[i].arg, err);
	}
	/* a name longer than the buffer */
	{
		char name[4], err[256];
		double usd;
		assert_int_equal(merge_parse_price("toolong=1", name, sizeof(name), &usd, err,
						   sizeof(err)), -1);
		assert_non_null(strstr(err, "too long"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_price),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
