/* A command's stop signals: SIGINT and SIGTERM (and SIGHUP when asked) set a
 * flag the command looks at between steps, instead of ending the process,
 * so what was measured is written before it exits 128 + the signal. No
 * SA_RESTART: a blocking call (waitpid, read) returns EINTR and the caller
 * looks at the flag. (The loader has its own, richer handling: loader.c.) */
#ifndef PPBENCH_STOPSIG_H
#define PPBENCH_STOPSIG_H

#include <signal.h>

/* The actions in place before stop_catch, put back by stop_release. */
struct stop_saved {
	struct sigaction old_int, old_term, old_hup;
	int hup;
};

/* Catch SIGINT, SIGTERM and, with hup, SIGHUP; the flag starts at 0. */
void stop_catch(struct stop_saved *s, int hup);
/* Put the actions saved by stop_catch back (the flag keeps its value). */
void stop_release(const struct stop_saved *s);
/* The last stop signal caught since stop_catch, or 0. Async-signal-safe. */
int stop_signal(void);

#endif
