/* report.md and report.html, written together (bench/report/doc.c): the document
 * writer of ppbench report (cmd_report.c) and ppbench merge (cmd_merge.c).
 * Text is escaped in both files: < > & as entities (in the Markdown too, so
 * that a name holding markup cannot reach a page that renders it), in the
 * Markdown a control character as \xNN (a newline in a tag cannot start a
 * heading or a table row) and '|' in table cells; a figure is a
 * PNG link in the Markdown and its SVG inline in the HTML, the SVG's ids
 * prefixed so that several figures can share one page. */
#ifndef PPBENCH_DOC_H
#define PPBENCH_DOC_H

#include <stddef.h>
#include <stdio.h>

struct fig_status;

struct doc {
	FILE *md, *html;
	const char *dir;      /* the folder the report is written in (figures/ below it) */
	int nfig;             /* figures inlined so far (SVG id prefixes) */
	int in_list;
	char mdt[4096], htt[4096];   /* written under these names, renamed at the end */
};

/* Open dir/report.md and report.html under temporary names, the HTML page
 * titled html_title, both headed by title. 0, or -1 with err. */
int doc_open(struct doc *d, const char *html_title, const char *title, char *err,
	     size_t errlen);
/* doc_open as ppbench report does: the title "<title_lead><the folder's name>". */
int doc_begin(struct doc *d, const char *title_lead, char *err, size_t errlen);
/* ok: close both files and give them their names; else (or when that
 * fails) remove them. 0, or -1 with err. */
int doc_end(struct doc *d, int ok, char *err, size_t errlen);

void doc_h(struct doc *d, int level, const char *text);
void doc_p(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a paragraph starting with a bold lead; cls: its HTML class */
void doc_lead(struct doc *d, const char *cls, const char *lead, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* a list item; doc_list_end closes the list */
void doc_li(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_list_end(struct doc *d);
/* a table row (header: the first row); doc_table_end closes the table */
void doc_row(struct doc *d, const char *const *c, size_t n, int header);
/* A body row from a char[n][width] array (cells = its first row). */
#define DOC_MAX_COLS 32
void doc_row_cells(struct doc *d, const char *cells, size_t width, size_t n);
void doc_table_end(struct doc *d);
/* The SVG file at path, inline in the HTML, its ids prefixed. */
void doc_svg(struct doc *d, const char *path);
/* The figure figures/<name>.png / .svg with its caption; why_not (not
 * NULL): it was not drawn, and why. */
void doc_figure(struct doc *d, const char *name, const char *caption, const char *why_not);
/* doc_figure for ppbench report's figure <name>, by its status in st[n]. */
void doc_fig(struct doc *d, const struct fig_status *st, size_t n, const char *name,
	     const char *caption);

#endif
