/* ppbench bench: the speed and overhead benchmark behind `make bench`.
 * Everything it compares is measured side by side in the same run; it
 * prints ratios, never absolute targets from another run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "bench_result.h"
#include "clock.h"
#include "commands.h"
#include "describe.h"
#include "fsutil.h"
#include "generate.h"
#include "imagefolder.h"
#include "kernels.h"
#include "log.h"
#include "model.h"
#include "noise.h"
#include "options.h"
#include "emit.h"

#define O(f) offsetof(struct bench_cfg, f)
static const struct opt bench_opts[] = {
	OPT_DATA(struct bench_cfg, data),
	OPT_PIPELINE(struct bench_cfg, pipeline, "pipeline to time op by op"),
	{ .name = "fused", .type = OPT_STR, .off = O(fused), .def = "imagenet_train_fused", .metavar = "NAME|FILE", .help = "the fused what-if pipeline the fused section compares with --pipeline" },
	{ .name = "images", .shortname = 'n', .type = OPT_U64, .off = O(images), .def = "500", .metavar = "N", .help = "images used (the first N of the dataset)", .lo = 1, .hi = 1e9 },
	{ .name = "rounds", .shortname = 'r', .type = OPT_INT, .off = O(rounds), .def = "6", .metavar = "N", .help = "passes of the ops section and interleaved rounds of the decode comparison (6 or more: a 95 % interval)", .lo = 1, .hi = 1000 },
	{ .name = "batch", .shortname = 'b', .type = OPT_U64, .off = O(batch_size), .def = "128", .metavar = "B", .help = "batch size for the collate op", .lo = 1, .hi = 65536 },
	{ .name = "repeats", .type = OPT_INT, .off = O(repeats), .def = "6", .metavar = "N", .help = "interleaved pairs of runs in the loader sections (6 or more: a 95 % interval)", .lo = 1, .hi = 100 },
	{ .name = "loader-batches", .type = OPT_U64, .off = O(loader_batches), .def = "15", .metavar = "N", .help = "batches of 64 per run in the loader sections", .lo = 1, .hi = 1e6 },
	{ .name = "sections", .type = OPT_STR, .off = O(sections), .def = "ops,kernels,bounds,fused,decode,trace,pool,harness,batch,chain,model", .metavar = "LIST", .help = "which sections to run" },
	{ .name = "batch-sizes", .type = OPT_STR, .off = O(batch_sizes), .def = "32,128,512", .metavar = "LIST", .help = "batch sizes of the batch section (the same images through ppbench run at each: is the harness's cost per image flat?)" },
	OPT_OUT(struct bench_cfg, out, "results", "where the results folder (bench.json, bench.csv) is made"),
	{ .name = "tag", .type = OPT_STR, .off = O(tag), .def = "bench", .metavar = "TAG", .help = "suffix of the results folder's name" },
	NOISE_OPT(struct bench_cfg, require_idle),
	OPT_END
};
#undef O

/* The sections, in the order they run. */
static const char *const bench_sections[] = { "ops", "kernels", "bounds", "fused", "decode", "trace", "pool",
					      "harness", "batch", "chain", "model", NULL };

/* -1 with err naming the first unknown section of list */
static int check_sections(const char *list, char *err, size_t errlen)
{
	const char *p = list;
	while (*p) {
		size_t l = strcspn(p, ",");
		int ok = 0;
		for (int i = 0; bench_sections[i]; i++)
			ok |= strlen(bench_sections[i]) == l && !strncmp(bench_sections[i], p, l);
		if (!ok) {
			char names[256] = "";
			for (int i = 0; bench_sections[i]; i++) {
				size_t m = strlen(names);
				snprintf(names + m, sizeof(names) - m, "%s%s", i ? ", " : "", bench_sections[i]);
			}
			errf(err, errlen, "--sections: unknown section '%.*s' (sections: %s)", (int)l, p, names);
			return -1;
		}
		p += l + (p[l] == ',');
	}
	return 0;
}

static int has_section(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return 1;
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	static const char usage[] = "ppbench bench [options]";
	struct bench_cfg c;
	char err[512], path[4096];
	int npos;
	int rc = opts_prelude(bench_opts, &c, argc, argv, &npos, usage,
			  "Speed and overhead benchmark: per-op times of a pipeline, and ppbench's decode\n"
			  "against libjpeg-turbo's own, the kernels, each op against its bound, the fused\n"
			  "what-if, tracing overhead, pool efficiency, the harness alone and against the\n"
			  "batch size, and the whole chain against its lower bound, measured\n"
			  "side by side in one run. Each figure is a median over passes or interleaved\n"
			  "pairs with its interval; each target is met, NOT met or within noise (the\n"
			  "interval straddles it). Leaves a results folder (bench.json, bench.csv).",
			  NULL);
	if (rc >= 0)
		return rc;
	if (npos || check_sections(c.sections, err, sizeof(err)) ||
	    bench_batch_check(c.batch_sizes, err, sizeof(err))) {
		error_msg("%s", npos ? "bench takes no arguments" : err);
		return EXIT_USAGE;
	}
	if (!c.data) {
		if (dataset_ensure_default(path, sizeof(path), err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		c.data = path;
	}
	struct dataset d;
	if (dataset_scan(&d, c.data, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	size_t n = d.n < c.images ? d.n : (size_t)c.images;
	struct cpus cp;
	cpus_read(&cp);
	if (noise_require_idle(c.require_idle, noise_idle_wait_s(), &cp, err, sizeof(err))) {
		error_msg("%s", err);
		dataset_release(&d);
		return EXIT_FAIL;
	}
	char tmpdir[4200], rname[512], final[4400];
	if (results_dir_begin(c.out, c.tag, tmpdir, sizeof(tmpdir), rname, sizeof(rname), err,
			      sizeof(err))) {
		error_msg("%s", err);
		dataset_release(&d);
		return EXIT_FAIL;
	}
	static struct bench_result res;
	struct noise_snap before, after;
	noise_read(&before, &cp);
	struct utsname u;
	uname(&u);
	char kd[256];
	kernels_describe(kd, sizeof(kd));
	char origin[160];
	dataset_origin(&d, origin, sizeof(origin));
	printf("# ppbench bench\n\ndataset %s (%zu of %zu images; %s), kernel %s, clock %s (read cost %.1f ns)\n"
	       "ops' kernels: %s\n", d.root, n, d.n, origin, u.release, clock_source(), clock_read_cost_ns(), kd);
	if (has_section(c.sections, "ops"))
		bench_ops(&c, &d, n, &res);
	if (has_section(c.sections, "kernels"))
		bench_kernels(&c, &d, n, &res);
	if (has_section(c.sections, "bounds"))
		bench_bounds(c.pipeline, (size_t)c.rounds, c.batch_size, &res);
	if (has_section(c.sections, "fused"))
		bench_fused(&c, &d, n, &res);
	if (has_section(c.sections, "decode"))
		bench_decode(&c, &d, n, &res);
	if (has_section(c.sections, "trace") || has_section(c.sections, "pool") ||
	    has_section(c.sections, "harness") || has_section(c.sections, "batch") ||
	    has_section(c.sections, "chain")) {
		char tmp[] = "/tmp/ppbench-bench.XXXXXX";
		if (!mkdtemp(tmp))
			die("cannot create a temporary folder: %m");
		fflush(stdout);
		if (has_section(c.sections, "trace"))
			bench_trace(&c, c.data, tmp, &res);
		if (has_section(c.sections, "pool"))
			bench_pool(&c, c.data, tmp, &res);
		if (has_section(c.sections, "harness"))
			bench_harness(&c, c.data, tmp, &res);
		struct bench_batch_cfg bc = { c.data, c.batch_sizes, tmp, d.n, c.repeats };
		static struct bench_chain_in chain;
		if (has_section(c.sections, "batch"))
			bench_batch(&bc, &res, &chain);
		if (has_section(c.sections, "chain"))
			bench_chain(&bc, &d, (size_t)c.repeats, &res, &chain);
		if (remove_tree(tmp))
			warn_msg("cannot remove %s: %s", tmp, strerror(errno));
	}
	if (has_section(c.sections, "model"))
		model_bench(stdout);
	noise_read(&after, &cp);
	struct noise nz;
	noise_between(&before, &after, &cp, &nz);
	fflush(stdout);   /* the warning after the figures, not inside a line of them */
	noise_warn(&nz, "the benchmark");
	int rc2 = bench_write(&res, &c, &d, n, &nz, argc, argv, tmpdir, err, sizeof(err));
	if (!rc2)
		rc2 = results_dir_commit(c.out, tmpdir, rname, final, sizeof(final), err, sizeof(err));
	dataset_release(&d);
	if (rc2) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	printf("\nresults: %s (bench.json, bench.csv)\n", final);
	return EXIT_OK;
}
