/* The noise guard (bench/measure/noise.h). */
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <hwloc.h>
#include <jansson.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "clock.h"
#include "log.h"
#include "noise.h"

/* ---- the CPUs this process may use ---------------------------------------*/

static int mask_has(const struct cpus *c, int cpu)
{
	return cpu >= 0 && cpu < NOISE_MAX_CPUS && (c->mask[cpu / 8] >> (cpu % 8) & 1);
}

/* "0-3,8" from the mask */
static void mask_list(const struct cpus *c, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (int i = 0; i < NOISE_MAX_CPUS && l + 1 < n; i++) {
		if (!mask_has(c, i))
			continue;
		int j = i;
		while (j + 1 < NOISE_MAX_CPUS && mask_has(c, j + 1))
			j++;
		l += (size_t)snprintf(out + l, n - l, j > i ? "%s%d-%d" : "%s%d", l ? "," : "", i, j);
		i = j;
	}
}

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* ---- where the machine is read (tests may point elsewhere) ----------------*/

static const char *test_env(const char *name, int *any)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return NULL;
	*any = 1;
	return v;
}

static void warn_test_sources(void)
{
	warn_msg("PPBENCH_TEST_* is set: the CPUs and their load are read from test fixtures, "
		 "not from this machine (for tests only)");
}

const struct noise_src *noise_src_system(void)
{
	static pthread_once_t warned = PTHREAD_ONCE_INIT;
	static __thread struct noise_src src;
	int any = 0;
	const char *v;

	src.proc_stat = test_env("PPBENCH_TEST_PROC_STAT", &any);
	src.proc_cgroup = test_env("PPBENCH_TEST_PROC_CGROUP", &any);
	src.cgroup_root = test_env("PPBENCH_TEST_CGROUP_ROOT", &any);
	src.allowed = test_env("PPBENCH_TEST_CPUS_ALLOWED", &any);
	v = test_env("PPBENCH_TEST_CPUS_ONLINE", &any);
	src.online = v ? atoi(v) : 0;
	if (!src.proc_stat)
		src.proc_stat = "/proc/stat";
	if (!src.proc_cgroup)
		src.proc_cgroup = "/proc/self/cgroup";
	if (!src.cgroup_root)
		src.cgroup_root = "/sys/fs/cgroup";
	if (any)
		pthread_once(&warned, warn_test_sources);
	return &src;
}

/* The smallest CPU quota (quota / period) of this process's cgroup and its
 * ancestors (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us), 0 when none. */
static double cgroup_quota(const struct noise_src *src)
{
	char line[4096], path[8448], buf[128];
	double best = 0;
	FILE *f = fopen(src->proc_cgroup, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		int v2 = c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;
		int v1 = !v2 && strstr(c1, "cpu") && (strstr(c1, ":cpu,") || strstr(c1, ",cpu:") ||
						      strstr(c1, ":cpu:") || strstr(c1, "cpuacct"));
		if (!v2 && !v1)
			continue;
		char cg[4096];
		snprintf(cg, sizeof(cg), "%s", c2 + 1);
		for (;;) {
			double q = 0;
			const char *sub = strcmp(cg, "/") ? cg : "";
			if (v2) {
				snprintf(path, sizeof(path), "%s%s/cpu.max", src->cgroup_root, sub);
				long long quota, period;
				if (!read_line(path, buf, sizeof(buf)) &&
				    sscanf(buf, "%lld %lld", &quota, &period) == 2 && period > 0)
					q = (double)quota / (double)period;
			} else {
				char p2[8448];
				long long quota = -1, period = 0;
				snprintf(path, sizeof(path), "%s/cpu,cpuacct%s/cpu.cfs_quota_us",
					 src->cgroup_root, sub);
				snprintf(p2, sizeof(p2), "%s/cpu,cpuacct%s/cpu.cfs_period_us",
					 src->cgroup_root, sub);
				if (!read_line(path, buf, sizeof(buf)))
					quota = atoll(buf);
				if (!read_line(p2, buf, sizeof(buf)))
					period = atoll(buf);
				if (quota > 0 && period > 0)
					q = (double)quota / (double)period;
			}
			/* the tightest limit on the way up holds */
			if (q > 0 && (best == 0 || q < best))
				best = q;
			char *slash = strrchr(cg, '/');
			if (!slash || !strcmp(cg, "/"))
				break;
			if (slash == cg)
				snprintf(cg, sizeof(cg), "/");
			else
				*slash = 0;
		}
	}
	fclose(f);
	return best;
}

/* The affinity mask into c (the allowed CPUs): src's list, else the
 * process's; c->allowed stays 0 when neither can be read. */
static void read_allowed(struct cpus *c, const struct noise_src *src)
{
	if (src->allowed) {
		hwloc_bitmap_t b = hwloc_bitmap_alloc();
		if (b && hwloc_bitmap_list_sscanf(b, src->allowed) == 0 && hwloc_bitmap_weight(b) > 0) {
			int i;
			hwloc_bitmap_foreach_begin(i, b)
				if (i < NOISE_MAX_CPUS) {
					c->mask[i / 8] |= (unsigned char)(1u << (i % 8));
					c->allowed++;
				}
			hwloc_bitmap_foreach_end();
		}
		hwloc_bitmap_free(b);
		return;
	}
	size_t sz = CPU_ALLOC_SIZE(NOISE_MAX_CPUS);
	cpu_set_t *set = CPU_ALLOC(NOISE_MAX_CPUS);
	if (set && sched_getaffinity(0, sz, set) == 0) {
		for (int i = 0; i < NOISE_MAX_CPUS; i++)
			if (CPU_ISSET_S((size_t)i, sz, set)) {
				c->mask[i / 8] |= (unsigned char)(1u << (i % 8));
				c->allowed++;
			}
	}
	if (set)
		CPU_FREE(set);
}

void cpus_read_from(struct cpus *c, const struct noise_src *src)
{
	char buf[64];
	memset(c, 0, sizeof(*c));
	long v = src->online > 0 ? src->online : sysconf(_SC_NPROCESSORS_ONLN);
	c->online = v > 0 ? (int)v : 1;
	v = src->online > 0 ? src->online : sysconf(_SC_NPROCESSORS_CONF);
	c->configured = v > 0 ? (int)v : c->online;

	read_allowed(c, src);
	if (!c->allowed) {
		for (int i = 0; i < c->online && i < NOISE_MAX_CPUS; i++)
			c->mask[i / 8] |= (unsigned char)(1u << (i % 8));
		c->allowed = c->online;
	}
	mask_list(c, c->allowed_list, sizeof(c->allowed_list));
	/* a quota below the allowed CPUs is what the run can use; above
	 * them, the allowed CPUs are */
	c->quota = cgroup_quota(src);
	c->usable = c->allowed;
	if (c->quota > 0 && c->quota < c->usable)
		c->usable = c->quota;
	c->smt = -1;
	if (!read_line("/sys/devices/system/cpu/smt/active", buf, sizeof(buf)))
		c->smt = atoi(buf) != 0;
}

void cpus_read(struct cpus *c)
{
	cpus_read_from(c, noise_src_system());
}

int cpus_usable_int(const struct cpus *c)
{
	int n = (int)floor(c->usable + 1e-9);
	return n < 1 ? 1 : n;
}

void cpus_json(const struct cpus *c, json_t *into)
{
	json_object_set_new(into, "cpus_online", json_integer(c->online));
	json_object_set_new(into, "cpus_configured", json_integer(c->configured));
	json_object_set_new(into, "cpus_allowed", json_integer(c->allowed));
	json_object_set_new(into, "cpus_allowed_list", json_string(c->allowed_list));
	json_object_set_new(into, "cpu_quota", c->quota > 0 ? json_real(c->quota) : json_null());
	json_object_set_new(into, "cpus_usable", json_real(c->usable));
	json_object_set_new(into, "smt_active", c->smt < 0 ? json_null() : json_boolean(c->smt));
}

/* ---- readings ------------------------------------------------------------*/

static double rusage_s(int who)
{
	struct rusage ru;
	if (getrusage(who, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void noise_priority(double *nice, double *group_nice)
{
	char buf[128];
	int g;
	errno = 0;
	int n = getpriority(PRIO_PROCESS, 0);
	*nice = n == -1 && errno ? NAN : n;
	*group_nice = NAN;
	if (!read_line("/proc/sys/kernel/sched_autogroup_enabled", buf, sizeof(buf)) &&
	    !strcmp(buf, "1") && !read_line("/proc/self/autogroup", buf, sizeof(buf)) &&
	    sscanf(buf, "%*s nice %d", &g) == 1)
		*group_nice = g;
}

void noise_read_from(struct noise_snap *s, const struct cpus *c, const struct noise_src *src)
{
	char line[512];
	memset(s, 0, sizeof(*s));
	noise_priority(&s->nice, &s->group_nice);
	s->own_s = rusage_s(RUSAGE_SELF) + rusage_s(RUSAGE_CHILDREN);
	s->load1 = NAN;
	double la[1];
	if (getloadavg(la, 1) == 1)
		s->load1 = la[0];
	FILE *f = fopen(src->proc_stat, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			unsigned long long v[8] = { 0 };
			int cpu;
			if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
				continue;
			if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
				   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5 ||
			    !mask_has(c, cpu))
				continue;
			/* user nice system idle iowait irq softirq steal */
			s->busy += v[0] + v[1] + v[2] + v[5] + v[6];
			s->steal += v[7];
			for (int i = 0; i < 8; i++)
				s->total += v[i];
			s->ok = 1;
		}
		fclose(f);
	}
	s->t_ns = clock_now_ns();
}

void noise_read(struct noise_snap *s, const struct cpus *c)
{
	noise_read_from(s, c, noise_src_system());
}

void noise_between(const struct noise_snap *a, const struct noise_snap *b, const struct cpus *c,
		   struct noise *n)
{
	long hz = sysconf(_SC_CLK_TCK);
	memset(n, 0, sizeof(*n));
	n->wall_s = (double)(b->t_ns - a->t_ns) / 1e9;
	n->load1 = b->load1;
	n->nice = b->nice;
	n->group_nice = b->group_nice;
	n->others_cpu_pct = n->steal_pct = NAN;
	if (!a->ok || !b->ok || hz <= 0 || n->wall_s <= 0 || c->allowed <= 0)
		return;
	double cap = n->wall_s * (double)c->allowed;
	double busy = (double)(b->busy - a->busy) / (double)hz;
	double own = b->own_s - a->own_s;
	double others = busy - own;
	n->others_cpu_pct = others > 0 ? 100 * others / cap : 0;
	if (n->others_cpu_pct > 100)
		n->others_cpu_pct = 100;
	n->steal_pct = 100 * (double)(b->steal - a->steal) / (double)hz / cap;
	n->noisy = n->others_cpu_pct > NOISE_BUSY_PCT || n->steal_pct > NOISE_BUSY_PCT;
}

/* ---- the machine's state ------------------------------------------------*/

void machine_state_read(struct machine_state *m)
{
	char buf[64];
	memset(m, 0, sizeof(*m));
	if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", buf, sizeof(buf)))
		snprintf(m->governor, sizeof(m->governor), "%.31s", buf);
	if (!read_line("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf)))
		snprintf(m->boost, sizeof(m->boost), "%s", atoi(buf) ? "on" : "off");
	else if (!read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf)))
		snprintf(m->boost, sizeof(m->boost), "%s", atoi(buf) ? "off" : "on");
	m->vm = -1;
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d;
		if (__get_cpuid(1, &a, &b, &c, &d)) {
			m->vm = (c >> 31) & 1;
			if (m->vm) {
				unsigned r[4];
				__cpuid(0x40000000, r[0], r[1], r[2], r[3]);
				char v[13];
				memcpy(v, &r[1], 4);
				memcpy(v + 4, &r[2], 4);
				memcpy(v + 8, &r[3], 4);
				v[12] = 0;
				for (int i = 0; i < 12; i++)
					if ((unsigned char)v[i] < 32 || (unsigned char)v[i] > 126)
						v[i] = 0;
				/* "KVMKVMKVM", "Microsoft Hv", "VMwareVMware", "XenVMMXenVMM" */
				const char *name = !strncmp(v, "KVMKVMKVM", 9) ? "KVM" :
						   !strncmp(v, "Microsoft Hv", 12) ? "Hyper-V" :
						   !strncmp(v, "VMwareVMware", 12) ? "VMware" :
						   !strncmp(v, "XenVMMXenVMM", 12) ? "Xen" :
						   !strncmp(v, "TCGTCGTCGTCG", 12) ? "QEMU (TCG)" : v;
				snprintf(m->hypervisor, sizeof(m->hypervisor), "%s", name);
			}
		}
	}
#endif
	if (m->vm < 0 && !read_line("/sys/hypervisor/type", buf, sizeof(buf))) {
		m->vm = 1;
		snprintf(m->hypervisor, sizeof(m->hypervisor), "%.31s", buf);
	}
}

json_t *noise_json(const struct noise *n)
{
	json_t *j = json_object();
	json_object_set_new(j, "noisy", json_boolean(n->noisy));
	json_object_set_new(j, "threshold_pct", json_real(NOISE_BUSY_PCT));
	return j;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *noise_window_json(const struct noise *n)
{
	json_t *j = noise_json(n);
	json_object_set_new(j, "wall_s", real_or_null(n->wall_s));
	json_object_set_new(j, "others_cpu_pct", real_or_null(n->others_cpu_pct));
	json_object_set_new(j, "steal_pct", real_or_null(n->steal_pct));
	json_object_set_new(j, "load_avg_1min", real_or_null(n->load1));
	return j;
}

json_t *noise_study_json(const struct noise *w, size_t n, const char *key, double require_idle,
			 const struct cpus *c)
{
	json_t *j = json_object(), *arr = json_array(), *cj = json_object();
	int noisy = 0;
	for (size_t k = 0; k < n; k++) {
		json_array_append_new(arr, noise_window_json(&w[k]));
		noisy |= w[k].noisy;
	}
	json_object_set_new(j, "noisy", json_boolean(noisy));
	json_object_set_new(j, "threshold_pct", json_real(NOISE_BUSY_PCT));
	json_object_set_new(j, "require_idle_pct", json_real(require_idle));
	json_object_set_new(j, key, arr);
	cpus_json(c, cj);
	json_object_set_new(j, "cpus", cj);
	return j;
}

void noise_warn(const struct noise *n, const char *what)
{
	if (!n->noisy)
		return;
	warn_msg("the machine was busy during %s: other processes took %.0f %% of the CPUs it could use"
	     "%s%.0f %% stolen by the hypervisor (over %.0f %% makes timings unreliable; "
	     "--require-idle waits for quiet)", what, n->others_cpu_pct, isfinite(n->steal_pct) ?
	     ", " : "", isfinite(n->steal_pct) ? n->steal_pct : 0, NOISE_BUSY_PCT);
}

double noise_others_now(const struct cpus *c)
{
	struct noise_snap a, b;
	struct noise n;
	noise_read(&a, c);
	struct timespec ts = { 1, 0 };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	noise_read(&b, c);
	noise_between(&a, &b, c, &n);
	return n.others_cpu_pct;
}

double noise_idle_wait_s(void)
{
	const char *e = getenv("PPBENCH_IDLE_WAIT_S");
	double v = e ? atof(e) : 0;
	return v > 0 && v <= 3600 ? v : NOISE_IDLE_WAIT_S;
}

int noise_require_idle(double pct, double max_s, const struct cpus *c, char *err, size_t errlen)
{
	if (!(pct > 0))
		return 0;
	uint64_t t0 = clock_now_ns(), last = 0;
	double seen = NAN, lo = INFINITY, hi = -INFINITY;
	for (;;) {
		seen = noise_others_now(c);
		if (isnan(seen)) {
			errf(err, errlen, "--require-idle: cannot read /proc/stat to see what else runs");
			return -1;
		}
		if (seen <= pct)
			return 0;
		lo = fmin(lo, seen);
		hi = fmax(hi, seen);
		uint64_t now = clock_now_ns();
		if ((double)(now - t0) / 1e9 >= max_s) {
			errf(err, errlen, "--require-idle=%g: the machine never became quiet in %.0f s: other "
			     "processes used %.0f-%.0f %% of the %s CPU%s this run may use (stop them, or "
			     "raise PCT)", pct, max_s, lo, hi, c->allowed_list, c->allowed == 1 ? "" : "s");
			return -1;
		}
		if (!last || now - last >= 10000000000ull) {
			info("waiting for the machine to be quiet: other processes use %.0f %% of the CPUs "
			     "(%s) this run may use, want <= %g %% (at most %.0f s)", seen, c->allowed_list,
			     pct, max_s);
			last = now;
		}
	}
}

void noise_print_fitness(FILE *f)
{
	struct cpus c;
	struct machine_state m;
	cpus_read(&c);
	machine_state_read(&m);
	double others = noise_others_now(&c);
	fprintf(f, "fit to benchmark?\n");
	fprintf(f, "  CPUs this process may use: %s (%d of %d online)", c.allowed_list, c.allowed,
		c.online);
	if (c.quota > 0)
		fprintf(f, ", CPU quota %.2f", c.quota);
	fprintf(f, "; figures and rules use %g\n", c.usable);
	fprintf(f, "  SMT: %s\n", c.smt < 0 ? "unknown" : c.smt ? "on" : "off");
	fprintf(f, "  frequency governor: %s%s\n", m.governor[0] ? m.governor : "not readable",
		m.governor[0] && strcmp(m.governor, "performance") ?
		" (performance gives steadier timings)" : "");
	fprintf(f, "  turbo/boost: %s\n", m.boost[0] ? m.boost : "not readable");
	fprintf(f, "  virtual machine: %s%s%s\n", m.vm < 0 ? "unknown" : m.vm ? "yes" : "no",
		m.hypervisor[0] ? ", " : "", m.hypervisor);
	if (isnan(others))
		fprintf(f, "  other processes: unknown (/proc/stat not readable)\n");
	else
		fprintf(f, "  other processes now: %.0f %% of those CPUs over 1 s%s\n", others,
			others > NOISE_BUSY_PCT ? " -- BUSY: timings will be noisy (--require-idle waits)" :
						  " (quiet)");
}
