/* ppbench compare's library: reading one side of a comparison back from
 * its folder (a `ppbench run` results folder or the PyTorch side's) and the
 * tensor check of the first batches (compare.h). Running both sides and
 * writing the table and figures is bench/report/compare.c; the command is
 * bench/cli/cmd_compare.c. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>
#include "analysis.h"
#include "compare.h"
#include "emit.h"
#include "fsutil.h"
#include "log.h"
#include "metrics.h"
#include "npy.h"
#include "pipeline.h"
#include "run.h"

/* ---- reading one side ---------------------------------------------------- */

void compare_trace_ops(struct trace *t, const struct pipeline *p)
{
	size_t max = sizeof(t->op_names) / sizeof(t->op_names[0]);

	t->nops = 0;
	for (int i = 0; i < p->nops && t->nops < max; i++) {
		const struct op_ops *o = p->op[i].ops;
		snprintf(t->op_names[t->nops], sizeof(t->op_names[0]), "%s",
			 o->lotus_name ? o->lotus_name : o->name);
		snprintf(t->op_ids[t->nops], sizeof(t->op_ids[0]), "%s", o->name);
		t->nops++;
	}
}

/* dir/lotustrace/<the one folder in it> */
static int find_lotustrace(const char *dir, char *out, size_t n, char *err, size_t errlen)
{
	char lt[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int found = 0;

	snprintf(lt, sizeof(lt), "%s/lotustrace", dir);
	d = opendir(lt);
	if (!d) {
		errf(err, errlen, "cannot open '%s': %s", lt, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(out, n, "%s/%s", lt, de->d_name) >= (int)n)
			continue;       /* too long a path: not one we made */
		if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
			found = 1;
			break;
		}
	}
	closedir(d);
	if (!found) {
		errf(err, errlen, "no LotusTrace folder in '%s'", lt);
		return -1;
	}
	return 0;
}

json_t *compare_load_json(const char *dir, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX];
	char why[512];
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_load_regular(path, why, sizeof(why));
	if (!j)
		errf(err, errlen, "cannot read '%s': %s", path, why);
	else if (!json_is_object(j)) {
		errf(err, errlen, "cannot read '%s': not a JSON object", path);
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* Read the LotusTrace files of dir and compute the metrics. */
static int side_measure(const char *dir, const struct pipeline *p, struct compare_side *s,
			const struct analysis_opts *ao, char *err, size_t errlen)
{
	char lt[PATH_MAX], why[PATH_MAX + 256];

	if (find_lotustrace(dir, lt, sizeof(lt), err, errlen))
		return -1;
	memset(&s->t, 0, sizeof(s->t));
	if (p)
		compare_trace_ops(&s->t, p);
	if (lotustrace_read(lt, LOTUSTRACE_PREFIX, &s->t, why, sizeof(why))) {
		errf(err, errlen, "%s", why);
		return -1;
	}
	if (analysis_compute(&s->t, ao, &s->m, why, sizeof(why))) {
		errf(err, errlen, "cannot analyse '%s': %s", lt, why);
		lotustrace_free(&s->t);
		return -1;
	}
	return 0;
}

int compare_read_ppbench(const char *dir, const struct pipeline *p, struct compare_side *s,
			 char *err, size_t errlen)
{
	json_t *sum, *opt, *mach, *libs;
	struct loader_result r;
	struct run_opts o;
	int fused, rc = -1;

	memset(s, 0, sizeof(*s));
	memset(&r, 0, sizeof(r));
	snprintf(s->name, sizeof(s->name), "ppbench");
	s->pin_effective = -1;
	sum = compare_load_json(dir, "summary.json", err, errlen);
	if (!sum)
		return -1;
	opt = json_object_get(sum, "options");
	if (run_read_summary(sum, dir, &r, &o, &fused, err, errlen))
		goto out;
	/* the run's facts through the one adapter; what a summary does not
	 * hold stays as a results folder read back has always had it: no
	 * counters, no usage, noise 0, the fused op as the summary says */
	struct analysis_opts ao;
	run_analysis_opts(&o, &r, NULL, NULL, NULL, &ao);
	ao.others_cpu_pct = ao.steal_pct = ao.load1 = 0;
	ao.fused = fused;
	s->complete = ao.complete;
	if (json_is_boolean(json_object_get(opt, "pin_memory")))
		s->pin_effective = json_is_true(json_object_get(opt, "pin_memory"));
	mach = json_object_get(sum, "machine");
	libs = json_object_get(mach, "libraries");
	snprintf(s->versions, sizeof(s->versions), "%s, libjpeg-turbo %s, libpng %s",
		 jget_str(mach, "compiler", "?"), jget_str(libs, "libjpeg_turbo", "?"),
		 jget_str(libs, "libpng_runtime", "?"));
	rc = side_measure(dir, p, s, &ao, err, errlen);
out:
	loader_result_free(&r);
	json_decref(sum);
	return rc;
}

int compare_read_torch(const char *dir, const struct pipeline *p, struct compare_side *s,
		       char *err, size_t errlen)
{
	json_t *cfg = NULL, *run = NULL, *ws, *v;
	double *wcpu = NULL;
	long *wrss = NULL;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "pytorch");
	s->pin_effective = -1;
	cfg = compare_load_json(dir, "config.json", err, errlen);
	if (cfg)
		run = compare_load_json(dir, "run.json", err, errlen);
	if (!run)
		goto out;
	struct loader_result r;
	struct run_opts o = { .batch_size = (long)jget_int(cfg, "batch", 0),
			      .workers = (long)jget_int(cfg, "workers", 0),
			      .gpus = (long)jget_int(cfg, "gpus", 0) };
	memset(&r, 0, sizeof(r));
	r.start_ns = (uint64_t)jget_int(run, "start_wall_ns", 0);
	r.end_ns = (uint64_t)jget_int(run, "end_wall_ns", 0);
	r.images = (uint64_t)jget_int(run, "images", 0);
	r.batches = (uint64_t)jget_int(run, "batches", 0);
	r.main_cpu_s = jget_num(run, "main_cpu_s");
	r.main_setup_cpu_s = r.main_teardown_cpu_s = NAN;   /* not a figure of the PyTorch side */
	r.main_maxrss_kib = (long)jget_int(run, "main_maxrss_kib", 0);
	r.complete = json_is_true(json_object_get(run, "complete"));
	snprintf(r.stop_reason, sizeof(r.stop_reason), "the PyTorch side did not hand over every batch");
	if (o.workers <= 0 || r.end_ns < r.start_ns) {
		errf(err, errlen, "'%s': no workers or no E2E window in config.json/run.json", dir);
		goto out;
	}
	if (isnan(r.main_cpu_s))
		r.main_cpu_s = 0;
	wcpu = calloc((size_t)o.workers, sizeof(*wcpu));
	wrss = calloc((size_t)o.workers, sizeof(*wrss));
	if (!wcpu || !wrss) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	/* a worker id per epoch (non-persistent workers): CPU adds up, RSS peaks */
	ws = json_object_get(run, "workers");
	for (size_t i = 0; i < json_array_size(ws); i++) {
		json_t *w = json_array_get(ws, i);
		long long id = jget_int(w, "worker_id", -1);
		if (id < 0 || id >= o.workers)
			continue;
		wcpu[id] += isnan(jget_num(w, "cpu_s")) ? 0 : jget_num(w, "cpu_s");
		if (jget_int(w, "maxrss_kib", 0) > wrss[id])
			wrss[id] = (long)jget_int(w, "maxrss_kib", 0);
	}
	r.worker_cpu_s = wcpu;
	r.worker_maxrss_kib = wrss;
	/* through the one adapter: no counters, no usage, noise 0 as before */
	struct analysis_opts ao;
	run_analysis_opts(&o, &r, NULL, NULL, NULL, &ao);
	ao.others_cpu_pct = ao.steal_pct = ao.load1 = 0;
	s->complete = ao.complete;
	v = json_object_get(run, "pin_memory_effective");
	if (json_is_boolean(v))
		s->pin_effective = json_is_true(v);
	v = json_object_get(run, "versions");
	snprintf(s->versions, sizeof(s->versions),
		 "torch %s, torchvision %s, Pillow %s (libjpeg%s, API %s%s%s), numpy %s, Python %s",
		 jget_str(v, "torch", "?"), jget_str(v, "torchvision", "?"), jget_str(v, "pillow", "?"),
		 json_is_true(json_object_get(v, "libjpeg_turbo")) ? "-turbo" : "",
		 jget_str(v, "libjpeg", "?"), jget_str(v, "libjpeg_so", "")[0] ? ", " : "",
		 jget_str(v, "libjpeg_so", ""), jget_str(v, "numpy", "?"), jget_str(v, "python", "?"));
	snprintf(s->cpu_capability, sizeof(s->cpu_capability), "%s",
		 jget_str(v, "cpu_capability", ""));
	rc = side_measure(dir, p, s, &ao, err, errlen);
out:
	free(wcpu);
	free(wrss);
	json_decref(cfg);
	json_decref(run);
	return rc;
}

void compare_side_free(struct compare_side *s)
{
	analysis_free(&s->m);
	lotustrace_free(&s->t);
}

/* ---- fidelity ------------------------------------------------------------ */

static double npy_get(const struct npy *a, size_t i)
{
	const char *p = (const char *)a->data + i * a->itemsize;
	const char *d = a->dtype + 1;
	union {
		float f;
		double d;
		int8_t i8;
		uint8_t u8;
		int16_t i16;
		uint16_t u16;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
	} u;

	memcpy(&u, p, a->itemsize);
	if (!strcmp(d, "f4"))
		return u.f;
	if (!strcmp(d, "f8"))
		return u.d;
	if (!strcmp(d, "i1"))
		return u.i8;
	if (!strcmp(d, "u1"))
		return u.u8;
	if (!strcmp(d, "i2"))
		return u.i16;
	if (!strcmp(d, "u2"))
		return u.u16;
	if (!strcmp(d, "i4"))
		return u.i32;
	if (!strcmp(d, "u4"))
		return u.u32;
	if (!strcmp(d, "i8"))
		return (double)u.i64;
	return (double)u.u64;
}

int compare_tensors(const char *dir_a, const char *dir_b, size_t n, struct compare_fidelity *f,
		    char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->first_batch = f->first_sample = -1;
	f->labels_equal = 1;
	for (size_t id = 0; id < n; id++) {
		struct npy a = { 0 }, b = { 0 }, la = { 0 }, lb = { 0 };
		char pa[PATH_MAX], pb[PATH_MAX], pla[PATH_MAX], plb[PATH_MAX];
		int rc = -1;

		snprintf(pa, sizeof(pa), "%s/batch_%zu.npy", dir_a, id);
		snprintf(pb, sizeof(pb), "%s/batch_%zu.npy", dir_b, id);
		snprintf(pla, sizeof(pla), "%s/labels_%zu.npy", dir_a, id);
		snprintf(plb, sizeof(plb), "%s/labels_%zu.npy", dir_b, id);
		if (npy_read(pa, &a, err, errlen) || npy_read(pb, &b, err, errlen) ||
		    npy_read(pla, &la, err, errlen) || npy_read(plb, &lb, err, errlen))
			goto next;
		if (strcmp(a.dtype, "<f4") || strcmp(b.dtype, "<f4")) {
			errf(err, errlen, "batch %zu: images are %s and %s, not float32", id,
				a.dtype, b.dtype);
			goto next;
		}
		rc = 0;
		f->batches++;
		int same_shape = a.ndim == 4 && b.ndim == 4 && a.count == b.count;
		for (int k = 0; same_shape && k < 4; k++)
			same_shape = a.shape[k] == b.shape[k];
		if (!same_shape || la.count != lb.count || la.count != a.shape[0]) {
			if (f->first_batch < 0) {
				f->first_batch = (int64_t)id;
				snprintf(f->shape_note, sizeof(f->shape_note),
					 "batch %zu: %zu against %zu values, %zu against %zu labels",
					 id, a.count, b.count, la.count, lb.count);
			}
			f->labels_equal = 0;
			goto next;
		}
		f->images += a.shape[0];
		size_t per = a.count / (a.shape[0] ? a.shape[0] : 1);
		const float *x = a.data, *y = b.data;
		for (size_t i = 0; i < a.count; i++) {
			double d = fabs((double)x[i] - (double)y[i]);
			/* bitwise too: NaNs, -0 */
			if (memcmp(&x[i], &y[i], sizeof(float))) {
				f->differing++;
				if (f->first_batch < 0 || (f->first_batch == (int64_t)id &&
							   f->first_sample < 0)) {
					f->first_batch = (int64_t)id;
					f->first_sample = (int64_t)(i / per);
				}
			}
			if (d > f->max_abs || isnan(d))
				f->max_abs = isnan(d) ? INFINITY : d;
		}
		f->values += a.count;
		for (size_t i = 0; i < la.count; i++)
			if (npy_get(&la, i) != npy_get(&lb, i)) {
				f->labels_equal = 0;
				if (f->first_batch < 0) {
					f->first_batch = (int64_t)id;
					f->first_sample = (int64_t)i;
				}
				break;
			}
next:
		npy_free(&a);
		npy_free(&b);
		npy_free(&la);
		npy_free(&lb);
		if (rc)
			return -1;
	}
	return 0;
}
