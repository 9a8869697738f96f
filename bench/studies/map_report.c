/* ppbench map's outputs (map.h): the default image, the output folder,
 * map.csv, ops.csv and map.md (the op-to-function table and the functions
 * shared between ops), and the kernels' note. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include "conventions.h"
#include "kernels.h"
#include "escape.h"
#include "log.h"
#include "resdir.h"
#include "map.h"

/* ---- the default image ---------------------------------------------------*/

/* A photo-like JPEG: smooth shapes, edges and texture, deterministic. */
int map_write_jpeg(const char *path, int w, int h, char *err, size_t errlen)
{
	unsigned char *rgb = malloc((size_t)w * (size_t)h * 3), *jpg = NULL;
	unsigned long jsize = 0;
	int rc = -1;
	tjhandle tj = tjInitCompress();
	if (!rgb || !tj) {
		errf(err, errlen, "cannot generate the image: out of memory");
		goto out;
	}
	uint32_t x = 2463534242u;
	for (int y = 0; y < h; y++)
		for (int i = 0; i < w; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			double u = (double)i / w, v = (double)y / h;
			double base = 0.5 + 0.35 * sin(9 * u + 4 * v) * cos(7 * v - 3 * u);
			int disk = (u - 0.6) * (u - 0.6) + (v - 0.45) * (v - 0.45) < 0.04;
			double t = (double)(x & 63) / 63.0 - 0.5;
			unsigned char *p = rgb + ((size_t)y * (size_t)w + (size_t)i) * 3;
			/* fine texture, not white noise: photos compress */
			t *= 0.3 + 0.3 * sin(60 * u + 45 * v);
			double r = base + 0.06 * t + (disk ? 0.25 : 0);
			double g = 0.8 * base + 0.05 * t + 0.1 * sin(40 * u);
			double b = 1 - base + 0.04 * t - (disk ? 0.2 : 0);
			p[0] = (unsigned char)(fmin(fmax(r, 0), 1) * 255);
			p[1] = (unsigned char)(fmin(fmax(g, 0), 1) * 255);
			p[2] = (unsigned char)(fmin(fmax(b, 0), 1) * 255);
		}
	if (tjCompress2(tj, rgb, w, 0, h, TJPF_RGB, &jpg, &jsize, TJSAMP_420, 90, 0)) {
		errf(err, errlen, "cannot generate the image: %s", tjGetErrorStr2(tj));
		goto out;
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(jpg, 1, jsize, f) != jsize || fclose(f)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (jpg)
		tjFree(jpg);
	if (tj)
		tjDestroy(tj);
	free(rgb);
	return rc;
}

/* ---- the parent ----------------------------------------------------------*/

int map_make_out_dir(const struct map_cfg *c, const char *pipe_name, char *dir, size_t n,
		     char *err, size_t errlen)
{
	if (c->out) {
		errf(dir, n, "%s", c->out);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			errf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
			return -1;
		}
		char probe[PATH_MAX + 16];
		errf(probe, sizeof(probe), "%s/map.csv", dir);
		if (!access(probe, F_OK)) {
			errf(err, errlen, "'%s' holds a map already: results are never overwritten", dir);
			return -1;
		}
		return 0;
	}
	char name[256];
	results_dir_name(name, sizeof(name), "map", pipe_name);
	if (mkdir("results", 0755) && errno != EEXIST) {
		errf(err, errlen, "cannot create 'results': %s", strerror(errno));
		return -1;
	}
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			errf(dir, n, "results/%s", name);
		else
			errf(dir, n, "results/%s-%d", name, k);
		if (!mkdir(dir, 0755))
			return 0;
		if (errno != EEXIST)
			break;
	}
	errf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
	return -1;
}


static void md_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

struct shared_fn {
	const char *lib, *fn;
	int nops;
	int op[PIPE_MAX_OPS];
	double share[PIPE_MAX_OPS];
};

/* map.csv: every function of every op. 0, or -1 (errno). */
static int write_map_csv(const char *path, const struct op_map *maps, int nmaps, const char *unit)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "op,op_index,library,function,%s,share_pct\n", unit);
	for (int i = 0; i < nmaps; i++)
		for (size_t k = 0; k < maps[i].n; k++) {
			const struct fn_cost *e = &maps[i].f[k];
			csv_put(f, maps[i].op);
			fprintf(f, ",%d", maps[i].index);
			csv_put_next(f, e->lib);
			csv_put_next(f, e->fn);
			fprintf(f, ",%.0f,%.4f\n", e->count, e->share);
		}
	return fclose(f) ? -1 : 0;
}

/* ops.csv: each op's totals. 0, or -1 (errno). */
static int write_ops_csv(const char *path, const struct op_map *maps, int nmaps, const char *tool,
			 const char *unit)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "op,op_index,tool,calls,%s,%s_per_call,d1_misses_per_call,ll_misses_per_call,"
		"marked_ms_per_call,kernels\n", unit, unit);
	for (int i = 0; i < nmaps; i++) {
		const struct op_map *m = &maps[i];
		if (!m->ok)
			continue;
		csv_put(f, m->op);
		fprintf(f, ",%d", m->index);
		csv_put_next(f, tool);
		fprintf(f, ",%llu,%.0f,%.1f,", (unsigned long long)m->calls, m->total, m->calls ? m->total / (double)m->calls : 0);
		if (m->has_cache)
			fprintf(f, "%.1f,%.1f,", m->d1_miss / (double)m->calls, m->ll_miss / (double)m->calls);
		else
			fputs(",,", f);
		fprintf(f, "%.4f,%s\n", m->calls ? m->op_ns / 1e6 / (double)m->calls : 0, m->kernels);
	}
	return fclose(f) ? -1 : 0;
}

/* Every function at or above min_share of an op, with the ops it is in
 * (those in two ops or more are the shared ones). Free the array. */
static struct shared_fn *find_shared(const struct op_map *maps, int nmaps, double min_share,
				     size_t *n)
{
	struct shared_fn *sh = NULL;
	size_t nsh = 0, capsh = 0;
	for (int i = 0; i < nmaps; i++)
		for (size_t k = 0; k < maps[i].n && maps[i].f[k].share >= min_share; k++) {
			const struct fn_cost *e = &maps[i].f[k];
			size_t j;
			for (j = 0; j < nsh; j++)
				if (!strcmp(sh[j].fn, e->fn) && !strcmp(sh[j].lib, e->lib))
					break;
			if (j == nsh) {
				if (nsh == capsh) {
					capsh = capsh ? 2 * capsh : 32;
					struct shared_fn *n2 = realloc(sh, capsh * sizeof(*sh));
					if (!n2)
						die("out of memory");
					sh = n2;
				}
				memset(&sh[nsh], 0, sizeof(sh[0]));
				sh[nsh].lib = e->lib;
				sh[nsh].fn = e->fn;
				nsh++;
			}
			if (sh[j].nops < PIPE_MAX_OPS) {
				sh[j].op[sh[j].nops] = i;
				sh[j].share[sh[j].nops++] = e->share;
			}
		}
	*n = nsh;
	return sh;
}

/* map.md's table of the ops: calls, cost per call (and cache misses). */
static void md_ops_table(FILE *f, const struct op_map *maps, int nmaps, const char *unit)
{
	int cache = 0;
	for (int i = 0; i < nmaps; i++)
		cache |= maps[i].has_cache;
	fprintf(f, "| op | calls | %s per call |%s\n|---|---:|---:|%s\n", unit,
		cache ? " D1 misses per call | LL misses per call |" : "", cache ? "---:|---:|" : "");
	for (int i = 0; i < nmaps; i++) {
		const struct op_map *m = &maps[i];
		if (!m->ok) {
			fprintf(f, "| %s | failed | |%s\n", m->op, cache ? " | |" : "");
			continue;
		}
		fprintf(f, "| %s | %llu | %.0f |", m->op, (unsigned long long)m->calls,
			m->total / (double)m->calls);
		if (m->has_cache)
			fprintf(f, " %.0f | %.0f |", m->d1_miss / (double)m->calls,
				m->ll_miss / (double)m->calls);
		else if (cache)
			fputs(" | |", f);
		fputc('\n', f);
	}
}

/* map.md's functions of each op, then those shared between ops. */
static void md_functions(FILE *f, const struct op_map *maps, int nmaps, const struct map_cfg *c)
{
	fprintf(f, "\n## Functions of each op\n\nAt most %ld per op, each at least %g %% of its op.\n\n"
		"| op | library | function | share |\n|---|---|---|---:|\n", c->top, c->min_share);
	for (int i = 0; i < nmaps; i++) {
		const struct op_map *m = &maps[i];
		for (size_t k = 0; k < m->n && k < (size_t)c->top && m->f[k].share >= c->min_share; k++) {
			fprintf(f, "| %s | ", k ? "" : m->op);
			md_escape(f, m->f[k].lib);
			fputs(" | ", f);
			md_escape(f, m->f[k].fn);
			fprintf(f, " | %.1f %% |\n", m->f[k].share);
		}
	}
	size_t nsh;
	struct shared_fn *sh = find_shared(maps, nmaps, c->min_share, &nsh);
	fprintf(f, "\n## Functions shared between ops\n\n");
	int any = 0;
	for (size_t j = 0; j < nsh; j++) {
		if (sh[j].nops < 2)
			continue;
		if (!any++)
			fprintf(f, "| library | function | ops (share) |\n|---|---|---|\n");
		fputs("| ", f);
		md_escape(f, sh[j].lib);
		fputs(" | ", f);
		md_escape(f, sh[j].fn);
		fputs(" | ", f);
		for (int k = 0; k < sh[j].nops; k++)
			fprintf(f, "%s%s (%.1f %%)", k ? ", " : "", maps[sh[j].op[k]].op, sh[j].share[k]);
		fputs(" |\n", f);
	}
	if (!any)
		fprintf(f, "None at or above %g %% in two ops.\n", c->min_share);
	free(sh);
}

static int write_outputs(const char *dir, const struct op_map *maps, int nmaps, const char *tool,
			 const char *unit, const char *image, int iw, int ih, const char *pipe_name,
			 const struct map_cfg *c, char notes[][512], int nnotes, char *err,
			 size_t errlen)
{
	char path[PATH_MAX + 32];
	errf(path, sizeof(path), "%s/map.csv", dir);
	if (write_map_csv(path, maps, nmaps, unit))
		goto fail;
	errf(path, sizeof(path), "%s/ops.csv", dir);
	if (write_ops_csv(path, maps, nmaps, tool, unit))
		goto fail;

	errf(path, sizeof(path), "%s/map.md", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "# Op-to-function map: %s\n\n", pipe_name);
	fprintf(f, "Each op ran alone on `%s` (%dx%d) under %s; shares are of the op's own %s.\n\n",
		map_base_name(image), iw, ih, tool, unit);
	for (int i = 0; i < nnotes; i++)
		fprintf(f, "- %s\n", notes[i]);
	if (nnotes)
		fputc('\n', f);
	md_ops_table(f, maps, nmaps, unit);
	md_functions(f, maps, nmaps, c);
	if (fclose(f))
		goto fail;
	return 0;
fail:
	errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
	return -1;
}

/* map.csv, ops.csv, map.md, and map.md on stdout. An exit code. */
int map_report(struct map_cmd *x)
{
	char err[1024];
	int failed = 0;
	for (int k = 0; k < x->p.nops; k++)
		failed += !x->maps[k].ok;
	if (write_outputs(x->dir, x->maps, x->p.nops, x->run.tool_name, x->run.unit, x->image,
			  x->iw, x->ih, x->p.name, &x->cfg, x->notes, x->nnotes, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	char md[PATH_MAX + 16];
	errf(md, sizeof(md), "%s/map.md", x->dir);
	FILE *f = fopen(md, "r");
	char buf[4096];
	size_t got;
	while (f && (got = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, got, stdout);
	if (f)
		fclose(f);
	info("map: wrote %s/{map.csv,ops.csv,map.md}", x->dir);
	return failed ? EXIT_FAIL : EXIT_OK;
}

/* Which kernel set the ops ran, beside the one runs use here (map.md's
 * notes): a profiler's virtual CPU may lack what this one has (valgrind
 * has no AVX-512), and then the map is of the narrower kernels. */
void map_kernels_note(struct map_cmd *x)
{
	const char *runs = kernels_active()->name, *mapped = "";
	char kd[256];

	for (int k = 0; k < x->p.nops && !mapped[0]; k++)
		if (x->maps[k].ok)
			mapped = x->maps[k].kernels;
	if (!mapped[0] || x->nnotes >= 16)
		return;
	kernels_describe(kd, sizeof(kd));
	if (!strcmp(mapped, runs))
		errf(x->notes[x->nnotes++], 512, "Kernels mapped: %s, the set runs use here (%s).",
		     mapped, kd);
	else
		errf(x->notes[x->nnotes++], 512, "Kernels mapped: %s, not the %s that runs use here "
		     "(%s): under %s the ops see %s's virtual CPU, which lacks %s, so their "
		     "inner loops are the %s kernels; `ppbench map --tool perf` maps the %s ones "
		     "(from samples; the functions differ only in their vector width).", mapped, runs,
		     kd, x->run.tool_name, x->run.tool == TOOL_CALLGRIND ? "valgrind" : "the profiler",
		     runs, mapped, runs);
	info("map: %s", x->notes[x->nnotes - 1]);
}
