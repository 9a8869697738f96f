#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include <zlib.h>
#include "analysis.h"
#include "emit.h"
#include "fsutil.h"
#include "machine.h"
#include "tracebuild.h"

/* ---- helpers ---- */

static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ppbench-test-emit-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(tmpdir) == 0 ? 0 : -1;
}

static void subdir(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", tmpdir, name);
	assert_int_equal(mkdir(out, 0777), 0);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct trace_ev *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->batch < y->batch ? -1 : x->batch > y->batch;
}

/* ---- LotusTrace ---- */

static void test_lotustrace_files(void **state)
{
	static struct fx f;
	char dir[512], path[1024], err[512];
	char *s;
	(void)state;

	fx_build(&f);
	subdir(dir, sizeof(dir), "files");
	assert_int_equal(lotustrace_write(&f.t, dir, LOTUSTRACE_PREFIX, err, sizeof(err)), 0);

	/* Lotus's own files: main holds only Lotus names, in stored order */
	snprintf(path, sizeof(path), "%s/lotustrace_log_main_pid_1000", dir);
	s = slurp(path);
	assert_non_null(s);
	assert_true(!strncmp(s, "SBatchQueued_0,1700000000000000000,1000\n", 40));
	assert_non_null(strstr(s, "\nSBatchWait_1,1700000000051000000,1000\n"));
	assert_non_null(strstr(s, "\nSBatchWait_2,1700000000102000000,699000000\n"));
	assert_non_null(strstr(s, "\nSBatchConsumed_3,1700000000802000000,1000\n"));
	assert_null(strstr(s, "Arrived"));
	free(s);
	snprintf(path, sizeof(path), "%s/lotustrace_log_worker_pid_101", dir);
	s = slurp(path);
	assert_non_null(s);
	assert_true(!strncmp(s, "SLoader,1700000000001100000,1000000\n"
			     "SRandomHorizontalFlip,1700000000002100000,50000\n"
			     "STransform,1700000000002100000,60000\n", 36 + 48 + 37));
	assert_non_null(strstr(s, "\nSCollation,"));
	assert_non_null(strstr(s, "\nSBatchPreprocessed_1,1700000000001000000,50000000\n"));
	assert_non_null(strstr(s, "\nSBatchPreprocessed_3,"));
	free(s);
	/* ppbench-only events: files whose names contain neither
	 * "worker_pid" nor "main_pid" (Lotus's scripts select by substring) */
	snprintf(path, sizeof(path), "%s/lotustrace_log_ppbench_main_1000", dir);
	s = slurp(path);
	assert_non_null(s);
	assert_true(!strncmp(s, "SBatchArrived_1,1700000000051000000,1000\n", 41));
	free(s);
	snprintf(path, sizeof(path), "%s/lotustrace_log_ppbench_pin_1001", dir);
	assert_true(is_file(path));
	snprintf(path, sizeof(path), "%s/lotustrace_log_ppbench_gpu_1002", dir);
	s = slurp(path);
	assert_non_null(strstr(s, "SGpuCopy_0,1700000000900000000,5000000\nSGpuStep_0,"));
	free(s);
	/* no empty files (pandas refuses them), nothing else */
	snprintf(path, sizeof(path), "%s/lotustrace_log_ppbench_worker_100", dir);
	assert_false(is_file(path));
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 6);

	/* never overwrites */
	assert_int_equal(lotustrace_write(&f.t, dir, LOTUSTRACE_PREFIX, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot create '"));
}

static void test_lotustrace_round_trip(void **state)
{
	static struct fx f;
	static struct trace_ev a[64], b[64];
	struct trace t;
	char dir[512], err[512];
	(void)state;

	fx_build(&f);
	subdir(dir, sizeof(dir), "rt");
	assert_int_equal(lotustrace_write(&f.t, dir, "run", err, sizeof(err)), 0);
	memset(&t, 0, sizeof(t));
	assert_int_equal(lotustrace_read(dir, "run", &t, err, sizeof(err)), 0);

	assert_int_equal(t.nops, 2);
	assert_string_equal(t.op_names[0], "SLoader");
	assert_string_equal(t.op_ids[0], "decode");
	assert_string_equal(t.op_names[1], "SRandomHorizontalFlip");
	assert_string_equal(t.op_ids[1], "random_horizontal_flip");
	assert_int_equal(t.nprocs, f.t.nprocs);
	for (size_t i = 0; i < t.nprocs; i++) {
		const struct trace_proc *p = &f.t.procs[i], *q = &t.procs[i];
		assert_int_equal(q->role, p->role);
		assert_int_equal(q->pid, p->pid);
		assert_int_equal(q->id, p->id);
		assert_int_equal(q->n, p->n);
		/* same events, batch and sample positions inferred back */
		memcpy(a, p->ev, p->n * sizeof(*a));
		memcpy(b, q->ev, q->n * sizeof(*b));
		qsort(a, p->n, sizeof(*a), cmp_ev);
		qsort(b, q->n, sizeof(*b), cmp_ev);
		for (size_t k = 0; k < p->n; k++) {
			assert_int_equal(b[k].start_ns, a[k].start_ns);
			assert_int_equal(b[k].dur_ns, a[k].dur_ns);
			assert_int_equal(b[k].kind, a[k].kind);
			assert_int_equal(b[k].op, a[k].op);
			assert_int_equal(b[k].batch, a[k].batch);
			assert_int_equal(b[k].sample, a[k].sample);
		}
	}

	/* the same metrics from the file as from memory */
	struct analysis_opts o = fx_opts();
	struct run_metrics m1, m2;
	assert_int_equal(analysis_compute(&f.t, &o, &m1, err, sizeof(err)), 0);
	assert_int_equal(analysis_compute(&t, &o, &m2, err, sizeof(err)), 0);
	assert_int_equal(m2.nbatches, m1.nbatches);
	assert_true(m2.ooo_pct == m1.ooo_pct && m2.stall_pct == m1.stall_pct);
	assert_true(m2.delay.mean == m1.delay.mean && m2.preproc.std == m1.preproc.std);
	assert_int_equal(m2.nops, m1.nops);
	for (size_t i = 0; i < m1.nops; i++) {
		assert_string_equal(m2.ops[i].name, m1.ops[i].name);
		assert_true(m2.ops[i].st.p99 == m1.ops[i].st.p99);
	}
	for (size_t i = 0; i < m1.nbatches; i++)
		assert_memory_equal(&m2.rows[i], &m1.rows[i], sizeof(m1.rows[i]));
	analysis_free(&m1);
	analysis_free(&m2);
	lotustrace_free(&t);
	assert_int_equal(t.nprocs, 0);
}

/* Hand-written files, as Lotus's instrumented PyTorch writes them. */
static void test_lotustrace_parse_sample(void **state)
{
	struct trace t;
	char err[512];
	(void)state;

	memset(&t, 0, sizeof(t));
	assert_int_equal(lotustrace_read("tests/fixtures/lotustrace/sample", "lotustrace_log", &t,
					 err, sizeof(err)), 0);
	assert_int_equal(t.nprocs, 4);
	assert_int_equal(t.procs[0].role, ROLE_MAIN);
	assert_int_equal(t.procs[0].pid, 4242);
	assert_int_equal(t.procs[0].n, 4);
	/* worker ids from the first batch each preprocessed, not from pids */
	assert_int_equal(t.procs[1].role, ROLE_WORKER);
	assert_int_equal(t.procs[1].pid, 4250);
	assert_int_equal(t.procs[1].id, 0);
	assert_int_equal(t.procs[2].pid, 4243);
	assert_int_equal(t.procs[2].id, 1);
	assert_int_equal(t.procs[3].role, ROLE_GPU);
	/* op names: ppbench ids where the registry knows the Lotus name */
	assert_int_equal(t.nops, 3);
	/* indexes in order of first appearance, files read in name order */
	assert_string_equal(t.op_ids[0], "decode");
	assert_string_equal(t.op_names[1], "SColorJitter");
	assert_string_equal(t.op_ids[1], "ColorJitter");
	assert_string_equal(t.op_names[2], "SRandomResizedCrop");
	assert_string_equal(t.op_ids[2], "random_resized_crop");

	/* batch and sample positions inferred from the spans */
	const struct trace_proc *w = &t.procs[1];
	assert_int_equal(w->n, 8);
	assert_int_equal(w->ev[0].kind, EV_BATCH_PREPROC);
	for (size_t i = 1; i < w->n; i++) {
		assert_int_equal(w->ev[i].batch, 0);
		if (w->ev[i].kind == EV_COLLATE)
			assert_int_equal(w->ev[i].sample, UINT32_MAX);
		else
			assert_int_equal(w->ev[i].sample, w->ev[i].start_ns >= 1014000000 ? 1 : 0);
	}

	struct analysis_opts o = { 0 };
	struct run_metrics m;
	o.start_ns = 1000000000;
	o.end_ns = 1100000000;
	o.images = 3;
	o.complete = 1;
	assert_int_equal(analysis_compute(&t, &o, &m, err, sizeof(err)), 0);
	assert_true(m.ooo_pct == 50.0);
	assert_true(fabs(m.stall_pct - 50.0) < 1e-9);
	assert_int_equal(m.rows[0].delay_ns, 20000000);
	assert_int_equal(m.rows[1].delay_ns, 41000000);
	assert_int_equal(m.rows[1].samples, 1);
	assert_int_equal(m.rows[0].samples, 2);
	assert_true(fabs(m.gpu_busy_s - 0.030) < 1e-12);
	analysis_free(&m);
	lotustrace_free(&t);
}

static void test_lotustrace_malformed(void **state)
{
	struct trace t;
	char err[512], dir[512], path[1024];
	static const struct {
		int line;
		const char *text;
		const char *why;
	} rows[] = {
		{ __LINE__, "SLoader,1\n", "expected NAME,START_NS,DUR_NS" },
		{ __LINE__, "SLoader\n", "expected NAME,START_NS,DUR_NS" },
		{ __LINE__, ",1,2\n", "expected NAME,START_NS,DUR_NS" },
		{ __LINE__, "SLoader,1,2,3\n", "more than 3 fields" },
		{ __LINE__, "SLoader,-1,2\n", "START_NS is not an unsigned integer" },
		{ __LINE__, "SLoader,1, 2\n", "DUR_NS is not an unsigned integer" },
		{ __LINE__, "SLoader,99999999999999999999,2\n", "START_NS is not an unsigned integer" },
		{ __LINE__, "SBatchWait_x,1,2\n", "bad batch id" },
		{ __LINE__, "SBatchWait_,1,2\n", "bad batch id" },
		{ __LINE__, "SBatchFoo_1,1,2\n", "unknown batch event" },
	};
	(void)state;

	memset(&t, 0, sizeof(t));
	assert_int_equal(lotustrace_read("tests/fixtures/lotustrace/malformed", "lotustrace_log", &t,
					 err, sizeof(err)), -1);
	assert_string_equal(err, "'tests/fixtures/lotustrace/malformed/lotustrace_log_worker_pid_7':4: "
			    "START_NS is not an unsigned integer");
	assert_int_equal(t.nprocs, 0);

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char name[64];
		FILE *f;
		snprintf(name, sizeof(name), "bad%zu", i);
		subdir(dir, sizeof(dir), name);
		snprintf(path, sizeof(path), "%s/p_main_pid_3", dir);
		f = fopen(path, "w");
		fprintf(f, "SBatchWait_0,5,6\n%s", rows[i].text);
		fclose(f);
		memset(&t, 0, sizeof(t));
		if (lotustrace_read(dir, "p", &t, err, sizeof(err)) != -1 ||
		    !strstr(err, "/p_main_pid_3':2: ") || !strstr(err, rows[i].why))
			fail_msg("row at line %d: got '%s'", rows[i].line, err);
	}

	/* a folder without traces, and a missing folder */
	subdir(dir, sizeof(dir), "none");
	assert_int_equal(lotustrace_read(dir, "p", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no LotusTrace files"));
	assert_int_equal(lotustrace_read("/nonexistent/x", "p", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open '/nonexistent/x'"));
}

/* ---- Chrome trace ---- */

struct span {
	double ts, end;
	const char *name, *cat;
};

/* trace.json.gz as JSON (NULL when it does not parse) */
static json_t *load_gz(const char *path)
{
	gzFile g = gzopen(path, "rb");
	if (!g)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int r;
	while (buf && (r = gzread(g, buf + n, (unsigned)(cap - n - 1))) > 0) {
		n += (size_t)r;
		if (cap - n < 2) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	gzclose(g);
	if (!buf)
		return NULL;
	buf[n] = 0;
	json_error_t jerr;
	json_t *root = json_loads(buf, 0, &jerr);
	if (!root)
		print_error("invalid JSON: %s at line %d\n", jerr.text, jerr.line);
	free(buf);
	return root;
}

/* the batch id in an event's args (-1: none) */
static int ev_batch(json_t *e)
{
	json_t *b = json_object_get(json_object_get(e, "args"), "batch");
	return b ? (int)json_integer_value(b) : -1;
}

/* One event as the Chrome trace event format wants it: X (name, cat, ts and
 * dur >= 0, pid, tid, args), flow s/f (id >= 0, ts, pid, tid), metadata M. */
static void check_chrome_event(json_t *e)
{
	const char *ph = json_string_value(json_object_get(e, "ph"));
	assert_non_null(ph);
	if (!strcmp(ph, "M")) {
		const char *n = json_string_value(json_object_get(e, "name"));
		assert_non_null(n);
		assert_true(!strcmp(n, "process_name") || !strcmp(n, "thread_name") ||
			    !strcmp(n, "process_sort_index") || !strcmp(n, "thread_sort_index"));
		assert_true(json_is_object(json_object_get(e, "args")));
		return;
	}
	assert_true(json_is_integer(json_object_get(e, "pid")));
	assert_true(json_is_integer(json_object_get(e, "tid")));
	assert_true(json_is_number(json_object_get(e, "ts")));
	assert_true(json_number_value(json_object_get(e, "ts")) >= 0);
	if (!strcmp(ph, "X")) {
		assert_true(json_is_string(json_object_get(e, "name")));
		assert_true(json_is_string(json_object_get(e, "cat")));
		assert_true(json_is_number(json_object_get(e, "dur")));
		assert_true(json_number_value(json_object_get(e, "dur")) >= 0);
		assert_true(json_is_object(json_object_get(e, "args")));
	} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
		assert_true(json_is_integer(json_object_get(e, "id")));
		assert_true(json_integer_value(json_object_get(e, "id")) >= 0);
	} else {
		fail_msg("event phase '%s' is not X, s, f or M", ph);
	}
}

static void test_chrome_trace(void **state)
{
	static struct fx f;
	char path[512], err[512];
	json_error_t jerr;
	json_t *root, *evs, *e;
	size_t i;
	(void)state;

	fx_build(&f);
	snprintf(path, sizeof(path), "%s/trace.json.gz", tmpdir);
	assert_int_equal(chrome_trace_write(&f.t, path, err, sizeof(err)), 0);
	(void)jerr;
	root = load_gz(path);
	assert_non_null(root);
	evs = json_object_get(root, "traceEvents");
	assert_true(json_is_array(evs));
	json_array_foreach(evs, i, e)
		check_chrome_event(e);
	assert_true(json_is_false(json_object_get(json_object_get(root, "otherData"), "sampled")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "otherData"),
							    "origin_wall_ns")), T0);

	/* tracks: named threads, all distinct */
	struct { int pid, tid; char name[32]; } tracks[8];
	size_t ntracks = 0;
	json_array_foreach(evs, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		assert_non_null(ph);
		if (strcmp(ph, "M") || strcmp(json_string_value(json_object_get(e, "name")), "thread_name"))
			continue;
		assert_true(ntracks < 8);
		tracks[ntracks].pid = (int)json_integer_value(json_object_get(e, "pid"));
		tracks[ntracks].tid = (int)json_integer_value(json_object_get(e, "tid"));
		snprintf(tracks[ntracks].name, sizeof(tracks[ntracks].name), "%s",
			 json_string_value(json_object_get(json_object_get(e, "args"), "name")));
		for (size_t k = 0; k < ntracks; k++)
			assert_false(tracks[k].pid == tracks[ntracks].pid && tracks[k].tid == tracks[ntracks].tid);
		ntracks++;
	}
	assert_int_equal(ntracks, 5);
	static const char *const want[] = { "main", "worker 0", "worker 1", "pin_memory", "gpu" };
	static const int want_pid[] = { 1000, 100, 101, 1000, 1000 };
	for (size_t k = 0; k < 5; k++) {
		assert_string_equal(tracks[k].name, want[k]);
		assert_int_equal(tracks[k].pid, want_pid[k]);
	}

	/* per track: X events properly nested (sorted by start, longer
	 * first); every op inside a batch span; numbers typed */
	static struct span stack[5][16];
	int depth[5] = { 0 };
	size_t nx = 0, nops_in_batch = 0;
	double pre_ts[4] = { 0 }, pre_end[4] = { 0 }, cons_ts[4] = { 0 };
	json_array_foreach(evs, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		if (strcmp(ph, "X"))
			continue;
		json_t *ts = json_object_get(e, "ts"), *dur = json_object_get(e, "dur");
		assert_true(json_is_number(ts) && json_is_number(dur));
		assert_true(json_is_integer(json_object_get(e, "pid")));
		int pid = (int)json_integer_value(json_object_get(e, "pid"));
		int tid = (int)json_integer_value(json_object_get(e, "tid"));
		size_t tr = 5;
		for (size_t k = 0; k < 5; k++)
			if (tracks[k].pid == pid && tracks[k].tid == tid)
				tr = k;
		assert_true(tr < 5);
		struct span sp = { json_number_value(ts), json_number_value(ts) + json_number_value(dur),
				   json_string_value(json_object_get(e, "name")),
				   json_string_value(json_object_get(e, "cat")) };
		while (depth[tr] && stack[tr][depth[tr] - 1].end <= sp.ts + 1e-9)
			depth[tr]--;
		if (depth[tr]) {
			struct span *top = &stack[tr][depth[tr] - 1];
			if (sp.ts < top->ts - 1e-9 || sp.end > top->end + 1e-9)
				fail_msg("%s [%f, %f] overlaps %s [%f, %f]", sp.name, sp.ts, sp.end,
					 top->name, top->ts, top->end);
		}
		if (!strcmp(sp.cat, "op")) {
			int in_batch = 0;
			for (int k = 0; k < depth[tr]; k++)
				in_batch |= !strcmp(stack[tr][k].name, "SBatchPreprocessed");
			assert_true(in_batch);
			nops_in_batch++;
		}
		/* named by kind (they group), the batch in the args */
		assert_null(strchr(sp.name, '_'));
		if (!strcmp(sp.name, "SBatchPreprocessed")) {
			int b = ev_batch(e);
			assert_true(b >= 0 && b < 4);
			pre_ts[b] = sp.ts;
			pre_end[b] = sp.end;
		}
		if (!strcmp(sp.name, "SBatchConsumed")) {
			int b = ev_batch(e);
			assert_true(b >= 0 && b < 4);
			cons_ts[b] = sp.ts;
		}
		assert_true(depth[tr] < 16);
		stack[tr][depth[tr]++] = sp;
		nx++;
	}
	assert_int_equal(nx, 60);
	assert_int_equal(nops_in_batch, 4 * 7);
	/* exact us with ns fractions, relative to the first event */
	assert_true(pre_ts[1] == 1000.0 && pre_end[1] == 51000.0);
	assert_true(cons_ts[3] == 802000.0);

	/* flows: one s/f pair per batch, id = the batch (>= 0), from the end of the
	 * batch span (inside it) to its consumption */
	int s_seen[4] = { 0 }, f_seen[4] = { 0 };
	json_array_foreach(evs, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		if (strcmp(ph, "s") && strcmp(ph, "f"))
			continue;
		int64_t id = json_integer_value(json_object_get(e, "id"));
		int b = (int)id;
		double ts = json_number_value(json_object_get(e, "ts"));
		assert_true(b >= 0 && b < 4);
		if (!strcmp(ph, "s")) {
			s_seen[b]++;
			assert_true(ts > pre_ts[b] && ts < pre_end[b]);
			assert_true(pre_end[b] - ts < 0.0015);
		} else {
			f_seen[b]++;
			assert_string_equal(json_string_value(json_object_get(e, "bp")), "e");
			assert_true(ts == cons_ts[b]);
			assert_int_equal(json_integer_value(json_object_get(e, "pid")), 1000);
		}
	}
	for (int b = 0; b < 4; b++)
		assert_true(s_seen[b] == 1 && f_seen[b] == 1);
	json_decref(root);
}

/* Past CHROME_TRACE_MAX_EVENTS the per-sample events of every Nth batch
 * are kept, every batch event always: 1,100 batches of 1,000 op events. */
static void test_chrome_sampling(void **state)
{
	(void)state;
	size_t nb = 1100, per = 1000, n = nb * per + nb;
	struct trace_proc p = { .role = ROLE_WORKER, .pid = 100 };
	struct trace t = { .nprocs = 1, .procs = &p, .nops = 1 };
	p.ev = calloc(n, sizeof(*p.ev));
	assert_non_null(p.ev);
	for (size_t b = 0; b < nb; b++) {
		for (size_t k = 0; k < per; k++) {
			struct trace_ev *e = &p.ev[p.n++];
			*e = (struct trace_ev){ .start_ns = 1000 + b * 10000 + k, .dur_ns = 1,
						.batch = (int64_t)b, .sample = (uint32_t)k,
						.kind = EV_OP, .op = 0 };
		}
		p.ev[p.n++] = (struct trace_ev){ .start_ns = 1000 + b * 10000, .dur_ns = 5000,
						 .batch = (int64_t)b, .sample = UINT32_MAX,
						 .kind = EV_BATCH_PREPROC };
	}
	struct chrome_sampling smp;
	chrome_trace_plan(&t, &smp);
	assert_int_equal(smp.sample_events, nb * per);
	assert_int_equal(smp.every, 2);
	assert_int_equal(smp.kept_sample_events, 550 * per);
	assert_true(smp.kept_sample_events + nb <= CHROME_TRACE_MAX_EVENTS);
	/* a small trace keeps everything */
	p.n = 10 * (per + 1);
	chrome_trace_plan(&t, &smp);
	assert_int_equal(smp.every, 1);
	assert_int_equal(smp.kept_sample_events, 10 * per);
	free(p.ev);
}

/* ---- results ---- */

/* Every real number's key carries its unit. */
static void check_units(json_t *o, const char *where)
{
	const char *k;
	json_t *v;
	static const char *const units[] = { "_s", "_ms", "_ns", "_pct", "_bytes", "_kib",
					     "_threads", "_usable", "_1min", "_gb_per_s" };

	json_object_foreach(o, k, v) {
		if (json_is_object(v)) {
			check_units(v, k);
		} else if (json_is_real(v)) {
			int ok = 0;
			for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
				size_t lk = strlen(k), lu = strlen(units[i]);
				ok |= lk > lu && !strcmp(k + lk - lu, units[i]);
			}
			if (!ok)
				fail_msg("%s.%s: a number without a unit", where, k);
		} else if (json_is_string(v) && strcmp(k, "checksum") && strcmp(where, "machine") &&
			   strcmp(where, "kernel") && strcmp(where, "libraries") &&
			   strcmp(where, "clock") && strcmp(k, "lotus_name") && strcmp(k, "tool") &&
			   strcmp(k, "stop_reason") && strcmp(k, "kernels") && strcmp(where, "options")) {
			fail_msg("%s.%s: a string where a number is expected", where, k);
		}
	}
}

static json_t *path_get(json_t *o, const char *a, const char *b, const char *c)
{
	o = json_object_get(o, a);
	if (o && b)
		o = json_object_get(o, b);
	if (o && c)
		o = json_object_get(o, c);
	return o;
}

static void test_summary_json(void **state)
{
	static struct fx f;
	struct analysis_opts o;
	struct run_metrics m;
	double cpu[2] = { 1.25, 1.5 };
	char err[256];
	json_t *opts, *mach, *s;
	(void)state;

	fx_build(&f);
	o = fx_opts();
	o.worker_cpu_s = cpu;
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	opts = json_pack("{s:i, s:i, s:f}", "workers", 2, "batch", 2, "gpu_step_ns", 1e6);
	mach = machine_json();
	assert_non_null(mach);
	json_t *blocks = json_pack("{s:O, s:O}", "options", opts, "machine", mach);
	struct results_in in = { .m = &m, .blocks = blocks };
	s = results_summary_json(&in);
	assert_non_null(s);

	assert_int_equal(json_integer_value(json_object_get(s, "schema_version")), RESULTS_SCHEMA_VERSION);
	assert_true(json_is_true(json_object_get(s, "complete")));
	assert_null(json_object_get(s, "stop_reason"));
	assert_true(json_is_real(json_object_get(s, "images_per_s")));
	assert_true(json_real_value(json_object_get(s, "images_per_s")) == 8.0);
	assert_string_equal(json_string_value(json_object_get(s, "checksum")), "0123456789abcdef");
	assert_true(json_real_value(json_object_get(s, "e2e_s")) == 1.0);
	assert_int_equal(json_integer_value(json_object_get(s, "images")), 8);
	assert_true(json_is_real(path_get(s, "ops", "decode", "p50_ms")));
	assert_true(json_real_value(path_get(s, "ops", "decode", "p50_ms")) == 4.5);
	assert_string_equal(json_string_value(path_get(s, "ops", "decode", "lotus_name")), "SLoader");
	assert_int_equal(json_integer_value(path_get(s, "ops", "decode", "count")), 8);
	/* not counted: null, never 0 */
	assert_true(json_is_null(path_get(s, "ops", "decode", "oncpu_s")));
	assert_true(json_real_value(path_get(s, "ops", "random_horizontal_flip", "under_100us_pct")) == 50.0);
	assert_non_null(path_get(s, "ops", "transform", "span_s"));
	assert_true(json_real_value(path_get(s, "main", "out_of_order_pct", NULL)) == 50.0);
	assert_true(fabs(json_real_value(path_get(s, "main", "stall_pct", NULL)) - 80.0) < 1e-9);
	assert_true(json_real_value(path_get(s, "main", "wait", "over_500ms_pct")) == 25.0);
	assert_true(json_real_value(path_get(s, "main", "delay", "over_500ms_pct")) == 25.0);
	assert_true(json_is_real(path_get(s, "batch_preproc", "std_pct", NULL)));
	assert_true(json_is_real(path_get(s, "batch_preproc", "iqr_ms", NULL)));
	assert_true(json_is_real(path_get(s, "gpu", "utilization_pct", NULL)));
	assert_true(json_real_value(path_get(s, "cpu", "workers_total_s", NULL)) == 2.75);
	assert_int_equal(json_array_size(path_get(s, "cpu", "per_worker_s", NULL)), 2);
	assert_int_equal(json_integer_value(path_get(s, "skipped", "count", NULL)), 0);
	assert_true(json_is_array(path_get(s, "skipped", "files", NULL)));
	assert_int_equal(json_integer_value(path_get(s, "options", "workers", NULL)), 2);
	assert_true(json_is_object(path_get(s, "machine", "libraries", NULL)));
	assert_non_null(path_get(s, "machine", "clock", "resolution_ns"));
	assert_non_null(path_get(s, "machine", "compiler", NULL));
	check_units(s, "summary");
	json_decref(s);
	analysis_free(&m);

	/* an incomplete run says so */
	o.complete = 0;
	o.stop_reason = "interrupted by SIGINT";
	const char *sk[] = { "train/n01/bad.JPEG" };
	o.nskipped = 1;
	o.skipped = sk;
	o.nskipped_listed = 1;
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	struct results_in in2 = { .m = &m };
	s = results_summary_json(&in2);
	assert_true(json_is_false(json_object_get(s, "complete")));
	assert_string_equal(json_string_value(json_object_get(s, "stop_reason")), "interrupted by SIGINT");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    path_get(s, "skipped", "files", NULL), 0), "path")), "train/n01/bad.JPEG");
	assert_null(json_object_get(s, "options"));
	json_decref(s);

	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	results_print_human(mf, &m);
	fclose(mf);
	assert_non_null(strstr(buf, "INCOMPLETE: 8 images in 4 batches, 1.000 s, 8.0 images/s"));
	assert_non_null(strstr(buf, "stopped: interrupted by SIGINT"));
	assert_non_null(strstr(buf, "decode"));
	assert_non_null(strstr(buf, "out of order: 50.0 % (2 of 4 batches); stall: 80.0 %"));
	assert_non_null(strstr(buf, "utilization 6.0 %"));
	free(buf);
	analysis_free(&m);
	json_decref(opts);
	json_decref(mach);
	json_decref(blocks);
}

static void test_results_folder(void **state)
{
	static struct fx f;
	struct analysis_opts o;
	struct run_metrics m;
	char root[512], tmp[1024], tmp2[1024], name[256], name2[256], fin[1024], fin2[1024];
	char path[2048], err[512];
	(void)state;

	fx_build(&f);
	o = fx_opts();
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	snprintf(root, sizeof(root), "%s/results/deeper", tmpdir);

	/* two runs in the same second get distinct names */
	assert_int_equal(results_dir_begin(root, "t1", tmp, sizeof(tmp), name, sizeof(name),
					   err, sizeof(err)), 0);
	assert_int_equal(results_dir_begin(root, "t1", tmp2, sizeof(tmp2), name2, sizeof(name2),
					   err, sizeof(err)), 0);
	assert_string_not_equal(name, name2);
	assert_int_equal(strlen(name), 15 + 3);
	assert_true(name[8] == '-' && !strcmp(name + 15, "-t1"));
	assert_non_null(strstr(tmp, "/."));
	assert_true(is_dir(tmp));

	struct results_in in = { .m = &m, .t = &f.t, .lotustrace = 1, .chrome = 1 };
	assert_int_equal(results_write(tmp, &in, err, sizeof(err)), 0);
	assert_int_equal(results_dir_commit(root, tmp, name, fin, sizeof(fin), err, sizeof(err)), 0);
	assert_false(is_dir(tmp));
	static const char *const files[] = {
		"summary.json", "batches.csv", "ops.csv", "trace.json.gz",
		"lotustrace/b2_gpu1/lotustrace_log_main_pid_1000",
		"lotustrace/b2_gpu1/lotustrace_log_worker_pid_100",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fin, files[i]);
		if (!is_file(path))
			fail_msg("missing %s", path);
	}

	/* the second run's name taken meanwhile: -2, never replaced */
	assert_int_equal(mkdir(tmp2 + 0, 0777) == 0 || is_dir(tmp2), 1);
	snprintf(path, sizeof(path), "%s/%s", root, name2);
	assert_int_equal(mkdir(path, 0777), 0);
	assert_int_equal(results_dir_commit(root, tmp2, name2, fin2, sizeof(fin2), err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s-2", root, name2);
	assert_string_equal(fin2, path);

	/* CSV contents */
	snprintf(path, sizeof(path), "%s/batches.csv", fin);
	char *s = slurp(path);
	assert_true(!strncmp(s, "id,worker,pid,samples,queued_ns,started_ns,finished_ns,arrived_ns,"
			     "pinned_ns,consumed_ns,preproc_ns,wait_ns,delay_ns,out_of_order\n", 121));
	assert_non_null(strstr(s, "\n1,1,101,2,0,1000000,51000000,51000000,52000000,102000000,"
			       "50000000,1000,51000000,1\n"));
	free(s);
	snprintf(path, sizeof(path), "%s/ops.csv", fin);
	s = slurp(path);
	assert_true(!strncmp(s, "op,lotus_name,count,mean_ms,std_ms,min_ms,p50_ms,p90_ms,p99_ms,max_ms,"
			     "span_s,under_10ms_pct,under_100us_pct,regions,oncpu_s,", 69));
	/* not counted: empty fields, never 0 */
	if (!strstr(s, "\ndecode,SLoader,8,4.5,2.29128784747792,1,4.5,7.3,7.93,8,0.036,100,0,,,,,,,,,,,,,,\n"))
		fail_msg("ops.csv:\n%s", s);
	free(s);
	snprintf(path, sizeof(path), "%s/summary.json", fin);
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);
	assert_non_null(j);
	assert_true(json_is_real(json_object_get(j, "images_per_s")));
	json_decref(j);

	assert_int_equal(results_dir_begin(root, "../x", tmp, sizeof(tmp), name, sizeof(name),
					   err, sizeof(err)), -1);
	analysis_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lotustrace_files),
		cmocka_unit_test(test_lotustrace_round_trip),
		cmocka_unit_test(test_lotustrace_parse_sample),
		cmocka_unit_test(test_lotustrace_malformed),
		cmocka_unit_test(test_chrome_trace),
		cmocka_unit_test(test_chrome_sampling),
		cmocka_unit_test(test_summary_json),
		cmocka_unit_test(test_results_folder),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
