// plumb gen's recipes for signal ops (DFT, STFT, opset 17), GridSample (16), quantized
// convolution (ConvInteger, QLinearConv), the ops whose result's size depends on the data
// (NonZero and Unique, on values gen knows: a new graph input, a constant) and MaxUnpool of
// MaxPool's indices (hunt/gen_recipe.h; the rules common to all recipes are at the top of
// gen_ops.cpp). Quantized convolutions have no padding: what a pad holds (0 or the zero point) is
// not in ConvInteger's text.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

// DFT of a real signal ([.., n, 1]: a value with a 1 appended) along an axis after the batch one,
// forward or inverse, onesided or not, with a dft_length that pads or trims sometimes; STFT of a
// [batch, len, 1] signal with a frame step, a Hann window or none.
bool signal(Builder& b, const std::string& op) {
  if (op == "DFT") {
    // Signals of at most 8 samples in [-1, 1]: a float32 DFT's rounding grows with n * |x| (onnxruntime's
    // was 2.4e-5 off float64 at n = 36 where plumb's f64 twiddles gave 1.4e-6: both fine, but past
    // the campaign's 1e-5 tolerance).
    auto v = pick(b, [](const Value& y) {
      return rank(y) >= 2 && rank(y) <= 3 &&
             std::all_of(y.dims.begin() + 1, y.dims.end(), [](int64_t d) { return d <= 8; });
    });
    const Value x = ready(b, v ? *v : b.input({b.rng.in(1, 2), b.rng.in(2, 8)}), 1);
    const int r = rank(x);
    const int a = b.rng.in(1, r - 1);
    Dims sdims = x.dims;
    sdims.push_back(1);
    const std::string sig = b.fresh("v");
    std::vector<std::string> uins = {x.name};
    ::onnx::NodeProto* un = nullptr;
    set_axes(b, "Unsqueeze", uins, &un, {r}, sig);
    int64_t n = x.dims[static_cast<size_t>(a)];
    std::vector<std::string> ins = {sig};
    if (b.rng.chance(30)) {
      n = std::min<int64_t>(8, std::max<int64_t>(1, n + b.rng.in(-1, 2)));
      ins.push_back(b.const_i64({n}, true));
    }
    const bool inverse = b.rng.chance(30), onesided = !inverse && b.rng.chance(40);
    Dims dims = sdims;
    dims[static_cast<size_t>(a)] = onesided ? n / 2 + 1 : n;
    dims.back() = 2;
    const Value out =
        b.push(dims, x.bound * static_cast<double>(std::max(n, x.dims[static_cast<size_t>(a)])), false);
    auto* node = b.node("DFT", ins, {out.name});
    if (a != 1 || b.rng.chance(30)) set_int(node, "axis", a);
    if (inverse) set_int(node, "inverse", 1);
    if (onesided) set_int(node, "onesided", 1);
    return true;
  }
  const Value x = ready(b, of_rank(b, 2, 2, {b.rng.in(1, 2), b.rng.in(4, 12)}));
  const int64_t len = x.dims[1];
  if (len < 2) return false;
  const int64_t frame = b.rng.in(2, static_cast<int>(std::min<int64_t>(len, 6)));
  const int64_t step = b.rng.in(1, static_cast<int>(frame));
  const int64_t frames = (len - frame) / step + 1;
  const std::string sig = b.fresh("v");
  b.node("Reshape", {x.name, b.const_i64({x.dims[0], len, 1})}, {sig});
  std::vector<std::string> ins = {sig, b.const_i64({step}, true)};
  if (b.rng.chance(60)) {
    const std::string w = b.fresh("v");
    b.node("HannWindow", {b.const_i64({frame}, true)}, {w});
    ins.push_back(w);
  } else {
    ins.push_back("");
    ins.push_back(b.const_i64({frame}, true));
  }
  // libonnx 1.12's STFT shape inference counts frames with the onesided bin count in place of the
  // frame length and takes onesided's default as 0 (the text says 1): onesided is written always,
  // and set only where both frame counts agree.
  const bool onesided = b.rng.chance(70) && (len - frame) / step == (len - (frame / 2 + 1)) / step;
  const Value out = b.push({x.dims[0], frames, onesided ? frame / 2 + 1 : frame, 2},
                           x.bound * static_cast<double>(frame), false);
  auto* node = b.node("STFT", ins, {out.name});
  set_int(node, "onesided", onesided ? 1 : 0);
  return true;
}

// GridSample, bilinear (continuous in the grid, so no tie can part backends), of an image batch
// at a constant grid in [-1.25, 1.25): every padding mode, align_corners or not.
bool grid_sample(Builder& b, const std::string&) {
  const Value x = of_rank(b, 4, 4, {b.rng.in(1, 2), b.rng.in(1, 3), b.rng.in(2, 5), b.rng.in(2, 5)});
  const int64_t ho = b.rng.in(1, 4), wo = b.rng.in(1, 4);
  const Value out = b.push({x.dims[0], x.dims[1], ho, wo}, x.bound, false);
  auto* node =
      b.node("GridSample", {x.name, b.const_f32_random({x.dims[0], ho, wo, 2}, -1.25f, 1.25f)}, {out.name});
  if (b.rng.chance(30)) set_string(node, "mode", "bilinear");
  static const char* const kPadding[] = {"zeros", "border", "reflection"};
  const std::string padding = kPadding[b.rng.below(3)];
  if (padding != "zeros" || b.rng.chance(30)) set_string(node, "padding_mode", padding);
  if (b.rng.chance(50)) set_int(node, "align_corners", b.rng.below(2));
  return true;
}

// ConvInteger / QLinearConv of a quantized image batch (power-of-two scales, zero points) and a
// uint8 constant kernel: strides and dilations, no padding, groups 1.
bool conv_integer(Builder& b, const std::string& op) {
  Value x = exact_value(b, 4, 4, {b.rng.in(1, 2), b.rng.in(1, 3), b.rng.in(3, 6), b.rng.in(3, 6)});
  x = ready(b, x, 2);
  const int64_t c = x.dims[1], m = b.rng.in(1, 3);
  Dims wdims = {m, c}, out_dims = {x.dims[0], m};
  std::vector<int64_t> kernel, strides;
  for (size_t i = 2; i < 4; ++i) {
    const int64_t k = b.rng.in(1, static_cast<int>(std::min<int64_t>(3, x.dims[i])));
    const int64_t s = b.rng.chance(30) ? 2 : 1;
    kernel.push_back(k), strides.push_back(s), wdims.push_back(k);
    out_dims.push_back((x.dims[i] - k) / s + 1);
  }
  const uint8_t xz = static_cast<uint8_t>(b.rng.in(100, 156)), wz = static_cast<uint8_t>(b.rng.in(0, 255));
  const int xk = b.rng.in(3, 5);
  const std::string q = b.fresh("v");
  const std::string xs = b.const_f32({}, {std::ldexp(1.0f, -xk)});
  const std::string xzp = b.initializer(::onnx::TensorProto::UINT8, {}, &xz, 1);
  const std::string wzp = b.initializer(::onnx::TensorProto::UINT8, {}, &wz, 1);
  b.node("QuantizeLinear", {x.name, xs, xzp}, {q});
  std::vector<uint8_t> wv(static_cast<size_t>(num_elements(wdims)));
  for (auto& e : wv) e = static_cast<uint8_t>(b.rng.in(0, 255));
  const std::string w = b.initializer(::onnx::TensorProto::UINT8, wdims, wv.data(), wv.size());
  const std::string y = b.fresh("v");
  ::onnx::NodeProto* node;
  const double fan_in = static_cast<double>(num_elements(wdims) / m);
  if (op == "ConvInteger") {
    node = b.node(op, {q, w, xzp, wzp}, {y});
    to_float(b, y, out_dims, fan_in * 255 * 255, true);
  } else {
    const float ys = std::ldexp(1.0f, -b.rng.in(0, 3));
    const uint8_t yz = static_cast<uint8_t>(b.rng.in(100, 156));
    const std::string ysc = b.const_f32({}, {ys}),
                      yzp = b.initializer(::onnx::TensorProto::UINT8, {}, &yz, 1);
    node =
        b.node(op, {q, xs, xzp, w, b.const_f32({}, {std::ldexp(1.0f, -b.rng.in(6, 9))}), wzp, ysc, yzp}, {y});
    const Value out = b.push(out_dims, 255 * static_cast<double>(ys), true);
    b.node("DequantizeLinear", {y, ysc, yzp}, {out.name});
  }
  set_ints(node, "kernel_shape", kernel);
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; }) || b.rng.chance(30))
    set_ints(node, "strides", strides);
  return true;
}

// NonZero of (a new input > t) (gen knows its values), Unique of a constant drawn from few values
// (sorted: values, first indices, inverse indices, counts), MaxUnpool of MaxPool's indices (a new
// input, so its windows hold no ties; even sizes, so the unpooled shape is the pooled input's).
bool data_sized(Builder& b, const std::string& op) {
  if (op == "NonZero") {
    const Value x = b.input({b.rng.in(1, 3), b.rng.in(1, 4)});
    const float t = b.rng.chance(50) ? 0.0f : 0.5f;
    std::vector<float> v(static_cast<size_t>(num_elements(x.dims)));
    std::memcpy(v.data(), b.input_data.back().data, v.size() * sizeof(float));
    int64_t nnz = 0;
    for (float e : v) nnz += e > t ? 1 : 0;
    if (nnz == 0) return false;
    const std::string cond = b.fresh("v"), idx = b.fresh("v"), f = b.fresh("v");
    b.node("Greater", {x.name, b.const_f32({}, {t})}, {cond});
    b.node("NonZero", {cond}, {idx});
    set_int(b.node("Cast", {idx}, {f}), "to", ::onnx::TensorProto::FLOAT);
    settle(b, f, {2, nnz}, 4, true);
    return true;
  }
  if (op == "Unique") {
    const int64_t n = b.rng.in(1, 8);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& e : v) e = static_cast<float>(b.rng.in(-3, 3)) / 2;
    std::map<float, int64_t> counts;
    for (float e : v) ++counts[e];
    const int64_t u = static_cast<int64_t>(counts.size());
    const std::string y = b.fresh("v"), idx = b.fresh("v"), inv = b.fresh("v"), cnt = b.fresh("v");
    b.node("Unique", {b.const_f32({n}, v)}, {y, idx, inv, cnt});
    settle(b, y, {u}, 1.5, true);
    const std::string which = b.rng.chance(50) ? cnt : (b.rng.chance(50) ? idx : inv);
    const std::string f = b.fresh("v");
    set_int(b.node("Cast", {which}, {f}), "to", ::onnx::TensorProto::FLOAT);
    settle(b, f, {which == inv ? n : u}, static_cast<double>(n), true);
    return true;
  }
  const Value x = b.input({1, b.rng.in(1, 2), 2 * b.rng.in(1, 3), 2 * b.rng.in(1, 3)});
  const std::string y = b.fresh("v"), idx = b.fresh("v");
  auto* mp = b.node("MaxPool", {x.name}, {y, idx});
  set_ints(mp, "kernel_shape", {2, 2});
  set_ints(mp, "strides", {2, 2});
  const Value out = b.push(x.dims, 1, true);
  auto* node = b.node("MaxUnpool", {y, idx}, {out.name});
  set_ints(node, "kernel_shape", {2, 2});
  set_ints(node, "strides", {2, 2});
  return true;
}

}  // namespace plumb::hunt::gen::recipe

namespace plumb::hunt::gen::recipe {

// DynamicQuantizeLinear of an exact value: scale = (max(0, max x) - min(0, min x)) / 255 and
// x / scale are single float32 divisions (correctly rounded everywhere), then rounded half to
// even; the uint8 result, scale and zero point come back dequantized.
bool dynamic_quantize(Builder& b, const std::string&) {
  const Value x = ready(b, exact_value(b, 1, 4, {b.rng.in(1, 4), b.rng.in(1, 5)}));
  const std::string y = b.fresh("v"), s = b.fresh("v"), z = b.fresh("v");
  b.node("DynamicQuantizeLinear", {x.name}, {y, s, z});
  const Value out = b.push(x.dims, 2 * x.bound + 1, false);
  b.node("DequantizeLinear", {y, s, z}, {out.name});
  return true;
}

// The random ops, whose values no two backends share: each sample is multiplied by 0 and added to
// a value, so that what is compared is the op's shape and type (and that it lowers and runs).
// Bernoulli reads Sigmoid(x), Multinomial [batch, classes] log-probabilities.
bool random_op(Builder& b, const std::string& op) {
  const Value x = op == "Multinomial" ? of_rank(b, 2, 2, {b.rng.in(1, 3), b.rng.in(2, 5)}) : any_value(b, 1);
  const std::string r = b.fresh("v");
  Dims dims = x.dims;
  ::onnx::NodeProto* node = nullptr;
  if (op == "RandomUniformLike" || op == "RandomNormalLike") {
    node = b.node(op, {x.name}, {r});
  } else if (op == "RandomUniform" || op == "RandomNormal") {
    node = b.node(op, {}, {r});
    set_ints(node, "shape", x.dims);
  } else if (op == "Bernoulli") {
    const std::string p = b.fresh("v");
    b.node("Sigmoid", {x.name}, {p});
    node = b.node(op, {p}, {r});
  } else {
    const int64_t samples = b.rng.in(1, 3);
    const std::string idx = b.fresh("v");
    node = b.node(op, {x.name}, {idx});
    set_int(node, "sample_size", samples);
    set_int(b.node("Cast", {idx}, {r}), "to", ::onnx::TensorProto::FLOAT);
    dims = {x.dims[0], samples};
  }
  if (op != "Multinomial" && op != "Bernoulli" && b.rng.chance(40)) set_float(node, "seed", 7.0f);
  const auto out_dims = broadcast(x.dims, dims);
  const std::string zero = b.fresh("v");
  b.node("Mul", {r, b.const_f32({}, {0.0f})}, {zero});
  if (!out_dims) {  // Multinomial's [batch, samples] against x's [batch, classes]: the zeros go on
    b.pool.push_back(Value{zero, dims, 0, true});
    return true;
  }
  const Value out = b.push(*out_dims, x.bound, x.exact);
  b.node("Add", {x.name, zero}, {out.name});
  return true;
}

}  // namespace plumb::hunt::gen::recipe
