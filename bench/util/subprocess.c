#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "subprocess.h"

extern char **environ;

static void child_fd(int want, int fd, int flags)
{
	if (want == SPAWN_KEEP)
		return;
	if (want == SPAWN_NULL)
		want = open("/dev/null", flags);
	if (want >= 0 && want != fd)
		dup2(want, fd);
}

/* In the child: set it up, run the program; on failure tell the parent
 * why through report (close-on-exec: closed unread when the run starts). */
static void __attribute__((noreturn)) child(const struct spawn *s, pid_t parent, int report)
{
	const char *exe = s->exe ? s->exe : s->argv[0];
	int e;

	if (s->own_group)
		setpgid(0, 0);
	child_fd(s->in, 0, O_RDONLY);
	child_fd(s->out, 1, O_WRONLY);
	child_fd(s->err, 2, O_WRONLY);
	for (const int *sig = s->dfl; sig && *sig; sig++)
		signal(*sig, SIG_DFL);
	if (s->deathsig) {
		prctl(PR_SET_PDEATHSIG, s->deathsig);
		if (getppid() != parent)
			_exit(128 + s->deathsig);
	}
	if (s->mask)
		sigprocmask(SIG_SETMASK, s->mask, NULL);
	char *const *envp = s->envp ? s->envp : environ;
	if (s->search)
		execvpe(exe, s->argv, envp);
	else
		execve(exe, s->argv, envp);
	e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

pid_t spawn_start(const struct spawn *s)
{
	pid_t parent = getpid(), pid;
	int report[2], e;

	if (pipe2(report, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		child(s, parent, report[1]);
	}
	e = errno;
	close(report[1]);
	if (pid < 0) {
		close(report[0]);
		errno = e;
		return -1;
	}
	ssize_t got;
	while ((got = read(report[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (got == (ssize_t)sizeof(e)) {
		int st;
		spawn_wait(pid, &st);
		errno = e;
		return -1;
	}
	return pid;
}

int spawn_wait(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int spawn_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
