/* print.h: a run's outputs, one line each. Integers are printed through the standard long and long
 * long formats, not <inttypes.h>'s PRId64: Debian's gcc-arm-none-eabi pairs newlib's inttypes.h
 * with GCC's own stdint.h, which leaves the 64-bit PRI macros undefined. */
#include "print.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One element of type T at p, printed through FORMAT (after a cast to CAST, for printf). */
#define PRINT_AS(T, FORMAT, CAST) \
  {                               \
    T v;                          \
    memcpy(&v, p, sizeof v);      \
    printf(FORMAT, (CAST)v);      \
    break;                        \
  }

static void print_value(plumb_dtype dtype, const uint8_t* p) {
  switch (dtype) {
    case PLUMB_F32: PRINT_AS(float, "%.9g", double)
    case PLUMB_F64: PRINT_AS(double, "%.17g", double)
    case PLUMB_BOOL:
    case PLUMB_U2:
    case PLUMB_U4:
    case PLUMB_U8: PRINT_AS(uint8_t, "%u", unsigned)
    case PLUMB_I2:
    case PLUMB_I4:
    case PLUMB_I8: PRINT_AS(int8_t, "%d", int)
    case PLUMB_I16: PRINT_AS(int16_t, "%d", int)
    case PLUMB_U16: PRINT_AS(uint16_t, "%u", unsigned)
    case PLUMB_I32: PRINT_AS(int32_t, "%ld", long)
    case PLUMB_U32: PRINT_AS(uint32_t, "%lu", unsigned long)
    case PLUMB_I64: PRINT_AS(int64_t, "%lld", long long)
    case PLUMB_U64: PRINT_AS(uint64_t, "%llu", unsigned long long)
    default: { /* f16, bf16, the f8 and f4 kinds: the bits */
      unsigned bits = 0;
      for (size_t b = plumb_dtype_size(dtype); b-- > 0;) bits = bits << 8 | p[b];
      printf("0x%0*x", (int)(2 * plumb_dtype_size(dtype)), bits);
    }
  }
}

void print_output(plumb_model* m, size_t k, const void* bound) {
  plumb_tensor_info info;
  const void* data = NULL;
  size_t bytes = 0;
  if (plumb_model_output_info(m, k, &info) != PLUMB_OK ||
      plumb_model_output_data(m, k, &data, &bytes) != PLUMB_OK)
    return;
  if (bound) data = bound;
  printf("output %lu '%s' %s[", (unsigned long)k, info.name, plumb_dtype_name(info.dtype));
  for (size_t d = 0; d < info.rank; ++d) printf(d ? ",%lld" : "%lld", (long long)info.dims[d]);
  printf("]:");
  const size_t elem = plumb_dtype_size(info.dtype);
  for (size_t i = 0; elem && i < bytes / elem; ++i) {
    putchar(' ');
    print_value(info.dtype, (const uint8_t*)data + i * elem);
  }
  putchar('\n');
}
