// spec/ops/pool.md: a window over every operand dim; for each result position e, the window taps
// w (row-major) read operand[q] with q = e*stride + w*dilation - pad_low where 0 <= q < D in every
// dim; taps in the padding are skipped. max: the first NaN, else the first maximum (its flat
// index in the optional second result, -0 < +0; -1 and the dtype's lowest value when no tap is real).
// sum: +0 plus each real tap in order, in the accumulator type.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ir/attr_ref.h"
#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/contract.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/nan_choice.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/scratch.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

namespace {

// Only the real taps of each window, per dim: for result index e along dim d, the operand offsets
// q * stride(d) of the taps w (ascending) with 0 <= q = e*stride + w*dilation - pad_low < D. Work
// and memory follow the real elements, not the window attribute (which may be huge over padding).
// Both tables of every dim are concatenated in the kernel's scratch: dim d's start at
// offsets_at[d] and first_at[d].
struct PoolGeometry {
  Dims out;
  int64_t* all_offsets = nullptr;
  int64_t* all_first = nullptr;
  Dims offsets_at, first_at;
  const int64_t* offsets(size_t d) const {
    return all_offsets + offsets_at[d];
  }  // the real taps' offsets, all e
  const int64_t* first(size_t d) const {
    return all_first + first_at[d];
  }  // [e]: start of e's taps; [E] = end
};

// The real taps of result index e along dim d: w in [w_lo, w_hi] (none when w_hi < w_lo).
// The pool attributes the tables need: references into the node.
struct PoolWindow {
  const std::vector<int64_t>& window;
  const std::vector<int64_t>& strides;
  const std::vector<int64_t>& dilations;
  const std::vector<int64_t>& pads_low;
  explicit PoolWindow(const ir::Node& n)
      : window(ir::attr(n, &ir::PoolAttrs::window)),
        strides(ir::attr(n, &ir::PoolAttrs::strides)),
        dilations(ir::attr(n, &ir::PoolAttrs::dilations)),
        pads_low(ir::attr(n, &ir::PoolAttrs::pads_low)) {}
};

void real_taps(const PoolWindow& a, size_t d, int64_t extent, int64_t e, int64_t& base, int64_t& w_lo,
               int64_t& w_hi) {
  base = e * a.strides[d] - a.pads_low[d];  // q = base + w * dil
  w_lo = base >= 0 ? 0 : (-base) / a.dilations[d] + ((-base) % a.dilations[d] != 0);
  const int64_t top = extent - 1 - base;  // w * dil <= top
  w_hi = top < 0 ? -1 : std::min(a.window[d] - 1, top / a.dilations[d]);
}

// The tables from `s` (Scratch: filled; ScratchSize: only counted).
template <typename Taker>
PoolGeometry pool_geometry(Taker& s, const ir::Node& n, const Dims& operand, const Dims& result) {
  PoolGeometry g;
  g.out = result;
  const PoolWindow a(n);
  int64_t offsets = 0, firsts = 0;
  for (size_t d = 0; d < g.out.size(); ++d) {
    g.offsets_at.push_back(offsets);
    g.first_at.push_back(firsts);
    for (int64_t e = 0; e < g.out[d]; ++e) {
      int64_t base = 0, w_lo = 0, w_hi = -1;
      real_taps(a, d, operand[d], e, base, w_lo, w_hi);
      offsets += std::max<int64_t>(0, w_hi - w_lo + 1);
    }
    firsts += g.out[d] + 1;
  }
  g.all_offsets = s.template take<int64_t>(offsets);
  g.all_first = s.template take<int64_t>(firsts);
  if (!g.all_offsets) return g;  // counting
  const Dims operand_strides = row_major_strides(operand);
  for (size_t d = 0; d < g.out.size(); ++d) {
    int64_t* off = g.all_offsets + g.offsets_at[d];
    int64_t* first = g.all_first + g.first_at[d];
    int64_t k = 0;
    for (int64_t e = 0; e < g.out[d]; ++e) {
      first[e] = k;
      int64_t base = 0, w_lo = 0, w_hi = -1;
      real_taps(a, d, operand[d], e, base, w_lo, w_hi);
      for (int64_t w = w_lo; w <= w_hi; ++w) off[k++] = (base + w * a.dilations[d]) * operand_strides[d];
    }
    first[g.out[d]] = k;
  }
  return g;
}

// Calls f(flat operand offset) for each real tap of the window at result index `e`, in row-major
// window order (taps in the padding are skipped).
template <typename F>
void for_each_tap(const PoolGeometry& g, const Dims& e, Dims& w, F&& f) {
  const int64_t r = static_cast<int64_t>(g.out.size());
  for (int64_t d = 0; d < r; ++d) {
    w[d] = g.first(d)[e[d]];
    if (w[d] == g.first(d)[e[d] + 1]) return;  // no real tap along dim d
  }
  while (true) {
    int64_t off = 0;
    for (int64_t d = 0; d < r; ++d) off += g.offsets(d)[w[d]];
    f(off);
    int64_t d = r - 1;
    for (; d >= 0; --d) {
      if (++w[d] < g.first(d)[e[d] + 1]) break;
      w[d] = g.first(d)[e[d]];
    }
    if (d < 0) return;
  }
}

template <typename T>
void pool_max(const PoolGeometry& g, const Tensor& operand, Tensor& result, Tensor* indices) {
  const T* src = operand.as<T>();
  T* dst = result.as<T>();
  Dims w(g.out.size());
  for (IndexIter it(g.out); !it.done(); it.next()) {
    WindowMax<T> m;
    for_each_tap(g, it.index(), w, [&](int64_t off) { m.take(src, off); });
    dst[it.flat()] = m.value(src, operand.dtype);
    if (indices) indices->as<int64_t>()[it.flat()] = m.best;
  }
}

#if PLUMB_REF_COMPACT
constexpr bool kCompact = true;
#else
constexpr bool kCompact = false;
#endif

// The operand's last dim (1 for a scalar).
int64_t last_extent(const Tensor& t) { return t.shape.empty() ? 1 : t.shape.back(); }

// The last dim of the window at one tap w: result x reads operand position x * stride + base
// there, and the results [lo, hi) are those whose position is real.
struct LastSpan {
  int64_t lo = 0, hi = 0, base = 0;
};

// The taps of the last window dim that are real for some result, in window order: spans[0, count)
// of `s`'s scratch (ScratchSize: only counted).
struct LastSpans {
  LastSpan* spans = nullptr;
  int64_t count = 0;
};

template <typename Taker>
LastSpans last_spans(Taker& s, const ir::Node& n, int64_t dim, int64_t results) {
  const PoolWindow a(n);
  const size_t last = a.window.size() - 1;
  const int64_t st = a.strides[last], dil = a.dilations[last], pad = a.pads_low[last];
  // Only w with w * dil in [pad - (results - 1) * s, pad + dim - 1] can be real: the loop follows
  // the operand, not the window attribute (which may be huge over padding).
  const int64_t w_lo = std::max<int64_t>(0, (pad - (results - 1) * st + dil - 1) / dil);
  const int64_t w_hi = dim == 0 ? -1 : std::min(a.window[last] - 1, (pad + dim - 1) / dil);
  LastSpans r;
  r.spans = s.template take<LastSpan>(std::max<int64_t>(0, w_hi - w_lo + 1));
  if (!r.spans) return r;  // counting
  for (int64_t w = w_lo; w <= w_hi; ++w) {
    LastSpan t;
    t.base = w * dil - pad;
    t.lo = std::min(results, t.base >= 0 ? 0 : (-t.base + st - 1) / st);
    t.hi = dim - 1 - t.base < 0 ? t.lo : std::max(t.lo, std::min(results - 1, (dim - 1 - t.base) / st) + 1);
    if (t.lo < t.hi) r.spans[r.count++] = t;
  }
  return r;
}

// out[e] = combine(...combine(combine(init, operand[q_0]), operand[q_1])..., operand[q_last]) over
// the real taps q of e's window in row-major window order (spec/ops/pool.md), with one row of
// results (the outer result dims fixed) in SIMD lanes: for each real tap of the outer window dims
// (row-major) and each tap of the last, one pass combines it into every result of the row whose
// position is real, so each result sees its taps in the spec's order. Rows are the work items of
// the threads.
template <typename A, typename Combine>
void pool_rows(const PoolGeometry& g, const ir::Node& n, const A* src, int64_t last_dim, A init, A* out,
               int threads, Scratch& scratch, Combine combine) {
  if (g.out.empty()) {  // rank 0: the window is the one element
    out[0] = combine(init, src[0]);
    return;
  }
  const size_t last = g.out.size() - 1;
  const int64_t e_len = g.out[last], rows = num_elements(g.out) / e_len;
  const int64_t s = ir::attr(n, &ir::PoolAttrs::strides)[last];
  const LastSpans spans = last_spans(scratch, n, last_dim, e_len);
  const int64_t per_row = std::max<int64_t>(1, spans.count * e_len);
  parallel_for(
      threads, rows, std::max<int64_t>(1, (int64_t{1} << 16) / per_row), [&](int64_t begin, int64_t end) {
        Dims e(last), w(last);
        simd::with_widest([&] {
          for (int64_t row = begin; row < end; ++row) {
            A* acc = out + row * e_len;
            std::fill(acc, acc + e_len, init);
            bool real = true;  // the outer window dims: the first real tap of each, or none
            for (int64_t d = static_cast<int64_t>(last) - 1, r = row; d >= 0; --d) {
              e[d] = r % g.out[d];
              r /= g.out[d];
              w[d] = g.first(d)[e[d]];
              real = real && w[d] < g.first(d)[e[d] + 1];
            }
            while (real) {
              int64_t off = 0;
              for (size_t d = 0; d < last; ++d) off += g.offsets(d)[w[d]];
              for (int64_t sp = 0; sp < spans.count; ++sp) {
                const LastSpan& t = spans.spans[sp];
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
                if (++w[d] < g.first(d)[e[d] + 1]) break;
                w[d] = g.first(d)[e[d]];
              }
              real = d >= 0;
            }
          }
        });
      });
}

// sum: +0 plus each real tap in order, in the accumulator type; of two NaNs the sum keeps the
// accumulator's (nan_choice.h: what `sum += x` compiled to before issue 17).
// pool_sum's temporaries: the operand widened to A (where it is not A), the accumulators.
template <typename A, typename Taker>
void sum_buffers(Taker& s, ir::DType operand, int64_t operand_n, int64_t result_n, A*& copy, A*& acc) {
  copy = is_acc_dtype<A>(operand) ? nullptr : s.template take<A>(operand_n);
  acc = s.template take<A>(result_n);
}

template <typename A>
void pool_sum(const PoolGeometry& g, const ir::Node& n, const Tensor& operand, Tensor& result, int threads,
              Scratch& scratch) {
  A *copy = nullptr, *acc = nullptr;
  sum_buffers<A>(scratch, operand.dtype, operand.numel(), result.numel(), copy, acc);
  const A* src = widened<A>(operand, copy);
  auto add = [](A sum, A x) {
    if constexpr (std::is_floating_point_v<A>)
      return first_operand_nan(sum, sum + x);
    else
      return A(sum + x);
  };
#if PLUMB_REF_COMPACT
  // The compact build (issue 18): one result at a time over its real taps in window order (as
  // pool_max), the same sums as pool_rows' without its row loops.
  (void)n, (void)threads;
  Dims w(g.out.size());
  for (IndexIter it(g.out); !it.done(); it.next()) {
    A sum = A(0);
    for_each_tap(g, it.index(), w, [&](int64_t off) { sum = add(sum, src[off]); });
    acc[it.flat()] = sum;
  }
#else
  pool_rows<A>(g, n, src, last_extent(operand), A(0), acc, threads, scratch, add);
#endif
  store_from<A>(acc, result.numel(), result, 0);
}

// An op list's build (PLUMB_REF_OPS) compiles only the accumulators its pool dtypes select
// (run_kernel refuses the other dtypes first), as conv and matmul do.
template <typename F>
void with_sum_acc(ir::DType operand, F&& f) {
  if (ir::is_float(operand)) {
    if (operand == ir::DType::F64) {
      if constexpr (op_acc_f64("pool")) f(double{});
    } else {
      if constexpr (op_acc_f32("pool")) f(float{});
    }
  } else {
    if constexpr (op_acc_u32("pool") || op_acc_u64("pool")) f(uint64_t{});
  }
}

}  // namespace

template <>
Status kernel<ir::Op::Pool>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  Tensor* indices = cx.outputs.size() == 2 ? &cx.outputs[1]->tensor() : nullptr;
  if (result.rank() != operand.rank()) return internal_error("pool: unverified operand rank");
  if (result.numel() == 0) return Status::ok();
  Scratch scratch(cx);
  const PoolGeometry g = pool_geometry(scratch, cx.node, operand.shape, result.shape);
  if (ir::attr(cx.node, &ir::PoolAttrs::kind) == ir::PoolKind::Max) {
    Status st = internal_error("pool: dtype " + std::string(ir::dtype_name(operand.dtype)));
    visit_dtype(operand.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr ((std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_floating_point_v<T> ||
                    std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
        // The compact build (issue 18) takes pool_max for every dtype: the same bits (the first NaN,
        // +0 over -0, else the maximum) without a pool_rows loop per dtype.
        if constexpr (std::is_arithmetic_v<T> && !kCompact) {
          // Values only: max_of (nan_choice.h) folded over the taps in order from the empty
          // window's value keeps the first NaN and otherwise the maximum's own bits (+0 over -0).
          if (!indices)
            pool_rows<T>(g, cx.node, operand.as<T>(), last_extent(operand), lowest<T>(operand.dtype),
                         result.as<T>(), cx.threads, scratch, [](T best, T x) { return max_of(best, x); });
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
  with_sum_acc(operand.dtype, [&](auto tag) {
    using A = decltype(tag);
    pool_sum<A>(g, cx.node, operand, result, cx.threads, scratch);
  });
  return Status::ok();
}

// The tables, the last dim's spans, and (sum) the widened operand and the accumulators.
int64_t pool_scratch_bytes(const ScratchQuery& q) {
  const ir::Type &operand = *q.inputs[0], &result = *q.outputs[0];
  if (result.shape.size() != operand.shape.size()) return 0;
  const Dims in = static_dims(operand), out = static_dims(result);
  if (num_elements(out) == 0) return 0;
  ScratchSize s;
  pool_geometry(s, q.node, in, out);
  if (!out.empty() && !kCompact) last_spans(s, q.node, in.back(), out.back());
  if (ir::attr(q.node, &ir::PoolAttrs::kind) != ir::PoolKind::Max) {
    with_sum_acc(operand.dtype, [&](auto tag) {
      using A = decltype(tag);
      A *copy = nullptr, *acc = nullptr;
      sum_buffers<A>(s, operand.dtype, num_elements(in), num_elements(out), copy, acc);
    });
  }
  return s.bytes();
}

}  // namespace plumb::rt::ref
