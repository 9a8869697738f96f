/* The exit codes every command shares (the table each --help ends with:
 * conventions.c). Here, below every layer, so that the loader can report
 * how a run ended without knowing the commands. */
#ifndef PPBENCH_EXITCODE_H
#define PPBENCH_EXITCODE_H

/* Exit codes shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,      /* the work failed (a data error with --on-error fail, a failed run) */
	EXIT_USAGE = 2,     /* bad option or argument: nothing ran */
	EXIT_WORKER = 3,    /* a worker died */
};

#endif
