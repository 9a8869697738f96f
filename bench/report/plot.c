#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "escape.h"
#include "fsutil.h"
#include "log.h"
#include "subprocess.h"
#include "plot.h"

#define PLOT_MAX_ARGS 8

/* The figures that could not be drawn in this process (the first
 * PLOT_MAX_FAILED are named). */
#define PLOT_MAX_FAILED 32
static struct {
	char name[128];
	char why[384];
} failed[PLOT_MAX_FAILED];
static size_t nfailed;

void plot_failed(const char *name, const char *why)
{
	if (nfailed < PLOT_MAX_FAILED) {
		bytes_escape(name, failed[nfailed].name, sizeof(failed[nfailed].name));
		bytes_escape(why, failed[nfailed].why, sizeof(failed[nfailed].why));
	}
	nfailed++;
}

size_t plot_summary(void)
{
	size_t named = nfailed < PLOT_MAX_FAILED ? nfailed : PLOT_MAX_FAILED, same = 1;

	if (!nfailed)
		return 0;
	for (size_t i = 1; i < named; i++)
		same &= !strcmp(failed[i].why, failed[0].why);
	if (nfailed > 1 && same && named == nfailed) {
		warn_msg("%zu figures not drawn: %s", nfailed, failed[0].why);
	} else {
		for (size_t i = 0; i < named; i++)
			warn_msg("figure %s not drawn: %s", failed[i].name, failed[i].why);
		if (nfailed > named)
			warn_msg("and %zu more figures not drawn", nfailed - named);
	}
	warn_msg("%s not drawn: the results are kept (exit 1); once the cause is fixed, "
		 "ppbench plots DIR draws a sweep's or a run's figures again",
		 nfailed == 1 ? "a figure was" : "figures were");
	return nfailed;
}

/* The figure's name: OUT below its figures/ folder ("paper/fig6a..."),
 * else its last component. */
static const char *fig_name(const char *out)
{
	const char *p = NULL;
	for (const char *q = strstr(out, "/figures/"); q; q = strstr(q + 1, "/figures/"))
		p = q + 9;
	if (p)
		return p;
	p = strrchr(out, '/');
	return p ? p + 1 : out;
}

/* path as gnuplot must get it: ./path when it does not start with '/' */
static char *gp_path(const char *path)
{
	char *s = malloc(strlen(path) + 3);
	if (s)
		sprintf(s, "%s%s", path[0] == '/' ? "" : "./", path);
	return s;
}

/* a text argument, each of its lines escaped (bytes_escape) */
static char *gp_text(const char *text)
{
	size_t cap = 4 * strlen(text) + 1, k = 0;
	char *s = malloc(cap), line[4096];

	if (!s)
		return NULL;
	for (const char *p = text;; ) {
		size_t l = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(l < sizeof(line) - 1 ? l : sizeof(line) - 1), p);
		k += bytes_escape(line, s + k, cap - k);
		if (k >= cap)
			k = cap - 1;
		if (!p[l])
			break;
		if (k + 1 < cap)
			s[k++] = '\n';
		p += l + 1;
	}
	s[k] = 0;
	return s;
}

/* why from fmt, recorded as out's failure; -1 */
__attribute__((format(printf, 4, 5)))
static int fail(const char *out, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	plot_failed(fig_name(out), why);
	return -1;
}

/* out.png is a PNG and out.svg an SVG */
static int figure_ok(const char *out)
{
	char p[4096];
	errf(p, sizeof(p), "%s.png", out);
	if (!file_has_magic(p, "\x89PNG\r\n\x1a\n", 8, 8))
		return 0;
	errf(p, sizeof(p), "%s.svg", out);
	return file_has_magic(p, "<svg", 4, 1024);
}

int plot_run(const char *top, const char *script, const char *const *args, const char *log,
	     char *why, size_t whylen)
{
	char sp[4096], p[4096];
	char *argv[PLOT_MAX_ARGS + 5] = { 0 };
	size_t n = 0, na = 0;
	const char *out = args && args[0] && args[1] ? args[1] : "";
	int st, rc = -1, e;

	if (!args || !args[0] || !args[1]) {
		errf(why, whylen, "plot_run: no data file or output");
		return -1;
	}
	if (!top)
		return fail(out, why, whylen, "the plots/ folder was not found (run ppbench from "
			    "its repository or an installed copy, which keep it)");
	errf(p, sizeof(p), "%s.png", out);
	unlink(p);
	errf(p, sizeof(p), "%s.svg", out);
	unlink(p);
	errf(sp, sizeof(sp), "%s/plots/%s", top, script);
	argv[n++] = "gnuplot";
	argv[n++] = "-d";    /* no ~/.gnuplot nor the system's gnuplotrc */
	argv[n++] = "-c";
	argv[n++] = gp_path(sp);
	for (; args[na] && na < PLOT_MAX_ARGS; na++)
		argv[n++] = na < 2 ? gp_path(args[na]) : gp_text(args[na]);
	argv[n] = NULL;
	for (size_t i = 3; i < n; i++)
		if (!argv[i]) {
			rc = fail(out, why, whylen, "out of memory");
			goto out;
		}

	struct spawn child = SPAWN_INIT;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0666);
	child.argv = argv;
	child.search = 1;
	child.in = SPAWN_NULL;
	child.out = child.err = fd >= 0 ? fd : SPAWN_NULL;
	pid_t pid = spawn_start(&child);
	e = errno;
	if (fd >= 0)
		close(fd);
	if (pid < 0 && e == ENOENT) {
		rc = fail(out, why, whylen, "gnuplot is not installed (apt-get install gnuplot-nox)");
		goto out;
	}
	if (pid < 0) {
		rc = fail(out, why, whylen, "cannot start gnuplot: %s", strerror(e));
		goto out;
	}
	if (spawn_wait(pid, &st) < 0) {
		rc = fail(out, why, whylen, "cannot wait for gnuplot: %s", strerror(errno));
		goto out;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		rc = fail(out, why, whylen, "gnuplot is not installed (apt-get install gnuplot-nox)");
		goto out;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		rc = fail(out, why, whylen, "gnuplot failed on plots/%s (see %s)", script, log);
		goto out;
	}
	if (!figure_ok(out)) {
		rc = fail(out, why, whylen, "gnuplot wrote no valid PNG and SVG for plots/%s (see %s)",
			  script, log);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 3; i < n; i++)
		free(argv[i]);
	return rc;
}

void plot_csv_text(FILE *f, const char *s)
{
	char buf[1024];
	bytes_escape(s, buf, sizeof(buf));
	if (buf[0] && strchr("=+-@", buf[0]))
		fputc('\'', f); /* a spreadsheet must not take it for a formula */
	for (const char *p = buf; *p; p++) {
		if (*p == ',')
			fputs("\\x2c", f);
		else if (*p == '"')
			fputs("\\x22", f);
		else
			fputc(*p, f);
	}
}
