// plumb gen's recipes for elementwise ops, matrix products, convolution, normalization, pooling
// and activations as exports spell them (hunt/gen_recipe.h; the rules common to all recipes are
// at the top of gen_ops.cpp).
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

// ---- elementwise ----

bool unary(Builder& b, const std::string& op) {
  const Value v = any_value(b);
  const bool moves = op == "Abs" || op == "Neg" || op == "Relu";
  const Value out = b.push(v.dims, moves ? v.bound : 1.0, moves && v.exact);
  b.node(op, {v.name}, {out.name});
  return true;
}

bool binary(Builder& b, const std::string& op) {
  const Value v = any_value(b);
  const Value w = partner(b, v);
  const auto out_dims = broadcast(v.dims, w.dims);
  if (!out_dims) return false;  // cannot happen: both choices broadcast
  double bound = std::max(v.bound, w.bound);
  if (op == "Add" || op == "Sub") bound = v.bound + w.bound;
  if (op == "Mul") bound = v.bound * w.bound;
  const bool exact = (op == "Max" || op == "Min") && v.exact && w.exact;
  const Value out = b.push(*out_dims, bound, exact);
  if (b.rng.chance(50))
    b.node(op, {v.name, w.name}, {out.name});
  else
    b.node(op, {w.name, v.name}, {out.name});
  return true;
}

// ---- matrix products ----

bool matmul(Builder& b, const std::string&) {
  const Value a = any_value(b, 1);
  const int r = rank(a);
  const int64_t k = a.dims.back();
  if (r >= 2 && b.enabled("Transpose") && b.rng.chance(20)) {
    // a @ a^T (attention scores): both operands computed.
    std::vector<int64_t> perm(static_cast<size_t>(r));
    for (int i = 0; i < r; ++i) perm[static_cast<size_t>(i)] = i;
    std::swap(perm[static_cast<size_t>(r - 1)], perm[static_cast<size_t>(r - 2)]);
    Dims tdims = a.dims;
    std::swap(tdims[static_cast<size_t>(r - 1)], tdims[static_cast<size_t>(r - 2)]);
    Dims out_dims = a.dims;
    out_dims.back() = a.dims[static_cast<size_t>(r - 2)];
    if (num_elements(out_dims) > kMaxElements) return false;
    const Value t = b.push(tdims, a.bound, a.exact);
    set_ints(b.node("Transpose", {a.name}, {t.name}), "perm", perm);
    const Value out = b.push(out_dims, static_cast<double>(k) * a.bound * a.bound, false);
    b.node("MatMul", {a.name, t.name}, {out.name});
    return true;
  }
  const int64_t n = b.rng.in(1, 6);
  Dims bdims;
  if (r >= 3 && b.rng.chance(40)) {
    const size_t batch = static_cast<size_t>(b.rng.in(1, r - 2));
    for (size_t i = 0; i < batch; ++i) {
      const int64_t d = a.dims[static_cast<size_t>(r - 2) - batch + i];
      bdims.push_back(b.rng.chance(50) ? 1 : d);
    }
  }
  const bool vector_b = bdims.empty() && b.rng.chance(15);
  if (vector_b) {
    bdims = {k};
  } else {
    bdims.push_back(k);
    bdims.push_back(n);
  }
  // ONNX MatMul = numpy.matmul: batch dims broadcast, a 1-D operand loses its dim.
  Dims a_batch(a.dims.begin(), a.dims.end() - std::min(r, 2));
  Dims b_batch(bdims.begin(),
               bdims.end() - std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(bdims.size()), 2));
  auto batch = broadcast(a_batch, b_batch);
  if (!batch) return false;
  Dims out_dims = *batch;
  if (r >= 2) out_dims.push_back(a.dims[static_cast<size_t>(r - 2)]);
  if (!vector_b) out_dims.push_back(n);
  if (num_elements(out_dims) > kMaxElements) return false;
  const float scale = 1.0f / static_cast<float>(k);
  const std::string w = b.const_f32_random(bdims, -scale, scale);
  const Value out = b.push(out_dims, a.bound, false);
  b.node("MatMul", {a.name, w}, {out.name});
  return true;
}

bool gemm(Builder& b, const std::string&) {
  Value a;
  if (auto v = pick(b, [](const Value& x) { return rank(x) == 2 && num_elements(x.dims) <= 1024; })) {
    a = ready(b, *v);
  } else if (b.enabled("Flatten") && rank(b.pool.back()) >= 1 && num_elements(b.pool.back().dims) <= 1024) {
    const Value src = ready(b, b.pool.back());
    const int r = rank(src);
    const int axis = b.rng.in(0, r);
    Dims dims = {num_elements(Dims(src.dims.begin(), src.dims.begin() + axis)),
                 num_elements(Dims(src.dims.begin() + axis, src.dims.end()))};
    a = b.push(dims, src.bound, src.exact);
    set_int(b.node("Flatten", {src.name}, {a.name}), "axis", axis);
  } else {
    a = b.input({b.rng.in(1, 4), b.rng.in(1, 6)});
  }
  const bool trans_a = b.rng.chance(30), trans_b = b.rng.chance(50);
  const int64_t m = trans_a ? a.dims[1] : a.dims[0], k = trans_a ? a.dims[0] : a.dims[1];
  const int64_t n = b.rng.in(1, 6);
  const float alphas[] = {1.0f, 0.5f, 2.0f}, betas[] = {1.0f, 0.5f};
  const float alpha = alphas[b.rng.below(3)], beta = betas[b.rng.below(2)];
  const float scale = 1.0f / static_cast<float>(k);
  std::vector<std::string> ins = {a.name,
                                  b.const_f32_random(trans_b ? Dims{n, k} : Dims{k, n}, -scale, scale)};
  double bound = alpha * a.bound;
  if (b.rng.chance(75)) {
    const Dims choices[] = {{n}, {1, n}, {m, n}, {m, 1}, {1}, {}};
    ins.push_back(b.const_f32_random(choices[b.rng.below(6)], -0.5f, 0.5f));
    bound += beta * 0.5;
  }
  const Value out = b.push({m, n}, bound, false);
  auto* node = b.node("Gemm", ins, {out.name});
  if (trans_a) set_int(node, "transA", 1);
  if (trans_b || b.rng.chance(20)) set_int(node, "transB", trans_b ? 1 : 0);
  if (alpha != 1.0f || b.rng.chance(20)) set_float(node, "alpha", alpha);
  if (ins.size() == 3 && (beta != 1.0f || b.rng.chance(20))) set_float(node, "beta", beta);
  return true;
}

// ---- convolution, normalization, pooling ----

Dims image_dims(Rng& rng) {
  Dims dims = {rng.in(1, 2), rng.in(1, 4)};
  const int spatial = rng.in(1, 2);
  for (int i = 0; i < spatial; ++i) dims.push_back(rng.in(3, 7));
  return dims;
}

Value batch_norm(Builder& b, const Value& x) {
  const int64_t c = x.dims[1];
  const std::vector<std::string> ins = {
      x.name, b.const_f32_random({c}, 0.5f, 1.5f), b.const_f32_random({c}, -0.5f, 0.5f),
      b.const_f32_random({c}, -0.5f, 0.5f), b.const_f32_random({c}, 0.5f, 1.5f)};
  const Value out = b.push(x.dims, (x.bound + 0.5) / std::sqrt(0.5) * 1.5 + 0.5, false);
  auto* node = b.node("BatchNormalization", ins, {out.name});
  if (b.rng.chance(30)) set_float(node, "epsilon", 1e-3f);
  return out;
}

Window window(Rng& rng, int64_t size, bool dilate) {
  Window w;
  w.k = rng.in(1, 3);
  w.s = rng.chance(35) ? 2 : 1;
  w.d = dilate && rng.chance(25) ? 2 : 1;
  if (rng.chance(50))
    w.pb = rng.in(0, static_cast<int>(w.k - 1)), w.pe = rng.in(0, static_cast<int>(w.k - 1));
  while (w.d * (w.k - 1) + 1 > size + w.pb + w.pe) {
    if (w.d > 1) {
      w.d = 1;
    } else {
      --w.k;
      w.pb = std::min(w.pb, w.k - 1), w.pe = std::min(w.pe, w.k - 1);
    }
  }
  w.out = (size + w.pb + w.pe - w.d * (w.k - 1) - 1) / w.s + 1;
  return w;
}

// A window op's padding: auto_pad SAME_*, or pads (written when not all 0, and sometimes then).
void set_padding(Builder& b, ::onnx::NodeProto* node, bool same, const std::vector<int64_t>& pads_begin,
                 const std::vector<int64_t>& pads_end) {
  if (same) {
    set_string(node, "auto_pad", b.rng.chance(50) ? "SAME_UPPER" : "SAME_LOWER");
    return;
  }
  std::vector<int64_t> pads = pads_begin;
  pads.insert(pads.end(), pads_end.begin(), pads_end.end());
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }) || b.rng.chance(30))
    set_ints(node, "pads", pads);
}

// Groups of a convolution over c channels: 1, c (depthwise) or another divisor of c.
int64_t pick_group(Rng& rng, int64_t c) {
  if (c == 1 || !rng.chance(45)) return 1;
  std::vector<int64_t> divisors;
  for (int64_t g = 2; g <= c; ++g)
    if (c % g == 0) divisors.push_back(g);
  return rng.chance(50) ? c : divisors[static_cast<size_t>(rng.below(static_cast<int>(divisors.size())))];
}

bool conv(Builder& b, const std::string&) {
  const Value x = of_rank(b, 3, 4, image_dims(b.rng));
  const int64_t c = x.dims[1];
  const int64_t group = pick_group(b.rng, c);
  const int64_t m = group * b.rng.in(1, std::max<int>(1, static_cast<int>(8 / group)));
  const bool same = b.rng.chance(12);
  Dims wdims = {m, c / group}, out_dims = {x.dims[0], m};
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
  int64_t fan_in = c / group;
  for (size_t i = 2; i < x.dims.size(); ++i) {
    // onnxruntime refuses dilations with SAME_* auto_pad (ONNX allows them): not built.
    Window w = window(b.rng, x.dims[i], !same);
    if (same) w.pb = w.pe = 0, w.out = (x.dims[i] + w.s - 1) / w.s;
    wdims.push_back(w.k), kernel.push_back(w.k), strides.push_back(w.s), dilations.push_back(w.d);
    pads_begin.push_back(w.pb), pads_end.push_back(w.pe), out_dims.push_back(w.out);
    fan_in *= w.k;
  }
  if (num_elements(out_dims) > kMaxElements) return false;
  const float scale = 1.0f / static_cast<float>(fan_in);
  std::vector<std::string> ins = {x.name, b.const_f32_random(wdims, -scale, scale)};
  const bool bias = b.rng.chance(70);
  if (bias) ins.push_back(b.const_f32_random({m}, -0.1f, 0.1f));
  Value out = b.push(out_dims, x.bound + (bias ? 0.1 : 0.0), false);
  auto* node = b.node("Conv", ins, {out.name});
  if (b.rng.chance(70)) set_ints(node, "kernel_shape", kernel);
  if (group != 1) set_int(node, "group", group);
  const bool strided = std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; });
  const bool dilated = std::any_of(dilations.begin(), dilations.end(), [](int64_t s) { return s != 1; });
  if (strided || b.rng.chance(30)) set_ints(node, "strides", strides);
  if (dilated || b.rng.chance(20)) set_ints(node, "dilations", dilations);
  set_padding(b, node, same, pads_begin, pads_end);
  if (b.enabled("BatchNormalization") && b.rng.chance(35)) out = batch_norm(b, out);
  if (b.enabled("Relu") && b.rng.chance(40)) {
    const Value r = b.push(out.dims, out.bound, false);
    b.node("Relu", {out.name}, {r.name});
  }
  return true;
}

// ConvTranspose with explicit pads and output_padding (auto_pad SAME and output_shape, where
// ONNX's text and onnxruntime have parted over which side gets the odd pad, are left out).
bool conv_transpose(Builder& b, const std::string&) {
  const Value x = of_rank(b, 3, 4, image_dims(b.rng));
  const int64_t c = x.dims[1];
  const int64_t group = pick_group(b.rng, c);
  const int64_t m = group * b.rng.in(1, std::max<int>(1, static_cast<int>(8 / group)));
  Dims wdims = {c, m / group}, out_dims = {x.dims[0], m};
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end, output_padding;
  int64_t fan_in = c / group;
  for (size_t i = 2; i < x.dims.size(); ++i) {
    const int64_t k = b.rng.in(1, 3), s = b.rng.chance(40) ? 2 : 1, d = b.rng.chance(20) ? 2 : 1;
    const int64_t op = s > 1 && b.rng.chance(30) ? 1 : 0;
    const int64_t full = s * (x.dims[i] - 1) + op + (k - 1) * d + 1;
    int64_t pb = 0, pe = 0;
    if (b.rng.chance(50))
      pb = b.rng.in(0, static_cast<int>((k - 1) * d)), pe = b.rng.in(0, static_cast<int>((k - 1) * d));
    if (full - pb - pe < 1) pb = pe = 0;
    wdims.push_back(k), kernel.push_back(k), strides.push_back(s), dilations.push_back(d);
    pads_begin.push_back(pb), pads_end.push_back(pe), output_padding.push_back(op);
    out_dims.push_back(full - pb - pe);
    fan_in *= k;
  }
  if (num_elements(out_dims) > kMaxElements) return false;
  const float scale = 1.0f / static_cast<float>(fan_in);
  std::vector<std::string> ins = {x.name, b.const_f32_random(wdims, -scale, scale)};
  const bool bias = b.rng.chance(60);
  if (bias) ins.push_back(b.const_f32_random({m}, -0.1f, 0.1f));
  const Value out = b.push(out_dims, x.bound + (bias ? 0.1 : 0.0), false);
  auto* node = b.node("ConvTranspose", ins, {out.name});
  if (b.rng.chance(70)) set_ints(node, "kernel_shape", kernel);
  if (group != 1) set_int(node, "group", group);
  auto any = [](const std::vector<int64_t>& v, int64_t usual) {
    return std::any_of(v.begin(), v.end(), [&](int64_t e) { return e != usual; });
  };
  if (any(strides, 1) || b.rng.chance(30)) set_ints(node, "strides", strides);
  if (any(dilations, 1)) set_ints(node, "dilations", dilations);
  if (any(output_padding, 0)) set_ints(node, "output_padding", output_padding);
  set_padding(b, node, false, pads_begin, pads_end);
  return true;
}

bool batch_normalization(Builder& b, const std::string&) {
  const Value x = of_rank(b, 2, 4, image_dims(b.rng));
  batch_norm(b, x);
  return true;
}

bool pool(Builder& b, const std::string& op) {
  const Value x = of_rank(b, 3, 4, image_dims(b.rng));
  const bool max = op == "MaxPool";
  const bool same = b.rng.chance(10);
  bool ceil_mode = b.rng.chance(25);
  const bool include_pad = !max && b.rng.chance(40);
  // ceil_mode where the last window would start in the end padding is where ONNX (1.12's text and
  // shape inference) and PyTorch part: left out. AveragePool's divisor for a window that ceil_mode
  // lets run past the end padding is unspecified when padding counts: also left out.
  if (include_pad || same) ceil_mode = false;
  std::vector<Window> ws;
  Dims out_dims = {x.dims[0], x.dims[1]};
  for (size_t i = 2; i < x.dims.size(); ++i) {
    Window w = window(b.rng, x.dims[i], max && b.has_attribute(op, "dilations"));
    if (same) w.pb = w.pe = 0, w.d = 1, w.out = (x.dims[i] + w.s - 1) / w.s;
    const int64_t span = x.dims[i] + w.pb + w.pe - w.d * (w.k - 1) - 1;
    const int64_t ceil_out = (span + w.s - 1) / w.s + 1;
    if (ceil_mode && ceil_out != w.out && (ceil_out - 1) * w.s >= x.dims[i] + w.pb) ceil_mode = false;
    ws.push_back(w);
  }
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
  for (size_t i = 0; i < ws.size(); ++i) {
    const Window& w = ws[i];
    const int64_t span = x.dims[i + 2] + w.pb + w.pe - w.d * (w.k - 1) - 1;
    out_dims.push_back(same ? w.out : (ceil_mode ? (span + w.s - 1) / w.s + 1 : w.out));
    kernel.push_back(w.k), strides.push_back(w.s), dilations.push_back(w.d);
    pads_begin.push_back(w.pb), pads_end.push_back(w.pe);
  }
  const Value out = b.push(out_dims, x.bound, max && x.exact);
  auto* node = b.node(op, {x.name}, {out.name});
  set_ints(node, "kernel_shape", kernel);
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; }) || b.rng.chance(30))
    set_ints(node, "strides", strides);
  if (std::any_of(dilations.begin(), dilations.end(), [](int64_t s) { return s != 1; }))
    set_ints(node, "dilations", dilations);
  set_padding(b, node, same, pads_begin, pads_end);
  if (ceil_mode) set_int(node, "ceil_mode", 1);
  if (include_pad) set_int(node, "count_include_pad", 1);
  return true;
}

bool global_pool(Builder& b, const std::string& op) {
  const Value x = of_rank(b, 3, 4, image_dims(b.rng));
  Dims out_dims = x.dims;
  for (size_t i = 2; i < out_dims.size(); ++i) out_dims[i] = 1;
  const Value out = b.push(out_dims, x.bound, op == "GlobalMaxPool" && x.exact);
  b.node(op, {x.name}, {out.name});
  return true;
}

// x plus a ramp over the dims from axis a on, of step 2 * bound + 1: the elements a normalization
// takes the variance of then differ by at least 1 whatever x holds, so that variance is no
// cancellation of nearly equal numbers.
Value spread(Builder& b, const Value& x, int a) {
  const Dims nd(x.dims.begin() + a, x.dims.end());
  const int64_t s = num_elements(nd);
  const double step = std::ceil(2 * x.bound + 1);
  std::vector<float> ramp(static_cast<size_t>(s));
  for (int64_t j = 0; j < s; ++j)
    ramp[static_cast<size_t>(j)] =
        static_cast<float>(step * (static_cast<double>(j) - (static_cast<double>(s) - 1) / 2));
  const Value out = b.push(x.dims, x.bound + step * static_cast<double>(s), false);
  b.node("Add", {x.name, b.const_f32(nd, ramp)}, {out.name});
  return out;
}

bool layer_normalization(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const int axis = b.rng.in(-r, r - 1);
  const int a = axis < 0 ? axis + r : axis;
  const Dims nd(x.dims.begin() + a, x.dims.end());
  const Value in = spread(b, x, a);
  std::vector<std::string> ins = {in.name, b.const_f32_random(nd, 0.5f, 1.5f)};
  if (b.rng.chance(50)) ins.push_back(b.const_f32_random(nd, -0.5f, 0.5f));
  const Value out = b.push(x.dims, std::sqrt(static_cast<double>(num_elements(nd))) * 1.5 + 1, false);
  auto* node = b.node("LayerNormalization", ins, {out.name});
  if (axis != -1 || b.rng.chance(30)) set_int(node, "axis", axis);
  if (b.rng.chance(30)) set_float(node, "epsilon", 1e-3f);
  return true;
}

// LayerNormalization over the last axis as exports before opset 17 spell it: ReduceMean, Sub,
// Pow 2, ReduceMean, Add epsilon, Sqrt, Div, Mul scale, Add bias.
bool layer_norm_decomposed(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const Value in = spread(b, x, r - 1);
  const int64_t n = x.dims.back();
  auto mean = [&](const std::string& v) {
    const std::string out = b.fresh("v");
    std::vector<std::string> ins = {v};
    ::onnx::NodeProto* node = nullptr;
    set_axes(b, "ReduceMean", ins, &node, {b.rng.chance(50) ? -1 : r - 1}, out);
    return out;
  };
  const std::string mu = mean(in.name), centered = b.fresh("v"), square = b.fresh("v");
  b.node("Sub", {in.name, mu}, {centered});
  b.node("Pow", {centered, b.const_f32({}, {2.0f})}, {square});
  const std::string var = mean(square), padded = b.fresh("v"), root = b.fresh("v"), unit = b.fresh("v");
  b.node("Add", {var, b.const_f32({}, {1e-5f})}, {padded});
  b.node("Sqrt", {padded}, {root});
  b.node("Div", {centered, root}, {unit});
  const std::string scaled = b.fresh("v");
  b.node("Mul", {unit, b.const_f32_random({n}, 0.5f, 1.5f)}, {scaled});
  const Value out = b.push(x.dims, std::sqrt(static_cast<double>(n)) * 1.5 + 1, false);
  b.node("Add", {scaled, b.const_f32_random({n}, -0.5f, 0.5f)}, {out.name});
  return true;
}

// ---- activations as exports spell them ----

// Clip (ReLU6 and friends): min and max as constant inputs, either one omitted some of the time.
bool clip(Builder& b, const std::string&) {
  const Value x = any_value(b);
  const float lo = b.rng.chance(50) ? 0.0f : -static_cast<float>(b.rng.in(1, 4)) / 4;
  const float hi = static_cast<float>(b.rng.in(1, 8)) / 4;
  const int form = b.rng.below(4);  // 0: both, 1: min only, 2: max only (min ""), 3: none
  std::vector<std::string> ins = {x.name};
  if (form == 0 || form == 1) ins.push_back(b.const_f32({}, {lo}));
  if (form == 2) ins.push_back("");
  if (form == 0 || form == 2) ins.push_back(b.const_f32({}, {hi}));
  const Value out = b.push(x.dims, x.bound, x.exact);
  b.node("Clip", ins, {out.name});
  return true;
}

// GELU as torch exports it before opset 20: x * 0.5 * (1 + Erf(x / sqrt(2))).
bool gelu(Builder& b, const std::string&) {
  const Value x = any_value(b);
  const std::string scaled = b.fresh("v"), erf = b.fresh("v"), shifted = b.fresh("v"), prod = b.fresh("v");
  b.node("Div", {x.name, b.const_f32({}, {1.41421354f})}, {scaled});
  b.node("Erf", {scaled}, {erf});
  b.node("Add", {erf, b.const_f32({}, {1.0f})}, {shifted});
  b.node("Mul", {x.name, shifted}, {prod});
  const Value out = b.push(x.dims, x.bound, false);
  b.node("Mul", {prod, b.const_f32({}, {0.5f})}, {out.name});
  return true;
}

// Pad: constant (with a value or 0, some pads negative: a crop), reflect, edge.
bool pad(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return rank(x) >= 1 && num_elements(x.dims) <= kMaxElements / 8; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  static const char* const kModes[] = {"constant", "reflect", "edge"};
  const std::string mode = kModes[b.rng.below(3)];
  std::vector<int64_t> pads(static_cast<size_t>(2 * r), 0);
  Dims dims = x.dims;
  for (int i = 0; i < r; ++i) {
    if (!b.rng.chance(50)) continue;
    const int64_t d = x.dims[static_cast<size_t>(i)];
    const int64_t most = mode == "reflect" ? std::min<int64_t>(2, d - 1) : 2;
    for (int side = 0; side < 2; ++side) {
      int64_t p = b.rng.in(0, static_cast<int>(most));
      if (mode == "constant" && d > 1 && b.rng.chance(15)) p = -1;
      pads[static_cast<size_t>(side * r + i)] = p;
      dims[static_cast<size_t>(i)] += p;
    }
    if (dims[static_cast<size_t>(i)] < 1) return false;
  }
  if (num_elements(dims) > kMaxElements) return false;
  std::vector<std::string> ins = {x.name, b.const_i64(pads)};
  double bound = x.bound;
  if (mode == "constant" && b.rng.chance(50)) {
    const float c = b.rng.unit();
    ins.push_back(b.const_f32({}, {c}));
    bound = std::max(bound, 1.0);
  }
  const Value out = b.push(dims, bound, x.exact);
  auto* node = b.node("Pad", ins, {out.name});
  if (mode != "constant" || b.rng.chance(30)) set_string(node, "mode", mode);
  return true;
}

}  // namespace plumb::hunt::gen::recipe
