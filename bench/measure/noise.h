/* The noise guard: the CPUs a run may use, what else used them while it
 * measured, and whether the machine is fit to benchmark.
 *
 * CPUs. A process may run on fewer CPUs than the machine has: an affinity
 * mask (taskset, Slurm's --cpus-per-task, --pin), a cgroup cpuset (a
 * container, a Slurm job) or a cgroup CPU quota (docker --cpus). Every figure
 * and rule that depends on a CPU count uses cpus_usable: the CPUs of the
 * affinity mask (already the intersection with the cpuset), or the quota when
 * it is smaller.
 *
 * Noise. Two readings (before and after a measured region) of /proc/stat on
 * the CPUs the run may use (its affinity mask) and of the CPU time of this
 * process and its waited-for children give the CPU time other processes took
 * meanwhile, as a share of those CPUs over the window (others_cpu_pct: the
 * denominator is the allowed CPUs, never the online ones), and the time a
 * hypervisor took from them (steal_pct). A window where either exceeds
 * NOISE_BUSY_PCT is noisy: the run says so in one line and in its JSON, and
 * reports mark the figures it touches.
 *
 * Reading /proc is not done between two clock reads of a measured region:
 * only at its ends. */
#ifndef PPBENCH_NOISE_H
#define PPBENCH_NOISE_H

#include <stdint.h>
#include <stdio.h>

struct json_t;

/* others or steal above this share of the usable CPUs: a noisy window */
#define NOISE_BUSY_PCT 10.0
/* --require-idle without a value: at most this share used by others */
#define NOISE_IDLE_DEFAULT_PCT "10"
/* --require-idle waits at most this long before refusing (the environment
 * variable PPBENCH_IDLE_WAIT_S changes it, for tests) */
#define NOISE_IDLE_WAIT_S 60
double noise_idle_wait_s(void);

#define NOISE_MAX_CPUS 4096

/* The CPUs this process may use. */
struct cpus {
	int online;                 /* CPUs online on the machine */
	int configured;             /* CPUs configured */
	int allowed;                /* in the affinity mask (and the cpuset) */
	char allowed_list[256];     /* "0-3,8" */
	double quota;               /* cgroup cpu.max quota / period (0: none) */
	double usable;              /* allowed, or the quota when smaller */
	int smt;                    /* SMT active: 1, 0, -1 unknown */
	unsigned char mask[NOISE_MAX_CPUS / 8];  /* the allowed CPUs */
};

/* Where the noise guard reads the machine. By default the system's files
 * and calls; a test points them at fixtures, through cpus_read_from and
 * noise_read_from (tests/unit/test_noise.c), or, for a whole command, through
 * these environment variables (for tests only: a command under any of them
 * says so in a warning, and records CPUs and loads the machine may not have):
 *   PPBENCH_TEST_PROC_STAT     a file read instead of /proc/stat
 *   PPBENCH_TEST_PROC_CGROUP   a file read instead of /proc/self/cgroup
 *   PPBENCH_TEST_CGROUP_ROOT   a folder read instead of /sys/fs/cgroup
 *   PPBENCH_TEST_CPUS_ONLINE   the CPUs online (and configured), a number
 *   PPBENCH_TEST_CPUS_ALLOWED  the affinity mask, a CPU list ("0-3,8") */
struct noise_src {
	const char *proc_stat;      /* "/proc/stat" */
	const char *proc_cgroup;    /* "/proc/self/cgroup" */
	const char *cgroup_root;    /* "/sys/fs/cgroup" */
	int online;                 /* > 0: the CPUs online; else sysconf's */
	const char *allowed;        /* a CPU list; NULL: sched_getaffinity's mask */
};
/* The system's sources, with the PPBENCH_TEST_* variables above applied. */
const struct noise_src *noise_src_system(void);

/* Read them (never fails: unknown parts fall back to the online CPUs). */
void cpus_read(struct cpus *c);
void cpus_read_from(struct cpus *c, const struct noise_src *src);
/* usable, rounded down, at least 1: for rules that count whole CPUs */
int cpus_usable_int(const struct cpus *c);
/* {"cpus_online", "cpus_configured", "cpus_allowed", "cpus_allowed_list",
 * "cpu_quota" (null: none), "cpus_usable", "smt_active" (null: unknown)} */
void cpus_json(const struct cpus *c, struct json_t *into);

/* One reading. */
struct noise_snap {
	uint64_t t_ns;              /* clock_now_ns() */
	uint64_t busy, steal, total;   /* /proc/stat ticks over the usable CPUs */
	double own_s;               /* CPU time of this process and its waited-for children */
	double load1;               /* 1-minute load average */
	double nice, group_nice;    /* noise_priority */
	int ok;                     /* /proc/stat was read */
};
void noise_read(struct noise_snap *s, const struct cpus *c);
void noise_read_from(struct noise_snap *s, const struct cpus *c, const struct noise_src *src);

/* The state of the machine that changes timings. */
struct machine_state {
	char governor[32];          /* cpufreq scaling governor of CPU 0 ("" unknown) */
	char boost[32];             /* "on", "off", or "" unknown */
	int vm;                     /* 1 a virtual machine, 0 not, -1 unknown */
	char hypervisor[32];        /* its vendor ("KVM"), "" unknown */
};
void machine_state_read(struct machine_state *m);

/* This process's CPU priority: its nice value, and, when the kernel groups
 * each session's processes for the scheduler (sched_autogroup_enabled), the
 * nice of its session's group, which weighs it against other sessions
 * (NaN: autogroups off or unreadable). */
void noise_priority(double *nice, double *group_nice);

/* What happened between two readings. */
struct noise {
	double wall_s;
	double others_cpu_pct;      /* other processes' CPU time, % of the allowed CPUs x wall
				       (/proc/stat is read on those CPUs only; NaN: unknown) */
	double steal_pct;           /* stolen by the hypervisor, % (NaN: unknown) */
	double load1;               /* load average at the end */
	double nice, group_nice;    /* noise_priority at the end */
	int noisy;                  /* others or steal above NOISE_BUSY_PCT */
};
void noise_between(const struct noise_snap *a, const struct noise_snap *b, const struct cpus *c,
		   struct noise *n);

/* The summary.json "noise" block's keys beside its figures (which are
 * metric-table figures): {"noisy", "threshold_pct"}. New reference. */
struct json_t *noise_json(const struct noise *n);

/* A measured window of a study command (compare, bottleneck, strategies),
 * whole: noise_json's keys plus "wall_s", "others_cpu_pct", "steal_pct",
 * "load_avg_1min" (the run's summary.json keeps those in its metric table;
 * null: unknown). New reference. */
struct json_t *noise_window_json(const struct noise *n);

/* A study command's "noise" block: {"noisy" (any window was), "threshold_pct",
 * "require_idle_pct" (0: not asked), key: [noise_window_json of w[0..n)],
 * "cpus": cpus_json}. New reference. */
struct cpus;
struct json_t *noise_study_json(const struct noise *w, size_t n, const char *key,
				double require_idle, const struct cpus *c);

/* One line on stderr when the window was noisy ("what" names it: "the run",
 * "round 3"); nothing otherwise. */
void noise_warn(const struct noise *n, const char *what);

/* --require-idle: wait, in one-second windows, until other processes use at
 * most pct % of the usable CPUs, for at most max_s seconds, saying so on
 * stderr. 0 when quiet (or pct <= 0: not asked), -1 when it never was (err
 * says how busy it stayed). */
int noise_require_idle(double pct, double max_s, const struct cpus *c, char *err, size_t errlen);

/* What other processes use of the CPUs c now, over one second, %; NaN
 * when /proc/stat cannot be read. */
double noise_others_now(const struct cpus *c);

/* A machine fit to benchmark? Lines for `ppbench info` (pyperf system
 * show's spirit): CPUs usable, governor, boost, VM, what others use now
 * (over a one-second window). */
void noise_print_fitness(FILE *f);

/* The --require-idle option row, for a command's option table (a double
 * field: 0 = do not wait). */
#define NOISE_OPT(cfg_type, field) \
	{ .name = "require-idle", .type = OPT_DOUBLE, .off = offsetof(cfg_type, field), .def = "0", \
	  .metavar = "PCT", .implicit = NOISE_IDLE_DEFAULT_PCT, .lo = 0, .hi = 100, \
	  .help = "before measuring, wait (up to 60 s) until other processes use at most PCT % " \
		  "of the CPUs this run may use, else refuse; --require-idle alone: " \
		  NOISE_IDLE_DEFAULT_PCT " %; 0: do not wait" }

#endif
