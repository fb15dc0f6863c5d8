// Lowering rules for GridSample (16, 20, 22) and AffineGrid (20); registered from resize.cpp.
//
// GridSample: the grid is run-time data, so the sampling positions, tap indices and weights are
// computed in the graph, in f64 (the ONNX reference computes them in f32; f64 keeps the
// unnormalisation, the reflection arithmetic and the cubic weights, which subtract nearly equal
// terms, within one rounding of the exact values). Per spatial dim the pipeline is the ONNX
// reference's (onnx/reference/ops/op_grid_sample.py, after PyTorch's GridSampler.h):
//   x = unnormalize(grid);  nearest: x = round half to even (x)
//   x outside [x_min, x_max]: border -> clamp to [0, d-1]; reflection -> reflect into [x_min, x_max]
//   taps: nearest x; linear floor(x) + {0, 1}; cubic floor(x) + {-1, 0, 1, 2} (Keys, a = -0.75)
//   tap index outside [0, d-1]: zeros -> contributes 0; border -> clamped; reflection -> reflected
// with x_min, x_max = -0.5, d - 0.5 (align_corners = 0) or 0, d - 1 (align_corners = 1).
// Every combination of one tap per spatial dim is one gather (elements kind) from X flattened to
// [N, C, prod(d)]; its weight is the product of the per-dim weights. A tap that is out of range
// (or whose position is NaN) contributes exactly 0, whatever X holds there (plumb ruling: a NaN
// grid position samples nothing, in every padding mode).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;
using UK = ir::UnaryKind;

namespace {

using Ints = std::vector<int64_t>;
constexpr ir::DType kF64 = ir::DType::F64;
constexpr int64_t kMaxElements = int64_t{1} << 40;

enum class Interp { Nearest, Linear, Cubic };
enum class Padding { Zeros, Border, Reflection };

struct Sampler {
  LowerCtx& cx;
  ValueId like;  // an f64 [N, P] value: the shape of every per-dim array

  ValueId k(double v) { return splat(cx, v, like); }
  ValueId bin(ir::BinaryKind kind, ValueId a, ValueId b) { return cx.b.binary(kind, a, b); }
  ValueId cmp(ir::CompareKind kind, ValueId a, ValueId b) { return cx.b.compare(kind, a, b); }

  // _gs_reflect: reflect x by the near border until it lies in [lo, hi] (values inside unchanged).
  ValueId reflect(ValueId x, double lo, double hi) {
    const double range = hi - lo;
    if (range <= 0) return cx.b.select(cmp(CK::Eq, x, x), k(lo), x);  // a one-point range; NaN stays
    auto fold = [&](ValueId dx, bool below) {
      ValueId n = cx.b.unary(UK::Floor, bin(BK::Div, dx, k(range)));  // dx >= 0: floor = trunc
      ValueId r = bin(BK::Sub, dx, bin(BK::Mul, n, k(range)));
      ValueId half = cx.b.unary(UK::Floor, bin(BK::Div, n, k(2)));
      ValueId even = cmp(CK::Eq, bin(BK::Sub, n, bin(BK::Mul, half, k(2))), k(0));
      ValueId from_lo = bin(BK::Add, k(lo), r), from_hi = bin(BK::Sub, k(hi), r);
      return below ? cx.b.select(even, from_lo, from_hi) : cx.b.select(even, from_hi, from_lo);
    };
    ValueId low = fold(bin(BK::Sub, k(lo), x), true);
    ValueId high = fold(bin(BK::Sub, x, k(hi)), false);
    return cx.b.select(cmp(CK::Lt, x, k(lo)), low, cx.b.select(cmp(CK::Gt, x, k(hi)), high, x));
  }

  ValueId clamp(ValueId x, double lo, double hi) { return bin(BK::Min, bin(BK::Max, x, k(lo)), k(hi)); }
};

// Keys' cubic weights for the taps floor(x) - 1 .. floor(x) + 2 at fraction f in [0, 1).
std::vector<ValueId> cubic_weights(Sampler& s, ValueId f) {
  const double a = -0.75;
  auto outer = [&](ValueId t) {  // ((a t - 5a) t + 8a) t - 4a, for t in [1, 2)
    ValueId v = s.bin(BK::Sub, s.bin(BK::Mul, s.k(a), t), s.k(5 * a));
    v = s.bin(BK::Add, s.bin(BK::Mul, v, t), s.k(8 * a));
    return s.bin(BK::Sub, s.bin(BK::Mul, v, t), s.k(4 * a));
  };
  auto inner = [&](ValueId t) {  // ((a + 2) t - (a + 3)) t t + 1, for t in [0, 1]
    ValueId v = s.bin(BK::Sub, s.bin(BK::Mul, s.k(a + 2), t), s.k(a + 3));
    return s.bin(BK::Add, s.bin(BK::Mul, s.bin(BK::Mul, v, t), t), s.k(1));
  };
  ValueId one_minus = s.bin(BK::Sub, s.k(1), f);
  return {outer(s.bin(BK::Add, f, s.k(1))), inner(f), inner(one_minus), outer(s.bin(BK::Sub, s.k(2), f))};
}

struct Taps {
  std::vector<ValueId> index;   // i64 [N, P], always in [0, d)
  std::vector<ValueId> valid;   // bool [N, P]
  std::vector<ValueId> weight;  // f64 [N, P] (empty for nearest)
};

Taps dim_taps(Sampler& s, ValueId g, int64_t d, Interp interp, Padding pad, bool align) {
  const double len = static_cast<double>(d);
  // Unnormalise: align_corners maps -1, 1 to the corner pixel centres, else to their outer edges.
  ValueId x =
      align ? s.bin(BK::Mul, s.bin(BK::Div, s.bin(BK::Add, g, s.k(1)), s.k(2)), s.k(len - 1))
            : s.bin(BK::Div, s.bin(BK::Sub, s.bin(BK::Mul, s.bin(BK::Add, g, s.k(1)), s.k(len)), s.k(1)),
                    s.k(2));
  if (interp == Interp::Nearest) x = s.cx.b.unary(UK::Round, x);  // ties to even, as PyTorch
  const double lo = align ? 0.0 : -0.5, hi = align ? len - 1 : len - 0.5;
  if (pad == Padding::Border)
    x = s.cx.b.select(s.cmp(CK::Lt, x, s.k(lo)), s.k(0),
                      s.cx.b.select(s.cmp(CK::Gt, x, s.k(hi)), s.k(len - 1), x));
  if (pad == Padding::Reflection) x = s.reflect(x, lo, hi);

  std::vector<ValueId> pos, w;
  if (interp == Interp::Nearest) {
    pos.push_back(x);
  } else {
    ValueId x0 = s.cx.b.unary(UK::Floor, x);
    ValueId f = s.bin(BK::Sub, x, x0);
    if (interp == Interp::Linear) {
      pos = {x0, s.bin(BK::Add, x0, s.k(1))};
      w = {s.bin(BK::Sub, s.k(1), f), f};
    } else {
      for (int j = -1; j <= 2; ++j) pos.push_back(s.bin(BK::Add, x0, s.k(j)));
      w = cubic_weights(s, f);
    }
  }
  Taps t;
  t.weight = w;
  for (ValueId p : pos) {
    if (pad == Padding::Border) p = s.clamp(p, 0, len - 1);
    if (pad == Padding::Reflection) p = s.reflect(p, lo, hi);
    ValueId ok = s.bin(BK::And, s.cmp(CK::Ge, p, s.k(0)), s.cmp(CK::Le, p, s.k(len - 1)));
    t.valid.push_back(ok);
    t.index.push_back(s.cx.b.cast(s.cx.b.select(ok, p, s.k(0)), ir::DType::I64));  // in range: exact
  }
  return t;
}

// f64 -> integer dtype `dt`: saturated, then truncated toward zero (ONNX: "cast to integer at the end").
ValueId f64_to_int_trunc(LowerCtx& cx, ValueId v, ir::DType dt) {
  const auto [lo, hi] = f64_int_range(dt);
  v = cx.b.binary(BK::Max, v, splat(cx, lo, v));
  v = cx.b.binary(BK::Min, v, splat(cx, hi, v));
  return cx.b.cast(v, dt);
}

Status lower_grid_sample(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId grid, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const bool v16 = cx.opset() < 20;
  const std::string what = "GridSample-" + std::to_string(cx.opset());
  PLUMB_ASSIGN_OR_RETURN(std::string mode, n.attr_string("mode", v16 ? "bilinear" : "linear"));
  PLUMB_ASSIGN_OR_RETURN(std::string padding, n.attr_string("padding_mode", "zeros"));
  PLUMB_ASSIGN_OR_RETURN(int64_t align_attr, n.attr_int("align_corners", 0));
  Interp interp;
  if (mode == (v16 ? "bilinear" : "linear"))
    interp = Interp::Linear;
  else if (mode == "nearest")
    interp = Interp::Nearest;
  else if (mode == (v16 ? "bicubic" : "cubic"))
    interp = Interp::Cubic;
  else
    return cx.invalid(what + ": unknown mode '" + mode + "'");
  Padding pad;
  if (padding == "zeros")
    pad = Padding::Zeros;
  else if (padding == "border")
    pad = Padding::Border;
  else if (padding == "reflection")
    pad = Padding::Reflection;
  else
    return cx.invalid(what + ": unknown padding_mode '" + padding + "'");
  const bool align = align_attr != 0;

  const ir::Type xt = cx.type(x), gt = cx.type(grid);
  if (!xt.ranked || !gt.ranked || !ir::shape_is_static(xt.shape) || !ir::shape_is_static(gt.shape))
    return cx.unsupported(what + " with symbolic dimensions");
  const int64_t rank = static_cast<int64_t>(xt.shape.size());
  if (rank < 3 || static_cast<int64_t>(gt.shape.size()) != rank)
    return cx.invalid(what + ": X and grid must have the same rank >= 3");
  if (v16 && rank != 4) return cx.invalid(what + ": only 4-D input is defined at opset 16");
  const int64_t r = rank - 2;
  const int64_t N = xt.shape[0].size, C = xt.shape[1].size;
  if (gt.shape[0].size != N || gt.shape[rank - 1].size != r)
    return cx.invalid(what + ": grid shape " + ir::shape_to_string(gt.shape) + " does not match X " +
                      ir::shape_to_string(xt.shape));
  if (!ir::is_float(gt.dtype)) return cx.invalid(what + ": grid must be a float tensor");
  const ir::DType dt = xt.dtype;
  if (interp != Interp::Nearest && !ir::is_float(dt) && !ir::is_int(dt))
    return cx.unsupported(what + " interpolation of " + std::string(ir::dtype_name(dt)));
  Ints spatial, out_shape = {N, C};
  int64_t S = 1, P = 1;
  for (int64_t i = 0; i < r; ++i) {
    spatial.push_back(xt.shape[2 + i].size);
    S *= spatial.back();
    out_shape.push_back(gt.shape[1 + i].size);
    P *= out_shape.back();
  }
  if (N * C > 0 && P > kMaxElements / (N * C)) return cx.invalid(what + ": output too large");
  if (N == 0 || C == 0 || P == 0) {
    cx.set_output(n, 0, cx.b.broadcast(scalar_like(cx, 0, x), cx.b.shape_const(out_shape), {}));
    return cx.error();
  }
  if (S == 0) return cx.invalid(what + ": X has an empty spatial dimension");

  // Grid components as f64 [N, P]; grid[..., 0] indexes the innermost spatial dim.
  ValueId g =
      cx.b.reshape(cx.type(grid).dtype == kF64 ? grid : cx.b.cast(grid, kF64), cx.b.shape_const({N, P, r}));
  Sampler s{cx, ir::kNoValue};
  std::vector<Taps> taps(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) {
    ValueId comp = cx.b.emit1(ir::SliceAttrs{}, {g, cx.b.shape_const({0, 0, r - 1 - i}),
                                                 cx.b.shape_const({N, P, 1}), cx.b.shape_const({1, 1, 1})});
    comp = cx.b.reshape(comp, cx.b.shape_const({N, P}));
    s.like = comp;
    taps[i] = dim_taps(s, comp, spatial[i], interp, pad, align);
  }

  // X as [N, C, S] (f64 unless nearest, which copies elements).
  ValueId xs = cx.b.reshape(x, cx.b.shape_const({N, C, S}));
  if (interp != Interp::Nearest && dt != kF64) xs = cx.b.cast(xs, kF64);
  ValueId nc_shape = cx.b.shape_const({N, C, P});
  auto spread = [&](ValueId v) { return cx.b.broadcast(v, nc_shape, {0, 2}); };
  ValueId zero = cx.b.broadcast(scalar_like(cx, 0, xs), nc_shape, {});
  const int64_t per = static_cast<int64_t>(taps[0].index.size());
  int64_t combos = 1;
  for (int64_t i = 0; i < r; ++i) combos *= per;
  ValueId acc = ir::kNoValue;
  for (int64_t c = 0; c < combos; ++c) {
    ValueId flat = ir::kNoValue, ok = ir::kNoValue, w = ir::kNoValue;
    int64_t rest = c, stride = S;
    for (int64_t i = 0; i < r; ++i) {
      const size_t j = static_cast<size_t>(rest % per);
      rest /= per;
      stride /= spatial[i];
      ValueId term =
          cx.b.binary(BK::Mul, taps[i].index[j],
                      cx.b.broadcast(cx.b.scalar_int(ir::DType::I64, stride), cx.b.shape_const({N, P}), {}));
      flat = i == 0 ? term : cx.b.binary(BK::Add, flat, term);
      ok = i == 0 ? taps[i].valid[j] : cx.b.binary(BK::And, ok, taps[i].valid[j]);
      if (interp != Interp::Nearest)
        w = i == 0 ? taps[i].weight[j] : cx.b.binary(BK::Mul, w, taps[i].weight[j]);
    }
    ValueId got = cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Elements, 2, 0}, {xs, spread(flat)});
    if (interp != Interp::Nearest) got = cx.b.binary(BK::Mul, spread(w), got);
    got = cx.b.select(spread(ok), got, zero);
    acc = c == 0 ? got : cx.b.binary(BK::Add, acc, got);
  }
  ValueId y = cx.b.reshape(acc, cx.b.shape_const(out_shape));
  if (interp != Interp::Nearest && dt != kF64)
    y = ir::is_int(dt) ? f64_to_int_trunc(cx, y, dt) : cx.b.cast(y, dt, /*saturate=*/true);
  cx.set_output(n, 0, y);
  return cx.error();
}

// AffineGrid-20: grid[n, .., :] = theta[n] @ [x, y, (z,) 1] over a base grid spanning [-1, 1];
// computed in f64 (a matmul of the f64 base grid with theta widened exactly), rounded once.
Status lower_affine_grid(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId theta, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t align_attr, n.attr_int("align_corners", 0));
  const bool align = align_attr != 0;
  auto size = cx.const_ints(n, 1);
  if (!size) return cx.needs_build_time(n, 1, "AffineGrid size");
  const Ints& sz = *size;
  if (sz.size() != 4 && sz.size() != 5) return cx.invalid("AffineGrid size must have 4 or 5 elements");
  const int64_t r = static_cast<int64_t>(sz.size()) - 2;
  const ir::Type tt = cx.type(theta);
  if (!ir::is_float(tt.dtype)) return cx.invalid("AffineGrid theta must be a float tensor");
  if (!tt.ranked || tt.shape.size() != 3 || !ir::shape_is_static(tt.shape) || tt.shape[0].size != sz[0] ||
      tt.shape[1].size != r || tt.shape[2].size != r + 1)
    return cx.invalid("AffineGrid theta shape " + ir::shape_to_string(tt.shape) + " does not match size");
  for (int64_t v : sz)
    if (v < 0) return cx.invalid("AffineGrid size must not be negative");
  const int64_t N = sz[0];
  Ints dims(sz.begin() + 2, sz.end());  // (D,) H, W
  int64_t M = 1;
  for (int64_t d : dims) {
    if (d > 0 && M > (int64_t{1} << 32) / d) return cx.invalid("AffineGrid size too large");
    M *= d;
  }
  // Base positions along a dim of length L: align_corners: -1 + i * 2 / (L - 1) (-1 when L = 1, as
  // the ONNX function body's zero step gives); otherwise the pixel centres -1 + (2i + 1) / L.
  auto pos = [&](int64_t i, int64_t len) {
    if (align) return len == 1 ? -1.0 : -1.0 + static_cast<double>(i) * 2.0 / static_cast<double>(len - 1);
    return -1.0 + static_cast<double>(2 * i + 1) / static_cast<double>(len);
  };
  std::vector<double> base;
  base.reserve(static_cast<size_t>(M * (r + 1)));
  for (int64_t m = 0; m < M; ++m) {
    Ints idx(static_cast<size_t>(r));
    int64_t rest = m;
    for (int64_t i = r - 1; i >= 0; --i) {
      idx[i] = rest % dims[i];
      rest /= dims[i];
    }
    for (int64_t i = r - 1; i >= 0; --i) base.push_back(pos(idx[i], dims[i]));  // x (innermost) first
    base.push_back(1.0);
  }
  ValueId b = cx.b.const_floats(kF64, {1, M, r + 1}, base);
  b = cx.b.broadcast(b, cx.b.shape_const({N, M, r + 1}), {0, 1, 2});
  ValueId th = tt.dtype == kF64 ? theta : cx.b.cast(theta, kF64);
  ValueId g = cx.b.matmul(b, cx.b.transpose(th, {0, 2, 1}), kF64);  // [N, M, r]
  Ints out_shape = {N};
  out_shape.insert(out_shape.end(), dims.begin(), dims.end());
  out_shape.push_back(r);
  g = cx.b.reshape(g, cx.b.shape_const(out_shape));
  if (tt.dtype != kF64) g = cx.b.cast(g, tt.dtype, /*saturate=*/true);
  cx.set_output(n, 0, g);
  return cx.error();
}

}  // namespace

void register_grid_sample(Registry& r) {
  r.add_since({{"GridSample", 16, lower_grid_sample}, {"AffineGrid", 20, lower_affine_grid}});
}

}  // namespace plumb::lower
