/* The loader model (bench/model/model.h) on cases whose answer is known by hand:
 * the head-of-line scenario of the loader's own protocol test (spec 2.6),
 * event for event; one worker is always in order; equal costs give no
 * out-of-order batch; two workers with alternating times; determinism for a
 * seed; the policies; the contention factor and its fit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "analysis.h"
#include "model.h"
#include "sampler.h"

#define MS 1000000.0
#define assert_near(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-6 * (1 + fabs((double)(b))))

static void cfg_init(struct model_cfg *c, const struct model_src *s, int W, int B, uint64_t images)
{
	memset(c, 0, sizeof(*c));
	c->workers = W;
	c->batch_size = B;
	c->gpus = 1;
	c->prefetch_factor = 2;
	c->images = images;
	c->epochs = 1;
	c->order = ORDER_INORDER;
	c->policy = POLICY_TORCH;
	c->src = s;
	c->machine.tpc = 2;
}

static void model(const struct model_cfg *c, struct model_out *o, struct run_metrics *m)
{
	char err[256];
	if (model_run(c, o, err, sizeof(err)))
		fail_msg("model_run: %s", err);
	if (model_metrics(c, o, m, err, sizeof(err)))
		fail_msg("model_metrics: %s", err);
}

static size_t count(const struct model_out *o, enum proc_role role, unsigned kind, uint64_t dur)
{
	size_t n = 0;
	for (size_t p = 0; p < o->trace.nprocs; p++)
		for (size_t i = 0; i < o->trace.procs[p].n; i++)
			n += o->trace.procs[p].role == role && o->trace.procs[p].ev[i].kind == kind &&
			     (!dur || o->trace.procs[p].ev[i].dur_ns == dur);
	return n;
}

/* W = 3, P = 2, B = 2, 10 batches, step 0 (test_loader.c's scenario):
 *   batch   0   1   2   3   4    5   6   7   8   9
 *   time   60 150 240  60 900   60  60  60  60  60
 *   done   60 150 240 120 1050 300 180 1110 360 300
 * in order, 3, 5, 6, 8 and 9 arrive before they are needed. */
static void hol(int pin)
{
	static const double ms[10] = { 60, 150, 240, 60, 900, 60, 60, 60, 60, 60 };
	static const int ooo[10] = { 0, 0, 0, 1, 0, 1, 1, 0, 1, 1 };
	static const double done[10] = { 60, 150, 240, 120, 1050, 300, 180, 1110, 360, 300 };
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	assert_int_equal(model_src_batch_list(&s, ms, 10), 0);
	cfg_init(&c, &s, 3, 2, 20);
	c.pin_memory = pin;
	model(&c, &o, &m);
	assert_int_equal(m.batches, 10);
	assert_int_equal(m.images, 20);
	assert_int_equal(o.max_inflight, 6);
	assert_int_equal(m.nbatches, 10);
	for (int k = 0; k < 10; k++) {
		const struct batch_row *r = &m.rows[k];
		assert_int_equal(r->id, k);
		assert_int_equal(r->worker, k % 3);
		assert_int_equal(o.yield_order[k], k);
		if (r->out_of_order != ooo[k])
			fail_msg("batch %d: out_of_order %d, expected %d", k, r->out_of_order, ooo[k]);
		assert_near(r->finished, done[k] * MS);
		if (ooo[k])
			assert_int_equal(r->wait_ns, 1000);
	}
	assert_near(m.ooo_pct, 50);
	/* task k >= P x W is sent when batch k - 6 is handed over */
	for (int k = 6; k < 10; k++)
		assert_int_equal(m.rows[k].queued, m.rows[k - 6].consumed);
	/* worker 0 idles from 180 ms until batch 3 is handed over at 240 */
	assert_near(m.rows[9].started, 240 * MS);
	assert_near(m.rows[1].wait_ns, 90 * MS);
	assert_near(m.rows[2].wait_ns, 90 * MS);
	assert_near(m.rows[4].wait_ns, 810 * MS);
	assert_near(m.rows[7].wait_ns, 60 * MS);
	assert_near(m.rows[5].delay_ns, 750 * MS);
	assert_near(m.rows[8].delay_ns, 750 * MS);
	assert_near(m.rows[4].delay_ns, 0);
	assert_near(m.e2e_s, 1.110);
	assert_int_equal(count(&o, ROLE_MAIN, EV_BATCH_WAIT, 1000), 5);
	assert_int_equal(count(&o, ROLE_MAIN, EV_BATCH_WAIT, 0), 10);
	assert_int_equal(count(&o, ROLE_PIN, EV_BATCH_PINNED, 0), pin ? 10 : 0);
	assert_int_equal(count(&o, ROLE_GPU, EV_GPU_STEP, 0), 10);
	assert_int_equal(count(&o, ROLE_WORKER, EV_BATCH_PREPROC, 0), 10);
	analysis_free(&m);
	model_out_free(&o);
	model_src_free(&s);
}

static void test_hol_spec(void **state)
{
	(void)state;
	hol(0);
	hol(1);   /* a free pin copy changes nothing */
}

/* Arrival order: handed over as they come, every wait is real. */
static void test_hol_arrival(void **state)
{
	static const double ms[10] = { 60, 150, 240, 60, 900, 60, 60, 60, 60, 60 };
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	(void)state;
	assert_int_equal(model_src_batch_list(&s, ms, 10), 0);
	cfg_init(&c, &s, 3, 2, 20);
	c.order = ORDER_ARRIVAL;
	model(&c, &o, &m);
	assert_int_equal(count(&o, ROLE_MAIN, EV_BATCH_WAIT, 1000), 0);
	assert_int_equal(o.yield_order[0], 0);
	assert_int_equal(o.yield_order[1], 3);   /* done at 120, before batch 1 at 150 */
	assert_int_equal(o.yield_order[2], 1);
	assert_true(m.e2e_s <= 1.110 + 1e-9);
	analysis_free(&m);
	model_out_free(&o);
	model_src_free(&s);
}

/* Two workers, batches of 300 and 100 ms in turn: every odd batch arrives
 * before the even one before it, so exactly half are out of order. */
static void test_alternating(void **state)
{
	static const double ms[2] = { 300, 100 };
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	(void)state;
	assert_int_equal(model_src_batch_list(&s, ms, 2), 0);
	cfg_init(&c, &s, 2, 1, 40);
	model(&c, &o, &m);
	assert_int_equal(m.ooo_batches, 20);
	for (int k = 0; k < 40; k++)
		assert_int_equal(m.rows[k].out_of_order, k % 2);
	analysis_free(&m);
	model_out_free(&o);
	model_src_free(&s);
}

/* One worker is always in order, whatever the spread; equal costs never
 * put a batch out of order, at any W. */
static void test_in_order_cases(void **state)
{
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	(void)state;
	model_src_batch_normal(&s, 100, 40, 8);
	cfg_init(&c, &s, 1, 8, 8 * 300);
	c.gpu_step_ns = 30 * MS;
	model(&c, &o, &m);
	assert_int_equal(m.ooo_batches, 0);
	assert_int_equal(m.batches, 300);
	assert_true(m.preproc_std_pct > 20);
	analysis_free(&m);
	model_out_free(&o);
	model_src_batch_normal(&s, 100, 0, 8);
	for (int W = 2; W <= 8; W *= 2) {
		cfg_init(&c, &s, W, 8, 8 * 300);
		c.gpu_step_ns = 10 * MS;
		model(&c, &o, &m);
		assert_int_equal(m.ooo_batches, 0);
		analysis_free(&m);
		model_out_free(&o);
	}
}

/* The same seed gives the same run; another seed another one. */
static void test_deterministic(void **state)
{
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics a, b, d;
	(void)state;
	model_src_sample(&s, 2.0, 0.5, 5, 32);
	cfg_init(&c, &s, 4, 32, 32 * 200 + 7);
	c.seed = 3;
	c.pin_memory = 1;
	c.pin_bytes_per_s = 8e9;
	c.sample_bytes = 602112;
	c.gpu_step_ns = 15 * MS;
	model(&c, &o, &a);
	model_out_free(&o);
	model(&c, &o, &b);
	model_out_free(&o);
	c.seed = 4;
	model(&c, &o, &d);
	model_out_free(&o);
	assert_true(a.e2e_s == b.e2e_s && a.ooo_pct == b.ooo_pct && a.stall_pct == b.stall_pct);
	assert_true(a.e2e_s != d.e2e_s);
	assert_int_equal(a.images, 32 * 200 + 7);
	assert_int_equal(a.batches, 201);
	analysis_free(&a);
	analysis_free(&b);
	analysis_free(&d);
}

/* shared-queue: equal sample costs fill batches in order; every image
 * arrives once. speedy over 3 epochs: a timeout and a slow lane. */
static void test_policies(void **state)
{
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	(void)state;
	model_src_sample(&s, 1.0, 0, 0, 16);
	cfg_init(&c, &s, 3, 16, 16 * 50);
	c.policy = POLICY_SHARED_QUEUE;
	model(&c, &o, &m);
	assert_int_equal(m.images, 800);
	assert_int_equal(m.batches, 50);
	assert_int_equal(m.ooo_batches, 0);
	/* three workers share each batch: about 16 / 3 ms per batch */
	assert_true(m.e2e_s < 50 * 16 * 1e-3 / 3 * 1.2);
	analysis_free(&m);
	model_out_free(&o);

	/* a dropped last batch takes no completion position */
	cfg_init(&c, &s, 3, 16, 50);
	c.policy = POLICY_SHARED_QUEUE;
	c.drop_last = 1;
	c.epochs = 2;
	model(&c, &o, &m);
	assert_int_equal(m.images, 96);
	assert_int_equal(m.batches, 6);
	analysis_free(&m);
	model_out_free(&o);

	model_src_sample(&s, 1.0, 1.0, 0, 16);
	cfg_init(&c, &s, 4, 16, 16 * 50);
	c.policy = POLICY_SPEEDY;
	c.epochs = 3;
	model(&c, &o, &m);
	assert_int_equal(m.images, 3 * 800);
	assert_true(o.timeout_ns > 0);
	assert_true(o.slow_lane > 0);
	analysis_free(&m);
	model_out_free(&o);
}

/* The contention factor on a 16-core, 2-thread machine, and a fit that
 * finds the parameters it was given back. */
static void test_factor_fit(void **state)
{
	(void)state;
	struct model_machine mm = { .cores = 16, .tpc = 2, .alpha = 0, .beta = 0.5 };
	assert_near(model_factor(&mm, 8), 1);
	assert_near(model_factor(&mm, 16), 1);
	assert_near(model_factor(&mm, 32), 32.0 / 24);
	assert_near(model_factor(&mm, 64), 64.0 / 24);
	mm.alpha = 0.01;
	assert_near(model_factor(&mm, 11), 1.1);
	mm.ref_busy = 11;
	assert_near(model_factor(&mm, 11), 1);
	struct model_machine truth = { .cores = 16, .tpc = 2, .alpha = 0.006, .beta = 0.3 };
	double n[6] = { 10, 14, 18, 22, 26, 30 }, t[6];
	for (int i = 0; i < 6; i++)
		t[i] = 7000 * model_factor(&truth, n[i]);
	struct model_machine fit = { .cores = 16, .tpc = 2 };
	double base, e;
	model_fit(&fit, n, NULL, t, 6, &base, &e);
	assert_true(fabs(fit.alpha - 0.006) < 0.0005);
	assert_true(fabs(fit.beta - 0.3) < 0.011);
	assert_true(fabs(base - 7000) < 20);
	assert_true(e < 0.5);
	/* threads keep their place: at 18 busy threads on 16 cores, 14 are
	 * alone on a core and 4 share two; of 16 workers, the first 12 are alone */
	struct model_machine st = { .cores = 16, .tpc = 2, .beta = 0.5, .smt_static = 1 };
	assert_near(model_worker_factor(&st, 18, 16, 11), 1);
	assert_near(model_worker_factor(&st, 18, 16, 12), 2 / 1.5);
	assert_near(model_worker_factor(&st, 8, 16, 12), 1);
	assert_near(model_worker_factor(&st, 40, 16, 0), 40.0 / 24);
}

/* CPU work shares the machine for as long as it runs (processor sharing),
 * not at the factor of the moment it started: two workers on one core
 * each take 200 ms for 100 ms of work, whoever started first; the pin
 * copy is work too, served first when it has a hardware thread to take. */
static void test_sharing(void **state)
{
	(void)state;
	static const double ms[1] = { 100 };
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	assert_int_equal(model_src_batch_list(&s, ms, 1), 0);
	cfg_init(&c, &s, 2, 1, 4);
	c.machine.cores = 1;
	c.machine.tpc = 1;
	model(&c, &o, &m);
	assert_near(m.rows[0].finished, 200 * MS);
	assert_near(m.rows[1].finished, 200 * MS);
	assert_near(m.rows[2].finished, 400 * MS);
	assert_near(m.rows[3].finished, 400 * MS);
	/* each is on the core half the time: 200 ms of CPU over 400 */
	assert_near(o.worker_busy_s[0], 0.2);
	assert_near(o.worker_busy_s[1], 0.2);
	analysis_free(&m);
	model_out_free(&o);

	/* the pin copy is work too: on one core, batch 0's copy (50 ms alone)
	 * shares it with batch 1 from 100 ms: the copy ends at 200, batch 1
	 * (50 ms done by then) at 250 */
	cfg_init(&c, &s, 1, 1, 3);
	c.machine.cores = 1;
	c.machine.tpc = 1;
	c.pin_memory = 1;
	c.sample_bytes = 1e6;
	c.pin_bytes_per_s = 2e7;        /* 1 MB in 50 ms */
	model(&c, &o, &m);
	assert_near(m.rows[0].finished, 100 * MS);
	assert_near(m.rows[0].pinned, 200 * MS);
	assert_near(m.rows[1].finished, 250 * MS);
	assert_near(m.pin_copy_s, 0.1 + 0.1 + 0.05);   /* 0.1 shared, 0.1 shared, 0.05 alone */
	assert_near(m.main_cpu_s, 0.15);                /* three copies' CPU */
	analysis_free(&m);
	model_out_free(&o);

	/* beyond the hardware threads the pin thread is served first (it
	 * sleeps between copies): on 2 cores with 2 workers, batch 0's copy
	 * takes its 50 ms alone (100 -> 150 ms), then batch 1's (-> 200),
	 * while the workers share the core left: 25 ms of work each per 50
	 * ms; alone again from 200, batches 2 and 3 end at 250 */
	cfg_init(&c, &s, 2, 1, 4);
	c.machine.cores = 2;
	c.machine.tpc = 1;
	c.pin_memory = 1;
	c.sample_bytes = 1e6;
	c.pin_bytes_per_s = 2e7;
	model(&c, &o, &m);
	assert_near(m.rows[0].pinned, 150 * MS);
	assert_near(m.rows[1].pinned, 200 * MS);
	assert_near(m.rows[2].finished, 250 * MS);
	assert_near(m.rows[3].finished, 250 * MS);
	analysis_free(&m);
	model_out_free(&o);
	model_src_free(&s);
}

/* The main thread's terms: its own work after each hand-over, the GPU's
 * step (and lateness), the workers' start-up. One worker, 100 ms a batch,
 * 10 batches, step 50 ms + 2 ms late, the main's work 10 ms, its first
 * dispatch at 20 ms, the workers' start-up 30 ms: batch j is there at
 * 30 + 100 (j + 1) ms, the last step ends 62 ms after the last batch:
 * E2E 1092 ms = 20 + waits + GPU 520 + main 100. */
static void test_main_terms(void **state)
{
	(void)state;
	static const double ms[1] = { 100 };
	struct model_src s;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	assert_int_equal(model_src_batch_list(&s, ms, 1), 0);
	cfg_init(&c, &s, 1, 1, 10);
	c.gpu_step_ns = 50 * MS;
	c.gpu_over_ns = 2 * MS;
	c.main_ns = 10 * MS;
	c.startup_ns = 30 * MS;
	c.prime_ns = 20 * MS;
	model(&c, &o, &m);
	assert_near(m.e2e_s, 1.092);
	assert_near(m.gpu_busy_s, 0.52);
	assert_near(m.main_cpu_s, 0.1);
	/* the main thread waits from its first dispatch at 20 ms */
	assert_near(m.rows[0].queued, 20 * MS);
	assert_near(m.wait_total_s, 1.092 - 0.52 - 0.1 - 0.02);
	assert_near(m.rows[0].started, 30 * MS);
	assert_near(m.rows[9].consumed, 1030 * MS);
	analysis_free(&m);
	model_out_free(&o);
	model_src_free(&s);
}

/* A measured run's costs replayed by image and epoch: the model's batches
 * are the loader's (its sampler, the run's seed), each sample costs what
 * its image cost in that epoch (here (i + 1) ms, then 10 x in epoch 1, the
 * page cache's state), and no batch factor is put on top. */
static void test_by_index(void **state)
{
	(void)state;
	struct model_src s;
	memset(&s, 0, sizeof(s));
	s.kind = MSRC_SAMPLE_EMPIRICAL;
	s.batch_of = 2;
	static double v[1] = { 0.5 * MS }, by[2 * 6];
	s.v = NULL;
	s.n = 1;
	s.mean_ns = v[0];
	for (int i = 0; i < 6; i++) {
		by[i] = (i + 1) * MS;
		by[6 + i] = 10 * (i + 1) * MS;
	}
	s.by_images = 6;
	s.by_epochs = 2;
	struct model_cfg c;
	struct model_out o;
	struct run_metrics m;
	cfg_init(&c, &s, 1, 2, 6);
	c.epochs = 3;                    /* epoch 2 takes epoch 1's costs */
	c.shuffle = 1;
	c.sched_seed = 7;
	s.v = v;
	s.by_index = by;
	model(&c, &o, &m);
	struct schedule sch;
	char err[128];
	assert_int_equal(schedule_build(&sch, 6, 2, 3, 1, 0, 7, 0, err, sizeof(err)), 0);
	assert_int_equal(m.nbatches, 9);
	for (size_t j = 0; j < 9; j++) {
		double want = 0;
		for (uint32_t k = 0; k < sch.b[j].n; k++)
			want += (sch.b[j].epoch ? 10 : 1) * (double)(sch.idx[sch.b[j].first + k] + 1) * MS;
		assert_near(m.rows[j].finished - m.rows[j].started, want);
	}
	schedule_free(&sch);
	analysis_free(&m);
	model_out_free(&o);
	/* another dataset size: the costs are drawn, not replayed */
	cfg_init(&c, &s, 1, 2, 8);
	model(&c, &o, &m);
	assert_near(m.rows[0].finished - m.rows[0].started, 1 * MS);
	analysis_free(&m);
	model_out_free(&o);
}

static void test_bad_config(void **state)
{
	struct model_cfg c;
	struct model_out o;
	char err[256];
	(void)state;
	cfg_init(&c, NULL, 2, 8, 100);
	assert_int_equal(model_run(&c, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no costs"));
	struct model_src s;
	model_src_batch_normal(&s, 10, 5, 8);
	cfg_init(&c, &s, 2, 8, 5);
	c.drop_last = 1;
	assert_int_equal(model_run(&c, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no batch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hol_spec),
		cmocka_unit_test(test_hol_arrival),
		cmocka_unit_test(test_alternating),
		cmocka_unit_test(test_in_order_cases),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_factor_fit),
		cmocka_unit_test(test_sharing),
		cmocka_unit_test(test_main_terms),
		cmocka_unit_test(test_by_index),
		cmocka_unit_test(test_bad_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
