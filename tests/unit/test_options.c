/* options.h: the prelude every command starts with (opts_prelude), and the
 * loader's choice names (loader.h *_CHOICES, loader.c's arrays) agreeing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "loader.h"
#include "options.h"

struct cfg {
	long n;
	const char *out;
};

static const struct opt table[] = {
	{ .name = "n", .shortname = 'n', .type = OPT_INT, .off = offsetof(struct cfg, n), .def = "2",
	  .metavar = "N", .help = "a number", .lo = 1, .hi = 10 },
	OPT_OUT(struct cfg, out, "results", OPT_OUT_HELP),
	OPT_END
};

static int prelude(const char *noargs, int *npos, struct cfg *c, int argc, ...)
{
	char *argv[8];
	va_list ap;
	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	return opts_prelude(table, c, argc, argv, npos, "t [options]", "A test.", noargs);
}

static void test_prelude(void **state)
{
	(void)state;
	struct cfg c;
	int npos = -1;
	/* goes on, with the defaults and the positional arguments */
	assert_int_equal(prelude(NULL, &npos, &c, 4, "t", "x", "-n", "5"), -1);
	assert_int_equal(npos, 1);
	assert_int_equal(c.n, 5);
	assert_string_equal(c.out, "results");
	/* a bad option, a value out of range: usage errors */
	assert_int_equal(prelude(NULL, &npos, &c, 2, "t", "--nope"), EXIT_USAGE);
	assert_int_equal(prelude(NULL, &npos, &c, 3, "t", "-n", "11"), EXIT_USAGE);
	/* a command without arguments refuses a stray one, even before --help */
	assert_int_equal(prelude("t", &npos, &c, 2, "t", "x"), EXIT_USAGE);
	assert_int_equal(prelude("t", &npos, &c, 3, "t", "x", "--help"), EXIT_USAGE);
	assert_int_equal(prelude("t", &npos, &c, 1, "t"), -1);
	assert_int_equal(npos, 0);
	/* --help: the help on stdout, then done */
	FILE *keep = stdout;
	stdout = fopen("/dev/null", "w");
	assert_non_null(stdout);
	int rc = prelude(NULL, &npos, &c, 3, "t", "x", "--help");
	fclose(stdout);
	stdout = keep;
	assert_int_equal(rc, EXIT_OK);
}

/* names[0..n) joined with '|' is the option's choices */
static void same(const char *const *names, size_t n, const char *choices)
{
	char joined[256] = "";
	for (size_t i = 0; i < n; i++) {
		assert_non_null(names[i]);
		if (i)
			strcat(joined, "|");
		strcat(joined, names[i]);
	}
	assert_string_equal(joined, choices);
}

#define SAME(names, choices) same(names, sizeof(names) / sizeof(names[0]), choices)

static void test_choice_names(void **state)
{
	(void)state;
	SAME(loader_backend_names, BACKEND_CHOICES);
	SAME(loader_order_names, ORDER_CHOICES);
	SAME(loader_rng_names, RNG_CHOICES);
	SAME(loader_policy_names, POLICY_CHOICES);
	/* the option stores the index in the choices: the enum value */
	struct { int policy; } o;
	static const struct opt t[] = {
		{ .name = "policy", .type = OPT_ENUM, .off = 0, .def = "torch",
		  .choices = POLICY_CHOICES },
		OPT_END
	};
	char err[256];
	assert_int_equal(opts_set(t, &o, "policy", "speedy", err, sizeof(err)), 0);
	assert_int_equal(o.policy, POLICY_SPEEDY);
	assert_int_equal(opts_set(t, &o, "policy", "shared-queue", err, sizeof(err)), 0);
	assert_int_equal(o.policy, POLICY_SHARED_QUEUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prelude),
		cmocka_unit_test(test_choice_names),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
