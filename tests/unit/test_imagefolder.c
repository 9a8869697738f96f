/* dataset_scan against torchvision 0.14 ImageFolder(root).samples. The
 * expected lists were produced by /usr/bin/python3 with torchvision on the
 * same trees and are hard-coded here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "imagefolder.h"

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_tree(const char *root)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(tmp, 0755);
		*s = '/';
	}
	mkdir(tmp, 0755);
}

/* Each file holds its own relative path, so its size is strlen(rel). */
static void make_file(const char *root, const char *rel)
{
	char p[PATH_MAX], dir[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", p);
	*strrchr(dir, '/') = 0;
	mkdirs(dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(rel, f);
	fclose(f);
}

static void make_link(const char *root, const char *target, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

static char *make_root(void)
{
	char tmpl[] = "/tmp/ppbench-if-XXXXXX";
	char *r = mkdtemp(tmpl);
	assert_non_null(r);
	return strdup(r);
}

static const char *const tricky_files[] = {
	"B/x.JPEG", "a/z.jpg", "a/A.PNG", "a/readme.txt", "a/img.jpeg.bak", "a/.hidden.jpg",
	"a/sub/b.webp", "a/sub-x/c.Tif", "a/sub.y/d.bmp", "a/sub/deeper/e.ppm", "a/sub0/f.pgm",
	"a/sub/-g.jpg", "a/sub/Z.jpg", "a/subdir/g", "a/sub/deeper/a.TIFF", "a/x.jpg.JPG",
	"a/jpg", "a/.jpg", "a-b/1.jpg", "a.b/2.jpeg", ".hid/h.jpeg", "a/sub-x/deep/k.png",
	"a/sub!/m.jpg", "a/sub/~.jpg", "root.jpg", "a0/q.JpEg", "a0/r.gif", "a0/s.jpe",
};

static const char *const tricky_classes[] = { ".hid", "B", "a", "a-b", "a.b", "a0", "lnk" };

static const struct {
	const char *rel;
	int64_t label;
	uint64_t bytes;
} tricky_expected[] = {
	{ ".hid/h.jpeg", 0, 11 },
	{ "B/x.JPEG", 1, 8 },
	{ "a/.hidden.jpg", 2, 13 },
	{ "a/.jpg", 2, 6 },
	{ "a/A.PNG", 2, 7 },
	{ "a/broken.jpg", 2, 0 },
	{ "a/x.jpg.JPG", 2, 11 },
	{ "a/z.jpg", 2, 7 },
	{ "a/zz.jpg", 2, 7 },
	{ "a/sub/-g.jpg", 2, 12 },
	{ "a/sub/Z.jpg", 2, 11 },
	{ "a/sub/b.webp", 2, 12 },
	{ "a/sub/~.jpg", 2, 11 },
	{ "a/sub!/m.jpg", 2, 12 },
	{ "a/sub-x/c.Tif", 2, 13 },
	{ "a/sub-x/deep/k.png", 2, 18 },
	{ "a/sub.y/d.bmp", 2, 13 },
	{ "a/sub/deeper/a.TIFF", 2, 19 },
	{ "a/sub/deeper/e.ppm", 2, 18 },
	{ "a/sub/lnkdir/2.jpeg", 2, 10 },
	{ "a/sub0/f.pgm", 2, 12 },
	{ "a-b/1.jpg", 3, 9 },
	{ "a.b/2.jpeg", 4, 10 },
	{ "a0/q.JpEg", 5, 9 },
	{ "lnk/1.jpg", 6, 9 },
};

static void build_tricky(const char *root)
{
	for (size_t i = 0; i < sizeof(tricky_files) / sizeof(tricky_files[0]); i++)
		make_file(root, tricky_files[i]);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/a/emptydir", root);
	mkdirs(p);
	make_link(root, "a-b", "lnk");
	make_link(root, "../../a.b", "a/sub/lnkdir");
	make_link(root, "z.jpg", "a/zz.jpg");
	make_link(root, "nowhere", "a/broken.jpg");
}

static void check_tricky(const char *root, const char *given)
{
	struct dataset d;
	char err[512] = "";
	int rc = dataset_scan(&d, given, err, sizeof(err));
	if (rc)
		fail_msg("%s", err);
	const size_t ne = sizeof(tricky_expected) / sizeof(tricky_expected[0]);
	assert_int_equal(d.nclasses, sizeof(tricky_classes) / sizeof(tricky_classes[0]));
	for (size_t c = 0; c < d.nclasses; c++)
		assert_string_equal(d.classes[c], tricky_classes[c]);
	assert_int_equal(d.n, ne);
	uint64_t total = 0;
	for (size_t i = 0; i < ne; i++) {
		char want[PATH_MAX];
		snprintf(want, sizeof(want), "%s/%s", root, tricky_expected[i].rel);
		assert_string_equal(d.items[i].path, want);
		assert_int_equal(d.items[i].label, tricky_expected[i].label);
		assert_int_equal(d.items[i].bytes, tricky_expected[i].bytes);
		total += tricky_expected[i].bytes;
	}
	assert_int_equal(d.total_bytes, total);
	assert_string_equal(d.root, given);
	dataset_release(&d);
}

static void test_tricky_order(void **state)
{
	(void)state;
	char *root = make_root();
	build_tricky(root);
	check_tricky(root, root);
	/* os.path.join("root/", "a") is "root/a": no doubled slash */
	char slash[PATH_MAX];
	snprintf(slash, sizeof(slash), "%s/", root);
	check_tricky(root, slash);
	rm_tree(root);
	free(root);
}

static void test_empty_classes(void **state)
{
	(void)state;
	char *root = make_root();
	make_file(root, "good/1.jpg");
	make_file(root, "e2/notes.txt");
	make_file(root, "e1/sub/x.gif");
	struct dataset d;
	char err[512] = "";
	assert_int_equal(dataset_scan(&d, root, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "found no valid file for the classes e1, e2 in '"));
	assert_non_null(strstr(err, ".jpg, .jpeg, .png, .ppm, .bmp, .pgm, .tif, .tiff, .webp"));
	assert_int_equal(d.n, 0);
	assert_null(d.items);
	rm_tree(root);
	free(root);
}

static void test_errors(void **state)
{
	(void)state;
	struct dataset d;
	char err[512] = "";
	char *root = make_root();
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/missing", root);
	assert_int_equal(dataset_scan(&d, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open '"));
	assert_non_null(strstr(err, "No such file or directory"));

	make_file(root, "file.jpg");
	assert_int_equal(dataset_scan(&d, root, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no class folders in '"));
	assert_non_null(strstr(err, "one subfolder per class"));

	snprintf(p, sizeof(p), "%s/file.jpg", root);
	assert_int_equal(dataset_scan(&d, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a folder"));
	rm_tree(root);
	free(root);
}

/* A symlink cycle is entered once instead of looping. */
static void test_cycle(void **state)
{
	(void)state;
	char *root = make_root();
	make_file(root, "c/1.jpg");
	make_file(root, "c/d/2.jpg");
	make_link(root, "..", "c/d/up");
	struct dataset d;
	char err[512] = "";
	if (dataset_scan(&d, root, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(d.n, 2);
	assert_non_null(strstr(d.items[0].path, "/c/1.jpg"));
	assert_non_null(strstr(d.items[1].path, "/c/d/2.jpg"));
	dataset_release(&d);
	rm_tree(root);
	free(root);
}

static void test_has_image_ext(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int want;
		int line;
	} rows[] = {
		{ "a.JPEG", 1, __LINE__ }, { "a.jpg", 1, __LINE__ }, { "a.Jpg", 1, __LINE__ },
		{ "a.png", 1, __LINE__ }, { "a.ppm", 1, __LINE__ }, { "a.bmp", 1, __LINE__ },
		{ "a.pgm", 1, __LINE__ }, { "a.tif", 1, __LINE__ }, { "a.TIFF", 1, __LINE__ },
		{ "a.webp", 1, __LINE__ }, { ".jpg", 1, __LINE__ }, { "jpg", 0, __LINE__ },
		{ "a.gif", 0, __LINE__ }, { "a.jpe", 0, __LINE__ }, { "a.jpg ", 0, __LINE__ },
		{ "a.jpeg.bak", 0, __LINE__ }, { "", 0, __LINE__ }, { "a.pngx", 0, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (dataset_has_image_ext(rows[i].name) != rows[i].want)
			fail_msg("line %d: '%s'", rows[i].line, rows[i].name);
}

/* Many files: order by name within a folder, labels by class. */
static void test_many(void **state)
{
	(void)state;
	char *root = make_root();
	char rel[64];
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 200; k++) {
			snprintf(rel, sizeof(rel), "n%08d/n%08d_%d.JPEG", c, c, k);
			make_file(root, rel);
		}
	struct dataset d;
	char err[512] = "";
	if (dataset_scan(&d, root, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(d.n, 600);
	for (size_t i = 0; i < d.n; i++) {
		assert_int_equal(d.items[i].label, (int64_t)(i / 200));
		if (i % 200)
			assert_true(strcmp(d.items[i - 1].path, d.items[i].path) < 0);
	}
	dataset_release(&d);
	rm_tree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_has_image_ext),
		cmocka_unit_test(test_tricky_order),
		cmocka_unit_test(test_empty_classes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
