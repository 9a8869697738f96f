/* The stop flag of a command (stopsig.h). */
#include <string.h>
#include "stopsig.h"

static volatile sig_atomic_t caught;

static void on_stop(int sig)
{
	caught = sig;
}

void stop_catch(struct stop_saved *s, int hup)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: blocking calls return EINTR */
	sigemptyset(&sa.sa_mask);
	caught = 0;
	s->hup = hup;
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	if (hup)
		sigaction(SIGHUP, &sa, &s->old_hup);
}

void stop_release(const struct stop_saved *s)
{
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	if (s->hup)
		sigaction(SIGHUP, &s->old_hup, NULL);
}

int stop_signal(void)
{
	return caught;
}
