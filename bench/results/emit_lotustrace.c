#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "op.h"
#include "log.h"
#include "fsutil.h"

#define MAX_OPS (sizeof(((struct trace *)0)->op_names) / sizeof(((struct trace *)0)->op_names[0]))
#define NAME_LEN sizeof(((struct trace *)0)->op_names[0])

static const char *const role_name[] = {
	[ROLE_MAIN] = "main", [ROLE_WORKER] = "worker", [ROLE_PIN] = "pin", [ROLE_GPU] = "gpu",
};

/* Events Lotus knows, in the files its scripts read. */
static int lotus_kind(unsigned kind)
{
	switch (kind) {
	case EV_OP:
	case EV_TRANSFORM:
	case EV_COLLATE:
	case EV_BATCH_PREPROC:
	case EV_BATCH_QUEUED:
	case EV_BATCH_WAIT:
	case EV_BATCH_CONSUMED:
		return 1;
	default:
		return 0;
	}
}

/* Which file of the proc an event goes to: 0 the Lotus file, 1 the
 * ppbench file. Pin and GPU procs have only a ppbench file. */
static int ev_file(const struct trace_proc *p, unsigned kind)
{
	if (p->role != ROLE_MAIN && p->role != ROLE_WORKER)
		return 1;
	return !lotus_kind(kind);
}

static void file_name(char *out, size_t n, const char *dir, const char *prefix,
		      const struct trace_proc *p, int which)
{
	if (which == 0)
		snprintf(out, n, "%s/%s_%s_pid_%d", dir, prefix, role_name[p->role], p->pid);
	else
		snprintf(out, n, "%s/%s_ppbench_%s_%d", dir, prefix, role_name[p->role], p->pid);
}

static int format_name(const struct trace *t, const struct trace_ev *e, char *out, size_t n)
{
	if (e->kind == EV_OP) {
		if (e->op >= t->nops || !t->op_names[e->op][0])
			return -1;
		snprintf(out, n, "%s", t->op_names[e->op]);
	} else if (trace_kind_per_batch(e->kind)) {
		snprintf(out, n, "%s%" PRId64, trace_kind_name(e->kind), e->batch);
	} else if (trace_kind_name(e->kind)) {
		snprintf(out, n, "%s", trace_kind_name(e->kind));
	} else {
		return -1;
	}
	return 0;
}

static int write_proc(const struct trace *t, const struct trace_proc *p, const char *dir,
		      const char *prefix, int which, char *err, size_t errlen)
{
	char path[4096], name[64];
	FILE *f = NULL;
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += ev_file(p, p->ev[i].kind) == which;
	if (!n)
		return 0;
	file_name(path, sizeof(path), dir, prefix, p, which);
	f = fopen(path, "wx");
	if (!f) {
		errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct trace_ev *e = &p->ev[i];
		if (ev_file(p, e->kind) != which)
			continue;
		if (format_name(t, e, name, sizeof(name)) < 0) {
			errf(err, errlen, "cannot write '%s': event of kind %u op %u has no name",
				path, (unsigned)e->kind, (unsigned)e->op);
			fclose(f);
			return -1;
		}
		fprintf(f, "%s,%" PRIu64 ",%" PRIu64 "\n", name, e->start_ns, e->dur_ns);
	}
	if (ferror(f) | fclose(f)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int lotustrace_write(const struct trace *t, const char *dir, const char *prefix,
		     char *err, size_t errlen)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct trace_proc *p = &t->procs[i];
		if ((unsigned)p->role > ROLE_GPU) {
			errf(err, errlen, "trace proc %zu has an unknown role %d", i, (int)p->role);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (t->procs[j].role == p->role && t->procs[j].pid == p->pid) {
				errf(err, errlen, "two %s traces with pid %d", role_name[p->role],
					p->pid);
				return -1;
			}
	}
	for (size_t i = 0; i < t->nprocs; i++)
		for (int which = 0; which < 2; which++)
			if (write_proc(t, &t->procs[i], dir, prefix, which, err, errlen) < 0)
				return -1;
	return 0;
}

/* ---- reading ---- */

static int parse_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* Index of op `name`, adding it if new. -1 when the table is full. */
static int op_index(struct trace *t, const char *name)
{
	size_t n;
	const struct op_ops *const *all;

	for (size_t i = 0; i < t->nops; i++)
		if (!strcmp(t->op_names[i], name))
			return (int)i;
	if (t->nops >= MAX_OPS)
		return -1;
	snprintf(t->op_names[t->nops], NAME_LEN, "%s", name);
	t->op_ids[t->nops][0] = 0;
	all = op_all(&n);
	for (size_t i = 0; i < n; i++)
		if (all[i]->lotus_name && !strcmp(all[i]->lotus_name, name)) {
			snprintf(t->op_ids[t->nops], NAME_LEN, "%s", all[i]->name);
			break;
		}
	if (!t->op_ids[t->nops][0])
		snprintf(t->op_ids[t->nops], NAME_LEN, "%s", name[0] == 'S' && name[1] ? name + 1 : name);
	return (int)t->nops++;
}

/* Parse one event name into kind/op/batch. 0, or -1 with a reason. */
static int parse_name(struct trace *t, const char *name, struct trace_ev *e, const char **why)
{
	e->batch = -1;
	e->sample = UINT32_MAX;
	e->op = 0;
	for (unsigned k = EV_BATCH_PREPROC; trace_kind_per_batch(k); k++) {
		size_t len;
		uint64_t id;
		len = strlen(trace_kind_name(k));
		if (strncmp(name, trace_kind_name(k), len))
			continue;
		if (parse_u64(name + len, name + strlen(name), &id) < 0 || id > INT64_MAX) {
			*why = "bad batch id";
			return -1;
		}
		e->kind = (uint16_t)k;
		e->batch = (int64_t)id;
		return 0;
	}
	if (!strncmp(name, "SBatch", 6)) {
		*why = "unknown batch event";
		return -1;
	}
	if (!strcmp(name, "STransform")) {
		e->kind = EV_TRANSFORM;
	} else if (!strcmp(name, "SCollation")) {
		e->kind = EV_COLLATE;
	} else {
		int op = op_index(t, name);
		if (op < 0) {
			*why = "too many distinct ops";
			return -1;
		}
		e->kind = EV_OP;
		e->op = (uint16_t)op;
	}
	return 0;
}

static int push_ev(struct trace_proc *p, const struct trace_ev *e)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1024;
		struct trace_ev *ev = realloc(p->ev, cap * sizeof(*ev));
		if (!ev)
			return -1;
		p->ev = ev;
		p->cap = cap;
	}
	p->ev[p->n++] = *e;
	return 0;
}

static int read_file(struct trace *t, struct trace_proc *p, const char *path,
		     char *err, size_t errlen)
{
	char why[256];
	FILE *f = fopen_regular(path, FILE_MAX_TABLE, why, sizeof(why));
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int ret = -1;

	if (!f) {
		errf(err, errlen, "cannot read '%s': %s", path, why);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct trace_ev e;
		const char *why = "expected NAME,START_NS,DUR_NS";
		char *c1, *c2, *end = line + len;

		lineno++;
		while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
			*--end = 0;
		if (end == line)
			continue;   /* blank lines are skipped, as pandas does */
		c1 = memchr(line, ',', (size_t)(end - line));
		c2 = c1 ? memchr(c1 + 1, ',', (size_t)(end - c1 - 1)) : NULL;
		if (!c1 || !c2 || c1 == line)
			goto bad;
		*c1 = 0;
		if ((size_t)(c1 - line) >= NAME_LEN) {
			why = "event name too long";
			goto bad;
		}
		if (parse_u64(c1 + 1, c2, &e.start_ns) < 0) {
			why = "START_NS is not an unsigned integer";
			goto bad;
		}
		if (parse_u64(c2 + 1, end, &e.dur_ns) < 0) {
			why = memchr(c2 + 1, ',', (size_t)(end - c2 - 1)) ?
				"more than 3 fields" : "DUR_NS is not an unsigned integer";
			goto bad;
		}
		if (parse_name(t, line, &e, &why) < 0)
			goto bad;
		if (push_ev(p, &e) < 0) {
			errf(err, errlen, "out of memory");
			goto out;
		}
		continue;
bad:
		errf(err, errlen, "'%s':%zu: %s", path, lineno, why);
		goto out;
	}
	if (ferror(f)) {
		errf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

/* Recognise "<prefix>_worker_pid_<pid>", "<prefix>_main_pid_<pid>",
 * "<prefix>_ppbench_<role>_<pid>". */
static int match_file(const char *name, const char *prefix, enum proc_role *role, int *pid)
{
	size_t pl = strlen(prefix);
	const char *s, *num = NULL;
	uint64_t v;

	if (strncmp(name, prefix, pl) || name[pl] != '_')
		return 0;
	s = name + pl + 1;
	if (!strncmp(s, "worker_pid_", 11)) {
		*role = ROLE_WORKER;
		num = s + 11;
	} else if (!strncmp(s, "main_pid_", 9)) {
		*role = ROLE_MAIN;
		num = s + 9;
	} else if (!strncmp(s, "ppbench_", 8)) {
		s += 8;
		for (unsigned r = 0; r <= ROLE_GPU; r++) {
			size_t rl = strlen(role_name[r]);
			if (!strncmp(s, role_name[r], rl) && s[rl] == '_') {
				*role = (enum proc_role)r;
				num = s + rl + 1;
			}
		}
	}
	if (!num || parse_u64(num, num + strlen(num), &v) < 0 || v > INT32_MAX)
		return 0;
	*pid = (int)v;
	return 1;
}

static int cmp_ev_start(const void *a, const void *b)
{
	const struct trace_ev *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind == EV_BATCH_PREPROC ? -1 : y->kind == EV_BATCH_PREPROC ? 1 :
			x->kind < y->kind ? -1 : 1;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

/* Give S<Op>/STransform/SCollation their batch (the SBatchPreprocessed span
 * of the same proc containing their start) and sample position. Events are
 * sorted by start. */
static void infer_batches(struct trace_proc *p)
{
	size_t span = SIZE_MAX;       /* index of the current batch span */
	int64_t cur = -1;
	uint32_t sample = 0;
	uint32_t seen = 0;

	for (size_t i = 0; i < p->n; i++) {
		struct trace_ev *e = &p->ev[i];
		uint32_t bit;

		if (e->kind == EV_BATCH_PREPROC) {
			span = i;
			continue;
		}
		if (e->kind != EV_OP && e->kind != EV_TRANSFORM && e->kind != EV_COLLATE)
			continue;
		if (span == SIZE_MAX || e->start_ns > p->ev[span].start_ns + p->ev[span].dur_ns)
			continue;
		e->batch = p->ev[span].batch;
		if (e->batch != cur) {
			cur = e->batch;
			sample = 0;
			seen = 0;
		}
		if (e->kind == EV_COLLATE)
			continue;
		bit = e->kind == EV_TRANSFORM ? 1u << 31 : 1u << (e->op & 31);
		if (seen & bit) {
			sample++;
			seen = 0;
		}
		seen |= bit;
		e->sample = sample;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct wkey {
	int64_t minbatch;
	int pid;
	size_t idx;
};

static int cmp_wkey(const void *a, const void *b)
{
	const struct wkey *x = a, *y = b;
	if (x->minbatch != y->minbatch)
		return x->minbatch < y->minbatch ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int role_rank(enum proc_role r)
{
	return r == ROLE_MAIN ? 0 : r == ROLE_WORKER ? 1 : r == ROLE_PIN ? 2 : 3;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct trace_proc *x = a, *y = b;
	if (role_rank(x->role) != role_rank(y->role))
		return role_rank(x->role) - role_rank(y->role);
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int lotustrace_read(const char *dir, const char *prefix, struct trace *t,
		    char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nnames = 0, capnames = 0, nw = 0;
	struct wkey *wk = NULL;
	int ret = -1, nlotus = 0;

	t->nprocs = 0;
	t->procs = NULL;
	if (!d) {
		errf(err, errlen, "cannot open '%s': %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		enum proc_role role;
		int pid;
		if (!match_file(de->d_name, prefix, &role, &pid))
			continue;
		if (nnames == capnames) {
			size_t c = capnames ? 2 * capnames : 16;
			char **nn = realloc(names, c * sizeof(*nn));
			if (!nn)
				goto oom;
			names = nn;
			capnames = c;
		}
		names[nnames] = strdup(de->d_name);
		if (!names[nnames])
			goto oom;
		nnames++;
	}
	/* readdir order is arbitrary: read in name order, deterministic */
	if (nnames)
		qsort(names, nnames, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nnames; i++) {
		enum proc_role role = ROLE_MAIN;
		int pid = 0;
		struct trace_proc *p = NULL;
		char path[4096];

		match_file(names[i], prefix, &role, &pid);
		nlotus += !strstr(names[i] + strlen(prefix), "_ppbench_");
		for (size_t k = 0; k < t->nprocs; k++)
			if (t->procs[k].role == role && t->procs[k].pid == pid)
				p = &t->procs[k];
		if (!p) {
			struct trace_proc *np = realloc(t->procs, (t->nprocs + 1) * sizeof(*np));
			if (!np)
				goto oom;
			t->procs = np;
			p = &t->procs[t->nprocs++];
			memset(p, 0, sizeof(*p));
			p->role = role;
			p->pid = pid;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (read_file(t, p, path, err, errlen) < 0)
			goto out;
	}
	if (!nlotus) {
		errf(err, errlen, "no LotusTrace files '%s_{main,worker}_pid_<pid>' in '%s'",
			prefix, dir);
		goto out;
	}

	wk = malloc((t->nprocs ? t->nprocs : 1) * sizeof(*wk));
	if (!wk)
		goto oom;
	for (size_t k = 0; k < t->nprocs; k++) {
		struct trace_proc *p = &t->procs[k];
		if (p->n)
			qsort(p->ev, p->n, sizeof(*p->ev), cmp_ev_start);
		infer_batches(p);
		if (p->role != ROLE_WORKER)
			continue;
		wk[nw].minbatch = INT64_MAX;
		wk[nw].pid = p->pid;
		wk[nw].idx = k;
		for (size_t i = 0; i < p->n; i++)
			if (p->ev[i].kind == EV_BATCH_PREPROC && p->ev[i].batch < wk[nw].minbatch)
				wk[nw].minbatch = p->ev[i].batch;
		nw++;
	}
	qsort(wk, nw, sizeof(*wk), cmp_wkey);
	for (size_t i = 0; i < nw; i++)
		t->procs[wk[i].idx].id = (int)i;
	qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_proc);
	ret = 0;
	goto out;
oom:
	errf(err, errlen, "out of memory");
out:
	closedir(d);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(wk);
	if (ret < 0)
		lotustrace_free(t);
	return ret;
}

void lotustrace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].ev);
	free(t->procs);
	t->procs = NULL;
	t->nprocs = 0;
}
