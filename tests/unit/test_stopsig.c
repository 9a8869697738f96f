/* stopsig.h: a stop signal sets the flag instead of ending the process, a
 * blocking call returns EINTR (no SA_RESTART), and the actions before are
 * put back. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "stopsig.h"

static volatile sig_atomic_t before;

static void mine(int sig)
{
	before = sig;
}

static void test_catch_release(void **state)
{
	(void)state;
	struct sigaction sa = { .sa_handler = mine }, now;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	struct stop_saved s;
	stop_catch(&s, 0);
	assert_int_equal(stop_signal(), 0);
	raise(SIGTERM);
	assert_int_equal(stop_signal(), SIGTERM);
	raise(SIGINT);
	assert_int_equal(stop_signal(), SIGINT);
	assert_int_equal(before, 0);
	/* SIGHUP was not asked for: the action before runs */
	raise(SIGHUP);
	assert_int_equal(before, SIGHUP);
	stop_release(&s);
	assert_int_equal(stop_signal(), SIGINT);   /* the flag stays */
	sigaction(SIGINT, NULL, &now);
	assert_ptr_equal(now.sa_handler, mine);
	before = 0;
	raise(SIGINT);
	assert_int_equal(before, SIGINT);

	/* with SIGHUP; the flag starts at 0 again */
	stop_catch(&s, 1);
	assert_int_equal(stop_signal(), 0);
	before = 0;
	raise(SIGHUP);
	assert_int_equal(stop_signal(), SIGHUP);
	assert_int_equal(before, 0);
	stop_release(&s);
	sigaction(SIGHUP, NULL, &now);
	assert_ptr_equal(now.sa_handler, mine);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

/* a read that blocks returns EINTR when a stop signal comes (no SA_RESTART) */
static void test_no_restart(void **state)
{
	(void)state;
	int fd[2];
	char c;
	assert_int_equal(pipe(fd), 0);
	struct stop_saved s;
	stop_catch(&s, 0);
	/* a child sends SIGTERM while the read blocks */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		usleep(50000);
		kill(getppid(), SIGTERM);
		sleep(1);   /* a restarted read gets a byte: the test fails, no hang */
		if (write(fd[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	ssize_t r = read(fd[0], &c, 1);
	int e = errno;
	assert_int_equal(r, -1);
	assert_int_equal(e, EINTR);
	assert_int_equal(stop_signal(), SIGTERM);
	stop_release(&s);
	waitpid(pid, NULL, 0);
	close(fd[0]);
	close(fd[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catch_release),
		cmocka_unit_test(test_no_restart),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
