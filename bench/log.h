/* Diagnostics, git style: "ppbench: error: cannot open 'x': No such file". */
#ifndef PPBENCH_LOG_H
#define PPBENCH_LOG_H

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_quiet(int quiet);

#endif
