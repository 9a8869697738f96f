/* The sampler against torch 1.13: randperm, and the batches a DataLoader
 * yields with shuffle over several epochs (fixtures from
 * scripts/fixtures_loader.py). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rng.h"
#include "sampler.h"

#define FIX "tests/fixtures/loader/"

/* Lines of a fixture file without its # comments; NULL-terminated. */
static char **read_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open '%s' (run from the repository top)\n", path);
		return NULL;
	}
	size_t n = 0, cap = 64;
	char **v = malloc(cap * sizeof(*v));
	char line[65536];
	while (v && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = 0;
		if (n + 2 > cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				break;
		}
		v[n++] = strdup(line);
	}
	fclose(f);
	if (v)
		v[n] = NULL;
	return v;
}

static void free_lines(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Space-separated integers of s into out (at most max). */
static size_t parse_ints(const char *s, uint64_t *out, size_t max)
{
	size_t n = 0;
	char *end;
	while (*s && n < max) {
		out[n++] = strtoull(s, &end, 10);
		if (end == s)
			break;
		s = end;
		while (*s == ' ')
			s++;
	}
	return n;
}

static void test_randperm(void **state)
{
	(void)state;
	char **lines = read_lines(FIX "randperm.csv");
	assert_non_null(lines);
	int rows = 0;
	for (size_t l = 0; lines[l]; l++) {
		unsigned long long seed;
		size_t n;
		int off = 0;
		assert_int_equal(sscanf(lines[l], "%llu,%zu,%n", &seed, &n, &off), 2);
		uint64_t *want = malloc(n * sizeof(*want)), *got = malloc(n * sizeof(*got));
		assert_int_equal(parse_ints(lines[l] + off, want, n), n);
		struct rng g;
		rng_seed(&g, seed);
		sampler_randperm(got, n, &g);
		for (size_t i = 0; i < n; i++)
			if (got[i] != want[i])
				fail_msg("randperm(%zu) seed %llu: position %zu is %llu, torch has %llu", n,
					 seed, i, (unsigned long long)got[i], (unsigned long long)want[i]);
		free(want);
		free(got);
		rows++;
	}
	assert_true(rows >= 5);
	free_lines(lines);
}

struct sched_case {
	const char *name;
	size_t n, batch;
	int drop_last, epochs;
	uint64_t seed;
	int line;
};

static void check_schedule(const struct sched_case *c, char **lines)
{
	struct schedule s;
	char err[256];
	assert_int_equal(schedule_build(&s, c->n, c->batch, c->epochs, 1, c->drop_last, c->seed, 0,
					err, sizeof(err)), 0);
	size_t seen = 0;
	for (size_t l = 0; lines[l]; l++) {
		char name[64];
		int e, k, off = 0;
		if (sscanf(lines[l], "%63[^,],%d,%d,%n", name, &e, &k, &off) != 3 || strcmp(name, c->name))
			continue;
		uint64_t want[64];
		size_t nw = parse_ints(lines[l] + off, want, 64);
		size_t id = s.epoch_first[e] + (size_t)k;
		assert_true(e < s.epochs);
		assert_true(id < s.epoch_first[e + 1]);
		if (s.b[id].n != nw)
			fail_msg("%s (line %d): epoch %d batch %d has %u samples, torch %zu", c->name,
				 c->line, e, k, s.b[id].n, nw);
		assert_int_equal(s.b[id].epoch, e);
		for (size_t i = 0; i < nw; i++)
			if (s.idx[s.b[id].first + i] != want[i])
				fail_msg("%s (line %d): epoch %d batch %d position %zu is %llu, torch %llu",
					 c->name, c->line, e, k, i,
					 (unsigned long long)s.idx[s.b[id].first + i],
					 (unsigned long long)want[i]);
		seen++;
	}
	if (seen != s.nbatches)
		fail_msg("%s (line %d): %zu batches scheduled, torch yields %zu", c->name, c->line,
			 s.nbatches, seen);
	schedule_free(&s);
}

static void test_schedule_torch(void **state)
{
	(void)state;
	static const struct sched_case cases[] = {
		{ "n10_b3_s7", 10, 3, 0, 3, 7, __LINE__ },
		{ "n10_b3_s99_drop", 10, 3, 1, 2, 99, __LINE__ },
		{ "n23_b4_s0", 23, 4, 0, 2, 0, __LINE__ },
	};
	char **lines = read_lines(FIX "schedule.csv");
	assert_non_null(lines);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_schedule(&cases[i], lines);
	free_lines(lines);
}

static void test_schedule_shape(void **state)
{
	(void)state;
	static const struct {
		size_t n, batch;
		int drop_last, epochs, shuffle;
		uint64_t max_batches;
		size_t nbatches, last_n;
		int epochs_kept, line;
	} rows[] = {
		{ 10, 3, 0, 1, 0, 0, 4, 1, 1, __LINE__ },
		{ 10, 3, 1, 1, 0, 0, 3, 3, 1, __LINE__ },
		{ 10, 5, 0, 2, 1, 0, 4, 5, 2, __LINE__ },
		{ 10, 3, 0, 3, 1, 5, 5, 3, 2, __LINE__ },   /* cut inside epoch 1 */
		{ 10, 3, 0, 3, 0, 4, 4, 1, 1, __LINE__ },   /* cut at an epoch's end */
		{ 1, 64, 0, 1, 1, 0, 1, 1, 1, __LINE__ },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct schedule s;
		char err[256];
		assert_int_equal(schedule_build(&s, rows[r].n, rows[r].batch, rows[r].epochs,
						rows[r].shuffle, rows[r].drop_last, 1,
						rows[r].max_batches, err, sizeof(err)), 0);
		if (s.nbatches != rows[r].nbatches || s.b[s.nbatches - 1].n != rows[r].last_n ||
		    s.epochs != rows[r].epochs_kept)
			fail_msg("line %d: %zu batches (last %u) in %d epochs, expected %zu (last %zu) in %d",
				 rows[r].line, s.nbatches, s.b[s.nbatches - 1].n, s.epochs,
				 rows[r].nbatches, rows[r].last_n, rows[r].epochs_kept);
		assert_int_equal(s.epoch_first[s.epochs], s.nbatches);
		/* without shuffle, each epoch is 0..n-1 in order */
		if (!rows[r].shuffle)
			for (size_t i = 0; i < s.nidx; i++)
				assert_int_equal(s.idx[i], i % rows[r].n);
		schedule_free(&s);
	}
	struct schedule s;
	char err[256];
	assert_int_equal(schedule_build(&s, 3, 4, 1, 1, 1, 0, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fewer than one batch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_randperm),
		cmocka_unit_test(test_schedule_torch),
		cmocka_unit_test(test_schedule_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
