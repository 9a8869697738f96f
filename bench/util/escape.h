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
#include <stdio.h>

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

/* ---- CSV text fields (RFC 4180) -------------------------------------------
 *
 * Every text field of every CSV file ppbench writes (a host, a tag, a label,
 * a path, an op or metric name) goes through csv_field: its bytes escaped as
 * above (so a row stays one line, valid UTF-8), then quoted as RFC 4180 says
 * ("...", a quote inside doubled) when it holds a comma or a quote, or when
 * it starts with a space or with one of = + - @ ' (a spreadsheet would take
 * the first four for a formula): such a field is prefixed with ' inside the
 * quotes, so a spreadsheet shows it as text. Numbers are written bare.
 * csv_split reads it back (bench/results/csv.c); README "CSV files"
 * documents it. */

/* The CSV field of text in, into out (always terminated, cut at n - 1).
 * Returns the length it needs (as snprintf). */
size_t csv_field(const char *in, char *out, size_t n);
/* csv_field of in, written to f. */
void csv_put(FILE *f, const char *in);
/* ",", then csv_field of in, written to f (the next field of a row). */
void csv_put_next(FILE *f, const char *in);
/* Split one CSV line (no line end) in place into its fields: out[i] points
 * at field i's text, unquoted, its ' prefix dropped and its escapes undone
 * (a field that is not a valid escaped text is kept as it is). At most max
 * pointers are stored; returns the number of fields (1 for ""). */
size_t csv_split(char *line, char **out, size_t max);

#endif
