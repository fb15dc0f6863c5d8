// ONNX linear quantization: QuantizeLinear DequantizeLinear DynamicQuantizeLinear MatMulInteger
// QLinearMatMul (ConvInteger and QLinearConv are in conv_pool.cpp).
//
// Numerics (ONNX operator text; the ONNX reference implementation where the text is silent):
// - QuantizeLinear: q = x / y_scale in the division dtype D (opset >= 23: the `precision`
//   attribute, else y_scale's dtype; earlier opsets: y_scale's dtype, which is x's or f32); D is
//   f64 when it names an integer dtype (true division, exact for int32 operands: plumb ruling) and
//   f32 for an f8e8m0 scale (every power of two it holds is exact there). Integer targets:
//   round(q) half to even, plus y_zero_point, clamped to the target's range, all exact (f64);
//   a NaN quotient is a runtime error (cast.R1: ONNX leaves it undefined). Float targets:
//   cast(q + y_zero_point, saturate) (f4e2m1 always saturates: spec/numerics.md).
// - DequantizeLinear: (x - x_zero_point) exact in an integer dtype (float x: in the output dtype),
//   converted once to the output dtype T, times x_scale converted to T: "the output type also
//   determines the precision of the multiplication" (opset 23+ text; earlier T is x_scale's dtype).
// - Scales and zero points with one element are per-tensor; 1-D ones are per `axis`; with
//   block_size (opset >= 21) each element covers block_size consecutive positions along `axis`.
#include <cmath>
#include <string>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;

namespace {

using Ints = std::vector<int64_t>;

ValueId cast_to(LowerCtx& cx, ValueId v, DType dt, bool saturate = false) {
  return cx.type(v).dtype == dt ? v : cx.b.cast(v, dt, saturate);
}

// Element count of a static shape, or -1.
int64_t static_numel(const ir::Type& t) {
  if (!t.ranked || !ir::shape_is_static(t.shape)) return -1;
  int64_t n = 1;
  for (const ir::Dim& d : t.shape) n *= d.size;
  return n;
}

bool is_float8(DType dt) {
  return dt == DType::F8E4M3FN || dt == DType::F8E4M3FNUZ || dt == DType::F8E5M2 || dt == DType::F8E5M2FNUZ;
}

// The integer range of a quantized integer dtype.
void int_range(DType dt, double& lo, double& hi) {
  const int bits = ir::dtype_bits(dt);
  if (ir::is_signed_int(dt)) {
    lo = -std::ldexp(1.0, bits - 1);
    hi = std::ldexp(1.0, bits - 1) - 1;
  } else {
    lo = 0;
    hi = std::ldexp(1.0, bits) - 1;
  }
}

// The quantized dtypes (QuantizeLinear y, DequantizeLinear x) each opset version allows.
bool quant_dtype_allowed(DType dt, int64_t opset, bool dequant) {
  switch (dt) {
    case DType::I8:
    case DType::U8: return true;
    case DType::I32: return dequant;
    case DType::F8E4M3FN:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2:
    case DType::F8E5M2FNUZ: return opset >= 19;
    case DType::I16:
    case DType::U16:
    case DType::I4:
    case DType::U4: return opset >= 21;
    case DType::F4E2M1: return opset >= 23;
    case DType::I2:
    case DType::U2: return opset >= 25;
    default: return false;
  }
}

std::string op_at(const char* op, int64_t opset) { return std::string(op) + "-" + std::to_string(opset); }

// A scale or zero point `p` made to `x`'s shape: one element = per tensor; else per `axis` (1-D of
// x.shape[axis] elements) or, when block_size > 0, blocked along `axis` (x's rank, x's dims except
// ceil(D/block_size) at axis). `axis_ok`: the opset has the axis attribute.
Expected<ValueId> expand_param(LowerCtx& cx, const OnnxNode& n, ValueId p, ValueId x, bool axis_ok,
                               int64_t block_size, const char* what) {
  const ir::Type pt = cx.type(p), xt = cx.type(x);
  const int64_t r = xt.rank();
  if (static_numel(pt) == 1) {
    ValueId s = pt.rank() == 0 ? p : cx.b.reshape(p, cx.b.shape_const({}));
    return r == 0 ? s : cx.b.broadcast(s, shape_value(cx, x), {});
  }
  if (!axis_ok)
    return cx.invalid(std::string(what) + " must be a scalar at this opset (per-tensor quantization)");
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 1));
  if (axis < -r || axis >= r)
    return cx.invalid(strfmt("axis %lld out of range for rank %lld", (long long)axis, (long long)r));
  if (axis < 0) axis += r;
  if (block_size < 0) return cx.invalid("block_size must not be negative");
  if (block_size == 0) {
    if (pt.rank() != 1)
      return cx.invalid(std::string(what) + " must be a scalar or 1-D (per-axis) without block_size, not " +
                        ir::shape_to_string(pt.shape));
    const ir::Dim& pd = pt.shape[0];
    const ir::Dim& xd = xt.shape[static_cast<size_t>(axis)];
    if (pd.is_static() && xd.is_static() && pd.size != xd.size)
      return cx.invalid(strfmt("%s has %lld elements, the input's axis %lld has %lld", what,
                               (long long)pd.size, (long long)axis, (long long)xd.size));
    return cx.b.broadcast(p, shape_value(cx, x), {axis});
  }
  // Blocked: p[.., i / block_size, ..] along axis.
  if (pt.rank() != r)
    return cx.invalid(std::string(what) + " must have the input's rank for blocked quantization");
  const ir::Dim& pd = pt.shape[static_cast<size_t>(axis)];
  const ir::Dim& xd = xt.shape[static_cast<size_t>(axis)];
  if (!pd.is_static() || !xd.is_static())
    return cx.unsupported("blocked quantization with a symbolic extent on the quantization axis");
  const int64_t D = xd.size, S = pd.size;
  if (S != (D + block_size - 1) / block_size)
    return cx.invalid(
        strfmt("%s has %lld blocks on axis %lld; the input's %lld elements with block_size %lld "
               "need %lld",
               what, (long long)S, (long long)axis, (long long)D, (long long)block_size,
               (long long)((D + block_size - 1) / block_size)));
  for (int64_t i = 0; i < r; ++i) {
    if (i == axis) continue;
    const ir::Dim &a = pt.shape[static_cast<size_t>(i)], &b = xt.shape[static_cast<size_t>(i)];
    if (a.is_static() && b.is_static() && a.size != b.size)
      return cx.invalid(std::string(what) + " shape " + ir::shape_to_string(pt.shape) +
                        " does not match the input shape " + ir::shape_to_string(xt.shape) +
                        " outside the blocked axis");
  }
  Ints idx(static_cast<size_t>(D));
  for (int64_t i = 0; i < D; ++i) idx[static_cast<size_t>(i)] = i / block_size;
  return cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, axis, 0},
                    {p, cx.b.const_ints(DType::I64, {D}, idx)});
}

// The dtype the division x / y_scale is evaluated in (see the file comment).
DType division_dtype(DType dt) {
  if (dt == DType::F8E8M0) return DType::F32;
  if (!ir::is_float(dt)) return DType::F64;
  return dt;
}

// Integer target: clamp(round_half_even(q) + zp, lo, hi) as `to`. `q` is floating; `zp` (already
// of q's shape) may be kNoValue. Exact: the rounded quotient and the zero point meet in f64.
ValueId round_add_clamp(LowerCtx& cx, ValueId q, ValueId zp, DType to) {
  ValueId r = cast_to(cx, cx.b.unary(UK::Round, q), DType::F64);
  if (zp != ir::kNoValue) r = cx.b.binary(BK::Add, r, cast_to(cx, zp, DType::F64));
  double lo = 0, hi = 0;
  int_range(to, lo, hi);
  r = cx.b.binary(BK::Min, cx.b.binary(BK::Max, r, splat(cx, lo, r)), splat(cx, hi, r));
  return cx.b.cast(r, to);
}

// QuantizeLinear-10/13/19/21/23/24/25.
Status lower_quantize_linear(LowerCtx& cx, const OnnxNode& n) {
  const int64_t opset = cx.opset();
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId s, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId zp, cx.optional_input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  int64_t out_code = 0, block_size = 0, precision = 0, saturate = 1;
  if (opset >= 19) {
    PLUMB_ASSIGN_OR_RETURN(saturate, n.attr_int("saturate", 1));
  }
  if (opset >= 21) {
    PLUMB_ASSIGN_OR_RETURN(out_code, n.attr_int("output_dtype", 0));
    PLUMB_ASSIGN_OR_RETURN(block_size, n.attr_int("block_size", 0));
  }
  if (opset >= 23) {
    PLUMB_ASSIGN_OR_RETURN(precision, n.attr_int("precision", 0));
  }
  DType to = DType::U8;
  if (out_code != 0) {
    auto dt = ir::dtype_from_onnx_code(static_cast<int>(out_code));
    if (!dt) return cx.invalid(strfmt("output_dtype %lld is not a known dtype", (long long)out_code));
    to = *dt;
  }
  if (zp != ir::kNoValue) {
    const DType zdt = cx.type(zp).dtype;
    if (out_code != 0 && zdt != to)
      return cx.invalid("output_dtype " + std::string(ir::dtype_name(to)) +
                        " does not match y_zero_point's " + std::string(ir::dtype_name(zdt)));
    to = zdt;
  }
  if (!quant_dtype_allowed(to, opset, false))
    return cx.invalid(op_at("QuantizeLinear", opset) + " cannot quantize to " +
                      std::string(ir::dtype_name(to)));
  const DType xdt = cx.type(x).dtype, sdt = cx.type(s).dtype;
  if (!ir::is_float(xdt) && xdt != DType::I32)
    return cx.invalid("QuantizeLinear x must be a float or i32 tensor, not " +
                      std::string(ir::dtype_name(xdt)));
  DType d = sdt;
  if (precision != 0) {
    auto dt = ir::dtype_from_onnx_code(static_cast<int>(precision));
    if (!dt) return cx.invalid(strfmt("precision %lld is not a known dtype", (long long)precision));
    d = *dt;
  }
  d = division_dtype(d);
  PLUMB_ASSIGN_OR_RETURN(ValueId se, expand_param(cx, n, s, x, opset >= 13, block_size, "y_scale"));
  ValueId ze = ir::kNoValue;
  if (zp != ir::kNoValue) {
    PLUMB_ASSIGN_OR_RETURN(ze, expand_param(cx, n, zp, x, opset >= 13, block_size, "y_zero_point"));
  }
  ValueId q = cx.b.binary(BK::Div, cast_to(cx, x, d), cast_to(cx, se, d));
  ValueId y = ir::kNoValue;
  if (ir::is_int(to)) {
    y = round_add_clamp(cx, q, ze, to);
  } else {
    if (ze != ir::kNoValue) q = cx.b.binary(BK::Add, q, cast_to(cx, ze, d));
    y = cx.b.cast(q, to, is_float8(to) ? saturate != 0 : true);
  }
  cx.set_output(n, 0, y);
  return cx.error();
}

// DequantizeLinear-10/13/19/21/23/24/25.
Status lower_dequantize_linear(LowerCtx& cx, const OnnxNode& n) {
  const int64_t opset = cx.opset();
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId s, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId zp, cx.optional_input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  int64_t out_code = 0, block_size = 0;
  if (opset >= 21) {
    PLUMB_ASSIGN_OR_RETURN(block_size, n.attr_int("block_size", 0));
  }
  if (opset >= 23) {
    PLUMB_ASSIGN_OR_RETURN(out_code, n.attr_int("output_dtype", 0));
  }
  const DType xdt = cx.type(x).dtype, sdt = cx.type(s).dtype;
  if (!quant_dtype_allowed(xdt, opset, true))
    return cx.invalid(op_at("DequantizeLinear", opset) + " cannot dequantize " +
                      std::string(ir::dtype_name(xdt)));
  if (zp != ir::kNoValue && cx.type(zp).dtype != xdt)
    return cx.invalid("x_zero_point's dtype " + std::string(ir::dtype_name(cx.type(zp).dtype)) +
                      " differs from x's " + std::string(ir::dtype_name(xdt)));
  DType t = opset >= 19 ? sdt : DType::F32;
  if (out_code != 0) {
    auto dt = ir::dtype_from_onnx_code(static_cast<int>(out_code));
    if (!dt) return cx.invalid(strfmt("output_dtype %lld is not a known dtype", (long long)out_code));
    t = *dt;
  }
  if (t != DType::F32 && t != DType::F16 && t != DType::BF16)
    return cx.invalid("DequantizeLinear output must be f32, f16 or bf16, not " +
                      std::string(ir::dtype_name(t)));
  PLUMB_ASSIGN_OR_RETURN(ValueId se, expand_param(cx, n, s, x, opset >= 13, block_size, "x_scale"));
  ValueId ze = ir::kNoValue;
  if (zp != ir::kNoValue) {
    PLUMB_ASSIGN_OR_RETURN(ze, expand_param(cx, n, zp, x, opset >= 13, block_size, "x_zero_point"));
  }
  ValueId dx = ir::kNoValue;
  if (ir::is_int(xdt)) {
    // x - zero_point is exact in i32 (i64 for i32 x), then rounded once to t.
    const DType w = ir::dtype_bits(xdt) >= 32 ? DType::I64 : DType::I32;
    dx = cast_to(cx, x, w);
    if (ze != ir::kNoValue) dx = cx.b.binary(BK::Sub, dx, cast_to(cx, ze, w));
    dx = cx.b.cast(dx, t);
  } else {
    dx = cast_to(cx, x, t);
    if (ze != ir::kNoValue) dx = cx.b.binary(BK::Sub, dx, cast_to(cx, ze, t));
  }
  cx.set_output(n, 0, cx.b.binary(BK::Mul, dx, cast_to(cx, se, t)));
  return cx.error();
}

// DynamicQuantizeLinear-11, its ONNX function body in f32:
//   scale = (max(0, max(x)) - min(0, min(x))) / 255; zp = cast<u8>(round(clip(0 - min_adj / scale, 0, 255)))
//   y = saturate(round(x / scale) + zp)
// A zero range (x all zeros, or empty) would make scale 0 and zp NaN (undefined in the function
// body); plumb then uses scale = 1/255 as the ONNX reference implementation does, giving y = 0, zp = 0.
Status lower_dynamic_quantize_linear(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  if (xt.dtype != DType::F32)
    return cx.invalid("DynamicQuantizeLinear x must be f32, not " + std::string(ir::dtype_name(xt.dtype)));
  Ints all;
  for (int64_t i = 0; i < xt.rank(); ++i) all.push_back(i);
  ValueId zero = cx.b.scalar_float(DType::F32, 0.0);
  ValueId mn = cx.b.binary(BK::Min, cx.b.reduce(ir::ReduceKind::Min, x, all), zero);
  ValueId mx = cx.b.binary(BK::Max, cx.b.reduce(ir::ReduceKind::Max, x, all), zero);
  ValueId range = cx.b.binary(BK::Sub, mx, mn);
  ValueId qmax = cx.b.scalar_float(DType::F32, 255.0);
  ValueId scale = cx.b.select(cx.b.compare(ir::CompareKind::Eq, range, zero),
                              cx.b.binary(BK::Div, cx.b.scalar_float(DType::F32, 1.0), qmax),
                              cx.b.binary(BK::Div, range, qmax));
  ValueId zpf = cx.b.binary(BK::Sub, zero, cx.b.binary(BK::Div, mn, scale));
  zpf = cx.b.unary(UK::Round, cx.b.binary(BK::Min, cx.b.binary(BK::Max, zpf, zero), qmax));
  ValueId zp = cx.b.cast(zpf, DType::U8);
  ValueId q = cx.b.binary(BK::Div, x, xt.rank() == 0 ? scale : cx.b.broadcast(scale, shape_value(cx, x), {}));
  ValueId zpe = xt.rank() == 0 ? zpf : cx.b.broadcast(zpf, shape_value(cx, x), {});
  cx.set_output(n, 0, round_add_clamp(cx, q, zpe, DType::U8));
  cx.set_output(n, 1, scale);
  cx.set_output(n, 2, zp);
  return cx.error();
}

// ---- integer matrix products -------------------------------------------------------------------

// numpy matmul of a [.., M, K] and b [.., K, N] (1-D operands promoted and the promoted dims
// dropped again, batch dims broadcast), result dtype `to`.
Expected<ValueId> np_matmul(LowerCtx& cx, ValueId a, ValueId b, DType to) {
  const int64_t ra0 = rank_of(cx, a), rb0 = rank_of(cx, b);
  if (ra0 == 0 || rb0 == 0) return cx.invalid("matrix product operands must have rank >= 1");
  // A 1-D operand [K] becomes [1, K] (lhs) or [K, 1] (rhs).
  auto promote = [&](ValueId v, bool lhs) {
    const ir::Dim k = cx.dim(v, 0);
    if (k.is_static()) return cx.b.reshape(v, cx.b.shape_const(lhs ? Ints{1, k.size} : Ints{k.size, 1}));
    ValueId one = cx.b.shape_const({1});
    return cx.b.reshape(
        v, lhs ? cx.b.concat({one, shape_value(cx, v)}, 0) : cx.b.concat({shape_value(cx, v), one}, 0));
  };
  if (ra0 == 1) a = promote(a, true);
  if (rb0 == 1) b = promote(b, false);
  const ir::Type at = cx.type(a), bt = cx.type(b);
  const int64_t ra = at.rank(), rb = bt.rank(), r = std::max(ra, rb);
  auto slice = [&](ValueId shape, int64_t start, int64_t len) {
    return cx.b.emit1(ir::SliceAttrs{},
                      {shape, cx.b.shape_const({start}), cx.b.shape_const({len}), cx.b.shape_const({1})});
  };
  if (r > 2) {
    bool static_batch = true;
    for (int64_t i = 0; i < ra - 2; ++i)
      static_batch = static_batch && at.shape[static_cast<size_t>(i)].is_static();
    for (int64_t i = 0; i < rb - 2; ++i)
      static_batch = static_batch && bt.shape[static_cast<size_t>(i)].is_static();
    ValueId batch = ir::kNoValue;
    Ints static_batch_dims;
    if (static_batch) {
      Ints dims(static_cast<size_t>(r - 2), 1);
      for (const ir::Type* t : {&at, &bt}) {
        const int64_t off = r - t->rank();
        for (int64_t i = 0; i < t->rank() - 2; ++i) {
          int64_t& d = dims[static_cast<size_t>(off + i)];
          const int64_t e = t->shape[static_cast<size_t>(i)].size;
          if (e == 1) continue;
          if (d != 1 && d != e) return cx.invalid("matrix product batch dims cannot be broadcast");
          d = e;
        }
      }
      batch = cx.b.shape_const(dims);
      static_batch_dims = dims;
    } else {
      auto batch_of = [&](ValueId v, int64_t rv) {
        ValueId bs = slice(shape_value(cx, v), 0, rv - 2);
        if (rv < r)
          bs = cx.b.concat({cx.b.const_ints(DType::I64, {r - rv}, Ints(static_cast<size_t>(r - rv), 1)), bs},
                           0);
        return bs;
      };
      ValueId ba = batch_of(a, ra), bb = batch_of(b, rb);
      ValueId ones = cx.b.const_ints(DType::I64, {r - 2}, Ints(static_cast<size_t>(r - 2), 1));
      batch = cx.b.select(cx.b.compare(ir::CompareKind::Eq, ba, ones), bb, ba);
    }
    auto widen = [&](ValueId v, int64_t rv) {
      const ir::Type t = cx.type(v);
      if (static_batch && t.rank() == rv && ir::shape_is_static(t.shape)) {
        Ints dims = static_batch_dims;
        dims.push_back(t.shape[static_cast<size_t>(rv - 2)].size);
        dims.push_back(t.shape[static_cast<size_t>(rv - 1)].size);
        if (t.shape == ir::static_shape(dims)) return v;
        return broadcast_to(cx, v, cx.b.shape_const(dims), r);
      }
      return broadcast_to(cx, v, cx.b.concat({batch, slice(shape_value(cx, v), rv - 2, 2)}, 0), r);
    };
    a = widen(a, ra);
    b = widen(b, rb);
  }
  ValueId y = cx.b.matmul(a, b, to);
  if (ra0 == 1 || rb0 == 1) {
    const int64_t ry = rank_of(cx, y);
    const ir::Type yt = cx.type(y);
    if (ir::shape_is_static(yt.shape)) {
      Ints dims;
      for (int64_t i = 0; i < ry; ++i)
        if (!(ra0 == 1 && i == ry - 2) && !(rb0 == 1 && i == ry - 1))
          dims.push_back(yt.shape[static_cast<size_t>(i)].size);
      return cx.b.reshape(y, cx.b.shape_const(dims));
    }
    ValueId s = shape_value(cx, y);
    std::vector<ValueId> parts;
    if (ry > 2) parts.push_back(slice(s, 0, ry - 2));
    if (ra0 != 1) parts.push_back(slice(s, ry - 2, 1));
    if (rb0 != 1) parts.push_back(slice(s, ry - 1, 1));
    y = cx.b.reshape(y, parts.empty() ? cx.b.shape_const({}) : cx.b.concat(parts, 0));
  }
  return y;
}

// A per-row (`row` = true: [M] for a [.., M, K]) or per-column ([N] for b [.., K, N]) quantization
// parameter, or one broadcastable to v numpy-style ([D1, D2, M, 1] / [D1, D2, 1, N]), or a single
// element, made to v's shape.
Expected<ValueId> expand_rowcol(LowerCtx& cx, ValueId p, ValueId v, bool row, const char* what) {
  const ir::Type pt = cx.type(p);
  const int64_t rv = rank_of(cx, v);
  if (static_numel(pt) == 1) {
    ValueId s = pt.rank() == 0 ? p : cx.b.reshape(p, cx.b.shape_const({}));
    return cx.b.broadcast(s, shape_value(cx, v), {});
  }
  if (pt.rank() == 1 && rv >= 2) return cx.b.broadcast(p, shape_value(cx, v), {row ? rv - 2 : rv - 1});
  if (pt.rank() > rv) return cx.invalid(std::string(what) + " has a higher rank than its matrix");
  return broadcast_to(cx, p, shape_value(cx, v), rv);
}

// v - zero_point as i32 (`zp` may be absent).
Expected<ValueId> centered_i32(LowerCtx& cx, ValueId v, ValueId zp, bool row, const char* what) {
  ValueId vi = cast_to(cx, v, DType::I32);
  if (zp == ir::kNoValue) return vi;
  PLUMB_ASSIGN_OR_RETURN(ValueId z, expand_rowcol(cx, cast_to(cx, zp, DType::I32), vi, row, what));
  return cx.b.binary(BK::Sub, vi, z);
}

// MatMulInteger-10: (A - a_zero_point) x (B - b_zero_point), widened to i32 before the
// subtraction, accumulated in i32 (wrapping: "the accumulation may overflow if and only if in 32
// bits"). a_zero_point is per row of A, b_zero_point per column of B.
Status lower_matmul_integer(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId a, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId b, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId az, cx.optional_input(n, 2));
  PLUMB_ASSIGN_OR_RETURN(ValueId bz, cx.optional_input(n, 3));
  PLUMB_RETURN_IF_ERROR(cx.error());
  for (ValueId v : {a, b})
    if (cx.type(v).dtype != DType::I8 && cx.type(v).dtype != DType::U8)
      return cx.invalid("MatMulInteger operands must be i8 or u8, not " +
                        std::string(ir::dtype_name(cx.type(v).dtype)));
  PLUMB_ASSIGN_OR_RETURN(ValueId ai, centered_i32(cx, a, az, true, "a_zero_point"));
  PLUMB_ASSIGN_OR_RETURN(ValueId bi, centered_i32(cx, b, bz, false, "b_zero_point"));
  PLUMB_ASSIGN_OR_RETURN(ValueId y, np_matmul(cx, ai, bi, DType::I32));
  cx.set_output(n, 0, y);
  return cx.error();
}

// QLinearMatMul-10/21: acc = (a - a_zero_point) x (b - b_zero_point) (exact i32 for integer
// operands; f64 when one is a float8 kind), multiplier = a_scale * b_scale / y_scale in the scales'
// dtype (as the ONNX reference computes it), y = saturate(round_half_even(acc * multiplier) +
// y_zero_point) with acc * multiplier in f64; float8 outputs: cast(acc * multiplier + zp, saturate).
Status lower_qlinear_matmul(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 8));
  ValueId a = in[0], as = in[1], az = in[2], b = in[3], bs = in[4], bz = in[5], ys = in[6], yz = in[7];
  PLUMB_RETURN_IF_ERROR(cx.error());
  const int64_t opset = cx.opset();
  auto ok_q = [&](DType dt) { return dt == DType::I8 || dt == DType::U8 || (opset >= 21 && is_float8(dt)); };
  for (ValueId v : {a, b, yz})
    if (!ok_q(cx.type(v).dtype))
      return cx.invalid(op_at("QLinearMatMul", opset) + " does not take " +
                        std::string(ir::dtype_name(cx.type(v).dtype)));
  if (cx.type(az).dtype != cx.type(a).dtype || cx.type(bz).dtype != cx.type(b).dtype)
    return cx.invalid("QLinearMatMul zero points must have their matrix's dtype");
  const DType sdt = cx.type(as).dtype;
  if (cx.type(bs).dtype != sdt || cx.type(ys).dtype != sdt || !ir::is_float(sdt))
    return cx.invalid("QLinearMatMul scales must share one float dtype");
  const DType to = cx.type(yz).dtype;
  ValueId acc = ir::kNoValue;
  if (ir::is_int(cx.type(a).dtype) && ir::is_int(cx.type(b).dtype)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId ai, centered_i32(cx, a, az, true, "a_zero_point"));
    PLUMB_ASSIGN_OR_RETURN(ValueId bi, centered_i32(cx, b, bz, false, "b_zero_point"));
    PLUMB_ASSIGN_OR_RETURN(acc, np_matmul(cx, ai, bi, DType::I32));
    acc = cx.b.cast(acc, DType::F64);
  } else {
    ValueId a64 = cast_to(cx, a, DType::F64), b64 = cast_to(cx, b, DType::F64);
    PLUMB_ASSIGN_OR_RETURN(ValueId aze,
                           expand_rowcol(cx, cast_to(cx, az, DType::F64), a64, true, "a_zero_point"));
    PLUMB_ASSIGN_OR_RETURN(ValueId bze,
                           expand_rowcol(cx, cast_to(cx, bz, DType::F64), b64, false, "b_zero_point"));
    PLUMB_ASSIGN_OR_RETURN(
        acc, np_matmul(cx, cx.b.binary(BK::Sub, a64, aze), cx.b.binary(BK::Sub, b64, bze), DType::F64));
  }
  if (rank_of(cx, a) < 2 || rank_of(cx, b) < 2) {
    // 1-D operands: only per-tensor parameters make sense.
    for (ValueId p : {as, bs, ys, yz})
      if (static_numel(cx.type(p)) != 1)
        return cx.invalid("QLinearMatMul with a 1-D operand takes per-tensor scales and zero points");
  }
  // Scales of the result's shape: a_scale per row (M), b_scale per column (N).
  const ir::Type acct = cx.type(acc);
  auto per = [&](ValueId p, bool row, const char* what) -> Expected<ValueId> {
    if (static_numel(cx.type(p)) == 1) return expand_rowcol(cx, p, acc, row, what);
    if (cx.type(p).rank() == 1)
      return cx.b.broadcast(p, shape_value(cx, acc), {row ? acct.rank() - 2 : acct.rank() - 1});
    return expand_rowcol(cx, p, acc, row, what);
  };
  PLUMB_ASSIGN_OR_RETURN(ValueId ase, per(as, true, "a_scale"));
  PLUMB_ASSIGN_OR_RETURN(ValueId bse, per(bs, false, "b_scale"));
  PLUMB_ASSIGN_OR_RETURN(ValueId yse, expand_rowcol(cx, ys, acc, true, "y_scale"));
  PLUMB_ASSIGN_OR_RETURN(ValueId yze, expand_rowcol(cx, yz, acc, true, "y_zero_point"));
  ValueId mult = cx.b.binary(BK::Div, cx.b.binary(BK::Mul, ase, bse), yse);
  ValueId v = cx.b.binary(BK::Mul, acc, cast_to(cx, mult, DType::F64));
  ValueId y = ir::kNoValue;
  if (ir::is_int(to)) {
    y = round_add_clamp(cx, v, yze, to);
  } else {
    y = cx.b.cast(cx.b.binary(BK::Add, v, cast_to(cx, yze, DType::F64)), to, /*saturate=*/true);
  }
  cx.set_output(n, 0, y);
  return cx.error();
}

}  // namespace

void register_quant(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"QuantizeLinear", 10, lower_quantize_linear}, {"DequantizeLinear", 10, lower_dequantize_linear},
      {"DynamicQuantizeLinear", 11, lower_dynamic_quantize_linear},
      {"MatMulInteger", 10, lower_matmul_integer}, {"QLinearMatMul", 10, lower_qlinear_matmul}});
  // clang-format on
}

}  // namespace plumb::lower
