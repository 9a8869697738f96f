/* One way to start a child process and wait for it (not <spawn.h>: the
 * child here can die with its parent, which posix_spawn cannot do). */
#ifndef PPBENCH_SUBPROCESS_H
#define PPBENCH_SUBPROCESS_H

#include <signal.h>
#include <sys/types.h>

#define SPAWN_KEEP (-1)     /* the child's descriptor stays ours */
#define SPAWN_NULL (-2)     /* /dev/null */

struct spawn {
	const char *exe;        /* the file run; NULL: argv[0] */
	char *const *argv;
	char *const *envp;      /* NULL: ours */
	int search;             /* exe is a name looked up on PATH (execvp) */
	int in, out, err;       /* the child's 0, 1, 2: a descriptor, SPAWN_KEEP or SPAWN_NULL */
	int own_group;          /* setpgid(0, 0): a terminal's ^C reaches only the caller,
	                         * which passes it on */
	int deathsig;           /* PR_SET_PDEATHSIG: sent when the caller dies; 0: none.
	                         * A child whose caller died before the prctl exits 128 + it */
	const int *dfl;         /* signals set back to SIG_DFL, 0-terminated; NULL: none */
	const sigset_t *mask;   /* the child's signal mask (the caller blocks signals
	                         * across the fork); NULL: inherited */
};

/* Start from this: all three descriptors kept, nothing else. */
#define SPAWN_INIT { .in = SPAWN_KEEP, .out = SPAWN_KEEP, .err = SPAWN_KEEP }

/* Start the child. Its pid, or -1 with errno when it could not be made or
 * its program could not be run (as posix_spawn). */
pid_t spawn_start(const struct spawn *s);
/* waitpid(pid, status, 0), EINTR retried: 0, or -1 with errno. */
int spawn_wait(pid_t pid, int *status);
/* A wait status as an exit code: its exit status, or 128 + the signal. */
int spawn_code(int status);

#endif
