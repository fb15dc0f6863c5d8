// plumb gen's op recipes (docs/gen.md): each picks a float32 value of the pool (the latest one most
// often, so that ops form chains along data edges), checks that the op applies to it, and adds the
// node with attributes and constant inputs valid at the model's opset. Which inputs and attributes
// an op has at that opset (axes as an attribute or an input, dilations of a pool) and which types a
// Cast may target come from libonnx's schemas; output shapes are the hand-written rules below (the
// schemas hold them as inference code, not as data), checked by libonnx's full check in
// tests/cli/gen.sh. Values stay well-conditioned by construction: a value whose bound exceeds
// kMaxBound is first scaled by a power of two, weights are scaled by 1/fan-in, variances of
// BatchNormalization are in [0.5, 1.5], LayerNormalization's input gets a ramp that keeps its
// variance far from 0, comparisons read only exact values.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "hunt/gen_graph.h"

namespace plumb::hunt::gen {

namespace {

constexpr double kMaxBound = 8;
constexpr int64_t kMaxElements = 4096;

using Dims = std::vector<int64_t>;
using Pred = std::function<bool(const Value&)>;

int rank(const Value& v) { return static_cast<int>(v.dims.size()); }

// An upper bound on ln(n) computed without libm (whose log may differ in the last bit between
// platforms, and the bytes of a run must not): ln(2) times the bits n needs.
double ln_bound(double n) {
  int bits = 0;
  while (std::ldexp(1.0, bits) < n) ++bits;
  return 0.6931471805599453 * bits;
}

// A value of the pool that `pred` accepts: the latest one most of the time, else any.
std::optional<Value> pick(Builder& b, const Pred& pred) {
  if (!b.pool.empty() && pred(b.pool.back()) && b.rng.chance(70)) return b.pool.back();
  std::vector<size_t> ok;
  for (size_t k = 0; k < b.pool.size(); ++k)
    if (pred(b.pool[k])) ok.push_back(k);
  if (ok.empty()) return std::nullopt;
  return b.pool[ok[static_cast<size_t>(b.rng.below(static_cast<int>(ok.size())))]];
}

// `v` scaled by a power of two (exact) so that its bound is at most `max_bound`.
Value ready(Builder& b, const Value& v, double max_bound = kMaxBound) {
  if (v.bound <= max_bound) return v;
  int k = 0;
  while (std::ldexp(v.bound, -k) > max_bound) ++k;
  const std::string c = b.const_f32({}, {static_cast<float>(std::ldexp(1.0, -k))});
  const Value out{b.fresh("v"), v.dims, std::ldexp(v.bound, -k), v.exact};
  b.node("Mul", {v.name, c}, {out.name});
  b.pool.push_back(out);
  return out;
}

Value reshape(Builder& b, const Value& v, const Dims& dims) {
  const std::string shape = b.const_i64(dims);
  const Value out = b.push(dims, v.bound, v.exact);
  b.node("Reshape", {v.name, shape}, {out.name});
  return out;
}

// A value of rank lo..hi with at most kMaxElements/4 elements: from the pool, else the latest
// value reshaped (when Reshape is enabled), else a new graph input of `fresh` dims.
Value of_rank(Builder& b, int lo, int hi, const Dims& fresh) {
  auto v = pick(b, [&](const Value& x) {
    return rank(x) >= lo && rank(x) <= hi && num_elements(x.dims) <= kMaxElements / 4;
  });
  if (v) return ready(b, *v);
  const Value& last = b.pool.back();
  if (b.enabled("Reshape") && num_elements(last.dims) <= kMaxElements / 4 && b.rng.chance(70)) {
    const Value src = ready(b, b.pool.back());
    return reshape(b, src, random_dims(b.rng, num_elements(src.dims), b.rng.in(lo, hi)));
  }
  return b.input(fresh);
}

Value any_value(Builder& b, int min_rank = 0) {
  auto v =
      pick(b, [&](const Value& x) { return rank(x) >= min_rank && num_elements(x.dims) <= kMaxElements; });
  if (v) return ready(b, *v);
  Dims dims(static_cast<size_t>(std::max(min_rank, 1)));
  for (auto& d : dims) d = b.rng.in(1, 4);
  return b.input(dims);
}

std::optional<Dims> broadcast(const Dims& a, const Dims& c) {
  Dims out(std::max(a.size(), c.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t x = k < out.size() - a.size() ? 1 : a[k - (out.size() - a.size())];
    const int64_t y = k < out.size() - c.size() ? 1 : c[k - (out.size() - c.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = std::max(x, y);
  }
  return out;
}

// Dims of a constant that broadcasts with `dims`: a suffix of them, some set to 1, and a 1 of
// `dims` sometimes widened (the result grows).
Dims broadcast_partner(Rng& rng, const Dims& dims) {
  const size_t len = static_cast<size_t>(rng.in(0, static_cast<int>(dims.size())));
  Dims out(dims.end() - static_cast<std::ptrdiff_t>(len), dims.end());
  for (auto& d : out) {
    if (d == 1 && rng.chance(15))
      d = rng.in(2, 3);
    else if (rng.chance(25))
      d = 1;
  }
  return out;
}

// The value written for axis `a` of a rank-r tensor: negative (a - r) some of the time.
int64_t axis_text(Rng& rng, int a, int r) { return rng.chance(30) ? a - r : a; }

// The axes of `op`: an input or an attribute, as its schema has them at the opset.
void set_axes(Builder& b, const std::string& op, std::vector<std::string>& ins, ::onnx::NodeProto** node,
              const std::vector<int64_t>& axes, const std::string& out) {
  const bool as_input = b.has_input(op, "axes");
  if (as_input) ins.push_back(b.const_i64(axes));
  *node = b.node(op, ins, {out});
  if (!as_input) set_ints(*node, "axes", axes);
}

// ---- elementwise ----

bool unary(Builder& b, const std::string& op) {
  const Value v = any_value(b);
  const bool moves = op == "Abs" || op == "Neg" || op == "Relu";
  const Value out = b.push(v.dims, moves ? v.bound : 1.0, moves && v.exact);
  b.node(op, {v.name}, {out.name});
  return true;
}

// The other operand of a broadcasting op on `v`: a pool value that broadcasts with it, or a
// constant in [-1, 1) of broadcast_partner dims.
Value partner(Builder& b, const Value& v) {
  auto w = b.rng.chance(40) ? pick(b,
                                   [&](const Value& x) {
                                     auto d = broadcast(v.dims, x.dims);
                                     return d && num_elements(*d) <= kMaxElements;
                                   })
                            : std::nullopt;
  if (w) return ready(b, *w);
  Dims dims = broadcast_partner(b.rng, v.dims);
  return Value{b.const_f32_random(dims, -1, 1), dims, 1.0, true};
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

// One spatial axis of a window op: kernel, stride, dilation, pads; the output size, at least 1.
struct Window {
  int64_t k = 1, s = 1, d = 1, pb = 0, pe = 0, out = 1;
};

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

// ---- reductions, softmax ----

bool reduce(Builder& b, const std::string& op) {
  const double max_bound = op == "ReduceProd" ? 1.0 : (op == "ReduceSumSquare" ? 4.0 : kMaxBound);
  Value x = any_value(b, 1);
  x = ready(b, x, max_bound);
  const int r = rank(x);
  std::vector<bool> reduced(static_cast<size_t>(r), false);
  const bool all = b.rng.chance(10);
  std::vector<int64_t> axes;
  for (int i = 0; i < r; ++i) {
    if (all || b.rng.chance(40)) reduced[static_cast<size_t>(i)] = true;
  }
  if (!all && std::none_of(reduced.begin(), reduced.end(), [](bool v) { return v; }))
    reduced[static_cast<size_t>(b.rng.below(r))] = true;
  for (int i = 0; i < r; ++i)
    if (!all && reduced[static_cast<size_t>(i)]) axes.push_back(axis_text(b.rng, i, r));
  const bool keep = !b.rng.chance(50);
  Dims out_dims;
  double n = 1;
  for (int i = 0; i < r; ++i) {
    if (reduced[static_cast<size_t>(i)]) {
      n *= static_cast<double>(x.dims[static_cast<size_t>(i)]);
      if (keep) out_dims.push_back(1);
    } else {
      out_dims.push_back(x.dims[static_cast<size_t>(i)]);
    }
  }
  // A product of many factors in [-1, 1] underflows towards 0: no significant digit left.
  if (op == "ReduceProd" && n > 8) return false;
  double bound = x.bound;
  if (op == "ReduceSum" || op == "ReduceL1") bound = x.bound * n;
  if (op == "ReduceL2") bound = x.bound * std::sqrt(n);
  if (op == "ReduceSumSquare") bound = x.bound * x.bound * n;
  if (op == "ReduceLogSumExp") bound = x.bound + ln_bound(n) + 1;
  const bool exact = (op == "ReduceMax" || op == "ReduceMin") && x.exact;
  const Value out = b.push(out_dims, bound, exact);
  std::vector<std::string> ins = {x.name};
  const bool axes_input = b.has_input(op, "axes");
  if (axes_input && !all) ins.push_back(b.const_i64(axes));
  auto* node = b.node(op, ins, {out.name});
  if (!axes_input && !all) set_ints(node, "axes", axes);
  if (!keep || b.rng.chance(30)) set_int(node, "keepdims", keep ? 1 : 0);
  return true;
}

bool softmax(Builder& b, const std::string& op) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const int axis = b.rng.in(-r, r - 1);
  const int a = axis < 0 ? axis + r : axis;
  const double n = static_cast<double>(x.dims[static_cast<size_t>(a)]);
  const Value out = b.push(x.dims, op == "Softmax" ? 1.0 : 2 * x.bound + ln_bound(n) + 1, false);
  auto* node = b.node(op, {x.name}, {out.name});
  if (axis != -1 || b.rng.chance(30)) set_int(node, "axis", axis);
  return true;
}

// ---- shape and data movement ----

bool reshape_op(Builder& b, const std::string&) {
  const Value x = any_value(b);
  const int r = b.rng.in(1, 4);
  Dims dims = random_dims(b.rng, num_elements(x.dims), r);
  Dims text = dims;
  if (b.rng.chance(25)) text[static_cast<size_t>(b.rng.below(r))] = -1;
  for (int i = 0; i < r && i < rank(x); ++i)
    if (text[static_cast<size_t>(i)] == x.dims[static_cast<size_t>(i)] && b.rng.chance(30))
      text[static_cast<size_t>(i)] = 0;
  const Value out = b.push(dims, x.bound, x.exact);
  b.node("Reshape", {x.name, b.const_i64(text)}, {out.name});
  return true;
}

bool transpose(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return rank(x) >= 2; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) perm[static_cast<size_t>(i)] = i;
  const bool given = b.rng.chance(80);
  if (given) {
    for (int i = r - 1; i > 0; --i)
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(b.rng.below(i + 1))]);
  } else {
    std::reverse(perm.begin(), perm.end());
  }
  Dims dims;
  for (int64_t p : perm) dims.push_back(x.dims[static_cast<size_t>(p)]);
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node("Transpose", {x.name}, {out.name});
  if (given) set_ints(node, "perm", perm);
  return true;
}

bool flatten(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const bool given = b.rng.chance(80);
  const int axis = given ? b.rng.in(-r, r) : 1;
  const int a = axis < 0 ? axis + r : axis;
  const Dims dims = {num_elements(Dims(x.dims.begin(), x.dims.begin() + a)),
                     num_elements(Dims(x.dims.begin() + a, x.dims.end()))};
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node("Flatten", {x.name}, {out.name});
  if (given) set_int(node, "axis", axis);
  return true;
}

bool squeeze(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return std::count(x.dims.begin(), x.dims.end(), 1) > 0; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  std::vector<int> ones;
  for (int i = 0; i < r; ++i)
    if (x.dims[static_cast<size_t>(i)] == 1) ones.push_back(i);
  // No axes: every 1 goes (a rank-0 result only when every dim is 1).
  const bool all = b.rng.chance(15);
  std::vector<bool> gone(static_cast<size_t>(r), false);
  std::vector<int64_t> axes;
  for (int i : ones) {
    if (all || b.rng.chance(60)) gone[static_cast<size_t>(i)] = true;
  }
  if (!all && std::none_of(gone.begin(), gone.end(), [](bool g) { return g; }))
    gone[static_cast<size_t>(ones[static_cast<size_t>(b.rng.below(static_cast<int>(ones.size())))])] = true;
  for (int i = 0; i < r; ++i)
    if (gone[static_cast<size_t>(i)]) axes.push_back(axis_text(b.rng, i, r));
  Dims dims;
  for (int i = 0; i < r; ++i)
    if (!gone[static_cast<size_t>(i)]) dims.push_back(x.dims[static_cast<size_t>(i)]);
  const Value out = b.push(dims, x.bound, x.exact);
  std::vector<std::string> ins = {x.name};
  if (all) {
    b.node("Squeeze", ins, {out.name});
  } else {
    ::onnx::NodeProto* node = nullptr;
    set_axes(b, "Squeeze", ins, &node, axes, out.name);
  }
  return true;
}

bool unsqueeze(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return rank(x) <= 4; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int k = b.rng.in(1, 2);
  const int out_rank = rank(x) + k;
  std::vector<bool> added(static_cast<size_t>(out_rank), false);
  for (int placed = 0; placed < k;) {
    const int p = b.rng.below(out_rank);
    if (!added[static_cast<size_t>(p)]) added[static_cast<size_t>(p)] = true, ++placed;
  }
  std::vector<int64_t> axes;
  Dims dims;
  size_t next = 0;
  for (int i = 0; i < out_rank; ++i) {
    if (added[static_cast<size_t>(i)]) {
      axes.push_back(axis_text(b.rng, i, out_rank));
      dims.push_back(1);
    } else {
      dims.push_back(x.dims[next++]);
    }
  }
  if (b.rng.chance(30)) std::reverse(axes.begin(), axes.end());  // the order of axes does not matter
  const Value out = b.push(dims, x.bound, x.exact);
  std::vector<std::string> ins = {x.name};
  ::onnx::NodeProto* node = nullptr;
  set_axes(b, "Unsqueeze", ins, &node, axes, out.name);
  return true;
}

// x.view(x.size(0), ..., -1) as torch exports it: Shape, then the kept dims gathered (one scalar
// Gather and Unsqueeze per dim, or one Gather of a 1-D index list), a Concat with [-1], a Reshape.
bool shape_reshape(Builder& b, const std::string&) {
  const Value x = any_value(b, 2);
  const int r = rank(x);
  const int keep = b.rng.in(1, r - 1);
  const std::string shape = b.fresh("v");
  b.node("Shape", {x.name}, {shape});
  std::vector<std::string> parts;
  if (b.rng.chance(50)) {
    for (int i = 0; i < keep; ++i) {
      const std::string dim = b.fresh("v"), part = b.fresh("v");
      b.node("Gather", {shape, b.const_i64({i}, true)}, {dim});
      std::vector<std::string> ins = {dim};
      ::onnx::NodeProto* node = nullptr;
      set_axes(b, "Unsqueeze", ins, &node, {0}, part);
      parts.push_back(part);
    }
  } else {
    std::vector<int64_t> idx;
    for (int i = 0; i < keep; ++i) idx.push_back(i);
    parts.push_back(b.fresh("v"));
    b.node("Gather", {shape, b.const_i64(idx)}, {parts.back()});
  }
  parts.push_back(b.const_i64({-1}));
  const std::string target = b.fresh("v");
  set_int(b.node("Concat", parts, {target}), "axis", 0);
  Dims dims(x.dims.begin(), x.dims.begin() + keep);
  dims.push_back(num_elements(Dims(x.dims.begin() + keep, x.dims.end())));
  const Value out = b.push(dims, x.bound, x.exact);
  b.node("Reshape", {x.name, target}, {out.name});
  return true;
}

// Expand to a shape that broadcasts with the input's (1s widened, dims prepended, 1s in the shape
// where the input has more).
bool expand(Builder& b, const std::string&) {
  const Value x = any_value(b);
  Dims shape;
  for (int k = b.rng.chance(30) ? b.rng.in(1, 2) : 0; k > 0; --k) shape.push_back(b.rng.in(1, 3));
  for (int64_t d : x.dims)
    shape.push_back(d == 1 && b.rng.chance(50) ? b.rng.in(2, 3) : (b.rng.chance(20) ? 1 : d));
  const auto dims = broadcast(x.dims, shape);
  if (!dims || num_elements(*dims) > kMaxElements) return false;
  const Value out = b.push(*dims, x.bound, x.exact);
  b.node("Expand", {x.name, b.const_i64(shape)}, {out.name});
  return true;
}

bool concat(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return rank(x) >= 1 && num_elements(x.dims) <= kMaxElements / 3; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  const int a = b.rng.below(r);
  std::vector<std::string> ins = {x.name};
  Dims dims = x.dims;
  double bound = x.bound;
  bool exact = x.exact;
  const int others = b.rng.in(1, 2);
  for (int k = 0; k < others; ++k) {
    auto w = b.rng.chance(50)
                 ? pick(b,
                        [&](const Value& y) {
                          if (rank(y) != r) return false;
                          for (int i = 0; i < r; ++i)
                            if (i != a && y.dims[static_cast<size_t>(i)] != x.dims[static_cast<size_t>(i)])
                              return false;
                          return true;
                        })
                 : std::nullopt;
    if (w) {
      const Value ww = ready(b, *w);
      ins.push_back(ww.name);
      dims[static_cast<size_t>(a)] += ww.dims[static_cast<size_t>(a)];
      bound = std::max(bound, ww.bound), exact = exact && ww.exact;
    } else {
      Dims cdims = x.dims;
      cdims[static_cast<size_t>(a)] = b.rng.in(1, 3);
      ins.push_back(b.const_f32_random(cdims, -1, 1));
      dims[static_cast<size_t>(a)] += cdims[static_cast<size_t>(a)];
    }
  }
  std::swap(ins[0], ins[static_cast<size_t>(b.rng.below(static_cast<int>(ins.size())))]);
  const Value out = b.push(dims, bound, exact);
  set_int(b.node("Concat", ins, {out.name}), "axis", axis_text(b.rng, a, r));
  return true;
}

bool split(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) {
    return std::any_of(x.dims.begin(), x.dims.end(), [](int64_t d) { return d >= 2; });
  });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  std::vector<int> axes;
  for (int i = 0; i < r; ++i)
    if (x.dims[static_cast<size_t>(i)] >= 2) axes.push_back(i);
  const int a = axes[static_cast<size_t>(b.rng.below(static_cast<int>(axes.size())))];
  const int64_t d = x.dims[static_cast<size_t>(a)];
  const int parts = b.rng.in(2, static_cast<int>(std::min<int64_t>(3, d)));
  const bool sizes_input = b.has_input("Split", "split");
  const bool equal = d % parts == 0 && (!sizes_input || b.rng.chance(30));
  std::vector<int64_t> sizes(static_cast<size_t>(parts), equal ? d / parts : 1);
  if (!equal) {
    for (int64_t left = d - parts; left > 0; --left) ++sizes[static_cast<size_t>(b.rng.below(parts))];
  }
  std::vector<std::string> outs;
  std::vector<Value> values;
  for (int k = 0; k < parts; ++k) {
    Dims dims = x.dims;
    dims[static_cast<size_t>(a)] = sizes[static_cast<size_t>(k)];
    values.push_back(Value{b.fresh("v"), dims, x.bound, x.exact});
    outs.push_back(values.back().name);
  }
  std::vector<std::string> ins = {x.name};
  if (!equal && sizes_input) ins.push_back(b.const_i64(sizes));
  auto* node = b.node("Split", ins, outs);
  if (!equal && !sizes_input) set_ints(node, "split", sizes);
  if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
  // The chain goes on from one of the parts; the others are graph outputs unless a later node reads them.
  const size_t next = static_cast<size_t>(b.rng.below(parts));
  for (size_t k = 0; k < values.size(); ++k)
    if (k != next) b.pool.push_back(values[k]);
  b.pool.push_back(values[next]);
  return true;
}

bool slice(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  std::vector<int64_t> starts, ends, axes, steps;
  Dims dims = x.dims;
  std::vector<bool> chosen(static_cast<size_t>(r), false);
  for (int i = 0; i < r; ++i) chosen[static_cast<size_t>(i)] = b.rng.chance(50);
  if (std::none_of(chosen.begin(), chosen.end(), [](bool c) { return c; }))
    chosen[static_cast<size_t>(b.rng.below(r))] = true;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  for (int i = 0; i < r; ++i) {
    if (!chosen[static_cast<size_t>(i)]) continue;
    const int64_t d = x.dims[static_cast<size_t>(i)];
    const int steps_choice[] = {1, 1, 1, 1, 2, -1, -2};
    const int64_t step = steps_choice[b.rng.below(7)];
    int64_t start, end, len;
    if (step > 0) {
      start = b.rng.in(0, static_cast<int>(d - 1));
      end = b.rng.in(static_cast<int>(start + 1), static_cast<int>(d));
      len = (end - start + step - 1) / step;
      if (end == d && b.rng.chance(40))
        end = kMax;
      else if (end < d && b.rng.chance(30))
        end -= d;  // negative: counted from the end
    } else {
      start = b.rng.in(0, static_cast<int>(d - 1));
      end = b.rng.in(-1, static_cast<int>(start - 1));
      len = (start - end + (-step) - 1) / (-step);
      if (end == -1)
        end = b.rng.chance(50) ? kMin : -d - 1 - b.rng.in(0, 3);
      else if (b.rng.chance(30))
        end -= d;
    }
    if (b.rng.chance(30)) start -= d;
    starts.push_back(start), ends.push_back(end), axes.push_back(axis_text(b.rng, i, r)),
        steps.push_back(step);
    dims[static_cast<size_t>(i)] = len;
  }
  const bool unit_steps = std::all_of(steps.begin(), steps.end(), [](int64_t s) { return s == 1; });
  bool all_in_order = static_cast<int>(axes.size()) == r;
  for (size_t k = 0; k < axes.size(); ++k) all_in_order = all_in_order && axes[k] == static_cast<int64_t>(k);
  std::vector<std::string> ins = {x.name, b.const_i64(starts), b.const_i64(ends)};
  const bool with_steps = !unit_steps || b.rng.chance(50);
  if (!all_in_order || b.rng.chance(70)) {
    ins.push_back(b.const_i64(axes));
  } else if (with_steps) {
    ins.push_back("");  // an omitted optional input: axes default to 0..r-1
  }
  if (with_steps) ins.push_back(b.const_i64(steps));
  const Value out = b.push(dims, x.bound, x.exact);
  b.node("Slice", ins, {out.name});
  return true;
}

bool gather(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const int a = b.rng.below(r);
  const int64_t d = x.dims[static_cast<size_t>(a)];
  Dims idims;
  if (!b.rng.chance(25)) {
    const int irank = b.rng.chance(70) ? 1 : 2;
    for (int i = 0; i < irank; ++i) idims.push_back(b.rng.in(1, 3));
  }
  std::vector<int64_t> idx(static_cast<size_t>(num_elements(idims)));
  for (auto& i : idx) {
    i = b.rng.in(0, static_cast<int>(d - 1));
    if (b.rng.chance(30)) i -= d;
  }
  Dims dims(x.dims.begin(), x.dims.begin() + a);
  dims.insert(dims.end(), idims.begin(), idims.end());
  dims.insert(dims.end(), x.dims.begin() + a + 1, x.dims.end());
  if (num_elements(dims) > kMaxElements) return false;
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node("Gather", {x.name, b.const_i64_dims(idims, idx)}, {out.name});
  if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
  return true;
}

// ---- Where and comparisons ----

bool where(Builder& b, const std::string& op) {
  static const char* const kCompare[] = {"Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"};
  std::string cmp = op;
  if (op == "Where") {
    std::vector<std::string> ok;
    for (const char* c : kCompare)
      if (b.enabled(c)) ok.push_back(c);
    if (ok.empty()) ok.assign(std::begin(kCompare), std::end(kCompare));
    cmp = ok[static_cast<size_t>(b.rng.below(static_cast<int>(ok.size())))];
  }
  const Value x = any_value(b);
  // The compared value is exact (see Value): a comparison of values that backends round
  // differently could flip.
  Value c;
  if (x.exact) {
    c = x;
  } else if (auto w = pick(b, [&](const Value& y) {
               auto d = broadcast(x.dims, y.dims);
               return y.exact && d && *d == x.dims;
             })) {
    c = *w;
  } else {
    c = b.input(x.dims);
  }
  const std::string threshold = b.const_f32(
      {}, {cmp == "Equal" || b.rng.chance(40) ? 0.0f : static_cast<float>(b.rng.unit() * c.bound / 2)});
  const std::string cond = b.fresh("v");
  if (b.rng.chance(70))
    b.node(cmp, {c.name, threshold}, {cond});
  else
    b.node(cmp, {threshold, c.name}, {cond});
  const Value w = partner(b, x);
  const auto dims = broadcast(x.dims, w.dims);
  if (!dims) return false;  // cannot happen: both choices broadcast
  const Value out = b.push(*dims, std::max(x.bound, w.bound), x.exact && w.exact);
  if (b.rng.chance(50))
    b.node("Where", {cond, x.name, w.name}, {out.name});
  else
    b.node("Where", {cond, w.name, x.name}, {out.name});
  return true;
}

// ---- Cast between float types ----

bool cast(Builder& b, const std::string&) {
  // The float types Cast's schema lets it target (T2), other than float itself.
  struct Target {
    const char* type;
    int code;
  };
  static const Target kFloats[] = {{"tensor(double)", ::onnx::TensorProto::DOUBLE},
                                   {"tensor(float16)", ::onnx::TensorProto::FLOAT16},
                                   {"tensor(bfloat16)", ::onnx::TensorProto::BFLOAT16}};
  const Value x = any_value(b);
  std::vector<Target> targets;
  if (const ::onnx::OpSchema* s = b.schema("Cast")) {
    for (const auto& tc : s->typeConstraintParams()) {
      if (tc.type_param_str != "T2") continue;
      for (const Target& t : kFloats) {
        // Rounding to a narrower float is exact only of values every backend gives bit for bit.
        if (t.code != ::onnx::TensorProto::DOUBLE && !x.exact) continue;
        if (std::find(tc.allowed_type_strs.begin(), tc.allowed_type_strs.end(), t.type) !=
            tc.allowed_type_strs.end())
          targets.push_back(t);
      }
    }
  }
  if (targets.empty()) return false;
  const Target t = targets[static_cast<size_t>(b.rng.below(static_cast<int>(targets.size())))];
  std::string mid = b.fresh("v");
  set_int(b.node("Cast", {x.name}, {mid}), "to", t.code);
  bool exact = x.exact;
  double bound = x.bound;
  if (t.code == ::onnx::TensorProto::DOUBLE && b.rng.chance(50)) {
    static const char* const kUnary[] = {"Relu", "Abs", "Neg", "Tanh", "Sigmoid"};
    const std::string op = kUnary[b.rng.below(5)];
    const std::string next = b.fresh("v");
    b.node(op, {mid}, {next});
    mid = next;
    if (op == "Tanh" || op == "Sigmoid") exact = false, bound = 1;
  }
  const Value out = b.push(x.dims, bound, exact);
  set_int(b.node("Cast", {mid}, {out.name}), "to", ::onnx::TensorProto::FLOAT);
  return true;
}

}  // namespace

const std::vector<OpRecipe>& op_recipes() {
  static const std::vector<OpRecipe> recipes = {
      {"Abs", "unary", unary},
      {"Neg", "unary", unary},
      {"Relu", "unary", unary},
      {"Sigmoid", "unary", unary},
      {"Tanh", "unary", unary},
      {"Add", "binary", binary},
      {"Sub", "binary", binary},
      {"Mul", "binary", binary},
      {"Max", "binary", binary},
      {"Min", "binary", binary},
      {"MatMul", "matmul", matmul},
      {"Gemm", "matmul", gemm},
      {"Conv", "conv", conv},
      {"ConvTranspose", "conv", conv_transpose},
      {"BatchNormalization", "norm", batch_normalization},
      {"LayerNormalization", "norm", layer_normalization},
      {"Sqrt", "norm", layer_norm_decomposed},
      {"Clip", "activation", clip},
      {"Erf", "activation", gelu},
      {"Pad", "activation", pad},
      {"MaxPool", "pool", pool},
      {"AveragePool", "pool", pool},
      {"GlobalAveragePool", "pool", global_pool},
      {"GlobalMaxPool", "pool", global_pool},
      {"ReduceSum", "reduce", reduce},
      {"ReduceMean", "reduce", reduce},
      {"ReduceMax", "reduce", reduce},
      {"ReduceMin", "reduce", reduce},
      {"ReduceProd", "reduce", reduce},
      {"ReduceL1", "reduce", reduce},
      {"ReduceL2", "reduce", reduce},
      {"ReduceSumSquare", "reduce", reduce},
      {"ReduceLogSumExp", "reduce", reduce},
      {"Softmax", "softmax", softmax},
      {"LogSoftmax", "softmax", softmax},
      {"Reshape", "shape", reshape_op},
      {"Transpose", "shape", transpose},
      {"Flatten", "shape", flatten},
      {"Squeeze", "shape", squeeze},
      {"Unsqueeze", "shape", unsqueeze},
      {"Shape", "shape", shape_reshape},
      {"Expand", "shape", expand},
      {"Concat", "gather", concat},
      {"Split", "gather", split},
      {"Slice", "gather", slice},
      {"Gather", "gather", gather},
      {"Where", "where", where},
      {"Equal", "where", where},
      {"Greater", "where", where},
      {"GreaterOrEqual", "where", where},
      {"Less", "where", where},
      {"LessOrEqual", "where", where},
      {"Cast", "cast", cast},
  };
  return recipes;
}

}  // namespace plumb::hunt::gen
