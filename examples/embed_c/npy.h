/* Reading a NumPy .npy file (format versions 1 to 3) into a buffer the C API can bind: the dtype
 * as a plumb_dtype, the shape, and the data, row-major in this machine's byte order. */
#ifndef PLUMB_EXAMPLE_NPY_H
#define PLUMB_EXAMPLE_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "plumb.h"

#define NPY_MAX_RANK 16

typedef struct npy_array {
  plumb_dtype dtype;
  size_t rank;
  int64_t dims[NPY_MAX_RANK];
  void* data; /* malloc'd, aligned for the dtype; free with npy_free */
  size_t bytes;
} npy_array;

/* 0 on success; otherwise -1 with a one-line reason in `error` (`error_size` bytes). */
int npy_read(const char* path, npy_array* out, char* error, size_t error_size);
void npy_free(npy_array* a);

#endif /* PLUMB_EXAMPLE_NPY_H */
