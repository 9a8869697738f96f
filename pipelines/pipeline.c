#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pipeline.h"
#include "clock.h"
#include "fsutil.h"

static int passthrough(const struct op_ops *o)
{
	return o->in == PIX_NONE && o->out == PIX_NONE;
}

static const char *kind_name(enum pix_kind k)
{
	switch (k) {
	case PIX_U8_HWC: return "uint8 image";
	case PIX_F32_CHW: return "float32 tensor";
	default: return "file";
	}
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int parse_line(struct pipeline *p, char *line, const char *origin, int lineno,
		      char *err, size_t errlen)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *s = trim(line);
	if (!*s)
		return 0;
	if (p->nops == PIPE_MAX_OPS) {
		snprintf(err, errlen, "%s:%d: more than %d ops", origin, lineno, PIPE_MAX_OPS);
		return -1;
	}
	struct pipe_op *po = &p->op[p->nops];
	snprintf(po->line, sizeof(po->line), "%s", s);
	struct op_args args = { 0 };
	char *save = NULL;
	char *name = strtok_r(s, " \t", &save);
	for (char *t = strtok_r(NULL, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(t, '=');
		if (!eq || eq == t) {
			snprintf(err, errlen, "%s:%d: '%s' is not key=value", origin, lineno, t);
			return -1;
		}
		if (args.n == OP_MAX_ARGS) {
			snprintf(err, errlen, "%s:%d: too many arguments", origin, lineno);
			return -1;
		}
		*eq = 0;
		for (int i = 0; i < args.n; i++)
			if (!strncmp(args.key[i], t, sizeof(args.key[0]) - 1)) {
				snprintf(err, errlen, "%s:%d: %s: argument '%s' given twice", origin,
					 lineno, name, args.key[i]);
				return -1;
			}
		snprintf(args.key[args.n], sizeof(args.key[0]), "%s", t);
		snprintf(args.val[args.n], sizeof(args.val[0]), "%s", eq + 1);
		args.n++;
	}
	const struct op_ops *o = op_find(name);
	if (!o) {
		snprintf(err, errlen, "%s:%d: unknown op '%s' (ppbench ops lists them)", origin, lineno, name);
		return -1;
	}
	if (o->version != OP_ABI_VERSION) {
		snprintf(err, errlen, "%s:%d: op '%s' has ABI version %d, expected %d", origin,
			 lineno, name, o->version, OP_ABI_VERSION);
		return -1;
	}
	if (p->batch_op >= 0) {
		snprintf(err, errlen, "%s:%d: op '%s' after the batch op '%s'", origin, lineno, name,
			 p->op[p->batch_op].ops->name);
		return -1;
	}
	char why[300] = "";
	po->ops = o;
	if (op_configure(o, &args, &po->cfg, why, sizeof(why))) {
		snprintf(err, errlen, "%s:%d: %s", origin, lineno, why);
		return -1;
	}
	if (o->flags & OP_BATCH)
		p->batch_op = p->nops;
	p->nops++;
	return 0;
}

static int check_kinds(const struct pipeline *p, const char *origin, char *err, size_t errlen)
{
	enum pix_kind cur = PIX_NONE;
	for (int i = 0; i < p->nops; i++) {
		const struct op_ops *o = p->op[i].ops;
		if (passthrough(o))
			continue;
		if (o->in != cur) {
			snprintf(err, errlen, "%s: op '%s' takes a %s but gets a %s", origin, o->name,
				 kind_name(o->in), kind_name(cur));
			return -1;
		}
		if (!(o->flags & OP_BATCH))
			cur = o->out;
	}
	return 0;
}

int pipeline_parse(struct pipeline *p, const char *text, const char *origin,
		   char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->batch_op = -1;
	char *copy = strdup(text);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int lineno = 0, rc = 0;
	char *save = NULL;
	/* strtok_r would skip empty lines and so miscount: split by hand */
	char *line = copy;
	(void)save;
	while (line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		lineno++;
		if ((rc = parse_line(p, line, origin, lineno, err, errlen)))
			break;
		line = nl ? nl + 1 : NULL;
	}
	free(copy);
	if (!rc && p->nops == 0) {
		snprintf(err, errlen, "%s: no ops", origin);
		rc = -1;
	}
	if (!rc)
		rc = check_kinds(p, origin, err, errlen);
	if (rc)
		pipeline_release(p);
	return rc;
}

/* A .pipe file's text, read whole: only a regular file of at most
 * PIPELINE_FILE_MAX bytes (--pipeline /dev/zero, a FIFO or a 3 GB file is
 * refused before a byte is read). -1 with the reason in why, errno ENOENT
 * when there is no such file. */
static int read_text(const char *path, char **out, char *why, size_t whylen)
{
	FILE *f = fopen_regular(path, PIPELINE_FILE_MAX, why, whylen);
	if (!f)
		return -1;
	size_t cap = 4096, n = 0;
	char *s = malloc(cap);
	size_t r;
	while (s && (r = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n - 1 == 0) {
			char *t = realloc(s, cap * 2);
			if (!t) {
				free(s);
				s = NULL;
				break;
			}
			s = t;
			cap *= 2;
		}
	}
	int bad = ferror(f), e = errno;
	fclose(f);
	if (!s || bad) {
		snprintf(why, whylen, "%s", s ? strerror(e) : "out of memory");
		free(s);
		errno = EIO;
		return -1;
	}
	s[n] = 0;
	*out = s;
	return 0;
}

/* Folders searched for NAME.pipe, in order. */
static int pipe_dirs(char dirs[][PATH_MAX], int max)
{
	int n = 0;
	const char *env = getenv("PPBENCH_PIPELINES");
	if (env && n < max)
		snprintf(dirs[n++], PATH_MAX, "%s", env);
	char top[PATH_MAX];
	/* the source tree above bench/ppbench, build/<tree>/ppbench, or the
	 * tree an install put the executable in (PREFIX/bin, PREFIX/share);
	 * build/<tree>/pipelines/ holds objects, not .pipe files */
	if (n < max && !find_top_exe("pipelines/imagenet_train.pipe", 3, top, sizeof(top)))
		snprintf(dirs[n++], PATH_MAX, "%.3900s/pipelines", top);
	if (n < max && !find_top_exe("share/ppbench/pipelines", 2, top, sizeof(top)))
		snprintf(dirs[n++], PATH_MAX, "%.3900s/share/ppbench/pipelines", top);
	if (n < max)
		snprintf(dirs[n++], PATH_MAX, "pipelines");
	return n;
}

int pipeline_load(struct pipeline *p, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX], why[256];
	char *text = NULL;
	if (strchr(name, '/') || strstr(name, ".pipe")) {
		snprintf(path, sizeof(path), "%s", name);
		if (read_text(path, &text, why, sizeof(why))) {
			snprintf(err, errlen, "cannot read pipeline '%s': %s", name, why);
			return -1;
		}
	} else {
		char dirs[6][PATH_MAX];
		int nd = pipe_dirs(dirs, 6);
		for (int i = 0; i < nd && !text; i++) {
			snprintf(path, sizeof(path), "%.3800s/%.200s.pipe", dirs[i], name);
			if (read_text(path, &text, why, sizeof(why)) && errno != ENOENT) {
				snprintf(err, errlen, "cannot read pipeline '%s': %s", path, why);
				return -1;
			}
		}
		if (!text) {
			snprintf(err, errlen,
				 "no pipeline named '%s' (looked for %s.pipe in $PPBENCH_PIPELINES and "
				 "the pipelines/ folder; give a path to use another file)", name, name);
			return -1;
		}
	}
	int rc = pipeline_parse(p, text, path, err, errlen);
	free(text);
	if (rc)
		return rc;
	snprintf(p->path, sizeof(p->path), "%.511s", path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(p->name, sizeof(p->name), "%.63s", base);
	char *dot = strstr(p->name, ".pipe");
	if (dot)
		*dot = 0;
	return 0;
}

void pipeline_release(struct pipeline *p)
{
	for (int i = 0; i < p->nops; i++)
		if (p->op[i].ops->release)
			p->op[i].ops->release(p->op[i].cfg);
	p->nops = 0;
}

int pipeline_find(const struct pipeline *p, const char *name)
{
	for (int i = 0; i < p->nops; i++)
		if (!strcmp(p->op[i].ops->name, name))
			return i;
	return -1;
}

void pipeline_truncate(struct pipeline *p, int last)
{
	for (int i = last + 1; i < p->nops; i++)
		if (p->op[i].ops->release)
			p->op[i].ops->release(p->op[i].cfg);
	if (last + 1 < p->nops)
		p->nops = last + 1;
	if (p->batch_op > last)
		p->batch_op = -1;
}

int pipeline_run_sample(const struct pipeline *p, struct sample *s, struct op_time *t)
{
	for (int i = 0; i < p->nops; i++) {
		const struct pipe_op *po = &p->op[i];
		if (i == p->batch_op)
			continue;
		uint64_t t0 = clock_now_ns();
		int rc = po->ops->run(po->cfg, s);
		uint64_t t1 = clock_now_ns();
		t[i].start_ns = t0;
		t[i].dur_ns = t1 - t0;
		if (rc)
			return i + 1;
	}
	return 0;
}
