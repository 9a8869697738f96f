#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <hwloc.h>
#include <jansson.h>
#include <png.h>
#include <stdio.h>
#include <jpeglib.h>
#include "clock.h"
#include "machine.h"
#include "noise.h"
#include "version.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* "model name : Intel(R) ..." from /proc/cpuinfo ("cpu model" or
 * "Processor" on other architectures). */
static int cpu_model(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (strncmp(line, "model name", 10) && strncmp(line, "cpu model", 9) &&
		    strncmp(line, "Processor", 9))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(out, n, "%s", colon);
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

static void set_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, json_string(v));
}

uint64_t machine_memory_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
}

uint64_t machine_memory_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	char line[256];
	unsigned long long kb = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	uint64_t avail = (uint64_t)kb * 1024;
	/* a cgroup limit (v2, then v1) can be lower than what the host has */
	static const char *const lim[][2] = {
		{ "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current" },
		{ "/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes" },
	};
	for (int i = 0; i < 2; i++) {
		unsigned long long max = 0, cur = 0;
		FILE *a = fopen(lim[i][0], "r"), *b = fopen(lim[i][1], "r");
		int ok = a && b && fscanf(a, "%llu", &max) == 1 && fscanf(b, "%llu", &cur) == 1;
		if (a)
			fclose(a);
		if (b)
			fclose(b);
		if (ok && max < (1ull << 60) && max > cur && max - cur < avail)
			avail = max - cur;
	}
	return avail;
}

json_t *machine_json(void)
{
	json_t *m = json_object(), *k, *lib, *clk;
	struct utsname u;
	char buf[512];

	if (!m)
		return NULL;
	set_str(m, "ppbench_version", PPBENCH_VERSION);
	if (cpu_model(buf, sizeof(buf)) == 0)
		set_str(m, "cpu_model", buf);
	{
		/* the CPUs this process may use beside the machine's, and the
		 * state that changes timings (bench/measure/noise.h) */
		struct cpus c;
		struct machine_state st;
		cpus_read(&c);
		cpus_json(&c, m);
		machine_state_read(&st);
		json_object_set_new(m, "governor", st.governor[0] ? json_string(st.governor) : json_null());
		json_object_set_new(m, "boost", st.boost[0] ? json_string(st.boost) : json_null());
		json_object_set_new(m, "vm", st.vm < 0 ? json_null() : json_boolean(st.vm));
		json_object_set_new(m, "hypervisor",
				    st.hypervisor[0] ? json_string(st.hypervisor) : json_null());
	}
	if (machine_memory_bytes())
		json_object_set_new(m, "memory_total_bytes",
				    json_integer((json_int_t)machine_memory_bytes()));
	if (uname(&u) == 0) {
		k = json_object();
		set_str(k, "sysname", u.sysname);
		set_str(k, "release", u.release);
		set_str(k, "version", u.version);
		set_str(k, "machine", u.machine);
		json_object_set_new(m, "kernel", k);
		set_str(m, "hostname", u.nodename);
	}
#ifdef __VERSION__
	snprintf(buf, sizeof(buf), "%s%s", strstr(__VERSION__, "clang") ? "" : "gcc ", __VERSION__);
	set_str(m, "compiler", buf);
#endif

	lib = json_object();
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
	snprintf(buf, sizeof(buf), "%d.%d.%d", LIBJPEG_TURBO_VERSION_NUMBER / 1000000,
		 LIBJPEG_TURBO_VERSION_NUMBER / 1000 % 1000, LIBJPEG_TURBO_VERSION_NUMBER % 1000);
	set_str(lib, "libjpeg_turbo", buf);
#elif defined(LIBJPEG_TURBO_VERSION)
	set_str(lib, "libjpeg_turbo", STR(LIBJPEG_TURBO_VERSION));
#endif
	snprintf(buf, sizeof(buf), "%d", JPEG_LIB_VERSION);
	set_str(lib, "libjpeg_api", buf);
	set_str(lib, "libpng", PNG_LIBPNG_VER_STRING);
	set_str(lib, "libpng_runtime", png_get_libpng_ver(NULL));
	snprintf(buf, sizeof(buf), "%u.%u.%u", HWLOC_API_VERSION >> 16,
		 (HWLOC_API_VERSION >> 8) & 0xff, HWLOC_API_VERSION & 0xff);
	set_str(lib, "hwloc_api", buf);
	{
		unsigned r = hwloc_get_api_version();
		snprintf(buf, sizeof(buf), "%u.%u.%u", r >> 16, (r >> 8) & 0xff, r & 0xff);
		set_str(lib, "hwloc_api_runtime", buf);
	}
	set_str(lib, "jansson", JANSSON_VERSION);
#if JANSSON_VERSION_HEX >= 0x020d00
	set_str(lib, "jansson_runtime", jansson_version_str());
#endif
	json_object_set_new(m, "libraries", lib);

	clk = json_object();
	set_str(clk, "source", clock_source());
	json_object_set_new(clk, "resolution_ns", json_integer((json_int_t)clock_resolution_ns()));
	json_object_set_new(clk, "read_cost_ns", json_real(clock_read_cost_ns()));
	json_object_set_new(m, "clock", clk);
	return m;
}
