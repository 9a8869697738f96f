/* Small file-system helpers shared by the dataset generator and the commands. */
#ifndef PPBENCH_FSUTIL_H
#define PPBENCH_FSUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* mkdir -p: create path and its missing parents with mode (less the umask).
 * 0, or -1 with errno (ENAMETOOLONG when path is too long). */
int mkdir_p(const char *path, mode_t mode);

/* The bytes an unprivileged writer may still put on the file system of
 * path, or of its nearest existing parent when path does not exist yet
 * (that parent's name in where). 0, or -1 with errno. */
int free_bytes_at(const char *path, uint64_t *bytes, char *where, size_t wherelen);

/* rm -rf root (symbolic links removed, not followed): everything it can
 * remove is removed. 0, or -1 with errno of the first failure. */
int remove_tree(const char *root);

#endif
