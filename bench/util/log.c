#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "escape.h"
#include "log.h"

static int quiet;

void log_set_quiet(int q)
{
	quiet = q;
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048], shown[4096];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* one line, whatever a path, tag or summary.json string holds */
	term_escape(msg, shown, sizeof(shown));
	/* one write so lines from several processes do not interleave */
	fprintf(stderr, "ppbench: %s%s\n", prefix, shown);
}

void outf(FILE *f, const char *fmt, ...)
{
	char small[2048], *msg = small, *shown;
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (need < 0)
		return;
	if ((size_t)need >= sizeof(small)) {
		if (!(msg = malloc((size_t)need + 1)))
			return;
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)need + 1, fmt, ap);
		va_end(ap);
	}
	/* the line's own newlines (at its end) stay */
	size_t len = (size_t)need, nl = 0;
	while (nl < len && msg[len - 1 - nl] == '\n')
		nl++;
	msg[len - nl] = 0;
	size_t cap = 4 * (len - nl) + 1;
	if ((shown = malloc(cap))) {
		term_escape(msg, shown, cap);
		fputs(shown, f);
		free(shown);
	}
	while (nl--)
		fputc('\n', f);
	if (msg != small)
		free(msg);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(1);    /* EXIT_FAIL (commands.h): the work failed (out of memory...) */
}

int errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		errlen = 0;	/* vsnprintf(NULL, 0, ...) only counts */
	va_start(ap, fmt);
	int r = vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return r;
}

const char *plural_s(long long n)
{
	return n == 1 ? "" : "s";
}
