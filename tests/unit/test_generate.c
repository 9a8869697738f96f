/* The synthetic dataset generator: the same bytes whatever the thread
 * count, the special files, the statistics, the refusals, the read-back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "describe.h"
#include "generate.h"
#include "imagefolder.h"

#define IMAGES 40
#define CLASSES 4

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

static char *make_tmp(void)
{
	char tmpl[] = "/tmp/ppbench-gen-XXXXXX";
	char *r = mkdtemp(tmpl);
	assert_non_null(r);
	return strdup(r);
}

static unsigned char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc((size_t)len + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return b;
}

static void generate_profile(const char *out, int profile, uint64_t seed, int threads,
			     struct gen_stats *st)
{
	struct gen_options o = {
		.out = out, .profile = profile, .images = IMAGES, .classes = CLASSES, .seed = seed,
		.threads = threads, .quiet = 1,
	};
	char err[512] = "";
	if (dataset_generate(&o, st, err, sizeof(err)))
		fail_msg("%s", err);
}

static void generate(const char *out, uint64_t seed, int threads, struct gen_stats *st)
{
	generate_profile(out, GEN_PROFILE_IMAGENET, seed, threads, st);
}

/* What a file really is: 'P' PNG, or the JPEG's component count (1, 3, 4),
 * with *adobe set when it has an Adobe APP14 marker; 0 if unknown. */
static int file_kind(const unsigned char *b, size_t n, int *adobe)
{
	*adobe = 0;
	if (n > 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8))
		return 'P';
	if (n < 4 || b[0] != 0xff || b[1] != 0xd8)
		return 0;
	size_t i = 2;
	while (i + 4 <= n && b[i] == 0xff) {
		int m = b[i + 1];
		size_t len = (size_t)b[i + 2] << 8 | b[i + 3];
		if (m == 0xee && i + 9 <= n && !memcmp(b + i + 4, "Adobe", 5))
			*adobe = 1;
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc)
			return i + 9 < n ? b[i + 9] : 0;
		i += 2 + len;
	}
	return 0;
}

static int count_entries(const char *dir);

/* What gen_stats_print writes (malloc'd). */
static char *stats_text(const struct gen_stats *st)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);
	assert_non_null(f);
	gen_stats_print(st, f);
	fclose(f);
	return text;
}

/* Trees a and b hold the same files with the same bytes. */
static void assert_same_tree(const char *a, const char *b)
{
	struct dataset da, db;
	char err[512] = "";
	if (dataset_scan(&da, a, err, sizeof(err)) || dataset_scan(&db, b, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(da.n, IMAGES);
	assert_int_equal(da.total_bytes, db.total_bytes);
	assert_int_equal(db.n, IMAGES);
	assert_int_equal(da.nclasses, CLASSES);
	for (size_t i = 0; i < da.n; i++) {
		assert_string_equal(da.items[i].path + strlen(a), db.items[i].path + strlen(b));
		size_t na, nb;
		unsigned char *x = read_all(da.items[i].path, &na), *y = read_all(db.items[i].path, &nb);
		assert_int_equal(na, nb);
		if (memcmp(x, y, na))
			fail_msg("'%s' differs from '%s'", da.items[i].path, db.items[i].path);
		free(x);
		free(y);
	}
	dataset_release(&da);
	dataset_release(&db);
}

static void test_identical_across_threads(void **state)
{
	(void)state;
	char *tmp = make_tmp();
	char a[PATH_MAX], b[PATH_MAX];
	struct gen_stats sa, sb;
	snprintf(a, sizeof(a), "%s/one", tmp);
	snprintf(b, sizeof(b), "%s/two/nested", tmp);
	generate(a, 7, 1, &sa);
	generate(b, 7, 2, &sb);

	assert_same_tree(a, b);
	assert_int_equal(sa.total_bytes, sb.total_bytes);

	/* another seed, other images */
	char c[PATH_MAX];
	struct gen_stats sc;
	snprintf(c, sizeof(c), "%s/three", tmp);
	generate(c, 8, 2, &sc);
	assert_true(sc.total_bytes != sa.total_bytes);

	rm_tree(tmp);
	free(tmp);
}

static void test_profile_names(void **state)
{
	(void)state;
	assert_int_equal(gen_profile_find("imagenet"), GEN_PROFILE_IMAGENET);
	assert_int_equal(gen_profile_find("photos"), GEN_PROFILE_PHOTOS);
	assert_int_equal(gen_profile_find("Photos"), -1);
	assert_int_equal(gen_profile_find(NULL), -1);
	assert_string_equal(gen_profile_name(GEN_PROFILE_PHOTOS), "photos");
	assert_null(gen_profile_name(GEN_PROFILES));
	assert_null(gen_profile_name(-1));
	/* the option's choices are the names, in enum order */
	char all[64] = "";
	for (int p = 0; p < GEN_PROFILES; p++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", p ? "|" : "",
			 gen_profile_name(p));
	assert_string_equal(all, GEN_PROFILE_CHOICES);

	char *tmp = make_tmp(), out[PATH_MAX], err[512] = "";
	struct gen_stats st;
	snprintf(out, sizeof(out), "%s/bad", tmp);
	struct gen_options o = { .out = out, .profile = GEN_PROFILES, .images = 4, .classes = 1, .quiet = 1 };
	assert_int_equal(dataset_generate(&o, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown profile"));
	assert_int_equal(count_entries(tmp), 0);
	rm_tree(tmp);
	free(tmp);
}

/* photos: larger images with fewer bytes per pixel than imagenet's for the
 * same seed (at 2000 images 0.40 against 0.19 MP and 0.15 against 0.6
 * bytes per pixel; 40 images vary more, one PNG or camera-sized image
 * moves a mean: the margins are generous); the same bytes
 * whatever the thread count; the profile in the info file. */
static void test_photos_profile(void **state)
{
	(void)state;
	char *tmp = make_tmp();
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	struct gen_stats sa, sb, si;
	snprintf(a, sizeof(a), "%s/photos1", tmp);
	snprintf(b, sizeof(b), "%s/photos2", tmp);
	snprintf(c, sizeof(c), "%s/imagenet", tmp);
	generate_profile(a, GEN_PROFILE_PHOTOS, 3, 1, &sa);
	generate_profile(b, GEN_PROFILE_PHOTOS, 3, 2, &sb);
	generate_profile(c, GEN_PROFILE_IMAGENET, 3, 2, &si);
	assert_same_tree(a, b);
	assert_int_equal(sa.profile, GEN_PROFILE_PHOTOS);
	assert_int_equal(si.profile, GEN_PROFILE_IMAGENET);

	assert_true(sa.mean_mp > 1.1 * si.mean_mp);       /* 1.2 to 2.4 x for seeds 1 to 6 */
	assert_true(sa.median_mp > 1.5 * si.median_mp);   /* 0.400 / 0.188 */
	assert_true(sa.bytes_per_px < 0.7 * si.bytes_per_px);  /* 0.25 to 0.5 x */
	assert_true(sa.mean_mp > 0.25 && sa.mean_mp < 0.6);
	assert_true(sa.bytes_per_px > 0.05 && sa.bytes_per_px < 0.4);
	assert_true(sa.gray == si.gray && sa.cmyk == si.cmyk && sa.png == 1);

	struct gen_info gi;
	assert_int_equal(dataset_info_read(a, &gi), 0);
	assert_int_equal(gi.profile, GEN_PROFILE_PHOTOS);
	assert_string_equal(gi.profile_name, "photos");
	assert_int_equal(gi.version, GEN_VERSION);
	assert_int_equal(gi.seed, 3);
	assert_int_equal(gi.images, IMAGES);
	assert_int_equal(dataset_info_read(c, &gi), 0);
	assert_int_equal(gi.profile, GEN_PROFILE_IMAGENET);
	assert_int_equal(dataset_info_read(tmp, &gi), -1);

	char *text = stats_text(&sa);
	assert_non_null(strstr(text, "profile     photos"));
	assert_non_null(strstr(text, " MP"));
	free(text);
	rm_tree(tmp);
	free(tmp);
}

/* The tree reads back as an ImageFolder with the special files announced,
 * and the statistics describe it. */
static void test_tree_and_stats(void **state)
{
	(void)state;
	char *tmp = make_tmp();
	char out[PATH_MAX];
	struct gen_stats st;
	snprintf(out, sizeof(out), "%s/data", tmp);
	mkdir(out, 0755);      /* an empty folder is fine */
	generate(out, 1, 0, &st);

	struct dataset d;
	char err[512] = "";
	if (dataset_scan(&d, out, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(d.n, IMAGES);
	assert_int_equal(d.nclasses, CLASSES);
	size_t png = 0, gray = 0, cmyk = 0, rgb = 0, per[CLASSES] = { 0 };
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t c = 0; c < d.nclasses; c++) {
		assert_int_equal(strlen(d.classes[c]), 9);
		assert_int_equal(d.classes[c][0], 'n');
		assert_int_equal(strspn(d.classes[c] + 1, "0123456789"), 8);
	}
	for (size_t i = 0; i < d.n; i++) {
		const char *p = d.items[i].path;
		const char *base = strrchr(p, '/') + 1;
		const char *cls = d.classes[d.items[i].label];
		assert_int_equal(strncmp(base, cls, 9), 0);
		assert_int_equal(base[9], '_');
		assert_string_equal(p + strlen(p) - 5, ".JPEG");
		per[d.items[i].label]++;
		size_t n;
		unsigned char *b = read_all(p, &n);
		assert_int_equal(n, d.items[i].bytes);
		int adobe;
		switch (file_kind(b, n, &adobe)) {
		case 'P': png++; break;
		case 1: gray++; break;
		case 3: rgb++; break;
		case 4: cmyk++; assert_true(adobe); break;
		default: fail_msg("'%s' is neither a JPEG nor a PNG", p);
		}
		free(b);
		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	for (int c = 0; c < CLASSES; c++)
		assert_int_equal(per[c], IMAGES / CLASSES);
	assert_int_equal(png, 1);
	assert_int_equal(cmyk, 2);
	assert_int_equal(gray, 1);
	assert_int_equal(rgb, IMAGES - 4);
	assert_int_equal(st.png, 1);
	assert_int_equal(st.cmyk, 2);
	assert_int_equal(st.gray, 1);

	/* sizes: photo-like, not flat and not absurd */
	assert_true(lo >= 1000);
	assert_true(hi <= 8u << 20);
	assert_int_equal(st.images, IMAGES);
	assert_int_equal(st.total_bytes, d.total_bytes);
	assert_true(st.min_kb * 1024 <= (double)lo + 0.5 && st.min_kb * 1024 >= (double)lo - 0.5);
	assert_true(st.max_kb * 1024 <= (double)hi + 0.5 && st.max_kb * 1024 >= (double)hi - 0.5);
	assert_true(st.min_kb <= st.p25_kb && st.p25_kb <= st.median_kb);
	assert_true(st.median_kb <= st.p75_kb && st.p75_kb <= st.p99_kb && st.p99_kb <= st.max_kb);
	double mean = (double)st.total_bytes / IMAGES / 1024;
	assert_true(st.mean_kb > mean - 1e-6 && st.mean_kb < mean + 1e-6);
	assert_true(st.mean_kb > 20 && st.mean_kb < 400);
	assert_true(st.std_kb > 0);
	assert_true(st.min_side >= 40 && st.max_side <= 2000);
	assert_true(st.pct_500x375 >= 0 && st.pct_500x375 <= 100);
	assert_true(st.mean_w >= st.min_side && st.mean_w <= st.max_side);
	assert_true(st.seconds > 0);

	char *text = stats_text(&st);
	assert_non_null(strstr(text, "KiB"));
	assert_non_null(strstr(text, "1 PNG"));
	free(text);

	/* the info file at the top, ignored by ImageFolder */
	char info[PATH_MAX + 64];
	snprintf(info, sizeof(info), "%s/ppbench-dataset.txt", out);
	size_t n;
	char *t = (char *)read_all(info, &n);
	t[n] = 0;
	assert_non_null(strstr(t, "images 40\n"));
	assert_non_null(strstr(t, "seed 1\n"));
	assert_non_null(strstr(t, "profile imagenet\n"));
	free(t);

	dataset_release(&d);
	rm_tree(tmp);
	free(tmp);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_refusals(void **state)
{
	(void)state;
	char *tmp = make_tmp();
	char out[PATH_MAX], file[PATH_MAX + 64], err[512];
	struct gen_stats st;
	struct gen_options o = { .images = IMAGES, .classes = CLASSES, .seed = 1, .quiet = 1 };

	/* a folder that is not empty is left alone */
	snprintf(out, sizeof(out), "%s/full", tmp);
	mkdir(out, 0755);
	snprintf(file, sizeof(file), "%s/keep.txt", out);
	FILE *f = fopen(file, "w");
	fclose(f);
	o.out = out;
	assert_int_equal(dataset_generate(&o, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not empty"));
	assert_int_equal(count_entries(out), 1);

	/* a file */
	o.out = file;
	assert_int_equal(dataset_generate(&o, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a folder"));

	/* more classes than images, no images */
	snprintf(out, sizeof(out), "%s/new", tmp);
	o.out = out;
	o.classes = IMAGES + 1;
	assert_int_equal(dataset_generate(&o, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at least one image per class"));
	o.images = 0;
	assert_int_equal(dataset_generate(&o, &st, err, sizeof(err)), -1);

	/* nothing was left behind: no temporary folder */
	assert_int_equal(count_entries(tmp), 1);
	rm_tree(tmp);
	free(tmp);
}

static void test_default_path(void **state)
{
	(void)state;
	char p[PATH_MAX], err[512];
	char *old = getenv("PPBENCH_DATA") ? strdup(getenv("PPBENCH_DATA")) : NULL;

	setenv("PPBENCH_DATA", "/some/where", 1);
	assert_int_equal(dataset_default_path(p, sizeof(p)), 0);
	assert_string_equal(p, "/some/where");
	assert_int_equal(dataset_default_path(p, 4), -1);

	unsetenv("PPBENCH_DATA");
	assert_int_equal(dataset_default_path(p, sizeof(p)), 0);
	assert_true(p[0] == '/');
	assert_string_equal(p + strlen(p) - 8, "/default");
	/* tests run from the top of the tree, from build/<tree>/tests/ */
	char exe[PATH_MAX], cwd[PATH_MAX], want[PATH_MAX + 64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/build/", cwd);
	if (!strncmp(exe, want, strlen(want))) {
		snprintf(want, sizeof(want), "%s/datasets/cache/default", cwd);
		assert_string_equal(p, want);
	}

	/* another profile's sits beside it, whatever $PPBENCH_DATA says */
	char ph[PATH_MAX];
	setenv("PPBENCH_DATA", "/some/where", 1);
	assert_int_equal(dataset_profile_path(GEN_PROFILE_PHOTOS, ph, sizeof(ph)), 0);
	assert_string_equal(ph + strlen(ph) - 7, "/photos");
	assert_int_equal(strncmp(ph, p, strlen(p) - 8), 0);
	assert_int_equal(dataset_profile_path(GEN_PROFILES, ph, sizeof(ph)), -1);
	assert_int_equal(dataset_profile_path(GEN_PROFILE_IMAGENET, ph, sizeof(ph)), 0);
	assert_string_equal(ph, "/some/where");
	unsetenv("PPBENCH_DATA");

	/* an existing dataset is used as it is, not regenerated */
	char *tmp = make_tmp();
	char cls[PATH_MAX];
	snprintf(cls, sizeof(cls), "%s/n00000001", tmp);
	mkdir(cls, 0755);
	setenv("PPBENCH_DATA", tmp, 1);
	assert_int_equal(dataset_ensure_default(p, sizeof(p), err, sizeof(err)), 0);
	assert_string_equal(p, tmp);
	assert_int_equal(count_entries(tmp), 1);
	rm_tree(tmp);
	free(tmp);

	if (old) {
		setenv("PPBENCH_DATA", old, 1);
		free(old);
	} else {
		unsetenv("PPBENCH_DATA");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_across_threads),
		cmocka_unit_test(test_tree_and_stats),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_profile_names),
		cmocka_unit_test(test_photos_profile),
		cmocka_unit_test(test_default_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
