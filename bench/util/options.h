/* The one option table: a command's options are rows of a table that drives
 * parsing, validation (ranges, units), --help with defaults, and the echo of
 * the resolved options into the results (as JSON). */
#ifndef PPBENCH_OPTIONS_H
#define PPBENCH_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_t;

enum opt_type {
	OPT_BOOL,    /* int: --name (sets 1), or --name=on|off|yes|no|1|0; --no-name sets 0 */
	OPT_INT,     /* long, within [lo, hi] */
	OPT_U64,     /* uint64_t, within [lo, hi]; accepts k/M/G suffixes (x1000) */
	OPT_DOUBLE,  /* double, within [lo, hi] */
	OPT_TIME,    /* uint64_t ns; suffix ns|us|ms|s|min, a bare number is in `unit`;
			"auto" stores OPT_AUTO */
	OPT_SIZE,    /* uint64_t bytes; suffix B|K|KB|KiB|M|MB|MiB|G|GB|GiB (KB=1000, KiB=1024) */
	OPT_RATE,    /* double bytes/s; e.g. 12GB/s, 800MiB/s, bare number in `unit` */
	OPT_STR,     /* const char *, points into argv or the default */
	OPT_ENUM,    /* int: index of the value in `choices` ("a|b|c") */
	OPT_LIST,    /* const char *: a space or comma separated list (kept as text) */
	OPT_DOUBLES, /* double[count]: exactly `count` numbers separated by commas, each
			within [lo, hi] ("0.485,0.456,0.406") */
	OPT_MULTI,   /* struct opt_multi: a repeatable option, one value per occurrence
			(kept as text, in order); no default; free with opts_free */
};

/* An OPT_MULTI field: v[0..n) point into argv (or the value given to opts_set). */
struct opt_multi {
	const char **v;
	size_t n;
};

#define OPT_AUTO UINT64_MAX
#define OPT_DOUBLES_MAX 16   /* the most numbers an OPT_DOUBLES option takes */

struct opt {
	const char *name;      /* long name, without "--" */
	char shortname;        /* 0: none */
	enum opt_type type;
	size_t off;            /* offset of the field in the config struct */
	const char *def;       /* default, as text the parser accepts (NULL: none) */
	const char *metavar;   /* in --help: --name METAVAR */
	const char *help;      /* one line */
	const char *choices;   /* OPT_ENUM: "a|b|c" */
	double lo, hi;         /* numeric range (both 0: no check) */
	const char *unit;      /* OPT_TIME / OPT_RATE: unit of a bare number */
	const char *implicit;  /* the value of a bare --name: then a value is given only as
				  --name=VALUE (NULL: --name VALUE) */
	int count;             /* OPT_DOUBLES: the numbers it takes */
};

#define OPT_END { .name = NULL }

/* Rows several commands share, each defined once (as NOISE_OPT in noise.h):
 * T is the command's config struct, f its field, `why` the help line where
 * a command says what the option means for it (the *_HELP wording where it
 * means the usual thing). OPT_MAX_PIXELS and OPT_MAX_FILE_SIZE are in
 * pipelines/decode.h, beside the constants they name. */
#define OPT_ROW(nm, sh, ty, T, f, df, mv, why) \
	{ .name = nm, .shortname = sh, .type = ty, .off = offsetof(T, f), .def = df, \
	  .metavar = mv, .help = why }
#define OPT_DATA(T, f) OPT_ROW("data", 'd', OPT_STR, T, f, NULL, "DIR", \
			       "ImageFolder dataset (default: the generated default dataset)")
#define OPT_PIPELINE(T, f, why) OPT_ROW("pipeline", 'p', OPT_STR, T, f, "imagenet_train", \
					"NAME|FILE", why)
#define OPT_PIPELINE_HELP "pipeline: a name in pipelines/ or a .pipe file"
#define OPT_SEED(T, f, why) OPT_ROW("seed", 's', OPT_U64, T, f, "0", "S", why)
#define OPT_TAG(T, f, why) OPT_ROW("tag", 't', OPT_STR, T, f, NULL, "TAG", why)
#define OPT_OUT(T, f, def, why) OPT_ROW("out", 'o', OPT_STR, T, f, def, "DIR", why)
#define OPT_OUT_HELP "where results folders are made"

/* Set every field to its default. 0, or -1 with err (a bad default is a bug).
 * An OPT_MULTI field starts empty (what it held is not freed). */
int opts_defaults(const struct opt *t, void *cfg, char *err, size_t errlen);
/* Parse argv[from..argc) into cfg (defaults must have been set). Positional
 * arguments are moved to the front of argv[from..]; *npos receives their
 * count. "--help"/"-h" returns 1. 0 on success, -1 with err naming the
 * option and the reason ("--workers: 'x' is not an integer"). */
int opts_parse(const struct opt *t, void *cfg, int argc, char **argv, int from, int *npos,
	       char *err, size_t errlen);
/* The message for an argument a command does not take: "--shuffle: 'maybe'
 * is not on or off" when it followed an on/off option (as --shuffle=maybe
 * says), else "unexpected argument 'x' (see ppbench CMD --help)". */
void opts_unexpected(const char *arg, const char *cmd, char *err, size_t errlen);
/* The start every command shares: set the defaults, parse argv[1..argc),
 * print --help (usage line, description, the table, the exit codes) and
 * report a bad option as "error: ...". `noargs`: the command's name when it
 * takes no positional argument (a stray one is reported with
 * opts_unexpected, even before --help: a sweep checks its run options so);
 * NULL when the caller checks its *npos positional arguments (moved to
 * argv[1..]) itself. Returns -1 to go on, else the exit code to return:
 * EXIT_OK after --help, EXIT_USAGE after a bad option (EXIT_FAIL when a
 * default does not parse: a bug in the table). */
int opts_prelude(const struct opt *t, void *cfg, int argc, char **argv, int *npos,
		 const char *usage, const char *description, const char *noargs);
/* Parse one value for the option named `name` (used by sweeps). */
int opts_set(const struct opt *t, void *cfg, const char *name, const char *value,
	     char *err, size_t errlen);
const struct opt *opts_find(const struct opt *t, const char *name);
/* Free what parsing allocated in cfg (the OPT_MULTI lists) and empty them. */
void opts_free(const struct opt *t, void *cfg);

/* A command that passes options on to another (a sweep's runs): argv split
 * into the arguments of its own table and the ones passed on, in order. */
#define OPTS_SPLIT_ROOM 4      /* free slots after passed[npassed] for the caller */
struct opts_split {
	char **own;            /* argv[0], then the options `own` knows (and --help, -h) */
	int nown;
	char **passed;         /* the rest, each option with its value */
	size_t npassed;
};
/* Split argv[1..argc): an option `own` knows (--name, --name=v, --no-name for
 * an on|off one, -x) goes to own with its value, anything else to passed. A
 * word that does not start with '-' is the value of the option before it
 * (an on|off option takes only on or off). Returns 0; -1 with err when out
 * of memory; 1 with err when an option neither table knows was passed
 * ("unknown option '--x'; did you mean '--y'?", the nearest of both tables)
 * -- s is filled then too, so a caller can handle --help first. Free with
 * opts_split_free. */
int opts_split(const struct opt *own, const struct opt *passed, int argc, char **argv,
	       struct opts_split *s, char *err, size_t errlen);
void opts_split_free(struct opts_split *s);
/* --help text: usage line, then one line per option with its default. */
void opts_help(const struct opt *t, FILE *f, const char *usage, const char *description);
/* Only the table, under "HEADING:" (a command with sub-commands prints one
 * per sub-command: "options of generate"). */
void opts_help_table(const struct opt *t, FILE *f, const char *heading);
/* Resolved values as a JSON object (numbers as numbers, keys with units:
 * "gpu_step_ns", "h2d_bandwidth_bytes_per_s"). New reference. */
struct json_t *opts_json(const struct opt *t, const void *cfg);
/* Format one value as text the parser accepts (for echo and sweeps). */
void opts_format(const struct opt *o, const void *cfg, char *out, size_t n);

/* Unit parsers, shared with other code. 0 or -1. */
int parse_time_ns(const char *s, const char *unit, uint64_t *out);
int parse_size_bytes(const char *s, uint64_t *out);
int parse_rate(const char *s, const char *unit, double *out);

#endif
