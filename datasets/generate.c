/* A synthetic ImageNet-like (or photo-like) ImageFolder tree.
 *
 * Every image comes from its own random stream (splitmix64 of seed and
 * index), so the bytes do not depend on the thread that makes them. Content:
 * a luminance field of octaves of value noise with a 1/f-like spectrum (built
 * coarse to fine by 2x bilinear upsampling, so it costs ~4/3 of one pass),
 * a fine texture whose strength is modulated across the image (smooth and
 * detailed regions, as sky and foliage), smooth chroma fields, hard-edged
 * shapes (ellipses, rotated rectangles, lines) and an illumination gradient.
 * A profile (struct profile) draws the geometry, the per-image detail and
 * the JPEG quality: "imagenet" so that the file sizes follow ImageNet
 * train's distribution, "photos" so that they are web-sized photos of
 * about 0.4 MP and 60 KB (see gen_profiles[] and gen_stats_print). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clock.h"
#include "fsutil.h"
#include "gen_int.h"
#include "imagefolder.h"

/* ---- the tree -------------------------------------------------------- */


/* 1 if the folder has entries, 0 if empty, -1 if it cannot be read. */
int gen_dir_has_entries(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	int any = 0;
	while (!any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return any;
}

/* Choose count distinct images for kind among those still K_RGB. */
static void pick(unsigned char *kind, size_t images, size_t count, int k, int k_alt,
		 uint64_t seed, uint64_t tag)
{
	for (size_t t = 0; t < count; t++) {
		size_t i = mix64(mix64(seed ^ tag) + t) % images;
		while (kind[i] != K_RGB)
			i = (i + 1) % images;
		kind[i] = (unsigned char)(t & 1 ? k_alt : k);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* numpy.percentile (linear) of sorted v, in KiB */
static double pct_kb(const uint64_t *v, size_t n, double q)
{
	double pos = q / 100.0 * (double)(n - 1);
	size_t i = (size_t)pos;
	double f = pos - (double)i;
	double a = (double)v[i], b = (double)v[i + 1 < n ? i + 1 : i];
	return (a + (b - a) * f) / 1024.0;
}

static void fill_stats(struct gen_stats *st, const unsigned char *kind, const uint64_t *bytes,
		       const int *wh, size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	st->images = n;
	st->min_side = INT_MAX;
	st->max_side = 0;
	double sw = 0, sh = 0, ssq = 0;
	size_t n500 = 0;
	for (size_t i = 0; i < n; i++) {
		int w = wh[2 * i], h = wh[2 * i + 1];
		st->gray += kind[i] == K_GRAY;
		st->cmyk += kind[i] == K_YCCK || kind[i] == K_CMYK;
		st->png += kind[i] == K_PNG;
		st->total_bytes += bytes[i];
		sw += w;
		sh += h;
		n500 += (w == 500 && h == 375) || (w == 375 && h == 500);
		int lo = w < h ? w : h, hi = w > h ? w : h;
		if (lo < st->min_side)
			st->min_side = lo;
		if (hi > st->max_side)
			st->max_side = hi;
		if (v)
			v[i] = bytes[i];
	}
	if (!n)
		st->min_side = 0;
	if (!n || !v) {
		free(v);
		return;
	}
	st->mean_kb = (double)st->total_bytes / (double)n / 1024.0;
	for (size_t i = 0; i < n; i++) {
		double d = (double)bytes[i] / 1024.0 - st->mean_kb;
		ssq += d * d;
	}
	st->std_kb = sqrt(ssq / (double)n);
	qsort(v, n, sizeof(*v), cmp_u64);
	st->median_kb = pct_kb(v, n, 50);
	st->p25_kb = pct_kb(v, n, 25);
	st->p75_kb = pct_kb(v, n, 75);
	st->p99_kb = pct_kb(v, n, 99);
	st->min_kb = (double)v[0] / 1024.0;
	st->max_kb = (double)v[n - 1] / 1024.0;
	st->mean_w = sw / (double)n;
	st->mean_h = sh / (double)n;
	st->pct_500x375 = 100.0 * (double)n500 / (double)n;
	free(v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* megapixels: mean and median; bytes per pixel over the whole set */
static void fill_pixels(struct gen_stats *st, const int *wh, size_t n)
{
	double *mp = malloc((n ? n : 1) * sizeof(*mp)), sum = 0;
	if (!mp || !n) {
		free(mp);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		mp[i] = (double)wh[2 * i] * wh[2 * i + 1] * 1e-6;
		sum += mp[i];
	}
	qsort(mp, n, sizeof(*mp), cmp_double);
	st->mean_mp = sum / (double)n;
	st->median_mp = n & 1 ? mp[n / 2] : 0.5 * (mp[n / 2 - 1] + mp[n / 2]);
	st->bytes_per_px = sum > 0 ? (double)st->total_bytes / (sum * 1e6) : 0;
	free(mp);
}

/* 0 if o can be generated (a count that fits, an output folder that is
 * absent or empty), -1 with err if not. */
static int check_request(const struct gen_options *o, char *err, size_t errlen)
{
	struct stat sb;
	if (!o->out || !*o->out) {
		snprintf(err, errlen, "cannot generate: no output folder");
		return -1;
	}
	if (!gen_profile_name(o->profile)) {
		snprintf(err, errlen, "cannot generate: unknown profile %d (%s)", o->profile,
			 GEN_PROFILE_CHOICES);
		return -1;
	}
	if (!o->images || !o->classes || o->classes > o->images) {
		snprintf(err, errlen, "cannot generate %zu images in %zu classes: need at least one image per class",
			 o->images, o->classes);
		return -1;
	}
	if (strlen(o->out) > 3000) {
		snprintf(err, errlen, "cannot generate into '%.100s...': path too long", o->out);
		return -1;
	}
	if (!stat(o->out, &sb)) {
		if (!S_ISDIR(sb.st_mode)) {
			snprintf(err, errlen, "cannot generate into '%s': it exists and is not a folder", o->out);
			return -1;
		}
		int any = gen_dir_has_entries(o->out);
		if (any) {
			snprintf(err, errlen, "cannot generate into '%s': %s", o->out,
				 any > 0 ? "the folder exists and is not empty" : strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Create the temporary folder into tmp (PATH_MAX); it sits beside out, so
 * the final rename is atomic. 0 done, -1 with err. */
static int make_temp_beside(const char *out, char *tmp, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", out);
	size_t len = strlen(parent);
	while (len > 1 && parent[len - 1] == '/')
		parent[--len] = 0;
	char *slash = strrchr(parent, '/');
	const char *base = slash ? slash + 1 : parent;
	char basecopy[NAME_MAX + 1];
	snprintf(basecopy, sizeof(basecopy), "%.255s", base);
	if (slash == parent)
		parent[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(parent, sizeof(parent), ".");
	if (mkdir_p(parent, 0755)) {
		snprintf(err, errlen, "cannot create '%s': %s", parent, strerror(errno));
		return -1;
	}
	snprintf(tmp, PATH_MAX, "%.3000s/.%.200s.tmp-XXXXXX", parent, basecopy);
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "cannot create a temporary folder in '%s': %s", parent, strerror(errno));
		return -1;
	}
	chmod(tmp, 0755);
	return 0;
}

/* Which images are the PNG, the CMYK and the grayscale ones (the rest RGB). */
static void pick_kinds(unsigned char *kind, size_t n, uint64_t seed)
{
	if (n >= 2)
		pick(kind, n, 1, K_PNG, K_PNG, seed, 0x706e67);
	size_t ncmyk = n >= 20 ? (n + 500) / 1000 : 0, ngray = n >= 20 ? (n * 15 + 500) / 1000 : 0;
	if (n >= 20 && ncmyk < 2)
		ncmyk = 2;      /* one of each flavour */
	if (n >= 20 && !ngray)
		ngray = 1;
	pick(kind, n, ncmyk, K_YCCK, K_CMYK, seed, 0x636d796b);
	pick(kind, n, ngray, K_GRAY, K_GRAY, seed, 0x67726179);
}

static int make_class_folders(const char *tmp, size_t nc, char *err, size_t errlen)
{
	char path[PATH_MAX];
	for (size_t c = 0; c < nc; c++) {
		snprintf(path, sizeof(path), "%.3300s/n%08u", tmp, gen_class_id(c, nc));
		if (mkdir(path, 0755)) {
			snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Write every image into tmp in parallel, with progress on a terminal;
 * its kind from kind[], its size into bytes[] and wh[]. 0 done, -1 with
 * the first error in err. */
static int write_images(const struct gen_options *o, const char *tmp, const unsigned char *kind,
			uint64_t *bytes, int *wh, const int16_t *noise, char *err, size_t errlen)
{
	const size_t n = o->images, nc = o->classes;
	int failed = 0;
	size_t done = 0;
	const int show = !o->quiet && isatty(2);
	const int nt = o->threads > 0 ? o->threads : omp_get_max_threads();
	#pragma omp parallel num_threads(nt)
	{
		struct work wk = { .noise = noise };
		char lerr[PATH_MAX + 256];
		char p[PATH_MAX];
		#pragma omp for schedule(dynamic)
		for (long i = 0; i < (long)n; i++) {
			int stop;
			#pragma omp atomic read
			stop = failed;
			if (stop)
				continue;
			size_t c, j;
			gen_image_class((size_t)i, n, nc, &c, &j);
			unsigned id = gen_class_id(c, nc);
			snprintf(p, sizeof(p), "%.3300s/n%08u/n%08u_%llu.JPEG", tmp, id, id,
				 (unsigned long long)gen_file_number(c, j));
			uint64_t s = gen_image_stream(o->seed, (uint64_t)i);
			struct plan pl;
			gen_plan_image(&pl, &gen_profiles[o->profile], kind[i], &s);
			wh[2 * i] = pl.w;
			wh[2 * i + 1] = pl.h;
			if (gen_make_image(&wk, &pl, &s, p, &bytes[i], lerr, sizeof(lerr))) {
				#pragma omp critical(gen_err)
				{
					if (!failed)
						snprintf(err, errlen, "%s", lerr);
					failed = 1;
				}
				continue;
			}
			size_t d;
			#pragma omp atomic capture
			d = ++done;
			if (show && (d % 64 == 0 || d == n))
				fprintf(stderr, "\rgenerating: %zu/%zu images", d, n);
		}
		gen_work_release(&wk);
	}
	if (show)
		fprintf(stderr, "\n");
	return failed ? -1 : 0;
}

/* the INFO_FILE that names the generator version, the counts and the seed */
static int write_info(const struct gen_options *o, const char *tmp, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.3300s/" INFO_FILE, tmp);
	const struct profile *pf = &gen_profiles[o->profile];
	char info[512];
	int il = snprintf(info, sizeof(info),
			  "%s\ngenerator_version %d\nimages %zu\nclasses %zu\nseed %llu\nprofile %s\n",
			  pf->title, GEN_VERSION, o->images, o->classes, (unsigned long long)o->seed,
			  pf->name);
	return gen_write_all(path, (const unsigned char *)info, (size_t)il, err, errlen);
}

int dataset_generate(const struct gen_options *o, struct gen_stats *st, char *err, size_t errlen)
{
	const uint64_t t0 = clock_now_ns();
	char tmp[PATH_MAX] = "";
	unsigned char *kind = NULL;
	uint64_t *bytes = NULL;
	int *wh = NULL;
	int16_t *noise = NULL;
	int made_tmp = 0, rc = -1;

	memset(st, 0, sizeof(*st));
	if (check_request(o, err, errlen) || make_temp_beside(o->out, tmp, err, errlen))
		return -1;
	made_tmp = 1;

	const size_t n = o->images;
	kind = calloc(n, 1);
	bytes = calloc(n, sizeof(*bytes));
	wh = calloc(2 * n, sizeof(*wh));
	if (!kind || !bytes || !wh) {
		snprintf(err, errlen, "cannot generate %zu images: out of memory", n);
		goto out;
	}
	pick_kinds(kind, n, o->seed);
	if (make_class_folders(tmp, o->classes, err, errlen))
		goto out;
	noise = gen_noise_table(o->seed);
	if (!noise) {
		snprintf(err, errlen, "cannot generate %zu images: out of memory", n);
		goto out;
	}
	if (write_images(o, tmp, kind, bytes, wh, noise, err, errlen))
		goto out;
	if (write_info(o, tmp, err, errlen))
		goto out;
	if (rename(tmp, o->out)) {
		snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, o->out, strerror(errno));
		goto out;
	}
	made_tmp = 0;
	fill_stats(st, kind, bytes, wh, n);
	fill_pixels(st, wh, n);
	st->profile = o->profile;
	st->seconds = (double)(clock_now_ns() - t0) * 1e-9;
	rc = 0;
out:
	if (made_tmp)
		remove_tree(tmp);
	free(kind);
	free(bytes);
	free(wh);
	free(noise);
	return rc;
}

void gen_stats_print(const struct gen_stats *st, FILE *f)
{
	fprintf(f, "images      %zu (%zu grayscale, %zu CMYK, %zu PNG named .JPEG)\n",
		st->images, st->gray, st->cmyk, st->png);
	fprintf(f, "total       %.1f MiB\n", (double)st->total_bytes / (1024.0 * 1024.0));
	fprintf(f, "file size   KiB (1024 B): mean %.1f  std %.1f  median %.1f  p25 %.1f  p75 %.1f  p99 %.1f  min %.1f  max %.1f\n",
		st->mean_kb, st->std_kb, st->median_kb, st->p25_kb, st->p75_kb, st->p99_kb,
		st->min_kb, st->max_kb);
	fprintf(f, "            mean %.1f KB (1000 B)\n", (double)st->total_bytes / 1000.0 /
		(double)(st->images ? st->images : 1));
	fprintf(f, "geometry    mean %.0f x %.0f, %.1f %% are 500 x 375 or 375 x 500, sides %d..%d px\n",
		st->mean_w, st->mean_h, st->pct_500x375, st->min_side, st->max_side);
	fprintf(f, "pixels      mean %.3f MP, median %.3f MP, %.3f bytes per pixel\n",
		st->mean_mp, st->median_mp, st->bytes_per_px);
	const char *name = gen_profile_name(st->profile);
	fprintf(f, "profile     %s; %s\n", name ? name : "?",
		name ? gen_profiles[st->profile].target : "");
	fprintf(f, "time        %.2f s, %.0f images/s\n", st->seconds,
		st->seconds > 0 ? (double)st->images / st->seconds : 0.0);
}
