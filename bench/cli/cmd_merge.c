/* ppbench merge DIR...: sweep folders from several machines as one table,
 * figures with one line per machine, and a comparison report (bench/report/merge.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "commands.h"
#include "doc.h"
#include "escape.h"
#include "fsutil.h"
#include "describe.h"
#include "log.h"
#include "merge.h"
#include "metrics.h"
#include "model.h"
#include "plot.h"
#include "report.h"
#include "resdir.h"

#define MAX_OPS MERGE_MAX_OPS
#define MAX_SERIES 64             /* (batch, GPUs) pairs of the compared configurations */

static const char usage_line[] =
	"ppbench merge DIR... [--price NAME=USD_PER_HOUR ...] [--by host|cpu] [--model on|off] "
	"[--out DIR]";

/* one configuration: workers, batch size, GPUs */
struct conf {
	int workers, batch_size, gpus;
};

/* one sweep folder */
struct folder {
	char dir[2048];
	char name[256];
	struct sweep sw;
	char host[256], cpu[256];
	/* what, besides the host, makes a machine: the CPUs the runs could use
	 * (their list, and how many a cgroup quota left usable), SMT, the
	 * governor, the kernel, and the sweep's --label */
	char cpulist[64], usable[32], smt[8], gov[32], kernel[96];
	char ident[256], label[128];
	int cpus, cores, cores_known;
	double usable_cpus;           /* machine.cpus_usable as recorded (a quota may make it 0.5); NaN: not recorded */
	char version[64];
	char ds_fp[128], ds_path[1024];
	char ds_origin[160];          /* profile, generator version, seed; "" if not recorded */
	double ds_images, ds_bytes;
	char pipeline[512], run_args[1024], cache[16];
	char slurm[256];              /* "job 12_3, partition p, constraint c" */
	int nruns, nok;
	int running;                  /* a sweep still holds its .lock */
	char pending[512];            /* the tags of its runs not finished yet */
	int npending;
	int compared;
	char why[1536];               /* not compared: what differed */
	int machine;                  /* index into the machines, -1: not compared */
};

/* the model at one configuration (--model on) */
struct model_point {
	double e2e_s, images_per_s, gpu_util_pct;   /* NaN: not modelled */
	int src_workers;              /* the workers of the run it was modelled from */
};

/* one machine: the compared folders that share a host name (or a CPU model) */
struct machine {
	char key[384], label[320], hosts[512], cpu[256];
	int cpus, cores, cores_known;
	double usable_cpus;           /* as in struct folder */
	double price;                 /* USD per hour, NaN: not given */
	size_t nrows;
	struct sweep_row *rows;       /* the runs of its folders */
	size_t nown;
	struct conf *own;             /* configurations with an ok run */
	struct merge_point *ownpt;    /* [nown] */
	struct merge_point *pt;       /* [noverlap] */
	long best, own_best;          /* in pt / ownpt (best: among the clean ones when
					 there are any); -1: none */
	int best_clean;               /* best is clean (merge_point_clean) */
	struct finding knee[MAX_SERIES];   /* the knee of each series (struct merge.bg) */
	struct model_point *mod;      /* [noverlap], --model on */
	char model_why[512];          /* a series that could not be modelled: why */
};

struct fig {
	char name[64];
	char title[160];
	int drawn;
	char why[320];
};

struct merge {
	const char *out;
	int by_cpu;
	size_t nfolders;
	struct folder *folders;
	size_t nmach;
	struct machine *mach;
	size_t noverlap;
	struct conf *overlap;
	size_t nbg;
	struct conf bg[MAX_SERIES];   /* the (batch, GPUs) series of the overlap (w = 0) */
	int model;                    /* --model on: the model's lines beside the measured ones */
	size_t nops;
	char ops[MAX_OPS][40];
	long op_conf;                 /* overlap index the per-op figure shows, -1: none */
	int max_wcounts;              /* most worker counts at one (batch, GPUs) of the overlap */
	size_t nfigs;
	struct fig figs[8];
	char top[4096];
};

/* append to a string buffer (cut when full) */
static void cat(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *out, size_t n, const char *fmt, ...)
{
	size_t l = strlen(out);
	va_list ap;

	if (l + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(out + l, n - l, fmt, ap);
	va_end(ap);
}

double merge_cost_per_million(double usd_per_hour, double images_per_s)
{
	if (!(usd_per_hour > 0) || !isfinite(usd_per_hour) || !(images_per_s > 0) ||
	    !isfinite(images_per_s))
		return NAN;
	return usd_per_hour / 3600.0 / images_per_s * 1e6;
}

int merge_parse_price(const char *arg, char *name, size_t n, double *usd, char *err,
		      size_t errlen)
{
	const char *eq = strrchr(arg, '=');
	char *end;
	double v;

	if (!eq || eq == arg || !eq[1]) {
		errf(err, errlen, "--price: '%s' is not NAME=USD_PER_HOUR", arg);
		return -1;
	}
	errno = 0;
	v = strtod(eq + 1, &end);
	if (*end || errno || !(v > 0) || !isfinite(v)) {
		errf(err, errlen, "--price: '%s' is not a positive price per hour", eq + 1);
		return -1;
	}
	if ((size_t)(eq - arg) >= n) {
		errf(err, errlen, "--price: the name in '%s' is too long", arg);
		return -1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = 0;
	*usd = v;
	return 0;
}

/* ---- small helpers ----------------------------------------------------------*/

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

static int make_dirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] && buf[i] != '/')
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		buf[i] = path[i];
	}
	return 0;
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
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static int ok_row(const struct sweep_row *r)
{
	return !strcmp(r->status, RUN_OK) && isfinite(r->e2e_s);
}

static int conf_eq(const struct conf *a, const struct conf *b)
{
	return a->workers == b->workers && a->batch_size == b->batch_size && a->gpus == b->gpus;
}

/* the sweep's order: batch, GPUs, then workers */
static int conf_cmp(const void *x, const void *y)
{
	const struct conf *a = x, *b = y;
	if (a->batch_size != b->batch_size)
		return a->batch_size < b->batch_size ? -1 : 1;
	if (a->gpus != b->gpus)
		return a->gpus < b->gpus ? -1 : 1;
	return (a->workers > b->workers) - (a->workers < b->workers);
}

static void conf_name(const struct conf *c, char *out, size_t n)
{
	errf(out, n, "w%d-b%d-g%d", c->workers, c->batch_size, c->gpus);
}

static long conf_find(const struct conf *v, size_t n, const struct conf *c)
{
	for (size_t i = 0; i < n; i++)
		if (conf_eq(&v[i], c))
			return (long)i;
	return -1;
}

static const char *num(char *buf, size_t n, double v, const char *fmt)
{
	if (!isfinite(v))
		errf(buf, n, "-");
	else
		errf(buf, n, fmt, v);
	return buf;
}

/* ---- reading the folders ----------------------------------------------------*/

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
		cat(f->slurm, sizeof(f->slurm), ", partition %s", part);
	if (feat[0])
		cat(f->slurm, sizeof(f->slurm), ", constraint %s", feat);
	clean(f->slurm);
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

/* The identity and the machine of a loaded folder. */
static void describe(struct folder *f)
{
	json_t *doc = f->sw.doc, *sum = NULL, *ra, *v;
	const char *s;
	char p[4096];
	size_t i;

	/* a run's summary.json: its machine block, options, version */
	for (int pass = 0; pass < 2 && !sum; pass++)
		for (i = 0; i < f->sw.nrows && !sum; i++) {
			const struct sweep_row *r = &f->sw.rows[i];
			if (!r->run_dir[0] || (pass == 0 && !ok_row(r)))
				continue;
			sweep_run_path(&f->sw, r, "summary.json", p, sizeof(p));
			sum = json_load_regular(p, NULL, 0);
			if (sum) {
				sweep_run_path(&f->sw, r, "topology.xml", p, sizeof(p));
				f->cores = count_cores(p);
			}
		}

	s = jtext(doc, "machine.hostname");
	if (!s)
		s = jtext(sum, "machine.hostname");
	errf(f->host, sizeof(f->host), "%s", s ? s : "unknown-host");
	s = jtext(doc, "machine.cpu_model");
	if (!s)
		s = jtext(sum, "machine.cpu_model");
	errf(f->cpu, sizeof(f->cpu), "%s", s ? s : "unknown CPU");
	clean(f->host);
	clean(f->cpu);
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
		clean(f->ident);
		s = jtext(doc, "label");
		errf(f->label, sizeof(f->label), "%s", s ? s : "");
		clean(f->label);
	}
	f->cores_known = f->cores > 0;
	if (!f->cores_known || f->cores > f->cpus)
		f->cores = f->cpus;   /* a quota below the cores: the CPUs it allows */

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
			cat(f->run_args, sizeof(f->run_args), "%s%s", f->run_args[0] ? " " : "",
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
		f->nok += ok_row(r);
		if (!strcmp(r->status, RUN_PENDING)) {
			f->npending++;
			cat(f->pending, sizeof(f->pending), "%s%s", f->pending[0] ? ", " : "", r->tag);
		}
	}
	/* a sweep still running holds its .lock (ppbench sweep, ls) */
	errf(p, sizeof(p), "%s/.lock", f->dir);
	f->running = results_dir_held(p) == 1;
	read_slurm_env(f);
	json_decref(sum);
}

/* Add dir (a sweep folder), or the sweep folders inside it. 0, or -1 with err. */
static int add_dir(struct merge *m, const char *dir, char *err, size_t errlen)
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
		describe(f);
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
				rc = add_dir(m, sub, err, errlen);
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

/* ---- which folders are compared -------------------------------------------*/

static void ds_text(const struct folder *f, char *out, size_t n)
{
	char b[64];

	if (f->ds_fp[0]) {
		errf(out, n, "fingerprint %s ('%s')", f->ds_fp, f->ds_path);
		return;
	}
	errf(out, n, "'%s'", f->ds_path[0] ? f->ds_path : "?");
	if (isfinite(f->ds_images))
		cat(out, n, " (%.0f images, %s MB%s%s)", f->ds_images,
		    num(b, sizeof(b), f->ds_bytes / 1e6, "%.1f"), f->ds_origin[0] ? "; " : "", f->ds_origin);
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
		ds_text(f, x, sizeof(x));
		ds_text(r, y, sizeof(y));
		cat(out, n, "%sdataset %s, not %s", out[0] ? "; " : "", x, y);
	}
	if (strcmp(f->pipeline, r->pipeline))
		cat(out, n, "%spipeline '%s', not '%s'", out[0] ? "; " : "",
		    f->pipeline[0] ? f->pipeline : "?", r->pipeline[0] ? r->pipeline : "?");
	if (strcmp(f->version, r->version))
		cat(out, n, "%sppbench %s, not %s", out[0] ? "; " : "",
		    f->version[0] ? f->version : "(version not recorded)",
		    r->version[0] ? r->version : "(version not recorded)");
	if (strcmp(f->run_args, r->run_args))
		cat(out, n, "%srun options '%s', not '%s'", out[0] ? "; " : "", f->run_args,
		    r->run_args);
	if (strcmp(f->cache, r->cache))
		cat(out, n, "%spage cache %s, not %s", out[0] ? "; " : "", f->cache, r->cache);
}

/* The largest group of folders with the same identity (ties: the first
 * named) is compared; the others are not, with what differed. Folders with
 * no ok run are not compared either. Returns the reference folder, -1 if
 * none has an ok run. */
static long choose_compared(struct merge *m)
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

/* ---- machines, the overlap, the aggregates -----------------------------------*/

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
		cat(out, n, "%sCPUs %s", out[0] ? "; " : "", f->cpulist);
	if (d[4])
		cat(out, n, "%susable CPUs %s", out[0] ? "; " : "", f->usable);
	if (d[1])
		cat(out, n, "%sSMT %s", out[0] ? "; " : "", f->smt);
	if (d[2])
		cat(out, n, "%sgovernor %s", out[0] ? "; " : "", f->gov);
	if (d[3])
		cat(out, n, "%skernel %s", out[0] ? "; " : "", f->kernel);
}

static int build_machines(struct merge *m, char *err, size_t errlen)
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
				cat(mc->label, sizeof(mc->label), " [%s%s%s]", f->label,
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
				cat(mc->hosts, sizeof(mc->hosts), "%s%s", mc->hosts[0] ? " " : "", f->host);
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

static int point_of(const struct merge *m, const struct machine *mc, const struct conf *c,
		    struct merge_point *p)
{
	return merge_point_of(mc->rows, mc->nrows, c->workers, c->batch_size, c->gpus, mc->cpus,
			      (const char (*)[40])m->ops, m->nops, p);
}

/* is point a better than point b (by its median images/s; b NULL: yes) */
static int better(const struct merge_point *a, const struct merge_point *b)
{
	return !b || a->images_per_s.median > b->images_per_s.median;
}

/* images/s per core of a point's images/s (NaN figures when the cores are unknown) */
static struct stats_summary per_core(const struct machine *mc, const struct merge_point *p)
{
	struct stats_summary s = p->images_per_s;
	double cores = mc->cores;
	if (mc->usable_cpus > 0 && mc->usable_cpus < cores)
		cores = mc->usable_cpus;  /* a quota of half a CPU: half a core's worth */
	merge_scale(&s, cores > 0 ? 1.0 / cores : NAN);
	return s;
}

static int analyse(struct merge *m, char *err, size_t errlen)
{
	/* the ops (the whole-transform span overlaps the per-sample ops: left out) */
	for (size_t i = 0; i < m->nmach; i++)
		for (size_t r = 0; r < m->mach[i].nrows; r++)
			for (size_t j = 0; j < m->mach[i].rows[r].nops; j++) {
				const char *name = m->mach[i].rows[r].ops[j].name;
				size_t k;
				if (!strcmp(name, "transform"))
					continue;
				for (k = 0; k < m->nops; k++)
					if (!strcmp(m->ops[k], name))
						break;
				if (k == m->nops && k < MAX_OPS)
					errf(m->ops[m->nops++], 40, "%s", name);
			}

	/* each machine's own configurations */
	for (size_t i = 0; i < m->nmach; i++) {
		struct machine *mc = &m->mach[i];
		mc->own = calloc(mc->nrows + 1, sizeof(*mc->own));
		if (!mc->own)
			goto oom;
		for (size_t r = 0; r < mc->nrows; r++) {
			struct conf c = { mc->rows[r].workers, mc->rows[r].batch_size, mc->rows[r].gpus };
			if (ok_row(&mc->rows[r]) && conf_find(mc->own, mc->nown, &c) < 0)
				mc->own[mc->nown++] = c;
		}
		qsort(mc->own, mc->nown, sizeof(*mc->own), conf_cmp);
		mc->ownpt = calloc(mc->nown + 1, sizeof(*mc->ownpt));
		if (!mc->ownpt)
			goto oom;
		for (size_t k = 0; k < mc->nown; k++) {
			if (point_of(m, mc, &mc->own[k], &mc->ownpt[k]))
				goto oom;
			if (better(&mc->ownpt[k], mc->own_best < 0 ? NULL : &mc->ownpt[mc->own_best]))
				mc->own_best = (long)k;
		}
	}

	/* the configurations every machine ran */
	m->overlap = calloc(m->nmach ? m->mach[0].nown + 1 : 1, sizeof(*m->overlap));
	if (!m->overlap)
		goto oom;
	for (size_t k = 0; m->nmach && k < m->mach[0].nown; k++) {
		size_t i;
		for (i = 1; i < m->nmach; i++)
			if (conf_find(m->mach[i].own, m->mach[i].nown, &m->mach[0].own[k]) < 0)
				break;
		if (i == m->nmach)
			m->overlap[m->noverlap++] = m->mach[0].own[k];
	}

	/* the machines there */
	m->op_conf = -1;
	for (size_t k = 0; k < m->noverlap; k++) {
		const struct conf *c = &m->overlap[k], *o;
		struct conf bg = { 0, c->batch_size, c->gpus };
		int wc = 0;
		if (conf_find(m->bg, m->nbg, &bg) < 0 && m->nbg < MAX_SERIES)
			m->bg[m->nbg++] = bg;
		if (m->op_conf < 0) {
			m->op_conf = (long)k;
		} else {
			o = &m->overlap[m->op_conf];
			if (c->workers < o->workers || (c->workers == o->workers && (c->batch_size < o->batch_size || (c->batch_size == o->batch_size && c->gpus < o->gpus))))
				m->op_conf = (long)k;
		}
		for (size_t j = 0; j < m->noverlap; j++)
			wc += m->overlap[j].batch_size == c->batch_size && m->overlap[j].gpus == c->gpus;
		if (wc > m->max_wcounts)
			m->max_wcounts = wc;
	}
	for (size_t i = 0; i < m->nmach; i++) {
		struct machine *mc = &m->mach[i];
		struct sweep_row *kr;
		long best_any = -1;

		mc->pt = calloc(m->noverlap + 1, sizeof(*mc->pt));
		kr = calloc(mc->nrows + 1, sizeof(*kr));
		if (!mc->pt || !kr) {
			free(kr);
			goto oom;
		}
		/* the best configuration: the most images/s among the clean ones,
		 * else among all (and said) */
		for (size_t k = 0; k < m->noverlap; k++) {
			struct merge_point *p = &mc->pt[k];
			if (point_of(m, mc, &m->overlap[k], p)) {
				free(kr);
				goto oom;
			}
			if (better(p, best_any < 0 ? NULL : &mc->pt[best_any]))
				best_any = (long)k;
			if (merge_point_clean(p) && better(p, mc->best < 0 ? NULL : &mc->pt[mc->best]))
				mc->best = (long)k;
		}
		mc->best_clean = mc->best >= 0;
		if (mc->best < 0)
			mc->best = best_any;
		/* the knee of each (batch, GPUs) series by the report's rule, on
		 * the compared configurations only */
		for (size_t s = 0; s < m->nbg; s++) {
			size_t nk = 0;
			for (size_t r = 0; r < mc->nrows; r++) {
				struct conf c = { mc->rows[r].workers, mc->rows[r].batch_size, mc->rows[r].gpus };
				long k = conf_find(m->overlap, m->noverlap, &c);
				if (k < 0 || !ok_row(&mc->rows[r]) || c.batch_size != m->bg[s].batch_size || c.gpus != m->bg[s].gpus)
					continue;
				kr[nk] = mc->rows[r];
				kr[nk].part = 0;
				kr[nk].config = (int)k + 1;
				nk++;
			}
			struct judge_ctx cx = { .cpus = mc->cpus, .paper = NULL };
			finding_diminishing(kr, nk, &cx, &mc->knee[s]);
		}
		free(kr);
	}
	return 0;
oom:
	errf(err, errlen, "out of memory");
	return -1;
}

static int apply_prices(struct merge *m, char **names, double *usd, size_t n, char *err,
			size_t errlen)
{
	for (size_t p = 0; p < n; p++) {
		int hit = 0;
		for (size_t i = 0; i < m->nmach; i++) {
			struct machine *mc = &m->mach[i];
			char have[600], pat[300];
			errf(have, sizeof(have), " %s ", mc->hosts);
			errf(pat, sizeof(pat), " %s ", names[p]);
			if (!strcmp(mc->label, names[p]) || !strcmp(mc->cpu, names[p]) ||
			    strstr(have, pat)) {
				mc->price = usd[p];
				hit = 1;
			}
		}
		for (size_t i = 0; i < m->nfolders && !hit; i++)
			hit = !strcmp(m->folders[i].host, names[p]) || !strcmp(m->folders[i].cpu, names[p]);
		if (!hit) {
			char list[1024] = "";
			for (size_t i = 0; i < m->nfolders; i++) {
				char pat[300];
				errf(pat, sizeof(pat), "'%s'", m->folders[i].host);
				if (!strstr(list, pat))
					cat(list, sizeof(list), "%s%s", list[0] ? ", " : "", pat);
			}
			errf(err, errlen, "--price: no machine named '%s' (the hosts: %s)", names[p], list);
			return -1;
		}
	}
	return 0;
}

/* ---- the tables ---------------------------------------------------------------*/

static void put_num(FILE *f, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.10g", v);
}

/* ",median,lo,hi" of s (empty when not known) */
static void put_spread(FILE *f, const struct stats_summary *s)
{
	put_num(f, s ? s->median : NAN);
	put_num(f, s ? s->lo : NAN);
	put_num(f, s ? s->hi : NAN);
}

/* "ci95" or "min-max": what lo and hi are */
static const char *interval_name(const struct stats_summary *s)
{
	return !s || !s->n ? "" : s->has_ci ? "ci95" : "min-max";
}

/* the series (index in m->bg) of configuration c, -1 if none */
static long series_of(const struct merge *m, const struct conf *c)
{
	for (size_t s = 0; s < m->nbg; s++)
		if (m->bg[s].batch_size == c->batch_size && m->bg[s].gpus == c->gpus)
			return (long)s;
	return -1;
}

/* summary.csv: the sweep's columns (sweep_write_csv) after host columns */
static int write_summary(const struct merge *m, const char *path, char *err, size_t errlen)
{
	struct sweep all;
	char tmp[4096], tmp2[4096], *line = NULL;
	size_t cap = 0, total = 0, row = 0;
	FILE *in = NULL, *out = NULL;
	int rc = -1;

	memset(&all, 0, sizeof(all));
	for (size_t i = 0; i < m->nfolders; i++)
		total += m->folders[i].sw.nrows;
	all.rows = calloc(total + 1, sizeof(*all.rows));
	if (!all.rows) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < m->nfolders; i++)
		for (size_t r = 0; r < m->folders[i].sw.nrows; r++) {
			all.rows[all.nrows] = m->folders[i].sw.rows[r];
			all.rows[all.nrows].part = (int)i;
			all.nrows++;
		}
	errf(all.dir, sizeof(all.dir), "%s", m->out);
	errf(tmp, sizeof(tmp), "%s.sweep", path);
	errf(tmp2, sizeof(tmp2), "%s.tmp", path);
	if (sweep_write_csv(&all, tmp, err, errlen))
		goto out;
	in = fopen(tmp, "r");
	out = fopen(tmp2, "w");
	if (!in || !out) {
		errf(err, errlen, "cannot write '%s': %s", tmp2, strerror(errno));
		goto out;
	}
	for (ssize_t len; (len = getline(&line, &cap, in)) > 0;) {
		if (line[0] == '#') {
			fputs(line, out);
			continue;
		}
		if (row == 0) {
			fprintf(out, "host,cpu_model,cpus_online,cores,machine,sweep,compared,in_overlap,"
				"noisy,oversubscribed,config_runs,config_images_per_s,"
				"config_images_per_s_lo,config_images_per_s_hi,config_e2e_s,"
				"config_e2e_s_lo,config_e2e_s_hi,config_interval,%s", line);
		} else if (row - 1 < all.nrows) {
			const struct sweep_row *r = &all.rows[row - 1];
			const struct folder *f = &m->folders[r->part];
			const struct machine *mc = f->machine >= 0 ? &m->mach[f->machine] : NULL;
			struct conf c = { r->workers, r->batch_size, r->gpus };
			int in_ov = f->compared && conf_find(m->overlap, m->noverlap, &c) >= 0;
			long k = mc && ok_row(r) ? conf_find(mc->own, mc->nown, &c) : -1;
			const struct merge_point *p = k >= 0 ? &mc->ownpt[k] : NULL;
			csv_put(out, f->host);
			csv_put_next(out, f->cpu);
			fprintf(out, ",%d,%d", f->cpus, f->cores);
			csv_put_next(out, mc ? mc->label : "");
			csv_put_next(out, f->name);
			fprintf(out, ",%d,%d", f->compared, in_ov);
			if (ok_row(r))
				fprintf(out, ",%d,%d", merge_row_noisy(r),
					report_oversubscribed(r, f->cpus));
			else
				fputs(",,", out);
			if (p)
				fprintf(out, ",%zu", p->runs);
			else
				fputc(',', out);
			put_spread(out, p ? &p->images_per_s : NULL);
			put_spread(out, p ? &p->e2e_s : NULL);
			csv_put_next(out, interval_name(p ? &p->images_per_s : NULL));
			fprintf(out, ",%s", line);
		}
		row++;
	}
	if (ferror(in) || ferror(out)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		goto out;
	}
	rc = 0;
out:
	free(line);
	free(all.rows);
	if (in)
		fclose(in);
	if (out && fclose(out) && !rc) {
		errf(err, errlen, "cannot write '%s': %s", tmp2, strerror(errno));
		rc = -1;
	}
	unlink(tmp);
	if (!rc && rename(tmp2, path)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(tmp2);
	return rc;
}

/* The machine with the highest median images/s at its best configuration
 * among those whose best is clean (none: among all); -1 if none. */
static long fastest(const struct merge *m, int need_clean)
{
	long f = -1;
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		if (mc->best < 0 || (need_clean && !mc->best_clean))
			continue;
		if (better(&mc->pt[mc->best], f < 0 ? NULL : &m->mach[f].pt[m->mach[f].best]))
			f = (long)i;
	}
	return f;
}

/* USD per million images at a point: from the median, and lo/hi from the
 * images/s interval (the cost falls as images/s rise) */
static void cost_of(const struct machine *mc, const struct merge_point *p, double *med,
		    double *lo, double *hi)
{
	*med = merge_cost_per_million(mc->price, p->images_per_s.median);
	*lo = merge_cost_per_million(mc->price, p->images_per_s.hi);
	*hi = merge_cost_per_million(mc->price, p->images_per_s.lo);
}

static int write_comparison(const struct merge *m, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	long fast = fastest(m, 1);

	if (!f) {
		errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fast < 0)
		fast = fastest(m, 0);
	fprintf(f, "machine,hosts,cpu_model,cpus_online,cores,compared_configs,best_workers,"
		   "best_batch,best_gpus,best_runs,best_clean,best_noisy_runs,"
		   "best_oversubscribed_runs,interval,best_e2e_s,best_e2e_s_lo,best_e2e_s_hi,"
		   "best_images_per_s,best_images_per_s_lo,best_images_per_s_hi,"
		   "images_per_s_per_core,images_per_s_per_core_lo,images_per_s_per_core_hi,"
		   "cpu_ms_per_image,cpu_ms_per_image_lo,cpu_ms_per_image_hi,gpu_util_pct,"
		   "gpu_util_pct_lo,gpu_util_pct_hi,knee_batch,knee_gpus,knee_workers,knee_verdict,"
		   "fastest_over_this,fastest_over_this_lo,fastest_over_this_hi,"
		   "fastest_over_this_verdict,usd_per_hour,usd_per_million_images,"
		   "usd_per_million_images_lo,usd_per_million_images_hi\n");
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		const struct merge_point *p = mc->best >= 0 ? &mc->pt[mc->best] : NULL;
		const struct conf *c = mc->best >= 0 ? &m->overlap[mc->best] : NULL;
		long s = c ? series_of(m, c) : -1;
		struct stats_summary pc;
		double cost[3] = { NAN, NAN, NAN };

		csv_put(f, mc->label);
		csv_put_next(f, mc->hosts);
		csv_put_next(f, mc->cpu);
		fprintf(f, ",%d,%d,%zu,", mc->cpus, mc->cores, m->noverlap);
		if (c)
			fprintf(f, "%d,%d,%d,%zu,%d,%zu,%zu", c->workers, c->batch_size, c->gpus, p->runs, mc->best_clean,
				p->noisy, p->oversubscribed);
		else
			fprintf(f, ",,,,,,");
		csv_put_next(f, interval_name(p ? &p->images_per_s : NULL));
		put_spread(f, p ? &p->e2e_s : NULL);
		put_spread(f, p ? &p->images_per_s : NULL);
		if (p)
			pc = per_core(mc, p);
		put_spread(f, p ? &pc : NULL);
		put_spread(f, p ? &p->cpu_ms_per_image : NULL);
		put_spread(f, p ? &p->gpu_util_pct : NULL);
		if (s >= 0) {
			fprintf(f, ",%d,%d,", c->batch_size, c->gpus);
			if (mc->knee[s].knee_workers)
				fprintf(f, "%d", mc->knee[s].knee_workers);
			csv_put_next(f, verdict_name(mc->knee[s].v));
		} else {
			fputs(",,,,", f);
		}
		if (p && fast >= 0 && (long)i != fast) {
			const struct machine *fm = &m->mach[fast];
			struct merge_ratio r;
			merge_ratio_of(&fm->pt[fm->best].images_per_s, &p->images_per_s, &r);
			put_num(f, r.r);
			put_num(f, r.lo);
			put_num(f, r.hi);
			csv_put_next(f, isfinite(r.r) ? merge_judgement_name(r.v) : "");
		} else {
			fputs(",,,,", f);
		}
		put_num(f, mc->price);
		if (p)
			cost_of(mc, p, &cost[0], &cost[1], &cost[2]);
		for (int k = 0; k < 3; k++)
			put_num(f, cost[k]);
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* ---- figures -------------------------------------------------------------------*/

/* the label of series (machine i, batch b, GPUs g) */
static void series_label(const struct merge *m, size_t i, int b, int g, int several,
			 char *out, size_t n)
{
	errf(out, n, "%s", m->mach[i].label);
	if (several)
		cat(out, n, " b%d / %d GPU%s", b, g, g == 1 ? "" : "s");
}

/* The run a machine's series (batch b, g GPUs) is modelled from: its ok
 * run with the fewest workers (the first repeat); NULL if none. */
static const struct sweep_row *model_source(const struct machine *mc, int b, int g)
{
	const struct sweep_row *src = NULL;
	for (size_t r = 0; r < mc->nrows; r++) {
		const struct sweep_row *x = &mc->rows[r];
		if (ok_row(x) && x->run_dir[0] && x->batch_size == b && x->gpus == g &&
		    (!src || x->workers < src->workers))
			src = x;
	}
	return src;
}

/* --model on: each machine at each compared configuration, modelled
 * (ppbench model) from its series' run with the fewest workers: its costs,
 * settings and machine (model_like_run). Fills mc->mod; a series that
 * cannot be modelled says why in mc->model_why. */
static int model_machines(struct merge *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->nmach; i++) {
		struct machine *mc = &m->mach[i];
		mc->mod = calloc(m->noverlap + 1, sizeof(*mc->mod));
		if (!mc->mod) {
			errf(err, errlen, "out of memory");
			return -1;
		}
		for (size_t k = 0; k < m->noverlap; k++) {
			const struct conf *c = &m->overlap[k];
			const struct sweep_row *src = model_source(mc, c->batch_size, c->gpus);
			struct run_metrics rm;
			char dir[4096], why[512];
			mc->mod[k].e2e_s = mc->mod[k].images_per_s = mc->mod[k].gpu_util_pct = NAN;
			if (!src)
				continue;
			sweep_run_path(&m->folders[src->part].sw, src, "", dir, sizeof(dir));
			if (model_like_run(dir, c->workers, &rm, why, sizeof(why))) {
				if (!mc->model_why[0])
					errf(mc->model_why, sizeof(mc->model_why), "%s", why);
				continue;
			}
			mc->mod[k].e2e_s = rm.e2e_s;
			mc->mod[k].images_per_s = rm.images_per_s;
			mc->mod[k].gpu_util_pct = rm.gpu_util_pct;
			mc->mod[k].src_workers = src->workers;
			analysis_free(&rm);
		}
	}
	return 0;
}

static int write_fig_data(const struct merge *m, const char *dir, char *err, size_t errlen)
{
	char p[4096];
	int series = 0;
	FILE *f;

	errf(p, sizeof(p), "%s/machines_vs_workers.csv", dir);
	f = fopen(p, "w");
	if (!f)
		goto fail;
	fprintf(f, "series,series_label,machine,kind,workers,batch,gpus,runs,interval,e2e_s,e2e_s_lo,"
		   "e2e_s_hi,images_per_s,images_per_s_lo,images_per_s_hi,images_per_s_per_core,"
		   "images_per_s_per_core_lo,images_per_s_per_core_hi,cpu_ms_per_image,"
		   "cpu_ms_per_image_lo,cpu_ms_per_image_hi,gpu_util_pct,gpu_util_pct_lo,"
		   "gpu_util_pct_hi,noisy_runs,oversubscribed_runs\n");
	/* the measured series, then (--model on) the model's */
	for (int model = 0; model <= m->model; model++)
		for (size_t i = 0; i < m->nmach; i++)
			for (size_t s = 0; s < m->nbg; s++) {
				const struct machine *mc = &m->mach[i];
				char label[400], ml[420];
				int any = 0;
				for (size_t k = 0; model && k < m->noverlap; k++)
					any |= m->overlap[k].batch_size == m->bg[s].batch_size && m->overlap[k].gpus == m->bg[s].gpus &&
					       isfinite(mc->mod[k].e2e_s);
				if (model && !any)
					continue;
				series++;
				series_label(m, i, m->bg[s].batch_size, m->bg[s].gpus, m->nbg > 1, label, sizeof(label));
				errf(ml, sizeof(ml), "model: %s", label);
				/* the overlap is in batch, GPUs, workers order: workers ascend */
				for (size_t k = 0; k < m->noverlap; k++) {
					const struct conf *c = &m->overlap[k];
					const struct merge_point *pt = &mc->pt[k];
					if (c->batch_size != m->bg[s].batch_size || c->gpus != m->bg[s].gpus)
						continue;
					fprintf(f, "%d", series);
					csv_put_next(f, model ? ml : label);
					csv_put_next(f, mc->label);
					fprintf(f, ",%s,%d,%d,%d", model ? "model" : "measured", c->workers, c->batch_size,
						c->gpus);
					if (model) {
						const struct model_point *q = &mc->mod[k];
						double pc = mc->cores > 0 ? q->images_per_s / mc->cores : NAN;
						fputs(",,", f);
						put_num(f, q->e2e_s);
						fputs(",,", f);
						put_num(f, q->images_per_s);
						fputs(",,", f);
						put_num(f, pc);
						fputs(",,,,,", f);
						put_num(f, q->gpu_util_pct);
						fputs(",,,,\n", f);
						continue;
					}
					struct stats_summary pc = per_core(mc, pt);
					fprintf(f, ",%zu", pt->runs);
					csv_put_next(f, interval_name(&pt->images_per_s));
					put_spread(f, &pt->e2e_s);
					put_spread(f, &pt->images_per_s);
					put_spread(f, &pc);
					put_spread(f, &pt->cpu_ms_per_image);
					put_spread(f, &pt->gpu_util_pct);
					fprintf(f, ",%zu,%zu\n", pt->noisy, pt->oversubscribed);
				}
			}
	if (ferror(f) | fclose(f))
		goto fail;

	errf(p, sizeof(p), "%s/machines_op_cpu.csv", dir);
	f = fopen(p, "w");
	if (!f)
		goto fail;
	fprintf(f, "op");
	for (size_t i = 0; i < m->nmach; i++)
		csv_put_next(f, m->mach[i].label);
	fputc('\n', f);
	for (size_t k = 0; m->op_conf >= 0 && k < m->nops; k++) {
		int any = 0;
		for (size_t i = 0; i < m->nmach; i++)
			any |= isfinite(m->mach[i].pt[m->op_conf].op_ms[k]);
		if (!any)
			continue;
		csv_put(f, m->ops[k]);
		for (size_t i = 0; i < m->nmach; i++)
			put_num(f, m->mach[i].pt[m->op_conf].op_ms[k]);
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f))
		goto fail;
	return 0;
fail:
	errf(err, errlen, "cannot write '%s': %s", p, strerror(errno ? errno : EIO));
	return -1;
}

/* gnuplot -c plots/SCRIPT args... (output to log); then OUT.png and OUT.svg
 * must be valid. 0, or -1 with why. */
static int run_gnuplot(const char *top, const char *script, const char *log, const char *out,
		       char *const *args, char *why, size_t whylen)
{
	char png[4096], svg[4096];

	errf(png, sizeof(png), "%s.png", out);
	errf(svg, sizeof(svg), "%s.svg", out);
	unlink(png);
	unlink(svg);
	if (plot_run(top, script, (const char *const *)args, log, why, whylen))
		return -1;
	if (!file_has_magic(png, "\x89PNG\r\n\x1a\n", 8, 8) ||
	    !file_has_magic(svg, "<svg", 4, 1024)) {
		errf(why, whylen, "gnuplot wrote no valid PNG and SVG for plots/%s "
		    "(see figures/gnuplot.log)", script);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name, *column, *ylabel, *title;
} vs_figs[] = {
	{ "merge_e2e_vs_workers", "e2e_s", "end-to-end time (s)",
	  "End-to-end time against workers, by machine" },
	{ "merge_images_per_s_vs_workers", "images_per_s", "throughput (images/s)",
	  "Throughput against workers, by machine" },
	{ "merge_images_per_s_per_core_vs_workers", "images_per_s_per_core",
	  "throughput per core (images/s per core)", "Throughput per core against workers" },
	{ "merge_cpu_per_image_vs_workers", "cpu_ms_per_image",
	  "total CPU time per image (ms; workers + main)", "CPU time per image against workers" },
	{ "merge_gpu_util_vs_workers", "gpu_util_pct", "GPU busy (% of the run)",
	  "Simulated GPU utilization against workers" },
};
#define NVS (sizeof(vs_figs) / sizeof(vs_figs[0]))

static void draw_figures(struct merge *m)
{
	char figdir[4096], data[4096], log[4096], out[4096], sub[160], why[320] = "";
	int have_top = !find_top(TOP_OF_PLOTS, m->top, sizeof(m->top));

	errf(figdir, sizeof(figdir), "%s/figures", m->out);
	errf(log, sizeof(log), "%s/gnuplot.log", figdir);
	unlink(log);
	if (!have_top)
		errf(why, sizeof(why), "the plots/ folder is not found (run ppbench from its repository)");
	else if (m->nmach < 1 || !m->noverlap)
		errf(why, sizeof(why), "no configuration ran on every machine");
	for (size_t i = 0; i <= NVS; i++) {
		struct fig *fg = &m->figs[m->nfigs++];
		int op = i == NVS;
		errf(fg->name, sizeof(fg->name), "%s", op ? "merge_op_cpu_per_image" : vs_figs[i].name);
		if (op) {
			char cn[64];
			conf_name(m->op_conf >= 0 ? &m->overlap[m->op_conf] : &(struct conf){ 0, 0, 0 },
				  cn, sizeof(cn));
			errf(sub, sizeof(sub), "at %s, the compared configuration with the fewest workers",
			    cn);
			errf(fg->title, sizeof(fg->title), "CPU time per image, by op (%s)", sub);
		} else {
			errf(fg->title, sizeof(fg->title), "%s", vs_figs[i].title);
		}
		if (why[0]) {
			errf(fg->why, sizeof(fg->why), "%s", why);
			continue;
		}
		errf(out, sizeof(out), "%s/%s", figdir, fg->name);
		if (op) {
			char *args[] = { data, out, sub, NULL };
			errf(data, sizeof(data), "%s/data/machines_op_cpu.csv", figdir);
			if (!m->nops) {
				errf(fg->why, sizeof(fg->why), "the runs recorded no per-op CPU time");
				continue;
			}
			fg->drawn = !run_gnuplot(m->top, "merge_op_cpu.gp", log, out, args, fg->why,
						 sizeof(fg->why));
		} else {
			char *args[] = { data, out, (char *)vs_figs[i].column, (char *)vs_figs[i].ylabel,
					 (char *)vs_figs[i].title, NULL };
			errf(data, sizeof(data), "%s/data/machines_vs_workers.csv", figdir);
			fg->drawn = !run_gnuplot(m->top, "merge_vs_workers.gp", log, out, args, fg->why,
						 sizeof(fg->why));
		}
		if (!fg->drawn && strstr(fg->why, "not installed"))
			errf(why, sizeof(why), "%s", fg->why);
	}
}

/* ---- report.md and report.html (bench/report/doc.c) ----------------------------------*/

static void figure(struct doc *d, const struct fig *fg)
{
	doc_figure(d, fg->name, fg->title, fg->drawn ? NULL : fg->why);
}

static void conf_list(const struct conf *c, size_t n, char *out, size_t len)
{
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		char cn[64];
		conf_name(&c[i], cn, sizeof(cn));
		cat(out, len, "%s%s", i ? ", " : "", cn);
	}
}

static void write_compat(struct doc *d, const struct merge *m, long ref)
{
	const struct folder *r = &m->folders[ref];
	char ds[1300];
	size_t nout = 0;

	doc_h(d, 2, "What is compared");
	ds_text(r, ds, sizeof(ds));
	doc_p(d, "Results are compared only when the sweeps used the same dataset, pipeline, "
		"ppbench version, run options and page-cache policy. The compared sweeps used: "
		"dataset %s; pipeline '%s'; ppbench %s; run options '%s'; page cache %s between runs.",
	     ds, r->pipeline[0] ? r->pipeline : "?",
	     r->version[0] ? r->version : "(version not recorded)", r->run_args, r->cache);
	if (!r->version[0])
		doc_p(d, "Note: these sweep folders do not record the ppbench version (no "
			"\"ppbench_version\" in sweep.json or summary.json), so it could not be checked.");
	if (!r->ds_fp[0] && !isfinite(r->ds_images))
		doc_p(d, "Note: these sweep folders record the dataset by its path only (no image "
			"count, size or fingerprint), so the same path is taken for the same dataset.");
	for (size_t i = 0; i < m->nfolders; i++)
		nout += !m->folders[i].compared;
	if (!nout) {
		if (m->nfolders > 1)
			doc_p(d, "All %zu sweep folders match.", m->nfolders);
		return;
	}
	doc_p(d, "Not compared (%zu of %zu sweep folders):", nout, m->nfolders);
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *f = &m->folders[i];
		if (f->compared)
			continue;
		doc_li(d, "%s (%s): %s", f->name, f->host, f->why);
	}
	doc_list_end(d);
}

static void write_overlap(struct doc *d, const struct merge *m)
{
	char list[4096];
	int differ = 0;

	for (size_t i = 0; i < m->nmach; i++)
		differ |= m->mach[i].nown != m->noverlap;
	conf_list(m->overlap, m->noverlap, list, sizeof(list));
	if (m->nmach < 2) {
		doc_p(d, "One machine: nothing to compare it with; its results are shown as they are.");
		return;
	}
	if (!differ) {
		doc_p(d, "Every machine ran the same %zu configuration%s (workers-batch-GPUs): %s.",
		     m->noverlap, m->noverlap == 1 ? "" : "s", list);
		return;
	}
	if (!m->noverlap) {
		doc_p(d, "The machines ran different configurations and no configuration ran on every "
			"machine: they cannot be compared. Each machine's own configurations are "
			"listed below.");
	} else {
		doc_p(d, "The machines ran different configurations: they are compared only where they "
			"overlap, on the %zu configuration%s that every machine ran (workers-batch-GPUs): "
			"%s. Left out:", m->noverlap, m->noverlap == 1 ? "" : "s", list);
	}
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		char own[4096] = "";
		if (m->noverlap && mc->nown == m->noverlap)
			continue;
		for (size_t j = 0; j < mc->nown; j++) {
			char cn[64];
			if (conf_find(m->overlap, m->noverlap, &mc->own[j]) >= 0)
				continue;
			conf_name(&mc->own[j], cn, sizeof(cn));
			cat(own, sizeof(own), "%s%s", own[0] ? ", " : "", cn);
		}
		doc_li(d, "%s: %s", mc->label, own[0] ? own : "(none)");
	}
	doc_list_end(d);
}

/* "b32 / 2 GPUs: knee at 3 workers (holds)": the knee of series s */
static void knee_text(const struct merge *m, const struct machine *mc, long s, char *out, size_t n)
{
	const struct finding *k;

	if (s < 0) {
		errf(out, n, "-");
		return;
	}
	k = &mc->knee[s];
	errf(out, n, "b%d / %d GPU%s: ", m->bg[s].batch_size, m->bg[s].gpus, m->bg[s].gpus == 1 ? "" : "s");
	if (k->knee_workers)
		cat(out, n, "knee at %d workers (%s)", k->knee_workers, verdict_name(k->v));
	else if (k->v == VERDICT_CANNOT_JUDGE)
		cat(out, n, "%s", verdict_name(k->v));
	else
		cat(out, n, "no knee in range (%s)", verdict_name(k->v));
}

static void write_table(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"machine", "CPU", "CPUs / cores", "best configuration", "images/s",
		"images/s per core", "CPU ms per image", "knee of the best configuration's series",
		"noise", "USD per hour", "USD per million images",
	};
	enum { NC = sizeof(hdr) / sizeof(hdr[0]) };
	int priced = 0;

	doc_h(d, 2, "Machines");
	if (!m->noverlap) {
		doc_p(d, "No configuration ran on every machine: no comparison.");
		return;
	}
	doc_row(d, hdr, NC, 1);
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		const struct merge_point *p = &mc->pt[mc->best];
		struct stats_summary pc = per_core(mc, p);
		char c[NC][256], cn[64];
		double cost[3];
		conf_name(&m->overlap[mc->best], cn, sizeof(cn));
		errf(c[0], sizeof(c[0]), "%s", mc->label);
		errf(c[1], sizeof(c[1]), "%s", mc->cpu);
		errf(c[2], sizeof(c[2]), "%d / %d%s", mc->cpus, mc->cores, mc->cores_known ? "" : "*");
		errf(c[3], sizeof(c[3]), "%s", cn);
		merge_format(c[4], sizeof(c[4]), &p->images_per_s, "%.1f");
		merge_format(c[5], sizeof(c[5]), &pc, "%.2f");
		merge_format(c[6], sizeof(c[6]), &p->cpu_ms_per_image, "%.2f");
		knee_text(m, mc, series_of(m, &m->overlap[mc->best]), c[7], sizeof(c[7]));
		merge_marks(p, c[8], sizeof(c[8]));
		if (!c[8][0])
			errf(c[8], sizeof(c[8]), "clean");
		else if (!mc->best_clean)
			cat(c[8], sizeof(c[8]), "; no clean configuration on this machine");
		num(c[9], sizeof(c[9]), mc->price, "%.4g");
		cost_of(mc, p, &cost[0], &cost[1], &cost[2]);
		if (isfinite(cost[0]) && p->runs > 1)
			errf(c[10], sizeof(c[10]), "%.4g [%.4g, %.4g]", cost[0], cost[1], cost[2]);
		else
			num(c[10], sizeof(c[10]), cost[0], "%.4g");
		priced |= isfinite(mc->price);
		doc_row_cells(d, c[0], sizeof(c[0]), NC);
	}
	doc_table_end(d);
	doc_p(d, "Best configuration: the compared configuration with the highest median images/s "
		"on that machine among its clean ones (no run noisy, none oversubscribed), else among "
		"all (the noise column then says so). Each figure is the median over the machine's "
		"runs at that configuration (its repeats, and the runs of several sweep folders of "
		"one machine), with its spread: (min, max, n) below 6 runs, [the 95 %% "
		"distribution-free interval of the median] from 6 on, (n=1) for a single run. "
		"Images/s per core: at that configuration, over the physical cores of the machine's "
		"hwloc topology (* : no topology.xml, the online CPUs are counted instead). CPU ms per "
		"image: the CPU time of the workers and the main process (rusage) over the images of "
		"the run. Noise: runs in which other processes took over %.0f %% of the CPUs "
		"(NOISY), or with more busy threads than CPUs (oversubscribed).", REPORT_BUSY_PCT);
	if (priced)
		doc_p(d, "USD per million images = USD per hour / 3600 / (images/s at the best "
			"configuration) x 10^6: what a million images cost on that machine at its best "
			"throughput, with the machine to itself; in brackets from the images/s interval.");
	else
		doc_p(d, "No --price NAME=USD_PER_HOUR was given: no cost per million images.");

	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		if (mc->own_best >= 0 && conf_find(m->overlap, m->noverlap, &mc->own[mc->own_best]) < 0) {
			char cn[64], a[160], b[160];
			conf_name(&mc->own[mc->own_best], cn, sizeof(cn));
			merge_format(a, sizeof(a), &mc->ownpt[mc->own_best].images_per_s, "%.1f");
			merge_format(b, sizeof(b), &mc->pt[mc->best].images_per_s, "%.1f");
			doc_p(d, "%s: its best run overall, %s at %s images/s, is outside the compared "
				"configurations (%s images/s at its best compared one).", mc->label, cn, a, b);
		}
	}
}

/* "A / B: 1.16x [0.98, 1.35], within noise" for one pair, into out */
static void ratio_sentence(const char *what, const struct machine *a, const struct machine *b,
			   const struct stats_summary *sa, const struct stats_summary *sb,
			   char *out, size_t n)
{
	struct merge_ratio r;
	char t[160];

	merge_ratio_of(sa, sb, &r);
	merge_ratio_format(t, sizeof(t), &r);
	cat(out, n, "%s%s / %s, %s: %s", out[0] ? "; " : "", a->label, b->label, what, t);
	if (r.v == MERGE_HIGHER)
		cat(out, n, " (%s is faster beyond noise)", a->label);
	else if (r.v == MERGE_WITHIN_NOISE)
		cat(out, n, " (no faster machine: the difference is noise)");
	else if (r.v == MERGE_NOT_JUDGED)
		cat(out, n, " (sweep --repeat 3 or more judges it)");
}

/* The machine with the highest median images/s per core at its clean best; -1 if none. */
static long most_per_core(const struct merge *m)
{
	long best = -1;
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		struct stats_summary a, b;
		if (!mc->best_clean || mc->cores <= 0)
			continue;
		a = per_core(mc, &mc->pt[mc->best]);
		if (best >= 0)
			b = per_core(&m->mach[best], &m->mach[best].pt[m->mach[best].best]);
		if (best < 0 || a.median > b.median)
			best = (long)i;
	}
	return best;
}

/* the fastest, the most per core and the cheapest machine, each ratio
 * judged on the intervals, from the clean configurations only */
static void write_short(struct doc *d, const struct merge *m)
{
	long fast = fastest(m, 1), core = most_per_core(m), cheap = -1;
	char text[4096] = "", a[160], b[160], none[1024] = "";
	size_t nclean = 0;

	if (m->nmach < 2 || !m->noverlap)
		return;
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		double cost[3], cc[3];
		if (!mc->best_clean) {
			cat(none, sizeof(none), "%s%s", none[0] ? ", " : "", mc->label);
			continue;
		}
		nclean++;
		cost_of(mc, &mc->pt[mc->best], &cost[0], &cost[1], &cost[2]);
		if (cheap >= 0)
			cost_of(&m->mach[cheap], &m->mach[cheap].pt[m->mach[cheap].best], &cc[0], &cc[1],
				&cc[2]);
		if (isfinite(cost[0]) && (cheap < 0 || cost[0] < cc[0]))
			cheap = (long)i;
	}
	if (none[0])
		doc_p(d, "No clean configuration (every compared one had a noisy or oversubscribed "
			"run) on: %s. No headline ratio rests on %s; the tables below mark each "
			"configuration. To judge %s, sweep again with --require-idle, no more workers "
			"than CPUs, and --repeat 3 or more.", none, !nclean ? "any machine" :
			"those machines", !nclean ? "them" : "those");
	if (nclean < 2 || fast < 0) {
		doc_p(d, "In short: fewer than two machines have a clean compared configuration, so "
			"there is no headline ratio; the table of each configuration below gives the "
			"ratios with their marks.");
		return;
	}
	const struct machine *fm = &m->mach[fast];
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		if ((long)i == fast || !mc->best_clean)
			continue;
		ratio_sentence("images/s", fm, mc, &fm->pt[fm->best].images_per_s,
			       &mc->pt[mc->best].images_per_s, text, sizeof(text));
	}
	merge_format(a, sizeof(a), &fm->pt[fm->best].images_per_s, "%.1f");
	{
		char cn[64];
		conf_name(&m->overlap[fm->best], cn, sizeof(cn));
		doc_p(d, "In short (each machine at its best clean compared configuration; ratios of "
			"the medians, with the interval lo_a / hi_b .. hi_a / lo_b of the two sides' "
			"intervals, within noise when it holds 1): the highest median images/s: %s, %s "
			"at %s. %s.", fm->label, a, cn, text);
	}
	if (core >= 0) {
		const struct machine *cm = &m->mach[core];
		struct stats_summary pc = per_core(cm, &cm->pt[cm->best]);
		text[0] = 0;
		for (size_t i = 0; i < m->nmach; i++) {
			const struct machine *mc = &m->mach[i];
			struct stats_summary x;
			if ((long)i == core || !mc->best_clean || mc->cores <= 0)
				continue;
			x = per_core(mc, &mc->pt[mc->best]);
			ratio_sentence("images/s per core", cm, mc, &pc, &x, text, sizeof(text));
		}
		merge_format(b, sizeof(b), &pc, "%.2f");
		doc_p(d, "The highest median images/s per core: %s, %s%s%s.", cm->label, b,
		      text[0] ? ". " : "", text);
	}
	if (cheap >= 0) {
		const struct machine *xm = &m->mach[cheap];
		double cost[3];
		cost_of(xm, &xm->pt[xm->best], &cost[0], &cost[1], &cost[2]);
		if (xm->pt[xm->best].runs > 1)
			errf(a, sizeof(a), "%.4g [%.4g, %.4g]", cost[0], cost[1], cost[2]);
		else
			errf(a, sizeof(a), "%.4g, one run", cost[0]);
		doc_p(d, "The lowest median cost per million images (of the machines with a --price): "
			"%s (%s USD).", xm->label, a);
	}
}

static void write_configs(struct doc *d, const struct merge *m)
{
	size_t nc = 2 * m->nmach + 1;
	const char **hdr = calloc(nc + 1, sizeof(*hdr));
	char (*c)[256] = calloc(nc + 1, sizeof(*c));
	char (*h)[400] = calloc(nc + 1, sizeof(*h));

	if (!hdr || !c || !h || !m->noverlap || m->nmach < 1)
		goto out;
	doc_h(d, 2, "Images/s at each compared configuration");
	hdr[0] = "configuration";
	for (size_t i = 0; i < m->nmach; i++)
		hdr[i + 1] = m->mach[i].label;
	for (size_t i = 1; i < m->nmach; i++) {
		errf(h[i], sizeof(h[i]), "%s / %s", m->mach[i].label, m->mach[0].label);
		hdr[m->nmach + i] = h[i];
	}
	hdr[2 * m->nmach] = "noise";
	doc_row(d, hdr, nc, 1);
	for (size_t k = 0; k < m->noverlap; k++) {
		char marks[400];
		conf_name(&m->overlap[k], c[0], sizeof(c[0]));
		c[2 * m->nmach][0] = 0;
		for (size_t i = 0; i < m->nmach; i++) {
			const struct merge_point *p = &m->mach[i].pt[k];
			merge_format(c[i + 1], sizeof(c[i + 1]), &p->images_per_s, "%.1f");
			if (i) {
				struct merge_ratio r;
				merge_ratio_of(&p->images_per_s, &m->mach[0].pt[k].images_per_s, &r);
				merge_ratio_format(c[m->nmach + i], sizeof(c[m->nmach + i]), &r);
			}
			merge_marks(p, marks, sizeof(marks));
			if (marks[0])
				cat(c[2 * m->nmach], sizeof(c[2 * m->nmach]), "%s%s: %s",
				    c[2 * m->nmach][0] ? "; " : "", m->mach[i].label, marks);
		}
		if (!c[2 * m->nmach][0])
			errf(c[2 * m->nmach], sizeof(c[2 * m->nmach]), "clean");
		doc_row_cells(d, c[0], sizeof(c[0]), nc);
	}
	doc_table_end(d);
	if (m->nmach > 1)
		doc_p(d, "Each ratio is of the medians, with the interval lo_a / hi_b .. hi_a / lo_b "
			"of the two sides' intervals; within noise when it holds 1; not judged when a "
			"side has a single run (one run shows no spread). A configuration marked NOISY or "
			"oversubscribed on any machine is no basis for a ratio.");
out:
	free(hdr);
	free(c);
	free(h);
}

static void write_knees(struct doc *d, const struct merge *m)
{
	doc_h(d, 2, "Where adding workers stops helping");
	doc_p(d, "The rule (the same as ppbench report's diminishing-returns finding): %s. It is "
		"applied to each machine's compared configurations of each batch size and GPU count "
		"(series) on its own.", REPORT_RULE_DIMINISHING);
	for (size_t i = 0; i < m->nmach; i++) {
		if (!m->noverlap)
			doc_li(d, "%s: no compared configuration (-)", m->mach[i].label);
		for (size_t s = 0; s < m->nbg; s++)
			doc_li(d, "%s, b%d / %d GPU%s: %s (%s)", m->mach[i].label, m->bg[s].batch_size, m->bg[s].gpus,
			       m->bg[s].gpus == 1 ? "" : "s", m->mach[i].knee[s].why,
			       verdict_name(m->mach[i].knee[s].v));
	}
	doc_list_end(d);
}

/* --model on: the model beside each machine's measurement */
static void write_model(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"machine", "configuration", "measured images/s", "model images/s (a model)",
		"model / measured", "modelled from",
	};

	if (!m->model || !m->noverlap)
		return;
	doc_h(d, 2, "The model beside the measurement");
	doc_p(d, "--model on: ppbench model's figures for each machine at each compared "
		"configuration, from the costs, settings and machine of that machine's run with the "
		"fewest workers in the same batch size and GPU count (the model of ppbench model "
		"--validate's validation 2). A model, not a measurement: the figures draw it as the "
		"series \"model: <machine>\".");
	doc_row(d, hdr, 6, 1);
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		for (size_t k = 0; k < m->noverlap; k++) {
			const struct model_point *q = &mc->mod[k];
			char c[6][256];
			errf(c[0], sizeof(c[0]), "%s", mc->label);
			conf_name(&m->overlap[k], c[1], sizeof(c[1]));
			merge_format(c[2], sizeof(c[2]), &mc->pt[k].images_per_s, "%.1f");
			num(c[3], sizeof(c[3]), q->images_per_s, "%.1f");
			num(c[4], sizeof(c[4]), q->images_per_s / mc->pt[k].images_per_s.median, "%.2f");
			if (isfinite(q->images_per_s))
				errf(c[5], sizeof(c[5]), "its w%d run", q->src_workers);
			else
				errf(c[5], sizeof(c[5]), "not modelled");
			doc_row_cells(d, c[0], sizeof(c[0]), 6);
		}
	}
	doc_table_end(d);
	for (size_t i = 0; i < m->nmach; i++)
		if (m->mach[i].model_why[0])
			doc_p(d, "%s: not every configuration could be modelled: %s.", m->mach[i].label,
			      m->mach[i].model_why);
}

/* ---- the fused what-if, per machine ------------------------------------------*/

/* The GPU step every compared folder with a what-if ran batch b and g GPUs
 * with (seconds), NaN when none says or they differ (*differ set). */
static double common_gpu_step(const struct merge *m, int b, int g, int *differ)
{
	double step = NAN;
	*differ = 0;
	for (size_t i = 0; i < m->nfolders; i++) {
		double s;
		if (!m->folders[i].compared ||
		    !json_is_object(json_object_get(m->folders[i].sw.doc, "fused_whatif")))
			continue;
		s = report_gpu_step_s(&m->folders[i].sw, 0, b, g);
		if (!isfinite(s))
			continue;
		if (isfinite(step) && fabs(s - step) > 1e-9 * fabs(step))
			*differ = 1;
		step = s;
	}
	return *differ ? NAN : step;
}

/* Each machine's what-if measurement: a row per compared folder that has
 * one, "not measured" for a machine with none. Returns the rows measured. */
static size_t whatif_measured_table(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"machine", "sweep folder", "CPU ms per image, faithful", "CPU ms per image, fused",
		"CPU ms per image saved", "fused / faithful images/s", "tensors identical", "noisy",
	};
	size_t measured = 0;

	doc_row(d, hdr, 8, 1);
	for (size_t i = 0; i < m->nmach; i++) {
		size_t rows = 0;
		for (size_t j = 0; j < m->nfolders; j++) {
			const struct folder *f = &m->folders[j];
			json_t *w = json_object_get(f->sw.doc, "fused_whatif"), *nz;
			char c[8][REPORT_WHATIF_CELL];
			if (f->machine != (int)i || !json_is_object(w))
				continue;
			errf(c[0], sizeof(c[0]), "%s", m->mach[i].label);
			errf(c[1], sizeof(c[1]), "%s", f->name);
			report_whatif_cell(w, "faithful_cpu_ms_per_image", 1, "%.3f", c[2], sizeof(c[2]));
			report_whatif_cell(w, "fused_cpu_ms_per_image", 1, "%.3f", c[3], sizeof(c[3]));
			report_whatif_cell(w, "saved_cpu_ms_per_image", 1, "%.3f", c[4], sizeof(c[4]));
			report_whatif_cell(w, "fused_over_faithful_images_per_s", 1, "%.2f", c[5],
					   sizeof(c[5]));
			errf(c[6], sizeof(c[6]), "%s",
			     json_is_true(json_object_get(w, "tensors_identical")) ? "yes" : "NO");
			nz = json_object_get(w, "noise");
			if (json_is_true(json_object_get(nz, "noisy")))
				errf(c[7], sizeof(c[7]), "NOISY (others took %.0f %% of the CPUs)",
				     metric_json_get(nz, "others_cpu_pct"));
			else
				errf(c[7], sizeof(c[7]), "%s", json_is_object(nz) ? "no" : "not recorded");
			doc_row_cells(d, c[0], sizeof(c[0]), 8);
			rows++;
		}
		if (!rows) {
			const char *cells[8] = { m->mach[i].label, "-", "not measured", "not measured",
						 "not measured", "not measured", "-", "-" };
			doc_row(d, cells, 8, 0);
		}
		measured += rows;
	}
	doc_table_end(d);
	return measured;
}

/* Each measured machine's cores per GPU at each compared (batch, GPUs). */
static void whatif_demand_table(struct doc *d, const struct merge *m)
{
	const char *hdr[REPORT_WHATIF_DEMAND_COLS + 1] = { "machine" };
	int bg[64][2], nbg = 0, differ_any = 0;

	for (size_t k = 0; k < m->noverlap && nbg < 64; k++) {
		int j = 0;
		while (j < nbg && !(bg[j][0] == m->overlap[k].batch_size && bg[j][1] == m->overlap[k].gpus))
			j++;
		if (j == nbg) {
			bg[nbg][0] = m->overlap[k].batch_size;
			bg[nbg++][1] = m->overlap[k].gpus;
		}
	}
	if (!nbg) {
		doc_p(d, "No configuration ran on every machine, so there is no common GPU demand: per "
			"1,000 images/s, the cores one GPU needs are the CPU ms per image above.");
		return;
	}
	for (size_t k = 0; k < REPORT_WHATIF_DEMAND_COLS; k++)
		hdr[k + 1] = report_whatif_demand_hdr[k];
	doc_row(d, hdr, REPORT_WHATIF_DEMAND_COLS + 1, 1);
	for (int k = 0; k < nbg; k++) {
		int differ;
		double step = common_gpu_step(m, bg[k][0], bg[k][1], &differ);
		differ_any |= differ;
		for (size_t j = 0; j < m->nfolders; j++) {
			const struct folder *f = &m->folders[j];
			json_t *w = json_object_get(f->sw.doc, "fused_whatif");
			char c[REPORT_WHATIF_DEMAND_COLS + 1][REPORT_WHATIF_CELL];
			if (f->machine < 0 || !json_is_object(w))
				continue;
			errf(c[0], sizeof(c[0]), "%s (%s)", m->mach[f->machine].label, f->name);
			report_whatif_demand_cells(w, bg[k][0], bg[k][1], step, &c[1]);
			if (differ)
				errf(c[3], sizeof(c[3]), "differs between the sweeps");
			doc_row_cells(d, c[0], sizeof(c[0]), REPORT_WHATIF_DEMAND_COLS + 1);
		}
	}
	doc_table_end(d);
	if (differ_any)
		doc_p(d, "Where the sweeps' GPU steps differ, the cores are per 1,000 images/s.");
}

/* The what-if of each machine's sweeps side by side: the same pipelines
 * measured on each CPU, and the cores one GPU would need (and save) there
 * at the compared configurations' GPU demand. Nothing if no compared sweep
 * has one. */
static void write_whatif(struct doc *d, const struct merge *m)
{
	int any = 0;
	for (size_t j = 0; j < m->nfolders; j++)
		any |= m->folders[j].compared &&
		       json_is_object(json_object_get(m->folders[j].sw.doc, "fused_whatif"));
	if (!any)
		return;
	report_whatif_intro(d);
	doc_p(d, "Each sweep measured it on its own machine before its runs (one thread over the "
		"first images of the dataset, alternating passes of the faithful and the fused "
		"pipeline; each figure the median over the passes with its 95 %% interval in "
		"brackets). A machine whose sweeps have no what-if (an older sweep, or --fused off) "
		"is not measured.");
	whatif_measured_table(d, m);
	whatif_demand_table(d, m);
}

static void write_folders(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"sweep folder", "host", "CPU", "CPUs", "runs ok", "Slurm", "compared",
	};

	doc_h(d, 2, "Sweep folders");
	doc_row(d, hdr, 7, 1);
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *f = &m->folders[i];
		char cpus[32], runs[32];
		const char *cells[7] = { f->name, f->host, f->cpu, cpus, runs,
					 f->slurm[0] ? f->slurm : "-", f->compared ? "yes" : "no" };
		errf(cpus, sizeof(cpus), "%d", f->cpus);
		errf(runs, sizeof(runs), "%d of %d", f->nok, f->nruns);
		doc_row(d, cells, 7, 0);
	}
	doc_table_end(d);
}

static int write_report(struct merge *m, long ref, char *err, size_t errlen)
{
	char title[128], stamp[64];
	struct doc d = { .dir = m->out };
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M UTC", &tm);
	errf(title, sizeof(title), "ppbench merge: %zu machine%s", m->nmach, m->nmach == 1 ? "" : "s");
	if (doc_open(&d, "ppbench merge", title, err, errlen)) {
		doc_end(&d, 0, err, errlen);    /* closes and removes what opened */
		return -1;
	}
	{
		char names[2048] = "";
		for (size_t i = 0; i < m->nmach; i++)
			cat(names, sizeof(names), "%s%s (%s)", i ? ", " : "", m->mach[i].label,
			    m->mach[i].cpu);
		doc_p(&d, "Written %s from %zu sweep folder%s. Machines%s: %s.", stamp, m->nfolders,
		      m->nfolders == 1 ? "" : "s", m->by_cpu ? " (one per CPU model, --by cpu)" : "",
		      names[0] ? names : "none");
	}
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *f = &m->folders[i];
		if (f->running)
			doc_lead(&d, "warn", "In progress:", "%s is a sweep still running (it holds its "
				 ".lock); %d of its %d runs are not finished yet (%s) and are missing "
				 "from this merge. Merge again when it ends.", f->name, f->npending,
				 f->nruns, f->npending ? f->pending : "none pending");
	}
	if (ref >= 0) {
		write_compat(&d, m, ref);
		write_overlap(&d, m);
		write_table(&d, m);
		write_short(&d, m);
		write_configs(&d, m);
		write_knees(&d, m);
		write_model(&d, m);
		write_whatif(&d, m);
		doc_h(&d, 2, "Figures");
		for (size_t i = 0; i < m->nfigs; i++)
			figure(&d, &m->figs[i]);
	} else {
		doc_p(&d, "No run of any sweep folder succeeded: nothing to compare.");
	}
	write_folders(&d, m);
	doc_p(&d, "Files: summary.csv (every run, with host and CPU columns; compared and in_overlap "
		"say which runs the comparison used; noisy and oversubscribed mark the run; config_* "
		"give its configuration's median, lo, hi and runs on its machine), comparison.csv "
		"(one row per machine, each figure with its lo, hi and the runs), figures/data/ (the "
		"data of the figures, drawn by plots/merge_*.gp). Text fields are quoted as RFC 4180 "
		"says, and a field starting with = + - @ is prefixed with ' (README, \"CSV files\").");
	return doc_end(&d, 1, err, errlen);
}

/* ---- the command ------------------------------------------------------------------*/

static void merge_free(struct merge *m)
{
	for (size_t i = 0; i < m->nfolders; i++)
		sweep_free(&m->folders[i].sw);
	free(m->folders);
	for (size_t i = 0; i < m->nmach; i++) {
		free(m->mach[i].rows);
		free(m->mach[i].own);
		free(m->mach[i].ownpt);
		free(m->mach[i].pt);
		free(m->mach[i].mod);
	}
	free(m->mach);
	free(m->overlap);
}

static void help(void)
{
	printf("usage: %s\n\n"
	       "Merges sweep folders (made by ppbench sweep, on one machine each, for example\n"
	       "by the array tasks of scripts/slurm/sweep.sbatch) into one comparison: a DIR\n"
	       "is a sweep folder or a folder holding sweep folders. Machines are compared\n"
	       "only on the configurations (workers x batch x GPUs) that all of them ran, and\n"
	       "only when their sweeps used the same dataset, pipeline, ppbench version, run\n"
	       "options and page-cache policy; the report says what was left out and why.\n"
	       "Writes summary.csv (every run with host and CPU columns), comparison.csv,\n"
	       "figures/ (one line per machine: E2E, images/s, images/s per core and CPU time\n"
	       "per image against workers, CPU time per image by op, GPU utilization),\n"
	       "report.md and a self-contained report.html; when the sweeps measured the fused\n"
	       "crop-decode what-if (on by default for imagenet_train), the report shows it\n"
	       "per machine.\n"
	       "Every figure is the median over a machine's runs of a configuration with its\n"
	       "spread (min-max and n below 6 runs, a 95 %% interval from 6 on); every ratio\n"
	       "between machines has its interval and says \"within noise\" when it holds 1;\n"
	       "noisy and oversubscribed configurations are marked and no headline rests on\n"
	       "them. A sweep still running is named, with its runs missing.\n\n"
	       "options:\n"
	       "      --price NAME=USD  price per hour of a machine (host name, or CPU model with\n"
	       "                        --by cpu), repeatable: adds the cost per million images\n"
	       "      --by host|cpu     one machine per host name (default), or per CPU model and\n"
	       "                        CPU count (array tasks of one node type on several nodes)\n"
	       "      --model on|off    on: the model's lines (ppbench model, from each machine's\n"
	       "                        run with the fewest workers) beside the measured ones,\n"
	       "                        labelled a model (default off)\n"
	       "  -o, --out DIR         where the merge goes (default: results/<UTC time>-merge)\n"
	       "  -h, --help            show this help\n", usage_line);
	exit_codes_help(stdout);
}

/* The command line: sweep folders and prices. */
struct merge_args {
	char **dirs, **pnames;
	double *pusd;
	size_t ndirs, nprices;
};

/* argv into a and m's options. An exit code, or -1 to go on. */
static int merge_args(int argc, char **argv, struct merge_args *a, struct merge *m)
{
	char err[2048];

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v = NULL;
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			help();
			return EXIT_OK;
		}
		if (!strcmp(arg, "--out") || !strcmp(arg, "-o") || !strcmp(arg, "--price") ||
		    !strcmp(arg, "--by") || !strcmp(arg, "--model")) {
			if (i + 1 >= argc) {
				error_msg("%s needs a value", arg);
				return EXIT_USAGE;
			}
			v = argv[++i];
		} else if (!strncmp(arg, "--out=", 6) || !strncmp(arg, "--by=", 5) ||
			   !strncmp(arg, "--price=", 8) || !strncmp(arg, "--model=", 8)) {
			v = strchr(arg, '=') + 1;
		} else if (arg[0] == '-' && arg[1]) {
			error_msg("unknown option '%s' (see ppbench merge --help)", arg);
			return EXIT_USAGE;
		} else {
			a->dirs[a->ndirs++] = argv[i];
			continue;
		}
		if (!strncmp(arg, "--out", 5) || !strcmp(arg, "-o")) {
			m->out = v;
		} else if (!strncmp(arg, "--model", 7)) {
			if (strcmp(v, "on") && strcmp(v, "off")) {
				error_msg("--model: '%s' is not on or off", v);
				return EXIT_USAGE;
			}
			m->model = !strcmp(v, "on");
		} else if (!strncmp(arg, "--by", 4)) {
			if (strcmp(v, "host") && strcmp(v, "cpu")) {
				error_msg("--by: '%s' is not host or cpu", v);
				return EXIT_USAGE;
			}
			m->by_cpu = !strcmp(v, "cpu");
		} else {
			char name[256];
			if (merge_parse_price(v, name, sizeof(name), &a->pusd[a->nprices], err,
					      sizeof(err))) {
				error_msg("%s", err);
				return EXIT_USAGE;
			}
			a->pnames[a->nprices] = strdup(name);
			if (!a->pnames[a->nprices]) {
				error_msg("out of memory");
				return EXIT_FAIL;
			}
			a->nprices++;
		}
	}
	if (!a->ndirs) {
		fprintf(stderr, "usage: %s\n", usage_line);
		return EXIT_USAGE;
	}
	return -1;
}

/* The merge folder: summary.csv, comparison.csv, figures/, the report. 0,
 * or -1 (said). */
static int merge_write(struct merge *m, long ref, char *outbuf, size_t outlen)
{
	char err[2048], path[4200];

	if (!m->out) {
		char name[256];
		results_dir_name(name, sizeof(name), "merge", NULL);
		errf(outbuf, outlen, "results/%s", name);
		m->out = outbuf;
	}
	errf(path, sizeof(path), "%s/figures/data", m->out);
	if (make_dirs(path)) {
		error_msg("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	errf(path, sizeof(path), "%s/summary.csv", m->out);
	if (write_summary(m, path, err, sizeof(err)))
		goto fail;
	errf(path, sizeof(path), "%s/comparison.csv", m->out);
	if (write_comparison(m, path, err, sizeof(err)))
		goto fail;
	if (m->model && model_machines(m, err, sizeof(err)))
		goto fail;
	errf(path, sizeof(path), "%s/figures/data", m->out);
	if (write_fig_data(m, path, err, sizeof(err)))
		goto fail;
	draw_figures(m);
	if (write_report(m, ref, err, sizeof(err)))
		goto fail;
	return 0;
fail:
	error_msg("%s", err);
	return -1;
}

int cmd_merge(int argc, char **argv)
{
	struct merge m;
	struct merge_args a = {
		.dirs = calloc((size_t)argc + 1, sizeof(*a.dirs)),
		.pnames = calloc((size_t)argc + 1, sizeof(*a.pnames)),
		.pusd = calloc((size_t)argc + 1, sizeof(*a.pusd)),
	};
	char err[2048], outbuf[4096];
	long ref;
	int rc = EXIT_FAIL;

	memset(&m, 0, sizeof(m));
	if (!a.dirs || !a.pnames || !a.pusd) {
		error_msg("out of memory");
		goto out;
	}
	rc = merge_args(argc, argv, &a, &m);
	if (rc >= 0)
		goto out;
	rc = EXIT_USAGE;
	for (size_t i = 0; i < a.ndirs; i++)
		if (input_missing(a.dirs[i]))
			goto out;
	rc = EXIT_FAIL;
	for (size_t i = 0; i < a.ndirs; i++)
		if (add_dir(&m, a.dirs[i], err, sizeof(err))) {
			error_msg("%s", err);
			goto out;
		}

	ref = choose_compared(&m);
	if (build_machines(&m, err, sizeof(err)) || analyse(&m, err, sizeof(err))) {
		error_msg("%s", err);
		goto out;
	}
	if (apply_prices(&m, a.pnames, a.pusd, a.nprices, err, sizeof(err))) {
		error_msg("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (merge_write(&m, ref, outbuf, sizeof(outbuf)))
		goto out;
	for (size_t i = 0; i < m.nfigs; i++)
		if (!m.figs[i].drawn && m.nmach)
			info("%s: not drawn: %s", m.figs[i].name, m.figs[i].why);
	for (size_t i = 0; i < m.nfolders; i++) {
		const struct folder *f = &m.folders[i];
		if (f->running)
			warn_msg("'%s' is a sweep still running (it holds %s/.lock): %d of its %d runs "
				 "are not finished and are missing from this merge%s%s%s; merge again when "
				 "it ends", f->name, f->dir, f->npending, f->nruns,
				 f->npending ? " (" : "", f->pending, f->npending ? ")" : "");
		if (!f->compared)
			warn_msg("'%s' is not compared: %s", f->name, f->why);
	}
	for (size_t i = 0; m.model && i < m.nmach; i++)
		if (m.mach[i].model_why[0])
			warn_msg("--model: %s: %s", m.mach[i].label, m.mach[i].model_why);
	printf("%s/report.md\n%s/report.html\n", m.out, m.out);
	if (ref < 0) {
		error_msg("no run of any sweep folder succeeded: nothing to compare");
		goto out;
	}
	rc = EXIT_OK;
out:
	for (size_t i = 0; a.pnames && i < a.nprices; i++)
		free(a.pnames[i]);
	free(a.pnames);
	free(a.pusd);
	free(a.dirs);
	merge_free(&m);
	return rc;
}
