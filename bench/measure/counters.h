/* Event counters around each op: libpfm4 names, perf_event_open groups.
 *
 * Life cycle (the loader's view):
 *
 *   main, before any worker:  counters_parse(list) -> spec (names resolved
 *                             with libpfm4); counters_probe(spec) opens every
 *                             event once, gives each a status, falls back to
 *                             software events when no hardware event opens,
 *                             and fills spec->note with the one line saying so.
 *   each worker (process or thread), once, after fork or thread start:
 *                             g = counters_open_thread(spec) opens ONE group
 *                             for the calling thread (the events that probed
 *                             fine, in slot order).
 *   around each op:           counters_read(g, &a); t0 = clock_now_ns();
 *                             op; t1 = clock_now_ns(); counters_read(g, &b);
 *                             counters_accumulate(&acc[op], &a, &b, t1 - t0)
 *                             (counters then clock at the start, clock then
 *                             counters at the end: the reads never land in
 *                             the wall time). counted.c does exactly this.
 *   after the run:            accumulators of all workers are summed
 *                             (counters_acc_add), then scaled ONCE
 *                             (counters_values) and exported
 *                             (counters_op_json, counters_csv_*).
 *
 * A read is one read() of a PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING group straight into a struct counter_snap: no
 * allocation, no formatting. Values are scaled by enabled / running when the
 * group was multiplexed; a value that was never counted is NAN (null in
 * JSON, an empty CSV field), never 0.
 *
 * On-CPU time per op: the task-clock event (added to every non-empty spec),
 * or, when perf_event_open is refused, CLOCK_THREAD_CPUTIME_ID read as part
 * of the counter read. Wall minus on-CPU is the time the op was descheduled.
 *
 * Environment (tests, and anyone who wants the degraded path):
 *   PPBENCH_FORCE_NO_PMU=1   hardware events fail to open with ENOENT, as on
 *                            a VM without a PMU
 *   PPBENCH_FORCE_NO_PERF=1  every perf_event_open fails with EACCES, as with
 *                            perf_event_paranoid=3: on-CPU time from the
 *                            thread CPU clock
 */
#ifndef PPBENCH_COUNTERS_H
#define PPBENCH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <perfmon/pfmlib_perf_event.h>   /* libpfm4's copy of the perf ABI */

struct json_t;

#define COUNTERS_MAX 16        /* events in one spec: one group */
#define COUNTERS_CAND 3        /* candidate libpfm4 names per event */

/* The presets, for --help and info. */
#define COUNTERS_PRESETS_SHORT "basic, topdown|stalls, sw, none"
#define COUNTERS_PRESETS_HELP \
	"basic (cycles, instructions, branch-misses, cache-references, cache-misses), " \
	"topdown|stalls (cycles, instructions, front-end and back-end stall cycles), " \
	"sw (task-clock, page-faults, context-switches, cpu-migrations), none"

enum counter_status {
	CNT_OK = 0,           /* counted all the time it was enabled */
	CNT_SCALED,           /* multiplexed: value = raw x enabled / running */
	CNT_NOT_COUNTED,      /* opened, but never running (or no region at all) */
	CNT_NOT_SUPPORTED,    /* does not open here: counter_event.reason says why */
};

/* "ok", "scaled", "not counted", "not supported" */
const char *counter_status_name(enum counter_status s);

enum counter_origin {
	CNT_FROM_USER = 0,    /* named in --counters */
	CNT_FROM_PRESET,      /* a member of a preset named in --counters */
	CNT_FROM_ONCPU,       /* task-clock, added for the on-CPU time */
	CNT_FROM_FALLBACK,    /* software event added because no hardware event opened */
};

struct counter_event {
	char name[48];                      /* label in results ("cycles", "stalls-frontend") */
	int ncand;                          /* candidate names that libpfm4 encodes */
	char cand[COUNTERS_CAND][96];       /* libpfm4 names, tried in order by the probe */
	struct perf_event_attr cand_attr[COUNTERS_CAND];
	int cand_hw[COUNTERS_CAND];         /* 1: needs a hardware PMU */
	int chosen;                         /* candidate that opened, or -1 */
	char pfm_name[160];                 /* libpfm4's full name of the chosen candidate */
	struct perf_event_attr attr;        /* of the chosen candidate (probe) */
	int hw;                             /* chosen (else first) candidate needs a PMU */
	int user_only;                      /* opened with exclude_kernel (paranoid) */
	int is_time;                        /* value is in ns (task-clock, cpu-clock) */
	enum counter_origin origin;
	enum counter_status status;         /* set by counters_probe */
	int err;                            /* errno of the failed open, else 0 */
	char reason[128];                   /* why not supported / not counted; "" if fine */
	int slot;                           /* position in a group read, or -1 */
};

enum oncpu_source {
	ONCPU_NONE = 0,       /* no counters asked for */
	ONCPU_TASK_CLOCK,     /* the task-clock event of the group */
	ONCPU_THREAD_CLOCK,   /* clock_gettime(CLOCK_THREAD_CPUTIME_ID) */
};

struct counter_overhead {
	double read_ns;               /* median cost of one counters_read() */
	double empty_wall_ns;         /* median wall time of an empty region (clock, clock) */
	double empty[COUNTERS_MAX];   /* median raw delta per slot of an empty region:
					 what a region counts of the reads themselves */
	double empty_cpu_ns;          /* median on-CPU time of an empty region */
	uint64_t reads;               /* reads behind read_ns */
};

struct counter_spec {
	char list[256];                     /* --counters as given */
	int n;                              /* events; 0: counters are off */
	struct counter_event ev[COUNTERS_MAX];
	int nslots;                         /* events that open = values in one read */
	int slot_ev[COUNTERS_MAX];          /* event index of each slot */
	enum oncpu_source oncpu;
	int oncpu_slot;                     /* slot of task-clock, or -1 */
	int paranoid;                       /* perf_event_paranoid, or -99 when unreadable */
	int have_pmu;                       /* a hardware event opened (or could: see probe) */
	int forced_no_pmu;                  /* PPBENCH_FORCE_NO_PMU=1 */
	int forced_no_perf;                 /* PPBENCH_FORCE_NO_PERF=1 */
	int fell_back;                      /* software events were added */
	int probed;
	int group_scaled;                   /* the probe's group read was multiplexed */
	char note[512];                     /* the one line about a fallback, or "" */
	int has_overhead;                   /* ov was measured (counters_measure_overhead) */
	struct counter_overhead ov;         /* subtracted from on-CPU times when set */
};

/* Parse a comma-separated list of event names and presets into spec, resolve
 * each name with libpfm4 (pfm_get_os_event_encoding, PFM_OS_PERF_EVENT). ""
 * or "none" or "off": counters off (spec->n == 0). task-clock is added to
 * any non-empty list. Duplicates are dropped. 0, or -1 with err: "unknown
 * event 'cylces' (libpfm4: event not found)", too many events. A preset
 * member that this CPU does not name is kept as "not supported". */
int counters_parse(const char *list, struct counter_spec *spec, char *err, size_t errlen);

/* Open every event once on the calling thread, as one group, in list order;
 * set each status; fall back to software events when hardware events were
 * asked for and none opens; choose the on-CPU source. Never fails: what does
 * not work has a status and a reason. spec->note gets the one line to print
 * when something fell back ("" otherwise). */
void counters_probe(struct counter_spec *spec);

/* Which errno means what, as perf says it: writes the reason ("no hardware
 * PMU (ENOENT)", "perf_event_paranoid=3 (EACCES)", ...). hw: the event needs
 * a PMU; have_pmu: some hardware event opens on this machine; paranoid: the
 * sysctl, or -99 unknown. */
void counters_open_reason(int err, int hw, int have_pmu, int paranoid, char *out, size_t n);

/* Status of a value from its group times (pure): not opened -> not
 * supported; running == 0 (nothing counted, or no region) -> not counted;
 * running < enabled -> scaled; else ok. */
enum counter_status counters_status(int opened, uint64_t enabled_ns, uint64_t running_ns);
/* raw x enabled / running; NAN when running == 0; raw when not multiplexed. */
double counters_scale(uint64_t raw, uint64_t enabled_ns, uint64_t running_ns);

/* ---- per thread ---------------------------------------------------------*/

/* What one read returns: the PERF_FORMAT_GROUP layout (nr, time_enabled,
 * time_running, values), then the thread CPU clock. Plain data. */
struct counter_snap {
	uint64_t nr;                        /* values in the group */
	uint64_t enabled_ns;                /* group's time enabled */
	uint64_t running_ns;                /* group's time running */
	uint64_t val[COUNTERS_MAX];         /* by slot */
	/* the thread's on-CPU time at this read, ns: CLOCK_THREAD_CPUTIME_ID
	 * (ONCPU_THREAD_CLOCK), task-clock's count (ONCPU_TASK_CLOCK: counted
	 * while the group ran), else 0; which one: cpu_src */
	uint64_t cpu_ns;
	uint32_t cpu_src;                   /* enum snap_cpu_src */
	/* the on-CPU time an empty region counts (the ends of the two reads,
	 * counters_measure_overhead; 0: not measured): taken off each region's
	 * on-CPU time before it is classed (struct counter_acc) */
	uint32_t cpu_floor_ns;
};

enum snap_cpu_src {
	SNAP_CPU_NONE = 0,
	SNAP_CPU_THREAD_CLOCK,              /* cpu_ns is the thread CPU clock */
	SNAP_CPU_GROUP,                     /* cpu_ns is a group count (task-clock): scaled
					       with the group's enabled / running times */
};

struct counter_group;                       /* one thread's group: opaque */

/* Open the spec's group for the calling thread (after fork or at thread
 * start; a group counts the thread that opened it). A spec with no slot
 * (perf refused) gives a group that only reads the thread CPU clock. NULL
 * with err if an event that probed fine does not open now, or if the spec
 * is empty or was not probed. */
struct counter_group *counters_open_thread(const struct counter_spec *spec, char *err,
					   size_t errlen);
/* One read() (plus one clock_gettime with the thread clock). No allocation.
 * 0, or -1 (errno set). */
int counters_read(struct counter_group *g, struct counter_snap *s);
void counters_close(struct counter_group *g);

/* ---- accumulation and results -------------------------------------------*/

/* The sums of one op over many regions (one worker, or summed over all).
 * Plain data without pointers: it may live in shared memory. */
struct counter_acc {
	uint64_t regions;                   /* regions accumulated */
	uint64_t failed;                    /* regions dropped: a read failed */
	uint64_t enabled_ns, running_ns;    /* sums of the group's deltas */
	uint64_t raw[COUNTERS_MAX];         /* sums of raw deltas, by slot */
	uint64_t cpu_ns;                    /* sum of the snaps' cpu_ns deltas */
	uint64_t wall_ns;                   /* sum of the regions' wall durations */
	/* Table II's thresholds applied to each region's own on-CPU time
	 * (the snaps' cpu_ns delta, scaled when the group was multiplexed,
	 * less cpu_floor_ns), counted as it is accumulated: no allocation.
	 * oncpu_regions: the regions whose on-CPU time was known. */
	uint64_t oncpu_regions;
	uint64_t oncpu_under_10ms;          /* of them, under COUNTERS_SHORT_NS */
	uint64_t oncpu_under_100us;         /* of them, under COUNTERS_VSHORT_NS */
};

/* Table II's two thresholds (per call: 10 ms, 100 us). */
#define COUNTERS_SHORT_NS 10000000ull
#define COUNTERS_VSHORT_NS 100000ull

/* Add one region. b, a: snaps before and after (b may come from the region
 * before: one read per op boundary). A NULL snap counts as a failed read. */
void counters_accumulate(struct counter_acc *acc, const struct counter_snap *b,
			 const struct counter_snap *a, uint64_t wall_ns);
void counters_acc_add(struct counter_acc *dst, const struct counter_acc *src);

/* A final value: scaled sum, NAN when not counted or not supported. */
struct counter_value {
	double value;
	enum counter_status status;
};

/* Scale once: out[i] for spec->ev[i]. */
void counters_values(const struct counter_spec *spec, const struct counter_acc *acc,
		     struct counter_value *out);

/* Figures derived from the values; NAN where an input is missing. */
struct counter_derived {
	double ipc;                   /* instructions / cycles */
	double branch_mpki;           /* branch-misses per 1000 instructions */
	double cache_mpki;            /* cache-misses per 1000 instructions */
	double cache_miss_pct;        /* cache-misses / cache-references, % */
	double frontend_stall_pct;    /* stalls-frontend / cycles, % */
	double backend_stall_pct;     /* stalls-backend / cycles, % */
	double oncpu_ns;              /* on-CPU time */
	double wall_ns;               /* wall time of the same regions */
	double descheduled_ns;        /* wall - on-CPU: time off the CPU */
	double oncpu_pct;             /* on-CPU / wall, % */
	/* regions whose own on-CPU time was under 10 ms, under 100 us, % of
	 * those whose on-CPU time was known (struct counter_acc); NAN: none */
	double oncpu_under_10ms_pct;
	double oncpu_under_100us_pct;
};

/* Pure: from named values (name[i], val[i], i < n) and the two times. */
void counters_derive(const char *const *names, const struct counter_value *val, int n,
		     double oncpu_ns, double wall_ns, struct counter_derived *d);
/* On-CPU time of an accumulator (task-clock or thread clock), NAN if none. */
double counters_oncpu_ns(const struct counter_spec *spec, const struct counter_acc *acc);
/* Values + derive in one call. */
void counters_derived(const struct counter_spec *spec, const struct counter_acc *acc,
		      struct counter_derived *d);

/* ---- overhead -----------------------------------------------------------*/


/* Measure on the calling thread (opens its own group) and keep the result
 * in spec->ov (spec->has_overhead = 1). 0, or -1 with err. */
int counters_measure_overhead(struct counter_spec *spec, char *err, size_t errlen);

/* ---- export -------------------------------------------------------------*/

/* {"list", "events": [{"name", "libpfm4", "hw", "origin", "status",
 * "reason"}], "fallback" (the note or null), "oncpu_source",
 * "perf_event_paranoid", "forced_no_pmu", "overhead" when measured}.
 * New reference. */
struct json_t *counters_spec_json(const struct counter_spec *spec);
/* One op's raw sums: {"regions", "failed_reads", "events": {name:
 * {"status", "unit", "sum", "per_region", "per_image"}}}; images = 0: no
 * per_image. NAN -> null. New reference. (The figures derived from them,
 * on-CPU time and IPC, are op figures of the metric table, computed once
 * by counters_derived.) */
struct json_t *counters_op_json(const struct counter_spec *spec, const struct counter_acc *acc,
				uint64_t images);
/* ops.csv's raw event columns, appended to a row: header writes
 * ",<event>,..." ("<event>_ns" for a time; no newline); row writes the
 * scaled sums (an empty field for NAN). Nothing when spec->n == 0. */
void counters_csv_header(const struct counter_spec *spec, FILE *f);
void counters_csv_row(const struct counter_spec *spec, const struct counter_acc *acc, FILE *f);

/* ---- options ------------------------------------------------------------*/

#endif
