/* ppbench ls [DIR]: the results folders, newest first, one line each; and
 * the temporary folders that killed runs left behind, removable with
 * --clean. Every figure is read through the metric table (bench/results/metrics.h)
 * and repeats are combined by bench/results/repeats.c, as the report does. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "compare.h"
#include "fsutil.h"
#include "listing.h"
#include "log.h"
#include "options.h"

struct ls_opts {
	int json;
	int clean;
	int dry_run;
	const char *kind;
};

#define O(f) offsetof(struct ls_opts, f)
static const struct opt ls_opts_table[] = {
	{ "json", 0, OPT_BOOL, O(json), "off", NULL, "one JSON array of the folders, for scripts", .choices = NULL },
	{ "kind", 'k', OPT_STR, O(kind), NULL, "KIND",
	  "only this kind: run, sweep, compare, map, merge, strategies, bottleneck, bench, "
	  "reproduce, tmp",
	  .choices = NULL },
	{ "clean", 0, OPT_BOOL, O(clean), "off", NULL,
	  "remove the temporary folders (.<name>.tmp) no running ppbench holds: what a killed run left",
	  .choices = NULL },
	{ "dry-run", 'n', OPT_BOOL, O(dry_run), "off", NULL, "with --clean: say what would be removed", .choices = NULL },
	OPT_END
};
#undef O

static const char usage[] = "ppbench ls [DIR] [options]";
static const char description[] =
	"The results in DIR (default: results), newest first, one line each: the\n"
	"folder, its kind, when it was made (UTC), the dataset, the configuration\n"
	"(W workers, B batch, G GPUs, loader policy), images/s (the median with its\n"
	"spread when repeated; a sweep's best configuration), whether it is complete,\n"
	"and a noise warning (other processes busy, hypervisor steal, more busy\n"
	"threads than CPUs). Folders that hold results (a reproduce or Slurm folder)\n"
	"are listed with their contents; a make reproduce folder also on a line of its\n"
	"own, complete when it has its report. Temporary folders (.<name>.tmp) are shown:\n"
	"\"in progress\" while a ppbench process holds them, else \"stale\" (left by a\n"
	"killed run); --clean removes the stale ones and nothing else.\n"
	"Exit: 0 listed (or cleaned), 1 DIR cannot be read or a folder not removed, 2 usage.";

static int newest_first(const void *x, const void *y)
{
	const struct ls_entry *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? 1 : -1;
	return strcmp(b->name, a->name);
}

static int oldest_first(const void *x, const void *y)
{
	return newest_first(y, x);
}

static void fmt_time(time_t t, char *out, size_t n)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%d %H:%M", &tm);
}

static void fmt_ips(const struct ls_entry *e, char *out, size_t n)
{
	if (!e->ips.n || !isfinite(e->ips.median))
		snprintf(out, n, "-");
	else if (e->ips_as_compare)
		compare_fmt_cell(out, n, &e->ips, NULL);
	else
		stats_format(out, n, &e->ips, "%.1f");
}

static void print_text(const struct ls_list *l, FILE *f)
{
	char t[32], ips[128];

	fprintf(f, "%-40s %-6s %-16s %-12s %-18s %-36s %s\n", "FOLDER", "KIND", "TIME (UTC)",
		"DATASET", "CONFIGURATION", "IMAGES/S", "STATUS");
	for (size_t i = 0; i < l->n; i++) {
		const struct ls_entry *e = &l->e[i];
		fmt_time(e->t, t, sizeof(t));
		fmt_ips(e, ips, sizeof(ips));
		if (e->ips_note[0]) {
			size_t k = strlen(ips);
			snprintf(ips + k, sizeof(ips) - k, " (%s)", e->ips_note);
		}
		/* names and strings of results files: escaped (ESC, newlines) */
		outf(f, "%-40s %-6s %-16s %-12s %-18s %-36s %s%s%s\n", e->name, e->kind, t,
		     e->dataset[0] ? listing_base_name(e->dataset) : "-", e->config[0] ? e->config : "-",
		     ips, e->status, e->noise[0] ? "; noise: " : "", e->noise);
	}
}

static json_t *entry_json(const struct ls_entry *e)
{
	char t[32];
	struct tm tm;
	json_t *o = json_object(), *ips = json_null();

	gmtime_r(&e->t, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (e->ips.n && isfinite(e->ips.median))
		ips = json_pack("{s:f, s:f, s:f, s:I, s:b}", "median", e->ips.median, "lo", e->ips.lo,
				"hi", e->ips.hi, "n", (json_int_t)e->ips.n, "ci", e->ips.has_ci);
	json_object_set_new(o, "folder", json_string(e->name));
	json_object_set_new(o, "path", json_string(e->path));
	json_object_set_new(o, "kind", json_string(e->kind));
	json_object_set_new(o, "time_utc", json_string(t));
	json_object_set_new(o, "tag", json_string(e->tag));
	json_object_set_new(o, "dataset", e->dataset[0] ? json_string(e->dataset) : json_null());
	json_object_set_new(o, "pipeline", e->pipeline[0] ? json_string(e->pipeline) : json_null());
	json_object_set_new(o, "configuration", e->config[0] ? json_string(e->config) : json_null());
	if (e->workers >= 0) {
		json_object_set_new(o, "workers", json_integer(e->workers));
		json_object_set_new(o, "batch_size", json_integer(e->batch_size));
		json_object_set_new(o, "gpus", json_integer(e->gpus));
		json_object_set_new(o, "policy", json_string(e->policy));
	}
	json_object_set_new(o, "images_per_s", ips);
	json_object_set_new(o, "images_per_s_note", json_string(e->ips_note));
	json_object_set_new(o, "complete", e->complete < 0 ? json_null() : json_boolean(e->complete));
	json_object_set_new(o, "status", json_string(e->status));
	json_object_set_new(o, "noise", e->noise[0] ? json_string(e->noise) : json_null());
	if (!strcmp(e->kind, "tmp"))
		json_object_set_new(o, "stale", json_boolean(e->stale));
	return o;
}

/* --clean: remove the stale temporary folders of dir, each named on
 * stdout; never one reached through a symbolic link (nor, should a link
 * be swapped in meanwhile, anything through one: remove_tree_in). */
static int clean(const struct ls_list *l, const char *dir, int dry_run)
{
	size_t n = 0, failed = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct ls_entry *e = &l->e[i];
		if (!e->stale)
			continue;
		if (e->linked) {
			outf(stdout, "not removed (reached through a symbolic link): %s\n", e->path);
			continue;
		}
		n++;
		if (dry_run) {
			outf(stdout, "would remove %s\n", e->path);
		} else if (remove_tree_in(dir, e->name)) {
			error_msg("cannot remove '%s': %s", e->path, errno == ELOOP ?
				  "a folder on its way is a symbolic link (nothing outside the folder "
				  "listed is removed)" : strerror(errno));
			failed++;
		} else {
			outf(stdout, "removed %s\n", e->path);
		}
	}
	if (!n)
		printf("no stale temporary folders\n");
	return failed ? EXIT_FAIL : EXIT_OK;
}

int cmd_ls(int argc, char **argv)
{
	struct ls_opts o;
	struct ls_list l = { 0 };
	int npos = 0, rc = EXIT_OK;

	int pr = opts_prelude(ls_opts_table, &o, argc, argv, &npos, usage, description, NULL);
	if (pr >= 0)
		return pr;
	if (npos > 1) {
		error_msg("one folder at most, got '%s' and '%s' (see ppbench ls --help)", argv[1], argv[2]);
		return EXIT_USAGE;
	}
	static const char *const known[] = { "run", "sweep", "compare", "map", "merge", "strategies",
					     "tmp", "bottleneck", "bench", "reproduce" };
	size_t ki = 0;
	while (o.kind && ki < sizeof(known) / sizeof(known[0]) && strcmp(o.kind, known[ki]))
		ki++;
	if (o.kind && ki == sizeof(known) / sizeof(known[0])) {
		error_msg("--kind: '%s' is not one of run|sweep|compare|map|merge|strategies|bottleneck|"
		      "bench|reproduce|tmp", o.kind);
		return EXIT_USAGE;
	}
	if (o.dry_run && !o.clean) {
		error_msg("--dry-run goes with --clean");
		return EXIT_USAGE;
	}
	const char *dir = npos ? argv[1] : "results";
	struct stat st;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		error_msg("cannot list '%s': %s", dir, errno ? strerror(errno) : "not a folder");
		return EXIT_FAIL;
	}
	int cr = listing_collect(&l, dir, "", 0, 0);
	if (cr == -1) {
		error_msg("cannot read '%s': %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	if (cr)
		error_msg("out of memory: the list is incomplete");
	/* repeats are grouped in time order, then the list is newest first */
	if (l.n) {
		qsort(l.e, l.n, sizeof(*l.e), oldest_first);
		listing_group_repeats(&l);
		qsort(l.e, l.n, sizeof(*l.e), newest_first);
	}
	/* drop what is not shown */
	size_t k = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (l.e[i].absorbed || (o.kind && strcmp(l.e[i].kind, o.kind))) {
			free(l.e[i].row);
			continue;
		}
		l.e[k++] = l.e[i];
	}
	l.n = k;
	if (o.clean) {
		rc = clean(&l, dir, o.dry_run);
	} else if (o.json) {
		json_t *a = json_array();
		for (size_t i = 0; i < l.n; i++)
			json_array_append_new(a, entry_json(&l.e[i]));
		json_dumpf(a, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
		json_decref(a);
	} else if (!l.n) {
		outf(stdout, "no results in %s\n", dir);
	} else {
		print_text(&l, stdout);
	}
	for (size_t i = 0; i < l.n; i++)
		free(l.e[i].row);
	free(l.e);
	return rc;
}
