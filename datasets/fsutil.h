/* Small file-system helpers shared by the dataset generator and the commands. */
#ifndef PPBENCH_FSUTIL_H
#define PPBENCH_FSUTIL_H

#include <sys/types.h>

/* mkdir -p: create path and its missing parents with mode (less the umask).
 * 0, or -1 with errno (ENAMETOOLONG when path is too long). */
int mkdir_p(const char *path, mode_t mode);

#endif
