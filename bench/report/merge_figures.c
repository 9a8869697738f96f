/* ppbench merge: the figures' data, the model's lines (--model on) and
 * gnuplot (plots/merge_*.gp) (merge.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "doc.h"
#include "escape.h"
#include "fsutil.h"
#include "log.h"
#include "model.h"
#include "plot.h"
#include "merge_int.h"

/* the label of series (machine i, batch b, GPUs g) */
static void series_label(const struct merge *m, size_t i, int b, int g, int several,
			 char *out, size_t n)
{
	errf(out, n, "%s", m->mach[i].label);
	if (several)
		merge_cat(out, n, " b%d / %d GPU%s", b, g, g == 1 ? "" : "s");
}

/* The run a machine's series (batch b, g GPUs) is modelled from: its ok
 * run with the fewest workers (the first repeat); NULL if none. */
static const struct sweep_row *model_source(const struct machine *mc, int b, int g)
{
	const struct sweep_row *src = NULL;
	for (size_t r = 0; r < mc->nrows; r++) {
		const struct sweep_row *x = &mc->rows[r];
		if (merge_ok_row(x) && x->run_dir[0] && x->batch_size == b && x->gpus == g &&
		    (!src || x->workers < src->workers))
			src = x;
	}
	return src;
}

/* --model on: each machine at each compared configuration, modelled
 * (ppbench model) from its series' run with the fewest workers: its costs,
 * settings and machine (model_like_run). Fills mc->mod; a series that
 * cannot be modelled says why in mc->model_why. */
int merge_model_machines(struct merge *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->nmach; i++) {
		struct machine *mc = &m->mach[i];
		mc->mod = calloc(m->noverlap + 1, sizeof(*mc->mod));
		if (!mc->mod) {
			errf(err, errlen, "out of memory");
			return -1;
		}
		for (size_t k = 0; k < m->noverlap; k++) {
			const struct conf *c = &m->overlap[k];
			const struct sweep_row *src = model_source(mc, c->batch_size, c->gpus);
			struct run_metrics rm;
			char dir[4096], why[512];
			mc->mod[k].e2e_s = mc->mod[k].images_per_s = mc->mod[k].gpu_util_pct = NAN;
			if (!src)
				continue;
			sweep_run_path(&m->folders[src->part].sw, src, "", dir, sizeof(dir));
			if (model_like_run(dir, c->workers, &rm, why, sizeof(why))) {
				if (!mc->model_why[0])
					errf(mc->model_why, sizeof(mc->model_why), "%s", why);
				continue;
			}
			mc->mod[k].e2e_s = rm.e2e_s;
			mc->mod[k].images_per_s = rm.images_per_s;
			mc->mod[k].gpu_util_pct = rm.gpu_util_pct;
			mc->mod[k].src_workers = src->workers;
			analysis_free(&rm);
		}
	}
	return 0;
}

int merge_write_fig_data(const struct merge *m, const char *dir, char *err, size_t errlen)
{
	char p[4096];
	int series = 0;
	FILE *f;

	errf(p, sizeof(p), "%s/machines_vs_workers.csv", dir);
	f = fopen(p, "w");
	if (!f)
		goto fail;
	fprintf(f, "series,series_label,machine,kind,workers,batch,gpus,runs,interval,e2e_s,e2e_s_lo,"
		   "e2e_s_hi,images_per_s,images_per_s_lo,images_per_s_hi,images_per_s_per_core,"
		   "images_per_s_per_core_lo,images_per_s_per_core_hi,cpu_ms_per_image,"
		   "cpu_ms_per_image_lo,cpu_ms_per_image_hi,gpu_util_pct,gpu_util_pct_lo,"
		   "gpu_util_pct_hi,noisy_runs,oversubscribed_runs\n");
	/* the measured series, then (--model on) the model's */
	for (int model = 0; model <= m->model; model++)
		for (size_t i = 0; i < m->nmach; i++)
			for (size_t s = 0; s < m->nbg; s++) {
				const struct machine *mc = &m->mach[i];
				char label[400], ml[420];
				int any = 0;
				for (size_t k = 0; model && k < m->noverlap; k++)
					any |= m->overlap[k].batch_size == m->bg[s].batch_size && m->overlap[k].gpus == m->bg[s].gpus &&
					       isfinite(mc->mod[k].e2e_s);
				if (model && !any)
					continue;
				series++;
				series_label(m, i, m->bg[s].batch_size, m->bg[s].gpus, m->nbg > 1, label, sizeof(label));
				errf(ml, sizeof(ml), "model: %s", label);
				/* the overlap is in batch, GPUs, workers order: workers ascend */
				for (size_t k = 0; k < m->noverlap; k++) {
					const struct conf *c = &m->overlap[k];
					const struct merge_point *pt = &mc->pt[k];
					if (c->batch_size != m->bg[s].batch_size || c->gpus != m->bg[s].gpus)
						continue;
					fprintf(f, "%d", series);
					csv_put_next(f, model ? ml : label);
					csv_put_next(f, mc->label);
					fprintf(f, ",%s,%d,%d,%d", model ? "model" : "measured", c->workers, c->batch_size,
						c->gpus);
					if (model) {
						const struct model_point *q = &mc->mod[k];
						double pc = mc->cores > 0 ? q->images_per_s / mc->cores : NAN;
						fputs(",,", f);
						merge_put_num(f, q->e2e_s);
						fputs(",,", f);
						merge_put_num(f, q->images_per_s);
						fputs(",,", f);
						merge_put_num(f, pc);
						fputs(",,,,,", f);
						merge_put_num(f, q->gpu_util_pct);
						fputs(",,,,\n", f);
						continue;
					}
					struct stats_summary pc = merge_per_core(mc, pt);
					fprintf(f, ",%zu", pt->runs);
					csv_put_next(f, merge_interval_name(&pt->images_per_s));
					merge_put_spread(f, &pt->e2e_s);
					merge_put_spread(f, &pt->images_per_s);
					merge_put_spread(f, &pc);
					merge_put_spread(f, &pt->cpu_ms_per_image);
					merge_put_spread(f, &pt->gpu_util_pct);
					fprintf(f, ",%zu,%zu\n", pt->noisy, pt->oversubscribed);
				}
			}
	if (ferror(f) | fclose(f))
		goto fail;

	errf(p, sizeof(p), "%s/machines_op_cpu.csv", dir);
	f = fopen(p, "w");
	if (!f)
		goto fail;
	fprintf(f, "op");
	for (size_t i = 0; i < m->nmach; i++)
		csv_put_next(f, m->mach[i].label);
	fputc('\n', f);
	for (size_t k = 0; m->op_conf >= 0 && k < m->nops; k++) {
		int any = 0;
		for (size_t i = 0; i < m->nmach; i++)
			any |= isfinite(m->mach[i].pt[m->op_conf].op_ms[k]);
		if (!any)
			continue;
		csv_put(f, m->ops[k]);
		for (size_t i = 0; i < m->nmach; i++)
			merge_put_num(f, m->mach[i].pt[m->op_conf].op_ms[k]);
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f))
		goto fail;
	return 0;
fail:
	errf(err, errlen, "cannot write '%s': %s", p, strerror(errno ? errno : EIO));
	return -1;
}

/* gnuplot -c plots/SCRIPT args... (output to log); then OUT.png and OUT.svg
 * must be valid. 0, or -1 with why. */
static int run_gnuplot(const char *top, const char *script, const char *log, const char *out,
		       char *const *args, char *why, size_t whylen)
{
	char png[4096], svg[4096];

	errf(png, sizeof(png), "%s.png", out);
	errf(svg, sizeof(svg), "%s.svg", out);
	unlink(png);
	unlink(svg);
	if (plot_run(top, script, (const char *const *)args, log, why, whylen))
		return -1;
	if (!file_has_magic(png, "\x89PNG\r\n\x1a\n", 8, 8) ||
	    !file_has_magic(svg, "<svg", 4, 1024)) {
		errf(why, whylen, "gnuplot wrote no valid PNG and SVG for plots/%s "
		    "(see figures/gnuplot.log)", script);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name, *column, *ylabel, *title;
} vs_figs[] = {
	{ "merge_e2e_vs_workers", "e2e_s", "end-to-end time (s)",
	  "End-to-end time against workers, by machine" },
	{ "merge_images_per_s_vs_workers", "images_per_s", "throughput (images/s)",
	  "Throughput against workers, by machine" },
	{ "merge_images_per_s_per_core_vs_workers", "images_per_s_per_core",
	  "throughput per core (images/s per core)", "Throughput per core against workers" },
	{ "merge_cpu_per_image_vs_workers", "cpu_ms_per_image",
	  "total CPU time per image (ms; workers + main)", "CPU time per image against workers" },
	{ "merge_gpu_util_vs_workers", "gpu_util_pct", "GPU busy (% of the run)",
	  "Simulated GPU utilization against workers" },
};
#define NVS (sizeof(vs_figs) / sizeof(vs_figs[0]))

void merge_draw_figures(struct merge *m)
{
	char figdir[4096], data[4096], log[4096], out[4096], sub[160], why[320] = "";
	int have_top = !find_top(TOP_OF_PLOTS, m->top, sizeof(m->top));

	errf(figdir, sizeof(figdir), "%s/figures", m->out);
	errf(log, sizeof(log), "%s/gnuplot.log", figdir);
	unlink(log);
	if (!have_top)
		errf(why, sizeof(why), "the plots/ folder is not found (run ppbench from its repository)");
	else if (m->nmach < 1 || !m->noverlap)
		errf(why, sizeof(why), "no configuration ran on every machine");
	for (size_t i = 0; i <= NVS; i++) {
		struct fig *fg = &m->figs[m->nfigs++];
		int op = i == NVS;
		errf(fg->name, sizeof(fg->name), "%s", op ? "merge_op_cpu_per_image" : vs_figs[i].name);
		if (op) {
			char cn[64];
			merge_conf_name(m->op_conf >= 0 ? &m->overlap[m->op_conf] : &(struct conf){ 0, 0, 0 },
				  cn, sizeof(cn));
			errf(sub, sizeof(sub), "at %s, the compared configuration with the fewest workers",
			    cn);
			errf(fg->title, sizeof(fg->title), "CPU time per image, by op (%s)", sub);
		} else {
			errf(fg->title, sizeof(fg->title), "%s", vs_figs[i].title);
		}
		if (why[0]) {
			errf(fg->why, sizeof(fg->why), "%s", why);
			continue;
		}
		errf(out, sizeof(out), "%s/%s", figdir, fg->name);
		if (op) {
			char *args[] = { data, out, sub, NULL };
			errf(data, sizeof(data), "%s/data/machines_op_cpu.csv", figdir);
			if (!m->nops) {
				errf(fg->why, sizeof(fg->why), "the runs recorded no per-op CPU time");
				continue;
			}
			fg->drawn = !run_gnuplot(m->top, "merge_op_cpu.gp", log, out, args, fg->why,
						 sizeof(fg->why));
		} else {
			char *args[] = { data, out, (char *)vs_figs[i].column, (char *)vs_figs[i].ylabel,
					 (char *)vs_figs[i].title, NULL };
			errf(data, sizeof(data), "%s/data/machines_vs_workers.csv", figdir);
			fg->drawn = !run_gnuplot(m->top, "merge_vs_workers.gp", log, out, args, fg->why,
						 sizeof(fg->why));
		}
		if (!fg->drawn && strstr(fg->why, "not installed"))
			errf(why, sizeof(why), "%s", fg->why);
	}
}

void merge_figure(struct doc *d, const struct fig *fg)
{
	doc_figure(d, fg->name, fg->title, fg->drawn ? NULL : fg->why);
}

void merge_conf_list(const struct conf *c, size_t n, char *out, size_t len)
{
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		char cn[64];
		merge_conf_name(&c[i], cn, sizeof(cn));
		merge_cat(out, len, "%s%s", i ? ", " : "", cn);
	}
}
