/* ppbench sweep: a grid of `ppbench run` processes, one per configuration
 * and repeat, with the page cache dropped between them, then the report. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "fsutil.h"
#include "clock.h"
#include "commands.h"
#include "escape.h"
#include "describe.h"
#include "generate.h"
#include "imagefolder.h"
#include "log.h"
#include "subprocess.h"
#include "machine.h"
#include "noise.h"
#include "options.h"
#include "report.h"
#include "run.h"
#include "stats.h"
#include "sweep.h"
#include "whatif.h"
#include "resdir.h"

struct sweep_cfg {
	const char *workers, *batch, *gpus, *policy;  /* lists */
	long repeat;
	int warm, report, dry_run, model;
	const char *resume, *tag, *out, *data, *label;
	const char *fused;      /* the fused what-if: NAME|FILE|on|off (NULL: on) */
	uint64_t fused_images;
};

#define O(f) offsetof(struct sweep_cfg, f)
static const struct opt sweep_opts[] = {
	{ "workers", 'w', OPT_LIST, O(workers), "1 2 3 4", "LIST",
	  "worker counts, e.g. \"8 12 16\"; \"gpus\": workers = GPUs (the paper's grid)",
	  .choices = NULL },
	{ "batch", 'b', OPT_LIST, O(batch), "32 128", "LIST", "batch sizes", .choices = NULL },
	{ "gpus", 'g', OPT_LIST, O(gpus), "2", "LIST",
	  "simulated GPU counts (the default is run's: a sweep's default configurations are "
	  "runs with their defaults)", .choices = NULL },
	{ "policy", 0, OPT_LIST, O(policy), "torch", "LIST",
	  "loader policies compared, e.g. \"torch speedy shared-queue\" (see ppbench run --policy)",
	  .choices = NULL },
	{ "repeat", 'r', OPT_INT, O(repeat), "1", "N", "runs of each configuration",
	  .lo = 1, .hi = 1000 },
	{ "warm", 0, OPT_BOOL, O(warm), "off", NULL,
	  "keep the page cache between runs (off: drop the dataset's pages before each run)",
	  .choices = NULL },
	{ "report", 0, OPT_BOOL, O(report), "on", NULL,
	  "write the figures and report at the end", .choices = NULL },
	{ "model", 0, OPT_BOOL, O(model), "off", NULL,
	  "add the model's lines (ppbench model) to the figures against workers", .choices = NULL },
	{ "dry-run", 0, OPT_BOOL, O(dry_run), "off", NULL,
	  "print the plan (per configuration the memory it needs and whether it fits, its "
	  "batches and images, an estimated time and the findings it counts for; what each "
	  "finding of the report can judge; the total and its time) and run nothing; every "
	  "sweep prints it first", .choices = NULL },
	{ "resume", 0, OPT_STR, O(resume), NULL, "DIR",
	  "run what is missing in the sweep folder DIR (its plan and options)", .choices = NULL },
	{ "fused", 0, OPT_STR, O(fused), "on", "NAME|FILE|on|off",
	  "before the runs, measure the fused what-if (one thread, the sweep's dataset): the "
	  "pipeline against this fused counterpart (on: imagenet_train_fused beside "
	  "imagenet_train, nothing for other pipelines); the report shows the CPU cores it "
	  "would save per GPU", .choices = NULL },
	{ "fused-images", 0, OPT_U64, O(fused_images), "200", "N",
	  "images of the dataset the fused what-if passes over (6 alternating passes of each "
	  "pipeline)", .lo = 1, .hi = 100000 },
	OPT_DATA(struct sweep_cfg, data),
	OPT_TAG(struct sweep_cfg, tag, "name of the sweep folder after the time"),
	OPT_OUT(struct sweep_cfg, out, "results", "where the sweep folder is made"),
	{ "label", 0, OPT_STR, O(label), NULL, "TEXT",
	  "what sets this sweep's machine apart (\"SMT off\", \"4 cores\"): merge never averages "
	  "sweeps whose labels or machine identities differ", .choices = NULL },
	OPT_END
};
#undef O

static const char usage[] = "ppbench sweep [options] [run options]";
static const char description[] =
	"Runs every configuration of workers x batch x GPUs x loader policy (and\n"
	"repeats) as its own `ppbench run` process, in a stable order (repeats\n"
	"outermost, then batch, GPUs, policy, workers), dropping the dataset's pages\n"
	"from the page cache before each run unless --warm. Any other option is passed\n"
	"to every run (see ppbench run --help): --pipeline, --max-batches, --epochs,\n"
	"--seed, --gpu-step, ...\n"
	"Without --epochs or --max-batches, every run gets the fewest epochs that give\n"
	"each configuration 8 batches (the least a finding of the report rests on),\n"
	"unless that stops a configuration fitting in memory or the sweep would take\n"
	"over an hour; the plan says what it chose and why.\n"
	"Leaves OUT/<UTC time>-sweep[-TAG]/ with sweep.json, runs/, logs/, summary.csv,\n"
	"figures/, report.md and report.html. Interrupted, it keeps the finished runs:\n"
	"--resume DIR runs the rest.";

/* ---- the page cache -----------------------------------------------------*/

double sweep_page_cache(const struct dataset *d, int drop)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec = NULL;
	size_t veccap = 0;
	double total = 0, resident = 0;

	for (size_t i = 0; i < d->n; i++) {
		char why[256];
		struct stat st;
		int fd = open_regular(d->items[i].path, &st, why, sizeof(why));
		if (fd < 0)
			continue;
		if (drop)
			drop_page_cache(fd);
		if (fstat(fd, &st) == 0 && st.st_size > 0) {
			size_t pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
			if (pages > veccap) {
				unsigned char *nv = realloc(vec, pages);
				if (nv) {
					vec = nv;
					veccap = pages;
				}
			}
			if (m != MAP_FAILED && pages <= veccap &&
			    mincore(m, (size_t)st.st_size, vec) == 0) {
				for (size_t k = 0; k < pages; k++)
					resident += vec[k] & 1;
				total += (double)pages;
			}
			if (m != MAP_FAILED)
				munmap(m, (size_t)st.st_size);
		}
		close(fd);
	}
	free(vec);
	return total > 0 ? 100 * resident / total : -1;
}

/* ---- the plan -------------------------------------------------------------*/

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

#define policy_names loader_policy_names   /* the one list (loader.h), by this file's name */
#define NPOLICIES (sizeof(policy_names) / sizeof(policy_names[0]))

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
		for (p = 0; p < NPOLICIES; p++)
			if (!strcmp(tok, policy_names[p]))
				break;
		if (p == NPOLICIES) {
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

static void utc_stamp(char *out, size_t n, const char *fmt)
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
					const char *pn = policy_names[pol[ip]];
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

static int save_json(json_t *doc, const char *dir, char *err, size_t errlen)
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

/* ---- running ------------------------------------------------------------*/

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* The run folders present in runs/ (names, sorted); caller frees. */
static size_t list_runs(const char *runs, char ***out)
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

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void fmt_dur(char *out, size_t n, double s)
{
	long t = (long)(s + 0.5);
	if (s < 0 || !isfinite(s))
		snprintf(out, n, "?");
	else if (t >= 3600)
		snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
}

struct progress {
	int tty;
	size_t total, done_before;  /* runs in the plan; already ok before this invocation */
	size_t done;                /* runs finished (any status) in this invocation */
	size_t todo;                /* runs to do in this invocation */
	uint64_t start_ns;          /* this invocation */
	double run_s;               /* sum of wall times of the runs done */
};

static void progress_line(const struct progress *p, size_t index, const char *tag,
			  uint64_t run_start)
{
	char el[32], rem[32];
	uint64_t now = clock_now_ns();
	double elapsed = (double)(now - p->start_ns) / 1e9;
	double cur = (double)(now - run_start) / 1e9;
	double rest = NAN;
	if (p->done) {
		double avg = p->run_s / (double)p->done;
		rest = avg * (double)(p->todo - p->done) - cur;
		if (rest < 0)
			rest = 0;
	}
	fmt_dur(el, sizeof(el), elapsed);
	fmt_dur(rem, sizeof(rem), rest);
	fprintf(stderr, "\r\033[Ksweep: run %zu of %zu (%s)  elapsed %s  remaining %s%s", index,
		p->total, tag, el, isfinite(rest) ? "~" : "", rem);
	fflush(stderr);
}

/* The argument vector of one planned run: `ppbench run BASE... --workers W
 * --batch B --gpus G [--policy P] --tag TAG --out DIR/runs`. The numbers are
 * written into nums (3 x 16 bytes); NULL when out of memory. */
static char **run_argv(json_t *e, char **base_args, size_t nbase, char nums[3][16], char *out)
{
	const char *tag = json_string_value(json_object_get(e, "tag"));
	char **argv;
	size_t k = 0;

	snprintf(nums[0], 16, "%lld", (long long)json_integer_value(json_object_get(e, "workers")));
	snprintf(nums[1], 16, "%lld", (long long)json_integer_value(json_object_get(e, "batch_size")));
	snprintf(nums[2], 16, "%lld", (long long)json_integer_value(json_object_get(e, "gpus")));
	/* sweep.json of a sweep made before policies were swept: no "policy" */
	const char *pol = json_string_value(json_object_get(e, "policy"));
	argv = calloc(nbase + 18, sizeof(*argv));
	if (!argv)
		return NULL;
	argv[k++] = "ppbench";
	argv[k++] = "run";
	for (size_t i = 0; i < nbase; i++)
		argv[k++] = base_args[i];
	argv[k++] = "--workers";
	argv[k++] = nums[0];
	argv[k++] = "--batch";
	argv[k++] = nums[1];
	argv[k++] = "--gpus";
	argv[k++] = nums[2];
	if (pol) {
		argv[k++] = "--policy";
		argv[k++] = (char *)pol;
	}
	argv[k++] = "--tag";
	argv[k++] = (char *)tag;
	argv[k++] = "--out";
	argv[k++] = out;
	argv[k] = NULL;
	return argv;
}

/* The log of a run, opened for appending: a resumed sweep keeps the
 * interrupted attempt's log under a line that marks the new one. */
static int open_run_log(const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd >= 0 && lseek(fd, 0, SEEK_END) > 0) {
		char stamp[32], head[96];
		utc_stamp(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ");
		int hl = snprintf(head, sizeof(head), "\n==== another attempt, %s ====\n", stamp);
		ssize_t wr = write(fd, head, (size_t)hl);
		(void)wr;   /* the log is a convenience: the run goes on */
	}
	return fd;
}

/* Starts the run (argv) with its output in log; the pid, or -1 when the
 * sweep was asked to stop or the run could not start. */
static pid_t start_run(char **argv, const char *log)
{
	/* no signal between the last look at stop_signal and the fork: one that
	 * comes later is passed on to the run */
	static const int dfl[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	struct spawn sp = SPAWN_INIT;
	sigset_t stop, old;
	int fd;
	pid_t pid;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if (stop_signal) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	fd = open_run_log(log);
	sp.exe = "/proc/self/exe";
	sp.argv = argv;
	sp.in = SPAWN_NULL;
	if (fd >= 0)
		sp.out = sp.err = fd;
	/* its own process group: a terminal's ^C reaches the sweep, which
	 * passes it on once (the run would take a second one as the same) */
	sp.own_group = 1;
	sp.dfl = dfl;
	/* the run dies with the sweep (SIGKILL included): a run nobody
	 * records would only be run again by --resume. SIGTERM, so it
	 * still keeps what it measured. */
	sp.deathsig = SIGTERM;
	sp.mask = &old;
	pid = spawn_start(&sp);
	if (pid < 0)
		error_msg("cannot start a run: %s", strerror(errno));
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd >= 0)
		close(fd);
	return pid;
}

/* Waits for the run, passing a stop signal on and drawing the progress line;
 * its exit status as a shell reports it (128 + signal), -1 when lost. */
static int wait_run(pid_t pid, const struct progress *pr, size_t index, const char *tag,
		    uint64_t t0)
{
	uint64_t last = 0, forwarded = 0;
	struct rusage ru;
	int st = 0;

	memset(&ru, 0, sizeof(ru));
	for (;;) {
		pid_t r = wait4(pid, &st, WNOHANG, &ru);
		uint64_t now = clock_now_ns();
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			st = -1;
			break;
		}
		if (stop_signal) {
			/* the run is in its own process group: pass the signal on,
			 * then, if it does not stop within a minute, kill its group */
			if (!forwarded) {
				forwarded = now;
				kill(pid, stop_signal);
			} else if (now - forwarded > 60000000000ull) {
				kill(-pid, SIGKILL);
			}
		}
		if (pr->tty && now - last >= 1000000000ull) {
			progress_line(pr, index, tag, t0);
			last = now;
		}
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	return st == -1 ? -1 : spawn_code(st);
}

/* Records in e the run folder that appeared in runs/ (not in before), its
 * status and images/s. The status. */
static const char *record_run(const char *dir, json_t *e, char **before, size_t nbefore, int rc)
{
	const char *status = RUN_FAILED;
	char runs[PATH_MAX], **after = NULL;
	size_t nafter;

	errf(runs, sizeof(runs), "%s/runs", dir);
	nafter = list_runs(runs, &after);
	json_object_set_new(e, "run_dir", json_string(""));
	for (size_t i = 0; i < nafter; i++) {
		int seen = 0;
		for (size_t j = 0; j < nbefore && !seen; j++)
			seen = !strcmp(after[i], before[j]);
		if (seen)
			continue;
		char rel[PATH_MAX], sp[PATH_MAX + 64];
		snprintf(rel, sizeof(rel), "runs/%s", after[i]);
		errf(sp, sizeof(sp), "%s/%s/summary.json", dir, rel);
		char why[200];
		json_t *sum = summary_read(sp, why, sizeof(why));
		json_object_set_new(e, "run_dir", json_string(rel));
		if (sum) {
			int complete = json_is_true(json_object_get(sum, "complete"));
			status = complete ? (rc == 0 ? RUN_OK : RUN_FAILED) : RUN_INCOMPLETE;
			double ips = json_number_value(json_object_get(sum, "images_per_s"));
			json_object_set_new(e, "images_per_s", json_real(ips));
			json_decref(sum);
		}
		break;
	}
	free_list(after, nafter);
	return status;
}

/* One line per run: its status, and for a failed one the last line of its log. */
static void report_run_line(const struct progress *pr, size_t index, json_t *e, const char *log,
			    const char *status, int rc, double wall)
{
	const char *tag = json_string_value(json_object_get(e, "tag"));
	char el[32], rem[32], why[600] = "";
	double rest = pr->done < pr->todo ? pr->run_s / (double)pr->done *
					    (double)(pr->todo - pr->done) : 0;
	fmt_dur(el, sizeof(el), (double)(clock_now_ns() - pr->start_ns) / 1e9);
	fmt_dur(rem, sizeof(rem), rest);
	if (strcmp(status, RUN_OK)) {
		FILE *f = fopen_regular(log, FILE_MAX_DOC, NULL, 0);
		char line[512];
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = 0;
			if (line[0])
				snprintf(why, sizeof(why), ": %s", line);
		}
		if (f)
			fclose(f);
	}
	double ips = json_number_value(json_object_get(e, "images_per_s"));
	if (pr->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "sweep: run %zu of %zu (%s): %s, exit %d, %.1f s", index, pr->total,
		tag, status, rc, wall);
	if (!strcmp(status, RUN_OK))
		fprintf(stderr, ", %.1f images/s", ips);
	fprintf(stderr, "%s; elapsed %s, remaining ~%s\n", why, el, rem);
}

/* Runs one planned run; fills its json entry. Returns the exit status. */
static int run_one(const char *dir, json_t *e, char **base_args, size_t nbase,
		   struct progress *pr, size_t index)
{
	const char *tag = json_string_value(json_object_get(e, "tag"));
	char runs[PATH_MAX], log[PATH_MAX], nums[3][16], out[PATH_MAX];
	char **before = NULL, **argv;
	size_t nbefore;
	uint64_t t0;
	int rc;
	pid_t pid;

	errf(runs, sizeof(runs), "%s/runs", dir);
	errf(log, sizeof(log), "%s/logs/%s.log", dir, tag);
	snprintf(out, sizeof(out), "%s", runs);
	if (!(argv = run_argv(e, base_args, nbase, nums, out)))
		return -1;
	nbefore = list_runs(runs, &before);
	t0 = clock_now_ns();
	pid = start_run(argv, log);
	if (pid < 0) {
		free(argv);
		free_list(before, nbefore);
		return -1;
	}
	rc = wait_run(pid, pr, index, tag, t0);
	double wall = (double)(clock_now_ns() - t0) / 1e9;

	const char *status = record_run(dir, e, before, nbefore, rc);
	json_object_set_new(e, "status", json_string(status));
	json_object_set_new(e, "exit_code", json_integer(rc));
	json_object_set_new(e, "wall_s", json_real(wall));
	{
		char stamp[32];
		utc_stamp(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ");
		json_object_set_new(e, "finished_utc", json_string(stamp));
	}
	pr->done++;
	pr->run_s += wall;
	report_run_line(pr, index, e, log, status, rc, wall);
	free_list(before, nbefore);
	free(argv);
	return rc;
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

/* Split argv into the sweep's own options and the ones for every run. A
 * token that does not start with '-' is the value of the option before it
 * (a sweep takes no positional argument). */
static int split_args(int argc, char **argv, char ***mine, int *nmine, char ***pass,
		      size_t *npass)
{
	/* room for the two arguments of --epochs the plan may add to pass */
	char **m = calloc((size_t)argc + 1, sizeof(*m)), **p = calloc((size_t)argc + 3, sizeof(*p));
	int nm = 0;
	size_t np = 0;

	if (!m || !p) {
		free(m);
		free(p);
		return -1;
	}
	m[nm++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o = NULL;
		char name[64];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			m[nm++] = argv[i];
			continue;
		}
		if (a[0] == '-' && a[1] == '-') {
			size_t len = strcspn(a + 2, "=");
			snprintf(name, sizeof(name), "%.*s", (int)len, a + 2);
			o = opts_find(sweep_opts, name);
			if (!o && !strncmp(name, "no-", 3) && (o = opts_find(sweep_opts, name + 3)) &&
			    o->type != OPT_BOOL)
				o = NULL;
		} else if (a[0] == '-' && a[1] && !a[2]) {
			for (const struct opt *q = sweep_opts; q->name; q++)
				if (q->shortname == a[1])
					o = q;
		}
		int takes = a[0] == '-' && !strchr(a, '=') && i + 1 < argc &&
			    (argv[i + 1][0] != '-' || !argv[i + 1][1]);
		if (o && o->type == OPT_BOOL)
			takes = takes && (!strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off"));
		if (o) {
			m[nm++] = argv[i];
			if (takes)
				m[nm++] = argv[++i];
		} else {
			p[np++] = argv[i];
			if (takes)
				p[np++] = argv[++i];
		}
	}
	*mine = m;
	*nmine = nm;
	*pass = p;
	*npass = np;
	return 0;
}

/* An option neither the sweep nor a run knows: the nearest of both, or NULL
 * when arg is known (or not an option). */
static const char *unknown_passed(const char *arg, char *name, size_t n)
{
	if (strncmp(arg, "--", 2) || !arg[2])
		return NULL;
	snprintf(name, n, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	if (opts_find(run_opts_table, name) ||
	    (!strncmp(name, "no-", 3) && opts_find(run_opts_table, name + 3)))
		return NULL;
	const char *names[256];
	size_t k = 0;
	for (const struct opt *t = sweep_opts; t->name && k < 128; t++)
		names[k++] = t->name;
	for (const struct opt *t = run_opts_table; t->name && k < 256; t++)
		names[k++] = t->name;
	const char *near = nearest_name(name, names, k);
	return near ? near : "";
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

/* What cmd_sweep's steps share: the options, the run arguments every run gets
 * (base), the plan (doc) and what the sweep holds until it ends. */
struct sweep_state {
	struct sweep_cfg c;
	char dir[PATH_MAX], data[PATH_MAX];
	char **mine, **pass, **base;
	int nmine, tied, lockfd, have_data;
	size_t npass, nbase, nw, nb, ng, np;
	size_t own_args;   /* base[2 .. own_args) are copies (a resumed sweep's) */
	int *w, *b, *g, pol[NPOLICIES];
	json_t *doc;
	struct dataset ds;
	char epochs_arg[24];       /* --epochs chosen by the plan */
	char epochs_why[1024];     /* what the plan said of it */
	double estimate_s;         /* the plan's estimate of the whole sweep (NaN: none) */
	char pipeline[PATH_MAX];   /* the runs' --pipeline */
	char fused[PATH_MAX];      /* the fused what-if's pipeline, "" none */
};

/* A step's "go on": any other value is the command's exit status. */
#define STEP_GO (-1)

/* The command line: the sweep's own options, and those passed on to the runs
 * (checked against run's names here, their values later). */
static int sweep_parse(struct sweep_state *t, int argc, char **argv)
{
	int npos = 0;

	if (split_args(argc, argv, &t->mine, &t->nmine, &t->pass, &t->npass)) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	int pr_ = opts_prelude(sweep_opts, &t->c, t->nmine, t->mine, &npos, usage, description,
			       "sweep");
	if (pr_ >= 0)
		return pr_;
	for (size_t i = 0; i < t->npass; i++) {
		char name[64];
		const char *near = unknown_passed(t->pass[i], name, sizeof(name));
		if (near && *near) {
			error_msg("unknown option '--%s'; did you mean '--%s'? (see ppbench sweep --help "
			      "and ppbench run --help)", name, near);
			return EXIT_USAGE;
		}
	}
	return STEP_GO;
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
static int sweep_resume(struct sweep_state *t)
{
	char path[PATH_MAX + 64];
	char why[512];

	/* only --report/--no-report go with --resume: the plan is in the folder */
	for (int i = 1; i < t->nmine; i++)
		if (t->mine[i][0] == '-' && strncmp(t->mine[i], "--resume", 8) &&
		    strstr(t->mine[i], "report") == NULL) {
			error_msg("--resume takes the plan and options from the sweep folder; "
			      "'%s' cannot be changed", t->mine[i]);
			return EXIT_USAGE;
		}
	if (t->npass) {
		error_msg("--resume takes the run options from the sweep folder; '%s' cannot be "
		      "changed", t->pass[0]);
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
	chk[k++] = (char *)policy_names[t->pol[0]];
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

	utc_stamp(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ");
	for (size_t i = 0; i < t->npass; i++)
		json_array_append_new(ra, json_bytes(t->pass[i]));
	for (size_t i = 0; i < t->np; i++)
		json_array_append_new(pa, json_string(policy_names[t->pol[i]]));
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
static int sweep_new(struct sweep_state *t)
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
	for (size_t i = 0; i < t->npass; i++)
		if (sweep_sets(t->pass[i])) {
			error_msg("'%s' is set by the sweep", t->pass[i]);
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
	if (sweep_base_alloc(t, t->npass + 2))
		return EXIT_FAIL;
	for (size_t i = 0; i < t->npass; i++)
		t->base[t->nbase++] = t->pass[i];
	int rc = sweep_check_runs(t);
	if (rc != STEP_GO)
		return rc;
	if (sweep_resolve_fused(t))
		return EXIT_USAGE;
	/* every configuration's memory, before anything runs */
	struct sweep_grid sg = { .workers = t->w, .batch_size = t->b, .gpus = t->g, .pol = t->pol, .nw = t->nw,
				 .nb = t->nb, .ng = t->ng, .np = t->np, .tied = t->tied,
				 .pol_name = policy_names, .repeat = c->repeat,
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
		t->pass[t->npass++] = "--epochs";
		t->pass[t->npass++] = t->epochs_arg;
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
static int sweep_prepare(struct sweep_state *t)
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
	if (save_json(t->doc, t->dir, err, sizeof(err))) {
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
	if (save_json(t->doc, t->dir, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	return STEP_GO;
}

/* Every run not yet ok, in plan order, until a stop signal; sweep.json saved
 * after each. The number of runs ok (before and now). */
static size_t sweep_runs(struct sweep_state *t)
{
	char err[1024];
	json_t *runs = json_object_get(t->doc, "runs");
	struct progress pr = { .tty = isatty(STDERR_FILENO), .total = json_array_size(runs),
			       .start_ns = clock_now_ns() };
	for (size_t i = 0; i < pr.total; i++) {
		const char *s = json_string_value(json_object_get(json_array_get(runs, i), "status"));
		if (s && !strcmp(s, RUN_OK))
			pr.done_before++;
	}
	pr.todo = pr.total - pr.done_before;
	info("sweep: %s: %zu run%s to do%s (%s), page cache %s between runs", t->dir, pr.todo,
	     pr.todo == 1 ? "" : "s", t->c.resume ? " (resumed)" : "", t->data,
	     t->c.warm ? "kept warm" : "dropped");
	size_t nok = 0, nfail = 0;
	for (size_t i = 0; i < pr.total && !stop_signal; i++) {
		json_t *e = json_array_get(runs, i);
		const char *s = json_string_value(json_object_get(e, "status"));
		if (s && !strcmp(s, RUN_OK)) {
			nok++;
			continue;
		}
		double res = sweep_page_cache(&t->ds, !t->c.warm);
		if (stop_signal)
			break;
		json_object_set_new(e, "page_cache", json_string(t->c.warm ? "warm" : "dropped"));
		json_object_set_new(e, "page_cache_resident_pct", res >= 0 ? json_real(res) : json_null());
		if (pr.tty)
			progress_line(&pr, i + 1, json_string_value(json_object_get(e, "tag")),
				      clock_now_ns());
		else
			info("sweep: run %zu of %zu (%s) starting", i + 1, pr.total,
			     json_string_value(json_object_get(e, "tag")));
		if (run_one(t->dir, e, t->base, t->nbase, &pr, i + 1) < 0 && stop_signal)
			break;
		s = json_string_value(json_object_get(e, "status"));
		if (s && !strcmp(s, RUN_OK))
			nok++;
		else
			nfail++;
		if (save_json(t->doc, t->dir, err, sizeof(err)))
			error_msg("%s", err);
	}
	/* a wrapper that runs several sweeps (make reproduce) gives the one hint
	 * that resumes all of them */
	const char *wrapped = getenv("PPBENCH_WRAPPED_BY");
	if (stop_signal && wrapped && *wrapped)
		warn_msg("sweep interrupted (%s): finished runs are kept (%s says how to resume)",
			 stop_signal == SIGINT ? "SIGINT" : stop_signal == SIGHUP ? "SIGHUP" : "SIGTERM",
			 wrapped);
	else if (stop_signal)
		warn_msg("sweep interrupted (%s): finished runs are kept; resume with: ppbench sweep "
		     "--resume %s", stop_signal == SIGINT ? "SIGINT" : stop_signal == SIGHUP ? "SIGHUP"
		     : "SIGTERM", t->dir);
	else if (nfail)
		warn_msg("%zu run%s failed (see the report and %s/logs/)", nfail, nfail == 1 ? "" : "s",
		     t->dir);
	return nok;
}

/* The report of the sweep (--report), and the folder's name on stdout. */
static void sweep_finish(const struct sweep_state *t)
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

static void sweep_state_free(struct sweep_state *t)
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
	free(t->mine);
	free(t->pass);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_state t = { .lockfd = -1 };
	struct sigaction sa, old_int, old_term, old_hup;
	int rc = sweep_parse(&t, argc, argv);

	if (rc == STEP_GO)
		rc = t.c.resume ? sweep_resume(&t) : sweep_new(&t);
	if (rc == STEP_GO)
		rc = sweep_prepare(&t);
	if (rc != STEP_GO) {
		sweep_state_free(&t);
		return rc;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	size_t nok = sweep_runs(&t);
	sweep_finish(&t);
	/* interrupted: 128 + the signal, as a shell reports it */
	rc = stop_signal ? 128 + stop_signal : !nok ? EXIT_FAIL : EXIT_OK;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sweep_state_free(&t);
	return rc;
}
