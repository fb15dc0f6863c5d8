// ref's pool kernel as it was before issue 17 (main at f3e2b4c: runtime/cpu/ref/pool.cpp), kept
// verbatim as the baseline of its row loops (tests/ref_baseline/baseline_kernels.h). Never shipped.
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
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_baseline {
using namespace plumb::rt::ref;

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
  const std::vector<int64_t> operand_strides = to_vector(row_major_strides(operand.shape));
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
void for_each_tap(const PoolGeometry& g, const Dims& e, std::vector<int64_t>& w, F&& f) {
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
void pool_max(const PoolGeometry& g, const Tensor& operand, Tensor& result, Tensor* indices) {
  const T* src = operand.as<T>();
  T* dst = result.as<T>();
  std::vector<int64_t> w(g.out.size());
  for (IndexIter it(g.out); !it.done(); it.next()) {
    WindowMax<T> m;
    for_each_tap(g, it.index(), w, [&](int64_t off) { m.take(src, off); });
    dst[it.flat()] = m.value(src, operand.dtype);
    if (indices) indices->as<int64_t>()[it.flat()] = m.best;
  }
}

template <typename A>
void pool_sum(const PoolGeometry& g, const Tensor& operand, Tensor& result) {
  const Widened<A> src(operand);
  std::vector<int64_t> w(g.out.size());
  std::vector<A> acc(static_cast<size_t>(result.numel()));
  for (IndexIter it(g.out); !it.done(); it.next()) {
    A sum = A(0);
    for_each_tap(g, it.index(), w, [&](int64_t off) { sum += src.data()[off]; });
    acc[it.flat()] = sum;
  }
  store_from<A>(acc.data(), result.numel(), result, 0);
}

}  // namespace

Status pool(ref::KernelCtx& cx) {
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
        pool_max<T>(g, operand, result, indices);
        st = Status::ok();
      }
    });
    return st;
  }
  if (ir::is_float(operand.dtype)) {
    if (operand.dtype == ir::DType::F64)
      pool_sum<double>(g, operand, result);
    else
      pool_sum<float>(g, operand, result);
  } else {
    pool_sum<uint64_t>(g, operand, result);
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref_baseline
