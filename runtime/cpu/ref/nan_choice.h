// Which NaN a result carries, made explicit where ref's kernels compute several results at once.
// IEEE 754 leaves open which operand's NaN an operation with two NaN operands returns
// (spec/numerics.md: the bit pattern is not specified; a NaN stays a NaN), and x86 returns its
// first source operand's. ref's scalar kernels before issue 17 took whatever operand order GCC
// gave them; vectorized or blocked code may get another. These helpers pin the choice down so
// that the new kernels give the old bits, NaN payloads included, whatever the compiler does.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace plumb::rt::ref {

// x (a NaN) with its quiet bit set, as an IEEE operation returns a NaN operand.
template <typename A>
inline A quieted(A x) {
  if constexpr (std::is_same_v<A, float>) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits |= uint32_t{1} << 22;
    std::memcpy(&x, &bits, sizeof bits);
  } else {
    static_assert(std::is_same_v<A, double>, "quieted: f32 or f64");
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits |= uint64_t{1} << 51;
    std::memcpy(&x, &bits, sizeof bits);
  }
  return x;
}

// r = a <op> b as x86 gives it with a as the first source operand: a's NaN when a is NaN (b's
// when only b is, and the default NaN for inf - inf and the like come out of r as computed).
template <typename A>
inline A first_operand_nan(A a, A r) {
  return a != a ? quieted(a) : r;
}

// IEEE 754-2019 maximum and minimum as ref's kernels define them (binary max/min, reduce and
// pool max, spec/numerics.md): a NaN operand itself, x's first (not quieted: a select, no
// arithmetic); max(-0, +0) = +0 and min(-0, +0) = -0; else the larger / smaller operand. Written
// as selects, so that loops over them vectorize: for two zeros, x + z is their max (-0 + +0 = +0,
// -0 + -0 = -0) and -(-x + -z) their min; equal non-zero operands have the same bits. Integers
// too (no NaN, no -0).
template <typename A>
inline A max_of(A x, A z) {
  A r = x > z ? x : z;
  if constexpr (std::is_floating_point_v<A>) r = x == 0 && z == 0 ? x + z : r;
  return x != x ? x : r;
}
template <typename A>
inline A min_of(A x, A z) {
  A r = x < z ? x : z;
  if constexpr (std::is_floating_point_v<A>) r = x == 0 && z == 0 ? -(-x + -z) : r;
  return x != x ? x : r;
}

}  // namespace plumb::rt::ref
