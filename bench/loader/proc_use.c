/* A process's CPU time, system time and page faults so far (loader.h):
 * the main side and the workers (worker.c) read their usage here. */
#include <sys/resource.h>
#include "loader_int.h"

int proc_use_now(struct proc_use *u, int who)
{
	struct rusage ru;
	if (getrusage(who, &ru))
		return -1;
	u->sys_s = tv_s(ru.ru_stime);
	u->cpu_s = tv_s(ru.ru_utime) + u->sys_s;
	u->faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
	return 0;
}
