/* ppbench map (bench/studies/cmd_map.c): which functions of which libraries each op
 * of a pipeline spends its time in. Its parts: map_profile.c reads the
 * profiles (pure), map_driver.c runs each op under a profiler, map_standin.c
 * builds stand-ins for stripped libraries. */
#ifndef PPBENCH_MAP_H
#define PPBENCH_MAP_H

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"

enum map_tool { TOOL_AUTO, TOOL_PERF, TOOL_CALLGRIND };

struct map_cfg {
	const char *pipeline;
	int tool;
	long repeat;
	double seconds;
	long batch_size;
	const char *size;
	const char *out;
	long top;
	double min_share;
	int cache_sim;
	int standins;
	uint64_t seed;
	long child;
	const char *perf_ctl;
};

/* ---- results model -------------------------------------------------------*/

struct fn_cost {
	char lib[96];
	char fn[192];
	double count;
	double share;          /* % of the op's total */
};

struct op_map {
	char op[40];
	int index;
	int ok;
	uint64_t calls;
	double op_ns;          /* wall time of the marked calls (slowed by the tool) */
	double total;          /* instructions (callgrind) or samples (perf) */
	double d1_miss, ll_miss;
	int has_cache;
	char kernels[16];      /* the kernel set the op ran ("avx2"; "" unknown) */
	size_t n, cap;
	struct fn_cost *f;
};


struct map_run {
	const struct map_cfg *cfg;
	const struct pipeline *p;
	int tool;
	const char *tool_name, *unit, *perf_event;
	const char *self, *valgrind, *perf;
	const char *dir, *image;
	char standins[PATH_MAX + 16];
	char ldpath[PATH_MAX + 64];     /* LD_LIBRARY_PATH=<standins>:... */
	int use_standins;
};


/* ---- map_profile.c ---- */

/* Add count to lib's function fn_in of m (GCC's clones and local labels
 * count as their function). */
void map_add_cost(struct op_map *m, const char *lib, const char *fn_in, double count);
/* m's total and every function's share of it, the functions sorted by cost. */
void map_finish_op(struct op_map *m);
/* The file name of a path. */
const char *map_base_name(const char *path);
/* A callgrind profile's self cost (Ir) per object and function into m, and
 * the cache misses when it simulated the caches. 0, or -1 with err. */
int map_parse_callgrind(const char *path, struct op_map *m, char *err, size_t errlen);
/* `perf report --stdio --sort dso,sym -n -q` into m: the rows read. */
int map_parse_perf_report(FILE *f, struct op_map *m);

/* ---- map_driver.c ---- */

/* `ppbench map --child K IMAGE`: run op K alone, its calls marked. An exit code. */
int map_child(const struct map_cfg *c, const char *image);
/* Profile op k in a child into m (reset); m->ok tells. */
void map_op(const struct map_run *r, struct op_map *m, int k, int standins);
/* prog on $PATH into out: 0, or -1. */
int map_find_in_path(const char *prog, char *out, size_t n);
/* Run argv with stdout and stderr into log (envp NULL: ours). The exit
 * status, 128 + signal, or -1 when it cannot start. */
int map_run_logged(char *const *argv, char *const *envp, const char *log);
/* The last lines of a log, for an error message. */
void map_log_tail(const char *log, char *out, size_t n);
/* Hardware cycles open here: perf record samples them (not a fallback). */
int map_hw_cycles_open(void);

/* ---- map_standin.c ---- */

/* Does a profiler find function names for this ELF file? */
int map_elf_has_names(const char *path);
/* Build dir/<soname> from the static archive beside lib: 1 built, 0 not
 * applicable, -1 failed (why in note). */
int map_build_standin(const char *lib, const char *dir, char *soname, size_t sonlen,
		      char *note, size_t notelen);
/* The path of a library this process maps, from its file name. 0, or -1. */
int map_loaded_lib_path(const char *name, char *out, size_t n);

/* ---- the command (cli/cmd_map.c parses; map_run.c runs) ---- */

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

/* map_run.c: this program, the profilers here and which one runs: x->run's
 * tool fields. 0, or -1 (said). */
int map_choose_tool(struct map_cmd *x);
/* map_run.c: profile every op (on the image argument arg, or a generated
 * one when npos is 0), then the stand-ins' pass; write the results. An exit
 * code. */
int map_all(struct map_cmd *x, int npos, const char *arg);

/* ---- map_report.c ---- */

/* A photo-like JPEG: smooth shapes, edges and texture, deterministic. 0, or -1 with err. */
int map_write_jpeg(const char *path, int w, int h, char *err, size_t errlen);
/* The output folder (--out, or a results folder named after the pipeline). 0, or -1 with err. */
int map_make_out_dir(const struct map_cfg *c, const char *pipe_name, char *dir, size_t n,
		     char *err, size_t errlen);
/* map.csv, ops.csv, map.md, and map.md on stdout. An exit code. */
int map_report(struct map_cmd *x);
/* Which kernel set the ops ran, beside the one runs use here (a note of map.md). */
void map_kernels_note(struct map_cmd *x);

#endif
