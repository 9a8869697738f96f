/* STUB: being written. */
#include "op.h"
static int stub_run(const void *cfg, struct sample *s) { (void)cfg; return sample_fail(s, "not implemented"); }
const struct op_ops op_random_resized_crop = {
	.version = OP_ABI_VERSION,
	.name = "random_resized_crop",
	.lotus_name = "SRandomResizedCrop",
	.help = "random_resized_crop",
	.in = PIX_U8_HWC,
	.out = PIX_U8_HWC,
	.run = stub_run,
};
