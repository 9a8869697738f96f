/* ppbench map's profiler driver: the child that runs one op alone with its
 * calls marked, and the parent's side that runs it under callgrind or perf
 * record and reads the profile back (map.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <turbojpeg.h>
#include "clock.h"
#include "conventions.h"
#include "counters.h"
#include "kernels.h"
#include "log.h"
#include "subprocess.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"
#include "valgrind_marks.h"
#include "resdir.h"
#include "map.h"

extern char **environ;

/* ---- the child: one op, its calls marked ---------------------------------*/

struct marks {
	int tool;
	int ctl, ack;
};

static int perf_cmd(const struct marks *m, const char *cmd)
{
	char ack[16];
	size_t n = strlen(cmd);
	if (write(m->ctl, cmd, n) != (ssize_t)n)
		return -1;
	return read(m->ack, ack, sizeof(ack)) > 0 ? 0 : -1;
}

static int mark(const struct marks *m, int on)
{
	if (m->tool == TOOL_CALLGRIND) {
		marks_callgrind_toggle();
		return 0;
	}
	if (m->tool == TOOL_PERF && m->ctl >= 0)
		return perf_cmd(m, on ? "enable\n" : "disable\n");
	return 0;
}

/* --perf-ctl CTL,ACK: perf's control and ack FIFOs. 0, or -1 (said). */
static int open_perf_ctl(const char *arg, struct marks *mk)
{
	char ctl[PATH_MAX], *comma;
	errf(ctl, sizeof(ctl), "%s", arg);
	comma = strchr(ctl, ',');
	if (!comma) {
		error_msg("--perf-ctl: expected CTL,ACK");
		return -1;
	}
	*comma = 0;
	mk->ctl = open(ctl, O_WRONLY | O_CLOEXEC);
	mk->ack = open(comma + 1, O_RDONLY | O_CLOEXEC);
	if (mk->ctl < 0 || mk->ack < 0) {
		error_msg("cannot open perf's control FIFOs '%s': %s", arg, strerror(errno));
		return -1;
	}
	return 0;
}

/* Op k's input: the ops before it (but the batch op) on the image. 0, or -1 (said). */
static int prepare_input(const struct pipeline *p, int k, struct sample *s, const char *image)
{
	for (int j = 0; j < k; j++) {
		if (j == p->batch_op)
			continue;
		if (p->op[j].ops->run(p->op[j].cfg, s)) {
			error_msg("cannot prepare the input of '%s': '%s' failed on '%s': %s",
			      p->op[k].ops->name, p->op[j].ops->name, image, s->err);
			return -1;
		}
	}
	return 0;
}

int map_child(const struct map_cfg *c, const char *image)
{
	char err[512];
	struct pipeline p;
	struct marks mk = { .tool = marks_on_valgrind() ? TOOL_CALLGRIND : TOOL_PERF, .ctl = -1, .ack = -1 };
	if (pipeline_load(&p, c->pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	int k = (int)c->child, status = EXIT_FAIL;
	struct scratch scr;
	struct rng r;
	struct sample s;
	struct batch_out out;
	struct sample **many = NULL;
	unsigned char *in = NULL;
	memset(&scr, 0, sizeof(scr));
	memset(&s, 0, sizeof(s));
	memset(&out, 0, sizeof(out));
	if (k >= p.nops) {
		error_msg("--child: pipeline '%s' has %d ops", p.name, p.nops);
		goto out;
	}
	if (c->perf_ctl && open_perf_ctl(c->perf_ctl, &mk))
		goto out;
	rng_seed(&r, rng_sample_seed(c->seed, 0, 0));
	s.path = image;
	s.rng = &r;
	s.scr = &scr;
	if (prepare_input(&p, k, &s, image))
		goto out;
	const struct pipe_op *po = &p.op[k];
	enum pix_kind kind = s.kind;
	int h = s.h, w = s.w;
	size_t bytes = kind == PIX_NONE ? 0 : sample_bytes(&s);
	if (bytes) {
		in = malloc(bytes);
		if (!in)
			die("out of memory");
		memcpy(in, s.data.p, bytes);
	}
	if (k == p.batch_op) {
		many = calloc((size_t)c->batch_size, sizeof(*many));
		out.capacity = po->ops->batch_bytes(po->cfg, (size_t)c->batch_size, h, w);
		out.mem = malloc(out.capacity ? out.capacity : 1);
		if (!many || !out.mem)
			die("out of memory");
		for (long i = 0; i < c->batch_size; i++)
			many[i] = &s;
		out.n = (size_t)c->batch_size;
	}
	uint64_t calls = 0, op_ns = 0, budget = (uint64_t)(c->seconds * 1e9);
	uint64_t started = clock_now_ns();
	long want = c->repeat ? c->repeat : mk.tool == TOOL_CALLGRIND ? 3 : 1000000;
	for (long i = 0; i < want; i++) {
		if (po->ops->in != PIX_NONE || po->ops->out != PIX_NONE) {
			if (bytes) {
				if (buf_reserve(&s.data, bytes))
					die("out of memory");
				memcpy(s.data.p, in, bytes);
			}
			s.kind = kind;
			s.h = h;
			s.w = w;
		}
		rng_seed(&r, rng_sample_seed(c->seed, 0, (uint64_t)i));
		int rc;
		if (mark(&mk, 1))
			goto ctlfail;
		uint64_t t0 = clock_now_ns();
		if (k == p.batch_op)
			rc = po->ops->run_batch(po->cfg, many, out.n, &out, err, sizeof(err));
		else
			rc = po->ops->run(po->cfg, &s);
		uint64_t t1 = clock_now_ns();
		if (mark(&mk, 0))
			goto ctlfail;
		if (rc) {
			error_msg("'%s' failed on '%s': %s", po->ops->name, image,
			      k == p.batch_op ? err : s.err);
			goto out;
		}
		calls++;
		op_ns += t1 - t0;
		/* short ops: perf's enable/disable round trips cost more than
		 * the op, so the wall time is bounded too */
		if (!c->repeat && mk.tool != TOOL_CALLGRIND && calls >= 3 &&
		    (op_ns >= budget || t1 - started >= 3 * budget))
			break;
	}
	printf("ppbench-map: op=%s calls=%llu op_ns=%llu kernels=%s\n", po->ops->name,
	       (unsigned long long)calls, (unsigned long long)op_ns, kernels_active()->name);
	status = EXIT_OK;
	goto out;
ctlfail:
	error_msg("lost perf's control FIFO: %s", strerror(errno));
out:
	if (mk.ctl >= 0)
		close(mk.ctl);
	if (mk.ack >= 0)
		close(mk.ack);
	free(many);
	free(out.mem);
	free(in);
	sample_release(&s);
	scratch_release(&scr);
	pipeline_release(&p);
	return status;
}

/* ---- processes -----------------------------------------------------------*/

int map_find_in_path(const char *prog, char *out, size_t n)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	char buf[4096];
	errf(buf, sizeof(buf), "%s", path);
	char *save = NULL;
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		errf(out, n, "%s/%s", d, prog);
		if (!access(out, X_OK))
			return 0;
	}
	return -1;
}

/* Run argv with stdout and stderr into log (envp NULL: ours). The exit
 * status, 128 + signal, or -1 when it cannot start. */
int map_run_logged(char *const *argv, char *const *envp, const char *log)
{
	struct spawn sp = SPAWN_INIT;
	int st, fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	sp.argv = argv;
	sp.envp = envp;
	sp.search = 1;
	sp.in = SPAWN_NULL;
	sp.out = sp.err = fd;
	pid_t pid = spawn_start(&sp);
	close(fd);
	if (pid < 0 || spawn_wait(pid, &st) < 0)
		return -1;
	return spawn_code(st);
}

/* The last lines of a log, for an error message. */
void map_log_tail(const char *log, char *out, size_t n)
{
	FILE *f = fopen(log, "r");
	char line[512], keep[3][512] = { "", "", "" };
	int k = 0;
	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			errf(keep[k++ % 3], sizeof(keep[0]), "%s", line);
	}
	fclose(f);
	size_t len = 0;
	for (int i = k > 3 ? k - 3 : 0; i < k && len < n; i++)
		len += (size_t)errf(out + len, n - len, "%s%s", len ? " | " : "", keep[i % 3]);
}


/* Hardware cycles open here: perf record samples them (not a fallback). */
int map_hw_cycles_open(void)
{
	struct counter_spec *s = calloc(1, sizeof(*s));
	char err[256];
	int ok = 0;
	if (s && !counters_parse("cycles", s, err, sizeof(err))) {
		counters_probe(s);
		ok = s->ev[0].slot >= 0;
	}
	free(s);
	return ok;
}

/* The command line of op k's child under the profiler, and the buffers it
 * points into. */
struct child_cmd {
	char prof[PATH_MAX + 64], ctl[PATH_MAX + 32], ack[PATH_MAX + 32];
	char outopt[PATH_MAX + 96], ctlopt[2 * PATH_MAX + 80], pctl[2 * PATH_MAX + 80];
	char repeat[32], seconds[32], batch[32], seed[32], child[16];
	char *argv[48];
};

/* The profiler's part of the command line (perf: its control FIFOs made).
 * The arguments written, or -1 (said). */
static int profiler_argv(const struct map_run *r, const struct op_map *m, int k, int standins,
			 struct child_cmd *x)
{
	int a = 0;
	if (r->tool == TOOL_CALLGRIND) {
		errf(x->prof, sizeof(x->prof), "%s/callgrind.%d.%s.out", r->dir, k, m->op);
		errf(x->outopt, sizeof(x->outopt), "--callgrind-out-file=%s", x->prof);
		x->argv[a++] = (char *)r->valgrind;
		x->argv[a++] = "--tool=callgrind";
		x->argv[a++] = "--collect-atstart=no";
		x->argv[a++] = x->outopt;
		if (r->cfg->cache_sim)
			x->argv[a++] = "--cache-sim=yes";
		return a;
	}
	errf(x->prof, sizeof(x->prof), "%s/perf.%d.%s.data", r->dir, k, m->op);
	errf(x->ctl, sizeof(x->ctl), "%s/.ctl.%d", r->dir, k);
	errf(x->ack, sizeof(x->ack), "%s/.ack.%d", r->dir, k);
	unlink(x->ctl);
	unlink(x->ack);
	if (mkfifo(x->ctl, 0600) || mkfifo(x->ack, 0600)) {
		error_msg("op '%s': cannot create '%s': %s", m->op, x->ctl, strerror(errno));
		return -1;
	}
	errf(x->ctlopt, sizeof(x->ctlopt), "--control=fifo:%s,%s", x->ctl, x->ack);
	errf(x->pctl, sizeof(x->pctl), "%s,%s", x->ctl, x->ack);
	x->argv[a++] = (char *)r->perf;
	x->argv[a++] = "record";
	x->argv[a++] = "-q";
	x->argv[a++] = "-e";
	x->argv[a++] = (char *)r->perf_event;   /* user space: the op, not the control round trips */
	x->argv[a++] = "-F";
	x->argv[a++] = "4999";
	x->argv[a++] = "-D";
	x->argv[a++] = "-1";
	x->argv[a++] = x->ctlopt;
	x->argv[a++] = "-o";
	x->argv[a++] = x->prof;
	x->argv[a++] = "--";
	if (standins) {
		/* perf itself must not load the stand-ins */
		x->argv[a++] = "env";
		x->argv[a++] = (char *)r->ldpath;
	}
	return a;
}

/* The whole command line: the profiler, then `ppbench map --child K`. 0, or -1 (said). */
static int child_argv(const struct map_run *r, const struct op_map *m, int k, int standins,
		      struct child_cmd *x)
{
	const struct map_cfg *c = r->cfg;
	int a = profiler_argv(r, m, k, standins, x);
	if (a < 0)
		return -1;
	errf(x->repeat, sizeof(x->repeat), "%ld", c->repeat);
	errf(x->seconds, sizeof(x->seconds), "%g", c->seconds);
	errf(x->batch, sizeof(x->batch), "%ld", c->batch_size);
	errf(x->seed, sizeof(x->seed), "%llu", (unsigned long long)c->seed);
	errf(x->child, sizeof(x->child), "%d", k);
	char **argv = x->argv;
	argv[a++] = (char *)r->self;
	argv[a++] = "map";
	argv[a++] = "--child";
	argv[a++] = x->child;
	argv[a++] = "--pipeline";
	argv[a++] = (char *)r->p->path;
	argv[a++] = "--repeat";
	argv[a++] = x->repeat;
	argv[a++] = "--seconds";
	argv[a++] = x->seconds;
	argv[a++] = "--batch";
	argv[a++] = x->batch;
	argv[a++] = "--seed";
	argv[a++] = x->seed;
	if (r->tool == TOOL_PERF) {
		argv[a++] = "--perf-ctl";
		argv[a++] = x->pctl;
	}
	argv[a++] = (char *)r->image;
	argv[a] = NULL;
	return 0;
}

/* The child's environment: callgrind passes its environment to the
 * program, so the stand-ins go first in LD_LIBRARY_PATH (valgrind's tool
 * is linked statically). Free the array, not its strings. */
static char **child_env(const struct map_run *r, int standins)
{
	size_t ne = 0, j = 0;
	while (environ[ne])
		ne++;
	char **envp = calloc(ne + 2, sizeof(*envp));
	if (!envp)
		die("out of memory");
	int set_ld = standins && r->tool == TOOL_CALLGRIND;
	for (size_t i = 0; i < ne; i++)
		if (!set_ld || strncmp(environ[i], "LD_LIBRARY_PATH=", 16))
			envp[j++] = environ[i];
	if (set_ld)
		envp[j++] = (char *)r->ldpath;
	envp[j] = NULL;
	return envp;
}

/* The child's "ppbench-map: calls=N op_ns=T kernels=K" line of its log into m. */
static void read_calls(const char *log, struct op_map *m)
{
	FILE *lf = fopen(log, "r");
	char line[512];
	while (lf && fgets(line, sizeof(line), lf)) {
		unsigned long long calls, ns;
		char *q = strstr(line, "ppbench-map: ");
		q = q ? strstr(q, "calls=") : NULL;
		if (q && sscanf(q, "calls=%llu op_ns=%llu", &calls, &ns) == 2) {
			m->calls = calls;
			m->op_ns = (double)ns;
			q = strstr(q, "kernels=");
			if (!q || sscanf(q, "kernels=%15s", m->kernels) != 1)
				m->kernels[0] = 0;
		}
	}
	if (lf)
		fclose(lf);
}

/* The profile prof of op k into m (perf: through `perf report`). 0, or -1 (said). */
static int read_profile(const struct map_run *r, struct op_map *m, int k, const char *prof)
{
	char err[1024];
	if (r->tool == TOOL_CALLGRIND) {
		if (map_parse_callgrind(prof, m, err, sizeof(err))) {
			error_msg("op '%s': %s", m->op, err);
			return -1;
		}
		return 0;
	}
	char rep[PATH_MAX + 64];
	errf(rep, sizeof(rep), "%s/perf.%d.%s.report", r->dir, k, m->op);
	char *rv[] = { (char *)r->perf, "report", "-i", (char *)prof, "--stdio", "--no-children",
		       "--sort", "dso,sym", "-n", "-q", "--percent-limit", "0", NULL };
	FILE *rf = NULL;
	int rows = 0;
	if (!map_run_logged(rv, NULL, rep) && (rf = fopen(rep, "r")))
		rows = map_parse_perf_report(rf, m);
	if (rf)
		fclose(rf);
	if (!rows) {
		error_msg("op '%s': perf report found no samples (%s)", m->op, rep);
		return -1;
	}
	return 0;
}

/* Profile op k in a child into m (reset); m->ok tells. */
void map_op(const struct map_run *r, struct op_map *m, int k, int standins)
{
	char log[PATH_MAX + 64], why[600];
	struct child_cmd *x = calloc(1, sizeof(*x));
	if (!x)
		die("out of memory");
	free(m->f);
	memset(m, 0, sizeof(*m));
	errf(m->op, sizeof(m->op), "%s", r->p->op[k].ops->name);
	m->index = k;
	errf(log, sizeof(log), "%s/%s.%d.%s.log", r->dir, r->tool_name, k, m->op);
	if (child_argv(r, m, k, standins, x))
		goto out;
	char **envp = child_env(r, standins);
	uint64_t t0 = clock_now_ns();
	int st = map_run_logged(x->argv, envp, log);
	free(envp);
	if (r->tool == TOOL_PERF) {
		unlink(x->ctl);
		unlink(x->ack);
	}
	if (st) {
		map_log_tail(log, why, sizeof(why));
		error_msg("op '%s': %s exited with %d (%s): %s", m->op, r->tool_name, st, log, why);
		goto out;
	}
	read_calls(log, m);
	if (read_profile(r, m, k, x->prof))
		goto out;
	map_finish_op(m);
	m->ok = m->calls > 0 && m->total > 0;
	if (!m->ok) {
		error_msg("op '%s': nothing was recorded (%s)", m->op, log);
		goto out;
	}
	info("map: %-24s %llu calls, %.3g %s per call, top: %s (%.1f %%)  [%.1f s]", m->op,
	     (unsigned long long)m->calls, m->total / (double)m->calls, r->unit, m->f[0].fn,
	     m->f[0].share, (double)(clock_now_ns() - t0) / 1e9);
out:
	free(x);
}
