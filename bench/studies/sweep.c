/* ppbench sweep's plan and state (sweep.h): the grid parsed, a new sweep's
 * sweep.json or a resumed one's read back and checked, the folder, the fused
 * what-if, the report at the end. The runs themselves: sweep_exec.c. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "fsutil.h"
#include "conventions.h"
#include "escape.h"
#include "describe.h"
#include "generate.h"
#include "imagefolder.h"
#include "log.h"
#include "machine.h"
#include "noise.h"
#include "pipeline.h"
#include "report.h"
#include "stats.h"
#include "subprocess.h"
#include "sweep.h"
#include "whatif.h"
#include "resdir.h"

/* "1 2,3" -> ints; "gpus" (workers only) sets *tied. 0, or -1 with err. */
static int parse_list(const char *name, const char *s, int **out, size_t *n, int *tied,
		      char *err, size_t errlen)
{
	char *copy = strdup(s ? s : ""), *save = NULL, *tok;
	int *v = NULL;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!copy)
		goto oom;
	for (tok = strtok_r(copy, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
		char *end;
		long x;
		if (tied && (!strcmp(tok, "gpus") || !strcmp(tok, "G"))) {
			*tied = 1;
			continue;
		}
		errno = 0;
		x = strtol(tok, &end, 10);
		if (*end || errno || x < 1 || x > 65536) {
			snprintf(err, errlen, "--%s: '%s' is not a positive integer", name, tok);
			goto fail;
		}
		int *nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv)
			goto oom;
		v = nv;
		for (size_t j = 0; j < k; j++)
			if (v[j] == x) {
				snprintf(err, errlen, "--%s: %ld is listed twice", name, x);
				goto fail;
			}
		v[k++] = (int)x;
	}
	if (tied && *tied && k) {
		snprintf(err, errlen, "--%s: \"gpus\" (workers = GPUs) cannot be mixed with numbers",
			 name);
		goto fail;
	}
	if (!k && !(tied && *tied)) {
		snprintf(err, errlen, "--%s: the list is empty", name);
		goto fail;
	}
	free(copy);
	*out = v;
	*n = k;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(copy);
	free(v);
	return -1;
}

/* "torch speedy" -> indexes into policy_names, in the order given. 0, or -1
 * with err. */
static int parse_policies(const char *s, int *out, size_t *n, char *err, size_t errlen)
{
	char *copy = strdup(s ? s : ""), *save = NULL, *tok;
	size_t k = 0;

	*n = 0;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
		size_t p;
		for (p = 0; p < SWEEP_NPOLICIES; p++)
			if (!strcmp(tok, loader_policy_names[p]))
				break;
		if (p == SWEEP_NPOLICIES) {
			snprintf(err, errlen, "--policy: '%.64s' is not a loader policy (torch, "
				 "shared-queue, speedy)", tok);
			goto fail;
		}
		for (size_t j = 0; j < k; j++)
			if (out[j] == (int)p) {
				snprintf(err, errlen, "--policy: %s is listed twice", tok);
				goto fail;
			}
		out[k++] = (int)p;
	}
	if (!k) {
		snprintf(err, errlen, "--policy: the list is empty");
		goto fail;
	}
	free(copy);
	*n = k;
	return 0;
fail:
	free(copy);
	return -1;
}

static json_t *int_array(const int *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

void sweep_utc_stamp(char *out, size_t n, const char *fmt)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(out, n, fmt, &tm);
}

/* The planned runs: repeats outermost, then batch, GPUs, policy, workers.
 * With one policy the tags do not name it (as before policies were swept). */
static json_t *make_plan(const int *w, size_t nw, int tied, const int *b, size_t nb,
			 const int *g, size_t ng, const int *pol, size_t np, long repeat)
{
	json_t *runs = json_array();

	for (long r = 1; r <= repeat; r++) {
		int config = 0;
		for (size_t ib = 0; ib < nb; ib++)
			for (size_t ig = 0; ig < ng; ig++)
				for (size_t ip = 0; ip < np; ip++)
				for (size_t iw = 0; iw < (tied ? 1 : nw); iw++) {
					int W = tied ? g[ig] : w[iw];
					const char *pn = loader_policy_names[pol[ip]];
					char tag[64];
					json_t *e = json_object();
					if (np > 1)
						snprintf(tag, sizeof(tag), "w%d-b%d-g%d-%s-r%ld", W, b[ib],
							 g[ig], pn, r);
					else
						snprintf(tag, sizeof(tag), "w%d-b%d-g%d-r%ld", W, b[ib],
							 g[ig], r);
					json_object_set_new(e, "config", json_integer(++config));
					json_object_set_new(e, "repeat", json_integer(r));
					json_object_set_new(e, "tag", json_string(tag));
					json_object_set_new(e, "workers", json_integer(W));
					json_object_set_new(e, "batch_size", json_integer(b[ib]));
					json_object_set_new(e, "gpus", json_integer(g[ig]));
					json_object_set_new(e, "policy", json_string(pn));
					json_object_set_new(e, "status", json_string(RUN_PENDING));
					json_array_append_new(runs, e);
				}
	}
	return runs;
}

int sweep_save_json(json_t *doc, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) < 0 ||
	    rename(tmp, path) < 0) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* <out>/<UTC>-sweep[-tag][-k], created */
static int make_sweep_dir(const char *out, const char *tag, char *dir, size_t n, char *err,
			  size_t errlen)
{
	char name[256], base[PATH_MAX];

	if (results_tag_check(tag, err, errlen))
		return -1;
	if (mkdir_out(out, err, errlen))
		return -1;
	results_dir_name(name, sizeof(name), "sweep", tag);
	errf(base, sizeof(base), "%s/%s", out, name);
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			snprintf(dir, n, "%s", base);
		else
			errf(dir, n, "%s-%d", base, k);
		if (mkdir(dir, 0777) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	errf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
	return -1;
}

/* The run folders present in runs/ (names, sorted); caller frees. */
size_t sweep_list_runs(const char *runs, char ***out)
{
	DIR *d = opendir(runs);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char **nv;
		if (e->d_name[0] == '.')
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		if (!(v[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	*out = v;
	return n;
}

void sweep_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int lock_dir(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	errf(path, sizeof(path), "%s/.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -2;
	}
	return fd;
}

/* A run option the sweep sets for each run itself (a run argument must not
 * set it: --out would put runs outside the sweep folder): 1 or 0. */
static int sweep_sets(const char *a)
{
	static const char *const own[] = { "workers", "batch", "gpus", "tag", "out", "policy" };
	static const char shorts[] = "wbgto";
	if (a[0] == '-' && a[1] && a[1] != '-')
		return strchr(shorts, a[1]) != NULL;
	if (strncmp(a, "--", 2))
		return 0;
	for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
		size_t l = strlen(own[k]);
		if (!strncmp(a + 2, own[k], l) && (!a[2 + l] || a[2 + l] == '='))
			return 1;
	}
	return 0;
}

/* The run arguments every run gets: "--data DATA", then room for more. */
static int sweep_base_alloc(struct sweep_state *t, size_t more)
{
	t->base = calloc(more + 3, sizeof(*t->base));
	if (!t->base) {
		error_msg("out of memory");
		return -1;
	}
	t->nbase = 0;
	t->base[t->nbase++] = "--data";
	t->base[t->nbase++] = t->data;
	return 0;
}

/* --resume: the plan, the data and the run arguments from the sweep folder. */
int sweep_resume(struct sweep_state *t)
{
	char path[PATH_MAX + 64];
	char why[512];

	/* only --report/--no-report go with --resume: the plan is in the folder */
	for (int i = 1; i < t->args.nown; i++)
		if (t->args.own[i][0] == '-' && strncmp(t->args.own[i], "--resume", 8) &&
		    strstr(t->args.own[i], "report") == NULL) {
			error_msg("--resume takes the plan and options from the sweep folder; "
			      "'%s' cannot be changed", t->args.own[i]);
			return EXIT_USAGE;
		}
	if (t->args.npassed) {
		error_msg("--resume takes the run options from the sweep folder; '%s' cannot be "
		      "changed", t->args.passed[0]);
		return EXIT_USAGE;
	}
	snprintf(t->dir, sizeof(t->dir), "%s", t->c.resume);
	snprintf(path, sizeof(path), "%s/sweep.json", t->dir);
	t->doc = json_load_regular(path, why, sizeof(why));
	if (!t->doc) {
		if (errno == ENOENT)
			error_msg("cannot resume '%s': it has no sweep.json", t->dir);
		else
			error_msg("cannot resume '%s': '%s': %s", t->dir, path, why);
		return EXIT_FAIL;
	}
	/* what a sweep.json holds, before any of it is used ([] held nothing) */
	json_t *runs = json_object_get(t->doc, "runs"), *e;
	size_t r;
	if (!json_is_array(runs)) {
		error_msg("cannot resume '%s': '%s' holds no list of runs (not a sweep's, or "
			  "hand-edited)", t->dir, path);
		return EXIT_FAIL;
	}
	json_array_foreach(runs, r, e)
		if (!json_is_string(json_object_get(e, "tag"))) {
			error_msg("cannot resume '%s': run %zu of '%s' has no tag", t->dir, r + 1, path);
			return EXIT_FAIL;
		}
	/* nothing read from it reaches a path or a run unchecked */
	json_array_foreach(runs, r, e)
		if (sweep_entry_check(e, why, sizeof(why))) {
			error_msg("cannot resume '%s': sweep.json: run %zu: %s; nothing ran (a sweep "
				  "writes only plain names: was the file edited?)", t->dir, r + 1, why);
			return EXIT_FAIL;
		}
	/* paths in sweep.json are escaped (escape.h) */
	if (!json_bytes_value(json_object_get(t->doc, "data"), t->data, sizeof(t->data)) ||
	    !t->data[0]) {
		error_msg("cannot resume '%s': '%s' names no dataset (\"data\")", t->dir, path);
		return EXIT_FAIL;
	}
	const char *cache = json_string_value(json_object_get(t->doc, "page_cache"));
	t->c.warm = !strcmp(cache ? cache : "", "warm");
	json_t *ra = json_object_get(t->doc, "run_args"), *v;
	size_t i;
	if (sweep_base_alloc(t, json_array_size(ra)))
		return EXIT_FAIL;
	json_array_foreach(ra, i, v) {
		char arg[PATH_MAX];
		if (!json_bytes_value(v, arg, sizeof(arg)) || !(t->base[t->nbase] = strdup(arg))) {
			error_msg("cannot resume '%s': run_args[%zu] in its sweep.json is not "
			      "an escaped string", t->dir, i);
			return EXIT_FAIL;
		}
		if (sweep_sets(arg)) {
			char esc[128];
			bytes_escape(arg, esc, sizeof(esc));
			error_msg("cannot resume '%s': run_args[%zu] in its sweep.json is '%s', which "
				  "the sweep sets itself; nothing ran (was the file edited?)", t->dir, i, esc);
			t->own_args = t->nbase + 1;
			t->nbase++;
			return EXIT_FAIL;
		}
		t->own_args = t->nbase + 1;
		t->nbase++;
	}
	return STEP_GO;
}

/* `ppbench run ARGS --help`: the run's option parser checks ARGS (they come
 * before --help) and exits 2 on a bad one. 0, or -1 with its message. */
static int check_run_args(char **args, size_t n, char *err, size_t errlen)
{
	char **argv = calloc(n + 4, sizeof(*argv));
	int pfd[2], st;
	pid_t pid;
	size_t k = 0;
	ssize_t got;

	if (!argv || pipe2(pfd, O_CLOEXEC)) {
		free(argv);
		return 0;
	}
	argv[k++] = "ppbench";
	argv[k++] = "run";
	for (size_t i = 0; i < n; i++)
		argv[k++] = args[i];
	argv[k++] = "--help";
	struct spawn sp = SPAWN_INIT;
	sp.exe = "/proc/self/exe";
	sp.argv = argv;
	sp.out = SPAWN_NULL;
	sp.err = pfd[1];
	pid = spawn_start(&sp);
	close(pfd[1]);
	free(argv);
	if (pid < 0) {
		close(pfd[0]);
		return 0;
	}
	got = read(pfd[0], err, errlen - 1);
	close(pfd[0]);
	err[got > 0 ? got : 0] = 0;
	err[strcspn(err, "\n")] = 0;
	if (spawn_wait(pid, &st) < 0)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == EXIT_USAGE ? -1 : 0;
}

/* The run options, checked once by the run's own parser with the plan's
 * first configuration. */
static int sweep_check_runs(struct sweep_state *t)
{
	char err[1024], sw[16], sb[16], sg[16];
	char **chk = calloc(t->nbase + 8, sizeof(*chk));
	size_t k = 0;

	if (!chk) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < t->nbase; i++)
		chk[k++] = t->base[i];
	snprintf(sw, sizeof(sw), "%d", t->tied ? t->g[0] : t->w[0]);
	snprintf(sb, sizeof(sb), "%d", t->b[0]);
	snprintf(sg, sizeof(sg), "%d", t->g[0]);
	chk[k++] = "--workers";
	chk[k++] = sw;
	chk[k++] = "--batch";
	chk[k++] = sb;
	chk[k++] = "--gpus";
	chk[k++] = sg;
	chk[k++] = "--policy";
	chk[k++] = (char *)loader_policy_names[t->pol[0]];
	int bad = check_run_args(chk, k, err, sizeof(err));
	free(chk);
	if (bad) {
		error_msg("a run option was refused: %s",
		      strncmp(err, "ppbench: error: ", 16) ? err : err + 16);
		return EXIT_USAGE;
	}
	return STEP_GO;
}

/* The runs' pipeline (their --pipeline, else run's default) and the fused
 * what-if's (--fused), loaded once to check them. 0, or -1 (said). */
static int sweep_resolve_fused(struct sweep_state *t)
{
	const char *pipe = "imagenet_train", *f = t->c.fused;
	char err[1024];
	struct pipeline p;

	for (size_t i = 0; i < t->nbase; i++) {
		const char *a = t->base[i];
		if ((!strcmp(a, "--pipeline") || !strcmp(a, "-p")) && i + 1 < t->nbase)
			pipe = t->base[++i];
		else if (!strncmp(a, "--pipeline=", 11))
			pipe = a + 11;
	}
	snprintf(t->pipeline, sizeof(t->pipeline), "%s", pipe);
	t->fused[0] = 0;
	if (!strcmp(f, "off"))
		return 0;
	if (pipeline_load(&p, pipe, err, sizeof(err))) {
		error_msg("%s", err);
		return -1;
	}
	int train = !strcmp(p.name, "imagenet_train");
	pipeline_release(&p);
	if (!strcmp(f, "on")) {
		if (!train)
			return 0;      /* no fused counterpart known: no what-if */
		f = "imagenet_train_fused";
	}
	if (pipeline_load(&p, f, err, sizeof(err))) {
		error_msg("--fused: %s", err);
		return -1;
	}
	pipeline_release(&p);
	snprintf(t->fused, sizeof(t->fused), "%s", f);
	return 0;
}


/* The fused what-if on the sweep's dataset, into sweep.json's
 * "fused_whatif" (whatif.h): seconds, before any run. A failure is warned
 * and leaves it out: the sweep is what was asked for. */
static void sweep_whatif(struct sweep_state *t)
{
	char err[1024];
	struct whatif w;
	size_t n = t->ds.n < t->c.fused_images ? t->ds.n : (size_t)t->c.fused_images;

	if (!t->fused[0] || !n)
		return;
	info("sweep: the fused what-if: %s against %s, one thread, %zu images, %d passes each",
	     t->fused, t->pipeline, n, SWEEP_WHATIF_ROUNDS);
	struct cpus cp;
	struct noise_snap n0, n1;
	struct noise nz;
	cpus_read(&cp);
	noise_read(&n0, &cp);
	if (whatif_measure(t->pipeline, t->fused, &t->ds, n, SWEEP_WHATIF_ROUNDS, 32, &w, err,
			   sizeof(err))) {
		warn_msg("the fused what-if was not measured: %s", err);
		return;
	}
	noise_read(&n1, &cp);
	noise_between(&n0, &n1, &cp, &nz);
	noise_warn(&nz, "the fused what-if");
	json_t *wj = whatif_json(&w);
	json_object_set_new(wj, "noise", noise_window_json(&nz));
	json_object_set_new(t->doc, "fused_whatif", wj);
	struct stats_summary a, b;
	if (!stats_summarise(w.cpu_ms[0], w.rounds, STATS_CI_LEVEL, &a) &&
	    !stats_summarise(w.cpu_ms[1], w.rounds, STATS_CI_LEVEL, &b))
		info("sweep: the fused what-if: %.3f ms of CPU per image faithful, %.3f fused; %s",
		     a.median, b.median, w.identical ? "identical tensors" : "THE TENSORS DIFFER");
	if (!w.identical)
		warn_msg("the fused what-if's tensors differ from the faithful pipeline's (checksums "
			 "%016llx and %016llx): its figures are not a valid what-if",
			 (unsigned long long)w.checksum[0], (unsigned long long)w.checksum[1]);
	whatif_release(&w);
}

/* sweep.json of a new sweep: its grid, run arguments, machine and plan. */
static json_t *sweep_new_doc(const struct sweep_state *t)
{
	const struct sweep_cfg *c = &t->c;
	char stamp[32];
	json_t *doc = json_object(), *ra = json_array(), *pa = json_array();

	sweep_utc_stamp(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ");
	for (size_t i = 0; i < t->args.npassed; i++)
		json_array_append_new(ra, json_bytes(t->args.passed[i]));
	for (size_t i = 0; i < t->np; i++)
		json_array_append_new(pa, json_string(loader_policy_names[t->pol[i]]));
	json_object_set_new(doc, "schema_version", json_integer(SWEEP_SCHEMA_VERSION));
	json_object_set_new(doc, "tool", json_string("ppbench sweep"));
	json_object_set_new(doc, "created_utc", json_string(stamp));
	json_object_set_new(doc, "tag", json_bytes(c->tag ? c->tag : ""));
	json_object_set_new(doc, "label", json_bytes(c->label ? c->label : ""));
	json_object_set_new(doc, "data", json_bytes(t->data));
	json_object_set_new(doc, "page_cache", json_string(c->warm ? "warm" : "dropped"));
	json_object_set_new(doc, "workers", int_array(t->w, t->nw));
	json_object_set_new(doc, "workers_equal_gpus", json_boolean(t->tied));
	json_object_set_new(doc, "batch_size", int_array(t->b, t->nb));
	json_object_set_new(doc, "gpus", int_array(t->g, t->ng));
	json_object_set_new(doc, "policy", pa);
	json_object_set_new(doc, "repeat", json_integer(c->repeat));
	json_object_set_new(doc, "run_args", ra);
	/* what the plan decided before the runs (sweep_plan) */
	json_t *plan = json_object();
	json_object_set_new(plan, "epochs_chosen", t->epochs_arg[0] ? json_integer(atol(t->epochs_arg))
			    : json_null());
	json_object_set_new(plan, "epochs_note", json_string(t->epochs_why));
	json_object_set_new(plan, "estimate_s", isfinite(t->estimate_s) ? json_real(t->estimate_s)
			    : json_null());
	json_object_set_new(doc, "plan", plan);
	json_object_set_new(doc, "machine", machine_json());
	json_object_set_new(doc, "runs", make_plan(t->w, t->nw, t->tied, t->b, t->nb, t->g, t->ng,
						   t->pol, t->np, c->repeat));
	return doc;
}

/* A new sweep: the grid, the data, the run arguments (checked), the memory
 * plan (--dry-run ends here), then the folder and sweep.json. */
int sweep_new(struct sweep_state *t)
{
	const struct sweep_cfg *c = &t->c;
	char err[1024];

	if (parse_list("workers", c->workers, &t->w, &t->nw, &t->tied, err, sizeof(err)) ||
	    parse_list("batch", c->batch, &t->b, &t->nb, NULL, err, sizeof(err)) ||
	    parse_list("gpus", c->gpus, &t->g, &t->ng, NULL, err, sizeof(err)) ||
	    parse_policies(c->policy, t->pol, &t->np, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < t->args.npassed; i++)
		if (sweep_sets(t->args.passed[i])) {
			error_msg("'%s' is set by the sweep", t->args.passed[i]);
			return EXIT_USAGE;
		}
	if (c->data) {
		if (!realpath(c->data, t->data)) {
			error_msg("--data: cannot open '%s': %s", c->data, strerror(errno));
			return EXIT_USAGE;
		}
	} else if (dataset_ensure_default(t->data, sizeof(t->data), err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (sweep_base_alloc(t, t->args.npassed + 2))
		return EXIT_FAIL;
	for (size_t i = 0; i < t->args.npassed; i++)
		t->base[t->nbase++] = t->args.passed[i];
	int rc = sweep_check_runs(t);
	if (rc != STEP_GO)
		return rc;
	if (sweep_resolve_fused(t))
		return EXIT_USAGE;
	/* every configuration's memory, before anything runs */
	struct sweep_grid sg = { .workers = t->w, .batch_size = t->b, .gpus = t->g, .pol = t->pol, .nw = t->nw,
				 .nb = t->nb, .ng = t->ng, .np = t->np, .tied = t->tied,
				 .pol_name = loader_policy_names, .repeat = c->repeat,
				 .whatif_images = t->fused[0] ? (size_t)c->fused_images : 0,
				 .drop_cache = !c->warm };
	struct sweep_plan_out po;
	/* the plan: on stdout for a dry run, else at the start of the sweep's output */
	int pl = sweep_plan(&sg, t->base, t->nbase, c->dry_run, c->dry_run ? stdout : stderr, &po);
	if (po.stopped)
		return po.stopped;
	if (pl < 0 || pl > 0 || c->dry_run)
		return pl < 0 || (pl > 0 && !c->dry_run) ? EXIT_USAGE : EXIT_OK;
	if (po.epochs > 0) {
		/* the epochs the plan chose: every run gets them, and sweep.json's
		 * run_args say so (a resume runs the same) */
		snprintf(t->epochs_arg, sizeof(t->epochs_arg), "%ld", po.epochs);
		t->args.passed[t->args.npassed++] = "--epochs";
		t->args.passed[t->args.npassed++] = t->epochs_arg;
		t->base[t->nbase++] = "--epochs";
		t->base[t->nbase++] = t->epochs_arg;
	}
	t->estimate_s = po.estimate_s;
	snprintf(t->epochs_why, sizeof(t->epochs_why), "%s", po.epochs_why);
	if (make_sweep_dir(c->out, c->tag, t->dir, sizeof(t->dir), err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;   /* nothing ran: a bad --tag or --out */
	}
	t->doc = sweep_new_doc(t);
	return STEP_GO;
}

/* The folder locked against a second sweep, its runs/ and logs/, sweep.json
 * saved, and the dataset scanned (its pages are dropped before each run). */
int sweep_prepare(struct sweep_state *t)
{
	char err[1024], path[PATH_MAX + 64];
	static const char *const sub[] = { "runs", "logs" };

	t->lockfd = lock_dir(t->dir);
	if (t->lockfd == -2) {
		error_msg("another sweep is running in '%s'", t->dir);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", t->dir, sub[i]);
		if (mkdir(path, 0777) && errno != EEXIST) {
			error_msg("cannot create '%s': %s", path, strerror(errno));
			return EXIT_FAIL;
		}
	}
	if (sweep_save_json(t->doc, t->dir, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (dataset_scan(&t->ds, t->data, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	t->have_data = 1;
	/* what merge checks before it compares sweeps of several machines */
	json_object_set_new(t->doc, "dataset", dataset_json(&t->ds));
	if (!t->c.resume)
		sweep_whatif(t);
	if (sweep_save_json(t->doc, t->dir, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	return STEP_GO;
}

/* The report of the sweep (--report), and the folder's name on stdout. */
void sweep_finish(const struct sweep_state *t)
{
	char err[1024];

	if (t->c.report) {
		struct sweep s;
		if (sweep_load(&s, t->dir, err, sizeof(err)) == 0) {
			s.model = t->c.model;
			if (report_write(&s, err, sizeof(err)))
				error_msg("%s", err);
			else
				printf("%s/report.md\n%s/report.html\n", t->dir, t->dir);
			sweep_free(&s);
		} else {
			error_msg("%s", err);
		}
	}
	printf("sweep: %s\n", t->dir);
}

void sweep_state_free(struct sweep_state *t)
{
	if (t->have_data)
		dataset_release(&t->ds);
	if (t->lockfd >= 0)
		close(t->lockfd);
	json_decref(t->doc);
	free(t->w);
	free(t->b);
	free(t->g);
	for (size_t i = 2; i < t->own_args; i++)
		free(t->base[i]);
	free(t->base);
	opts_split_free(&t->args);
}
