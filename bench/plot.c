#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "log.h"
#include "plot.h"

int plot_run(const char *top, const char *script, const char *const *args, const char *log,
	     char *why, size_t whylen)
{
	char sp[4096];
	const char *argv[12];
	size_t n = 0;
	int st;

	snprintf(sp, sizeof(sp), "%s/plots/%s", top, script);
	argv[n++] = "gnuplot";
	argv[n++] = "-c";
	argv[n++] = sp;
	for (; args && *args && n < 11; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		errf(why, whylen, "cannot start gnuplot: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		execvp("gnuplot", (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			errf(why, whylen, "cannot wait for gnuplot: %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		errf(why, whylen, "gnuplot is not installed (apt-get install gnuplot-nox)");
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		errf(why, whylen, "gnuplot failed on plots/%s (see %s)", script, log);
		return -1;
	}
	return 0;
}
