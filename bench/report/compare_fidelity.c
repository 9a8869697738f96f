/* ppbench compare: the fidelity check, the first batches' tensors of both
 * sides (and of the fused what-if) (compare.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fsutil.h"
#include "log.h"
#include "conventions.h"
#include "compare_int.h"

/* what: "fidelity" (ppbench against PyTorch) or "fidelity (fused against
 * faithful)" */
void compare_print_fidelity(FILE *f, const char *what, const struct compare_fidelity *fd)
{
	if (fd->first_batch < 0 && fd->labels_equal) {
		fprintf(f, "%s: tensors identical (first %zu batch%s: %zu images, %" PRIu64
			" values; labels identical)\n", what, fd->batches, fd->batches == 1 ? "" : "es",
			fd->images, fd->values);
		return;
	}
	if (fd->shape_note[0]) {
		fprintf(f, "%s: tensors differ: %s\n", what, fd->shape_note);
		return;
	}
	fprintf(f, "%s: tensors differ: max abs difference %.9g, %" PRIu64 " of %" PRIu64
		" values differ; first differing batch %" PRId64 " (sample %" PRId64 ")%s\n", what,
		fd->max_abs, fd->differing, fd->values, fd->first_batch, fd->first_sample,
		fd->labels_equal ? "; labels identical" : "; LABELS DIFFER");
}

/* What a tensor check found, as fidelity.json says it. */
static json_t *fidelity_json(const struct compare_fidelity *fd)
{
	json_t *j = json_object();
	json_object_set_new(j, "rng", json_string("torch"));
	json_object_set_new(j, "batches", json_integer((json_int_t)fd->batches));
	json_object_set_new(j, "images", json_integer((json_int_t)fd->images));
	json_object_set_new(j, "values", json_integer((json_int_t)fd->values));
	json_object_set_new(j, "differing_values", json_integer((json_int_t)fd->differing));
	json_object_set_new(j, "max_abs_difference", json_real(isfinite(fd->max_abs) ? fd->max_abs : -1));
	json_object_set_new(j, "identical", json_boolean(fd->first_batch < 0 && fd->labels_equal));
	json_object_set_new(j, "labels_identical", json_boolean(fd->labels_equal));
	json_object_set_new(j, "first_differing_batch", fd->first_batch < 0 ? json_null() :
			    json_integer(fd->first_batch));
	json_object_set_new(j, "first_differing_sample", fd->first_sample < 0 ? json_null() :
			    json_integer(fd->first_sample));
	if (fd->shape_note[0])
		json_object_set_new(j, "note", json_string(fd->shape_note));
	return j;
}

/* The fused pipeline's first batches against the faithful pipeline's
 * (dumped in pbatches), bit for bit. An exit code. */
static int fidelity_fused(const struct compare_opts *c, const char *dir, const char *fdir,
			  const char *pbatches, const char *const *extra, size_t n,
			  struct compare_fidelity *ffd)
{
	char sdir[PATH_MAX], log[PATH_MAX], b[PATH_MAX], err[PATH_MAX + 512];
	const char *ex[16];
	size_t k = 0;

	for (; extra[k] && k < 12; k++)
		ex[k] = extra[k];
	ex[k++] = "--pipeline";
	ex[k++] = c->fused_path;
	ex[k] = NULL;
	errf(sdir, sizeof(sdir), "%s/fused", fdir);
	errf(log, sizeof(log), "%s/logs/fidelity-fused.log", dir);
	int rc = compare_run_ppbench(c, ex, fdir, sdir, log);
	if (rc) {
		error_msg("the fidelity run of the fused side failed (exit %d; see %s)", rc, log);
		return rc;
	}
	errf(b, sizeof(b), "%s/batches", sdir);
	if (compare_tensors(pbatches, b, n, ffd, err, sizeof(err))) {
		error_msg("fidelity (fused): %s", err);
		return EXIT_FAIL;
	}
	if (!c->keep_dumps)
		compare_remove_dumps(b);
	return 0;
}

/* ffd: NULL, or the fused side's check against ppbench's (c->fused_path). */
int compare_fidelity_pass(const struct compare_opts *c, const char *script, const char *dir,
			 const json_t *opt, json_t *ops, int gpus, struct compare_fidelity *fd,
			 struct compare_fidelity *ffd)
{
	char fdir[PATH_MAX], pdir[PATH_MAX], tdir[PATH_MAX], log[PATH_MAX], nb[32];
	char a[PATH_MAX], b[PATH_MAX], err[PATH_MAX + 512];
	uint64_t n = (uint64_t)c->fidelity, user_max = (uint64_t)compare_jint(opt, "max_batches", 0);

	if (user_max && user_max < n)
		n = user_max;
	snprintf(nb, sizeof(nb), "%" PRIu64, n);
	errf(fdir, sizeof(fdir), "%s/fidelity", dir);
	errf(pdir, sizeof(pdir), "%s/ppbench", fdir);
	errf(tdir, sizeof(tdir), "%s/pytorch", fdir);
	if (mkdir_p(fdir, 0777)) {
		error_msg("cannot create '%s': %s", fdir, strerror(errno));
		return EXIT_FAIL;
	}
	const char *extra[] = { "--rng", "torch", "--max-batches", nb, "--dump-batches", nb,
				"--gpu-step", "0", "--trace", "off", NULL };
	errf(log, sizeof(log), "%s/logs/fidelity-ppbench.log", dir);
	int rc = compare_run_ppbench(c, extra, fdir, pdir, log);
	if (rc) {
		error_msg("the fidelity run of ppbench failed (exit %d; see %s)", rc, log);
		return rc;
	}
	if (compare_write_torch_config(tdir, opt, ops, gpus, n, 1, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	errf(log, sizeof(log), "%s/logs/fidelity-pytorch.log", dir);
	rc = compare_run_torch(c, script, tdir, log);
	if (rc) {
		error_msg("the fidelity run of the PyTorch side failed (exit %d; see %s)", rc, log);
		return rc >= 128 ? rc : EXIT_FAIL;
	}
	errf(a, sizeof(a), "%s/batches", pdir);
	errf(b, sizeof(b), "%s/batches", tdir);
	if (compare_tensors(a, b, (size_t)n, fd, err, sizeof(err))) {
		error_msg("fidelity: %s", err);
		return EXIT_FAIL;
	}
	if (ffd && (rc = fidelity_fused(c, dir, fdir, a, extra, (size_t)n, ffd)))
		return rc;
	json_t *j = fidelity_json(fd);
	if (ffd) {
		json_t *jf = fidelity_json(ffd);
		json_object_set_new(jf, "against", json_string("ppbench, the faithful pipeline"));
		json_object_set_new(jf, "pipeline", json_string(c->fused_path));
		json_object_set_new(j, "fused", jf);
	}
	errf(a, sizeof(a), "%s/fidelity.json", fdir);
	if (json_dump_file(j, a, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		warn_msg("cannot write '%s'", a);
	json_decref(j);
	if (!c->keep_dumps) {
		errf(a, sizeof(a), "%s/batches", pdir);
		compare_remove_dumps(a);
		compare_remove_dumps(b);
	}
	return 0;
}
