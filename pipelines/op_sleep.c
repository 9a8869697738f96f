/* sleep: waits a given time per sample, for protocol tests whose timing must
 * be predictable. ms=T sleeps T ms for every sample; slow_every=K with
 * slow_ms=S sleeps S ms instead for samples whose index is a multiple of K;
 * slow_index=I makes only sample I slow. */
#include <stdlib.h>
#include "op.h"
#include "clock.h"

/* a minute per sample: more is no protocol test, and 1e300 would wrap */
#define SLEEP_MAX_MS 60000.0

/* the arguments are the configuration */
struct sleep_cfg {
	double ms, slow_ms;
	long slow_every, slow_index;
};

static const struct opt sleep_args[] = {
	OP_ARG(struct sleep_cfg, ms, OPT_DOUBLE, "0", 0, SLEEP_MAX_MS),
	OP_ARG(struct sleep_cfg, slow_ms, OPT_DOUBLE, "0", 0, SLEEP_MAX_MS),
	OP_ARG(struct sleep_cfg, slow_every, OPT_INT, "0", 0, 1L << 40),
	OP_ARG(struct sleep_cfg, slow_index, OPT_INT, "-1", -1, 1L << 40),
	OPT_END
};

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
	.what = "waits ms per sample, slow_ms instead for samples whose index is a multiple "
		"of slow_every (0: none) or is slow_index (-1: none) (tests)",
	.args = sleep_args,
	.args_size = sizeof(struct sleep_cfg),
	.flags = OP_TEST,
	.in = PIX_NONE,
	.out = PIX_NONE,
	.run = sleep_run,
	.release = free,
};
