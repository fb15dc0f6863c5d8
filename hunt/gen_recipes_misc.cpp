// plumb gen's recipes for the integer and quantized ops (BitShift, MatMulInteger, QLinearMatMul),
// losses (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), sequences, optionals, CastLike and
// Constant (hunt/gen_recipe.h; the rules common to all recipes are at the top of gen_ops.cpp).
// Integer results are exact; quantized ones use power-of-two scales, so that requantization
// rounds an exact value (half to even) on every backend.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

namespace {

std::string u8_const(Builder& b, const Dims& dims, int lo, int hi) {
  std::vector<uint8_t> v(static_cast<size_t>(num_elements(dims)));
  for (auto& e : v) e = static_cast<uint8_t>(b.rng.in(lo, hi));
  return b.initializer(::onnx::TensorProto::UINT8, dims, v.data(), v.size());
}

// QuantizeLinear of an exact value to uint8 with scale 2^-k and zero point z: the name.
std::string quantized(Builder& b, const Value& x, int k, uint8_t z) {
  const std::string q = b.fresh("v");
  b.node(
      "QuantizeLinear",
      {x.name, b.const_f32({}, {std::ldexp(1.0f, -k)}), b.initializer(::onnx::TensorProto::UINT8, {}, &z, 1)},
      {q});
  return q;
}

}  // namespace

// BitShift of uint8 (trunc(|x| * 16), wrapping on the left), MatMulInteger and QLinearMatMul of a
// quantized [M, K] value and a uint8 constant [K, N].
bool integer_op(Builder& b, const std::string& op) {
  if (op == "BitShift") {
    const Value x = ready(b, exact_value(b, 0, 6, {b.rng.in(1, 4), b.rng.in(1, 5)}));
    const std::string a = b.fresh("v"), s = b.fresh("v"), u = b.fresh("v"), y = b.fresh("v");
    b.node("Abs", {x.name}, {a});
    b.node("Mul", {a, b.const_f32({}, {16.0f})}, {s});
    set_int(b.node("Cast", {s}, {u}), "to", ::onnx::TensorProto::UINT8);
    const Dims sdims = broadcast_partner(b.rng, x.dims);
    const auto dims = broadcast(x.dims, sdims);
    if (!dims || num_elements(*dims) > kMaxElements) return false;
    const bool left = b.rng.chance(50);
    set_string(b.node("BitShift", {u, u8_const(b, sdims, 0, 3)}, {y}), "direction", left ? "LEFT" : "RIGHT");
    to_float(b, y, *dims, 255, true);
    return true;
  }
  Value x = exact_value(b, 2, 2, {b.rng.in(1, 4), b.rng.in(1, 6)});
  x = ready(b, x, 2);
  const int64_t m = x.dims[0], k = x.dims[1], n = b.rng.in(1, 4);
  const uint8_t az = static_cast<uint8_t>(b.rng.in(100, 156));
  const int ak = b.rng.in(3, 5);
  const std::string a = quantized(b, x, ak, az);
  const uint8_t bz = static_cast<uint8_t>(b.rng.in(0, 255));
  const std::string w = u8_const(b, {k, n}, 0, 255);
  const std::string azp = b.initializer(::onnx::TensorProto::UINT8, {}, &az, 1);
  const std::string bzp = b.initializer(::onnx::TensorProto::UINT8, {}, &bz, 1);
  const std::string y = b.fresh("v");
  if (op == "MatMulInteger") {
    std::vector<std::string> ins = {a, w};
    if (b.rng.chance(70)) ins.push_back(azp);
    if (ins.size() == 3 && b.rng.chance(70)) ins.push_back(bzp);
    b.node("MatMulInteger", ins, {y});
    to_float(b, y, {m, n}, static_cast<double>(k) * 255 * 255, true);
    return true;
  }
  const float as = std::ldexp(1.0f, -ak), bs = std::ldexp(1.0f, -b.rng.in(6, 9));
  const float ys = std::ldexp(1.0f, -b.rng.in(0, 3));
  const uint8_t yz = static_cast<uint8_t>(b.rng.in(100, 156));
  const std::string yzp = b.initializer(::onnx::TensorProto::UINT8, {}, &yz, 1);
  const std::string ysc = b.const_f32({}, {ys});
  b.node("QLinearMatMul", {a, b.const_f32({}, {as}), azp, w, b.const_f32({}, {bs}), bzp, ysc, yzp}, {y});
  const Value out = b.push({m, n}, 255 * static_cast<double>(ys), true);
  b.node("DequantizeLinear", {y, ysc, yzp}, {out.name});
  return true;
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss of [N, C] or [N, C, D] scores with
// constant int64 targets (some ignored through ignore_index, never all), optional class weights,
// reduction none, sum or mean.
bool loss(Builder& b, const std::string& op) {
  const Value x = ready(b, of_rank(b, 2, 3, {b.rng.in(1, 4), b.rng.in(2, 5)}));
  const int64_t nb = x.dims[0], c = x.dims[1];
  Dims tdims = {nb};
  if (rank(x) == 3) tdims.push_back(x.dims[2]);
  const bool ignore = b.rng.chance(30);
  std::vector<int64_t> t(static_cast<size_t>(num_elements(tdims)));
  for (auto& v : t) v = ignore && b.rng.chance(25) ? -1 : b.rng.in(0, static_cast<int>(c - 1));
  t[0] = b.rng.in(0, static_cast<int>(c - 1));
  std::vector<std::string> ins = {x.name, b.const_i64_dims(tdims, t)};
  if (b.rng.chance(40)) ins.push_back(b.const_f32_random({c}, 0.5f, 1.5f));
  static const char* const kReductions[] = {"mean", "sum", "none"};
  const std::string reduction = kReductions[b.rng.below(3)];
  const Dims dims = reduction == "none" ? tdims : Dims{};
  const double n = static_cast<double>(num_elements(tdims));
  const double bound =
      (op == "SoftmaxCrossEntropyLoss" ? 2 * x.bound + ln_bound(static_cast<double>(c)) + 1 : x.bound) *
      (reduction == "sum" ? 1.5 * n : (reduction == "mean" ? 3 : 1.5));
  const Value out = b.push(dims, bound, false);
  std::vector<std::string> outs = {out.name};
  const bool log_prob = op == "SoftmaxCrossEntropyLoss" && b.rng.chance(30);
  if (log_prob) outs.push_back(b.fresh("v"));
  auto* node = b.node(op, ins, outs);
  if (reduction != "mean" || b.rng.chance(30)) set_string(node, "reduction", reduction);
  if (ignore) set_int(node, "ignore_index", -1);
  if (log_prob)
    b.pool.push_back(Value{outs[1], x.dims, 2 * x.bound + ln_bound(static_cast<double>(c)) + 1, false});
  return true;
}

// A sequence built (SplitToSequence of a value, or SequenceConstruct / SequenceEmpty plus
// SequenceInsert of values of equal dims), sometimes changed (SequenceInsert, SequenceErase), then
// read back (SequenceAt, ConcatFromSequence along an axis or a new one, SequenceLength).
bool sequence(Builder& b, const std::string& op) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  std::vector<Dims> items;
  std::string seq = b.fresh("v");
  bool exact = x.exact;
  const bool erase = op == "SequenceErase";  // built of 2 or more items
  if (op == "SplitToSequence" ||
      (op != "SequenceConstruct" && op != "SequenceEmpty" && !erase && b.rng.chance(50))) {
    const int a = b.rng.below(r);
    const int64_t d = x.dims[static_cast<size_t>(a)];
    std::vector<std::string> ins = {x.name};
    const bool sized = d >= 2 && b.rng.chance(60);
    std::vector<int64_t> sizes;
    if (sized) {
      sizes.assign(static_cast<size_t>(b.rng.in(1, static_cast<int>(std::min<int64_t>(d, 3)))), 1);
      for (int64_t left = d - static_cast<int64_t>(sizes.size()); left > 0; --left)
        ++sizes[static_cast<size_t>(b.rng.below(static_cast<int>(sizes.size())))];
      ins.push_back(b.const_i64(sizes));
    }
    const bool keep = sized || b.rng.chance(60);
    for (int64_t i = 0; i < (sized ? static_cast<int64_t>(sizes.size()) : d); ++i) {
      Dims e = x.dims;
      if (sized)
        e[static_cast<size_t>(a)] = sizes[static_cast<size_t>(i)];
      else if (keep)
        e[static_cast<size_t>(a)] = 1;
      else
        e.erase(e.begin() + a);
      items.push_back(e);
    }
    auto* node = b.node("SplitToSequence", ins, {seq});
    if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
    if (!sized && (!keep || b.rng.chance(30))) set_int(node, "keepdims", keep ? 1 : 0);
  } else if (op == "SequenceEmpty" && !erase) {
    b.node("SequenceEmpty", {}, {seq});
    const std::string next = b.fresh("v");
    b.node("SequenceInsert", {seq, x.name}, {next});
    seq = next, items.push_back(x.dims);
  } else {
    std::vector<std::string> ins = {x.name};
    items.push_back(x.dims);
    for (int k = erase ? b.rng.in(1, 2) : b.rng.below(3); k > 0; --k) {
      ins.push_back(b.const_f32_random(x.dims, -1, 1));
      items.push_back(x.dims);
    }
    b.node("SequenceConstruct", ins, {seq});
  }
  const int len = static_cast<int>(items.size());
  if (op == "SequenceInsert" || (!erase && b.rng.chance(20))) {
    const int pos = b.rng.in(0, len);
    const std::string next = b.fresh("v");
    std::vector<std::string> ins = {seq, b.const_f32_random(items[0], -1, 1)};
    if (pos != len || b.rng.chance(30))
      ins.push_back(b.const_i64({pos - (pos < len && b.rng.chance(30) ? len : 0)}, true));  // -0 is the front
    b.node("SequenceInsert", ins, {next});
    items.insert(items.begin() + pos, items[0]);
    seq = next;
  } else if (len >= 2 && (erase || b.rng.chance(20))) {
    const int pos = b.rng.below(len);
    const std::string next = b.fresh("v");
    std::vector<std::string> ins = {seq};
    if (pos != len - 1 || b.rng.chance(30))
      ins.push_back(b.const_i64({pos - (b.rng.chance(30) ? len : 0)}, true));
    b.node("SequenceErase", ins, {next});
    items.erase(items.begin() + pos);
    seq = next;
  }
  const int n = static_cast<int>(items.size());
  const bool same = std::all_of(items.begin(), items.end(), [&](const Dims& d) { return d == items[0]; });
  const int read = op == "SequenceLength"
                       ? 2
                       : (op == "SequenceAt" ? 0 : (op == "ConcatFromSequence" ? 1 : b.rng.below(3)));
  if (read == 2) {
    const std::string l = b.fresh("v");
    b.node("SequenceLength", {seq}, {l});
    to_float(b, l, {}, n, true);
  } else if (read == 0 || !same) {
    const int pos = b.rng.below(n);
    const std::string at = b.fresh("v");
    b.node("SequenceAt", {seq, b.const_i64({pos - (b.rng.chance(30) ? n : 0)}, true)}, {at});
    settle(b, at, items[static_cast<size_t>(pos)], std::max(x.bound, 1.0), exact);
  } else {
    const int er = static_cast<int>(items[0].size());
    const bool new_axis = er == 0 || b.rng.chance(40);  // rank-0 items have no axis to concatenate on
    const int a = b.rng.below(er + (new_axis ? 1 : 0));
    Dims dims = items[0];
    if (new_axis)
      dims.insert(dims.begin() + a, n);
    else
      dims[static_cast<size_t>(a)] *= n;
    if (num_elements(dims) > kMaxElements) return false;
    const std::string cat = b.fresh("v");
    auto* node = b.node("ConcatFromSequence", {seq}, {cat});
    set_int(node, "axis", a);
    if (new_axis) set_int(node, "new_axis", 1);
    settle(b, cat, dims, std::max(x.bound, 1.0), exact);
  }
  return true;
}

// Optional of a value, OptionalHasElement of it (a Where on x), OptionalGetElement; CastLike to a
// double (or, of an exact value, float16) target and back; Constant (value, value_float or
// value_floats) added to a value.
bool wrap_op(Builder& b, const std::string& op) {
  const Value x = any_value(b);
  if (op == "CastLike") {
    const bool half = x.exact && b.rng.chance(40);
    const std::string mid = b.fresh("v");
    std::string target;
    if (half) {
      const uint16_t one = 0x3c00;
      target = b.initializer(::onnx::TensorProto::FLOAT16, {}, &one, 2);
    } else {
      const double one = 1;
      target = b.initializer(::onnx::TensorProto::DOUBLE, {}, &one, 8);
    }
    b.node("CastLike", {x.name, target}, {mid});
    const Value out = b.push(x.dims, x.bound, x.exact);
    b.node("CastLike", {mid, b.const_f32({}, {0.0f})}, {out.name});
    return true;
  }
  if (op == "Constant") {
    const Dims dims = b.rng.chance(30) ? Dims{} : broadcast_partner(b.rng, x.dims);
    const auto out_dims = broadcast(x.dims, dims);
    if (!out_dims) return false;
    const std::string c = b.fresh("v");
    auto* node = b.node("Constant", {}, {c});
    auto* a = node->add_attribute();
    std::vector<float> v(static_cast<size_t>(num_elements(dims)));
    for (float& e : v) e = b.rng.unit();
    if (dims.empty() && b.rng.chance(50)) {
      a->set_name("value_float"), a->set_type(::onnx::AttributeProto::FLOAT), a->set_f(v[0]);
    } else if (dims.size() == 1 && b.rng.chance(50)) {
      a->set_name("value_floats"), a->set_type(::onnx::AttributeProto::FLOATS);
      for (float e : v) a->add_floats(e);
    } else {
      a->set_name("value"), a->set_type(::onnx::AttributeProto::TENSOR);
      a->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
      for (int64_t d : dims) a->mutable_t()->add_dims(d);
      for (float e : v) a->mutable_t()->add_float_data(e);
    }
    const Value out = b.push(*out_dims, x.bound + 1, false);
    b.node("Add", {x.name, c}, {out.name});
    return true;
  }
  const std::string opt = b.fresh("v");
  b.node("Optional", {x.name}, {opt});
  if (op == "OptionalGetElement" || (op == "Optional" && b.rng.chance(50))) {
    const Value out = b.push(x.dims, x.bound, x.exact);
    b.node("OptionalGetElement", {opt}, {out.name});
    return true;
  }
  const std::string has = b.fresh("v");
  b.node("OptionalHasElement", {opt}, {has});
  const Value out = b.push(x.dims, std::max(x.bound, 1.0), x.exact);
  b.node("Where", {has, x.name, b.const_f32({}, {1.0f})}, {out.name});
  return true;
}

}  // namespace plumb::hunt::gen::recipe
