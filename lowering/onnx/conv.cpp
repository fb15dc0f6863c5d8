// ONNX convolution and pooling: Conv ConvTranspose ConvInteger QLinearConv CausalConvWithState MaxPool
// MaxUnpool AveragePool LpPool GlobalAveragePool GlobalMaxPool GlobalLpPool, onto the core `conv` and `pool`
// (spec/ops/conv.md, pool.md). auto_pad, ceil_mode and ConvTranspose's output_shape are turned into explicit
// non-negative pads here (static spatial dims needed for those); negative effective pads become a `slice` of
// the result. conv and max/sum pooling run in the input dtype (the core fixes the accumulator); the
// composites around them (averages, Lp norms) are computed in f64 and rounded once, so their only
// rounding error is the final cast and they do not depend on f16/f32 intermediate rounding.
// This file: the convolutions; pool.cpp the pooling ops; window.h what both read.
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
  // y has no spatial dims only when it is no value (its build failed: that error is reported).
  if (t.rank() != 2 + static_cast<int64_t>(crop_lo.size())) return y;
  Ints start(static_cast<size_t>(t.rank()), 0), size, stride(static_cast<size_t>(t.rank()), 1);
  for (int64_t i = 0; i < t.rank(); ++i) size.push_back(t.shape[i].size);
  for (size_t i = 0; i < crop_lo.size(); ++i) {
    start[i + 2] = crop_lo[i];
    size[i + 2] = std::max<int64_t>(0, size[i + 2] - crop_lo[i] - crop_hi[i]);
  }
  return cx.b.emit1(ir::SliceAttrs{},
                    {y, cx.b.shape_const(start), cx.b.shape_const(size), cx.b.shape_const(stride)});
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
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId w, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId y, conv_from_attrs(cx, n, x, w, cx.type(x).dtype));
  PLUMB_ASSIGN_OR_RETURN(const ValueId bias, cx.optional_input(n, 2));
  if (bias != ir::kNoValue) y = add_bias(cx, y, bias);
  cx.set_output(n, 0, y);
  return cx.error();
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
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId w, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId xz, cx.optional_input(n, 2));
  PLUMB_ASSIGN_OR_RETURN(ValueId wz, cx.optional_input(n, 3));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId xi, minus_zero_point(cx, x, xz, false));
  PLUMB_ASSIGN_OR_RETURN(ValueId wi, minus_zero_point(cx, w, wz, true));
  PLUMB_ASSIGN_OR_RETURN(ValueId y, conv_from_attrs(cx, n, xi, wi, ir::DType::I32));
  cx.set_output(n, 0, y);
  return cx.error();
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
// per output channel), rounded half to even, plus y_zero_point, clipped to the output dtype's
// range. The scaling is done in f64 so the only rounding after the f32 multiplier is the final one.
Status lower_qlinear_conv(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 8));
  ValueId x = in[0], xs = in[1], xz = in[2], w = in[3], ws = in[4], wz = in[5], ys = in[6], yz = in[7];
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType out_dt = cx.type(yz).dtype;
  if (out_dt != ir::DType::U8 && out_dt != ir::DType::I8)
    return cx.unsupported("QLinearConv output other than u8/i8");
  PLUMB_ASSIGN_OR_RETURN(ValueId xi, minus_zero_point(cx, x, xz, false));
  PLUMB_ASSIGN_OR_RETURN(ValueId wi, minus_zero_point(cx, w, wz, true));
  PLUMB_ASSIGN_OR_RETURN(ValueId acc, conv_from_attrs(cx, n, xi, wi, ir::DType::I32));
  PLUMB_ASSIGN_OR_RETURN(const ValueId bias, cx.optional_input(n, 8));
  if (bias != ir::kNoValue) acc = add_bias(cx, acc, cx.b.cast(bias, ir::DType::I32));
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
  // Rounded before y_zero_point is added, as QuantizeLinear's y = saturate(round(x / y_scale) + zp):
  // rounding after it moves a tie by an odd zero point the other way (plumb gen, issue 22, found
  // round(-2.5 + 107) = 104 where onnxruntime and the text's order give -2 + 107 = 105).
  ValueId r = cx.b.unary(UK::Round, cx.b.binary(BK::Mul, accf, multf));
  r = cx.b.binary(BK::Add, r, cx.b.broadcast(to_f64(cx, as_scalar(cx, yz)), shape_value(cx, r), {}));
  const double lo = out_dt == ir::DType::U8 ? 0 : -128, hi = out_dt == ir::DType::U8 ? 255 : 127;
  r = cx.b.binary(BK::Min, cx.b.binary(BK::Max, r, splat(cx, lo, r)), splat(cx, hi, r));
  cx.set_output(n, 0, cx.b.cast(r, out_dt));
  return cx.error();
}

// CausalConvWithState-27: seq = concat(past_state or zeros [B, C, K-1], input) on the time
// axis; output = activation(depthwise conv(seq, weight) + bias) of the input's length;
// present_state = the last K-1 positions of seq. SiLU/Swish (x * sigmoid(x)) is computed in f64.
Status lower_causal_conv(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId w, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
    PLUMB_ASSIGN_OR_RETURN(past, cx.input(n, 3));
  } else {
    ValueId bc = cx.b.emit1(ir::SliceAttrs{}, {shape_value(cx, x), cx.b.shape_const({0}),
                                               cx.b.shape_const({2}), cx.b.shape_const({1})});
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
  PLUMB_ASSIGN_OR_RETURN(const ValueId bias, cx.optional_input(n, 2));
  if (bias != ir::kNoValue) y = add_bias(cx, y, bias);
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
    ValueId len = cx.b.emit1(ir::SliceAttrs{}, {shape_value(cx, x), cx.b.shape_const({2}),
                                                cx.b.shape_const({1}), cx.b.shape_const({1})});
    ValueId start = cx.b.concat({cx.b.shape_const({0, 0}), len}, 0);
    ValueId bc = cx.b.emit1(ir::SliceAttrs{},
                            {sshape, cx.b.shape_const({0}), cx.b.shape_const({2}), cx.b.shape_const({1})});
    ValueId size = cx.b.concat({bc, cx.b.shape_const({K - 1})}, 0);
    cx.set_output(n, 1, cx.b.emit1(ir::SliceAttrs{}, {seq, start, size, cx.b.shape_const({1, 1, 1})}));
  }
  return cx.error();
}

Status lower_conv_transpose(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId w, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
  wr = cx.b.emit1(ir::SliceAttrs{},
                  {wr, cx.b.shape_const(fstart), cx.b.shape_const(merged), cx.b.shape_const(fstride)});
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
  PLUMB_RETURN_IF_ERROR(cx.error());  // crop_spatial reads y's type
  y = crop_spatial(cx, y, crop_lo, crop_hi);
  PLUMB_ASSIGN_OR_RETURN(const ValueId bias, cx.optional_input(n, 2));
  if (bias != ir::kNoValue) y = add_bias(cx, y, bias);
  cx.set_output(n, 0, y);
  return cx.error();
}

}  // namespace

void register_conv_pool(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"Conv", 1, lower_conv}, {"ConvTranspose", 1, lower_conv_transpose},
      {"ConvInteger", 10, lower_conv_integer}, {"QLinearConv", 10, lower_qlinear_conv},
      {"CausalConvWithState", 27, lower_causal_conv}});
  // clang-format on
  register_pool(r);
}

}  // namespace plumb::lower
