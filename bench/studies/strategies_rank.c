/* PRESTO's ranking (bench/studies/strategies.h, strategies_engine.h): the weighted
 * objective's scores and the ranks with ties within noise. Pure: it reads
 * the strategies' measurements and writes their scores and ranks. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "stats.h"
#include "strategies.h"
#include "strategies_engine.h"

void strategies_rank(const struct stats_summary *score, const int *valid, int n, int *rank,
		     int *tied)
{
	for (int i = 0; i < n; i++) {
		rank[i] = 0;
		tied[i] = 0;
		if (!valid[i] || !score[i].n)
			continue;
		rank[i] = 1;
		for (int j = 0; j < n; j++) {
			if (j == i || !valid[j] || !score[j].n)
				continue;
			/* ahead only when its score is higher beyond noise; an
			 * equal score, or intervals that overlap, tie */
			int differ = stats_differ(&score[j], &score[i]);
			if (differ && score[j].median > score[i].median)
				rank[i]++;
			else if (!differ)
				tied[i] = 1;
		}
	}
}

/* min-max normalisation over the strategies measured, as PRESTO's
 * StrategyAnalysis.normalized_summary; higher is better. A measure whose
 * values are all equal counts 1 for every strategy. */
static double norm(double v, double lo, double hi, int smaller_is_better)
{
	if (!(hi > lo))
		return 1;
	double x = (v - lo) / (hi - lo);
	return smaller_is_better ? 1 - x : x;
}

/* PRESTO's score of each strategy in each repeat (the throughput
 * normalised over that repeat's strategies; storage and offline time are
 * measured once), its median and spread, then the ranks with ties within
 * noise (strategies_rank). */
void strat_rank_all(struct ctx *c)
{
	double wt = c->o->weight, wp = c->o->offline_weight, ws = 1 - wt - wp;
	double slo = INFINITY, shi = -INFINITY, plo = INFINITY, phi = -INFINITY;
	int R = (int)c->o->repeat;
	for (int i = 0; i < c->nst; i++) {
		const struct strategy *s = &c->st[i];
		if (!s->ran)
			continue;
		slo = fmin(slo, (double)s->storage_bytes);
		shi = fmax(shi, (double)s->storage_bytes);
		plo = fmin(plo, s->offline_s);
		phi = fmax(phi, s->offline_s);
	}
	for (int r = 0; r < R; r++) {
		double tlo = INFINITY, thi = -INFINITY;
		for (int i = 0; i < c->nst; i++)
			if (c->st[i].ran) {
				tlo = fmin(tlo, c->st[i].steady_r[r]);
				thi = fmax(thi, c->st[i].steady_r[r]);
			}
		for (int i = 0; i < c->nst; i++) {
			struct strategy *s = &c->st[i];
			if (s->ran)
				s->score_r[r] = wt * norm(s->steady_r[r], tlo, thi, 0) +
						ws * norm((double)s->storage_bytes, slo, shi, 1) +
						wp * norm(s->offline_s, plo, phi, 1);
		}
	}
	struct stats_summary score[sizeof(c->st) / sizeof(c->st[0])];
	int valid[sizeof(c->st) / sizeof(c->st[0])], rank[sizeof(c->st) / sizeof(c->st[0])];
	int tied[sizeof(c->st) / sizeof(c->st[0])];
	for (int i = 0; i < c->nst; i++) {
		struct strategy *s = &c->st[i];
		valid[i] = s->ran;
		memset(&score[i], 0, sizeof(score[i]));
		if (s->ran && stats_summarise(s->score_r, (size_t)R, STATS_CI_LEVEL, &s->sp_score))
			die("out of memory");
		if (s->ran) {
			score[i] = s->sp_score;
			s->score = s->sp_score.median;
		}
	}
	strategies_rank(score, valid, c->nst, rank, tied);
	for (int i = 0; i < c->nst; i++) {
		c->st[i].rank = rank[i];
		c->st[i].tied = tied[i];
	}
}

void strat_formula(const struct ctx *c, char *out, size_t n)
{
	double wt = c->o->weight, wp = c->o->offline_weight, ws = 1 - wt - wp;
	snprintf(out, n,
		 "score = %.2f x T + %.2f x S + %.2f x P, PRESTO's weighted objective "
		 "(StrategyAnalysis.weighted_summary): T = (thr - min) / (max - min) of the "
		 "steady images/s, S = (max - storage) / (max - min) of the bytes on storage, "
		 "P = (max - offline) / (max - min) of the offline seconds, min and max over the "
		 "strategies measured (a measure equal for all counts 1), per repeat; the score is "
		 "the median over the repeats, and a strategy's rank is 1 + the strategies whose "
		 "score is higher beyond noise (intervals apart), so strategies within noise of "
		 "each other share a rank (=)", wt, ws, wp);
}
