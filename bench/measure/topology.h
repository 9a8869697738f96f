/* The machine's topology (hwloc) and where workers run (--pin).
 *
 * A plan is computed from any hwloc topology (this machine, a synthetic
 * description, an XML file), so that it can be tested on machines we do not
 * have; binding applies it to the calling thread.
 *
 * Policies (W workers, then the main process, then the pin thread):
 *   none      nobody is bound.
 *   compact   workers take PUs in hwloc's logical order: both hardware
 *             threads of core 0, then core 1, ..., package 0 before 1.
 *   scatter   workers are spread: one PU per package in turn, then per core,
 *             hardware threads of a core last (PUs sorted by their rank
 *             among siblings, from the PU level up).
 *   CPULIST   workers take the listed OS CPU numbers ("0-3,8", as taskset
 *             -c) in the order given.
 * Worker k gets the policy's PU k mod n (n PUs in the order); more workers
 * than PUs is "oversubscribed". The main process and then the pin thread
 * take the next PUs of the order that no worker has (for CPULIST, the first
 * PUs in compact order outside the list); when one PU is left they share
 * it, when none is left they stay unbound. Threads the main process starts
 * after binding itself (the simulated GPU) inherit its placement.
 */
#ifndef PPBENCH_TOPOLOGY_H
#define PPBENCH_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <hwloc.h>
#include "trace.h"

struct json_t;

struct topo {
	hwloc_topology_t h;        /* NULL until loaded */
	int this_system;           /* loaded from this machine: binding works */
	char origin[160];          /* "this machine", "synthetic 'pack:2 ...'", "xml 'path'" */
};

/* Load this machine / a synthetic description (hwloc_topology_set_synthetic,
 * e.g. "pack:2 core:4 pu:2") / an XML export. 0, or -1 with err. */
int topo_load(struct topo *t, char *err, size_t errlen);
int topo_load_synthetic(struct topo *t, const char *desc, char *err, size_t errlen);
int topo_load_xml(struct topo *t, const char *path, char *err, size_t errlen);
void topo_release(struct topo *t);
/* Write the topology as hwloc XML (lstopo -i FILE reads it). 0, or -1. */
int topo_export_xml(const struct topo *t, const char *path, char *err, size_t errlen);

#define TOPO_MAX_CACHES 10

struct topo_cache {
	int level;                 /* 1, 2, 3... */
	char kind[12];             /* "data", "instruction", "unified" */
	uint64_t size_bytes;       /* of one cache */
	int line_bytes;            /* 0: unknown */
	int count;                 /* caches of this kind in the machine */
	int pus_sharing;           /* PUs under one of them */
};

struct topo_summary {
	char cpu_model[128];       /* "" when hwloc does not know it */
	int packages, cores, pus, numa_nodes;
	int smt;                   /* most PUs in one core */
	uint64_t memory_bytes;     /* in NUMA nodes */
	char cpus[128];            /* OS numbers of the PUs, as a list "0-15" */
	int ncaches;
	struct topo_cache cache[TOPO_MAX_CACHES];   /* by level, data before instruction */
};

void topo_summary(const struct topo *t, struct topo_summary *s);
/* {"cpu_model", "packages", "cores", "pus", "numa_nodes", "smt",
 * "memory_bytes", "cpus", "caches": [{"level", "kind", "size_bytes",
 * "line_bytes", "count", "pus_sharing"}]}. New reference. */
struct json_t *topo_json(const struct topo_summary *s);
/* "L2 2 MiB x2" style lines, one per cache kind, into f. */
void topo_print_caches(const struct topo_summary *s, FILE *f, const char *indent);

/* ---- pinning -------------------------------------------------------------*/

enum pin_policy { PIN_NONE = 0, PIN_COMPACT, PIN_SCATTER, PIN_LIST };

#define PIN_LIST_MAX 1024

struct pin_req {
	enum pin_policy policy;
	char text[128];            /* as given */
	int ncpus;                 /* PIN_LIST: OS CPU numbers, in order */
	int cpus[PIN_LIST_MAX];
};

/* "none" | "compact" | "scatter" | a CPU list ("0-3,8,10-11"; ranges
 * ascending, no duplicates). 0, or -1 with err ("--pin: ..."). */
int pin_parse(const char *s, struct pin_req *r, char *err, size_t errlen);

struct pin_slot {
	int pu_os;                 /* OS number of the PU (taskset -c), -1: not bound */
	int pu;                    /* hwloc logical index of the PU, -1 */
	int core;                  /* logical index of its core, -1 */
	int package;               /* logical index of its package, -1 */
	int numa;                  /* logical index of its first NUMA node, -1 */
	int shared;                /* another role of the plan has this PU too */
};

struct pin_plan {
	enum pin_policy policy;
	char text[128];            /* the --pin value */
	int workers;
	int npus;                  /* PUs usable by the policy */
	int oversubscribed;        /* more workers than those PUs */
	struct pin_slot main, pin; /* main process, pin thread */
	struct pin_slot *worker;   /* [workers] */
	hwloc_topology_t h;        /* borrowed from the struct topo, for binding */
	int this_system;
	char note[256];            /* how main and pin thread were placed, when not obvious */
};

/* Compute the plan for `workers` workers. 0, or -1 with err (a CPU of the
 * list is not in the topology, out of memory). Free with pin_plan_free. */
int pin_plan_compute(const struct topo *t, const struct pin_req *r, int workers,
		     struct pin_plan *p, char *err, size_t errlen);
void pin_plan_free(struct pin_plan *p);
/* The slot of a role: ROLE_WORKER (id), ROLE_MAIN, ROLE_PIN; ROLE_GPU
 * shares the main process's. NULL for a worker id out of range. */
const struct pin_slot *pin_slot_of(const struct pin_plan *p, enum proc_role role, int id);
/* Bind the calling thread as the plan says for role/id (hwloc_set_cpubind,
 * HWLOC_CPUBIND_THREAD). 0 bound; 1 the plan leaves it unbound; -1 binding
 * failed, err says why: the caller warns and records pinned = false. */
int pin_apply_self(const struct pin_plan *p, enum proc_role role, int id, char *err,
		   size_t errlen);
/* {"policy", "spec", "workers", "pus", "oversubscribed", "note",
 * "main": slot, "pin_thread": slot, "worker": [slot...]}, a slot being
 * {"cpu" (OS number or null), "pu", "core", "package", "numa", "shared",
 * "pinned"}; pinned from the arrays when given (worker_pinned[workers],
 * 1/0/-1 unknown), else null. New reference. */
struct json_t *pin_plan_json(const struct pin_plan *p, const int *worker_pinned, int main_pinned,
			     int pin_pinned);
/* One line: "workers -> CPUs 0,8,1,9; main -> 2; pin thread -> 10". */
void pin_plan_format(const struct pin_plan *p, char *out, size_t n);

/* The --pin row of a command's option table (bench/util/options.h), for a
 * config struct with a `const char *` field; pin_parse() the value before
 * anything runs. */
#define PIN_OPT(cfg_type, field) \
	{ .name = "pin", .type = OPT_STR, .off = offsetof(cfg_type, field), .def = "none", \
	  .metavar = "none|compact|scatter|CPULIST", \
	  .help = "bind workers to CPUs: compact (fill cores), scatter (spread over packages " \
	  "and cores), or OS CPU numbers as taskset -c; main process and pin thread take " \
	  "the next free CPUs" }

#endif
