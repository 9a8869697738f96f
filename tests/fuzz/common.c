/* Shared by both drivers: the scratch folder. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"

static char dir[64];

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[320];
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

const char *fuzz_dir(void)
{
	if (!dir[0]) {
		/* tmpfs when there is one: the harnesses write a file per input */
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(dir, sizeof(dir), "%s/ppbench-fuzz-XXXXXX", base);
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			exit(2);
		}
		atexit(remove_dir);
	}
	return dir;
}

int fuzz_write(const char *name, const uint8_t *data, size_t n)
{
	char p[320];
	snprintf(p, sizeof(p), "%s/%s", fuzz_dir(), name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < n) {
		ssize_t w = write(fd, data + off, n - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return off == n ? 0 : -1;
}
