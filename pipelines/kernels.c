/* Which kernels run: PPBENCH_KERNEL, else the widest the CPU has (kernels.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"

static const struct kernels *const table[KERNEL_COUNT] = { &kernels_sse2, &kernels_avx2,
							     &kernels_avx512, &kernels_avx512vnni };
static const struct kernels *active;
static char chosen_by[64] = "auto";

const struct kernels *kernels_of(enum kernel_id id)
{
	return table[id];
}

int kernels_supported(enum kernel_id id, const char **why)
{
	const char *lack = NULL;
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (id >= KERNEL_AVX2 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
		lack = "this CPU has no AVX2 with FMA";
	else if (id >= KERNEL_AVX512 && !(__builtin_cpu_supports("avx512f") &&
					  __builtin_cpu_supports("avx512bw") &&
					  __builtin_cpu_supports("avx512vl")))
		lack = "this CPU has no AVX-512 F+BW+VL";
	else if (id == KERNEL_AVX512VNNI && !(__builtin_cpu_supports("avx512vnni") &&
					      __builtin_cpu_supports("avx512vbmi")))
		lack = "this CPU has no AVX-512 VNNI with VBMI";
#else
	if (id != KERNEL_SSE2)
		lack = "not an x86 CPU";
#endif
	if (why)
		*why = lack;
	return !lack;
}

enum kernel_id kernels_best(void)
{
	for (int id = KERNEL_COUNT - 1; id > 0; id--)
		if (kernels_supported((enum kernel_id)id, NULL))
			return (enum kernel_id)id;
	return KERNEL_SSE2;
}

const struct kernels *kernels_active(void)
{
	const struct kernels *k = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	if (!k) {
		/* racing first calls all store the same table */
		k = table[kernels_best()];
		__atomic_store_n(&active, k, __ATOMIC_RELEASE);
	}
	return k;
}

int kernels_use(const char *name, char *err, size_t errlen)
{
	if (!strcmp(name, "auto")) {
		active = table[kernels_best()];
		snprintf(chosen_by, sizeof(chosen_by), "auto");
		return 0;
	}
	for (int id = 0; id < KERNEL_COUNT; id++) {
		if (strcmp(name, table[id]->name))
			continue;
		const char *why;
		if (!kernels_supported((enum kernel_id)id, &why)) {
			snprintf(err, errlen, "kernel '%s' cannot run here: %s (use auto or sse2)", name, why);
			return -1;
		}
		active = table[id];
		snprintf(chosen_by, sizeof(chosen_by), "forced %s", name);
		return 0;
	}
	char names[128];
	size_t l = 0;
	for (int id = 0; id < KERNEL_COUNT && l < sizeof(names); id++)
		l += (size_t)snprintf(names + l, sizeof(names) - l, "%s, ", table[id]->name);
	snprintf(err, errlen, "unknown kernel '%s' (kernels: %sauto)", name, names);
	return -1;
}

int kernels_from_env(char *err, size_t errlen)
{
	const char *e = getenv("PPBENCH_KERNEL");
	if (!e || !*e)
		return 0;
	char why[256];
	if (kernels_use(e, why, sizeof(why))) {
		snprintf(err, errlen, "PPBENCH_KERNEL: %s", why);
		return -1;
	}
	snprintf(chosen_by, sizeof(chosen_by), "PPBENCH_KERNEL=%.40s", e);
	return 0;
}

const char *kernels_chosen_by(void)
{
	return chosen_by;
}

void kernels_restore(const struct kernels *k, const char *chosen)
{
	active = k;
	if (chosen != chosen_by)
		snprintf(chosen_by, sizeof(chosen_by), "%s", chosen);
}

void kernels_describe(char *out, size_t n)
{
	size_t l = (size_t)snprintf(out, n, "%s (%s; ", kernels_active()->name,
				    !strcmp(chosen_by, "auto") ? "auto: the widest this CPU runs" : chosen_by);
	for (int id = 0; id < KERNEL_COUNT && l < n; id++) {
		const char *why;
		int ok = kernels_supported((enum kernel_id)id, &why);
		l += (size_t)snprintf(out + l, n - l, "%s%s %s", id ? ", " : "", table[id]->name,
				      ok ? "yes" : why);
	}
	if (l < n)
		snprintf(out + l, n - l, ")");
}
