/* ppbench merge: report.md and report.html (doc.c) (merge.h). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include "doc.h"
#include "log.h"
#include "metrics.h"
#include "resdir.h"
#include "merge_int.h"

static void write_compat(struct doc *d, const struct merge *m, long ref)
{
	const struct folder *r = &m->folders[ref];
	char ds[1300];
	size_t nout = 0;

	doc_h(d, 2, "What is compared");
	merge_ds_text(r, ds, sizeof(ds));
	doc_p(d, "Results are compared only when the sweeps used the same dataset, pipeline, "
		"ppbench version, run options and page-cache policy. The compared sweeps used: "
		"dataset %s; pipeline '%s'; ppbench %s; run options '%s'; page cache %s between runs.",
	     ds, r->pipeline[0] ? r->pipeline : "?",
	     r->version[0] ? r->version : "(version not recorded)", r->run_args, r->cache);
	if (!r->version[0])
		doc_p(d, "Note: these sweep folders do not record the ppbench version (no "
			"\"ppbench_version\" in sweep.json or summary.json), so it could not be checked.");
	if (!r->ds_fp[0] && !isfinite(r->ds_images))
		doc_p(d, "Note: these sweep folders record the dataset by its path only (no image "
			"count, size or fingerprint), so the same path is taken for the same dataset.");
	for (size_t i = 0; i < m->nfolders; i++)
		nout += !m->folders[i].compared;
	if (!nout) {
		if (m->nfolders > 1)
			doc_p(d, "All %zu sweep folders match.", m->nfolders);
		return;
	}
	doc_p(d, "Not compared (%zu of %zu sweep folders):", nout, m->nfolders);
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *f = &m->folders[i];
		if (f->compared)
			continue;
		doc_li(d, "%s (%s): %s", f->name, f->host, f->why);
	}
	doc_list_end(d);
}

static void write_overlap(struct doc *d, const struct merge *m)
{
	char list[4096];
	int differ = 0;

	for (size_t i = 0; i < m->nmach; i++)
		differ |= m->mach[i].nown != m->noverlap;
	merge_conf_list(m->overlap, m->noverlap, list, sizeof(list));
	if (m->nmach < 2) {
		doc_p(d, "One machine: nothing to compare it with; its results are shown as they are.");
		return;
	}
	if (!differ) {
		doc_p(d, "Every machine ran the same %zu configuration%s (workers-batch-GPUs): %s.",
		     m->noverlap, m->noverlap == 1 ? "" : "s", list);
		return;
	}
	if (!m->noverlap) {
		doc_p(d, "The machines ran different configurations and no configuration ran on every "
			"machine: they cannot be compared. Each machine's own configurations are "
			"listed below.");
	} else {
		doc_p(d, "The machines ran different configurations: they are compared only where they "
			"overlap, on the %zu configuration%s that every machine ran (workers-batch-GPUs): "
			"%s. Left out:", m->noverlap, m->noverlap == 1 ? "" : "s", list);
	}
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		char own[4096] = "";
		if (m->noverlap && mc->nown == m->noverlap)
			continue;
		for (size_t j = 0; j < mc->nown; j++) {
			char cn[64];
			if (merge_conf_find(m->overlap, m->noverlap, &mc->own[j]) >= 0)
				continue;
			merge_conf_name(&mc->own[j], cn, sizeof(cn));
			merge_cat(own, sizeof(own), "%s%s", own[0] ? ", " : "", cn);
		}
		doc_li(d, "%s: %s", mc->label, own[0] ? own : "(none)");
	}
	doc_list_end(d);
}

/* "b32 / 2 GPUs: knee at 3 workers (holds)": the knee of series s */
static void knee_text(const struct merge *m, const struct machine *mc, long s, char *out, size_t n)
{
	const struct finding *k;

	if (s < 0) {
		errf(out, n, "-");
		return;
	}
	k = &mc->knee[s];
	errf(out, n, "b%d / %d GPU%s: ", m->bg[s].batch_size, m->bg[s].gpus, m->bg[s].gpus == 1 ? "" : "s");
	if (k->knee_workers)
		merge_cat(out, n, "knee at %d workers (%s)", k->knee_workers, verdict_name(k->v));
	else if (k->v == VERDICT_CANNOT_JUDGE)
		merge_cat(out, n, "%s", verdict_name(k->v));
	else
		merge_cat(out, n, "no knee in range (%s)", verdict_name(k->v));
}

static void write_table(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"machine", "CPU", "CPUs / cores", "best configuration", "images/s",
		"images/s per core", "CPU ms per image", "knee of the best configuration's series",
		"noise", "USD per hour", "USD per million images",
	};
	enum { NC = sizeof(hdr) / sizeof(hdr[0]) };
	int priced = 0;

	doc_h(d, 2, "Machines");
	if (!m->noverlap) {
		doc_p(d, "No configuration ran on every machine: no comparison.");
		return;
	}
	doc_row(d, hdr, NC, 1);
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		const struct merge_point *p = &mc->pt[mc->best];
		struct stats_summary pc = merge_per_core(mc, p);
		char c[NC][256], cn[64];
		double cost[3];
		merge_conf_name(&m->overlap[mc->best], cn, sizeof(cn));
		errf(c[0], sizeof(c[0]), "%s", mc->label);
		errf(c[1], sizeof(c[1]), "%s", mc->cpu);
		errf(c[2], sizeof(c[2]), "%d / %d%s", mc->cpus, mc->cores, mc->cores_known ? "" : "*");
		errf(c[3], sizeof(c[3]), "%s", cn);
		merge_format(c[4], sizeof(c[4]), &p->images_per_s, "%.1f");
		merge_format(c[5], sizeof(c[5]), &pc, "%.2f");
		merge_format(c[6], sizeof(c[6]), &p->cpu_ms_per_image, "%.2f");
		knee_text(m, mc, merge_series_of(m, &m->overlap[mc->best]), c[7], sizeof(c[7]));
		merge_marks(p, c[8], sizeof(c[8]));
		if (!c[8][0])
			errf(c[8], sizeof(c[8]), "clean");
		else if (!mc->best_clean)
			merge_cat(c[8], sizeof(c[8]), "; no clean configuration on this machine");
		merge_num(c[9], sizeof(c[9]), mc->price, "%.4g");
		merge_cost_of(mc, p, &cost[0], &cost[1], &cost[2]);
		if (isfinite(cost[0]) && p->runs > 1)
			errf(c[10], sizeof(c[10]), "%.4g [%.4g, %.4g]", cost[0], cost[1], cost[2]);
		else
			merge_num(c[10], sizeof(c[10]), cost[0], "%.4g");
		priced |= isfinite(mc->price);
		doc_row_cells(d, c[0], sizeof(c[0]), NC);
	}
	doc_table_end(d);
	doc_p(d, "Best configuration: the compared configuration with the highest median images/s "
		"on that machine among its clean ones (no run noisy, none oversubscribed), else among "
		"all (the noise column then says so). Each figure is the median over the machine's "
		"runs at that configuration (its repeats, and the runs of several sweep folders of "
		"one machine), with its spread: (min, max, n) below 6 runs, [the 95 %% "
		"distribution-free interval of the median] from 6 on, (n=1) for a single run. "
		"Images/s per core: at that configuration, over the physical cores of the machine's "
		"hwloc topology (* : no topology.xml, the online CPUs are counted instead). CPU ms per "
		"image: the CPU time of the workers and the main process (rusage) over the images of "
		"the run. Noise: runs in which other processes took over %.0f %% of the CPUs "
		"(NOISY), or with more busy threads than CPUs (oversubscribed).", REPORT_BUSY_PCT);
	if (priced)
		doc_p(d, "USD per million images = USD per hour / 3600 / (images/s at the best "
			"configuration) x 10^6: what a million images cost on that machine at its best "
			"throughput, with the machine to itself; in brackets from the images/s interval.");
	else
		doc_p(d, "No --price NAME=USD_PER_HOUR was given: no cost per million images.");

	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		if (mc->own_best >= 0 && merge_conf_find(m->overlap, m->noverlap, &mc->own[mc->own_best]) < 0) {
			char cn[64], a[160], b[160];
			merge_conf_name(&mc->own[mc->own_best], cn, sizeof(cn));
			merge_format(a, sizeof(a), &mc->ownpt[mc->own_best].images_per_s, "%.1f");
			merge_format(b, sizeof(b), &mc->pt[mc->best].images_per_s, "%.1f");
			doc_p(d, "%s: its best run overall, %s at %s images/s, is outside the compared "
				"configurations (%s images/s at its best compared one).", mc->label, cn, a, b);
		}
	}
}

/* "A / B: 1.16x [0.98, 1.35], within noise" for one pair, into out */
static void ratio_sentence(const char *what, const struct machine *a, const struct machine *b,
			   const struct stats_summary *sa, const struct stats_summary *sb,
			   char *out, size_t n)
{
	struct merge_ratio r;
	char t[160];

	merge_ratio_of(sa, sb, &r);
	merge_ratio_format(t, sizeof(t), &r);
	merge_cat(out, n, "%s%s / %s, %s: %s", out[0] ? "; " : "", a->label, b->label, what, t);
	if (r.v == MERGE_HIGHER)
		merge_cat(out, n, " (%s is faster beyond noise)", a->label);
	else if (r.v == MERGE_WITHIN_NOISE)
		merge_cat(out, n, " (no faster machine: the difference is noise)");
	else if (r.v == MERGE_NOT_JUDGED)
		merge_cat(out, n, " (sweep --repeat 3 or more judges it)");
}

/* The machine with the highest median images/s per core at its clean best; -1 if none. */
static long most_per_core(const struct merge *m)
{
	long best = -1;
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		struct stats_summary a, b;
		if (!mc->best_clean || mc->cores <= 0)
			continue;
		a = merge_per_core(mc, &mc->pt[mc->best]);
		if (best >= 0)
			b = merge_per_core(&m->mach[best], &m->mach[best].pt[m->mach[best].best]);
		if (best < 0 || a.median > b.median)
			best = (long)i;
	}
	return best;
}

/* the fastest, the most per core and the cheapest machine, each ratio
 * judged on the intervals, from the clean configurations only */
static void write_short(struct doc *d, const struct merge *m)
{
	long fast = merge_fastest(m, 1), core = most_per_core(m), cheap = -1;
	char text[4096] = "", a[160], b[160], none[1024] = "";
	size_t nclean = 0;

	if (m->nmach < 2 || !m->noverlap)
		return;
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		double cost[3], cc[3];
		if (!mc->best_clean) {
			merge_cat(none, sizeof(none), "%s%s", none[0] ? ", " : "", mc->label);
			continue;
		}
		nclean++;
		merge_cost_of(mc, &mc->pt[mc->best], &cost[0], &cost[1], &cost[2]);
		if (cheap >= 0)
			merge_cost_of(&m->mach[cheap], &m->mach[cheap].pt[m->mach[cheap].best], &cc[0], &cc[1],
				&cc[2]);
		if (isfinite(cost[0]) && (cheap < 0 || cost[0] < cc[0]))
			cheap = (long)i;
	}
	if (none[0])
		doc_p(d, "No clean configuration (every compared one had a noisy or oversubscribed "
			"run) on: %s. No headline ratio rests on %s; the tables below mark each "
			"configuration. To judge %s, sweep again with --require-idle, no more workers "
			"than CPUs, and --repeat 3 or more.", none, !nclean ? "any machine" :
			"those machines", !nclean ? "them" : "those");
	if (nclean < 2 || fast < 0) {
		doc_p(d, "In short: fewer than two machines have a clean compared configuration, so "
			"there is no headline ratio; the table of each configuration below gives the "
			"ratios with their marks.");
		return;
	}
	const struct machine *fm = &m->mach[fast];
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		if ((long)i == fast || !mc->best_clean)
			continue;
		ratio_sentence("images/s", fm, mc, &fm->pt[fm->best].images_per_s,
			       &mc->pt[mc->best].images_per_s, text, sizeof(text));
	}
	merge_format(a, sizeof(a), &fm->pt[fm->best].images_per_s, "%.1f");
	{
		char cn[64];
		merge_conf_name(&m->overlap[fm->best], cn, sizeof(cn));
		doc_p(d, "In short (each machine at its best clean compared configuration; ratios of "
			"the medians, with the interval lo_a / hi_b .. hi_a / lo_b of the two sides' "
			"intervals, within noise when it holds 1): the highest median images/s: %s, %s "
			"at %s. %s.", fm->label, a, cn, text);
	}
	if (core >= 0) {
		const struct machine *cm = &m->mach[core];
		struct stats_summary pc = merge_per_core(cm, &cm->pt[cm->best]);
		text[0] = 0;
		for (size_t i = 0; i < m->nmach; i++) {
			const struct machine *mc = &m->mach[i];
			struct stats_summary x;
			if ((long)i == core || !mc->best_clean || mc->cores <= 0)
				continue;
			x = merge_per_core(mc, &mc->pt[mc->best]);
			ratio_sentence("images/s per core", cm, mc, &pc, &x, text, sizeof(text));
		}
		merge_format(b, sizeof(b), &pc, "%.2f");
		doc_p(d, "The highest median images/s per core: %s, %s%s%s.", cm->label, b,
		      text[0] ? ". " : "", text);
	}
	if (cheap >= 0) {
		const struct machine *xm = &m->mach[cheap];
		double cost[3];
		merge_cost_of(xm, &xm->pt[xm->best], &cost[0], &cost[1], &cost[2]);
		if (xm->pt[xm->best].runs > 1)
			errf(a, sizeof(a), "%.4g [%.4g, %.4g]", cost[0], cost[1], cost[2]);
		else
			errf(a, sizeof(a), "%.4g, one run", cost[0]);
		doc_p(d, "The lowest median cost per million images (of the machines with a --price): "
			"%s (%s USD).", xm->label, a);
	}
}

static void write_configs(struct doc *d, const struct merge *m)
{
	size_t nc = 2 * m->nmach + 1;
	const char **hdr = calloc(nc + 1, sizeof(*hdr));
	char (*c)[256] = calloc(nc + 1, sizeof(*c));
	char (*h)[400] = calloc(nc + 1, sizeof(*h));

	if (!hdr || !c || !h || !m->noverlap || m->nmach < 1)
		goto out;
	doc_h(d, 2, "Images/s at each compared configuration");
	hdr[0] = "configuration";
	for (size_t i = 0; i < m->nmach; i++)
		hdr[i + 1] = m->mach[i].label;
	for (size_t i = 1; i < m->nmach; i++) {
		errf(h[i], sizeof(h[i]), "%s / %s", m->mach[i].label, m->mach[0].label);
		hdr[m->nmach + i] = h[i];
	}
	hdr[2 * m->nmach] = "noise";
	doc_row(d, hdr, nc, 1);
	for (size_t k = 0; k < m->noverlap; k++) {
		char marks[400];
		merge_conf_name(&m->overlap[k], c[0], sizeof(c[0]));
		c[2 * m->nmach][0] = 0;
		for (size_t i = 0; i < m->nmach; i++) {
			const struct merge_point *p = &m->mach[i].pt[k];
			merge_format(c[i + 1], sizeof(c[i + 1]), &p->images_per_s, "%.1f");
			if (i) {
				struct merge_ratio r;
				merge_ratio_of(&p->images_per_s, &m->mach[0].pt[k].images_per_s, &r);
				merge_ratio_format(c[m->nmach + i], sizeof(c[m->nmach + i]), &r);
			}
			merge_marks(p, marks, sizeof(marks));
			if (marks[0])
				merge_cat(c[2 * m->nmach], sizeof(c[2 * m->nmach]), "%s%s: %s",
				    c[2 * m->nmach][0] ? "; " : "", m->mach[i].label, marks);
		}
		if (!c[2 * m->nmach][0])
			errf(c[2 * m->nmach], sizeof(c[2 * m->nmach]), "clean");
		doc_row_cells(d, c[0], sizeof(c[0]), nc);
	}
	doc_table_end(d);
	if (m->nmach > 1)
		doc_p(d, "Each ratio is of the medians, with the interval lo_a / hi_b .. hi_a / lo_b "
			"of the two sides' intervals; within noise when it holds 1; not judged when a "
			"side has a single run (one run shows no spread). A configuration marked NOISY or "
			"oversubscribed on any machine is no basis for a ratio.");
out:
	free(hdr);
	free(c);
	free(h);
}

static void write_knees(struct doc *d, const struct merge *m)
{
	doc_h(d, 2, "Where adding workers stops helping");
	doc_p(d, "The rule (the same as ppbench report's diminishing-returns finding): %s. It is "
		"applied to each machine's compared configurations of each batch size and GPU count "
		"(series) on its own.", REPORT_RULE_DIMINISHING);
	for (size_t i = 0; i < m->nmach; i++) {
		if (!m->noverlap)
			doc_li(d, "%s: no compared configuration (-)", m->mach[i].label);
		for (size_t s = 0; s < m->nbg; s++)
			doc_li(d, "%s, b%d / %d GPU%s: %s (%s)", m->mach[i].label, m->bg[s].batch_size, m->bg[s].gpus,
			       m->bg[s].gpus == 1 ? "" : "s", m->mach[i].knee[s].why,
			       verdict_name(m->mach[i].knee[s].v));
	}
	doc_list_end(d);
}

/* --model on: the model beside each machine's measurement */
static void write_model(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"machine", "configuration", "measured images/s", "model images/s (a model)",
		"model / measured", "modelled from",
	};

	if (!m->model || !m->noverlap)
		return;
	doc_h(d, 2, "The model beside the measurement");
	doc_p(d, "--model on: ppbench model's figures for each machine at each compared "
		"configuration, from the costs, settings and machine of that machine's run with the "
		"fewest workers in the same batch size and GPU count (the model of ppbench model "
		"--validate's validation 2). A model, not a measurement: the figures draw it as the "
		"series \"model: <machine>\".");
	doc_row(d, hdr, 6, 1);
	for (size_t i = 0; i < m->nmach; i++) {
		const struct machine *mc = &m->mach[i];
		for (size_t k = 0; k < m->noverlap; k++) {
			const struct model_point *q = &mc->mod[k];
			char c[6][256];
			errf(c[0], sizeof(c[0]), "%s", mc->label);
			merge_conf_name(&m->overlap[k], c[1], sizeof(c[1]));
			merge_format(c[2], sizeof(c[2]), &mc->pt[k].images_per_s, "%.1f");
			merge_num(c[3], sizeof(c[3]), q->images_per_s, "%.1f");
			merge_num(c[4], sizeof(c[4]), q->images_per_s / mc->pt[k].images_per_s.median, "%.2f");
			if (isfinite(q->images_per_s))
				errf(c[5], sizeof(c[5]), "its w%d run", q->src_workers);
			else
				errf(c[5], sizeof(c[5]), "not modelled");
			doc_row_cells(d, c[0], sizeof(c[0]), 6);
		}
	}
	doc_table_end(d);
	for (size_t i = 0; i < m->nmach; i++)
		if (m->mach[i].model_why[0])
			doc_p(d, "%s: not every configuration could be modelled: %s.", m->mach[i].label,
			      m->mach[i].model_why);
}

/* The GPU step every compared folder with a what-if ran batch b and g GPUs
 * with (seconds), NaN when none says or they differ (*differ set). */
static double common_gpu_step(const struct merge *m, int b, int g, int *differ)
{
	double step = NAN;
	*differ = 0;
	for (size_t i = 0; i < m->nfolders; i++) {
		double s;
		if (!m->folders[i].compared ||
		    !json_is_object(json_object_get(m->folders[i].sw.doc, "fused_whatif")))
			continue;
		s = report_gpu_step_s(&m->folders[i].sw, 0, b, g);
		if (!isfinite(s))
			continue;
		if (isfinite(step) && fabs(s - step) > 1e-9 * fabs(step))
			*differ = 1;
		step = s;
	}
	return *differ ? NAN : step;
}

/* Each machine's what-if measurement: a row per compared folder that has
 * one, "not measured" for a machine with none. Returns the rows measured. */
static size_t whatif_measured_table(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"machine", "sweep folder", "CPU ms per image, faithful", "CPU ms per image, fused",
		"CPU ms per image saved", "fused / faithful images/s", "tensors identical", "noisy",
	};
	size_t measured = 0;

	doc_row(d, hdr, 8, 1);
	for (size_t i = 0; i < m->nmach; i++) {
		size_t rows = 0;
		for (size_t j = 0; j < m->nfolders; j++) {
			const struct folder *f = &m->folders[j];
			json_t *w = json_object_get(f->sw.doc, "fused_whatif"), *nz;
			char c[8][REPORT_WHATIF_CELL];
			if (f->machine != (int)i || !json_is_object(w))
				continue;
			errf(c[0], sizeof(c[0]), "%s", m->mach[i].label);
			errf(c[1], sizeof(c[1]), "%s", f->name);
			report_whatif_cell(w, "faithful_cpu_ms_per_image", 1, "%.3f", c[2], sizeof(c[2]));
			report_whatif_cell(w, "fused_cpu_ms_per_image", 1, "%.3f", c[3], sizeof(c[3]));
			report_whatif_cell(w, "saved_cpu_ms_per_image", 1, "%.3f", c[4], sizeof(c[4]));
			report_whatif_cell(w, "fused_over_faithful_images_per_s", 1, "%.2f", c[5],
					   sizeof(c[5]));
			errf(c[6], sizeof(c[6]), "%s",
			     json_is_true(json_object_get(w, "tensors_identical")) ? "yes" : "NO");
			nz = json_object_get(w, "noise");
			if (json_is_true(json_object_get(nz, "noisy")))
				errf(c[7], sizeof(c[7]), "NOISY (others took %.0f %% of the CPUs)",
				     metric_json_get(nz, "others_cpu_pct"));
			else
				errf(c[7], sizeof(c[7]), "%s", json_is_object(nz) ? "no" : "not recorded");
			doc_row_cells(d, c[0], sizeof(c[0]), 8);
			rows++;
		}
		if (!rows) {
			const char *cells[8] = { m->mach[i].label, "-", "not measured", "not measured",
						 "not measured", "not measured", "-", "-" };
			doc_row(d, cells, 8, 0);
		}
		measured += rows;
	}
	doc_table_end(d);
	return measured;
}

/* Each measured machine's cores per GPU at each compared (batch, GPUs). */
static void whatif_demand_table(struct doc *d, const struct merge *m)
{
	const char *hdr[REPORT_WHATIF_DEMAND_COLS + 1] = { "machine" };
	int bg[64][2], nbg = 0, differ_any = 0;

	for (size_t k = 0; k < m->noverlap && nbg < 64; k++) {
		int j = 0;
		while (j < nbg && !(bg[j][0] == m->overlap[k].batch_size && bg[j][1] == m->overlap[k].gpus))
			j++;
		if (j == nbg) {
			bg[nbg][0] = m->overlap[k].batch_size;
			bg[nbg++][1] = m->overlap[k].gpus;
		}
	}
	if (!nbg) {
		doc_p(d, "No configuration ran on every machine, so there is no common GPU demand: per "
			"1,000 images/s, the cores one GPU needs are the CPU ms per image above.");
		return;
	}
	for (size_t k = 0; k < REPORT_WHATIF_DEMAND_COLS; k++)
		hdr[k + 1] = report_whatif_demand_hdr[k];
	doc_row(d, hdr, REPORT_WHATIF_DEMAND_COLS + 1, 1);
	for (int k = 0; k < nbg; k++) {
		int differ;
		double step = common_gpu_step(m, bg[k][0], bg[k][1], &differ);
		differ_any |= differ;
		for (size_t j = 0; j < m->nfolders; j++) {
			const struct folder *f = &m->folders[j];
			json_t *w = json_object_get(f->sw.doc, "fused_whatif");
			char c[REPORT_WHATIF_DEMAND_COLS + 1][REPORT_WHATIF_CELL];
			if (f->machine < 0 || !json_is_object(w))
				continue;
			errf(c[0], sizeof(c[0]), "%s (%s)", m->mach[f->machine].label, f->name);
			report_whatif_demand_cells(w, bg[k][0], bg[k][1], step, &c[1]);
			if (differ)
				errf(c[3], sizeof(c[3]), "differs between the sweeps");
			doc_row_cells(d, c[0], sizeof(c[0]), REPORT_WHATIF_DEMAND_COLS + 1);
		}
	}
	doc_table_end(d);
	if (differ_any)
		doc_p(d, "Where the sweeps' GPU steps differ, the cores are per 1,000 images/s.");
}

/* The what-if of each machine's sweeps side by side: the same pipelines
 * measured on each CPU, and the cores one GPU would need (and save) there
 * at the compared configurations' GPU demand. Nothing if no compared sweep
 * has one. */
static void write_whatif(struct doc *d, const struct merge *m)
{
	int any = 0;
	for (size_t j = 0; j < m->nfolders; j++)
		any |= m->folders[j].compared &&
		       json_is_object(json_object_get(m->folders[j].sw.doc, "fused_whatif"));
	if (!any)
		return;
	report_whatif_intro(d);
	doc_p(d, "Each sweep measured it on its own machine before its runs (one thread over the "
		"first images of the dataset, alternating passes of the faithful and the fused "
		"pipeline; each figure the median over the passes with its 95 %% interval in "
		"brackets). A machine whose sweeps have no what-if (an older sweep, or --fused off) "
		"is not measured.");
	whatif_measured_table(d, m);
	whatif_demand_table(d, m);
}

static void write_folders(struct doc *d, const struct merge *m)
{
	static const char *const hdr[] = {
		"sweep folder", "host", "CPU", "CPUs", "runs ok", "Slurm", "compared",
	};

	doc_h(d, 2, "Sweep folders");
	doc_row(d, hdr, 7, 1);
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *f = &m->folders[i];
		char cpus[32], runs[32];
		const char *cells[7] = { f->name, f->host, f->cpu, cpus, runs,
					 f->slurm[0] ? f->slurm : "-", f->compared ? "yes" : "no" };
		errf(cpus, sizeof(cpus), "%d", f->cpus);
		errf(runs, sizeof(runs), "%d of %d", f->nok, f->nruns);
		doc_row(d, cells, 7, 0);
	}
	doc_table_end(d);
}

int merge_write_report(struct merge *m, long ref, char *err, size_t errlen)
{
	char title[128], stamp[64];
	struct doc d = { .dir = m->out };
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M UTC", &tm);
	errf(title, sizeof(title), "ppbench merge: %zu machine%s", m->nmach, m->nmach == 1 ? "" : "s");
	if (doc_open(&d, "ppbench merge", title, err, errlen)) {
		doc_end(&d, 0, err, errlen);    /* closes and removes what opened */
		return -1;
	}
	{
		char names[2048] = "";
		for (size_t i = 0; i < m->nmach; i++)
			merge_cat(names, sizeof(names), "%s%s (%s)", i ? ", " : "", m->mach[i].label,
			    m->mach[i].cpu);
		doc_p(&d, "Written %s from %zu sweep folder%s. Machines%s: %s.", stamp, m->nfolders,
		      m->nfolders == 1 ? "" : "s", m->by_cpu ? " (one per CPU model, --by cpu)" : "",
		      names[0] ? names : "none");
	}
	for (size_t i = 0; i < m->nfolders; i++) {
		const struct folder *f = &m->folders[i];
		if (f->running)
			doc_lead(&d, "warn", "In progress:", "%s is a sweep still running (it holds its "
				 ".lock); %d of its %d runs are not finished yet (%s) and are missing "
				 "from this merge. Merge again when it ends.", f->name, f->npending,
				 f->nruns, f->npending ? f->pending : "none pending");
	}
	if (ref >= 0) {
		write_compat(&d, m, ref);
		write_overlap(&d, m);
		write_table(&d, m);
		write_short(&d, m);
		write_configs(&d, m);
		write_knees(&d, m);
		write_model(&d, m);
		write_whatif(&d, m);
		doc_h(&d, 2, "Figures");
		for (size_t i = 0; i < m->nfigs; i++)
			merge_figure(&d, &m->figs[i]);
	} else {
		doc_p(&d, "No run of any sweep folder succeeded: nothing to compare.");
	}
	write_folders(&d, m);
	doc_p(&d, "Files: summary.csv (every run, with host and CPU columns; compared and in_overlap "
		"say which runs the comparison used; noisy and oversubscribed mark the run; config_* "
		"give its configuration's median, lo, hi and runs on its machine), comparison.csv "
		"(one row per machine, each figure with its lo, hi and the runs), figures/data/ (the "
		"data of the figures, drawn by plots/merge_*.gp). Text fields are quoted as RFC 4180 "
		"says, and a field starting with = + - @ is prefixed with ' (README, \"CSV files\").");
	return doc_end(&d, 1, err, errlen);
}
