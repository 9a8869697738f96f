/* The run as a library (bench/run/run.h): the one loader-to-analysis adapter
 * maps every fact the analysis reads, and --repeat's figures are combined
 * from runs in memory, with no results folder to read back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis.h"
#include "loader.h"
#include "pipeline.h"
#include "repeats.h"
#include "run.h"

/* A loader result with a distinct value in every field the analysis reads. */
static void fill_result(struct loader_result *r, double *wcpu, long *wrss, char **paths,
			char **reasons)
{
	memset(r, 0, sizeof(*r));
	r->start_ns = 1000;
	r->end_ns = 9001000;
	r->images = 11;
	r->batches = 12;
	r->workers = 2;
	wcpu[0] = 0.5, wcpu[1] = 0.75;
	wrss[0] = 1301, wrss[1] = 1302;
	r->worker_cpu_s = wcpu;
	r->worker_maxrss_kib = wrss;
	r->main_cpu_s = 0.125;
	r->main_maxrss_kib = 1401;
	r->gpu_busy_ns = 15;
	r->gpu_idle_ns = 16;
	r->checksum = 0x1717;
	r->complete = 0;
	snprintf(r->stop_reason, sizeof(r->stop_reason), "worker 1 killed by SIGKILL");
	r->nskipped = 19;
	r->nerrors = 1;
	r->err_path = paths;
	r->err_reason = reasons;
	r->trace_cost_ns = 20.5;
	r->wuse_workers = 2;
	r->wuse[USE_END].cpu_s = 21;
	r->main_use.sys_s = 22;
	r->pin_copy_cpu_ns = 23;
	r->hash_ns = 24;
	r->hash_bytes = 25;
	r->gpu_copy_ns = 26;
	r->worker_loop_ns = 27;
	r->worker_ops_ns = 28;
	r->main_harness_ns = 29;
	r->pin_harness_ns = 30;
	r->pin_copy_ns = 31;
	r->gpu_model_ns = 32;
	r->max_inflight = 33;
	r->samples_moved = 34;
	r->slow_lane = 35;
	r->timeout_ns = 36;
	r->fused_regions = 37;
	r->fused_full = 38;
}

static void test_adapter_maps_every_field(void **state)
{
	(void)state;
	double wcpu[2];
	long wrss[2];
	char *paths[1] = { "a.jpg" }, *reasons[1] = { "truncated" };
	struct loader_result r;
	fill_result(&r, wcpu, wrss, paths, reasons);
	struct run_opts o = { .workers = 2, .batch_size = 4, .gpus = 3, .policy = POLICY_SPEEDY };
	struct counter_spec spec = { 0 };   /* no event: nothing counted */
	struct run_env env = { .spec = &spec };
	env.noise.others_cpu_pct = 41;
	env.noise.steal_pct = 42;
	env.noise.load1 = 43;
	env.cpus.usable = 44;
	env.noise.nice = 45;
	env.noise.group_nice = 46;
	struct pipeline pipe;
	char err[256];
	assert_int_equal(pipeline_parse(&pipe, "decode_random_resized_crop\nto_tensor\n", "test",
					err, sizeof(err)), 0);
	struct run_counted c;
	struct analysis_opts ao;
	memset(&ao, 0xa5, sizeof(ao));
	run_analysis_opts(&o, &r, &env, &pipe, &c, &ao);

	assert_int_equal(ao.start_ns, 1000);
	assert_int_equal(ao.end_ns, 9001000);
	assert_int_equal(ao.batch_size, 4);
	assert_int_equal(ao.workers, 2);
	assert_int_equal(ao.gpus, 3);
	assert_int_equal(ao.images, 11);
	assert_int_equal(ao.batches, 12);
	assert_ptr_equal(ao.worker_cpu_s, wcpu);
	assert_ptr_equal(ao.worker_maxrss_kib, wrss);
	assert_true(ao.main_cpu_s == 0.125);
	assert_int_equal(ao.main_maxrss_kib, 1401);
	assert_int_equal(ao.gpu_busy_ns, 15);
	assert_int_equal(ao.gpu_idle_ns, 16);
	assert_int_equal(ao.checksum, 0x1717);
	assert_int_equal(ao.complete, 0);
	assert_string_equal(ao.stop_reason, "worker 1 killed by SIGKILL");
	assert_int_equal(ao.nskipped, 19);
	assert_ptr_equal(ao.skipped, paths);
	assert_ptr_equal(ao.skipped_reasons, reasons);
	assert_int_equal(ao.nskipped_listed, 1);
	assert_true(ao.trace_cost_ns == 20.5);
	/* no counter event: no counter figure */
	assert_null(ao.op_counted);
	assert_null(ao.op_regions);
	assert_null(ao.op_faults);
	assert_null(ao.op_faults_after);
	assert_null(ao.op_regions_after);
	assert_int_equal(ao.counter_reads, 0);
	assert_true(ao.counter_read_ns == 0);
	assert_ptr_equal(ao.worker_use, r.wuse);
	assert_int_equal(ao.use_workers, 2);
	assert_ptr_equal(ao.main_use, &r.main_use);
	assert_int_equal(ao.pin_copy_cpu_ns, 23);
	assert_int_equal(ao.checksum_ns, 24);
	assert_int_equal(ao.checksum_bytes, 25);
	assert_int_equal(ao.gpu_copy_ns, 26);
	assert_int_equal(ao.worker_loop_ns, 27);
	assert_int_equal(ao.worker_ops_ns, 28);
	assert_int_equal(ao.main_harness_ns, 29);
	assert_int_equal(ao.pin_harness_ns, 30);
	assert_int_equal(ao.pin_copy_ns, 31);
	assert_int_equal(ao.gpu_model_ns, 32);
	assert_int_equal(ao.max_inflight, 33);
	assert_int_equal(ao.samples_moved, 34);
	assert_int_equal(ao.slow_lane, 35);
	assert_int_equal(ao.speedy_timeout_ns, 36);
	assert_int_equal(ao.speedy, 1);
	assert_int_equal(ao.fused, 1);
	assert_int_equal(ao.fused_regions, 37);
	assert_int_equal(ao.fused_full, 38);
	assert_true(ao.others_cpu_pct == 41);
	assert_true(ao.steal_pct == 42);
	assert_true(ao.load1 == 43);
	assert_true(ao.cpus_usable == 44);
	assert_int_equal(ao.have_priority, 1);
	assert_true(ao.nice == 45);
	assert_true(ao.group_nice == 46);

	/* without an environment (model, a folder read back): no noise window,
	 * no CPU count, no main-process usage; without a pipeline: not fused;
	 * a complete run has no stop reason; no usage read: none pointed to */
	r.complete = 1;
	r.wuse_workers = 0;
	o.policy = POLICY_TORCH;
	run_analysis_opts(&o, &r, NULL, NULL, NULL, &ao);
	assert_true(isnan(ao.others_cpu_pct) && isnan(ao.steal_pct) && isnan(ao.load1));
	assert_true(ao.cpus_usable == 0);
	assert_int_equal(ao.have_priority, 0);
	assert_null(ao.main_use);
	assert_null(ao.worker_use);
	assert_null(ao.stop_reason);
	assert_int_equal(ao.fused, 0);
	assert_int_equal(ao.speedy, 0);
	assert_int_equal(ao.complete, 1);
	pipeline_release(&pipe);
}

/* An analysed run in memory: images handed over in e2e_s seconds, no
 * trace, no results folder. */
static void analysed(struct run_out *out, uint64_t images, double e2e_s)
{
	double wcpu[1] = { 0.25 };
	struct run_opts o = { .workers = 1, .batch_size = 4, .gpus = 1 };
	char err[256];
	memset(out, 0, sizeof(*out));
	out->r.start_ns = 1000000000;
	out->r.end_ns = out->r.start_ns + (uint64_t)(e2e_s * 1e9);
	out->r.images = images;
	out->r.batches = images / 4;
	out->r.complete = 1;
	out->r.worker_cpu_s = wcpu;
	struct analysis_opts ao;
	run_analysis_opts(&o, &out->r, NULL, NULL, NULL, &ao);
	assert_int_equal(analysis_compute(&out->r.trace, &ao, &out->m, err, sizeof(err)), 0);
	out->r.worker_cpu_s = NULL;
	out->have_m = 1;
	out->in = (struct results_in){ .m = &out->m };
}

static int dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;
	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n == 0;
}

static void test_series_in_memory(void **state)
{
	(void)state;
	char tmp[] = "/tmp/ppbench_test_run.XXXXXX", cwd[4096];
	assert_non_null(mkdtemp(tmp));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmp), 0);   /* whatever is read or written would be here */

	struct run_out a, b;
	analysed(&a, 100, 1.0);    /* 100 images/s */
	analysed(&b, 100, 0.25);   /* 400 images/s */
	struct run_series s = { 0 };
	assert_int_equal(run_series_add(&s, &a), 0);
	assert_int_equal(run_series_add(&s, &b), 0);
	run_out_free(&a);
	run_out_free(&b);          /* the series keeps its own rows */
	assert_int_equal(s.n, 2);
	struct combined *c = malloc(sizeof(*c));
	assert_non_null(c);
	assert_int_equal(run_series_combine(&s, c), 0);
	assert_int_equal(c->n, 2);
	const struct stats_summary *ips = combined_spread(c, "images_per_s");
	assert_non_null(ips);
	assert_int_equal(ips->n, 2);
	assert_true(fabs(ips->median - 250) < 1e-9);
	assert_true(fabs(ips->lo - 100) < 1e-9);
	assert_true(fabs(ips->hi - 400) < 1e-9);
	const struct stats_summary *e2e = combined_spread(c, "e2e_s");
	assert_true(fabs(e2e->median - 0.625) < 1e-9);
	free(c);
	run_series_free(&s);

	assert_true(dir_empty(tmp));
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rmdir(tmp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adapter_maps_every_field),
		cmocka_unit_test(test_series_in_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
