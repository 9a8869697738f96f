/* ppbench merge: the machines' figures on the configurations they share,
 * their best configurations, knees and prices (merge.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "merge_int.h"

double merge_cost_per_million(double usd_per_hour, double images_per_s)
{
	if (!(usd_per_hour > 0) || !isfinite(usd_per_hour) || !(images_per_s > 0) ||
	    !isfinite(images_per_s))
		return NAN;
	return usd_per_hour / 3600.0 / images_per_s * 1e6;
}

int merge_parse_price(const char *arg, char *name, size_t n, double *usd, char *err,
		      size_t errlen)
{
	const char *eq = strrchr(arg, '=');
	char *end;
	double v;

	if (!eq || eq == arg || !eq[1]) {
		errf(err, errlen, "--price: '%s' is not NAME=USD_PER_HOUR", arg);
		return -1;
	}
	errno = 0;
	v = strtod(eq + 1, &end);
	if (*end || errno || !(v > 0) || !isfinite(v)) {
		errf(err, errlen, "--price: '%s' is not a positive price per hour", eq + 1);
		return -1;
	}
	if ((size_t)(eq - arg) >= n) {
		errf(err, errlen, "--price: the name in '%s' is too long", arg);
		return -1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = 0;
	*usd = v;
	return 0;
}

static int point_of(const struct merge *m, const struct machine *mc, const struct conf *c,
		    struct merge_point *p)
{
	return merge_point_of(mc->rows, mc->nrows, c->workers, c->batch_size, c->gpus, mc->cpus,
			      (const char (*)[40])m->ops, m->nops, p);
}

/* is point a better than point b (by its median images/s; b NULL: yes) */
static int better(const struct merge_point *a, const struct merge_point *b)
{
	return !b || a->images_per_s.median > b->images_per_s.median;
}

/* images/s per core of a point's images/s (NaN figures when the cores are unknown) */
struct stats_summary merge_per_core(const struct machine *mc, const struct merge_point *p)
{
	struct stats_summary s = p->images_per_s;
	double cores = mc->cores;
	if (mc->usable_cpus > 0 && mc->usable_cpus < cores)
		cores = mc->usable_cpus;  /* a quota of half a CPU: half a core's worth */
	merge_scale(&s, cores > 0 ? 1.0 / cores : NAN);
	return s;
}

/* The ops of every run (the whole-transform span overlaps the per-sample
 * ops: left out). */
static void collect_ops(struct merge *m)
{
	for (size_t i = 0; i < m->nmach; i++)
		for (size_t r = 0; r < m->mach[i].nrows; r++)
			for (size_t j = 0; j < m->mach[i].rows[r].nops; j++) {
				const char *name = m->mach[i].rows[r].ops[j].name;
				size_t k;
				if (!strcmp(name, "transform"))
					continue;
				for (k = 0; k < m->nops; k++)
					if (!strcmp(m->ops[k], name))
						break;
				if (k == m->nops && k < MAX_OPS)
					errf(m->ops[m->nops++], 40, "%s", name);
			}

}

/* Each machine's own configurations (an ok run) and their points. 0, or -1
 * (out of memory). */
static int own_confs(struct merge *m)
{
	for (size_t i = 0; i < m->nmach; i++) {
		struct machine *mc = &m->mach[i];
		mc->own = calloc(mc->nrows + 1, sizeof(*mc->own));
		if (!mc->own)
			return -1;
		for (size_t r = 0; r < mc->nrows; r++) {
			struct conf c = { mc->rows[r].workers, mc->rows[r].batch_size, mc->rows[r].gpus };
			if (merge_ok_row(&mc->rows[r]) && merge_conf_find(mc->own, mc->nown, &c) < 0)
				mc->own[mc->nown++] = c;
		}
		qsort(mc->own, mc->nown, sizeof(*mc->own), merge_conf_cmp);
		mc->ownpt = calloc(mc->nown + 1, sizeof(*mc->ownpt));
		if (!mc->ownpt)
			return -1;
		for (size_t k = 0; k < mc->nown; k++) {
			if (point_of(m, mc, &mc->own[k], &mc->ownpt[k]))
				return -1;
			if (better(&mc->ownpt[k], mc->own_best < 0 ? NULL : &mc->ownpt[mc->own_best]))
				mc->own_best = (long)k;
		}
	}

	return 0;
}

/* The configurations every machine ran, their (batch, GPUs) series, the
 * one the per-op figure shows, the most worker counts of a series. 0, or
 * -1 (out of memory). */
static int find_overlap(struct merge *m)
{
	m->overlap = calloc(m->nmach ? m->mach[0].nown + 1 : 1, sizeof(*m->overlap));
	if (!m->overlap)
		return -1;
	for (size_t k = 0; m->nmach && k < m->mach[0].nown; k++) {
		size_t i;
		for (i = 1; i < m->nmach; i++)
			if (merge_conf_find(m->mach[i].own, m->mach[i].nown, &m->mach[0].own[k]) < 0)
				break;
		if (i == m->nmach)
			m->overlap[m->noverlap++] = m->mach[0].own[k];
	}

	m->op_conf = -1;
	for (size_t k = 0; k < m->noverlap; k++) {
		const struct conf *c = &m->overlap[k], *o;
		struct conf bg = { 0, c->batch_size, c->gpus };
		int wc = 0;
		if (merge_conf_find(m->bg, m->nbg, &bg) < 0 && m->nbg < MAX_SERIES)
			m->bg[m->nbg++] = bg;
		if (m->op_conf < 0) {
			m->op_conf = (long)k;
		} else {
			o = &m->overlap[m->op_conf];
			if (c->workers < o->workers || (c->workers == o->workers && (c->batch_size < o->batch_size || (c->batch_size == o->batch_size && c->gpus < o->gpus))))
				m->op_conf = (long)k;
		}
		for (size_t j = 0; j < m->noverlap; j++)
			wc += m->overlap[j].batch_size == c->batch_size && m->overlap[j].gpus == c->gpus;
		if (wc > m->max_wcounts)
			m->max_wcounts = wc;
	}
	return 0;
}

/* A machine on the overlap: its points, its best configuration, the knee of
 * each series. 0, or -1 (out of memory). */
static int machine_overlap(struct merge *m, struct machine *mc)
{
	struct sweep_row *kr;
	long best_any = -1;

	mc->pt = calloc(m->noverlap + 1, sizeof(*mc->pt));
	kr = calloc(mc->nrows + 1, sizeof(*kr));
	if (!mc->pt || !kr) {
		free(kr);
		return -1;
	}
	/* the best configuration: the most images/s among the clean ones,
	 * else among all (and said) */
	for (size_t k = 0; k < m->noverlap; k++) {
		struct merge_point *p = &mc->pt[k];
		if (point_of(m, mc, &m->overlap[k], p)) {
			free(kr);
			return -1;
		}
		if (better(p, best_any < 0 ? NULL : &mc->pt[best_any]))
			best_any = (long)k;
		if (merge_point_clean(p) && better(p, mc->best < 0 ? NULL : &mc->pt[mc->best]))
			mc->best = (long)k;
	}
	mc->best_clean = mc->best >= 0;
	if (mc->best < 0)
		mc->best = best_any;
	/* the knee of each (batch, GPUs) series by the report's rule, on
	 * the compared configurations only */
	for (size_t s = 0; s < m->nbg; s++) {
		size_t nk = 0;
		for (size_t r = 0; r < mc->nrows; r++) {
			struct conf c = { mc->rows[r].workers, mc->rows[r].batch_size, mc->rows[r].gpus };
			long k = merge_conf_find(m->overlap, m->noverlap, &c);
			if (k < 0 || !merge_ok_row(&mc->rows[r]) || c.batch_size != m->bg[s].batch_size || c.gpus != m->bg[s].gpus)
				continue;
			kr[nk] = mc->rows[r];
			kr[nk].part = 0;
			kr[nk].config = (int)k + 1;
			nk++;
		}
		struct judge_ctx cx = { .cpus = mc->cpus, .paper = NULL };
		finding_diminishing(kr, nk, &cx, &mc->knee[s]);
	}
	free(kr);
	return 0;
}

int merge_analyse(struct merge *m, char *err, size_t errlen)
{
	collect_ops(m);
	if (own_confs(m) || find_overlap(m))
		goto oom;
	for (size_t i = 0; i < m->nmach; i++)
		if (machine_overlap(m, &m->mach[i]))
			goto oom;
	return 0;
oom:
	errf(err, errlen, "out of memory");
	return -1;
}

int merge_apply_prices(struct merge *m, char **names, double *usd, size_t n, char *err,
			size_t errlen)
{
	for (size_t p = 0; p < n; p++) {
		int hit = 0;
		for (size_t i = 0; i < m->nmach; i++) {
			struct machine *mc = &m->mach[i];
			char have[600], pat[300];
			errf(have, sizeof(have), " %s ", mc->hosts);
			errf(pat, sizeof(pat), " %s ", names[p]);
			if (!strcmp(mc->label, names[p]) || !strcmp(mc->cpu, names[p]) ||
			    strstr(have, pat)) {
				mc->price = usd[p];
				hit = 1;
			}
		}
		for (size_t i = 0; i < m->nfolders && !hit; i++)
			hit = !strcmp(m->folders[i].host, names[p]) || !strcmp(m->folders[i].cpu, names[p]);
		if (!hit) {
			char list[1024] = "";
			for (size_t i = 0; i < m->nfolders; i++) {
				char pat[300];
				errf(pat, sizeof(pat), "'%s'", m->folders[i].host);
				if (!strstr(list, pat))
					merge_cat(list, sizeof(list), "%s%s", list[0] ? ", " : "", pat);
			}
			errf(err, errlen, "--price: no machine named '%s' (the hosts: %s)", names[p], list);
			return -1;
		}
	}
	return 0;
}

/* The machine with the highest median images/s at its best configuration
 * among those whose best is clean (none: among all); -1 if none. */
long merge_fastest(const struct merge *m, int need_clean)
{
	long f = -1;
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		if (mc->best < 0 || (need_clean && !mc->best_clean))
			continue;
		if (better(&mc->pt[mc->best], f < 0 ? NULL : &m->mach[f].pt[m->mach[f].best]))
			f = (long)i;
	}
	return f;
}

/* USD per million images at a point: from the median, and lo/hi from the
 * images/s interval (the cost falls as images/s rise) */
void merge_cost_of(const struct machine *mc, const struct merge_point *p, double *med,
		    double *lo, double *hi)
{
	*med = merge_cost_per_million(mc->price, p->images_per_s.median);
	*lo = merge_cost_per_million(mc->price, p->images_per_s.hi);
	*hi = merge_cost_per_million(mc->price, p->images_per_s.lo);
}
