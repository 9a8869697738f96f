#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <jansson.h>
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

int mkdir_out(const char *path, char *why, size_t whylen)
{
	struct stat st;
	if (mkdir_p(path, 0777) && errno != ENOTDIR) {
		snprintf(why, whylen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	/* ENOTDIR: a part of path, or path itself, is a file: say which */
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", path);
	for (;;) {
		if (stat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				break;
			snprintf(why, whylen, "'%s' is not a folder (%s): --out names the folder results go in",
				 p, file_kind(st.st_mode));
			return -1;
		}
		char *slash = strrchr(p, '/');
		if (!slash || slash == p) {
			snprintf(why, whylen, "cannot create '%s': %s", path, strerror(errno));
			return -1;
		}
		*slash = 0;
	}
	if (strcmp(p, path)) {
		snprintf(why, whylen, "cannot create '%s': %s", path, strerror(ENOTDIR));
		return -1;
	}
	if (access(path, W_OK | X_OK)) {
		snprintf(why, whylen, "cannot write in '%s': %s", path, strerror(errno));
		return -1;
	}
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
	FILE *f = fopen_regular(path, FILE_MAX_TABLE, NULL, 0);
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

/* open_regular's refusal: the reason in why, errno e (kept through the close) */
static int refuse(int fd, int e, char *why, size_t whylen, const char *fmt, const char *arg)
{
	snprintf(why, whylen, fmt, arg);
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}

int open_regular(const char *path, struct stat *st, char *why, size_t whylen)
{
	if (stat(path, st))
		return refuse(-1, errno, why, whylen, "cannot open: %s", strerror(errno));
	if (!S_ISREG(st->st_mode))
		return refuse(-1, EINVAL, why, whylen, "not a regular file (%s)", file_kind(st->st_mode));
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return refuse(-1, errno, why, whylen, "cannot open: %s", strerror(errno));
	if (fstat(fd, st))
		return refuse(fd, errno, why, whylen, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st->st_mode))
		return refuse(fd, EINVAL, why, whylen, "not a regular file (%s)", file_kind(st->st_mode));
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return refuse(fd, errno, why, whylen, "cannot clear O_NONBLOCK: %s", strerror(errno));
	return fd;
}

FILE *fopen_regular(const char *path, off_t max, char *why, size_t whylen)
{
	struct stat st;
	int fd = open_regular(path, &st, why, whylen);
	if (fd < 0)
		return NULL;
	if (st.st_size > max) {
		char size[96];
		snprintf(size, sizeof(size), "%lld bytes, more than the %lld", (long long)st.st_size,
			 (long long)max);
		refuse(fd, EFBIG, why, whylen, "%s ppbench reads of such a file", size);
		return NULL;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		int e = errno;
		snprintf(why, whylen, "cannot open: %s", strerror(e));
		close(fd);
		errno = e;
	}
	return f;
}

json_t *json_load_regular(const char *path, char *why, size_t whylen)
{
	json_error_t je;
	FILE *f = fopen_regular(path, FILE_MAX_DOC, why, whylen);
	if (!f)
		return NULL;
	json_t *j = json_loadf(f, 0, &je);
	fclose(f);
	if (!j) {
		snprintf(why, whylen, "line %d: %s", je.line, je.text);
		errno = 0;
	}
	return j;
}

/* the first error of a removal */
static void rm_fail(int *first)
{
	if (!*first)
		*first = errno;
}

/* Remove name in the folder dfd and, when it is a folder, all it holds:
 * each level opened with O_NOFOLLOW relative to the one above, so a link
 * is removed, never followed, even if swapped in while the walk runs. */
static void rm_at(int dfd, const char *name, int depth, int *first)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			rm_fail(first);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			rm_fail(first);
		return;
	}
	if (depth > 256) {	/* an fd per level: a bound, not a limit of real results */
		errno = ELOOP;
		rm_fail(first);
		return;
	}
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		rm_fail(first);
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rm_at(fd, e->d_name, depth + 1, first);
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) && errno != ENOENT)
		rm_fail(first);
}

/* rm_at(dfd, name), then dfd closed: 0, or -1 with errno of the first failure */
static int rm_in(int dfd, const char *name)
{
	int first = 0;
	rm_at(dfd, name, 0, &first);
	close(dfd);
	errno = first;
	return first ? -1 : 0;
}

int remove_tree(const char *root)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s", root) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	size_t l = strlen(p);
	while (l > 1 && p[l - 1] == '/')
		p[--l] = 0;
	char *slash = strrchr(p, '/');
	const char *base = slash ? slash + 1 : p;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		errno = EINVAL;
		return -1;
	}
	const char *parent = !slash ? "." : slash == p ? "/" : p;
	if (slash && slash != p)
		*slash = 0;
	int dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	return rm_in(dfd, base);
}

int remove_tree_in(const char *top, const char *rel)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s", rel) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	char *comp = p, *slash;
	/* every folder between top and the one removed: a real folder, no link */
	while ((slash = strchr(comp, '/'))) {
		*slash = 0;
		if (*comp) {
			int fd = -1;
			if (!strcmp(comp, ".."))
				errno = EINVAL;
			else
				fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				int e = errno == ENOTDIR ? ELOOP : errno;
				close(dfd);
				errno = e;
				return -1;
			}
			close(dfd);
			dfd = fd;
		}
		comp = slash + 1;
	}
	if (!*comp || !strcmp(comp, ".") || !strcmp(comp, "..")) {
		close(dfd);
		errno = EINVAL;
		return -1;
	}
	return rm_in(dfd, comp);
}

/* every ':'-separated path of marker exists under dir */
static int has_marker(const char *dir, const char *marker)
{
	char p[PATH_MAX];
	struct stat sb;
	while (*marker) {
		size_t len = strcspn(marker, ":");
		int k = snprintf(p, sizeof(p), "%s/%.*s", dir, (int)len, marker);
		if (k < 0 || (size_t)k >= sizeof(p) || stat(p, &sb))
			return 0;
		marker += len;
		if (*marker)
			marker++;
	}
	return 1;
}

static int set_top(const char *dir, char *out, size_t n)
{
	int k = snprintf(out, n, "%s", dir);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

int find_top_exe(const char *marker, int levels, char *out, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return -1;
	exe[len] = 0;
	for (int up = 0; up < levels; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			break;
		*slash = 0;
		if (has_marker(exe, marker))
			return set_top(exe, out, n);
	}
	return -1;
}

int find_top(const char *marker, int levels, char *out, size_t n)
{
	char cwd[PATH_MAX];
	if (!find_top_exe(marker, levels, out, n))
		return 0;
	if (getcwd(cwd, sizeof(cwd)) && has_marker(cwd, marker))
		return set_top(cwd, out, n);
	return -1;
}
