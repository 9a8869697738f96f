/* synth w=W h=H fail_every=K fail_index=I: a stand-in for decode in tests
 * and harness measurements. It reads no file: it makes a W x H uint8 RGB
 * image from the sample's index and one draw of its random stream, so the
 * output depends on the data order and the seeding, as real data does.
 * Samples whose index is a multiple of K (K > 0), or equals I, fail, as a
 * corrupt file would. */
#include <stdlib.h>
#include "op.h"
#include "rng.h"

/* the arguments are the configuration */
struct synth_cfg {
	long w, h, fail_every, fail_index;
};

static const struct opt synth_args[] = {
	OP_ARG(struct synth_cfg, w, OPT_INT, "8", 1, 1 << 15),
	OP_ARG(struct synth_cfg, h, OPT_INT, "8", 1, 1 << 15),
	OP_ARG(struct synth_cfg, fail_every, OPT_INT, "0", 0, 1L << 40),
	OP_ARG(struct synth_cfg, fail_index, OPT_INT, "-1", -1, 1L << 40),
	OPT_END
};

static int synth_run(const void *cfg, struct sample *s)
{
	const struct synth_cfg *c = cfg;
	if ((c->fail_every > 0 && s->index % (uint64_t)c->fail_every == 0) ||
	    (c->fail_index >= 0 && s->index == (uint64_t)c->fail_index))
		return sample_fail(s, "synthetic failure of sample %llu",
				   (unsigned long long)s->index);
	size_t n = (size_t)c->w * (size_t)c->h * 3;
	if (op_check_out(s, c->w, c->h))
		return -1;
	if (buf_reserve(&s->scr->tmp, n))
		return sample_fail(s, "out of memory");
	uint32_t r = rng_u32(s->rng);
	uint8_t *px = s->scr->tmp.p;
	uint32_t base = (uint32_t)(s->index * 131u) + (r >> 24);
	for (long y = 0; y < c->h; y++)
		for (long x = 0; x < c->w; x++)
			for (int ch = 0; ch < 3; ch++)
				*px++ = (uint8_t)(base + (uint32_t)(x * 7 + y * 13 + ch * 61));
	sample_swap_tmp(s);
	s->kind = PIX_U8_HWC;
	s->w = (int)c->w;
	s->h = (int)c->h;
	return 0;
}

const struct op_ops op_synth = {
	.version = OP_ABI_VERSION,
	.name = "synth",
	.lotus_name = "SSynth",
	.what = "a w x h image from the sample index and one random draw, no file read; "
		"samples whose index is a multiple of fail_every (0: none) or is fail_index "
		"(-1: none) fail (tests)",
	.args = synth_args,
	.args_size = sizeof(struct synth_cfg),
	.flags = OP_TEST | OP_RANDOM,
	.in = PIX_NONE,
	.out = PIX_U8_HWC,
	.run = synth_run,
	.release = free,
};
