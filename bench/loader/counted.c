#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "counted.h"
#include "stats.h"

int pipeline_run_sample_counted(const struct pipeline *p, struct sample *s, struct op_time *t,
				struct counter_group *g, struct counter_acc *acc)
{
	if (!g)
		return pipeline_run_sample(p, s, t);
	/* snap[k] is boundary k; accumulated after the loop, so that nothing
	 * but the op and two stores lies between two reads */
	struct counter_snap snap[PIPE_MAX_OPS + 1];
	int ok[PIPE_MAX_OPS + 1], idx[PIPE_MAX_OPS];
	int k = 0, failed = 0;
	ok[0] = counters_read(g, &snap[0]) == 0;
	for (int i = 0; i < p->nops; i++) {
		const struct pipe_op *po = &p->op[i];
		if (i == p->batch_op)
			continue;
		uint64_t t0 = clock_now_ns();
		int rc = po->ops->run(po->cfg, s);
		uint64_t t1 = clock_now_ns();
		ok[k + 1] = counters_read(g, &snap[k + 1]) == 0;
		t[i].start_ns = t0;
		t[i].dur_ns = t1 - t0;
		idx[k++] = i;
		if (rc) {
			failed = i + 1;
			k--;
			break;
		}
	}
	for (int j = 0; j < k; j++)
		counters_accumulate(&acc[idx[j]], ok[j] ? &snap[j] : NULL,
				    ok[j + 1] ? &snap[j + 1] : NULL, t[idx[j]].dur_ns);
	return failed;
}

int counted_run_batch(const struct pipeline *p, struct sample *const *samples, size_t n,
		      struct batch_out *out, char *err, size_t errlen, struct op_time *t,
		      struct counter_group *g, struct counter_acc *acc)
{
	const struct pipe_op *po = &p->op[p->batch_op];
	struct counter_snap b, a;
	int okb = g ? counters_read(g, &b) == 0 : 0;
	uint64_t t0 = clock_now_ns();
	int rc = po->ops->run_batch(po->cfg, samples, n, out, err, errlen);
	uint64_t t1 = clock_now_ns();
	int oka = g ? counters_read(g, &a) == 0 : 0;
	t->start_ns = t0;
	t->dur_ns = t1 - t0;
	if (g && !rc)
		counters_accumulate(&acc[p->batch_op], okb ? &b : NULL, oka ? &a : NULL, t1 - t0);
	return rc;
}

int counted_null_overhead(const struct counter_spec *spec, struct counted_overhead *o,
			  char *err, size_t errlen)
{
	enum { ROUNDS = 21, SAMPLES = 500 };
	struct pipeline p;
	if (pipeline_parse(&p, "null\n", "null", err, errlen))
		return -1;
	struct counter_group *g = counters_open_thread(spec, err, errlen);
	if (!g) {
		pipeline_release(&p);
		return -1;
	}
	struct scratch scr;
	struct sample s;
	struct op_time t[PIPE_MAX_OPS];
	struct counter_acc acc[PIPE_MAX_OPS];
	double plain[ROUNDS], counted[ROUNDS];
	memset(&scr, 0, sizeof(scr));
	memset(&s, 0, sizeof(s));
	memset(acc, 0, sizeof(acc));
	s.scr = &scr;
	int rc = 0;
	for (int r = 0; r < ROUNDS && !rc; r++) {
		uint64_t t0 = clock_now_ns();
		for (int i = 0; i < SAMPLES && !rc; i++)
			rc = pipeline_run_sample(&p, &s, t);
		uint64_t t1 = clock_now_ns();
		for (int i = 0; i < SAMPLES && !rc; i++)
			rc = pipeline_run_sample_counted(&p, &s, t, g, acc);
		uint64_t t2 = clock_now_ns();
		plain[r] = (double)(t1 - t0) / SAMPLES;
		counted[r] = (double)(t2 - t1) / SAMPLES;
	}
	counters_close(g);
	pipeline_release(&p);
	if (rc) {
		snprintf(err, errlen, "the null op failed: %s", s.err);
		return -1;
	}
	stats_sort(plain, ROUNDS);
	stats_sort(counted, ROUNDS);
	o->plain_ns = plain[ROUNDS / 2];
	o->counted_ns = counted[ROUNDS / 2];
	o->per_op_ns = spec->has_overhead ? spec->ov.read_ns : (o->counted_ns - o->plain_ns) / 2;
	o->samples = (uint64_t)ROUNDS * SAMPLES;
	return 0;
}
