/* A small CSV reader (bench/results/csv.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "escape.h"
#include "fsutil.h"
#include "log.h"

void table_free(struct table *t)
{
	free(t->buf);
	free(t->hdr);
	free(t->cell);
	memset(t, 0, sizeof(*t));
}

/* The line at *p, its "\n" (and a "\r" before it) cut off, *p moved past
 * it; NULL at the end of the text. */
static char *next_line(char **p)
{
	char *cur = *p;
	if (!*cur)
		return NULL;
	char *nl = strchr(cur, '\n');
	if (nl) {
		*nl = 0;
		if (nl > cur && nl[-1] == '\r')
			nl[-1] = 0;
		*p = nl + 1;
	} else {
		*p = cur + strlen(cur);
	}
	return cur;
}

int table_read(struct table *t, const char *path, char *err, size_t errlen)
{
	char why[256];
	FILE *f = fopen_regular(path, FILE_MAX_TABLE, why, sizeof(why));
	size_t len = 0, lines = 0, cap = 0, n;
	char *p, *line;

	memset(t, 0, sizeof(*t));
	if (!f) {
		errf(err, errlen, "cannot read '%s': %s", path, why);
		return -1;
	}
	for (;;) {
		if (len + 65536 + 1 > cap) {
			char *nb = realloc(t->buf, cap = 2 * cap + 65536 + 1);
			if (!nb)
				goto oom;
			t->buf = nb;
		}
		n = fread(t->buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		errf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	f = NULL;
	if (!t->buf && !(t->buf = calloc(1, 1)))
		goto oom;
	t->buf[len] = 0;
	for (size_t i = 0; i < len; i++)
		lines += t->buf[i] == '\n';
	lines++;
	/* header: the first line neither empty nor a # comment */
	p = t->buf;
	while ((line = next_line(&p)) && (line[0] == '#' || !line[0]))
		;
	if (!line) {
		errf(err, errlen, "'%s': no header line", path);
		goto fail;
	}
	t->ncols = 1;
	for (const char *q = line; *q; q++)
		t->ncols += *q == ',';      /* at least the fields: quoted commas count too */
	t->hdr = calloc(t->ncols, sizeof(*t->hdr));
	t->cell = calloc(lines * t->ncols + 1, sizeof(*t->cell));
	if (!t->hdr || !t->cell)
		goto oom;
	t->ncols = csv_split(line, t->hdr, t->ncols);
	char *cur;
	while ((cur = next_line(&p))) {
		if (!cur[0])
			continue;
		csv_split(cur, t->cell + t->nrows * t->ncols, t->ncols);
		t->nrows++;
	}
	return 0;
oom:
	errf(err, errlen, "cannot read '%s': out of memory", path);
fail:
	if (f)
		fclose(f);
	table_free(t);
	return -1;
}

int table_col(const struct table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->hdr[i], name))
			return (int)i;
	return -1;
}

const char *table_str(const struct table *t, size_t row, int col)
{
	if (col < 0 || row >= t->nrows)
		return "";
	const char *s = t->cell[row * t->ncols + (size_t)col];
	return s ? s : "";
}

/* NaN when missing or empty */
double table_num(const struct table *t, size_t row, int col)
{
	const char *s = table_str(t, row, col);
	char *end;
	double v;

	if (!*s)
		return NAN;
	v = strtod(s, &end);
	return end == s ? NAN : v;
}

