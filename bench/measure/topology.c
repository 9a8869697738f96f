#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "log.h"
#include "machine.h"
#include "topology.h"

static int topo_init(struct topo *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (hwloc_topology_init(&t->h)) {
		snprintf(err, errlen, "cannot initialise hwloc: %s", strerror(errno));
		t->h = NULL;
		return -1;
	}
	return 0;
}

static int topo_finish(struct topo *t, const char *what, char *err, size_t errlen)
{
	if (hwloc_topology_load(t->h)) {
		snprintf(err, errlen, "cannot load the topology of %s: %s", what, strerror(errno));
		hwloc_topology_destroy(t->h);
		t->h = NULL;
		return -1;
	}
	t->this_system = hwloc_topology_is_thissystem(t->h);
	return 0;
}

int topo_load(struct topo *t, char *err, size_t errlen)
{
	if (topo_init(t, err, errlen))
		return -1;
	snprintf(t->origin, sizeof(t->origin), "this machine");
	return topo_finish(t, "this machine", err, errlen);
}

int topo_load_synthetic(struct topo *t, const char *desc, char *err, size_t errlen)
{
	if (topo_init(t, err, errlen))
		return -1;
	snprintf(t->origin, sizeof(t->origin), "synthetic '%s'", desc);
	if (hwloc_topology_set_synthetic(t->h, desc)) {
		snprintf(err, errlen, "bad synthetic topology '%s'", desc);
		hwloc_topology_destroy(t->h);
		t->h = NULL;
		return -1;
	}
	return topo_finish(t, t->origin, err, errlen);
}

int topo_load_xml(struct topo *t, const char *path, char *err, size_t errlen)
{
	if (topo_init(t, err, errlen))
		return -1;
	snprintf(t->origin, sizeof(t->origin), "xml '%s'", path);
	if (hwloc_topology_set_xml(t->h, path)) {
		snprintf(err, errlen, "cannot read topology '%s': %s", path, strerror(errno));
		hwloc_topology_destroy(t->h);
		t->h = NULL;
		return -1;
	}
	return topo_finish(t, t->origin, err, errlen);
}

void topo_release(struct topo *t)
{
	if (t->h)
		hwloc_topology_destroy(t->h);
	t->h = NULL;
}

int topo_export_xml(const struct topo *t, const char *path, char *err, size_t errlen)
{
	if (hwloc_topology_export_xml(t->h, path, 0)) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- summary -------------------------------------------------------------*/

static const char *cache_kind(hwloc_obj_cache_type_t k)
{
	switch (k) {
	case HWLOC_OBJ_CACHE_DATA: return "data";
	case HWLOC_OBJ_CACHE_INSTRUCTION: return "instruction";
	default: return "unified";
	}
}

void topo_summary(const struct topo *t, struct topo_summary *s)
{
	memset(s, 0, sizeof(*s));
	hwloc_topology_t h = t->h;
	s->packages = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
	s->cores = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
	s->pus = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	s->numa_nodes = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
	hwloc_obj_t root = hwloc_get_root_obj(h);
	/* this machine's as every command states it (hwloc's root total can
	 * be less: one NUMA node's in some containers); a topology read from
	 * another machine's XML keeps its own */
	s->memory_bytes = hwloc_topology_is_thissystem(h) && machine_memory_bytes() ?
			  machine_memory_bytes() : root->total_memory;
	hwloc_bitmap_list_snprintf(s->cpus, sizeof(s->cpus), hwloc_topology_get_topology_cpuset(h));

	hwloc_obj_t pkg = hwloc_get_obj_by_type(h, HWLOC_OBJ_PACKAGE, 0);
	const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	if (!model)
		model = hwloc_obj_get_info_by_name(root, "CPUModel");
	snprintf(s->cpu_model, sizeof(s->cpu_model), "%s", model ? model : "");

	for (int i = 0; i < s->cores; i++) {
		hwloc_obj_t c = hwloc_get_obj_by_type(h, HWLOC_OBJ_CORE, (unsigned)i);
		int w = hwloc_bitmap_weight(c->cpuset);
		if (w > s->smt)
			s->smt = w;
	}
	if (!s->cores)
		s->smt = 1;

	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
		HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
	};
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]) && s->ncaches < TOPO_MAX_CACHES; k++) {
		int n = hwloc_get_nbobjs_by_type(h, types[k]);
		if (n <= 0)
			continue;
		hwloc_obj_t c = hwloc_get_obj_by_type(h, types[k], 0);
		struct topo_cache *tc = &s->cache[s->ncaches++];
		tc->level = (int)c->attr->cache.depth;
		snprintf(tc->kind, sizeof(tc->kind), "%s", cache_kind(c->attr->cache.type));
		tc->size_bytes = c->attr->cache.size;
		tc->line_bytes = (int)c->attr->cache.linesize;
		tc->count = n;
		tc->pus_sharing = c->cpuset ? hwloc_bitmap_weight(c->cpuset) : 0;
	}
}

json_t *topo_json(const struct topo_summary *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "cpu_model", json_string(s->cpu_model));
	json_object_set_new(o, "packages", json_integer(s->packages));
	json_object_set_new(o, "cores", json_integer(s->cores));
	json_object_set_new(o, "pus", json_integer(s->pus));
	json_object_set_new(o, "numa_nodes", json_integer(s->numa_nodes));
	json_object_set_new(o, "smt", json_integer(s->smt));
	json_object_set_new(o, "memory_bytes", json_integer((json_int_t)s->memory_bytes));
	json_object_set_new(o, "cpus", json_string(s->cpus));
	json_t *cs = json_array();
	for (int i = 0; i < s->ncaches; i++) {
		const struct topo_cache *c = &s->cache[i];
		json_t *j = json_object();
		json_object_set_new(j, "level", json_integer(c->level));
		json_object_set_new(j, "kind", json_string(c->kind));
		json_object_set_new(j, "size_bytes", json_integer((json_int_t)c->size_bytes));
		json_object_set_new(j, "line_bytes", json_integer(c->line_bytes));
		json_object_set_new(j, "count", json_integer(c->count));
		json_object_set_new(j, "pus_sharing", json_integer(c->pus_sharing));
		json_array_append_new(cs, j);
	}
	json_object_set_new(o, "caches", cs);
	return o;
}

static void fmt_size(uint64_t b, char *out, size_t n)
{
	if (b >= (1ull << 30) && b % (1ull << 30) == 0)
		snprintf(out, n, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
		snprintf(out, n, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024)
		snprintf(out, n, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(out, n, "%llu B", (unsigned long long)b);
}

void topo_print_caches(const struct topo_summary *s, FILE *f, const char *indent)
{
	for (int i = 0; i < s->ncaches; i++) {
		const struct topo_cache *c = &s->cache[i];
		char sz[32];
		fmt_size(c->size_bytes, sz, sizeof(sz));
		fprintf(f, "%sL%d%s %s x%d, shared by %d PU%s", indent, c->level,
			!strcmp(c->kind, "data") ? "d" : !strcmp(c->kind, "instruction") ? "i" : "",
			sz, c->count, c->pus_sharing, c->pus_sharing == 1 ? "" : "s");
		if (c->line_bytes)
			fprintf(f, ", %d-byte lines", c->line_bytes);
		fputc('\n', f);
	}
}

/* ---- pinning -------------------------------------------------------------*/

int pin_parse(const char *s, struct pin_req *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->text, sizeof(r->text), "%s", s ? s : "none");
	if (!s || !strcmp(s, "none")) {
		r->policy = PIN_NONE;
		return 0;
	}
	if (!strcmp(s, "compact")) {
		r->policy = PIN_COMPACT;
		return 0;
	}
	if (!strcmp(s, "scatter")) {
		r->policy = PIN_SCATTER;
		return 0;
	}
	r->policy = PIN_LIST;
	const char *p = s;
	for (;;) {
		char *end;
		errno = 0;
		if (*p < '0' || *p > '9')
			goto bad;
		long a = strtol(p, &end, 10), b = a;
		if (errno || a > 1 << 20)
			goto bad;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			b = strtol(p, &end, 10);
			if (errno || b > 1 << 20)
				goto bad;
			p = end;
			if (b < a) {
				snprintf(err, errlen, "--pin: range '%ld-%ld' goes down", a, b);
				return -1;
			}
		}
		for (long c = a; c <= b; c++) {
			for (int k = 0; k < r->ncpus; k++)
				if (r->cpus[k] == c) {
					snprintf(err, errlen, "--pin: CPU %ld is listed twice", c);
					return -1;
				}
			if (r->ncpus == PIN_LIST_MAX) {
				snprintf(err, errlen, "--pin: more than %d CPUs", PIN_LIST_MAX);
				return -1;
			}
			r->cpus[r->ncpus++] = (int)c;
		}
		if (!*p)
			return 0;
		if (*p != ',')
			goto bad;
		p++;
	}
bad:
	snprintf(err, errlen, "--pin: '%s' is not none, compact, scatter or a CPU list such as 0-3,8", s);
	return -1;
}

/* Sort keys of a PU for scatter: its rank among its siblings at each level,
 * from the PU up to the root's child. */
#define PIN_DEPTH 24

struct pu_key {
	hwloc_obj_t pu;
	unsigned rank[PIN_DEPTH];
};

static int cmp_scatter(const void *a, const void *b)
{
	const struct pu_key *x = a, *y = b;
	for (int d = 0; d < PIN_DEPTH; d++)
		if (x->rank[d] != y->rank[d])
			return x->rank[d] < y->rank[d] ? -1 : 1;
	return x->pu->logical_index < y->pu->logical_index ? -1 :
	       x->pu->logical_index > y->pu->logical_index;
}

static void fill_slot(hwloc_topology_t h, hwloc_obj_t pu, struct pin_slot *s)
{
	memset(s, 0, sizeof(*s));
	s->pu_os = -1;
	s->pu = s->core = s->package = s->numa = -1;
	if (!pu)
		return;
	s->pu_os = (int)pu->os_index;
	s->pu = (int)pu->logical_index;
	hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu);
	hwloc_obj_t k = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, pu);
	s->core = c ? (int)c->logical_index : -1;
	s->package = k ? (int)k->logical_index : -1;
	hwloc_obj_t n = hwloc_get_next_obj_covering_cpuset_by_depth(h, pu->cpuset,
								     HWLOC_TYPE_DEPTH_NUMANODE, NULL);
	s->numa = n ? (int)n->logical_index : -1;
}

static int in_list(const struct pin_req *r, int os)
{
	for (int k = 0; k < r->ncpus; k++)
		if (r->cpus[k] == os)
			return 1;
	return 0;
}

int pin_plan_compute(const struct topo *t, const struct pin_req *r, int workers,
		     struct pin_plan *p, char *err, size_t errlen)
{
	hwloc_topology_t h = t->h;
	memset(p, 0, sizeof(*p));
	p->policy = r->policy;
	snprintf(p->text, sizeof(p->text), "%s", r->text);
	p->workers = workers;
	p->h = h;
	p->this_system = t->this_system;
	int npu = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	p->worker = calloc(workers > 0 ? (size_t)workers : 1, sizeof(*p->worker));
	/* order[]: the workers' PUs; rest[]: what main and pin thread may take */
	hwloc_obj_t *order = calloc((size_t)npu + 1, sizeof(*order));
	hwloc_obj_t *rest = calloc((size_t)npu + 1, sizeof(*rest));
	struct pu_key *keys = calloc((size_t)npu + 1, sizeof(*keys));
	int norder = 0, nrest = 0, rc = -1;
	if (!p->worker || !order || !rest || !keys) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int i = 0; i < npu; i++)
		order[i] = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)i);
	switch (r->policy) {
	case PIN_NONE:
		fill_slot(h, NULL, &p->main);
		fill_slot(h, NULL, &p->pin);
		for (int w = 0; w < workers; w++)
			fill_slot(h, NULL, &p->worker[w]);
		p->npus = npu;
		rc = 0;
		goto out;
	case PIN_COMPACT:
		norder = npu;
		break;
	case PIN_SCATTER:
		for (int i = 0; i < npu; i++) {
			keys[i].pu = order[i];
			int d = 0;
			for (hwloc_obj_t o = order[i]; o && o->parent && d < PIN_DEPTH; o = o->parent)
				keys[i].rank[d++] = o->sibling_rank;
		}
		qsort(keys, (size_t)npu, sizeof(*keys), cmp_scatter);
		for (int i = 0; i < npu; i++)
			order[i] = keys[i].pu;
		norder = npu;
		break;
	case PIN_LIST:
		for (int k = 0; k < r->ncpus; k++) {
			hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(h, (unsigned)r->cpus[k]);
			if (!pu) {
				char cpus[96];
				hwloc_bitmap_list_snprintf(cpus, sizeof(cpus),
							   hwloc_topology_get_topology_cpuset(h));
				snprintf(err, errlen, "--pin: CPU %d is not in this machine (CPUs %s)",
					 r->cpus[k], cpus);
				goto out;
			}
			keys[k].pu = pu;
		}
		for (int i = 0; i < npu; i++)
			if (!in_list(r, (int)order[i]->os_index))
				rest[nrest++] = order[i];
		for (int k = 0; k < r->ncpus; k++)
			order[k] = keys[k].pu;
		norder = r->ncpus;
		break;
	}
	p->npus = norder;
	p->oversubscribed = workers > norder;
	for (int w = 0; w < workers; w++) {
		fill_slot(h, order[w % norder], &p->worker[w]);
		p->worker[w].shared = workers > norder;
	}
	if (r->policy != PIN_LIST)
		for (int i = workers; i < norder; i++)
			rest[nrest++] = order[i];
	if (nrest >= 2) {
		fill_slot(h, rest[0], &p->main);
		fill_slot(h, rest[1], &p->pin);
	} else if (nrest == 1) {
		fill_slot(h, rest[0], &p->main);
		fill_slot(h, rest[0], &p->pin);
		p->main.shared = p->pin.shared = 1;
		snprintf(p->note, sizeof(p->note),
			 "main process and pin thread share CPU %d: one CPU is left after the workers",
			 p->main.pu_os);
	} else {
		fill_slot(h, NULL, &p->main);
		fill_slot(h, NULL, &p->pin);
		snprintf(p->note, sizeof(p->note), "main process and pin thread not bound: %s",
			 r->policy == PIN_LIST ? "every CPU is in the list" :
			 "no CPU is left after the workers");
	}
	rc = 0;
out:
	free(order);
	free(rest);
	free(keys);
	if (rc)
		pin_plan_free(p);
	return rc;
}

void pin_plan_free(struct pin_plan *p)
{
	free(p->worker);
	p->worker = NULL;
}

const struct pin_slot *pin_slot_of(const struct pin_plan *p, enum proc_role role, int id)
{
	switch (role) {
	case ROLE_MAIN:
	case ROLE_GPU:
		return &p->main;
	case ROLE_PIN:
		return &p->pin;
	case ROLE_WORKER:
		return id >= 0 && id < p->workers ? &p->worker[id] : NULL;
	}
	return NULL;
}

static const char *role_name(enum proc_role role)
{
	switch (role) {
	case ROLE_MAIN: return "main process";
	case ROLE_WORKER: return "worker";
	case ROLE_PIN: return "pin thread";
	case ROLE_GPU: return "gpu thread";
	}
	return "?";
}

int pin_apply_self(const struct pin_plan *p, enum proc_role role, int id, char *err,
		   size_t errlen)
{
	const struct pin_slot *s = pin_slot_of(p, role, id);
	char who[48];
	if (role == ROLE_WORKER)
		snprintf(who, sizeof(who), "worker %d", id);
	else
		snprintf(who, sizeof(who), "%s", role_name(role));
	if (!s) {
		snprintf(err, errlen, "cannot bind %s: not in the pin plan", who);
		return -1;
	}
	if (s->pu_os < 0)
		return 1;
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(p->h, (unsigned)s->pu_os);
	if (!pu) {
		snprintf(err, errlen, "cannot bind %s to CPU %d: no such CPU", who, s->pu_os);
		return -1;
	}
	/* hwloc's binding on a topology from elsewhere is a no-op that succeeds */
	if (!p->this_system) {
		snprintf(err, errlen, "cannot bind %s to CPU %d: the topology is not this machine's",
			 who, s->pu_os);
		return -1;
	}
	if (hwloc_set_cpubind(p->h, pu->cpuset, HWLOC_CPUBIND_THREAD)) {
		snprintf(err, errlen, "cannot bind %s to CPU %d: %s", who, s->pu_os, strerror(errno));
		return -1;
	}
	return 0;
}

static json_t *slot_json(const struct pin_slot *s, int pinned)
{
	json_t *o = json_object();
	json_object_set_new(o, "cpu", s->pu_os < 0 ? json_null() : json_integer(s->pu_os));
	json_object_set_new(o, "pu", s->pu < 0 ? json_null() : json_integer(s->pu));
	json_object_set_new(o, "core", s->core < 0 ? json_null() : json_integer(s->core));
	json_object_set_new(o, "package", s->package < 0 ? json_null() : json_integer(s->package));
	json_object_set_new(o, "numa", s->numa < 0 ? json_null() : json_integer(s->numa));
	json_object_set_new(o, "shared", json_boolean(s->shared));
	json_object_set_new(o, "pinned", pinned < 0 ? json_null() : json_boolean(pinned));
	return o;
}

static const char *policy_name(enum pin_policy p)
{
	switch (p) {
	case PIN_NONE: return "none";
	case PIN_COMPACT: return "compact";
	case PIN_SCATTER: return "scatter";
	case PIN_LIST: return "list";
	}
	return "?";
}

json_t *pin_plan_json(const struct pin_plan *p, const int *worker_pinned, int main_pinned,
		      int pin_pinned)
{
	json_t *o = json_object();
	json_object_set_new(o, "policy", json_string(policy_name(p->policy)));
	json_object_set_new(o, "spec", json_string(p->text));
	json_object_set_new(o, "workers", json_integer(p->workers));
	json_object_set_new(o, "pus", json_integer(p->npus));
	json_object_set_new(o, "oversubscribed", json_boolean(p->oversubscribed));
	json_object_set_new(o, "note", p->note[0] ? json_string(p->note) : json_null());
	json_object_set_new(o, "main", slot_json(&p->main, main_pinned));
	json_object_set_new(o, "pin_thread", slot_json(&p->pin, pin_pinned));
	json_t *w = json_array();
	for (int i = 0; i < p->workers; i++)
		json_array_append_new(w, slot_json(&p->worker[i], worker_pinned ? worker_pinned[i] : -1));
	json_object_set_new(o, "worker", w);
	return o;
}

void pin_plan_format(const struct pin_plan *p, char *out, size_t n)
{
	size_t len = 0;
#define PUT(...) do { \
		if (len < n) \
			len += (size_t)snprintf(out + len, n - len, __VA_ARGS__); \
	} while (0)
	if (p->policy == PIN_NONE) {
		PUT("not bound (--pin none)");
		return;
	}
	PUT("workers -> CPU%s ", p->workers == 1 ? "" : "s");
	for (int i = 0; i < p->workers; i++)
		PUT("%s%d", i ? "," : "", p->worker[i].pu_os);
	if (!p->workers)
		PUT("none");
	if (p->main.pu_os >= 0)
		PUT("; main -> %d", p->main.pu_os);
	else
		PUT("; main not bound");
	if (p->pin.pu_os >= 0)
		PUT("; pin thread -> %d", p->pin.pu_os);
	else
		PUT("; pin thread not bound");
	if (p->oversubscribed)
		PUT(" (oversubscribed: %d workers on %d CPU%s)", p->workers, p->npus, plural_s(p->npus));
#undef PUT
}
