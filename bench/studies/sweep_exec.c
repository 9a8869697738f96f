/* ppbench sweep's runs (sweep.h): each planned run as its own `ppbench run`
 * process with its log, the page cache dropped before it, a stop signal
 * passed on, the progress line, sweep.json saved after each. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "fsutil.h"
#include "clock.h"
#include "log.h"
#include "pagecache.h"
#include "report.h"
#include "stopsig.h"
#include "subprocess.h"
#include "sweep.h"
#include "sweep_row.h"

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
		sweep_utc_stamp(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ");
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
	/* no signal between the last look at the stop flag and the fork: one that
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
	if (stop_signal()) {
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
		if (stop_signal()) {
			/* the run is in its own process group: pass the signal on,
			 * then, if it does not stop within a minute, kill its group */
			if (!forwarded) {
				forwarded = now;
				kill(pid, stop_signal());
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
	nafter = sweep_list_runs(runs, &after);
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
	sweep_free_list(after, nafter);
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
	nbefore = sweep_list_runs(runs, &before);
	t0 = clock_now_ns();
	pid = start_run(argv, log);
	if (pid < 0) {
		free(argv);
		sweep_free_list(before, nbefore);
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
		sweep_utc_stamp(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ");
		json_object_set_new(e, "finished_utc", json_string(stamp));
	}
	pr->done++;
	pr->run_s += wall;
	report_run_line(pr, index, e, log, status, rc, wall);
	sweep_free_list(before, nbefore);
	free(argv);
	return rc;
}

/* Every run not yet ok, in plan order, until a stop signal; sweep.json saved
 * after each. The number of runs ok (before and now). */
size_t sweep_runs(struct sweep_state *t)
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
	for (size_t i = 0; i < pr.total && !stop_signal(); i++) {
		json_t *e = json_array_get(runs, i);
		const char *s = json_string_value(json_object_get(e, "status"));
		if (s && !strcmp(s, RUN_OK)) {
			nok++;
			continue;
		}
		double res = dataset_cache_resident(&t->ds, !t->c.warm);
		if (stop_signal())
			break;
		json_object_set_new(e, "page_cache", json_string(t->c.warm ? "warm" : "dropped"));
		json_object_set_new(e, "page_cache_resident_pct", res >= 0 ? json_real(res) : json_null());
		if (pr.tty)
			progress_line(&pr, i + 1, json_string_value(json_object_get(e, "tag")),
				      clock_now_ns());
		else
			info("sweep: run %zu of %zu (%s) starting", i + 1, pr.total,
			     json_string_value(json_object_get(e, "tag")));
		if (run_one(t->dir, e, t->base, t->nbase, &pr, i + 1) < 0 && stop_signal())
			break;
		s = json_string_value(json_object_get(e, "status"));
		if (s && !strcmp(s, RUN_OK))
			nok++;
		else
			nfail++;
		if (sweep_save_json(t->doc, t->dir, err, sizeof(err)))
			error_msg("%s", err);
	}
	/* a wrapper that runs several sweeps (make reproduce) gives the one hint
	 * that resumes all of them */
	const char *wrapped = getenv("PPBENCH_WRAPPED_BY");
	int sig = stop_signal();
	const char *sname = sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
	if (sig && wrapped && *wrapped)
		warn_msg("sweep interrupted (%s): finished runs are kept (%s says how to resume)",
			 sname, wrapped);
	else if (sig)
		warn_msg("sweep interrupted (%s): finished runs are kept; resume with: ppbench sweep "
			 "--resume %s", sname, t->dir);
	else if (nfail)
		warn_msg("%zu run%s failed (see the report and %s/logs/)", nfail, nfail == 1 ? "" : "s",
		     t->dir);
	return nok;
}
