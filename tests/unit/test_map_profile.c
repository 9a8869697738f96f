/* ppbench map's profile readers (bench/studies/map_profile.c) on stored snippets in
 * tests/fixtures/map: a callgrind profile (name compression, a call's
 * inclusive cost and a jump that are not self cost, GCC's clones counted
 * as their function, the cache totals) and `perf report` rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "map.h"

#define FIX "tests/fixtures/map"
#define assert_near(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * (1 + fabs((double)(b))))

static const struct fn_cost *find(const struct op_map *m, const char *lib, const char *fn)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->f[i].lib, lib) && !strcmp(m->f[i].fn, fn))
			return &m->f[i];
	fail_msg("no %s %s in the map", lib, fn);
	return NULL;
}

static void test_callgrind(void **state)
{
	(void)state;
	struct op_map m = { 0 };
	char err[512] = "";
	assert_int_equal(map_parse_callgrind(FIX "/callgrind.out", &m, err, sizeof(err)), 0);
	map_finish_op(&m);
	assert_int_equal(m.n, 3);
	assert_near(m.total, 850);
	/* sorted by cost: the stripped library's bare address first */
	assert_string_equal(m.f[0].lib, "libjpeg.so.62.3.0");
	assert_string_equal(m.f[0].fn, "0x0000000000012345");
	assert_near(m.f[0].count, 500);
	assert_near(find(&m, "ppbench", "resize_h")->count, 300);
	assert_near(find(&m, "ppbench", "op_decode_apply")->count, 50);
	assert_near(m.f[0].share, 100.0 * 500 / 850);
	assert_int_equal(m.has_cache, 1);
	assert_near(m.d1_miss, 6);
	assert_near(m.ll_miss, 2);
	free(m.f);
}

static void test_callgrind_errors(void **state)
{
	(void)state;
	struct op_map m = { 0 };
	char err[512] = "";
	assert_int_equal(map_parse_callgrind(FIX "/missing.out", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open '" FIX "/missing.out'"));
	/* a file that is not a callgrind profile: no Ir event */
	assert_int_equal(map_parse_callgrind(FIX "/perf.report", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no Ir event"));
	free(m.f);
}

static void test_perf_report(void **state)
{
	(void)state;
	struct op_map m = { 0 };
	FILE *f = fopen(FIX "/perf.report", "r");
	assert_non_null(f);
	assert_int_equal(map_parse_perf_report(f, &m), 4);
	fclose(f);
	map_finish_op(&m);
	assert_near(m.total, 1000);
	assert_string_equal(m.f[0].lib, "libjpeg.so.62.3.0");
	assert_near(m.f[0].share, 45);
	assert_near(find(&m, "ppbench", "resize_h")->count, 300);
	assert_near(find(&m, "[kernel.kallsyms]", "clear_page_erms")->count, 50);
	assert_int_equal(m.has_cache, 0);
	free(m.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callgrind),
		cmocka_unit_test(test_callgrind_errors),
		cmocka_unit_test(test_perf_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
