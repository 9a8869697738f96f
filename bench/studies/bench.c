/* ppbench bench's sections (bench_result.h): the pipeline op by op, the
 * kernels, the fused what-if, decode against libjpeg-turbo, tracing
 * overhead, pool efficiency, the harness alone (runs as children), and the
 * results folder. The command: cli/cmd_bench.c; batch and chain:
 * bench_batch.c; bounds: bench_bounds.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <jansson.h>
#include <turbojpeg.h>
#include <sys/stat.h>
#include "bench_result.h"
#include "fsutil.h"
#include "clock.h"
#include "decode.h"
#include "describe.h"
#include "imagefolder.h"
#include "kernels.h"
#include "log.h"
#include "subprocess.h"
#include "machine.h"
#include "metrics.h"
#include "noise.h"
#include "pipeline.h"
#include "stats.h"
#include "whatif.h"

struct file_mem {
	unsigned char *p;
	size_t n;
	int is_jpeg;
};

static int read_file(const char *path, struct file_mem *f)
{
	char why[256];
	struct stat st;
	int fd = open_regular(path, &st, why, sizeof(why));
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "rb");
	if (!fp) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	f->p = malloc(n > 0 ? (size_t)n : 1);
	f->n = f->p && n > 0 ? fread(f->p, 1, (size_t)n, fp) : 0;
	fclose(fp);
	f->is_jpeg = f->n > 3 && f->p[0] == 0xFF && f->p[1] == 0xD8 && f->p[2] == 0xFF;
	return f->n == (size_t)n ? 0 : -1;
}

/* The share of the work after decode in decode's time: the ops after the
 * first (the decode) against the first. */
static double after_decode_ratio(const struct pipeline *p, const struct ops_pass *a)
{
	double after = 0;
	for (int i = 1; i < p->nops; i++)
		after += a->ms[i];
	return after / a->ms[0];
}

/* Section 1: the pipeline op by op, single-threaded, files from the page
 * cache, `rounds` passes: each op's mean per image is a median over the
 * passes with its interval. */
int bench_ops(const struct bench_cfg *c, const struct dataset *d, size_t n,
	      struct bench_result *res)
{
	char err[512], name[128], v[160];
	struct pipeline p;
	if (pipeline_load(&p, c->pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	size_t R = (size_t)c->rounds;
	double *ms = calloc((size_t)p.nops * R, sizeof(double)), *ratio = calloc(R, sizeof(double));
	double *ips = calloc(R, sizeof(double));
	struct ops_ws w;
	if (!ms || !ratio || !ips)
		die("out of memory");
	ops_ws_init(&w, c->batch_size);
	struct ops_pass a;
	size_t failed = 0;
	for (size_t r = 0; r < R; r++) {
		ops_pass(&p, d, n, &w, &a);
		double sum = 0;
		for (int i = 0; i < p.nops; i++) {
			ms[(size_t)i * R + r] = a.ms[i];
			sum += a.ms[i];
		}
		ips[r] = 1e3 / sum;
		ratio[r] = after_decode_ratio(&p, &a);
		failed = a.failed;
	}
	printf("\n## 1. pipeline '%s' op by op, single-threaded (%zu images, %zu failed, batch %zu, "
	       "%zu passes)\n\n", p.name, n - failed, failed, c->batch_size, R);
	printf("| op | mean ms per image: median over passes [interval] |\n|---|---:|\n");
	for (int i = 0; i < p.nops; i++) {
		snprintf(name, sizeof(name), "%s ms per image%s", p.op[i].ops->name,
			 i == p.batch_op ? " (batch time / batch size)" : "");
		const struct bench_fig *f = bench_figure(res, "ops", name, "ms", &ms[(size_t)i * R], R,
							 0, 0, 0);
		if (f) {
			bench_fig_format(v, sizeof(v), f, "%.4f");
			printf("| %s | %s |\n", p.op[i].ops->name, v);
		}
	}
	const struct bench_fig *f = bench_figure(res, "ops", "all ops images/s (1 / sum of means)",
						 "images/s", ips, R, 0, 0, 0);
	if (f) {
		bench_fig_format(v, sizeof(v), f, "%.0f");
		printf("| all ops (images/s) | %s |\n\n", v);
	}
	bench_print_target(stdout, bench_figure(res, "ops", "work after decode / decode", "ratio", ratio,
						R, 1, 0.30, 1), "%.3f");
	ops_ws_release(&w);
	free(ms);
	free(ratio);
	free(ips);
	pipeline_release(&p);
	return 0;
}

/* Section "kernels": the pipeline's work after decode with each kernel
 * the CPU runs, pass by pass in rotating order over the same images: the
 * time per image of the ops after decode, and each kernel against sse2. */
int bench_kernels(const struct bench_cfg *c, const struct dataset *d, size_t n,
		  struct bench_result *res)
{
	char err[512], v[160], name[96];
	struct pipeline p;
	if (pipeline_load(&p, c->pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	int ids[KERNEL_COUNT], nk = 0;
	for (int id = 0; id < KERNEL_COUNT; id++)
		if (kernels_supported((enum kernel_id)id, NULL))
			ids[nk++] = id;
	size_t R = (size_t)c->rounds;
	double *ms = calloc((size_t)KERNEL_COUNT * R, sizeof(double)), *ratio = calloc(R, sizeof(double));
	uint64_t sum[KERNEL_COUNT] = { 0 };
	if (!ms || !ratio)
		die("out of memory");
	const struct kernels *was = kernels_active();
	char was_by[64];
	snprintf(was_by, sizeof(was_by), "%s", kernels_chosen_by());
	struct ops_ws w;
	ops_ws_init(&w, c->batch_size);
	struct ops_pass a;
	for (size_t r = 0; r < R; r++)
		for (int q = 0; q < nk; q++) {
			int id = ids[(q + (int)r) % nk];   /* rotate who goes first */
			if (kernels_use(kernels_of((enum kernel_id)id)->name, err, sizeof(err)))
				die("%s", err);
			ops_pass(&p, d, n, &w, &a);
			double after = 0;
			for (int i = 1; i < p.nops; i++)
				after += a.ms[i];
			ms[(size_t)id * R + r] = after;
			sum[id] = a.checksum;
		}
	kernels_restore(was, was_by);
	printf("\n## kernels: the work after decode of '%s' with each kernel, %zu images, %zu passes each, "
	       "rotating\n\n| kernel | ms per image after decode |\n|---|---:|\n", p.name, n, R);
	for (int q = 0; q < nk; q++) {
		snprintf(name, sizeof(name), "work after decode ms per image, kernel %s",
			 kernels_of((enum kernel_id)ids[q])->name);
		const struct bench_fig *f = bench_figure(res, "kernels", name, "ms", &ms[(size_t)ids[q] * R],
							 R, 0, 0, 0);
		if (f) {
			bench_fig_format(v, sizeof(v), f, "%.4f");
			printf("| %s | %s |\n", kernels_of((enum kernel_id)ids[q])->name, v);
		}
	}
	putchar('\n');
	int same = 1;
	for (int q = 1; q < nk; q++) {
		for (size_t r = 0; r < R; r++)
			ratio[r] = ms[(size_t)ids[q] * R + r] / ms[r];
		snprintf(name, sizeof(name), "work after decode %s / sse2", kernels_of((enum kernel_id)ids[q])->name);
		bench_print_target(stdout, bench_figure(res, "kernels", name, "ratio", ratio, R, 0, 0, 0), "%.3f");
		if (sum[ids[q]] != sum[0]) {
			printf("THE TENSORS DIFFER between %s and sse2\n", kernels_of((enum kernel_id)ids[q])->name);
			same = 0;
		}
	}
	printf("checksums: %s\n", nk == 1 ? "one kernel only" : same ? "identical with every kernel" :
	       "THE TENSORS DIFFER");
	ops_ws_release(&w);
	free(ms);
	free(ratio);
	pipeline_release(&p);
	return 0;
}

/* Section "fused": the faithful pipeline and its fused what-if (decode +
 * random_resized_crop as one op decoding only the crop), pass by pass in
 * alternating order over the same images with the same seeds: images/s of
 * each, their ratio per round, and the checksums, which must agree. */
int bench_fused(const struct bench_cfg *c, const struct dataset *d, size_t n,
		struct bench_result *res)
{
	char err[512], v[160], name[96];
	struct whatif w;
	if (whatif_measure(c->pipeline, c->fused, d, n, (size_t)c->rounds, c->batch_size, &w, err,
			   sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	size_t R = w.rounds;
	const char *names[2] = { w.faithful, w.fused };
	printf("\n## fused what-if: '%s' against '%s' (decode + random_resized_crop as one op that "
	       "decodes only the crop), single-threaded, %zu images, %zu passes each, alternating\n\n",
	       w.fused, w.faithful, n, R);
	printf("| pipeline | images/s (1 / sum of op means) |\n|---|---:|\n");
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "%.64s images/s", names[k]);
		const struct bench_fig *f = bench_figure(res, "fused", name, "images/s", w.ips[k], R, 0, 0, 0);
		if (f) {
			bench_fig_format(v, sizeof(v), f, "%.0f");
			printf("| %s | %s |\n", names[k], v);
		}
	}
	printf("\nchecksums: faithful %016llx, fused %016llx: %s\n", (unsigned long long)w.checksum[0],
	       (unsigned long long)w.checksum[1], w.identical ? "identical tensors" : "THE TENSORS DIFFER");
	printf("fused: %llu images decoded by region, %llu in full in each pass (PNG, no EOI, or a "
	       "failed region decode)\n", (unsigned long long)w.regions, (unsigned long long)w.full);
	double same = w.identical;
	bench_figure(res, "fused", "fused tensors identical to faithful (1 yes 0 no)", "bool", &same, 1,
		     1, 1, 0);
	bench_print_target(stdout, bench_figure(res, "fused", "(decode + random_resized_crop ms) / fused op ms",
						"ratio", w.front, R, 0, 0, 0), "%.3f");
	bench_print_target(stdout, bench_figure(res, "fused", "fused / faithful images/s", "ratio", w.ratio, R,
						1, 1.6, 0), "%.3f");
	whatif_release(&w);
	return 0;
}

/* Section 2: ppbench's decode against TurboJPEG's tjDecompress2 on the same
 * in-memory files, interleaved round by round. */
int bench_decode(const struct bench_cfg *c, const struct dataset *d, size_t n,
		 struct bench_result *res)
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
	printf("\n## 2. decode: ppbench decode_image_mem vs TurboJPEG tjDecompress2 (%zu colour JPEGs "
	       "in memory, %ld interleaved rounds)\n\n", nj, c->rounds);
	printf("| decoder | ms per image | images/s |\n|---|---:|---:|\n");
	double per = (double)(c->rounds) * (double)nj;
	printf("| ppbench decode | %.3f | %.0f |\n", (double)ours / 1e6 / per, per * 1e9 / (double)ours);
	printf("| tjDecompress2 | %.3f | %.0f |\n", (double)theirs / 1e6 / per, per * 1e9 / (double)theirs);
	putchar('\n');
	bench_print_target(stdout, bench_figure(res, "decode", "decode ppbench / TurboJPEG", "ratio", ratio,
						(size_t)c->rounds, 1, 1.05, 1), "%.3f");
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

json_t *bench_run_child(const char *data, const char *const *args, const char *tmp, int k)
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
	/* room for the args, then the NULL */
	for (int i = 0; args[i] && n < (int)(sizeof(argv) / sizeof(argv[0])) - 2; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	struct spawn sp = SPAWN_INIT;
	sp.exe = "/proc/self/exe";
	sp.argv = (char *const *)argv;
	sp.out = sp.err = SPAWN_NULL;
	pid_t pid = spawn_start(&sp);
	if (pid < 0)
		return NULL;
	int st;
	if (spawn_wait(pid, &st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		warn_msg("bench: 'ppbench run' failed (%s ...)", args[0]);
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
		j = json_load_regular(path, NULL, 0);
	}
	if (d)
		closedir(d);
	return j;
}

/* j's number a (or a.b), 0 when absent: a figure of a run that went wrong */
static double num_or_zero(json_t *j, const char *a, const char *b)
{
	json_t *v = json_object_get(j, a);
	if (b)
		v = json_object_get(v, b);
	return json_number_value(v);
}

/* Section 3: tracing overhead, trace off and on, interleaved pairs. */
void bench_trace(const struct bench_cfg *c, const char *data, const char *tmp,
		 struct bench_result *res)
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
			json_t *j = bench_run_child(data, common, tmp, (int)(r * 2 + side) + 1000);
			if (j)
				e2e[on] = num_or_zero(j, "e2e_s", NULL);
			if (j && on) {
				ev_cost = num_or_zero(j, "trace", "cost_per_event_ns");
				events += num_or_zero(j, "trace", "events");
				images += num_or_zero(j, "images", NULL);
				cpu += num_or_zero(j, "cpu", "workers_total_s");
			}
			json_decref(j);
		}
		if (e2e[0] > 0 && e2e[1] > 0) {
			ratio[ok++] = e2e[1] / e2e[0];
			sum_on += e2e[1];
			sum_off += e2e[0];
		}
	}
	printf("\n## 3. tracing overhead: imagenet_train, 2 workers, batch 64, %s batches, GPU step 0, "
	       "trace off/on in %d interleaved pairs\n\n", nb, ok);
	printf("| trace | mean E2E s |\n|---|---:|\n| off | %.3f |\n| on | %.3f |\n",
	       ok ? sum_off / ok : 0, ok ? sum_on / ok : 0);
	putchar('\n');
	bench_print_target(stdout, bench_figure(res, "trace", "E2E trace on / off", "ratio", ratio,
						(size_t)ok, 1, 1.01, 1), "%.4f");
	if (images > 0 && cpu > 0)
		printf("from the parts: %.1f trace events per image x %.2f ns per event (measured at start-up) "
		       "/ %.3f ms of worker CPU per image = %.4f %% of the work\n",
		       events / images, ev_cost, cpu / images * 1e3,
		       100.0 * events / images * ev_cost / (cpu / images * 1e9));
	free(ratio);
}

/* Section 4: pool efficiency (W = cores against W = 1 x cores) and per-worker memory. */
void bench_pool(const struct bench_cfg *c, const char *data, const char *tmp,
		struct bench_result *res)
{
	struct cpus cp;
	cpus_read(&cp);
	long ncpu = cpus_usable_int(&cp);   /* the CPUs this process may use */
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
			json_t *j = bench_run_child(data, args, tmp, (int)(r * 2 + side) + 2000);
			if (j) {
				ips[many] = num_or_zero(j, "images_per_s", NULL);
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
					double mm = num_or_zero(j, "memory", "main_max_rss_kib");
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
	printf("\n## 4. pool efficiency: imagenet_train, batch 64, %s batches, GPU step 0, W = 1 and W = %ld "
	       "(cores), %d interleaved pairs\n\n", nb, ncpu, ok);
	printf("| workers | images/s (mean) |\n|---:|---:|\n| 1 | %.1f |\n| %ld | %.1f |\n",
	       ok ? ips1 / ok : 0, ncpu, ok ? ipsn / ok : 0);
	char name[96];
	snprintf(name, sizeof(name), "pool efficiency images/s(W=%ld) / (%ld x images/s(W=1))", ncpu, ncpu);
	putchar('\n');
	bench_print_target(stdout, bench_figure(res, "pool", name, "ratio", eff, (size_t)ok, 1, 0.90, 0),
			   "%.3f");
	printf("memory (process backend, W = %ld): largest worker max RSS %.0f MiB, main process %.0f MiB "
	       "(RSS counts the shared batch-slot pages a process touched)\n", ncpu, rss / 1024, main_rss / 1024);
	free(eff);
}

/* Section "harness": the null pipeline (nothing per sample) on 2 workers,
 * `repeats` runs: the loader's own rate, a regression check (issue 14:
 * 0.5-0.7 M samples/s on 2 workers, about 2 us per sample). */
void bench_harness(const struct bench_cfg *c, const char *data, const char *tmp,
		   struct bench_result *res)
{
	const char *args[] = { "--pipeline", "null", "--workers", "2", "--batch", "64", "--epochs", "1000",
			       "--max-batches", "3000", "--gpu-step", "0", "--trace", "off", NULL };
	/* per run: samples/s, wall us per sample, then the runs' own harness
	 * figures per sample (summary.json "harness": NaN when absent) */
	static const char *const keys[] = { "harness_workers_per_sample_us",
					     "harness_main_per_sample_us", "harness_per_sample_us",
					     "pipeline_per_sample_us" };
	static const char *const names[] = { "harness per sample: workers (the run's own figure)",
					      "harness per sample: main process (the run's own figure)",
					      "harness per sample (the run's own figure)",
					      "pipeline per sample (the null op)" };
	enum { NK = sizeof(keys) / sizeof(keys[0]) };
	double *v[2 + NK];
	for (int k = 0; k < 2 + NK; k++)
		if (!(v[k] = calloc((size_t)c->repeats, sizeof(double))))
			die("out of memory");
	int ok = 0;
	for (long r = 0; r < c->repeats; r++) {
		json_t *j = bench_run_child(data, args, tmp, (int)r + 3000);
		double ips = j ? num_or_zero(j, "images_per_s", NULL) : 0;
		if (ips > 0) {
			v[0][ok] = ips;
			v[1][ok] = 1e6 / ips;
			for (int k = 0; k < NK; k++)
				v[2 + k][ok] = metric_from_json(metric_find(keys[k]), j);
			ok++;
		}
		json_decref(j);
	}
	printf("\n## harness: the null pipeline, 2 workers, batch 64, 3000 batches, GPU step 0, trace off, "
	       "%d runs\n\n", ok);
	bench_print_target(stdout, bench_figure(res, "harness", "null pipeline samples/s (2 workers)",
						"samples/s", v[0], (size_t)ok, 1, 500000, 0), "%.0f");
	bench_print_target(stdout, bench_figure(res, "harness", "harness wall time per sample",
						"us", v[1], (size_t)ok, 0, 0, 0), "%.2f");
	for (int k = 0; k < NK; k++)
		bench_print_target(stdout, bench_figure(res, "harness", names[k], "us", v[2 + k],
							(size_t)ok, 0, 0, 0), "%.3f");
	printf("(the run's own figures add up the time each process spends in the harness, summed "
	       "over the workers: docs/metrics.md, harness.*)\n");
	for (int k = 0; k < 2 + NK; k++)
		free(v[k]);
}

/* The results folder: every figure, and what it was measured on. */
int bench_write(const struct bench_result *res, const struct bench_cfg *c,
		const struct dataset *d, size_t n, const struct noise *nz, int argc,
		char **argv, const char *dir, char *err, size_t errlen)
{
	json_t *doc = json_object();
	char cmd[2048] = "ppbench";
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(cmd);
		snprintf(cmd + l, sizeof(cmd) - l, " %s", argv[i]);
	}
	json_object_set_new(doc, "kind", json_string("bench"));
	json_object_set_new(doc, "command", json_string(cmd));
	json_t *dj = dataset_json(d);
	json_object_set_new(dj, "images_used", json_integer((json_int_t)n));
	json_object_set_new(doc, "dataset", dj);
	json_object_set_new(doc, "pipeline", json_string(c->pipeline));
	json_object_set_new(doc, "sections", json_string(c->sections));
	json_object_set_new(doc, "rounds", json_integer(c->rounds));
	json_object_set_new(doc, "repeats", json_integer(c->repeats));
	json_object_set_new(doc, "machine", machine_json());
	json_object_set_new(doc, "kernels", json_pack("{s:s, s:s}", "active", kernels_active()->name,
						     "chosen_by", kernels_chosen_by()));
	json_t *nj = noise_json(nz);
	json_object_set_new(nj, "others_cpu_pct", isfinite(nz->others_cpu_pct) ?
			    json_real(nz->others_cpu_pct) : json_null());
	json_object_set_new(nj, "steal_pct", isfinite(nz->steal_pct) ? json_real(nz->steal_pct) : json_null());
	json_object_set_new(nj, "load1", json_real(nz->load1));
	json_object_set_new(nj, "wall_s", json_real(nz->wall_s));
	json_object_set_new(doc, "noise", nj);
	int rc = bench_result_write(res, dir, doc, err, errlen);
	json_decref(doc);
	return rc;
}
