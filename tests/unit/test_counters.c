/* Counters: status, scaling, error reasons, accumulation and derived figures
 * (table-driven, rows carry __LINE__), the event list parser, and the
 * degraded paths forced with PPBENCH_FORCE_NO_PMU / PPBENCH_FORCE_NO_PERF. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <jansson.h>
#include "clock.h"
#include "counted.h"
#include "counters.h"
#include "pipeline.h"

#define NA NAN

static void fail_row(int line, const char *what)
{
	print_error("row at line %d: %s\n", line, what);
	fail();
}

static void test_status(void **state)
{
	(void)state;
	static const struct {
		int line, opened;
		uint64_t enabled, running;
		enum counter_status want;
	} rows[] = {
		{ __LINE__, 0, 100, 100, CNT_NOT_SUPPORTED },
		{ __LINE__, 0, 0, 0, CNT_NOT_SUPPORTED },
		{ __LINE__, 1, 0, 0, CNT_NOT_COUNTED },       /* no region at all */
		{ __LINE__, 1, 100, 0, CNT_NOT_COUNTED },     /* never scheduled */
		{ __LINE__, 1, 100, 50, CNT_SCALED },
		{ __LINE__, 1, 100, 99, CNT_SCALED },
		{ __LINE__, 1, 100, 100, CNT_OK },
		{ __LINE__, 1, 1, 1, CNT_OK },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (counters_status(rows[i].opened, rows[i].enabled, rows[i].running) != rows[i].want)
			fail_row(rows[i].line, counter_status_name(rows[i].want));
	assert_string_equal(counter_status_name(CNT_NOT_SUPPORTED), "not supported");
	assert_string_equal(counter_status_name(CNT_NOT_COUNTED), "not counted");
}

static void test_scale(void **state)
{
	(void)state;
	static const struct {
		int line;
		uint64_t raw, enabled, running;
		double want;
	} rows[] = {
		{ __LINE__, 1000, 100, 100, 1000 },
		{ __LINE__, 1000, 200, 100, 2000 },            /* counted half the time */
		{ __LINE__, 1000, 300, 100, 3000 },
		{ __LINE__, 7, 3, 2, 10.5 },
		{ __LINE__, 0, 100, 50, 0 },                   /* counted, and it was 0 */
		{ __LINE__, 1000, 100, 0, NA },                /* never counted: not 0 */
		{ __LINE__, 1000, 0, 0, NA },
		{ __LINE__, 1000, 100, 120, 1000 },            /* running > enabled: no scaling */
		{ __LINE__, UINT64_C(1) << 62, 4, 2, 9223372036854775808.0 },  /* no overflow */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double v = counters_scale(rows[i].raw, rows[i].enabled, rows[i].running);
		if (isnan(rows[i].want) ? !isnan(v) : fabs(v - rows[i].want) > 1e-9 * fabs(rows[i].want))
			fail_row(rows[i].line, "scaled value");
	}
}

static void test_open_reason(void **state)
{
	(void)state;
	static const struct {
		int line, err, hw, have_pmu, paranoid;
		const char *want;
	} rows[] = {
		{ __LINE__, ENOENT, 1, 0, 2, "no hardware PMU (ENOENT)" },
		{ __LINE__, ENOENT, 1, 1, 2, "not supported by this CPU's PMU (ENOENT)" },
		{ __LINE__, ENOENT, 0, 1, 2, "not supported by this kernel (ENOENT)" },
		{ __LINE__, EACCES, 1, 1, 3, "perf_event_paranoid=3 (EACCES)" },
		{ __LINE__, EPERM, 0, 0, 4, "perf_event_paranoid=4 (EPERM)" },
		{ __LINE__, EACCES, 1, 1, -99, "permission denied (EACCES)" },
		{ __LINE__, EINVAL, 1, 1, 2, "the group does not fit its counters (EINVAL)" },
		{ __LINE__, EINVAL, 0, 1, 2, "invalid event (EINVAL)" },
		{ __LINE__, ENOSYS, 0, 0, 2, "perf_event_open is not available (ENOSYS)" },
		{ __LINE__, EOPNOTSUPP, 1, 1, 2, "(EOPNOTSUPP)" },
		{ __LINE__, ENODEV, 1, 1, 2, "no such PMU (ENODEV)" },
		{ __LINE__, EMFILE, 0, 1, 2, "too many open files (EMFILE)" },
		{ __LINE__, EBUSY, 1, 1, 2, "(EBUSY)" },
		{ __LINE__, EIO, 1, 1, 2, "errno 5" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char out[128];
		counters_open_reason(rows[i].err, rows[i].hw, rows[i].have_pmu, rows[i].paranoid,
				     out, sizeof(out));
		if (!strstr(out, rows[i].want))
			fail_row(rows[i].line, out);
	}
}

static int close_enough(double got, double want)
{
	if (isnan(want))
		return isnan(got);
	return fabs(got - want) <= 1e-9 * (fabs(want) + 1);
}

static void test_derive(void **state)
{
	(void)state;
	static const char *const names[] = {
		"cycles", "instructions", "branch-misses", "cache-references", "cache-misses",
		"stalls-frontend", "stalls-backend", "task-clock",
	};
	enum { N = 8 };
	static const struct {
		int line;
		double v[N];
		enum counter_status st[N];
		double oncpu, wall;
		double ipc, bmpki, cmpki, cmpct, fe, be, desched, oncpu_pct;
	} rows[] = {
		{ __LINE__, { 2000, 3000, 30, 200, 50, 500, 400, 0 }, { 0 }, 800, 1000,
		  1.5, 10, 50.0 / 3, 25, 25, 20, 200, 80 },
		/* multiplexed values are used as scaled */
		{ __LINE__, { 1000, 500, 5, 10, 1, 100, 100, 0 },
		  { CNT_SCALED, CNT_SCALED, CNT_SCALED, CNT_SCALED, CNT_SCALED, CNT_SCALED,
		    CNT_SCALED, CNT_SCALED }, 1000, 1000, 0.5, 10, 2, 10, 10, 10, 0, 100 },
		/* no PMU: nothing derived from hardware events, times still there */
		{ __LINE__, { NA, NA, NA, NA, NA, NA, NA, 900 },
		  { CNT_NOT_SUPPORTED, CNT_NOT_SUPPORTED, CNT_NOT_SUPPORTED, CNT_NOT_SUPPORTED,
		    CNT_NOT_SUPPORTED, CNT_NOT_SUPPORTED, CNT_NOT_SUPPORTED, CNT_OK },
		  900, 1200, NA, NA, NA, NA, NA, NA, 300, 75 },
		/* not counted is never 0: IPC is unknown, not 0 or inf */
		{ __LINE__, { 0, 3000, 30, 200, 50, 0, 0, 0 },
		  { CNT_NOT_COUNTED, CNT_OK, CNT_OK, CNT_OK, CNT_OK, CNT_NOT_COUNTED,
		    CNT_NOT_COUNTED, CNT_OK }, 100, 100, NA, 10, 50.0 / 3, 25, NA, NA, 0, 100 },
		/* zero cycles counted: ratio undefined */
		{ __LINE__, { 0, 0, 0, 0, 0, 0, 0, 0 }, { 0 }, 0, 0, NA, NA, NA, NA, NA, NA, 0, NA },
		/* no on-CPU source */
		{ __LINE__, { 10, 20, 0, 0, 0, 0, 0, 0 }, { 0 }, NA, 1000, 2, 0, 0, NA, 0, 0, NA, NA },
		/* descheduled: the op waited for a core */
		{ __LINE__, { 10, 20, 0, 0, 0, 0, 0, 0 }, { 0 }, 250, 1000, 2, 0, 0, NA, 0, 0, 750, 25 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct counter_value val[N];
		struct counter_derived d;
		for (int k = 0; k < N; k++) {
			val[k].value = rows[i].v[k];
			val[k].status = rows[i].st[k];
		}
		counters_derive(names, val, N, rows[i].oncpu, rows[i].wall, &d);
		if (!close_enough(d.ipc, rows[i].ipc))
			fail_row(rows[i].line, "ipc");
		if (!close_enough(d.branch_mpki, rows[i].bmpki))
			fail_row(rows[i].line, "branch misses per kilo instruction");
		if (!close_enough(d.cache_mpki, rows[i].cmpki))
			fail_row(rows[i].line, "cache misses per kilo instruction");
		if (!close_enough(d.cache_miss_pct, rows[i].cmpct))
			fail_row(rows[i].line, "cache miss %");
		if (!close_enough(d.frontend_stall_pct, rows[i].fe))
			fail_row(rows[i].line, "front-end stall %");
		if (!close_enough(d.backend_stall_pct, rows[i].be))
			fail_row(rows[i].line, "back-end stall %");
		if (!close_enough(d.descheduled_ns, rows[i].desched))
			fail_row(rows[i].line, "descheduled");
		if (!close_enough(d.oncpu_pct, rows[i].oncpu_pct))
			fail_row(rows[i].line, "on-CPU %");
	}
}

static struct counter_snap snap(uint64_t nr, uint64_t en, uint64_t run, uint64_t v0, uint64_t v1,
				uint64_t cpu)
{
	struct counter_snap s;
	memset(&s, 0, sizeof(s));
	s.nr = nr;
	s.enabled_ns = en;
	s.running_ns = run;
	s.val[0] = v0;
	s.val[1] = v1;
	s.cpu_ns = cpu;
	return s;
}

static void test_accumulate(void **state)
{
	(void)state;
	/* a sequence of reads at op boundaries; region k = (s[k], s[k+1]) */
	struct counter_snap s[] = {
		snap(2, 100, 100, 10, 1000, 5),
		snap(2, 200, 150, 30, 1500, 55),     /* multiplexed half the time */
		snap(2, 300, 250, 60, 1600, 60),
		snap(2, 250, 250, 60, 1600, 60),     /* time went backwards: dropped */
		snap(1, 400, 350, 60, 1600, 60),     /* nr changed: dropped */
	};
	static const struct {
		int line;
		int b, a;                 /* indexes into s, -1: failed read */
		uint64_t wall;
	} rows[] = {
		{ __LINE__, 0, 1, 90 },
		{ __LINE__, 1, 2, 80 },
		{ __LINE__, 2, 3, 1 },
		{ __LINE__, 3, 4, 1 },
		{ __LINE__, -1, 2, 1 },
	};
	struct counter_acc acc;
	memset(&acc, 0, sizeof(acc));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		counters_accumulate(&acc, rows[i].b < 0 ? NULL : &s[rows[i].b],
				    rows[i].a < 0 ? NULL : &s[rows[i].a], rows[i].wall);
	assert_int_equal(acc.regions, 2);
	assert_int_equal(acc.failed, 3);
	assert_int_equal(acc.enabled_ns, 200);
	assert_int_equal(acc.running_ns, 150);
	assert_int_equal(acc.raw[0], 50);
	assert_int_equal(acc.raw[1], 600);
	assert_int_equal(acc.cpu_ns, 55);
	assert_int_equal(acc.wall_ns, 170);

	/* two workers summed, then scaled once */
	struct counter_acc tot;
	memset(&tot, 0, sizeof(tot));
	counters_acc_add(&tot, &acc);
	counters_acc_add(&tot, &acc);
	assert_int_equal(tot.regions, 4);
	assert_int_equal(tot.raw[1], 1200);

	struct counter_spec spec;
	memset(&spec, 0, sizeof(spec));
	spec.n = 3;
	snprintf(spec.ev[0].name, sizeof(spec.ev[0].name), "cycles");
	spec.ev[0].slot = 1;
	snprintf(spec.ev[1].name, sizeof(spec.ev[1].name), "instructions");
	spec.ev[1].slot = -1;
	spec.ev[1].status = CNT_NOT_SUPPORTED;
	snprintf(spec.ev[2].name, sizeof(spec.ev[2].name), "task-clock");
	spec.ev[2].slot = 0;
	spec.ev[2].is_time = 1;
	spec.nslots = 2;
	spec.oncpu = ONCPU_TASK_CLOCK;
	spec.oncpu_slot = 0;
	struct counter_value v[3];
	counters_values(&spec, &tot, v);
	assert_int_equal(v[0].status, CNT_SCALED);
	assert_true(fabs(v[0].value - 1200.0 * 400 / 300) < 1e-6);
	assert_int_equal(v[1].status, CNT_NOT_SUPPORTED);
	assert_true(isnan(v[1].value));
	assert_true(fabs(v[2].value - 100.0 * 400 / 300) < 1e-6);
	assert_true(fabs(counters_oncpu_ns(&spec, &tot) - 100.0 * 400 / 300) < 1e-6);

	/* the empty-region floor is taken off the on-CPU time, per region */
	spec.has_overhead = 1;
	spec.ov.empty_cpu_ns = 7;
	spec.ov.empty_wall_ns = 2;
	assert_true(fabs(counters_oncpu_ns(&spec, &tot) - (100.0 * 400 / 300 - 5 * 4)) < 1e-6);
	spec.has_overhead = 0;

	/* thread clock as the on-CPU source */
	spec.oncpu = ONCPU_THREAD_CLOCK;
	assert_true(fabs(counters_oncpu_ns(&spec, &tot) - 110) < 1e-9);

	/* nothing accumulated: not counted, NAN, never 0 */
	struct counter_acc none;
	memset(&none, 0, sizeof(none));
	counters_values(&spec, &none, v);
	assert_int_equal(v[0].status, CNT_NOT_COUNTED);
	assert_true(isnan(v[0].value));
	assert_true(isnan(counters_oncpu_ns(&spec, &none)));

	/* export: NAN as null and as an empty CSV field */
	json_t *j = counters_op_json(&spec, &tot, 4);
	json_t *ins = json_object_get(json_object_get(j, "events"), "instructions");
	assert_non_null(ins);
	assert_true(json_is_null(json_object_get(ins, "sum")));
	assert_string_equal(json_string_value(json_object_get(ins, "status")), "not supported");
	json_t *cyc = json_object_get(json_object_get(j, "events"), "cycles");
	assert_string_equal(json_string_value(json_object_get(cyc, "status")), "scaled");
	assert_true(fabs(json_real_value(json_object_get(cyc, "per_image")) - 400) < 1e-6);
	assert_null(json_object_get(j, "derived"));   /* derived figures are op metrics */
	json_decref(j);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	counters_csv_header(&spec, f);
	fputc('\n', f);
	counters_csv_row(&spec, &tot, f);
	fclose(f);
	assert_non_null(strstr(buf, ",cycles,instructions,task-clock_ns\n"));
	assert_non_null(strstr(buf, "\n,1600,,133"));
	free(buf);
}

static void test_parse(void **state)
{
	(void)state;
	struct counter_spec s;
	char err[256];
	assert_int_equal(counters_parse("none", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(counters_parse("", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);

	assert_int_equal(counters_parse("basic", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 6);   /* five + task-clock for the on-CPU time */
	assert_string_equal(s.ev[0].name, "cycles");
	assert_string_equal(s.ev[4].name, "cache-misses");
	assert_string_equal(s.ev[5].name, "task-clock");
	assert_int_equal(s.ev[5].origin, CNT_FROM_ONCPU);
	assert_true(s.ev[0].hw);
	assert_false(s.ev[5].hw);
	assert_true(s.ev[5].is_time);

	/* presets overlap: duplicates dropped, order kept */
	assert_int_equal(counters_parse("basic,stalls sw,cycles", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 11);
	assert_string_equal(s.ev[5].name, "stalls-frontend");
	assert_string_equal(s.ev[7].name, "task-clock");
	assert_int_equal(s.ev[7].origin, CNT_FROM_PRESET);
	assert_int_equal(counters_parse("topdown", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 5);

	/* plain names, with libpfm4 modifiers */
	assert_int_equal(counters_parse("instructions:u,page-faults", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.ev[0].attr.exclude_kernel);

	static const struct {
		int line;
		const char *list, *want;
	} bad[] = {
		{ __LINE__, "cylces", "unknown event 'cylces'" },
		{ __LINE__, "basic,nope", "unknown event 'nope'" },
		{ __LINE__, "none,cycles", "'none' cannot be combined" },
		{ __LINE__, "basic,sw,stalls,instructions:u,cycles:u,branch-misses:u,cache-misses:u,"
			    "cache-references:u,cpu-clock,major-faults,minor-faults", "more than 16 events" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (counters_parse(bad[i].list, &s, err, sizeof(err)) != -1 || !strstr(err, bad[i].want))
			fail_row(bad[i].line, err);
	}
}

static void burn_ms(double ms)
{
	uint64_t end = clock_now_ns() + (uint64_t)(ms * 1e6);
	volatile uint64_t x = 0;
	while (clock_now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

/* Three counted regions of busy work, or of sleep, on this thread. */
static void count_region(struct counter_spec *spec, struct counter_acc *acc, int sleep)
{
	char err[256];
	struct counter_group *g = counters_open_thread(spec, err, sizeof(err));
	if (!g)
		print_error("%s\n", err);
	assert_non_null(g);
	struct counter_snap b, a;
	memset(acc, 0, sizeof(*acc));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(counters_read(g, &b), 0);
		uint64_t t0 = clock_now_ns();
		if (sleep)
			clock_sleep_ns(3000000, NULL);
		else
			burn_ms(3);
		uint64_t t1 = clock_now_ns();
		assert_int_equal(counters_read(g, &a), 0);
		counters_accumulate(acc, &b, &a, t1 - t0);
	}
	counters_close(g);
}

/* On-CPU time behaves: busy work is on the CPU (how much depends on the
 * load of the machine, so only its bounds are checked), sleep is not. */
static void check_oncpu(struct counter_spec *s)
{
	struct counter_acc acc;
	struct counter_derived d;
	count_region(s, &acc, 0);
	assert_int_equal(acc.regions, 3);
	counters_derived(s, &acc, &d);
	assert_true(d.oncpu_ns > 0);
	assert_true(d.oncpu_ns < d.wall_ns + 3 * 200000.0);
	count_region(s, &acc, 1);
	counters_derived(s, &acc, &d);
	assert_true(d.oncpu_ns < 0.5 * d.wall_ns);
	assert_true(d.descheduled_ns > 0.5 * d.wall_ns);
}

static void test_forced_no_pmu(void **state)
{
	(void)state;
	struct counter_spec s;
	char err[256];
	setenv("PPBENCH_FORCE_NO_PMU", "1", 1);
	assert_int_equal(counters_parse("basic", &s, err, sizeof(err)), 0);
	counters_probe(&s);
	unsetenv("PPBENCH_FORCE_NO_PMU");
	assert_true(s.forced_no_pmu);
	assert_false(s.have_pmu);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(s.ev[i].status, CNT_NOT_SUPPORTED);
		assert_string_equal(s.ev[i].reason, "no hardware PMU (ENOENT)");
		assert_int_equal(s.ev[i].slot, -1);
	}
	/* one line saying so */
	assert_non_null(strstr(s.note, "counters: "));
	assert_null(strchr(s.note, '\n'));
	if (s.nslots == 0) {
		/* this machine refuses perf altogether: thread clock */
		assert_int_equal(s.oncpu, ONCPU_THREAD_CLOCK);
		assert_non_null(strstr(s.note, "thread CPU clock"));
	} else {
		assert_true(s.fell_back);
		assert_non_null(strstr(s.note, "no hardware event opens here (cycles: no hardware PMU (ENOENT))"));
		assert_non_null(strstr(s.note, "counting software events instead: task-clock, page-faults, "
					       "context-switches, cpu-migrations"));
		assert_int_equal(s.oncpu, ONCPU_TASK_CLOCK);
		assert_int_equal(s.ev[s.n - 1].origin, CNT_FROM_FALLBACK);
	}
	check_oncpu(&s);
	struct counter_acc acc;
	struct counter_derived d;
	count_region(&s, &acc, 0);
	counters_derived(&s, &acc, &d);
	assert_true(isnan(d.ipc));                   /* never 0 */
	json_t *j = counters_spec_json(&s);
	assert_true(json_is_true(json_object_get(j, "forced_no_pmu")));
	assert_string_equal(json_string_value(json_object_get(j, "fallback")), s.note);
	json_decref(j);
}

static void test_forced_no_perf(void **state)
{
	(void)state;
	struct counter_spec s;
	char err[256];
	setenv("PPBENCH_FORCE_NO_PERF", "1", 1);
	assert_int_equal(counters_parse("basic,sw", &s, err, sizeof(err)), 0);
	counters_probe(&s);
	unsetenv("PPBENCH_FORCE_NO_PERF");
	assert_int_equal(s.nslots, 0);
	assert_int_equal(s.oncpu, ONCPU_THREAD_CLOCK);
	for (int i = 0; i < s.n; i++) {
		assert_int_equal(s.ev[i].status, CNT_NOT_SUPPORTED);
		assert_non_null(strstr(s.ev[i].reason, "(EACCES)"));
	}
	assert_non_null(strstr(s.note, "perf_event_open refused"));
	check_oncpu(&s);
	assert_int_equal(counters_measure_overhead(&s, err, sizeof(err)), 0);
	assert_true(s.has_overhead);
	assert_true(s.ov.read_ns > 0);
}

/* Whatever this machine has: statuses are consistent with the slots, and
 * an unprobed spec does not open. */
static void test_probe_here(void **state)
{
	(void)state;
	struct counter_spec s;
	char err[256];
	assert_int_equal(counters_parse("basic,sw", &s, err, sizeof(err)), 0);
	assert_null(counters_open_thread(&s, err, sizeof(err)));
	assert_non_null(strstr(err, "not probed"));
	counters_probe(&s);
	for (int i = 0; i < s.n; i++) {
		const struct counter_event *e = &s.ev[i];
		if (e->slot < 0) {
			assert_int_equal(e->status, CNT_NOT_SUPPORTED);
			assert_true(e->reason[0] != 0);
		} else {
			assert_int_equal(s.slot_ev[e->slot], i);
			assert_int_not_equal(e->status, CNT_NOT_SUPPORTED);
		}
	}
	if (s.have_pmu)
		assert_int_equal(s.fell_back, 0);
	if (s.nslots) {
		assert_int_equal(counters_measure_overhead(&s, err, sizeof(err)), 0);
		assert_true(s.ov.read_ns > 0 && s.ov.read_ns < 1e6);
	}
}

/* The counted per-sample loop: one region per op and sample, the failed op
 * not accumulated, the same t[] as the plain loop; the null-op overhead. */
static void test_counted(void **state)
{
	(void)state;
	struct counter_spec spec;
	struct pipeline p;
	char err[256];
	assert_int_equal(counters_parse("sw", &spec, err, sizeof(err)), 0);
	counters_probe(&spec);
	struct counter_group *g = counters_open_thread(&spec, err, sizeof(err));
	assert_non_null(g);
	assert_int_equal(pipeline_parse(&p, "null\nnull\nnull\n", "t", err, sizeof(err)), 0);
	struct scratch scr;
	struct sample s;
	struct op_time t[PIPE_MAX_OPS];
	struct counter_acc acc[PIPE_MAX_OPS];
	memset(&scr, 0, sizeof(scr));
	memset(&s, 0, sizeof(s));
	memset(acc, 0, sizeof(acc));
	s.scr = &scr;
	for (int i = 0; i < 10; i++)
		assert_int_equal(pipeline_run_sample_counted(&p, &s, t, g, acc), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(acc[i].regions, 10);
		assert_int_equal(acc[i].failed, 0);
		assert_true(t[i].dur_ns < 1000000);
	}
	assert_true(t[1].start_ns >= t[0].start_ns + t[0].dur_ns);
	assert_true(t[2].start_ns >= t[1].start_ns + t[1].dur_ns);
	pipeline_release(&p);

	/* decode of a missing file fails: its region is not accumulated */
	assert_int_equal(pipeline_parse(&p, "null\ndecode\n", "t", err, sizeof(err)), 0);
	memset(acc, 0, sizeof(acc));
	s.path = "tests/fixtures/does-not-exist.jpg";
	assert_int_equal(pipeline_run_sample_counted(&p, &s, t, g, acc), 2);
	assert_int_equal(acc[0].regions, 1);
	assert_int_equal(acc[1].regions, 0);
	/* without a group: the plain loop */
	assert_int_equal(pipeline_run_sample_counted(&p, &s, t, NULL, acc), 2);
	assert_int_equal(acc[0].regions, 1);
	pipeline_release(&p);
	sample_release(&s);
	scratch_release(&scr);
	counters_close(g);

	struct counted_overhead o;
	assert_int_equal(counters_measure_overhead(&spec, err, sizeof(err)), 0);
	assert_int_equal(counted_null_overhead(&spec, &o, err, sizeof(err)), 0);
	assert_true(o.counted_ns > o.plain_ns);
	assert_true(o.per_op_ns > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_open_reason),
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_accumulate),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_forced_no_pmu),
		cmocka_unit_test(test_forced_no_perf),
		cmocka_unit_test(test_probe_here),
		cmocka_unit_test(test_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
