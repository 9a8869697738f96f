/* ppbench map's profile readers: callgrind's output format and `perf
 * report --stdio` into per-op costs by library and function (map.h). Pure:
 * no process runs here (tests/unit/test_map_profile.c). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
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
#include "log.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"
#include "valgrind_marks.h"
#include "resdir.h"
#include "map.h"
#include "fsutil.h"

extern char **environ;

/* GCC's clones (f.constprop.0, f.isra.0, f.cold) and an assembler
 * function's local labels (jsimd_idct_islow_avx2.columnDCT) count as their
 * function. */
void map_add_cost(struct op_map *m, const char *lib, const char *fn_in, double count)
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

void map_finish_op(struct op_map *m)
{
	m->total = 0;
	for (size_t i = 0; i < m->n; i++)
		m->total += m->f[i].count;
	for (size_t i = 0; i < m->n; i++)
		m->f[i].share = m->total > 0 ? 100.0 * m->f[i].count / m->total : 0;
	qsort(m->f, m->n, sizeof(*m->f), cmp_cost);
}

const char *map_base_name(const char *path)
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

/* What a callgrind file has said so far. */
struct cg_parse {
	struct strtab obs, fns, files;
	struct cg_ent *e;               /* self cost per (object, function) */
	size_t ne, cap, last;
	int npos, nev, skip_next;
	int iIr, iD1mr, iD1mw, iDLmr, iDLmw;    /* the events' columns, -1 absent */
	long ob, fn, fn_ob;
	double totals[32];
	int have_totals;
};

/* A cost line: its Ir to the current function's self cost. 0, or -1 out
 * of memory. */
static int cg_cost(struct cg_parse *s, char *line)
{
	if (s->skip_next) {             /* a call's inclusive cost, or a jump */
		s->skip_next = 0;
		return 0;
	}
	if (s->fn < 0 || s->iIr < 0)
		return 0;
	char *p = line, *end;
	for (int k = 0; k < s->npos; k++) {
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
	}
	double ir = 0;
	for (int k = 0; k <= s->iIr && *p; k++) {
		double v = strtod(p, &end);
		if (end == p)
			break;
		if (k == s->iIr)
			ir = v;
		p = end;
	}
	if (ir == 0)
		return 0;
	struct cg_ent *e = s->e;
	size_t last = s->last;
	if (!(last < s->ne && e[last].ob == s->fn_ob && e[last].fn == s->fn)) {
		for (last = 0; last < s->ne; last++)
			if (e[last].ob == s->fn_ob && e[last].fn == s->fn)
				break;
		if (last == s->ne) {
			if (s->ne == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 256;
				struct cg_ent *n2 = realloc(e, s->cap * sizeof(*e));
				if (!n2)
					return -1;
				s->e = e = n2;
			}
			e[s->ne].ob = s->fn_ob;
			e[s->ne].fn = s->fn;
			e[s->ne].ir = 0;
			s->ne++;
		}
	}
	s->last = last;
	e[last].ir += ir;
	return 0;
}

/* A "key=value" line (line cut at eq): names and the current object and
 * function. 0, or -1 for a name reference that cannot be read. */
static int cg_key(struct cg_parse *s, char *line, char *eq)
{
	*eq = 0;
	const char *key = line, *v = eq + 1;
	long id = 0;
	if (!strcmp(key, "ob") || !strcmp(key, "cob")) {
		id = name_ref(&s->obs, v);
		if (key[0] == 'o')
			s->ob = id;
	} else if (!strcmp(key, "fn") || !strcmp(key, "cfn")) {
		id = name_ref(&s->fns, v);
		if (key[0] == 'f') {
			s->fn = id;
			s->fn_ob = s->ob;
		}
	} else if (!strcmp(key, "fl") || !strcmp(key, "fi") || !strcmp(key, "fe") ||
		   !strcmp(key, "cfi") || !strcmp(key, "cfl")) {
		id = name_ref(&s->files, v);
	} else if (!strcmp(key, "calls") || !strcmp(key, "jump") || !strcmp(key, "jcnd")) {
		s->skip_next = 1;
	}
	return id < 0 ? -1 : 0;
}

/* A header line: events:, positions:, totals: or summary:. */
static void cg_header(struct cg_parse *s, char *line)
{
	if (!strncmp(line, "events:", 7)) {
		char *save = NULL;
		s->nev = 0;
		for (char *t = strtok_r(line + 7, " ", &save); t && s->nev < 32;
		     t = strtok_r(NULL, " ", &save), s->nev++) {
			if (!strcmp(t, "Ir"))
				s->iIr = s->nev;
			else if (!strcmp(t, "D1mr"))
				s->iD1mr = s->nev;
			else if (!strcmp(t, "D1mw"))
				s->iD1mw = s->nev;
			else if (!strcmp(t, "DLmr"))
				s->iDLmr = s->nev;
			else if (!strcmp(t, "DLmw"))
				s->iDLmw = s->nev;
		}
	} else if (!strncmp(line, "positions:", 10)) {
		char *save = NULL;
		s->npos = 0;
		for (char *t = strtok_r(line + 10, " ", &save); t; t = strtok_r(NULL, " ", &save))
			s->npos++;
		if (!s->npos)
			s->npos = 1;
	} else if (!strncmp(line, "totals:", 7) ||
		   (!s->have_totals && !strncmp(line, "summary:", 8))) {
		char *p = strchr(line, ':') + 1, *end;
		for (int k = 0; k < s->nev && k < 32; k++) {
			s->totals[k] = strtod(p, &end);
			if (end == p)
				break;
			p = end;
		}
		s->have_totals = 1;
	}
}

/* The costs read into m, and the cache misses when the events hold them. */
static void cg_finish(const struct cg_parse *s, struct op_map *m)
{
	for (size_t i = 0; i < s->ne; i++) {
		const struct cg_ent *e = &s->e[i];
		const char *o = e->ob >= 0 && (size_t)e->ob < s->obs.n && s->obs.s[e->ob] ?
				s->obs.s[e->ob] : "???";
		const char *n = e->fn >= 0 && (size_t)e->fn < s->fns.n && s->fns.s[e->fn] ?
				s->fns.s[e->fn] : "???";
		map_add_cost(m, map_base_name(o), n, e->ir);
	}
	if (s->iD1mr >= 0 && s->iD1mw >= 0 && s->iDLmr >= 0 && s->iDLmw >= 0 && s->have_totals) {
		m->has_cache = 1;
		m->d1_miss = s->totals[s->iD1mr] + s->totals[s->iD1mw];
		m->ll_miss = s->totals[s->iDLmr] + s->totals[s->iDLmw];
	}
}

/* Self cost (Ir) per object and function; totals of the cache events. */
int map_parse_callgrind(const char *path, struct op_map *m, char *err, size_t errlen)
{
	char why[256];
	FILE *f = fopen_regular(path, FILE_MAX_TABLE, why, sizeof(why));
	if (!f) {
		errf(err, errlen, "cannot open '%s': %s", path, errno == ENOENT ? strerror(errno) : why);
		return -1;
	}
	struct cg_parse s = { .npos = 1, .iIr = -1, .iD1mr = -1, .iD1mw = -1, .iDLmr = -1,
			      .iDLmw = -1, .ob = -1, .fn = -1, .fn_ob = -1 };
	char *line = NULL;
	size_t lcap = 0;
	int rc = -1, lineno = 0;
	ssize_t len;
	while ((len = getline(&line, &lcap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		char c0 = line[0];
		if ((c0 >= '0' && c0 <= '9') || c0 == '+' || c0 == '-' || c0 == '*') {
			if (cg_cost(&s, line)) {
				errf(err, errlen, "out of memory");
				goto out;
			}
			continue;
		}
		char *eq = strchr(line, '=');
		char *colon = strchr(line, ':');
		if (eq && (!colon || eq < colon)) {
			if (cg_key(&s, line, eq)) {
				errf(err, errlen, "'%s':%d: cannot read this callgrind line", path,
				       lineno);
				goto out;
			}
			continue;
		}
		cg_header(&s, line);
	}
	if (s.iIr < 0) {
		errf(err, errlen, "'%s': no Ir event (not a callgrind profile?)", path);
		goto out;
	}
	cg_finish(&s, m);
	rc = 0;
out:
	free(line);
	free(s.e);
	strtab_free(&s.obs);
	strtab_free(&s.fns);
	strtab_free(&s.files);
	fclose(f);
	return rc;
}

/* ---- perf report ---------------------------------------------------------*/

int map_parse_perf_report(FILE *f, struct op_map *m)
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
		map_add_cost(m, dso, line + off, (double)samples);
		rows++;
	}
	free(line);
	return rows;
}
