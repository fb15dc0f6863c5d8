// Accumulator helpers shared by the contraction and window kernels (matmul, conv, pool) and their
// baselines (tests/ref_baseline): widening a tensor's elements into the accumulator type the spec
// names, and rounding/wrapping them back.
//   Floating accumulators: float (f32, f16, bf16, f8 operands) or double (f64 operands, precise mode).
//   Integer accumulators: uint32_t / uint64_t, i.e. arithmetic modulo 2^32 / 2^64, which is exact
//   for a result that wraps (two's complement) to 32 / 64 bits or fewer.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/round_wrap.h"
#include "runtime/value.h"

namespace plumb::rt::ref {

// dst[i] = A(t[first + i]) for i < n: exact for every combination the verifier admits.
template <typename A>
void load_as(const Tensor& t, int64_t first, int64_t n, A* dst) {
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
      return;  // excluded by the dtype tables
    } else {
      const T* src = t.as<T>() + first;
      if constexpr (is_narrow_float_v<T>) {
        if constexpr (std::is_floating_point_v<A>)
          for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<A>(to_f64(src[i]));
      } else if constexpr (std::is_floating_point_v<T> == std::is_floating_point_v<A>) {
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<A>(src[i]);  // ints: modulo 2^bits(A)
      }
    }
  });
}

// t[first + i] = round_or_wrap(src[i]) for i < n: floats rounded once to nearest-even, integers
// wrapped to the dtype's width.
template <typename A>
void store_from(const A* src, int64_t n, Tensor& t, int64_t first) {
  const ir::DType dt = t.dtype;
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = t.as<T>() + first;
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      for (int64_t i = 0; i < n; ++i) dst[i] = round_to<T>(static_cast<double>(src[i]));
    } else if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<A>) {
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i]);
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_integral_v<A>) {
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(wrap_to(dt, static_cast<uint64_t>(src[i])));
    }
  });
}

// True when tensors of `dt` hold accumulator type A as they are (f32 for float, f64 for double).
template <typename A>
constexpr bool is_acc_dtype(ir::DType dt) {
  return dt == (std::is_same_v<A, float>    ? ir::DType::F32
                : std::is_same_v<A, double> ? ir::DType::F64
                                            : ir::DType::String);
}

// The elements of `t` in accumulator type A: `t`'s own storage when it already is A, else `copy`
// (t.numel() elements of the kernel's scratch, or null when is_acc_dtype) filled with them.
template <typename A>
const A* widened(const Tensor& t, A* copy) {
  if (is_acc_dtype<A>(t.dtype)) return t.as<A>();
  load_as<A>(t, 0, t.numel(), copy);
  return copy;
}

// The elements of `t` in accumulator type A: `t`'s own storage when it already is A, else a copy.
template <typename A>
class Widened {
 public:
  explicit Widened(const Tensor& t) {
    if (t.dtype == (std::is_same_v<A, float>    ? ir::DType::F32
                    : std::is_same_v<A, double> ? ir::DType::F64
                                                : ir::DType::String)) {
      ptr_ = t.as<A>();
    } else {
      copy_.resize(static_cast<size_t>(t.numel()));
      load_as<A>(t, 0, t.numel(), copy_.data());
      ptr_ = copy_.data();
    }
  }
  const A* data() const { return ptr_; }

 private:
  std::vector<A> copy_;
  const A* ptr_ = nullptr;
};

// A pool window element as the double its comparisons read (exact).
template <typename T>
double as_double(T x) {
  if constexpr (is_narrow_float_v<T>)
    return to_f64(x);
  else
    return static_cast<double>(x);
}

// The value of an empty max window: -inf for floats, the dtype's lowest value for integers.
template <typename T>
T lowest(ir::DType dt) {
  if constexpr (std::is_same_v<T, f16>)
    return to_f16(-INFINITY);
  else if constexpr (std::is_same_v<T, bf16>)
    return to_bf16(-INFINITY);
  else if constexpr (std::is_floating_point_v<T>)
    return -std::numeric_limits<T>::infinity();
  else if constexpr (std::is_signed_v<T>)
    return static_cast<T>(-(int64_t{1} << (ir::dtype_bits(dt) - 1)));
  else
    return T(0);
}

// The running maximum of a max-pool window over the elements at the offsets it takes, in the
// window's order: the first NaN wins; -0 < +0 (IEEE maximum, as reduce max), so the value does not
// depend on the window order. best: the winner's offset, -1 while the window is empty.
template <typename T>
struct WindowMax {
  int64_t best = -1;
  bool best_nan = false;
  double best_v = 0;
  void take(const T* src, int64_t off) {
    if (best_nan) return;
    if constexpr (is_float_storage_v<T>) {
      const double v = as_double(src[off]);
      const bool above = v > best_v || (v == 0 && best_v == 0 && std::signbit(best_v) && !std::signbit(v));
      if (best < 0 || std::isnan(v) || above) best = off, best_v = v, best_nan = std::isnan(v);
    } else {
      if (best < 0 || src[off] > src[best]) best = off;
    }
  }
  T value(const T* src, ir::DType dt) const { return best >= 0 ? src[best] : lowest<T>(dt); }
};

}  // namespace plumb::rt::ref
