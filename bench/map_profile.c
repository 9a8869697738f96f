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
#include "commands.h"
#include "counters.h"
#include "log.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"
#include "valgrind_marks.h"
#include "resdir.h"
#include "map.h"

extern char **environ;

/* GCC's clones (f.constprop.0, f.isra.0, f.cold) and an assembler
 * function's local labels (jsimd_idct_islow_avx2.columnDCT) count as their
 * function. */
void map_add_cost(struct op_map *m, const char *lib, const char *fn_in, double count)
{
	char fn[192];
	fmt_to(fn, sizeof(fn), "%s", fn_in);
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
	fmt_to(e->lib, sizeof(e->lib), "%s", lib);
	fmt_to(e->fn, sizeof(e->fn), "%s", fn);
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

/* Self cost (Ir) per object and function; totals of the cache events. */
int map_parse_callgrind(const char *path, struct op_map *m, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fmt_to(err, errlen, "cannot open '%s': %s", path, strerror(errno));
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
		fmt_to(err, errlen, "'%s': no Ir event (not a callgrind profile?)", path);
		goto out;
	}
	for (size_t i = 0; i < ne; i++) {
		const char *o = e[i].ob >= 0 && (size_t)e[i].ob < obs.n && obs.s[e[i].ob] ?
				obs.s[e[i].ob] : "???";
		const char *n = e[i].fn >= 0 && (size_t)e[i].fn < fns.n && fns.s[e[i].fn] ?
				fns.s[e[i].fn] : "???";
		map_add_cost(m, map_base_name(o), n, e[i].ir);
	}
	if (iD1mr >= 0 && iD1mw >= 0 && iDLmr >= 0 && iDLmw >= 0 && have_totals) {
		m->has_cache = 1;
		m->d1_miss = totals[iD1mr] + totals[iD1mw];
		m->ll_miss = totals[iDLmr] + totals[iDLmw];
	}
	rc = 0;
	goto out;
bad:
	fmt_to(err, errlen, "'%s':%d: cannot read this callgrind line", path, lineno);
	goto out;
nomem:
	fmt_to(err, errlen, "out of memory");
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
