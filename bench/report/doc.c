/* The Markdown + HTML document writer shared by ppbench report and ppbench
 * merge (doc.h): every call writes the same content to report.md and
 * report.html; figures are inlined in the HTML as SVG. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "doc.h"
#include "log.h"
#include "report.h"
#include "fsutil.h"

static void html_esc(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
}

/* Markdown text escaped as the HTML writer escapes it: < > & as entities,
 * so that no tag, attribute or entity in a name reaches a page that renders
 * the Markdown; a control character (a newline in a tag, say) as \xNN, as
 * escape.h writes it, so that it cannot start a heading, a list item or a
 * table row. In a table cell (cell) '|' is escaped too. */
static void md_put(FILE *f, const char *s, int cell)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if ((c < 0x20 && c != '\t') || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else if (c == '|' && cell)
			fputs("\\|", f);
		else
			fputc(c, f);
	}
}

static void md_text(FILE *f, const char *s)
{
	md_put(f, s, 0);
}

void doc_h(struct doc *d, int level, const char *text)
{
	fprintf(d->md, "\n%.*s ", level, "######");
	md_text(d->md, text);
	fputs("\n\n", d->md);
	fprintf(d->html, "<h%d>", level);
	html_esc(d->html, text);
	fprintf(d->html, "</h%d>\n", level);
}

void doc_p(struct doc *d, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	md_text(d->md, buf);
	fputs("\n\n", d->md);
	fputs("<p>", d->html);
	html_esc(d->html, buf);
	fputs("</p>\n", d->html);
}

void doc_lead(struct doc *d, const char *cls, const char *lead, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("**", d->md);
	md_text(d->md, lead);
	fputs("** ", d->md);
	md_text(d->md, buf);
	fputs("\n\n", d->md);
	fprintf(d->html, "<p class=\"%s\"><strong>", cls ? cls : "");
	html_esc(d->html, lead);
	fputs("</strong> ", d->html);
	html_esc(d->html, buf);
	fputs("</p>\n", d->html);
}

void doc_li(struct doc *d, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!d->in_list) {
		fputs("<ul>\n", d->html);
		d->in_list = 1;
	}
	fputs("- ", d->md);
	md_text(d->md, buf);
	fputc('\n', d->md);
	fputs("<li>", d->html);
	html_esc(d->html, buf);
	fputs("</li>\n", d->html);
}

void doc_list_end(struct doc *d)
{
	if (d->in_list)
		fputs("</ul>\n", d->html);
	fputs("\n", d->md);
	d->in_list = 0;
}

void doc_row(struct doc *d, const char *const *c, size_t n, int header)
{
	fputs("|", d->md);
	for (size_t i = 0; i < n; i++) {
		fputc(' ', d->md);
		md_put(d->md, c[i], 1);
		fputs(" |", d->md);
	}
	fputs("\n", d->md);
	if (header) {
		fputs("|", d->md);
		for (size_t i = 0; i < n; i++)
			fputs("---|", d->md);
		fputs("\n", d->md);
		fputs("<table>\n<tr>", d->html);
	} else {
		fputs("<tr>", d->html);
	}
	for (size_t i = 0; i < n; i++) {
		fputs(header ? "<th>" : "<td>", d->html);
		html_esc(d->html, c[i]);
		fputs(header ? "</th>" : "</td>", d->html);
	}
	fputs("</tr>\n", d->html);
}

void doc_row_cells(struct doc *d, const char *cells, size_t width, size_t n)
{
	const char *p[DOC_MAX_COLS];
	if (n > DOC_MAX_COLS)
		n = DOC_MAX_COLS;
	for (size_t i = 0; i < n; i++)
		p[i] = cells + i * width;
	doc_row(d, p, n, 0);
}

void doc_table_end(struct doc *d)
{
	fputs("\n", d->md);
	fputs("</table>\n", d->html);
}

void doc_svg(struct doc *d, const char *path)
{
	FILE *f = fopen_regular(path, FILE_MAX_DOC, NULL, 0);
	char *buf = NULL, *p, pre[16];
	size_t cap = 0, len = 0, n;

	if (!f)
		return;
	for (;;) {
		if (len + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 65536 + 1);
			if (!nb)
				goto out;
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	if (!buf)
		goto out;
	buf[len] = 0;
	p = strstr(buf, "<svg");
	if (!p)
		goto out;
	snprintf(pre, sizeof(pre), "f%d-", ++d->nfig);
	while (*p) {
		static const char *const pat[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
		size_t k;
		for (k = 0; k < sizeof(pat) / sizeof(pat[0]); k++)
			if (!strncmp(p, pat[k], strlen(pat[k])) && (p == buf || p[-1] == ' ' ||
			    p[-1] == '\t' || p[-1] == ':' || p[-1] == '\n' || k == 4))
				break;
		if (k < sizeof(pat) / sizeof(pat[0])) {
			fputs(pat[k], d->html);
			fputs(pre, d->html);
			p += strlen(pat[k]);
		} else {
			fputc(*p++, d->html);
		}
	}
	fputc('\n', d->html);
out:
	free(buf);
	fclose(f);
}

void doc_figure(struct doc *d, const char *name, const char *caption, const char *why_not)
{
	char path[4096];

	if (why_not) {
		doc_lead(d, "nofig", "Figure not drawn:", "%s (%s).", caption, why_not);
		return;
	}
	fputs("![", d->md);
	md_text(d->md, caption);
	fprintf(d->md, "](figures/%s.png)\n\n*", name);
	md_text(d->md, caption);
	fprintf(d->md, "* ([SVG](figures/%s.svg))\n\n", name);
	fputs("<figure>\n", d->html);
	snprintf(path, sizeof(path), "%s/figures/%s.svg", d->dir, name);
	doc_svg(d, path);
	fputs("<figcaption>", d->html);
	html_esc(d->html, caption);
	fputs("</figcaption>\n</figure>\n", d->html);
}

void doc_fig(struct doc *d, const struct fig_status *st, size_t n, const char *name,
	     const char *caption)
{
	const struct fig_status *f = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(st[i].name, name))
			f = &st[i];
	doc_figure(d, name, caption, !f ? "not made by this version" : f->drawn ? NULL : f->why);
}

static const char html_head_start[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
static const char html_head_end[] =
	"</title>\n<style>\n"
	"body{font-family:system-ui,sans-serif;max-width:1040px;margin:2em auto;padding:0 1em;"
	"line-height:1.45;color:#222}\n"
	"table{border-collapse:collapse;margin:0.6em 0 1.2em;font-size:0.92em}\n"
	"th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left}\n"
	"th{background:#f3f3f3}\n"
	"figure{margin:1em 0}\nfigure svg{max-width:100%;height:auto;display:block}\n"
	"figcaption{font-size:0.9em;color:#555}\n"
	"p.holds strong{color:#1a7f37}\np.nothold strong{color:#b42318}\n"
	"p.cannot strong{color:#8a6d00}\np.rule{font-size:0.9em;color:#555}\n"
	"p.nofig{font-size:0.9em;color:#777}\ncode{background:#f3f3f3;padding:0 0.2em}\n"
	"</style>\n</head>\n<body>\n";

int doc_open(struct doc *d, const char *html_title, const char *title, char *err,
	     size_t errlen)
{
	snprintf(d->mdt, sizeof(d->mdt), "%s/.report.md.%ld.tmp", d->dir, (long)getpid());
	snprintf(d->htt, sizeof(d->htt), "%s/.report.html.%ld.tmp", d->dir, (long)getpid());
	d->md = fopen(d->mdt, "w");
	d->html = fopen(d->htt, "w");
	if (!d->md || !d->html) {
		errf(err, errlen, "cannot create '%s': %s", d->md ? d->htt : d->mdt, strerror(errno));
		return -1;
	}
	fputs(html_head_start, d->html);
	html_esc(d->html, html_title);
	fputs(html_head_end, d->html);
	fputs("# ", d->md);
	md_text(d->md, title);
	fputc('\n', d->md);
	fputs("<h1>", d->html);
	html_esc(d->html, title);
	fputs("</h1>\n", d->html);
	return 0;
}

int doc_begin(struct doc *d, const char *title_lead, char *err, size_t errlen)
{
	const char *slash = strrchr(d->dir, '/');
	char title[512];

	snprintf(title, sizeof(title), "%s%.400s", title_lead, slash && slash[1] ? slash + 1 : d->dir);
	return doc_open(d, "ppbench sweep report", title, err, errlen);
}

int doc_end(struct doc *d, int ok, char *err, size_t errlen)
{
	char path[4096];
	int bad = !ok;

	if (d->html && ok)
		fputs("</body>\n</html>\n", d->html);
	if (d->md)
		bad |= ferror(d->md) | fclose(d->md);
	if (d->html)
		bad |= ferror(d->html) | fclose(d->html);
	d->md = d->html = NULL;
	if (ok && bad)
		errf(err, errlen, "cannot write the report in '%s'", d->dir);
	snprintf(path, sizeof(path), "%s/report.md", d->dir);
	if (!bad && rename(d->mdt, path)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		bad = 1;
	}
	snprintf(path, sizeof(path), "%s/report.html", d->dir);
	if (!bad && rename(d->htt, path)) {
		errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		bad = 1;
	}
	if (bad) {
		unlink(d->mdt);
		unlink(d->htt);
	}
	return bad ? -1 : 0;
}
