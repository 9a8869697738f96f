/* One fuzz harness per parser of outside input (FUZZING.md). Each
 * tests/fuzz/fuzz_NAME.c defines fuzz_one(); it is linked with afl.c (the
 * afl++ persistent-mode driver, `make fuzz`) or with replay.c (runs files
 * and folders given on the command line once each: the stored corpus and
 * the crashers under ASan+UBSan in `make check`). fuzz_one must not leak,
 * must not print (the replay's output is the verdict) and returns 0. */
#ifndef PPBENCH_FUZZ_H
#define PPBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int fuzz_one(const uint8_t *data, size_t n);
/* Called once before the first input (may be empty). */
void fuzz_init(void);

/* A scratch folder of this process for harnesses that read files: made at
 * the first call, removed at exit. */
const char *fuzz_dir(void);
/* Write data to fuzz_dir()/name (whatever was there is unlinked first:
 * a FIFO left by fuzz_fifo must not block the write). 0 or -1. */
int fuzz_write(const char *name, const uint8_t *data, size_t n);
/* fuzz_dir()/name becomes a FIFO no one writes to: a reader that opens it
 * without checking its type blocks (a hang for afl and the replay). */
int fuzz_fifo(const char *name);
/* fuzz_write, then the file grown (sparse: no memory, no time) to size
 * bytes: a reader that does not check the size first reads it all. */
int fuzz_oversized(const char *name, const uint8_t *data, size_t n, long long size);

#endif
