/* The .npy format (numpy.lib.format): the magic "\x93NUMPY", a version (major 1: a 2-byte header
 * length; 2 and 3: 4 bytes), then a Python dict literal with 'descr' (e.g. '<f4'),
 * 'fortran_order' and 'shape', then the data. Everything a file claims is checked against its
 * size before it is used. */
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char* error, size_t error_size, const char* path, const char* why) {
  snprintf(error, error_size, "%s: %s", path, why);
  return -1;
}

static int little_endian_host(void) {
  const uint16_t one = 1;
  return *(const uint8_t*)&one == 1;
}

/* 'descr' -> a plumb dtype: the byte order ('<', '|', '=' or '>'), the kind and the size. */
static int parse_descr(const char* d, plumb_dtype* dtype) {
  static const struct {
    const char* code;
    plumb_dtype dtype;
  } kTypes[] = {{"b1", PLUMB_BOOL}, {"i1", PLUMB_I8},  {"i2", PLUMB_I16}, {"i4", PLUMB_I32},
                {"i8", PLUMB_I64},  {"u1", PLUMB_U8},  {"u2", PLUMB_U16}, {"u4", PLUMB_U32},
                {"u8", PLUMB_U64},  {"f2", PLUMB_F16}, {"f4", PLUMB_F32}, {"f8", PLUMB_F64}};
  const char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return -1;
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i) {
    if (strcmp(d + 1, kTypes[i].code) != 0) continue;
    const int multi_byte = kTypes[i].code[1] != '1';
    if (multi_byte && (order == '>' ? little_endian_host() : order == '<' ? !little_endian_host() : 0))
      return -2; /* another byte order than this machine's */
    *dtype = kTypes[i].dtype;
    return 0;
  }
  return -1;
}

/* The quoted value after 'key': in the header dict, copied into `value`. */
static int dict_string(const char* header, const char* key, char* value, size_t size) {
  const char* p = strstr(header, key);
  if (!p) return -1;
  p = strchr(p + strlen(key), ':');
  if (!p) return -1;
  while (*++p == ' ') {
  }
  if (*p != '\'' && *p != '"') return -1;
  const char quote = *p++;
  size_t n = 0;
  while (p[n] && p[n] != quote) ++n;
  if (!p[n] || n + 1 > size) return -1;
  memcpy(value, p, n);
  value[n] = '\0';
  return 0;
}

static int parse_shape(const char* header, npy_array* a) {
  const char* p = strstr(header, "'shape'");
  if (!p) return -1;
  p = strchr(p, '(');
  if (!p) return -1;
  ++p;
  a->rank = 0;
  for (;;) {
    while (*p == ' ' || *p == ',') ++p;
    if (*p == ')') return 0;
    char* end = NULL;
    const long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || a->rank == NPY_MAX_RANK) return -1;
    a->dims[a->rank++] = v;
    p = end;
    if (*p == 'L') ++p; /* Python 2 long */
  }
}

int npy_read(const char* path, npy_array* out, char* error, size_t error_size) {
  memset(out, 0, sizeof *out);
  FILE* f = fopen(path, "rb");
  if (!f) return fail(error, error_size, path, "cannot open");
  unsigned char head[12];
  if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return fail(error, error_size, path, "not an .npy file (no \\x93NUMPY magic)");
  }
  size_t header_len = 0, prefix = 10;
  if (head[6] == 1) {
    header_len = (size_t)head[8] | (size_t)head[9] << 8;
  } else if (head[6] == 2 || head[6] == 3) {
    if (fread(head + 10, 1, 2, f) != 2) {
      fclose(f);
      return fail(error, error_size, path, "truncated header");
    }
    header_len = (size_t)head[8] | (size_t)head[9] << 8 | (size_t)head[10] << 16 | (size_t)head[11] << 24;
    prefix = 12;
  } else {
    fclose(f);
    return fail(error, error_size, path, "unknown .npy format version");
  }
  if (header_len > 65536) {
    fclose(f);
    return fail(error, error_size, path, "header longer than 64 KiB");
  }
  char* header = malloc(header_len + 1);
  if (!header || fread(header, 1, header_len, f) != header_len) {
    free(header);
    fclose(f);
    return fail(error, error_size, path, "truncated header");
  }
  header[header_len] = '\0';
  char descr[16], why[160];
  int bad = 0;
  if (dict_string(header, "'descr'", descr, sizeof descr) != 0) {
    bad = fail(error, error_size, path, "header has no 'descr'");
  } else if (parse_descr(descr, &out->dtype) != 0) {
    snprintf(why, sizeof why,
             "dtype '%s' is not one plumb reads here (bool, ints, f16, f32, f64 in this byte order)", descr);
    bad = fail(error, error_size, path, why);
  } else if (strstr(header, "'fortran_order': True")) {
    bad = fail(error, error_size, path, "fortran_order arrays are not read (save the array C-contiguous)");
  } else if (parse_shape(header, out) != 0) {
    bad = fail(error, error_size, path, "cannot read 'shape'");
  }
  free(header);
  if (bad) {
    fclose(f);
    return bad;
  }
  size_t count = 1;
  for (size_t d = 0; d < out->rank; ++d) {
    const size_t n = (size_t)out->dims[d];
    if (n && count > SIZE_MAX / 16 / n) {
      fclose(f);
      return fail(error, error_size, path, "shape too large");
    }
    count *= n;
  }
  out->bytes = count * plumb_dtype_size(out->dtype);
  /* The data follows the header; the file must hold exactly that much. */
  if (fseek(f, 0, SEEK_END) != 0 || ftell(f) < 0 || (size_t)ftell(f) != prefix + header_len + out->bytes) {
    fclose(f);
    return fail(error, error_size, path, "file size does not match the header's dtype and shape");
  }
  fseek(f, (long)(prefix + header_len), SEEK_SET);
  out->data = malloc(out->bytes ? out->bytes : 1); /* malloc aligns for every dtype */
  if (!out->data || fread(out->data, 1, out->bytes, f) != out->bytes) {
    fclose(f);
    npy_free(out);
    return fail(error, error_size, path, "cannot read the data");
  }
  fclose(f);
  return 0;
}

void npy_free(npy_array* a) {
  free(a->data);
  a->data = NULL;
}
