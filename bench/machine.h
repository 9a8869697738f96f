/* The machine next to the numbers: what a result was measured on. */
#ifndef PPBENCH_MACHINE_H
#define PPBENCH_MACHINE_H

struct json_t;

/* New reference, never NULL except on out of memory:
 * {"cpu_model", "cpus_online", "cpus_configured", "kernel": {"sysname",
 * "release", "version", "machine"}, "hostname", "memory_total_bytes",
 * "compiler", "libraries": {"libjpeg_turbo", "libpng" (compiled and
 * runtime), "hwloc" (compiled and runtime), "jansson" (compiled and
 * runtime)}, "clock": {"source", "resolution_ns", "read_cost_ns"}}.
 * Fields that cannot be read are left out. */
struct json_t *machine_json(void);

#endif
