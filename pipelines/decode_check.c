/* The pixel limit both decoders check before decoding a pixel (decode.h). */
#include <inttypes.h>
#include <stdio.h>
#include "decode.h"

int decode_check_pixels(uint64_t w, uint64_t h, uint64_t max_pixels, char *err, size_t errlen)
{
	uint64_t px = w * h;
	if (w == 0 || h == 0) {
		snprintf(err, errlen, "image is %" PRIu64 "x%" PRIu64 ": no pixels", w, h);
		return -1;
	}
	if (max_pixels && px > max_pixels) {
		snprintf(err, errlen, "image is %" PRIu64 "x%" PRIu64 " = %" PRIu64
			 " pixels, over the limit of %" PRIu64 " (--max-pixels)", w, h, px, max_pixels);
		return -1;
	}
	return 0;
}
