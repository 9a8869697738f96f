/* Text that need not be UTF-8 (file names, tags, arguments), written
 * losslessly where only UTF-8 goes (JSON) or where one line is expected (a
 * warning): a backslash becomes two, a byte that is not part of valid UTF-8
 * and a control character (below 0x20, and 0x7f) become \xNN; every other
 * character is kept. So "caf\xe9.jpg" (Latin-1) is written as the six
 * characters caf\xe9 then .jpg, and "a\b" as "a\\b". bytes_unescape()
 * inverts it. README "Bad input" documents it. */
#ifndef PPBENCH_ESCAPE_H
#define PPBENCH_ESCAPE_H

#include <stddef.h>

struct json_t;

/* The escaped form of in, into out (always terminated, cut at n - 1).
 * Returns the length it needs (as snprintf). */
size_t bytes_escape(const char *in, char *out, size_t n);
/* Text for a terminal line: every control character (C0 below 0x20, DEL,
 * and C1: U+0080..U+009F) and every byte that is not part of valid UTF-8
 * (an 8-bit terminal may take 0x9b for CSI) becomes \xNN; everything else,
 * backslashes included, is kept, so a text already escaped by
 * bytes_escape() is written as it is. ESC from a tag, a folder name or a
 * hand-edited summary.json cannot reach the terminal. Returns the length
 * it needs (as snprintf). */
size_t term_escape(const char *in, char *out, size_t n);
/* The bytes of an escaped text, into out. 0, or -1 if in is not an escaped
 * text (a lone backslash, a bad \x) or out is too small. */
int bytes_unescape(const char *in, char *out, size_t n);
/* A JSON string holding s escaped (json_null() for NULL). New reference. */
struct json_t *json_bytes(const char *s);
/* The unescaped bytes of v (a string made by json_bytes) into out; NULL if
 * v is not such a string or does not fit. */
const char *json_bytes_value(const struct json_t *v, char *out, size_t n);

#endif
