/* ppbench bottleneck: climb the caching ladder, one stage at a time, and
 * name the stage whose inclusion costs the most throughput. Steps 3 to 5
 * run the loader (loader.h) as `ppbench run` does (torch policy, in order),
 * steps 1 and 2 the simulated GPU of the consumer alone, so the numbers are
 * comparable. */
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fsutil.h"
#include "bottleneck.h"
#include "run.h"
#include "clock.h"
#include "commands.h"
#include "consumer.h"
#include "generate.h"
#include "imagefolder.h"
#include "loader.h"
#include "log.h"
#include "options.h"
#include "pipeline.h"


static const char usage[] = "ppbench bottleneck [options]";
static const char description[] =
	"The caching ladder: images/s with (1) one batch cached on the GPU (step only),\n"
	"(2) one batch cached on the host (copy + step), (3) one processed sample cached\n"
	"(collate + loader + copy + step), (4) the files' bytes in memory, the page cache\n"
	"(every op + collate + copy + step), (5) the full pipeline from storage with a cold\n"
	"page cache. Names the stage whose inclusion causes the largest drop.\n"
	"Takes the options of ppbench run; --max-batches 0 means 20 batches per step.\n"
	"Exit status: 0 done; 1 a step failed; 2 a bad option.";

#define NSTEPS 5
static const char *const step_name[NSTEPS] = {
	"1 batch cached on the GPU (step)",
	"2 batch cached on the host (+ copy)",
	"3 processed sample cached (+ collate, loader)",
	"4 raw bytes in memory (+ transforms)",
	"5 full pipeline, cold page cache (+ storage)",
};
static const char *const stage_name[NSTEPS] = {
	"",
	"the host-to-device copy",
	"collate and the loader (workers, IPC, pin memory)",
	"the transforms (every per-sample op of the pipeline)",
	"reading the files from storage",
};

/* Steps 1 and 2: the simulated GPU alone, on one batch of `bytes`. */
static double gpu_only(const struct run_opts *o, uint64_t step_ns, double h2d, size_t bytes)
{
	struct gpu_sim g;
	uint64_t t0 = clock_now_ns();
	gpu_init(&g, step_ns, h2d, t0);
	for (uint64_t i = 0; i < o->max_batches; i++)
		gpu_consume(&g, bytes, (int64_t)i, NULL, 0, NULL, NULL, NULL);
	double s = (double)(clock_now_ns() - t0) / 1e9;
	if (s <= 0)
		return 0; /* a step of 0: no GPU bound */
	return (double)o->max_batches * (double)o->batch / s;
}

/* Read every file once (into the page cache), or drop it from there. */
static void page_cache(const struct dataset *d, int drop)
{
	char buf[65536];
	for (size_t i = 0; i < d->n; i++) {
		char why[256];
		struct stat st;
		int fd = open_regular(d->items[i].path, &st, why, sizeof(why));
		if (fd < 0)
			continue;
		if (drop) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		} else {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
		}
		close(fd);
	}
}

static int loader_step(struct loader_cfg *lc, double *ips, char *err, size_t errlen)
{
	struct loader_plan plan;
	struct loader_result r;
	if (loader_plan(lc, &plan, err, errlen) || loader_run(lc, &plan, &r, err, errlen))
		return -1;
	int ok = r.complete;
	if (!ok)
		snprintf(err, errlen, "%s", r.stop_reason);
	double s = (double)(r.end_ns - r.start_ns) / 1e9;
	*ips = s > 0 ? (double)r.images / s : 0;
	loader_result_free(&r);
	return ok ? 0 : -1;
}

int cmd_bottleneck(int argc, char **argv)
{
	struct run_opts o;
	struct pipeline pipe;
	struct dataset data;
	char err[1024], data_path[4096];
	int npos = 0, rc = EXIT_USAGE, have_pipe = 0, have_data = 0;
	if (opts_defaults(run_opts_table, &o, err, sizeof(err))) {
		error("%s", err);
		return EXIT_FAIL;
	}
	int pr = opts_parse(run_opts_table, &o, argc, argv, 1, &npos, err, sizeof(err));
	if (pr == 1) {
		opts_help(run_opts_table, stdout, usage, description);
		return EXIT_OK;
	}
	if (pr < 0) {
		error("%s", err);
		return EXIT_USAGE;
	}
	if (npos) {
		opts_unexpected(argv[1], "bottleneck", err, sizeof(err));
		error("%s", err);
		return EXIT_USAGE;
	}
	if (!o.max_batches)   /* run's "every batch" is too long for five steps */
		o.max_batches = 20;
	uint64_t step_ns = o.gpu_step;
	if (step_ns == OPT_AUTO && gpu_step_auto(o.batch, o.gpus, &step_ns, err, sizeof(err))) {
		error("--gpu-step auto: %s", err);
		return EXIT_USAGE;
	}
	if (pipeline_load(&pipe, o.pipeline, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	have_pipe = 1;
	if (!o.data) {
		if (dataset_ensure_default(data_path, sizeof(data_path), err, sizeof(err))) {
			error("%s", err);
			rc = EXIT_FAIL;
			goto out;
		}
		o.data = data_path;
	}
	if (dataset_scan(&data, o.data, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	have_data = 1;

	struct loader_cfg lc = run_loader_cfg(&o, &pipe, &data, step_ns);
	lc.epochs = 1;     /* each step measures at most one epoch */
	lc.trace = 0;      /* throughput only */
	lc.checksum = 0;
	struct loader_plan plan;
	if (loader_plan(&lc, &plan, err, sizeof(err))) {
		error("%s", err);
		goto out;
	}
	size_t bytes = (size_t)o.batch * (3 * (size_t)plan.sample_h * (size_t)plan.sample_w * 4 + 8);
	double ips[NSTEPS] = { 0 };
	rc = EXIT_FAIL;
	ips[0] = gpu_only(&o, step_ns, 0, 0);
	ips[1] = gpu_only(&o, step_ns, o.h2d, bytes);
	lc.cache = CACHE_SAMPLE;
	if (loader_step(&lc, &ips[2], err, sizeof(err))) {
		error("step 3 (processed sample cached): %s", err);
		goto out;
	}
	lc.cache = CACHE_NONE;
	page_cache(&data, 0);
	if (loader_step(&lc, &ips[3], err, sizeof(err))) {
		error("step 4 (raw bytes in memory): %s", err);
		goto out;
	}
	page_cache(&data, 1);
	if (loader_step(&lc, &ips[4], err, sizeof(err))) {
		error("step 5 (cold page cache): %s", err);
		goto out;
	}

	printf("caching ladder: pipeline %s, %zu images, B %ld, W %ld, GPU step %.1f ms, "
	       "%" PRIu64 " batches per step\n", pipe.name, data.n, o.batch, o.workers,
	       (double)step_ns / 1e6, o.max_batches);
	printf("%-48s %12s %10s\n", "step", "images/s", "vs prev");
	int worst = -1;
	double worst_ratio = 1;
	for (int i = 0; i < NSTEPS; i++) {
		char rel[32] = "";
		/* a step of 0 has no GPU bound: step 1 is then infinite */
		double prev = i ? ips[i - 1] : 0;
		if (i && prev > 0 && ips[i] > 0) {
			double ratio = prev / ips[i];
			snprintf(rel, sizeof(rel), "%+.1f %%", 100.0 * (ips[i] / prev - 1));
			if (ratio > worst_ratio) {
				worst_ratio = ratio;
				worst = i;
			}
		}
		if (ips[i] > 0)
			printf("%-48s %12.1f %10s\n", step_name[i], ips[i], rel);
		else
			printf("%-48s %12s %10s\n", step_name[i], "no bound", rel);
	}
	if (worst < 0) {
		printf("bottleneck: none: no step is slower than the one before\n");
	} else {
		printf("bottleneck: %s (step %d: %.1fx slower than step %d)\n", stage_name[worst],
		       worst + 1, worst_ratio, worst);
	}
	printf("caveats (from the post):\n"
	       "  - a drop when a stage is included does not prove that stage needs optimizing:\n"
	       "    another stage may already have the CPUs near their limit, and this one tips it over;\n"
	       "  - a single cached sample or batch may not reflect real inputs of varying size;\n"
	       "  - nor a model whose work depends on its input (here the GPU step is simulated\n"
	       "    and fixed, so this one does not arise).\n"
	       "  - here: step 4 keeps the files in the page cache (read once before), not an\n"
	       "    application cache, so it still pays open/read system calls; step 5 drops\n"
	       "    them with posix_fadvise(DONTNEED), which cannot evict pages others hold dirty.\n");
	rc = EXIT_OK;
out:
	if (have_data)
		dataset_release(&data);
	if (have_pipe)
		pipeline_release(&pipe);
	return rc;
}
