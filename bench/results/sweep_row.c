/* A sweep_row from a run's summary.json (sweep_row.h): what the report, a
 * sweep, `ls` and `run --repeat` read a run back as. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "metrics.h"
#include "sweep_row.h"

void sweep_row_init(struct sweep_row *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < metric_count; i++)
		*metric_row_field(&metric_table[i], r) = NAN;
	r->replay_e2e_s = NAN;
	r->exit_code = -1;
	snprintf(r->status, sizeof(r->status), "%s", RUN_PENDING);
}

static void op_init(struct sweep_op *o, const char *name)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	for (size_t i = 0; i < op_metric_count; i++)
		*op_metric_field(&op_metric_table[i], o) = NAN;
}

struct sweep_op *sweep_row_op_add(struct sweep_row *r, const char *name)
{
	struct sweep_op *o = (struct sweep_op *)sweep_row_op(r, name);
	if (o)
		return o;
	if (r->nops == SWEEP_MAX_OPS)
		return NULL;
	o = &r->ops[r->nops++];
	op_init(o, name);
	return o;
}

/* What the hardware events of a run came to (struct sweep_row hw_events). */
static void hw_events_status(json_t *events, char *out, size_t n)
{
	json_t *e;
	size_t i;
	int asked = 0, ok = 0;
	const char *first = NULL, *why = NULL;

	json_array_foreach(events, i, e) {
		const char *st = json_string_value(json_object_get(e, "status"));
		if (!json_is_true(json_object_get(e, "hw")) || !st)
			continue;
		asked++;
		if (!strcmp(st, "ok") || !strcmp(st, "scaled"))
			ok++;
		else if (!first) {
			first = json_string_value(json_object_get(e, "name"));
			why = json_string_value(json_object_get(e, "reason"));
			if (!why)
				why = st;
		}
	}
	if (!asked)
		snprintf(out, n, "%s", "");
	else if (ok)
		snprintf(out, n, "ok");
	else
		snprintf(out, n, "not supported: %s: %s", first ? first : "?", why ? why : "?");
}

void sweep_row_from_summary(struct sweep_row *r, json_t *s)
{
	json_t *ops, *v, *c = json_object_get(s, "counters");
	const char *key;

	for (size_t i = 0; i < metric_count; i++)
		if (metric_table[i].src == MSRC_RUN)
			*metric_row_field(&metric_table[i], r) = metric_from_json(&metric_table[i], s);
	r->complete = json_is_true(json_object_get(s, "complete"));
	v = json_object_get(json_object_get(s, "options"), "policy");
	if (json_is_string(v))
		snprintf(r->policy, sizeof(r->policy), "%s", json_string_value(v));
	v = json_object_get(s, "checksum");
	if (json_is_string(v))
		snprintf(r->checksum, sizeof(r->checksum), "%s", json_string_value(v));
	ops = json_object_get(s, "ops");
	r->nops = 0;
	json_object_foreach(ops, key, v) {
		struct sweep_op *o = sweep_row_op_add(r, key);
		if (!o)
			break;
		for (size_t i = 0; i < op_metric_count; i++)
			*op_metric_field(&op_metric_table[i], o) =
				metric_json_get(v, op_metric_table[i].json);
	}
	if (json_is_object(c)) {
		v = json_object_get(c, "list");
		snprintf(r->counters, sizeof(r->counters), "%s", json_is_string(v) ? json_string_value(v) : "");
		hw_events_status(json_object_get(c, "events"), r->hw_events, sizeof(r->hw_events));
	}
}

int jint(json_t *o, const char *key, int def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : def;
}
