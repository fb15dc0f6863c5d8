// plumb gen's recipes for unary math, activations with attributes, Div / Pow / Mod / Sum / Mean,
// logical ops and quantization (hunt/gen_recipe.h; the rules common to all recipes are at the top
// of gen_ops.cpp). Each op's input is conditioned where the op is steep, undefined or jumps: a
// bound small enough that the result stays moderate (Exp, Sinh, Tan), a positive value away from 0
// (Log, Sqrt, Reciprocal, Acosh, a divisor, a fractional power's base), |x| <= 1/2 (Asin, Acos,
// Atanh), an exact value where the result jumps (Floor, Ceil, Round, Sign, Mod, ThresholdedRelu,
// Shrink, Hardmax, quantization's rounding). Bounds are computed without libm.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

namespace {

// How a unary op's input is prepared and how large its result can be.
struct UnarySpec {
  const char* op;
  double max_in;     // the input is scaled to this bound first (0: positive(), see `shift`)
  float shift;       // > 0: the input is Abs(x) + shift
  bool needs_exact;  // the result jumps: an exact input only
  double out;        // the result's bound (0: the input's bound, + 1 where rounding may add it)
};

const UnarySpec kUnary[] = {
    {"Exp", 4, 0, false, 55},          {"Log", 8, 0.25f, false, 3},  {"Sqrt", 8, 0.25f, false, 0},
    {"Reciprocal", 8, 0.5f, false, 2}, {"Floor", 8, 0, true, 0},     {"Ceil", 8, 0, true, 0},
    {"Round", 8, 0, true, 0},          {"Sign", 8, 0, true, 1},      {"Sin", 8, 0, false, 1},
    {"Cos", 8, 0, false, 1},           {"Tan", 1, 0, false, 1.6},    {"Atan", 8, 0, false, 1.6},
    {"Asin", 0.5, 0, false, 0.6},      {"Acos", 0.5, 0, false, 2.1}, {"Atanh", 0.5, 0, false, 0.6},
    {"Sinh", 4, 0, false, 28},         {"Cosh", 4, 0, false, 28},    {"Asinh", 8, 0, false, 3},
    {"Acosh", 8, 1.5f, false, 3},      {"Softplus", 8, 0, false, 0}, {"Softsign", 8, 0, false, 1},
    {"Identity", 8, 0, false, 0},
};

}  // namespace

bool unary_math(Builder& b, const std::string& op) {
  const UnarySpec* spec = nullptr;
  for (const auto& s : kUnary)
    if (op == s.op) spec = &s;
  if (spec == nullptr) return false;
  Value x = spec->needs_exact ? exact_value(b, 0, 6, {b.rng.in(1, 4), b.rng.in(1, 5)}) : any_value(b);
  x = ready(b, x, spec->max_in);
  if (spec->needs_exact && op != "Sign" && b.rng.chance(60)) {
    // More integers and halves in reach: x * 4 is exact.
    const Value scaled = b.push(x.dims, x.bound * 4, true);
    b.node("Mul", {x.name, b.const_f32({}, {4.0f})}, {scaled.name});
    x = scaled;
  }
  if (spec->shift > 0) x = positive(b, x, spec->shift);
  double bound = spec->out;
  if (op == "Sqrt") bound = (x.bound + 1) / 2;  // sqrt(y) <= (y + 1) / 2
  if (bound == 0) bound = x.bound + 1;
  const bool exact = (spec->needs_exact || op == "Identity") && x.exact;
  const Value out = b.push(x.dims, bound, exact);
  b.node(op, {x.name}, {out.name});
  return true;
}

// Activations with attributes, as torch exports them (values from torch's defaults and a few
// others).
bool activation(Builder& b, const std::string& op) {
  const bool jumps = op == "ThresholdedRelu" || op == "Shrink" || op == "Hardmax";
  Value x =
      jumps ? exact_value(b, 1, 6, {b.rng.in(1, 4), b.rng.in(1, 5)}) : any_value(b, op == "PRelu" ? 1 : 0);
  x = ready(b, x);
  const int r = rank(x);
  double bound = x.bound;
  bool exact = false;
  std::vector<std::string> ins = {x.name};
  if (op == "PRelu") {
    // The slope broadcasts to x (unidirectionally): [C, 1, 1] of an image, a suffix, or a scalar.
    Dims sdims;
    if (r >= 3 && b.rng.chance(50)) {
      sdims.assign(static_cast<size_t>(r - 1), 1);
      sdims[0] = x.dims[1];
    } else {
      const size_t len = static_cast<size_t>(b.rng.in(0, r));
      sdims.assign(x.dims.end() - static_cast<std::ptrdiff_t>(len), x.dims.end());
      for (auto& d : sdims)
        if (b.rng.chance(30)) d = 1;
    }
    ins.push_back(b.const_f32_random(sdims, -0.5f, 0.5f));
  }
  if (op == "Dropout" && b.rng.chance(50))
    ins.push_back(b.const_f32({}, {0.25f}));  // ratio, unused in inference
  const Value out = b.push(x.dims, 1, false);
  auto* node = b.node(op, ins, {out.name});
  if (op == "LeakyRelu") {
    const float alphas[] = {0.01f, 0.1f, 0.2f, 0.5f};
    const float alpha = alphas[b.rng.below(4)];
    if (alpha != 0.01f || b.rng.chance(30)) set_float(node, "alpha", alpha);
  } else if (op == "Elu" || op == "Celu") {
    const float alphas[] = {1.0f, 0.5f, 2.0f};
    const float alpha = alphas[b.rng.below(3)];
    if (alpha != 1.0f || b.rng.chance(30)) set_float(node, "alpha", alpha);
    bound = std::max(bound, 2.0);
  } else if (op == "Selu") {
    if (b.rng.chance(30)) set_float(node, "alpha", 1.5f), set_float(node, "gamma", 1.25f);
    bound = 1.8 * std::max(bound, 1.0);
  } else if (op == "HardSigmoid") {
    // torch's hardsigmoid exports alpha 1/6; ONNX's default is 0.2.
    if (b.rng.chance(50)) set_float(node, "alpha", 1.0f / 6), set_float(node, "beta", 0.5f);
    bound = 1;
  } else if (op == "ThresholdedRelu") {
    const float alphas[] = {1.0f, 0.5f, 0.0f, 0.25f};
    const float alpha = alphas[b.rng.below(4)];
    if (alpha != 1.0f || b.rng.chance(30)) set_float(node, "alpha", alpha);
    exact = x.exact;
  } else if (op == "Shrink") {
    const float lambd = b.rng.chance(50) ? 0.5f : 0.25f;
    const float bias = b.rng.chance(50) ? 0.0f : lambd;
    set_float(node, "lambd", lambd);
    if (bias != 0 || b.rng.chance(30)) set_float(node, "bias", bias);
    exact = bias == 0 && x.exact;
  } else if (op == "Hardmax") {
    const int axis = r == 0 ? 0 : b.rng.in(-r, r - 1);
    if (axis != -1 || b.rng.chance(30)) set_int(node, "axis", axis);
    bound = 1, exact = x.exact;
  } else if (op == "HardSwish") {
    bound = std::max(bound, bound * (bound + 3) / 6);
  } else if (op == "Dropout") {
    exact = x.exact;
  }
  Value& pushed = b.pool.back();
  pushed.bound = bound, pushed.exact = exact;
  return true;
}

namespace {

// A constant of broadcast_partner dims whose elements are +-[lo, hi] (never near 0).
std::string away_from_zero(Builder& b, const Dims& dims, float lo, float hi) {
  std::vector<float> v(static_cast<size_t>(num_elements(dims)));
  for (float& e : v) {
    const double u = (static_cast<double>(b.rng.unit()) + 1.0) / 2.0;
    e = static_cast<float>(static_cast<double>(lo) + static_cast<double>(hi - lo) * u);
    if (b.rng.chance(50)) e = -e;
  }
  return b.const_f32(dims, v);
}

// x raised to the integer power e, for bounds (no libm).
double power(double x, int e) {
  double p = 1;
  for (int i = 0; i < e; ++i) p *= x;
  return p;
}

}  // namespace

// Div (a divisor away from 0), Pow (a positive base with a fractional or negative exponent, any
// base with 2 or 3, the exponent a float or an int64 constant), Mod (fmod of floats; the integer
// Mod whose result takes the divisor's sign), Sum and Mean of 1 to 3 broadcasting operands.
bool arith(Builder& b, const std::string& op) {
  if (op == "Sum" || op == "Mean") {
    const Value x = any_value(b);
    std::vector<std::string> ins = {x.name};
    Dims dims = x.dims;
    double sum = x.bound, most = x.bound;
    for (int k = b.rng.below(3); k > 0; --k) {
      const Value w = partner(b, Value{x.name, dims, x.bound, false});
      const auto d = broadcast(dims, w.dims);
      if (!d || num_elements(*d) > kMaxElements) break;
      dims = *d, sum += w.bound, most = std::max(most, w.bound);
      ins.push_back(w.name);
    }
    std::swap(ins[0], ins[static_cast<size_t>(b.rng.below(static_cast<int>(ins.size())))]);
    const Value out = b.push(dims, op == "Sum" ? sum : most, ins.size() == 1 && x.exact);
    b.node(op, ins, {out.name});
    return true;
  }
  if (op == "Div") {
    const Value x = any_value(b);
    std::string d;
    Dims ddims;
    if (auto w = b.rng.chance(40) ? pick(b,
                                         [&](const Value& y) {
                                           auto o = broadcast(x.dims, y.dims);
                                           return o && num_elements(*o) <= kMaxElements;
                                         })
                                  : std::nullopt) {
      const Value p = positive(b, ready(b, *w), 0.5f);
      d = p.name, ddims = p.dims;
    } else {
      ddims = broadcast_partner(b.rng, x.dims);
      d = away_from_zero(b, ddims, 0.5f, 1.5f);
    }
    const auto dims = broadcast(x.dims, ddims);
    if (!dims) return false;
    const Value out = b.push(*dims, x.bound * 2, false);
    b.node("Div", {x.name, d}, {out.name});
    return true;
  }
  if (op == "Pow") {
    Value x = ready(b, any_value(b), 2);
    const bool integral = b.rng.chance(40);
    double bound;
    std::string e;
    if (integral) {
      const int k = b.rng.in(2, 3);
      bound = power(x.bound, k);
      e = b.rng.chance(50) ? b.const_f32({}, {static_cast<float>(k)}) : b.const_i64({k}, true);
    } else {
      x = positive(b, x, 0.5f);
      const float exps[] = {-2.0f, -1.0f, -0.5f, 0.5f, 1.5f, 2.0f};
      const float k = exps[b.rng.below(6)];
      // base in [0.5, x.bound]: the larger of base^k at both ends.
      const double hi = x.bound, lo = 0.5;
      auto pw = [](double v, float k2) {
        const double s = std::sqrt(v);  // correctly rounded, so no libm difference
        if (k2 == 0.5f) return s;
        if (k2 == 1.5f) return v * s;
        if (k2 == -0.5f) return 1 / s;
        return k2 == 2.0f ? v * v : (k2 == -1.0f ? 1 / v : 1 / (v * v));
      };
      bound = std::max(pw(hi, k), pw(lo, k)) + 1e-3;
      e = b.const_f32({}, {k});
    }
    const Value out = b.push(x.dims, bound, false);
    b.node("Pow", {x.name, e}, {out.name});
    return true;
  }
  // Mod: the dividend exact (the result jumps at multiples of the divisor).
  Value x = exact_value(b, 0, 6, {b.rng.in(1, 4), b.rng.in(1, 5)});
  const Dims ddims = broadcast_partner(b.rng, x.dims);
  const auto dims = broadcast(x.dims, ddims);
  if (!dims || num_elements(*dims) > kMaxElements) return false;
  if (b.rng.chance(50)) {
    const float ds[] = {0.5f, 0.75f, 1.0f, 1.5f, 0.25f};
    std::vector<float> dv(static_cast<size_t>(num_elements(ddims)));
    for (float& d : dv) d = b.rng.chance(50) ? ds[b.rng.below(5)] : -ds[b.rng.below(5)];
    const Value out = b.push(*dims, 1.5, x.exact);
    set_int(b.node("Mod", {x.name, b.const_f32(ddims, dv)}, {out.name}), "fmod", 1);
    return true;
  }
  // Integers: trunc(x * 8) as int64, Mod an int64 constant (fmod 0: the divisor's sign).
  const std::string scaled = b.fresh("v"), ints = b.fresh("v"), mod = b.fresh("v");
  b.node("Mul", {x.name, b.const_f32({}, {8.0f})}, {scaled});
  set_int(b.node("Cast", {scaled}, {ints}), "to", ::onnx::TensorProto::INT64);
  const int64_t ds[] = {1, 2, 3, 5, 7};
  std::vector<int64_t> dv(static_cast<size_t>(num_elements(ddims)));
  for (int64_t& d : dv) d = b.rng.chance(50) ? ds[b.rng.below(5)] : -ds[b.rng.below(5)];
  b.node("Mod", {ints, b.const_i64_dims(ddims, dv)}, {mod});
  to_float(b, mod, *dims, 7, true);
  return true;
}

// And / Or / Xor of two comparisons of exact values, Not of one, IsNaN of Sqrt (NaN where the
// exact input is negative), IsInf of Reciprocal (+-inf where it is 0: Relu's zeros, negated some of
// the time to -0); then Where, or a Cast to float.
bool logical(Builder& b, const std::string& op) {
  const Value c = exact_value(b, 0, 6, {b.rng.in(1, 4), b.rng.in(1, 5)});
  Dims dims = c.dims;
  std::string cond;
  if (op == "And" || op == "Or" || op == "Xor") {
    auto w = pick(b, [&](const Value& y) {
      auto d = broadcast(c.dims, y.dims);
      return y.exact && d && num_elements(*d) <= kMaxElements;
    });
    const Value other = w ? ready(b, *w) : c;
    dims = *broadcast(c.dims, other.dims);
    const std::string l = condition(b, c), r = condition(b, other);
    cond = b.fresh("v");
    b.node(op, {l, r}, {cond});
  } else if (op == "Not") {
    const std::string l = condition(b, c);
    cond = b.fresh("v");
    b.node("Not", {l}, {cond});
  } else if (op == "IsNaN") {
    const std::string root = b.fresh("v");
    b.node("Sqrt", {c.name}, {root});
    cond = b.fresh("v");
    b.node("IsNaN", {root}, {cond});
  } else {
    std::string z = b.fresh("v");
    b.node("Relu", {c.name}, {z});
    if (b.rng.chance(40)) {
      const std::string n = b.fresh("v");
      b.node("Neg", {z}, {n});
      z = n;
    }
    const std::string inv = b.fresh("v");
    b.node("Reciprocal", {z}, {inv});
    cond = b.fresh("v");
    auto* node = b.node("IsInf", {inv}, {cond});
    const int which = b.rng.below(3);  // both, only +inf, only -inf
    if (which == 1) set_int(node, "detect_negative", 0);
    if (which == 2) set_int(node, "detect_positive", 0);
  }
  if (b.rng.chance(40)) {
    to_float(b, cond, dims, 1, true);
    return true;
  }
  const Value x = any_value(b);
  const auto xd = broadcast(dims, x.dims);
  if (!xd || num_elements(*xd) > kMaxElements) {
    to_float(b, cond, dims, 1, true);
    return true;
  }
  const Value out = b.push(*xd, std::max(x.bound, 1.0), x.exact);
  b.node("Where", {cond, x.name, b.const_f32({}, {b.rng.chance(50) ? 0.0f : 1.0f})}, {out.name});
  return true;
}

// QuantizeLinear then DequantizeLinear of an exact value (x / scale is exact for a power-of-two
// scale, so the rounding, half to even, and the saturation are what is tested): uint8 or int8, a
// zero point or none, per tensor or (sometimes) per axis.
bool quantize(Builder& b, const std::string&) {
  Value x = exact_value(b, 0, 6, {b.rng.in(1, 4), b.rng.in(1, 5)});
  x = ready(b, x, 4);
  const int r = rank(x);
  const bool per_axis = r >= 1 && b.rng.chance(30);
  const int axis = per_axis ? b.rng.below(r) : 0;
  const int64_t n = per_axis ? x.dims[static_cast<size_t>(axis)] : 1;
  const Dims sdims = per_axis ? Dims{n} : Dims{};
  std::vector<float> scales(static_cast<size_t>(n));
  for (float& s : scales) s = std::ldexp(1.0f, -b.rng.in(2, 6));
  const bool u8 = b.rng.chance(50);
  std::vector<uint8_t> zps(static_cast<size_t>(n));
  for (uint8_t& z : zps) {
    const int v = u8 ? b.rng.in(0, 255) : b.rng.in(-20, 20);
    z = static_cast<uint8_t>(v & 0xff);
  }
  const std::string scale = b.const_f32(sdims, scales);
  const bool with_zp = !u8 || b.rng.chance(70);  // int8 needs its zero point to say the type
  std::vector<std::string> qins = {x.name, scale};
  if (with_zp)
    qins.push_back(b.initializer(u8 ? ::onnx::TensorProto::UINT8 : ::onnx::TensorProto::INT8, sdims,
                                 zps.data(), zps.size()));
  const std::string q = b.fresh("v");
  auto* qn = b.node("QuantizeLinear", qins, {q});
  if (per_axis) set_int(qn, "axis", axis_text(b.rng, axis, r));
  std::vector<std::string> dins = {q, scale};
  if (with_zp) dins.push_back(qins[2]);
  const Value out = b.push(x.dims, 256 * 0.25, x.exact);
  auto* dn = b.node("DequantizeLinear", dins, {out.name});
  if (per_axis) set_int(dn, "axis", axis_text(b.rng, axis, r));
  return true;
}

}  // namespace plumb::hunt::gen::recipe
