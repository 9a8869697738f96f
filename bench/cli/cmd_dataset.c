/* ppbench dataset generate|describe|default */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "loader.h"
#include "generate.h"
#include "imagefolder.h"
#include "log.h"
#include "options.h"
#include "stats.h"

struct gen_cfg {
	const char *out;
	uint64_t images, classes, seed;
	long threads;
	int quiet;
};

#define O(f) offsetof(struct gen_cfg, f)
static const struct opt gen_opts[] = {
	OPT_OUT(struct gen_cfg, out, NULL, "folder to create (required; must not exist or be empty)"),
	{ .name = "images", .shortname = 'n', .type = OPT_U64, .off = O(images), .def = "2000", .metavar = "N", .help = "number of images", .lo = 1, .hi = 1e8 },
	{ .name = "classes", .shortname = 'c', .type = OPT_U64, .off = O(classes), .def = "50", .metavar = "N", .help = "number of class folders", .lo = 1, .hi = 1e6 },
	{ .name = "seed", .shortname = 0, .type = OPT_U64, .off = O(seed), .def = "1", .metavar = "N", .help = "seed: the same seed writes the same bytes" },
	{ .name = "threads", .shortname = 'j', .type = OPT_INT, .off = O(threads), .def = "0", .metavar = "N", .help = "OpenMP threads (0: all cores)", .lo = 0, .hi = 4096 },
	{ .name = "quiet", .shortname = 'q', .type = OPT_BOOL, .off = O(quiet), .def = "off", .metavar = NULL, .help = "no progress and statistics" },
	OPT_END
};
#undef O

static int generate(int argc, char **argv)
{
	static const char usage[] = "ppbench dataset generate --out DIR [options]";
	struct gen_cfg c;
	char err[512];
	int npos;
	int rc = opts_prelude(gen_opts, &c, argc, argv, &npos, usage,
			  "Writes a synthetic ImageFolder tree like ImageNet train (photo-like JPEGs of\n"
			  "ImageNet's geometry and file sizes, a few grayscale and CMYK JPEGs, one PNG\n"
			  "named .JPEG), byte-identical for the same seed, in parallel.", NULL);
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
		.out = c.out, .images = c.images, .classes = c.classes, .seed = c.seed,
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

static int describe(int argc, char **argv)
{
	if (argc != 2 || !strcmp(argv[1], "--help")) {
		printf("usage: ppbench dataset describe DIR\n\nReads DIR as torchvision's ImageFolder "
		       "and prints its classes, images and file sizes.\n");
		exit_codes_help(stdout);
		return argc == 2 ? EXIT_OK : EXIT_USAGE;
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
	free(kb);
	dataset_release(&d);
	return EXIT_OK;
}

static int default_dataset(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	char path[4096], err[512];
	if (dataset_ensure_default(path, sizeof(path), err, sizeof(err))) {
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
			   "       ppbench dataset default   (generate the default dataset if needed; print its path)\n");
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], "generate"))
		return generate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "describe"))
		return describe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "default"))
		return default_dataset(argc - 1, argv + 1);
	error_msg("unknown dataset command '%s' (generate, describe, default)", argv[1]);
	return EXIT_USAGE;
}
