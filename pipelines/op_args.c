#include <errno.h>
#include <math.h>
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

/* A finite number (strtod's "nan", "inf" and overflow refused; an
 * underflow to a denormal or 0 is kept: the range decides). */
static int parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || (errno && errno != ERANGE) ||
	    (errno == ERANGE && fabs(v) > 1))
		return -1;
	*out = v;
	return 0;
}

/* -1 with err filled when v is outside [lo, hi] */
static int in_range(const char *key, const char *v, double x, double lo, double hi,
		    char *err, size_t errlen)
{
	if (x >= lo && x <= hi)
		return 0;
	snprintf(err, errlen, "%s: '%s' is out of range [%g, %g]", key, v, lo, hi);
	return -1;
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

int op_arg_double(struct op_args *a, const char *key, double lo, double hi, double *out,
		  char *err, size_t errlen)
{
	const char *v = find(a, key);
	double x;
	if (!v)
		return 0;
	if (parse_double(v, &x)) {
		snprintf(err, errlen, "%s: '%s' is not a finite number", key, v);
		return -1;
	}
	if (in_range(key, v, x, lo, hi, err, errlen))
		return -1;
	*out = x;
	return 0;
}

int op_arg_doubles(struct op_args *a, const char *key, int n, double lo, double hi, double *out,
		   char *err, size_t errlen)
{
	const char *v = find(a, key);
	if (!v)
		return 0;
	char tmp[128];
	double x[OP_MAX_LIST];
	snprintf(tmp, sizeof(tmp), "%s", v);
	int k = 0;
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (k == n || k == OP_MAX_LIST || parse_double(t, &x[k])) {
			snprintf(err, errlen, "%s: '%s' is not a list of %d finite numbers", key, v, n);
			return -1;
		}
		k++;
	}
	if (k != n) {
		snprintf(err, errlen, "%s: '%s' is not a list of %d finite numbers", key, v, n);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (x[i] < lo || x[i] > hi) {
			snprintf(err, errlen, "%s: '%s' has %g, out of range [%g, %g]", key, v, x[i], lo, hi);
			return -1;
		}
	memcpy(out, x, (size_t)n * sizeof(*out));
	return 0;
}

int op_check_out(struct sample *s, long long w, long long h)
{
	unsigned long long px = (unsigned long long)w * (unsigned long long)h;
	if (!s->max_pixels || px <= s->max_pixels)
		return 0;
	return sample_fail(s, "its output of %lldx%lld (%llu pixels) is over the limit of %llu "
			   "(--max-pixels)", w, h, px, (unsigned long long)s->max_pixels);
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
