#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
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
