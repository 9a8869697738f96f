/* The noise guard's inputs (bench/measure/noise.h), from fixtures: a cgroup
 * tree (v2 and v1), /proc/self/cgroup, /proc/stat, the online and allowed
 * CPUs. Each figure is checked at the values where a wrong rule gives
 * another answer:
 *   - a CPU quota below the allowed CPUs is what a run may use (0.5 of 2);
 *     one above them is not (3 of 2: the 2 CPUs are); nested quotas give
 *     the tightest (1.5 under 3, and 3 under 1.5), whichever is the parent;
 *   - /proc/stat is read on the allowed CPUs only, and others_cpu_pct is a
 *     share of the allowed CPUs (2), not of the online ones (4);
 *   - the PPBENCH_TEST_* variables reach cpus_read(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fsutil.h"
#include "noise.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	assert_int_equal(mkdir_p(dir, 0755), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *at(const char *rel)
{
	static char path[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", root, rel);
	return path[k];
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/ppbench-noise-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(root);
	return 0;
}

/* a machine of 4 online CPUs where this process may use CPUs 0-1, in the
 * cgroup /job/step of a v2 hierarchy at root/cg */
static struct noise_src src_v2(void)
{
	put("self_cgroup", "0::/job/step\n");
	struct noise_src s = { .proc_stat = at("stat"), .proc_cgroup = at("self_cgroup"),
			       .cgroup_root = at("cg"), .online = 4, .allowed = "0-1" };
	return s;
}

static void test_quota_below_allowed(void **state)
{
	(void)state;
	struct cpus c;
	struct noise_src s = src_v2();
	put("cg/cpu.max", "max 100000\n");
	put("cg/job/cpu.max", "50000 100000\n");   /* docker --cpus=0.5 */
	put("cg/job/step/cpu.max", "max 100000\n");
	cpus_read_from(&c, &s);
	assert_int_equal(c.online, 4);
	assert_int_equal(c.configured, 4);
	assert_int_equal(c.allowed, 2);
	assert_string_equal(c.allowed_list, "0-1");
	assert_true(c.quota == 0.5);
	/* the quota, below the 2 allowed CPUs, is what the run may use */
	assert_true(c.usable == 0.5);
	assert_int_equal(cpus_usable_int(&c), 1);
}

static void test_quota_above_allowed(void **state)
{
	(void)state;
	struct cpus c;
	struct noise_src s = src_v2();
	put("cg/cpu.max", "max 100000\n");
	put("cg/job/cpu.max", "300000 100000\n");  /* a quota of 3 over 2 CPUs */
	put("cg/job/step/cpu.max", "max 100000\n");
	cpus_read_from(&c, &s);
	assert_true(c.quota == 3);
	/* the quota is recorded, but the 2 allowed CPUs are what the run may use */
	assert_true(c.usable == 2);
	assert_int_equal(cpus_usable_int(&c), 2);
	/* exactly the allowed CPUs: either way 2 */
	put("cg/job/cpu.max", "200000 100000\n");
	cpus_read_from(&c, &s);
	assert_true(c.quota == 2 && c.usable == 2);
}

static void test_quota_nested_tightest(void **state)
{
	(void)state;
	struct cpus c;
	struct noise_src s = src_v2();
	s.allowed = "0-3";
	put("cg/cpu.max", "max 100000\n");
	/* the tighter one in the child */
	put("cg/job/cpu.max", "300000 100000\n");
	put("cg/job/step/cpu.max", "150000 100000\n");
	cpus_read_from(&c, &s);
	assert_true(c.quota == 1.5 && c.usable == 1.5);
	/* and in the parent */
	put("cg/job/cpu.max", "150000 100000\n");
	put("cg/job/step/cpu.max", "300000 100000\n");
	cpus_read_from(&c, &s);
	assert_true(c.quota == 1.5 && c.usable == 1.5);
	assert_int_equal(cpus_usable_int(&c), 1);
}

static void test_quota_v1_and_none(void **state)
{
	(void)state;
	struct cpus c;
	struct noise_src s = src_v2();
	put("self_cgroup", "12:memory:/grp\n5:cpu,cpuacct:/grp\n");
	put("cg/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	put("cg/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	put("cg/cpu,cpuacct/grp/cpu.cfs_quota_us", "150000\n");
	put("cg/cpu,cpuacct/grp/cpu.cfs_period_us", "100000\n");
	cpus_read_from(&c, &s);
	assert_true(c.quota == 1.5 && c.usable == 1.5);
	/* no cgroup file: no quota, the allowed CPUs */
	s.proc_cgroup = at("none");
	cpus_read_from(&c, &s);
	assert_true(c.quota == 0 && c.usable == 2);
	/* an allowed list that does not parse: the online CPUs */
	s.allowed = "x";
	cpus_read_from(&c, &s);
	assert_int_equal(c.allowed, 4);
	assert_string_equal(c.allowed_list, "0-3");
}

/* /proc/stat with cpu0..cpu3, each line's user, nice, system, idle, iowait,
 * irq, softirq, steal ticks */
static void put_stat(const char *rel, const unsigned long long busy[4], const unsigned long long steal[4])
{
	char text[1024];
	size_t l = 0;
	unsigned long long tb = 0, ts = 0;
	for (int i = 0; i < 4; i++) {
		tb += busy[i];
		ts += steal[i];
	}
	/* the machine's total line comes first and must not be counted */
	l += (size_t)snprintf(text + l, sizeof(text) - l, "cpu  %llu 0 0 1000 0 0 0 %llu 0 0\n", tb, ts);
	for (int i = 0; i < 4; i++) {
		/* busy split over user, system and softirq; idle and iowait are not busy */
		unsigned long long u = busy[i] / 2, sy = busy[i] / 4, sq = busy[i] - u - sy;
		l += (size_t)snprintf(text + l, sizeof(text) - l,
				      "cpu%d %llu 0 %llu %llu 7 0 %llu %llu 0 0\n", i, u, sy,
				      250 + busy[i], sq, steal[i]);
	}
	snprintf(text + l, sizeof(text) - l, "intr 1 2 3\nctxt 99\n");
	put(rel, text);
}

static void test_others_share_of_allowed_cpus(void **state)
{
	(void)state;
	struct cpus c;
	struct noise_src s = src_v2();
	struct noise_snap a, b;
	struct noise n;
	long hz = sysconf(_SC_CLK_TCK);
	assert_true(hz > 0 && hz % 20 == 0);

	put("cg/cpu.max", "max 100000\n");
	s.allowed = "1,3";
	cpus_read_from(&c, &s);
	assert_int_equal(c.online, 4);
	assert_int_equal(c.allowed, 2);
	assert_string_equal(c.allowed_list, "1,3");

	/* over 1 s: the allowed CPUs 1 and 3 were busy 0.6 s and 0.4 s, CPUs 0
	 * and 2 (not allowed) 1 s each; 0.1 s stolen from CPU 1 */
	unsigned long long h = (unsigned long long)hz;
	const unsigned long long b0[4] = { 10 * h, 10 * h, 10 * h, 10 * h }, s0[4] = { 0 };
	const unsigned long long b1[4] = { 11 * h, 10 * h + 6 * h / 10, 11 * h, 10 * h + 4 * h / 10 };
	const unsigned long long s1[4] = { 5 * h, h / 10, 5 * h, 0 };
	put_stat("stat", b0, s0);
	noise_read_from(&a, &c, &s);
	put_stat("stat", b1, s1);
	noise_read_from(&b, &c, &s);
	assert_true(a.ok && b.ok);
	assert_true(b.busy - a.busy == h);           /* 0.6 + 0.4 s: CPUs 1 and 3 only */
	assert_true(b.steal - a.steal == h / 10);
	/* this process took 0.25 s of it, in a 1 s window */
	a.own_s = 1.0;
	b.own_s = 1.25;
	a.t_ns = 1000000000ull;
	b.t_ns = 2000000000ull;
	noise_between(&a, &b, &c, &n);
	assert_true(n.wall_s == 1.0);
	/* others took 0.75 s of 2 allowed CPUs x 1 s: 37.5 % (of the 4 online
	 * ones it would be 18.75 %) */
	if (fabs(n.others_cpu_pct - 37.5) > 1e-9)
		fail_msg("others_cpu_pct %.6f, expected 37.5 (0.75 s of 2 allowed CPUs x 1 s)",
			 n.others_cpu_pct);
	assert_true(fabs(n.steal_pct - 5.0) < 1e-9);
	assert_true(n.noisy);

	/* quiet: others 0.15 s of 2 CPUs x 1 s = 7.5 %, under NOISE_BUSY_PCT
	 * (over the 4 online CPUs an error would give 3.75 %: same verdict;
	 * the share above is what tells them apart) */
	b.own_s = 1.85;
	noise_between(&a, &b, &c, &n);
	assert_true(fabs(n.others_cpu_pct - 7.5) < 1e-9);
	assert_false(n.noisy);
	/* this process took more than the CPUs show (its children's time is
	 * counted when they are waited for): others 0, never negative */
	b.own_s = 3.0;
	noise_between(&a, &b, &c, &n);
	assert_true(n.others_cpu_pct == 0);

	/* unreadable /proc/stat: unknown, never 0 */
	s.proc_stat = at("no-such-stat");
	noise_read_from(&b, &c, &s);
	assert_false(b.ok);
	noise_between(&a, &b, &c, &n);
	assert_true(isnan(n.others_cpu_pct) && isnan(n.steal_pct));
	assert_false(n.noisy);
}

/* the PPBENCH_TEST_* variables reach cpus_read() and noise_read() */
static void test_environment(void **state)
{
	(void)state;
	struct cpus c;
	put("self_cgroup", "0::/\n");
	put("cg/cpu.max", "50000 100000\n");
	setenv("PPBENCH_TEST_PROC_CGROUP", at("self_cgroup"), 1);
	setenv("PPBENCH_TEST_CGROUP_ROOT", at("cg"), 1);
	setenv("PPBENCH_TEST_CPUS_ONLINE", "8", 1);
	setenv("PPBENCH_TEST_CPUS_ALLOWED", "2,4-5", 1);
	setenv("PPBENCH_TEST_PROC_STAT", at("no-such-stat"), 1);
	cpus_read(&c);
	assert_int_equal(c.online, 8);
	assert_int_equal(c.allowed, 3);
	assert_string_equal(c.allowed_list, "2,4-5");
	assert_true(c.quota == 0.5 && c.usable == 0.5);
	struct noise_snap sn;
	noise_read(&sn, &c);
	assert_false(sn.ok);
	const struct noise_src *s = noise_src_system();
	assert_string_equal(s->proc_stat, at("no-such-stat"));
	unsetenv("PPBENCH_TEST_PROC_CGROUP");
	unsetenv("PPBENCH_TEST_CGROUP_ROOT");
	unsetenv("PPBENCH_TEST_CPUS_ONLINE");
	unsetenv("PPBENCH_TEST_CPUS_ALLOWED");
	unsetenv("PPBENCH_TEST_PROC_STAT");
	s = noise_src_system();
	assert_string_equal(s->proc_stat, "/proc/stat");
	assert_string_equal(s->proc_cgroup, "/proc/self/cgroup");
	assert_string_equal(s->cgroup_root, "/sys/fs/cgroup");
	assert_null(s->allowed);
	assert_int_equal(s->online, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_quota_below_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quota_above_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quota_nested_tightest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quota_v1_and_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_others_share_of_allowed_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_environment, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
