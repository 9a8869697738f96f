/* escape.h: text that need not be UTF-8 written losslessly into JSON and
 * one-line messages, and read back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "csv.h"
#include "escape.h"

static void roundtrip(const char *raw, const char *want)
{
	char esc[256], back[256];
	assert_int_equal(bytes_escape(raw, esc, sizeof(esc)), strlen(want));
	assert_string_equal(esc, want);
	assert_int_equal(bytes_unescape(esc, back, sizeof(back)), 0);
	assert_string_equal(back, raw);
	/* through a JSON text and back */
	json_t *v = json_bytes(raw);
	assert_non_null(v);
	char *text = json_dumps(v, JSON_ENCODE_ANY);
	assert_non_null(text);
	json_t *w = json_loads(text, JSON_DECODE_ANY, NULL);
	assert_non_null(w);
	assert_non_null(json_bytes_value(w, back, sizeof(back)));
	assert_string_equal(back, raw);
	free(text);
	json_decref(v);
	json_decref(w);
}

static void test_roundtrip(void **state)
{
	(void)state;
	roundtrip("plain/ascii.JPEG", "plain/ascii.JPEG");
	roundtrip("caf\xc3\xa9/\xe2\x82\xac.jpg", "caf\xc3\xa9/\xe2\x82\xac.jpg");   /* UTF-8 kept */
	roundtrip("caf\xe9.jpg", "caf\\xe9.jpg");                   /* Latin-1 byte */
	roundtrip("a\\b", "a\\\\b");                                /* a backslash doubles */
	roundtrip("a\\xe9", "a\\\\xe9");                            /* not taken for an escape */
	roundtrip("new\nline\x7f", "new\\x0aline\\x7f");            /* one line */
	roundtrip("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80",           /* overlong, surrogate, > U+10FFFF */
		  "\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80");
	roundtrip("\xe2\x82", "\\xe2\\x82");                        /* cut short */
	roundtrip("", "");
}

static void test_refusals(void **state)
{
	(void)state;
	char out[16];
	assert_int_equal(bytes_unescape("a\\", out, sizeof(out)), -1);
	assert_int_equal(bytes_unescape("a\\q", out, sizeof(out)), -1);
	assert_int_equal(bytes_unescape("a\\xg0", out, sizeof(out)), -1);
	assert_int_equal(bytes_unescape("a\\x00", out, sizeof(out)), -1);   /* no NUL inside */
	assert_int_equal(bytes_unescape("0123456789abcdef", out, sizeof(out)), -1);   /* too long */
	assert_int_equal(bytes_unescape("0123456789abcde", out, sizeof(out)), 0);
	/* cut, but terminated, and the length needed reported */
	assert_int_equal(bytes_escape("\xff\xff\xff\xff\xff", out, sizeof(out)), 20);
	assert_int_equal(strlen(out), 15);
	assert_null(json_bytes_value(NULL, out, sizeof(out)));
	json_t *n = json_integer(3);
	assert_null(json_bytes_value(n, out, sizeof(out)));
	json_decref(n);
	n = json_bytes(NULL);
	assert_true(json_is_null(n));
	json_decref(n);
	/* longer than the small buffer */
	char big[2000], back[2000];
	memset(big, 0xff, sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	json_t *v = json_bytes(big);
	assert_int_equal(strlen(json_string_value(v)), 4 * (sizeof(big) - 1));
	assert_non_null(json_bytes_value(v, back, sizeof(back)));
	assert_memory_equal(back, big, sizeof(big));
	json_decref(v);
	/* valid multi-byte characters past the end of out: counted, not looped
	 * on (tests/fuzz/crashers/options) */
	for (size_t i = 0; i + 3 < sizeof(big); i += 3)
		memcpy(big + i, "\xe2\x82\xac", 3);
	big[sizeof(big) - 1 - (sizeof(big) - 1) % 3] = 0;
	assert_int_equal(bytes_escape(big, out, sizeof(out)), strlen(big));
	v = json_bytes(big);
	assert_string_equal(json_string_value(v), big);
	json_decref(v);
}

/* A terminal line: control characters (C0, DEL, C1) and bytes that are not
 * UTF-8 escaped, the rest (backslashes, UTF-8) kept: bytes_escape's output
 * passes unchanged. */
static void test_term_escape(void **state)
{
	char out[128];
	(void)state;
	term_escape("a\x1b[31mb\nc\td\x7f", out, sizeof(out));
	assert_string_equal(out, "a\\x1b[31mb\\x0ac\\x09d\\x7f");
	term_escape("caf\xc3\xa9 \\ \xc2\x9b[2J \x9b", out, sizeof(out));
	assert_string_equal(out, "caf\xc3\xa9 \\ \\xc2\\x9b[2J \\x9b");
	char esc[128];
	bytes_escape("lat\xe9n\x1b", esc, sizeof(esc));
	term_escape(esc, out, sizeof(out));
	assert_string_equal(out, esc);
	assert_int_equal(term_escape("\x1b", out, 3), 4);	/* the length it needs */
	assert_string_equal(out, "\\x");
}

/* A CSV text field: its form, and csv_split gives the text back. */
static void csv_roundtrip(const char *raw, const char *want)
{
	char f[256], line[600], *cell[4];
	assert_int_equal(csv_field(raw, f, sizeof(f)), strlen(want));
	assert_string_equal(f, want);
	/* between two numbers on one line: 3 fields, the middle one raw */
	snprintf(line, sizeof(line), "1,%s,-2.5", f);
	assert_null(strchr(line, '\n'));
	assert_int_equal(csv_split(line, cell, 4), 3);
	assert_string_equal(cell[0], "1");
	assert_string_equal(cell[1], raw);
	assert_string_equal(cell[2], "-2.5");
}

static void test_csv(void **state)
{
	(void)state;
	csv_roundtrip("node-skx", "node-skx");
	csv_roundtrip("", "");
	csv_roundtrip("a,b", "\"a,b\"");                       /* a comma: quoted */
	csv_roundtrip("say \"hi\"", "\"say \"\"hi\"\"\"");     /* a quote: doubled, quoted */
	csv_roundtrip("a,=2+3", "\"a,=2+3\"");                 /* issue 21: one field */
	csv_roundtrip("=2+3", "\"'=2+3\"");                    /* formulas neutralised */
	csv_roundtrip("+1", "\"'+1\"");
	csv_roundtrip("-1+2", "\"'-1+2\"");
	csv_roundtrip("@SUM(A1)", "\"'@SUM(A1)\"");
	csv_roundtrip("=HYPERLINK(\"x\",\"y\")", "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"");
	csv_roundtrip("'quoted", "\"''quoted\"");              /* a leading ' kept */
	csv_roundtrip("it's", "it's");
	csv_roundtrip("a\nb\r\n", "a\\x0ab\\x0d\\x0a");          /* one line */
	csv_roundtrip("\n=1", "\\x0a=1");
	csv_roundtrip("caf\xe9", "caf\\xe9");
	csv_roundtrip("a\\b", "a\\\\b");
	csv_roundtrip(" lead", "\" lead\"");
	csv_roundtrip("trail ", "\"trail \"");
	/* cut short, terminated, the length needed returned */
	char small[4];
	assert_int_equal(csv_field("=abc", small, sizeof(small)), 7);
	assert_string_equal(small, "\"'=");
	/* a hand-written line: empty fields, an unterminated quote, text
	 * after a closing quote, more fields than room */
	char line[] = ",\"x\"y,,\"open", *cell[3];
	assert_int_equal(csv_split(line, cell, 3), 4);
	assert_string_equal(cell[0], "");
	assert_string_equal(cell[1], "xy");
	assert_string_equal(cell[2], "");
	char bad[] = "a\\q,\\x00", *c2[2];      /* not valid escapes: kept as they are */
	assert_int_equal(csv_split(bad, c2, 2), 2);
	assert_string_equal(c2[0], "a\\q");
	assert_string_equal(c2[1], "\\x00");
	/* written to a file */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	csv_put(f, "=x");
	csv_put_next(f, "y,z");
	fclose(f);
	assert_string_equal(buf, "\"'=x\",\"y,z\"");
	free(buf);
}

/* ppbench's own CSV reader (bench/results/csv.c) reads what csv_put writes:
 * the columns stay in place and every text comes back. */
static void test_csv_table(void **state)
{
	static const char *const text[] = { "a,=2+3", "say \"hi\"", "=cmd", "line\nbreak", "'x",
					    "plain", "" };
	char path[] = "/tmp/ppbench-test-csv-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct table t;
	(void)state;
	assert_non_null(f);
	fputs("# a comment\n", f);
	csv_put(f, "name,with comma");
	fputs(",n\n", f);
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		csv_put(f, text[i]);
		fprintf(f, ",%zu\n", i);
	}
	fclose(f);
	assert_int_equal(table_read(&t, path, NULL, 0), 0);
	unlink(path);
	assert_int_equal(t.ncols, 2);
	assert_int_equal(table_col(&t, "name,with comma"), 0);
	assert_int_equal(t.nrows, sizeof(text) / sizeof(text[0]));
	for (size_t i = 0; i < t.nrows; i++) {
		assert_string_equal(table_str(&t, i, 0), text[i]);
		assert_true(table_num(&t, i, table_col(&t, "n")) == (double)i);
	}
	table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_term_escape),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
