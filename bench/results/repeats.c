#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "repeats.h"

const struct sweep_op *sweep_row_op(const struct sweep_row *r, const char *name)
{
	for (size_t i = 0; i < r->nops; i++)
		if (!strcmp(r->ops[i].name, name))
			return &r->ops[i];
	return NULL;
}

/* The combined value of one figure: median, or the common value. */
static double combine(enum metric_combine how, const double *v, size_t n,
		      struct stats_summary *sp, int *differs)
{
	if (stats_summarise(v, n, STATS_CI_LEVEL, sp))
		return NAN;
	if (how == COMBINE_MEDIAN)
		return sp->median;
	double first = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (isnan(first))
			first = v[i];
		else if (v[i] != first)
			*differs = 1;
	}
	return first;
}

int repeats_combine(const struct sweep_row *const *rows, size_t n, struct combined *c)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));

	memset(c, 0, sizeof(*c));
	if (!v || !n || metric_count > REPEATS_MAX_METRICS) {
		free(v);
		return -1;
	}
	c->r = *rows[0];
	c->n = n;
	for (size_t m = 0; m < metric_count; m++) {
		const struct metric *mt = &metric_table[m];
		int differs = 0;
		for (size_t i = 0; i < n; i++)
			v[i] = metric_row_get(mt, rows[i]);
		*metric_row_field(mt, &c->r) = combine(mt->combine, v, n, &c->sp[m], &differs);
		if (differs && !c->same_differs) {
			c->same_differs = 1;
			snprintf(c->same_what, sizeof(c->same_what), "%s", mt->name);
		}
	}
	for (size_t i = 1; i < n; i++)
		if (strcmp(rows[i]->checksum, rows[0]->checksum) && !c->same_differs) {
			c->same_differs = 1;
			snprintf(c->same_what, sizeof(c->same_what), "checksum");
		}
	/* ops: every op of any repeat, each figure over the repeats that have it */
	c->r.nops = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < rows[i]->nops && c->r.nops < SWEEP_MAX_OPS; k++) {
			const char *name = rows[i]->ops[k].name;
			if (sweep_row_op(&c->r, name))
				continue;
			struct sweep_op *o = &c->r.ops[c->r.nops++];
			*o = rows[i]->ops[k];
			for (size_t j = 0; j < op_metric_count; j++) {
				const struct op_metric *mt = &op_metric_table[j];
				size_t m = 0;
				struct stats_summary sp;
				int differs = 0;
				for (size_t q = 0; q < n; q++) {
					const struct sweep_op *x = sweep_row_op(rows[q], name);
					if (x)
						v[m++] = op_metric_get(mt, x);
				}
				*op_metric_field(mt, o) = combine(mt->combine, v, m, &sp, &differs);
			}
		}
	free(v);
	return 0;
}

const struct stats_summary *combined_spread(const struct combined *c, const char *name)
{
	return &c->sp[metric_find(name) - metric_table];
}

/* ---- a sweep's configurations ----------------------------------------------*/

const char *sweep_row_policy(const struct sweep_row *r)
{
	return r->policy[0] ? r->policy : "torch";
}

int sweep_row_ok(const struct sweep_row *r)
{
	return !strcmp(r->status, RUN_OK);
}

size_t sweep_policies(const struct sweep_row *r, size_t n, char (*names)[16], size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *p = sweep_row_policy(&r[i]);
		size_t m;
		for (m = 0; m < k; m++)
			if (!strcmp(names[m], p))
				break;
		if (m == k && k < max)
			snprintf(names[k++], 16, "%s", p);
	}
	return k;
}

int sweep_policy_index(char (*names)[16], size_t k, const char *p)
{
	for (size_t m = 0; m < k; m++)
		if (!strcmp(names[m], p))
			return (int)m;
	return 0;
}

/* One entry per configuration with at least one ok row, in plan order.
 * Caller frees *out. Returns the count (0 with *out NULL on none or OOM). */
size_t sweep_configs(const struct sweep_row *r, size_t n, struct sweep_config **out)
{
	struct sweep_config *a = calloc(n ? n : 1, sizeof(*a));
	const struct sweep_row **rep = calloc(n ? n : 1, sizeof(*rep));
	char pols[SWEEP_MAX_POLICIES][16];
	size_t k = 0, npol = sweep_policies(r, n, pols, SWEEP_MAX_POLICIES);

	*out = NULL;
	if (!a || !rep) {
		free(a);
		free(rep);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j;
		if (!sweep_row_ok(&r[i]))
			continue;
		for (j = 0; j < k; j++)
			if (a[j].config == r[i].config)
				break;
		if (j < k) {
			a[j].n++;
			continue;
		}
		a[k].part = r[i].part;
		a[k].config = r[i].config;
		a[k].workers = r[i].workers;
		a[k].batch_size = r[i].batch_size;
		a[k].gpus = r[i].gpus;
		snprintf(a[k].policy, sizeof(a[k].policy), "%s", sweep_row_policy(&r[i]));
		a[k].pol = sweep_policy_index(pols, npol, a[k].policy);
		a[k].n = 1;
		a[k].first = i;
		k++;
	}
	for (size_t j = 0; j < k; j++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (r[i].config == a[j].config && sweep_row_ok(&r[i]))
				rep[m++] = &r[i];
		if (repeats_combine(rep, m, &a[j].c)) {
			free(a);
			free(rep);
			return 0;
		}
	}
	free(rep);
	if (!k) {
		free(a);
		return 0;
	}
	*out = a;
	return k;
}

