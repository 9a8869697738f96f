/* ppbench merge: summary.csv and comparison.csv (merge.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "log.h"
#include "model.h"
#include "merge_int.h"

void merge_put_num(FILE *f, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.10g", v);
}

/* ",median,lo,hi" of s (empty when not known) */
void merge_put_spread(FILE *f, const struct stats_summary *s)
{
	merge_put_num(f, s ? s->median : NAN);
	merge_put_num(f, s ? s->lo : NAN);
	merge_put_num(f, s ? s->hi : NAN);
}

/* "ci95" or "min-max": what lo and hi are */
const char *merge_interval_name(const struct stats_summary *s)
{
	return !s || !s->n ? "" : s->has_ci ? "ci95" : "min-max";
}

/* the series (index in m->bg) of configuration c, -1 if none */
long merge_series_of(const struct merge *m, const struct conf *c)
{
	for (size_t s = 0; s < m->nbg; s++)
		if (m->bg[s].batch_size == c->batch_size && m->bg[s].gpus == c->gpus)
			return (long)s;
	return -1;
}

/* summary.csv: the sweep's columns (sweep_write_csv) after host columns */
int merge_write_summary(const struct merge *m, const char *path, char *err, size_t errlen)
{
	struct sweep all;
	char tmp[4096], tmp2[4096], *line = NULL;
	size_t cap = 0, total = 0, row = 0;
	FILE *in = NULL, *out = NULL;
	int rc = -1;

	memset(&all, 0, sizeof(all));
	for (size_t i = 0; i < m->nfolders; i++)
		total += m->folders[i].sw.nrows;
	all.rows = calloc(total + 1, sizeof(*all.rows));
	if (!all.rows) {
		errf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < m->nfolders; i++)
		for (size_t r = 0; r < m->folders[i].sw.nrows; r++) {
			all.rows[all.nrows] = m->folders[i].sw.rows[r];
			all.rows[all.nrows].part = (int)i;
			all.nrows++;
		}
	errf(all.dir, sizeof(all.dir), "%s", m->out);
	errf(tmp, sizeof(tmp), "%s.sweep", path);
	errf(tmp2, sizeof(tmp2), "%s.tmp", path);
	if (sweep_write_csv(&all, tmp, err, errlen))
		goto out;
	in = fopen(tmp, "r");
	out = fopen(tmp2, "w");
	if (!in || !out) {
		errf(err, errlen, "cannot write '%s': %s", tmp2, strerror(errno));
		goto out;
	}
	for (ssize_t len; (len = getline(&line, &cap, in)) > 0;) {
		if (line[0] == '#') {
			fputs(line, out);
			continue;
		}
		if (row == 0) {
			fprintf(out, "host,cpu_model,cpus_online,cores,machine,sweep,compared,in_overlap,"
				"noisy,oversubscribed,config_runs,config_images_per_s,"
				"config_images_per_s_lo,config_images_per_s_hi,config_e2e_s,"
				"config_e2e_s_lo,config_e2e_s_hi,config_interval,%s", line);
		} else if (row - 1 < all.nrows) {
			const struct sweep_row *r = &all.rows[row - 1];
			const struct folder *f = &m->folders[r->part];
			const struct machine *mc = f->machine >= 0 ? &m->mach[f->machine] : NULL;
			struct conf c = { r->workers, r->batch_size, r->gpus };
			int in_ov = f->compared && merge_conf_find(m->overlap, m->noverlap, &c) >= 0;
			long k = mc && merge_ok_row(r) ? merge_conf_find(mc->own, mc->nown, &c) : -1;
			const struct merge_point *p = k >= 0 ? &mc->ownpt[k] : NULL;
			csv_put(out, f->host);
			csv_put_next(out, f->cpu);
			fprintf(out, ",%d,%d", f->cpus, f->cores);
			csv_put_next(out, mc ? mc->label : "");
			csv_put_next(out, f->name);
			fprintf(out, ",%d,%d", f->compared, in_ov);
			if (merge_ok_row(r))
				fprintf(out, ",%d,%d", merge_row_noisy(r),
					report_oversubscribed(r, f->cpus));
			else
				fputs(",,", out);
			if (p)
				fprintf(out, ",%zu", p->runs);
			else
				fputc(',', out);
			merge_put_spread(out, p ? &p->images_per_s : NULL);
			merge_put_spread(out, p ? &p->e2e_s : NULL);
			csv_put_next(out, merge_interval_name(p ? &p->images_per_s : NULL));
			fprintf(out, ",%s", line);
		}
		row++;
	}
	if (ferror(in) || ferror(out)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		goto out;
	}
	rc = 0;
out:
	free(line);
	free(all.rows);
	if (in)
		fclose(in);
	if (out && fclose(out) && !rc) {
		errf(err, errlen, "cannot write '%s': %s", tmp2, strerror(errno));
		rc = -1;
	}
	unlink(tmp);
	if (!rc && rename(tmp2, path)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(tmp2);
	return rc;
}

int merge_write_comparison(const struct merge *m, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	long fast = merge_fastest(m, 1);

	if (!f) {
		errf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fast < 0)
		fast = merge_fastest(m, 0);
	fprintf(f, "machine,hosts,cpu_model,cpus_online,cores,compared_configs,best_workers,"
		   "best_batch,best_gpus,best_runs,best_clean,best_noisy_runs,"
		   "best_oversubscribed_runs,interval,best_e2e_s,best_e2e_s_lo,best_e2e_s_hi,"
		   "best_images_per_s,best_images_per_s_lo,best_images_per_s_hi,"
		   "images_per_s_per_core,images_per_s_per_core_lo,images_per_s_per_core_hi,"
		   "cpu_ms_per_image,cpu_ms_per_image_lo,cpu_ms_per_image_hi,gpu_util_pct,"
		   "gpu_util_pct_lo,gpu_util_pct_hi,knee_batch,knee_gpus,knee_workers,knee_verdict,"
		   "fastest_over_this,fastest_over_this_lo,fastest_over_this_hi,"
		   "fastest_over_this_verdict,usd_per_hour,usd_per_million_images,"
		   "usd_per_million_images_lo,usd_per_million_images_hi\n");
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		const struct merge_point *p = mc->best >= 0 ? &mc->pt[mc->best] : NULL;
		const struct conf *c = mc->best >= 0 ? &m->overlap[mc->best] : NULL;
		long s = c ? merge_series_of(m, c) : -1;
		struct stats_summary pc;
		double cost[3] = { NAN, NAN, NAN };

		csv_put(f, mc->label);
		csv_put_next(f, mc->hosts);
		csv_put_next(f, mc->cpu);
		fprintf(f, ",%d,%d,%zu,", mc->cpus, mc->cores, m->noverlap);
		if (c)
			fprintf(f, "%d,%d,%d,%zu,%d,%zu,%zu", c->workers, c->batch_size, c->gpus, p->runs, mc->best_clean,
				p->noisy, p->oversubscribed);
		else
			fprintf(f, ",,,,,,");
		csv_put_next(f, merge_interval_name(p ? &p->images_per_s : NULL));
		merge_put_spread(f, p ? &p->e2e_s : NULL);
		merge_put_spread(f, p ? &p->images_per_s : NULL);
		if (p)
			pc = merge_per_core(mc, p);
		merge_put_spread(f, p ? &pc : NULL);
		merge_put_spread(f, p ? &p->cpu_ms_per_image : NULL);
		merge_put_spread(f, p ? &p->gpu_util_pct : NULL);
		if (s >= 0) {
			fprintf(f, ",%d,%d,", c->batch_size, c->gpus);
			if (mc->knee[s].knee_workers)
				fprintf(f, "%d", mc->knee[s].knee_workers);
			csv_put_next(f, verdict_name(mc->knee[s].v));
		} else {
			fputs(",,,,", f);
		}
		if (p && fast >= 0 && (long)i != fast) {
			const struct machine *fm = &m->mach[fast];
			struct merge_ratio r;
			merge_ratio_of(&fm->pt[fm->best].images_per_s, &p->images_per_s, &r);
			merge_put_num(f, r.r);
			merge_put_num(f, r.lo);
			merge_put_num(f, r.hi);
			csv_put_next(f, isfinite(r.r) ? merge_judgement_name(r.v) : "");
		} else {
			fputs(",,,,", f);
		}
		merge_put_num(f, mc->price);
		if (p)
			merge_cost_of(mc, p, &cost[0], &cost[1], &cost[2]);
		for (int k = 0; k < 3; k++)
			merge_put_num(f, cost[k]);
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
