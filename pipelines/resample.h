/* Pillow's bilinear Image.resize on an RGB image, bit for bit (Pillow 9.4,
 * src/libImaging/Resample.c; spec section 4). */
#ifndef PPBENCH_RESAMPLE_H
#define PPBENCH_RESAMPLE_H

#include <stdint.h>
#include "sample.h"

/* Resize the in_w x in_h RGB image at `in` (rows in_stride bytes apart, so
 * a crop of a larger image can be passed in place: it gives the same bytes
 * as Pillow's img.crop(box).resize(...)) to out_w x out_h at `out` (packed
 * rows of 3 * out_w bytes; must not overlap `in`). Same size: a copy.
 * The scratch buffers only grow. 0, or -1 if a size is not positive or
 * memory runs out. */
int resample_bilinear_u8(const uint8_t *in, int in_w, int in_h, int in_stride,
			 uint8_t *out, int out_w, int out_h,
			 struct buf *scratch_coeffs, struct buf *scratch_tmp);

/* How a pass's sums were formed: skipped (the size does not change on
 * that axis), with the weights split in three bytes (vpdpbusd: the
 * avx512vnni kernel), or in two int16 halves (pmaddwd: the other kernels,
 * and avx512vnni's fallback for an axis it cannot take) */
enum resample_split { RESAMPLE_SKIPPED, RESAMPLE_SPLIT3, RESAMPLE_SPLIT2 };
struct resample_how {
	enum resample_split h, v;
};

/* resample_bilinear_u8, saying in *how (may be NULL) how each pass ran. */
int resample_bilinear_u8_how(const uint8_t *in, int in_w, int in_h, int in_stride,
			     uint8_t *out, int out_w, int out_h,
			     struct buf *scratch_coeffs, struct buf *scratch_tmp, struct resample_how *how);

/* Split a weight for vpdpbusd: w = part[0] 2^16 + part[1] 2^8 + part[2],
 * each part in [-128, 127], with part[0] 2^8 + part[1] in int16 (kernels.h,
 * w3). 0, or -1 if w is outside [W3_MIN, W3_MAX] = [-(2^23 + 2^7),
 * 127 (2^16 + 2^8 + 1)] (then the pmaddwd kernels take the axis). */
int resample_split3(int32_t w, int8_t part[3]);

/* The multiply-adds resample_bilinear_u8 does for these sizes (taps x
 * channels, over the horizontal pass's rows and the vertical pass): the
 * work against which `make bench` states the resampler's bound. */
uint64_t resample_macs(int in_w, int in_h, int out_w, int out_h);

#endif
