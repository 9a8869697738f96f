/* The machine next to the numbers: what a result was measured on. */
#ifndef PPBENCH_MACHINE_H
#define PPBENCH_MACHINE_H

#include <stdint.h>

struct json_t;

/* New reference, never NULL except on out of memory:
 * {"cpu_model", "cpus_online", "cpus_configured", "cpus_allowed",
 * "cpus_allowed_list", "cpu_quota", "cpus_usable", "smt_active" (the CPUs
 * this process may use: bench/measure/noise.h), "governor", "boost", "vm",
 * "hypervisor", "kernel": {"sysname",
 * "release", "version", "machine"}, "hostname", "memory_total_bytes",
 * "compiler", "libraries": {"libjpeg_turbo", "libjpeg_api", "libpng",
 * "libpng_runtime", "hwloc_api", "hwloc_api_runtime", "jansson",
 * "jansson_runtime"} (compiled-in versions, and what is loaded at run
 * time), "clock": {"source", "resolution_ns", "read_cost_ns"}}.
 * Fields that cannot be read are left out. */
struct json_t *machine_json(void);

/* The machine's memory (all of it, MemTotal), bytes; 0 when unknown: what
 * every command states as the machine's memory. */
uint64_t machine_memory_bytes(void);
/* The memory this process may still take, bytes; 0 when unknown: /proc/
 * meminfo's MemAvailable, or what the cgroup's limit leaves if that is
 * lower. The one reader of MemAvailable. */
uint64_t machine_memory_available(void);

#endif
