/* An op's arguments (op.h): the rows of its table, each value parsed and
 * range-checked here, in the one parser. */
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

static int arg_int(const char *key, const char *v, long lo, long hi, long *out,
		   char *err, size_t errlen)
{
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

static int arg_double(const char *key, const char *v, double lo, double hi, double *out,
		      char *err, size_t errlen)
{
	double x;
	if (parse_double(v, &x)) {
		snprintf(err, errlen, "%s: '%s' is not a finite number", key, v);
		return -1;
	}
	if (in_range(key, v, x, lo, hi, err, errlen))
		return -1;
	*out = x;
	return 0;
}

static int arg_doubles(const char *key, const char *v, int n, double lo, double hi, double *out,
		       char *err, size_t errlen)
{
	char tmp[128];
	double x[OPT_DOUBLES_MAX];
	snprintf(tmp, sizeof(tmp), "%s", v);
	int k = 0;
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (k == n || k == OPT_DOUBLES_MAX || parse_double(t, &x[k])) {
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

/* One row's value, with the row's range, into its field of out. */
static int arg_row(const struct opt *o, const char *v, void *out, char *err, size_t errlen)
{
	char *f = (char *)out + o->off;
	switch (o->type) {
	case OPT_INT:
		return arg_int(o->name, v, (long)o->lo, (long)o->hi, (long *)(void *)f, err, errlen);
	case OPT_DOUBLE:
		return arg_double(o->name, v, o->lo, o->hi, (double *)(void *)f, err, errlen);
	case OPT_DOUBLES:
		return arg_doubles(o->name, v, o->count, o->lo, o->hi, (double *)(void *)f,
				   err, errlen);
	default:
		snprintf(err, errlen, "%s: an op argument of this type is not supported (a bug in "
			 "the op's table)", o->name);
		return -1;
	}
}

int op_args_parse(const struct op_ops *op, struct op_args *a, void *out,
		  char *err, size_t errlen)
{
	if (!op->args)
		return 0;
	char why[160];
	if (opts_defaults(op->args, out, why, sizeof(why))) {
		snprintf(err, errlen, "bad default (a bug in the op's table): %s", why);
		return -1;
	}
	for (const struct opt *o = op->args; o->name; o++) {
		const char *v = find(a, o->name);
		if (v && arg_row(o, v, out, err, errlen))
			return -1;
	}
	return 0;
}

/* -1 with err naming the first argument nobody read. */
static int check_used(const struct op_args *a, const char *op, char *err, size_t errlen)
{
	for (int i = 0; i < a->n; i++)
		if (!(a->used & (1u << i))) {
			snprintf(err, errlen, "op '%s' has no argument '%s'", op, a->key[i]);
			return -1;
		}
	return 0;
}

int op_configure(const struct op_ops *op, struct op_args *a, void **cfg,
		 char *err, size_t errlen)
{
	char why[200] = "";
	void *args = NULL;
	*cfg = NULL;
	if (op->args && !(args = calloc(1, op->args_size))) {
		snprintf(err, errlen, "%s: out of memory", op->name);
		return -1;
	}
	int rc = op_args_parse(op, a, args, why, sizeof(why));
	if (!rc && op->init)
		rc = op->init(args, cfg, why, sizeof(why));
	if (!rc && !op->init)
		*cfg = args;      /* the arguments are the configuration */
	else
		free(args);
	if (rc) {
		snprintf(err, errlen, "%s: %s", op->name, why);
		return -1;
	}
	if (check_used(a, op->name, err, errlen)) {
		if (op->release)
			op->release(*cfg);
		*cfg = NULL;
		return -1;
	}
	return 0;
}

void op_help(const struct op_ops *op, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s", op->name);
	for (const struct opt *o = op->args; o && o->name && k < n; o++)
		k += (size_t)(o->def ? snprintf(buf + k, n - k, " [%s=%s]", o->name, o->def)
			      : snprintf(buf + k, n - k, " %s=%s", o->name,
					 o->metavar ? o->metavar : "V"));
	if (k < n)
		snprintf(buf + k, n - k, ": %s", op->what);
}

int op_check_out(struct sample *s, long long w, long long h)
{
	unsigned long long px = (unsigned long long)w * (unsigned long long)h;
	if (!s->max_pixels || px <= s->max_pixels)
		return 0;
	return sample_fail(s, "its output of %lldx%lld (%llu pixels) is over the limit of %llu "
			   "(--max-pixels)", w, h, px, (unsigned long long)s->max_pixels);
}
