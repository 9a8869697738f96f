/* ppbench map: which functions of which libraries each op of a pipeline
 * spends its time in (the Lotus paper's Table I, measured).
 *
 * Each op runs alone, repeatedly, on one large image, in a child process
 * (`ppbench map --child K`) that prepares the op's input with the ops
 * before it and marks only the op's own calls: under callgrind with client
 * requests toggling collection (no PMU needed; exact instruction counts,
 * simulated cache misses with --cache-sim), or under `perf record` started
 * disabled and enabled around each call through its control FIFO.
 *
 * Libraries that Debian ships stripped (libjpeg.so.62: its decoder's
 * functions are static, so a profile shows bare addresses) are replaced in
 * the children by a stand-in linked from the same package's static archive
 * (libjpeg.a keeps the names), found next to the shared object; the output
 * says which libraries were replaced.
 *
 * Output folder: map.csv (op, library, function, count, share), ops.csv
 * (per-op totals), map.md (the table and the functions shared between ops),
 * and the raw profiles, which callgrind_annotate / perf report read. */
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
#include "commands.h"
#include "counters.h"
#include "log.h"
#include "subprocess.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"
#include "valgrind_marks.h"
#include "resdir.h"

extern char **environ;

enum map_tool { TOOL_AUTO, TOOL_PERF, TOOL_CALLGRIND };

struct map_cfg {
	const char *pipeline;
	int tool;
	long repeat;
	double seconds;
	long batch;
	const char *size;
	const char *out;
	long top;
	double min_share;
	int cache_sim;
	int standins;
	uint64_t seed;
	long child;
	const char *perf_ctl;
};

#define O(f) offsetof(struct map_cfg, f)
static const struct opt map_opts[] = {
	{ .name = "pipeline", .shortname = 'p', .type = OPT_STR, .off = O(pipeline),
	  .def = "imagenet_train", .metavar = "NAME|FILE", .help = "pipeline whose ops are mapped" },
	{ .name = "tool", .type = OPT_ENUM, .off = O(tool), .def = "auto",
	  .choices = "auto|perf|callgrind",
	  .help = "auto: perf where hardware events sample, else callgrind, else perf on cpu-clock" },
	{ .name = "repeat", .shortname = 'n', .type = OPT_INT, .off = O(repeat), .def = "0",
	  .metavar = "N", .help = "calls of each op (0: 3 under callgrind, --seconds of calls under perf)",
	  .lo = 0, .hi = 1000000 },
	{ .name = "seconds", .type = OPT_DOUBLE, .off = O(seconds), .def = "2", .metavar = "S",
	  .help = "perf: time spent in each op, at least", .lo = 0.001, .hi = 3600 },
	{ .name = "batch", .shortname = 'b', .type = OPT_INT, .off = O(batch), .def = "32",
	  .metavar = "B", .help = "samples given to the batch op (collate)", .lo = 1, .hi = 4096 },
	{ .name = "size", .type = OPT_STR, .off = O(size), .def = "2000x1500", .metavar = "WxH",
	  .help = "size of the generated JPEG when no IMAGE is given" },
	{ .name = "out", .shortname = 'o', .type = OPT_STR, .off = O(out), .metavar = "DIR",
	  .help = "output folder, created (default: results/<UTC time>-map-<pipeline>)" },
	{ .name = "top", .type = OPT_INT, .off = O(top), .def = "8", .metavar = "N",
	  .help = "functions per op in map.md", .lo = 1, .hi = 1000 },
	{ .name = "min-share", .type = OPT_DOUBLE, .off = O(min_share), .def = "1", .metavar = "PCT",
	  .help = "functions below this share of their op are left out of map.md and the shared list",
	  .lo = 0, .hi = 100 },
	{ .name = "cache-sim", .type = OPT_BOOL, .off = O(cache_sim), .def = "off",
	  .help = "callgrind: simulate the caches (D1 and LL misses per op; about 2x slower)" },
	{ .name = "standins", .type = OPT_BOOL, .off = O(standins), .def = "on",
	  .help = "replace stripped libraries by stand-ins linked from their static archives" },
	{ .name = "seed", .type = OPT_U64, .off = O(seed), .def = "0", .metavar = "N",
	  .help = "seed of the random ops' draws" },
	{ .name = "child", .type = OPT_INT, .off = O(child), .def = "-1", .metavar = "K",
	  .help = "(internal) run op K alone, marking its calls", .lo = -1, .hi = PIPE_MAX_OPS },
	{ .name = "perf-ctl", .type = OPT_STR, .off = O(perf_ctl), .metavar = "CTL,ACK",
	  .help = "(internal) perf's control and ack FIFOs" },
	OPT_END
};
#undef O

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

static int map_child(const struct map_cfg *c, const char *image)
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
	if (c->perf_ctl) {
		char ctl[PATH_MAX], *comma;
		errf(ctl, sizeof(ctl), "%s", c->perf_ctl);
		comma = strchr(ctl, ',');
		if (!comma) {
			error_msg("--perf-ctl: expected CTL,ACK");
			goto out;
		}
		*comma = 0;
		mk.ctl = open(ctl, O_WRONLY | O_CLOEXEC);
		mk.ack = open(comma + 1, O_RDONLY | O_CLOEXEC);
		if (mk.ctl < 0 || mk.ack < 0) {
			error_msg("cannot open perf's control FIFOs '%s': %s", c->perf_ctl, strerror(errno));
			goto out;
		}
	}
	rng_seed(&r, rng_sample_seed(c->seed, 0, 0));
	s.path = image;
	s.rng = &r;
	s.scr = &scr;
	for (int j = 0; j < k; j++) {
		if (j == p.batch_op)
			continue;
		if (p.op[j].ops->run(p.op[j].cfg, &s)) {
			error_msg("cannot prepare the input of '%s': '%s' failed on '%s': %s",
			      p.op[k].ops->name, p.op[j].ops->name, image, s.err);
			goto out;
		}
	}
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
		many = calloc((size_t)c->batch, sizeof(*many));
		out.capacity = po->ops->batch_bytes(po->cfg, (size_t)c->batch, h, w);
		out.mem = malloc(out.capacity ? out.capacity : 1);
		if (!many || !out.mem)
			die("out of memory");
		for (long i = 0; i < c->batch; i++)
			many[i] = &s;
		out.n = (size_t)c->batch;
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
	printf("ppbench-map: op=%s calls=%llu op_ns=%llu\n", po->ops->name,
	       (unsigned long long)calls, (unsigned long long)op_ns);
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

/* ---- results model -------------------------------------------------------*/

struct fn_cost {
	char lib[96];
	char fn[192];
	double count;
	double share;          /* % of the op's total */
};

struct op_map {
	char op[40];
	int index;
	int ok;
	uint64_t calls;
	double op_ns;          /* wall time of the marked calls (slowed by the tool) */
	double total;          /* instructions (callgrind) or samples (perf) */
	double d1_miss, ll_miss;
	int has_cache;
	size_t n, cap;
	struct fn_cost *f;
};

/* GCC's clones (f.constprop.0, f.isra.0, f.cold) and an assembler
 * function's local labels (jsimd_idct_islow_avx2.columnDCT) count as their
 * function. */
static void add_cost(struct op_map *m, const char *lib, const char *fn_in, double count)
{
	char fn[192];
	errf(fn, sizeof(fn), "%s", fn_in);
	char *dot = fn[0] != '.' ? strchr(fn, '.') : NULL;
	if (dot && strncmp(fn, "0x", 2))
		*dot = 0;
	for (size_t i = m->n; i-- > 0;)
		if (!strcmp(m->f[i].fn, fn) && !strcmp(m->f[i].lib, lib)) {
			m->f[i].count += count;
			return;
		}
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct fn_cost *f = realloc(m->f, cap * sizeof(*f));
		if (!f)
			die("out of memory");
		m->f = f;
		m->cap = cap;
	}
	struct fn_cost *e = &m->f[m->n++];
	errf(e->lib, sizeof(e->lib), "%s", lib);
	errf(e->fn, sizeof(e->fn), "%s", fn);
	e->count = count;
}

static int cmp_cost(const void *a, const void *b)
{
	const struct fn_cost *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(x->lib, y->lib);
	return c ? c : strcmp(x->fn, y->fn);
}

static void finish_op(struct op_map *m)
{
	m->total = 0;
	for (size_t i = 0; i < m->n; i++)
		m->total += m->f[i].count;
	for (size_t i = 0; i < m->n; i++)
		m->f[i].share = m->total > 0 ? 100.0 * m->f[i].count / m->total : 0;
	qsort(m->f, m->n, sizeof(*m->f), cmp_cost);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- callgrind's output format -------------------------------------------*/

struct strtab {
	char **s;
	size_t n;
};

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	t->s = NULL;
	t->n = 0;
}

static int strtab_set(struct strtab *t, size_t id, const char *name)
{
	if (id >= t->n) {
		size_t n = id + 64;
		char **s = realloc(t->s, n * sizeof(*s));
		if (!s)
			return -1;
		memset(s + t->n, 0, (n - t->n) * sizeof(*s));
		t->s = s;
		t->n = n;
	}
	if (!t->s[id] && !(t->s[id] = strdup(name)))
		return -1;
	return 0;
}

/* "(id) name", "(id)" or "name" (uncompressed): the id, names registered. */
static long name_ref(struct strtab *t, const char *v)
{
	if (*v == '(') {
		char *end;
		long id = strtol(v + 1, &end, 10);
		if (*end != ')' || id < 0 || id > 10000000)
			return -1;
		end++;
		while (*end == ' ')
			end++;
		if (*end && strtab_set(t, (size_t)id, end))
			return -1;
		return id;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i] && !strcmp(t->s[i], v))
			return (long)i;
	size_t id = t->n;
	if (strtab_set(t, id, v))
		return -1;
	return (long)id;
}

struct cg_ent {
	long ob, fn;
	double ir;
};

/* Self cost (Ir) per object and function; totals of the cache events. */
static int parse_callgrind(const char *path, struct op_map *m, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		errf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	struct strtab obs = { 0 }, fns = { 0 }, files = { 0 };
	struct cg_ent *e = NULL;
	size_t ne = 0, cap = 0, last = 0;
	char *line = NULL;
	size_t lcap = 0;
	int npos = 1, nev = 0, skip_next = 0, rc = -1, lineno = 0;
	int iIr = -1, iD1mr = -1, iD1mw = -1, iDLmr = -1, iDLmw = -1;
	long ob = -1, fn = -1, fn_ob = -1;
	double totals[32] = { 0 };
	int have_totals = 0;
	ssize_t len;
	while ((len = getline(&line, &lcap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		char c0 = line[0];
		if ((c0 >= '0' && c0 <= '9') || c0 == '+' || c0 == '-' || c0 == '*') {
			if (skip_next) {
				skip_next = 0;
				continue;
			}
			if (fn < 0 || iIr < 0)
				continue;
			char *p = line, *end;
			for (int k = 0; k < npos; k++) {
				while (*p && *p != ' ')
					p++;
				while (*p == ' ')
					p++;
			}
			double ir = 0;
			for (int k = 0; k <= iIr && *p; k++) {
				double v = strtod(p, &end);
				if (end == p)
					break;
				if (k == iIr)
					ir = v;
				p = end;
			}
			if (ir == 0)
				continue;
			if (!(last < ne && e[last].ob == fn_ob && e[last].fn == fn)) {
				for (last = 0; last < ne; last++)
					if (e[last].ob == fn_ob && e[last].fn == fn)
						break;
				if (last == ne) {
					if (ne == cap) {
						cap = cap ? 2 * cap : 256;
						struct cg_ent *n2 = realloc(e, cap * sizeof(*e));
						if (!n2)
							goto nomem;
						e = n2;
					}
					e[ne].ob = fn_ob;
					e[ne].fn = fn;
					e[ne].ir = 0;
					ne++;
				}
			}
			e[last].ir += ir;
			continue;
		}
		char *eq = strchr(line, '=');
		char *colon = strchr(line, ':');
		if (eq && (!colon || eq < colon)) {
			*eq = 0;
			const char *key = line, *v = eq + 1;
			long id = 0;
			if (!strcmp(key, "ob") || !strcmp(key, "cob")) {
				id = name_ref(&obs, v);
				if (key[0] == 'o')
					ob = id;
			} else if (!strcmp(key, "fn") || !strcmp(key, "cfn")) {
				id = name_ref(&fns, v);
				if (key[0] == 'f') {
					fn = id;
					fn_ob = ob;
				}
			} else if (!strcmp(key, "fl") || !strcmp(key, "fi") || !strcmp(key, "fe") ||
				   !strcmp(key, "cfi") || !strcmp(key, "cfl")) {
				id = name_ref(&files, v);
			} else if (!strcmp(key, "calls") || !strcmp(key, "jump") || !strcmp(key, "jcnd")) {
				skip_next = 1;
			}
			if (id < 0)
				goto bad;
			continue;
		}
		if (!strncmp(line, "events:", 7)) {
			char *save = NULL;
			nev = 0;
			for (char *t = strtok_r(line + 7, " ", &save); t && nev < 32;
			     t = strtok_r(NULL, " ", &save), nev++) {
				if (!strcmp(t, "Ir"))
					iIr = nev;
				else if (!strcmp(t, "D1mr"))
					iD1mr = nev;
				else if (!strcmp(t, "D1mw"))
					iD1mw = nev;
				else if (!strcmp(t, "DLmr"))
					iDLmr = nev;
				else if (!strcmp(t, "DLmw"))
					iDLmw = nev;
			}
		} else if (!strncmp(line, "positions:", 10)) {
			char *save = NULL;
			npos = 0;
			for (char *t = strtok_r(line + 10, " ", &save); t; t = strtok_r(NULL, " ", &save))
				npos++;
			if (!npos)
				npos = 1;
		} else if (!strncmp(line, "totals:", 7) || (!have_totals && !strncmp(line, "summary:", 8))) {
			char *p = strchr(line, ':') + 1, *end;
			for (int k = 0; k < nev && k < 32; k++) {
				totals[k] = strtod(p, &end);
				if (end == p)
					break;
				p = end;
			}
			have_totals = 1;
		}
	}
	if (iIr < 0) {
		errf(err, errlen, "'%s': no Ir event (not a callgrind profile?)", path);
		goto out;
	}
	for (size_t i = 0; i < ne; i++) {
		const char *o = e[i].ob >= 0 && (size_t)e[i].ob < obs.n && obs.s[e[i].ob] ?
				obs.s[e[i].ob] : "???";
		const char *n = e[i].fn >= 0 && (size_t)e[i].fn < fns.n && fns.s[e[i].fn] ?
				fns.s[e[i].fn] : "???";
		add_cost(m, base_name(o), n, e[i].ir);
	}
	if (iD1mr >= 0 && iD1mw >= 0 && iDLmr >= 0 && iDLmw >= 0 && have_totals) {
		m->has_cache = 1;
		m->d1_miss = totals[iD1mr] + totals[iD1mw];
		m->ll_miss = totals[iDLmr] + totals[iDLmw];
	}
	rc = 0;
	goto out;
bad:
	errf(err, errlen, "'%s':%d: cannot read this callgrind line", path, lineno);
	goto out;
nomem:
	errf(err, errlen, "out of memory");
out:
	free(line);
	free(e);
	strtab_free(&obs);
	strtab_free(&fns);
	strtab_free(&files);
	fclose(f);
	return rc;
}

/* ---- perf report ---------------------------------------------------------*/

static int parse_perf_report(FILE *f, struct op_map *m)
{
	char *line = NULL;
	size_t cap = 0;
	int rows = 0;
	while (getline(&line, &cap, f) > 0) {
		double pct;
		unsigned long long samples;
		char dso[256], kind;
		int off = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, " %lf%% %llu %255s [%c] %n", &pct, &samples, dso, &kind, &off) < 4 || !off)
			continue;
		add_cost(m, dso, line + off, (double)samples);
		rows++;
	}
	free(line);
	return rows;
}

/* ---- processes -----------------------------------------------------------*/

static int find_in_path(const char *prog, char *out, size_t n)
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
static int run_logged(char *const *argv, char *const *envp, const char *log)
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
static void log_tail(const char *log, char *out, size_t n)
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

/* ---- stand-ins for stripped libraries ------------------------------------*/

/* Does a profiler find function names for this ELF file: a symbol table,
 * or a separate debug file under /usr/lib/debug/.build-id? */
static int elf_has_names(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), named = 1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	unsigned char *b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (b == MAP_FAILED)
		return 1;
	const Elf64_Ehdr *eh = (const void *)b;
	size_t size = (size_t)st.st_size;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		goto out;
	const Elf64_Shdr *sh = (const void *)(b + eh->e_shoff);
	named = 0;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB) {
			named = 1;
			break;
		}
		if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		const unsigned char *p = b + sh[i].sh_offset, *end = p + sh[i].sh_size;
		while (p + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const void *)p;
			const unsigned char *name = p + sizeof(*nh);
			const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz >= 2 && nh->n_descsz <= 64) {
				char dbg[256];
				int l = errf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", desc[0]);
				for (unsigned k = 1; k < nh->n_descsz; k++)
					l += errf(dbg + l, sizeof(dbg) - (size_t)l, "%02x", desc[k]);
				errf(dbg + l, sizeof(dbg) - (size_t)l, ".debug");
				if (!access(dbg, R_OK))
					named = 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
out:
	munmap(b, size);
	return named;
}

/* Lines of a command's stdout into a file (popen without a shell). */
static int capture(char *const *argv, const char *path)
{
	return run_logged(argv, NULL, path);
}

/* Build dir/<soname> from the static archive beside `lib`, exporting the
 * same symbols under the same versions; 1 built, 0 not applicable, -1 failed
 * (why in note). */
static int build_standin(const char *lib, const char *dir, char *soname, size_t sonlen,
			 char *note, size_t notelen)
{
	char real[PATH_MAX], ar[PATH_MAX + 8], tmp[PATH_MAX + 64], vs[PATH_MAX + 64], shim[PATH_MAX + 64];
	char out[PATH_MAX + 64], cc[PATH_MAX], line[1024];
	if (!realpath(lib, real))
		return 0;
	const char *b = base_name(real);
	const char *so = strstr(b, ".so");
	if (!so)
		return 0;
	errf(ar, sizeof(ar), "%.*s%.*s.a", (int)(b - real), real, (int)(so - b), b);
	if (access(ar, R_OK))
		return 0;
	if (find_in_path("cc", cc, sizeof(cc))) {
		errf(note, notelen, "no C compiler to link a stand-in from '%s'", ar);
		return -1;
	}
	errf(tmp, sizeof(tmp), "%s/.objdump", dir);
	char *od[] = { "objdump", "-p", real, NULL };
	if (capture(od, tmp)) {
		errf(note, notelen, "objdump failed on '%s'", real);
		return -1;
	}
	FILE *f = fopen(tmp, "r");
	soname[0] = 0;
	char needed[16][128];
	int nneeded = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char v[256];
		if (sscanf(line, " SONAME %255s", v) == 1)
			errf(soname, sonlen, "%s", v);
		else if (sscanf(line, " NEEDED %127s", v) == 1 && nneeded < 16)
			errf(needed[nneeded++], sizeof(needed[0]), "%s", v);
	}
	if (f)
		fclose(f);
	if (!soname[0])
		errf(soname, sonlen, "%s", b);
	char *nm[] = { "nm", "-D", "--defined-only", "--with-symbol-versions", real, NULL };
	if (capture(nm, tmp)) {
		errf(note, notelen, "nm failed on '%s'", real);
		return -1;
	}
	/* version script: each version node with its symbols */
	struct { char name[64]; char *syms; size_t len; } ver[64];
	int nver = 0;
	f = fopen(tmp, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char addr[32], type[4], sym[512];
		if (sscanf(line, "%31s %3s %511s", addr, type, sym) != 3)
			continue;
		char *at = strstr(sym, "@@");
		if (!at)
			at = strchr(sym, '@');
		if (!at)
			continue;
		*at = 0;
		const char *v = at + (at[1] == '@' ? 2 : 1);
		if (!strcmp(sym, v))
			continue;   /* the version node's own symbol */
		int i;
		for (i = 0; i < nver; i++)
			if (!strcmp(ver[i].name, v))
				break;
		if (i == nver) {
			if (nver == 64)
				continue;
			errf(ver[nver].name, sizeof(ver[0].name), "%s", v);
			ver[nver].syms = NULL;
			ver[nver].len = 0;
			nver++;
		}
		size_t add = strlen(sym) + 3;
		char *s2 = realloc(ver[i].syms, ver[i].len + add + 1);
		if (!s2)
			die("out of memory");
		ver[i].syms = s2;
		ver[i].len += (size_t)sprintf(s2 + ver[i].len, " %s;", sym);
	}
	if (f)
		fclose(f);
	errf(vs, sizeof(vs), "%s/.%s.map", dir, soname);
	f = fopen(vs, "w");
	if (!f) {
		errf(note, notelen, "cannot write '%s': %s", vs, strerror(errno));
		return -1;
	}
	if (!nver)
		fprintf(f, "{ global: *; };\n");
	for (int i = 0; i < nver; i++) {
		fprintf(f, "%s { global:%s%s };\n", ver[i].name, ver[i].syms ? ver[i].syms : "",
			i == nver - 1 ? " local: *;" : "");
		free(ver[i].syms);
	}
	fclose(f);
	/* objects of a static archive may be position-dependent about libc's
	 * standard streams: give the library its own copies */
	errf(shim, sizeof(shim), "%s/.stdio_shim.c", dir);
	f = fopen(shim, "w");
	if (!f) {
		errf(note, notelen, "cannot write '%s': %s", shim, strerror(errno));
		return -1;
	}
	fputs("#include <dlfcn.h>\n#include <stdio.h>\n#undef stdin\n#undef stdout\n#undef stderr\n"
	      "__attribute__((visibility(\"hidden\"))) FILE *stdin, *stdout, *stderr;\n"
	      "__attribute__((constructor)) static void standin_stdio(void)\n{\n"
	      "\tFILE **p;\n"
	      "\tif ((p = dlsym(RTLD_DEFAULT, \"stdin\"))) stdin = *p;\n"
	      "\tif ((p = dlsym(RTLD_DEFAULT, \"stdout\"))) stdout = *p;\n"
	      "\tif ((p = dlsym(RTLD_DEFAULT, \"stderr\"))) stderr = *p;\n}\n", f);
	fclose(f);
	errf(out, sizeof(out), "%s/%s", dir, soname);
	char sonameopt[300], vsopt[PATH_MAX + 100];
	errf(sonameopt, sizeof(sonameopt), "-Wl,-soname,%s", soname);
	errf(vsopt, sizeof(vsopt), "-Wl,--version-script=%s", vs);
	char *argv[48];
	char libs[16][140];
	int a = 0;
	argv[a++] = cc;
	argv[a++] = "-shared";
	argv[a++] = "-fPIC";
	argv[a++] = "-O2";
	argv[a++] = "-o";
	argv[a++] = out;
	argv[a++] = sonameopt;
	argv[a++] = vsopt;
	argv[a++] = "-Wl,-Bsymbolic";
	argv[a++] = "-Wl,--no-undefined";
	argv[a++] = shim;
	argv[a++] = "-Wl,--whole-archive";
	argv[a++] = ar;
	argv[a++] = "-Wl,--no-whole-archive";
	for (int i = 0; i < nneeded; i++) {
		errf(libs[i], sizeof(libs[i]), "-l:%s", needed[i]);
		argv[a++] = libs[i];
	}
	argv[a++] = "-ldl";
	argv[a] = NULL;
	errf(tmp, sizeof(tmp), "%s/.%s.log", dir, soname);
	if (run_logged(argv, NULL, tmp)) {
		char why[400];
		log_tail(tmp, why, sizeof(why));
		errf(note, notelen, "cannot link a stand-in for %s from '%s': %s", soname, ar, why);
		return -1;
	}
	errf(note, notelen, "%s: stripped; the map used a stand-in linked from '%s'", soname, ar);
	return 1;
}

/* The path of a library this process maps, from its file name (the
 * children map the same ones). 0, or -1. */
static int loaded_lib_path(const char *name, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	int rc = -1;
	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (!strcmp(base_name(path), name)) {
			errf(out, n, "%s", path);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* ---- the default image ---------------------------------------------------*/

/* A photo-like JPEG: smooth shapes, edges and texture, deterministic. */
static int write_jpeg(const char *path, int w, int h, char *err, size_t errlen)
{
	unsigned char *rgb = malloc((size_t)w * (size_t)h * 3), *jpg = NULL;
	unsigned long jsize = 0;
	int rc = -1;
	tjhandle tj = tjInitCompress();
	if (!rgb || !tj) {
		errf(err, errlen, "cannot generate the image: out of memory");
		goto out;
	}
	uint32_t x = 2463534242u;
	for (int y = 0; y < h; y++)
		for (int i = 0; i < w; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			double u = (double)i / w, v = (double)y / h;
			double base = 0.5 + 0.35 * sin(9 * u + 4 * v) * cos(7 * v - 3 * u);
			int disk = (u - 0.6) * (u - 0.6) + (v - 0.45) * (v - 0.45) < 0.04;
			double t = (double)(x & 63) / 63.0 - 0.5;
			unsigned char *p = rgb + ((size_t)y * (size_t)w + (size_t)i) * 3;
			/* fine texture, not white noise: photos compress */
			t *= 0.3 + 0.3 * sin(60 * u + 45 * v);
			double r = base + 0.06 * t + (disk ? 0.25 : 0);
			double g = 0.8 * base + 0.05 * t + 0.1 * sin(40 * u);
			double b = 1 - base + 0.04 * t - (disk ? 0.2 : 0);
			p[0] = (unsigned char)(fmin(fmax(r, 0), 1) * 255);
			p[1] = (unsigned char)(fmin(fmax(g, 0), 1) * 255);
			p[2] = (unsigned char)(fmin(fmax(b, 0), 1) * 255);
		}
	if (tjCompress2(tj, rgb, w, 0, h, TJPF_RGB, &jpg, &jsize, TJSAMP_420, 90, 0)) {
		errf(err, errlen, "cannot generate the image: %s", tjGetErrorStr2(tj));
		goto out;
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(jpg, 1, jsize, f) != jsize || fclose(f)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (jpg)
		tjFree(jpg);
	if (tj)
		tjDestroy(tj);
	free(rgb);
	return rc;
}

/* ---- the parent ----------------------------------------------------------*/

static int make_out_dir(const struct map_cfg *c, const char *pipe_name, char *dir, size_t n,
			char *err, size_t errlen)
{
	if (c->out) {
		errf(dir, n, "%s", c->out);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			errf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
			return -1;
		}
		char probe[PATH_MAX + 16];
		errf(probe, sizeof(probe), "%s/map.csv", dir);
		if (!access(probe, F_OK)) {
			errf(err, errlen, "'%s' holds a map already: results are never overwritten", dir);
			return -1;
		}
		return 0;
	}
	char name[256];
	results_dir_name(name, sizeof(name), "map", pipe_name);
	if (mkdir("results", 0755) && errno != EEXIST) {
		errf(err, errlen, "cannot create 'results': %s", strerror(errno));
		return -1;
	}
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			errf(dir, n, "results/%s", name);
		else
			errf(dir, n, "results/%s-%d", name, k);
		if (!mkdir(dir, 0755))
			return 0;
		if (errno != EEXIST)
			break;
	}
	errf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
	return -1;
}

/* Hardware cycles open here: perf record samples them (not a fallback). */
static int hw_cycles_open(void)
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

static void md_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

struct shared_fn {
	const char *lib, *fn;
	int nops;
	int op[PIPE_MAX_OPS];
	double share[PIPE_MAX_OPS];
};

static int write_outputs(const char *dir, const struct op_map *maps, int nmaps, const char *tool,
			 const char *unit, const char *image, int iw, int ih, const char *pipe_name,
			 const struct map_cfg *c, char notes[][512], int nnotes, char *err,
			 size_t errlen)
{
	char path[PATH_MAX + 32];
	errf(path, sizeof(path), "%s/map.csv", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "op,op_index,library,function,%s,share_pct\n", unit);
	for (int i = 0; i < nmaps; i++)
		for (size_t k = 0; k < maps[i].n; k++) {
			const struct fn_cost *e = &maps[i].f[k];
			fprintf(f, "%s,%d,", maps[i].op, maps[i].index);
			csv_field(f, e->lib);
			fputc(',', f);
			csv_field(f, e->fn);
			fprintf(f, ",%.0f,%.4f\n", e->count, e->share);
		}
	if (fclose(f))
		goto fail;

	errf(path, sizeof(path), "%s/ops.csv", dir);
	if (!(f = fopen(path, "w")))
		goto fail;
	fprintf(f, "op,op_index,tool,calls,%s,%s_per_call,d1_misses_per_call,ll_misses_per_call,"
		"marked_ms_per_call\n", unit, unit);
	for (int i = 0; i < nmaps; i++) {
		const struct op_map *m = &maps[i];
		if (!m->ok)
			continue;
		fprintf(f, "%s,%d,%s,%llu,%.0f,%.1f,", m->op, m->index, tool,
			(unsigned long long)m->calls, m->total, m->calls ? m->total / (double)m->calls : 0);
		if (m->has_cache)
			fprintf(f, "%.1f,%.1f,", m->d1_miss / (double)m->calls, m->ll_miss / (double)m->calls);
		else
			fputs(",,", f);
		fprintf(f, "%.4f\n", m->calls ? m->op_ns / 1e6 / (double)m->calls : 0);
	}
	if (fclose(f))
		goto fail;

	/* functions above the threshold in two ops or more */
	struct shared_fn *sh = NULL;
	size_t nsh = 0, capsh = 0;
	for (int i = 0; i < nmaps; i++)
		for (size_t k = 0; k < maps[i].n && maps[i].f[k].share >= c->min_share; k++) {
			const struct fn_cost *e = &maps[i].f[k];
			size_t j;
			for (j = 0; j < nsh; j++)
				if (!strcmp(sh[j].fn, e->fn) && !strcmp(sh[j].lib, e->lib))
					break;
			if (j == nsh) {
				if (nsh == capsh) {
					capsh = capsh ? 2 * capsh : 32;
					struct shared_fn *n2 = realloc(sh, capsh * sizeof(*sh));
					if (!n2)
						die("out of memory");
					sh = n2;
				}
				memset(&sh[nsh], 0, sizeof(sh[0]));
				sh[nsh].lib = e->lib;
				sh[nsh].fn = e->fn;
				nsh++;
			}
			if (sh[j].nops < PIPE_MAX_OPS) {
				sh[j].op[sh[j].nops] = i;
				sh[j].share[sh[j].nops++] = e->share;
			}
		}

	errf(path, sizeof(path), "%s/map.md", dir);
	if (!(f = fopen(path, "w"))) {
		free(sh);
		goto fail;
	}
	fprintf(f, "# Op-to-function map: %s\n\n", pipe_name);
	fprintf(f, "Each op ran alone on `%s` (%dx%d) under %s; shares are of the op's own %s.\n\n",
		base_name(image), iw, ih, tool, unit);
	for (int i = 0; i < nnotes; i++)
		fprintf(f, "- %s\n", notes[i]);
	if (nnotes)
		fputc('\n', f);
	int cache = 0;
	for (int i = 0; i < nmaps; i++)
		cache |= maps[i].has_cache;
	fprintf(f, "| op | calls | %s per call |%s\n|---|---:|---:|%s\n", unit,
		cache ? " D1 misses per call | LL misses per call |" : "", cache ? "---:|---:|" : "");
	for (int i = 0; i < nmaps; i++) {
		const struct op_map *m = &maps[i];
		if (!m->ok) {
			fprintf(f, "| %s | failed | |%s\n", m->op, cache ? " | |" : "");
			continue;
		}
		fprintf(f, "| %s | %llu | %.0f |", m->op, (unsigned long long)m->calls,
			m->total / (double)m->calls);
		if (m->has_cache)
			fprintf(f, " %.0f | %.0f |", m->d1_miss / (double)m->calls,
				m->ll_miss / (double)m->calls);
		else if (cache)
			fputs(" | |", f);
		fputc('\n', f);
	}
	fprintf(f, "\n## Functions of each op\n\nAt most %ld per op, each at least %g %% of its op.\n\n"
		"| op | library | function | share |\n|---|---|---|---:|\n", c->top, c->min_share);
	for (int i = 0; i < nmaps; i++) {
		const struct op_map *m = &maps[i];
		for (size_t k = 0; k < m->n && k < (size_t)c->top && m->f[k].share >= c->min_share; k++) {
			fprintf(f, "| %s | ", k ? "" : m->op);
			md_escape(f, m->f[k].lib);
			fputs(" | ", f);
			md_escape(f, m->f[k].fn);
			fprintf(f, " | %.1f %% |\n", m->f[k].share);
		}
	}
	fprintf(f, "\n## Functions shared between ops\n\n");
	int any = 0;
	for (size_t j = 0; j < nsh; j++) {
		if (sh[j].nops < 2)
			continue;
		if (!any++)
			fprintf(f, "| library | function | ops (share) |\n|---|---|---|\n");
		fputs("| ", f);
		md_escape(f, sh[j].lib);
		fputs(" | ", f);
		md_escape(f, sh[j].fn);
		fputs(" | ", f);
		for (int k = 0; k < sh[j].nops; k++)
			fprintf(f, "%s%s (%.1f %%)", k ? ", " : "", maps[sh[j].op[k]].op, sh[j].share[k]);
		fputs(" |\n", f);
	}
	if (!any)
		fprintf(f, "None at or above %g %% in two ops.\n", c->min_share);
	free(sh);
	if (fclose(f))
		goto fail;
	return 0;
fail:
	errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
	return -1;
}

struct map_run {
	const struct map_cfg *cfg;
	const struct pipeline *p;
	int tool;
	const char *tool_name, *unit, *perf_event;
	const char *self, *valgrind, *perf;
	const char *dir, *image;
	char standins[PATH_MAX + 16];
	char ldpath[PATH_MAX + 64];     /* LD_LIBRARY_PATH=<standins>:... */
	int use_standins;
};

/* Profile op k in a child into m (reset); m->ok tells. */
static void map_op(const struct map_run *r, struct op_map *m, int k, int standins)
{
	const struct map_cfg *c = r->cfg;
	char prof[PATH_MAX + 64], log[PATH_MAX + 64], ctl[PATH_MAX + 32], ack[PATH_MAX + 32];
	char outopt[PATH_MAX + 96], ctlopt[2 * PATH_MAX + 80], pctl[2 * PATH_MAX + 80];
	char repeat[32], seconds[32], batch[32], seed[32], child[16], err[1024], why[600];
	char *argv[48];
	int a = 0;
	free(m->f);
	memset(m, 0, sizeof(*m));
	errf(m->op, sizeof(m->op), "%s", r->p->op[k].ops->name);
	m->index = k;
	errf(repeat, sizeof(repeat), "%ld", c->repeat);
	errf(seconds, sizeof(seconds), "%g", c->seconds);
	errf(batch, sizeof(batch), "%ld", c->batch);
	errf(seed, sizeof(seed), "%llu", (unsigned long long)c->seed);
	errf(child, sizeof(child), "%d", k);
	errf(log, sizeof(log), "%s/%s.%d.%s.log", r->dir, r->tool_name, k, m->op);
	if (r->tool == TOOL_CALLGRIND) {
		errf(prof, sizeof(prof), "%s/callgrind.%d.%s.out", r->dir, k, m->op);
		errf(outopt, sizeof(outopt), "--callgrind-out-file=%s", prof);
		argv[a++] = (char *)r->valgrind;
		argv[a++] = "--tool=callgrind";
		argv[a++] = "--collect-atstart=no";
		argv[a++] = outopt;
		if (c->cache_sim)
			argv[a++] = "--cache-sim=yes";
	} else {
		errf(prof, sizeof(prof), "%s/perf.%d.%s.data", r->dir, k, m->op);
		errf(ctl, sizeof(ctl), "%s/.ctl.%d", r->dir, k);
		errf(ack, sizeof(ack), "%s/.ack.%d", r->dir, k);
		unlink(ctl);
		unlink(ack);
		if (mkfifo(ctl, 0600) || mkfifo(ack, 0600)) {
			error_msg("op '%s': cannot create '%s': %s", m->op, ctl, strerror(errno));
			return;
		}
		errf(ctlopt, sizeof(ctlopt), "--control=fifo:%s,%s", ctl, ack);
		errf(pctl, sizeof(pctl), "%s,%s", ctl, ack);
		argv[a++] = (char *)r->perf;
		argv[a++] = "record";
		argv[a++] = "-q";
		argv[a++] = "-e";
		argv[a++] = (char *)r->perf_event;   /* user space: the op, not the control round trips */
		argv[a++] = "-F";
		argv[a++] = "4999";
		argv[a++] = "-D";
		argv[a++] = "-1";
		argv[a++] = ctlopt;
		argv[a++] = "-o";
		argv[a++] = prof;
		argv[a++] = "--";
		if (standins) {
			/* perf itself must not load the stand-ins */
			argv[a++] = "env";
			argv[a++] = (char *)r->ldpath;
		}
	}
	argv[a++] = (char *)r->self;
	argv[a++] = "map";
	argv[a++] = "--child";
	argv[a++] = child;
	argv[a++] = "--pipeline";
	argv[a++] = (char *)r->p->path;
	argv[a++] = "--repeat";
	argv[a++] = repeat;
	argv[a++] = "--seconds";
	argv[a++] = seconds;
	argv[a++] = "--batch";
	argv[a++] = batch;
	argv[a++] = "--seed";
	argv[a++] = seed;
	if (r->tool == TOOL_PERF) {
		argv[a++] = "--perf-ctl";
		argv[a++] = pctl;
	}
	argv[a++] = (char *)r->image;
	argv[a] = NULL;

	/* callgrind passes its environment to the program: the stand-ins go
	 * first in LD_LIBRARY_PATH (valgrind's tool is linked statically) */
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
	uint64_t t0 = clock_now_ns();
	int st = run_logged(argv, envp, log);
	free(envp);
	if (r->tool == TOOL_PERF) {
		unlink(ctl);
		unlink(ack);
	}
	if (st) {
		log_tail(log, why, sizeof(why));
		error_msg("op '%s': %s exited with %d (%s): %s", m->op, r->tool_name, st, log, why);
		return;
	}
	FILE *lf = fopen(log, "r");
	char line[512];
	while (lf && fgets(line, sizeof(line), lf)) {
		unsigned long long calls, ns;
		char *q = strstr(line, "ppbench-map: ");
		q = q ? strstr(q, "calls=") : NULL;
		if (q && sscanf(q, "calls=%llu op_ns=%llu", &calls, &ns) == 2) {
			m->calls = calls;
			m->op_ns = (double)ns;
		}
	}
	if (lf)
		fclose(lf);
	if (r->tool == TOOL_CALLGRIND) {
		if (parse_callgrind(prof, m, err, sizeof(err))) {
			error_msg("op '%s': %s", m->op, err);
			return;
		}
	} else {
		char rep[PATH_MAX + 64];
		errf(rep, sizeof(rep), "%s/perf.%d.%s.report", r->dir, k, m->op);
		char *rv[] = { (char *)r->perf, "report", "-i", prof, "--stdio", "--no-children",
			       "--sort", "dso,sym", "-n", "-q", "--percent-limit", "0", NULL };
		FILE *rf = NULL;
		int rows = 0;
		if (!run_logged(rv, NULL, rep) && (rf = fopen(rep, "r")))
			rows = parse_perf_report(rf, m);
		if (rf)
			fclose(rf);
		if (!rows) {
			error_msg("op '%s': perf report found no samples (%s)", m->op, rep);
			return;
		}
	}
	finish_op(m);
	m->ok = m->calls > 0 && m->total > 0;
	if (!m->ok) {
		error_msg("op '%s': nothing was recorded (%s)", m->op, log);
		return;
	}
	info("map: %-24s %llu calls, %.3g %s per call, top: %s (%.1f %%)  [%.1f s]", m->op,
	     (unsigned long long)m->calls, m->total / (double)m->calls, r->unit, m->f[0].fn,
	     m->f[0].share, (double)(clock_now_ns() - t0) / 1e9);
}

int cmd_map(int argc, char **argv)
{
	static const char usage[] = "ppbench map [IMAGE] [--pipeline NAME] [--tool auto|perf|callgrind] "
				    "[--out DIR]";
	struct map_cfg cfg;
	char err[1024];
	int npos = 0;
	if (opts_defaults(map_opts, &cfg, err, sizeof(err)))
		die("%s", err);
	int rc = opts_parse(map_opts, &cfg, argc, argv, 1, &npos, err, sizeof(err));
	if (rc == 1) {
		opts_help(map_opts, stdout, usage,
			  "Runs each op of the pipeline alone, repeatedly, on IMAGE (default: a generated\n"
			  "JPEG of --size) and records which functions of which libraries it runs:\n"
			  "map.csv, ops.csv and map.md (the op-to-function table and the functions\n"
			  "shared between ops), with the raw callgrind or perf profiles.");
		return EXIT_OK;
	}
	if (rc) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (npos > 1) {
		error_msg("map takes at most one image, got %d", npos);
		return EXIT_USAGE;
	}
	if (cfg.child >= 0) {
		if (npos != 1) {
			error_msg("--child needs the image");
			return EXIT_USAGE;
		}
		return map_child(&cfg, argv[1]);
	}
	if (npos == 1 && input_missing(argv[1]))
		return EXIT_USAGE;
	int iw = 0, ih = 0;
	char tail;
	if (npos == 0 && (sscanf(cfg.size, "%dx%d%c", &iw, &ih, &tail) != 2 || iw < 1 || ih < 1 ||
			  iw > 20000 || ih > 20000)) {
		error_msg("--size: '%s' is not WxH (at most 20000x20000)", cfg.size);
		return EXIT_USAGE;
	}
	struct pipeline p;
	if (pipeline_load(&p, cfg.pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	char self[PATH_MAX], valgrind[PATH_MAX], perf[PATH_MAX];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0) {
		error_msg("cannot find this program: %s", strerror(errno));
		pipeline_release(&p);
		return EXIT_FAIL;
	}
	self[sl] = 0;
	int have_vg = !find_in_path("valgrind", valgrind, sizeof(valgrind)) && !marks_unavailable_reason() &&
		      !marks_built_with_asan();
	int have_perf = !find_in_path("perf", perf, sizeof(perf));
	int hw = have_perf && hw_cycles_open();
	int tool = cfg.tool;
	const char *perf_event = hw ? "cycles:u" : "cpu-clock:u";
	if (tool == TOOL_AUTO)
		tool = hw ? TOOL_PERF : have_vg ? TOOL_CALLGRIND : have_perf ? TOOL_PERF : -1;
	if (tool == TOOL_CALLGRIND && !have_vg) {
		error_msg("--tool callgrind: %s", marks_unavailable_reason() ? marks_unavailable_reason() :
		      marks_built_with_asan() ? "valgrind cannot run a program built with AddressSanitizer "
						"(use build/opt/ppbench)" :
		      "valgrind is not installed (scripts/install-deps.sh installs it)");
		pipeline_release(&p);
		return EXIT_FAIL;
	}
	if (tool < 0 || (tool == TOOL_PERF && !have_perf)) {
		error_msg("neither perf nor valgrind can profile here: install valgrind (scripts/install-deps.sh)");
		pipeline_release(&p);
		return EXIT_FAIL;
	}
	const char *tool_name = tool == TOOL_CALLGRIND ? "callgrind" : "perf";
	const char *unit = tool == TOOL_CALLGRIND ? "instructions" : "samples";

	char dir[PATH_MAX], image[PATH_MAX + 32];
	int status = EXIT_OK;
	struct op_map *maps = calloc((size_t)p.nops, sizeof(*maps));
	char (*notes)[512] = calloc(16, 512);
	int nnotes = 0;
	if (!maps || !notes)
		die("out of memory");
	if (make_out_dir(&cfg, p.name, dir, sizeof(dir), err, sizeof(err))) {
		error_msg("%s", err);
		status = EXIT_FAIL;
		goto out;
	}
	if (strlen(dir) > PATH_MAX - 512) {
		error_msg("'%s': the output folder's name is too long", dir);
		status = EXIT_FAIL;
		goto out;
	}
	if (npos == 1) {
		if (!realpath(argv[1], image)) {
			error_msg("cannot open '%s': %s", argv[1], strerror(errno));
			status = EXIT_FAIL;
			goto out;
		}
		tjhandle tj = tjInitDecompress();
		FILE *f = fopen(image, "rb");
		if (tj && f) {
			static unsigned char head[1 << 16];
			size_t got = fread(head, 1, sizeof(head), f);
			int ss, cs;
			if (tjDecompressHeader3(tj, head, got, &iw, &ih, &ss, &cs))
				iw = ih = 0;
		}
		if (f)
			fclose(f);
		if (tj)
			tjDestroy(tj);
	} else {
		errf(image, sizeof(image), "%s/input_%dx%d.jpg", dir, iw, ih);
		if (write_jpeg(image, iw, ih, err, sizeof(err))) {
			error_msg("%s", err);
			status = EXIT_FAIL;
			goto out;
		}
	}
	if (tool == TOOL_PERF && !hw)
		errf(notes[nnotes++], 512, "perf sampled cpu-clock in user space: hardware cycles do not open here");

	struct map_run run = {
		.cfg = &cfg, .p = &p, .tool = tool, .tool_name = tool_name, .unit = unit,
		.perf_event = perf_event, .self = self, .valgrind = valgrind, .perf = perf,
		.dir = dir, .image = image,
	};
	const char *old_ld = getenv("LD_LIBRARY_PATH");
	errf(run.standins, sizeof(run.standins), "%s/standins", dir);
	errf(run.ldpath, sizeof(run.ldpath), "LD_LIBRARY_PATH=%s%s%s", run.standins,
	       old_ld ? ":" : "", old_ld ? old_ld : "");
	info("map: %s, %d ops, %s on '%s'", p.name, p.nops, tool_name, image);
	for (int k = 0; k < p.nops; k++)
		map_op(&run, &maps[k], k, 0);

	/* second pass: ops whose time is in a stripped library, with a stand-in */
	if (cfg.standins) {
		char done[16][128];
		int ndone = 0, redo[PIPE_MAX_OPS] = { 0 }, built = 0;
		for (int k = 0; k < p.nops; k++)
			for (size_t i = 0; maps[k].ok && i < maps[k].n; i++) {
				const struct fn_cost *e = &maps[k].f[i];
				if (e->share < cfg.min_share || strncmp(e->fn, "0x", 2))
					continue;
				int seen = -1;
				for (int j = 0; j < ndone; j++)
					if (!strcmp(done[j], e->lib))
						seen = j;
				if (seen < 0 && ndone < 16) {
					char path[PATH_MAX], soname[256], note[512];
					errf(done[ndone++], sizeof(done[0]), "%s", e->lib);
					if (loaded_lib_path(e->lib, path, sizeof(path)) || elf_has_names(path))
						continue;
					if (mkdir(run.standins, 0755) && errno != EEXIST)
						continue;
					int rc = build_standin(path, run.standins, soname, sizeof(soname), note,
							       sizeof(note));
					if (rc && nnotes < 16)
						errf(notes[nnotes++], 512, "%s", note);
					if (rc > 0)
						built++;
				}
				redo[k] = 1;
			}
		if (built) {
			run.use_standins = 1;
			for (int k = 0; k < p.nops; k++)
				if (redo[k]) {
					info("map: '%s' again, with stand-ins for stripped libraries", maps[k].op);
					map_op(&run, &maps[k], k, 1);
				}
		}
	}
	int failed = 0;
	for (int k = 0; k < p.nops; k++)
		failed += !maps[k].ok;
	if (write_outputs(dir, maps, p.nops, tool_name, unit, image, iw, ih, p.name, &cfg, notes,
			  nnotes, err, sizeof(err))) {
		error_msg("%s", err);
		status = EXIT_FAIL;
		goto out;
	}
	char md[PATH_MAX + 16];
	errf(md, sizeof(md), "%s/map.md", dir);
	FILE *f = fopen(md, "r");
	char buf[4096];
	size_t got;
	while (f && (got = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, got, stdout);
	if (f)
		fclose(f);
	info("map: wrote %s/{map.csv,ops.csv,map.md}", dir);
	if (failed)
		status = EXIT_FAIL;
out:
	for (int k = 0; k < p.nops; k++)
		free(maps[k].f);
	free(maps);
	free(notes);
	pipeline_release(&p);
	return status;
}
