/* pagecache.h: the share of a dataset's bytes resident in the page cache,
 * after dropping it when asked; files that cannot be opened and empty
 * files are passed over; nothing measured gives -1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "imagefolder.h"
#include "pagecache.h"

static char dir[] = "/tmp/ppbench-pagecache.XXXXXX";
static char paths[3][256];

static void write_file(const char *path, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fputc((int)(i * 7 % 251), f);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(paths[0], sizeof(paths[0]), "%s/three_pages", dir);
	snprintf(paths[1], sizeof(paths[1]), "%s/empty", dir);
	snprintf(paths[2], sizeof(paths[2]), "%s/missing", dir);
	write_file(paths[0], 3 * (size_t)sysconf(_SC_PAGESIZE));
	write_file(paths[1], 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(paths[0]);
	unlink(paths[1]);
	return rmdir(dir);
}

static struct dataset of(struct dataset_item *items, size_t n)
{
	struct dataset d;
	memset(&d, 0, sizeof(d));
	d.items = items;
	d.n = n;
	return d;
}

static void test_resident_share(void **state)
{
	(void)state;
	struct dataset_item it[3] = { { paths[0], 0, 0 }, { paths[1], 0, 0 }, { paths[2], 0, 0 } };
	struct dataset d = of(it, 3);
	/* just written: its pages are in the cache (the empty and the missing
	 * file count for nothing) */
	assert_true(dataset_cache_resident(&d, 0) == 100.0);
	/* dropped: what stays is a share (a tmpfs keeps it all) */
	double after = dataset_cache_resident(&d, 1);
	assert_true(after >= 0 && after <= 100);
}

static void test_nothing_measured(void **state)
{
	(void)state;
	struct dataset_item it[2] = { { paths[1], 0, 0 }, { paths[2], 0, 0 } };
	struct dataset d = of(it, 2);
	assert_true(dataset_cache_resident(&d, 0) == -1);
	assert_true(dataset_cache_resident(&d, 1) == -1);
	d = of(NULL, 0);
	assert_true(dataset_cache_resident(&d, 0) == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resident_share),
		cmocka_unit_test(test_nothing_measured),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
