/* Replay driver: runs fuzz_one once on each file given, and on each file of
 * each folder given (sorted). Prints "N inputs" and exits 0; a crash or a
 * sanitizer report ends it with the input's name printed first. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

static size_t ninputs;

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		exit(2);
	}
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb)
				exit(2);
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	fprintf(stderr, "replay: %s\n", path);   /* named before it can crash */
	fuzz_one(buf, n);
	free(buf);
	ninputs++;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st)) {
		fprintf(stderr, "replay: no such file or folder '%s'\n", path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	struct dirent **names;
	int k = scandir(path, &names, NULL, NULL);
	if (k < 0)
		exit(2);
	char **v = calloc((size_t)k + 1, sizeof(*v));
	size_t m = 0;
	for (int i = 0; i < k; i++) {
		if (names[i]->d_name[0] != '.' && strcmp(names[i]->d_name, "README.txt")) {
			size_t l = strlen(path) + strlen(names[i]->d_name) + 2;
			v[m] = malloc(l);
			snprintf(v[m++], l, "%s/%s", path, names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	qsort(v, m, sizeof(*v), cmp);
	for (size_t i = 0; i < m; i++) {
		run_file(v[i]);
		free(v[i]);
	}
	free(v);
}

int main(int argc, char **argv)
{
	fuzz_init();
	for (int i = 1; i < argc; i++)
		run_path(argv[i]);
	printf("%zu inputs\n", ninputs);
	return 0;
}
