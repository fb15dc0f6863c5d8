// Storing a computed value in its dtype: floats rounded once, integers wrapped (spec/numerics.md).
// The one home of these two rules for the kernels (elementwise, reduce, scatter, cast, the
// accumulating contractions through accumulate.h).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ir/dtype.h"
#include "runtime/cpu/ref/dispatch.h"

namespace plumb::rt::ref {

// Rounds x once to the float storage type T, nearest-even, without saturation (spec/numerics.md
// "Narrow floats"): overflow gives inf where the format has one, else NaN; f4e2m1 (no inf, no NaN)
// saturates. Other T: a plain conversion.
template <typename T>
T round_to(double x) {
  if constexpr (std::is_same_v<T, f16>)
    return to_f16(x);
  else if constexpr (std::is_same_v<T, bf16>)
    return to_bf16(x);
  else if constexpr (std::is_same_v<T, f8e4m3fn>)
    return to_f8e4m3fn(x, false);
  else if constexpr (std::is_same_v<T, f8e4m3fnuz>)
    return to_f8e4m3fnuz(x, false);
  else if constexpr (std::is_same_v<T, f8e5m2>)
    return to_f8e5m2(x, false);
  else if constexpr (std::is_same_v<T, f8e5m2fnuz>)
    return to_f8e5m2fnuz(x, false);
  else if constexpr (std::is_same_v<T, f8e8m0>)
    return to_f8e8m0(x, false, Rounding::kNearestEven);
  else if constexpr (std::is_same_v<T, f4e2m1>)
    return to_f4e2m1(x, true);
  else
    return static_cast<T>(x);
}

// v (computed modulo 2^64) wrapped to `bits` two's complement bits; sign-extended when T is
// signed (sub-byte dtypes live in one byte, sign-extended).
template <typename T>
T wrap_bits(uint64_t v, int bits) {
  if (bits < 64) {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    v &= mask;
    if (std::is_signed_v<T> && (v >> (bits - 1)) != 0) v |= ~mask;
  }
  return static_cast<T>(v);  // modulo 2^N (GCC/Clang define the signed case)
}

// v wrapped to the bits of integer dtype `dt`, sign- or zero-extended to 64 bits as dt says (the
// storage type then holds it exactly).
inline uint64_t wrap_to(ir::DType dt, uint64_t v) {
  return ir::is_signed_int(dt) ? static_cast<uint64_t>(wrap_bits<int64_t>(v, ir::dtype_bits(dt)))
                               : wrap_bits<uint64_t>(v, ir::dtype_bits(dt));
}

}  // namespace plumb::rt::ref
