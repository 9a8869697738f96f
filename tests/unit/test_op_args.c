/* The ops' argument tables (pipelines/op_args.c): for every op of the
 * registry, no argument gives each row's default (.def, written once), a
 * value given replaces it, op_help shows every row as [key=def], and the
 * parser keeps its messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rrc.h"

/* The row's field against its default, parsed here on its own. */
static void check_default(const struct op_ops *op, const struct opt *o, const void *args)
{
	const char *f = (const char *)args + o->off;
	assert_non_null(o->def);
	switch (o->type) {
	case OPT_INT:
		if (*(const long *)(const void *)f != strtol(o->def, NULL, 10))
			fail_msg("%s %s: %ld, default %s", op->name, o->name,
				 *(const long *)(const void *)f, o->def);
		break;
	case OPT_DOUBLE:
		if (*(const double *)(const void *)f != strtod(o->def, NULL))
			fail_msg("%s %s: %g, default %s", op->name, o->name,
				 *(const double *)(const void *)f, o->def);
		break;
	case OPT_DOUBLES: {
		const char *p = o->def;
		for (int i = 0; i < o->count; i++) {
			char *end;
			double want = strtod(p, &end);
			if (((const double *)(const void *)f)[i] != want)
				fail_msg("%s %s[%d]: %g, default %s", op->name, o->name, i,
					 ((const double *)(const void *)f)[i], o->def);
			p = end + 1;
		}
		break;
	}
	default:
		fail_msg("%s %s: a type op_args_parse does not take", op->name, o->name);
	}
}

static void test_defaults_and_help(void **state)
{
	(void)state;
	size_t n, with_args = 0;
	const struct op_ops *const *ops = op_all(&n);
	for (size_t i = 0; i < n; i++) {
		const struct op_ops *op = ops[i];
		char help[512], err[256];
		op_help(op, help, sizeof(help));
		assert_non_null(op->what);
		assert_non_null(strstr(help, op->what));
		assert_int_equal(strncmp(help, op->name, strlen(op->name)), 0);
		if (!op->args)
			continue;
		with_args++;
		assert_true(op->args_size > 0);
		void *args = calloc(1, op->args_size);
		assert_non_null(args);
		memset(args, 0xa5, op->args_size);   /* every field must be written */
		struct op_args a = { 0 };
		if (op_args_parse(op, &a, args, err, sizeof(err)))
			fail_msg("%s: %s", op->name, err);
		for (const struct opt *o = op->args; o->name; o++) {
			check_default(op, o, args);
			char shown[160];
			snprintf(shown, sizeof(shown), "[%s=%s]", o->name, o->def);
			if (!strstr(help, shown))
				fail_msg("%s: help '%s' does not show %s", op->name, help, shown);
		}
		free(args);
	}
	/* center_crop, resize, flip, normalize, both rrc, sleep, synth */
	assert_int_equal(with_args, 8);
}

/* rrc's default ratio text is 4/3 exactly: the golden log_lo/log_hi hold */
static void test_rrc_default_ratio(void **state)
{
	(void)state;
	const struct op_ops *op = op_find("random_resized_crop");
	assert_non_null(op);
	struct rrc_args r;
	struct op_args a = { 0 };
	char err[200];
	assert_int_equal(op_args_parse(op, &a, &r, err, sizeof(err)), 0);
	assert_int_equal(r.size, 224);
	assert_true(r.scale[0] == 0.08 && r.scale[1] == 1.0);
	assert_true(r.ratio[0] == 3.0 / 4.0 && r.ratio[1] == 4.0 / 3.0);
	assert_ptr_equal(op_find("decode_random_resized_crop")->args, op->args);
}

/* A value given replaces the default; the messages are the parser's. */
static void test_values_and_messages(void **state)
{
	(void)state;
	const struct op_ops *op = op_find("normalize");
	struct { double mean[3], std[3]; } v;
	struct op_args a = { .n = 1 };
	char err[200];
	snprintf(a.key[0], sizeof(a.key[0]), "std");
	snprintf(a.val[0], sizeof(a.val[0]), "1,2,3");
	assert_int_equal(op->args_size, sizeof(v));
	assert_int_equal(op_args_parse(op, &a, &v, err, sizeof(err)), 0);
	assert_true(v.std[0] == 1 && v.std[1] == 2 && v.std[2] == 3);
	assert_true(v.mean[0] == 0.485 && v.mean[2] == 0.406);
	assert_int_equal(a.used, 1u);

	snprintf(a.val[0], sizeof(a.val[0]), "-1,1,1");
	assert_int_equal(op_args_parse(op, &a, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "std: '-1,1,1' has -1, out of range"));

	void *cfg;
	const struct op_ops *rs = op_find("resize");
	struct op_args b = { .n = 1 };
	snprintf(b.key[0], sizeof(b.key[0]), "size");
	snprintf(b.val[0], sizeof(b.val[0]), "x");
	assert_int_equal(op_configure(rs, &b, &cfg, err, sizeof(err)), -1);
	assert_string_equal(err, "resize: size: 'x' is not an integer");
	snprintf(b.key[0], sizeof(b.key[0]), "sise");
	b.used = 0;
	assert_int_equal(op_configure(rs, &b, &cfg, err, sizeof(err)), -1);
	assert_string_equal(err, "op 'resize' has no argument 'sise'");
	assert_null(cfg);
	/* an op with a table and no init: its configuration is the arguments */
	const struct op_ops *sy = op_find("synth");
	assert_null(sy->init);
	struct op_args c = { .n = 1 };
	snprintf(c.key[0], sizeof(c.key[0]), "h");
	snprintf(c.val[0], sizeof(c.val[0]), "5");
	assert_int_equal(op_configure(sy, &c, &cfg, err, sizeof(err)), 0);
	assert_non_null(cfg);
	const long *wh = cfg;
	assert_int_equal(wh[0], 8);
	assert_int_equal(wh[1], 5);
	sy->release(cfg);
	/* an op without a table takes no argument */
	b.used = 0;
	assert_int_equal(op_configure(op_find("to_tensor"), &b, &cfg, err, sizeof(err)), -1);
	assert_string_equal(err, "op 'to_tensor' has no argument 'sise'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_help),
		cmocka_unit_test(test_rrc_default_ratio),
		cmocka_unit_test(test_values_and_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
