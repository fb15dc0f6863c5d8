// spec/ops/pool.md: a window over every operand dim; for each result position e, the window taps
// w (row-major) read operand[q] with q = e*stride + w*dilation - pad_low where 0 <= q < D in every
// dim; taps in the padding are skipped. max: the first NaN, else the first maximum (its flat
// index in the optional second result, -0 < +0; -1 and the dtype's lowest value when no tap is real).
// sum: +0 plus each real tap in order, in the accumulator type.
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

namespace {

// The real taps of every window, as operand offsets (-1 for a tap in the padding), built one dim
// at a time: offsets[d][e][w] = q * operand_stride[d] or -1.
struct PoolGeometry {
  std::vector<int64_t> out, window, operand_strides;
  std::vector<std::vector<int64_t>> offsets;  // [d][e * window[d] + w]
  int64_t taps = 1;
};

PoolGeometry pool_geometry(const ir::Node& n, const Tensor& operand, const Tensor& result) {
  PoolGeometry g;
  g.out = result.shape;
  g.window = n.attr_ints("window");
  g.operand_strides = row_major_strides(operand.shape);
  const auto& strides = n.attr_ints("strides");
  const auto& dil = n.attr_ints("dilations");
  const auto& pad_lo = n.attr_ints("pads_low");
  for (size_t d = 0; d < g.out.size(); ++d) {
    g.taps *= g.window[d];
    std::vector<int64_t> off(static_cast<size_t>(g.out[d] * g.window[d]));
    for (int64_t e = 0; e < g.out[d]; ++e)
      for (int64_t w = 0; w < g.window[d]; ++w) {
        const int64_t q = e * strides[d] + w * dil[d] - pad_lo[d];
        off[e * g.window[d] + w] = (q >= 0 && q < operand.shape[d]) ? q * g.operand_strides[d] : -1;
      }
    g.offsets.push_back(std::move(off));
  }
  return g;
}

// Calls f(flat operand offset) for each real tap of the window at result index `e`, in row-major
// window order.
template <typename F>
void for_each_tap(const PoolGeometry& g, const std::vector<int64_t>& e, std::vector<int64_t>& w, F&& f) {
  const size_t r = g.out.size();
  std::fill(w.begin(), w.end(), 0);
  for (int64_t t = 0; t < g.taps; ++t) {
    int64_t off = 0;
    bool real = true;
    for (size_t d = 0; d < r && real; ++d) {
      const int64_t o = g.offsets[d][e[d] * g.window[d] + w[d]];
      real = o >= 0;
      off += o;
    }
    if (real) f(off);
    for (int64_t d = static_cast<int64_t>(r) - 1; d >= 0; --d) {
      if (++w[d] < g.window[d]) break;
      w[d] = 0;
    }
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

template <>
Status kernel<ir::Op::Pool>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  Tensor* indices = cx.outputs.size() == 2 ? &cx.outputs[1]->tensor() : nullptr;
  if (result.rank() != operand.rank()) return internal_error("pool: unverified operand rank");
  if (result.numel() == 0) return Status::ok();
  const PoolGeometry g = pool_geometry(cx.node, operand, result);
  if (cx.node.attr_enum("kind") == ir::PoolKind::Max) {
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

}  // namespace plumb::rt::ref
