/* Reading one field of a JSON object (jsonget.h). */
#include <jansson.h>
#include <math.h>
#include "jsonget.h"

double jget_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

long long jget_int(const json_t *o, const char *key, long long def)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (long long)json_real_value(v);
	return def;
}

const char *jget_str(const json_t *o, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : def;
}
