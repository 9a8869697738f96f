/* sleep: waits a given time per sample, for protocol tests whose timing must
 * be predictable. ms=T sleeps T ms for every sample; slow_every=K with
 * slow_ms=S sleeps S ms instead for samples whose index is a multiple of K;
 * slow_index=I makes only sample I slow. */
#include <stdlib.h>
#include "op.h"
#include "clock.h"

/* a minute per sample: more is no protocol test, and 1e300 would wrap */
#define SLEEP_MAX_MS 60000.0

struct sleep_cfg {
	double ms, slow_ms;
	long slow_every, slow_index;
};

static int sleep_init(struct op_args *a, void **cfg, char *err, size_t errlen)
{
	struct sleep_cfg *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->slow_index = -1;
	if (op_arg_double(a, "ms", 0, SLEEP_MAX_MS, &c->ms, err, errlen) ||
	    op_arg_double(a, "slow_ms", 0, SLEEP_MAX_MS, &c->slow_ms, err, errlen) ||
	    op_arg_int(a, "slow_every", 0, 1L << 40, &c->slow_every, err, errlen) ||
	    op_arg_int(a, "slow_index", -1, 1L << 40, &c->slow_index, err, errlen)) {
		free(c);
		return -1;
	}
	*cfg = c;
	return 0;
}

static int sleep_run(const void *cfg, struct sample *s)
{
	const struct sleep_cfg *c = cfg;
	double ms = c->ms;
	if ((c->slow_every > 0 && s->index % (uint64_t)c->slow_every == 0) ||
	    (c->slow_index >= 0 && s->index == (uint64_t)c->slow_index))
		ms = c->slow_ms;
	if (ms > 0)
		clock_sleep_ns((uint64_t)(ms * 1e6), NULL);
	return 0;
}

const struct op_ops op_sleep = {
	.version = OP_ABI_VERSION,
	.name = "sleep",
	.lotus_name = "SSleep",
	.help = "sleep ms=T [slow_ms=S slow_every=K | slow_index=I]: waits per sample (tests)",
	.flags = OP_TEST,
	.in = PIX_NONE,
	.out = PIX_NONE,
	.init = sleep_init,
	.run = sleep_run,
	.release = free,
};
