/* PRESTO's ranking with ties within noise (bench/strategies.h): pure. */
#include <math.h>
#include "stats.h"
#include "strategies.h"

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
