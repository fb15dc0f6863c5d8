// Decimal <-> narrow float encodings for constants in the text form (ir/text.cpp). The runtime has
// its own conversions (runtime/cpu/ref/float_formats.h); ir must not depend on runtime, so this is
// a small independent implementation (and the text tests cross-check it against hand-computed bits).
#pragma once

#include <cstdint>
#include <optional>

#include "ir/dtype.h"

namespace plumb::ir {

// The value of the bit pattern `bits` of float dtype `dt` (f4e2m1, f8*, f16, bf16, f32, f64),
// exactly. NaN patterns give a NaN.
double float_bits_to_double(DType dt, uint64_t bits);

// `x` rounded to nearest, ties to even, in float dtype `dt`; nullopt when the dtype cannot hold it
// (overflow or inf in a format without inf, NaN in f4e2m1, anything but a power of two or NaN in
// f8e8m0). Overflow in a format with inf (f16, bf16, f8e5m2, f32) gives inf. NaN gives the
// canonical NaN (canonical_nan_bits).
std::optional<uint64_t> double_to_float_bits(DType dt, double x);

// The NaN pattern `nan` stands for in the text form; nullopt for f4e2m1 (no NaN).
std::optional<uint64_t> canonical_nan_bits(DType dt);

// Number of storage bits of a float dtype's pattern (4, 8, 16, 32, 64).
int float_bits_width(DType dt);

}  // namespace plumb::ir
