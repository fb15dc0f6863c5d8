// plumb gen's recipes for layout ops (DepthToSpace, SpaceToDepth, Einsum), the normalizations
// beyond BatchNormalization and LayerNormalization (InstanceNormalization, LRN, LpNormalization,
// MeanVarianceNormalization), LpPool / GlobalLpPool, Resize, Det and the window functions
// (hunt/gen_recipe.h; the rules common to all recipes are at the top of gen_ops.cpp).
// Normalizations read a ramped input (spread()) so that no variance or norm is a cancellation;
// Resize's nearest mode gets power-of-two scales only, where every backend computes the source
// coordinate exactly (a tie of round_prefer_floor is then a tie everywhere).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

bool depth_space(Builder& b, const std::string& op) {
  const bool to_space = op == "DepthToSpace";
  const int64_t bs = b.rng.chance(80) ? 2 : 3;
  auto v = pick(b, [&](const Value& x) {
    if (rank(x) != 4) return false;
    return to_space ? x.dims[1] % (bs * bs) == 0 : x.dims[2] % bs == 0 && x.dims[3] % bs == 0;
  });
  const Value x =
      v ? ready(b, *v)
        : b.input(to_space ? Dims{b.rng.in(1, 2), bs * bs * b.rng.in(1, 2), b.rng.in(1, 3), b.rng.in(1, 3)}
                           : Dims{b.rng.in(1, 2), b.rng.in(1, 3), bs * b.rng.in(1, 3), bs * b.rng.in(1, 3)});
  Dims dims = x.dims;
  if (to_space)
    dims[1] /= bs * bs, dims[2] *= bs, dims[3] *= bs;
  else
    dims[1] *= bs * bs, dims[2] /= bs, dims[3] /= bs;
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node(op, {x.name}, {out.name});
  set_int(node, "blocksize", bs);
  if (to_space && b.rng.chance(50)) set_string(node, "mode", b.rng.chance(50) ? "CRD" : "DCR");
  return true;
}

// Einsum of x (letters a, b, c, ...) as exports write it: a permutation, a sum over some letters,
// a contraction of the last letter with a constant (batch letters shared or not, sometimes through
// "..."), an elementwise product with a constant of the trailing dims, an outer product.
bool einsum(Builder& b, const std::string&) {
  const Value x = ready(b, of_rank(b, 1, 4, {b.rng.in(1, 4), b.rng.in(1, 4)}));
  const int r = rank(x);
  std::string in;
  for (int i = 0; i < r; ++i) in += static_cast<char>('a' + i);
  const int form = b.rng.below(5);
  std::string eq;
  Dims out_dims;
  std::vector<std::string> ins = {x.name};
  double bound = x.bound;
  bool exact = false;
  if (form == 0) {  // permutation
    std::string out = in;
    for (int i = r - 1; i > 0; --i)
      std::swap(out[static_cast<size_t>(i)], out[static_cast<size_t>(b.rng.below(i + 1))]);
    eq = in + "->" + out;
    for (char c : out) out_dims.push_back(x.dims[static_cast<size_t>(c - 'a')]);
    exact = x.exact;
  } else if (form == 1) {  // sum over some letters
    std::string out;
    double n = 1;
    for (int i = 0; i < r; ++i) {
      if (b.rng.chance(50)) {
        out += in[static_cast<size_t>(i)];
        out_dims.push_back(x.dims[static_cast<size_t>(i)]);
      } else {
        n *= static_cast<double>(x.dims[static_cast<size_t>(i)]);
      }
    }
    eq = in + "->" + out;
    bound = x.bound * n;
  } else if (form == 2) {  // contraction of the last letter with a constant [.., K, N]
    const int64_t k = x.dims.back(), n = b.rng.in(1, 4);
    const bool batched = r >= 3 && b.rng.chance(50);
    const bool ellipsis = !batched && r >= 2 && b.rng.chance(40);
    std::string w, out;
    Dims wdims;
    if (batched) {
      w = in.substr(0, static_cast<size_t>(r - 2));
      wdims.assign(x.dims.begin(), x.dims.end() - 2);
    }
    w += in.back();
    w += 'z';
    wdims.push_back(k), wdims.push_back(n);
    out = in.substr(0, static_cast<size_t>(r - 1)) + "z";
    out_dims.assign(x.dims.begin(), x.dims.end() - 1);
    out_dims.push_back(n);
    if (num_elements(out_dims) > kMaxElements) return false;
    std::string lhs = in;
    if (ellipsis) lhs = "..." + in.substr(static_cast<size_t>(r - 1)), out = "...z";
    eq = lhs + "," + w + "->" + out;
    const float scale = 1.0f / static_cast<float>(k);
    ins.push_back(b.const_f32_random(wdims, -scale, scale));
  } else if (form == 3) {  // elementwise with the trailing dims
    const size_t len = static_cast<size_t>(b.rng.in(1, r));
    const std::string w = in.substr(in.size() - len);
    eq = in + "," + w + "->" + in;
    ins.push_back(
        b.const_f32_random(Dims(x.dims.end() - static_cast<std::ptrdiff_t>(len), x.dims.end()), -1, 1));
    out_dims = x.dims;
  } else {  // outer product with a vector
    const int64_t n = b.rng.in(1, 3);
    out_dims = x.dims;
    out_dims.push_back(n);
    if (num_elements(out_dims) > kMaxElements) return false;
    eq = in + ",z->" + in + "z";
    ins.push_back(b.const_f32_random({n}, -1, 1));
  }
  const Value out = b.push(out_dims, bound, exact);
  set_string(b.node("Einsum", ins, {out.name}), "equation", eq);
  return true;
}

namespace {

// GroupNorm as torch exports it before opset 18: x [N, C, ...] reshaped to [N, G, -1],
// InstanceNormalization with scale 1 and bias 0 per group, reshaped back, then Mul by gamma and Add
// beta of dims [C, 1, ...]; the ramp goes over each group's elements.
bool group_norm(Builder& b, const Value& x) {
  const int64_t nb = x.dims[0], c = x.dims[1];
  std::vector<int64_t> groups;
  for (int64_t g = 1; g <= c; ++g)
    if (c % g == 0) groups.push_back(g);
  const int64_t g = groups[static_cast<size_t>(b.rng.below(static_cast<int>(groups.size())))];
  const int64_t m = num_elements(x.dims) / (nb * g);
  const Value grouped = reshape(b, x, {nb, g, m});
  const Value in = spread(b, grouped, 2);
  const std::string normed = b.fresh("v");
  b.node("InstanceNormalization",
         {in.name, b.const_f32({g}, std::vector<float>(static_cast<size_t>(g), 1.0f)),
          b.const_f32({g}, std::vector<float>(static_cast<size_t>(g), 0.0f))},
         {normed});
  const double bound = std::sqrt(static_cast<double>(m));
  const Value back = reshape(b, Value{normed, {nb, g, m}, bound, false}, x.dims);
  Dims pdims(x.dims.size() - 1, 1);
  pdims[0] = c;
  const std::string scaled = b.fresh("v");
  b.node("Mul", {back.name, b.const_f32_random(pdims, 0.5f, 1.5f)}, {scaled});
  const Value out = b.push(x.dims, bound * 1.5 + 0.5, false);
  b.node("Add", {scaled, b.const_f32_random(pdims, -0.5f, 0.5f)}, {out.name});
  return true;
}

}  // namespace

// InstanceNormalization (alone, or inside GroupNorm as exports before 18 spell it), LRN,
// LpNormalization, MeanVarianceNormalization.
bool norm_extra(Builder& b, const std::string& op) {
  // LRN: onnxruntime's kernel takes 4-D inputs only.
  const int lo = op == "LpNormalization" ? 1 : (op == "LRN" ? 4 : 3);
  const Value x = of_rank(b, lo, 4, {b.rng.in(1, 2), b.rng.in(1, 4), b.rng.in(3, 7), b.rng.in(3, 7)});
  const int r = rank(x);
  if (op == "InstanceNormalization") {
    // One spatial element: its variance is 0 and 1 / sqrt(epsilon) amplifies the rounding of any
    // formulation (onnxruntime's x * s + (B - mean * s) is off by 1e-5 where ref gives B): left out.
    const double n = static_cast<double>(num_elements(Dims(x.dims.begin() + 2, x.dims.end())));
    if (n < 2) return false;
    const int64_t c = x.dims[1];
    if (c >= 2 && b.rng.chance(35)) return group_norm(b, x);
    const Value in = spread(b, x, 2);
    const Value out = b.push(x.dims, std::sqrt(n) * 1.5 + 0.5, false);
    auto* node = b.node(
        op, {in.name, b.const_f32_random({c}, 0.5f, 1.5f), b.const_f32_random({c}, -0.5f, 0.5f)}, {out.name});
    if (b.rng.chance(30)) set_float(node, "epsilon", 1e-3f);
    return true;
  }
  if (op == "LRN") {
    const int64_t size = 2 * b.rng.in(0, 2) + 1;
    const Value out = b.push(x.dims, x.bound, false);
    auto* node = b.node(op, {x.name}, {out.name});
    set_int(node, "size", size);
    const float alphas[] = {1e-4f, 1e-3f, 0.01f}, betas[] = {0.75f, 0.5f}, biases[] = {1.0f, 2.0f};
    if (b.rng.chance(60)) set_float(node, "alpha", alphas[b.rng.below(3)]);
    if (b.rng.chance(60)) set_float(node, "beta", betas[b.rng.below(2)]);
    if (b.rng.chance(60)) set_float(node, "bias", biases[b.rng.below(2)]);
    return true;
  }
  if (op == "LpNormalization") {
    // Along an axis of at least 2 elements, so that the ramp makes the norm at least 1/2.
    std::vector<int> axes;
    for (int i = 0; i < r; ++i)
      if (x.dims[static_cast<size_t>(i)] >= 2) axes.push_back(i);
    if (axes.empty()) return false;
    const int a = axes[static_cast<size_t>(b.rng.below(static_cast<int>(axes.size())))];
    const Value in = spread(b, x, a);
    const Value out = b.push(x.dims, 1, false);
    auto* node = b.node(op, {in.name}, {out.name});
    if (a != r - 1 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
    if (b.rng.chance(50)) set_int(node, "p", b.rng.chance(50) ? 1 : 2);
    return true;
  }
  // MeanVarianceNormalization over [0, 2, 3] (the default) or the trailing axes from some a on,
  // with a ramp over the dims it reduces per slice (H, W; the trailing ones): its mean is then
  // about x's, at most the bound, while the ramp keeps the deviation at least 1/2. (A ramp over
  // dims the slices do not share made |mean| >> deviation, and the text's E[x^2] - E[x]^2, which
  // onnxruntime computes in float, cancelled: plumb gen, issue 22.)
  const bool dflt = r == 4 && b.rng.chance(50);
  const int from = dflt ? 2 : b.rng.in(0, r - 1);
  std::vector<int64_t> axes;
  if (dflt) axes = {0, 2, 3};
  for (int i = from; i < r && !dflt; ++i) axes.push_back(i);
  const int64_t n = num_elements(Dims(x.dims.begin() + from, x.dims.end()));
  if (n < 2) return false;
  const Value in = spread(b, x, from);
  const Value out = b.push(x.dims, std::sqrt(static_cast<double>(num_elements(x.dims))) + 1, false);
  auto* node = b.node(op, {in.name}, {out.name});
  if (!dflt || b.rng.chance(30)) set_ints(node, "axes", axes);
  return true;
}

bool lp_pool(Builder& b, const std::string& op) {
  const Value x = of_rank(b, 3, 4, image_dims(b.rng));
  const int64_t p = b.rng.in(1, 3);
  if (op == "GlobalLpPool") {
    Dims dims = x.dims;
    double n = 1;
    for (size_t i = 2; i < dims.size(); ++i) n *= static_cast<double>(dims[i]), dims[i] = 1;
    const Value out = b.push(dims, x.bound * n, false);
    auto* node = b.node(op, {x.name}, {out.name});
    if (p != 2 || b.rng.chance(30)) set_int(node, "p", p);
    return true;
  }
  Dims dims = {x.dims[0], x.dims[1]};
  std::vector<int64_t> kernel, strides, pb, pe;
  double n = 1;
  for (size_t i = 2; i < x.dims.size(); ++i) {
    const Window w = window(b.rng, x.dims[i], false);
    kernel.push_back(w.k), strides.push_back(w.s), pb.push_back(w.pb), pe.push_back(w.pe);
    dims.push_back(w.out);
    n *= static_cast<double>(w.k);
  }
  const Value out = b.push(dims, x.bound * n, false);
  auto* node = b.node(op, {x.name}, {out.name});
  set_ints(node, "kernel_shape", kernel);
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; }) || b.rng.chance(30))
    set_ints(node, "strides", strides);
  set_padding(b, node, false, pb, pe);
  if (p != 2 || b.rng.chance(30)) set_int(node, "p", p);
  return true;
}

// Resize of the spatial dims of an image batch: nearest (power-of-two scales, every nearest_mode),
// linear and cubic (any scale in {1/2, 1, 3/2, 2, 3}; cubic_coeff_a, exclude_outside), every
// coordinate_transformation_mode but tf_crop_and_resize; scales or sizes.
bool resize(Builder& b, const std::string&) {
  const Value x = of_rank(b, 4, 4, {1, b.rng.in(1, 3), b.rng.in(2, 5), b.rng.in(2, 5)});
  static const char* const kModes[] = {"nearest", "linear", "cubic"};
  const std::string mode = kModes[b.rng.below(3)];
  const bool nearest = mode == "nearest";
  std::vector<float> scales = {1, 1};
  Dims dims = {x.dims[0], x.dims[1]};
  for (size_t i = 2; i < 4; ++i) {
    const float pow2[] = {0.5f, 1.0f, 2.0f, 4.0f}, any[] = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f};
    float s = nearest ? pow2[b.rng.below(4)] : any[b.rng.below(5)];
    int64_t o = static_cast<int64_t>(std::floor(static_cast<double>(x.dims[i]) * s));
    if (o < 1) s = 1, o = x.dims[i];
    // Downscales of odd sizes give a scale other than 1/2 when sizes are given: kept exact.
    if (s == 0.5f && x.dims[i] % 2 != 0) s = 1, o = x.dims[i];
    scales.push_back(s), dims.push_back(o);
  }
  if (num_elements(dims) > kMaxElements) return false;
  static const char* const kCoords[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"};
  const std::string coords = kCoords[b.rng.below(nearest ? 2 : 4)];
  std::vector<std::string> ins = {x.name, ""};
  if (b.rng.chance(60)) {
    ins.push_back(b.const_f32({4}, scales));
  } else {
    ins.push_back("");
    ins.push_back(b.const_i64(dims));
  }
  const Value out = b.push(dims, mode == "cubic" ? x.bound * 2 : x.bound, nearest && x.exact);
  auto* node = b.node("Resize", ins, {out.name});
  if (!nearest || b.rng.chance(30)) set_string(node, "mode", mode);
  if (coords != "half_pixel" || b.rng.chance(30)) set_string(node, "coordinate_transformation_mode", coords);
  if (nearest && b.rng.chance(70)) {
    static const char* const kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    set_string(node, "nearest_mode", kNearest[b.rng.below(4)]);
  }
  if (mode == "cubic") {
    if (b.rng.chance(50)) set_float(node, "cubic_coeff_a", -0.5f);
    if (b.rng.chance(30)) set_int(node, "exclude_outside", 1);
  }
  return true;
}

// Det of [.., n, n] (n 1 to 3), the input scaled to [-1, 1] so that the terms' rounding stays far
// below the tolerance whatever cancels.
bool det(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) {
    return rank(x) >= 2 && rank(x) <= 3 && x.dims[x.dims.size() - 1] == x.dims[x.dims.size() - 2] &&
           x.dims.back() <= 3;
  });
  const int64_t n = b.rng.in(1, 3);
  const Value x = ready(b, v ? *v : b.input(b.rng.chance(50) ? Dims{n, n} : Dims{b.rng.in(1, 3), n, n}), 1);
  const Dims dims(x.dims.begin(), x.dims.end() - 2);
  const Value out = b.push(dims, 6, false);
  b.node("Det", {x.name}, {out.name});
  return true;
}

// HannWindow, HammingWindow, BlackmanWindow (opset 17): a size 2..8 scalar, periodic or symmetric;
// the window multiplies a value whose last dim it matches when there is one.
bool window_fn(Builder& b, const std::string& op) {
  const int64_t n = b.rng.in(2, 8);
  const std::string w = b.fresh("v");
  auto* node = b.node(op, {b.const_i64({n}, true)}, {w});
  if (b.rng.chance(50)) set_int(node, "periodic", b.rng.below(2));
  auto v = pick(b, [&](const Value& x) { return rank(x) >= 1 && x.dims.back() == n; });
  if (!v) {
    const Value out = b.push({n}, 1, false);
    b.node("Identity", {w}, {out.name});
    return true;
  }
  const Value x = ready(b, *v);
  const Value out = b.push(x.dims, x.bound, false);
  b.node("Mul", {x.name, w}, {out.name});
  return true;
}

}  // namespace plumb::hunt::gen::recipe
