/* Diagnostics, git style: "ppbench: error: cannot open 'x': No such file". */
#ifndef PPBENCH_LOG_H
#define PPBENCH_LOG_H

#include <stddef.h>

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_quiet(int quiet);
/* Fill err (errlen bytes; nothing when err is NULL or errlen 0) from a
 * printf format: the "-1 with err filled" convention of library functions. */
void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
