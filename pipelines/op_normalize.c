/* normalize mean=R,G,B std=R,G,B: (x - m) / s per channel in float32, true
 * division, as torchvision Normalize (mean and std are float32 tensors). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernels.h"
#include "op.h"

struct norm_cfg {
	float mean[3], std[3];
};

struct norm_args {
	double mean[3], std[3];
};

/* float32 values; a std of 0, below 0 or denormal is refused (torchvision
 * refuses only 0, and then divides by a negative or denormal one) */
static const struct opt norm_args[] = {
	OP_ARG_LIST(struct norm_args, mean, 3, "0.485,0.456,0.406", -FLT_MAX, FLT_MAX),
	OP_ARG_LIST(struct norm_args, std, 3, "0.229,0.224,0.225", FLT_MIN, FLT_MAX),
	OPT_END
};

static int norm_init(const void *args, void **cfg, char *err, size_t errlen)
{
	const struct norm_args *a = args;
	const double *m = a->mean, *s = a->std;
	/* the input is to_tensor's, in [0, 1]: every output must be finite */
	for (int i = 0; i < 3; i++) {
		double far = fmax(fabs(m[i]), fabs(1 - m[i]));
		if (far / s[i] > FLT_MAX) {
			snprintf(err, errlen, "mean %g and std %g of channel %d make values beyond "
				 "float32's range (inf)", m[i], s[i], i);
			return -1;
		}
	}
	struct norm_cfg *c = malloc(sizeof(*c));
	if (!c)
		return -1;
	for (int i = 0; i < 3; i++) {
		c->mean[i] = (float)m[i];
		c->std[i] = (float)s[i];
	}
	*cfg = c;
	return 0;
}

static int norm_run(const void *cfg, struct sample *s)
{
	const struct norm_cfg *c = cfg;
	size_t hw = (size_t)s->h * (size_t)s->w;
	float *x = s->data.p;
	const struct kernels *k = kernels_active();
	for (int ch = 0; ch < 3; ch++)
		k->normalize(x + (size_t)ch * hw, hw, c->mean[ch], c->std[ch]);
	return 0;
}

const struct op_ops op_normalize = {
	.version = OP_ABI_VERSION,
	.name = "normalize",
	.lotus_name = "SNormalize",
	.what = "(x - mean) / std",
	.args = norm_args,
	.args_size = sizeof(struct norm_args),
	.in = PIX_F32_CHW,
	.out = PIX_F32_CHW,
	.init = norm_init,
	.run = norm_run,
	.release = free,
};
