// ref kernels of the reductions: reduce, arg_reduce, scan (spec/ops/reduce.md, arg_reduce.md,
// scan.md). Accumulation follows the spec: f16/bf16/f8/f4 and f32 accumulate in f32, f64 in f64,
// integers in their own type, wrapping; the order is sequential, row-major, fixed.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/attr_ref.h"
#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/contract.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/nan_choice.h"
#include "runtime/cpu/ref/reduce_scalar.h"
#include "runtime/cpu/ref/round_wrap.h"
#include "runtime/cpu/ref/scratch.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

using namespace reduce_scalar;  // the kernels are written in its terms

namespace {

// One accumulation step of `kind` as combine() computes it, the kind fixed, so that a loop over
// it vectorizes: float sum and prod pin a NaN result to the accumulator's NaN when both are NaN
// (nan_choice.h, as `acc + x` compiled before issue 17), max and min are max_of / min_of (the same
// as combine's: the first NaN, -0 < +0).
template <typename A, ir::ReduceKind kind>
struct Step {
  A operator()(A acc, A x) const {
    if constexpr (std::is_floating_point_v<A> && kind == ir::ReduceKind::Sum)
      return first_operand_nan(acc, acc + x);
    else if constexpr (std::is_floating_point_v<A> && kind == ir::ReduceKind::Prod)
      return first_operand_nan(acc, acc * x);
    else if constexpr (std::is_floating_point_v<A> && kind == ir::ReduceKind::Max)
      return max_of(acc, x);
    else if constexpr (std::is_floating_point_v<A> && kind == ir::ReduceKind::Min)
      return min_of(acc, x);
    else
      return combine<A>(kind, acc, x);
  }
};

// run(Step<A, kind>{}) with `kind` as a template argument, so that each kind's loop is compiled
// with its step fixed.
template <typename A, typename Run>
void with_step(ir::ReduceKind kind, Run run) {
  switch (kind) {
    case ir::ReduceKind::Sum: return run(Step<A, ir::ReduceKind::Sum>{});
    case ir::ReduceKind::Prod: return run(Step<A, ir::ReduceKind::Prod>{});
    case ir::ReduceKind::Max: return run(Step<A, ir::ReduceKind::Max>{});
    case ir::ReduceKind::Min: return run(Step<A, ir::ReduceKind::Min>{});
  }
}

// acc[result offset of i] = step(acc[...], operand[i]) for every operand index i, row-major (so
// each result sees its reduced elements in row-major order, spec/ops/reduce.md), in runs: the
// operand's dims merged where they continue each other and are both reduced or both kept
// (to_result: the result stride of each dim, 0 where reduced), the last merged dim one run,
// either along the result (a vectorized elementwise step) or along one result (a sequential sum).
template <typename A, typename T, typename S>
void reduce_runs(const Dims& shape, const Dims& to_result, const T* src, A* acc, S step) {
  Dims size, stride;  // merged dims: extent and result stride
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!size.empty() && stride.back() == to_result[d] * shape[d]) {
      size.back() *= shape[d];
      stride.back() = to_result[d];
    } else {
      size.push_back(shape[d]);
      stride.push_back(to_result[d]);
    }
  }
  if (size.empty()) {  // one element
    acc[0] = step(acc[0], load<A>(src[0]));
    return;
  }
  const int64_t n = size.back(), along = stride.back();
  const Dims outer(size.begin(), size.end() - 1);
  simd::with_widest([&] {
    int64_t at = 0;  // operand offset of the run: row-major, so runs follow each other
    for (IndexIter it(outer); !it.done(); it.next(), at += n) {
      const T* x = src + at;
      A* r = acc + offset_of(it.index(), stride);
      if (along == 0) {
        A a = *r;
        for (int64_t j = 0; j < n; ++j) a = step(a, load<A>(x[j]));
        *r = a;
      } else {
        PLUMB_REF_SIMD_LOOP
        for (int64_t j = 0; j < n; ++j) r[j] = step(r[j], load<A>(x[j]));
      }
    }
  });
}

// Splits a shape at `axis` into (elements before, extent, elements after).
struct AxisSplit {
  int64_t outer = 1, extent = 1, inner = 1;
  AxisSplit(const Dims& shape, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      (d < axis ? outer : d == axis ? extent : inner) *= shape[d];
  }
};

#if PLUMB_REF_COMPACT
// The compact build (issue 18) reduces over one accumulator type per kind of dtype instead of one
// loop per dtype: f32 and the narrow floats in float (their exact widening, as load() gives), f64
// in double, bool in bool, and integers in 64 bits: sum and product modulo 2^64 (uint64_t; the
// result wraps to the dtype's bits as before, and those low bits are the same whatever width the
// steps wrapped to), max and min in int64_t (uint64_t for u64), which holds every value exactly.
// The identities are the dtype's (int_limit of the dtype's bits, not of the accumulator's).
template <typename F>
void visit_compact_acc(ir::DType dt, ir::ReduceKind kind, F&& f) {
  if (dt == ir::DType::F64)
    f(double{});
  else if (ir::is_float(dt))
    f(float{});
  else if (dt == ir::DType::Bool)
    f(bool{});
  else if (dt == ir::DType::U64 || kind == ir::ReduceKind::Sum || kind == ir::ReduceKind::Prod)
    f(uint64_t{});
  else
    f(int64_t{});
}

// identity() with the dtype's limits.
template <typename A>
A compact_identity(ir::ReduceKind kind, ir::DType dt) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
    if (kind == ir::ReduceKind::Max || kind == ir::ReduceKind::Min) {
      const bool largest = kind == ir::ReduceKind::Min;
      const int bits = ir::dtype_bits(dt);
      if (ir::is_signed_int(dt)) {
        const int64_t top = static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
        return static_cast<A>(largest ? top : -top - 1);
      }
      return largest ? static_cast<A>(bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1) : A(0);
    }
  }
  return identity<A>(kind, dt);
}

// Elements [at, at + n) of t as A (n <= kChunk): t's own storage when it holds A, else `buf`.
constexpr int64_t kChunk = 64;
template <typename A>
const A* fetch(const Tensor& t, int64_t at, int64_t n, A* buf) {
  if (is_acc_dtype<A>(t.dtype)) return t.as<A>() + at;
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string>) {
      const T* x = t.as<T>() + at;
      for (int64_t j = 0; j < n; ++j) buf[j] = load<A>(x[j]);
    }
  });
  return buf;
}

// Element i of t as A.
template <typename A>
A element(const Tensor& t, int64_t i) {
  A a{};
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string>) a = load<A>(t.as<T>()[i]);
  });
  return a;
}

// t[first + j] = store(src[j]) for j < n.
template <typename A>
void store_all(const A* src, int64_t n, Tensor& t, int64_t first) {
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string>)
      for (int64_t j = 0; j < n; ++j) t.as<T>()[first + j] = store<T>(src[j], t.dtype);
  });
}

// reduce_runs over the operand's elements in A, a chunk at a time.
template <typename A, typename S>
void reduce_runs_compact(const Dims& shape, const Dims& to_result, const Tensor& src, A* acc, S step) {
  Dims size, stride;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!size.empty() && stride.back() == to_result[d] * shape[d]) {
      size.back() *= shape[d];
      stride.back() = to_result[d];
    } else {
      size.push_back(shape[d]);
      stride.push_back(to_result[d]);
    }
  }
  A buf[kChunk];
  if (size.empty()) {
    acc[0] = step(acc[0], fetch(src, 0, 1, buf)[0]);
    return;
  }
  const int64_t n = size.back(), along = stride.back();
  const Dims outer(size.begin(), size.end() - 1);
  int64_t at = 0;
  for (IndexIter it(outer); !it.done(); it.next(), at += n) {
    A* r = acc + offset_of(it.index(), stride);
    for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
      const int64_t m = std::min(kChunk, n - j0);
      const A* x = fetch(src, at + j0, m, buf);
      if (along == 0) {
        A a = *r;
        for (int64_t j = 0; j < m; ++j) a = step(a, x[j]);
        *r = a;
      } else {
        for (int64_t j = 0; j < m; ++j) r[j0 + j] = step(r[j0 + j], x[j]);
      }
    }
  }
}
#endif

}  // namespace

// spec/ops/reduce.md: result[kept] = acc over reduced indices in row-major order.
template <>
Status kernel<ir::Op::Reduce>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const auto kind = ir::attr(cx.node, &ir::ReduceAttrs::kind);
  const std::vector<int64_t>& axes = ir::attr(cx.node, &ir::ReduceAttrs::axes);
  const Dims shape = operand.shape;
  const Reduction red = reduction_of(operand.shape, axes);
  Scratch scratch(cx);
#if PLUMB_REF_COMPACT
  if (operand.dtype == ir::DType::String) return internal_error("reduce: string operand passed the verifier");
  visit_compact_acc(operand.dtype, kind, [&](auto a_tag) {
    using A = decltype(a_tag);
    A start = compact_identity<A>(kind, operand.dtype);
    if constexpr (std::is_floating_point_v<A>)
      if (kind == ir::ReduceKind::Sum && red.reduced_n > 0) start = A(-0.0);
    const int64_t results = result.numel();
    A* const acc = scratch.take<A>(results);
    std::fill_n(acc, results, start);
    if (operand.numel() > 0)
      with_step<A>(kind, [&](auto step) { reduce_runs_compact(shape, red.to_result, operand, acc, step); });
    store_all(acc, results, result, 0);
  });
  return Status::ok();
#else
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return internal_error("reduce: string operand passed the verifier");
    } else {
      using A = acc_t<T>;
      const A start = start_of<A>(kind, operand.dtype, red.reduced_n);
      const int64_t results = result.numel();
      A* const acc = scratch.take<A>(results);
      std::fill_n(acc, results, start);
      const T* src = operand.as<T>();
      if (operand.numel() > 0)
        with_step<A>(kind, [&](auto step) { reduce_runs(shape, red.to_result, src, acc, step); });
      T* dst = result.as<T>();
      for (int64_t i = 0; i < results; ++i) dst[i] = store<T>(acc[i], operand.dtype);
      return Status::ok();
    }
  });
#endif
}

// The accumulators: one per result element, of the operand dtype's accumulator type.
int64_t reduce_scratch_bytes(const ScratchQuery& q) {
  const ir::Type &operand = *q.inputs[0], &result = *q.outputs[0];
  int64_t bytes = 0;
#if PLUMB_REF_COMPACT
  if (operand.dtype != ir::DType::String)
    visit_compact_acc(operand.dtype, ir::attr(q.node, &ir::ReduceAttrs::kind), [&](auto a_tag) {
      bytes = scratch_piece<decltype(a_tag)>(num_elements(static_dims(result)));
    });
#else
  visit_dtype(operand.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string>)
      bytes = scratch_piece<acc_t<T> >(num_elements(static_dims(result)));
  });
#endif
  return bytes;
}

// spec/ops/arg_reduce.md: the position of the first (or, with select_last, the last) extreme
// element along axis; NaN is the extreme for both kinds.
template <>
Status kernel<ir::Op::ArgReduce>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const bool is_max = ir::attrs<ir::Op::ArgReduce>(cx.node).kind == ir::ArgKind::Max;
  const int64_t axis = ir::attrs<ir::Op::ArgReduce>(cx.node).axis;
  const bool select_last = ir::attrs<ir::Op::ArgReduce>(cx.node).select_last;
  const AxisSplit s(operand.shape, axis);
  if (s.extent == 0)  // arg_reduce.R1
    return runtime_error("arg_reduce.R1",
                         "axis " + std::to_string(axis) + " is empty: there is no extreme element");
#if PLUMB_REF_COMPACT
  // Compared in the compact accumulator of max/min (every value exact, the order kept; bool as 0/1).
  if (operand.dtype == ir::DType::String)
    return internal_error("arg_reduce: string operand passed the verifier");
  visit_compact_acc(operand.dtype, ir::ReduceKind::Max, [&](auto a_tag) {
    using A = std::conditional_t<std::is_same_v<decltype(a_tag), bool>, int64_t, decltype(a_tag)>;
    auto takes = [&](A x, A best) {
      if (is_nan(best)) return select_last && is_nan(x);
      if (is_nan(x)) return true;
      return (is_max ? x > best : x < best) || (select_last && x == best);
    };
    int64_t* dst = result.as<int64_t>();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t line = o * s.extent * s.inner + i;
        int64_t best = 0;
        A best_x = element<A>(operand, line);
        for (int64_t t = 1; t < s.extent; ++t) {
          const A x = element<A>(operand, line + t * s.inner);
          if (takes(x, best_x)) best = t, best_x = x;
        }
        dst[o * s.inner + i] = best;
      }
  });
  return Status::ok();
#else
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return internal_error("arg_reduce: string operand passed the verifier");
    } else {
      using A = acc_t<T>;
      // Does x (later in the line) replace best?
      auto takes = [&](A x, A best) {
        if (is_nan(best)) return select_last && is_nan(x);
        if (is_nan(x)) return true;
        return (is_max ? x > best : x < best) || (select_last && x == best);
      };
      const T* src = operand.as<T>();
      int64_t* dst = result.as<int64_t>();
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
          const T* line = src + o * s.extent * s.inner + i;
          int64_t best = 0;
          for (int64_t t = 1; t < s.extent; ++t)
            if (takes(load<A>(line[t * s.inner]), load<A>(line[best * s.inner]))) best = t;
          dst[o * s.inner + i] = best;
        }
      return Status::ok();
    }
  });
#endif
}

// spec/ops/scan.md: running sum or product along axis (ONNX CumSum); exclusive shifts by one
// with the identity first; reverse runs from the end.
template <>
Status kernel<ir::Op::Scan>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const auto kind = ir::attrs<ir::Op::Scan>(cx.node).kind;
  const bool exclusive = ir::attrs<ir::Op::Scan>(cx.node).exclusive,
             reverse = ir::attrs<ir::Op::Scan>(cx.node).reverse;
  const AxisSplit s(operand.shape, ir::attrs<ir::Op::Scan>(cx.node).axis);
#if PLUMB_REF_COMPACT
  if (operand.dtype == ir::DType::String || operand.dtype == ir::DType::Bool)
    return internal_error("scan: operand dtype passed the verifier");
  visit_compact_acc(operand.dtype, kind, [&](auto a_tag) {
    using A = decltype(a_tag);
    if constexpr (!std::is_same_v<A, bool>) {
      const A id = compact_identity<A>(kind, operand.dtype);
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
          A acc = id;
          for (int64_t step = 0; step < s.extent; ++step) {
            const int64_t t = reverse ? s.extent - 1 - step : step;
            const int64_t pos = (o * s.extent + t) * s.inner + i;
            const A x = element<A>(operand, pos);
            if (exclusive) store_all(&acc, 1, result, pos);
            acc = step == 0 ? x : combine<A>(kind, acc, x);
            if (!exclusive) store_all(&acc, 1, result, pos);
          }
        }
    }
  });
  return Status::ok();
#else
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
      return internal_error("scan: operand dtype passed the verifier");
    } else {
      using A = acc_t<T>;
      const A id = identity<A>(kind, operand.dtype);
      const T* src = operand.as<T>();
      T* dst = result.as<T>();
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
          A acc = id;
          for (int64_t step = 0; step < s.extent; ++step) {
            const int64_t t = reverse ? s.extent - 1 - step : step;
            const int64_t pos = (o * s.extent + t) * s.inner + i;
            const A x = load<A>(src[pos]);
            if (exclusive) dst[pos] = store<T>(acc, operand.dtype);
            acc = step == 0 ? x : combine<A>(kind, acc, x);  // the first element is taken as is
            if (!exclusive) dst[pos] = store<T>(acc, operand.dtype);
          }
        }
      return Status::ok();
    }
  });
#endif
}

}  // namespace plumb::rt::ref
