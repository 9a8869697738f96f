/* decode, JPEG and PNG, through the code path a worker uses: the file is
 * written, then the decode op reads it (open_regular, the header sniffed
 * first, --max-file-size) and decodes it (libjpeg-turbo or libpng with
 * Pillow's rules). --max-pixels is 4 Mpx here instead of Pillow's 179 Mpx,
 * so that an input cannot make one execution take seconds. */
#include <stdio.h>
#include <string.h>
#include "decode.h"
#include "fuzz.h"
#include "op.h"

extern const struct op_ops op_decode;
static char path[300];

void fuzz_init(void)
{
	snprintf(path, sizeof(path), "%s/x.JPEG", fuzz_dir());
}

int fuzz_one(const uint8_t *data, size_t n)
{
	static struct scratch scr;
	struct sample s;
	memset(&s, 0, sizeof(s));
	s.path = path;
	s.max_pixels = 1u << 22;
	s.max_file_bytes = DECODE_MAX_FILE_BYTES;
	s.scr = &scr;
	s.kind = PIX_NONE;
	if (fuzz_write("x.JPEG", data, n))
		return 0;
	if (op_decode.run(NULL, &s) == 0 && s.h * s.w * 3 > 0) {
		/* touch every output byte: an uninitialised or short buffer shows */
		volatile uint8_t x = 0;
		const uint8_t *p = s.data.p;
		for (size_t i = 0; i < (size_t)s.h * (size_t)s.w * 3; i++)
			x ^= p[i];
		(void)x;
	}
	sample_release(&s);
	return 0;
}
