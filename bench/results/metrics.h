/* The metric table: one row per figure a run produces, the one place that
 * says what a figure is called and where it lives.
 *
 *   name      the summary.csv column (and the field of struct sweep_row)
 *   json      where summary.json holds it (a dotted path), or, for figures
 *             the sweep records about a run, the key of its sweep.json entry
 *   unit      "s", "ms", "%", "images/s", "count", "ns", "KiB", "B", "GB/s"
 *   combine   how the repeats of one configuration combine into one figure
 *   def       one line: what it is
 *
 * The summary.json writer (emit_results.c) places every run figure at its
 * path from struct run_metrics (analysis.h); summary.csv's columns, its
 * reader, the report, compare and merge read them back through the same
 * rows; `ppbench metrics` and docs/metrics.md print the table. A name or
 * path the table does not know is a programming error: metric_find()
 * aborts, and tests/unit/test_metrics.c checks that a complete run's
 * summary.json holds exactly the table's keys.
 *
 * Numbers are written in one format everywhere (METRIC_NUM_FMT): 15
 * significant digits, what a double always holds exactly, so a figure read
 * back from summary.json and written to summary.csv is the same number. */
#ifndef PPBENCH_METRICS_H
#define PPBENCH_METRICS_H

#include <stddef.h>
#include <stdio.h>

struct json_t;
struct run_metrics;
struct op_metrics;
struct sweep_row;
struct sweep_op;

#define METRIC_NUM_FMT "%.15g"
#define METRIC_JSON_PRECISION 15

/* How repeats combine. */
enum metric_combine {
	COMBINE_MEDIAN,   /* median over repeats, with its spread (stats_summarise) */
	COMBINE_SAME,     /* the same in every repeat (a count or a setting); a repeat
			     that differs is reported */
};

/* Where the figure comes from. */
enum metric_src {
	MSRC_RUN,         /* summary.json, from struct run_metrics */
	MSRC_SWEEP,       /* the sweep's record of the run (sweep.json "runs" entry) */
};

/* The type of the field in struct run_metrics (MSRC_RUN). */
enum metric_ctype { MCT_DOUBLE, MCT_U64, MCT_SIZE, MCT_INT, MCT_LONG };

struct metric {
	const char *name;
	const char *json;
	const char *unit;
	enum metric_combine combine;
	const char *def;
	enum metric_src src;
	enum metric_ctype ctype;
	size_t run_off;               /* offset in struct run_metrics */
	double scale;                 /* summary value = field x scale (ns -> ms: 1e-6) */
	size_t row_off;               /* offset of the double in struct sweep_row */
	int optional;                 /* absent (null) unless measured, e.g. --counters */
};

/* One figure of one op: summary.json "ops" <op> <json>; summary.csv
 * op_<op>_<name>; ops.csv column <name>. */
struct op_metric {
	const char *name;
	const char *json;
	const char *unit;
	enum metric_combine combine;
	const char *def;
	enum metric_ctype ctype;
	size_t op_off;                /* offset in struct op_metrics */
	double scale;
	size_t row_off;               /* offset of the double in struct sweep_op */
	int optional;                 /* only with --counters (null otherwise) */
};

/* Keys of summary.json that are not figures (identity, settings, lists,
 * descriptive blocks): documented, and known to the key check. */
struct summary_key {
	const char *json;             /* path; a block ends in ".*" */
	const char *type;             /* "string", "bool", "array", "object", "integer" */
	const char *def;
};

extern const struct metric metric_table[];
extern const size_t metric_count;
extern const struct op_metric op_metric_table[];
extern const size_t op_metric_count;
extern const struct summary_key summary_keys[];
extern const size_t summary_key_count;

/* The row of a name (summary.csv column); aborts on an unknown name. */
const struct metric *metric_find(const char *name);
const struct op_metric *op_metric_find(const char *name);

/* The value of a metric in a run's metrics (already scaled). */
double metric_of_run(const struct metric *mt, const struct run_metrics *m);
double op_metric_of(const struct op_metric *mt, const struct op_metrics *om);

/* summary.json: the number at mt->json (NaN when absent or null). */
double metric_from_json(const struct metric *mt, struct json_t *summary);
/* Set v (a new reference, stolen; NULL: null) at path in o, creating the
 * objects on the way. 0, or -1 on out of memory. */
int metric_json_put(struct json_t *o, const char *path, struct json_t *v);
/* The JSON value of a figure: an integer for an integer field (ctype other
 * than MCT_DOUBLE, scale 1), null for NaN and infinities, else a real. */
struct json_t *metric_json_value(enum metric_ctype t, double scale, double v);
/* The value at a dotted path ("machine.cpus_online") of a JSON object, or
 * NULL (borrowed): the one reader of JSON paths. */
struct json_t *json_path(struct json_t *o, const char *path);
/* The number at a dotted path (NaN when absent, null or not a number): the
 * one reader of numbers in ppbench's JSON files. */
double metric_json_get(const struct json_t *o, const char *path);

/* struct sweep_row: the field of a metric. */
double *metric_row_field(const struct metric *mt, struct sweep_row *r);
double metric_row_get(const struct metric *mt, const struct sweep_row *r);
double *op_metric_field(const struct op_metric *mt, struct sweep_op *o);
double op_metric_get(const struct op_metric *mt, const struct sweep_op *o);

/* One number as every results file writes it: nothing for NaN (an empty
 * CSV field), else METRIC_NUM_FMT. */
void metric_put_num(FILE *f, double v);

/* Check a run's summary.json against the table: every key is a figure of
 * the table or a known key (summary_keys), and every figure of the table
 * is there (null when not measured). Returns the number of problems; err
 * gets the first ones ("unknown key 'main.x'; missing 'gpu.busy_s'"). */
int metrics_check_summary(struct json_t *summary, char *err, size_t errlen);

/* `ppbench metrics [--markdown] [--check RUN_DIR...]`: the table. */
void metrics_print(FILE *f, int markdown);

#endif
