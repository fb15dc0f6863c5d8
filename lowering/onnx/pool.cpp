// ONNX pooling: MaxPool MaxUnpool AveragePool LpPool GlobalAveragePool GlobalMaxPool GlobalLpPool,
// onto the core `pool` (spec/ops/pool.md); conv.cpp's header says how pads, ceil_mode and the f64
// composites (averages, Lp norms) are made explicit.
#include <algorithm>
#include <string>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"
#include "lowering/onnx/window.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;

namespace {

using Ints = std::vector<int64_t>;

// ceil_mode: the extra high padding per dim that makes the core's floor division give ONNX's
// ceil output, with the last window starting inside the input or the low padding.
Ints ceil_extra(const Ints& in, const Window& w) {
  Ints extra(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t span = in[i] + w.lo[i] + w.hi[i] - dk;
    if (span < 0) continue;
    int64_t out = (span + w.strides[i] - 1) / w.strides[i] + 1;
    if ((out - 1) * w.strides[i] >= in[i] + w.lo[i]) --out;
    extra[i] = std::max<int64_t>(0, (out - 1) * w.strides[i] + dk - (in[i] + w.lo[i] + w.hi[i]));
  }
  return extra;
}

// A core pool over [N, C, D...] with window 1 on N and C.
std::vector<ValueId> emit_pool(LowerCtx& cx, ir::PoolKind kind, ValueId x, const Window& w,
                               const Ints& extra_hi, int num_outputs) {
  Ints win{1, 1}, st{1, 1}, dil{1, 1}, lo{0, 0}, hi{0, 0};
  for (size_t i = 0; i < w.kernel.size(); ++i) {
    win.push_back(w.kernel[i]);
    st.push_back(w.strides[i]);
    dil.push_back(w.dilations[i]);
    lo.push_back(w.lo[i]);
    hi.push_back(w.hi[i] + (extra_hi.empty() ? 0 : extra_hi[i]));
  }
  return cx.b.emit(ir::PoolAttrs{kind, win, st, dil, lo, hi}, {x}, {}, num_outputs);
}

// Common front of the pooling ops: the input, its window and (for ceil_mode) extra padding.
struct PoolSetup {
  ValueId x = ir::kNoValue;
  Window w;
  Ints in;  // spatial dims, -1 when symbolic
  Ints extra;
};

Expected<PoolSetup> pool_setup(LowerCtx& cx, const OnnxNode& n) {
  PoolSetup p;
  PLUMB_ASSIGN_OR_RETURN(p.x, cx.input(n, 0));
  const ir::Type t = cx.type(p.x);
  if (t.rank() < 3) return invalid_model("", "pooling input must have rank >= 3");
  for (int64_t i = 2; i < t.rank(); ++i) p.in.push_back(t.shape[i].is_static() ? t.shape[i].size : -1);
  PLUMB_ASSIGN_OR_RETURN(p.w.kernel, n.attr_ints("kernel_shape", {}));
  if (p.w.kernel.size() != p.in.size())
    return invalid_model("", "kernel_shape must have one entry per spatial dim");
  PLUMB_RETURN_IF_ERROR(resolve_pads(cx, n, p.in, p.w));
  for (size_t i = 0; i < p.in.size(); ++i)
    if (p.w.lo[i] >= (p.w.kernel[i] - 1) * p.w.dilations[i] + 1 ||
        p.w.hi[i] >= (p.w.kernel[i] - 1) * p.w.dilations[i] + 1)
      return cx.invalid("pooling pads must be smaller than the (dilated) kernel");
  PLUMB_ASSIGN_OR_RETURN(int64_t ceil_mode, n.attr_int("ceil_mode", 0));
  if (ceil_mode) {
    for (int64_t d : p.in)
      if (d < 0) return cx.unsupported("ceil_mode with a symbolic spatial dim");
    p.extra = ceil_extra(p.in, p.w);
  }
  return p;
}

Status lower_max_pool(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(PoolSetup p, pool_setup(cx, n));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const bool want_idx = cx.wants_output(n, 1);
  PLUMB_ASSIGN_OR_RETURN(int64_t storage_order, n.attr_int("storage_order", 0));
  std::vector<ValueId> r = emit_pool(cx, ir::PoolKind::Max, p.x, p.w, p.extra, want_idx ? 2 : 1);
  cx.set_output(n, 0, r[0]);
  if (!want_idx) return cx.error();
  ValueId idx = r[1];
  if (storage_order == 1) {
    // Column-major over the spatial dims: idx = nc * S + sum_d coord[d] * prod(D[0..d-1]).
    for (int64_t d : p.in) {
      if (d < 0) return cx.unsupported("MaxPool storage_order 1 with a symbolic spatial dim");
      if (d == 0) return cx.unsupported("MaxPool storage_order 1 with an empty spatial dim");
    }
    int64_t total = 1;
    for (int64_t d : p.in) total *= d;
    auto sc = [&](int64_t v) { return splat(cx, static_cast<double>(v), idx); };
    ValueId nc = cx.b.binary(BK::Div, idx, sc(total));
    ValueId rem = cx.b.binary(BK::Rem, idx, sc(total));
    ValueId out = cx.b.binary(BK::Mul, nc, sc(total));
    int64_t row_stride = total, col_stride = 1;
    for (size_t d = 0; d < p.in.size(); ++d) {
      row_stride /= p.in[d];
      ValueId coord = cx.b.binary(BK::Rem, cx.b.binary(BK::Div, rem, sc(row_stride)), sc(p.in[d]));
      out = cx.b.binary(BK::Add, out, cx.b.binary(BK::Mul, coord, sc(col_stride)));
      col_stride *= p.in[d];
    }
    idx = out;
  } else if (storage_order != 0) {
    return cx.invalid("storage_order must be 0 or 1");
  }
  cx.set_output(n, 1, idx);
  return cx.error();
}

// Static [1, 1, dims...] tensor of ones in f64.
ValueId ones_f64(LowerCtx& cx, const Ints& spatial) {
  Ints dims{1, 1};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  return cx.b.broadcast(cx.b.scalar_float(ir::DType::F64, 1.0), cx.b.shape_const(dims), {});
}

// The per-window element counts ([1, 1, E...], f64) AveragePool divides by.
ValueId window_counts(LowerCtx& cx, const PoolSetup& p, bool include_pad) {
  if (!include_pad) return emit_pool(cx, ir::PoolKind::Sum, ones_f64(cx, p.in), p.w, p.extra, 1)[0];
  // Count the explicit pads as elements, but not ceil_mode's extra padding.
  Ints padded;
  Window w = p.w;
  for (size_t i = 0; i < p.in.size(); ++i) {
    padded.push_back(p.in[i] + p.w.lo[i] + p.w.hi[i]);
    w.lo[i] = 0;
    w.hi[i] = 0;
  }
  return emit_pool(cx, ir::PoolKind::Sum, ones_f64(cx, padded), w, p.extra, 1)[0];
}

ValueId bcast_like(LowerCtx& cx, ValueId v, ValueId like) {
  const int64_t r = rank_of(cx, like);
  Ints dims;
  for (int64_t i = 0; i < r; ++i) dims.push_back(i);
  return cx.b.broadcast(v, shape_value(cx, like), dims);
}

Status lower_average_pool(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(PoolSetup p, pool_setup(cx, n));
  PLUMB_RETURN_IF_ERROR(cx.error());
  for (int64_t d : p.in)
    if (d < 0) return cx.unsupported("AveragePool with a symbolic spatial dim");
  PLUMB_ASSIGN_OR_RETURN(int64_t include_pad, n.attr_int("count_include_pad", 0));
  const ir::DType dt = cx.type(p.x).dtype;
  ValueId sum = emit_pool(cx, ir::PoolKind::Sum, to_f64(cx, p.x), p.w, p.extra, 1)[0];
  ValueId counts = bcast_like(cx, window_counts(cx, p, include_pad != 0), sum);
  cx.set_output(n, 0, from_f64(cx, cx.b.binary(BK::Div, sum, counts), dt));
  return cx.error();
}

Status lower_lp_pool(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(PoolSetup p, pool_setup(cx, n));
  PLUMB_RETURN_IF_ERROR(cx.error());
  double pw = 2;
  if (cx.opset() < 2) {
    PLUMB_ASSIGN_OR_RETURN(float f, n.attr_float("p", 2.0f));
    pw = f;
  } else {
    PLUMB_ASSIGN_OR_RETURN(int64_t i, n.attr_int("p", 2));
    pw = static_cast<double>(i);
  }
  const ir::DType dt = cx.type(p.x).dtype;
  ValueId x = to_f64(cx, p.x);
  ValueId pow_x = cx.b.binary(BK::Pow, cx.b.unary(UK::Abs, x), splat(cx, pw, x));
  ValueId sum = emit_pool(cx, ir::PoolKind::Sum, pow_x, p.w, p.extra, 1)[0];
  cx.set_output(n, 0, from_f64(cx, cx.b.binary(BK::Pow, sum, splat(cx, 1.0 / pw, sum)), dt));
  return cx.error();
}

// [N, C, 1...]: the reduced spatial dims put back.
ValueId keep_spatial(LowerCtx& cx, ValueId y, ValueId x) {
  const int64_t r = rank_of(cx, x);
  ValueId nc = cx.b.emit1(ir::SliceAttrs{}, {shape_value(cx, x), cx.b.shape_const({0}), cx.b.shape_const({2}),
                                             cx.b.shape_const({1})});
  ValueId ones = cx.b.const_ints(ir::DType::I64, {r - 2}, Ints(static_cast<size_t>(r - 2), 1));
  return cx.b.reshape(y, cx.b.concat({nc, ones}, 0));
}

enum class Global { kAvg, kMax, kLp };

template <Global kind>
Status lower_global(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const int64_t r = rank_of(cx, x);
  if (r < 2) return cx.invalid("global pooling input must have rank >= 2");
  Ints axes;
  for (int64_t i = 2; i < r; ++i) axes.push_back(i);
  const ir::DType dt = cx.type(x).dtype;
  ValueId y = ir::kNoValue;
  if (kind == Global::kMax) {
    y = axes.empty() ? x : cx.b.reduce(ir::ReduceKind::Max, x, axes);
  } else if (kind == Global::kAvg) {
    ValueId v = to_f64(cx, x);
    if (axes.empty()) {
      y = v;
    } else {
      ValueId sum = cx.b.reduce(ir::ReduceKind::Sum, v, axes);
      ValueId count = cx.b.reduce(ir::ReduceKind::Sum, splat(cx, 1.0, v), axes);
      y = cx.b.binary(BK::Div, sum, count);
    }
    y = from_f64(cx, y, dt);
  } else {
    double pw = 2;
    if (cx.opset() < 2) {  // GlobalLpPool-1: p is a float
      PLUMB_ASSIGN_OR_RETURN(float f, n.attr_float("p", 2.0f));
      pw = f;
    } else {
      PLUMB_ASSIGN_OR_RETURN(int64_t pi, n.attr_int("p", 2));
      pw = static_cast<double>(pi);
    }
    ValueId v = to_f64(cx, x);
    ValueId pv = cx.b.binary(BK::Pow, cx.b.unary(UK::Abs, v), splat(cx, pw, v));
    ValueId sum = axes.empty() ? pv : cx.b.reduce(ir::ReduceKind::Sum, pv, axes);
    y = from_f64(cx, cx.b.binary(BK::Pow, sum, splat(cx, 1.0 / pw, sum)), dt);
  }
  if (!axes.empty()) y = keep_spatial(cx, y, x);
  cx.set_output(n, 0, y);
  return cx.error();
}

// MaxUnpool-9/11: X scattered into zeros at MaxPool's flat indices (the whole [N, C, D...]
// output, row-major), then padded at the end up to output_shape (may be a run-time tensor). Two values
// for one position (overlapping windows) are a run-time error (scatter.R2), never a silent pick.
Status lower_max_unpool(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId idx, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  if (xt.rank() < 3) return cx.invalid("MaxUnpool input must have rank >= 3");
  if (!ir::shape_is_static(xt.shape)) return cx.unsupported("MaxUnpool with symbolic dims");
  const size_t s = static_cast<size_t>(xt.rank() - 2);
  Window w;
  PLUMB_ASSIGN_OR_RETURN(w.kernel, n.attr_ints("kernel_shape", {}));
  if (w.kernel.size() != s) return cx.invalid("kernel_shape must have one entry per spatial dim");
  Ints in;
  for (size_t i = 0; i < s; ++i) in.push_back(xt.shape[i + 2].size);
  PLUMB_RETURN_IF_ERROR(resolve_pads(cx, n, in, w));
  const int64_t numel = ir::shape_num_elements(xt.shape);
  ValueId flat_i = cx.b.reshape(cx.b.cast(idx, ir::DType::I64), cx.b.shape_const({numel}));
  ValueId flat_x = cx.b.reshape(x, cx.b.shape_const({numel}));
  // Scatter into the shape MaxPool came from (inferred from the attributes), then pad at the
  // end of each dim up to output_shape when that is given (as the ONNX reference does).
  Ints out{xt.shape[0].size, xt.shape[1].size};
  for (size_t i = 0; i < s; ++i) out.push_back((in[i] - 1) * w.strides[i] + w.kernel[i] - w.lo[i] - w.hi[i]);
  int64_t total = 1;
  for (int64_t d : out) {
    if (d < 0 || d > kMaxExtent) return cx.invalid("MaxUnpool output shape out of range");
    total *= d;
    if (total > kMaxExtent) return cx.invalid("MaxUnpool output too large");
  }
  ValueId zeros = cx.b.broadcast(scalar_like(cx, 0, x), cx.b.shape_const({total}), {});
  ValueId y = cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Elements, 0, ir::ScatterReduction::None},
                         {zeros, flat_i, flat_x});
  y = cx.b.reshape(y, cx.b.shape_const(out));
  if (cx.has_input(n, 2)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId os, cx.input(n, 2));
    const ir::Type ot = cx.type(os);
    if (ot.rank() != 1 || !ot.shape[0].is_static() || ot.shape[0].size != static_cast<int64_t>(s + 2))
      return cx.invalid("MaxUnpool output_shape must be an i64[rank] tensor");
    if (ot.dtype != ir::DType::I64) os = cx.b.cast(os, ir::DType::I64);
    ValueId high = cx.b.binary(BK::Sub, os, cx.b.shape_const(out));
    y = cx.b.emit1(ir::PadAttrs{ir::PadMode::Constant},
                   {y, cx.b.shape_const(Ints(s + 2, 0)), high, scalar_like(cx, 0, x)});
  }
  cx.set_output(n, 0, y);
  return cx.error();
}

}  // namespace

void register_pool(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"MaxPool", 1, lower_max_pool}, {"AveragePool", 1, lower_average_pool},
      {"MaxUnpool", 9, lower_max_unpool}, {"LpPool", 1, lower_lp_pool},
      {"GlobalAveragePool", 1, lower_global<Global::kAvg>}, {"GlobalMaxPool", 1, lower_global<Global::kMax>},
      {"GlobalLpPool", 1, lower_global<Global::kLp>}});
  // clang-format on
}

}  // namespace plumb::lower
