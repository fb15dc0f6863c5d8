// spec/ops/pool.md: a window over every operand dim; for each result position e, the window taps
// w (row-major) read operand[q] with q = e*stride + w*dilation - pad_low where 0 <= q < D in every
// dim; taps in the padding are skipped. max: the first NaN, else the first maximum (its flat
// index in the optional second result, -0 < +0; -1 and the dtype's lowest value when no tap is real).
// sum: +0 plus each real tap in order, in the accumulator type.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/contract.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/nan_choice.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

namespace {

// Only the real taps of each window, per dim: for result index e along dim d, the operand offsets
// q * stride(d) of the taps w (ascending) with 0 <= q = e*stride + w*dilation - pad_low < D. Work
// and memory follow the real elements, not the window attribute (which may be huge over padding).
struct PoolGeometry {
  std::vector<int64_t> out;
  std::vector<std::vector<int64_t>> offsets;  // [d]: the real taps' offsets, all e concatenated
  std::vector<std::vector<int64_t>> first;    // [d][e]: start of e's taps in offsets[d]; [d][E] = end
};

PoolGeometry pool_geometry(const ir::Node& n, const Tensor& operand, const Tensor& result) {
  PoolGeometry g;
  g.out = result.shape;
  const auto& window = ir::attrs<ir::Op::Pool>(n).window;
  const auto& strides = ir::attrs<ir::Op::Pool>(n).strides;
  const auto& dil = ir::attrs<ir::Op::Pool>(n).dilations;
  const auto& pad_lo = ir::attrs<ir::Op::Pool>(n).pads_low;
  const std::vector<int64_t> operand_strides = row_major_strides(operand.shape);
  for (size_t d = 0; d < g.out.size(); ++d) {
    std::vector<int64_t> off, first;
    for (int64_t e = 0; e < g.out[d]; ++e) {
      first.push_back(static_cast<int64_t>(off.size()));
      const int64_t base = e * strides[d] - pad_lo[d];  // q = base + w * dil
      const int64_t w_lo = base >= 0 ? 0 : (-base) / dil[d] + ((-base) % dil[d] != 0);
      const int64_t top = operand.shape[d] - 1 - base;  // w * dil <= top
      const int64_t w_hi = top < 0 ? -1 : std::min(window[d] - 1, top / dil[d]);
      for (int64_t w = w_lo; w <= w_hi; ++w) off.push_back((base + w * dil[d]) * operand_strides[d]);
    }
    first.push_back(static_cast<int64_t>(off.size()));
    g.offsets.push_back(std::move(off));
    g.first.push_back(std::move(first));
  }
  return g;
}

// Calls f(flat operand offset) for each real tap of the window at result index `e`, in row-major
// window order (taps in the padding are skipped).
template <typename F>
void for_each_tap(const PoolGeometry& g, const std::vector<int64_t>& e, std::vector<int64_t>& w, F&& f) {
  const int64_t r = static_cast<int64_t>(g.out.size());
  for (int64_t d = 0; d < r; ++d) {
    w[d] = g.first[d][e[d]];
    if (w[d] == g.first[d][e[d] + 1]) return;  // no real tap along dim d
  }
  while (true) {
    int64_t off = 0;
    for (int64_t d = 0; d < r; ++d) off += g.offsets[d][w[d]];
    f(off);
    int64_t d = r - 1;
    for (; d >= 0; --d) {
      if (++w[d] < g.first[d][e[d] + 1]) break;
      w[d] = g.first[d][e[d]];
    }
    if (d < 0) return;
  }
}

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

template <typename T>
void pool_max(const PoolGeometry& g, const Tensor& operand, Tensor& result, Tensor* indices) {
  const T* src = operand.as<T>();
  T* dst = result.as<T>();
  std::vector<int64_t> w(g.out.size());
  for (IndexIter it(g.out); !it.done(); it.next()) {
    int64_t best = -1;
    bool best_nan = false;
    double best_v = 0;
    for_each_tap(g, it.index(), w, [&](int64_t off) {
      if (best_nan) return;  // the first NaN wins
      if constexpr (is_float_storage_v<T>) {
        const double v = as_double(src[off]);
        // -0 < +0 (IEEE maximum, as reduce max): the value does not depend on the window order
        const bool above = v > best_v || (v == 0 && best_v == 0 && std::signbit(best_v) && !std::signbit(v));
        if (best < 0 || std::isnan(v) || above) best = off, best_v = v, best_nan = std::isnan(v);
      } else {
        if (best < 0 || src[off] > src[best]) best = off;
      }
    });
    dst[it.flat()] = best >= 0 ? src[best] : lowest<T>(operand.dtype);
    if (indices) indices->as<int64_t>()[it.flat()] = best;
  }
}

// The operand's last dim (1 for a scalar).
int64_t last_extent(const Tensor& t) { return t.shape.empty() ? 1 : t.shape.back(); }

// The last dim of the window at one tap w: result x reads operand position x * stride + base
// there, and the results [lo, hi) are those whose position is real.
struct LastSpan {
  int64_t lo = 0, hi = 0, base = 0;
};

// The taps of the last window dim that are real for some result, in window order.
std::vector<LastSpan> last_spans(const ir::Node& n, int64_t dim, int64_t results) {
  const ir::PoolAttrs a = ir::attrs<ir::Op::Pool>(n);
  const size_t last = a.window.size() - 1;
  const int64_t s = a.strides[last], dil = a.dilations[last], pad = a.pads_low[last];
  // Only w with w * dil in [pad - (results - 1) * s, pad + dim - 1] can be real: the loop follows
  // the operand, not the window attribute (which may be huge over padding).
  const int64_t w_lo = std::max<int64_t>(0, (pad - (results - 1) * s + dil - 1) / dil);
  const int64_t w_hi = dim == 0 ? -1 : std::min(a.window[last] - 1, (pad + dim - 1) / dil);
  std::vector<LastSpan> spans;
  for (int64_t w = w_lo; w <= w_hi; ++w) {
    LastSpan t;
    t.base = w * dil - pad;
    t.lo = std::min(results, t.base >= 0 ? 0 : (-t.base + s - 1) / s);
    t.hi = dim - 1 - t.base < 0 ? t.lo : std::max(t.lo, std::min(results - 1, (dim - 1 - t.base) / s) + 1);
    if (t.lo < t.hi) spans.push_back(t);
  }
  return spans;
}

// out[e] = combine(...combine(combine(init, operand[q_0]), operand[q_1])..., operand[q_last]) over
// the real taps q of e's window in row-major window order (spec/ops/pool.md), with one row of
// results (the outer result dims fixed) in SIMD lanes: for each real tap of the outer window dims
// (row-major) and each tap of the last, one pass combines it into every result of the row whose
// position is real, so each result sees its taps in the spec's order. Rows are the work items of
// the threads.
template <typename A, typename Combine>
void pool_rows(const PoolGeometry& g, const ir::Node& n, const A* src, int64_t last_dim, A init, A* out,
               int threads, Combine combine) {
  if (g.out.empty()) {  // rank 0: the window is the one element
    out[0] = combine(init, src[0]);
    return;
  }
  const size_t last = g.out.size() - 1;
  const int64_t e_len = g.out[last], rows = num_elements(g.out) / e_len;
  const int64_t s = ir::attrs<ir::Op::Pool>(n).strides[last];
  const std::vector<LastSpan> spans = last_spans(n, last_dim, e_len);
  const int64_t per_row = std::max<int64_t>(1, static_cast<int64_t>(spans.size()) * e_len);
  parallel_for(
      threads, rows, std::max<int64_t>(1, (int64_t{1} << 16) / per_row), [&](int64_t begin, int64_t end) {
        std::vector<int64_t> e(last), w(last);
        simd::with_widest([&] {
          for (int64_t row = begin; row < end; ++row) {
            A* acc = out + row * e_len;
            std::fill(acc, acc + e_len, init);
            bool real = true;  // the outer window dims: the first real tap of each, or none
            for (int64_t d = static_cast<int64_t>(last) - 1, r = row; d >= 0; --d) {
              e[d] = r % g.out[d];
              r /= g.out[d];
              w[d] = g.first[d][e[d]];
              real = real && w[d] < g.first[d][e[d] + 1];
            }
            while (real) {
              int64_t off = 0;
              for (size_t d = 0; d < last; ++d) off += g.offsets[d][w[d]];
              for (const LastSpan& t : spans) {
                const A* p = src + off + t.base;
                if (s == 1) {
                  PLUMB_REF_SIMD_LOOP
                  for (int64_t x = t.lo; x < t.hi; ++x) acc[x] = combine(acc[x], p[x]);
                } else {
                  PLUMB_REF_SIMD_LOOP
                  for (int64_t x = t.lo; x < t.hi; ++x) acc[x] = combine(acc[x], p[x * s]);
                }
              }
              int64_t d = static_cast<int64_t>(last) - 1;  // next real tap of the outer dims, row-major
              for (; d >= 0; --d) {
                if (++w[d] < g.first[d][e[d] + 1]) break;
                w[d] = g.first[d][e[d]];
              }
              real = d >= 0;
            }
          }
        });
      });
}

// sum: +0 plus each real tap in order, in the accumulator type; of two NaNs the sum keeps the
// accumulator's (nan_choice.h: what `sum += x` compiled to before issue 17).
template <typename A>
void pool_sum(const PoolGeometry& g, const ir::Node& n, const Tensor& operand, Tensor& result, int threads) {
  const Widened<A> src(operand);
  const auto acc = scratch<A>(result.numel());
  pool_rows<A>(g, n, src.data(), last_extent(operand), A(0), acc.get(), threads, [](A sum, A x) {
    if constexpr (std::is_floating_point_v<A>)
      return first_operand_nan(sum, sum + x);
    else
      return A(sum + x);
  });
  store_from<A>(acc.get(), result.numel(), result, 0);
}

}  // namespace

template <>
Status kernel<ir::Op::Pool>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  Tensor* indices = cx.outputs.size() == 2 ? &cx.outputs[1]->tensor() : nullptr;
  if (result.rank() != operand.rank()) return internal_error("pool: unverified operand rank");
  if (result.numel() == 0) return Status::ok();
  const PoolGeometry g = pool_geometry(cx.node, operand, result);
  if (ir::attrs<ir::Op::Pool>(cx.node).kind == ir::PoolKind::Max) {
    Status st = internal_error("pool: dtype " + std::string(ir::dtype_name(operand.dtype)));
    visit_dtype(operand.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr ((std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_floating_point_v<T> ||
                    std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
        if constexpr (std::is_arithmetic_v<T>) {
          // Values only: max_of (nan_choice.h) folded over the taps in order from the empty
          // window's value keeps the first NaN and otherwise the maximum's own bits (+0 over -0).
          if (!indices)
            pool_rows<T>(g, cx.node, operand.as<T>(), last_extent(operand), lowest<T>(operand.dtype),
                         result.as<T>(), cx.threads, [](T best, T x) { return max_of(best, x); });
          else
            pool_max<T>(g, operand, result, indices);
        } else {
          pool_max<T>(g, operand, result, indices);
        }
        st = Status::ok();
      }
    });
    return st;
  }
  if (ir::is_float(operand.dtype)) {
    if (operand.dtype == ir::DType::F64)
      pool_sum<double>(g, cx.node, operand, result, cx.threads);
    else
      pool_sum<float>(g, cx.node, operand, result, cx.threads);
  } else {
    pool_sum<uint64_t>(g, cx.node, operand, result, cx.threads);
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref
