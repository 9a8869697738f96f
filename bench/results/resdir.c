/* Results folder names (bench/results/resdir.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include "escape.h"
#include "resdir.h"

/* The kinds a name may carry after its time (or, in older names, before it). */
static const char *const kinds[] = {
	"sweep", "compare", "map", "merge", "reproduce", "strategies", "bottleneck", "bench",
};

void results_dir_name(char *out, size_t n, const char *kind, const char *tag)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), RESULTS_STAMP_FMT, &tm);
	snprintf(out, n, "%s%s%s%s%.200s", stamp, kind && *kind ? "-" : "", kind ? kind : "",
		 tag && *tag ? "-" : "", tag ? tag : "");
}

int results_tag_check(const char *tag, char *err, size_t errlen)
{
	char shown[160];
	const char *why = NULL;
	if (!tag)
		return 0;
	for (const unsigned char *s = (const unsigned char *)tag; *s && !why; s++)
		if (*s < 0x20 || *s == 0x7f)
			why = "a control character (ESC, newline, tab...): it is printed on terminals";
	if (!why && strchr(tag, '/'))
		why = "a '/': it names one folder";
	if (!why && tag[0] == '.')
		why = "a '.' first: that names a hidden or temporary folder";
	if (!why)
		return 0;
	bytes_escape(tag, shown, sizeof(shown));
	snprintf(err, errlen, "--tag '%s': it must not hold %s", shown, why);
	return -1;
}

/* "YYYYmmdd-HHMMSS" at s: its time, or -1 */
static time_t parse_stamp(const char *s)
{
	struct tm tm;
	for (int i = 0; i < RESULTS_STAMP_LEN; i++)
		if (i == 8 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return -1;
	if (s[RESULTS_STAMP_LEN] && s[RESULTS_STAMP_LEN] != '-')
		return -1;
	memset(&tm, 0, sizeof(tm));
	if (!strptime(s, RESULTS_STAMP_FMT, &tm))
		return -1;
	return timegm(&tm);
}

/* the kind that s starts with (followed by '-' or the end), or NULL */
static const char *kind_at(const char *s)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t l = strlen(kinds[i]);
		if (!strncmp(s, kinds[i], l) && (s[l] == '-' || !s[l]))
			return kinds[i];
	}
	return NULL;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t l = strlen(suffix);
	return len > l && !memcmp(s + len - l, suffix, l);
}

int results_name_parse(const char *name, struct results_name *out)
{
	char buf[512];
	size_t len = strlen(name);
	const char *p, *k;

	memset(out, 0, sizeof(*out));
	if (name[0] == '.' && ends_with(name, len, ".tmp")) {
		out->tmp = 1;
		name++;
		len -= 5;
	} else if (ends_with(name, len, ".partial")) {
		out->partial = 1;
		len -= 8;
	}
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = 0;
	p = buf;
	k = kind_at(p);
	if (k && p[strlen(k)] == '-' && parse_stamp(p + strlen(k) + 1) != -1) {
		/* older names: <kind>-<UTC>[-tag] */
		out->old_style = 1;
		snprintf(out->kind, sizeof(out->kind), "%s", k);
		p += strlen(k) + 1;
		out->t = parse_stamp(p);
		p += RESULTS_STAMP_LEN;
	} else {
		out->t = parse_stamp(p);
		if (out->t == -1)
			return -1;
		p += RESULTS_STAMP_LEN;
		if (*p == '-' && (k = kind_at(p + 1))) {
			snprintf(out->kind, sizeof(out->kind), "%s", k);
			p += 1 + strlen(k);
		}
	}
	snprintf(out->tag, sizeof(out->tag), "%.*s", (int)sizeof(out->tag) - 1, *p == '-' ? p + 1 : p);
	return 0;
}

int results_dir_hold(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return 0;   /* fd kept open on purpose: the lock lasts as long as the process */
}

int results_dir_held(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_CLOEXEC), rc;
	if (fd < 0)
		return -1;
	if (!flock(fd, LOCK_EX | LOCK_NB)) {
		flock(fd, LOCK_UN);
		rc = 0;
	} else {
		rc = errno == EWOULDBLOCK ? 1 : -1;
	}
	close(fd);
	return rc;
}
