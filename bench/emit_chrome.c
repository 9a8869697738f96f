#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "log.h"

/* Where a trace_proc is drawn. */
struct track {
	int pid, tid;
	const struct trace_proc *p;
};

static const char *cat_of(unsigned kind)
{
	switch (kind) {
	case EV_OP:
	case EV_TRANSFORM:
	case EV_COLLATE:
		return "op";
	case EV_BATCH_PREPROC:
		return "batch";
	case EV_GPU_COPY:
	case EV_GPU_STEP:
		return "gpu";
	default:
		return "main";
	}
}

/* ns as us with 3 decimals, exactly (no double rounding). */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Names are ours or read from LotusTrace files: escape what JSON needs. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int rank_kind(unsigned kind)
{
	return kind == EV_BATCH_PREPROC ? 0 : kind == EV_TRANSFORM ? 1 : 2;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct trace_ev *x = *(const struct trace_ev *const *)a;
	const struct trace_ev *y = *(const struct trace_ev *const *)b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return rank_kind(x->kind) - rank_kind(y->kind);
}

struct flow_end {
	int64_t batch;
	uint64_t ts;
	int pid, tid;
};

static int cmp_flow(const void *a, const void *b)
{
	const struct flow_end *x = a, *y = b;
	return x->batch < y->batch ? -1 : x->batch > y->batch;
}

static void put_meta(FILE *f, int *first, const char *what, int pid, int tid,
		     const char *key, const char *sval, long ival)
{
	fprintf(f, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"%s\":",
		*first ? "" : ",", what, pid, tid, key);
	if (sval)
		put_str(f, sval);
	else
		fprintf(f, "%ld", ival);
	fputs("}}", f);
	*first = 0;
}

int chrome_trace_write(const struct trace *t, const char *path, char *err, size_t errlen)
{
	struct track *tr = NULL;
	const struct trace_ev **ord = NULL;
	struct flow_end *src = NULL, *dst = NULL;
	size_t nsrc = 0, ndst = 0, maxn = 0, nall = 0;
	uint64_t origin = UINT64_MAX;
	int main_pid = 0, first = 1, ret = -1;
	FILE *f = NULL;

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct trace_proc *p = &t->procs[i];
		if (p->role == ROLE_MAIN && !main_pid)
			main_pid = p->pid;
		if (p->n > maxn)
			maxn = p->n;
		nall += p->n;
		for (size_t k = 0; k < p->n; k++)
			if (p->ev[k].start_ns < origin)
				origin = p->ev[k].start_ns;
	}
	if (origin == UINT64_MAX)
		origin = 0;
	if (!main_pid)
		main_pid = 1;
	tr = calloc(t->nprocs ? t->nprocs : 1, sizeof(*tr));
	ord = malloc((maxn ? maxn : 1) * sizeof(*ord));
	src = malloc((nall ? nall : 1) * sizeof(*src));
	dst = malloc((nall ? nall : 1) * sizeof(*dst));
	if (!tr || !ord || !src || !dst) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	/* workers are processes of their own (process backend: their pid;
	 * thread backend: their tid, shown as a process too); main, pin and
	 * GPU are threads of the main process; clashing tids get synthetic ones */
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct trace_proc *p = &t->procs[i];
		tr[i].p = p;
		tr[i].pid = p->role == ROLE_WORKER ? p->pid : main_pid;
		tr[i].tid = p->pid;
		for (size_t j = 0; j < i; j++)
			if (tr[j].pid == tr[i].pid && tr[j].tid == tr[i].tid)
				tr[i].tid = 0x40000000 + (int)i;
	}

	f = fopen(path, "w");
	if (!f) {
		errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		goto out;
	}
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"ppbench\",", f);
	fprintf(f, "\"origin_wall_ns\":%" PRIu64 "},\"traceEvents\":[", origin);

	put_meta(f, &first, "process_name", main_pid, main_pid, "name", "ppbench main", 0);
	put_meta(f, &first, "process_sort_index", main_pid, main_pid, "sort_index", NULL, 0);
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct trace_proc *p = &t->procs[i];
		char name[64];
		switch (p->role) {
		case ROLE_MAIN:
			snprintf(name, sizeof(name), "main");
			break;
		case ROLE_WORKER:
			snprintf(name, sizeof(name), "worker %d", p->id);
			put_meta(f, &first, "process_name", tr[i].pid, tr[i].tid, "name", name, 0);
			put_meta(f, &first, "process_sort_index", tr[i].pid, tr[i].tid, "sort_index",
				 NULL, 1 + (long)p->id);
			break;
		case ROLE_PIN:
			snprintf(name, sizeof(name), "pin_memory");
			break;
		default:
			snprintf(name, sizeof(name), "gpu");
			break;
		}
		put_meta(f, &first, "thread_name", tr[i].pid, tr[i].tid, "name", name, 0);
		put_meta(f, &first, "thread_sort_index", tr[i].pid, tr[i].tid, "sort_index", NULL,
			 p->role == ROLE_MAIN ? 0 : p->role == ROLE_PIN ? 1 : 2);
	}

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct trace_proc *p = &t->procs[i];
		for (size_t k = 0; k < p->n; k++)
			ord[k] = &p->ev[k];
		qsort(ord, p->n, sizeof(*ord), cmp_ev);
		for (size_t k = 0; k < p->n; k++) {
			const struct trace_ev *e = ord[k];
			fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cat_of(e->kind));
			if (e->kind == EV_OP) {
				put_str(f, e->op < t->nops ? t->op_names[e->op] : "SUnknownOp");
			} else if (trace_kind_name(e->kind)) {
				if (!trace_kind_per_batch(e->kind))
					put_str(f, trace_kind_name(e->kind));
				else
					fprintf(f, "\"%s%" PRId64 "\"", trace_kind_name(e->kind), e->batch);
			} else {
				fprintf(f, "\"kind%u\"", (unsigned)e->kind);
			}
			fprintf(f, ",\"pid\":%d,\"tid\":%d,\"ts\":", tr[i].pid, tr[i].tid);
			put_us(f, e->start_ns - origin);
			fputs(",\"dur\":", f);
			put_us(f, e->dur_ns);
			fputs(",\"args\":{", f);
			if (e->batch >= 0)
				fprintf(f, "\"batch\":%" PRId64, e->batch);
			if (e->sample != UINT32_MAX)
				fprintf(f, "%s\"sample\":%u", e->batch >= 0 ? "," : "",
					(unsigned)e->sample);
			fputs("}}", f);

			if (e->kind == EV_BATCH_PREPROC && e->batch >= 0) {
				src[nsrc].batch = e->batch;
				src[nsrc].ts = e->start_ns + (e->dur_ns >= 2 ? e->dur_ns - 1 : 0) - origin;
				src[nsrc].pid = tr[i].pid;
				src[nsrc].tid = tr[i].tid;
				nsrc++;
			} else if (e->kind == EV_BATCH_CONSUMED && e->batch >= 0) {
				dst[ndst].batch = e->batch;
				dst[ndst].ts = e->start_ns - origin;
				dst[ndst].pid = tr[i].pid;
				dst[ndst].tid = tr[i].tid;
				ndst++;
			}
		}
	}

	/* flow arrows: batch preprocessed (worker) -> batch consumed (main) */
	qsort(src, nsrc, sizeof(*src), cmp_flow);
	qsort(dst, ndst, sizeof(*dst), cmp_flow);
	for (size_t a = 0, b = 0; a < nsrc && b < ndst;) {
		if (src[a].batch < dst[b].batch) {
			a++;
		} else if (src[a].batch > dst[b].batch) {
			b++;
		} else {
			int64_t id = -(src[a].batch + 1);
			fprintf(f, ",\n{\"ph\":\"s\",\"cat\":\"batch\",\"name\":\"batch\",\"id\":%" PRId64
				",\"pid\":%d,\"tid\":%d,\"ts\":", id, src[a].pid, src[a].tid);
			put_us(f, src[a].ts);
			fprintf(f, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"batch\",\"name\":\"batch\",\"id\":%"
				PRId64 ",\"pid\":%d,\"tid\":%d,\"ts\":", id, dst[b].pid, dst[b].tid);
			put_us(f, dst[b].ts);
			fputs("}", f);
			a++;
			b++;
		}
	}
	fputs("\n]}\n", f);
	if (ferror(f)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (f && fclose(f) && ret == 0) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		ret = -1;
	}
	free(tr);
	free(ord);
	free(src);
	free(dst);
	return ret;
}
