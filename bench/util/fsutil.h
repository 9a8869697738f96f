/* Small file-system helpers shared by the dataset generator and the commands. */
#ifndef PPBENCH_FSUTIL_H
#define PPBENCH_FSUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* mkdir -p: create path and its missing parents with mode (less the umask).
 * 0, or -1 with errno (ENAMETOOLONG when path is too long). */
int mkdir_p(const char *path, mode_t mode);

/* The folder a command writes its results in (--out): made with its
 * parents (mkdir_p), then checked to be a folder ppbench may write in. 0,
 * or -1 with why ("cannot create 'a/b': Permission denied", "'f' is not a
 * folder (a regular file)", "cannot write in 'r': Read-only file system"). */
int mkdir_out(const char *path, char *why, size_t whylen);

/* The bytes an unprivileged writer may still put on the file system of
 * path, or of its nearest existing parent when path does not exist yet
 * (that parent's name in where). 0, or -1 with errno. */
int free_bytes_at(const char *path, uint64_t *bytes, char *where, size_t wherelen);

/* Open path for reading only if it is a regular file: a FIFO, socket or
 * device named like an image must not block a read or be read forever. The
 * path is stat()ed (a device is not even opened), opened with O_NONBLOCK (a
 * FIFO swapped in meanwhile cannot block the open), fstat()ed again, then
 * O_NONBLOCK is cleared. *st receives the file's stat. The fd, or -1 with
 * the reason in why ("not a regular file (a FIFO)", "cannot open: ..."). */
int open_regular(const char *path, struct stat *st, char *why, size_t whylen);
/* The most ppbench reads of a file it did not write in the same command:
 * a document read whole (summary.json, sweep.json, a .pipe, a log, an SVG)
 * and a table or trace (batches.csv, ops.csv, a LotusTrace log, an .npy).
 * A bigger file is refused by its size before a byte of it is read. */
#define FILE_MAX_DOC ((off_t)64 << 20)
#define FILE_MAX_TABLE ((off_t)4 << 30)
/* fopen(path, "r") of a file ppbench reads: open_regular() (a FIFO, a
 * device or a folder is refused without blocking), then its size checked
 * against max. The stream, or NULL with the reason in why ("not a regular
 * file (a FIFO)", "3221225472 bytes, more than the 67108864 ppbench reads
 * of such a file", "cannot open: No such file or directory") and errno
 * set (ENOENT for a missing file, EFBIG when too big, EINVAL when not
 * regular). */
FILE *fopen_regular(const char *path, off_t max, char *why, size_t whylen);
/* json_load_file() through fopen_regular(path, FILE_MAX_DOC): the one
 * way ppbench loads a JSON file. The document, or NULL with the reason in
 * why (the type or size refusal, or "line N: <jansson's error>") and errno
 * as fopen_regular sets it (0 when the file was read but is not JSON). */
struct json_t *json_load_regular(const char *path, char *why, size_t whylen);
/* Drop fd's file from the page cache: what "cold" means everywhere in
 * ppbench (a sweep's runs, bottleneck, strategies' stores). fdatasync
 * first, since dirty pages (a dataset or store just written) cannot be
 * dropped until they are on disk, and a cold read must come from there. */
void drop_page_cache(int fd);
/* Does path hold the n bytes magic within its first `within` bytes (at most
 * 1024): a figure written whole (PNG signature, "<svg")? 0 when it cannot
 * be read. */
int file_has_magic(const char *path, const char *magic, size_t n, size_t within);
/* The kind of a non-regular file for messages ("a FIFO", "a folder"...). */
const char *file_kind(mode_t mode);
/* rm -rf root (symbolic links removed, never followed: each level is
 * opened with O_NOFOLLOW from the one above): everything it can remove is
 * removed. 0, or -1 with errno of the first failure. */
int remove_tree(const char *root);
/* remove_tree(top/rel), where no folder between top and the last name of
 * rel may be a symbolic link (nor ".."): nothing outside top is removed.
 * -1 with errno ELOOP when one is a link (or not a folder). */
int remove_tree_in(const char *top, const char *rel);

/* The top of the source tree: the first of the executable's folders, going
 * up at most `levels` (bench/ppbench, build/<tree>/ppbench,
 * build/<tree>/tests/test_x), that holds every path of `marker` (paths
 * separated by ':', "datasets/generate.h:pipelines"); find_top then tries
 * the working folder. 0 with the folder in out, or -1. */
int find_top(const char *marker, int levels, char *out, size_t n);
int find_top_exe(const char *marker, int levels, char *out, size_t n);
/* The marker and depth of the top that plots/ and datasets/reference/ are
 * under: find_top(TOP_OF_PLOTS, out, n). */
#define TOP_OF_PLOTS "plots/common.gp", 4

#endif
