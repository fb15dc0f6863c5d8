// plumb gen's recipes for the ops of its "other opset" models (docs/gen.md, "Ops at other
// opsets"): ops plumb lowers that Debian's libonnx 1.12 has no schema for (opsets 18 to 28), and
// the two deprecated before opset 13 (Scatter, Upsample: gen_recipes_index.cpp's and
// gen_recipes_layout.cpp's families do not reach them). libonnx cannot say which inputs and
// attributes these have, so each recipe writes its op's signature as the operator text has it at
// the opsets gen_ops.cpp lists for it. Values stay well-conditioned as elsewhere: normalizations
// read a ramped input, integer and string ops read exact values and come back exactly, sampling
// ops (DeformConv's offsets, AffineGrid's grid) are continuous in what they read.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

namespace {

// `x` (exact, brought to [-2, 2] and times 4, so integers -8..8 after the cast's truncation) as an
// integer tensor of `elem` (int8, int16, int32 or int64). The name of the cast.
std::string integers(Builder& b, const Value& x, int32_t elem) {
  const Value r = ready(b, x, 2);
  const std::string m = b.fresh("v"), c = b.fresh("v");
  b.node("Mul", {r.name, b.const_f32({}, {4.0f})}, {m});
  set_int(b.node("Cast", {m}, {c}), "to", elem);
  return c;
}

// An integer initializer of `elem` holding `values` (each in -8..8, so it fits every type).
std::string int_const(Builder& b, int32_t elem, const Dims& dims, const std::vector<int64_t>& values) {
  std::vector<uint8_t> bytes;
  for (int64_t v : values) {
    if (elem == ::onnx::TensorProto::INT8) {
      const auto x = static_cast<int8_t>(v);
      bytes.push_back(static_cast<uint8_t>(x));
    } else if (elem == ::onnx::TensorProto::INT16) {
      const auto x = static_cast<int16_t>(v);
      uint8_t raw[2];
      std::memcpy(raw, &x, 2);
      bytes.insert(bytes.end(), raw, raw + 2);
    } else if (elem == ::onnx::TensorProto::INT32) {
      const auto x = static_cast<int32_t>(v);
      uint8_t raw[4];
      std::memcpy(raw, &x, 4);
      bytes.insert(bytes.end(), raw, raw + 4);
    } else {
      uint8_t raw[8];
      std::memcpy(raw, &v, 8);
      bytes.insert(bytes.end(), raw, raw + 8);
    }
  }
  return b.initializer(elem, dims, bytes.data(), bytes.size());
}

std::string str_of(int64_t v) { return std::to_string(v); }

}  // namespace

// Mish (18), Gelu (20; approximate none or tanh), Swish (24; alpha), SwiGLU (28; Swish_alpha(A) * B
// with B a pool value of A's dims or a constant: the text forbids broadcasting): smooth, so any
// value; Swish and SwiGLU's alpha 1/2, 1 or 3/2.
bool smooth_other(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = any_value(b, 0);
  if (op == "SwiGLU") {
    auto same = rng.chance(40) ? pick(b, [&](const Value& v) { return v.dims == x.dims; }) : std::nullopt;
    const Value y = same ? ready(b, *same) : Value{b.const_f32_random(x.dims, -1, 1), x.dims, 1.0, true};
    const Value out = b.push(x.dims, x.bound * y.bound, false);
    auto* node = b.node(op, {x.name, y.name}, {out.name});
    if (rng.chance(50)) set_float(node, "alpha", static_cast<float>(rng.in(1, 3)) / 2);
    return true;
  }
  const Value out = b.push(x.dims, x.bound + 1, false);
  auto* node = b.node(op, {x.name}, {out.name});
  if (op == "Gelu" && rng.chance(60)) set_string(node, "approximate", rng.chance(60) ? "tanh" : "none");
  if (op == "Swish" && rng.chance(60)) set_float(node, "alpha", static_cast<float>(rng.in(1, 3)) / 2);
  return true;
}

// BitwiseAnd / Or / Xor (18) of an exact value cast to int8..int64 with a constant of broadcast
// dims, BitwiseNot of the cast; back to float (exact, |y| <= 16).
bool bitwise(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  static const int32_t kTypes[] = {::onnx::TensorProto::INT8, ::onnx::TensorProto::INT16,
                                   ::onnx::TensorProto::INT32, ::onnx::TensorProto::INT64};
  const int32_t elem = kTypes[rng.below(4)];
  const Value x = exact_value(b, 1, 4, {rng.in(1, 5), rng.in(1, 5)});
  const std::string xi = integers(b, x, elem);
  const std::string y = b.fresh("v");
  Dims dims = x.dims;
  if (op == "BitwiseNot") {
    b.node(op, {xi}, {y});
  } else {
    Dims cd = broadcast_partner(rng, x.dims);
    auto bd = broadcast(x.dims, cd);
    if (!bd || num_elements(*bd) > kMaxElements) cd = {};
    dims = *broadcast(x.dims, cd);
    std::vector<int64_t> values(static_cast<size_t>(num_elements(cd)));
    for (auto& v : values) v = rng.in(-8, 8);
    const std::string c = int_const(b, elem, cd, values);
    if (rng.chance(50))
      b.node(op, {xi, c}, {y});
    else
      b.node(op, {c, xi}, {y});
  }
  to_float(b, y, dims, 16, true);
  return true;
}

// BitCast (26): float32 to int32 or uint32 and back, with the sign bit cleared in int32 (BitwiseAnd
// 0x7fffffff) half of the time: |x|, exact.
bool bit_cast(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = any_value(b, 0);
  const bool mask = rng.chance(50);
  const int32_t mid = mask || rng.chance(50) ? ::onnx::TensorProto::INT32 : ::onnx::TensorProto::UINT32;
  std::string bits = b.fresh("v");
  set_int(b.node(op, {x.name}, {bits}), "to", mid);
  if (mask) {
    const int32_t m = 0x7fffffff;
    const std::string c = b.initializer(::onnx::TensorProto::INT32, {}, &m, sizeof m);
    const std::string cleared = b.fresh("v");
    b.node("BitwiseAnd", {bits, c}, {cleared});
    bits = cleared;
  }
  const Value out = b.push(x.dims, x.bound, x.exact);
  set_int(b.node(op, {bits}, {out.name}), "to", ::onnx::TensorProto::FLOAT);
  return true;
}

// GroupNormalization (18: scale and bias per group; 21: per channel) of a rank 3..4 value whose
// channels the group count divides; the input ramped over C and the spatial dims, so every group's
// elements are at least 1 apart.
bool group_normalization(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  auto picked = pick(b, [](const Value& v) {
    return rank(v) >= 3 && rank(v) <= 4 && num_elements(v.dims) / v.dims[0] >= 2 &&
           num_elements(v.dims) <= kMaxElements / 4;
  });
  const Value x = picked ? ready(b, *picked) : b.input(image_dims(rng));
  const int64_t c = x.dims[1];
  std::vector<int64_t> divisors;
  for (int64_t g = 1; g <= c; ++g)
    if (c % g == 0 && (c / g) * num_elements(Dims(x.dims.begin() + 2, x.dims.end())) >= 2)
      divisors.push_back(g);
  if (divisors.empty()) return false;
  const int64_t g = divisors[static_cast<size_t>(rng.below(static_cast<int>(divisors.size())))];
  const Value in = spread(b, x, 1);
  const int64_t per = b.opset >= 21 ? c : g;
  const int64_t n = (c / g) * num_elements(Dims(x.dims.begin() + 2, x.dims.end()));
  const Value out = b.push(x.dims, static_cast<double>(n) * 1.5 + 1, false);
  auto* node =
      b.node(op, {in.name, b.const_f32_random({per}, 0.5f, 1.5f), b.const_f32_random({per}, -0.5f, 0.5f)},
             {out.name});
  set_int(node, "num_groups", g);
  if (rng.chance(30)) set_float(node, "epsilon", 1e-3f);
  return true;
}

// RMSNormalization (23): any axis (negative sometimes), scale of the normalized dims or of the
// last one, the input ramped over the normalized dims.
bool rms_normalization(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = any_value(b, 1);
  const int r = rank(x), a = rng.below(r);
  const Dims nd(x.dims.begin() + a, x.dims.end());
  const Value in = spread(b, x, a);
  const Dims sd = rng.chance(30) ? Dims{x.dims.back()} : nd;
  const Value out = b.push(x.dims, static_cast<double>(num_elements(nd)) * 1.5 + 1, false);
  auto* node = b.node(op, {in.name, b.const_f32_random(sd, 0.5f, 1.5f)}, {out.name});
  if (a != r - 1 || rng.chance(30)) set_int(node, "axis", axis_text(rng, a, r));
  if (rng.chance(30)) set_float(node, "epsilon", 1e-3f);
  return true;
}

// CenterCropPad (18): some axes (all, or the attribute's) cropped or padded (with zeros) about the
// centre to sizes 1..d+2. Data movement: exact.
bool center_crop_pad(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = any_value(b, 1);
  const int r = rank(x);
  std::vector<int64_t> axes;
  for (int a = 0; a < r; ++a)
    if (rng.chance(60)) axes.push_back(a);
  const bool all = axes.empty() || (static_cast<int>(axes.size()) == r && rng.chance(50));
  if (all) {
    axes.clear();
    for (int a = 0; a < r; ++a) axes.push_back(a);
  }
  Dims dims = x.dims;
  std::vector<int64_t> shape;
  for (int64_t a : axes) {
    const int64_t d = x.dims[static_cast<size_t>(a)];
    const int64_t to = rng.in(1, static_cast<int>(d) + 2);
    dims[static_cast<size_t>(a)] = to;
    shape.push_back(to);
  }
  if (num_elements(dims) > kMaxElements) return false;
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node(op, {x.name, b.const_i64(shape)}, {out.name});
  if (!all) {
    std::vector<int64_t> text;
    for (int64_t a : axes) text.push_back(axis_text(rng, static_cast<int>(a), r));
    set_ints(node, "axes", text);
  }
  return true;
}

// Col2Im (18): 2-D blocks 1..3 (dilations 1..2, strides 1..2, pads 0..1) folded into an image of
// 2..6 x 2..6; the input the latest value reshaped when its size fits, else a new input.
bool col2im(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const int64_t n = rng.in(1, 2), c = rng.in(1, 3);
  int64_t img[2], blk[2], dil[2], str[2], pb[2], pe[2], len[2];
  for (int i = 0; i < 2; ++i) {
    img[i] = rng.in(2, 6);
    dil[i] = rng.in(1, 2);
    str[i] = rng.in(1, 2);
    pb[i] = rng.in(0, 1);
    pe[i] = rng.in(0, 1);
    blk[i] = 1;
    const int64_t room = img[i] + pb[i] + pe[i];
    const int kmax = static_cast<int>(std::min<int64_t>(3, (room - 1) / dil[i] + 1));
    blk[i] = rng.in(1, kmax);
    len[i] = (room - (dil[i] * (blk[i] - 1) + 1)) / str[i] + 1;
  }
  const Dims in_dims = {n, c * blk[0] * blk[1], len[0] * len[1]};
  const Value& last = b.pool.back();
  Value x = num_elements(last.dims) == num_elements(in_dims) && b.enabled("Reshape")
                ? reshape(b, ready(b, last), in_dims)
                : b.input(in_dims);
  const Value out = b.push({n, c, img[0], img[1]}, x.bound * static_cast<double>(blk[0] * blk[1]), false);
  auto* node = b.node(op, {x.name, b.const_i64({img[0], img[1]}), b.const_i64({blk[0], blk[1]})}, {out.name});
  if (dil[0] != 1 || dil[1] != 1 || rng.chance(20)) set_ints(node, "dilations", {dil[0], dil[1]});
  if (str[0] != 1 || str[1] != 1 || rng.chance(20)) set_ints(node, "strides", {str[0], str[1]});
  if (pb[0] || pb[1] || pe[0] || pe[1] || rng.chance(20))
    set_ints(node, "pads", {pb[0], pb[1], pe[0], pe[1]});
  return true;
}

// AffineGrid (20): 2-D (theta [N, 2, 3], size [N, C, H, W]) or 3-D (theta [N, 3, 4], size
// [N, C, D, H, W]) with theta in [-1, 1), align_corners 0 or 1: the grid [N, (D,) H, W, 2|3].
bool affine_grid(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const bool three = rng.chance(30);
  const int64_t n = rng.in(1, 2), c = rng.in(1, 3);
  Dims size = {n, c};
  Dims grid = {n};
  for (int i = 0; i < (three ? 3 : 2); ++i) {
    const int64_t d = rng.in(1, 5);
    size.push_back(d);
    grid.push_back(d);
  }
  const int64_t k = three ? 3 : 2;
  grid.push_back(k);
  const Value out = b.push(grid, static_cast<double>(k + 1), false);
  auto* node = b.node(op, {b.const_f32_random({n, k, k + 1}, -1, 1), b.const_i64(size)}, {out.name});
  if (rng.chance(60)) set_int(node, "align_corners", rng.below(2));
  return true;
}

// Attention (23/24), 4-D: Q a rank-4 value [B, Hq, Sq, D]; K, V constants [B, Hkv, Skv, D|Dv]
// with Hkv dividing Hq (grouped queries); is_causal only where Sq = Skv (the text's alignment of a
// causal mask for Sq != Skv is where backends part); a float mask in [-1, 0] sometimes; scale.
bool attention(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value q = of_rank(b, 4, 4, {rng.in(1, 2), rng.in(1, 2), rng.in(1, 4), rng.in(1, 4)});
  const int64_t bs = q.dims[0], hq = q.dims[1], sq = q.dims[2], d = q.dims[3];
  std::vector<int64_t> divisors;
  for (int64_t h = 1; h <= hq; ++h)
    if (hq % h == 0) divisors.push_back(h);
  const int64_t hkv = divisors[static_cast<size_t>(rng.below(static_cast<int>(divisors.size())))];
  const bool causal = rng.chance(30);
  const int64_t skv = causal ? sq : rng.in(1, 5), dv = rng.in(1, 4);
  std::vector<std::string> ins = {q.name, b.const_f32_random({bs, hkv, skv, d}, -1, 1),
                                  b.const_f32_random({bs, hkv, skv, dv}, -1, 1)};
  if (rng.chance(30)) ins.push_back(b.const_f32_random({sq, skv}, -1, 0));
  const Value out = b.push({bs, hq, sq, dv}, 1, false);
  auto* node = b.node(op, ins, {out.name});
  if (causal) set_int(node, "is_causal", 1);
  if (rng.chance(30)) set_float(node, "scale", 0.5f);
  return true;
}

// RotaryEmbedding (23), 4-D input [B, H, S, D] (D even; a rank-4 value whose last dim is even,
// else a new input), caches [P, R/2] gathered at position_ids [B, S] in [0, P), R the whole head or
// a smaller even rotary_embedding_dim; interleaved or not.
bool rotary_embedding(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  auto picked = pick(b, [](const Value& v) {
    return rank(v) == 4 && v.dims[3] % 2 == 0 && num_elements(v.dims) <= kMaxElements / 4;
  });
  const Value x =
      picked ? ready(b, *picked) : b.input({rng.in(1, 2), rng.in(1, 2), rng.in(1, 4), 2 * rng.in(1, 3)});
  const int64_t bs = x.dims[0], s = x.dims[2], d = x.dims[3];
  const int64_t rd = d > 2 && rng.chance(30) ? 2 * rng.in(1, static_cast<int>(d / 2) - 1) : d;
  const int64_t p = rng.in(static_cast<int>(s), static_cast<int>(s) + 4);
  std::vector<int64_t> pos(static_cast<size_t>(bs * s));
  for (auto& v : pos) v = rng.below(static_cast<int>(p));
  const Value out = b.push(x.dims, 2 * x.bound, false);
  auto* node = b.node(op,
                      {x.name, b.const_f32_random({p, rd / 2}, -1, 1), b.const_f32_random({p, rd / 2}, -1, 1),
                       b.const_i64_dims({bs, s}, pos)},
                      {out.name});
  if (rd != d) set_int(node, "rotary_embedding_dim", rd);
  if (rng.chance(50)) set_int(node, "interleaved", rng.below(2));
  return true;
}

// TensorScatter (24): a rank 3..4 cache written along its axis -2 (or that axis as a positive
// number) at write_indices (or 0) with a constant update of 1..max_seq rows, linear (every write
// inside the cache) or circular (wrapping). Data movement: exact.
bool tensor_scatter(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = of_rank(b, 3, 4, {rng.in(1, 2), rng.in(1, 2), rng.in(2, 5), rng.in(1, 4)});
  const int r = rank(x);
  const int64_t bs = x.dims[0], max_seq = x.dims[static_cast<size_t>(r - 2)];
  const int64_t seq = rng.in(1, static_cast<int>(max_seq));
  const bool circular = rng.chance(40);
  Dims ud = x.dims;
  ud[static_cast<size_t>(r - 2)] = seq;
  std::vector<std::string> ins = {x.name, b.const_f32_random(ud, -1, 1)};
  if (rng.chance(70)) {
    std::vector<int64_t> at(static_cast<size_t>(bs));
    for (auto& v : at)
      v = circular ? rng.below(static_cast<int>(max_seq)) : rng.in(0, static_cast<int>(max_seq - seq));
    ins.push_back(b.const_i64(at));
  }
  const Value out = b.push(x.dims, std::max(x.bound, 1.0), x.exact);
  auto* node = b.node(op, ins, {out.name});
  if (circular || rng.chance(30)) set_string(node, "mode", circular ? "circular" : "linear");
  if (rng.chance(30)) set_int(node, "axis", rng.chance(50) ? -2 : r - 2);
  return true;
}

// CumProd (26): along an axis of at most 8 elements of a value brought to [-1, 1] (a longer
// product underflows towards 0), the axis an int64 scalar or [1]; exclusive, reverse.
bool cum_prod(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = ready(b, any_value(b, 1), 1);
  std::vector<int> ok;
  for (int a = 0; a < rank(x); ++a)
    if (x.dims[static_cast<size_t>(a)] <= 8) ok.push_back(a);
  if (ok.empty()) return false;
  const int a = ok[static_cast<size_t>(rng.below(static_cast<int>(ok.size())))];
  const Value out = b.push(x.dims, 1, false);
  auto* node = b.node(op, {x.name, b.const_i64({axis_text(rng, a, rank(x))}, rng.chance(70))}, {out.name});
  if (rng.chance(40)) set_int(node, "exclusive", 1);
  if (rng.chance(40)) set_int(node, "reverse", 1);
  return true;
}

// DeformConv (19/22): a rank-4 value [N, C, H, W], kernel 1..3 within the padded image, strides 1..2,
// pads 0..1, group and offset_group 1 or C's divisors (oc a multiple of group); weights scaled by
// 1/fan-in, offsets in [-1, 1) (bilinear sampling with zeros outside: continuous), a bias and a
// mask in [0, 1) some of the time.
bool deform_conv(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = of_rank(b, 4, 4, {rng.in(1, 2), rng.in(1, 4), rng.in(2, 6), rng.in(2, 6)});
  const int64_t n = x.dims[0], c = x.dims[1];
  int64_t k[2], s[2], p[2], o[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t size = x.dims[static_cast<size_t>(2 + i)];
    p[i] = rng.in(0, 1);
    s[i] = rng.in(1, 2);
    k[i] = rng.in(1, static_cast<int>(std::min<int64_t>(3, size + 2 * p[i])));
    o[i] = (size + 2 * p[i] - k[i]) / s[i] + 1;
  }
  const int64_t group = rng.chance(30) ? c : 1, og = rng.chance(30) ? c : 1;
  const int64_t oc = group * rng.in(1, 2);
  const int64_t fan = (c / group) * k[0] * k[1];
  const float w = 1.0f / static_cast<float>(fan);
  std::vector<std::string> ins = {x.name, b.const_f32_random({oc, c / group, k[0], k[1]}, -w, w),
                                  b.const_f32_random({n, og * 2 * k[0] * k[1], o[0], o[1]}, -1, 1)};
  const bool bias = rng.chance(50), mask = rng.chance(40);
  if (bias || mask) ins.push_back(bias ? b.const_f32_random({oc}, -1, 1) : "");
  if (mask) ins.push_back(b.const_f32_random({n, og * k[0] * k[1], o[0], o[1]}, 0, 1));
  if (num_elements({n, oc, o[0], o[1]}) > kMaxElements) return false;
  const Value out = b.push({n, oc, o[0], o[1]}, x.bound + 1, false);
  auto* node = b.node(op, ins, {out.name});
  set_ints(node, "kernel_shape", {k[0], k[1]});
  if (s[0] != 1 || s[1] != 1 || rng.chance(20)) set_ints(node, "strides", {s[0], s[1]});
  if (p[0] || p[1] || rng.chance(20)) set_ints(node, "pads", {p[0], p[1], p[0], p[1]});
  if (group != 1) set_int(node, "group", group);
  if (og != 1) set_int(node, "offset_group", og);
  return true;
}

// ImageDecoder (20): an uncompressed 24-bit BMP of 1..6 x 1..6 random pixels (bottom-up rows padded
// to 4 bytes), decoded as RGB or BGR, cast to float and brought to [0, 1) (x / 256: exact).
bool image_decoder(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const int64_t h = rng.in(1, 6), w = rng.in(1, 6);
  const int64_t row = (3 * w + 3) / 4 * 4, data = row * h, size = 54 + data;
  std::vector<uint8_t> f(static_cast<size_t>(size), 0);
  auto put = [&](size_t at, uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) f[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
  };
  f[0] = 'B';
  f[1] = 'M';
  put(2, static_cast<uint32_t>(size), 4);
  put(10, 54, 4);
  put(14, 40, 4);
  put(18, static_cast<uint32_t>(w), 4);
  put(22, static_cast<uint32_t>(h), 4);
  put(26, 1, 2);
  put(28, 24, 2);
  put(34, static_cast<uint32_t>(data), 4);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < 3 * w; ++x)
      f[static_cast<size_t>(54 + y * row + x)] = static_cast<uint8_t>(rng.below(256));
  const std::string bytes = b.initializer(::onnx::TensorProto::UINT8, {size}, f.data(), f.size());
  const std::string img = b.fresh("v"), fl = b.fresh("v");
  auto* node = b.node(op, {bytes}, {img});
  if (rng.chance(60)) set_string(node, "pixel_format", rng.chance(50) ? "BGR" : "RGB");
  set_int(b.node("Cast", {img}, {fl}), "to", ::onnx::TensorProto::FLOAT);
  const Value out = b.push({h, w, 3}, 1, true);
  b.node("Mul", {fl, b.const_f32({}, {1.0f / 256})}, {out.name});
  return true;
}

// RegexFullMatch, StringConcat, StringSplit (20) of constant strings of decimal numbers, coming
// back as floats exactly: the match as a Cast of its bool; "-3" ++ ".25" cast to float; a split's
// lengths cast to float and, where every element has the same number of parts, the parts cast to
// float and settled to their dims.
bool string_other(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const int64_t n = rng.in(1, 4);
  auto number = [&] { return str_of(rng.in(-9, 9)); };
  if (op == "RegexFullMatch") {
    static const char* const kWords[] = {"12", "-3.5", "x7", "4.", "0.25", "abc", "-", "8e1"};
    std::vector<std::string> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(kWords[rng.below(8)]);
    const std::string m = b.fresh("v");
    auto* node = b.node(op, {b.const_strings({n}, v)}, {m});
    set_string(node, "pattern", rng.chance(50) ? "-?[0-9]+(\\.[0-9]+)?" : "[a-z]+[0-9]*");
    to_float(b, m, {n}, 1, true);
    return true;
  }
  if (op == "StringConcat") {
    static const char* const kTails[] = {".5", ".25", ".75", "", "e1", ".125"};
    std::vector<std::string> heads, tails;
    for (int64_t i = 0; i < n; ++i) heads.push_back(number());
    const bool one = rng.chance(30);
    for (int64_t i = 0; i < (one ? 1 : n); ++i) tails.push_back(kTails[rng.below(6)]);
    const std::string s = b.fresh("v");
    b.node(op, {b.const_strings({n}, heads), b.const_strings({one ? 1 : n}, tails)}, {s});
    to_float(b, s, {n}, 100, true);
    return true;
  }
  // StringSplit: k parts each (the same k for every element some of the time), "," or whitespace
  // runs (an empty delimiter); maxsplit sometimes.
  const bool comma = rng.chance(60), same = rng.chance(60);
  const int64_t k = rng.in(1, 3);
  std::vector<std::string> v;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t parts = same ? k : rng.in(1, 3);
    std::string s;
    for (int64_t j = 0; j < parts; ++j) s += (j ? (comma ? "," : "  ") : "") + number();
    v.push_back(s);
  }
  const std::string parts = b.fresh("v"), lengths = b.fresh("v");
  auto* node = b.node(op, {b.const_strings({n}, v)}, {parts, lengths});
  if (comma || rng.chance(30)) set_string(node, "delimiter", comma ? "," : "");
  const bool capped = rng.chance(30);
  if (capped) set_int(node, "maxsplit", 8);
  to_float(b, lengths, {n}, 3, true);
  if (same) {
    const std::string fl = b.fresh("v");
    set_int(b.node("Cast", {parts}, {fl}), "to", ::onnx::TensorProto::FLOAT);
    settle(b, fl, {n, k}, 9, true);
  }
  return true;
}

// CausalConvWithState (27): input [B, C, T] (a rank-3 value), depthwise weight [C, 1, K] (K 2..4,
// scaled by 1/K), a bias and a past_state [B, C, K-1] some of the time, activation none or silu;
// output and present_state.
bool causal_conv(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = of_rank(b, 3, 3, {rng.in(1, 2), rng.in(1, 4), rng.in(1, 6)});
  const int64_t bs = x.dims[0], c = x.dims[1], k = rng.in(2, 4);
  const float w = 1.0f / static_cast<float>(k);
  std::vector<std::string> ins = {x.name, b.const_f32_random({c, 1, k}, -w, w)};
  const bool bias = rng.chance(50), past = rng.chance(50);
  if (bias || past) ins.push_back(bias ? b.const_f32_random({c}, -1, 1) : "");
  if (past) ins.push_back(b.const_f32_random({bs, c, k - 1}, -1, 1));
  const Value out = b.push(x.dims, x.bound + 2, false);
  const Value state = b.push({bs, c, k - 1}, std::max(x.bound, 1.0), false);
  auto* node = b.node(op, ins, {out.name, state.name});
  if (rng.chance(50)) set_string(node, "activation", rng.chance(60) ? "silu" : "none");
  return true;
}

// LinearAttention (27), 3-D: query [B, S, Hq * Dk] (a rank-3 value whose last dim splits so),
// key [B, S, Hkv * Dk], value [B, S, Hkv * Dv] constants (keys and values scaled to keep the state
// small), update rule linear, gated (decay g <= 0 per head), delta (beta in [0, 1) per head) or
// gated_delta; a past_state sometimes; scale sometimes.
bool linear_attention(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value q = ready(b, of_rank(b, 3, 3, {rng.in(1, 2), rng.in(1, 4), 2 * rng.in(1, 3)}), 1);
  const int64_t bs = q.dims[0], s = q.dims[1], last = q.dims[2];
  const int64_t hq = last % 2 == 0 && rng.chance(40) ? 2 : 1, dk = last / hq;
  const int64_t hkv = hq == 2 && rng.chance(50) ? 1 : hq, dv = rng.in(1, 4);
  static const char* const kRules[] = {"linear", "gated", "delta", "gated_delta"};
  const std::string rule = kRules[rng.below(4)];
  const bool gated = rule == "gated" || rule == "gated_delta",
             delta = rule == "delta" || rule == "gated_delta";
  std::vector<std::string> ins = {q.name, b.const_f32_random({bs, s, hkv * dk}, -0.5f, 0.5f),
                                  b.const_f32_random({bs, s, hkv * dv}, -1, 1)};
  ins.push_back(rng.chance(40) ? b.const_f32_random({bs, hkv, dk, dv}, -1, 1) : "");
  ins.push_back(gated ? b.const_f32_random({bs, s, hkv}, -1, 0) : "");
  if (delta) ins.push_back(b.const_f32_random({bs, s, hkv}, 0, 1));
  while (ins.back().empty()) ins.pop_back();
  const double bound = static_cast<double>((s + 1) * dk) * 2;
  const Value out = b.push({bs, s, hq * dv}, bound, false);
  const Value state = b.push({bs, hkv, dk, dv}, bound, false);
  auto* node = b.node(op, ins, {out.name, state.name});
  set_int(node, "q_num_heads", hq);
  set_int(node, "kv_num_heads", hkv);
  if (rule != "gated_delta" || rng.chance(30)) set_string(node, "update_rule", rule);
  if (rng.chance(30)) set_float(node, "scale", 0.5f);
  return true;
}

// Upsample (7, 8: scales an attribute; 9: an input): nearest with integer scales 1..3 on any axes
// (the source index floor(x / s) is exact), or linear on a rank-2 value or the last two axes of a
// rank-4 one (asymmetric coordinates, continuous).
bool upsample(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const bool linear = (r == 2 || r == 4) && rng.chance(40);
  std::vector<float> scales(static_cast<size_t>(r), 1.0f);
  Dims dims = x.dims;
  for (int a = 0; a < r; ++a) {
    if (linear && r == 4 && a < 2) continue;
    if (rng.chance(60)) scales[static_cast<size_t>(a)] = static_cast<float>(rng.in(1, 3));
    dims[static_cast<size_t>(a)] *= static_cast<int64_t>(scales[static_cast<size_t>(a)]);
  }
  if (num_elements(dims) > kMaxElements) return false;
  std::vector<std::string> ins = {x.name};
  if (b.opset >= 9) ins.push_back(b.const_f32({r}, scales));
  const Value out = b.push(dims, x.bound, x.exact && !linear);
  auto* node = b.node(op, ins, {out.name});
  if (b.opset < 9) {
    auto* a = node->add_attribute();
    a->set_name("scales");
    a->set_type(::onnx::AttributeProto::FLOATS);
    for (float s : scales) a->add_floats(s);
  }
  if (linear || rng.chance(30)) set_string(node, "mode", linear ? "linear" : "nearest");
  return true;
}

}  // namespace plumb::hunt::gen::recipe
