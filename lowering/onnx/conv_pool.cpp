// ONNX convolution and pooling: Conv ConvTranspose ConvInteger QLinearConv CausalConvWithState MaxPool
// MaxUnpool AveragePool LpPool GlobalAveragePool GlobalMaxPool GlobalLpPool, onto the core `conv` and `pool`
// (spec/ops/conv.md, pool.md). auto_pad, ceil_mode and ConvTranspose's output_shape are turned into explicit
// non-negative pads here (static spatial dims needed for those); negative effective pads become a `slice` of
// the result. conv and max/sum pooling run in the input dtype (the core fixes the accumulator); the
// composites around them (averages, Lp norms) are computed in f64 and rounded once, so their only
// rounding error is the final cast and they do not depend on f16/f32 intermediate rounding.
#include <algorithm>
#include <string>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;

namespace {

using Ints = std::vector<int64_t>;

// Bounds on strides/dilations/kernel sizes and on pads and dims, so that the pad arithmetic below
// (products of one of each) cannot overflow; the core ops refuse extents above 2^62 anyway.
constexpr int64_t kMaxWindow = int64_t{1} << 20;
constexpr int64_t kMaxExtent = int64_t{1} << 40;

// The static spatial dims of x ([N, C, D...]), or nullopt when one is symbolic.
std::optional<Ints> static_spatial(LowerCtx& cx, ValueId x) {
  const ir::Type t = cx.type(x);
  Ints d;
  for (int64_t i = 2; i < t.rank(); ++i) {
    if (!t.shape[i].is_static()) return std::nullopt;
    d.push_back(t.shape[i].size);
  }
  return d;
}

// Per-spatial-dim attribute of n entries (default `dflt` each).
Expected<Ints> spatial_attr(const OnnxNode& n, const char* name, size_t count, int64_t dflt) {
  PLUMB_ASSIGN_OR_RETURN(Ints v, n.attr_ints(name, {}));
  if (v.empty()) return Ints(count, dflt);
  if (v.size() != count) return invalid_model("", std::string(name) + " must have one entry per spatial dim");
  return v;
}

struct Window {
  Ints kernel, strides, dilations, lo, hi;
};

// Reads strides/dilations/pads and applies auto_pad (ONNX Conv and pooling). `in` are the spatial
// dims (-1 for symbolic; only NOTSET and VALID accept those).
Status resolve_pads(LowerCtx& cx, const OnnxNode& n, const Ints& in, Window& w) {
  const size_t s = w.kernel.size();
  PLUMB_ASSIGN_OR_RETURN(w.strides, spatial_attr(n, "strides", s, 1));
  PLUMB_ASSIGN_OR_RETURN(w.dilations, spatial_attr(n, "dilations", s, 1));
  PLUMB_ASSIGN_OR_RETURN(std::string auto_pad, n.attr_string("auto_pad", "NOTSET"));
  PLUMB_ASSIGN_OR_RETURN(Ints pads, n.attr_ints("pads", {}));
  w.lo.assign(s, 0);
  w.hi.assign(s, 0);
  for (size_t i = 0; i < s; ++i) {
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] < 1)
      return cx.invalid("strides, dilations and kernel_shape must be >= 1");
    if (w.strides[i] > kMaxWindow || w.dilations[i] > kMaxWindow || w.kernel[i] > kMaxWindow ||
        in[i] > kMaxExtent)
      return cx.invalid("strides, dilations or kernel_shape too large");
  }
  for (int64_t p : pads)
    if (p > kMaxExtent || p < -kMaxExtent) return cx.invalid("pads too large");
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    if (!pads.empty()) {
      if (pads.size() != 2 * s) return cx.invalid("pads must have two entries per spatial dim");
      for (size_t i = 0; i < s; ++i) {
        w.lo[i] = pads[i];
        w.hi[i] = pads[s + i];
        if (w.lo[i] < 0 || w.hi[i] < 0) return cx.unsupported("negative pads");
      }
    }
    return Status::ok();
  }
  if (auto_pad == "VALID") return Status::ok();
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") return cx.invalid("unknown auto_pad " + auto_pad);
  for (size_t i = 0; i < s; ++i) {
    if (in[i] < 0) return cx.unsupported("auto_pad " + auto_pad + " with a symbolic spatial dim");
    const int64_t out = (in[i] + w.strides[i] - 1) / w.strides[i];
    const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + dk - in[i]);
    w.lo[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    w.hi[i] = total - w.lo[i];
  }
  return Status::ok();
}

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
  p.x = cx.input(n, 0);
  if (!cx.b.ok()) return p;
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
  if (!cx.b.ok()) return Status::ok();
  const bool want_idx = cx.wants_output(n, 1);
  PLUMB_ASSIGN_OR_RETURN(int64_t storage_order, n.attr_int("storage_order", 0));
  std::vector<ValueId> r = emit_pool(cx, ir::PoolKind::Max, p.x, p.w, p.extra, want_idx ? 2 : 1);
  cx.set_output(n, 0, r[0]);
  if (!want_idx) return Status::ok();
  ValueId idx = r[1];
  if (storage_order == 1) {
    // Column-major over the spatial dims: idx = nc * S + sum_d coord[d] * prod(D[0..d-1]).
    for (int64_t d : p.in)
      if (d < 0) return cx.unsupported("MaxPool storage_order 1 with a symbolic spatial dim");
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
  return Status::ok();
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
  if (!cx.b.ok()) return Status::ok();
  for (int64_t d : p.in)
    if (d < 0) return cx.unsupported("AveragePool with a symbolic spatial dim");
  PLUMB_ASSIGN_OR_RETURN(int64_t include_pad, n.attr_int("count_include_pad", 0));
  const ir::DType dt = cx.type(p.x).dtype;
  ValueId sum = emit_pool(cx, ir::PoolKind::Sum, to_f64(cx, p.x), p.w, p.extra, 1)[0];
  ValueId counts = bcast_like(cx, window_counts(cx, p, include_pad != 0), sum);
  cx.set_output(n, 0, from_f64(cx, cx.b.binary(BK::Div, sum, counts), dt));
  return Status::ok();
}

Status lower_lp_pool(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(PoolSetup p, pool_setup(cx, n));
  if (!cx.b.ok()) return Status::ok();
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
  return Status::ok();
}

// [N, C, 1...]: the reduced spatial dims put back.
ValueId keep_spatial(LowerCtx& cx, ValueId y, ValueId x) {
  const int64_t r = rank_of(cx, x);
  ValueId nc =
      cx.b.slice(shape_value(cx, x), cx.b.shape_const({0}), cx.b.shape_const({2}), cx.b.shape_const({1}));
  ValueId ones = cx.b.const_ints(ir::DType::I64, {r - 2}, Ints(static_cast<size_t>(r - 2), 1));
  return cx.b.reshape(y, cx.b.concat({nc, ones}, 0));
}

enum class Global { kAvg, kMax, kLp };

template <Global kind>
Status lower_global(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
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
  return Status::ok();
}

// MaxUnpool-9/11: X scattered into zeros at MaxPool's flat indices (the whole [N, C, D...]
// output, row-major), then padded at the end up to output_shape (may be a run-time tensor). Two values
// for one position (overlapping windows) are a run-time error (scatter.R2), never a silent pick.
Status lower_max_unpool(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0), idx = cx.input(n, 1);
  if (!cx.b.ok()) return Status::ok();
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
  ValueId y = cx.b.scatter(ir::GatherKind::Elements, zeros, flat_i, flat_x, 0, ir::ScatterReduction::None);
  y = cx.b.reshape(y, cx.b.shape_const(out));
  if (cx.has_input(n, 2)) {
    ValueId os = cx.input(n, 2);
    const ir::Type ot = cx.type(os);
    if (ot.rank() != 1 || !ot.shape[0].is_static() || ot.shape[0].size != static_cast<int64_t>(s + 2))
      return cx.invalid("MaxUnpool output_shape must be an i64[rank] tensor");
    if (ot.dtype != ir::DType::I64) os = cx.b.cast(os, ir::DType::I64);
    ValueId high = cx.b.binary(BK::Sub, os, cx.b.shape_const(out));
    y = cx.b.pad(y, cx.b.shape_const(Ints(s + 2, 0)), high, scalar_like(cx, 0, x), ir::PadMode::Constant);
  }
  cx.set_output(n, 0, y);
  return Status::ok();
}

// Adds bias B [O] over axis 1 of y [N, O, E...].
ValueId add_bias(LowerCtx& cx, ValueId y, ValueId bias) {
  return cx.b.binary(BK::Add, y, cx.b.broadcast(bias, shape_value(cx, y), {1}));
}

// Crops `crop_lo`/`crop_hi` elements off each spatial dim of y (static shape).
ValueId crop_spatial(LowerCtx& cx, ValueId y, const Ints& crop_lo, const Ints& crop_hi) {
  bool any = false;
  for (size_t i = 0; i < crop_lo.size(); ++i) any = any || crop_lo[i] > 0 || crop_hi[i] > 0;
  if (!any) return y;
  const ir::Type t = cx.type(y);
  Ints start(static_cast<size_t>(t.rank()), 0), size, stride(static_cast<size_t>(t.rank()), 1);
  for (int64_t i = 0; i < t.rank(); ++i) size.push_back(t.shape[i].size);
  for (size_t i = 0; i < crop_lo.size(); ++i) {
    start[i + 2] = crop_lo[i];
    size[i + 2] = std::max<int64_t>(0, size[i + 2] - crop_lo[i] - crop_hi[i]);
  }
  return cx.b.slice(y, cx.b.shape_const(start), cx.b.shape_const(size), cx.b.shape_const(stride));
}

ValueId emit_conv(LowerCtx& cx, ValueId x, ValueId w, ir::DType to, const Window& win, const Ints& lhs_dil,
                  int64_t groups) {
  return cx.b.emit1(ir::ConvAttrs{to, win.strides, win.dilations, lhs_dil, win.lo, win.hi, groups}, {x, w});
}

// The core conv for ONNX Conv/ConvInteger attributes (kernel_shape, auto_pad, pads, strides,
// dilations, group), result dtype `to`.
Expected<ValueId> conv_from_attrs(LowerCtx& cx, const OnnxNode& n, ValueId x, ValueId w, ir::DType to) {
  const ir::Type xt = cx.type(x), wt = cx.type(w);
  if (xt.rank() < 3 || wt.rank() != xt.rank())
    return cx.invalid("Conv input and weight must have equal rank >= 3");
  const size_t s = static_cast<size_t>(xt.rank() - 2);
  Window win;
  PLUMB_ASSIGN_OR_RETURN(win.kernel, n.attr_ints("kernel_shape", {}));
  if (win.kernel.empty()) {
    for (size_t i = 0; i < s; ++i) {
      if (!wt.shape[i + 2].is_static()) return cx.unsupported("Conv with a symbolic kernel shape");
      win.kernel.push_back(wt.shape[i + 2].size);
    }
  }
  if (win.kernel.size() != s) return cx.invalid("kernel_shape must have one entry per spatial dim");
  for (size_t i = 0; i < s; ++i)
    if (wt.shape[i + 2].is_static() && wt.shape[i + 2].size != win.kernel[i])
      return cx.invalid("kernel_shape does not match the weight");
  Ints in;
  for (size_t i = 0; i < s; ++i) in.push_back(xt.shape[i + 2].is_static() ? xt.shape[i + 2].size : -1);
  PLUMB_RETURN_IF_ERROR(resolve_pads(cx, n, in, win));
  PLUMB_ASSIGN_OR_RETURN(int64_t group, n.attr_int("group", 1));
  return emit_conv(cx, x, w, to, win, Ints(s, 1), group);
}

Status lower_conv(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  ValueId w = cx.input(n, 1);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId y, conv_from_attrs(cx, n, x, w, cx.type(x).dtype));
  if (cx.has_input(n, 2)) y = add_bias(cx, y, cx.input(n, 2));
  cx.set_output(n, 0, y);
  return Status::ok();
}

// v - zero_point in i32; the zero point is a scalar (or [1]) or, when `per_axis0`, may be a
// 1-D tensor over axis 0 of v (ConvInteger's per-output-channel weight zero point).
Expected<ValueId> minus_zero_point(LowerCtx& cx, ValueId v, ValueId zp, bool per_axis0) {
  ValueId vi = cx.b.cast(v, ir::DType::I32);
  if (zp == ir::kNoValue) return vi;
  const ir::Type zt = cx.type(zp);
  ValueId z = cx.b.cast(zp, ir::DType::I32);
  Ints dims;
  if (zt.rank() == 1 && zt.shape[0].is_static() && zt.shape[0].size == 1) {
    z = cx.b.reshape(z, cx.b.shape_const({}));
  } else if (zt.rank() == 1 && per_axis0) {
    dims = {0};
  } else if (zt.rank() != 0) {
    return cx.invalid("zero point must be a scalar (or per output channel for the weight)");
  }
  return cx.b.binary(BK::Sub, vi, cx.b.broadcast(z, shape_value(cx, vi), dims));
}

// ConvInteger-10: (x - x_zero_point) conv (w - w_zero_point) in i32 (zero padding).
Status lower_conv_integer(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  ValueId w = cx.input(n, 1);
  ValueId xz = cx.has_input(n, 2) ? cx.input(n, 2) : ir::kNoValue;
  ValueId wz = cx.has_input(n, 3) ? cx.input(n, 3) : ir::kNoValue;
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId xi, minus_zero_point(cx, x, xz, false));
  PLUMB_ASSIGN_OR_RETURN(ValueId wi, minus_zero_point(cx, w, wz, true));
  PLUMB_ASSIGN_OR_RETURN(ValueId y, conv_from_attrs(cx, n, xi, wi, ir::DType::I32));
  cx.set_output(n, 0, y);
  return Status::ok();
}

// A scalar (rank 0 or [1]) value as rank 0, else `v` unchanged.
ValueId as_scalar(LowerCtx& cx, ValueId v) {
  const ir::Type t = cx.type(v);
  if (t.rank() == 1 && t.shape[0].is_static() && t.shape[0].size == 1)
    return cx.b.reshape(v, cx.b.shape_const({}));
  return v;
}

// QLinearConv-10: the ConvInteger accumulator plus the i32 bias, scaled by
// x_scale * w_scale / y_scale (an f32 product, as the ONNX reference computes it; w_scale may be
// per output channel), plus y_zero_point, clipped to the output dtype's range and rounded half to
// even. The scaling is done in f64 so the only rounding after the f32 multiplier is the final one.
Status lower_qlinear_conv(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0), xs = cx.input(n, 1), xz = cx.input(n, 2);
  ValueId w = cx.input(n, 3), ws = cx.input(n, 4), wz = cx.input(n, 5);
  ValueId ys = cx.input(n, 6), yz = cx.input(n, 7);
  if (!cx.b.ok()) return Status::ok();
  const ir::DType out_dt = cx.type(yz).dtype;
  if (out_dt != ir::DType::U8 && out_dt != ir::DType::I8)
    return cx.unsupported("QLinearConv output other than u8/i8");
  PLUMB_ASSIGN_OR_RETURN(ValueId xi, minus_zero_point(cx, x, xz, false));
  PLUMB_ASSIGN_OR_RETURN(ValueId wi, minus_zero_point(cx, w, wz, true));
  PLUMB_ASSIGN_OR_RETURN(ValueId acc, conv_from_attrs(cx, n, xi, wi, ir::DType::I32));
  if (cx.has_input(n, 8)) acc = add_bias(cx, acc, cx.b.cast(cx.input(n, 8), ir::DType::I32));
  xs = as_scalar(cx, xs);
  ys = as_scalar(cx, ys);
  ws = as_scalar(cx, ws);
  if (rank_of(cx, xs) != 0 || rank_of(cx, ys) != 0 || rank_of(cx, ws) > 1)
    return cx.invalid("QLinearConv scales must be scalars (w_scale may be per output channel)");
  const ir::DType sdt = cx.type(xs).dtype;
  ValueId wsv = cx.type(ws).dtype == sdt ? ws : cx.b.cast(ws, sdt);
  ValueId mult =
      cx.b.binary(BK::Mul, rank_of(cx, wsv) == 0 ? xs : cx.b.broadcast(xs, shape_value(cx, wsv), {}), wsv);
  mult =
      cx.b.binary(BK::Div, mult, rank_of(cx, mult) == 0 ? ys : cx.b.broadcast(ys, shape_value(cx, mult), {}));
  ValueId accf = to_f64(cx, acc);
  ValueId multf =
      cx.b.broadcast(to_f64(cx, mult), shape_value(cx, accf), rank_of(cx, mult) == 0 ? Ints{} : Ints{1});
  ValueId r = cx.b.binary(BK::Mul, accf, multf);
  r = cx.b.binary(BK::Add, r, cx.b.broadcast(to_f64(cx, as_scalar(cx, yz)), shape_value(cx, r), {}));
  const double lo = out_dt == ir::DType::U8 ? 0 : -128, hi = out_dt == ir::DType::U8 ? 255 : 127;
  r = cx.b.binary(BK::Min, cx.b.binary(BK::Max, r, splat(cx, lo, r)), splat(cx, hi, r));
  cx.set_output(n, 0, cx.b.cast(cx.b.unary(UK::Round, r), out_dt));
  return Status::ok();
}

// CausalConvWithState-27: seq = concat(past_state or zeros [B, C, K-1], input) on the time
// axis; output = activation(depthwise conv(seq, weight) + bias) of the input's length;
// present_state = the last K-1 positions of seq. SiLU/Swish (x * sigmoid(x)) is computed in f64.
Status lower_causal_conv(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0), w = cx.input(n, 1);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(std::string act, n.attr_string("activation", "none"));
  if (act != "none" && act != "silu" && act != "swish") return cx.invalid("unknown activation " + act);
  const ir::Type xt = cx.type(x), wt = cx.type(w);
  if (xt.rank() != 3 || wt.rank() != 3)
    return cx.invalid("CausalConvWithState input and weight must have rank 3");
  if (!wt.shape[0].is_static() || !wt.shape[2].is_static())
    return cx.unsupported("CausalConvWithState with a symbolic weight shape");
  const int64_t C = wt.shape[0].size, K = wt.shape[2].size;
  if (K < 1 || K > kMaxWindow) return cx.invalid("CausalConvWithState kernel size out of range");
  ValueId past = ir::kNoValue;
  if (cx.has_input(n, 3)) {
    past = cx.input(n, 3);
  } else {
    ValueId bc =
        cx.b.slice(shape_value(cx, x), cx.b.shape_const({0}), cx.b.shape_const({2}), cx.b.shape_const({1}));
    past = cx.b.broadcast(scalar_like(cx, 0, x), cx.b.concat({bc, cx.b.shape_const({K - 1})}, 0), {});
  }
  ValueId seq = cx.b.concat({past, x}, 2);
  Window win;
  win.kernel = {K};
  win.strides = {1};
  win.dilations = {1};
  win.lo = {0};
  win.hi = {0};
  ValueId y = emit_conv(cx, seq, w, xt.dtype, win, {1}, C);
  if (cx.has_input(n, 2)) y = add_bias(cx, y, cx.input(n, 2));
  if (act != "none") {
    ValueId yf = to_f64(cx, y);
    ValueId one = splat(cx, 1.0, yf);
    ValueId sig =
        cx.b.binary(BK::Div, one, cx.b.binary(BK::Add, one, cx.b.unary(UK::Exp, cx.b.unary(UK::Neg, yf))));
    y = from_f64(cx, cx.b.binary(BK::Mul, yf, sig), xt.dtype);
  }
  cx.set_output(n, 0, y);
  if (cx.wants_output(n, 1)) {
    // seq[:, :, L : L + K - 1], L = the input length.
    ValueId sshape = shape_value(cx, seq);
    ValueId len =
        cx.b.slice(shape_value(cx, x), cx.b.shape_const({2}), cx.b.shape_const({1}), cx.b.shape_const({1}));
    ValueId start = cx.b.concat({cx.b.shape_const({0, 0}), len}, 0);
    ValueId bc = cx.b.slice(sshape, cx.b.shape_const({0}), cx.b.shape_const({2}), cx.b.shape_const({1}));
    ValueId size = cx.b.concat({bc, cx.b.shape_const({K - 1})}, 0);
    cx.set_output(n, 1, cx.b.slice(seq, start, size, cx.b.shape_const({1, 1, 1})));
  }
  return Status::ok();
}

Status lower_conv_transpose(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  ValueId w = cx.input(n, 1);
  if (!cx.b.ok()) return Status::ok();
  const ir::Type xt = cx.type(x), wt = cx.type(w);
  if (xt.rank() < 3 || wt.rank() != xt.rank())
    return cx.invalid("ConvTranspose input and weight must have equal rank >= 3");
  if (!ir::shape_is_static(wt.shape)) return cx.unsupported("ConvTranspose with a symbolic weight shape");
  auto in_opt = static_spatial(cx, x);
  if (!in_opt) return cx.unsupported("ConvTranspose with a symbolic spatial dim");
  const Ints in = *in_opt;
  const size_t s = in.size();
  PLUMB_ASSIGN_OR_RETURN(int64_t g, n.attr_int("group", 1));
  const int64_t C = wt.shape[0].size, Og = wt.shape[1].size;
  if (g < 1 || C % g != 0) return cx.invalid("ConvTranspose group must divide the input channels");
  Ints kernel;
  for (size_t i = 0; i < s; ++i) kernel.push_back(wt.shape[i + 2].size);
  PLUMB_ASSIGN_OR_RETURN(Ints ks, n.attr_ints("kernel_shape", {}));
  if (!ks.empty() && ks != kernel) return cx.invalid("kernel_shape does not match the weight");
  PLUMB_ASSIGN_OR_RETURN(Ints strides, spatial_attr(n, "strides", s, 1));
  PLUMB_ASSIGN_OR_RETURN(Ints dil, spatial_attr(n, "dilations", s, 1));
  PLUMB_ASSIGN_OR_RETURN(Ints out_pad, spatial_attr(n, "output_padding", s, 0));
  PLUMB_ASSIGN_OR_RETURN(Ints out_shape, n.attr_ints("output_shape", {}));
  PLUMB_ASSIGN_OR_RETURN(std::string auto_pad, n.attr_string("auto_pad", "NOTSET"));
  PLUMB_ASSIGN_OR_RETURN(Ints pads, n.attr_ints("pads", {}));
  for (size_t i = 0; i < s; ++i) {
    if (strides[i] < 1 || dil[i] < 1) return cx.invalid("strides and dilations must be >= 1");
    if (strides[i] > kMaxWindow || dil[i] > kMaxWindow || kernel[i] > kMaxWindow || in[i] > kMaxExtent ||
        out_pad[i] < 0 || out_pad[i] > kMaxWindow)
      return cx.invalid("ConvTranspose attributes out of range");
  }
  for (int64_t p : pads)
    if (p > kMaxExtent || p < -kMaxExtent) return cx.invalid("pads too large");
  for (int64_t o : out_shape)
    if (o < 0 || o > kMaxExtent) return cx.invalid("output_shape out of range");
  Ints lo(s, 0), hi(s, 0);
  if (out_shape.size() > s) out_shape.erase(out_shape.begin(), out_shape.end() - static_cast<long>(s));
  if (!out_shape.empty() && out_shape.size() != s) return cx.invalid("output_shape has the wrong length");
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (out_shape.empty() && same)
    for (size_t i = 0; i < s; ++i) out_shape.push_back(in[i] * strides[i]);
  if (!out_shape.empty()) {
    for (size_t i = 0; i < s; ++i) {
      const int64_t total =
          strides[i] * (in[i] - 1) + out_pad[i] + (kernel[i] - 1) * dil[i] + 1 - out_shape[i];
      // ONNX's formula with Python's floor division (total may be negative: the output is then
      // larger than the full transposed result and the extra positions hold only the bias).
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      if (auto_pad == "SAME_UPPER") {
        lo[i] = half;
        hi[i] = total - half;
      } else {
        lo[i] = total - half;
        hi[i] = half;
      }
    }
  } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
    if (!pads.empty()) {
      if (pads.size() != 2 * s) return cx.invalid("pads must have two entries per spatial dim");
      for (size_t i = 0; i < s; ++i) {
        lo[i] = pads[i];
        hi[i] = pads[s + i];
      }
    }
  } else if (auto_pad != "VALID") {
    return cx.invalid("unknown auto_pad " + auto_pad);
  }
  // Weight [C, Og, K...] -> [g, C/g, Og, K...] -> [g, Og, C/g, K...] -> [g*Og, C/g, K...], flipped.
  Ints split{g, C / g, Og}, merged{g * Og, C / g}, perm{0, 2, 1};
  for (size_t i = 0; i < s; ++i) {
    split.push_back(kernel[i]);
    merged.push_back(kernel[i]);
    perm.push_back(static_cast<int64_t>(i) + 3);
  }
  ValueId wr =
      cx.b.reshape(cx.b.transpose(cx.b.reshape(w, cx.b.shape_const(split)), perm), cx.b.shape_const(merged));
  Ints fstart{0, 0}, fstride{1, 1};
  for (size_t i = 0; i < s; ++i) {
    fstart.push_back(kernel[i] - 1);
    fstride.push_back(-1);
  }
  wr = cx.b.slice(wr, cx.b.shape_const(fstart), cx.b.shape_const(merged), cx.b.shape_const(fstride));
  Window win;
  win.kernel = kernel;
  win.strides = Ints(s, 1);
  win.dilations = dil;
  Ints crop_lo(s, 0), crop_hi(s, 0);
  for (size_t i = 0; i < s; ++i) {
    const int64_t dk = (kernel[i] - 1) * dil[i] + 1;
    const int64_t pl = dk - 1 - lo[i], ph = dk - 1 - hi[i] + out_pad[i];
    win.lo.push_back(std::max<int64_t>(0, pl));
    win.hi.push_back(std::max<int64_t>(0, ph));
    crop_lo[i] = std::max<int64_t>(0, -pl);
    crop_hi[i] = std::max<int64_t>(0, -ph);
  }
  ValueId y = emit_conv(cx, x, wr, xt.dtype, win, strides, g);
  y = crop_spatial(cx, y, crop_lo, crop_hi);
  if (cx.has_input(n, 2)) y = add_bias(cx, y, cx.input(n, 2));
  cx.set_output(n, 0, y);
  return Status::ok();
}

}  // namespace

void register_conv_pool(Registry& r) {
  r.add("Conv", {1, kLatestOpset}, lower_conv);
  r.add("ConvTranspose", {1, kLatestOpset}, lower_conv_transpose);
  r.add("ConvInteger", {10, kLatestOpset}, lower_conv_integer);
  r.add("QLinearConv", {10, kLatestOpset}, lower_qlinear_conv);
  r.add("CausalConvWithState", {27, kLatestOpset}, lower_causal_conv);
  r.add("MaxPool", {1, kLatestOpset}, lower_max_pool);
  r.add("AveragePool", {1, kLatestOpset}, lower_average_pool);
  r.add("MaxUnpool", {9, kLatestOpset}, lower_max_unpool);
  r.add("LpPool", {1, kLatestOpset}, lower_lp_pool);
  r.add("GlobalAveragePool", {1, kLatestOpset}, lower_global<Global::kAvg>);
  r.add("GlobalMaxPool", {1, kLatestOpset}, lower_global<Global::kMax>);
  r.add("GlobalLpPool", {1, kLatestOpset}, lower_global<Global::kLp>);
}

}  // namespace plumb::lower
