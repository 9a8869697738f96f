/* The names of results folders, one convention for every kind, so that a
 * listing sorted by name is sorted by time:
 *
 *   <UTC YYYYmmdd-HHMMSS>[-<kind>][-<tag>][-<k>]
 *
 * run (no kind: "20261125-153000-w4-b8"), sweep, compare, map, merge,
 * reproduce, strategies. A folder being written is ".<name>.tmp" (run,
 * compare) and is held (an exclusive flock on the folder) by the process
 * writing it, so that `ppbench ls --clean` removes only what a killed
 * process left. Folders named before this convention ("sweep-<UTC>-<tag>",
 * "compare-...", "map-...", "merge-...", "reproduce-...") are still
 * recognised by results_name_parse. */
#ifndef PPBENCH_RESDIR_H
#define PPBENCH_RESDIR_H

#include <stddef.h>
#include <time.h>

#define RESULTS_STAMP_FMT "%Y%m%d-%H%M%S"
#define RESULTS_STAMP_LEN 15

/* out = "<UTC now>[-kind][-tag]" (kind, tag: NULL or "" for none; the tag
 * is cut at 200 bytes). */
void results_dir_name(char *out, size_t n, const char *kind, const char *tag);

/* A tag names a folder and is printed on terminals: one without '/', not
 * starting with '.', and without a control character (ESC, newline, tab:
 * bytes below 0x20 and 0x7f). 0, or -1 with err ("--tag 'a\x1bb': ...",
 * the tag escaped). */
int results_tag_check(const char *tag, char *err, size_t errlen);

/* What a folder's name says: its time (UTC), its kind ("" for a run or
 * unknown) and its tag (after the time and kind; may be ""). Accepts the
 * names of results_dir_name, the older "<kind>-<UTC>[-tag]" names, and
 * the temporary ".<name>.tmp" and the kept "<name>.partial". 0, or -1 when the name is
 * not a ppbench results folder's. */
struct results_name {
	time_t t;
	char kind[16];
	char tag[256];
	int tmp;                      /* ".<name>.tmp": being written, or left by a killed process */
	int partial;                  /* "<name>.partial": kept when it could not be completed */
	int old_style;                /* "<kind>-<UTC>..." */
};
int results_name_parse(const char *name, struct results_name *out);

/* Hold the folder being written (flock on it, kept until the process
 * exits; its forked children share it). 0, or -1 (not held: the folder
 * then looks stale to `ppbench ls`; not an error for the caller). */
int results_dir_hold(const char *dir);
/* 1 when some process holds dir (or a lock file, as a sweep's .lock), 0
 * when none does, -1 when it cannot be told (a filesystem without flock). */
int results_dir_held(const char *dir);

#endif
