// ref's reduce kernel as it was before issue 17 (main at f3e2b4c: runtime/cpu/ref/reduce.cpp
// without arg_reduce and scan), kept verbatim as the baseline of its runs
// (tests/ref_baseline/baseline_kernels.h). Never shipped.
// ref kernels of the reductions: reduce, arg_reduce, scan (spec/ops/reduce.md, arg_reduce.md,
// scan.md). Accumulation follows the spec: f16/bf16/f8/f4 and f32 accumulate in f32, f64 in f64,
// integers in their own type, wrapping; the order is sequential, row-major, fixed.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/round_wrap.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_baseline {
using namespace plumb::rt::ref;

namespace {

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

// Splits a shape at `axis` into (elements before, extent, elements after).
struct AxisSplit {
  int64_t outer = 1, extent = 1, inner = 1;
  AxisSplit(const std::vector<int64_t>& shape, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      (d < axis ? outer : d == axis ? extent : inner) *= shape[d];
  }
};

}  // namespace

// spec/ops/reduce.md: result[kept] = acc over reduced indices in row-major order.
Status reduce(ref::KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const auto kind = ir::attrs<ir::Op::Reduce>(cx.node).kind;
  const std::vector<int64_t>& axes = ir::attrs<ir::Op::Reduce>(cx.node).axes;
  // Each operand index maps to the result offset of its kept dims; reduced dims have stride 0.
  std::vector<int64_t> to_result(operand.shape.size(), 0);
  int64_t reduced_n = 1, stride = 1;
  for (int64_t d = operand.rank() - 1; d >= 0; --d) {
    bool reduced = false;
    for (int64_t a : axes) reduced |= a == d;
    if (reduced) {
      reduced_n *= operand.shape[d];
    } else {
      to_result[d] = stride;
      stride *= operand.shape[d];
    }
  }
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return internal_error("reduce: string operand passed the verifier");
    } else {
      using A = acc_t<T>;
      // A float sum starts from -0 (x + -0 == x for every x, so a sum of -0s stays -0); an empty
      // sum is +0.
      A start = identity<A>(kind, operand.dtype);
      if constexpr (std::is_floating_point_v<A>)
        if (kind == ir::ReduceKind::Sum && reduced_n > 0) start = A(-0.0);
      std::vector<A> acc(static_cast<size_t>(result.numel()), start);
      const T* src = operand.as<T>();
      for (IndexIter it(operand.shape); !it.done(); it.next()) {
        const int64_t r = offset_of(it.index(), to_result);  // (vector<bool> has no A&)
        acc[r] = combine<A>(kind, acc[r], load<A>(src[it.flat()]));
      }
      T* dst = result.as<T>();
      for (size_t i = 0; i < acc.size(); ++i) dst[i] = store<T>(acc[i], operand.dtype);
      return Status::ok();
    }
  });
}

}  // namespace plumb::rt::ref_baseline
