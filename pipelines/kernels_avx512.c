/* The AVX-512 kernels (built with -mavx512f -mavx512bw -mavx512vl -O3; run
 * only where the CPU has all three). */
#define KERNEL_NAME avx512
#define KERNEL_STR "avx512"
#include "kernels_body.h"
