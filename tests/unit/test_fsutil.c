/* fsutil.h's find_top: the executable's folders first (bench/ppbench,
 * build/<tree>/ppbench, build/<tree>/tests/test_x), then the working
 * folder; a marker of several paths needs every one. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fsutil.h"

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

static void test_exe_then_cwd(void **state)
{
	(void)state;
	char top[PATH_MAX], exe[PATH_MAX], p[PATH_MAX + 32];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	/* build/<tree>/tests/test_fsutil: the source tree three folders up */
	assert_int_equal(find_top_exe(TOP_OF_PLOTS, top, sizeof(top)), 0);
	assert_int_equal(strncmp(exe, top, strlen(top)), 0);
	assert_int_equal(exe[strlen(top)], '/');
	snprintf(p, sizeof(p), "%s/plots/common.gp", top);
	assert_int_equal(access(p, R_OK), 0);
	assert_int_equal(find_top("datasets/generate.h:pipelines", 4, top, sizeof(top)), 0);
	/* not within reach of the executable: one level is its own folder */
	assert_int_equal(find_top_exe("plots/common.gp", 1, top, sizeof(top)), -1);
	/* a marker of two paths: both must be there */
	assert_int_equal(find_top_exe("plots/common.gp:no-such-file", 4, top, sizeof(top)), -1);

	/* a fake tree as the working folder: found there, and only by find_top */
	char tmpl[] = "/tmp/test_fsutil.XXXXXX", cwd[PATH_MAX], real[PATH_MAX];
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(p, sizeof(p), "%s/marker-a", tmpl);
	touch(p);
	snprintf(p, sizeof(p), "%s/sub", tmpl);
	assert_int_equal(mkdir_p(p, 0755), 0);
	assert_int_equal(chdir(tmpl), 0);
	assert_non_null(realpath(".", real));
	assert_int_equal(find_top_exe("marker-a:sub", 4, top, sizeof(top)), -1);
	assert_int_equal(find_top("marker-a:sub", 4, top, sizeof(top)), 0);
	assert_string_equal(top, real);
	assert_int_equal(find_top("marker-a:nope", 4, top, sizeof(top)), -1);
	/* too small a buffer: -1, not a cut path */
	char small[4];
	assert_int_equal(find_top("marker-a", 4, small, sizeof(small)), -1);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(remove_tree(tmpl), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exe_then_cwd),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
