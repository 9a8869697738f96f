#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"

static const char *find(struct op_args *a, const char *key)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->key[i], key)) {
			a->used |= 1u << i;
			return a->val[i];
		}
	return NULL;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

int op_arg_int(struct op_args *a, const char *key, long lo, long hi, long *out,
	       char *err, size_t errlen)
{
	const char *v = find(a, key);
	if (!v)
		return 0;
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (end == v || *end || errno) {
		snprintf(err, errlen, "%s: '%s' is not an integer", key, v);
		return -1;
	}
	if (x < lo || x > hi) {
		snprintf(err, errlen, "%s: %ld is out of range [%ld, %ld]", key, x, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

int op_arg_double(struct op_args *a, const char *key, double *out, char *err, size_t errlen)
{
	const char *v = find(a, key);
	if (!v)
		return 0;
	if (parse_double(v, out)) {
		snprintf(err, errlen, "%s: '%s' is not a number", key, v);
		return -1;
	}
	return 0;
}

int op_arg_doubles(struct op_args *a, const char *key, int n, double *out,
		   char *err, size_t errlen)
{
	const char *v = find(a, key);
	if (!v)
		return 0;
	char tmp[128];
	snprintf(tmp, sizeof(tmp), "%s", v);
	int k = 0;
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (k == n || parse_double(t, &out[k])) {
			snprintf(err, errlen, "%s: '%s' is not a list of %d numbers", key, v, n);
			return -1;
		}
		k++;
	}
	if (k != n) {
		snprintf(err, errlen, "%s: '%s' is not a list of %d numbers", key, v, n);
		return -1;
	}
	return 0;
}

int op_args_check_used(const struct op_args *a, const char *op, char *err, size_t errlen)
{
	for (int i = 0; i < a->n; i++)
		if (!(a->used & (1u << i))) {
			snprintf(err, errlen, "op '%s' has no argument '%s'", op, a->key[i]);
			return -1;
		}
	return 0;
}
