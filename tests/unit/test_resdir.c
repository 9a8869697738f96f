/* Results folder names (bench/results/resdir.c): every kind's name starts with the
 * time and parses back; older "<kind>-<time>" names, temporary and partial
 * folders are recognised; what is not ppbench's is not; a held temporary
 * folder is told from a stale one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "resdir.h"

static void test_names_sort_by_time(void **state)
{
	(void)state;
	static const char *const kinds[] = { NULL, "sweep", "compare", "map", "merge", "reproduce" };
	char name[256];
	struct results_name rn;
	time_t now = time(NULL);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		results_dir_name(name, sizeof(name), kinds[i], "w4-b8");
		/* the time first: YYYYmmdd-HHMMSS */
		assert_true(name[8] == '-' && name[15] == '-');
		assert_int_equal(results_name_parse(name, &rn), 0);
		assert_string_equal(rn.kind, kinds[i] ? kinds[i] : "");
		assert_string_equal(rn.tag, "w4-b8");
		assert_true(rn.t >= now - 2 && rn.t <= now + 2);
		assert_false(rn.tmp || rn.partial || rn.old_style);
	}
	results_dir_name(name, sizeof(name), "merge", NULL);
	assert_int_equal(strlen(name), 15 + 6);
	assert_int_equal(results_name_parse(name, &rn), 0);
	assert_string_equal(rn.kind, "merge");
	assert_string_equal(rn.tag, "");
}

static void test_parse(void **state)
{
	(void)state;
	struct results_name rn;
	struct tm tm = { .tm_year = 126, .tm_mon = 10, .tm_mday = 22, .tm_hour = 0,
			 .tm_min = 33, .tm_sec = 52 };
	time_t t = timegm(&tm);

	/* older names: kind first */
	assert_int_equal(results_name_parse("sweep-20261122-003352-node-skx", &rn), 0);
	assert_true(rn.old_style);
	assert_string_equal(rn.kind, "sweep");
	assert_string_equal(rn.tag, "node-skx");
	assert_true(rn.t == t);
	assert_int_equal(results_name_parse("merge-20261122-003352", &rn), 0);
	assert_string_equal(rn.kind, "merge");
	assert_string_equal(rn.tag, "");
	/* a run: no kind; its tag may look like anything */
	assert_int_equal(results_name_parse("20261122-003352-w1-b8-g1-r1", &rn), 0);
	assert_string_equal(rn.kind, "");
	assert_string_equal(rn.tag, "w1-b8-g1-r1");
	assert_true(rn.t == t);
	/* temporary and partial */
	assert_int_equal(results_name_parse(".20261122-003352-t.tmp", &rn), 0);
	assert_true(rn.tmp && !rn.partial);
	assert_string_equal(rn.tag, "t");
	assert_int_equal(results_name_parse(".20261122-003352-compare-4242.tmp", &rn), 0);
	assert_true(rn.tmp);
	assert_string_equal(rn.kind, "compare");
	assert_int_equal(results_name_parse(".compare-20261122-003352-4242.tmp", &rn), 0);
	assert_true(rn.tmp && rn.old_style);
	assert_int_equal(results_name_parse("20261122-003352-t.partial", &rn), 0);
	assert_true(rn.partial && !rn.tmp);
	assert_string_equal(rn.tag, "t");
	/* not ppbench's */
	static const char *const no[] = { "photos", ".mine.tmp", "2026-11-22", "sweep-node-skx",
					  "20261122-0033", "20261122x003352", "20261122-003352x",
					  ".tmp", "20261399-003352" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!results_name_parse(no[i], &rn))
			fail_msg("'%s' taken for a results folder", no[i]);
}

static void test_held(void **state)
{
	(void)state;
	char dir[] = "/tmp/ppbench-resdir.XXXXXX";
	int p[2];
	char c;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(results_dir_held(dir), 0);
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* another process holds it until told */
		close(p[1]);
		if (results_dir_hold(dir))
			_exit(1);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	for (int i = 0; i < 200 && results_dir_held(dir) != 1; i++)
		usleep(10000);
	assert_int_equal(results_dir_held(dir), 1);
	assert_int_equal(write(p[1], "x", 1), 1);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* its process gone, the folder is stale */
	assert_int_equal(results_dir_held(dir), 0);
	close(p[1]);
	rmdir(dir);
	assert_int_equal(results_dir_held(dir), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_sort_by_time),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
