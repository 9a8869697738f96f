/* STUB: being written. */
#include "op.h"
static int stub_run(const void *cfg, struct sample *s) { (void)cfg; return sample_fail(s, "not implemented"); }
const struct op_ops op_decode = {
	.version = OP_ABI_VERSION,
	.name = "decode",
	.lotus_name = "SLoader",
	.help = "decode",
	.in = PIX_NONE,
	.out = PIX_U8_HWC,
	.run = stub_run,
};
