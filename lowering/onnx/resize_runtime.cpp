#include "lowering/onnx/resize_runtime.h"

#include "lowering/onnx/helpers.h"

namespace plumb::lower::resize {

using ir::ValueId;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;
using UK = ir::UnaryKind;

namespace {

constexpr ir::DType kF64 = ir::DType::F64;

// f64 arithmetic on [out] vectors of one axis; scalars are splatted explicitly (the core has no
// implicit broadcasting).
struct AxisMath {
  LowerCtx& cx;
  ValueId out_shape;  // i64[1]: the axis' output extent

  ValueId splat(ValueId scalar) { return cx.b.broadcast(scalar, out_shape, {}); }
  ValueId c(double v) { return splat(cx.b.scalar_float(kF64, v)); }
  ValueId add(ValueId a, ValueId b) { return cx.b.binary(BK::Add, a, b); }
  ValueId sub(ValueId a, ValueId b) { return cx.b.binary(BK::Sub, a, b); }
  ValueId mul(ValueId a, ValueId b) { return cx.b.binary(BK::Mul, a, b); }
  ValueId div(ValueId a, ValueId b) { return cx.b.binary(BK::Div, a, b); }
  ValueId max(ValueId a, ValueId b) { return cx.b.binary(BK::Max, a, b); }
  ValueId min(ValueId a, ValueId b) { return cx.b.binary(BK::Min, a, b); }
  ValueId floor(ValueId a) { return cx.b.unary(UK::Floor, a); }
  ValueId ceil(ValueId a) { return cx.b.unary(UK::Ceil, a); }
  ValueId abs(ValueId a) { return cx.b.unary(UK::Abs, a); }
  ValueId cmp(ir::CompareKind kind, ValueId a, ValueId b) { return cx.b.compare(kind, a, b); }
  ValueId sel(ValueId p, ValueId a, ValueId b) { return cx.b.select(p, a, b); }
};

// The source coordinate of every output position (resize.cpp's source_coord, as graph values).
// `in`, `out`, `scale` are f64 [out] splats; `o` the positions.
ValueId source_coord(AxisMath& m, Coord c, ValueId o, ValueId scale, ValueId in, ValueId out) {
  const ValueId half = m.c(0.5);
  switch (c) {
    case Coord::HalfPixel: return m.sub(m.div(m.add(o, half), scale), half);
    case Coord::PytorchHalfPixel:
      return m.sel(m.cmp(CK::Gt, out, m.c(1)), m.sub(m.div(m.add(o, half), scale), half), m.c(0));
    case Coord::AlignCorners:
      // out > 1 ? o * (in - 1) / (out - 1) : 0 (the division by 0 at out == 1 is not selected).
      return m.sel(m.cmp(CK::Gt, out, m.c(1)), m.div(m.mul(o, m.sub(in, m.c(1))), m.sub(out, m.c(1))),
                   m.c(0));
    case Coord::Asymmetric: return m.div(o, scale);
    case Coord::TfHalfPixelForNn: return m.div(m.add(o, half), scale);
    case Coord::HalfPixelSymmetric:
    case Coord::TfCropAndResize: break;  // refused before
  }
  return ir::kNoValue;
}

ValueId nearest_index(AxisMath& m, Nearest k, ValueId x, ValueId scale) {
  switch (k) {
    case Nearest::RoundPreferFloor: return m.ceil(m.sub(x, m.c(0.5)));
    case Nearest::RoundPreferCeil: return m.floor(m.add(x, m.c(0.5)));
    case Nearest::Floor: return m.floor(x);
    case Nearest::Ceil: return m.ceil(x);
    case Nearest::Simple: return m.sel(m.cmp(CK::Lt, scale, m.c(1)), m.ceil(x), m.floor(x));
  }
  return ir::kNoValue;
}

// Keys' cubic kernel at distance t (resize.cpp's cubic_kernel): |t| <= 1, 1 < |t| < 2, else 0.
ValueId cubic_kernel(AxisMath& m, ValueId t, double a) {
  t = m.abs(t);
  const ValueId near = m.add(m.mul(m.mul(m.sub(m.mul(m.c(a + 2), t), m.c(a + 3)), t), t), m.c(1));
  const ValueId far =
      m.sub(m.mul(m.add(m.mul(m.sub(m.mul(m.c(a), t), m.c(5 * a)), t), m.c(8 * a)), t), m.c(4 * a));
  return m.sel(m.cmp(CK::Le, t, m.c(1)), near, m.sel(m.cmp(CK::Lt, t, m.c(2)), far, m.c(0)));
}

// clamp(i, 0, in - 1) as i64 indices (i integral in f64).
ValueId clamp_index(AxisMath& m, ValueId i, ValueId in) {
  return m.cx.b.cast(m.max(m.min(i, m.sub(in, m.c(1))), m.c(0)), ir::DType::I64, /*saturate=*/true);
}

ValueId gather_along(LowerCtx& cx, ValueId x, ValueId idx, int64_t axis) {
  return cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, axis, int64_t{0}}, {x, idx});
}

// Element k of a 1-D value, as a scalar of its dtype.
ValueId element(LowerCtx& cx, ValueId v, int64_t k) {
  return cx.b.reshape(static_slice(cx, v, {k}, {1}), cx.b.shape_const({}));
}

// Resizes axis `axis` of y from extent `in_i` (i64 scalar) to `out_i` (i64 scalar) with `scale`
// (f64 scalar). y is f64 for linear/cubic.
ValueId resize_axis(LowerCtx& cx, const Params& p, ValueId y, int64_t axis, ValueId in_i, ValueId out_i,
                    ValueId scale_s) {
  AxisMath m{cx, cx.b.reshape(out_i, cx.b.shape_const({1}))};
  const ValueId o = cx.b.emit1(ir::IotaAttrs{kF64, int64_t{0}}, {m.out_shape});
  const ValueId in = m.splat(cx.b.cast(in_i, kF64));
  const ValueId out = m.splat(cx.b.cast(out_i, kF64));
  const ValueId scale = m.splat(scale_s);
  const ValueId x = source_coord(m, p.coord, o, scale, in, out);
  if (p.mode == Mode::Nearest)
    return gather_along(cx, y, clamp_index(m, nearest_index(m, p.nearest, x, scale), in), axis);
  // The ratio of x to its left neighbour i0 is in (0, 1]: an integral x has i0 = x - 1.
  const ValueId fl = m.floor(x);
  const ValueId i0 = m.sel(m.cmp(CK::Eq, fl, x), m.sub(x, m.c(1)), fl);
  const ValueId ratio = m.sub(x, i0);
  const int64_t taps = p.mode == Mode::Linear ? 2 : 4;
  const int64_t first = p.mode == Mode::Linear ? 0 : -1;
  // The sum starts at -0 (x + -0 == x for every x, -0 included) and leaves out zero-weight taps,
  // so a position that copies one input element copies it exactly (a NaN or inf in a neighbour
  // that has weight 0 does not leak in).
  ValueId sum = ir::kNoValue;
  for (int64_t t = 0; t < taps; ++t) {
    const ValueId k = m.c(static_cast<double>(first + t));
    const ValueId w = p.mode == Mode::Linear ? m.max(m.c(0), m.sub(m.c(1), m.abs(m.sub(k, ratio))))
                                             : cubic_kernel(m, m.sub(k, ratio), p.cubic_a);
    const ValueId g = gather_along(cx, y, clamp_index(m, m.add(i0, k), in), axis);
    const ValueId shape = shape_value(cx, g);
    const ValueId wb = cx.b.broadcast(w, shape, {axis});
    const ValueId zero = cx.b.broadcast(cx.b.compare(CK::Eq, w, m.c(0)), shape, {axis});
    if (t == 0) sum = splat(cx, -0.0, g);
    sum = cx.b.select(zero, sum, cx.b.binary(BK::Add, sum, cx.b.binary(BK::Mul, g, wb)));
  }
  return sum;
}

}  // namespace

ValueId f64_to_int(LowerCtx& cx, ValueId v, ir::DType dt) {
  double lo = 0, hi = 0;
  switch (dt) {
    case ir::DType::I8: lo = -128, hi = 127; break;
    case ir::DType::U8: lo = 0, hi = 255; break;
    case ir::DType::I16: lo = -32768, hi = 32767; break;
    case ir::DType::U16: lo = 0, hi = 65535; break;
    case ir::DType::I32: lo = -2147483648.0, hi = 2147483647.0; break;
    case ir::DType::U32: lo = 0, hi = 4294967295.0; break;
    case ir::DType::I64: lo = -9223372036854775808.0, hi = 9223372036854774784.0; break;
    case ir::DType::U64: lo = 0, hi = 18446744073709549568.0; break;
    default: break;
  }
  ValueId r = cx.b.unary(UK::Round, v);
  r = cx.b.binary(BK::Max, r, splat(cx, lo, r));
  r = cx.b.binary(BK::Min, r, splat(cx, hi, r));
  return cx.b.cast(r, dt);
}

Status emit_runtime_resize(LowerCtx& cx, const onnx::OnnxNode& n, ValueId x, const RuntimeSpec& s,
                           const std::string& what) {
  const char* refused = nullptr;
  if (s.p.antialias) refused = "antialias";
  if (s.p.exclude_outside) refused = "exclude_outside";
  if (s.p.coord == Coord::TfCropAndResize) refused = "tf_crop_and_resize";
  if (s.p.coord == Coord::HalfPixelSymmetric) refused = "half_pixel_symmetric";
  if (refused)
    return cx.unsupported(what + " with " + refused + " needs its output extents at build time, and input '" +
                          n.inputs[0] +
                          "' or its sizes/scales are only known at run time; `plumb run` or "
                          "`plumb check` with input data will work");
  const ir::Type xt = cx.type(x);
  const ir::DType dt = xt.dtype;
  if (s.p.mode != Mode::Nearest && !ir::is_float(dt) && !ir::is_int(dt))
    return cx.unsupported(what + " linear/cubic of " + std::string(ir::dtype_name(dt)));
  const ValueId params = s.sizes != ir::kNoValue ? s.sizes : s.scales;
  const ir::Type pt = cx.type(params);
  if (pt.rank() != 1 || pt.shape[0].size != static_cast<int64_t>(s.axes.size()))
    return cx.invalid(what + ": " + (s.sizes != ir::kNoValue ? "sizes" : "scales") + " must have " +
                      std::to_string(s.axes.size()) + " elements");
  const ValueId shape = shape_value(cx, x);
  ValueId y = x;
  if (s.p.mode != Mode::Nearest && dt != kF64) y = cx.b.cast(y, kF64);
  // The axes last to first (the ONNX reference's nested 1-D interpolation order).
  for (size_t i = s.axes.size(); i-- > 0;) {
    const int64_t d = s.axes[i];
    const ValueId in_i = element(cx, shape, d);
    ValueId out_i = ir::kNoValue, scale = ir::kNoValue;
    if (s.sizes != ir::kNoValue) {
      out_i = element(cx, s.sizes, static_cast<int64_t>(i));
      if (cx.type(out_i).dtype != ir::DType::I64) out_i = cx.b.cast(out_i, ir::DType::I64);
      scale = cx.b.binary(BK::Div, cx.b.cast(out_i, kF64), cx.b.cast(in_i, kF64));
    } else {
      scale = cx.b.cast(element(cx, s.scales, static_cast<int64_t>(i)), kF64);
      // output_dimension = floor(input_dimension * scale); a negative or huge one is iota's
      // run-time error.
      out_i = cx.b.cast(cx.b.unary(UK::Floor, cx.b.binary(BK::Mul, cx.b.cast(in_i, kF64), scale)),
                        ir::DType::I64, /*saturate=*/true);
    }
    y = resize_axis(cx, s.p, y, d, in_i, out_i, scale);
  }
  if (s.p.mode != Mode::Nearest && dt != kF64)
    y = ir::is_int(dt) ? f64_to_int(cx, y, dt) : cx.b.cast(y, dt, /*saturate=*/true);
  cx.set_output(n, 0, y);
  return Status::ok();
}

}  // namespace plumb::lower::resize
