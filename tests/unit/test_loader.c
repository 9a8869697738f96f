/* The loader's protocol, checked on runs whose timing is forced by a test op
 * that sleeps a chosen time per sample: task-to-worker assignment, the
 * in-flight bound, in-order delivery, which batches arrive out of order,
 * wait and delay accounting, arrival order; checksums across workers,
 * backends and orders; data errors; a worker killed; SIGINT; the torch
 * random stream against torch 1.13 (tests/fixtures/loader/). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "analysis.h"
#include <xxhash.h>
#include "checksum.h"
#include "clock.h"
#include "imagefolder.h"
#include "loader.h"
#include "pipeline.h"
#include "rng.h"
#include "rrc.h"
#include "run.h"
#include "sampler.h"

#define MS 1000000ull

/* ---- test ops ---------------------------------------------------------- */

/* delay: sleeps delay_ms[index]; the sample whose index is kill_index
 * kills its own process (a worker) with SIGKILL. */
static double delay_ms[64];
static long kill_index = -1;

static int delay_run(const void *cfg, struct sample *s)
{
	(void)cfg;
	if ((long)s->index == kill_index)
		raise(SIGKILL);
	double ms = s->index < 64 ? delay_ms[s->index] : 0;
	if (ms > 0)
		clock_sleep_ns((uint64_t)(ms * 1e6), NULL);
	return 0;
}

static const struct op_ops op_delay = {
	.version = OP_ABI_VERSION,
	.name = "delay",
	.lotus_name = "SDelay",
	.flags = OP_TEST,
	.in = PIX_NONE,
	.out = PIX_NONE,
	.run = delay_run,
};

/* probe: what torchvision's training transforms choose for an image of the
 * size the fixture gives the sample, recorded in shared memory (the
 * workers may be processes). */
struct choice {
	int i, j, h, w, flip;
};
#define MAXN 64
struct probe_log {
	_Atomic int seen[MAXN];
	struct choice c[2][MAXN];      /* [epoch][index] */
};
static struct probe_log *plog;
static int probe_w[MAXN], probe_h[MAXN];

static int probe_run(const void *cfg, struct sample *s)
{
	(void)cfg;
	struct rrc_params p;
	rrc_params_init(&p, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0);
	struct choice c;
	rrc_get_params(s->rng, &p, probe_w[s->index], probe_h[s->index], &c.i, &c.j, &c.h, &c.w);
	c.flip = rng_torch_rand(s->rng) < 0.5f;
	int e = atomic_fetch_add(&plog->seen[s->index], 1);
	if (e < 2)
		plog->c[e][s->index] = c;
	return 0;
}

static const struct op_ops op_probe = {
	.version = OP_ABI_VERSION,
	.name = "probe",
	.lotus_name = "SProbe",
	.flags = OP_TEST | OP_RANDOM,
	.in = PIX_NONE,
	.out = PIX_NONE,
	.run = probe_run,
};

/* ---- helpers ----------------------------------------------------------- */

static void fake_dataset(struct dataset *d, size_t n)
{
	memset(d, 0, sizeof(*d));
	d->n = n;
	d->items = calloc(n, sizeof(*d->items));
	assert_non_null(d->items);
	for (size_t i = 0; i < n; i++) {
		char p[32];
		snprintf(p, sizeof(p), "s%zu", i);
		d->items[i].path = strdup(p);
		d->items[i].label = (int64_t)(i % 3);
	}
}

static void free_dataset(struct dataset *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->items[i].path);
	free(d->items);
}

static void one_op_pipeline(struct pipeline *p, const struct op_ops *o)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", o->name);
	p->nops = 1;
	p->op[0].ops = o;
	p->batch_op = -1;
}

static void parse_pipeline(struct pipeline *p, const char *text)
{
	char err[256];
	if (pipeline_parse(p, text, "test", err, sizeof(err)))
		fail_msg("%s", err);
}

static void base_cfg(struct loader_cfg *c, const struct pipeline *p, const struct dataset *d)
{
	memset(c, 0, sizeof(*c));
	c->pipe = p;
	c->data = d;
	c->workers = 3;
	c->batch_size = 2;
	c->prefetch_factor = 2;
	c->epochs = 1;
	c->shuffle = 0;
	c->backend = BACKEND_PROCESS;
	c->order = ORDER_INORDER;
	c->rng = RNG_PER_SAMPLE;
	c->on_error = ON_ERROR_SKIP;
	c->pin_memory = 1;
	c->trace = 1;
	c->checksum = 1;
	c->h2d_bytes_per_s = 12e9;
}

static void run(const struct loader_cfg *c, struct loader_result *r)
{
	struct loader_plan pl;
	char err[512];
	if (loader_plan(c, &pl, err, sizeof(err)))
		fail_msg("plan: %s", err);
	if (loader_run(c, &pl, r, err, sizeof(err)))
		fail_msg("run: %s", err);
}

/* No child process is left. */
static void assert_no_children(void)
{
	errno = 0;
	pid_t p = waitpid(-1, NULL, WNOHANG);
	if (!(p == -1 && errno == ECHILD))
		fail_msg("a child process is left (waitpid: %d, %s)", (int)p, strerror(errno));
}

static size_t count_events(const struct trace *t, enum proc_role role, uint16_t kind,
			   uint64_t dur)
{
	size_t n = 0;
	for (size_t p = 0; p < t->nprocs; p++) {
		if (t->procs[p].role != role)
			continue;
		for (size_t i = 0; i < t->procs[p].n; i++)
			if (t->procs[p].ev[i].kind == kind && (!dur || t->procs[p].ev[i].dur_ns == dur))
				n++;
	}
	return n;
}

/* batch k has the main process's SBatchWait marker (it arrived while an
 * earlier batch was awaited) */
static int marked_out_of_order(const struct trace *t, int64_t k)
{
	for (size_t p = 0; p < t->nprocs; p++)
		for (size_t i = 0; t->procs[p].role == ROLE_MAIN && i < t->procs[p].n; i++) {
			const struct trace_ev *e = &t->procs[p].ev[i];
			if (e->kind == EV_BATCH_WAIT && e->batch == k && e->dur_ns == TRACE_MARKER_NS)
				return 1;
		}
	return 0;
}

static void assert_near_ms(const char *what, int64_t got_ns, double want_ms, double tol_ms)
{
	double got = (double)got_ns / 1e6;
	if (got < want_ms - tol_ms || got > want_ms + tol_ms)
		fail_msg("%s: %.1f ms, expected %.0f +- %.0f ms", what, got, want_ms, tol_ms);
}

/* A sleep ends late, never early: tight below, and above only what a loaded
 * machine adds, less than the one extra step or copy the check must catch. */
static void assert_late_ms(const char *what, int64_t got_ns, double want_ms, double early_ms,
			   double late_ms)
{
	double got = (double)got_ns / 1e6;
	if (got < want_ms - early_ms || got > want_ms + late_ms)
		fail_msg("%s: %.1f ms, expected %.1f (-%.0f, +%.0f) ms", what, got, want_ms,
			 early_ms, late_ms);
}

/* ---- head-of-line blocking (spec 2.6) ----------------------------------- */

/* W = 3, P = 2, B = 2, 10 batches; batch k = samples 2k, 2k+1, worker k mod
 * 3. Batch times (ms) chosen so that every arrival is at least 60 ms from
 * the moment the main process asks for it (simulated with the recurrence
 * of spec 2.6, consumer step 0):
 *   batch   0   1   2   3   4    5   6   7   8   9
 *   time   60 150 240  60 900   60  60  60  60  60
 *   done   60 150 240 120 1050 300 180 1110 360 300
 * In order, batches 3, 5, 6, 8, 9 arrive before they are needed. */
static const double hol_batch_ms[10] = { 60, 150, 240, 60, 900, 60, 60, 60, 60, 60 };

static void hol_setup(struct pipeline *p, struct dataset *d, struct loader_cfg *c)
{
	memset(delay_ms, 0, sizeof(delay_ms));
	for (int k = 0; k < 10; k++)
		delay_ms[2 * k] = delay_ms[2 * k + 1] = hol_batch_ms[k] / 2;
	kill_index = -1;
	one_op_pipeline(p, &op_delay);
	fake_dataset(d, 20);
	base_cfg(c, p, d);
}

static void hol_inorder(enum loader_backend be, int pin)
{
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	struct loader_result r;
	hol_setup(&p, &d, &c);
	c.backend = be;
	c.pin_memory = pin;
	run(&c, &r);
	assert_true(r.complete);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.batches, 10);
	assert_int_equal(r.images, 20);
	/* task k -> worker k mod W; the window is P x W */
	assert_int_equal(r.max_inflight, 6);
	for (int k = 0; k < 10; k++) {
		assert_int_equal(r.b[k].worker, k % 3);
		assert_int_equal(r.b[k].inflight, k < 6 ? k + 1 : 6);
		assert_int_equal(r.yield_order[k], k);
		assert_int_equal(r.b[k].n, 2);
	}
	/* out of order: exactly 3, 5, 6, 8, 9, in the trace the figures come
	 * from: an SBatchWait marker each, and the analysis's rows (from the
	 * arrival events) */
	static const int ooo[10] = { 0, 0, 0, 1, 0, 1, 1, 0, 1, 1 };
	struct run_opts ro = { .batch_size = 2, .workers = 3, .gpus = 1 };
	struct analysis_opts ao;
	run_analysis_opts(&ro, &r, NULL, NULL, NULL, &ao);
	struct run_metrics am;
	char aerr[256];
	assert_int_equal(analysis_compute(&r.trace, &ao, &am, aerr, sizeof(aerr)), 0);
	assert_int_equal(am.nbatches, 10);
	for (int k = 0; k < 10; k++) {
		if (marked_out_of_order(&r.trace, k) != ooo[k])
			fail_msg("batch %d: SBatchWait marker %d, expected %d", k,
				 marked_out_of_order(&r.trace, k), ooo[k]);
		if (am.rows[k].out_of_order != ooo[k])
			fail_msg("batch %d: out of order %d in the analysis, expected %d", k,
				 am.rows[k].out_of_order, ooo[k]);
	}
	assert_int_equal(am.ooo_batches, 5);
	analysis_free(&am);
	assert_int_equal(count_events(&r.trace, ROLE_MAIN, EV_BATCH_WAIT, 1000), 5);
	assert_int_equal(count_events(&r.trace, ROLE_MAIN, EV_BATCH_WAIT, 0), 5 + 5);
	/* task k >= P x W is sent when batch k - P x W is handed over (the
	 * consumed marker is taken right after that dispatch) */
	for (int k = 6; k < 10; k++) {
		int64_t gap = (int64_t)r.b[k - 6].consumed - (int64_t)r.b[k].queued;
		if (gap < 0 || gap > (int64_t)(20 * MS))
			fail_msg("batch %d queued %.3f ms before batch %d was handed over", k,
				 gap / 1e6, k - 6);
	}
	/* head of line: worker 0 is idle from 180 ms until batch 3 is handed
	 * over at 240 ms and batch 9 is sent */
	assert_true(r.b[9].started >= r.b[9].queued);
	assert_near_ms("start of batch 9", (int64_t)(r.b[9].started - r.start_ns), 240, 40);
	/* waits, in order (ms after the previous hand-over) and delays */
	assert_near_ms("wait for batch 1", (int64_t)r.b[1].wait_ns, 90, 40);
	assert_near_ms("wait for batch 2", (int64_t)r.b[2].wait_ns, 90, 40);
	assert_near_ms("wait for batch 4", (int64_t)r.b[4].wait_ns, 810, 60);
	assert_near_ms("wait for batch 7", (int64_t)r.b[7].wait_ns, 60, 40);
	for (int k = 0; k < 10; k++)
		if (ooo[k])
			assert_int_equal(r.b[k].wait_ns, 0);
	assert_near_ms("delay of batch 5", (int64_t)(r.b[5].consumed - r.b[5].finished), 750, 60);
	assert_near_ms("delay of batch 8", (int64_t)(r.b[8].consumed - r.b[8].finished), 750, 60);
	assert_near_ms("delay of batch 4", (int64_t)(r.b[4].consumed - r.b[4].finished), 0, 20);
	assert_near_ms("E2E", (int64_t)(r.end_ns - r.start_ns), 1110, 100);

	/* the trace: one process per worker, 20 op and transform events, a
	 * preprocessed span per batch in the worker that ran it */
	assert_int_equal(r.trace.nprocs, 3 + 2 + (pin ? 1 : 0));
	assert_int_equal(count_events(&r.trace, ROLE_WORKER, EV_OP, 0), 20);
	assert_int_equal(count_events(&r.trace, ROLE_WORKER, EV_TRANSFORM, 0), 20);
	assert_int_equal(count_events(&r.trace, ROLE_WORKER, EV_BATCH_PREPROC, 0), 10);
	assert_int_equal(count_events(&r.trace, ROLE_MAIN, EV_BATCH_CONSUMED, 1000), 10);
	assert_int_equal(count_events(&r.trace, ROLE_MAIN, EV_BATCH_QUEUED, 1000), 10);
	assert_int_equal(count_events(&r.trace, ROLE_PIN, EV_BATCH_PINNED, 0), pin ? 10 : 0);
	assert_int_equal(count_events(&r.trace, ROLE_GPU, EV_GPU_STEP, 0), 10);
	for (size_t i = 0; i < r.trace.nprocs; i++) {
		const struct trace_proc *tp = &r.trace.procs[i];
		if (tp->role != ROLE_WORKER)
			continue;
		assert_true(tp->pid > 0);
		for (size_t e = 0; e < tp->n; e++)
			if (tp->ev[e].kind == EV_BATCH_PREPROC)
				assert_int_equal(tp->ev[e].batch % 3, tp->id);
	}
	assert_int_equal(r.trace_dropped, 0);
	loader_result_free(&r);
	free_dataset(&d);
	assert_no_children();
}

static void test_hol_process(void **state)
{
	(void)state;
	hol_inorder(BACKEND_PROCESS, 1);
}

static void test_hol_thread_nopin(void **state)
{
	(void)state;
	hol_inorder(BACKEND_THREAD, 0);
}

/* --order arrival: the same batches, handed over as they come. */
static void test_hol_arrival(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	struct loader_result r;
	hol_setup(&p, &d, &c);
	c.order = ORDER_ARRIVAL;
	run(&c, &r);
	assert_true(r.complete);
	assert_int_equal(r.batches, 10);
	assert_int_equal(r.max_inflight, 6);
	assert_int_equal(count_events(&r.trace, ROLE_MAIN, EV_BATCH_WAIT, 1000), 0);
	/* each batch once; the slow one and its successor on worker 1 last */
	int seen[10] = { 0 };
	for (int k = 0; k < 10; k++)
		seen[r.yield_order[k]]++;
	for (int k = 0; k < 10; k++)
		assert_int_equal(seen[k], 1);
	assert_int_equal(r.yield_order[0], 0);
	assert_int_equal(r.yield_order[8], 4);
	assert_int_equal(r.yield_order[9], 7);
	/* nothing waits for batch 4 except the main process */
	assert_near_ms("delay of batch 5", (int64_t)(r.b[5].consumed - r.b[5].finished), 0, 20);
	loader_result_free(&r);
	free_dataset(&d);
	assert_no_children();
}

/* ---- checksums --------------------------------------------------------- */

static const char synth_pipe[] =
	"synth w=6 h=5\n"
	"random_horizontal_flip p=0.5\n"
	"to_tensor\n"
	"normalize mean=0.485,0.456,0.406 std=0.229,0.224,0.225\n"
	"collate\n";

static void test_checksum_invariance(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	parse_pipeline(&p, synth_pipe);
	fake_dataset(&d, 23);
	base_cfg(&c, &p, &d);
	c.batch_size = 4;
	c.shuffle = 1;
	c.epochs = 2;
	c.seed = 5;
	uint64_t want = 0;
	int runs = 0;
	for (int be = 0; be < 2; be++)
		for (int ord = 0; ord < 2; ord++)
			for (int w = 1; w <= 3; w++) {
				struct loader_result r;
				c.backend = be ? BACKEND_THREAD : BACKEND_PROCESS;
				c.order = ord ? ORDER_ARRIVAL : ORDER_INORDER;
				c.workers = w;
				c.pin_memory = (w + be) % 2;
				run(&c, &r);
				assert_true(r.complete);
				assert_int_equal(r.images, 46);
				assert_int_equal(r.batches, 12);
				if (!runs++)
					want = r.checksum;
				else if (r.checksum != want)
					fail_msg("backend %d order %d W=%d: checksum %016llx, first run %016llx",
						 be, ord, w, (unsigned long long)r.checksum,
						 (unsigned long long)want);
				/* 4 samples of 3 x 5 x 6 floats and 4 labels; the
				 * epoch's last batch holds 3 */
				assert_int_equal(r.b[0].bytes, 4 * 3 * 5 * 6 * 4 + 4 * 8);
				assert_int_equal(r.b[5].bytes, 3 * 3 * 5 * 6 * 4 + 3 * 8);
				loader_result_free(&r);
			}
	assert_true(want != 0);   /* a checksum, not "off" */
	/* independent of how samples are grouped into batches */
	struct loader_result r;
	c.batch_size = 5;
	c.workers = 2;
	run(&c, &r);
	assert_int_equal(r.checksum, want);
	loader_result_free(&r);
	/* the torch stream depends on the worker that draws: W changes it */
	c.rng = RNG_TORCH;
	c.workers = 1;
	run(&c, &r);
	uint64_t torch1 = r.checksum;
	loader_result_free(&r);
	c.workers = 2;
	run(&c, &r);
	assert_int_not_equal(r.checksum, torch1);
	loader_result_free(&r);
	pipeline_release(&p);
	free_dataset(&d);
	assert_no_children();
}

/* The checksum is XXH64: known values. */
static void test_xxh64(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t seed, h;
		int line;
	} rows[] = {
		{ "", 0, 0xEF46DB3751D8E999ull, __LINE__ },
		{ "a", 0, 0xD24EC4F1A98C6E5Bull, __LINE__ },
		{ "abc", 0, 0x44BC2CF5AD770999ull, __LINE__ },
		{ "Nobody inspects the spammish repetition", 0, 0xFBCEA83C8A378BF1ull, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t h = checksum_xxh64(rows[i].s, strlen(rows[i].s), rows[i].seed);
		if (h != rows[i].h)
			fail_msg("line %d: %016llx, expected %016llx", rows[i].line,
				 (unsigned long long)h, (unsigned long long)rows[i].h);
	}
}

/* The sample checksum goes through libxxhash's x86 dispatcher (AVX-512,
 * AVX2 or SSE2 code picked at run time): the same hash as the library's
 * generic XXH3 at every length class (0, 1-3, 4-8, 9-16, 17-128, 129-240,
 * long, long with a partial stripe) and a sample's size, with the label as
 * the seed. */
static void test_xxh3_sample(void **state)
{
	(void)state;
	static const size_t len[] = { 0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1000, 1025,
				      224 * 224 * 3 * 4 + 4 };
	size_t n = 224 * 224 * 3 * 4 + 4;
	unsigned char *b = malloc(n);
	assert_non_null(b);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(len) / sizeof(len[0]); i++)
		for (int64_t label = -1; label <= 999; label += 500) {
			uint64_t h = checksum_sample(b + (i & 1), len[i] - (len[i] && (i & 1)), label);
			uint64_t want = XXH3_64bits_withSeed(b + (i & 1), len[i] - (len[i] && (i & 1)),
							     (uint64_t)label);
			if (h != want)
				fail_msg("length %zu label %lld: %016llx, generic XXH3 %016llx", len[i],
					 (long long)label, (unsigned long long)h, (unsigned long long)want);
		}
	free(b);
}

/* ---- data errors ------------------------------------------------------- */

static void test_error_skip(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	parse_pipeline(&p, "synth w=4 h=4 fail_every=5\nto_tensor\ncollate\n");
	fake_dataset(&d, 20);
	base_cfg(&c, &p, &d);
	c.batch_size = 4;
	c.workers = 2;
	struct loader_result r;
	run(&c, &r);
	assert_true(r.complete);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.nskipped, 4);
	assert_int_equal(r.images, 16);
	assert_int_equal(r.nerrors, 4);
	int found = 0;
	for (size_t i = 0; i < r.nerrors; i++) {
		assert_non_null(strstr(r.err_reason[i], "synthetic failure"));
		found += !strcmp(r.err_path[i], "s15");
	}
	assert_int_equal(found, 1);
	/* samples 0, 5, 10, 15 fail: batches 0..3 hold 3 samples, batch 4 has 4 */
	for (int k = 0; k < 5; k++)
		assert_int_equal(r.b[k].n, k < 4 ? 3 : 4);
	loader_result_free(&r);
	pipeline_release(&p);
	free_dataset(&d);
}

static void test_error_fail(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	parse_pipeline(&p, "synth w=4 h=4 fail_index=6\nto_tensor\ncollate\n");
	fake_dataset(&d, 20);
	base_cfg(&c, &p, &d);
	c.batch_size = 4;
	c.workers = 2;
	c.on_error = ON_ERROR_FAIL;
	struct loader_result r;
	run(&c, &r);
	assert_false(r.complete);
	assert_int_equal(r.exit_code, 1);
	/* batch 1 (samples 4..7) fails when it is due: batch 0 was consumed */
	assert_int_equal(r.batches, 1);
	if (!strstr(r.stop_reason, "'s6'") || !strstr(r.stop_reason, "synthetic failure"))
		fail_msg("stop reason: %s", r.stop_reason);
	loader_result_free(&r);
	pipeline_release(&p);
	free_dataset(&d);
	assert_no_children();
}

/* ---- faults ------------------------------------------------------------ */

static void test_worker_killed(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	for (int i = 0; i < 64; i++)
		delay_ms[i] = 20;
	kill_index = 13;        /* batch 6, worker 0 */
	one_op_pipeline(&p, &op_delay);
	fake_dataset(&d, 40);
	base_cfg(&c, &p, &d);
	c.workers = 2;
	struct loader_result r;
	run(&c, &r);
	kill_index = -1;
	assert_false(r.complete);
	assert_int_equal(r.exit_code, 3);
	if (!strstr(r.stop_reason, "worker 0") || !strstr(r.stop_reason, "SIGKILL"))
		fail_msg("stop reason: %s", r.stop_reason);
	/* noticed within a second of the kill (about 6 batches of 40 ms in) */
	assert_true(r.end_ns - r.start_ns < 1500 * MS);
	assert_true(r.batches >= 3 && r.batches < 20);
	/* the events kept are whole: the dead worker's stop at a batch end */
	for (size_t i = 0; i < r.trace.nprocs; i++)
		if (r.trace.procs[i].role == ROLE_WORKER && r.trace.procs[i].n)
			assert_int_equal(r.trace.procs[i].ev[r.trace.procs[i].n - 1].kind,
					 EV_BATCH_PREPROC);
	loader_result_free(&r);
	free_dataset(&d);
	assert_no_children();
}

static void *send_sigint(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	struct timespec ts = { 0, 150 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	kill(getpid(), SIGINT);
	return NULL;
}

static void sigint_run(enum loader_backend be)
{
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	/* 30 batches of 2 x 60 ms on 2 workers: 1.8 s if nothing stops it */
	for (int i = 0; i < 64; i++)
		delay_ms[i] = 60;
	kill_index = -1;
	one_op_pipeline(&p, &op_delay);
	fake_dataset(&d, 60);
	base_cfg(&c, &p, &d);
	c.backend = be;
	c.workers = 2;
	c.gpu_step_ns = 10 * MS;
	struct loader_result r;
	pthread_t t;
	pthread_create(&t, NULL, send_sigint, NULL);
	run(&c, &r);
	pthread_join(t, NULL);
	assert_false(r.complete);
	assert_int_equal(r.exit_code, 130);
	assert_non_null(strstr(r.stop_reason, "SIGINT"));
	/* promptly: SIGINT at 150 ms, a thread worker finishes its sample */
	assert_true(r.end_ns - r.start_ns < 700 * MS);
	loader_result_free(&r);
	free_dataset(&d);
	assert_no_children();
}

static void test_sigint_process(void **state)
{
	(void)state;
	sigint_run(BACKEND_PROCESS);
}

static void test_sigint_thread(void **state)
{
	(void)state;
	sigint_run(BACKEND_THREAD);
}

/* ---- simulated GPU, plan ----------------------------------------------- */

static void test_gpu(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	parse_pipeline(&p, synth_pipe);
	fake_dataset(&d, 10);
	base_cfg(&c, &p, &d);
	c.workers = 2;
	c.gpu_step_ns = 30 * MS;
	c.h2d_bytes_per_s = 1e5;       /* 2 x 360 + 16 bytes: 7.36 ms */
	struct loader_result r;
	run(&c, &r);
	assert_true(r.complete);
	/* sleeps end late, never early */
	assert_late_ms("GPU busy", (int64_t)r.gpu_busy_ns, 5 * (30 + 7.36), 1, 35);
	assert_late_ms("GPU copy", (int64_t)r.gpu_copy_ns, 5 * 7.36, 1, 30);
	assert_true(r.gpu_idle_ns > 0);
	assert_near_ms("busy + idle = E2E", (int64_t)(r.gpu_busy_ns + r.gpu_idle_ns),
		       (double)(r.end_ns - r.start_ns) / 1e6, 1);
	assert_int_equal(count_events(&r.trace, ROLE_GPU, EV_GPU_COPY, 0), 5);
	loader_result_free(&r);
	pipeline_release(&p);
	free_dataset(&d);
}

static void test_plan(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	struct loader_plan pl;
	char err[512];
	parse_pipeline(&p, "synth w=224 h=224\nto_tensor\ncollate\n");
	fake_dataset(&d, 1000);
	base_cfg(&c, &p, &d);
	/* small enough (about 1 GB) to fit on any machine that runs the tests */
	c.batch_size = 256;
	c.workers = 2;
	assert_int_equal(loader_plan(&c, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.sample_h, 224);
	assert_int_equal(pl.sample_w, 224);
	/* 256 x 3 x 224 x 224 x 4 + 256 x 8, page-rounded */
	assert_int_equal(pl.slot_bytes, (154140672 + 2048 + 4095) / 4096 * 4096);
	/* as PyTorch holds them: P x W in flight, the consumer's, the copy */
	assert_int_equal(pl.nslots, 6);
	assert_int_equal(pl.npinned, 6);
	assert_int_equal(pl.torch_buffers, 6);
	assert_true(pl.need_bytes == pl.batch_bytes + pl.trace_bytes + pl.sample_bytes);
	c.pin_memory = 0;
	assert_int_equal(loader_plan(&c, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.nslots, 5);
	assert_int_equal(pl.npinned, 0);
	/* far beyond any machine's memory: refused with the figures */
	c.batch_size = 1000;
	c.workers = 256;
	c.epochs = 600;
	c.pin_memory = 1;
	assert_int_equal(loader_plan(&c, &pl, err, sizeof(err)), -1);
	if (!strstr(err, "lower --batch") || !strstr(err, "batch buffers"))
		fail_msg("refusal: %s", err);
	pipeline_release(&p);
	free_dataset(&d);

	/* planned from the batches that exist: 10 images, --batch 256 is one
	 * batch of 10, one in flight */
	parse_pipeline(&p, "synth w=224 h=224\nto_tensor\ncollate\n");
	fake_dataset(&d, 10);
	base_cfg(&c, &p, &d);
	c.batch_size = 256;
	c.workers = 2;
	assert_int_equal(loader_plan(&c, &pl, err, sizeof(err)), 0);
	assert_int_equal(pl.batch_max, 10);
	assert_int_equal(pl.slot_bytes, (10 * 602112 + 80 + 4095) / 4096 * 4096);
	assert_int_equal(pl.nslots, 3);
	pipeline_release(&p);
	free_dataset(&d);
}

/* ulimit -v: a plan that cannot be mapped under RLIMIT_AS is refused with
 * the figures (it was "cannot map ... shared memory", exit 1, once running).
 * The limit is set from this process's own size (under ASan, terabytes of
 * shadow), 200 MB above it, so the test means the same in every build. */
static void test_plan_ulimit(void **state)
{
	(void)state;
	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	struct loader_plan pl;
	struct rlimit old, lim;
	unsigned long long pages = 0;
	char err[1024];
	FILE *f = fopen("/proc/self/statm", "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &pages), 1);
	fclose(f);
	parse_pipeline(&p, "synth w=224 h=224\nto_tensor\ncollate\n");
	fake_dataset(&d, 1000);
	base_cfg(&c, &p, &d);
	c.batch_size = 256;
	c.workers = 2;
	assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) + (200ull << 20));
	if (old.rlim_max != RLIM_INFINITY && lim.rlim_cur > old.rlim_max)
		skip();
	assert_int_equal(setrlimit(RLIMIT_AS, &lim), 0);
	int big = loader_plan(&c, &pl, err, sizeof(err));
	c.batch_size = 4;
	char err2[1024] = "";
	int small = loader_plan(&c, &pl, err2, sizeof(err2));
	assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
	assert_int_equal(big, -1);
	if (!strstr(err, "of address space in each worker but ulimit -v leaves") ||
	    !strstr(err, "lower --batch"))
		fail_msg("refusal: %s", err);
	if (small)
		fail_msg("a small plan under the limit: %s", err2);
	pipeline_release(&p);
	free_dataset(&d);
}

/* ---- the torch random stream ------------------------------------------- */

/* The worker of each batch and the random choices of each sample against
 * the real DataLoader (scripts/fixtures_loader.py): W workers, batches of B. */
static void torch_rng(enum loader_backend be, int workers, int batch, const char *fixture)
{
	FILE *f = fopen("tests/fixtures/loader/torch_rng_sizes.csv", "r");
	assert_non_null(f);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		int i, w, h;
		if (line[0] != '#' && sscanf(line, "%d,%d,%d", &i, &w, &h) == 3 && i < MAXN) {
			probe_w[i] = w;
			probe_h[i] = h;
			n = i + 1 > n ? i + 1 : n;
		}
	}
	fclose(f);
	assert_int_equal(n, 22);
	plog = mmap(NULL, sizeof(*plog), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(plog != MAP_FAILED);
	memset(plog, 0, sizeof(*plog));

	struct pipeline p;
	struct dataset d;
	struct loader_cfg c;
	one_op_pipeline(&p, &op_probe);
	fake_dataset(&d, (size_t)n);
	base_cfg(&c, &p, &d);
	c.backend = be;
	c.workers = workers;
	c.batch_size = batch;
	c.shuffle = 1;
	c.epochs = 2;
	c.seed = 20241121;
	c.rng = RNG_TORCH;
	struct loader_result r;
	run(&c, &r);
	assert_true(r.complete);
	struct schedule s;
	char err[256];
	assert_int_equal(schedule_build(&s, (size_t)n, (size_t)batch, 2, 1, 0, c.seed, 0, err,
					sizeof(err)), 0);

	f = fopen(fixture, "r");
	assert_non_null(f);
	int rows = 0, bad = 0;
	while (fgets(line, sizeof(line), f)) {
		int e, k, pos, idx, wk;
		struct choice want;
		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", &e, &k, &pos, &idx, &wk,
					&want.i, &want.j, &want.h, &want.w, &want.flip), 10);
		size_t id = s.epoch_first[e] + (size_t)k;
		assert_int_equal(s.idx[s.b[id].first + (size_t)pos], idx);
		assert_int_equal(r.b[id].worker, wk);
		const struct choice *got = &plog->c[e][idx];
		if (memcmp(got, &want, sizeof(want))) {
			if (bad++ < 5)
				print_error("epoch %d batch %d sample %d: crop (%d,%d,%d,%d) flip %d, torch "
					    "(%d,%d,%d,%d) flip %d\n", e, k, idx, got->i, got->j, got->h,
					    got->w, got->flip, want.i, want.j, want.h, want.w, want.flip);
		}
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, 2 * n);
	assert_int_equal(bad, 0);
	schedule_free(&s);
	loader_result_free(&r);
	free_dataset(&d);
	munmap(plog, sizeof(*plog));
	plog = NULL;
}

static void test_torch_rng_process(void **state)
{
	(void)state;
	torch_rng(BACKEND_PROCESS, 2, 4, "tests/fixtures/loader/torch_rng.csv");
}

static void test_torch_rng_thread(void **state)
{
	(void)state;
	torch_rng(BACKEND_THREAD, 2, 4, "tests/fixtures/loader/torch_rng.csv");
}

/* 5 batches an epoch on 3 workers: epoch 2 starts again at worker 0 (a
 * "batch id mod W" rule would give worker 2) */
static void test_torch_rng_w3(void **state)
{
	(void)state;
	torch_rng(BACKEND_PROCESS, 3, 5, "tests/fixtures/loader/torch_rng_w3_b5.csv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hol_process),
		cmocka_unit_test(test_hol_thread_nopin),
		cmocka_unit_test(test_hol_arrival),
		cmocka_unit_test(test_xxh64),
		cmocka_unit_test(test_xxh3_sample),
		cmocka_unit_test(test_checksum_invariance),
		cmocka_unit_test(test_error_skip),
		cmocka_unit_test(test_error_fail),
		cmocka_unit_test(test_worker_killed),
		cmocka_unit_test(test_sigint_process),
		cmocka_unit_test(test_sigint_thread),
		cmocka_unit_test(test_gpu),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_ulimit),
		cmocka_unit_test(test_torch_rng_process),
		cmocka_unit_test(test_torch_rng_thread),
		cmocka_unit_test(test_torch_rng_w3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
