/* ppbench map: which functions of which libraries each op of a pipeline
 * spends its time in (the Lotus paper's Table I, measured).
 *
 * Each op runs alone, repeatedly, on one large image, in a child process
 * (`ppbench map --child K`) that prepares the op's input with the ops
 * before it and marks only the op's own calls: under callgrind with client
 * requests toggling collection (no PMU needed; exact instruction counts,
 * simulated cache misses with --cache-sim), or under `perf record` started
 * disabled and enabled around each call through its control FIFO.
 *
 * Libraries that Debian ships stripped (libjpeg.so.62: its decoder's
 * functions are static, so a profile shows bare addresses) are replaced in
 * the children by a stand-in linked from the same package's static archive
 * (libjpeg.a keeps the names), found next to the shared object; the output
 * says which libraries were replaced.
 *
 * Output folder: map.csv (op, library, function, count, share), ops.csv
 * (per-op totals), map.md (the table and the functions shared between ops),
 * and the raw profiles, which callgrind_annotate / perf report read. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <turbojpeg.h>
#include "clock.h"
#include "commands.h"
#include "kernels.h"
#include "counters.h"
#include "escape.h"
#include "log.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"
#include "valgrind_marks.h"
#include "resdir.h"
#include "map.h"
#include "fsutil.h"

#define O(f) offsetof(struct map_cfg, f)
static const struct opt map_opts[] = {
	OPT_PIPELINE(struct map_cfg, pipeline, "pipeline whose ops are mapped"),
	{ .name = "tool", .type = OPT_ENUM, .off = O(tool), .def = "auto",
	  .choices = "auto|perf|callgrind",
	  .help = "auto: perf where hardware events sample, else callgrind, else perf on cpu-clock" },
	{ .name = "repeat", .shortname = 'n', .type = OPT_INT, .off = O(repeat), .def = "0",
	  .metavar = "N", .help = "calls of each op (0: 3 under callgrind, --seconds of calls under perf)",
	  .lo = 0, .hi = 1000000 },
	{ .name = "seconds", .type = OPT_DOUBLE, .off = O(seconds), .def = "2", .metavar = "S",
	  .help = "perf: time spent in each op, at least", .lo = 0.001, .hi = 3600 },
	{ .name = "batch", .shortname = 'b', .type = OPT_INT, .off = O(batch_size), .def = "32",
	  .metavar = "B", .help = "samples given to the batch op (collate)", .lo = 1, .hi = 4096 },
	{ .name = "size", .type = OPT_STR, .off = O(size), .def = "2000x1500", .metavar = "WxH",
	  .help = "size of the generated JPEG when no IMAGE is given" },
	OPT_OUT(struct map_cfg, out, NULL, "output folder, created (default: results/<UTC time>-map-<pipeline>)"),
	{ .name = "top", .type = OPT_INT, .off = O(top), .def = "8", .metavar = "N",
	  .help = "functions per op in map.md", .lo = 1, .hi = 1000 },
	{ .name = "min-share", .type = OPT_DOUBLE, .off = O(min_share), .def = "1", .metavar = "PCT",
	  .help = "functions below this share of their op are left out of map.md and the shared list",
	  .lo = 0, .hi = 100 },
	{ .name = "cache-sim", .type = OPT_BOOL, .off = O(cache_sim), .def = "off",
	  .help = "callgrind: simulate the caches (D1 and LL misses per op; about 2x slower)" },
	{ .name = "standins", .type = OPT_BOOL, .off = O(standins), .def = "on",
	  .help = "replace stripped libraries by stand-ins linked from their static archives" },
	{ .name = "seed", .type = OPT_U64, .off = O(seed), .def = "0", .metavar = "N",
	  .help = "seed of the random ops' draws" },
	{ .name = "child", .type = OPT_INT, .off = O(child), .def = "-1", .metavar = "K",
	  .help = "(internal) run op K alone, marking its calls", .lo = -1, .hi = PIPE_MAX_OPS },
	{ .name = "perf-ctl", .type = OPT_STR, .off = O(perf_ctl), .metavar = "CTL,ACK",
	  .help = "(internal) perf's control and ack FIFOs" },
	OPT_END
};
#undef O

/* ---- the default image ---------------------------------------------------*/

/* A photo-like JPEG: smooth shapes, edges and texture, deterministic. */
static int write_jpeg(const char *path, int w, int h, char *err, size_t errlen)
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

static int make_out_dir(const struct map_cfg *c, const char *pipe_name, char *dir, size_t n,
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

/* What one `ppbench map` holds; run's strings point into it. */
struct map_cmd {
	struct map_cfg cfg;
	struct pipeline p;
	int iw, ih, hw;
	char self[PATH_MAX], valgrind[PATH_MAX], perf[PATH_MAX];
	char dir[PATH_MAX], image[PATH_MAX + 32];
	struct map_run run;
	struct op_map *maps;
	char (*notes)[512];
	int nnotes;
};

/* The options; the child's work when --child. An exit code, or -1 to go on. */
static int map_args(struct map_cmd *x, int argc, char **argv, int *npos)
{
	static const char usage[] = "ppbench map [IMAGE] [--pipeline NAME] [--tool auto|perf|callgrind] "
				    "[--out DIR]";
	struct map_cfg *cfg = &x->cfg;
	int rc = opts_prelude(map_opts, cfg, argc, argv, npos, usage,
			  "Runs each op of the pipeline alone, repeatedly, on IMAGE (default: a generated\n"
			  "JPEG of --size) and records which functions of which libraries it runs:\n"
			  "map.csv, ops.csv and map.md (the op-to-function table and the functions\n"
			  "shared between ops), with the raw callgrind or perf profiles.", NULL);
	if (rc >= 0)
		return rc;
	if (*npos > 1) {
		error_msg("map takes at most one image, got %d", *npos);
		return EXIT_USAGE;
	}
	if (cfg->child >= 0) {
		if (*npos != 1) {
			error_msg("--child needs the image");
			return EXIT_USAGE;
		}
		return map_child(cfg, argv[1]);
	}
	if (*npos == 1 && input_missing(argv[1]))
		return EXIT_USAGE;
	char tail;
	if (*npos == 0 && (sscanf(cfg->size, "%dx%d%c", &x->iw, &x->ih, &tail) != 2 || x->iw < 1 ||
			   x->ih < 1 || x->iw > 20000 || x->ih > 20000)) {
		error_msg("--size: '%s' is not WxH (at most 20000x20000)", cfg->size);
		return EXIT_USAGE;
	}
	return -1;
}

/* This program, the profilers here and which one runs: x->run's tool
 * fields. 0, or -1 (said). */
static int choose_tool(struct map_cmd *x)
{
	ssize_t sl = readlink("/proc/self/exe", x->self, sizeof(x->self) - 1);
	if (sl <= 0) {
		error_msg("cannot find this program: %s", strerror(errno));
		return -1;
	}
	x->self[sl] = 0;
	int have_vg = !map_find_in_path("valgrind", x->valgrind, sizeof(x->valgrind)) &&
		      !marks_unavailable_reason() && !marks_built_with_asan();
	int have_perf = !map_find_in_path("perf", x->perf, sizeof(x->perf));
	int hw = have_perf && map_hw_cycles_open();
	int tool = x->cfg.tool;
	if (tool == TOOL_AUTO)
		tool = hw ? TOOL_PERF : have_vg ? TOOL_CALLGRIND : have_perf ? TOOL_PERF : -1;
	if (tool == TOOL_CALLGRIND && !have_vg) {
		error_msg("--tool callgrind: %s", marks_unavailable_reason() ? marks_unavailable_reason() :
		      marks_built_with_asan() ? "valgrind cannot run a program built with AddressSanitizer "
						"(use build/opt/ppbench)" :
		      "valgrind is not installed (scripts/install-deps.sh installs it)");
		return -1;
	}
	if (tool < 0 || (tool == TOOL_PERF && !have_perf)) {
		error_msg("neither perf nor valgrind can profile here: install valgrind (scripts/install-deps.sh)");
		return -1;
	}
	x->hw = hw;
	x->run = (struct map_run){
		.cfg = &x->cfg, .p = &x->p, .tool = tool,
		.tool_name = tool == TOOL_CALLGRIND ? "callgrind" : "perf",
		.unit = tool == TOOL_CALLGRIND ? "instructions" : "samples",
		.perf_event = hw ? "cycles:u" : "cpu-clock:u", .self = x->self,
		.valgrind = x->valgrind, .perf = x->perf, .dir = x->dir, .image = x->image,
	};
	return 0;
}

/* The image to profile on: the user's (its size read from its header) or
 * a generated JPEG of --size in the output folder. 0, or -1 (said). */
static int prepare_image(struct map_cmd *x, int npos, const char *arg)
{
	char err[1024];
	if (npos == 0) {
		errf(x->image, sizeof(x->image), "%s/input_%dx%d.jpg", x->dir, x->iw, x->ih);
		if (write_jpeg(x->image, x->iw, x->ih, err, sizeof(err))) {
			error_msg("%s", err);
			return -1;
		}
		return 0;
	}
	if (!realpath(arg, x->image)) {
		error_msg("cannot open '%s': %s", arg, strerror(errno));
		return -1;
	}
	tjhandle tj = tjInitDecompress();
	FILE *f = fopen_regular(x->image, FILE_MAX_TABLE, NULL, 0);
	if (tj && f) {
		static unsigned char head[1 << 16];
		size_t got = fread(head, 1, sizeof(head), f);
		int ss, cs;
		if (tjDecompressHeader3(tj, head, got, &x->iw, &x->ih, &ss, &cs))
			x->iw = x->ih = 0;
	}
	if (f)
		fclose(f);
	if (tj)
		tjDestroy(tj);
	return 0;
}

/* Second pass: the ops whose time is in a stripped library, again with a
 * stand-in for it. */
static void standins_pass(struct map_cmd *x)
{
	struct op_map *maps = x->maps;
	char done[16][128];
	int ndone = 0, redo[PIPE_MAX_OPS] = { 0 }, built = 0;
	for (int k = 0; k < x->p.nops; k++)
		for (size_t i = 0; maps[k].ok && i < maps[k].n; i++) {
			const struct fn_cost *e = &maps[k].f[i];
			if (e->share < x->cfg.min_share || strncmp(e->fn, "0x", 2))
				continue;
			int seen = -1;
			for (int j = 0; j < ndone; j++)
				if (!strcmp(done[j], e->lib))
					seen = j;
			if (seen < 0 && ndone < 16) {
				char path[PATH_MAX], soname[256], note[512];
				errf(done[ndone++], sizeof(done[0]), "%s", e->lib);
				if (map_loaded_lib_path(e->lib, path, sizeof(path)) ||
				    map_elf_has_names(path))
					continue;
				if (mkdir(x->run.standins, 0755) && errno != EEXIST)
					continue;
				int rc = map_build_standin(path, x->run.standins, soname, sizeof(soname),
							   note, sizeof(note));
				if (rc && x->nnotes < 16)
					errf(x->notes[x->nnotes++], 512, "%s", note);
				if (rc > 0)
					built++;
			}
			redo[k] = 1;
		}
	if (!built)
		return;
	x->run.use_standins = 1;
	for (int k = 0; k < x->p.nops; k++)
		if (redo[k]) {
			info("map: '%s' again, with stand-ins for stripped libraries", maps[k].op);
			map_op(&x->run, &maps[k], k, 1);
		}
}

/* map.csv, ops.csv, map.md, and map.md on stdout. An exit code. */
static int map_report(struct map_cmd *x)
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
static void kernels_note(struct map_cmd *x)
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

/* Profile every op, then the stand-ins' pass; write the results. */
static int map_all(struct map_cmd *x, int npos, const char *arg)
{
	char err[1024];
	x->maps = calloc((size_t)x->p.nops, sizeof(*x->maps));
	x->notes = calloc(16, 512);
	if (!x->maps || !x->notes)
		die("out of memory");
	if (make_out_dir(&x->cfg, x->p.name, x->dir, sizeof(x->dir), err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	if (strlen(x->dir) > PATH_MAX - 512) {
		error_msg("'%s': the output folder's name is too long", x->dir);
		return EXIT_FAIL;
	}
	if (prepare_image(x, npos, arg))
		return EXIT_FAIL;
	if (x->run.tool == TOOL_PERF && !x->hw)
		errf(x->notes[x->nnotes++], 512, "perf sampled cpu-clock in user space: hardware cycles do not open here");

	const char *old_ld = getenv("LD_LIBRARY_PATH");
	errf(x->run.standins, sizeof(x->run.standins), "%s/standins", x->dir);
	errf(x->run.ldpath, sizeof(x->run.ldpath), "LD_LIBRARY_PATH=%s%s%s", x->run.standins,
	       old_ld ? ":" : "", old_ld ? old_ld : "");
	info("map: %s, %d ops, %s on '%s'", x->p.name, x->p.nops, x->run.tool_name, x->image);
	for (int k = 0; k < x->p.nops; k++)
		map_op(&x->run, &x->maps[k], k, 0);
	if (x->cfg.standins)
		standins_pass(x);
	kernels_note(x);
	return map_report(x);
}

int cmd_map(int argc, char **argv)
{
	struct map_cmd *x = calloc(1, sizeof(*x));
	char err[1024];
	int npos = 0, status;
	if (!x)
		die("out of memory");
	status = map_args(x, argc, argv, &npos);
	if (status >= 0) {
		free(x);
		return status;
	}
	if (pipeline_load(&x->p, x->cfg.pipeline, err, sizeof(err))) {
		error_msg("%s", err);
		free(x);
		return EXIT_USAGE;
	}
	status = choose_tool(x) ? EXIT_FAIL : map_all(x, npos, argv[1]);
	if (x->maps)
		for (int k = 0; k < x->p.nops; k++)
			free(x->maps[k].f);
	free(x->maps);
	free(x->notes);
	pipeline_release(&x->p);
	free(x);
	return status;
}
