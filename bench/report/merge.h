/* ppbench merge: sweep folders from several machines (Slurm array tasks, or
 * copied by hand) as one table, one set of figures with a line per machine,
 * and a comparison report (bench/report/cmd_merge.c).
 *
 * The merge folder (--out, default results/<UTC time>-merge/) holds
 *   summary.csv      every run of every folder: host, cpu_model,
 *                    cpus_online, cores, machine, sweep, compared,
 *                    in_overlap, then the sweep's columns (bench/report/report.h)
 *   comparison.csv   one row per compared machine: its best configuration,
 *                    images/s per core, CPU per image, knee, cost
 *   figures/         data/ (the CSVs), PNG and SVG (plots/merge_*.gp)
 *   report.md, report.html
 *
 * Machines are compared only on the configurations (workers, batch, GPUs)
 * that every one of them ran, and only when their sweeps used the same
 * dataset, pipeline, ppbench version, run options and page-cache policy;
 * the report says what was left out and why. */
#ifndef PPBENCH_MERGE_H
#define PPBENCH_MERGE_H

#include <stddef.h>

/* USD per million images at `images_per_s` on a machine that costs
 * `usd_per_hour`; NaN when either is not a positive number. */
double merge_cost_per_million(double usd_per_hour, double images_per_s);

/* Parse "NAME=USD_PER_HOUR" (a positive number): the name into name[n],
 * the price into *usd. 0, or -1 with err. */
int merge_parse_price(const char *arg, char *name, size_t n, double *usd, char *err,
		      size_t errlen);

#endif
