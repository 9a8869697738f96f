/* STUB: being written. */
#include "op.h"
static int stub_run(const void *cfg, struct sample *s) { (void)cfg; return sample_fail(s, "not implemented"); }
const struct op_ops op_center_crop = {
	.version = OP_ABI_VERSION,
	.name = "center_crop",
	.lotus_name = "SCenterCrop",
	.help = "center_crop",
	.in = PIX_U8_HWC,
	.out = PIX_U8_HWC,
	.run = stub_run,
};
