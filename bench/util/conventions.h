/* The conventions every command shares (conventions.c): the exit-code table
 * its --help ends with, the nearest name for a mistyped option or command,
 * the oversubscription warning and the missing-input check. */
#ifndef PPBENCH_CONVENTIONS_H
#define PPBENCH_CONVENTIONS_H

/* Exit codes shared by every command: exitcode.h. */
#include "exitcode.h"

#include <stddef.h>
#include <stdio.h>

/* The exit-code table (exitcode.h), as every --help ends. */
void exit_codes_help(FILE *f);

/* The name of names[0..n) nearest to word (a typo: a few edits), or NULL. */
const char *nearest_name(const char *word, const char *const *names, size_t n);

/* Before anything runs: warn (stderr) when some of the worker counts
 * workers[0..n) are more than the cpus the runs may use, saying what that
 * does to the figures; what: "this run", "the sweep's runs". 1 if warned. */
int warn_oversubscribed(const long *workers, size_t n, int cpus, const char *what);

/* 0 when path exists; else 1 after "error: cannot open 'path': reason":
 * the caller exits EXIT_USAGE (an input that does not exist). */
int input_missing(const char *path);

#endif
