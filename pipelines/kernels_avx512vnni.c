/* The AVX-512 kernels with VNNI and VBMI (built with the avx512 flags and
 * -mavx512vnni -mavx512vbmi; run only where the CPU has all five): the
 * avx512 kernels, and the resampler's sums with weights split in three
 * bytes through vpdpbusd (kernels_body.h). */
#define KERNEL_NAME avx512vnni
#define KERNEL_STR "avx512vnni"
#include "kernels_body.h"
