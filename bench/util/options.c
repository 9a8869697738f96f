#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>
#include "conventions.h"
#include "escape.h"
#include "log.h"
#include "options.h"

#define FIELD(cfg, o, type) ((type *)((char *)(cfg) + (o)->off))

static int parse_num(const char *s, double *v, const char **rest)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v))
		return -1;
	*rest = end;
	return 0;
}

struct unit_row {
	const char *name;
	double mul;
};

static int apply_unit(double v, const char *suffix, const struct unit_row *u, double *out)
{
	while (*suffix == ' ')
		suffix++;
	for (; u->name; u++)
		if (!strcasecmp(suffix, u->name)) {
			*out = v * u->mul;
			return 0;
		}
	return -1;
}

static const struct unit_row time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 }, { NULL, 0 }
};

int parse_time_ns(const char *s, const char *unit, uint64_t *out)
{
	double v, ns;
	const char *rest;
	if (parse_num(s, &v, &rest) || v < 0)
		return -1;
	if (!*rest)
		rest = unit ? unit : "ns";
	if (apply_unit(v, rest, time_units, &ns) || ns > 1e19)
		return -1;
	*out = (uint64_t)llround(ns);
	return 0;
}

static const struct unit_row size_units[] = {
	{ "", 1 }, { "B", 1 }, { "K", 1024 }, { "KiB", 1024 }, { "KB", 1e3 },
	{ "M", 1048576.0 }, { "MiB", 1048576.0 }, { "MB", 1e6 },
	{ "G", 1073741824.0 }, { "GiB", 1073741824.0 }, { "GB", 1e9 },
	{ "T", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { "TB", 1e12 }, { NULL, 0 }
};

int parse_size_bytes(const char *s, uint64_t *out)
{
	double v, b;
	const char *rest;
	/* case matters for KB vs KiB only in spelling; compare case-insensitively
	 * but keep SI/IEC by the presence of 'i' */
	if (parse_num(s, &v, &rest) || v < 0 || apply_unit(v, rest, size_units, &b) || b > 1.8e19)
		return -1;
	*out = (uint64_t)llround(b);
	return 0;
}

int parse_rate(const char *s, const char *unit, double *out)
{
	double v;
	const char *rest;
	/* 0 is a rate (--h2d-bandwidth 0: no copy); the option's range says more */
	if (parse_num(s, &v, &rest) || v < 0)
		return -1;
	char suf[32];
	snprintf(suf, sizeof(suf), "%s", *rest ? rest : (unit ? unit : "B/s"));
	char *slash = strstr(suf, "/s");
	if (!slash || slash[2])
		return -1;
	*slash = 0;
	double b;
	if (apply_unit(v, suf, size_units, &b))
		return -1;
	*out = b;
	return 0;
}

static int in_range(const struct opt *o, double v)
{
	if (o->lo == 0 && o->hi == 0)
		return 1;
	return v >= o->lo && v <= o->hi;
}

/* A bound of o's range as text in o's units ("60s", "1TiB", "1MB/s", "1024"). */
static void fmt_bound(const struct opt *o, double v, char *out, size_t n)
{
	struct unit_mul { double mul; const char *suf; };
	static const struct unit_mul times[] = {
		{ 60e9, "min" }, { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } },
	sizes[] = { { 1099511627776.0, "TiB" }, { 1073741824.0, "GiB" }, { 1048576.0, "MiB" },
		    { 1024.0, "KiB" }, { 1, "B" } },
	rates[] = { { 1e12, "TB/s" }, { 1e9, "GB/s" }, { 1e6, "MB/s" }, { 1e3, "kB/s" },
		    { 1, "B/s" } };
	const void *tab = o->type == OPT_TIME ? (const void *)times : o->type == OPT_SIZE
		? (const void *)sizes : o->type == OPT_RATE ? (const void *)rates : NULL;
	if (!tab || v == 0) {
		snprintf(out, n, "%.15g", v);
		return;
	}
	const struct unit_mul *t = tab;
	for (int i = 0; i < 5; i++)
		if (v >= t[i].mul && fmod(v, t[i].mul) == 0) {
			snprintf(out, n, "%.15g%s", v / t[i].mul, t[i].suf);
			return;
		}
	snprintf(out, n, "%.15g%s", v / t[4].mul, t[4].suf);
}

/* "--name: 'v' is out of range [lo, hi]" in the option's units */
static int range_error(const struct opt *o, const char *v, char *err, size_t errlen)
{
	char lo[32], hi[32];
	fmt_bound(o, o->lo, lo, sizeof(lo));
	fmt_bound(o, o->hi, hi, sizeof(hi));
	snprintf(err, errlen, "--%s: %s is out of range [%s, %s]", o->name, v, lo, hi);
	return -1;
}

static int enum_index(const char *choices, const char *v)
{
	int i = 0;
	size_t n = strlen(v);
	for (const char *c = choices; *c; i++) {
		const char *bar = strchr(c, '|');
		size_t len = bar ? (size_t)(bar - c) : strlen(c);
		if (len == n && !strncmp(c, v, n))
			return i;
		if (!bar)
			break;
		c = bar + 1;
	}
	return -1;
}

static void enum_name(const char *choices, int idx, char *out, size_t n)
{
	const char *c = choices;
	for (int i = 0; i < idx && c; i++) {
		c = strchr(c, '|');
		if (c)
			c++;
	}
	if (!c) {
		snprintf(out, n, "?");
		return;
	}
	const char *bar = strchr(c, '|');
	size_t len = bar ? (size_t)(bar - c) : strlen(c);
	snprintf(out, n, "%.*s", (int)len, c);
}

/* on|yes|1|true: 1, off|no|0|false: 0, else -1 */
static int parse_onoff(const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false"))
		return 0;
	return -1;
}

/* OPT_DOUBLES: exactly o->count numbers separated by commas, each in range */
static int set_doubles(const struct opt *o, void *cfg, const char *v, char *err, size_t errlen)
{
	double x[OPT_DOUBLES_MAX];
	int n = 0;
	const char *p = v;
	if (o->count < 1 || o->count > OPT_DOUBLES_MAX) {
		snprintf(err, errlen, "--%s: takes %d numbers (a bug in the table)", o->name, o->count);
		return -1;
	}
	for (;;) {
		char *end;
		errno = 0;
		double d = strtod(p, &end);
		if (end == p || errno || !isfinite(d) || (*end && *end != ',') || n == o->count)
			goto bad;
		if (!in_range(o, d)) {
			snprintf(err, errlen, "--%s: %g is out of range [%g, %g]", o->name, d, o->lo,
				 o->hi);
			return -1;
		}
		x[n++] = d;
		if (!*end)
			break;
		p = end + 1;
	}
	if (n != o->count)
		goto bad;
	memcpy(FIELD(cfg, o, double), x, (size_t)n * sizeof(double));
	return 0;
bad:
	snprintf(err, errlen, "--%s: '%s' is not %d numbers separated by commas", o->name, v,
		 o->count);
	return -1;
}

/* OPT_MULTI: one more value */
static int add_multi(const struct opt *o, void *cfg, const char *v, char *err, size_t errlen)
{
	struct opt_multi *m = FIELD(cfg, o, struct opt_multi);
	const char **nv = realloc(m->v, (m->n + 1) * sizeof(*nv));
	if (!nv) {
		snprintf(err, errlen, "--%s: out of memory", o->name);
		return -1;
	}
	nv[m->n++] = v;
	m->v = nv;
	return 0;
}

static int set_value(const struct opt *o, void *cfg, const char *v, char *err, size_t errlen)
{
	double d;
	const char *rest;
	switch (o->type) {
	case OPT_BOOL: {
		int b = parse_onoff(v);
		if (b < 0) {
			snprintf(err, errlen, "--%s: '%s' is not on or off", o->name, v);
			return -1;
		}
		*FIELD(cfg, o, int) = b;
		return 0;
	}
	case OPT_INT: {
		char *end;
		errno = 0;
		long x = strtol(v, &end, 10);
		if (end == v || *end || errno) {
			snprintf(err, errlen, "--%s: '%s' is not an integer", o->name, v);
			return -1;
		}
		if (!in_range(o, (double)x)) {
			snprintf(err, errlen, "--%s: %ld is out of range [%.0f, %.0f]", o->name, x, o->lo, o->hi);
			return -1;
		}
		*FIELD(cfg, o, long) = x;
		return 0;
	}
	case OPT_U64: {
		if (parse_num(v, &d, &rest) || d < 0 || *v == '-') {
			snprintf(err, errlen, "--%s: '%s' is not a non-negative integer", o->name, v);
			return -1;
		}
		static const struct unit_row mul[] = { { "", 1 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { NULL, 0 } };
		double x;
		if (apply_unit(d, rest, mul, &x) || x != floor(x) || x > 1.8e19) {
			snprintf(err, errlen, "--%s: '%s' is not a non-negative integer", o->name, v);
			return -1;
		}
		if (!in_range(o, x)) {
			snprintf(err, errlen, "--%s: %s is out of range [%.0f, %.0f]", o->name, v, o->lo, o->hi);
			return -1;
		}
		*FIELD(cfg, o, uint64_t) = (uint64_t)x;
		return 0;
	}
	case OPT_DOUBLE:
		if (parse_num(v, &d, &rest) || *rest) {
			snprintf(err, errlen, "--%s: '%s' is not a number", o->name, v);
			return -1;
		}
		if (!in_range(o, d)) {
			snprintf(err, errlen, "--%s: %g is out of range [%g, %g]", o->name, d, o->lo, o->hi);
			return -1;
		}
		*FIELD(cfg, o, double) = d;
		return 0;
	case OPT_TIME: {
		uint64_t ns;
		if (!strcmp(v, "auto")) {
			*FIELD(cfg, o, uint64_t) = OPT_AUTO;
			return 0;
		}
		if (parse_time_ns(v, o->unit, &ns)) {
			snprintf(err, errlen, "--%s: '%s' is not a time (examples: 250ms, 1.5s, 800us%s)",
				 o->name, v, o->def && !strcmp(o->def, "auto") ? ", auto" : "");
			return -1;
		}
		if (!in_range(o, (double)ns))
			return range_error(o, v, err, errlen);
		*FIELD(cfg, o, uint64_t) = ns;
		return 0;
	}
	case OPT_SIZE: {
		uint64_t b;
		if (parse_size_bytes(v, &b)) {
			snprintf(err, errlen, "--%s: '%s' is not a size (examples: 512MiB, 2GB, 4096)", o->name, v);
			return -1;
		}
		if (!in_range(o, (double)b))
			return range_error(o, v, err, errlen);
		*FIELD(cfg, o, uint64_t) = b;
		return 0;
	}
	case OPT_RATE: {
		double r;
		if (parse_rate(v, o->unit, &r)) {
			snprintf(err, errlen, "--%s: '%s' is not a rate (examples: 12GB/s, 800MiB/s)", o->name, v);
			return -1;
		}
		if (!in_range(o, r))
			return range_error(o, v, err, errlen);
		*FIELD(cfg, o, double) = r;
		return 0;
	}
	case OPT_STR:
	case OPT_LIST:
		if (!*v && o->type == OPT_LIST) {
			snprintf(err, errlen, "--%s: empty list", o->name);
			return -1;
		}
		*FIELD(cfg, o, const char *) = v;
		return 0;
	case OPT_ENUM: {
		int i = enum_index(o->choices, v);
		if (i < 0) {
			snprintf(err, errlen, "--%s: '%s' is not one of %s", o->name, v, o->choices);
			return -1;
		}
		*FIELD(cfg, o, int) = i;
		return 0;
	}
	case OPT_DOUBLES:
		return set_doubles(o, cfg, v, err, errlen);
	case OPT_MULTI:
		return add_multi(o, cfg, v, err, errlen);
	}
	return -1;
}

const struct opt *opts_find(const struct opt *t, const char *name)
{
	for (; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

int opts_defaults(const struct opt *t, void *cfg, char *err, size_t errlen)
{
	for (; t->name; t++) {
		if (t->type == OPT_MULTI) {
			*FIELD(cfg, t, struct opt_multi) = (struct opt_multi){ NULL, 0 };
			if (t->def) {
				snprintf(err, errlen, "--%s: a repeatable option has no default", t->name);
				return -1;
			}
			continue;
		}
		if (!t->def) {
			if (t->type == OPT_STR || t->type == OPT_LIST)
				*FIELD(cfg, t, const char *) = NULL;
			continue;
		}
		if (set_value(t, cfg, t->def, err, errlen))
			return -1;
	}
	return 0;
}

void opts_free(const struct opt *t, void *cfg)
{
	for (; t->name; t++)
		if (t->type == OPT_MULTI) {
			struct opt_multi *m = FIELD(cfg, t, struct opt_multi);
			free(m->v);
			*m = (struct opt_multi){ NULL, 0 };
		}
}

/* "unknown option '--name'", with the nearest option of t when one is close. */
static void unknown_option(const struct opt *t, const char *name, char *err, size_t errlen)
{
	const char *names[128];
	size_t n = 0;
	for (; t->name && n < 128; t++)
		names[n++] = t->name;
	const char *near = nearest_name(name, names, n);
	if (near)
		snprintf(err, errlen, "unknown option '--%s'; did you mean '--%s'? (see --help)", name,
			 near);
	else
		snprintf(err, errlen, "unknown option '--%s' (see --help)", name);
}

int opts_set(const struct opt *t, void *cfg, const char *name, const char *value,
	     char *err, size_t errlen)
{
	const struct opt *o = opts_find(t, name);
	if (!o) {
		snprintf(err, errlen, "unknown option '--%s'", name);
		return -1;
	}
	return set_value(o, cfg, value, err, errlen);
}

/* The on/off option of the last opts_parse given without a value and
 * followed by a word (reset by each opts_parse: the fuzzer's options harness
 * found a stale pointer into a freed argv otherwise). */
static const struct opt *bool_before;
static const char *bool_word;

void opts_unexpected(const char *arg, const char *cmd, char *err, size_t errlen)
{
	if (bool_before && bool_word && arg == bool_word)   /* that very argument */
		snprintf(err, errlen, "--%s: '%s' is not on or off", bool_before->name, arg);
	else
		snprintf(err, errlen, "unexpected argument '%s' (see ppbench %s --help)", arg, cmd);
}

int opts_parse(const struct opt *t, void *cfg, int argc, char **argv, int from, int *npos,
	       char *err, size_t errlen)
{
	bool_before = NULL;
	bool_word = NULL;
	int pos = from;
	for (int i = from; i < argc; i++) {
		char *a = argv[i];
		if (!strcmp(a, "--")) {
			while (++i < argc)
				argv[pos++] = argv[i];
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			*npos = pos - from;   /* those before it (a sweep checks run options so) */
			return 1;
		}
		if (a[0] != '-' || a[1] == 0) {
			argv[pos++] = a;
			continue;
		}
		const struct opt *o = NULL;
		const char *val = NULL;
		char name[64];
		if (a[1] != '-') {
			for (const struct opt *p = t; p->name; p++)
				if (p->shortname && p->shortname == a[1] && !a[2])
					o = p;
			if (!o) {
				snprintf(err, errlen, "unknown option '%s' (see --help)", a);
				return -1;
			}
		} else {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			snprintf(name, sizeof(name), "%.*s", (int)len, a + 2);
			val = eq ? eq + 1 : NULL;
			o = opts_find(t, name);
			if (!o && !strncmp(name, "no-", 3) && !val) {
				o = opts_find(t, name + 3);
				if (o && o->type == OPT_BOOL) {
					*FIELD(cfg, o, int) = 0;
					continue;
				}
				o = NULL;
			}
			if (!o) {
				unknown_option(t, name, err, errlen);
				return -1;
			}
		}
		if (!val && o->implicit)
			val = o->implicit;
		if (!val) {
			if (o->type == OPT_BOOL && (i + 1 >= argc || (strcmp(argv[i + 1], "on") &&
					strcmp(argv[i + 1], "off")))) {
				*FIELD(cfg, o, int) = 1;
				/* "--shuffle maybe": if the command takes no argument, say
				 * what --shuffle=maybe says (opts_unexpected) */
				if (i + 1 < argc && argv[i + 1][0] != '-') {
					bool_before = o;
					bool_word = argv[i + 1];
				}
				continue;
			}
			if (i + 1 >= argc) {
				snprintf(err, errlen, "--%s needs a value", o->name);
				return -1;
			}
			val = argv[++i];
		}
		if (set_value(o, cfg, val, err, errlen))
			return -1;
	}
	*npos = pos - from;
	return 0;
}

/* The option of t that argument a names (--name, --name=v, --no-name of an
 * on|off option, -x), or NULL. */
static const struct opt *named_by(const struct opt *t, const char *a)
{
	char name[64];
	const struct opt *o = NULL;
	if (a[0] == '-' && a[1] == '-') {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(a + 2, "="), a + 2);
		o = opts_find(t, name);
		if (!o && !strncmp(name, "no-", 3) && (o = opts_find(t, name + 3)) &&
		    o->type != OPT_BOOL)
			o = NULL;
	} else if (a[0] == '-' && a[1] && !a[2]) {
		for (const struct opt *q = t; q->name; q++)
			if (q->shortname == a[1])
				o = q;
	}
	return o;
}

/* "unknown option '--x'; did you mean '--y'?" with the nearest name of both
 * tables (or without when none is near) */
static void unknown_of_two(const struct opt *a, const struct opt *b, const char *arg,
			   char *err, size_t errlen)
{
	const char *names[256];
	size_t k = 0;
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (const struct opt *t = a; t->name && k < 128; t++)
		names[k++] = t->name;
	for (const struct opt *t = b; t->name && k < 256; t++)
		names[k++] = t->name;
	const char *near = arg[1] == '-' ? nearest_name(name, names, k) : NULL;
	if (near)
		snprintf(err, errlen, "unknown option '--%s'; did you mean '--%s'?", name, near);
	else
		snprintf(err, errlen, "unknown option '%s'", arg);
}

int opts_split(const struct opt *own, const struct opt *passed, int argc, char **argv,
	       struct opts_split *s, char *err, size_t errlen)
{
	int rc = 0;
	*s = (struct opts_split){ 0 };
	s->own = calloc((size_t)argc + 1, sizeof(*s->own));
	s->passed = calloc((size_t)argc + OPTS_SPLIT_ROOM + 1, sizeof(*s->passed));
	if (!s->own || !s->passed) {
		opts_split_free(s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->own[s->nown++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			s->own[s->nown++] = argv[i];
			continue;
		}
		const struct opt *o = named_by(own, a), *p = o ? NULL : named_by(passed, a);
		const struct opt *b = o ? o : p;
		int takes = a[0] == '-' && !strchr(a, '=') && i + 1 < argc &&
			    (argv[i + 1][0] != '-' || !argv[i + 1][1]);
		if (b && b->type == OPT_BOOL)   /* as opts_parse: only on or off */
			takes = takes && (!strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off"));
		if (!b && a[0] == '-' && a[1] && strcmp(a, "--") && rc == 0) {
			unknown_of_two(own, passed, a, err, errlen);
			rc = 1;
		}
		if (o) {
			s->own[s->nown++] = argv[i];
			if (takes)
				s->own[s->nown++] = argv[++i];
		} else {
			s->passed[s->npassed++] = argv[i];
			if (takes)
				s->passed[s->npassed++] = argv[++i];
		}
	}
	return rc;
}

void opts_split_free(struct opts_split *s)
{
	free(s->own);
	free(s->passed);
	*s = (struct opts_split){ 0 };
}

int opts_prelude(const struct opt *t, void *cfg, int argc, char **argv, int *npos,
		 const char *usage, const char *description, const char *noargs)
{
	char err[1024];
	*npos = 0;
	if (opts_defaults(t, cfg, err, sizeof(err))) {
		error_msg("%s", err);
		return EXIT_FAIL;
	}
	int rc = opts_parse(t, cfg, argc, argv, 1, npos, err, sizeof(err));
	if (rc == 1 && !(noargs && *npos)) {
		opts_help(t, stdout, usage, description);
		return EXIT_OK;
	}
	if (rc < 0) {
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	if (noargs && *npos) {
		opts_unexpected(argv[1], noargs, err, sizeof(err));
		error_msg("%s", err);
		return EXIT_USAGE;
	}
	return -1;
}

/* OPT_DOUBLES and OPT_MULTI: the values separated by commas */
static void format_list(const struct opt *o, const void *c, char *out, size_t n)
{
	size_t len = 0;
	int k = o->type == OPT_DOUBLES ? o->count : (int)FIELD(c, o, const struct opt_multi)->n;
	out[0] = 0;
	for (int i = 0; i < k && len < n; i++) {
		int w;
		if (o->type == OPT_DOUBLES)
			w = snprintf(out + len, n - len, "%s%.17g", i ? "," : "",
				     FIELD(c, o, const double)[i]);
		else
			w = snprintf(out + len, n - len, "%s%s", i ? "," : "",
				     FIELD(c, o, const struct opt_multi)->v[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

void opts_format(const struct opt *o, const void *cfg, char *out, size_t n)
{
	const void *c = cfg;
	switch (o->type) {
	case OPT_BOOL:
		snprintf(out, n, "%s", *FIELD(c, o, const int) ? "on" : "off");
		break;
	case OPT_INT:
		snprintf(out, n, "%ld", *FIELD(c, o, const long));
		break;
	case OPT_U64:
		snprintf(out, n, "%llu", (unsigned long long)*FIELD(c, o, const uint64_t));
		break;
	case OPT_DOUBLE:
		snprintf(out, n, "%.17g", *FIELD(c, o, const double));
		break;
	case OPT_TIME: {
		uint64_t ns = *FIELD(c, o, const uint64_t);
		if (ns == OPT_AUTO)
			snprintf(out, n, "auto");
		else
			snprintf(out, n, "%lluns", (unsigned long long)ns);
		break;
	}
	case OPT_SIZE:
		snprintf(out, n, "%llu", (unsigned long long)*FIELD(c, o, const uint64_t));
		break;
	case OPT_RATE:
		snprintf(out, n, "%.17gB/s", *FIELD(c, o, const double));
		break;
	case OPT_STR:
	case OPT_LIST: {
		const char *s = *FIELD(c, o, const char *const);
		snprintf(out, n, "%s", s ? s : "");
		break;
	}
	case OPT_ENUM:
		enum_name(o->choices, *FIELD(c, o, const int), out, n);
		break;
	case OPT_DOUBLES:
	case OPT_MULTI:
		format_list(o, c, out, n);
		break;
	}
}

void opts_help(const struct opt *t, FILE *f, const char *usage, const char *description)
{
	fprintf(f, "usage: %s\n", usage);
	if (description)
		fprintf(f, "\n%s\n", description);
	opts_help_table(t, f, "options");
	exit_codes_help(f);
}

void opts_help_table(const struct opt *t, FILE *f, const char *heading)
{
	fprintf(f, "\n%s:\n", heading);
	const struct opt *t0 = t;
	for (; t->name; t++) {
		/* options one ppbench process passes another are not the user's */
		if (t->help && !strncmp(t->help, "(internal)", 10))
			continue;
		char left[64];
		const char *mv = t->metavar;
		if (!mv)
			mv = t->type == OPT_ENUM ? t->choices : t->type == OPT_BOOL ? "on|off" : "X";
		if (t->shortname)
			snprintf(left, sizeof(left), "-%c, --%s %s", t->shortname, t->name, mv);
		else if (t->implicit)
			snprintf(left, sizeof(left), "    --%s[=%s]", t->name, mv);
		else
			snprintf(left, sizeof(left), "    --%s %s", t->name, mv);
		fprintf(f, "  %-32s %s", left, t->help);
		if (t->lo != 0 || t->hi != 0) {
			char lo[32], hi[32];
			fmt_bound(t, t->lo, lo, sizeof(lo));
			fmt_bound(t, t->hi, hi, sizeof(hi));
			fprintf(f, " [%s..%s]", lo, hi);
		}
		if (t->def && *t->def)
			fprintf(f, " (default: %s)", t->def);
		if (t->type == OPT_MULTI)
			fprintf(f, " (repeatable)");
		fputc('\n', f);
	}
	fprintf(f, "  %-32s %s\n", "-h, --help", "show this help");
	for (const struct opt *b = t0; b->name; b++)
		if (b->type == OPT_BOOL) {
			fprintf(f, "  %-32s %s\n", "    --no-NAME", "for an on|off option: the same as "
				"--NAME off (--NAME alone: on)");
			break;
		}
}

/* OPT_DOUBLES: an array of numbers; OPT_MULTI: of strings */
static json_t *list_json(const struct opt *t, const void *c)
{
	json_t *a = json_array();
	if (t->type == OPT_DOUBLES)
		for (int i = 0; a && i < t->count; i++)
			json_array_append_new(a, json_real(FIELD(c, t, const double)[i]));
	else
		for (size_t i = 0; a && i < FIELD(c, t, const struct opt_multi)->n; i++)
			json_array_append_new(a, json_bytes(FIELD(c, t, const struct opt_multi)->v[i]));
	return a;
}

json_t *opts_json(const struct opt *t, const void *cfg)
{
	json_t *o = json_object();
	for (; t->name; t++) {
		char key[96];
		snprintf(key, sizeof(key), "%s", t->name);
		for (char *p = key; *p; p++)
			if (*p == '-')
				*p = '_';
		json_t *v = NULL;
		const void *c = cfg;
		switch (t->type) {
		case OPT_BOOL:
			v = json_boolean(*FIELD(c, t, const int));
			break;
		case OPT_INT:
			v = json_integer(*FIELD(c, t, const long));
			break;
		case OPT_U64:
			v = json_integer((json_int_t)*FIELD(c, t, const uint64_t));
			break;
		case OPT_DOUBLE:
			v = json_real(*FIELD(c, t, const double));
			break;
		case OPT_TIME: {
			uint64_t ns = *FIELD(c, t, const uint64_t);
			strncat(key, "_ns", sizeof(key) - strlen(key) - 1);
			v = ns == OPT_AUTO ? json_string("auto") : json_integer((json_int_t)ns);
			break;
		}
		case OPT_SIZE:
			strncat(key, "_bytes", sizeof(key) - strlen(key) - 1);
			v = json_integer((json_int_t)*FIELD(c, t, const uint64_t));
			break;
		case OPT_RATE:
			strncat(key, "_bytes_per_s", sizeof(key) - strlen(key) - 1);
			v = json_real(*FIELD(c, t, const double));
			break;
		case OPT_STR:
		case OPT_LIST: {
			const char *s = *FIELD(c, t, const char *const);
			v = json_bytes(s);   /* a path need not be UTF-8: escape.h */
			break;
		}
		case OPT_ENUM: {
			char buf[64];
			enum_name(t->choices, *FIELD(c, t, const int), buf, sizeof(buf));
			v = json_string(buf);
			break;
		}
		case OPT_DOUBLES:
		case OPT_MULTI:
			v = list_json(t, c);
			break;
		}
		json_object_set_new(o, key, v ? v : json_null());
	}
	return o;
}
