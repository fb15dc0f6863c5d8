// The per-element definition of reduce (spec/ops/reduce.md, spec/numerics.md): the accumulator
// type, loading and storing an element, the identities and one accumulation step. ref's reduce,
// arg_reduce and scan (reduce.cpp) and the baseline reduce of tests/ref_baseline share it, so
// tests/ref_bits compares ref's runs with the old element-by-element loop, not these definitions
// with a copy of themselves.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ir/attrs.h"
#include "ir/dtype.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/round_wrap.h"

namespace plumb::rt::ref::reduce_scalar {

// The accumulator type the spec names for storage type T.
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                 std::conditional_t<is_float_storage_v<T>, float, T>>;

template <typename A, typename T>
A load(const T& x) {
  if constexpr (is_narrow_float_v<T>) {
    return static_cast<A>(to_f64(x));  // exact
  } else {
    return static_cast<A>(x);
  }
}

// Rounds a float accumulator once to T; wraps an integer accumulator to the dtype's bits
// (round_wrap.h).
template <typename T, typename A>
T store(A a, ir::DType dt) {
  if constexpr (is_narrow_float_v<T>)
    return round_to<T>(static_cast<double>(a));
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(wrap_to(dt, static_cast<uint64_t>(a)));
  else
    return static_cast<T>(a);
}

template <typename A>
bool is_nan(A x) {
  if constexpr (std::is_floating_point_v<A>)
    return std::isnan(x);
  else
    return false;
}

// The smallest / largest value of an integer dtype held in storage type A.
template <typename A>
A int_limit(ir::DType dt, bool largest) {
  const int bits = ir::dtype_bits(dt);
  if (bits >= 8) return largest ? std::numeric_limits<A>::max() : std::numeric_limits<A>::min();
  if (ir::is_signed_int(dt)) return static_cast<A>(largest ? (1 << (bits - 1)) - 1 : -(1 << (bits - 1)));
  return static_cast<A>(largest ? (1 << bits) - 1 : 0);
}

// spec/ops/reduce.md "Identities": sum 0, prod 1, max -inf / the minimum, min +inf / the maximum.
template <typename A>
A identity(ir::ReduceKind kind, ir::DType dt) {
  if (kind == ir::ReduceKind::Sum) return A(0);
  if (kind == ir::ReduceKind::Prod) return A(1);
  const bool is_max = kind == ir::ReduceKind::Max;
  if constexpr (std::is_same_v<A, bool>)
    return !is_max;
  else if constexpr (std::is_floating_point_v<A>)
    return is_max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
  else
    return int_limit<A>(dt, !is_max);
}

// One accumulation step. Integers wrap (computed modulo 2^64, then narrowed); max/min propagate
// NaN and order -0 below +0 (IEEE 754-2019 maximum/minimum), so they do not depend on order.
template <typename A>
A combine(ir::ReduceKind kind, A acc, A x) {
  if (kind == ir::ReduceKind::Sum || kind == ir::ReduceKind::Prod) {
    const bool sum = kind == ir::ReduceKind::Sum;
    if constexpr (std::is_integral_v<A>) {
      const uint64_t a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(x);
      return static_cast<A>(sum ? a + b : a * b);
    } else {
      return sum ? acc + x : acc * x;
    }
  }
  if (is_nan(acc)) return acc;
  if (is_nan(x)) return x;
  const bool is_max = kind == ir::ReduceKind::Max;
  if (is_max ? x > acc : x < acc) return x;
  if constexpr (std::is_floating_point_v<A>)
    if (x == 0 && acc == 0 && std::signbit(acc) != std::signbit(x)) return is_max ? A(0) : A(-0.0);
  return acc;
}

// Where each operand element goes: the result stride of each operand dim, 0 where the dim is
// reduced; and how many operand elements each result element accumulates.
struct Reduction {
  Dims to_result;
  int64_t reduced_n = 1;
};

inline Reduction reduction_of(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes) {
  Reduction r;
  r.to_result = Dims(shape.size(), 0);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    bool reduced = false;
    for (int64_t a : axes) reduced |= a == d;
    if (reduced) {
      r.reduced_n *= shape[d];
    } else {
      r.to_result[d] = stride;
      stride *= shape[d];
    }
  }
  return r;
}

// The accumulators' start: the identity, but a float sum over at least one element starts from
// -0 (x + -0 == x for every x, so a sum of -0s stays -0); an empty sum is +0.
template <typename A>
A start_of(ir::ReduceKind kind, ir::DType dt, int64_t reduced_n) {
  A start = identity<A>(kind, dt);
  if constexpr (std::is_floating_point_v<A>)
    if (kind == ir::ReduceKind::Sum && reduced_n > 0) start = A(-0.0);
  return start;
}

}  // namespace plumb::rt::ref::reduce_scalar
