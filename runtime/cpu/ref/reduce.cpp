// ref kernels of the reductions: reduce, arg_reduce, scan (spec/ops/reduce.md, arg_reduce.md,
// scan.md). Accumulation follows the spec: f16/bf16/f8/f4 and f32 accumulate in f32, f64 in f64,
// integers in their own type, wrapping; the order is sequential, row-major, fixed.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/attr_ref.h"
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
      if (operand.numel() > 0) switch (kind) {
          case ir::ReduceKind::Sum:
            reduce_runs(shape, red.to_result, src, acc, Step<A, ir::ReduceKind::Sum>{});
            break;
          case ir::ReduceKind::Prod:
            reduce_runs(shape, red.to_result, src, acc, Step<A, ir::ReduceKind::Prod>{});
            break;
          case ir::ReduceKind::Max:
            reduce_runs(shape, red.to_result, src, acc, Step<A, ir::ReduceKind::Max>{});
            break;
          case ir::ReduceKind::Min:
            reduce_runs(shape, red.to_result, src, acc, Step<A, ir::ReduceKind::Min>{});
            break;
        }
      T* dst = result.as<T>();
      for (int64_t i = 0; i < results; ++i) dst[i] = store<T>(acc[i], operand.dtype);
      return Status::ok();
    }
  });
}

// The accumulators: one per result element, of the operand dtype's accumulator type.
int64_t reduce_scratch_bytes(const ScratchQuery& q) {
  const ir::Type &operand = *q.inputs[0], &result = *q.outputs[0];
  int64_t bytes = 0;
  visit_dtype(operand.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string>)
      bytes = scratch_piece<acc_t<T>>(num_elements(static_dims(result)));
  });
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
}

}  // namespace plumb::rt::ref
