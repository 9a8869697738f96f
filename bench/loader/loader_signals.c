/* The main process's signals during a run: a self-pipe, so that a signal
 * wakes the poll of the main thread (loader_flow.c); a second SIGINT,
 * SIGTERM or SIGHUP stops at once. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include "loader_int.h"

volatile sig_atomic_t loader_sig_attention;        /* any handled signal arrived */
volatile sig_atomic_t loader_sig_stop;    /* SIGINT, SIGTERM or SIGHUP, 0 none */
int loader_sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	int stop = sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
	if (stop && loader_sig_stop) {
		/* a second one: stop now (the workers die with their parent) */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (stop)
		loader_sig_stop = sig;
	loader_sig_attention = 1;
	if (loader_sig_pipe[1] >= 0) {
		ssize_t w = write(loader_sig_pipe[1], "", 1);
		(void)w;
	}
	errno = saved;
}

int loader_signals_install(struct sig_saved *old)
{
	if (pipe2(loader_sig_pipe, O_CLOEXEC | O_NONBLOCK))
		return -1;
	loader_sig_stop = 0;
	loader_sig_attention = 0;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old->intr);
	sigaction(SIGTERM, &sa, &old->term);
	sigaction(SIGHUP, &sa, &old->hup);   /* a closed terminal: stop as on SIGTERM */
	sigaction(SIGCHLD, &sa, &old->chld);
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old->pipe);
	return 0;
}

void loader_signals_restore(const struct sig_saved *old)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGHUP, &old->hup, NULL);
	sigaction(SIGCHLD, &old->chld, NULL);
	sigaction(SIGPIPE, &old->pipe, NULL);
	close(loader_sig_pipe[0]);
	close(loader_sig_pipe[1]);
	loader_sig_pipe[0] = loader_sig_pipe[1] = -1;
}
