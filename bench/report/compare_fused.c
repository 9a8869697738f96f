/* ppbench compare's fused what-if (compare.h): the faithful pipeline, its
 * fused counterpart (decode + random_resized_crop as one op decoding only
 * the crop) and PyTorch, repeat by repeat: images/s of the three side by
 * side, the ratios of the repeats with their intervals, the workers' CPU
 * per image each side spent and what the fused op saves, how the fused op
 * decoded, and whether its tensors are the faithful pipeline's (the
 * checksums of every repeat). The runs themselves are compare.c's. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "escape.h"
#include "log.h"
#include "metrics.h"

/* One figure over the repeats. */
struct ffig {
	const char *key, *unit, *label;
	const char *who;        /* a ratio: the side the verdict names ("fused"); NULL: not a ratio */
	double *v;              /* [n] */
	struct stats_summary s;
};

enum {
	F_IPS_A, F_IPS_F, F_IPS_T, F_Q_FA, F_Q_FT, F_Q_AT,
	F_CPU_A, F_CPU_F, F_CPU_T, F_Q_CPU, F_Q_CPU_T, F_SAVED, F_REGION, F_FULL, F_SAME, F_N
};

static const struct {
	const char *key, *unit, *label, *who;
} fdefs[F_N] = {
	{ "faithful_images_per_s", "images/s", "images/s, ppbench faithful", NULL },
	{ "fused_images_per_s", "images/s", "images/s, ppbench fused", NULL },
	{ "pytorch_images_per_s", "images/s", "images/s, PyTorch", NULL },
	{ "fused_over_faithful_images_per_s", "ratio", "fused / faithful images/s", "fused" },
	{ "fused_over_pytorch_images_per_s", "ratio", "fused / PyTorch images/s", "fused" },
	{ "faithful_over_pytorch_images_per_s", "ratio", "faithful / PyTorch images/s", "faithful" },
	{ "faithful_workers_cpu_per_image_ms", "ms", "workers' CPU per image, faithful", NULL },
	{ "fused_workers_cpu_per_image_ms", "ms", "workers' CPU per image, fused", NULL },
	{ "pytorch_workers_cpu_per_image_ms", "ms", "workers' CPU per image, PyTorch", NULL },
	{ "fused_over_faithful_workers_cpu_per_image", "ratio", "fused / faithful workers' CPU per image",
	  "fused" },
	{ "fused_over_pytorch_workers_cpu_per_image", "ratio", "fused / PyTorch workers' CPU per image",
	  "fused" },
	{ "workers_cpu_saved_per_image_ms", "ms", "workers' CPU saved per image (faithful - fused)", NULL },
	{ "fused_region_decodes", "count", "images the fused op decoded by region", NULL },
	{ "fused_full_decodes", "count", "images the fused op decoded in full", NULL },
	{ "fused_tensors_identical", "bool", "fused checksum = faithful checksum (1 yes, 0 no)", NULL },
};

static double q(double a, double b)
{
	return isfinite(a) && isfinite(b) && b != 0 ? a / b : NAN;
}

/* Every figure of every repeat, and their summaries. -1: out of memory. */
static int fused_figures(const struct compare_side *a, const struct compare_side *f,
			 const struct compare_side *t, size_t n, struct ffig *x)
{
	const struct metric *ips = metric_find("images_per_s"), *cpu = metric_find("workers_cpu_per_image_ms");
	const struct metric *reg = metric_find("fused_region_decodes"), *full = metric_find("fused_full_decodes");
	double *mem = calloc((size_t)F_N * n, sizeof(double));

	if (!mem)
		return -1;
	for (int i = 0; i < F_N; i++) {
		x[i].key = fdefs[i].key;
		x[i].unit = fdefs[i].unit;
		x[i].label = fdefs[i].label;
		x[i].who = fdefs[i].who;
		x[i].v = mem + (size_t)i * n;
	}
	for (size_t k = 0; k < n; k++) {
		double ia = metric_of_run(ips, &a[k].m), ifu = metric_of_run(ips, &f[k].m);
		double it = metric_of_run(ips, &t[k].m);
		double ca = metric_of_run(cpu, &a[k].m), cf = metric_of_run(cpu, &f[k].m);
		double *v[F_N];
		for (int i = 0; i < F_N; i++)
			v[i] = &x[i].v[k];
		*v[F_IPS_A] = ia, *v[F_IPS_F] = ifu, *v[F_IPS_T] = it;
		*v[F_Q_FA] = q(ifu, ia), *v[F_Q_FT] = q(ifu, it), *v[F_Q_AT] = q(ia, it);
		*v[F_CPU_A] = ca, *v[F_CPU_F] = cf, *v[F_CPU_T] = metric_of_run(cpu, &t[k].m);
		*v[F_Q_CPU] = q(cf, ca);
		*v[F_Q_CPU_T] = q(cf, *v[F_CPU_T]);
		*v[F_SAVED] = isfinite(ca) && isfinite(cf) ? ca - cf : NAN;
		*v[F_REGION] = metric_of_run(reg, &f[k].m);
		*v[F_FULL] = metric_of_run(full, &f[k].m);
		*v[F_SAME] = f[k].m.checksum == a[k].m.checksum;
	}
	for (int i = 0; i < F_N; i++)
		if (stats_summarise(x[i].v, n, STATS_CI_LEVEL, &x[i].s)) {
			free(mem);
			return -1;
		}
	return 0;
}

/* A ratio's cell: the median with its spread and the verdict. */
static void ratio_cell(char *out, size_t len, const struct ffig *r)
{
	compare_fmt_cell(out, len, &r->s, "%.2f");
	const char *v = compare_ratio_verdict_of(&r->s, r->who);
	if (*v && strcmp(v, "same"))
		snprintf(out + strlen(out), len - strlen(out), ", %s", v);
}

static void print_fused(FILE *o, const struct ffig *x, size_t n, const char *faithful,
			const char *fused, const struct compare_side *a, const struct compare_side *f)
{
	char c[5][160];
	int same = x[F_SAME].s.n && x[F_SAME].s.min == 1;

	fprintf(o, "\n## Fused what-if: %s against %s and PyTorch\n\n", fused, faithful);
	fprintf(o, "%s: decode + random_resized_crop as one op that decodes only the crop (as DALI's "
		"image_random_crop), run as a third side with the same options and seed, %s\n\n",
		fused, n > 1 ? "between the other two in each repeat (ppbench, fused, PyTorch; "
		"then PyTorch, fused, ppbench)" : "after ppbench");
	fprintf(o, "| figure | ppbench faithful | ppbench fused | PyTorch | fused / faithful | "
		"fused / PyTorch |\n|---|---:|---:|---:|---:|---:|\n");
	static const int rows[2][5] = { { F_IPS_A, F_IPS_F, F_IPS_T, F_Q_FA, F_Q_FT },
					 { F_CPU_A, F_CPU_F, F_CPU_T, F_Q_CPU, F_Q_CPU_T } };
	static const char *const names[2] = { "images/s", "workers' CPU ms per image" };
	for (int r = 0; r < 2; r++) {
		for (int i = 0; i < 3; i++)
			compare_fmt_cell(c[i], sizeof(c[i]), &x[rows[r][i]].s, r ? "%.3f" : "%.1f");
		ratio_cell(c[3], sizeof(c[3]), &x[rows[r][3]]);
		ratio_cell(c[4], sizeof(c[4]), &x[rows[r][4]]);
		fprintf(o, "| %s | %s | %s | %s | %s | %s |\n", names[r], c[0], c[1], c[2], c[3], c[4]);
	}
	compare_fmt_cell(c[0], sizeof(c[0]), &x[F_SAVED].s, "%.3f");
	double saved = x[F_SAVED].s.median;
	fprintf(o, "\n- workers' CPU saved per image (faithful - fused, per repeat): %s ms", c[0]);
	if (isfinite(saved))
		fprintf(o, ": %.2f cores fewer per 1,000 images/s a GPU consumes", saved);
	fprintf(o, "\n");
	compare_fmt_cell(c[1], sizeof(c[1]), &x[F_REGION].s, "%.0f");
	compare_fmt_cell(c[2], sizeof(c[2]), &x[F_FULL].s, "%.0f");
	fprintf(o, "- the fused op decoded %s images by region and %s in full (a PNG, a JPEG without "
		"its EOI, or a failed region decode)\n", c[1], c[2]);
	ratio_cell(c[3], sizeof(c[3]), &x[F_Q_AT]);
	fprintf(o, "- faithful / PyTorch images/s: %s\n", c[3]);
	if (same)
		fprintf(o, "- tensors: the fused side's checksum is the faithful side's in every repeat "
			"(%016" PRIx64 "): identical tensors\n", a[0].m.checksum);
	else
		for (size_t k = 0; k < n; k++)
			if (f[k].m.checksum != a[k].m.checksum)
				fprintf(o, "- THE FUSED TENSORS DIFFER in repeat %zu: checksum %016" PRIx64
					" against the faithful %016" PRIx64 ": the fused figures are not a "
					"valid what-if\n", k + 1, f[k].m.checksum, a[k].m.checksum);
}

static int write_fused_csv(const char *path, const struct ffig *x, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "figure,unit,median,lo,hi,repeats,interval,verdict\n");
	for (int i = 0; i < F_N; i++) {
		csv_put(f, x[i].key);
		csv_put_next(f, x[i].unit);
		fputc(',', f);
		metric_put_num(f, x[i].s.median);
		fputc(',', f);
		metric_put_num(f, x[i].s.lo);
		fputc(',', f);
		metric_put_num(f, x[i].s.hi);
		fprintf(f, ",%zu,%s,%s\n", x[i].s.n, x[i].s.has_ci ? "ci95" : "min-max",
			x[i].who ? compare_ratio_verdict_of(&x[i].s, x[i].who) : "");
	}
	if (ferror(f) | fclose(f)) {
		errf(err, errlen, "cannot write '%s'", path);
		return -1;
	}
	return 0;
}

static json_t *fused_json(const struct ffig *x, size_t n, const char *faithful, const char *fused,
			  const struct compare_side *a, const struct compare_side *f)
{
	json_t *j = json_object(), *figs = json_array(), *sums = json_array();
	char h[2][20];

	json_object_set_new(j, "pipeline", json_string(fused));
	json_object_set_new(j, "faithful_pipeline", json_string(faithful));
	json_object_set_new(j, "tensors_identical", json_boolean(x[F_SAME].s.n && x[F_SAME].s.min == 1));
	for (size_t k = 0; k < n; k++) {
		snprintf(h[0], sizeof(h[0]), "%016" PRIx64, a[k].m.checksum);
		snprintf(h[1], sizeof(h[1]), "%016" PRIx64, f[k].m.checksum);
		json_array_append_new(sums, json_pack("{s:s, s:s}", "faithful", h[0], "fused", h[1]));
	}
	json_object_set_new(j, "checksums", sums);
	for (int i = 0; i < F_N; i++) {
		json_t *o = json_object(), *v = json_array();
		for (size_t k = 0; k < n; k++)
			json_array_append_new(v, isfinite(x[i].v[k]) ? json_real(x[i].v[k]) : json_null());
		json_object_set_new(o, "figure", json_string(x[i].key));
		json_object_set_new(o, "unit", json_string(x[i].unit));
		json_object_set_new(o, "definition", json_string(x[i].label));
		json_object_set_new(o, "values", v);
		json_object_set_new(o, "summary", stats_summary_json(&x[i].s));
		if (x[i].who)
			json_object_set_new(o, "verdict", json_string(compare_ratio_verdict_of(&x[i].s,
											 x[i].who)));
		json_array_append_new(figs, o);
	}
	json_object_set_new(j, "figures", figs);
	return j;
}

int compare_fused_write(const struct compare_side *a, const struct compare_side *f,
			const struct compare_side *t, size_t n, const char *faithful, const char *fused,
			const char *md_path, const char *csv_path, json_t *into, FILE *echo,
			int *identical, char *err, size_t errlen)
{
	struct ffig x[F_N];
	int rc = -1;

	if (fused_figures(a, f, t, n, x)) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	*identical = x[F_SAME].s.n && x[F_SAME].s.min == 1;
	if (echo)
		print_fused(echo, x, n, faithful, fused, a, f);
	if (md_path) {
		FILE *m = fopen(md_path, "a");
		if (!m) {
			errf(err, errlen, "cannot write '%s': %s", md_path, strerror(errno));
			goto out;
		}
		print_fused(m, x, n, faithful, fused, a, f);
		if (ferror(m) | fclose(m)) {
			errf(err, errlen, "cannot write '%s'", md_path);
			goto out;
		}
	}
	if (csv_path && write_fused_csv(csv_path, x, err, errlen))
		goto out;
	if (into)
		json_object_set_new(into, "fused", fused_json(x, n, faithful, fused, a, f));
	rc = 0;
out:
	free(x[0].v);
	return rc;
}
