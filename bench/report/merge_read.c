/* ppbench merge: reading the sweep folders, what makes a machine, which
 * folders are compared, and the machines they make (merge.h). */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsutil.h"
#include "describe.h"
#include "log.h"
#include "metrics.h"
#include "resdir.h"
#include "merge_int.h"

/* append to a string buffer (cut when full) */
void merge_cat(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void merge_cat(char *out, size_t n, const char *fmt, ...)
{
	size_t l = strlen(out);
	va_list ap;

	if (l + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(out + l, n - l, fmt, ap);
	va_end(ap);
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *jtext(json_t *o, const char *path)
{
	json_t *v = json_path(o, path);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* a count (CPUs): 0 when absent or not a positive number */
static int jcount(json_t *o, const char *path)
{
	double v = metric_json_get(o, path);
	return v >= 1 && v < 1e9 ? (int)v : 0;
}

/* line ends and other control characters would break a line of the report
 * (CSV fields are quoted and escaped by csv_put, table cells by doc.c) */
void merge_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

int merge_ok_row(const struct sweep_row *r)
{
	return !strcmp(r->status, RUN_OK) && isfinite(r->e2e_s);
}

static int conf_eq(const struct conf *a, const struct conf *b)
{
	return a->workers == b->workers && a->batch_size == b->batch_size && a->gpus == b->gpus;
}

/* the sweep's order: batch, GPUs, then workers */
int merge_conf_cmp(const void *x, const void *y)
{
	const struct conf *a = x, *b = y;
	if (a->batch_size != b->batch_size)
		return a->batch_size < b->batch_size ? -1 : 1;
	if (a->gpus != b->gpus)
		return a->gpus < b->gpus ? -1 : 1;
	return (a->workers > b->workers) - (a->workers < b->workers);
}

void merge_conf_name(const struct conf *c, char *out, size_t n)
{
	errf(out, n, "w%d-b%d-g%d", c->workers, c->batch_size, c->gpus);
}

long merge_conf_find(const struct conf *v, size_t n, const struct conf *c)
{
	for (size_t i = 0; i < n; i++)
		if (conf_eq(&v[i], c))
			return (long)i;
	return -1;
}

const char *merge_num(char *buf, size_t n, double v, const char *fmt)
{
	if (!isfinite(v))
		errf(buf, n, "-");
	else
		errf(buf, n, fmt, v);
	return buf;
}

static void read_slurm_env(struct folder *f)
{
	char p[4096], line[512], job[64] = "", task[64] = "", part[128] = "", feat[128] = "";
	FILE *fp;

	errf(p, sizeof(p), "%s/slurm.env", f->dir);
	fp = fopen_regular(p, FILE_MAX_DOC, NULL, 0);
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *eq = strchr(line, '='), *v;
		if (!eq)
			continue;
		*eq = 0;
		v = eq + 1;
		v[strcspn(v, "\r\n")] = 0;
		if (!strcmp(line, "SLURM_ARRAY_JOB_ID"))
			errf(job, sizeof(job), "%s", v);
		else if (!strcmp(line, "SLURM_ARRAY_TASK_ID"))
			errf(task, sizeof(task), "%s", v);
		else if (!strcmp(line, "SLURM_JOB_PARTITION"))
			errf(part, sizeof(part), "%s", v);
		else if (!strcmp(line, "SLURM_JOB_FEATURES"))
			errf(feat, sizeof(feat), "%s", v);
	}
	fclose(fp);
	errf(f->slurm, sizeof(f->slurm), "job %s_%s", job[0] ? job : "?", task[0] ? task : "?");
	if (part[0])
		merge_cat(f->slurm, sizeof(f->slurm), ", partition %s", part);
	if (feat[0])
		merge_cat(f->slurm, sizeof(f->slurm), ", constraint %s", feat);
	merge_clean(f->slurm);
}

/* physical cores in an hwloc topology.xml (0 if unknown) */
static int count_cores(const char *path)
{
	static const char pat[] = "type=\"Core\"";
	FILE *fp = fopen_regular(path, FILE_MAX_DOC, NULL, 0);
	char line[4096];
	int n = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		for (char *p = line; (p = strstr(p, pat)); p += sizeof(pat) - 1)
			n++;
	fclose(fp);
	return n;
}

/* A run's summary.json of the folder (an ok run's, else any's; NULL: none):
 * its machine block, options, version; f->cores from its topology.xml. */
static json_t *run_summary(struct folder *f)
{
	json_t *sum = NULL;
	char p[4096];
	size_t i;

	for (int pass = 0; pass < 2 && !sum; pass++)
		for (i = 0; i < f->sw.nrows && !sum; i++) {
			const struct sweep_row *r = &f->sw.rows[i];
			if (!r->run_dir[0] || (pass == 0 && !merge_ok_row(r)))
				continue;
			sweep_run_path(&f->sw, r, "summary.json", p, sizeof(p));
			sum = json_load_regular(p, NULL, 0);
			if (sum) {
				sweep_run_path(&f->sw, r, "topology.xml", p, sizeof(p));
				f->cores = count_cores(p);
			}
		}
	return sum;
}

/* The folder's machine: host, CPU model, the CPUs the runs could use, what
 * else makes it one (ident), its cores. */
static void describe_machine(struct folder *f, json_t *doc, json_t *sum)
{
	const char *s;

	s = jtext(doc, "machine.hostname");
	if (!s)
		s = jtext(sum, "machine.hostname");
	errf(f->host, sizeof(f->host), "%s", s ? s : "unknown-host");
	s = jtext(doc, "machine.cpu_model");
	if (!s)
		s = jtext(sum, "machine.cpu_model");
	errf(f->cpu, sizeof(f->cpu), "%s", s ? s : "unknown CPU");
	merge_clean(f->host);
	merge_clean(f->cpu);
	/* the CPUs the runs could use (affinity, cpuset, quota), else online */
	f->cpus = jcount(sum, "machine.cpus_usable");
	if (!f->cpus)
		f->cpus = jcount(doc, "machine.cpus_usable");
	if (!f->cpus)
		f->cpus = jcount(doc, "machine.cpus_online");
	if (!f->cpus)
		f->cpus = jcount(sum, "machine.cpus_online");
	{
		json_t *mach = json_object_get(sum ? sum : doc, "machine");
		const char *list = jtext(mach, "cpus_allowed_list");
		json_t *smt = json_object_get(mach, "smt_active");
		const char *gov = jtext(mach, "governor");
		const char *kern = jtext(mach, "kernel.release");
		errf(f->cpulist, sizeof(f->cpulist), "%s", list ? list : "?");
		double usable = metric_json_get(mach, "cpus_usable");
		f->usable_cpus = usable;
		if (isnan(usable))
			errf(f->usable, sizeof(f->usable), "?");
		else
			errf(f->usable, sizeof(f->usable), "%g", usable);
		errf(f->smt, sizeof(f->smt), "%s",
		    json_is_boolean(smt) ? (json_is_true(smt) ? "on" : "off") : "?");
		errf(f->gov, sizeof(f->gov), "%s", gov ? gov : "?");
		errf(f->kernel, sizeof(f->kernel), "%s", kern ? kern : "?");
		errf(f->ident, sizeof(f->ident), "CPUs %s; usable CPUs %s; SMT %s; governor %s; kernel %s",
		    f->cpulist, f->usable, f->smt, f->gov, f->kernel);
		merge_clean(f->ident);
		s = jtext(doc, "label");
		errf(f->label, sizeof(f->label), "%s", s ? s : "");
		merge_clean(f->label);
	}
	f->cores_known = f->cores > 0;
	if (!f->cores_known || f->cores > f->cpus)
		f->cores = f->cpus;   /* a quota below the cores: the CPUs it allows */
}

/* What the folder's sweep ran: version, dataset, pipeline, run options,
 * page-cache policy, its runs, whether it still runs, its Slurm job. */
static void describe_runs(struct folder *f, json_t *doc, json_t *sum)
{
	json_t *ra, *v;
	const char *s;
	char p[4096];
	size_t i;

	s = jtext(doc, "ppbench_version");
	if (!s)
		s = jtext(doc, "machine.ppbench_version");
	if (!s)
		s = jtext(sum, "ppbench_version");
	if (!s)
		s = jtext(sum, "machine.ppbench_version");
	errf(f->version, sizeof(f->version), "%s", s ? s : "");

	s = jtext(doc, "dataset.fingerprint");
	errf(f->ds_fp, sizeof(f->ds_fp), "%s", s ? s : "");
	s = jtext(doc, "dataset.path");
	if (!s)
		s = jtext(doc, "data");
	if (!s)
		s = jtext(sum, "options.data");
	errf(f->ds_path, sizeof(f->ds_path), "%s", s ? s : "");
	if (dataset_origin_text(json_object_get(doc, "dataset"), f->ds_origin, sizeof(f->ds_origin)) < 0)
		f->ds_origin[0] = 0;
	f->ds_images = metric_json_get(doc, "dataset.images");
	f->ds_bytes = metric_json_get(doc, "dataset.bytes");

	s = jtext(sum, "options.pipeline");
	errf(f->pipeline, sizeof(f->pipeline), "%s", s ? s : "");
	f->run_args[0] = 0;
	ra = json_object_get(doc, "run_args");
	json_array_foreach(ra, i, v)
		if (json_is_string(v))
			merge_cat(f->run_args, sizeof(f->run_args), "%s%s", f->run_args[0] ? " " : "",
			    json_string_value(v));
	if (!f->pipeline[0]) {
		/* no run left a summary: the pipeline named in the options, else the default */
		const char *q = strstr(f->run_args, "--pipeline");
		if (q && (q[10] == ' ' || q[10] == '='))
			errf(f->pipeline, sizeof(f->pipeline), "%.*s", (int)strcspn(q + 11, " "), q + 11);
	}
	s = jtext(doc, "page_cache");
	errf(f->cache, sizeof(f->cache), "%s", s ? s : "");

	for (i = 0; i < f->sw.nrows; i++) {
		const struct sweep_row *r = &f->sw.rows[i];
		f->nruns++;
		f->nok += merge_ok_row(r);
		if (!strcmp(r->status, RUN_PENDING)) {
			f->npending++;
			merge_cat(f->pending, sizeof(f->pending), "%s%s", f->pending[0] ? ", " : "", r->tag);
		}
	}
	/* a sweep still running holds its .lock (ppbench sweep, ls) */
	errf(p, sizeof(p), "%s/.lock", f->dir);
	f->running = results_dir_held(p) == 1;
	read_slurm_env(f);
}

/* The identity and the machine of a loaded folder. */
void merge_describe(struct folder *f)
{
	json_t *sum = run_summary(f);

	describe_machine(f, f->sw.doc, sum);
	describe_runs(f, f->sw.doc, sum);
	json_decref(sum);
}

/* Add dir (a sweep folder), or the sweep folders inside it. 0, or -1 with err. */
int merge_add_dir(struct merge *m, const char *dir, char *err, size_t errlen)
{
	char p[4096];
	struct dirent **ents = NULL;
	int n, found = 0, rc = 0;

	errf(p, sizeof(p), "%s/sweep.json", dir);
	if (is_file(p)) {
		struct folder *nf = realloc(m->folders, (m->nfolders + 1) * sizeof(*nf));
		struct folder *f;
		if (!nf) {
			errf(err, errlen, "out of memory");
			return -1;
		}
		m->folders = nf;
		f = &nf[m->nfolders];
		memset(f, 0, sizeof(*f));
		errf(f->dir, sizeof(f->dir), "%s", dir);
		for (size_t l = strlen(f->dir); l > 1 && f->dir[l - 1] == '/'; l--)
			f->dir[l - 1] = 0;
		for (size_t i = 0; i < m->nfolders; i++)
			if (!strcmp(m->folders[i].dir, f->dir))
				return 0;       /* named twice */
		if (sweep_load(&f->sw, f->dir, err, errlen))
			return -1;
		m->nfolders++;
		errf(f->name, sizeof(f->name), "%s", strrchr(f->dir, '/') ? strrchr(f->dir, '/') + 1 :
		    f->dir);
		f->machine = -1;
		merge_describe(f);
		return 0;
	}
	if (!is_dir(dir)) {
		errf(err, errlen, "cannot read '%s': %s", dir, errno ? strerror(errno) : "not a folder");
		return -1;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		errf(err, errlen, "cannot read '%s': %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!rc && ents[i]->d_name[0] != '.') {
			char sub[4096];
			errf(sub, sizeof(sub), "%s/%s", dir, ents[i]->d_name);
			errf(p, sizeof(p), "%s/sweep.json", sub);
			if (is_file(p)) {
				found++;
				rc = merge_add_dir(m, sub, err, errlen);
			}
		}
		free(ents[i]);
	}
	free(ents);
	if (!rc && !found) {
		errf(err, errlen, "'%s' is not a sweep folder: no sweep.json in it or in its folders",
		    dir);
		rc = -1;
	}
	return rc;
}

void merge_ds_text(const struct folder *f, char *out, size_t n)
{
	char b[64];

	if (f->ds_fp[0]) {
		errf(out, n, "fingerprint %s ('%s')", f->ds_fp, f->ds_path);
		return;
	}
	errf(out, n, "'%s'", f->ds_path[0] ? f->ds_path : "?");
	if (isfinite(f->ds_images))
		merge_cat(out, n, " (%.0f images, %s MB%s%s)", f->ds_images,
		    merge_num(b, sizeof(b), f->ds_bytes / 1e6, "%.1f"), f->ds_origin[0] ? "; " : "", f->ds_origin);
}

static int same_dataset(const struct folder *a, const struct folder *b)
{
	if (a->ds_fp[0] && b->ds_fp[0])
		return !strcmp(a->ds_fp, b->ds_fp);
	if (strcmp(a->ds_path, b->ds_path))
		return 0;
	/* a folder regenerated with another profile or seed at the same path */
	if (a->ds_origin[0] && b->ds_origin[0] && strcmp(a->ds_origin, b->ds_origin))
		return 0;
	if (isfinite(a->ds_images) && isfinite(b->ds_images) && a->ds_images != b->ds_images)
		return 0;
	if (isfinite(a->ds_bytes) && isfinite(b->ds_bytes) && a->ds_bytes != b->ds_bytes)
		return 0;
	return 1;
}

static int same_identity(const struct folder *a, const struct folder *b)
{
	return same_dataset(a, b) && !strcmp(a->pipeline, b->pipeline) &&
	       !strcmp(a->version, b->version) && !strcmp(a->run_args, b->run_args) &&
	       !strcmp(a->cache, b->cache);
}

/* What differs between f and the reference folder r, in words. */
static void differences(const struct folder *f, const struct folder *r, char *out, size_t n)
{
	char x[1200], y[1200];

	out[0] = 0;
	if (!same_dataset(f, r)) {
		merge_ds_text(f, x, sizeof(x));
		merge_ds_text(r, y, sizeof(y));
		merge_cat(out, n, "%sdataset %s, not %s", out[0] ? "; " : "", x, y);
	}
	if (strcmp(f->pipeline, r->pipeline))
		merge_cat(out, n, "%spipeline '%s', not '%s'", out[0] ? "; " : "",
		    f->pipeline[0] ? f->pipeline : "?", r->pipeline[0] ? r->pipeline : "?");
	if (strcmp(f->version, r->version))
		merge_cat(out, n, "%sppbench %s, not %s", out[0] ? "; " : "",
		    f->version[0] ? f->version : "(version not recorded)",
		    r->version[0] ? r->version : "(version not recorded)");
	if (strcmp(f->run_args, r->run_args))
		merge_cat(out, n, "%srun options '%s', not '%s'", out[0] ? "; " : "", f->run_args,
		    r->run_args);
	if (strcmp(f->cache, r->cache))
		merge_cat(out, n, "%spage cache %s, not %s", out[0] ? "; " : "", f->cache, r->cache);
}

/* The largest group of folders with the same identity (ties: the first
 * named) is compared; the others are not, with what differed. Folders with
 * no ok run are not compared either. Returns the reference folder, -1 if
 * none has an ok run. */
long merge_choose_compared(struct merge *m)
{
	long ref = -1;
	size_t best = 0;

	for (size_t i = 0; i < m->nfolders; i++) {
		size_t k = 0;
		if (!m->folders[i].nok)
			continue;
		for (size_t j = 0; j < m->nfolders; j++)
			k += m->folders[j].nok && same_identity(&m->folders[i], &m->folders[j]);
		if (k > best) {
			best = k;
			ref = (long)i;
		}
	}
	for (size_t i = 0; i < m->nfolders; i++) {
		struct folder *f = &m->folders[i];
		if (!f->nok) {
			errf(f->why, sizeof(f->why), "no run of this sweep succeeded");
			continue;
		}
		if (same_identity(f, &m->folders[ref])) {
			f->compared = 1;
			continue;
		}
		differences(f, &m->folders[ref], f->why, sizeof(f->why));
	}
	return ref;
}

/* What sets f apart from the other compared folders of its host (or CPU):
 * the parts of its identity that differ ("CPUs 0; SMT off"), "" if none. */
static void ident_diff(const struct merge *m, const struct folder *f, char *out, size_t n)
{
	int d[5] = { 0 };
	out[0] = 0;
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *g = &m->folders[i];
		if (g == f || !g->compared ||
		    (m->by_cpu ? strcmp(g->cpu, f->cpu) : strcmp(g->host, f->host)))
			continue;
		d[0] |= strcmp(g->cpulist, f->cpulist) != 0;
		d[1] |= strcmp(g->smt, f->smt) != 0;
		d[2] |= strcmp(g->gov, f->gov) != 0;
		d[3] |= strcmp(g->kernel, f->kernel) != 0;
		/* the same CPUs, another quota */
		d[4] |= !strcmp(g->cpulist, f->cpulist) && strcmp(g->usable, f->usable);
	}
	if (d[0])
		merge_cat(out, n, "%sCPUs %s", out[0] ? "; " : "", f->cpulist);
	if (d[4])
		merge_cat(out, n, "%susable CPUs %s", out[0] ? "; " : "", f->usable);
	if (d[1])
		merge_cat(out, n, "%sSMT %s", out[0] ? "; " : "", f->smt);
	if (d[2])
		merge_cat(out, n, "%sgovernor %s", out[0] ? "; " : "", f->gov);
	if (d[3])
		merge_cat(out, n, "%skernel %s", out[0] ? "; " : "", f->kernel);
}

int merge_build_machines(struct merge *m, char *err, size_t errlen)
{
	m->mach = calloc(m->nfolders ? m->nfolders : 1, sizeof(*m->mach));
	if (!m->mach)
		goto oom;
	for (size_t i = 0; i < m->nfolders; i++) {
		struct folder *f = &m->folders[i];
		struct machine *mc;
		char key[384];
		size_t k;

		if (!f->compared)
			continue;
		/* sweeps whose identities differ are never one machine */
		if (m->by_cpu)
			errf(key, sizeof(key), "%s\x1f%d\x1f%s\x1f%s", f->cpu, f->cpus, f->ident, f->label);
		else
			errf(key, sizeof(key), "%s\x1f%s\x1f%s", f->host, f->ident, f->label);
		for (k = 0; k < m->nmach; k++)
			if (!strcmp(m->mach[k].key, key))
				break;
		mc = &m->mach[k];
		if (k == m->nmach) {
			m->nmach++;
			errf(mc->key, sizeof(mc->key), "%s", key);
			if (m->by_cpu)
				errf(mc->label, sizeof(mc->label), "%s (%d CPU%s)", f->cpu, f->cpus,
				     plural_s(f->cpus));
			else
				errf(mc->label, sizeof(mc->label), "%s", f->host);
			char diff[256];
			ident_diff(m, f, diff, sizeof(diff));
			if (f->label[0] || diff[0])
				merge_cat(mc->label, sizeof(mc->label), " [%s%s%s]", f->label,
				    f->label[0] && diff[0] ? "; " : "", diff);
			errf(mc->cpu, sizeof(mc->cpu), "%s", f->cpu);
			mc->cpus = f->cpus;
			mc->cores = f->cores;
			mc->cores_known = f->cores_known;
			mc->usable_cpus = f->usable_cpus;
			mc->price = NAN;
			mc->best = mc->own_best = -1;
		}
		f->machine = (int)k;
		{
			char pat[300];
			errf(pat, sizeof(pat), " %s ", f->host);
			char have[600];
			errf(have, sizeof(have), " %s ", mc->hosts);
			if (!strstr(have, pat))
				merge_cat(mc->hosts, sizeof(mc->hosts), "%s%s", mc->hosts[0] ? " " : "", f->host);
		}
		if (!mc->cores_known && f->cores_known) {
			mc->cores = f->cores;
			mc->cores_known = 1;
		}
		struct sweep_row *nr = realloc(mc->rows, (mc->nrows + f->sw.nrows + 1) * sizeof(*nr));
		if (!nr)
			goto oom;
		mc->rows = nr;
		for (size_t r = 0; r < f->sw.nrows; r++) {
			nr[mc->nrows] = f->sw.rows[r];
			nr[mc->nrows].part = (int)i;
			mc->nrows++;
		}
	}
	return 0;
oom:
	errf(err, errlen, "out of memory");
	return -1;
}
