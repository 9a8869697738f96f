#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "emit.h"
#include "log.h"

/* trace.json.gz is written through zlib (Perfetto and chrome://tracing open
 * gzip'd JSON); put() and putf() are its fputs and fprintf. */
typedef gzFile out_t;
#define put(f, s) gzputs(f, s)
#define putf gzprintf
#define putch(f, c) gzputc(f, c)

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
static void put_us(out_t f, uint64_t ns)
{
	putf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Names are ours or read from LotusTrace files: escape what JSON needs. */
static void put_str(out_t f, const char *s)
{
	putch(f, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			putf(f, "\\%c", c);
		else if (c < 0x20)
			putf(f, "\\u%04x", c);
		else
			putch(f, c);
	}
	putch(f, '"');
}

/* A per-batch kind's name without its trailing "_": events group by kind,
 * the batch id is in their arguments. */
static void put_kind(out_t f, unsigned kind)
{
	const char *n = trace_kind_name(kind);
	size_t len = strlen(n);
	if (len && n[len - 1] == '_')
		len--;
	putf(f, "\"%.*s\"", (int)len, n);
}

/* Per-sample events (an op on one sample, its STransform) are the ones
 * sampled; batch events are always kept. */
static int per_sample(const struct trace_ev *e)
{
	return (e->kind == EV_OP || e->kind == EV_TRANSFORM) && e->sample != UINT32_MAX;
}

void chrome_trace_plan(const struct trace *t, struct chrome_sampling *s)
{
	memset(s, 0, sizeof(*s));
	s->limit_events = CHROME_TRACE_MAX_EVENTS;
	s->every = 1;
	uint64_t nbatch_ev = 0;
	for (size_t i = 0; i < t->nprocs; i++)
		for (size_t k = 0; k < t->procs[i].n; k++) {
			if (per_sample(&t->procs[i].ev[k]))
				s->sample_events++;
			else
				nbatch_ev++;
		}
	s->kept_sample_events = s->sample_events;
	if (nbatch_ev + s->sample_events <= s->limit_events || !s->sample_events)
		return;
	/* keep the op events of every Nth batch, batch events all */
	uint64_t room = s->limit_events > nbatch_ev ? s->limit_events - nbatch_ev : 1;
	s->every = (s->sample_events + room - 1) / room;
	s->kept_sample_events = 0;
	for (size_t i = 0; i < t->nprocs; i++)
		for (size_t k = 0; k < t->procs[i].n; k++) {
			const struct trace_ev *e = &t->procs[i].ev[k];
			if (per_sample(e) && e->batch >= 0 && (uint64_t)e->batch % s->every == 0)
				s->kept_sample_events++;
		}
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

static void put_meta(out_t f, int *first, const char *what, int pid, int tid,
		     const char *key, const char *sval, long ival)
{
	putf(f, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"%s\":",
	     *first ? "" : ",", what, pid, tid, key);
	if (sval)
		put_str(f, sval);
	else
		putf(f, "%ld", ival);
	put(f, "}}");
	*first = 0;
}

/* The state of one chrome_trace_write(), shared by its steps. */
struct chrome_writer {
	const struct trace *t;
	out_t f;
	struct chrome_sampling smp;
	struct track *tr;		/* one per trace_proc */
	const struct trace_ev **ord;	/* one proc's events in draw order */
	struct flow_end *src, *dst;	/* batch preprocessed / consumed */
	size_t nsrc, ndst, maxn, nall;
	uint64_t origin;		/* earliest event: ts 0 */
	int main_pid, first;
};

/* The main pid, the largest proc, the event count and the time origin. */
static void chrome_scan_procs(struct chrome_writer *w)
{
	const struct trace *t = w->t;
	w->origin = UINT64_MAX;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct trace_proc *p = &t->procs[i];
		if (p->role == ROLE_MAIN && !w->main_pid)
			w->main_pid = p->pid;
		if (p->n > w->maxn)
			w->maxn = p->n;
		w->nall += p->n;
		for (size_t k = 0; k < p->n; k++)
			if (p->ev[k].start_ns < w->origin)
				w->origin = p->ev[k].start_ns;
	}
	if (w->origin == UINT64_MAX)
		w->origin = 0;
	if (!w->main_pid)
		w->main_pid = 1;
}

/* workers are processes of their own (process backend: their pid;
 * thread backend: their tid, shown as a process too); main, pin and
 * GPU are threads of the main process; clashing tids get synthetic ones */
static void chrome_assign_tracks(struct chrome_writer *w)
{
	struct track *tr = w->tr;
	for (size_t i = 0; i < w->t->nprocs; i++) {
		const struct trace_proc *p = &w->t->procs[i];
		tr[i].p = p;
		tr[i].pid = p->role == ROLE_WORKER ? p->pid : w->main_pid;
		tr[i].tid = p->pid;
		for (size_t j = 0; j < i; j++)
			if (tr[j].pid == tr[i].pid && tr[j].tid == tr[i].tid)
				tr[i].tid = 0x40000000 + (int)i;
	}
}

/* otherData: the origin and how the op events were sampled. */
static void chrome_put_header(struct chrome_writer *w)
{
	const struct chrome_sampling *smp = &w->smp;
	put(w->f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"ppbench\",");
	putf(w->f, "\"origin_wall_ns\":%" PRIu64 ",\"sampled\":%s,\"op_events_every_nth_batch\":%"
	     PRIu64 ",\"op_events\":%" PRIu64 ",\"op_events_kept\":%" PRIu64
	     ",\"max_events\":%" PRIu64 ",\"note\":\"%s\"},\"traceEvents\":[", w->origin,
	     smp->every > 1 ? "true" : "false", smp->every, smp->sample_events,
	     smp->kept_sample_events, smp->limit_events, smp->every > 1 ?
	     "past max_events, the per-sample op events are kept "
	     "for every Nth batch only (batch id divisible by N); every batch event is kept; "
	     "lotustrace/ has every event" : "every event");
}

/* Metadata events: process and thread names and their sort order. */
static void chrome_put_names(struct chrome_writer *w)
{
	out_t f = w->f;
	int mp = w->main_pid;
	put_meta(f, &w->first, "process_name", mp, mp, "name", "ppbench main", 0);
	put_meta(f, &w->first, "process_sort_index", mp, mp, "sort_index", NULL, 0);
	for (size_t i = 0; i < w->t->nprocs; i++) {
		const struct trace_proc *p = &w->t->procs[i];
		const struct track *tr = &w->tr[i];
		char name[64];
		switch (p->role) {
		case ROLE_MAIN:
			snprintf(name, sizeof(name), "main");
			break;
		case ROLE_WORKER:
			snprintf(name, sizeof(name), "worker %d", p->id);
			put_meta(f, &w->first, "process_name", tr->pid, tr->tid, "name", name, 0);
			put_meta(f, &w->first, "process_sort_index", tr->pid, tr->tid,
				 "sort_index", NULL, 1 + (long)p->id);
			break;
		case ROLE_PIN:
			snprintf(name, sizeof(name), "pin_memory");
			break;
		default:
			snprintf(name, sizeof(name), "gpu");
			break;
		}
		put_meta(f, &w->first, "thread_name", tr->pid, tr->tid, "name", name, 0);
		put_meta(f, &w->first, "thread_sort_index", tr->pid, tr->tid, "sort_index", NULL,
			 p->role == ROLE_MAIN ? 0 : p->role == ROLE_PIN ? 1 : 2);
	}
}

/* One complete ("X") event on its track. */
static void chrome_put_event(struct chrome_writer *w, const struct track *tr,
			     const struct trace_ev *e)
{
	out_t f = w->f;
	const struct trace *t = w->t;
	putf(f, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cat_of(e->kind));
	if (e->kind == EV_OP) {
		put_str(f, e->op < t->nops ? t->op_names[e->op] : "SUnknownOp");
	} else if (trace_kind_name(e->kind)) {
		if (!trace_kind_per_batch(e->kind))
			put_str(f, trace_kind_name(e->kind));
		else
			put_kind(f, e->kind);
	} else {
		putf(f, "\"kind%u\"", (unsigned)e->kind);
	}
	putf(f, ",\"pid\":%d,\"tid\":%d,\"ts\":", tr->pid, tr->tid);
	put_us(f, e->start_ns - w->origin);
	put(f, ",\"dur\":");
	put_us(f, e->dur_ns);
	put(f, ",\"args\":{");
	if (e->batch >= 0)
		putf(f, "\"batch\":%" PRId64, e->batch);
	if (e->sample != UINT32_MAX)
		putf(f, "%s\"sample\":%u", e->batch >= 0 ? "," : "", (unsigned)e->sample);
	put(f, "}}");
}

/* A batch's preprocessing end (worker) or consumption (main): the two ends
 * of its flow arrow. */
static void chrome_note_flow_end(struct chrome_writer *w, const struct track *tr,
				 const struct trace_ev *e)
{
	struct flow_end *fe;
	if (e->kind == EV_BATCH_PREPROC && e->batch >= 0) {
		fe = &w->src[w->nsrc++];
		fe->ts = e->start_ns + (e->dur_ns >= 2 ? e->dur_ns - 1 : 0) - w->origin;
	} else if (e->kind == EV_BATCH_CONSUMED && e->batch >= 0) {
		fe = &w->dst[w->ndst++];
		fe->ts = e->start_ns - w->origin;
	} else {
		return;
	}
	fe->batch = e->batch;
	fe->pid = tr->pid;
	fe->tid = tr->tid;
}

/* Every kept event, each proc's in draw order (cmp_ev). */
static void chrome_put_events(struct chrome_writer *w)
{
	const struct trace *t = w->t;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct trace_proc *p = &t->procs[i];
		for (size_t k = 0; k < p->n; k++)
			w->ord[k] = &p->ev[k];
		qsort(w->ord, p->n, sizeof(*w->ord), cmp_ev);
		for (size_t k = 0; k < p->n; k++) {
			const struct trace_ev *e = w->ord[k];
			if (w->smp.every > 1 && per_sample(e) &&
			    (e->batch < 0 || (uint64_t)e->batch % w->smp.every))
				continue;
			chrome_put_event(w, &w->tr[i], e);
			chrome_note_flow_end(w, &w->tr[i], e);
		}
	}
}

/* flow arrows: batch preprocessed (worker) -> batch consumed (main) */
static void chrome_put_flows(struct chrome_writer *w)
{
	out_t f = w->f;
	struct flow_end *src = w->src, *dst = w->dst;
	qsort(src, w->nsrc, sizeof(*src), cmp_flow);
	qsort(dst, w->ndst, sizeof(*dst), cmp_flow);
	for (size_t a = 0, b = 0; a < w->nsrc && b < w->ndst;) {
		if (src[a].batch < dst[b].batch) {
			a++;
		} else if (src[a].batch > dst[b].batch) {
			b++;
		} else {
			int64_t id = src[a].batch;   /* ids are >= 0: one flow per batch */
			putf(f, ",\n{\"ph\":\"s\",\"cat\":\"batch\",\"name\":\"batch\",\"id\":%" PRId64
			     ",\"pid\":%d,\"tid\":%d,\"ts\":", id, src[a].pid, src[a].tid);
			put_us(f, src[a].ts);
			putf(f, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"batch\",\"name\":\"batch\",\"id\":%"
			     PRId64 ",\"pid\":%d,\"tid\":%d,\"ts\":", id, dst[b].pid, dst[b].tid);
			put_us(f, dst[b].ts);
			put(f, "}");
			a++;
			b++;
		}
	}
}

int chrome_trace_write(const struct trace *t, const char *path, char *err, size_t errlen)
{
	struct chrome_writer w = { .t = t, .first = 1 };
	int ret = -1;
	chrome_trace_plan(t, &w.smp);
	chrome_scan_procs(&w);
	w.tr = calloc(t->nprocs ? t->nprocs : 1, sizeof(*w.tr));
	w.ord = malloc((w.maxn ? w.maxn : 1) * sizeof(*w.ord));
	w.src = malloc((w.nall ? w.nall : 1) * sizeof(*w.src));
	w.dst = malloc((w.nall ? w.nall : 1) * sizeof(*w.dst));
	if (!w.tr || !w.ord || !w.src || !w.dst) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	chrome_assign_tracks(&w);

	errno = 0;
	w.f = gzopen(path, "wb6");
	if (!w.f) {
		errf(err, errlen, "cannot create '%s': %s", path, strerror(errno ? errno : ENOMEM));
		goto out;
	}
	gzbuffer(w.f, 1 << 17);
	chrome_put_header(&w);
	chrome_put_names(&w);
	chrome_put_events(&w);
	chrome_put_flows(&w);
	put(w.f, "\n]}\n");
	int zerr = 0;
	gzerror(w.f, &zerr);
	if (zerr) {
		errf(err, errlen, "cannot write '%s': %s", path,
		     zerr == Z_ERRNO ? strerror(errno) : gzerror(w.f, &zerr));
		goto out;
	}
	ret = 0;
out:
	if (w.f && gzclose(w.f) != Z_OK && ret == 0) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		ret = -1;
	}
	free(w.tr);
	free(w.ord);
	free(w.src);
	free(w.dst);
	return ret;
}
