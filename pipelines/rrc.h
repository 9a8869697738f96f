/* torchvision RandomResizedCrop.get_params (0.14, same through 0.20 for PIL
 * images), bit for bit with torch on an AVX2 CPU (spec section 3). */
#ifndef PPBENCH_RRC_H
#define PPBENCH_RRC_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

struct rng;
struct sample;

/* The draw-independent part of get_params, computed once per op. */
struct rrc_params {
	float scale_lo, scale_hi;   /* (float)scale: what uniform_ receives */
	float log_lo, log_hi;       /* torch.log(torch.tensor(ratio)), float32 */
	double ratio_min, ratio_max;/* min(ratio), max(ratio): the fallback's doubles */
};

/* Fill p from torchvision's arguments. The default ratio (0.75,
 * 1.3333333333333333) gives log_lo = 0xbe934b11, log_hi = 0x3e934b12. */
void rrc_params_init(struct rrc_params *p, double scale_lo, double scale_hi,
		     double ratio_lo, double ratio_hi);

/* get_params(img) for an image of W x H (both > 0): the crop's top i, left
 * j, height h and width w, drawing from r exactly as torch does (2 draws per
 * attempt, 2 more when one is accepted, none in the fallback). */
void rrc_get_params(struct rng *r, const struct rrc_params *p, int W, int H,
		    int *i, int *j, int *h, int *w);

/* torch.log on float32 (Sleef logf_u10, the AVX2 path). */
float rrc_torch_logf(float d);

/* ---- the op's parts, shared by random_resized_crop and the fused
 * decode_random_resized_crop (op_random_resized_crop.c) ------------------- */
/* Their arguments (rrc_args, the table both ops share) and the config made
 * from them (*cfg, heap; free()). 0, or -1 with err. */
struct rrc_args {
	long size;
	double scale[2], ratio[2];
};
extern const struct opt rrc_args[];
int rrc_op_init(const void *args, void **cfg, char *err, size_t errlen);
/* The box (top, left, height, width) for a W x H image: drawn from s->rng
 * as get_params draws it, or s->fixed's. 0, or -1 (sample_fail). */
int rrc_op_box(const void *cfg, struct sample *s, int W, int H, int box[4]);
/* The box's pixels, at px (rows `stride` bytes apart), resized to size x
 * size into the sample (its data becomes the result). 0, or -1. */
int rrc_op_resample(const void *cfg, struct sample *s, const uint8_t *px, int stride,
		    const int box[4]);

/* decode_random_resized_crop's images decoded in full instead of by region
 * (a PNG, no EOI, a failed region decode), in this thread; with
 * region_decodes, also those decoded by region. */
uint64_t fused_fallbacks(uint64_t *region_decodes);

#endif
