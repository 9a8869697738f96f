#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <jansson.h>
#include <perfmon/pfmlib_perf_event.h>
#include "clock.h"
#include "counters.h"
#include "escape.h"
#include "stats.h"

struct preset_member {
	const char *name;
	const char *cand[COUNTERS_CAND];
};

struct preset {
	const char *name;
	const struct preset_member *m;
};

static const struct preset_member basic_m[] = {
	{ "cycles", { "cycles" } },
	{ "instructions", { "instructions" } },
	{ "branch-misses", { "branch-misses" } },
	{ "cache-references", { "cache-references" } },
	{ "cache-misses", { "cache-misses" } },
	{ NULL, { NULL } },
};

/* The generic perf stall events exist on AMD and some ARM cores; Intel
 * cores leave them unmapped (ENOENT) but name close equivalents in libpfm4. */
static const struct preset_member stalls_m[] = {
	{ "cycles", { "cycles" } },
	{ "instructions", { "instructions" } },
	{ "stalls-frontend", { "stalled-cycles-frontend",
			       "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE" } },
	{ "stalls-backend", { "stalled-cycles-backend", "CYCLE_ACTIVITY:STALLS_TOTAL",
			      "RESOURCE_STALLS:ANY" } },
	{ NULL, { NULL } },
};

static const struct preset_member sw_m[] = {
	{ "task-clock", { "task-clock" } },
	{ "page-faults", { "page-faults" } },
	{ "context-switches", { "context-switches" } },
	{ "cpu-migrations", { "cpu-migrations" } },
	{ NULL, { NULL } },
};

static const struct preset presets[] = {
	{ "basic", basic_m },
	{ "topdown", stalls_m },
	{ "stalls", stalls_m },
	{ "sw", sw_m },
};

const char *counter_status_name(enum counter_status s)
{
	switch (s) {
	case CNT_OK: return "ok";
	case CNT_SCALED: return "scaled";
	case CNT_NOT_COUNTED: return "not counted";
	case CNT_NOT_SUPPORTED: return "not supported";
	}
	return "?";
}

static const char *origin_name(enum counter_origin o)
{
	switch (o) {
	case CNT_FROM_USER: return "user";
	case CNT_FROM_PRESET: return "preset";
	case CNT_FROM_ONCPU: return "oncpu";
	case CNT_FROM_FALLBACK: return "fallback";
	}
	return "?";
}

static const char *oncpu_name(enum oncpu_source s)
{
	switch (s) {
	case ONCPU_NONE: return "none";
	case ONCPU_TASK_CLOCK: return "task-clock";
	case ONCPU_THREAD_CLOCK: return "thread-cpu-clock";
	}
	return "?";
}

/* ---- libpfm4 -------------------------------------------------------------*/

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_rc;

static void pfm_init_once(void)
{
	pfm_rc = pfm_initialize();
}

static int is_hw_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW ||
	       type >= PERF_TYPE_MAX;
}

/* 0 and attr/fstr filled, or a libpfm4 error code. */
static int pfm_encode(const char *name, struct perf_event_attr *attr, char *fstr, size_t n)
{
	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_rc != PFM_SUCCESS)
		return pfm_rc;
	char *full = NULL;
	pfm_perf_encode_arg_t arg;
	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.fstr = &full;
	arg.size = sizeof(arg);
	int rc = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (rc == PFM_SUCCESS)
		snprintf(fstr, n, "%s", full ? full : name);
	free(full);
	return rc;
}

/* ---- parsing -------------------------------------------------------------*/

static int find_event(const struct counter_spec *spec, const char *name)
{
	for (int i = 0; i < spec->n; i++)
		if (!strcmp(spec->ev[i].name, name))
			return i;
	return -1;
}

/* Add an event with its candidates; those libpfm4 does not know are
 * dropped (the event then has no candidate: not supported). 1 added, 0
 * duplicate, -1 full. */
static int add_event(struct counter_spec *spec, const char *name, const char *const *cand,
		     int ncand, enum counter_origin origin, char *why, size_t whylen)
{
	if (find_event(spec, name) >= 0)
		return 0;
	if (spec->n == COUNTERS_MAX)
		return -1;
	struct counter_event *e = &spec->ev[spec->n];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->origin = origin;
	e->chosen = -1;
	e->slot = -1;
	if (why && whylen)
		why[0] = 0;
	for (int c = 0; c < ncand && cand[c]; c++) {
		char full[160];
		struct perf_event_attr a;
		int rc = pfm_encode(cand[c], &a, full, sizeof(full));
		if (rc != PFM_SUCCESS) {
			if (why && whylen && !why[0])
				snprintf(why, whylen, "libpfm4: %s", pfm_strerror(rc));
			continue;
		}
		int k = e->ncand++;
		snprintf(e->cand[k], sizeof(e->cand[k]), "%s", cand[c]);
		e->cand_attr[k] = a;
		e->cand_hw[k] = is_hw_type(a.type);
	}
	if (e->ncand) {
		e->attr = e->cand_attr[0];
		e->hw = e->cand_hw[0];
		e->is_time = e->attr.type == PERF_TYPE_SOFTWARE &&
			     (e->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
			      e->attr.config == PERF_COUNT_SW_CPU_CLOCK);
	} else {
		e->status = CNT_NOT_SUPPORTED;
		snprintf(e->reason, sizeof(e->reason), "no such event on this CPU (%s)",
			 why && why[0] ? why : "libpfm4: event not found");
	}
	spec->n++;
	return 1;
}

static const struct preset *find_preset(const char *name)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

int counters_parse(const char *list, struct counter_spec *spec, char *err, size_t errlen)
{
	memset(spec, 0, sizeof(*spec));
	spec->oncpu_slot = -1;
	spec->paranoid = -99;
	snprintf(spec->list, sizeof(spec->list), "%s", list ? list : "");
	if (!list)
		return 0;
	char buf[256];
	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, "--counters: the list is longer than %zu characters",
			 sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	int off = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		if (!strcmp(t, "none") || !strcmp(t, "off")) {
			off = 1;
			continue;
		}
		const struct preset *p = find_preset(t);
		int rc;
		if (p) {
			for (const struct preset_member *m = p->m; m->name; m++) {
				rc = add_event(spec, m->name, m->cand, COUNTERS_CAND, CNT_FROM_PRESET,
					       NULL, 0);
				if (rc < 0)
					goto full;
			}
			continue;
		}
		const char *cand[1] = { t };
		char why[128];
		if (find_event(spec, t) >= 0)
			continue;
		rc = add_event(spec, t, cand, 1, CNT_FROM_USER, why, sizeof(why));
		if (rc < 0)
			goto full;
		if (!spec->ev[spec->n - 1].ncand) {
			snprintf(err, errlen, "--counters: unknown event '%s' (%s; presets: basic, "
				 "topdown, stalls, sw, none)", t, why);
			return -1;
		}
	}
	if (off && spec->n) {
		snprintf(err, errlen, "--counters: 'none' cannot be combined with events");
		return -1;
	}
	if (spec->n) {
		const char *tc[1] = { "task-clock" };
		if (add_event(spec, "task-clock", tc, 1, CNT_FROM_ONCPU, NULL, 0) < 0)
			goto full;
	}
	return 0;
full:
	snprintf(err, errlen, "--counters: more than %d events (task-clock included)", COUNTERS_MAX);
	return -1;
}

/* ---- opening -------------------------------------------------------------*/

static int env_set(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -99;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -99;
		fclose(f);
	}
	return v;
}

static const char *errno_name(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case ENOSYS: return "ENOSYS";
	case EMFILE: return "EMFILE";
	case EBUSY: return "EBUSY";
	case E2BIG: return "E2BIG";
	case ENOSPC: return "ENOSPC";
	}
	return NULL;
}

void counters_open_reason(int err, int hw, int have_pmu, int paranoid, char *out, size_t n)
{
	const char *en = errno_name(err);
	char ebuf[32];
	if (!en) {
		snprintf(ebuf, sizeof(ebuf), "errno %d", err);
		en = ebuf;
	}
	switch (err) {
	case ENOENT:
		if (hw && !have_pmu)
			snprintf(out, n, "no hardware PMU (%s)", en);
		else if (hw)
			snprintf(out, n, "not supported by this CPU's PMU (%s)", en);
		else
			snprintf(out, n, "not supported by this kernel (%s)", en);
		break;
	case EACCES:
	case EPERM:
		if (paranoid != -99)
			snprintf(out, n, "perf_event_paranoid=%d (%s)", paranoid, en);
		else
			snprintf(out, n, "permission denied (%s)", en);
		break;
	case EOPNOTSUPP:
		snprintf(out, n, "not supported with these settings (%s)", en);
		break;
	case ENODEV:
		snprintf(out, n, "no such PMU (%s)", en);
		break;
	case EINVAL:
		if (hw)
			snprintf(out, n, "invalid for this PMU, or the group does not fit its counters (%s)", en);
		else
			snprintf(out, n, "invalid event (%s)", en);
		break;
	case ENOSYS:
		snprintf(out, n, "perf_event_open is not available (%s)", en);
		break;
	case EMFILE:
		snprintf(out, n, "too many open files (%s)", en);
		break;
	case EBUSY:
		snprintf(out, n, "the PMU is held by another user (%s)", en);
		break;
	case ENOSPC:
		snprintf(out, n, "no free counter (%s)", en);
		break;
	default:
		snprintf(out, n, "%s (%s)", strerror(err), en);
		break;
	}
}

enum counter_status counters_status(int opened, uint64_t enabled_ns, uint64_t running_ns)
{
	if (!opened)
		return CNT_NOT_SUPPORTED;
	if (running_ns == 0)
		return CNT_NOT_COUNTED;
	if (running_ns < enabled_ns)
		return CNT_SCALED;
	return CNT_OK;
}

double counters_scale(uint64_t raw, uint64_t enabled_ns, uint64_t running_ns)
{
	if (running_ns == 0)
		return NAN;
	if (running_ns >= enabled_ns)
		return (double)raw;
	return (double)((long double)raw * enabled_ns / running_ns);
}

struct open_env {
	int no_pmu, no_perf;
};

static int sys_perf_event_open(struct perf_event_attr *a, int group, const struct open_env *env)
{
	if (env->no_perf) {
		errno = EACCES;
		return -1;
	}
	if (env->no_pmu && is_hw_type(a->type)) {
		errno = ENOENT;
		return -1;
	}
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* Open one event for the calling thread into group (-1: as leader). When
 * counting the kernel is refused, retry user space only (as perf does). */
static int open_event(struct perf_event_attr *a, int group, const struct open_env *env,
		      int *user_only)
{
	a->size = sizeof(*a);
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->disabled = 0;
	a->inherit = 0;
	int fd = sys_perf_event_open(a, group, env);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
		int e = errno;
		struct perf_event_attr u = *a;
		u.exclude_kernel = 1;
		u.exclude_hv = 1;
		fd = sys_perf_event_open(&u, group, env);
		if (fd >= 0) {
			*a = u;
			*user_only = 1;
		} else {
			errno = e;
		}
	}
	return fd;
}

static void probe_have_pmu(struct counter_spec *spec, const struct open_env *env)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int u = 0;
	int fd = open_event(&a, -1, env, &u);
	if (fd >= 0) {
		spec->have_pmu = 1;
		close(fd);
	} else {
		/* refused for permission: a PMU may well be there */
		spec->have_pmu = errno != ENOENT && errno != ENODEV && errno != EOPNOTSUPP;
	}
}

static void burn(void)
{
	volatile uint64_t x = 0;
	for (int i = 0; i < 200000; i++)
		x += (uint64_t)i * 7;
}

/* Probe events [from, spec->n) into the group led by *leader. */
static void probe_range(struct counter_spec *spec, int from, int *fds, int *leader,
			const struct open_env *env)
{
	for (int i = from; i < spec->n; i++) {
		struct counter_event *e = &spec->ev[i];
		if (!e->ncand)
			continue;
		int first_err = 0, first_hw = e->cand_hw[0];
		for (int c = 0; c < e->ncand; c++) {
			struct perf_event_attr a = e->cand_attr[c];
			int u = 0;
			int fd = open_event(&a, *leader, env, &u);
			if (fd < 0) {
				if (!first_err)
					first_err = errno;
				continue;
			}
			e->chosen = c;
			e->attr = a;
			e->hw = e->cand_hw[c];
			e->user_only = u;
			e->slot = spec->nslots;
			spec->slot_ev[spec->nslots] = i;
			fds[spec->nslots++] = fd;
			if (*leader < 0)
				*leader = fd;
			break;
		}
		if (e->chosen < 0) {
			char full[160];
			struct perf_event_attr a;
			e->status = CNT_NOT_SUPPORTED;
			e->err = first_err;
			e->hw = first_hw;
			counters_open_reason(first_err, first_hw, spec->have_pmu, spec->paranoid,
					     e->reason, sizeof(e->reason));
			if (!pfm_encode(e->cand[0], &a, full, sizeof(full)))
				snprintf(e->pfm_name, sizeof(e->pfm_name), "%s", full);
		} else {
			struct perf_event_attr a;
			char full[160];
			if (!pfm_encode(e->cand[e->chosen], &a, full, sizeof(full)))
				snprintf(e->pfm_name, sizeof(e->pfm_name), "%s", full);
			e->status = CNT_OK;
			if (e->user_only)
				snprintf(e->reason, sizeof(e->reason), "user space only (perf_event_paranoid=%d)",
					 spec->paranoid);
		}
	}
}

void counters_probe(struct counter_spec *spec)
{
	struct open_env env = {
		.no_pmu = env_set("PPBENCH_FORCE_NO_PMU"),
		.no_perf = env_set("PPBENCH_FORCE_NO_PERF"),
	};
	int fds[COUNTERS_MAX], leader = -1;
	spec->forced_no_pmu = env.no_pmu;
	spec->forced_no_perf = env.no_perf;
	spec->paranoid = read_paranoid();
	spec->nslots = 0;
	spec->note[0] = 0;
	spec->probed = 1;
	if (!spec->n) {
		spec->oncpu = ONCPU_NONE;
		return;
	}
	probe_have_pmu(spec, &env);
	probe_range(spec, 0, fds, &leader, &env);

	/* hardware events asked for, none opens: count software events */
	int hw_asked = 0, hw_open = 0, first_hw = -1;
	for (int i = 0; i < spec->n; i++) {
		const struct counter_event *e = &spec->ev[i];
		if (!e->hw)
			continue;
		hw_asked++;
		if (e->slot >= 0)
			hw_open++;
		else if (first_hw < 0 && e->err)
			first_hw = i;
	}
	if (hw_asked && !hw_open && spec->nslots) {
		int before = spec->n;
		for (const struct preset_member *m = sw_m; m->name; m++)
			add_event(spec, m->name, m->cand, COUNTERS_CAND, CNT_FROM_FALLBACK, NULL, 0);
		probe_range(spec, before, fds, &leader, &env);
		char names[256] = "";
		size_t len = 0;
		for (int s = 0; s < spec->nslots; s++) {
			const struct counter_event *e = &spec->ev[spec->slot_ev[s]];
			if (!e->hw && len < sizeof(names))
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
							len ? ", " : "", e->name);
		}
		spec->fell_back = 1;
		snprintf(spec->note, sizeof(spec->note),
			 "counters: no hardware event opens here (%s: %s); counting software events instead: %s",
			 first_hw >= 0 ? spec->ev[first_hw].name : "hardware events",
			 first_hw >= 0 ? spec->ev[first_hw].reason : "not supported", names);
	}

	if (spec->nslots) {
		struct counter_snap s;
		size_t want = (3 + (size_t)spec->nslots) * sizeof(uint64_t);
		burn();
		ssize_t r = read(leader, &s, want);
		if (r != (ssize_t)want || s.running_ns == 0) {
			for (int k = 0; k < spec->nslots; k++) {
				struct counter_event *e = &spec->ev[spec->slot_ev[k]];
				e->status = CNT_NOT_COUNTED;
				snprintf(e->reason, sizeof(e->reason), "%s",
					 r != (ssize_t)want ? "the group cannot be read" :
					 "the group never ran (more events than the PMU has counters?)");
			}
		} else if (s.running_ns < s.enabled_ns) {
			spec->group_scaled = 1;
			for (int k = 0; k < spec->nslots; k++) {
				struct counter_event *e = &spec->ev[spec->slot_ev[k]];
				e->status = CNT_SCALED;
				snprintf(e->reason, sizeof(e->reason),
					 "multiplexed: running %.0f%% of the time",
					 100.0 * (double)s.running_ns / (double)s.enabled_ns);
			}
		}
		for (int k = 0; k < spec->nslots; k++)
			close(fds[k]);
	}

	spec->oncpu = ONCPU_THREAD_CLOCK;
	spec->oncpu_slot = -1;
	int tc = find_event(spec, "task-clock");
	if (tc >= 0 && spec->ev[tc].slot >= 0 && spec->ev[tc].status != CNT_NOT_COUNTED) {
		spec->oncpu = ONCPU_TASK_CLOCK;
		spec->oncpu_slot = spec->ev[tc].slot;
	}
	if (!spec->nslots) {
		const struct counter_event *e = tc >= 0 ? &spec->ev[tc] : &spec->ev[0];
		snprintf(spec->note, sizeof(spec->note),
			 "counters: perf_event_open refused (%s); on-CPU time from the thread CPU clock only",
			 e->reason[0] ? e->reason : "no event opens");
	}
}

/* ---- per thread ----------------------------------------------------------*/

struct counter_group {
	int nfd;
	int fds[COUNTERS_MAX];
	size_t rbytes;
	int thread_clock;
	int oncpu_slot;                 /* task-clock's slot, or -1 */
	uint32_t cpu_floor_ns;          /* counter_snap.cpu_floor_ns */
};

struct counter_group *counters_open_thread(const struct counter_spec *spec, char *err,
					   size_t errlen)
{
	if (!spec->probed || !spec->n) {
		snprintf(err, errlen, "counters: %s", spec->n ? "the events were not probed" :
			 "no counters asked for");
		return NULL;
	}
	struct counter_group *g = calloc(1, sizeof(*g));
	if (!g) {
		snprintf(err, errlen, "counters: out of memory");
		return NULL;
	}
	struct open_env env = { spec->forced_no_pmu, spec->forced_no_perf };
	int leader = -1;
	for (int k = 0; k < spec->nslots; k++) {
		const struct counter_event *e = &spec->ev[spec->slot_ev[k]];
		struct perf_event_attr a = e->attr;
		int u = 0;
		int fd = open_event(&a, leader, &env, &u);
		if (fd < 0) {
			char why[128];
			counters_open_reason(errno, e->hw, spec->have_pmu, spec->paranoid, why, sizeof(why));
			snprintf(err, errlen, "cannot open counter '%s' in this thread: %s", e->name, why);
			counters_close(g);
			return NULL;
		}
		g->fds[g->nfd++] = fd;
		if (leader < 0)
			leader = fd;
	}
	g->rbytes = (3 + (size_t)g->nfd) * sizeof(uint64_t);
	g->thread_clock = spec->oncpu == ONCPU_THREAD_CLOCK;
	g->oncpu_slot = spec->oncpu == ONCPU_TASK_CLOCK && spec->oncpu_slot < g->nfd ?
			spec->oncpu_slot : -1;
	if (spec->has_overhead) {
		double floor = spec->ov.empty_cpu_ns - spec->ov.empty_wall_ns;
		g->cpu_floor_ns = floor > 0 && floor < 1e9 ? (uint32_t)floor : 0;
	}
	return g;
}

int counters_read(struct counter_group *g, struct counter_snap *s)
{
	if (g->nfd) {
		ssize_t r = read(g->fds[0], s, g->rbytes);
		if (r != (ssize_t)g->rbytes) {
			if (r >= 0)
				errno = EIO;
			return -1;
		}
	} else {
		s->nr = 0;
		s->enabled_ns = s->running_ns = 0;
	}
	if (g->thread_clock) {
		struct timespec ts;
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
			return -1;
		s->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		s->cpu_src = SNAP_CPU_THREAD_CLOCK;
	} else if (g->oncpu_slot >= 0) {
		s->cpu_ns = s->val[g->oncpu_slot];
		s->cpu_src = SNAP_CPU_GROUP;
	} else {
		s->cpu_ns = 0;
		s->cpu_src = SNAP_CPU_NONE;
	}
	s->cpu_floor_ns = g->cpu_floor_ns;
	return 0;
}

void counters_close(struct counter_group *g)
{
	if (!g)
		return;
	for (int k = g->nfd - 1; k >= 0; k--)
		close(g->fds[k]);
	free(g);
}

/* ---- accumulation --------------------------------------------------------*/

void counters_accumulate(struct counter_acc *acc, const struct counter_snap *b,
			 const struct counter_snap *a, uint64_t wall_ns)
{
	if (!a || !b || a->nr != b->nr || a->nr > COUNTERS_MAX || a->enabled_ns < b->enabled_ns ||
	    a->running_ns < b->running_ns || a->cpu_ns < b->cpu_ns) {
		acc->failed++;
		return;
	}
	acc->regions++;
	acc->wall_ns += wall_ns;
	acc->enabled_ns += a->enabled_ns - b->enabled_ns;
	acc->running_ns += a->running_ns - b->running_ns;
	for (uint64_t k = 0; k < a->nr; k++)
		acc->raw[k] += a->val[k] - b->val[k];
	acc->cpu_ns += a->cpu_ns - b->cpu_ns;
	/* this region's own on-CPU time against Table II's thresholds */
	if (a->cpu_src == SNAP_CPU_NONE || a->cpu_src != b->cpu_src)
		return;
	double on = (double)(a->cpu_ns - b->cpu_ns);
	if (a->cpu_src == SNAP_CPU_GROUP) {
		uint64_t en = a->enabled_ns - b->enabled_ns, run = a->running_ns - b->running_ns;
		if (!run)
			return;                 /* the group did not run: not counted */
		if (run < en)
			on = on * (double)en / (double)run;
	}
	on -= a->cpu_floor_ns;
	acc->oncpu_regions++;
	acc->oncpu_under_10ms += on < (double)COUNTERS_SHORT_NS;
	acc->oncpu_under_100us += on < (double)COUNTERS_VSHORT_NS;
}

void counters_acc_add(struct counter_acc *dst, const struct counter_acc *src)
{
	dst->regions += src->regions;
	dst->failed += src->failed;
	dst->enabled_ns += src->enabled_ns;
	dst->running_ns += src->running_ns;
	for (int k = 0; k < COUNTERS_MAX; k++)
		dst->raw[k] += src->raw[k];
	dst->cpu_ns += src->cpu_ns;
	dst->wall_ns += src->wall_ns;
	dst->oncpu_regions += src->oncpu_regions;
	dst->oncpu_under_10ms += src->oncpu_under_10ms;
	dst->oncpu_under_100us += src->oncpu_under_100us;
}

void counters_values(const struct counter_spec *spec, const struct counter_acc *acc,
		     struct counter_value *out)
{
	for (int i = 0; i < spec->n; i++) {
		const struct counter_event *e = &spec->ev[i];
		if (e->slot < 0 || e->status == CNT_NOT_SUPPORTED) {
			out[i].status = CNT_NOT_SUPPORTED;
			out[i].value = NAN;
			continue;
		}
		out[i].status = counters_status(1, acc->enabled_ns, acc->running_ns);
		out[i].value = out[i].status == CNT_NOT_COUNTED ? NAN :
			counters_scale(acc->raw[e->slot], acc->enabled_ns, acc->running_ns);
	}
}

/* What an event measures, for the derived figures: generic perf events by
 * their encoding, others by label. */
static const char *event_role(const struct counter_event *e)
{
	if (e->slot >= 0 && e->attr.type == PERF_TYPE_HARDWARE) {
		switch (e->attr.config) {
		case PERF_COUNT_HW_CPU_CYCLES: return "cycles";
		case PERF_COUNT_HW_INSTRUCTIONS: return "instructions";
		case PERF_COUNT_HW_BRANCH_MISSES: return "branch-misses";
		case PERF_COUNT_HW_CACHE_REFERENCES: return "cache-references";
		case PERF_COUNT_HW_CACHE_MISSES: return "cache-misses";
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND: return "stalls-frontend";
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND: return "stalls-backend";
		}
	}
	if (!strcmp(e->name, "stalled-cycles-frontend"))
		return "stalls-frontend";
	if (!strcmp(e->name, "stalled-cycles-backend"))
		return "stalls-backend";
	if (!strcmp(e->name, "cpu-cycles"))
		return "cycles";
	return e->name;
}

static double named(const char *const *names, const struct counter_value *val, int n,
		    const char *want)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], want))
			return val[i].status == CNT_OK || val[i].status == CNT_SCALED ? val[i].value : NAN;
	return NAN;
}

static double ratio(double num, double den, double mul)
{
	if (isnan(num) || isnan(den) || den == 0)
		return NAN;
	return num / den * mul;
}

void counters_derive(const char *const *names, const struct counter_value *val, int n,
		     double oncpu_ns, double wall_ns, struct counter_derived *d)
{
	double cyc = named(names, val, n, "cycles");
	double ins = named(names, val, n, "instructions");
	double bm = named(names, val, n, "branch-misses");
	double cr = named(names, val, n, "cache-references");
	double cm = named(names, val, n, "cache-misses");
	double fe = named(names, val, n, "stalls-frontend");
	double be = named(names, val, n, "stalls-backend");
	d->ipc = ratio(ins, cyc, 1);
	d->branch_mpki = ratio(bm, ins, 1000);
	d->cache_mpki = ratio(cm, ins, 1000);
	d->cache_miss_pct = ratio(cm, cr, 100);
	d->frontend_stall_pct = ratio(fe, cyc, 100);
	d->backend_stall_pct = ratio(be, cyc, 100);
	d->oncpu_ns = oncpu_ns;
	d->wall_ns = wall_ns;
	d->descheduled_ns = isnan(oncpu_ns) || isnan(wall_ns) ? NAN : wall_ns - oncpu_ns;
	d->oncpu_pct = ratio(oncpu_ns, wall_ns, 100);
	d->oncpu_under_10ms_pct = d->oncpu_under_100us_pct = NAN;
}

double counters_oncpu_ns(const struct counter_spec *spec, const struct counter_acc *acc)
{
	double v;
	if (!acc->regions)
		return NAN;
	if (spec->oncpu == ONCPU_TASK_CLOCK && spec->oncpu_slot >= 0) {
		if (counters_status(1, acc->enabled_ns, acc->running_ns) == CNT_NOT_COUNTED)
			return NAN;
		v = counters_scale(acc->raw[spec->oncpu_slot], acc->enabled_ns, acc->running_ns);
	} else if (spec->oncpu == ONCPU_THREAD_CLOCK) {
		v = (double)acc->cpu_ns;
	} else {
		return NAN;
	}
	/* the counted window holds the ends of the two reads; the clock window
	 * does not: take that floor off */
	if (spec->has_overhead) {
		double floor = spec->ov.empty_cpu_ns - spec->ov.empty_wall_ns;
		if (floor > 0)
			v -= floor * (double)acc->regions;
	}
	return v;
}

void counters_derived(const struct counter_spec *spec, const struct counter_acc *acc,
		      struct counter_derived *d)
{
	struct counter_value val[COUNTERS_MAX];
	const char *names[COUNTERS_MAX];
	counters_values(spec, acc, val);
	for (int i = 0; i < spec->n; i++)
		names[i] = event_role(&spec->ev[i]);
	counters_derive(names, val, spec->n, counters_oncpu_ns(spec, acc),
			acc->regions ? (double)acc->wall_ns : NAN, d);
	if (acc->oncpu_regions) {
		d->oncpu_under_10ms_pct = 100.0 * (double)acc->oncpu_under_10ms /
					  (double)acc->oncpu_regions;
		d->oncpu_under_100us_pct = 100.0 * (double)acc->oncpu_under_100us /
					   (double)acc->oncpu_regions;
	}
}

/* ---- overhead ------------------------------------------------------------*/

static double median(double *v, size_t n)
{
	stats_sort(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int counters_measure_overhead(struct counter_spec *spec, char *err, size_t errlen)
{
	enum { ROUNDS = 31, READS = 256, REGIONS = 1001 };
	struct counter_overhead *o = &spec->ov;
	struct counter_group *g = counters_open_thread(spec, err, errlen);
	if (!g)
		return -1;
	int rc = -1;
	double *v = malloc(sizeof(double) * REGIONS * (COUNTERS_MAX + 2));
	if (!v) {
		snprintf(err, errlen, "counters: out of memory");
		goto out;
	}
	struct counter_snap a, b;
	for (int i = 0; i < 64; i++)
		if (counters_read(g, &a))
			goto rfail;
	double per[ROUNDS];
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = clock_now_ns();
		for (int i = 0; i < READS; i++)
			if (counters_read(g, &a))
				goto rfail;
		per[r] = (double)(clock_now_ns() - t0) / READS;
	}
	memset(o, 0, sizeof(*o));
	o->read_ns = median(per, ROUNDS);
	o->reads = (uint64_t)ROUNDS * READS;
	int ns = spec->nslots;
	double *wall = v, *cpu = v + REGIONS, *sl = v + 2 * REGIONS;
	for (int i = 0; i < REGIONS; i++) {
		if (counters_read(g, &b))
			goto rfail;
		uint64_t t0 = clock_now_ns();
		uint64_t t1 = clock_now_ns();
		if (counters_read(g, &a))
			goto rfail;
		wall[i] = (double)(t1 - t0);
		struct counter_acc acc;
		memset(&acc, 0, sizeof(acc));
		counters_accumulate(&acc, &b, &a, t1 - t0);
		if (spec->oncpu == ONCPU_TASK_CLOCK)
			cpu[i] = counters_scale(acc.raw[spec->oncpu_slot], acc.enabled_ns, acc.running_ns);
		else
			cpu[i] = (double)acc.cpu_ns;
		for (int k = 0; k < ns; k++)
			sl[(size_t)k * REGIONS + (size_t)i] = (double)acc.raw[k];
	}
	o->empty_wall_ns = median(wall, REGIONS);
	o->empty_cpu_ns = median(cpu, REGIONS);
	for (int k = 0; k < ns; k++)
		o->empty[k] = median(sl + (size_t)k * REGIONS, REGIONS);
	spec->has_overhead = 1;
	rc = 0;
	goto out;
rfail:
	snprintf(err, errlen, "cannot read counters: %s", strerror(errno));
out:
	free(v);
	counters_close(g);
	return rc;
}

/* ---- export --------------------------------------------------------------*/

static json_t *num_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *counters_spec_json(const struct counter_spec *spec)
{
	json_t *o = json_object();
	json_t *evs = json_array();
	for (int i = 0; i < spec->n; i++) {
		const struct counter_event *e = &spec->ev[i];
		json_t *j = json_object();
		json_object_set_new(j, "name", json_string(e->name));
		json_object_set_new(j, "libpfm4", e->pfm_name[0] ? json_string(e->pfm_name) : json_null());
		json_object_set_new(j, "hw", json_boolean(e->hw));
		json_object_set_new(j, "origin", json_string(origin_name(e->origin)));
		json_object_set_new(j, "status", json_string(counter_status_name(e->status)));
		json_object_set_new(j, "reason", e->reason[0] ? json_string(e->reason) : json_null());
		json_object_set_new(j, "user_only", json_boolean(e->user_only));
		json_array_append_new(evs, j);
	}
	json_object_set_new(o, "list", json_string(spec->list));
	json_object_set_new(o, "events", evs);
	json_object_set_new(o, "fallback", spec->note[0] ? json_string(spec->note) : json_null());
	json_object_set_new(o, "oncpu_source", json_string(oncpu_name(spec->oncpu)));
	json_object_set_new(o, "perf_event_paranoid",
			    spec->paranoid == -99 ? json_null() : json_integer(spec->paranoid));
	json_object_set_new(o, "hardware_pmu", json_boolean(spec->have_pmu));
	json_object_set_new(o, "forced_no_pmu", json_boolean(spec->forced_no_pmu));
	json_object_set_new(o, "forced_no_perf", json_boolean(spec->forced_no_perf));
	if (spec->has_overhead) {
		const struct counter_overhead *ov = &spec->ov;
		json_t *j = json_object();
		json_t *em = json_object();
		json_object_set_new(j, "read_ns", json_real(ov->read_ns));
		json_object_set_new(j, "reads", json_integer((json_int_t)ov->reads));
		json_object_set_new(j, "empty_region_wall_ns", json_real(ov->empty_wall_ns));
		json_object_set_new(j, "empty_region_oncpu_ns", json_real(ov->empty_cpu_ns));
		for (int k = 0; k < spec->nslots; k++)
			json_object_set_new(em, spec->ev[spec->slot_ev[k]].name, json_real(ov->empty[k]));
		json_object_set_new(j, "empty_region_counts", em);
		json_object_set_new(o, "overhead", j);
	}
	return o;
}

json_t *counters_op_json(const struct counter_spec *spec, const struct counter_acc *acc,
			 uint64_t images)
{
	struct counter_value val[COUNTERS_MAX];
	counters_values(spec, acc, val);
	json_t *o = json_object();
	json_object_set_new(o, "regions", json_integer((json_int_t)acc->regions));
	json_object_set_new(o, "failed_reads", json_integer((json_int_t)acc->failed));
	json_t *evs = json_object();
	for (int i = 0; i < spec->n; i++) {
		json_t *j = json_object();
		double v = val[i].value;
		json_object_set_new(j, "status", json_string(counter_status_name(val[i].status)));
		json_object_set_new(j, "unit", json_string(spec->ev[i].is_time ? "ns" : "events"));
		json_object_set_new(j, "sum", num_or_null(v));
		json_object_set_new(j, "per_region", num_or_null(acc->regions ? v / (double)acc->regions : NAN));
		if (images)
			json_object_set_new(j, "per_image", num_or_null(v / (double)images));
		json_object_set_new(evs, spec->ev[i].name, j);
	}
	json_object_set_new(o, "events", evs);
	return o;
}

void counters_csv_header(const struct counter_spec *spec, FILE *f)
{
	for (int i = 0; i < spec->n; i++) {
		char h[160];
		snprintf(h, sizeof(h), "%s%s", spec->ev[i].name, spec->ev[i].is_time ? "_ns" : "");
		csv_put_next(f, h);
	}
}

/* ",value" with 15 significant digits (METRIC_NUM_FMT), "," for NAN */
static void csv_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputc(',', f);
	else
		fprintf(f, ",%.15g", v);
}

void counters_csv_row(const struct counter_spec *spec, const struct counter_acc *acc, FILE *f)
{
	struct counter_value val[COUNTERS_MAX];
	if (!spec->n)
		return;
	counters_values(spec, acc, val);
	for (int i = 0; i < spec->n; i++)
		csv_num(f, val[i].value);
}
