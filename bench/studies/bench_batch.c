/* `make bench` sections "batch" and "chain" (issue 22).
 *
 * batch: the same images through `ppbench run` (one worker, no GPU step,
 * the run's other defaults: counters, checksum, pin memory) at each batch
 * size of --batch-sizes, in rounds that rotate which size goes first. Per
 * image: the process tree's CPU, the whole run's (the tree's with the main
 * process's set-up and teardown of the batch slots, which the tree's
 * leaves out), the harness's CPU (beside the pin copy),
 * the system time and the page faults after each worker's first batch.
 * CPU time, not wall time: it hardly moves with other load on the machine.
 * A per-image cost that grows with the batch biases the very sweep the
 * harness exists for: the section says whether the harness's is flat, on
 * the interval of its difference between the largest and smallest batch.
 *
 * chain: the chain's lower bound on this machine from parts measured here,
 * per image of the same images: their decode alone (TurboJPEG from memory,
 * the same bytes), the resampler's exact multiply floor for the crops the
 * runs draw, the tensor's bytes written once at this machine's write
 * bandwidth, and the pin copy (a batch copied as the pin thread copies
 * it); and ppbench's whole process tree per image at B = 128 against it.
 * All CPU times of this thread (one CPU clock read per part and round). */
#include <math.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <turbojpeg.h>
#include "bench_result.h"
#include "clock.h"
#include "decode.h"
#include "fsutil.h"
#include "imagefolder.h"
#include "log.h"
#include "metrics.h"
#include "pipeline.h"
#include "resample.h"
#include "rng.h"
#include "rrc.h"
#include "stats.h"

#define MAX_SIZES 8
#define CHAIN_B 128             /* the batch of the chain's comparison (issue 22's) */

/* The figures of one run, per image (NaN: not in its summary). The first
 * K_SHOWN are the table's columns; K_STEADY and K_PERRUN are made from the
 * others (run_figures). */
enum { K_TREE, K_RUN, K_STEADY, K_PERRUN, K_HARNESS, K_HSTEADY, K_PIN, K_SYS, K_FAULTS, K_DECODE_FAULTS,
       K_SHOWN, K_NOISE = K_SHOWN, K_WAFTER, K_MAIN, K_IMAGES, K_STARTUP, K_COUNTERS, K_CHECKSUM,
       K_HWORKERS, K_HMAIN, K_N };
static const char *const run_keys[K_N] = {
	[K_TREE] = "tree_cpu_per_image_ms", [K_RUN] = "run_cpu_per_image_ms", [K_HARNESS] = "harness_per_sample_us",
	[K_PIN] = "pin_copy_per_sample_us", [K_SYS] = "workers_sys_per_image_ms",
	[K_FAULTS] = "workers_faults_after_first_batch_per_image", [K_NOISE] = "others_cpu_pct",
	[K_WAFTER] = "workers_cpu_after_first_batch_per_image_ms", [K_MAIN] = "main_cpu_s",
	[K_IMAGES] = "images", [K_STARTUP] = "harness_startup_per_sample_us",
	[K_COUNTERS] = "harness_counters_per_sample_us", [K_CHECKSUM] = "harness_checksum_per_sample_us",
	[K_HWORKERS] = "harness_workers_per_sample_us", [K_HMAIN] = "harness_main_per_sample_us",
};

/* Per-run costs apart (issue 22): the steady CPU per image is the workers'
 * after their first batch (per sample processed then) plus the main
 * process's per image (its pin copies and batch handling: per batch, no
 * start-up in it); the per-run cost is what the process tree took beyond
 * the steady rate (the workers' start-up, the first batch's first touches,
 * their exit), the main process's set-up and teardown apart (K_RUN has
 * them). The harness in the steady state is the harness without the
 * workers' CPU outside their loops (start-up and exit). */
static void run_figures(json_t *j, double *v)
{
	for (int k = 0; k < K_N; k++)
		v[k] = j && run_keys[k] ? metric_from_json(metric_find(run_keys[k]), j) : NAN;
	v[K_DECODE_FAULTS] = j ? metric_json_get(j, "ops.decode.page_faults_per_call_after_first_batch")
			       : NAN;
	v[K_STEADY] = v[K_WAFTER] + v[K_MAIN] / v[K_IMAGES] * 1e3;
	v[K_PERRUN] = (v[K_TREE] - v[K_STEADY]) * v[K_IMAGES];
	v[K_HSTEADY] = v[K_HARNESS] - v[K_STARTUP];
}

/* The first touch of a collate buffer as PyTorch pays it, per image: each
 * batch is a new shared-memory tensor, so its pages are faulted in (and
 * cleared) when collate writes them, and unmapped once used. Measured here:
 * a new MAP_SHARED mapping of b tensors written once and unmapped, less the
 * same write into a mapping already populated (the copy itself is collate's
 * in both); CPU time of this thread (user + system). ppbench's slots are
 * reused, populated before the loop in every process: this cost is not in
 * its runs. */
static double first_touch_us(size_t b)
{
	size_t n = b * (size_t)3 * 224 * 224 * sizeof(float);
	void *warm = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE,
			  -1, 0);
	if (warm == MAP_FAILED)
		return NAN;
	uint64_t t0 = clock_thread_cpu_ns();
	memset(warm, 1, n);
	uint64_t t1 = clock_thread_cpu_ns();
	munmap(warm, n);
	uint64_t t2 = clock_thread_cpu_ns();
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NAN;
	memset(p, 1, n);
	munmap(p, n);
	uint64_t t3 = clock_thread_cpu_ns();
	return ((double)(t3 - t2) - (double)(t1 - t0)) / 1e3 / (double)b;
}

/* The batch sizes of list ("32,128,512"): their count (at most MAX_SIZES),
 * 0 when one is not a number in 1..65536. */
static int parse_sizes(const char *list, long *b)
{
	int n = 0;
	for (const char *p = list; *p;) {
		if (n == MAX_SIZES)
			return 0;
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 65536 || (*end && *end != ','))
			return 0;
		b[n++] = v;
		p = *end ? end + 1 : end;
	}
	return n;
}

/* How many images every size runs: a multiple of the largest size, so that
 * every run sees the same images (the first ones, --shuffle off), at least
 * 3 of its batches when the dataset has them. */
static size_t same_images(size_t have, long bmax)
{
	size_t k = have / (size_t)bmax;
	return (k ? k : 1) * (size_t)bmax;
}

int bench_batch_check(const char *sizes, char *err, size_t errlen)
{
	long b[MAX_SIZES];
	if (parse_sizes(sizes, b))
		return 0;
	errf(err, errlen, "--batch-sizes: '%s' is not a list of up to %d batch sizes (1..65536) "
	     "separated by commas, such as 32,128,512", sizes, MAX_SIZES);
	return -1;
}

/* The batch section's runs: the sizes (the smallest and largest by index),
 * the images every size runs, the rounds, and each run's figures. */
struct batch_runs {
	long b[MAX_SIZES];
	int nb, imin, imax;
	size_t n, R;
	double *v;     /* size x round x K_N */
	double *col;   /* R values of one figure */
};
#define V(m, i, r, k) ((m)->v[(((size_t)(i) * (m)->R) + (r)) * K_N + (k)])

/* One run of the section: the first n images (--shuffle off) at batch b,
 * one worker, no GPU step, trace off; its summary (NULL: failed). */
static json_t *batch_run(const struct bench_batch_cfg *c, long b, size_t n, int id)
{
	char bs[32], mb[32], ep[32];
	snprintf(bs, sizeof(bs), "%ld", b);
	snprintf(mb, sizeof(mb), "%zu", (n + (size_t)b - 1) / (size_t)b);
	snprintf(ep, sizeof(ep), "%zu", (n + c->images_have - 1) / c->images_have);
	const char *args[] = { "--workers", "1", "--batch", bs, "--gpu-step", "0", "--shuffle", "off",
			       "--max-batches", mb, "--epochs", ep, "--seed", "0", "--trace", "off", NULL };
	return bench_run_child(c->data, args, c->tmp, id);
}

/* Every size in every round as a run, rotating which size goes first. 0, or
 * -1 (bench_batch_check said why). */
static int batch_measure(const struct bench_batch_cfg *c, struct batch_runs *m)
{
	long *b = m->b;
	m->nb = parse_sizes(c->sizes, b);
	if (!m->nb)
		return -1;
	long bmax = b[0], bmin = b[0];
	m->imin = m->imax = 0;
	for (int i = 1; i < m->nb; i++) {
		if (b[i] < bmin)
			bmin = b[i], m->imin = i;
		if (b[i] > bmax)
			bmax = b[i], m->imax = i;
	}
	m->n = same_images(c->images_have, bmax);
	m->R = (size_t)c->repeats;
	m->v = calloc((size_t)m->nb * m->R * K_N, sizeof(double));
	m->col = calloc(m->R, sizeof(double));
	if (!m->v || !m->col)
		die("out of memory");
	for (size_t i = 0; i < (size_t)m->nb * m->R * K_N; i++)
		m->v[i] = NAN;
	for (size_t r = 0; r < m->R; r++)
		for (int q = 0; q < m->nb; q++) {
			int i = (q + (int)r) % m->nb;   /* rotate who goes first */
			json_t *j = batch_run(c, b[i], m->n, (int)(r * MAX_SIZES + (size_t)i) + 4000);
			run_figures(j, &V(m, i, r, 0));
			json_decref(j);
		}
	return 0;
}

/* The table: one row per size, the K_SHOWN figures; then the load. */
static void batch_table(const struct bench_batch_cfg *c, struct batch_runs *m,
			struct bench_result *res)
{
	size_t R = m->R;
	printf("\n## batch: the same %zu images at batch sizes %s, one worker, GPU step 0, trace off "
	       "(counters, checksum and pin memory as a run's defaults), %zu rounds rotating; CPU time\n\n",
	       m->n, c->sizes, R);
	static const char *const names[K_SHOWN] = {
		"process tree CPU ms per image",
		"whole run CPU ms per image (the tree's with the main process's set-up and teardown)",
		"steady CPU ms per image (after the first batch)",
		"per-run CPU ms in the loop (workers' start-up, first batch, exit)", "harness us per image",
		"harness us per image in the steady state (start-up apart)", "pin copy us per image",
		"workers' system ms per image", "workers' page faults per image after their first batch",
		"decode's page faults per call after the first batch" };
	static const char *const units[K_SHOWN] = { "ms", "ms", "ms", "ms", "us", "us", "us", "ms", "count", "count" };
	static const char *const fmts[K_SHOWN] = { "%.3f", "%.3f", "%.3f", "%.1f", "%.1f", "%.1f", "%.1f", "%.3f",
						   "%.2f", "%.2f" };
	printf("| batch |");
	for (int k = 0; k < K_SHOWN; k++)
		printf(" %s |", k == K_HARNESS ? "harness us per image (beyond the pin copy)" : names[k]);
	printf("\n|---:|");
	for (int k = 0; k < K_SHOWN; k++)
		printf("---:|");
	putchar('\n');
	double noise[MAX_SIZES * 64];
	size_t nn = 0;
	for (int i = 0; i < m->nb; i++) {
		printf("| %ld |", m->b[i]);
		for (int k = 0; k < K_SHOWN; k++) {
			char name[160], s[128];
			for (size_t r = 0; r < R; r++)
				m->col[r] = V(m, i, r, k);
			snprintf(name, sizeof(name), "B=%ld %s", m->b[i], names[k]);
			/* decode's faults after the first batch: issue 22's target */
			const struct bench_fig *f = bench_figure(res, "batch", name, units[k], m->col, R,
								 k == K_DECODE_FAULTS, 2, 1);
			if (f) {
				bench_fig_format(s, sizeof(s), f, fmts[k]);
				printf(" %s |", s);
			}
		}
		putchar('\n');
		for (size_t r = 0; r < R && nn < sizeof(noise) / sizeof(noise[0]); r++)
			noise[nn++] = V(m, i, r, K_NOISE);
	}
	putchar('\n');
	struct stats_summary ns;
	if (!stats_summarise(noise, nn, STATS_CI_LEVEL, &ns) && ns.n)
		printf("load: other processes took %.0f %% of the CPUs during the runs (median; min %.0f, "
		       "max %.0f; the noise guard's others_cpu_pct)\n", ns.median, ns.min, ns.max);
}

/* The collate buffer's first touch as PyTorch pays it: per batch, so per
 * image at every size; measured beside the runs, once per round and size;
 * then the steady ratio with it added. */
static void batch_first_touch(struct batch_runs *m, struct bench_result *res)
{
	size_t R = m->R;
	int nb = m->nb, imax = m->imax, imin = m->imin;
	char name[160];
	double *ft = calloc((size_t)nb * R, sizeof(double));
	if (!ft)
		die("out of memory");
	for (size_t r = 0; r < R; r++)
		for (int i = 0; i < nb; i++)
			ft[(size_t)i * R + r] = first_touch_us((size_t)m->b[i]);
	printf("the collate buffer's first touch, as PyTorch pays it (a new shared batch tensor per "
	       "batch; ppbench reuses its slots, populated before the loop, so its runs above do "
	       "not hold it), us per image:");
	for (int i = 0; i < nb; i++) {
		char s[128];
		snprintf(name, sizeof(name), "B=%ld collate buffer's first touch per batch, us per image",
			 m->b[i]);
		const struct bench_fig *f = bench_figure(res, "batch", name, "us", &ft[(size_t)i * R], R,
							 0, 0, 0);
		if (f) {
			bench_fig_format(s, sizeof(s), f, "%.1f");
			printf(" B=%ld %s%s", m->b[i], s, i + 1 < nb ? ";" : "\n");
		}
	}
	for (size_t r = 0; r < R; r++)
		m->col[r] = (V(m, imax, r, K_STEADY) + ft[(size_t)imax * R + r] / 1e3) /
			    (V(m, imin, r, K_STEADY) + ft[(size_t)imin * R + r] / 1e3);
	snprintf(name, sizeof(name), "steady CPU per image with that first touch added, B=%ld / B=%ld",
		 m->b[imax], m->b[imin]);
	bench_print_target(stdout, bench_figure(res, "batch", name, "ratio", m->col, R, 0, 0, 0), "%.3f");
	free(ft);
}

/* Figure k of the largest size over the smallest's, per round, judged
 * against 1.10. */
static void size_ratio(struct batch_runs *m, struct bench_result *res, int k, const char *what)
{
	char name[200];
	for (size_t r = 0; r < m->R; r++)
		m->col[r] = V(m, m->imax, r, k) / V(m, m->imin, r, k);
	snprintf(name, sizeof(name), "%s, B=%ld / B=%ld", what, m->b[m->imax], m->b[m->imin]);
	bench_print_target(stdout, bench_figure(res, "batch", name, "ratio", m->col, m->R, 1, 1.10, 1),
			   "%.3f");
}

/* With two sizes or more: the largest against the smallest (CPU per image,
 * steady CPU per image, with the first touch), and whether the harness's
 * cost per image is flat. */
static void batch_ratios(struct batch_runs *m, struct bench_result *res)
{
	size_t R = m->R;
	int imax = m->imax, imin = m->imin;
	long bmax = m->b[imax], bmin = m->b[imin];
	char name[160];
	size_ratio(m, res, K_TREE, "process tree CPU per image");
	size_ratio(m, res, K_RUN, "whole run CPU per image (with the main process's set-up and teardown)");
	size_ratio(m, res, K_STEADY, "steady CPU per image (per-run costs apart)");
	batch_first_touch(m, res);
	for (size_t r = 0; r < R; r++)
		m->col[r] = V(m, imax, r, K_HSTEADY) - V(m, imin, r, K_HSTEADY);
	snprintf(name, sizeof(name), "harness per image in the steady state (start-up apart), "
		 "B=%ld - B=%ld", bmax, bmin);
	const struct bench_fig *f = bench_figure(res, "batch", name, "us", m->col, R, 0, 0, 0);
	if (f) {
		char s[128];
		bench_fig_format(s, sizeof(s), f, "%.1f");
		int flat = f->s.lo <= 0 && f->s.hi >= 0;
		printf("%s: %s us: the harness's cost per image is %s\n", name, s,
		       !f->s.n ? "not known" : flat ? "flat (its interval holds 0)" :
		       f->s.lo > 0 ? "NOT flat: it grows with the batch" :
		       "NOT flat: it falls with the batch");
	}
}

/* What the defaults cost before the harness does anything else: the
 * counter reads around every op and the checksum of every sample, added per
 * round, against the same 20 us (a floor above it means the target cannot
 * be met with them on), and the rest of the harness beside it. Each part
 * is the run's own harness.* figure. */
static void batch_floor(struct batch_runs *m, struct bench_result *res)
{
	size_t R = m->R;
	char name[200];
	for (int i = 0; i < m->nb; i++) {
		for (size_t r = 0; r < R; r++)
			m->col[r] = V(m, i, r, K_COUNTERS) + V(m, i, r, K_CHECKSUM);
		snprintf(name, sizeof(name), "B=%ld harness floor with the defaults (counter reads + "
			 "checksum)", m->b[i]);
		bench_print_target(stdout, bench_figure(res, "batch", name, "us", m->col, R, 1, 20, 1),
				   "%.1f");
		snprintf(name, sizeof(name), "B=%ld harness beyond that floor (per-task work, main "
			 "process)", m->b[i]);
		for (size_t r = 0; r < R; r++)
			m->col[r] = V(m, i, r, K_HSTEADY) - m->col[r];
		bench_print_target(stdout, bench_figure(res, "batch", name, "us", m->col, R, 0, 0, 0),
				   "%.1f");
	}
	printf("(both stay on by default: the checksum proves identical tensors, the counters give "
	       "each op's page faults and time on a CPU; `--checksum off --counters none` leaves the "
	       "rest only)\n");
}

/* The harness beyond the pin copy at each size, in the steady state
 * (start-up apart): issue 22's 20 us; its parts, the largest first in the
 * order they are printed by `ppbench run` */
static void batch_parts(struct batch_runs *m, struct bench_result *res)
{
	size_t R = m->R;
	char name[160];
	printf("\nthe harness's parts, us per image (median over the rounds; `ppbench run` prints them "
	       "as harness.*):\n\n| batch | start-up (per run) | counters | checksum | workers' "
	       "per-task work | main process |\n|---:|---:|---:|---:|---:|---:|\n");
	static const int parts[] = { K_STARTUP, K_COUNTERS, K_CHECKSUM, K_HWORKERS, K_HMAIN };
	for (int i = 0; i < m->nb; i++) {
		printf("| %ld |", m->b[i]);
		for (size_t q = 0; q < sizeof(parts) / sizeof(parts[0]); q++) {
			struct stats_summary ps;
			for (size_t r = 0; r < R; r++)
				m->col[r] = V(m, i, r, parts[q]);
			if (!stats_summarise(m->col, R, STATS_CI_LEVEL, &ps) && ps.n)
				printf(" %.1f [%.1f, %.1f] |", ps.median, ps.lo, ps.hi);
			else
				printf(" not known |");
		}
		putchar('\n');
	}
	putchar('\n');
	for (int i = 0; i < m->nb; i++) {
		for (size_t r = 0; r < R; r++)
			m->col[r] = V(m, i, r, K_HSTEADY);
		snprintf(name, sizeof(name), "B=%ld harness us per image beyond the pin copy (start-up apart)",
			 m->b[i]);
		bench_print_target(stdout, bench_figure(res, "batch", name, "us", m->col, R, 1, 20, 1),
				   "%.1f");
	}
	batch_floor(m, res);
}

/* Decode's page faults once each worker has met every image once (its
 * buffers grown to the largest): ops.decode.page_faults_per_call_after_
 * first_epoch of runs over twice the section's images, which go on into a
 * second epoch, twice at each size. */
static void batch_second_epoch(const struct bench_batch_cfg *c, struct batch_runs *m,
			       struct bench_result *res)
{
	enum { PASSES = 2 };
	printf("decode's page faults per call in the second epoch (the buffers grown to the largest "
	       "images met; ops.decode.page_faults_per_call_after_first_epoch), %d runs over %zu "
	       "images at each size:", PASSES, 2 * m->n);
	for (int i = 0; i < m->nb; i++) {
		double v[PASSES];
		for (int p = 0; p < PASSES; p++) {
			json_t *j = batch_run(c, m->b[i], 2 * m->n, 4900 + i * PASSES + p);
			v[p] = j ? metric_json_get(j, "ops.decode.page_faults_per_call_after_first_epoch") : NAN;
			json_decref(j);
		}
		char name[160], s[128];
		snprintf(name, sizeof(name), "B=%ld decode's page faults per call in the second epoch",
			 m->b[i]);
		const struct bench_fig *f = bench_figure(res, "batch", name, "count", v, PASSES, 1, 2, 1);
		if (f) {
			bench_fig_format(s, sizeof(s), f, "%.2f");
			printf(" B=%ld %s, %s%s", m->b[i], s, bench_verdict_word(f->verdict),
			       i + 1 < m->nb ? ";" : "");
		}
	}
	printf(" (target <= 2)\n");
}

int bench_batch(const struct bench_batch_cfg *c, struct bench_result *res, struct bench_chain_in *out)
{
	struct batch_runs m;
	if (batch_measure(c, &m))
		return -1;   /* bench_batch_check said why */
	batch_table(c, &m, res);
	if (m.nb > 1)
		batch_ratios(&m, res);
	batch_parts(&m, res);
	batch_second_epoch(c, &m, res);
	/* the chain's runs: B = 128 if measured here */
	for (int i = 0; out && i < m.nb; i++)
		if (m.b[i] == CHAIN_B) {
			out->images = m.n;
			out->rounds = m.R;
			for (size_t r = 0; r < m.R && r < BENCH_CHAIN_MAX; r++)
				out->tree_ms[r] = V(&m, i, r, K_TREE);
		}
#undef V
	free(m.col);
	free(m.v);
	return 0;
}


/* ---- chain ----------------------------------------------------------------*/

struct jpeg_mem {
	unsigned char *p;
	unsigned long n;
	int w, h;
};

static uint64_t thread_cpu(void)
{
	return clock_thread_cpu_ns();
}

/* ppbench's chain, if the batch section did not run it: B = 128 runs. */
static void chain_runs(const struct bench_batch_cfg *c, size_t n, size_t rounds,
		       struct bench_chain_in *in)
{
	char mb[32];
	snprintf(mb, sizeof(mb), "%zu", (n + CHAIN_B - 1) / CHAIN_B);
	const char *args[] = { "--workers", "1", "--batch", "128", "--gpu-step", "0", "--shuffle",
			       "off", "--max-batches", mb, "--seed", "0", "--trace", "off", NULL };
	for (size_t r = 0; r < rounds && r < BENCH_CHAIN_MAX; r++) {
		json_t *j = bench_run_child(c->data, args, c->tmp, (int)r + 5000);
		double v[K_N];
		run_figures(j, v);
		in->tree_ms[r] = v[K_TREE];
		json_decref(j);
	}
	in->rounds = rounds < BENCH_CHAIN_MAX ? rounds : BENCH_CHAIN_MAX;
}

/* The parts of the chain: the first n files in memory (nj JPEGs), the
 * largest image, the multiply-adds of the crops the runs draw (--seed 0,
 * per-sample). */
struct chain_files {
	struct jpeg_mem *f;
	size_t n, nj, maxpx;
	double macs;
	tjhandle tj;
};

/* 0, or -1 (said on stderr). */
static int chain_load(const struct dataset *d, struct chain_files *cf)
{
	char err[512];
	struct pipeline p;
	if (pipeline_load(&p, "imagenet_train", err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	int rrc = pipeline_find(&p, "random_resized_crop");
	struct jpeg_mem *f = cf->f = calloc(cf->n, sizeof(*f));
	cf->tj = tjInitDecompress();
	if (!f || !cf->tj || rrc < 0)
		die("out of memory");
	cf->nj = cf->maxpx = 0;
	cf->macs = 0;
	struct rng rg;
	struct scratch scr = { 0 };
	struct sample s;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < cf->n; i++) {
		struct buf fb = { 0 };
		size_t len;
		int ss, cs;
		if (decode_read_file(d->items[i].path, 0, &fb, &len, err, sizeof(err)) ||
		    tjDecompressHeader3(cf->tj, fb.p, (unsigned long)len, &f[i].w, &f[i].h, &ss, &cs)) {
			buf_free(&fb);
			continue;
		}
		f[i].p = fb.p;
		f[i].n = (unsigned long)len;
		cf->nj++;
		if ((size_t)f[i].w * (size_t)f[i].h > cf->maxpx)
			cf->maxpx = (size_t)f[i].w * (size_t)f[i].h;
		int box[4];
		sample_setup(&s, d->items[i].path, d->items[i].label, i, &rg, &scr, 0, 0);
		rng_seed(&rg, rng_sample_seed(0, 0, i));
		if (!rrc_op_box(p.op[rrc].cfg, &s, f[i].w, f[i].h, box))
			cf->macs += (double)resample_macs(box[3], box[2], 224, 224);
	}
	scratch_release(&scr);
	pipeline_release(&p);
	return 0;
}

enum { P_DECODE, P_RESAMPLE, P_TENSOR, P_PIN, P_BOUND, P_CHAIN, P_RATIO, P_N };
#define V(k, r) v[(size_t)(k) * R + (r)]

/* Each part per image in every round, into v (P_N x R); the decodes that
 * ended with a TurboJPEG warning or error. */
static size_t chain_measure(const struct chain_files *cf, const struct bench_chain_in *in,
			    double *v)
{
	size_t R = in->rounds, bad = 0;
	const struct jpeg_mem *f = cf->f;
	size_t tensor = (size_t)3 * 224 * 224 * sizeof(float), batch = tensor * CHAIN_B;
	unsigned char *dst = malloc(cf->maxpx * 4 + 1), *ba = malloc(batch), *bb = malloc(batch);
	if (!dst || !ba || !bb)
		die("out of memory");
	memset(ba, 1, batch);
	memset(bb, 2, batch);
	for (size_t r = 0; r < R; r++) {
		uint64_t t0 = thread_cpu();
		for (size_t i = 0; i < cf->n; i++)
			if (f[i].p && tjDecompress2(cf->tj, f[i].p, f[i].n, dst, f[i].w, 0, f[i].h,
						    TJPF_RGB, 0))
				bad++;
		V(P_DECODE, r) = (double)(thread_cpu() - t0) / 1e6 / (double)cf->nj;
		/* the exact multiply floor: taps x channels at the best exact
		 * instruction mix of this CPU's kernels (bench_bounds.c) */
		V(P_RESAMPLE, r) = cf->macs / (double)cf->nj / bench_resample_peak_per_ns() / 1e6;
		t0 = thread_cpu();
		memset(ba, (int)r, batch);
		V(P_TENSOR, r) = (double)(thread_cpu() - t0) / 1e6 / CHAIN_B;
		t0 = thread_cpu();
		memcpy(bb, ba, batch);
		V(P_PIN, r) = (double)(thread_cpu() - t0) / 1e6 / CHAIN_B;
		V(P_BOUND, r) = V(P_DECODE, r) + V(P_RESAMPLE, r) + V(P_TENSOR, r) + V(P_PIN, r);
		V(P_CHAIN, r) = in->tree_ms[r];
		V(P_RATIO, r) = V(P_CHAIN, r) / V(P_BOUND, r);
	}
	free(dst);
	free(ba);
	free(bb);
	return bad;
}

/* The table of the parts and ppbench against their sum. */
static void chain_rows(const struct chain_files *cf, size_t R, const double *v, size_t bad,
		       struct bench_result *res)
{
	printf("\n## chain: the chain's lower bound from parts measured here, per image of the same "
	       "%zu images (%zu JPEGs), %zu rounds; CPU time of this thread\n\n", cf->n, cf->nj, R);
	static const char *const label[P_N] = {
		"decode alone (TurboJPEG from memory, the same bytes)",
		"resampler's exact multiply floor (its crops' multiply-adds x 2 at the pmaddwd peak)",
		"tensor bytes written once (a batch of float32 tensors at this machine's write bandwidth)",
		"pin copy (a batch copied once)",
		"lower bound: their sum",
		"ppbench: the process tree per image (ppbench run, one worker, B=128)",
		NULL };
	printf("| part | ms per image |\n|---|---:|\n");
	for (int k = 0; k < P_RATIO; k++) {
		char s[128];
		const struct bench_fig *g = bench_figure(res, "chain", label[k], "ms", &V(k, 0), R, 0, 0, 0);
		if (g) {
			bench_fig_format(s, sizeof(s), g, k == P_RESAMPLE ? "%.4f" : "%.3f");
			printf("| %s | %s |\n", label[k], s);
		}
	}
	putchar('\n');
	bench_print_target(stdout, bench_figure(res, "chain", "ppbench / the chain's lower bound", "ratio",
						&V(P_RATIO, 0), R, 1, 1.25, 1), "%.3f");
	if (bad)
		printf("(%zu of the decodes ended with a TurboJPEG warning or error)\n", bad);
}
#undef V

int bench_chain(const struct bench_batch_cfg *c, const struct dataset *d, size_t rounds,
		struct bench_result *res, struct bench_chain_in *in)
{
	struct chain_files cf = { 0 };
	cf.n = in->images ? in->images : same_images(c->images_have, CHAIN_B);
	if (cf.n > d->n)
		cf.n = d->n;
	if (!in->rounds)
		chain_runs(c, cf.n, rounds, in);
	if (chain_load(d, &cf))
		return -1;
	size_t R = in->rounds;
	double *v = calloc((size_t)P_N * R, sizeof(double));
	if (!v)
		die("out of memory");
	size_t bad = chain_measure(&cf, in, v);
	chain_rows(&cf, R, v, bad, res);
	for (size_t i = 0; i < cf.n; i++)
		free(cf.f[i].p);
	free(cf.f);
	free(v);
	tjDestroy(cf.tj);
	return 0;
}
