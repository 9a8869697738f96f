/* The SSE2 kernels: the x86-64 baseline, always available (kernels.h). */
#define KERNEL_NAME sse2
#define KERNEL_STR "sse2"
#include "kernels_body.h"
