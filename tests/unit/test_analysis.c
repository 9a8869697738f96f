#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "analysis.h"
#include "tracebuild.h"

#define assert_near(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-6 * (1 + fabs((double)(b))))

static const struct op_metrics *find_op(const struct run_metrics *m, const char *lotus)
{
	for (size_t i = 0; i < m->nops; i++)
		if (!strcmp(m->ops[i].lotus_name, lotus))
			return &m->ops[i];
	return NULL;
}

static void test_run_figures(void **state)
{
	static struct fx f;
	struct analysis_opts o;
	struct run_metrics m;
	char err[256];
	(void)state;

	fx_build(&f);
	o = fx_opts();
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	assert_true(m.complete);
	assert_near(m.e2e_s, 1.0);
	assert_near(m.images_per_s, 8.0);
	assert_int_equal(m.batches, 4);
	assert_int_equal(m.trace_events, 4 * 8 + 16 + 4 + 8);

	/* main process */
	assert_int_equal(m.wait_events, 4);
	assert_int_equal(m.ooo_batches, 2);
	assert_near(m.ooo_pct, 50.0);
	assert_near(m.wait_total_s, 0.800);
	assert_near(m.stall_pct, 80.0);
	assert_int_equal(m.wait.n, 2);
	assert_near(m.wait.p50, MS(400));
	assert_near(m.wait.max, MS(699));
	assert_near(m.wait_over_500ms_pct, 25.0);   /* Lotus: 1 of 4 SBatchWait records */
	assert_near(m.wait_inorder_over_500ms_pct, 50.0);
	assert_int_equal(m.delay.n, 4);
	assert_near(m.delay.mean, MS(198));
	assert_near(m.delay.p50, MS(25.5));
	assert_near(m.delay.max, MS(741));
	assert_near(m.delay_over_500ms_pct, 25.0);

	/* batch preprocessing: 100, 50, 700, 10 ms, no low tail */
	assert_int_equal(m.preproc_all.n, 4);
	assert_int_equal(m.preproc_dropped, 0);
	assert_near(m.preproc.mean, MS(215));
	assert_near(m.preproc.p25, MS(40));
	assert_near(m.preproc.p75, MS(250));
	assert_near(m.preproc_iqr_ns, MS(210));
	assert_near(m.preproc_std_pct, 100.0 * m.preproc.std / MS(215));

	/* ops */
	assert_int_equal(m.nops, 4);
	assert_string_equal(m.ops[0].name, "decode");
	assert_string_equal(m.ops[1].name, "random_horizontal_flip");
	assert_string_equal(m.ops[2].name, "collate");
	assert_string_equal(m.ops[3].name, "transform");
	const struct op_metrics *ld = find_op(&m, "SLoader");
	assert_non_null(ld);
	assert_int_equal(ld->st.n, 8);
	assert_near(ld->st.mean, MS(4.5));
	assert_near(ld->st.p50, MS(4.5));
	assert_near(ld->st.p90, MS(7.3));
	assert_near(ld->st.p99, MS(7.93));
	assert_near(ld->st.max, MS(8));
	assert_near(ld->span_s, 0.036);
	assert_near(ld->under_10ms_pct, 100.0);
	assert_near(ld->under_100us_pct, 0.0);
	const struct op_metrics *rhf = find_op(&m, "SRandomHorizontalFlip");
	assert_near(rhf->st.p50, MS(0.1));
	assert_near(rhf->under_100us_pct, 50.0);
	assert_near(rhf->under_10ms_pct, 100.0);
	const struct op_metrics *tr = find_op(&m, "STransform");
	assert_near(tr->st.mean, MS(0.110));
	assert_int_equal(find_op(&m, "SCollation")->st.n, 4);
	assert_near(m.ops_span_s, 0.036 + 0.0008 + 0.002);

	/* per batch rows */
	assert_int_equal(m.nbatches, 4);
	const struct batch_row *r = &m.rows[1];
	assert_int_equal(r->id, 1);
	assert_int_equal(r->worker, 1);
	assert_int_equal(r->pid, 101);
	assert_int_equal(r->samples, 2);
	assert_int_equal(r->queued, 0);
	assert_int_equal(r->started, MS(1));
	assert_int_equal(r->finished, MS(51));
	assert_int_equal(r->arrived, MS(51));
	assert_int_equal(r->pinned, MS(52));
	assert_int_equal(r->consumed, MS(102));
	assert_int_equal(r->wait_ns, TRACE_MARKER_NS);
	assert_int_equal(r->delay_ns, MS(51));
	assert_true(r->out_of_order);
	assert_int_equal(m.rows[2].worker, 0);
	assert_int_equal(m.rows[2].wait_ns, MS(699));
	assert_false(m.rows[2].out_of_order);

	/* GPU from its events: 4 x (5 + 10) ms busy */
	assert_near(m.gpu_busy_s, 0.060);
	assert_near(m.gpu_idle_s, 0.940);
	assert_near(m.gpu_util_pct, 6.0);
	analysis_free(&m);

	/* GPU from the consumer's accounting */
	o.gpu_busy_ns = MS(250);
	o.gpu_idle_ns = MS(750);
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	assert_near(m.gpu_util_pct, 25.0);
	analysis_free(&m);
}

static void test_low_tail_cut(void **state)
{
	double v[10] = { 104, 100, 10, 108, 101, 105, 103, 102, 107, 106 };
	size_t first;
	(void)state;

	/* sorted: 10, 100..108; q1 = 101.25, q3 = 105.75, limit 92.25 */
	assert_int_equal(analysis_cut_low_tail(v, 10, &first), 1);
	assert_int_equal(first, 1);
	assert_true(v[0] == 10 && v[1] == 100);
	/* nothing below: nothing cut; a high outlier is never cut */
	double w[5] = { 1, 2, 3, 4, 1000 };
	assert_int_equal(analysis_cut_low_tail(w, 5, &first), 0);
	assert_int_equal(analysis_cut_low_tail(NULL, 0, &first), 0);
}

/* The short last batch in a trace is cut from the batch statistics. */
static void test_preproc_tail_in_trace(void **state)
{
	static struct trace_ev ev[16];
	struct trace_proc p = { ROLE_WORKER, 0, 7, 0, 16, ev, 0 };
	struct trace t = { 1, &p, 0, { { 0 } }, { { 0 } } };
	struct analysis_opts o = fx_opts();
	struct run_metrics m;
	char err[256];
	(void)state;

	for (int b = 0; b < 9; b++)
		trace_add(&p, EV_BATCH_PREPROC, 0, b, UINT32_MAX, T0 + MS(200 * b),
			  b == 8 ? MS(10) : MS(100 + b));
	assert_int_equal(analysis_compute(&t, &o, &m, err, sizeof(err)), 0);
	assert_int_equal(m.preproc_all.n, 9);
	assert_int_equal(m.preproc_dropped, 1);
	assert_int_equal(m.preproc.n, 8);
	assert_near(m.preproc.mean, MS(103.5));
	assert_near(m.preproc.std, MS(sqrt(5.25)));
	assert_near(m.preproc_std_pct, 100.0 * sqrt(5.25) / 103.5);
	assert_near(m.preproc_iqr_ns, MS(3.5));
	/* no main events: no waits, no out-of-order, no rows without a worker */
	assert_int_equal(m.wait_events, 0);
	assert_near(m.ooo_pct, 0);
	assert_int_equal(m.nbatches, 9);
	assert_int_equal(m.rows[8].worker, 0);
	assert_int_equal(m.rows[8].consumed, BATCH_NONE);
	assert_int_equal(m.rows[8].delay_ns, BATCH_NONE);
	analysis_free(&m);
}

/* SCollation of a pipeline op and EV_COLLATE events are one op. */
static void test_collate_merge_and_opts(void **state)
{
	static struct trace_ev ev[8];
	struct trace_proc p = { ROLE_WORKER, 0, 7, 0, 8, ev, 0 };
	struct trace t = { 1, &p, 2, { "SLoader", "SCollation" }, { "decode", "collate" } };
	struct analysis_opts o = fx_opts();
	struct run_metrics m;
	const char *sk[] = { "a/x.JPEG", "b/y.JPEG" };
	double cpu[2] = { 1.5, 2.25 };
	long rss[2] = { 1000, 2000 };
	char err[256];
	(void)state;

	trace_add(&p, EV_OP, 1, 0, UINT32_MAX, T0, MS(2));
	trace_add(&p, EV_COLLATE, 0, 1, UINT32_MAX, T0 + MS(3), MS(4));
	p.dropped = 5;
	o.complete = 0;
	o.stop_reason = "worker 1 killed by SIGKILL";
	o.nskipped = 3;
	o.skipped = sk;
	o.nskipped_listed = 2;
	o.worker_cpu_s = cpu;
	o.worker_maxrss_kib = rss;
	assert_int_equal(analysis_compute(&t, &o, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nops, 1);
	assert_string_equal(m.ops[0].name, "collate");
	assert_int_equal(m.ops[0].st.n, 2);
	assert_near(m.ops[0].span_s, 0.006);
	assert_false(m.complete);
	assert_string_equal(m.stop_reason, "worker 1 killed by SIGKILL");
	assert_int_equal(m.nskipped, 3);
	assert_int_equal(m.nskipped_listed, 2);
	assert_string_equal(m.skipped[1], "b/y.JPEG");
	assert_near(m.workers_cpu_s, 3.75);
	assert_int_equal(m.worker_maxrss_kib[1], 2000);
	assert_int_equal(m.trace_dropped, 5);
	analysis_free(&m);

	/* errors */
	trace_add(&p, EV_OP, 9, 0, UINT32_MAX, T0, 1);
	assert_int_equal(analysis_compute(&t, &o, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "op 9"));
	o.end_ns = o.start_ns - 1;
	assert_int_equal(analysis_compute(&t, &o, &m, err, sizeof(err)), -1);
}

/* ops_oncpu_s is the sum of the counted ops' on-CPU time (two counted ops
 * of 30 ms and 2 ms: 32 ms, not the last op's 2 ms nor the first's 30 ms);
 * an op not counted adds nothing; none counted: unknown (NaN), never 0 */
static void test_ops_oncpu_sum(void **state)
{
	static struct fx f;
	struct analysis_opts o;
	struct run_metrics m;
	struct counter_derived d[2];
	uint64_t regions[2] = { 8, 8 };
	char err[256];
	(void)state;

	memset(d, 0, sizeof(d));
	d[0].oncpu_ns = 30e6;
	d[0].wall_ns = 36e6;
	d[1].oncpu_ns = 2e6;
	d[1].wall_ns = 3e6;
	for (int i = 0; i < 2; i++) {
		d[i].descheduled_ns = d[i].wall_ns - d[i].oncpu_ns;
		d[i].oncpu_pct = 100.0 * d[i].oncpu_ns / d[i].wall_ns;
		d[i].ipc = d[i].cache_mpki = d[i].branch_mpki = NAN;
		d[i].frontend_stall_pct = d[i].backend_stall_pct = NAN;
	}
	fx_build(&f);
	o = fx_opts();
	o.op_counted = d;
	o.op_regions = regions;
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	assert_near(find_op(&m, "SLoader")->oncpu_s, 0.030);
	assert_near(find_op(&m, "SRandomHorizontalFlip")->oncpu_s, 0.002);
	if (fabs(m.ops_oncpu_s - 0.032) > 1e-12)
		fail_msg("ops_oncpu_s %.9f, expected 0.032 (30 ms + 2 ms)", m.ops_oncpu_s);
	analysis_free(&m);

	/* only the second op counted */
	regions[0] = 0;
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	assert_true(isnan(find_op(&m, "SLoader")->oncpu_s));
	assert_near(m.ops_oncpu_s, 0.002);
	analysis_free(&m);

	/* only the first */
	regions[0] = 8;
	regions[1] = 0;
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	assert_near(m.ops_oncpu_s, 0.030);
	analysis_free(&m);

	/* none */
	regions[0] = 0;
	assert_int_equal(analysis_compute(&f.t, &o, &m, err, sizeof(err)), 0);
	assert_true(isnan(m.ops_oncpu_s));
	analysis_free(&m);
}

/* Out of order from arrivals: a batch is out of order when it arrived
 * before some batch with a smaller id, the latest of all smaller ids, not
 * only the previous one. Arrivals (ms): b0 100, b1 10, b2 50, b3 120,
 * b4 110, b5 130.
 *   b1: before b0 (100)                       out of order
 *   b2: after b1 (10) but before b0 (100)     out of order (the previous id
 *                                             alone would say in order)
 *   b3: after every smaller id                in order
 *   b4: before b3 (120)                       out of order
 *   b5: after all                             in order
 * => 3 of 6 (50 %); the previous-id rule would give 2 of 6. */
static void test_ooo_from_arrivals(void **state)
{
	static struct trace_ev ev[16];
	struct trace_proc p = { ROLE_MAIN, 0, 1000, 0, 16, ev, 0 };
	struct trace t = { 1, &p, 0, { { 0 } }, { { 0 } } };
	struct analysis_opts o = fx_opts();
	struct run_metrics m;
	char err[256];
	static const double arr_ms[6] = { 100, 10, 50, 120, 110, 130 };
	static const int ooo[6] = { 0, 1, 1, 0, 1, 0 };
	(void)state;

	for (int b = 0; b < 6; b++)
		trace_add(&p, EV_BATCH_ARRIVED, 0, b, UINT32_MAX, T0 + MS(arr_ms[b]), TRACE_MARKER_NS);
	assert_int_equal(analysis_compute(&t, &o, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nbatches, 6);
	for (int b = 0; b < 6; b++)
		if (m.rows[b].out_of_order != ooo[b])
			fail_msg("batch %d (arrived %.0f ms): out_of_order %d, expected %d", b, arr_ms[b],
				 m.rows[b].out_of_order, ooo[b]);
	assert_int_equal(m.ooo_batches, 3);
	assert_near(m.ooo_pct, 50.0);
	analysis_free(&m);
}

static void test_empty(void **state)
{
	struct trace t;
	struct analysis_opts o = fx_opts();
	struct run_metrics m;
	char err[256];
	(void)state;

	memset(&t, 0, sizeof(t));
	o.images = 0;
	assert_int_equal(analysis_compute(&t, &o, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nops, 0);
	assert_int_equal(m.nbatches, 0);
	assert_near(m.stall_pct, 0);
	assert_near(m.gpu_util_pct, 0);
	analysis_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_figures),
		cmocka_unit_test(test_low_tail_cut),
		cmocka_unit_test(test_preproc_tail_in_trace),
		cmocka_unit_test(test_collate_merge_and_opts),
		cmocka_unit_test(test_ops_oncpu_sum),
		cmocka_unit_test(test_ooo_from_arrivals),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
