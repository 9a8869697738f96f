/* The default datasets: where they live (the cache) and their making once,
 * on first use. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fsutil.h"
#include "gen_int.h"
#include "imagefolder.h"

/* $PPBENCH_CACHE/<name> when set (the user's choice), else
 * <repo>/datasets/cache/<name> (repo above the executable), else
 * $XDG_CACHE_HOME/ppbench/<name>, else $HOME/.cache/ppbench/<name>. */
static int cache_path(const char *name, char *out, size_t n)
{
	int k;
	char top[PATH_MAX];
	const char *env = getenv("PPBENCH_CACHE");
	if (env && *env) {
		k = snprintf(out, n, "%s/%s", env, name);
		return k < 0 || (size_t)k >= n ? -1 : 0;
	}
	/* bench/ppbench, build/<tree>/ppbench, build/<tree>/tests/test_x */
	if (!find_top_exe("datasets/generate.h:pipelines", 4, top, sizeof(top))) {
		k = snprintf(out, n, "%s/datasets/cache/%s", top, name);
		return k < 0 || (size_t)k >= n ? -1 : 0;
	}
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		k = snprintf(out, n, "%s/ppbench/%s", xdg, name);
	else
		k = snprintf(out, n, "%s/.cache/ppbench/%s", home && *home ? home : "/tmp", name);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

int dataset_default_path(char *out, size_t n)
{
	const char *env = getenv("PPBENCH_DATA");
	if (env && *env) {
		int k = snprintf(out, n, "%s", env);
		return k < 0 || (size_t)k >= n ? -1 : 0;
	}
	return cache_path("default", out, n);
}

int dataset_profile_path(int profile, char *out, size_t n)
{
	if (profile == GEN_PROFILE_IMAGENET)
		return dataset_default_path(out, n);
	const char *name = gen_profile_name(profile);
	return name ? cache_path(name, out, n) : -1;
}

/* An existing folder at a profile's default path: used as it is, with a
 * warning if another generator version made it; refused if it was made
 * with another profile (except $PPBENCH_DATA, the user's own). */
static int use_existing(int profile, const char *path, int user, char *err, size_t errlen)
{
	struct gen_info gi;
	int have = !dataset_info_read(path, &gi);
	if (!user && have && gi.profile != profile) {
		snprintf(err, errlen, "'%s' holds a dataset of profile '%s', not '%s': delete it to regenerate",
			 path, gi.profile_name, gen_profile_name(profile));
		return -1;
	}
	if (gi.version != GEN_VERSION && !user)
		fprintf(stderr, "ppbench: warning: '%s' was made by generator version %d, this is version %d; "
			"delete it to regenerate\n", path, gi.version, GEN_VERSION);
	return 0;
}

int dataset_ensure_profile(int profile, char *path_out, size_t n, char *err, size_t errlen)
{
	const char *name = gen_profile_name(profile);
	if (!name) {
		snprintf(err, errlen, "unknown dataset profile %d (%s)", profile, GEN_PROFILE_CHOICES);
		return -1;
	}
	const char *what = profile == GEN_PROFILE_IMAGENET ? "the default dataset" : "the default dataset of profile";
	if (dataset_profile_path(profile, path_out, n)) {
		snprintf(err, errlen, "cannot find a place for %s%s%s: path too long", what,
			 profile ? " " : "", profile ? name : "");
		return -1;
	}
	struct stat sb;
	if (!stat(path_out, &sb) && S_ISDIR(sb.st_mode) && gen_dir_has_entries(path_out) > 0)
		return use_existing(profile, path_out,
				    profile == GEN_PROFILE_IMAGENET && getenv("PPBENCH_DATA"), err, errlen);
	struct gen_options o = {
		.out = path_out,
		.profile = profile,
		.images = GEN_DEFAULT_IMAGES,
		.classes = GEN_DEFAULT_CLASSES,
		.seed = GEN_DEFAULT_SEED,
	};
	struct gen_stats st;
	fprintf(stderr, "ppbench: generating %s%s%s once (%d images, %d classes, seed %d, about %d MB) "
		"in '%s'; PPBENCH_CACHE=DIR puts it elsewhere, --data DIR uses a dataset of your "
		"own\n", what, profile ? " " : "", profile ? name : "", GEN_DEFAULT_IMAGES,
		GEN_DEFAULT_CLASSES, GEN_DEFAULT_SEED, gen_profiles[profile].default_mb, path_out);
	if (dataset_generate(&o, &st, err, errlen)) {
		/* another process may have made it at the same time */
		if (dataset_version(path_out) == GEN_VERSION)
			return 0;
		return -1;
	}
	gen_stats_print(&st, stderr);
	return 0;
}

int dataset_ensure_default(char *path_out, size_t n, char *err, size_t errlen)
{
	return dataset_ensure_profile(GEN_PROFILE_IMAGENET, path_out, n, err, errlen);
}
