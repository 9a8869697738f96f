/* Shared by both drivers: the scratch folder. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fsutil.h"
#include "fuzz.h"

static char dir[64];

static void remove_dir(void)
{
	remove_tree(dir);	/* with the harnesses' subfolders */
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
	unlink(p);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
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

int fuzz_fifo(const char *name)
{
	char p[320];
	snprintf(p, sizeof(p), "%s/%s", fuzz_dir(), name);
	unlink(p);
	return mkfifo(p, 0600);
}

int fuzz_oversized(const char *name, const uint8_t *data, size_t n, long long size)
{
	char p[320];
	if (fuzz_write(name, data, n))
		return -1;
	snprintf(p, sizeof(p), "%s/%s", fuzz_dir(), name);
	return truncate(p, (off_t)size);
}
