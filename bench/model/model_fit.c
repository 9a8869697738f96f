/* The machine's contention model and its fit (model.h). */
#include <math.h>
#include <stdlib.h>
#include "model.h"
#include "stats.h"

static double capacity(const struct model_machine *m, double n)
{
	double c = m->cores, extra = n - c, room = c * (m->tpc - 1);
	if (extra < 0)
		extra = 0;
	if (extra > room)
		extra = room;
	return (n < c ? n : c) + m->beta * extra;
}

static double factor(const struct model_machine *m, double busy)
{
	if (m->cores <= 0 || busy <= 0)
		return 1;
	double used = busy < m->cores ? busy : m->cores;
	/* under one busy thread (a worker partly off the CPU): no other core busy */
	double shared = 1 + m->alpha * (used > 1 ? used - 1 : 0);
	/* beyond the hardware threads, time-slicing: the capacity stays that
	 * of every thread busy */
	return shared * busy / capacity(m, busy);
}

double model_factor(const struct model_machine *m, double busy)
{
	return factor(m, busy) / (m->ref_busy > 0 ? factor(m, m->ref_busy) : 1);
}

/* smt_static applies: busy - cores cores run two threads, the other
 * 2 x cores - busy threads have a core alone */
static int smt_split(const struct model_machine *m, double busy)
{
	return m->smt_static && m->tpc == 2 && busy > m->cores && busy <= 2 * m->cores;
}

int model_worker_class(const struct model_machine *m, double busy, int W, int w)
{
	if (!smt_split(m, busy))
		return MODEL_CLS_MEAN;
	/* the workers' share of the lone places is the lowest ids */
	double lone = 2 * m->cores - busy;
	int lone_w = (int)floor(lone * W / busy + 0.5);
	return w < lone_w ? MODEL_CLS_LONE : MODEL_CLS_SHARED;
}

double model_class_factor(const struct model_machine *m, double busy, int cls)
{
	if (cls == MODEL_CLS_MEAN || !smt_split(m, busy))
		return model_factor(m, busy);
	double f = (1 + m->alpha * (m->cores - 1)) * (cls == MODEL_CLS_LONE ? 1 : 2 / (1 + m->beta));
	return f / (m->ref_busy > 0 ? factor(m, m->ref_busy) : 1);
}

double model_worker_factor(const struct model_machine *m, double busy, int W, int w)
{
	return model_class_factor(m, busy, model_worker_class(m, busy, W, w));
}

double model_oncpu_share(const struct model_machine *m, double busy)
{
	double hw = m->cores * m->tpc;
	return m->cores <= 0 || busy <= hw ? 1 : hw / busy;
}

void model_first_split(const struct model_machine *m, double busy, double first, double *f_first,
		       double *f_rest, double *share_first, double *share_rest)
{
	double hw = m->cores * m->tpc, ref = m->ref_busy > 0 ? factor(m, m->ref_busy) : 1;
	if (m->cores <= 0 || busy <= hw || first >= hw || first <= 0) {
		/* every busy thread has a hardware thread, or nothing is first:
		 * the same share for all */
		*f_first = factor(m, busy);
		*f_rest = *f_first / ref;
		*share_first = *share_rest = model_oncpu_share(m, busy);
		return;
	}
	/* the first run as on a full machine; the rest share the hardware
	 * threads they leave, and the capacity that goes with them */
	double used = m->cores, shared = 1 + m->alpha * (used > 1 ? used - 1 : 0);
	double cap = capacity(m, hw), left = cap - first * cap / hw;
	*f_first = factor(m, hw);
	*f_rest = shared * (busy - first) / left / ref;
	*share_first = 1;
	*share_rest = (hw - first) / (busy - first);
}

static double mean_worker_factor(const struct model_machine *m, double busy, int W)
{
	if (!m->smt_static || W < 1)
		return model_factor(m, busy);
	double t = 0;
	for (int w = 0; w < W; w++)
		t += model_worker_factor(m, busy, W, w);
	return t / W;
}

/* Sum of |log(t / (base x factor))| at the best base (the median of the
 * log ratios, which minimises it). */
static double fit_cost(const struct model_machine *m, const double *n, const int *W,
		       const double *t, size_t k, double *base)
{
	double r[64];
	if (k > 64)
		k = 64;
	for (size_t i = 0; i < k; i++)
		r[i] = log(t[i] / mean_worker_factor(m, n[i], W ? W[i] : 0));
	double s[64];
	for (size_t i = 0; i < k; i++)
		s[i] = r[i];
	stats_sort(s, k);
	double mid = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
	double cost = 0;
	for (size_t i = 0; i < k; i++)
		cost += fabs(r[i] - mid);
	*base = exp(mid);
	return cost;
}

void model_fit(struct model_machine *m, const double *n, const int *W, const double *t, size_t k,
	       double *base, double *err_pct)
{
	double best = INFINITY, bb = 0, ba = 0, bbeta = 0;
	int smt = 0;
	for (size_t i = 0; i < k; i++)
		if (n[i] > m->cores)
			smt = 1;
	/* a grid, fine enough for what the data can say: alpha in 0..0.05,
	 * beta in 0..1 (0 when no point has more busy threads than cores) */
	for (int ia = 0; ia <= 200; ia++) {
		for (int ib = 0; ib <= (smt ? 100 : 0); ib++) {
			struct model_machine q = *m;
			q.alpha = ia * 0.00025;
			q.beta = ib * 0.01;
			double b;
			double c = fit_cost(&q, n, W, t, k, &b);
			if (c < best - 1e-12) {
				best = c;
				bb = b;
				ba = q.alpha;
				bbeta = q.beta;
			}
		}
	}
	m->alpha = ba;
	m->beta = bbeta;
	*base = bb;
	double e[64];
	size_t kk = k > 64 ? 64 : k;
	for (size_t i = 0; i < kk; i++)
		e[i] = fabs(t[i] / (bb * mean_worker_factor(m, n[i], W ? W[i] : 0)) - 1) * 100;
	stats_sort(e, kk);
	*err_pct = kk ? (kk % 2 ? e[kk / 2] : (e[kk / 2 - 1] + e[kk / 2]) / 2) : 0;
}
