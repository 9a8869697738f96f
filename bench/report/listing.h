/* The listing of a results folder (listing.c): one entry per results
 * folder (a run, sweep, compare, map, merge, strategies, bottleneck, bench
 * or reproduce folder) and per temporary folder, found down the folders
 * that hold results; what ppbench ls prints (bench/cli/cmd_ls.c). */
#ifndef PPBENCH_LISTING_H
#define PPBENCH_LISTING_H

#include <limits.h>
#include <stddef.h>
#include <time.h>
#include "stats.h"
#include "sweep_row.h"

struct ls_entry {
	char name[512];               /* relative to DIR */
	char path[PATH_MAX];
	char kind[16];
	time_t t;
	char tag[256];
	char dataset[256];            /* its path as recorded */
	char pipeline[128];
	char config[256];
	int workers, batch_size, gpus;     /* a run's (-1: not a run) */
	char policy[16];
	struct stats_summary ips;     /* images/s: n = 0 when not known */
	int ips_as_compare;           /* formatted as compare.md does (compare_fmt_cell) */
	char ips_note[96];            /* "best: w4 b32 g1", "ppbench; PyTorch 812" */
	int complete;                 /* 1, 0, -1 unknown */
	char status[640];
	char noise[256];
	int stale;                    /* a temporary folder no process holds */
	int linked;                   /* reached through a symbolic link: --clean never removes it */
	int absorbed;                 /* a repeat listed with its first */
	/* a run with --repeat: */
	int rep_k, rep_n;
	char rep_tag[256];
	struct sweep_row *row;        /* runs: the figures, for repeats */
};

struct ls_list {
	struct ls_entry *e;
	size_t n, cap;
};

/* The last part of the path p. */
const char *listing_base_name(const char *p);

/* Add the results folders under root to l (names relative to the folder
 * listed, after prefix; depth: how far down; linked: reached through a
 * symbolic link). 0; -1 with errno when root cannot be read; -2 out of
 * memory (the list is incomplete). Free each entry's row, then l->e. */
int listing_collect(struct ls_list *l, const char *root, const char *prefix, int depth, int linked);

/* The repeats of one `run --repeat N` (tag-r1 .. tag-rN, one after the
 * other; l in time order) become one entry with the median and spread;
 * the others are marked absorbed. */
void listing_group_repeats(struct ls_list *l);

#endif
