/* Conventions every command shares (conventions.h): the exit-code table its
 * --help ends with, and the nearest name for a mistyped option or command. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "conventions.h"
#include "log.h"

void exit_codes_help(FILE *f)
{
	fprintf(f, "\nexit codes (the same for every ppbench command):\n"
		   "  0         done\n"
		   "  1         the work failed: a data error with --on-error fail, a run that could\n"
		   "            not complete, results that could not be written, no run of a sweep\n"
		   "            succeeded, a figure that could not be drawn (the rest is kept; the\n"
		   "            last lines name it)\n"
		   "  2         refused before anything ran: a bad option or argument, an input that\n"
		   "            does not exist or cannot be read, a run that cannot fit in memory\n"
		   "  3         a worker died (named, with its signal; results kept, \"complete\": false)\n"
		   "  128+N     stopped by signal N: 129 SIGHUP, 130 SIGINT, 143 SIGTERM (what\n"
		   "            finished is kept)\n");
}

/* Edits between a and b (insert, delete, replace, swap two neighbours),
 * for names of at most 63 characters. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[64][64];
	if (la > 63 || lb > 63)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *nearest_name(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t bd = (size_t)-1, len = strlen(word);
	/* close enough to be a typo: 1 edit in short words, up to a third */
	size_t limit = len <= 4 ? 1 : len / 3 + 1;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		size_t d = edit_distance(word, names[i]);
		/* a prefix of one name only is as good as a typo */
		if (d > limit && len >= 3 && !strncmp(names[i], word, len))
			d = limit;
		if (d <= limit && d < bd) {
			bd = d;
			best = names[i];
		}
	}
	return best;
}

int input_missing(const char *path)
{
	if (!access(path, F_OK))
		return 0;
	fprintf(stderr, "ppbench: error: cannot open '%s': %s\n", path, strerror(errno));
	return 1;
}

int warn_oversubscribed(const long *workers, size_t n, int cpus, const char *what)
{
	char list[256] = "";
	size_t l = 0, k = 0;
	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		for (size_t j = 0; j < i; j++)
			seen |= workers[j] == workers[i];
		if (seen || workers[i] <= cpus)
			continue;
		if (l + 24 < sizeof(list))
			l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%ld", k ? ", " : "",
					      workers[i]);
		k++;
	}
	if (!k)
		return 0;
	warn_msg("%s%s %s more than the %d CPU%s %s may use: the workers time-slice, so part of "
		 "the out-of-order share, the per-batch spread, the op times and the waits will come "
		 "from the scheduler, not from the protocol and the data (the results mark such runs "
		 "oversubscribed, and the report judges findings 2-3 without them where it can)",
		 n == 1 ? "--workers " : k == 1 ? "worker count " : "worker counts ", list,
		 k == 1 ? "is" : "are", cpus, cpus == 1 ? "" : "s", what);
	return 1;
}
