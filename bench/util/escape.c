#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"

/* Bytes of the valid UTF-8 character at s (as jansson accepts it: no
 * overlong forms, no surrogates, at most U+10FFFF), 0 if none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The one escaper: a control character (C0, DEL) and a byte that is not
 * part of valid UTF-8 become \xNN; lossless doubles a backslash (so the
 * text can be read back), a terminal line escapes C1 controls instead. */
static size_t escape(const char *in, char *out, size_t n, int lossless)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)in;
	size_t k = 0;
	/* ch evaluated once, also when out is full (PUT(*s++) must advance s:
	 * the fuzzer's options harness found the hang when it did not) */
#define PUT(ch) do { char c_ = (char)(ch); if (k + 1 < n) out[k] = c_; k++; } while (0)
	while (*s) {
		size_t l = utf8_len(s);
		int c1 = !lossless && l == 2 && s[0] == 0xc2 && s[1] < 0xa0;
		if (lossless && *s == '\\') {
			PUT('\\');
			PUT('\\');
			s++;
		} else if (l == 0 || *s < 0x20 || *s == 0x7f || c1) {
			for (size_t i = 0; i < (c1 ? 2u : 1u); i++) {
				PUT('\\');
				PUT('x');
				PUT(hex[*s >> 4]);
				PUT(hex[*s & 15]);
				s++;
			}
		} else {
			while (l--)
				PUT(*s++);
		}
	}
#undef PUT
	if (n)
		out[k < n ? k : n - 1] = 0;
	return k;
}

size_t bytes_escape(const char *in, char *out, size_t n)
{
	return escape(in, out, n, 1);
}

size_t term_escape(const char *in, char *out, size_t n)
{
	return escape(in, out, n, 0);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int bytes_unescape(const char *in, char *out, size_t n)
{
	size_t k = 0;
	for (const char *s = in; *s; k++) {
		char c = *s++;
		if (c == '\\') {
			if (*s == '\\') {
				s++;
			} else if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0 &&
				   (hexval(s[1]) || hexval(s[2]))) {
				c = (char)(hexval(s[1]) << 4 | hexval(s[2]));
				s += 3;
			} else {
				return -1;
			}
		}
		if (k + 1 >= n)
			return -1;
		out[k] = c;
	}
	if (!n)
		return -1;
	out[k] = 0;
	return 0;
}

json_t *json_bytes(const char *s)
{
	if (!s)
		return json_null();
	char small[512];
	size_t need = bytes_escape(s, small, sizeof(small));
	if (need < sizeof(small))
		return json_string(small);
	char *big = malloc(need + 1);
	if (!big)
		return NULL;
	bytes_escape(s, big, need + 1);
	json_t *v = json_string(big);
	free(big);
	return v;
}

const char *json_bytes_value(const json_t *v, char *out, size_t n)
{
	const char *s = json_string_value(v);
	if (!s || bytes_unescape(s, out, n))
		return NULL;
	return out;
}

/* ---- CSV text fields ------------------------------------------------------ */

/* in escaped (bytes_escape) into *buf (small, or allocated: free it when
 * it is not small); NULL on out of memory */
static char *escaped(const char *in, char *small, size_t n, size_t *len)
{
	char *e = small;
	*len = bytes_escape(in, NULL, 0);
	if (*len >= n && !(e = malloc(*len + 1)))
		return NULL;
	bytes_escape(in, e, *len + 1);
	return e;
}

size_t csv_field(const char *in, char *out, size_t n)
{
	char small[512];
	size_t len, k = 0;
	char *e = escaped(in ? in : "", small, sizeof(small), &len);
#define PUT(ch) do { if (k + 1 < n) out[k] = (ch); k++; } while (0)
	if (e) {
		int prefix = e[0] && strchr("=+-@'", e[0]);
		int quote = prefix || e[0] == ' ' || (len && e[len - 1] == ' ') || strpbrk(e, ",\"");
		if (quote)
			PUT('"');
		if (prefix)
			PUT('\'');
		for (const char *s = e; *s; s++) {
			if (*s == '"')
				PUT('"');
			PUT(*s);
		}
		if (quote)
			PUT('"');
		if (e != small)
			free(e);
	}
#undef PUT
	if (n)
		out[k < n ? k : n - 1] = 0;
	return k;
}

void csv_put(FILE *f, const char *in)
{
	char small[512];
	size_t need = csv_field(in, small, sizeof(small));
	char *big;

	if (need < sizeof(small)) {
		fputs(small, f);
	} else if ((big = malloc(need + 1))) {
		csv_field(in, big, need + 1);
		fputs(big, f);
		free(big);
	}
}

void csv_put_next(FILE *f, const char *in)
{
	fputc(',', f);
	csv_put(f, in);
}

/* A field's escapes undone in place (kept as it is if it has none, or is
 * not a valid escaped text). */
static void csv_unescape(char *s)
{
	size_t len = strlen(s);
	char *b;

	if (!strchr(s, '\\') || !(b = malloc(len + 1)))
		return;
	if (!bytes_unescape(s, b, len + 1))
		memcpy(s, b, strlen(b) + 1);
	free(b);
}

size_t csv_split(char *line, char **out, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *start = p, *w;
		int quoted = *p == '"', more;
		if (quoted) {
			w = p++;
			while (*p) {
				if (*p == '"' && p[1] != '"') {
					p++;
					break;
				}
				if (*p == '"')
					p++;   /* a doubled quote: one */
				*w++ = *p++;
			}
			while (*p && *p != ',')
				*w++ = *p++;   /* after the closing quote (not RFC 4180): kept */
		} else {
			while (*p && *p != ',')
				p++;
			w = p;
		}
		more = *p == ',';
		if (more)
			p++;
		*w = 0;
		if (quoted && start[0] == '\'')
			memmove(start, start + 1, strlen(start));
		csv_unescape(start);
		if (n < max)
			out[n] = start;
		n++;
		if (!more)
			break;
	}
	return n;
}
