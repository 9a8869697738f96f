/* null: does nothing. A pipeline of it measures the harness itself. */
#include "op.h"

static int null_run(const void *cfg, struct sample *s)
{
	(void)cfg;
	(void)s;
	return 0;
}

const struct op_ops op_null = {
	.version = OP_ABI_VERSION,
	.name = "null",
	.lotus_name = "SNull",
	.what = "does nothing (measures the harness)",
	.flags = OP_TEST,
	.in = PIX_NONE,
	.out = PIX_NONE,
	.run = null_run,
};
