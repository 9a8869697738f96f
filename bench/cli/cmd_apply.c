/* ppbench apply IMAGE: one image through a pipeline, written as .npy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "decode.h"
#include "log.h"
#include "npy.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"

struct apply_cfg {
	const char *pipeline;
	const char *until;
	const char *crop;
	long flip;
	uint64_t seed;
	uint64_t index;
	uint64_t max_pixels, max_file_size;
	const char *out;
};

#define O(f) offsetof(struct apply_cfg, f)
static const struct opt apply_opts[] = {
	OPT_PIPELINE(struct apply_cfg, pipeline, "pipeline name (pipelines/NAME.pipe) or file"),
	{ .name = "until", .shortname = 0, .type = OPT_STR, .off = O(until), .def = NULL, .metavar = "OP", .help = "stop after this op (default: the whole pipeline)" },
	{ .name = "crop", .shortname = 0, .type = OPT_STR, .off = O(crop), .def = NULL, .metavar = "TOP,LEFT,HEIGHT,WIDTH", .help = "force random_resized_crop's box instead of drawing it" },
	{ .name = "flip", .shortname = 0, .type = OPT_INT, .off = O(flip), .def = "-1", .metavar = "-1|0|1", .help = "random_horizontal_flip: 1 flips, 0 does not, -1 draws it as the pipeline would", .lo = -1, .hi = 1 },
	{ .name = "seed", .shortname = 0, .type = OPT_U64, .off = O(seed), .def = "0", .metavar = "N", .help = "seed of the sample's random stream" },
	{ .name = "index", .shortname = 0, .type = OPT_U64, .off = O(index), .def = "0", .metavar = "N", .help = "sample index the stream is seeded with" },
	OPT_MAX_PIXELS(struct apply_cfg, max_pixels, "refuse larger images (Pillow's decompression-bomb error threshold; 0: no limit)"),
	OPT_MAX_FILE_SIZE(struct apply_cfg, max_file_size),
	{ .name = "out", .shortname = 'o', .type = OPT_STR, .off = O(out), .def = NULL, .metavar = "FILE.npy", .help = "where to write the result (required)" },
	OPT_END
};
#undef O

/* --crop TOP,LEFT,HEIGHT,WIDTH: 0, or -1 with why naming the bad part. */
static int parse_crop(const char *s, int c[4], char *why, size_t whylen)
{
	static const char *const part[] = { "TOP", "LEFT", "HEIGHT", "WIDTH" };
	char tail;
	if (sscanf(s, "%d,%d,%d,%d%c", &c[0], &c[1], &c[2], &c[3], &tail) != 4) {
		snprintf(why, whylen, "is not TOP,LEFT,HEIGHT,WIDTH (four integers)");
		return -1;
	}
	for (int i = 0; i < 4; i++)
		if (c[i] < (i < 2 ? 0 : 1)) {
			snprintf(why, whylen, "has %s %d; it must be %s", part[i], c[i],
				 i < 2 ? "0 or more" : "1 or more");
			return -1;
		}
	return 0;
}

int cmd_apply(int argc, char **argv)
{
	static const char usage[] = "ppbench apply IMAGE [options] --out FILE.npy";
	struct apply_cfg cfg;
	char err[512];
	int npos = 0;
	int rc = opts_prelude(apply_opts, &cfg, argc, argv, &npos, usage,
			      "Runs the pipeline's per-sample ops on IMAGE (random choices optionally fixed)\n"
			      "and writes the result: uint8 H x W x 3 before to_tensor, float32 3 x H x W after.",
			      NULL);
	if (rc >= 0)
		return rc;
	if (npos != 1) {
		if (npos == 0)
			error_msg("apply needs an image (usage: %s)", usage);
		else
			error_msg("apply takes one image, got %d", npos);
		return EXIT_USAGE;
	}
	if (!cfg.out) {
		error_msg("apply needs --out FILE.npy");
		return EXIT_USAGE;
	}
	struct fixed_choice fixed = { .has_crop = 0, .flip = (int)cfg.flip };
	if (cfg.crop) {
		char why[128];
		if (parse_crop(cfg.crop, fixed.crop, why, sizeof(why))) {
			error_msg("--crop: '%s' %s", cfg.crop, why);
			return EXIT_USAGE;
		}
		fixed.has_crop = 1;
	}
	struct pipeline p;
	if (pipeline_load(&p, cfg.pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (cfg.until) {
		int k = pipeline_find(&p, cfg.until);
		if (k < 0) {
			error_msg("--until: pipeline '%s' has no op '%s'", p.name, cfg.until);
			pipeline_release(&p);
			return EXIT_USAGE;
		}
		pipeline_truncate(&p, k);
	}

	if (input_missing(argv[1])) {
		pipeline_release(&p);
		return EXIT_USAGE;
	}
	struct rng r;
	rng_seed(&r, rng_sample_seed(cfg.seed, 0, cfg.index));
	struct scratch scr = { 0 };
	struct sample s = {
		.path = argv[1], .rng = &r, .fixed = &fixed, .index = cfg.index,
		.max_pixels = cfg.max_pixels, .max_file_bytes = cfg.max_file_size, .scr = &scr,
	};
	struct op_time t[PIPE_MAX_OPS];
	int status = EXIT_OK;
	int failed = pipeline_run_sample(&p, &s, t);
	if (failed) {
		error_msg("cannot apply '%s' to '%s': %s", p.op[failed - 1].ops->name, argv[1], s.err);
		status = EXIT_FAIL;
		goto out;
	}
	if (s.kind == PIX_NONE) {
		error_msg("pipeline '%s' produced no image (no decode op?)", p.name);
		status = EXIT_FAIL;
		goto out;
	}
	size_t shape[3];
	const char *dtype;
	if (s.kind == PIX_U8_HWC) {
		shape[0] = (size_t)s.h, shape[1] = (size_t)s.w, shape[2] = 3;
		dtype = "|u1";
	} else {
		shape[0] = 3, shape[1] = (size_t)s.h, shape[2] = (size_t)s.w;
		dtype = "<f4";
	}
	if (npy_write(cfg.out, dtype, shape, 3, s.data.p, err, sizeof(err))) {
		error_msg("%s", err);
		status = EXIT_FAIL;
	} else {
		printf("%s: %s [%zu, %zu, %zu] (%s)\n", cfg.out,
		       dtype[1] == 'u' ? "uint8" : "float32", shape[0], shape[1], shape[2],
		       dtype[1] == 'u' ? "HWC, as Pillow" : "CHW, as torch");
	}
out:
	sample_release(&s);
	scratch_release(&scr);
	pipeline_release(&p);
	return status;
}
