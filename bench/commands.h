/* The subcommands of ppbench; each takes argv with argv[0] = its name. */
#ifndef PPBENCH_COMMANDS_H
#define PPBENCH_COMMANDS_H

int cmd_apply(int argc, char **argv);
int cmd_dataset(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_ls(int argc, char **argv);

/* Exit codes shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,      /* the work failed (a data error with --on-error fail, a failed run) */
	EXIT_USAGE = 2,     /* bad option or argument: nothing ran */
	EXIT_WORKER = 3,    /* a worker died */
};

#include <stddef.h>
#include <stdio.h>

/* The exit-code table above, as every --help ends (conventions.c). */
void exit_codes_help(FILE *f);

/* The name of names[0..n) nearest to word (a typo: a few edits), or NULL. */
const char *nearest_name(const char *word, const char *const *names, size_t n);

/* 0 when path exists; else 1 after "error: cannot open 'path': reason":
 * the caller exits EXIT_USAGE (an input that does not exist). */
int input_missing(const char *path);

#endif
