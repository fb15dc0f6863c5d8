// ONNX activations and normalised exponentials. Floating composites are evaluated in f64 and
// rounded once to the input's dtype: the error of the composite is then that of one rounding
// (plumb is the oracle; cancellation in e.g. exp(x) - 1 or log(1 + exp(x)) cannot hurt).
#include <cmath>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;

namespace {

// Straight-line helpers over values of one dtype and shape.
struct Ops {
  LowerCtx& cx;
  ValueId c(double v, ValueId like) { return splat(cx, v, like); }
  ValueId add(ValueId a, ValueId b) { return cx.b.binary(BK::Add, a, b); }
  ValueId sub(ValueId a, ValueId b) { return cx.b.binary(BK::Sub, a, b); }
  ValueId mul(ValueId a, ValueId b) { return cx.b.binary(BK::Mul, a, b); }
  ValueId div(ValueId a, ValueId b) { return cx.b.binary(BK::Div, a, b); }
  ValueId max(ValueId a, ValueId b) { return cx.b.binary(BK::Max, a, b); }
  ValueId min(ValueId a, ValueId b) { return cx.b.binary(BK::Min, a, b); }
  ValueId un(ir::UnaryKind k, ValueId a) { return cx.b.unary(k, a); }
  ValueId lt(ValueId a, ValueId b) { return cx.b.compare(CK::Lt, a, b); }
  ValueId gt(ValueId a, ValueId b) { return cx.b.compare(CK::Gt, a, b); }
  ValueId sel(ValueId p, ValueId a, ValueId b) { return cx.b.select(p, a, b); }
  ValueId sigmoid(ValueId x) { return div(c(1, x), add(c(1, x), un(UK::Exp, un(UK::Neg, x)))); }
  // log(1 + exp(x)) = max(x, 0) + log(1 + exp(-|x|)): no overflow for large |x|.
  ValueId softplus(ValueId x) {
    return add(max(x, c(0, x)), un(UK::Log, add(c(1, x), un(UK::Exp, un(UK::Neg, un(UK::Abs, x))))));
  }
};

ValueId widen(LowerCtx& cx, ValueId x) {
  return ir::is_float(cx.type(x).dtype) && cx.type(x).dtype != ir::DType::F64 ? cx.b.cast(x, ir::DType::F64)
                                                                              : x;
}
ValueId narrow(LowerCtx& cx, ValueId y, ir::DType dt) {
  return cx.type(y).dtype == dt ? y : cx.b.cast(y, dt, true);
}

// Wraps a composite body: x widened to f64, result rounded back once.
template <typename F>
Status composite(LowerCtx& cx, const OnnxNode& n, F body) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(x).dtype;
  Ops o{cx};
  ValueId y = body(o, widen(cx, x));
  cx.set_output(n, 0, narrow(cx, y, dt));
  return Status::ok();
}

Expected<double> fattr(const OnnxNode& n, const char* name, double dflt) {
  auto v = n.attr_float(name, static_cast<float>(dflt));
  if (!v.has_value()) return v.status();
  // ONNX float attributes are f32: use the f32 value exactly as the model states it.
  return n.has_attr(name) ? static_cast<double>(*v) : dflt;
}

Status lower_relu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  cx.set_output(n, 0, cx.b.binary(BK::Max, x, splat(cx, 0, x)));
  return cx.error();
}

Status lower_sigmoid(LowerCtx& cx, const OnnxNode& n) {
  return composite(cx, n, [](Ops& o, ValueId x) { return o.sigmoid(x); });
}

Status lower_leaky_relu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(double alpha, fattr(n, "alpha", static_cast<double>(0.01f)));
  return composite(cx, n,
                   [&](Ops& o, ValueId x) { return o.sel(o.lt(x, o.c(0, x)), o.mul(o.c(alpha, x), x), x); });
}

Status lower_hard_sigmoid(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(double alpha, fattr(n, "alpha", static_cast<double>(0.2f)));
  PLUMB_ASSIGN_OR_RETURN(double beta, fattr(n, "beta", 0.5));
  return composite(cx, n, [&](Ops& o, ValueId x) {
    return o.max(o.c(0, x), o.min(o.c(1, x), o.add(o.mul(o.c(alpha, x), x), o.c(beta, x))));
  });
}

// HardSwish-14: x * max(0, min(1, x/6 + 1/2)) (ONNX: alpha = 1/6, beta = 0.5).
Status lower_hard_swish(LowerCtx& cx, const OnnxNode& n) {
  return composite(cx, n, [&](Ops& o, ValueId x) {
    ValueId hs = o.max(o.c(0, x), o.min(o.c(1, x), o.add(o.mul(o.c(1.0 / 6.0, x), x), o.c(0.5, x))));
    return o.mul(x, hs);
  });
}

Status lower_elu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(double alpha, fattr(n, "alpha", 1.0));
  return composite(cx, n, [&](Ops& o, ValueId x) {
    ValueId neg = o.mul(o.c(alpha, x), o.sub(o.un(UK::Exp, x), o.c(1, x)));
    return o.sel(o.lt(x, o.c(0, x)), neg, x);
  });
}

Status lower_selu(LowerCtx& cx, const OnnxNode& n) {
  // Selu-1's schema rounds its defaults to 1.6732 and 1.0507; Selu-6 gives them to float precision.
  const bool v1 = cx.opset() < 6;
  const float alpha_default = v1 ? 1.6732f : 1.67326319217681884765625f;
  const float gamma_default = v1 ? 1.0507f : 1.05070102214813232421875f;
  PLUMB_ASSIGN_OR_RETURN(double alpha, fattr(n, "alpha", static_cast<double>(alpha_default)));
  PLUMB_ASSIGN_OR_RETURN(double gamma, fattr(n, "gamma", static_cast<double>(gamma_default)));
  return composite(cx, n, [&](Ops& o, ValueId x) {
    ValueId neg = o.sub(o.mul(o.c(alpha, x), o.un(UK::Exp, x)), o.c(alpha, x));
    return o.mul(o.c(gamma, x), o.sel(o.gt(x, o.c(0, x)), x, neg));
  });
}

// Celu-12: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Status lower_celu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(double alpha, fattr(n, "alpha", 1.0));
  return composite(cx, n, [&](Ops& o, ValueId x) {
    ValueId e = o.mul(o.c(alpha, x), o.sub(o.un(UK::Exp, o.div(x, o.c(alpha, x))), o.c(1, x)));
    return o.add(o.max(o.c(0, x), x), o.min(o.c(0, x), e));
  });
}

Status lower_softplus(LowerCtx& cx, const OnnxNode& n) {
  return composite(cx, n, [](Ops& o, ValueId x) { return o.softplus(x); });
}

Status lower_softsign(LowerCtx& cx, const OnnxNode& n) {
  return composite(cx, n, [](Ops& o, ValueId x) { return o.div(x, o.add(o.c(1, x), o.un(UK::Abs, x))); });
}

Status lower_mish(LowerCtx& cx, const OnnxNode& n) {
  return composite(cx, n, [](Ops& o, ValueId x) { return o.mul(x, o.un(UK::Tanh, o.softplus(x))); });
}

Status lower_swish(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(double alpha, fattr(n, "alpha", 1.0));
  return composite(cx, n, [&](Ops& o, ValueId x) { return o.mul(x, o.sigmoid(o.mul(o.c(alpha, x), x))); });
}

// Gelu-20: approximate "none": x/2 (1 + erf(x / sqrt 2)); "tanh": x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715
// x^3))).
Status lower_gelu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(std::string approx, n.attr_string("approximate", "none"));
  if (approx != "none" && approx != "tanh")
    return cx.invalid("approximate must be none or tanh, got '" + approx + "'");
  return composite(cx, n, [&](Ops& o, ValueId x) {
    ValueId inner;
    if (approx == "none") {
      inner = o.un(UK::Erf, o.mul(x, o.c(1.0 / std::sqrt(2.0), x)));
    } else {
      ValueId x3 = o.mul(o.mul(x, x), x);
      inner = o.un(UK::Tanh, o.mul(o.c(std::sqrt(2.0 / M_PI), x), o.add(x, o.mul(o.c(0.044715, x), x3))));
    }
    return o.mul(o.mul(o.c(0.5, x), x), o.add(o.c(1, x), inner));
  });
}

Status lower_thresholded_relu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(double alpha, fattr(n, "alpha", 1.0));
  return composite(cx, n, [&](Ops& o, ValueId x) { return o.sel(o.gt(x, o.c(alpha, x)), x, o.c(0, x)); });
}

// Shrink-9 (any numeric type): x < -lambd ? x + bias : x > lambd ? x - bias : 0.
Status lower_shrink(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(double bias, fattr(n, "bias", 0.0));
  PLUMB_ASSIGN_OR_RETURN(double lambd, fattr(n, "lambd", 0.5));
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(x).dtype;
  const bool fl = ir::is_float(dt);
  ValueId w = fl ? widen(cx, x) : cx.b.cast(x, ir::DType::F64);
  Ops o{cx};
  ValueId y = o.sel(o.lt(w, o.c(-lambd, w)), o.add(w, o.c(bias, w)),
                    o.sel(o.gt(w, o.c(lambd, w)), o.sub(w, o.c(bias, w)), o.c(0, w)));
  cx.set_output(n, 0, fl ? narrow(cx, y, dt) : cx.b.cast(y, dt));
  return cx.error();
}

// PRelu: slope broadcasts unidirectionally onto X.
Status lower_prelu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId slope, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> xs, broadcast_all(cx, {x, slope}));
  slope = xs[1];
  Ops o{cx};
  cx.set_output(n, 0, o.sel(o.lt(x, o.c(0, x)), o.mul(slope, x), x));
  return cx.error();
}

// Clip: min(max(x, lo), hi) (so lo > hi gives hi, as numpy.clip). Opset < 11: attributes.
Status lower_clip(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  ValueId lo = ir::kNoValue, hi = ir::kNoValue;
  if (cx.opset() < 11) {
    const double big = std::numeric_limits<float>::max();
    PLUMB_ASSIGN_OR_RETURN(double mn, fattr(n, "min", -big));
    PLUMB_ASSIGN_OR_RETURN(double mx, fattr(n, "max", big));
    // Clip-6's schema defaults the bounds to the float range, so +-inf clamp to +-FLT_MAX (as in
    // ONNX's reference); Clip-1 has no defaults: an absent bound does not clamp.
    if (n.has_attr("min") || cx.opset() >= 6) lo = splat(cx, mn, x);
    if (n.has_attr("max") || cx.opset() >= 6) hi = splat(cx, mx, x);
  } else {
    PLUMB_ASSIGN_OR_RETURN(const ValueId min_in, cx.optional_input(n, 1));
    if (min_in != ir::kNoValue) lo = cx.b.broadcast(min_in, shape_value(cx, x), {});
    PLUMB_ASSIGN_OR_RETURN(const ValueId max_in, cx.optional_input(n, 2));
    if (max_in != ir::kNoValue) hi = cx.b.broadcast(max_in, shape_value(cx, x), {});
  }
  if (lo != ir::kNoValue) x = cx.b.binary(BK::Max, x, lo);
  if (hi != ir::kNoValue) x = cx.b.binary(BK::Min, x, hi);
  cx.set_output(n, 0, x);
  return cx.error();
}

// Softmax / LogSoftmax / Hardmax. Opset < 13: the input is coerced to 2-D [prod(d[:axis]),
// prod(d[axis:])] and the op runs over the second dim; opset >= 13: over `axis` alone.
enum class NormExp { kSoftmax, kLogSoftmax, kHardmax };

template <NormExp kind>
Status lower_softmax_family(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  const bool coerce = cx.opset() < 13;
  PLUMB_ASSIGN_OR_RETURN(int64_t axis_attr, n.attr_int("axis", coerce ? 1 : -1));
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(cx, axis_attr, r == 0 && coerce ? 1 : r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  ValueId in_shape = shape_value(cx, x);
  ValueId v = x;
  if (coerce) {
    // [prod(d[:axis]), prod(d[axis:])] computed from the shape (works for symbolic dims).
    ValueId shape = cx.b.shape_of(x);
    auto part = [&](int64_t from, int64_t to) {
      ValueId s = cx.b.emit1(ir::SliceAttrs{}, {shape, cx.b.shape_const({from}),
                                                cx.b.shape_const({to - from}), cx.b.shape_const({1})});
      return cx.b.reshape(cx.b.reduce(ir::ReduceKind::Prod, s, {0}), cx.b.shape_const({1}));
    };
    v = cx.b.reshape(x, cx.b.concat({part(0, axis), part(axis, r)}, 0));
    axis = 1;
  }
  const int64_t vr = rank_of(cx, v);
  ValueId vshape = shape_value(cx, v);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < vr; ++i)
    if (i != axis) keep.push_back(i);
  auto back = [&](ValueId reduced) { return cx.b.broadcast(reduced, vshape, keep); };
  ValueId y;
  if (kind == NormExp::kHardmax) {
    ValueId am = cx.b.emit1(ir::ArgReduceAttrs{ir::ArgKind::Max, axis, false}, {v});
    ValueId io = cx.b.emit1(ir::IotaAttrs{ir::DType::I64, axis}, {vshape});
    ValueId hot = cx.b.compare(CK::Eq, io, back(am));
    y = cx.b.cast(hot, dt);
  } else {
    ValueId w = widen(cx, v);
    Ops o{cx};
    ValueId m = back(cx.b.reduce(ir::ReduceKind::Max, w, {axis}));
    ValueId d = o.sub(w, m);
    ValueId s = back(cx.b.reduce(ir::ReduceKind::Sum, o.un(UK::Exp, d), {axis}));
    y = kind == NormExp::kSoftmax ? o.div(o.un(UK::Exp, d), s) : o.sub(d, o.un(UK::Log, s));
    y = narrow(cx, y, dt);
  }
  if (coerce) y = cx.b.reshape(y, in_shape);
  cx.set_output(n, 0, y);
  return cx.error();
}

}  // namespace

void register_activation(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"Relu", 1, lower_relu}, {"Sigmoid", 1, lower_sigmoid}, {"LeakyRelu", 1, lower_leaky_relu},
      {"HardSigmoid", 1, lower_hard_sigmoid}, {"HardSwish", 14, lower_hard_swish}, {"Elu", 1, lower_elu},
      {"Selu", 1, lower_selu}, {"Celu", 12, lower_celu}, {"Softplus", 1, lower_softplus},
      {"Softsign", 1, lower_softsign}, {"Mish", 18, lower_mish}, {"Swish", 24, lower_swish},
      {"Gelu", 20, lower_gelu}, {"ThresholdedRelu", 10, lower_thresholded_relu}, {"Shrink", 9, lower_shrink},
      {"PRelu", 1, lower_prelu}, {"Clip", 1, lower_clip},
      {"Softmax", 1, lower_softmax_family<NormExp::kSoftmax>},
      {"LogSoftmax", 1, lower_softmax_family<NormExp::kLogSoftmax>},
      {"Hardmax", 1, lower_softmax_family<NormExp::kHardmax>}});
  // clang-format on
}

}  // namespace plumb::lower
