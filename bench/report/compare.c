/* ppbench compare: one comparison from the options to the compare folder
 * (compare.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsutil.h"
#include "log.h"
#include "resdir.h"
#include "conventions.h"
#include "compare_int.h"
#include "stopsig.h"

static void print_notes(FILE *f, const struct compare_side *a, const struct compare_side *b,
			const json_t *opt)
{
	fprintf(f, "notes:\n");
	if (a->pin_effective == 1 && b->pin_effective == 0)
		fprintf(f, "  - pin memory: ppbench on (a pin thread copies each batch into "
			   "page-locked memory); PyTorch off: without CUDA the DataLoader silently "
			   "disables pin_memory (torch.cuda.is_available() is False; spec 2.9)\n");
	else if (a->pin_effective != b->pin_effective)
		fprintf(f, "  - pin memory: ppbench %s, PyTorch %s\n",
			a->pin_effective ? "on" : "off", b->pin_effective == 1 ? "on" :
			b->pin_effective == 0 ? "off" : "unknown");
	if (!strcmp(jget_str(opt, "backend", "process"), "thread"))
		fprintf(f, "  - ppbench ran thread workers; PyTorch's workers are processes\n");
	if (strcmp(jget_str(opt, "rng", "torch"), "torch"))
		fprintf(f, "  - --rng %s: ppbench drew other crops and flips than PyTorch\n",
			jget_str(opt, "rng", "?"));
	fprintf(f, "  - PyTorch side: %s%s%s\n", b->versions,
		b->cpu_capability[0] ? ", ATen CPU capability " : "", b->cpu_capability);
	fprintf(f, "  - ppbench: %s\n", a->versions);
	fprintf(f, "  - per-op figures are LotusTrace spans (wall time inside each call); "
		   "\"workers' rusage\" is the workers' user + system CPU time\n");
}

/* The folders and logs of repeat k (0-based): repeat 1 keeps the names
 * of a single comparison. */
static void repeat_paths(const char *dir, long k, char *pdir, char *tdir, char *plog, char *tlog)
{
	char sfx[32] = "";
	if (k)
		snprintf(sfx, sizeof(sfx), "-r%ld", k + 1);
	errf(pdir, PATH_MAX, "%s/ppbench%s", dir, sfx);
	errf(tdir, PATH_MAX, "%s/pytorch%s", dir, sfx);
	errf(plog, PATH_MAX, "%s/logs/ppbench%s.log", dir, sfx);
	errf(tlog, PATH_MAX, "%s/logs/pytorch%s.log", dir, sfx);
}

/* The fused side's folder and log of repeat k. */
static void fused_paths(const char *dir, long k, char *fdir, char *flog)
{
	char sfx[32] = "";
	if (k)
		snprintf(sfx, sizeof(sfx), "-r%ld", k + 1);
	errf(fdir, PATH_MAX, "%s/fused%s", dir, sfx);
	errf(flog, PATH_MAX, "%s/logs/fused%s.log", dir, sfx);
}

/* The fused what-if side of repeat k: `ppbench run` with the same options
 * and the fused pipeline. */
static int fused_side(const struct compare_opts *c, const char *dir, long k)
{
	char fdir[PATH_MAX], flog[PATH_MAX];
	const char *extra[] = { "--pipeline", c->fused_path, NULL };
	fused_paths(dir, k, fdir, flog);
	int rc = compare_run_ppbench(c, extra, dir, fdir, flog);
	if (rc)
		error_msg("the fused side's `ppbench run` failed (exit %d; see %s)", rc, flog);
	return rc;
}

/* The PyTorch side of one repeat, configured from ppbench's options. */
int compare_torch_side(const struct compare_opts *c, const char *script, const char *tdir,
		      const char *tlog, const json_t *opt, json_t *ops, int gpus)
{
	char err[PATH_MAX + 512];
	if (compare_write_torch_config(tdir, opt, ops, gpus, (uint64_t)jget_int(opt, "max_batches", 0), 0,
			       err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	int rc = compare_run_torch(c, script, tdir, tlog);
	if (rc) {
		error_msg("the PyTorch side failed (exit %d; see %s)", rc, tlog);
		rc = rc >= 128 ? rc : EXIT_FAIL;
	}
	return rc;
}

/* Repeats 2..N of both sides, odd ones PyTorch first (drift over time
 * weighs on both sides alike), each in its noise window. The fused side,
 * when there is one, runs between them: ppbench, fused, PyTorch, then
 * PyTorch, fused, ppbench, so that it too goes before and after each. */
static int more_repeats(const struct compare_opts *c, const char *script, const char *dir,
			const json_t *opt, json_t *ops, int gpus, const struct cpus *cp,
			struct noise *nz)
{
	char pdir[PATH_MAX], tdir[PATH_MAX], plog[PATH_MAX], tlog[PATH_MAX], what[64];
	char err[512];
	for (long k = 1; k < c->repeat; k++) {
		struct noise_snap n0, n1;
		int rc = 0;
		repeat_paths(dir, k, pdir, tdir, plog, tlog);
		if (noise_require_idle(c->require_idle, noise_idle_wait_s(), cp, err, sizeof(err))) {
			error_msg("%s", err);
			return EXIT_FAIL;
		}
		printf("repeat %ld of %ld: %s first\n", k + 1, c->repeat, k % 2 ? "PyTorch" : "ppbench");
		noise_read(&n0, cp);
		for (int side = 0; side < 3 && !rc; side++) {
			if (side == 1) {
				if (c->fused_path)
					rc = fused_side(c, dir, k);
			} else if ((side == 0) == (k % 2 == 1)) {
				rc = compare_torch_side(c, script, tdir, tlog, opt, ops, gpus);
			} else {
				rc = compare_run_ppbench(c, NULL, dir, pdir, plog);
				if (rc)
					error_msg("`ppbench run` failed (exit %d; see %s)", rc, plog);
			}
		}
		noise_read(&n1, cp);
		if (rc)
			return rc;
		noise_between(&n0, &n1, cp, &nz[k]);
		snprintf(what, sizeof(what), "repeat %ld", k + 1);
		noise_warn(&nz[k], what);
	}
	return 0;
}

/* Read every repeat's two sides (the PyTorch side's results files written
 * here). *nread: the repeats read. */
static int read_sides(const struct compare_opts *c, const char *dir, const struct pipeline *pipe,
		      struct compare_side *sa, struct compare_side *sb, long *nread,
		      const struct pipeline *fpipe, struct compare_side *sf, long *nread_f)
{
	char pdir[PATH_MAX], tdir[PATH_MAX], plog[PATH_MAX], tlog[PATH_MAX];
	char err[2 * PATH_MAX + 512];
	for (long k = 0; k < c->repeat; k++) {
		repeat_paths(dir, k, pdir, tdir, plog, tlog);
		if (compare_read_ppbench(pdir, pipe, &sa[k], err, sizeof(err))) {
			error_msg("%s", err);
			return -1;
		}
		if (compare_read_torch(tdir, pipe, &sb[k], err, sizeof(err))) {
			compare_side_free(&sa[k]);
			error_msg("%s", err);
			return -1;
		}
		++*nread;
		if (c->fused_path) {
			fused_paths(dir, k, pdir, plog);
			if (compare_read_ppbench(pdir, fpipe, &sf[k], err, sizeof(err))) {
				error_msg("%s", err);
				return -1;
			}
			++*nread_f;
		}
		if (compare_write_torch_results(tdir, &sb[k], err, sizeof(err))) {
			error_msg("%s", err);
			return -1;
		}
	}
	return 0;
}

/* compare.json's frame: the repeats, their order, the noise guard. */
static json_t *compare_json(const struct compare_opts *c, const struct noise *nz, const struct cpus *cp)
{
	json_t *j = json_object(), *ord = json_array();
	json_object_set_new(j, "schema_version", json_integer(COMPARE_SCHEMA_VERSION));
	json_object_set_new(j, "tool", json_string("ppbench compare"));
	json_object_set_new(j, "repeats", json_integer(c->repeat));
	json_object_set_new(j, "interval_method", json_string(STATS_CI_METHOD));
	for (long k = 0; k < c->repeat; k++)
		json_array_append_new(ord, json_string(k % 2 ? "pytorch" : "ppbench"));
	json_object_set_new(j, "first_side", ord);
	/* the fused what-if runs between the two (more_repeats) */
	json_object_set_new(j, "fused_side", c->fused_path ? json_string(c->fused_path) : json_null());
	json_object_set_new(j, "noise", noise_study_json(nz, (size_t)c->repeat, "repeats",
							 c->require_idle, cp));
	json_t *m = machine_json();
	if (m)
		json_object_set_new(j, "machine", m);
	return j;
}

/* The fused what-if's pipeline: --fused, or by default imagenet_train_fused
 * beside imagenet_train (where it exists); --fused off: none. 0, or -1 with
 * err (a --fused that cannot be loaded, or one that is the pipeline itself). */
static int resolve_fused(struct compare_run *x, char *err, size_t errlen)
{
	const char *name = x->c.fused;
	if (name && !strcmp(name, "off"))
		return 0;
	if (!name && strcmp(x->pipe.name, "imagenet_train"))
		return 0;       /* no fused counterpart known for this pipeline */
	if (pipeline_load(&x->fpipe, name ? name : "imagenet_train_fused", err, errlen)) {
		if (!name)
			return 0;       /* the default, not installed: no what-if */
		errf(err + strlen(err), errlen - strlen(err), " (--fused)");
		return -1;
	}
	x->have_fpipe = 1;
	if (!strcmp(x->fpipe.path, x->pipe.path)) {
		errf(err, errlen, "--fused %s: that is the pipeline compared; give its fused "
		     "counterpart or off", name);
		return -1;
	}
	x->c.fused_path = x->fpipe.path;
	return 0;
}

/* Before anything runs: the pipeline and its torchvision equivalent, the
 * PyTorch side's script and a Python that can run it. An exit code. */
static int compare_prepare(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512];

	x->sa = calloc((size_t)x->c.repeat, sizeof(*x->sa));
	x->sb = calloc((size_t)x->c.repeat, sizeof(*x->sb));
	x->nz = calloc((size_t)x->c.repeat, sizeof(*x->nz));
	x->sf = calloc((size_t)x->c.repeat, sizeof(*x->sf));
	if (!x->sa || !x->sb || !x->nz || !x->sf) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	if (pipeline_load(&x->pipe, x->c.pipeline ? x->c.pipeline : "imagenet_train", err,
			  sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	x->have_pipe = 1;
	if (resolve_fused(x, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	x->ops = compare_torch_pipeline(&x->pipe, err, sizeof(err));
	if (!x->ops) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (find_top(TOP_OF_PLOTS, x->top, sizeof(x->top))) {
		error_msg("cannot find scripts/torch_side.py: run the ppbench of a source tree");
		return EXIT_USAGE;
	}
	errf(x->script, sizeof(x->script), "%s/scripts/torch_side.py", x->top);
	if (access(x->script, R_OK)) {
		error_msg("cannot read '%s': %s", x->script, strerror(errno));
		return EXIT_USAGE;
	}
	if (compare_probe_python(x->c.python, x->script, x->info, sizeof(x->info), err, sizeof(err))) {
		if (stop_signal())
			return 128 + stop_signal();
		error_msg("the PyTorch side needs python3-torch, python3-torchvision and python3-pil "
		      "for %s (%s); install them with: %s (about 650 MB)", x->c.python, err,
		      COMPARE_INSTALL_HINT);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* Remove the compare folder while it holds only an empty logs/ (nothing ran). */
static void remove_empty_folder(struct compare_run *x)
{
	unlink(x->log);
	errf(x->log, sizeof(x->log), "%s/logs", x->dir);
	rmdir(x->log);
	rmdir(x->dir);
}

/* The compare folder, built under a temporary name held while it is written
 * (ppbench ls --clean leaves it alone), once the machine is idle enough. */
static int compare_make_folder(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512];

	results_dir_name(x->stamp, sizeof(x->stamp), "compare", NULL);
	errf(x->tmp, sizeof(x->tmp), "%s/.%s-%d.tmp", x->c.out, x->stamp, (int)getpid());
	errf(x->log, sizeof(x->log), "%s/logs", x->tmp);
	if (mkdir_p(x->log, 0777)) {
		error_msg("cannot create '%s': %s", x->log, strerror(errno));
		return EXIT_FAIL;
	}
	results_dir_hold(x->tmp);
	errf(x->dir, sizeof(x->dir), "%s", x->tmp);
	repeat_paths(x->dir, 0, x->pdir, x->tdir, x->log, x->tlog);
	cpus_read(&x->cp);
	if (noise_require_idle(x->c.require_idle, noise_idle_wait_s(), &x->cp, err,
			       sizeof(err))) {
		error_msg("%s", err);
		remove_empty_folder(x);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Repeat 1 (ppbench, then PyTorch), the fidelity pass, then the other
 * repeats. An exit code. */
static int compare_run_sides(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512];
	struct noise_snap n0, n1;
	int rc;

	printf("compare: %s; PyTorch side: %s\n", x->pipe.name, x->info);
	if (x->c.repeat > 1)
		printf("repeat 1 of %ld: ppbench first\n", x->c.repeat);
	printf("ppbench: running `ppbench run` (log: logs/ppbench.log)\n");
	noise_read(&n0, &x->cp);
	rc = compare_run_ppbench(&x->c, NULL, x->dir, x->pdir, x->log);
	if (rc) {
		if (rc == EXIT_USAGE)
			remove_empty_folder(x);         /* refused before it ran: nothing to keep */
		else
			error_msg("`ppbench run` failed (exit %d; see %s)", rc, x->log);
		return rc;
	}
	x->psum = compare_load_json(x->pdir, "summary.json", err, sizeof(err));
	if (!x->psum) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	x->opt = json_object_get(x->psum, "options");
	x->gpus = (int)jget_int(x->psum, "gpus", 1);
	printf("ppbench: %lld images in %lld batches, %.3f s, %.1f images/s\n",
	       jget_int(x->psum, "images", 0), jget_int(x->psum, "batches", 0),
	       jget_num(x->psum, "e2e_s"), jget_num(x->psum, "images_per_s"));
	if (x->c.fused_path) {
		printf("fused: running `ppbench run --pipeline %s` (the what-if; log: logs/fused.log)\n",
		       x->fpipe.name);
		rc = fused_side(&x->c, x->dir, 0);
		if (rc)
			return rc;
	}

	printf("pytorch: running %s (log: logs/pytorch.log)\n", x->script);
	rc = compare_torch_side(&x->c, x->script, x->tdir, x->tlog, x->opt, x->ops, x->gpus);
	if (rc)
		return rc;
	noise_read(&n1, &x->cp);
	noise_between(&n0, &n1, &x->cp, &x->nz[0]);
	noise_warn(&x->nz[0], x->c.repeat > 1 ? "repeat 1" : "the comparison");

	if (x->c.fidelity > 0) {
		printf("fidelity: first %ld batches of both sides%s, --rng torch\n", x->c.fidelity,
		       x->c.fused_path ? " and of the fused one" : "");
		rc = compare_fidelity_pass(&x->c, x->script, x->dir, x->opt, x->ops, x->gpus, &x->fd,
				   x->c.fused_path ? &x->ffd : NULL);
		if (rc)
			return rc;
		x->fid_done = 1;
	}
	return more_repeats(&x->c, x->script, x->dir, x->opt, x->ops, x->gpus, &x->cp, x->nz);
}

/* The notes and the fidelity check, on f. */
static void print_tail(FILE *f, const struct compare_run *x)
{
	print_notes(f, &x->sa[0], &x->sb[0], x->opt);
	if (x->fid_done)
		compare_print_fidelity(f, "fidelity", &x->fd);
	if (x->fid_done && x->c.fused_path)
		compare_print_fidelity(f, "fidelity (fused against faithful)", &x->ffd);
}

/* The fused what-if's section (compare.md, stdout), compare_fused.csv and
 * compare.json's "fused"; loud when its tensors differ. 0, or -1 with err. */
static int write_fused(struct compare_run *x, const char *md, char *err, size_t errlen)
{
	char csv[PATH_MAX];

	errf(csv, sizeof(csv), "%s/compare_fused.csv", x->dir);
	if (compare_fused_write(x->sa, x->sf, x->sb, (size_t)x->c.repeat, x->pipe.name, x->fpipe.name,
				md, csv, x->cj, stdout, &x->fused_identical, err, errlen))
		return -1;
	int fid_same = !x->fid_done || (x->ffd.first_batch < 0 && x->ffd.labels_equal);
	if (!x->fused_identical || !fid_same)
		warn_msg("THE FUSED TENSORS DIFFER from the faithful pipeline's (%s): the fused "
			 "what-if's figures are not valid", !x->fused_identical ? "checksums" :
			 "fidelity check");
	return 0;
}

/* Read every repeat's sides back; write compare.md, .csv, .json and the
 * figures. 0, or -1 (said). */
static int compare_write_results(struct compare_run *x)
{
	char err[2 * PATH_MAX + 512], md[PATH_MAX], csv[PATH_MAX], cjp[PATH_MAX], sub[512];
	const struct compare_side *sa = x->sa, *sb = x->sb;

	if (read_sides(&x->c, x->dir, &x->pipe, x->sa, x->sb, &x->nread, &x->fpipe, x->sf,
		       &x->nread_f))
		return -1;
	errf(md, sizeof(md), "%s/compare.md", x->dir);
	errf(csv, sizeof(csv), "%s/compare.csv", x->dir);
	errf(cjp, sizeof(cjp), "%s/compare.json", x->dir);
	printf("\n");
	if (x->c.repeat > 1)
		printf("%ld repeats: each figure the median, %s; the ratio the median of the "
		       "repeats' ratios, \"within noise\" when its interval holds 1\n", x->c.repeat,
		       x->c.repeat >= 6 ? "[" STATS_CI_METHOD "]" : "(min, max, n) over the repeats");
	x->cj = compare_json(&x->c, x->nz, &x->cp);
	/* what was measured: the ppbench side's run recorded it (both sides read it) */
	json_t *ds = json_object_get(x->psum, "dataset");
	if (ds)
		json_object_set(x->cj, "dataset", ds);
	if (compare_write_table(sa, sb, (size_t)x->c.repeat, md, csv, x->cj, stdout, err,
				sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	if (x->c.fused_path && write_fused(x, md, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	if (json_dump_file(x->cj, cjp, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) {
		error_msg("cannot write '%s'", cjp);
		return -1;
	}
	printf("\n");
	for (long k = 0; k < x->c.repeat; k++)
		if (!sa[k].complete || !sb[k].complete)
			warn_msg("incomplete%s: %s%s%s", k ? " (a repeat)" : "", sa[k].complete ? "" :
			     "ppbench", !sa[k].complete && !sb[k].complete ? " and " : "",
			     sb[k].complete ? "" : "PyTorch");
	for (long k = 0; k < x->nread_f; k++)
		if (!x->sf[k].complete)
			warn_msg("incomplete: the fused side of repeat %ld", k + 1);
	print_tail(stdout, x);
	FILE *mf = fopen(md, "a");
	if (mf) {
		fprintf(mf, "\n");
		print_tail(mf, x);
		fclose(mf);
	}
	snprintf(sub, sizeof(sub), "%s, W=%d, B=%d, %lld images", x->pipe.name,
		 sa[0].m.workers, sa[0].m.batch_size, (long long)sa[0].m.images);
	compare_draw_figures(x->dir, &sa[0], &sb[0], sub);
	compare_md_context(md, x->dir, x->opt, json_object_get(x->psum, "dataset"), x->pipe.name, x->info);
	return 0;
}

/* Give the compare folder its final name, OUT/<UTC>-compare-<tag>. 0, or -1. */
static int compare_name_folder(struct compare_run *x)
{
	char tagbuf[256], final[2 * PATH_MAX];

	if (x->c.tag)
		snprintf(tagbuf, sizeof(tagbuf), "%s", x->c.tag);
	else
		snprintf(tagbuf, sizeof(tagbuf), "%s-b%d-w%d-g%d", x->pipe.name,
			 x->sa[0].m.batch_size, x->sa[0].m.workers, x->gpus);
	errf(final, sizeof(final), "%s/%s-%s", x->c.out, x->stamp, tagbuf);
	for (int k = 2; access(final, F_OK) == 0 && k < 1000; k++)
		errf(final, sizeof(final), "%s/%s-%s-%d", x->c.out, x->stamp, tagbuf, k);
	if (rename(x->tmp, final)) {
		error_msg("cannot rename '%s' to '%s': %s", x->tmp, final, strerror(errno));
		return -1;
	}
	errf(x->dir, sizeof(x->dir), "%s", final);
	printf("results: %s\n", final);
	return 0;
}

static void compare_free(struct compare_run *x)
{
	for (long k = 0; k < x->nread; k++) {
		compare_side_free(&x->sa[k]);
		compare_side_free(&x->sb[k]);
	}
	for (long k = 0; k < x->nread_f; k++)
		compare_side_free(&x->sf[k]);
	free(x->sa);
	free(x->sb);
	free(x->sf);
	if (x->have_fpipe)
		pipeline_release(&x->fpipe);
	free(x->nz);
	json_decref(x->cj);
	json_decref(x->psum);
	json_decref(x->ops);
	if (x->have_pipe)
		pipeline_release(&x->pipe);
}

int compare_execute(const struct compare_opts *o)
{
	struct compare_run run = { .c = *o }, *x = &run;
	struct stop_saved saved;
	int rc = compare_prepare(x);

	if (rc)
		goto out;
	stop_catch(&saved, 0);
	rc = compare_make_folder(x);
	if (!rc)
		rc = compare_run_sides(x);
	if (!rc)
		rc = compare_write_results(x) || compare_name_folder(x) ? EXIT_FAIL : EXIT_OK;
	if (rc && rc != EXIT_USAGE && access(x->dir, F_OK) == 0)
		fprintf(stderr, "ppbench: what was done is in %s\n", x->dir);
	if (stop_signal() && (rc == EXIT_OK || rc < 128))
		rc = 128 + stop_signal();
	stop_release(&saved);
out:
	compare_free(x);
	return rc;
}
