/* Topology summary and pin plans on synthetic hwloc topologies (two
 * packages with SMT, one package without), against expected plans; binding
 * on this machine and its failure on a topology that is not this machine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "topology.h"

/* Intel-style numbering: the second thread of core c of package p is CPU
 * 4p + c + 8 (scripts/fixtures_topology.py) */
#define T2S "xml:tests/fixtures/topology/2s_smt.xml"
/* hwloc's synthetic numbering: threads of a core are consecutive */
#define T2S_SEQ "pack:2 core:4 pu:2"
#define T1S "pack:1 core:4 pu:1"

static int load(struct topo *t, const char *src, char *err, size_t n)
{
	if (!strncmp(src, "xml:", 4))
		return topo_load_xml(t, src + 4, err, n);
	return topo_load_synthetic(t, src, err, n);
}

static void fail_row(int line, const char *what)
{
	print_error("row at line %d: %s\n", line, what);
	fail();
}

static void workers_list(const struct pin_plan *p, char *out, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	for (int i = 0; i < p->workers && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%d", i ? "," : "", p->worker[i].pu_os);
}

static void test_plans(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *topo, *pin;
		int workers;
		const char *want_workers;
		int main, pin_thread, oversubscribed, shared;
	} rows[] = {
		/* two packages, SMT, Intel numbering */
		{ __LINE__, T2S, "compact", 4, "0,8,1,9", 2, 10, 0, 0 },
		{ __LINE__, T2S, "compact", 1, "0", 8, 1, 0, 0 },
		{ __LINE__, T2S, "compact", 0, "", 0, 8, 0, 0 },
		{ __LINE__, T2S, "scatter", 4, "0,4,1,5", 2, 6, 0, 0 },
		{ __LINE__, T2S, "scatter", 8, "0,4,1,5,2,6,3,7", 8, 12, 0, 0 },
		{ __LINE__, T2S, "scatter", 15, "0,4,1,5,2,6,3,7,8,12,9,13,10,14,11", 15, 15, 0, 1 },
		{ __LINE__, T2S, "compact", 16, "0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15", -1, -1, 0, 0 },
		{ __LINE__, T2S, "compact", 18, "0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15,0,8", -1, -1, 1, 0 },
		{ __LINE__, T2S, "3,0-1", 4, "3,0,1,3", 8, 9, 1, 0 },
		{ __LINE__, T2S, "12-15", 2, "12,13", 0, 8, 0, 0 },
		{ __LINE__, T2S, "none", 3, "-1,-1,-1", -1, -1, 0, 0 },
		/* two packages, SMT, sequential numbering */
		{ __LINE__, T2S_SEQ, "compact", 4, "0,1,2,3", 4, 5, 0, 0 },
		{ __LINE__, T2S_SEQ, "scatter", 4, "0,8,2,10", 4, 12, 0, 0 },
		{ __LINE__, T2S_SEQ, "scatter", 10, "0,8,2,10,4,12,6,14,1,9", 3, 11, 0, 0 },
		/* one package, no SMT */
		{ __LINE__, T1S, "compact", 2, "0,1", 2, 3, 0, 0 },
		{ __LINE__, T1S, "scatter", 2, "0,1", 2, 3, 0, 0 },
		{ __LINE__, T1S, "scatter", 3, "0,1,2", 3, 3, 0, 1 },
		{ __LINE__, T1S, "compact", 4, "0,1,2,3", -1, -1, 0, 0 },
		{ __LINE__, T1S, "compact", 5, "0,1,2,3,0", -1, -1, 1, 0 },
		{ __LINE__, T1S, "1,3", 2, "1,3", 0, 2, 0, 0 },
		{ __LINE__, T1S, "0-3", 2, "0,1", -1, -1, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct topo t;
		struct pin_req r;
		struct pin_plan p;
		char err[256], got[256];
		if (load(&t, rows[i].topo, err, sizeof(err)))
			fail_row(rows[i].line, err);
		if (pin_parse(rows[i].pin, &r, err, sizeof(err)))
			fail_row(rows[i].line, err);
		if (pin_plan_compute(&t, &r, rows[i].workers, &p, err, sizeof(err)))
			fail_row(rows[i].line, err);
		workers_list(&p, got, sizeof(got));
		if (strcmp(got, rows[i].want_workers)) {
			print_error("workers: got %s, want %s\n", got, rows[i].want_workers);
			fail_row(rows[i].line, "worker CPUs");
		}
		if (p.main.pu_os != rows[i].main || p.pin.pu_os != rows[i].pin_thread) {
			print_error("main %d pin %d\n", p.main.pu_os, p.pin.pu_os);
			fail_row(rows[i].line, "main / pin thread CPUs");
		}
		if (p.oversubscribed != rows[i].oversubscribed)
			fail_row(rows[i].line, "oversubscribed");
		if (p.main.shared != rows[i].shared)
			fail_row(rows[i].line, "main and pin thread sharing");
		if (r.policy != PIN_NONE && p.main.pu_os < 0 && !strstr(p.note, "not bound"))
			fail_row(rows[i].line, "note on main and pin thread");
		pin_plan_free(&p);
		topo_release(&t);
	}
}

static void test_plan_slots(void **state)
{
	(void)state;
	struct topo t;
	struct pin_req r;
	struct pin_plan p;
	char err[256], line[256];
	assert_int_equal(topo_load_xml(&t, "tests/fixtures/topology/2s_smt.xml", err, sizeof(err)), 0);
	assert_int_equal(pin_parse("scatter", &r, err, sizeof(err)), 0);
	assert_int_equal(pin_plan_compute(&t, &r, 2, &p, err, sizeof(err)), 0);
	/* worker 1 is on CPU 4: package 1, its first core, NUMA node 1 */
	assert_int_equal(p.worker[1].pu_os, 4);
	assert_int_equal(p.worker[1].package, 1);
	assert_int_equal(p.worker[1].core, 4);
	assert_int_equal(p.worker[1].numa, 1);
	assert_int_equal(p.worker[1].pu, 8);
	assert_ptr_equal(pin_slot_of(&p, ROLE_GPU, 0), &p.main);
	assert_ptr_equal(pin_slot_of(&p, ROLE_PIN, 0), &p.pin);
	assert_null(pin_slot_of(&p, ROLE_WORKER, 2));
	pin_plan_format(&p, line, sizeof(line));
	assert_string_equal(line, "workers -> CPUs 0,4; main -> 1; pin thread -> 5");

	int pinned[2] = { 1, 0 };
	json_t *j = pin_plan_json(&p, pinned, 1, -1);
	assert_string_equal(json_string_value(json_object_get(j, "policy")), "scatter");
	json_t *w1 = json_array_get(json_object_get(j, "worker"), 1);
	assert_int_equal(json_integer_value(json_object_get(w1, "cpu")), 4);
	assert_true(json_is_false(json_object_get(w1, "pinned")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "pin_thread"), "pinned")));
	json_decref(j);

	/* binding on a topology that is not this machine fails: a warning */
	int rc = pin_apply_self(&p, ROLE_WORKER, 0, err, sizeof(err));
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "cannot bind worker 0 to CPU 0"));
	assert_non_null(strstr(err, "not this machine's"));
	assert_int_equal(pin_apply_self(&p, ROLE_WORKER, 7, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not in the pin plan"));
	pin_plan_free(&p);

	/* a CPU that is not there */
	assert_int_equal(pin_parse("0,16", &r, err, sizeof(err)), 0);
	assert_int_equal(pin_plan_compute(&t, &r, 2, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "--pin: CPU 16 is not in this machine (CPUs 0-15)");

	/* none: nobody bound, and that is not a failure */
	assert_int_equal(pin_parse("none", &r, err, sizeof(err)), 0);
	assert_int_equal(pin_plan_compute(&t, &r, 2, &p, err, sizeof(err)), 0);
	assert_int_equal(pin_apply_self(&p, ROLE_MAIN, 0, err, sizeof(err)), 1);
	pin_plan_format(&p, line, sizeof(line));
	assert_string_equal(line, "not bound (--pin none)");
	pin_plan_free(&p);
	topo_release(&t);
}

static void test_parse(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *s;
		int ok, policy, ncpus;
		const char *want;   /* error text, or the first CPUs */
	} rows[] = {
		{ __LINE__, "none", 1, PIN_NONE, 0, "" },
		{ __LINE__, "compact", 1, PIN_COMPACT, 0, "" },
		{ __LINE__, "scatter", 1, PIN_SCATTER, 0, "" },
		{ __LINE__, "0", 1, PIN_LIST, 1, "0" },
		{ __LINE__, "4-6,1", 1, PIN_LIST, 4, "4,5,6,1" },
		{ __LINE__, "", 0, 0, 0, "is not none, compact, scatter or a CPU list" },
		{ __LINE__, "compactx", 0, 0, 0, "is not none, compact" },
		{ __LINE__, "1-", 0, 0, 0, "'1-' is not" },
		{ __LINE__, "-1", 0, 0, 0, "'-1' is not" },
		{ __LINE__, "1,,2", 0, 0, 0, "'1,,2' is not" },
		{ __LINE__, "1,", 0, 0, 0, "'1,' is not" },
		{ __LINE__, "3-1", 0, 0, 0, "range '3-1' goes down" },
		{ __LINE__, "1,0-2", 0, 0, 0, "CPU 1 is listed twice" },
		{ __LINE__, "0-99999999", 0, 0, 0, "is not" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pin_req r;
		char err[256] = "";
		int rc = pin_parse(rows[i].s, &r, err, sizeof(err));
		if (!rows[i].ok) {
			if (rc != -1 || !strstr(err, rows[i].want) || strncmp(err, "--pin: ", 7))
				fail_row(rows[i].line, err);
			continue;
		}
		if (rc || (int)r.policy != rows[i].policy || r.ncpus != rows[i].ncpus)
			fail_row(rows[i].line, "parsed value");
		char got[64] = "";
		size_t len = 0;
		for (int k = 0; k < r.ncpus; k++)
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%d", k ? "," : "", r.cpus[k]);
		if (strcmp(got, rows[i].want))
			fail_row(rows[i].line, got);
	}
}

static void test_summary(void **state)
{
	(void)state;
	struct topo t;
	struct topo_summary s;
	char err[256];
	assert_int_equal(topo_load_xml(&t, "tests/fixtures/topology/2s_smt.xml", err, sizeof(err)), 0);
	topo_summary(&t, &s);
	assert_string_equal(s.cpu_model, "Synthetic Xeon 2x4c SMT");
	assert_int_equal(s.packages, 2);
	assert_int_equal(s.cores, 8);
	assert_int_equal(s.pus, 16);
	assert_int_equal(s.numa_nodes, 2);
	assert_int_equal(s.smt, 2);
	assert_string_equal(s.cpus, "0-15");
	assert_int_equal(s.ncaches, 3);
	assert_int_equal(s.cache[0].level, 1);
	assert_string_equal(s.cache[0].kind, "data");
	assert_int_equal(s.cache[0].size_bytes, 32768);
	assert_int_equal(s.cache[0].count, 8);
	assert_int_equal(s.cache[0].pus_sharing, 2);
	assert_int_equal(s.cache[2].level, 3);
	assert_int_equal(s.cache[2].size_bytes, 16 << 20);
	assert_int_equal(s.cache[2].count, 2);
	assert_int_equal(s.cache[2].pus_sharing, 8);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	topo_print_caches(&s, f, "  ");
	fclose(f);
	assert_non_null(strstr(buf, "  L3 16 MiB x2, shared by 8 PUs, 64-byte lines\n"));
	assert_non_null(strstr(buf, "  L1d 32 KiB x8, shared by 2 PUs"));
	free(buf);

	json_t *j = topo_json(&s);
	assert_int_equal(json_integer_value(json_object_get(j, "pus")), 16);
	assert_int_equal(json_array_size(json_object_get(j, "caches")), 3);
	json_decref(j);

	/* export and read back */
	char path[] = "/tmp/ppbench-topo-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(topo_export_xml(&t, path, err, sizeof(err)), 0);
	topo_release(&t);
	assert_int_equal(topo_load_xml(&t, path, err, sizeof(err)), 0);
	struct topo_summary s2;
	topo_summary(&t, &s2);
	assert_memory_equal(&s, &s2, sizeof(s));
	topo_release(&t);
	unlink(path);

	assert_int_equal(topo_load_synthetic(&t, T1S, err, sizeof(err)), 0);
	topo_summary(&t, &s);
	assert_int_equal(s.packages, 1);
	assert_int_equal(s.cores, 4);
	assert_int_equal(s.pus, 4);
	assert_int_equal(s.smt, 1);
	topo_release(&t);

	assert_int_equal(topo_load_synthetic(&t, "pack:2 bogus:3", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad synthetic topology 'pack:2 bogus:3'"));
	assert_int_equal(topo_load_xml(&t, "tests/fixtures/topology/missing.xml", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot read topology 'tests/fixtures/topology/missing.xml'"));
}

struct bind_arg {
	const struct pin_plan *p;
	int rc;
	char err[256];
	cpu_set_t after;
};

static void *bind_thread(void *v)
{
	struct bind_arg *a = v;
	a->rc = pin_apply_self(a->p, ROLE_WORKER, 0, a->err, sizeof(a->err));
	sched_getaffinity(0, sizeof(a->after), &a->after);
	return NULL;
}

static void test_bind_here(void **state)
{
	(void)state;
	struct topo t;
	struct topo_summary s;
	struct pin_req r;
	struct pin_plan p;
	char err[256];
	assert_int_equal(topo_load(&t, err, sizeof(err)), 0);
	assert_true(t.this_system);
	topo_summary(&t, &s);
	assert_true(s.pus >= 1 && s.cores >= 1 && s.packages >= 1);
	assert_int_equal(pin_parse("scatter", &r, err, sizeof(err)), 0);
	assert_int_equal(pin_plan_compute(&t, &r, 1, &p, err, sizeof(err)), 0);
	struct bind_arg a = { .p = &p };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, bind_thread, &a), 0);
	pthread_join(th, NULL);
	if (a.rc)
		print_error("%s\n", a.err);
	assert_int_equal(a.rc, 0);
	assert_int_equal(CPU_COUNT(&a.after), 1);
	assert_true(CPU_ISSET(p.worker[0].pu_os, &a.after));
	pin_plan_free(&p);
	topo_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_plans),
		cmocka_unit_test(test_plan_slots),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_bind_here),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
