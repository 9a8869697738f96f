/* ppbench info: what this machine offers a measurement. Topology and
 * caches (hwloc), the clock and its cost, which counter events open (each
 * probed by opening it) and what a counter read costs, and optionally the
 * pin plan of a configuration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "clock.h"
#include "commands.h"
#include "counted.h"
#include "counters.h"
#include "kernels.h"
#include "log.h"
#include "machine.h"
#include "noise.h"
#include "options.h"
#include "topology.h"

struct info_cfg {
	const char *counters;
	const char *pin;
	long workers;
	int json;
	const char *xml;
};

#define O(f) offsetof(struct info_cfg, f)
static const struct opt info_opts[] = {
	{ .name = "counters", .type = OPT_LIST, .off = O(counters), .def = "basic,topdown,sw",
	  .metavar = "LIST", .help = "events to probe: presets " COUNTERS_PRESETS_SHORT
	  ", or libpfm4/perf event names" },
	{ .name = "pin", .type = OPT_STR, .off = O(pin), .def = "none",
	  .metavar = "none|compact|scatter|CPULIST",
	  .help = "show the pin plan of this policy for --workers workers" },
	{ .name = "workers", .shortname = 'w', .type = OPT_INT, .off = O(workers), .def = "2",
	  .metavar = "W", .help = "workers of the pin plan shown", .lo = 0, .hi = 4096 },
	{ .name = "json", .type = OPT_BOOL, .off = O(json), .def = "off",
	  .help = "machine-readable output (JSON on stdout)" },
	{ .name = "xml", .type = OPT_STR, .off = O(xml), .metavar = "FILE",
	  .help = "also write the hwloc topology as XML to FILE" },
	OPT_END
};
#undef O

static void print_counters(const struct counter_spec *spec, FILE *f)
{
	for (int i = 0; i < spec->n; i++) {
		const struct counter_event *e = &spec->ev[i];
		fprintf(f, "  %-18s %-14s %s%s%s\n", e->name, counter_status_name(e->status),
			e->reason, e->reason[0] && e->origin == CNT_FROM_FALLBACK ? "; " : "",
			e->origin == CNT_FROM_FALLBACK ? "(added: fallback)" : "");
	}
}

static void print_text(const struct topo_summary *ts, const struct counter_spec *spec,
		       int ov_ok, const struct counted_overhead *null_ov, const char *plan_line,
		       const struct info_cfg *cfg, double clock_cost, FILE *f)
{
	fprintf(f, "%-13s %s\n", "cpu", ts->cpu_model[0] ? ts->cpu_model : "(unknown model)");
	fprintf(f, "%-13s %d package%s, %d core%s, %d PU%s (%d per core), %d NUMA node%s, %.1f GiB\n",
		"topology", ts->packages, ts->packages == 1 ? "" : "s", ts->cores,
		ts->cores == 1 ? "" : "s", ts->pus, ts->pus == 1 ? "" : "s", ts->smt,
		ts->numa_nodes, ts->numa_nodes == 1 ? "" : "s",
		(double)ts->memory_bytes / (1024.0 * 1024 * 1024));
	fprintf(f, "%-13s %s\n", "cpus", ts->cpus);
	fprintf(f, "caches\n");
	topo_print_caches(ts, f, "  ");
	fprintf(f, "%-13s %s, resolution %llu ns, read cost %.1f ns\n", "clock", clock_source(),
		(unsigned long long)clock_resolution_ns(), clock_cost);
	char kd[256];
	kernels_describe(kd, sizeof(kd));
	fprintf(f, "%-13s %s\n", "kernels", kd);
	if (spec->paranoid == -99)
		fprintf(f, "%-13s perf_event_paranoid unreadable", "perf");
	else
		fprintf(f, "%-13s perf_event_paranoid=%d", "perf", spec->paranoid);
	fprintf(f, ", hardware PMU: %s%s\n", spec->have_pmu ? "yes" : "no",
		spec->forced_no_pmu ? " (PPBENCH_FORCE_NO_PMU=1)" :
		spec->forced_no_perf ? " (PPBENCH_FORCE_NO_PERF=1)" : "");
	fprintf(f, "counters      --counters %s\n", cfg->counters);
	print_counters(spec, f);
	if (spec->note[0])
		fprintf(f, "  %s\n", spec->note);
	if (spec->n) {
		fprintf(f, "%-13s %s\n", "on-CPU time",
			spec->oncpu == ONCPU_TASK_CLOCK ? "task-clock (perf software event)" :
			"clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
	}
	if (ov_ok) {
		const struct counter_overhead *o = &spec->ov;
		fprintf(f, "%-13s %.0f ns per read (%d event%s in the group%s); empty region: "
			"%.0f ns wall, %.0f ns on-CPU", "counter read", o->read_ns, spec->nslots,
			spec->nslots == 1 ? "" : "s",
			spec->oncpu == ONCPU_THREAD_CLOCK ? ", plus the thread clock" : "",
			o->empty_wall_ns, o->empty_cpu_ns);
		for (int k = 0; k < spec->nslots; k++) {
			const struct counter_event *e = &spec->ev[spec->slot_ev[k]];
			if (!e->is_time)
				fprintf(f, ", %s %.0f", e->name, o->empty[k]);
		}
		fputc('\n', f);
	}
	if (null_ov)
		fprintf(f, "%-13s %.0f ns per sample counted, %.0f ns plain: each counted op adds "
			"one read, %.0f ns\n", "null op", null_ov->counted_ns, null_ov->plain_ns,
			null_ov->per_op_ns);
	fprintf(f, "%-13s --pin %s --workers %ld: %s\n", "pin plan", cfg->pin, cfg->workers,
		plan_line);
}

/* the SIMD kernels: the active one, how it was chosen, each one's support */
static json_t *kernels_json(void)
{
	json_t *k = json_object();
	json_object_set_new(k, "active", json_string(kernels_active()->name));
	json_object_set_new(k, "chosen_by", json_string(kernels_chosen_by()));
	for (int id = 0; id < KERNEL_COUNT; id++) {
		const char *why;
		int ok = kernels_supported((enum kernel_id)id, &why);
		json_object_set_new(k, kernels_of((enum kernel_id)id)->name,
				    json_string(ok ? "yes" : why));
	}
	return k;
}

/* what other processes use of the CPUs now, against the busy threshold */
static json_t *noise_now_json(void)
{
	struct cpus cp;
	cpus_read(&cp);
	double now = noise_others_now(&cp);
	json_t *n = json_object();
	json_object_set_new(n, "others_cpu_pct_now", isfinite(now) ? json_real(now) : json_null());
	json_object_set_new(n, "busy", json_boolean(now > NOISE_BUSY_PCT));
	json_object_set_new(n, "threshold_pct", json_real(NOISE_BUSY_PCT));
	return n;
}

/* info --json to stdout; EXIT_OK or EXIT_FAIL (cannot write) */
static int print_json(const struct topo_summary *ts, const struct counter_spec *spec,
		      const struct counted_overhead *null_ov, const struct pin_plan *plan,
		      double clock_cost)
{
	int status = EXIT_OK;
	json_t *o = json_object();
	json_t *c = json_object();
	json_object_set_new(o, "schema_version", json_integer(1));
	json_object_set_new(o, "topology", topo_json(ts));
	json_object_set_new(c, "source", json_string(clock_source()));
	json_object_set_new(c, "resolution_ns", json_integer((json_int_t)clock_resolution_ns()));
	json_object_set_new(c, "read_cost_ns", json_real(clock_cost));
	json_object_set_new(o, "clock", c);
	json_object_set_new(o, "counters", counters_spec_json(spec));
	json_object_set_new(o, "kernels", kernels_json());
	if (null_ov) {
		json_t *n = json_object();
		json_object_set_new(n, "plain_ns_per_sample", json_real(null_ov->plain_ns));
		json_object_set_new(n, "counted_ns_per_sample", json_real(null_ov->counted_ns));
		json_object_set_new(n, "per_op_ns", json_real(null_ov->per_op_ns));
		json_object_set_new(n, "samples", json_integer((json_int_t)null_ov->samples));
		json_object_set_new(o, "null_op_overhead", n);
	}
	json_object_set_new(o, "pin_plan", pin_plan_json(plan, NULL, -1, -1));
	/* fit to benchmark: the CPUs usable, governor, VM, what others use now */
	json_object_set_new(o, "machine", machine_json());
	json_object_set_new(o, "noise", noise_now_json());
	if (json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) || putchar('\n') == EOF)
		status = EXIT_FAIL;
	json_decref(o);
	return status;
}

/* The pin plan for W workers, as one line into plan_line (with its note).
 * 0 done, -1 with err. */
static int plan_pins(const struct topo *t, const struct pin_req *req, long workers,
		     struct pin_plan *plan, char *plan_line, size_t n, char *err, size_t errlen)
{
	if (pin_plan_compute(t, req, (int)workers, plan, err, errlen))
		return -1;
	pin_plan_format(plan, plan_line, n);
	if (plan->note[0]) {
		size_t l = strlen(plan_line);
		snprintf(plan_line + l, n - l, " (%s)", plan->note);
	}
	return 0;
}

/* What a counter read and a counted null op cost (with counters asked for);
 * one that cannot be measured is a warning and left out. */
static void measure_overheads(struct counter_spec *spec, int *ov_ok,
			      struct counted_overhead *null_ov, int *null_ok)
{
	char err[512];
	*ov_ok = *null_ok = 0;
	if (!spec->n)
		return;
	if (counters_measure_overhead(spec, err, sizeof(err)))
		warn_msg("%s", err);
	else
		*ov_ok = 1;
	if (counted_null_overhead(spec, null_ov, err, sizeof(err)))
		warn_msg("%s", err);
	else
		*null_ok = 1;
}

int cmd_info(int argc, char **argv)
{
	static const char usage[] = "ppbench info [--counters LIST] [--pin POLICY --workers W] "
				    "[--json] [--xml FILE]";
	struct info_cfg cfg;
	char err[512];
	int npos = 0, status = EXIT_OK;
	int rc = opts_prelude(info_opts, &cfg, argc, argv, &npos, usage,
			  "Describes the machine for a measurement: CPU, topology, caches, the clock,\n"
			  "which counter events open here and why not, what a counter read costs.\n"
			  "Presets: " COUNTERS_PRESETS_HELP ".", NULL);
	if (rc >= 0)
		return rc;
	if (npos) {
		error_msg("info takes no arguments, got '%s'", argv[1]);
		return EXIT_USAGE;
	}
	struct counter_spec *spec = calloc(1, sizeof(*spec));
	struct pin_req *req = calloc(1, sizeof(*req));
	if (!spec || !req)
		die("out of memory");
	if (counters_parse(cfg.counters, spec, err, sizeof(err)) ||
	    pin_parse(cfg.pin, req, err, sizeof(err))) {
		error_msg("%s", err);
		free(spec);
		free(req);
		return EXIT_USAGE;
	}

	struct topo t;
	struct topo_summary ts;
	struct pin_plan plan;
	int have_plan = 0;
	char plan_line[512];
	if (topo_load(&t, err, sizeof(err))) {
		error_msg("%s", err);
		free(spec);
		free(req);
		return EXIT_FAIL;
	}
	topo_summary(&t, &ts);
	if (plan_pins(&t, req, cfg.workers, &plan, plan_line, sizeof(plan_line), err, sizeof(err))) {
		error_msg("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	have_plan = 1;
	if (cfg.xml && topo_export_xml(&t, cfg.xml, err, sizeof(err))) {
		error_msg("%s", err);
		status = EXIT_FAIL;
		goto out;
	}

	double clock_cost = clock_read_cost_ns();
	counters_probe(spec);
	int ov_ok, null_ok;
	struct counted_overhead null_ov;
	measure_overheads(spec, &ov_ok, &null_ov, &null_ok);
	if (cfg.json) {
		status = print_json(&ts, spec, null_ok ? &null_ov : NULL, &plan, clock_cost);
	} else {
		print_text(&ts, spec, ov_ok, null_ok ? &null_ov : NULL, plan_line, &cfg, clock_cost,
			   stdout);
		noise_print_fitness(stdout);
	}
	if (fflush(stdout)) {
		error_msg("cannot write the output");
		status = EXIT_FAIL;
	}
out:
	if (have_plan)
		pin_plan_free(&plan);
	topo_release(&t);
	free(spec);
	free(req);
	return status;
}
