/* NumPy .npy files (format 1.0 written; 1.0, 2.0 and 3.0 read), C order,
 * little-endian dtypes only: "|u1" (uint8) and "<f4" (float32) as the
 * harness writes them, and any "|u1", "|i1", "<u2", "<i2", "<f4", "<i4",
 * "<u4", "<f8", "<i8", "<u8" when reading. */
#ifndef PPBENCH_NPY_H
#define PPBENCH_NPY_H

#include <stddef.h>

#define NPY_MAX_DIM 8

/* An array read by npy_read. */
struct npy {
	char dtype[8];               /* the descr, e.g. "|u1", "<f4" */
	size_t itemsize;             /* bytes per element */
	int ndim;
	size_t shape[NPY_MAX_DIM];
	size_t count;                /* elements: the product of shape */
	void *data;                  /* count * itemsize bytes, malloc'ed */
};

/* Write data (C order, shape[0..ndim-1]) with dtype "|u1" or "<f4". 0, or
 * -1 with err ("cannot write 'x.npy': No space left on device"). */
int npy_write(const char *path, const char *dtype, const size_t *shape, int ndim,
	      const void *data, char *err, size_t errlen);

/* Read a whole .npy file into *a (free it with npy_free). 0, or -1 with err. */
int npy_read(const char *path, struct npy *a, char *err, size_t errlen);
void npy_free(struct npy *a);

#endif
