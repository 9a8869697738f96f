/* ppbench model: the loader's protocol as a discrete-event model (model.h),
 * for one configuration or a worker sweep, and its validation against the
 * paper's figures (--validate). */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "knee.h"
#include "log.h"
#include "metrics.h"
#include "model.h"
#include "options.h"

#define O(f) offsetof(struct model_opts, f)
static const struct opt model_optt[] = {
	{ "workers", 'w', OPT_LIST, O(workers), "2", "LIST",
	  "worker count, or a list (\"8 12 16\"): a worker sweep with its knee", .choices = NULL },
	{ "batch", 'b', OPT_INT, O(batch_size), "128", "B", "samples per batch", .lo = 1, .hi = 65536 },
	{ "gpus", 'g', OPT_INT, O(gpus), "2", "G", "GPUs (chooses the auto step time)", .lo = 1, .hi = 1024 },
	{ "gpu-step", 0, OPT_STR, O(gpu_step), "auto", "TIME|auto|Nimg/s",
	  "step per batch: a time, the measured ResNet18/V100 table, or a throughput per GPU" , .choices = NULL },
	{ "h2d-bandwidth", 0, OPT_STR, O(h2d_s), "none", "RATE|none",
	  "host-to-device copy before each step (none: the auto step includes it)", .choices = NULL },
	{ "pin-bandwidth", 0, OPT_STR, O(pin_s), "8GB/s", "RATE|none",
	  "the pin thread's copy of each batch (none: free)", .choices = NULL },
	{ "sample-bytes", 0, OPT_SIZE, O(sample_bytes), "602112", "BYTES",
	  "one sample's output (3 x 224 x 224 float32)" , .choices = NULL },
	{ "prefetch-factor", 'P', OPT_INT, O(prefetch_factor), "2", "P", "tasks per worker in flight", .lo = 1, .hi = 1024 },
	{ "pin-memory", 0, OPT_BOOL, O(pin), "on", NULL, "a pin thread copies each batch" , .choices = NULL },
	{ "order", 0, OPT_ENUM, O(order), "inorder", NULL, "hand-over order", .choices = ORDER_CHOICES },
	{ "policy", 0, OPT_ENUM, O(policy), "torch", NULL, "loader policy",
	  .choices = POLICY_CHOICES },
	{ "speedy-timeout-pct", 0, OPT_DOUBLE, O(speedy_pct), "75", "PCT",
	  "speedy: the warm-up percentile that is the timeout", .lo = 1, .hi = 100 },
	{ "images", 'n', OPT_U64, O(images), "1281167", "N", "dataset size (ImageNet train)", .lo = 1, .hi = 1e12 },
	{ "epochs", 'e', OPT_INT, O(epochs), "1", "N", "passes over the dataset", .lo = 1, .hi = 10000 },
	{ "max-batches", 0, OPT_U64, O(max_batches), "0", "N", "stop after N batches (0: all)" , .choices = NULL },
	{ "shuffle", 0, OPT_BOOL, O(shuffle), "on", NULL, "shuffle each epoch" , .choices = NULL },
	{ "drop-last", 0, OPT_BOOL, O(drop_last), "off", NULL, "drop the last, smaller batch" , .choices = NULL },
	OPT_SEED(struct model_opts, seed, "seed of the model's draws"),
	{ "from", 0, OPT_STR, O(from), NULL, "RESULTS",
	  "costs of a measured run (ppbench run's folder): per-sample costs, or per-batch times" , .choices = NULL },
	{ "batch-ms", 0, OPT_DOUBLE, O(batch_ms), "0", "MS", "costs: per-batch mean, ms", .lo = 0, .hi = 1e9 },
	{ "batch-std", 0, OPT_DOUBLE, O(batch_std), "10", "PCT", "costs: per-batch std, % of the mean",
	  .lo = 0, .hi = 1000 },
	{ "batch-of", 0, OPT_INT, O(batch_of), "0", "B", "the batch size --batch-ms is for (0: --batch)",
	  .lo = 0, .hi = 65536 },
	{ "batch-times", 0, OPT_LIST, O(batch_times), NULL, "MS,...",
	  "costs: batch j takes the (j mod n)-th time, ms (a replay)", .choices = NULL },
	{ "sample-ms", 0, OPT_DOUBLE, O(sample_ms), "0", "MS", "costs: per-sample mean (sum of the op means), ms",
	  .lo = 0, .hi = 1e9 },
	{ "sample-cv", 0, OPT_DOUBLE, O(sample_cv), "0.2", "CV", "costs: per-sample std / mean", .lo = 0, .hi = 100 },
	{ "collate-ms", 0, OPT_DOUBLE, O(collate_ms), "0", "MS", "costs: collation per batch of --batch, ms",
	  .lo = 0, .hi = 1e9 },
	{ "batch-noise", 0, OPT_DOUBLE, O(batch_noise), "-1", "PCT",
	  "per-sample costs: spread (cv, %) of a factor common to a batch's samples (-1: --from's "
	  "estimate, 6.94 with --paper, 0 otherwise)", .lo = -1, .hi = 1000 },
	{ "paper", 0, OPT_BOOL, O(paper), "off", NULL,
	  "costs: the paper's Table II per-op means (per sample, and collation)" , .choices = NULL },
	{ "cores", 0, OPT_DOUBLE, O(cores), "0", "N", "the machine's physical cores (0: no contention)",
	  .lo = 0, .hi = 1e6 },
	{ "threads-per-core", 0, OPT_DOUBLE, O(tpc), "2", "N", "hardware threads per core", .lo = 1, .hi = 8 },
	{ "alpha", 0, OPT_DOUBLE, O(alpha), "0", "A", "contention: slowdown per further busy core", .lo = 0, .hi = 1 },
	{ "beta", 0, OPT_DOUBLE, O(beta), "0.3", "B", "contention: what a second hardware thread adds to a core",
	  .lo = 0, .hi = 1 },
	{ "smt-static", 0, OPT_BOOL, O(smt_static), "on", NULL,
	  "threads keep their place: workers sharing a core are slower for whole tasks", .choices = NULL },
	{ "main-threads", 0, OPT_DOUBLE, O(main_threads), "1", "N", "busy threads of the main process",
	  .lo = 0, .hi = 64 },
	{ "ref-workers", 0, OPT_DOUBLE, O(ref_workers), "0", "W",
	  "workers of the run the costs come from (0: --from's, or no contention in the costs)", .lo = 0, .hi = 1e6 },
	{ "fit", 0, OPT_LIST, O(fit), NULL, "W:MS,...",
	  "fit alpha and beta to per-batch means (ms) measured at worker counts" , .choices = NULL },
	{ "target-gpu-util", 0, OPT_DOUBLE, O(target_util), "0", "PCT",
	  "provisioning: the fewest workers and cores that keep the GPUs this busy (0: off)",
	  .lo = 0, .hi = 100 },
	OPT_OUT(struct model_opts, out, NULL,
		"also write each configuration as a results folder (tool \"model\") under DIR"),
	{ "validate", 0, OPT_BOOL, O(validate), "off", NULL, "compare the model with the paper's figures" , .choices = NULL },
	{ "csv", 0, OPT_BOOL, O(csv), "off", NULL, "machine-readable output (CSV, metric-table names)" , .choices = NULL },
	OPT_END
};
#undef O

static const char usage[] = "ppbench model [options]   |   ppbench model --validate [SWEEP_DIR...]";
static const char description[] =
	"A discrete-event model of the loader's protocol (the same rules as ppbench run), driven\n"
	"by costs from a measured run (--from), stated figures (--batch-ms/--batch-std,\n"
	"--sample-ms/--collate-ms) or the paper's Table II (--paper); the machine's contention\n"
	"(--cores, --threads-per-core, --alpha/--beta, or --fit). Prints the run's figures\n"
	"under the metric table's names; a worker list prints one row per count and the knee.\n"
	"--validate compares the model with the paper's Figs. 4-6, and with the measured runs\n"
	"of sweep folders of this machine when given (costs from their W = 1 run). See docs/model.md.\n"
	"Exit status: 0 done; 1 the model failed (or a validation missed); 2 a bad option.";

/* The figures printed for each configuration: metric-table names. */
static const char *const shown[] = {
	"e2e_s", "images_per_s", "ooo_pct", "stall_pct", "wait_gt_500ms_pct", "delay_gt_500ms_pct",
	"delay_avg_ms", "gpu_util_pct", "preproc_avg_ms", "preproc_std_pct", "workers_cpu_s",
};
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

static void print_header(FILE *f, int csv)
{
	fprintf(f, csv ? "workers" : "%7s", "workers");
	for (size_t i = 0; i < NSHOWN; i++)
		fprintf(f, csv ? ",%s" : " %14s", shown[i]);
	fputc('\n', f);
}

static void print_row(FILE *f, int w, const struct run_metrics *m, int csv)
{
	fprintf(f, csv ? "%d" : "%7d", w);
	for (size_t i = 0; i < NSHOWN; i++) {
		double v = metric_of_run(metric_find(shown[i]), m);
		if (csv) {
			fputc(',', f);
			metric_put_num(f, v);
		} else {
			fprintf(f, " %14.2f", v);
		}
	}
	fputc('\n', f);
}

int cmd_model(int argc, char **argv)
{
	struct model_opts o;
	char err[1024];
	int npos = 0;
	int rc = opts_prelude(model_optt, &o, argc, argv, &npos, usage, description, NULL);
	if (rc >= 0)
		return rc;
	if (npos && !o.validate) {
		error_msg("ppbench model takes no arguments (sweep folders go with --validate)");
		return EXIT_USAGE;
	}
	if (o.validate)
		return model_validate(o.csv, (const char *const *)argv + 1, (size_t)npos);
	int ws[256];
	int nw = model_parse_ints(o.workers, ws, 256, "--workers", err, sizeof(err));
	struct model_src src;
	int ref_w, src_rc = 0;
	double step;
	if (nw < 0 || model_rate_opt("--h2d-bandwidth", o.h2d_s, &o.h2d, err, sizeof(err)) ||
	    model_rate_opt("--pin-bandwidth", o.pin_s, &o.pin_bw, err, sizeof(err)) ||
	    model_step_ns(&o, &step, err, sizeof(err)) || (src_rc = model_make_src(&o, &src, &ref_w, err, sizeof(err))) < 0) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	struct model_cfg c;
	model_base_cfg(&o, &c);
	c.gpu_step_ns = step;
	c.src = &src;
	if (o.from) {
		/* what the run says of its harness: the main thread's own work,
		 * the workers' start-up, the GPU's lateness (the pin copy's
		 * bandwidth stays --pin-bandwidth's) */
		model_cfg_run_terms(&c, &src);
		c.pin_bytes_per_s = o.pin_bw;
	}
	double fit_ms = 0;
	if (o.fit && model_do_fit(&o, &c.machine, &fit_ms, err, sizeof(err))) {
		error_msg("%s", err);
		if (!src_rc)
			model_src_free(&src);
		return EXIT_USAGE;
	}
	if (src_rc == 1)
		model_src_batch_normal(&src, fit_ms, o.batch_std, o.batch_of ? (int)o.batch_of : c.batch_size);
	if (ref_w > 0)
		c.machine.ref_busy = ref_w + o.main_threads + (o.pin ? 1 : 0);
	if (o.batch_noise >= 0 && src.kind != MSRC_BATCH_NORMAL && src.kind != MSRC_BATCH_EMPIRICAL &&
	    src.kind != MSRC_BATCH_LIST)
		src.batch_noise = o.batch_noise / 100;
	if (!o.csv)
		printf("model: costs from %s; step %.2f ms per batch\n", src.what, step / 1e6);
	if (!o.csv && c.machine.cores <= 0)
		printf("machine: without contention (--cores 0)\n");
	if (!o.csv && c.machine.cores > 0)
		printf("machine: %.0f cores x %.0f threads, alpha %.5f, beta %.2f, main process %.1f "
		       "busy threads\n", c.machine.cores, c.machine.tpc, c.machine.alpha,
		       c.machine.beta, c.machine.main_threads);
	if (o.target_util > 0) {
		int rc2 = model_provision(&c, o.target_util, err, sizeof(err));
		if (rc2)
			error_msg("%s", err);
		model_src_free(&src);
		return rc2 ? EXIT_FAIL : EXIT_OK;
	}
	print_header(stdout, o.csv);
	double e2e[256];
	int ret = EXIT_OK;
	json_t *options = o.out ? opts_json(model_optt, &o) : NULL;
	for (int i = 0; i < nw; i++) {
		c.workers = ws[i];
		struct run_metrics m;
		char final[PATH_MAX + 256] = "";
		if (model_one_out(&c, &m, o.out, options, final, sizeof(final), err, sizeof(err))) {
			error_msg("%s", err);
			ret = EXIT_FAIL;
			break;
		}
		print_row(stdout, ws[i], &m, o.csv);
		if (final[0] && !o.csv)
			printf("%7s results: %s\n", "", final);
		e2e[i] = m.e2e_s;
		analysis_free(&m);
	}
	if (!ret && nw > 1 && !o.csv) {
		int knee = knee_of(ws, e2e, (size_t)nw, KNEE_GAIN_PCT);
		if (knee)
			printf("knee: %d workers (the first step that gains under %.0f %% of E2E)\n", knee,
			       KNEE_GAIN_PCT);
		else
			printf("knee: none in this range (every step gains %.0f %% of E2E or more)\n",
			       KNEE_GAIN_PCT);
	}
	json_decref(options);
	model_src_free(&src);
	return ret;
}
