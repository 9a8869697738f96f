/* What a sweep's plan can judge before it runs (bench/report/report.h:
 * report_plan_findings): per configuration as planned, the findings its
 * batches and worker counts allow by the rules the report applies after. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "report.h"

void report_plan_findings(const struct sweep_row *r, size_t n, int cpus, int has_decode,
			  struct plan_finding pf[REPORT_NFINDINGS], unsigned *mask)
{
	size_t enough = 0, over = 0, two = 0, best = 0;
	int most_b = 0, low_w = 0, worst_low = 0;

	memset(pf, 0, REPORT_NFINDINGS * sizeof(*pf));
	for (size_t i = 0; i < n; i++) {
		double b = r[i].batches;
		if (mask)
			mask[i] = 0;
		if (isfinite(b) && (int)b > most_b)
			most_b = (int)b;
		if (!report_enough_batches(&r[i]))
			continue;
		enough++;
		over += report_oversubscribed(&r[i], cpus);
		two += r[i].workers >= 2;
		if (mask)
			mask[i] |= (has_decode ? 1u : 0) | 2u | (r[i].workers >= 2 ? 4u : 0);
	}
	/* finding 4: a batch and GPU count (and policy) with 3 worker counts of
	 * enough batches, the smallest under the CPUs */
	for (size_t i = 0; i < n; i++) {
		size_t c = 0;
		int wmin = 0;
		if (!report_enough_batches(&r[i]))
			continue;
		for (size_t j = 0; j < n; j++)
			if (r[j].batch_size == r[i].batch_size && r[j].gpus == r[i].gpus &&
			    !strcmp(sweep_row_policy(&r[j]), sweep_row_policy(&r[i])) &&
			    report_enough_batches(&r[j])) {
				c++;
				wmin = !wmin || r[j].workers < wmin ? r[j].workers : wmin;
			}
		if (c < 3) {
			best = c > best ? c : best;
			continue;
		}
		if (cpus > 0 && wmin >= cpus) {
			worst_low = !worst_low || wmin < worst_low ? wmin : worst_low;
			best = c > best ? c : best;
			continue;
		}
		low_w = 1;
		best = c > best ? c : best;
		if (mask)
			mask[i] |= 8u;
	}
	char few[160];
	snprintf(few, sizeof(few), "no configuration has %d batches (the most any has is %d; "
		 "raise --epochs, or use a larger dataset)", REPORT_MIN_BATCHES, most_b);
	/* 1 */
	pf[0].can = has_decode && enough;
	pf[0].k = pf[0].can ? enough : 0;
	if (!has_decode)
		snprintf(pf[0].why, sizeof(pf[0].why), "the pipeline has no decode op (Table II is "
			 "about the ImageNet chain)");
	else if (!enough)
		snprintf(pf[0].why, sizeof(pf[0].why), "%s", few);
	else
		snprintf(pf[0].why, sizeof(pf[0].why), "on the run with the fewest workers of the %zu "
			 "configuration%s with %d or more batches", enough, plural_s(enough),
			 REPORT_MIN_BATCHES);
	/* 2 */
	pf[1].can = enough > 0;
	pf[1].k = enough;
	if (!enough)
		snprintf(pf[1].why, sizeof(pf[1].why), "%s", few);
	else
		snprintf(pf[1].why, sizeof(pf[1].why), "%zu configuration%s%s", enough, plural_s(enough),
			 over == enough ? ", each with more workers than the CPUs the runs can use "
			 "(time-sliced: the report says so beside the verdict)" : over ? ", those with "
			 "more workers than CPUs shown apart" : "");
	/* 3 */
	pf[2].can = two > 0;
	pf[2].k = two;
	if (!enough)
		snprintf(pf[2].why, sizeof(pf[2].why), "%s", few);
	else if (!two)
		snprintf(pf[2].why, sizeof(pf[2].why), "no configuration with %d or more batches has 2 "
			 "or more workers (one worker delivers in order)", REPORT_MIN_BATCHES);
	else
		snprintf(pf[2].why, sizeof(pf[2].why), "%zu configuration%s with 2 or more workers%s",
			 two, plural_s(two), over == enough ? ", each with more workers than CPUs "
			 "(time-sliced)" : "");
	/* 4 */
	pf[3].can = low_w;
	if (low_w)
		snprintf(pf[3].why, sizeof(pf[3].why), "a batch size and GPU count with 3 or more worker "
			 "counts of %d or more batches, the smallest under the %d CPU%s the runs can use",
			 REPORT_MIN_BATCHES, cpus, plural_s((size_t)cpus));
	else if (worst_low)
		snprintf(pf[3].why, sizeof(pf[3].why), "the smallest worker count, %d, is not under the "
			 "%d CPU%s the runs can use, so E2E cannot show the parallel speed-up the finding "
			 "is about (the report gives ppbench model's prediction for the paper's machine)",
			 worst_low, cpus, plural_s((size_t)cpus));
	else
		snprintf(pf[3].why, sizeof(pf[3].why), "it needs 3 worker counts at one batch size and "
			 "GPU count, each with %d or more batches; this plan has at most %zu", REPORT_MIN_BATCHES,
			 best);
	/* 5 */
	snprintf(pf[4].why, sizeof(pf[4].why), "a sweep runs every configuration with tracing on; the "
		 "overhead needs tracing off and on, interleaved (make bench)");
}
