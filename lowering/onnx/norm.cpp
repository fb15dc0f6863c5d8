// ONNX normalisations: BatchNormalization InstanceNormalization LayerNormalization
// GroupNormalization RMSNormalization LRN LpNormalization MeanVarianceNormalization (Dropout, random
// in training, is in random.cpp).
// Every one is a composite (means, variances, square roots, divisions) and is computed in f64 and
// rounded once to the output dtype (cast with saturate): the result then differs from the exact
// one by one final rounding, whatever the input dtype, and f16/bf16 inputs do not lose precision
// in the intermediate sums.
#include <algorithm>
#include <cmath>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;

namespace {

using Ints = std::vector<int64_t>;
constexpr ir::DType kF64 = ir::DType::F64;

ValueId bin(LowerCtx& cx, ir::BinaryKind k, ValueId a, ValueId b) { return cx.b.binary(k, a, b); }

// Broadcasts `v` (whose dims are `like`'s dims `dims`) to `like`'s shape.
ValueId expand(LowerCtx& cx, ValueId v, ValueId like, const Ints& dims) {
  return cx.b.broadcast(v, shape_value(cx, like), dims);
}

Ints complement(int64_t r, const Ints& axes) {
  Ints keep;
  for (int64_t i = 0; i < r; ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) keep.push_back(i);
  return keep;
}

// Mean of f64 `v` over `axes`, broadcast back to v's shape.
ValueId mean_full(LowerCtx& cx, ValueId v, const Ints& axes) {
  if (axes.empty()) return v;
  ValueId sum = cx.b.reduce(ir::ReduceKind::Sum, v, axes);
  ValueId count = cx.b.reduce(ir::ReduceKind::Sum, splat(cx, 1.0, v), axes);
  return expand(cx, bin(cx, BK::Div, sum, count), v, complement(rank_of(cx, v), axes));
}

// 1 / sqrt(var + eps), var = mean((v - m)^2); `centered` = v - m.
ValueId inv_std(LowerCtx& cx, ValueId centered, const Ints& axes, double eps) {
  ValueId var = mean_full(cx, bin(cx, BK::Mul, centered, centered), axes);
  ValueId sd = cx.b.unary(UK::Sqrt, bin(cx, BK::Add, var, splat(cx, eps, var)));
  return bin(cx, BK::Div, splat(cx, 1.0, sd), sd);
}

// Per-channel vector c [C] broadcast over axis 1 of x, in f64.
ValueId per_channel(LowerCtx& cx, ValueId c, ValueId x) { return expand(cx, to_f64(cx, c), x, {1}); }

Expected<double> eps_attr(const OnnxNode& n, double dflt) {
  PLUMB_ASSIGN_OR_RETURN(float e, n.attr_float("epsilon", static_cast<float>(dflt)));
  return static_cast<double>(e);
}

Status lower_batch_norm(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId scale, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId bias, cx.input(n, 2));
  PLUMB_ASSIGN_OR_RETURN(ValueId mean, cx.input(n, 3));
  PLUMB_ASSIGN_OR_RETURN(ValueId var, cx.input(n, 4));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(double eps, eps_attr(n, 1e-5));
  PLUMB_ASSIGN_OR_RETURN(int64_t training, n.attr_int("training_mode", 0));
  PLUMB_ASSIGN_OR_RETURN(float momentum_f, n.attr_float("momentum", 0.9f));
  const double momentum = momentum_f;
  if (cx.opset() < 6) {
    PLUMB_ASSIGN_OR_RETURN(int64_t spatial, n.attr_int("spatial", 1));
    if (!spatial) return cx.unsupported("BatchNormalization with spatial = 0");
  }
  if (cx.opset() < 14 &&
      (cx.wants_output(n, 1) || cx.wants_output(n, 2) || cx.wants_output(n, 3) || cx.wants_output(n, 4)))
    return cx.unsupported("BatchNormalization (opset < 14) in training mode");
  const ir::DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  if (r < 2) return cx.invalid("BatchNormalization input must have rank >= 2");
  ValueId xf = to_f64(cx, x);
  ValueId m = per_channel(cx, mean, x), v = per_channel(cx, var, x);
  if (training) {
    Ints axes = complement(r, {1});
    ValueId bm = cx.b.reduce(ir::ReduceKind::Sum, xf, axes);
    ValueId count = cx.b.reduce(ir::ReduceKind::Sum, splat(cx, 1.0, xf), axes);
    bm = bin(cx, BK::Div, bm, count);
    ValueId centered = bin(cx, BK::Sub, xf, expand(cx, bm, xf, {1}));
    ValueId bv =
        bin(cx, BK::Div, cx.b.reduce(ir::ReduceKind::Sum, bin(cx, BK::Mul, centered, centered), axes), count);
    auto running = [&](ValueId old, ValueId cur) {
      ValueId o = to_f64(cx, old);
      return from_f64(cx,
                      bin(cx, BK::Add, bin(cx, BK::Mul, o, splat(cx, momentum, o)),
                          bin(cx, BK::Mul, cur, splat(cx, 1.0 - momentum, cur))),
                      cx.type(old).dtype);
    };
    if (cx.wants_output(n, 1)) cx.set_output(n, 1, running(mean, bm));
    if (cx.wants_output(n, 2)) cx.set_output(n, 2, running(var, bv));
    m = expand(cx, bm, xf, {1});
    v = expand(cx, bv, xf, {1});
  }
  ValueId sd = cx.b.unary(UK::Sqrt, bin(cx, BK::Add, v, splat(cx, eps, v)));
  ValueId y = bin(cx, BK::Div, bin(cx, BK::Sub, xf, m), sd);
  y = bin(cx, BK::Add, bin(cx, BK::Mul, y, per_channel(cx, scale, x)), per_channel(cx, bias, x));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

Status lower_instance_norm(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId scale, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId bias, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(double eps, eps_attr(n, 1e-5));
  const ir::DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  if (r < 3) return cx.invalid("InstanceNormalization input must have rank >= 3");
  Ints axes;
  for (int64_t i = 2; i < r; ++i) axes.push_back(i);
  ValueId xf = to_f64(cx, x);
  ValueId c = bin(cx, BK::Sub, xf, mean_full(cx, xf, axes));
  ValueId y = bin(cx, BK::Mul, c, inv_std(cx, c, axes, eps));
  y = bin(cx, BK::Add, bin(cx, BK::Mul, y, per_channel(cx, scale, x)), per_channel(cx, bias, x));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

// Numpy (multidirectional) broadcast of f64 a and b, then `k`.
Expected<ValueId> bcast_bin(LowerCtx& cx, ir::BinaryKind k, ValueId a, ValueId b) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> v, broadcast_all(cx, {a, b}));
  return bin(cx, k, v[0], v[1]);
}

Expected<ir::DType> stash_dtype(LowerCtx& cx, const OnnxNode& n, ir::DType dflt) {
  PLUMB_ASSIGN_OR_RETURN(int64_t st, n.attr_int("stash_type", 1));
  switch (st) {
    case 1: return ir::DType::F32;
    case 10: return ir::DType::F16;
    case 11: return ir::DType::F64;
    case 16: return ir::DType::BF16;
    default: break;
  }
  (void)dflt;
  return cx.unsupported("stash_type " + std::to_string(st));
}

// LayerNormalization (17) and RMSNormalization (23): normalise over [axis, rank).
template <bool kRms>
Status lower_layer_norm(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId scale, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(double eps, eps_attr(n, 1e-5));
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", -1));
  PLUMB_ASSIGN_OR_RETURN(ir::DType stash, stash_dtype(cx, n, ir::DType::F32));
  const ir::DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  Ints axes;
  for (int64_t i = axis; i < r; ++i) axes.push_back(i);
  ValueId xf = to_f64(cx, x);
  ValueId y;
  if (kRms) {
    ValueId ms = mean_full(cx, bin(cx, BK::Mul, xf, xf), axes);
    ValueId rs = cx.b.unary(UK::Sqrt, bin(cx, BK::Add, ms, splat(cx, eps, ms)));
    y = bin(cx, BK::Div, xf, rs);
  } else {
    ValueId mean = mean_full(cx, xf, axes);
    ValueId c = bin(cx, BK::Sub, xf, mean);
    ValueId is = inv_std(cx, c, axes, eps);
    y = bin(cx, BK::Mul, c, is);
    // Mean and InvStdDev: x's shape with the normalised dims 1, in the stash dtype.
    Ints kept_shape;
    const ir::Type xt = cx.type(x);
    bool known = true;
    for (int64_t i = 0; i < r; ++i) {
      kept_shape.push_back(i < axis ? xt.shape[i].size : 1);
      known = known && (i >= axis || xt.shape[i].is_static());
    }
    auto stat = [&](ValueId full) -> ValueId {
      if (!known) return ir::kNoValue;
      ValueId s = cx.b.emit1(ir::SliceAttrs{}, {full, cx.b.shape_const(Ints(static_cast<size_t>(r), 0)),
                                                cx.b.shape_const(kept_shape),
                                                cx.b.shape_const(Ints(static_cast<size_t>(r), 1))});
      return from_f64(cx, s, stash);
    };
    if (cx.wants_output(n, 1) || cx.wants_output(n, 2)) {
      if (!known) return cx.unsupported("LayerNormalization Mean/InvStdDev with symbolic leading dims");
      if (cx.wants_output(n, 1)) cx.set_output(n, 1, stat(mean));
      if (cx.wants_output(n, 2)) cx.set_output(n, 2, stat(is));
    }
  }
  PLUMB_ASSIGN_OR_RETURN(y, bcast_bin(cx, BK::Mul, y, to_f64(cx, scale)));
  PLUMB_ASSIGN_OR_RETURN(const ValueId bias, cx.optional_input(n, 2));
  if (bias != ir::kNoValue) {
    PLUMB_ASSIGN_OR_RETURN(y, bcast_bin(cx, BK::Add, y, to_f64(cx, bias)));
  }
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

Status lower_group_norm(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId scale, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId bias, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(double eps, eps_attr(n, 1e-5));
  PLUMB_ASSIGN_OR_RETURN(int64_t groups, n.attr_int("num_groups", 0));
  const ir::Type xt = cx.type(x);
  const ir::DType dt = xt.dtype;
  if (xt.rank() < 3) return cx.invalid("GroupNormalization input must have rank >= 3");
  if (!ir::shape_is_static(xt.shape)) return cx.unsupported("GroupNormalization with symbolic dims");
  const int64_t N = xt.shape[0].size, C = xt.shape[1].size;
  if (groups < 1 || C % groups != 0) return cx.invalid("num_groups must divide the channel count");
  Ints full;
  for (const ir::Dim& d : xt.shape) full.push_back(d.size);
  const int64_t rest = N == 0 || C == 0 ? 0 : ir::shape_num_elements(xt.shape) / (N * groups);
  ValueId xg = cx.b.reshape(to_f64(cx, x), cx.b.shape_const({N, groups, rest}));
  ValueId c = bin(cx, BK::Sub, xg, mean_full(cx, xg, {2}));
  ValueId y = cx.b.reshape(bin(cx, BK::Mul, c, inv_std(cx, c, {2}, eps)), cx.b.shape_const(full));
  ValueId s = to_f64(cx, scale), b = to_f64(cx, bias);
  if (cx.opset() < 21) {
    // Opset 18: scale and bias per group, repeated over each group's channels.
    auto per_group = [&](ValueId v) {
      return cx.b.reshape(cx.b.broadcast(v, cx.b.shape_const({groups, C / groups}), {0}),
                          cx.b.shape_const({C}));
    };
    s = per_group(s);
    b = per_group(b);
  }
  y = bin(cx, BK::Add, bin(cx, BK::Mul, y, expand(cx, s, y, {1})), expand(cx, b, y, {1}));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

Status lower_lrn(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(float alpha, n.attr_float("alpha", 1e-4f));
  PLUMB_ASSIGN_OR_RETURN(float beta, n.attr_float("beta", 0.75f));
  PLUMB_ASSIGN_OR_RETURN(float bias, n.attr_float("bias", 1.0f));
  PLUMB_ASSIGN_OR_RETURN(int64_t size, n.attr_int("size", 0));
  if (size < 1) return cx.invalid("LRN size must be >= 1");
  const ir::DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  if (r < 2) return cx.invalid("LRN input must have rank >= 2");
  ValueId xf = to_f64(cx, x);
  Ints win(static_cast<size_t>(r), 1), ones(static_cast<size_t>(r), 1), lo(static_cast<size_t>(r), 0),
      hi(static_cast<size_t>(r), 0);
  win[1] = size;
  lo[1] = (size - 1) / 2;
  hi[1] = size - 1 - lo[1];
  ValueId sq =
      cx.b.emit1(ir::PoolAttrs{ir::PoolKind::Sum, win, ones, ones, lo, hi}, {bin(cx, BK::Mul, xf, xf)});
  ValueId d =
      bin(cx, BK::Add, splat(cx, bias, sq),
          bin(cx, BK::Mul, splat(cx, static_cast<double>(alpha) / static_cast<double>(size), sq), sq));
  ValueId y = bin(cx, BK::Div, xf, bin(cx, BK::Pow, d, splat(cx, beta, d)));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

Status lower_lp_norm(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", -1));
  PLUMB_ASSIGN_OR_RETURN(int64_t p, n.attr_int("p", 2));
  if (p != 1 && p != 2) return cx.invalid("LpNormalization p must be 1 or 2");
  const ir::DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  ValueId xf = to_f64(cx, x);
  ValueId t = p == 1 ? cx.b.unary(UK::Abs, xf) : bin(cx, BK::Mul, xf, xf);
  ValueId norm = cx.b.reduce(ir::ReduceKind::Sum, t, {axis});
  if (p == 2) norm = cx.b.unary(UK::Sqrt, norm);
  // A zero norm gives 0 (as the ONNX reference), not 0/0.
  ValueId nf = expand(cx, norm, xf, complement(r, {axis}));
  ValueId zero = splat(cx, 0.0, nf);
  ValueId is_zero = cx.b.compare(ir::CompareKind::Eq, nf, zero);
  ValueId y = cx.b.select(is_zero, zero, bin(cx, BK::Div, xf, cx.b.select(is_zero, splat(cx, 1.0, nf), nf)));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

Status lower_mvn(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(Ints axes_in, n.attr_ints("axes", {0, 2, 3}));
  const ir::DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  Ints axes;
  for (int64_t a : axes_in) {
    PLUMB_ASSIGN_OR_RETURN(const int64_t k, normalize_axis(cx, a, r));
    axes.push_back(k);
  }
  PLUMB_RETURN_IF_ERROR(cx.error());
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  // The ONNX function: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
  ValueId xf = to_f64(cx, x);
  ValueId m = mean_full(cx, xf, axes);
  ValueId m2 = mean_full(cx, bin(cx, BK::Mul, xf, xf), axes);
  ValueId sd = cx.b.unary(UK::Sqrt, bin(cx, BK::Sub, m2, bin(cx, BK::Mul, m, m)));
  ValueId y = bin(cx, BK::Div, bin(cx, BK::Sub, xf, m), bin(cx, BK::Add, sd, splat(cx, 1e-9, sd)));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

}  // namespace

void register_norm(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"BatchNormalization", 1, lower_batch_norm}, {"InstanceNormalization", 1, lower_instance_norm},
      {"LayerNormalization", 17, lower_layer_norm<false>}, {"RMSNormalization", 23, lower_layer_norm<true>},
      {"GroupNormalization", 18, lower_group_norm}, {"LRN", 1, lower_lrn},
      {"LpNormalization", 1, lower_lp_norm}, {"MeanVarianceNormalization", 1, lower_mvn}});
  // clang-format on
}

}  // namespace plumb::lower
