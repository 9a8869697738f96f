/* The AVX2 kernels (built with -mavx2 -O3; run only where the CPU has AVX2). */
#define KERNEL_NAME avx2
#define KERNEL_STR "avx2"
#include "kernels_body.h"
