/* ppbench map's stand-in libraries: a library Debian ships stripped is
 * relinked from its package's static archive (which keeps the function
 * names) so that the profiles name its functions (map.h). */
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
#include "conventions.h"
#include "counters.h"
#include "log.h"
#include "options.h"
#include "pipeline.h"
#include "rng.h"
#include "valgrind_marks.h"
#include "resdir.h"
#include "map.h"

extern char **environ;

/* ---- stand-ins for stripped libraries ------------------------------------*/

/* Does a profiler find function names for this ELF file: a symbol table,
 * or a separate debug file under /usr/lib/debug/.build-id? */
int map_elf_has_names(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), named = 1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	unsigned char *b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (b == MAP_FAILED)
		return 1;
	const Elf64_Ehdr *eh = (const void *)b;
	size_t size = (size_t)st.st_size;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		goto out;
	const Elf64_Shdr *sh = (const void *)(b + eh->e_shoff);
	named = 0;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB) {
			named = 1;
			break;
		}
		if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		const unsigned char *p = b + sh[i].sh_offset, *end = p + sh[i].sh_size;
		while (p + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const void *)p;
			const unsigned char *name = p + sizeof(*nh);
			const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz >= 2 && nh->n_descsz <= 64) {
				char dbg[256];
				int l = errf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", desc[0]);
				for (unsigned k = 1; k < nh->n_descsz; k++)
					l += errf(dbg + l, sizeof(dbg) - (size_t)l, "%02x", desc[k]);
				errf(dbg + l, sizeof(dbg) - (size_t)l, ".debug");
				if (!access(dbg, R_OK))
					named = 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
out:
	munmap(b, size);
	return named;
}

/* Lines of a command's stdout into a file (popen without a shell). */
static int capture(char *const *argv, const char *path)
{
	return map_run_logged(argv, NULL, path);
}

/* The library's SONAME (its file name when it has none) and NEEDED entries,
 * from `objdump -p` (its output in tmp). 0, or -1 (why in note). */
static int read_dynamic(const char *real, const char *tmp, char *soname, size_t sonlen,
			char needed[16][128], int *nneeded, char *note, size_t notelen)
{
	char line[1024];
	char *od[] = { "objdump", "-p", (char *)real, NULL };
	if (capture(od, tmp)) {
		errf(note, notelen, "objdump failed on '%s'", real);
		return -1;
	}
	FILE *f = fopen(tmp, "r");
	soname[0] = 0;
	*nneeded = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char v[256];
		if (sscanf(line, " SONAME %255s", v) == 1)
			errf(soname, sonlen, "%s", v);
		else if (sscanf(line, " NEEDED %127s", v) == 1 && *nneeded < 16)
			errf(needed[(*nneeded)++], sizeof(needed[0]), "%s", v);
	}
	if (f)
		fclose(f);
	if (!soname[0])
		errf(soname, sonlen, "%s", map_base_name(real));
	return 0;
}

/* The version script vs: each version node of the library's dynamic
 * symbols (`nm -D`, its output in tmp) with its symbols. 0, or -1 (why in note). */
static int write_version_script(const char *real, const char *tmp, const char *vs, char *note,
				size_t notelen)
{
	char line[1024];
	char *nm[] = { "nm", "-D", "--defined-only", "--with-symbol-versions", (char *)real, NULL };
	if (capture(nm, tmp)) {
		errf(note, notelen, "nm failed on '%s'", real);
		return -1;
	}
	struct { char name[64]; char *syms; size_t len; } ver[64];
	int nver = 0;
	FILE *f = fopen(tmp, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char addr[32], type[4], sym[512];
		if (sscanf(line, "%31s %3s %511s", addr, type, sym) != 3)
			continue;
		char *at = strstr(sym, "@@");
		if (!at)
			at = strchr(sym, '@');
		if (!at)
			continue;
		*at = 0;
		const char *v = at + (at[1] == '@' ? 2 : 1);
		if (!strcmp(sym, v))
			continue;   /* the version node's own symbol */
		int i;
		for (i = 0; i < nver; i++)
			if (!strcmp(ver[i].name, v))
				break;
		if (i == nver) {
			if (nver == 64)
				continue;
			errf(ver[nver].name, sizeof(ver[0].name), "%s", v);
			ver[nver].syms = NULL;
			ver[nver].len = 0;
			nver++;
		}
		size_t add = strlen(sym) + 3;
		char *s2 = realloc(ver[i].syms, ver[i].len + add + 1);
		if (!s2)
			die("out of memory");
		ver[i].syms = s2;
		ver[i].len += (size_t)sprintf(s2 + ver[i].len, " %s;", sym);
	}
	if (f)
		fclose(f);
	f = fopen(vs, "w");
	if (!f) {
		errf(note, notelen, "cannot write '%s': %s", vs, strerror(errno));
		for (int i = 0; i < nver; i++)
			free(ver[i].syms);
		return -1;
	}
	if (!nver)
		fprintf(f, "{ global: *; };\n");
	for (int i = 0; i < nver; i++) {
		fprintf(f, "%s { global:%s%s };\n", ver[i].name, ver[i].syms ? ver[i].syms : "",
			i == nver - 1 ? " local: *;" : "");
		free(ver[i].syms);
	}
	fclose(f);
	return 0;
}

/* Objects of a static archive may be position-dependent about libc's
 * standard streams: give the library its own copies (the C file shim). 0,
 * or -1 (why in note). */
static int write_stdio_shim(const char *shim, char *note, size_t notelen)
{
	FILE *f = fopen(shim, "w");
	if (!f) {
		errf(note, notelen, "cannot write '%s': %s", shim, strerror(errno));
		return -1;
	}
	fputs("#include <dlfcn.h>\n#include <stdio.h>\n#undef stdin\n#undef stdout\n#undef stderr\n"
	      "__attribute__((visibility(\"hidden\"))) FILE *stdin, *stdout, *stderr;\n"
	      "__attribute__((constructor)) static void standin_stdio(void)\n{\n"
	      "\tFILE **p;\n"
	      "\tif ((p = dlsym(RTLD_DEFAULT, \"stdin\"))) stdin = *p;\n"
	      "\tif ((p = dlsym(RTLD_DEFAULT, \"stdout\"))) stdout = *p;\n"
	      "\tif ((p = dlsym(RTLD_DEFAULT, \"stderr\"))) stderr = *p;\n}\n", f);
	fclose(f);
	return 0;
}

/* Build dir/<soname> from the static archive beside `lib`, exporting the
 * same symbols under the same versions; 1 built, 0 not applicable, -1 failed
 * (why in note). */
int map_build_standin(const char *lib, const char *dir, char *soname, size_t sonlen,
		      char *note, size_t notelen)
{
	char real[PATH_MAX], ar[PATH_MAX + 8], tmp[PATH_MAX + 64], vs[PATH_MAX + 64], shim[PATH_MAX + 64];
	char out[PATH_MAX + 64], cc[PATH_MAX];
	if (!realpath(lib, real))
		return 0;
	const char *b = map_base_name(real);
	const char *so = strstr(b, ".so");
	if (!so)
		return 0;
	errf(ar, sizeof(ar), "%.*s%.*s.a", (int)(b - real), real, (int)(so - b), b);
	if (access(ar, R_OK))
		return 0;
	if (map_find_in_path("cc", cc, sizeof(cc))) {
		errf(note, notelen, "no C compiler to link a stand-in from '%s'", ar);
		return -1;
	}
	errf(tmp, sizeof(tmp), "%s/.objdump", dir);
	char needed[16][128];
	int nneeded;
	if (read_dynamic(real, tmp, soname, sonlen, needed, &nneeded, note, notelen))
		return -1;
	errf(vs, sizeof(vs), "%s/.%s.map", dir, soname);
	if (write_version_script(real, tmp, vs, note, notelen))
		return -1;
	errf(shim, sizeof(shim), "%s/.stdio_shim.c", dir);
	if (write_stdio_shim(shim, note, notelen))
		return -1;
	errf(out, sizeof(out), "%s/%s", dir, soname);
	char sonameopt[300], vsopt[PATH_MAX + 100];
	errf(sonameopt, sizeof(sonameopt), "-Wl,-soname,%s", soname);
	errf(vsopt, sizeof(vsopt), "-Wl,--version-script=%s", vs);
	char *argv[48];
	char libs[16][140];
	int a = 0;
	argv[a++] = cc;
	argv[a++] = "-shared";
	argv[a++] = "-fPIC";
	argv[a++] = "-O2";
	argv[a++] = "-o";
	argv[a++] = out;
	argv[a++] = sonameopt;
	argv[a++] = vsopt;
	argv[a++] = "-Wl,-Bsymbolic";
	argv[a++] = "-Wl,--no-undefined";
	argv[a++] = shim;
	argv[a++] = "-Wl,--whole-archive";
	argv[a++] = ar;
	argv[a++] = "-Wl,--no-whole-archive";
	for (int i = 0; i < nneeded; i++) {
		errf(libs[i], sizeof(libs[i]), "-l:%s", needed[i]);
		argv[a++] = libs[i];
	}
	argv[a++] = "-ldl";
	argv[a] = NULL;
	errf(tmp, sizeof(tmp), "%s/.%s.log", dir, soname);
	if (map_run_logged(argv, NULL, tmp)) {
		char why[400];
		map_log_tail(tmp, why, sizeof(why));
		errf(note, notelen, "cannot link a stand-in for %s from '%s': %s", soname, ar, why);
		return -1;
	}
	errf(note, notelen, "%s: stripped; the map used a stand-in linked from '%s'", soname, ar);
	return 1;
}

/* The path of a library this process maps, from its file name (the
 * children map the same ones). 0, or -1. */
int map_loaded_lib_path(const char *name, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	int rc = -1;
	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (!strcmp(map_base_name(path), name)) {
			errf(out, n, "%s", path);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}
