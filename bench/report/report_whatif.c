/* The report's fused what-if: sweep.json's "fused_whatif" (measured by the
 * sweep before its runs, bench/studies/whatif.h: one thread, the faithful
 * pipeline and its fused counterpart over the same images) turned into the
 * CPU cores a user would need, and save, per GPU at the sweep's GPU
 * demand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "doc.h"
#include "fsutil.h"
#include "metrics.h"
#include "repeats.h"
#include "report.h"
#include "stats.h"

#define WHATIF_MAX_ROUNDS 1000
#define WHATIF_MAX_CONFIGS 64

/* The per-round values of o[key].values, x scale, summarised. n: values. */
static size_t whatif_values(json_t *o, const char *key, double scale, double *v,
			    struct stats_summary *s)
{
	json_t *a = json_object_get(json_object_get(o, key), "values");
	size_t n = 0;
	for (size_t i = 0; i < json_array_size(a) && n < WHATIF_MAX_ROUNDS; i++) {
		json_t *x = json_array_get(a, i);
		v[n++] = json_is_number(x) ? json_number_value(x) * scale : NAN;
	}
	if (stats_summarise(v, n, STATS_CI_LEVEL, s))
		s->n = 0;
	return n;
}

void report_whatif_cell(json_t *o, const char *key, double scale, const char *fmt, char *out,
			size_t n)
{
	static double v[WHATIF_MAX_ROUNDS];
	struct stats_summary s;
	whatif_values(o, key, scale, v, &s);
	stats_format(out, n, &s, fmt);
	/* a saving whose interval holds 0 is not shown to be one */
	if (strstr(key, "saved") && s.n > 1 && s.lo <= 0 && s.hi >= 0)
		snprintf(out + strlen(out), n - strlen(out), ", within noise");
}

double report_gpu_step_s(const struct sweep *s, int p, int b, int g)
{
	for (size_t i = 0; i < s->nrows; i++) {
		const struct sweep_row *r = &s->rows[i];
		char path[4096];
		if (r->part != p || r->batch_size != b || r->gpus != g || !sweep_row_ok(r))
			continue;
		sweep_run_path(s, r, "summary.json", path, sizeof(path));
		json_t *sum = json_load_regular(path, NULL, 0);
		double ns = metric_json_get(sum, "options.gpu_step_ns");
		json_decref(sum);
		if (isfinite(ns))
			return ns / 1e9;
	}
	return NAN;
}

/* The measurement itself: a paragraph. */
static void whatif_measured(struct doc *d, json_t *w)
{
	char fa[96], fu[96], sv[96], q[96];
	const char *hdr = "The fused what-if:";

	report_whatif_cell(w, "faithful_cpu_ms_per_image", 1, "%.3f", fa, sizeof(fa));
	report_whatif_cell(w, "fused_cpu_ms_per_image", 1, "%.3f", fu, sizeof(fu));
	report_whatif_cell(w, "saved_cpu_ms_per_image", 1, "%.3f", sv, sizeof(sv));
	report_whatif_cell(w, "fused_over_faithful_images_per_s", 1, "%.2f", q, sizeof(q));
	doc_lead(d, "whatif", hdr, "%s beside %s, measured before the sweep's runs in one "
		 "thread over the first %d images of the dataset, %d alternating passes of each "
		 "with the same seeds (each figure the median over the passes with its 95 %% "
		 "interval in brackets). CPU time per image (the thread's user + system time over "
		 "a pass, descheduled time left out: the ops and each tensor's checksum): %s ms "
		 "faithful, %s ms fused, %s ms saved; fused / faithful images/s %s. "
		 "Of those images the fused op decoded %d by region and %d in full (a PNG, a JPEG "
		 "without its EOI, a failed region decode).",
		 jget_str(w, "fused_pipeline", "?"), jget_str(w, "faithful_pipeline", "?"),
		 jint(w, "images", 0), jint(w, "rounds", 0), fa, fu, sv, q,
		 jint(w, "region_decodes", 0), jint(w, "full_decodes", 0));
	json_t *nz = json_object_get(w, "noise");
	if (json_is_true(json_object_get(nz, "noisy")))
		doc_p(d, "NOISY: other processes took %.0f %% of the CPUs while it was measured; the "
			 "CPU times leave descheduled time out, but caches and memory bandwidth were "
			 "shared.", metric_json_get(nz, "others_cpu_pct"));
	if (json_is_true(json_object_get(w, "tensors_identical")))
		doc_p(d, "Tensors: identical (checksum %s on both): the fused pipeline computes "
			 "exactly what the faithful one does.", jget_str(w, "faithful_checksum", "?"));
	else
		doc_p(d, "THE TENSORS DIFFER (checksums %s faithful, %s fused): the fused figures "
			 "below are not a valid what-if.", jget_str(w, "faithful_checksum", "?"),
			 jget_str(w, "fused_checksum", "?"));
}

const char *const report_whatif_demand_hdr[REPORT_WHATIF_DEMAND_COLS] = {
	"batch", "GPUs", "GPU step (ms)", "images/s one GPU consumes", "cores per GPU, faithful",
	"cores per GPU, fused", "cores saved per GPU",
};

void report_whatif_demand_cells(json_t *w, int b, int g, double step_s,
				char (*c)[REPORT_WHATIF_CELL])
{
	int known = isfinite(step_s) && step_s > 0;
	double demand = known ? (double)b / (step_s * g) : 1000;
	double k = demand / 1e3;   /* cores = images/s x s per image = demand x ms / 1000 */

	snprintf(c[0], REPORT_WHATIF_CELL, "%d", b);
	snprintf(c[1], REPORT_WHATIF_CELL, "%d", g);
	if (known)
		snprintf(c[2], REPORT_WHATIF_CELL, "%.1f", step_s * 1e3);
	else
		snprintf(c[2], REPORT_WHATIF_CELL, "%s", isfinite(step_s) ? "0 (no GPU time)" : "unknown");
	if (known)
		snprintf(c[3], REPORT_WHATIF_CELL, "%.0f", demand);
	else
		snprintf(c[3], REPORT_WHATIF_CELL, "per 1,000");
	report_whatif_cell(w, "faithful_cpu_ms_per_image", k, "%.2f", c[4], REPORT_WHATIF_CELL);
	report_whatif_cell(w, "fused_cpu_ms_per_image", k, "%.2f", c[5], REPORT_WHATIF_CELL);
	report_whatif_cell(w, "saved_cpu_ms_per_image", k, "%.2f", c[6], REPORT_WHATIF_CELL);
}

/* The (batch, GPUs) pairs of part p's ok runs, in first-seen order. */
static size_t whatif_configs(const struct sweep *s, int p, int (*bg)[2], size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nrows && n < max; i++) {
		const struct sweep_row *r = &s->rows[i];
		size_t j = 0;
		if (r->part != p || !sweep_row_ok(r))
			continue;
		while (j < n && !(bg[j][0] == r->batch_size && bg[j][1] == r->gpus))
			j++;
		if (j == n) {
			bg[n][0] = r->batch_size;
			bg[n][1] = r->gpus;
			n++;
		}
	}
	return n;
}

void report_whatif_intro(struct doc *d)
{
	doc_h(d, 2, "What-if: a fused crop-decode");
	doc_p(d, "DALI (decoders.image_random_crop) and tf.data (decode_and_crop_jpeg) "
		 "decode only the region RandomResizedCrop keeps. ppbench's "
		 "decode_random_resized_crop does the same with the same random draws and "
		 "the same tensors. This is a what-if from a single-threaded measurement, "
		 "not a run of the sweep: the cores a GPU needs are the images/s it "
		 "consumes (batch / (GPU step x GPUs)) times the CPU seconds per image of "
		 "one thread, and the cores saved are that demand times the seconds the "
		 "fused op saves per image; contention between workers, the loader and "
		 "the harness come on top.");
}

void report_whatif_section(struct doc *d, const struct sweep *s)
{
	int head = 0;

	for (size_t p = 0; p < s->nparts; p++) {
		json_t *w = json_object_get(s->parts[p].doc, "fused_whatif");
		int bg[WHATIF_MAX_CONFIGS][2];
		if (!json_is_object(w))
			continue;
		if (!head++)
			report_whatif_intro(d);
		if (s->nparts > 1)
			doc_h(d, 3, s->parts[p].name);
		whatif_measured(d, w);
		size_t n = whatif_configs(s, (int)p, bg, WHATIF_MAX_CONFIGS);
		if (!n) {
			doc_p(d, "No run of the sweep finished, so its GPU demand is not known: per "
				 "1,000 images/s, the cores needed are the ms per image above.");
			continue;
		}
		doc_row(d, report_whatif_demand_hdr, REPORT_WHATIF_DEMAND_COLS, 1);
		for (size_t i = 0; i < n; i++) {
			char c[REPORT_WHATIF_DEMAND_COLS][REPORT_WHATIF_CELL];
			report_whatif_demand_cells(w, bg[i][0], bg[i][1],
						   report_gpu_step_s(s, (int)p, bg[i][0], bg[i][1]), c);
			doc_row_cells(d, c[0], sizeof(c[0]), REPORT_WHATIF_DEMAND_COLS);
		}
		doc_table_end(d);
	}
}
