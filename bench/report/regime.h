/* The paper's regime on this machine (make reproduce, `ppbench regime`).
 *
 * The Lotus study's findings 2-4 are about a machine that is preprocessing-
 * bound: its chain cost about 6.9 ms of CPU per image (Table II) against a
 * V100 step of 0.05-0.12 ms of GPU time per image. A machine whose chain is
 * four times cheaper, fed the paper's step, runs four times further from
 * preprocessing-bound, and load moves it back: its verdicts then depend on
 * the load. So make reproduce probes this machine's CPU time per image (one
 * thread, ops_cpu_probe), and scales the simulated GPU step by the probe
 * over the paper's cost (run --gpu-step-scale): GPU time over
 * preprocessing time per image is then the paper's.
 *
 * The paper's worker sweep (Fig. 6) ran 8..28 workers on 32 hardware
 * threads: a quarter to seven eighths of them. The worker grid here is the
 * same fractions of the CPUs the runs may use (rounded, at least 1), and at
 * least the 3 worker counts the knee rule needs.
 *
 * regime.json (in the make reproduce folder) keeps the probe, the factor,
 * the grid and how it was scaled; the report states them beside the
 * verdicts (report_regime_notes). */
#ifndef PPBENCH_REGIME_H
#define PPBENCH_REGIME_H

#include <stddef.h>

struct json_t;
struct sweep;
struct finding;
struct doc;

/* The paper's machine: 2 x Xeon E5-2667 v4, 16 cores, 32 hardware threads
 * (datasets/reference/lotus/figures/README.md). */
#define REGIME_PAPER_THREADS 32
/* The knee rule needs at least this many worker counts (REPORT_RULE_DIMINISHING). */
#define REGIME_MIN_WORKER_COUNTS 3
#define REGIME_MAX_WORKERS 64

struct regime {
	char pipeline[64];
	double probe_ms;               /* this machine's CPU ms per image: the median of the rounds */
	double probe_lo, probe_hi;     /* its interval (95 % from 6 rounds, else min-max) */
	int probe_ci;                  /* the interval is a 95 % one */
	int probe_rounds;              /* 0: given (--probe-ms), not measured */
	int probe_images;
	double paper_ms;               /* Table II: the per-sample ops' means + collation per image */
	double scale;                  /* probe_ms / paper_ms: the GPU step's factor */
	double ratio_lo, ratio_hi;     /* the paper's GPU over preprocessing time per image, over
					  its configurations (Figs. 4-6) */
	int cpus;                      /* CPUs the runs may use */
	int paper_w[REGIME_MAX_WORKERS];
	size_t npaper_w;
	int w[REGIME_MAX_WORKERS];     /* the worker grid here */
	size_t nw;
	int extended;                  /* worker counts added past the scaled grid (to reach 3) */
};

/* The worker grid for cpus CPUs from the paper's grid pw[0..np) on its
 * REGIME_PAPER_THREADS threads: each W x cpus / 32, rounded, at least 1,
 * without repeats; then W + 1 past the largest until there are
 * REGIME_MIN_WORKER_COUNTS (*extended: how many). Returns the count (w has
 * room for REGIME_MAX_WORKERS). */
size_t regime_workers(int cpus, const int *pw, size_t np, int *w, int *extended);

/* Fill r from the probe (ms per image, its interval and rounds; rounds 0: a
 * given figure), the CPUs and the reference tables under top (the
 * repository, find_top). 0, or -1 with err. */
int regime_make(struct regime *r, const char *top, const char *pipeline, double probe_ms,
		double lo, double hi, int ci, int rounds, int images, int cpus, char *err,
		size_t errlen);

/* As regime.json keeps it (new reference), and back. 0, or -1. */
struct json_t *regime_json(const struct regime *r);
int regime_from_json(struct json_t *j, struct regime *r);

/* Sentences for people, into out: the probe and the factor ("the simulated
 * GPU step x 0.236: ..."); the worker grid and how it was scaled; the
 * workers as a list ("1 2 3"). */
void regime_step_text(const struct regime *r, char *out, size_t n);
void regime_grid_text(const struct regime *r, char *out, size_t n);
void regime_workers_list(const struct regime *r, char *out, size_t n);

/* The report of a make reproduce folder: regime.json found in s->dir or
 * the parent of its first sweep (0), else -1 (a sweep run without it). */
int report_regime_load(const struct sweep *s, struct regime *r);
/* Beside the verdicts of findings 2-4 (fd[1..3]): the regime the runs
 * stood in, as planned and as the noise guard saw it. Nothing without
 * regime.json. */
void report_regime_notes(const struct sweep *s, struct finding *fd, size_t nf);
/* The report's paragraph on the regime (nothing without regime.json). */
void report_regime_section(struct doc *d, const struct sweep *s);

#endif
