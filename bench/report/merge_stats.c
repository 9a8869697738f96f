/* ppbench merge's figures with their spread (merge.h): one machine at one
 * configuration, its repeats combined by the metric table's rule
 * (bench/results/repeats.c), the noise guard's marks, and a ratio between
 * two machines judged on the two sides' intervals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "merge.h"
#include "metrics.h"
#include "repeats.h"
#include "report.h"

/* one run's figure per image (ms), NaN when not known */
static double per_image_ms(double s, double images)
{
	return isfinite(s) && images > 0 ? 1e3 * s / images : NAN;
}

int merge_row_noisy(const struct sweep_row *r)
{
	return r->others_cpu_pct > REPORT_BUSY_PCT || r->steal_pct > REPORT_BUSY_PCT;
}

int merge_point_of(const struct sweep_row *rows, size_t n, int w, int b, int g, int cpus,
		   const char (*ops)[40], size_t nops, struct merge_point *p)
{
	struct sweep_row *cp = calloc(n ? n : 1, sizeof(*cp));
	const struct sweep_row **rep = calloc(n ? n : 1, sizeof(*rep));
	double *v = calloc(n ? n : 1, sizeof(*v));
	struct combined *c = calloc(1, sizeof(*c));
	size_t k = 0;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	p->others_max_pct = NAN;
	for (size_t j = 0; j < MERGE_MAX_OPS; j++)
		p->op_ms[j] = NAN;
	if (!cp || !rep || !v || !c)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct sweep_row *r = &rows[i];
		if (!sweep_row_ok(r) || !isfinite(r->e2e_s) || r->workers != w || r->batch_size != b ||
		    r->gpus != g)
			continue;
		cp[k] = *r;
		/* older runs without the figure: images over E2E */
		if (!isfinite(cp[k].images_per_s) && cp[k].e2e_s > 0)
			cp[k].images_per_s = cp[k].images / cp[k].e2e_s;
		rep[k] = &cp[k];
		if (merge_row_noisy(r)) {
			p->noisy++;
			p->others_max_pct = isnan(p->others_max_pct) ? r->others_cpu_pct :
					    fmax(p->others_max_pct, r->others_cpu_pct);
		}
		p->oversubscribed += report_oversubscribed(r, cpus);
		k++;
	}
	p->runs = k;
	if (!k) {
		stats_summarise(v, 0, STATS_CI_LEVEL, &p->e2e_s);
		p->images_per_s = p->cpu_ms_per_image = p->gpu_util_pct = p->e2e_s;
		rc = 0;
		goto out;
	}
	if (repeats_combine(rep, k, c))
		goto out;
	p->e2e_s = *combined_spread(c, "e2e_s");
	p->images_per_s = *combined_spread(c, "images_per_s");
	p->gpu_util_pct = *combined_spread(c, "gpu_util_pct");
	/* CPU time of the workers and the main process per image, each run's,
	 * then the median over the runs */
	for (size_t i = 0; i < k; i++)
		v[i] = per_image_ms(cp[i].workers_cpu_s +
				    (isfinite(cp[i].main_cpu_s) ? cp[i].main_cpu_s : 0), cp[i].images);
	if (stats_summarise(v, k, STATS_CI_LEVEL, &p->cpu_ms_per_image))
		goto out;
	for (size_t j = 0; j < nops && j < MERGE_MAX_OPS; j++) {
		struct stats_summary s;
		for (size_t i = 0; i < k; i++) {
			const struct sweep_op *o = sweep_row_op(&cp[i], ops[j]);
			v[i] = o ? per_image_ms(o->span_s, cp[i].images) : NAN;
		}
		if (stats_summarise(v, k, STATS_CI_LEVEL, &s))
			goto out;
		p->op_ms[j] = s.median;
	}
	rc = 0;
out:
	free(cp);
	free(rep);
	free(v);
	free(c);
	return rc;
}

int merge_point_clean(const struct merge_point *p)
{
	return p->runs && !p->noisy && !p->oversubscribed;
}

void merge_scale(struct stats_summary *s, double k)
{
	s->median *= k;
	s->min *= k;
	s->max *= k;
	s->lo *= k;
	s->hi *= k;
}

void merge_ratio_of(const struct stats_summary *a, const struct stats_summary *b,
		    struct merge_ratio *r)
{
	r->r = r->lo = r->hi = NAN;
	r->v = MERGE_NOT_JUDGED;
	if (!a->n || !b->n || !(b->median > 0) || !isfinite(a->median))
		return;
	r->r = a->median / b->median;
	if (a->n < 2 || b->n < 2 || !(b->lo > 0))
		return;          /* one run has no spread: nothing to judge the ratio by */
	r->lo = a->lo / b->hi;
	r->hi = a->hi / b->lo;
	r->v = r->lo > 1 ? MERGE_HIGHER : r->hi < 1 ? MERGE_LOWER : MERGE_WITHIN_NOISE;
}

const char *merge_judgement_name(enum merge_judgement v)
{
	switch (v) {
	case MERGE_WITHIN_NOISE:
		return "within noise";
	case MERGE_HIGHER:
		return "higher";
	case MERGE_LOWER:
		return "lower";
	default:
		return "not judged";
	}
}

void merge_ratio_format(char *out, size_t n, const struct merge_ratio *r)
{
	if (!isfinite(r->r))
		snprintf(out, n, "-");
	else if (r->v == MERGE_NOT_JUDGED)
		snprintf(out, n, "%.2fx (not judged: one run on a side)", r->r);
	else
		snprintf(out, n, "%.2fx [%.2f, %.2f], %s", r->r, r->lo, r->hi,
			 merge_judgement_name(r->v));
}

void merge_format(char *out, size_t n, const struct stats_summary *s, const char *fmt)
{
	size_t l;

	stats_format(out, n, s, fmt);
	l = strlen(out);
	if (s->n == 1 && l < n)
		snprintf(out + l, n - l, " (n=1)");
}

void merge_marks(const struct merge_point *p, char *out, size_t n)
{
	out[0] = 0;
	if (p->noisy)
		snprintf(out, n, "NOISY in %zu of %zu runs (others up to %.0f %%)", p->noisy, p->runs,
			 p->others_max_pct);
	if (p->oversubscribed) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, "%soversubscribed in %zu of %zu runs", l ? "; " : "",
			 p->oversubscribed, p->runs);
	}
}
