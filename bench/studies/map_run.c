/* ppbench map's parent (map.h): which profiler runs, the image to profile
 * on, every op profiled in a child (map_driver.c), the stand-ins' pass for
 * stripped libraries (map_standin.c), the outputs (map_report.c). The
 * command: cli/cmd_map.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include "exitcode.h"
#include "fsutil.h"
#include "log.h"
#include "valgrind_marks.h"
#include "map.h"

/* This program, the profilers here and which one runs: x->run's tool
 * fields. 0, or -1 (said). */
int map_choose_tool(struct map_cmd *x)
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
		if (map_write_jpeg(x->image, x->iw, x->ih, err, sizeof(err))) {
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

/* Profile every op, then the stand-ins' pass; write the results. */
int map_all(struct map_cmd *x, int npos, const char *arg)
{
	char err[1024];
	x->maps = calloc((size_t)x->p.nops, sizeof(*x->maps));
	x->notes = calloc(16, 512);
	if (!x->maps || !x->notes)
		die("out of memory");
	if (map_make_out_dir(&x->cfg, x->p.name, x->dir, sizeof(x->dir), err, sizeof(err))) {
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
	map_kernels_note(x);
	return map_report(x);
}
