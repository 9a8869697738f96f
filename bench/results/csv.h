/* A small CSV reader: comma-separated, one row a line, text fields quoted
 * and escaped as ppbench writes them (csv_split, bench/util/escape.h), '#'
 * lines before the header are comments.
 * For summary.csv, the Lotus reference tables and figure data. */
#ifndef PPBENCH_CSV_H
#define PPBENCH_CSV_H

#include <stddef.h>

struct table {
	char *buf;
	size_t ncols, nrows;
	char **hdr;       /* [ncols] */
	char **cell;      /* [nrows * ncols]; NULL past the end of a short row */
};

/* Read path into t (overwritten; free with table_free). 0, or -1 with err
 * (err may be NULL). */
int table_read(struct table *t, const char *path, char *err, size_t errlen);
void table_free(struct table *t);
/* The column named name, or -1. */
int table_col(const struct table *t, const char *name);
/* The text of a cell ("" when missing). */
const char *table_str(const struct table *t, size_t row, int col);
/* Its number, NaN when missing, empty or not a number. */
double table_num(const struct table *t, size_t row, int col);

#endif
