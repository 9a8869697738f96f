/* ppbench dataset generate|describe|default */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "loader.h"
#include "describe.h"
#include "generate.h"
#include "imagefolder.h"
#include "log.h"
#include "options.h"
#include "stats.h"

struct gen_cfg {
	const char *out;
	uint64_t images, classes, seed;
	long threads;
	int quiet, profile;
};

#define O(f) offsetof(struct gen_cfg, f)
#define OPT_PROFILE { .name = "profile", .type = OPT_ENUM, .off = O(profile), .def = "imagenet", \
	.metavar = "NAME", .choices = GEN_PROFILE_CHOICES, \
	.help = "imagenet: ImageNet train's sizes; photos: web-sized photos (0.4 MP, 60 KB)" }
static const struct opt gen_opts[] = {
	OPT_OUT(struct gen_cfg, out, NULL, "folder to create (required; must not exist or be empty)"),
	OPT_PROFILE,
	{ .name = "images", .shortname = 'n', .type = OPT_U64, .off = O(images), .def = "2000", .metavar = "N", .help = "number of images", .lo = 1, .hi = 1e8 },
	{ .name = "classes", .shortname = 'c', .type = OPT_U64, .off = O(classes), .def = "50", .metavar = "N", .help = "number of class folders", .lo = 1, .hi = 1e6 },
	{ .name = "seed", .shortname = 0, .type = OPT_U64, .off = O(seed), .def = "1", .metavar = "N", .help = "seed: the same seed writes the same bytes" },
	{ .name = "threads", .shortname = 'j', .type = OPT_INT, .off = O(threads), .def = "0", .metavar = "N", .help = "OpenMP threads (0: all cores)", .lo = 0, .hi = 4096 },
	{ .name = "quiet", .shortname = 'q', .type = OPT_BOOL, .off = O(quiet), .def = "off", .metavar = NULL, .help = "no progress and statistics" },
	OPT_END
};
static const struct opt default_opts[] = {
	OPT_PROFILE,
	OPT_END
};
#undef O

static const char gen_desc[] =
	"Writes a synthetic ImageFolder tree like ImageNet train (photo-like JPEGs of\n"
	"ImageNet's geometry and file sizes, a few grayscale and CMYK JPEGs, one PNG\n"
	"named .JPEG), byte-identical for the same seed, in parallel. --profile photos\n"
	"makes larger images with fewer bytes per pixel, as photos downscaled for the\n"
	"web (about 0.4 MP and 60 KB each): less of the decode is Huffman decoding.";
static const char describe_desc[] =
	"Reads DIR as torchvision's ImageFolder and prints its classes, images and file\n"
	"sizes, and for a generated dataset its profile, generator version and seed.";
static const char default_desc[] =
	"Generates the default dataset of a profile (2000 images, 50 classes, seed 1)\n"
	"unless it exists, and prints its path, for --data of bench, run or sweep (which\n"
	"use the imagenet one when given no --data). It takes about 230 MB (imagenet)\n"
	"or 120 MB (photos) and is made once, in the first of: $PPBENCH_DATA (imagenet\n"
	"only: that folder), $PPBENCH_CACHE/<profile>, datasets/cache/<profile> of the\n"
	"source tree ppbench runs from, $XDG_CACHE_HOME/ppbench/<profile>,\n"
	"~/.cache/ppbench/<profile> (an installed ppbench: set PPBENCH_CACHE to choose).";

static int generate(int argc, char **argv)
{
	static const char usage[] = "ppbench dataset generate --out DIR [options]";
	struct gen_cfg c;
	char err[512];
	int npos;
	int rc = opts_prelude(gen_opts, &c, argc, argv, &npos, usage, gen_desc, NULL);
	if (rc >= 0)
		return rc;
	if (npos) {
		error_msg("dataset generate takes no argument ('%s'); use --out DIR", argv[1]);
		return EXIT_USAGE;
	}
	if (!c.out) {
		error_msg("dataset generate needs --out DIR");
		return EXIT_USAGE;
	}
	if (c.classes > c.images) {
		error_msg("--classes (%llu) is larger than --images (%llu)",
		      (unsigned long long)c.classes, (unsigned long long)c.images);
		return EXIT_USAGE;
	}
	struct gen_options o = {
		.out = c.out, .profile = c.profile, .images = c.images, .classes = c.classes, .seed = c.seed,
		.threads = (int)c.threads, .quiet = c.quiet,
	};
	struct gen_stats st;
	if (dataset_generate(&o, &st, err, sizeof(err))) {
		error_msg("cannot generate '%s': %s", c.out, err);
		return EXIT_FAIL;
	}
	if (!c.quiet)
		gen_stats_print(&st, stdout);
	return EXIT_OK;
}

static const struct opt describe_opts[] = { OPT_END };

static int describe(int argc, char **argv)
{
	int npos, rc = opts_prelude(describe_opts, NULL, argc, argv, &npos,
				    "ppbench dataset describe DIR", describe_desc, NULL);
	if (rc >= 0)
		return rc;
	if (npos != 1) {
		fprintf(stderr, "usage: ppbench dataset describe DIR\n");
		return EXIT_USAGE;
	}
	struct dataset d;
	char err[512];
	if (input_missing(argv[1]))
		return EXIT_USAGE;
	if (dataset_scan(&d, argv[1], err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	double *kb = malloc((d.n ? d.n : 1) * sizeof(double));
	if (!kb)
		die("out of memory");
	for (size_t i = 0; i < d.n; i++)
		kb[i] = (double)d.items[i].bytes / 1024.0;
	struct stats st;
	stats_compute(kb, d.n, &st);
	char total[32];
	loader_human_bytes(d.total_bytes, total, sizeof(total));
	printf("dataset %s\n  classes %zu, images %zu, %s\n", d.root, d.nclasses, d.n, total);
	printf("  file size (KiB = 1024 B): mean %.1f, p25 %.1f, median %.1f, p75 %.1f, p99 %.1f, "
	       "min %.1f, max %.1f, std %.1f\n",
	       st.mean, st.p25, st.p50, st.p75, st.p99, st.min, st.max, st.std);
	char origin[160];
	if (dataset_origin(&d, origin, sizeof(origin)) == 1)
		printf("  generated by ppbench: %s\n", origin);
	free(kb);
	dataset_release(&d);
	return EXIT_OK;
}

static int default_dataset(int argc, char **argv)
{
	struct gen_cfg c;
	char path[4096], err[512];
	int npos;
	int rc = opts_prelude(default_opts, &c, argc, argv, &npos, "ppbench dataset default [--profile NAME]",
			      default_desc, NULL);
	if (rc >= 0)
		return rc;
	if (npos) {
		error_msg("dataset default takes no argument ('%s')", argv[1]);
		return EXIT_USAGE;
	}
	if (dataset_ensure_profile(c.profile, path, sizeof(path), err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	printf("%s\n", path);
	return EXIT_OK;
}

int cmd_dataset(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: ppbench dataset generate --out DIR [options]\n"
			   "       ppbench dataset describe DIR\n"
			   "       ppbench dataset default [--profile imagenet|photos]\n\n"
			   "Synthetic ImageNet-like datasets, and what a dataset folder holds\n"
			   "(ppbench dataset COMMAND --help: one command).\n\n"
			   "dataset generate:\n%s\n\ndataset describe DIR:\n%s\n\n"
			   "dataset default:\n%s\n", gen_desc, describe_desc, default_desc);
		opts_help_table(gen_opts, f, "options of generate");
		opts_help_table(default_opts, f, "options of default");
		exit_codes_help(f);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], "generate"))
		return generate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "describe"))
		return describe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "default"))
		return default_dataset(argc - 1, argv + 1);
	static const char *const subs[] = { "generate", "describe", "default" };
	const char *near = nearest_name(argv[1], subs, 3);
	if (near)
		error_msg("unknown dataset command '%s'; did you mean '%s'? (generate, describe, default)",
			  argv[1], near);
	else
		error_msg("unknown dataset command '%s' (generate, describe, default)", argv[1]);
	return EXIT_USAGE;
}
