/* ppbench bench: the speed and overhead benchmark behind `make bench`.
 * Everything it compares is measured side by side in the same run; it
 * prints ratios, never absolute targets from another run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <jansson.h>
#include <turbojpeg.h>
#include "clock.h"
#include "commands.h"
#include "decode.h"
#include "generate.h"
#include "imagefolder.h"
#include "log.h"
#include "model.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"
#include "stats.h"

struct bench_cfg {
	const char *data;
	const char *pipeline;
	uint64_t images;
	long rounds;
	uint64_t batch;
	long repeats;
	uint64_t loader_batches;
	const char *sections;
};

#define O(f) offsetof(struct bench_cfg, f)
static const struct opt bench_opts[] = {
	{ .name = "data", .shortname = 'd', .type = OPT_STR, .off = O(data), .def = NULL, .metavar = "DIR", .help = "ImageFolder dataset (default: the generated default dataset)" },
	{ .name = "pipeline", .shortname = 'p', .type = OPT_STR, .off = O(pipeline), .def = "imagenet_train", .metavar = "NAME|FILE", .help = "pipeline to time op by op" },
	{ .name = "images", .shortname = 'n', .type = OPT_U64, .off = O(images), .def = "1000", .metavar = "N", .help = "images used (the first N of the dataset)", .lo = 1, .hi = 1e9 },
	{ .name = "rounds", .shortname = 'r', .type = OPT_INT, .off = O(rounds), .def = "5", .metavar = "N", .help = "interleaved rounds of the decode comparison", .lo = 1, .hi = 1000 },
	{ .name = "batch", .shortname = 'b', .type = OPT_U64, .off = O(batch), .def = "128", .metavar = "B", .help = "batch size for the collate op", .lo = 1, .hi = 65536 },
	{ .name = "repeats", .type = OPT_INT, .off = O(repeats), .def = "3", .metavar = "N", .help = "interleaved pairs of runs in the loader sections", .lo = 1, .hi = 100 },
	{ .name = "loader-batches", .type = OPT_U64, .off = O(loader_batches), .def = "30", .metavar = "N", .help = "batches of 64 per run in the loader sections", .lo = 1, .hi = 1e6 },
	{ .name = "sections", .type = OPT_STR, .off = O(sections), .def = "ops,decode,trace,pool,model", .metavar = "LIST", .help = "which sections to run" },
	OPT_END
};
#undef O

struct file_mem {
	unsigned char *p;
	size_t n;
	int is_jpeg;
};

static int read_file(const char *path, struct file_mem *f)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -1;
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	f->p = malloc(n > 0 ? (size_t)n : 1);
	f->n = f->p && n > 0 ? fread(f->p, 1, (size_t)n, fp) : 0;
	fclose(fp);
	f->is_jpeg = f->n > 3 && f->p[0] == 0xFF && f->p[1] == 0xD8 && f->p[2] == 0xFF;
	return f->n == (size_t)n ? 0 : -1;
}

/* Section 1: the pipeline op by op, single-threaded, files from the page cache. */
static int bench_ops(const struct bench_cfg *c, const struct dataset *d, size_t n)
{
	char err[512];
	struct pipeline p;
	if (pipeline_load(&p, c->pipeline, err, sizeof(err))) {
		error("%s", err);
		return -1;
	}
	size_t B = c->batch;
	double *ms = calloc((size_t)p.nops * n, sizeof(double));
	size_t *cnt = calloc((size_t)p.nops, sizeof(size_t));
	struct sample *smp = calloc(B, sizeof(*smp));
	struct sample **ptr = calloc(B, sizeof(*ptr));
	struct rng *rngs = calloc(B, sizeof(*rngs));
	struct scratch scr = { 0 };
	struct batch_out out = { 0 };
	if (!ms || !cnt || !smp || !ptr || !rngs)
		die("out of memory");
	if (p.batch_op >= 0) {
		out.capacity = p.op[p.batch_op].ops->batch_bytes(p.op[p.batch_op].cfg, B, 224, 224);
		out.mem = malloc(out.capacity);
		if (!out.mem)
			die("out of memory");
	}
	size_t done = 0, failed = 0, nb = 0;
	struct op_time t[PIPE_MAX_OPS];
	uint64_t t_start = clock_now_ns();
	while (done < n) {
		size_t k = 0;
		for (; k < B && done < n; done++) {
			struct sample *s = &smp[k];
			rng_seed(&rngs[k], rng_sample_seed(0, 0, done));
			s->path = d->items[done].path;
			s->label = d->items[done].label;
			s->index = done;
			s->rng = &rngs[k];
			s->scr = &scr;
			s->max_pixels = 178956970;
			s->kind = PIX_NONE;
			if (pipeline_run_sample(&p, s, t)) {
				failed++;
				continue;
			}
			for (int i = 0; i < p.nops; i++)
				if (i != p.batch_op)
					ms[(size_t)i * n + cnt[i]++] = (double)t[i].dur_ns / 1e6;
			ptr[k++] = s;
		}
		if (p.batch_op >= 0 && k) {
			const struct pipe_op *bo = &p.op[p.batch_op];
			size_t need = bo->ops->batch_bytes(bo->cfg, k, ptr[0]->h, ptr[0]->w);
			if (need > out.capacity) {
				free(out.mem);
				out.capacity = need;
				out.mem = malloc(need);
				if (!out.mem)
					die("out of memory");
			}
			out.n = k;
			uint64_t t0 = clock_now_ns();
			int rc = bo->ops->run_batch(bo->cfg, ptr, k, &out, err, sizeof(err));
			uint64_t t1 = clock_now_ns();
			if (rc)
				warn("collate: %s", err);
			else if (k == B)  /* a short last batch is not a batch-size figure */
				ms[(size_t)p.batch_op * n + cnt[p.batch_op]++] = (double)(t1 - t0) / 1e6;
			nb++;
		}
	}
	double wall = (double)(clock_now_ns() - t_start) / 1e9;
	printf("\n## 1. pipeline '%s' op by op, single-threaded (%zu images, %zu failed, batch %zu)\n\n",
	       p.name, n - failed, failed, B);
	printf("| op | count | mean ms | p90 ms | images/s (1/mean) |\n|---|---:|---:|---:|---:|\n");
	double total = 0;
	for (int i = 0; i < p.nops; i++) {
		struct stats st;
		stats_compute(&ms[(size_t)i * n], cnt[i], &st);
		if (i == p.batch_op) {
			printf("| %s (per batch of %zu) | %zu | %.3f | %.3f | %.0f |\n", p.op[i].ops->name, B,
			       cnt[i], st.mean, st.p90, st.mean > 0 ? 1e3 * (double)B / st.mean : 0);
			total += st.mean / (double)B;
		} else {
			printf("| %s | %zu | %.3f | %.3f | %.0f |\n", p.op[i].ops->name, cnt[i], st.mean,
			       st.p90, st.mean > 0 ? 1e3 / st.mean : 0);
			total += st.mean;
		}
	}
	printf("| all ops (sum of means) | | %.3f | | %.0f |\n", total, total > 0 ? 1e3 / total : 0);
	printf("\nwall %.2f s, %.0f images/s including the harness\n", wall, (double)(n - failed) / wall);
	for (size_t i = 0; i < B; i++)
		sample_release(&smp[i]);
	scratch_release(&scr);
	free(out.mem);
	free(ms);
	free(cnt);
	free(smp);
	free(ptr);
	free(rngs);
	pipeline_release(&p);
	return 0;
}

/* Section 2: ppbench's decode against TurboJPEG's tjDecompress2 on the same
 * in-memory files, interleaved round by round. */
static int bench_decode(const struct bench_cfg *c, const struct dataset *d, size_t n)
{
	struct file_mem *f = calloc(n, sizeof(*f));
	if (!f)
		die("out of memory");
	size_t nj = 0, maxpx = 0;
	tjhandle tj = tjInitDecompress();
	for (size_t i = 0; i < n; i++) {
		if (read_file(d->items[i].path, &f[i]) || !f[i].is_jpeg)
			continue;
		int w, h, ss, cs;
		if (tjDecompressHeader3(tj, f[i].p, f[i].n, &w, &h, &ss, &cs) || cs == TJCS_CMYK ||
		    cs == TJCS_YCCK || cs == TJCS_GRAY) {
			f[i].is_jpeg = 0;   /* compare the common case: colour JPEGs */
			continue;
		}
		if ((size_t)w * (size_t)h > maxpx)
			maxpx = (size_t)w * (size_t)h;
		nj++;
	}
	unsigned char *dst = malloc(maxpx * 3);
	struct buf out = { 0 };
	char err[256];
	if (!dst || buf_reserve(&out, maxpx * 3))
		die("out of memory");
	uint64_t ours = 0, theirs = 0;
	size_t bad = 0;
	double *ratio = calloc((size_t)c->rounds, sizeof(double));
	for (long r = 0; r < c->rounds; r++) {
		uint64_t a = 0, b = 0;
		for (int side = 0; side < 2; side++) {
			int ppb = (side == 0) == (r % 2 == 0);   /* alternate who goes first */
			uint64_t t0 = clock_now_ns();
			for (size_t i = 0; i < n; i++) {
				if (!f[i].is_jpeg)
					continue;
				if (ppb) {
					int h, w;
					if (decode_image_mem(f[i].p, f[i].n, 0, &out, &h, &w, err, sizeof(err)))
						bad++;
				} else {
					int w, h, ss, cs;
					tjDecompressHeader3(tj, f[i].p, f[i].n, &w, &h, &ss, &cs);
					if (tjDecompress2(tj, f[i].p, f[i].n, dst, w, 0, h, TJPF_RGB, 0))
						bad++;
				}
			}
			uint64_t dt = clock_now_ns() - t0;
			if (ppb)
				a = dt;
			else
				b = dt;
		}
		ours += a;
		theirs += b;
		ratio[r] = (double)a / (double)b;
	}
	struct stats st;
	stats_compute(ratio, (size_t)c->rounds, &st);
	printf("\n## 2. decode: ppbench decode_image_mem vs TurboJPEG tjDecompress2 (%zu colour JPEGs "
	       "in memory, %ld interleaved rounds)\n\n", nj, c->rounds);
	printf("| decoder | ms per image | images/s |\n|---|---:|---:|\n");
	double per = (double)(c->rounds) * (double)nj;
	printf("| ppbench decode | %.3f | %.0f |\n", (double)ours / 1e6 / per, per * 1e9 / (double)ours);
	printf("| tjDecompress2 | %.3f | %.0f |\n", (double)theirs / 1e6 / per, per * 1e9 / (double)theirs);
	printf("\nratio ppbench / TurboJPEG: median %.3f (min %.3f, max %.3f over rounds); target <= 1.05: %s\n",
	       st.p50, st.min, st.max, st.p50 <= 1.05 ? "met" : "NOT met");
	if (bad)
		printf("(%zu decode failures)\n", bad);
	tjDestroy(tj);
	for (size_t i = 0; i < n; i++)
		free(f[i].p);
	free(f);
	free(dst);
	free(ratio);
	buf_free(&out);
	return 0;
}

/* Run `ppbench run ARGS --out DIR` as a child (its own process, as a user
 * would) and return its summary.json, or NULL. */
static json_t *run_child(const char *data, const char *const *args, const char *tmp, int k)
{
	char out[4200];
	snprintf(out, sizeof(out), "%s/r%d", tmp, k);
	const char *argv[64];
	int n = 0;
	argv[n++] = "ppbench";
	argv[n++] = "run";
	argv[n++] = "--data";
	argv[n++] = data;
	argv[n++] = "--out";
	argv[n++] = out;
	for (int i = 0; args[i] && n < 62; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		warn("bench: 'ppbench run' failed (%s ...)", args[0]);
		return NULL;
	}
	DIR *d = opendir(out);
	json_t *j = NULL;
	struct dirent *e;
	while (d && (e = readdir(d)) && !j) {
		if (e->d_name[0] == '.')
			continue;
		char path[4600];
		snprintf(path, sizeof(path), "%s/%s/summary.json", out, e->d_name);
		j = json_load_file(path, 0, NULL);
	}
	if (d)
		closedir(d);
	return j;
}

static double jnum(json_t *j, const char *a, const char *b)
{
	json_t *v = json_object_get(j, a);
	if (b)
		v = json_object_get(v, b);
	return json_number_value(v);
}

/* Section 3: tracing overhead, trace off and on, interleaved pairs. */
static void bench_trace(const struct bench_cfg *c, const char *data, const char *tmp)
{
	char nb[32];
	snprintf(nb, sizeof(nb), "%llu", (unsigned long long)c->loader_batches);
	const char *common[] = { "--workers", "2", "--batch", "64", "--gpu-step", "0", "--max-batches", nb,
				 "--trace", "off", NULL };
	double *ratio = calloc((size_t)c->repeats, sizeof(double));
	double sum_on = 0, sum_off = 0, ev_cost = 0, events = 0, images = 0, cpu = 0;
	int ok = 0;
	for (long r = 0; r < c->repeats; r++) {
		double e2e[2] = { 0, 0 };
		for (int side = 0; side < 2; side++) {
			int on = (side == 0) == (r % 2 == 0);
			common[9] = on ? "on" : "off";
			json_t *j = run_child(data, common, tmp, (int)(r * 2 + side) + 1000);
			if (j)
				e2e[on] = jnum(j, "e2e_s", NULL);
			if (j && on) {
				ev_cost = jnum(j, "trace", "cost_per_event_ns");
				events += jnum(j, "trace", "events");
				images += jnum(j, "images", NULL);
				cpu += jnum(j, "cpu", "workers_total_s");
			}
			json_decref(j);
		}
		if (e2e[0] > 0 && e2e[1] > 0) {
			ratio[ok++] = e2e[1] / e2e[0];
			sum_on += e2e[1];
			sum_off += e2e[0];
		}
	}
	struct stats st;
	stats_compute(ratio, (size_t)ok, &st);
	printf("\n## 3. tracing overhead: imagenet_train, 2 workers, batch 64, %s batches, GPU step 0, "
	       "trace off/on in %d interleaved pairs\n\n", nb, ok);
	printf("| trace | mean E2E s |\n|---|---:|\n| off | %.3f |\n| on | %.3f |\n",
	       ok ? sum_off / ok : 0, ok ? sum_on / ok : 0);
	printf("\nE2E on / off: median %.4f (min %.4f, max %.4f); overhead %+.2f %%; target <= +1 %%: %s\n",
	       st.p50, st.min, st.max, (st.p50 - 1) * 100, st.p50 <= 1.01 ? "met" : "NOT met");
	if (images > 0 && cpu > 0)
		printf("from the parts: %.1f trace events per image x %.2f ns per event (measured at start-up) "
		       "/ %.3f ms of worker CPU per image = %.4f %% of the work\n",
		       events / images, ev_cost, cpu / images * 1e3,
		       100.0 * events / images * ev_cost / (cpu / images * 1e9));
	free(ratio);
}

/* Section 4: pool efficiency (W = cores against W = 1 x cores) and per-worker memory. */
static void bench_pool(const struct bench_cfg *c, const char *data, const char *tmp)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char nb[32], w[32];
	snprintf(nb, sizeof(nb), "%llu", (unsigned long long)c->loader_batches);
	snprintf(w, sizeof(w), "%ld", ncpu);
	const char *args[] = { "--workers", "1", "--batch", "64", "--gpu-step", "0", "--max-batches", nb, NULL };
	double *eff = calloc((size_t)c->repeats, sizeof(double));
	double ips1 = 0, ipsn = 0, rss = 0, main_rss = 0;
	int ok = 0;
	for (long r = 0; r < c->repeats; r++) {
		double ips[2] = { 0, 0 };
		for (int side = 0; side < 2; side++) {
			int many = (side == 0) == (r % 2 == 0);
			args[1] = many ? w : "1";
			json_t *j = run_child(data, args, tmp, (int)(r * 2 + side) + 2000);
			if (j) {
				ips[many] = jnum(j, "images_per_s", NULL);
				if (many) {
					json_t *a = json_object_get(json_object_get(j, "memory"), "worker_max_rss_kib");
					size_t i;
					json_t *v;
					double m = 0;
					json_array_foreach(a, i, v)
						if (json_number_value(v) > m)
							m = json_number_value(v);
					if (m > rss)
						rss = m;
					double mm = jnum(j, "memory", "main_max_rss_kib");
					if (mm > main_rss)
						main_rss = mm;
				}
			}
			json_decref(j);
		}
		if (ips[0] > 0 && ips[1] > 0) {
			eff[ok++] = ips[1] / (ips[0] * (double)ncpu);
			ips1 += ips[0];
			ipsn += ips[1];
		}
	}
	struct stats st;
	stats_compute(eff, (size_t)ok, &st);
	printf("\n## 4. pool efficiency: imagenet_train, batch 64, %s batches, GPU step 0, W = 1 and W = %ld "
	       "(cores), %d interleaved pairs\n\n", nb, ncpu, ok);
	printf("| workers | images/s (mean) |\n|---:|---:|\n| 1 | %.1f |\n| %ld | %.1f |\n",
	       ok ? ips1 / ok : 0, ncpu, ok ? ipsn / ok : 0);
	printf("\nefficiency = images/s(W=%ld) / (%ld x images/s(W=1)): median %.3f (min %.3f, max %.3f); "
	       "target >= 0.90: %s\n", ncpu, ncpu, st.p50, st.min, st.max, st.p50 >= 0.90 ? "met" : "NOT met");
	printf("memory (process backend, W = %ld): largest worker max RSS %.0f MiB, main process %.0f MiB "
	       "(RSS counts the shared batch-slot pages a process touched)\n", ncpu, rss / 1024, main_rss / 1024);
	free(eff);
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
	if (opts_defaults(bench_opts, &c, err, sizeof(err)))
		die("%s", err);
	int rc = opts_parse(bench_opts, &c, argc, argv, 1, &npos, err, sizeof(err));
	if (rc == 1) {
		opts_help(bench_opts, stdout, usage,
			  "Speed and overhead benchmark: per-op times of a pipeline, and ppbench's decode\n"
			  "against libjpeg-turbo's own, measured side by side in one run.");
		return EXIT_OK;
	}
	if (rc || npos) {
		error("%s", rc ? err : "bench takes no arguments");
		return EXIT_USAGE;
	}
	if (!c.data) {
		if (dataset_ensure_default(path, sizeof(path), err, sizeof(err))) {
			error("%s", err);
			return EXIT_FAIL;
		}
		c.data = path;
	}
	struct dataset d;
	if (dataset_scan(&d, c.data, err, sizeof(err))) {
		error("%s", err);
		return EXIT_FAIL;
	}
	size_t n = d.n < c.images ? d.n : (size_t)c.images;
	struct utsname u;
	uname(&u);
	printf("# ppbench bench\n\ndataset %s (%zu of %zu images), kernel %s, clock %s (read cost %.1f ns)\n",
	       d.root, n, d.n, u.release, clock_source(), clock_read_cost_ns());
	if (has_section(c.sections, "ops"))
		bench_ops(&c, &d, n);
	if (has_section(c.sections, "decode"))
		bench_decode(&c, &d, n);
	if (has_section(c.sections, "trace") || has_section(c.sections, "pool")) {
		char tmp[] = "/tmp/ppbench-bench.XXXXXX";
		if (!mkdtemp(tmp))
			die("cannot create a temporary folder: %m");
		fflush(stdout);
		if (has_section(c.sections, "trace"))
			bench_trace(&c, c.data, tmp);
		if (has_section(c.sections, "pool"))
			bench_pool(&c, c.data, tmp);
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			warn("cannot remove %s", tmp);
	}
	if (has_section(c.sections, "model"))
		model_bench(stdout);
	dataset_release(&d);
	return EXIT_OK;
}
