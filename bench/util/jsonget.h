/* Reading one field of a JSON object (a summary.json, a run.json): the
 * number, the integer or the string under a key, with what an absent field gives. */
#ifndef PPBENCH_JSONGET_H
#define PPBENCH_JSONGET_H

struct json_t;

/* o[key] as a number; NaN when absent or not a number */
double jget_num(const struct json_t *o, const char *key);
/* o[key] as an integer (a real is truncated); def when absent or not a number */
long long jget_int(const struct json_t *o, const char *key, long long def);
/* o[key] as a string; def when absent or not a string */
const char *jget_str(const struct json_t *o, const char *key, const char *def);

#endif
