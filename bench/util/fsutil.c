#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "fsutil.h"

int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(tmp, mode) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(tmp, mode) && errno != EEXIST)
		return -1;
	return 0;
}

int free_bytes_at(const char *path, uint64_t *bytes, char *where, size_t wherelen)
{
	char p[4096];
	struct statvfs v;
	if (snprintf(p, sizeof(p), "%s", *path ? path : ".") >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (;;) {
		if (statvfs(p, &v) == 0)
			break;
		if (errno != ENOENT)
			return -1;
		char *slash = strrchr(p, '/');
		if (!slash)
			snprintf(p, sizeof(p), ".");
		else if (slash == p)
			p[1] = 0;
		else
			*slash = 0;
	}
	*bytes = (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
	snprintf(where, wherelen, "%s", p);
	return 0;
}

const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return S_ISREG(mode) ? "a regular file" : "of an unknown kind";
}

int file_has_magic(const char *path, const char *magic, size_t n, size_t within)
{
	char buf[1024];
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f)
		return 0;
	got = fread(buf, 1, within < sizeof(buf) ? within : sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i + n <= got; i++)
		if (!memcmp(buf + i, magic, n))
			return 1;
	return 0;
}

void drop_page_cache(int fd)
{
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

int open_regular(const char *path, struct stat *st, char *why, size_t whylen)
{
	if (stat(path, st)) {
		snprintf(why, whylen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file (%s)", file_kind(st->st_mode));
		return -1;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, st)) {
		snprintf(why, whylen, "cannot stat: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file (%s)", file_kind(st->st_mode));
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		snprintf(why, whylen, "cannot clear O_NONBLOCK: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* the first error of a remove_tree walk */
static int rm_errno;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(p) && !rm_errno)
		rm_errno = errno;
	return 0;
}

int remove_tree(const char *root)
{
	rm_errno = 0;
	if (nftw(root, rm_one, 32, FTW_DEPTH | FTW_PHYS) && !rm_errno)
		rm_errno = errno;
	errno = rm_errno;
	return rm_errno ? -1 : 0;
}
