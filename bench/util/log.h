/* Diagnostics, git style: "ppbench: error: cannot open 'x': No such file". */
#ifndef PPBENCH_LOG_H
#define PPBENCH_LOG_H

#include <stddef.h>
#include <stdio.h>

/* not error_msg() and warn_msg(): glibc has error_msg(3) and warn_msg(3) */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* error_msg(), then exit 1: the work failed (out of memory, an internal error) */
__attribute__((noreturn)) void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_quiet(int quiet);
/* fprintf(f, ...) of a terminal line holding text from outside (a path, a
 * tag, a folder name, a string of a results file): control characters
 * escaped (term_escape), the trailing newlines kept. error_msg, warn_msg,
 * info and die escape their line the same way. */
void outf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* snprintf into a bounded buffer, for messages and paths: the output is cut
 * at errlen bytes (without the compiler's truncation warning), nothing is
 * written when err is NULL or errlen 0. Returns vsnprintf's count (the
 * length it wanted). The one string formatter: library functions fill their
 * err with it ("-1 with err filled"), commands build paths with it. */
int errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "s" unless n is 1: "%ld worker%s", n, plural_s(n) (never "1 workers") */
const char *plural_s(long long n);

#endif
