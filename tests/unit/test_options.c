/* options.h: the prelude every command starts with (opts_prelude), the
 * loader's choice names (loader.h *_CHOICES, loader.c's arrays) agreeing,
 * the list types (OPT_DOUBLES, OPT_MULTI) and the split of a command's own
 * options from those it passes on (opts_split). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "conventions.h"
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

struct lists {
	double mean[3];
	struct opt_multi label;
	long n;
	int on;
};

static const struct opt list_table[] = {
	{ .name = "mean", .type = OPT_DOUBLES, .off = offsetof(struct lists, mean), .count = 3,
	  .def = "0.485,0.456,0.406", .metavar = "R,G,B", .help = "means", .lo = 0, .hi = 1 },
	{ .name = "label", .type = OPT_MULTI, .off = offsetof(struct lists, label),
	  .metavar = "L", .help = "a label" },
	{ .name = "n", .shortname = 'n', .type = OPT_INT, .off = offsetof(struct lists, n),
	  .def = "1", .help = "a number", .lo = 1, .hi = 9 },
	{ .name = "on", .type = OPT_BOOL, .off = offsetof(struct lists, on), .def = "off",
	  .help = "a switch" },
	OPT_END
};

static void test_doubles(void **state)
{
	(void)state;
	struct lists c;
	char err[256], text[128];
	/* the default */
	assert_int_equal(opts_defaults(list_table, &c, err, sizeof(err)), 0);
	assert_true(c.mean[0] == 0.485 && c.mean[1] == 0.456 && c.mean[2] == 0.406);
	/* a value */
	assert_int_equal(opts_set(list_table, &c, "mean", "0.5,0.25,1", err, sizeof(err)), 0);
	assert_true(c.mean[0] == 0.5 && c.mean[1] == 0.25 && c.mean[2] == 1);
	opts_format(&list_table[0], &c, text, sizeof(text));
	assert_string_equal(text, "0.5,0.25,1");
	json_t *j = opts_json(list_table, &c);
	assert_int_equal(json_array_size(json_object_get(j, "mean")), 3);
	assert_true(json_real_value(json_array_get(json_object_get(j, "mean"), 1)) == 0.25);
	json_decref(j);
	/* bad values: too few, too many, not a number, out of range; the value stays */
	static const char *const bad[] = { "0.5,0.5", "0.1,0.2,0.3,0.4", "0.1,x,0.3", "0.1,,0.3",
					   "0.1,0.2,0.3,", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(opts_set(list_table, &c, "mean", bad[i], err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is not 3 numbers separated by commas"));
	}
	assert_int_equal(opts_set(list_table, &c, "mean", "0.1,2,0.3", err, sizeof(err)), -1);
	assert_string_equal(err, "--mean: 2 is out of range [0, 1]");
	assert_true(c.mean[0] == 0.5 && c.mean[1] == 0.25 && c.mean[2] == 1);
}

static void test_multi(void **state)
{
	(void)state;
	struct lists c;
	char err[256], text[128];
	int npos = 0;
	char *argv[] = { "t", "--label", "a", "-n", "3", "--label=b c", "--label", "a", NULL };
	/* the default: none */
	assert_int_equal(opts_defaults(list_table, &c, err, sizeof(err)), 0);
	assert_int_equal(c.label.n, 0);
	assert_null(c.label.v);
	/* each occurrence, in order */
	assert_int_equal(opts_parse(list_table, &c, 8, argv, 1, &npos, err, sizeof(err)), 0);
	assert_int_equal(c.label.n, 3);
	assert_string_equal(c.label.v[0], "a");
	assert_string_equal(c.label.v[1], "b c");
	assert_string_equal(c.label.v[2], "a");
	assert_int_equal(c.n, 3);
	opts_format(&list_table[1], &c, text, sizeof(text));
	assert_string_equal(text, "a,b c,a");
	json_t *j = opts_json(list_table, &c);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "label"), 1)), "b c");
	json_decref(j);
	/* a bad value: it needs one */
	assert_int_equal(opts_parse(list_table, &c, 2, argv, 1, &npos, err, sizeof(err)), -1);
	assert_string_equal(err, "--label needs a value");
	opts_free(list_table, &c);
	assert_int_equal(c.label.n, 0);
	assert_null(c.label.v);
	/* a repeatable option with a default is a bug in the table */
	static const struct opt with_def[] = {
		{ .name = "label", .type = OPT_MULTI, .off = offsetof(struct lists, label),
		  .def = "x", .help = "a label" },
		OPT_END
	};
	assert_int_equal(opts_defaults(with_def, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "--label: a repeatable option has no default");
}

static void test_split(void **state)
{
	(void)state;
	struct opts_split s;
	char err[256] = "";
	/* mine (with values, --no-, =, short, --help), passed (with values), in order */
	char *argv[] = { "t", "--label", "x", "--workers", "2", "--no-on", "-n", "4", "--seed=3",
			 "--on", "off", "--shuffle", "-b", "8", "--help", "--n=5", NULL };
	assert_int_equal(opts_split(list_table, table, 16, argv, &s, err, sizeof(err)), 1);
	/* --workers, --seed, -b are not the passed table's (t's) either */
	assert_string_equal(err, "unknown option '--workers'");
	opts_split_free(&s);
	static const struct opt run[] = {
		{ .name = "workers", .shortname = 'w', .type = OPT_INT, .off = 0, .help = "w" },
		{ .name = "seed", .type = OPT_INT, .off = 0, .help = "s" },
		{ .name = "shuffle", .type = OPT_BOOL, .off = 0, .help = "s" },
		{ .name = "batch", .shortname = 'b', .type = OPT_INT, .off = 0, .help = "b" },
		OPT_END
	};
	assert_int_equal(opts_split(list_table, run, 16, argv, &s, err, sizeof(err)), 0);
	const char *own[] = { "t", "--label", "x", "--no-on", "-n", "4", "--on", "off", "--help",
			      "--n=5" };
	const char *passed[] = { "--workers", "2", "--seed=3", "--shuffle", "-b", "8" };
	assert_int_equal(s.nown, 10);
	for (int i = 0; i < s.nown; i++)
		assert_string_equal(s.own[i], own[i]);
	assert_int_equal(s.npassed, 6);
	for (size_t i = 0; i < s.npassed; i++)
		assert_string_equal(s.passed[i], passed[i]);
	assert_null(s.passed[s.npassed]);
	opts_split_free(&s);
	/* unknown to both: the nearest of both tables; s is filled all the same */
	char *typo[] = { "t", "--workerz", "2", "--lable", "y", NULL };
	assert_int_equal(opts_split(list_table, run, 5, typo, &s, err, sizeof(err)), 1);
	assert_string_equal(err, "unknown option '--workerz'; did you mean '--workers'?");
	assert_int_equal(s.npassed, 4);
	opts_split_free(&s);
	char *typo2[] = { "t", "--lable", "y", NULL };
	assert_int_equal(opts_split(list_table, run, 3, typo2, &s, err, sizeof(err)), 1);
	assert_string_equal(err, "unknown option '--lable'; did you mean '--label'?");
	opts_split_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prelude),
		cmocka_unit_test(test_choice_names),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_multi),
		cmocka_unit_test(test_split),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
