#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "log.h"
#include "subprocess.h"
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
	struct spawn child = SPAWN_INIT;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	child.argv = (char *const *)argv;
	child.search = 1;
	child.in = SPAWN_NULL;
	child.out = child.err = fd >= 0 ? fd : SPAWN_KEEP;
	pid_t pid = spawn_start(&child);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (pid < 0 && e == ENOENT) {
		errf(why, whylen, "gnuplot is not installed (apt-get install gnuplot-nox)");
		return -1;
	}
	if (pid < 0) {
		errf(why, whylen, "cannot start gnuplot: %s", strerror(e));
		return -1;
	}
	if (spawn_wait(pid, &st) < 0) {
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
