#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "log.h"

static int quiet;

void log_set_quiet(int q)
{
	quiet = q;
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* one write so lines from several processes do not interleave */
	fprintf(stderr, "ppbench: %s%s\n", prefix, msg);
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
