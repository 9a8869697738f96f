#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <jansson.h>
#include "counters.h"
#include "emit.h"
#include "escape.h"
#include "fsutil.h"
#include "kernels.h"
#include "log.h"
#include "metrics.h"
#include "resdir.h"

#define NS_PER_MS 1e6

static void put_int(json_t *o, const char *k, json_int_t x)
{
	json_object_set_new(o, k, json_integer(x));
}

json_t *results_summary_json(const struct results_in *in)
{
	const struct run_metrics *m = in->m;
	json_t *o = json_object(), *arr, *ops;
	char hex[32];
	int bad = 0;

	if (!o)
		return NULL;
	put_int(o, "schema_version", RESULTS_SCHEMA_VERSION);
	json_object_set_new(o, "tool", json_string(in->tool ? in->tool : "ppbench"));
	json_object_set_new(o, "complete", json_boolean(m->complete && !in->write_error));
	if (!m->complete && m->stop_reason[0])
		json_object_set_new(o, "stop_reason", json_bytes(m->stop_reason));
	if (in->write_error)
		json_object_set_new(o, "write_error", json_bytes(in->write_error));
	if (!in->no_checksum) {
		snprintf(hex, sizeof(hex), "%016" PRIx64, m->checksum);
		json_object_set_new(o, "checksum", json_string(hex));
	}
	/* the ops' kernels (workers inherit the choice: PPBENCH_KERNEL or auto) */
	json_object_set_new(o, "kernels", json_string(kernels_active()->name));
	put_int(o, "batch_size", m->batch_size);
	put_int(o, "workers", m->workers);
	put_int(o, "gpus", m->gpus);
	put_int(o, "start_wall_ns", (json_int_t)m->start_ns);
	put_int(o, "end_wall_ns", (json_int_t)m->end_ns);

	/* every run figure at its path, in the table's order */
	for (size_t i = 0; i < metric_count; i++) {
		const struct metric *mt = &metric_table[i];
		if (mt->src != MSRC_RUN)
			continue;
		bad |= metric_json_put(o, mt->json, metric_json_value(mt->ctype, 1, metric_of_run(mt, m)));
	}

	arr = json_array();
	for (int i = 0; m->worker_cpu_s && i < m->workers; i++)
		json_array_append_new(arr, metric_json_value(MCT_DOUBLE, 1, m->worker_cpu_s[i]));
	bad |= metric_json_put(o, "cpu.per_worker_s", arr);
	arr = json_array();
	for (int i = 0; m->worker_maxrss_kib && i < m->workers; i++)
		json_array_append_new(arr, json_integer(m->worker_maxrss_kib[i]));
	bad |= metric_json_put(o, "memory.worker_max_rss_kib", arr);
	if (in->t && in->chrome) {
		/* what trace.json.gz keeps (emit.h): said here and in the file */
		struct chrome_sampling smp;
		chrome_trace_plan(in->t, &smp);
		bad |= metric_json_put(o, "trace.chrome", json_pack(
			"{s:s, s:b, s:I, s:I, s:I, s:I}", "file", "trace.json.gz",
			"sampled", smp.every > 1, "op_events_every_nth_batch", (json_int_t)smp.every,
			"op_events", (json_int_t)smp.sample_events,
			"op_events_kept", (json_int_t)smp.kept_sample_events,
			"max_events", (json_int_t)smp.limit_events));
	}

	ops = json_object();
	for (size_t i = 0; i < m->nops; i++) {
		const struct op_metrics *om = &m->ops[i];
		json_t *op = json_object();
		char key[64];
		int k = 1;

		snprintf(key, sizeof(key), "%s", om->name);
		while (json_object_get(ops, key))
			snprintf(key, sizeof(key), "%s#%d", om->name, ++k);
		json_object_set_new(op, "lotus_name", json_string(om->lotus_name));
		for (size_t j = 0; j < op_metric_count; j++) {
			const struct op_metric *mt = &op_metric_table[j];
			json_object_set_new(op, mt->json,
					    metric_json_value(mt->ctype, 1, op_metric_of(mt, om)));
		}
		json_object_set_new(ops, key, op);
	}
	json_object_set_new(o, "ops", ops);

	arr = json_array();
	for (size_t i = 0; i < m->nskipped_listed; i++) {
		/* file names need not be UTF-8: escaped (escape.h) */
		json_t *f = json_object();
		json_object_set_new(f, "path", json_bytes(m->skipped[i]));
		json_object_set_new(f, "reason", json_bytes(m->skipped_reason ? m->skipped_reason[i]
							    : ""));
		json_array_append_new(arr, f);
	}
	bad |= metric_json_put(o, "skipped.files", arr);

	if (json_is_object(in->blocks)) {
		const char *key;
		json_t *v;
		json_object_foreach(in->blocks, key, v) {
			json_t *have = json_object_get(o, key);
			if (json_is_object(have) && json_is_object(v))
				json_object_update(have, v);   /* figures of the table + the block's keys */
			else
				json_object_set(o, key, v);
		}
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static void csv_time(FILE *f, int64_t v)
{
	if (v != BATCH_NONE)
		fprintf(f, "%" PRId64, v);
	fputc(',', f);
}

static int close_checked(FILE *f, const char *path, char *err, size_t errlen)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

int results_write_batches_csv(const struct run_metrics *m, const char *path,
			      char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("id,worker,pid,samples,queued_ns,started_ns,finished_ns,arrived_ns,pinned_ns,"
	      "consumed_ns,preproc_ns,wait_ns,delay_ns,out_of_order\n", f);
	for (size_t i = 0; i < m->nbatches; i++) {
		const struct batch_row *r = &m->rows[i];
		fprintf(f, "%" PRId64 ",%d,%d,%u,", r->id, r->worker, r->pid, (unsigned)r->samples);
		csv_time(f, r->queued);
		csv_time(f, r->started);
		csv_time(f, r->finished);
		csv_time(f, r->arrived);
		csv_time(f, r->pinned);
		csv_time(f, r->consumed);
		csv_time(f, r->started != BATCH_NONE ? r->finished - r->started : BATCH_NONE);
		csv_time(f, r->wait_ns);
		csv_time(f, r->delay_ns);
		fprintf(f, "%d\n", r->out_of_order);
	}
	return close_checked(f, path, err, errlen);
}

int results_write_ops_csv(const struct results_in *in, const char *path, char *err,
			  size_t errlen)
{
	const struct run_metrics *m = in->m;
	FILE *f = fopen(path, "w");
	int counted = in->spec && in->cacc;

	if (!f) {
		errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("op,lotus_name", f);
	for (size_t j = 0; j < op_metric_count; j++)
		fprintf(f, ",%s", op_metric_table[j].name);
	if (counted)
		counters_csv_header(in->spec, f);
	fputc('\n', f);
	for (size_t i = 0; i < m->nops; i++) {
		const struct op_metrics *om = &m->ops[i];
		csv_put(f, om->name);
		csv_put_next(f, om->lotus_name);
		for (size_t j = 0; j < op_metric_count; j++) {
			fputc(',', f);
			metric_put_num(f, op_metric_of(&op_metric_table[j], om));
		}
		if (counted && om->trace_op >= 0 && om->regions > 0)
			counters_csv_row(in->spec, &in->cacc[om->trace_op], f);
		else if (counted)
			for (int c = 0; c < in->spec->n; c++)
				fputc(',', f);
		fputc('\n', f);
	}
	return close_checked(f, path, err, errlen);
}

uint64_t results_size_estimate(uint64_t events, uint64_t batches, int lotustrace, int chrome)
{
	/* measured here: LotusTrace about 40 bytes per event, the Chrome trace
	 * about 160, batches.csv about 120 per batch; summary, ops.csv and
	 * topology.xml under 64 KiB */
	return 65536 + 120 * batches + (lotustrace ? 40 * events : 0) + (chrome ? 160 * events : 0);
}

int results_write(const char *dir, const struct results_in *in, char *err, size_t errlen)
{
	char path[4096];
	json_t *sum;
	int rc;

	sum = results_summary_json(in);
	if (!sum) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	rc = json_dump_file(sum, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			    JSON_REAL_PRECISION(METRIC_JSON_PRECISION));
	json_decref(sum);
	if (rc < 0) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/batches.csv", dir);
	if (results_write_batches_csv(in->m, path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	if (results_write_ops_csv(in, path, err, errlen) < 0)
		return -1;
	if (in->t && in->lotustrace) {
		snprintf(path, sizeof(path), "%s/lotustrace", dir);
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
			return -1;
		}
		snprintf(path, sizeof(path), "%s/lotustrace/b%d_gpu%d", dir, in->m->batch_size,
			 in->m->gpus);
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
			return -1;
		}
		if (lotustrace_write(in->t, path, LOTUSTRACE_PREFIX, err, errlen) < 0)
			return -1;
	}
	if (in->t && in->chrome) {
		snprintf(path, sizeof(path), "%s/trace.json.gz", dir);
		if (chrome_trace_write(in->t, path, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* mkdir -p */
static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 || errno != ENOENT;
}

/* Warn about the temporary folders in root that no running process holds. */
static void list_stale(const char *root)
{
	DIR *d = opendir(root);
	if (!d)
		return;
	char names[600] = "", p[PATH_MAX];
	size_t n = 0, len = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] != '.' || l < 6 || strcmp(e->d_name + l - 4, ".tmp"))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", root, e->d_name) >= (int)sizeof(p))
			continue;
		if (results_dir_held(p) == 0) {   /* no process writes it (resdir.h) */
			if (n < 5 && len < sizeof(names))
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s'%s'",
							n ? ", " : "", e->d_name);
			n++;
		}
	}
	closedir(d);
	if (n)
		warn_msg("%zu temporary folder%s in '%s' left by runs that did not finish (killed, or "
		     "a crash): %s%s; they hold no complete result (ppbench ls --clean removes them)", n,
		     n == 1 ? "" : "s", root, names, n > 5 ? ", ..." : "");
}

/* The longest path a results folder holds below itself: lotustrace/
 * bB_gpuG/lotustrace_log_ppbench_worker_PID is about 80 bytes. */
#define RESULTS_INNER_MAX 128

int results_path_check(const char *root, const char *tag, size_t suffix_len,
		       char *err, size_t errlen)
{
	size_t tl = (tag ? strlen(tag) : 0) + suffix_len;
	if (results_tag_check(tag, err, errlen))
		return -1;
	if (tl > RESULTS_TAG_MAX) {
		errf(err, errlen, "--tag is %zu bytes%s: a results folder's name holds at most %d "
		     "(the UTC time and a suffix take the rest of the system's %d)", tl,
		     suffix_len ? " with the repeat's suffix" : "", RESULTS_TAG_MAX, NAME_MAX);
		return -1;
	}
	/* root/.UTC-tag-NNNN.partial/inner */
	size_t longest = strlen(root) + 2 + 15 + 1 + tl + 5 + 8 + 1 + RESULTS_INNER_MAX;
	if (longest >= PATH_MAX) {
		errf(err, errlen, "--out is %zu bytes long: the results' files below it would have "
		     "paths of up to %zu bytes, over the system's limit of %d (PATH_MAX); give a "
		     "shorter --out", strlen(root), longest, PATH_MAX);
		return -1;
	}
	return 0;
}

int results_dir_begin(const char *root, const char *tag, char *tmp, size_t tmplen,
		      char *name, size_t namelen, char *err, size_t errlen)
{
	char base[256], cand[300], final[4096];

	if (results_tag_check(tag, err, errlen))
		return -1;
	if (mkdir_out(root, err, errlen) < 0)
		return -1;
	list_stale(root);
	results_dir_name(base, sizeof(base), NULL, tag);
	for (int k = 1; k < 10000; k++) {
		if (k == 1)
			snprintf(cand, sizeof(cand), "%s", base);
		else
			snprintf(cand, sizeof(cand), "%s-%d", base, k);
		snprintf(final, sizeof(final), "%s/%s", root, cand);
		if (exists(final))
			continue;
		snprintf(tmp, tmplen, "%s/.%s.tmp", root, cand);
		if (mkdir(tmp, 0777) < 0) {
			if (errno == EEXIST)
				continue;
			errf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
			return -1;
		}
		snprintf(name, namelen, "%s", cand);
		results_dir_hold(tmp);
		return 0;
	}
	errf(err, errlen, "cannot create a results folder '%s/%s': every name is taken", root, base);
	return -1;
}

int results_dir_commit(const char *root, const char *tmp, const char *name,
		       char *final_path, size_t finallen, char *err, size_t errlen)
{
	for (int k = 1; k < 10000; k++) {
		if (k == 1)
			snprintf(final_path, finallen, "%s/%s", root, name);
		else
			snprintf(final_path, finallen, "%s/%s-%d", root, name, k);
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final_path, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EEXIST)
			continue;
		if (errno == EINVAL || errno == ENOSYS) {
			/* no RENAME_NOREPLACE on this filesystem: check, then rename */
			if (exists(final_path))
				continue;
			if (rename(tmp, final_path) == 0)
				return 0;
		}
		errf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, final_path,
			strerror(errno));
		return -1;
	}
	errf(err, errlen, "cannot rename '%s': every name is taken", tmp);
	return -1;
}

static void human_time(char *out, size_t n, double ns)
{
	if (ns >= 1e9)
		snprintf(out, n, "%.3f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(out, n, "%.2f ms", ns / 1e6);
	else
		snprintf(out, n, "%.1f us", ns / 1e3);
}

void results_print_human(FILE *f, const struct run_metrics *m)
{
	char a[32], b[32], c[32], d[32];

	fprintf(f, "%s: %" PRIu64 " images in %" PRIu64 " batches, %.3f s, %.1f images/s\n",
		m->complete ? "complete" : "INCOMPLETE", m->images, m->batches, m->e2e_s,
		m->images_per_s);
	if (!m->complete && m->stop_reason[0])
		fprintf(f, "stopped: %s\n", m->stop_reason);
	fprintf(f, "checksum %016" PRIx64 ", %" PRIu64 " files skipped\n", m->checksum, m->nskipped);
	if (m->nops) {
		fprintf(f, "%-24s %9s %9s %9s %9s %9s %9s %9s %7s %7s\n", "op", "count", "mean ms",
			"p50 ms", "p90 ms", "p99 ms", "max ms", "span s", "<10ms%", "<100us%");
		for (size_t i = 0; i < m->nops; i++) {
			const struct op_metrics *om = &m->ops[i];
			fprintf(f, "%-24s %9zu %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.1f %7.1f\n",
				om->name, om->st.n, om->st.mean / NS_PER_MS, om->st.p50 / NS_PER_MS,
				om->st.p90 / NS_PER_MS, om->st.p99 / NS_PER_MS,
				om->st.max / NS_PER_MS, om->span_s, om->under_10ms_pct,
				om->under_100us_pct);
		}
	}
	fprintf(f, "cpu: workers %.3f s on a CPU (rusage), main %.3f s; ops' wall spans %.3f s",
		m->workers_cpu_s, m->main_cpu_s, m->ops_span_s);
	if (!isnan(m->ops_oncpu_s))
		fprintf(f, ", of which on a CPU %.3f s", m->ops_oncpu_s);
	fputc('\n', f);
	if (isfinite(m->run_cpu_ms_per_image))
		fprintf(f, "outside the loop (main process): set-up %.3f s (the batch slots mapped and "
			"populated, locked with pin memory), teardown %.3f s; with them, CPU %.3f ms per "
			"image\n",
			m->main_setup_cpu_s, m->main_teardown_cpu_s, m->run_cpu_ms_per_image);
	if (m->preproc_all.n) {
		human_time(a, sizeof(a), m->preproc.mean);
		human_time(b, sizeof(b), m->preproc_iqr_ns);
		fprintf(f, "batch preprocessing: mean %s, std %.2f %%, IQR %s (%zu batches, %zu low tail cut)\n",
			a, m->preproc_std_pct, b, m->preproc_all.n, m->preproc_dropped);
	}
	if (m->wait_events) {
		fprintf(f, "out of order: %.1f %% (%zu of %zu batches); stall: %.1f %% of E2E (%.3f s waiting)\n",
			m->ooo_pct, m->ooo_batches, m->wait_events, m->stall_pct, m->wait_total_s);
		human_time(a, sizeof(a), m->wait.p50);
		human_time(b, sizeof(b), m->wait.p90);
		human_time(c, sizeof(c), m->wait.max);
		fprintf(f, "wait (in order): p50 %s, p90 %s, max %s; > 500 ms: %.1f %% of batches\n",
			a, b, c, m->wait_over_500ms_pct);
	}
	if (m->delay.n) {
		human_time(a, sizeof(a), m->delay.p50);
		human_time(b, sizeof(b), m->delay.p90);
		human_time(c, sizeof(c), m->delay.max);
		human_time(d, sizeof(d), m->delay.mean);
		fprintf(f, "delay: mean %s, p50 %s, p90 %s, max %s; > 500 ms: %.1f %% of batches\n",
			d, a, b, c, m->delay_over_500ms_pct);
	}
	fprintf(f, "gpu: busy %.3f s, idle %.3f s, utilization %.1f %%\n", m->gpu_busy_s,
		m->gpu_idle_s, m->gpu_util_pct);
	if (isfinite(m->harness_us)) {
		fprintf(f, "per sample (CPU): harness %.3f us (start-up %.3f, counters %.3f, checksum "
			"%.3f, workers %.3f, main %.3f) + pin copy %.3f us, pipeline %.3f us; harness / "
			"pipeline %.3g\n", m->harness_us, m->harness_startup_us, m->harness_counters_us,
			m->harness_checksum_us, m->harness_workers_us, m->harness_main_us, m->pin_copy_us,
			m->pipeline_us, m->harness_ratio);
	}
	if (isfinite(m->workers_faults_per_image)) {
		fprintf(f, "per image: CPU %.3f ms (process tree); system %.3f ms workers, %.3f ms main; "
			"page faults %.1f workers (after the first batch %.2f), %.1f main\n",
			m->tree_cpu_ms_per_image, m->workers_sys_ms_per_image, m->main_sys_ms_per_image,
			m->workers_faults_per_image, m->workers_faults_after_per_image,
			m->main_faults_per_image);
	}
	if (m->trace_dropped)
		fprintf(f, "trace: %" PRIu64 " events dropped (buffers full)\n", m->trace_dropped);
}
