/* STUB: being written. */
#include "op.h"
static int stub_run(const void *cfg, struct sample *s) { (void)cfg; return sample_fail(s, "not implemented"); }
const struct op_ops op_resize = {
	.version = OP_ABI_VERSION,
	.name = "resize",
	.lotus_name = "SResize",
	.help = "resize",
	.in = PIX_U8_HWC,
	.out = PIX_U8_HWC,
	.run = stub_run,
};
