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

/* The multiply-adds resample_bilinear_u8 does for these sizes (taps x
 * channels, over the horizontal pass's rows and the vertical pass): the
 * work against which `make bench` states the resampler's bound. */
uint64_t resample_macs(int in_w, int in_h, int out_w, int out_h);

#endif
