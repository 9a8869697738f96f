/* The parts of ppbench compare share these (compare.h is the interface). */
#ifndef PPBENCH_COMPARE_INT_H
#define PPBENCH_COMPARE_INT_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "compare.h"
#include "machine.h"
#include "noise.h"
#include "pipeline.h"

#define COMPARE_SCHEMA_VERSION 1

/* What one `ppbench compare` holds from start to end, freed by compare_free. */
struct compare_run {
	struct compare_opts c;
	struct pipeline pipe;
	int have_pipe;
	char top[PATH_MAX], script[PATH_MAX], info[512];
	char tmp[PATH_MAX], dir[PATH_MAX], pdir[PATH_MAX], tdir[PATH_MAX], log[PATH_MAX];
	char tlog[PATH_MAX], stamp[32];
	json_t *ops, *psum, *cj;
	const json_t *opt;      /* psum's "options" */
	int gpus;
	struct compare_side *sa, *sb, *sf;  /* ppbench, PyTorch, the fused what-if */
	struct noise *nz;
	long nread;             /* sides read back (sa[k], sb[k] to free) */
	long nread_f;           /* fused sides read back (sf[k] to free) */
	struct pipeline fpipe;  /* the fused what-if's pipeline (c.fused_path) */
	int have_fpipe;
	int fused_identical;    /* its checksums were the faithful side's in every repeat */
	struct compare_fidelity fd;
	int fid_done;
	struct compare_fidelity ffd;    /* the fused side against ppbench's */
	struct cpus cp;
};

const struct op_metrics *compare_find_op(const struct run_metrics *m, const char *name);

/* An op is per batch (collation) or per image. */
int compare_op_per_batch(const char *lotus_name);

double compare_ratio(double a, double b);

/* The figures' data, and the figures when gnuplot and plots/ are there.
 * Returns how many figures could not be drawn. */
int compare_draw_figures(const char *dir, const struct compare_side *a,
			const struct compare_side *b, const char *subtitle);

/* compare.md ends with what ran (so that the table can be read, and
 * the comparison run again, without the logs) and links to its figures. */
void compare_md_context(const char *md, const char *dir, const json_t *opt, const json_t *ds,
		       const char *pipe, const char *torch_info);

/* Remove the .npy files of dir, then dir (the dumps: big, and checked). */
void compare_remove_dumps(const char *dir);

/* The pipeline as torch_side.py takes it, or NULL with why (no equivalent). */
json_t *compare_torch_pipeline(const struct pipeline *p, char *why, size_t whylen);

/* `ppbench run` with the user's options plus extra ones, into out_root;
 * its folder renamed to dest. Returns run's exit code. */
int compare_run_ppbench(const struct compare_opts *c, const char *const *extra, const char *out_root,
		       const char *dest, const char *log);

/* Write the PyTorch side's config.json from ppbench's resolved options. */
int compare_write_torch_config(const char *dir, const json_t *opt, json_t *ops, int gpus,
			      uint64_t max_batches, int fidelity, char *err, size_t errlen);

int compare_run_torch(const struct compare_opts *c, const char *script, const char *dir, const char *log);

/* python torch_side.py --probe: 0 with the versions in info, or -1 with why. */
int compare_probe_python(const char *python, const char *script, char *info, size_t infolen,
			char *why, size_t whylen);

/* The PyTorch side's results files, computed here: summary.json (tool
 * "pytorch", with a "pytorch" block from run.json), batches.csv, ops.csv,
 * trace.json.gz. */
int compare_write_torch_results(const char *dir, const struct compare_side *s, char *err,
			       size_t errlen);

/* what: "fidelity" (ppbench against PyTorch) or "fidelity (fused against
 * faithful)" */
void compare_print_fidelity(FILE *f, const char *what, const struct compare_fidelity *fd);

/* ffd: NULL, or the fused side's check against ppbench's (c->fused_path). */
int compare_fidelity_pass(const struct compare_opts *c, const char *script, const char *dir,
			 const json_t *opt, json_t *ops, int gpus, struct compare_fidelity *fd,
			 struct compare_fidelity *ffd);

/* The PyTorch side of one repeat, configured from ppbench's options. */
int compare_torch_side(const struct compare_opts *c, const char *script, const char *tdir,
		      const char *tlog, const json_t *opt, json_t *ops, int gpus);


#endif
