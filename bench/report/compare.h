/* ppbench compare: one configuration through ppbench and through the real
 * PyTorch DataLoader with torchvision (scripts/torch_side.py, run with
 * Debian's /usr/bin/python3), measured by the same code.
 *
 * A compare folder, OUT/<UTC time>-compare-<tag>/, holds
 *   ppbench/     the `ppbench run` results folder (summary.json, batches.csv,
 *                ops.csv, lotustrace/b<B>_gpu<G>/, trace.json) of repeat 1
 *   pytorch/     config.json (what the PyTorch side was asked to run),
 *                run.json (what it measured that is not an event: E2E window,
 *                images, rusage of the main process and of every worker,
 *                versions), worker_<pid>.json, lotustrace/b<B>_gpu<G>/ (its
 *                LotusTrace files), and, computed here from those files,
 *                summary.json, batches.csv, ops.csv, trace.json
 *   fidelity/    the first batches' tensors from both sides (with --rng
 *                torch): fidelity.json (and the .npy files with --keep-dumps)
 *   ppbench-rK/, pytorch-rK/   the same for repeat K (--repeat; even K ran
 *                PyTorch first)
 *   fused/, fused-rK/  the fused what-if (--fused; by default
 *                imagenet_train_fused beside imagenet_train): `ppbench run`
 *                of the fused pipeline with the same options, run between the
 *                two sides of each repeat
 *   compare_fused.csv  its figures (compare_fused.c): images/s faithful,
 *                fused and PyTorch, their ratios, the workers' CPU per image
 *                saved, decodes by region and in full, identical tensors
 *   logs/        each child's stdout
 *   compare.md, compare.csv   the table, both systems side by side, and the
 *                ratio ppbench / PyTorch of each figure: medians over the
 *                repeats with their spread, "within noise" where the ratios'
 *                interval holds 1
 *   compare.json every repeat's values and ratios, their summaries and
 *                verdicts, and the noise guard's window of each repeat
 *   figures/     the figures' data (CSV), PNG and SVG (plots/compare_*.gp),
 *                of repeat 1
 *
 * Both sides' LotusTrace files are read with lotustrace_read and measured
 * with analysis_compute: every metric comes from the same code.
 *
 * The parts: compare.c (one comparison, compare_execute), compare_spawn.c
 * (the children), compare_fidelity.c, compare_table.c, compare_fused.c,
 * compare_figures.c, compare_sides.c (reading a side back); the command's
 * options: bench/cli/cmd_compare.c. */
#ifndef PPBENCH_COMPARE_H
#define PPBENCH_COMPARE_H

#include "jsonget.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis.h"
#include "trace.h"

struct pipeline;

#define COMPARE_DEFAULT_PYTHON "/usr/bin/python3"
#define COMPARE_DEFAULT_REPEAT 3
#define COMPARE_INSTALL_HINT "scripts/install-deps.sh --oracle"

/* What ppbench compare was asked (bench/cli/cmd_compare.c parses it). */
struct compare_opts {
	long fidelity, repeat;  /* --fidelity N batches (0: none), --repeat N */
	double require_idle;    /* --require-idle PCT (0: do not wait) */
	const char *python, *out, *tag;
	const char *fused;      /* --fused NAME|FILE|off; NULL: the default */
	int keep_dumps;
	/* the run options, passed on to `ppbench run`, and two of them read */
	char **fwd;
	int nfwd;
	const char *pipeline;   /* --pipeline given, NULL: imagenet_train */
	const char *rng;        /* --rng given, NULL: compare passes --rng torch */
	/* set by compare_execute: the fused pipeline's file, NULL: no fused side */
	const char *fused_path;
};

/* One comparison: check the pipeline and the PyTorch side, run both sides
 * --repeat times (and the fused what-if, the fidelity check), write the
 * compare folder. SIGINT and SIGTERM stop it between steps (stopsig.h),
 * passed on to the child running. An exit code (commands.h's cmd_compare). */
int compare_execute(const struct compare_opts *o);

/* One side of a comparison, read back from its folder. */
struct compare_side {
	char name[16];          /* "ppbench" or "pytorch" */
	struct trace t;         /* its LotusTrace files */
	struct run_metrics m;   /* analysis_compute of t */
	int complete;
	int pin_effective;      /* pin memory as it ran: 1, 0, -1 unknown */
	char versions[512];     /* one line: what ran (library versions) */
	char cpu_capability[32];/* PyTorch: ATen's CPU capability ("AVX2"); "" for ppbench */
};

/* Set t's op names (LotusTrace names and ppbench op ids) from the pipeline,
 * in pipeline order, so that both sides key their ops alike. */
void compare_trace_ops(struct trace *t, const struct pipeline *p);

/* Read a `ppbench run` results folder (summary.json and lotustrace/<one
 * folder>/) or the PyTorch side's folder (config.json, run.json,
 * lotustrace/<one folder>/) into s, and compute its metrics. p gives the op
 * names (NULL: as found in the files). 0, or -1 with err. */
int compare_read_ppbench(const char *dir, const struct pipeline *p, struct compare_side *s,
			 char *err, size_t errlen);
int compare_read_torch(const char *dir, const struct pipeline *p, struct compare_side *s,
		       char *err, size_t errlen);
void compare_side_free(struct compare_side *s);

/* dir/name as a JSON object (NULL, with err, if unreadable or not an
 * object; its fields are read with jsonget.h). */
struct json_t;
struct json_t *compare_load_json(const char *dir, const char *name, char *err, size_t errlen);

/* The tensors of the first n batches, from two folders of batch_<id>.npy
 * and labels_<id>.npy (ids 0..n-1; float32 images, labels of any integer
 * or float dtype). */
struct compare_fidelity {
	size_t batches;         /* batches compared */
	size_t images;          /* samples compared */
	uint64_t values;        /* image values compared */
	uint64_t differing;     /* of which differ */
	double max_abs;         /* largest |a - b| */
	int64_t first_batch;    /* first batch that differs (images, labels or shape), -1: none */
	int64_t first_sample;   /* its first differing sample, -1: shape differs */
	int labels_equal;
	char shape_note[160];   /* a shape or count mismatch, "" if none */
};
int compare_tensors(const char *dir_a, const char *dir_b, size_t n, struct compare_fidelity *f,
		    char *err, size_t errlen);

/* The table over n repeats (a[k], b[k]: the two sides of repeat k): per
 * figure each side's median with its spread and the median of the
 * repeats' ratios a / b with its spread, as markdown and CSV (header
 * "metric,unit,ppbench,pytorch,ratio,repeats,ppbench_lo,ppbench_hi,
 * pytorch_lo,pytorch_hi,ratio_lo,ratio_hi,interval,ratio_verdict"; with one
 * repeat the medians are the values and the ratio is a / b). Either path may
 * be NULL; into (not NULL): gets "metrics", every figure's per-repeat values
 * and summaries. The markdown also goes to echo when not NULL. 0, or -1
 * with err. */
int compare_write_table(const struct compare_side *a, const struct compare_side *b, size_t n,
			const char *md_path, const char *csv_path, struct json_t *into, FILE *echo,
			char *err, size_t errlen);

/* What the repeats' ratios say (stats_summarise of a / b): "" (fewer than
 * two repeats: no noise measured), "same" (every ratio 1), "ppbench higher"
 * or "ppbench lower" (the interval wholly above or below 1), "within noise"
 * (it holds 1). */
struct stats_summary;
const char *compare_ratio_verdict(const struct stats_summary *r);
/* A table cell: the median with its spread over the repeats ("-": no
 * value; the value alone when every repeat gave it); fmt NULL: by size. */
void compare_fmt_cell(char *out, size_t n, const struct stats_summary *s, const char *fmt);
/* The same naming another side: "fused higher", "faithful lower" (who is
 * "ppbench", "fused" or "faithful"). */
const char *compare_ratio_verdict_of(const struct stats_summary *r, const char *who);

/* The fused what-if (compare_fused.c) over n repeats: a[k] the faithful
 * pipeline, f[k] its fused counterpart (the same options and seed), t[k]
 * PyTorch. Appends a section to md_path and echo (either may be NULL):
 * images/s of the three with the ratios fused / faithful and fused /
 * PyTorch ("within noise" when the interval holds 1), the workers' CPU per
 * image and what the fused op saves, its decodes by region and in full,
 * and the checksums (loudly when they differ); writes csv_path (figure,
 * unit,median,lo,hi,repeats,interval,verdict); into (not NULL) gets
 * "fused": every repeat's values and summaries, the checksums. *identical:
 * the fused checksum was the faithful one in every repeat. 0, or -1 with
 * err. */
int compare_fused_write(const struct compare_side *a, const struct compare_side *f,
			const struct compare_side *t, size_t n, const char *faithful, const char *fused,
			const char *md_path, const char *csv_path, struct json_t *into, FILE *echo,
			int *identical, char *err, size_t errlen);

#endif
