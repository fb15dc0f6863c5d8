// ONNX ops built from iota, compare/select, sort, nonzero, pad and gather/scatter: Range Trilu
// EyeLike OneHot Tile Pad NonZero Compress TopK GatherND ScatterElements Scatter ScatterND
// BitCast DepthToSpace SpaceToDepth.
#include <algorithm>
#include <cmath>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;

namespace {

ValueId iota(LowerCtx& cx, ValueId shape, ir::DType dt, int64_t axis) {
  return cx.b.emit1(ir::IotaAttrs{dt, axis}, {shape});
}

// Range: n = max(ceil((limit - start) / delta), 0); y[i] = start + i * delta.
Status lower_range(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 3));
  ValueId start = in[0], limit = in[1], delta = in[2];
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(start).dtype;
  auto s = cx.const_floats(n, 0), l = cx.const_floats(n, 1), d = cx.const_floats(n, 2);
  ValueId count;
  if (s && l && d && s->size() == 1 && l->size() == 1 && d->size() == 1) {
    if ((*d)[0] == 0) return cx.invalid("Range delta is 0");
    const double c = std::ceil(((*l)[0] - (*s)[0]) / (*d)[0]);
    const int64_t num = c > 0 ? static_cast<int64_t>(c) : 0;
    count = cx.b.shape_const({num});
  } else if (ir::is_float(dt)) {
    ValueId sd = cx.b.cast(start, ir::DType::F64), ld = cx.b.cast(limit, ir::DType::F64),
            dd = cx.b.cast(delta, ir::DType::F64);
    ValueId c = cx.b.unary(ir::UnaryKind::Ceil, cx.b.binary(BK::Div, cx.b.binary(BK::Sub, ld, sd), dd));
    c = cx.b.binary(BK::Max, c, cx.b.scalar_float(ir::DType::F64, 0));
    count = cx.b.reshape(cx.b.cast(c, ir::DType::I64), cx.b.shape_const({1}));
  } else {
    // Exact integer ceil division: q = diff / delta (truncating) + (remainder != 0 and same signs).
    ValueId diff = cx.b.cast(cx.b.binary(BK::Sub, limit, start), ir::DType::I64);
    ValueId dl = cx.b.cast(delta, ir::DType::I64);
    ValueId q = cx.b.binary(BK::Div, diff, dl);
    ValueId zero = cx.b.scalar_int(ir::DType::I64, 0);
    ValueId rem_nz = cx.b.compare(CK::Ne, cx.b.binary(BK::Rem, diff, dl), zero);
    ValueId same = cx.b.compare(CK::Eq, cx.b.compare(CK::Gt, diff, zero), cx.b.compare(CK::Gt, dl, zero));
    ValueId up = cx.b.cast(cx.b.binary(BK::And, rem_nz, same), ir::DType::I64);
    ValueId c = cx.b.binary(BK::Max, cx.b.binary(BK::Add, q, up), zero);
    count = cx.b.reshape(c, cx.b.shape_const({1}));
  }
  ValueId i = iota(cx, count, dt, 0);
  ValueId y = cx.b.binary(BK::Add, cx.b.binary(BK::Mul, i, cx.b.broadcast(delta, count, {})),
                          cx.b.broadcast(start, count, {}));
  cx.set_output(n, 0, y);
  return cx.error();
}

// Trilu: keep x where (upper ? j - i >= k : j - i <= k) over the last two dims, else 0.
Status lower_trilu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t upper, n.attr_int("upper", 1));
  const int64_t r = rank_of(cx, x);
  if (r < 2) return cx.invalid("Trilu needs rank >= 2");
  ValueId shape = shape_value(cx, x);
  PLUMB_ASSIGN_OR_RETURN(const ValueId k_in, cx.optional_input(n, 1));
  ValueId k =
      k_in != ir::kNoValue ? cx.b.reshape(k_in, cx.b.shape_const({})) : cx.b.scalar_int(ir::DType::I64, 0);
  ValueId diff =
      cx.b.binary(BK::Sub, iota(cx, shape, ir::DType::I64, r - 1), iota(cx, shape, ir::DType::I64, r - 2));
  ValueId kb = cx.b.broadcast(k, shape, {});
  ValueId keep = cx.b.compare(upper ? CK::Ge : CK::Le, diff, kb);
  cx.set_output(n, 0, cx.b.select(keep, x, splat(cx, 0, x)));
  return cx.error();
}

Status lower_eye_like(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t k, n.attr_int("k", 0));
  ir::DType dt = cx.type(x).dtype;
  if (n.has_attr("dtype")) {
    PLUMB_ASSIGN_OR_RETURN(int64_t code, n.attr_int("dtype", 1));
    auto d = ir::dtype_from_onnx_code(static_cast<int>(code));
    if (!d) return cx.unsupported("EyeLike dtype " + std::to_string(code));
    dt = *d;
  }
  if (rank_of(cx, x) != 2) return cx.invalid("EyeLike needs a 2-D input");
  ValueId shape = shape_value(cx, x);
  ValueId diff = cx.b.binary(BK::Sub, iota(cx, shape, ir::DType::I64, 1), iota(cx, shape, ir::DType::I64, 0));
  ValueId on = cx.b.compare(CK::Eq, diff, cx.b.broadcast(cx.b.scalar_int(ir::DType::I64, k), shape, {}));
  cx.set_output(n, 0, cx.b.cast(on, dt));
  return cx.error();
}

ValueId fix_negative(LowerCtx& cx, ValueId idx, ValueId extent_same_shape) {
  ValueId neg = cx.b.compare(CK::Lt, idx, splat(cx, 0, idx));
  return cx.b.select(neg, cx.b.binary(BK::Add, idx, extent_same_shape), idx);
}

// OneHot(indices, depth, values=[off, on]): result[..., j (at axis), ...] = j == idx ? on : off,
// negative indices counted from depth.
Status lower_one_hot(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId idx, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId values, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type it = cx.type(idx);
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", -1));
  const int64_t r = it.rank() + 1;
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  // depth: a build-time number, or (issue 13) a run-time scalar of any numeric dtype, inserted
  // into the result shape.
  ValueId depth = ir::kNoValue;  // i64[1]
  if (auto d = cx.const_floats(n, 1); d && d->size() == 1) {
    depth = cx.b.shape_const({static_cast<int64_t>((*d)[0])});
  } else {
    PLUMB_ASSIGN_OR_RETURN(ValueId dv, cx.input(n, 1));
    PLUMB_RETURN_IF_ERROR(cx.error());
    const ir::Type dt = cx.type(dv);
    if (dt.rank() > 1 || (dt.rank() == 1 && dt.shape[0].is_static() && dt.shape[0].size != 1))
      return cx.invalid("depth must be one number");
    // Floor equals ONNX's truncation for every valid (non-negative) depth; a negative one is
    // iota's run-time error either way.
    if (ir::is_float(dt.dtype)) dv = cx.b.unary(ir::UnaryKind::Floor, dv);
    depth = as_i64_1(cx, dv);
  }
  const ValueId idx_shape = shape_value(cx, idx);
  std::vector<ValueId> parts;
  if (axis > 0) parts.push_back(static_slice(cx, idx_shape, {0}, {axis}));
  parts.push_back(depth);
  if (axis < r - 1) parts.push_back(static_slice(cx, idx_shape, {axis}, {r - 1 - axis}));
  ValueId shape = parts.size() == 1 ? parts[0] : cx.b.concat(parts, 0);
  ValueId i64 = cx.b.cast(idx, ir::DType::I64);
  i64 = fix_negative(cx, i64,
                     cx.b.broadcast(cx.b.reshape(depth, cx.b.shape_const({})), shape_value(cx, i64), {}));
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < r; ++i)
    if (i != axis) dims.push_back(i);
  ValueId hot = cx.b.compare(CK::Eq, iota(cx, shape, ir::DType::I64, axis), cx.b.broadcast(i64, shape, dims));
  auto pick = [&](int64_t i) {
    return cx.b.reshape(cx.b.emit1(ir::SliceAttrs{}, {values, cx.b.shape_const({i}), cx.b.shape_const({1}),
                                                      cx.b.shape_const({1})}),
                        cx.b.shape_const({}));
  };
  cx.set_output(n, 0,
                cx.b.select(hot, cx.b.broadcast(pick(1), shape, {}), cx.b.broadcast(pick(0), shape, {})));
  return cx.error();
}

// Tile: x [d0..] -> reshape [1, d0, 1, d1, ...] -> broadcast [r0, d0, r1, d1, ...] -> [r0 d0, ...].
// Tile-1 repeats along one axis: `tiles` copies along `axis`, both scalar tensors. Its schema
// types them T (float) next to an unused int64 T1, so either dtype is read.
Expected<std::vector<int64_t>> tile1_repeats(LowerCtx& cx, const OnnxNode& n, int64_t rank) {
  auto scalar = [&](size_t i) -> std::optional<double> {
    if (auto v = cx.const_ints(n, i); v && v->size() == 1) return static_cast<double>((*v)[0]);
    if (auto v = cx.const_floats(n, i); v && v->size() == 1) return (*v)[0];
    return std::nullopt;
  };
  const auto tiles = scalar(1), axis = scalar(2);
  if (!tiles || !axis) return unsupported("Tile-1 tiles or axis given as a computed (non-constant) tensor");
  if (*tiles != std::floor(*tiles) || *axis != std::floor(*axis) || std::fabs(*tiles) > 1e15 ||
      std::fabs(*axis) > 64)
    return invalid_model("", "Tile-1 tiles and axis must be whole numbers");
  std::vector<int64_t> reps(static_cast<size_t>(rank), 1);
  PLUMB_ASSIGN_OR_RETURN(int64_t a, normalize_axis(cx, static_cast<int64_t>(*axis), rank));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (a >= 0 && a < rank) reps[static_cast<size_t>(a)] = static_cast<int64_t>(*tiles);
  return reps;
}

// Tile with repeats or dims known only at run time (issue 13): the same broadcast and reshape,
// with [r0, d0, r1, d1, ...] and [r0 d0, ...] computed by the graph; a negative repeat is the
// broadcast's run-time error, naming this node.
Status lower_tile_runtime(LowerCtx& cx, const OnnxNode& n, ValueId x, ValueId reps) {
  const int64_t r = rank_of(cx, x);
  const ir::Type rt = cx.type(reps);
  if (rt.rank() != 1 || (rt.shape[0].is_static() && rt.shape[0].size != r))
    return cx.invalid("repeats length differs from the input rank");
  if (rt.dtype != ir::DType::I64) reps = cx.b.cast(reps, ir::DType::I64);
  if (r == 0) {
    cx.set_output(n, 0, x);
    return cx.error();
  }
  const ValueId dims = shape_value(cx, x);
  std::vector<ValueId> wide;
  std::vector<int64_t> bdims;
  for (int64_t i = 0; i < r; ++i) {
    wide.push_back(static_slice(cx, reps, {i}, {1}));
    wide.push_back(static_slice(cx, dims, {i}, {1}));
    bdims.push_back(2 * i + 1);
  }
  ValueId b = cx.b.broadcast(x, cx.b.concat(wide, 0), bdims);
  cx.set_output(n, 0, cx.b.reshape(b, cx.b.binary(BK::Mul, reps, dims)));
  return cx.error();
}

Status lower_tile(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  std::optional<std::vector<int64_t>> reps;
  if (cx.opset() < 6) {
    PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> one_axis, tile1_repeats(cx, n, xt.rank()));
    reps = std::move(one_axis);
  } else {
    reps = cx.const_ints(n, 1);
    if (!reps) {
      PLUMB_ASSIGN_OR_RETURN(const ValueId reps_in, cx.input(n, 1));
      return lower_tile_runtime(cx, n, x, reps_in);
    }
  }
  const auto d = static_dims(xt);
  if (reps->size() != xt.shape.size()) return cx.invalid("repeats length differs from the input rank");
  for (int64_t rep : *reps)
    if (rep < 0) return cx.invalid("negative repeat");
  if (!is_static(xt))
    return lower_tile_runtime(cx, n, x, cx.b.const_ints(ir::DType::I64, {xt.rank()}, *reps));
  std::vector<int64_t> inter, wide, out, bdims;
  for (size_t i = 0; i < d.size(); ++i) {
    wide.push_back((*reps)[i]);
    wide.push_back(d[i]);
    bdims.push_back(static_cast<int64_t>(2 * i + 1));
    out.push_back((*reps)[i] * d[i]);
  }
  ValueId b = cx.b.broadcast(x, cx.b.shape_const(wide), bdims);
  cx.set_output(n, 0, cx.b.reshape(b, cx.b.shape_const(out)));
  return cx.error();
}

// Pad with pads known only at run time (issue 13), or negative pads on symbolic dims: the crop is
// a slice by max(-pad, 0) on each side and the pad takes max(pad, 0), both computed by the graph
// (a crop beyond the dim is the slice's run-time error, naming this node).
Status lower_pad_runtime(LowerCtx& cx, const OnnxNode& n, ValueId x, ValueId pads,
                         const std::vector<int64_t>& axes, ValueId value, ir::PadMode mode) {
  const int64_t r = rank_of(cx, x);
  const int64_t k = static_cast<int64_t>(axes.size());
  const ir::Type pt = cx.type(pads);
  if (pt.rank() != 1 || (pt.shape[0].is_static() && pt.shape[0].size != 2 * k))
    return cx.invalid("pads must have 2 entries per padded axis");
  if (pt.dtype != ir::DType::I64) pads = cx.b.cast(pads, ir::DType::I64);
  // Full-rank begin/end vectors: entry d is pads[i] for axes[i] == d, else 0.
  const ValueId zero = cx.b.shape_const({0});
  std::vector<ValueId> lo(static_cast<size_t>(r), zero), hi(static_cast<size_t>(r), zero);
  for (int64_t i = 0; i < k; ++i) {
    lo[axes[i]] = static_slice(cx, pads, {i}, {1});
    hi[axes[i]] = static_slice(cx, pads, {k + i}, {1});
  }
  const ValueId begin = r == 1 ? lo[0] : cx.b.concat(lo, 0);
  const ValueId end = r == 1 ? hi[0] : cx.b.concat(hi, 0);
  const ValueId zeros = cx.b.shape_const(std::vector<int64_t>(static_cast<size_t>(r), 0));
  auto positive = [&](ValueId v) { return cx.b.binary(BK::Max, v, zeros); };
  auto negated = [&](ValueId v) { return cx.b.binary(BK::Sub, zeros, v); };
  const ValueId crop_lo = positive(negated(begin)), crop_hi = positive(negated(end));
  const ValueId size = cx.b.binary(BK::Sub, cx.b.binary(BK::Sub, shape_value(cx, x), crop_lo), crop_hi);
  x = cx.b.emit1(ir::SliceAttrs{},
                 {x, crop_lo, size, cx.b.shape_const(std::vector<int64_t>(static_cast<size_t>(r), 1))});
  cx.set_output(n, 0, cx.b.emit1(ir::PadAttrs{mode}, {x, positive(begin), positive(end), value}));
  return cx.error();
}

// Pad: negative pads crop (slice) first, positive pads pad (core pad takes only >= 0).
Status lower_pad(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  const int64_t r = xt.rank();
  PLUMB_ASSIGN_OR_RETURN(std::string mode, n.attr_string("mode", "constant"));
  ir::PadMode m;
  if (mode == "constant")
    m = ir::PadMode::Constant;
  else if (mode == "reflect")
    m = ir::PadMode::Reflect;
  else if (mode == "edge")
    m = ir::PadMode::Edge;
  else if (mode == "wrap")
    m = ir::PadMode::Wrap;
  else
    return cx.invalid("unknown Pad mode '" + mode + "'");
  std::vector<int64_t> pads;
  ValueId value;
  ValueId computed_pads = ir::kNoValue;
  if (cx.opset() < 11) {
    // Pad-1 names the same [x1_begin, x2_begin, ..., x1_end, x2_end, ...] list `paddings`.
    PLUMB_ASSIGN_OR_RETURN(pads, n.attr_ints(cx.opset() < 2 ? "paddings" : "pads", {}));
    auto v = n.attr_float("value", 0.0f);
    if (!v.has_value()) return v.status();
    value = scalar_like(cx, *v, x);
  } else {
    auto p = cx.const_ints(n, 1);
    if (p) pads = *p;  // else the pads are computed: input 1 is read
    PLUMB_ASSIGN_OR_RETURN(computed_pads, p ? Expected<ValueId>(ir::kNoValue) : cx.input(n, 1));
    PLUMB_ASSIGN_OR_RETURN(const ValueId value_in, cx.optional_input(n, 2));
    value = value_in != ir::kNoValue ? cx.b.reshape(value_in, cx.b.shape_const({})) : scalar_like(cx, 0, x);
  }
  std::vector<int64_t> axes;
  if (cx.opset() >= 18 && cx.has_input(n, 3)) {
    auto a = cx.const_ints(n, 3);
    if (!a) return cx.needs_build_time(n, 3, "Pad axes");
    for (int64_t ax : *a) {
      PLUMB_ASSIGN_OR_RETURN(const int64_t k, normalize_axis(cx, ax, r));
      axes.push_back(k);
    }
  } else {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  const size_t k = axes.size();
  if (computed_pads != ir::kNoValue) return lower_pad_runtime(cx, n, x, computed_pads, axes, value, m);
  if (pads.size() != 2 * k) return cx.invalid("pads must have 2 entries per padded axis");
  std::vector<int64_t> lo(r, 0), hi(r, 0);
  for (size_t i = 0; i < k; ++i) {
    lo[axes[i]] = pads[i];
    hi[axes[i]] = pads[i + k];
  }
  bool crop = false;
  for (int64_t i = 0; i < r; ++i) crop = crop || lo[i] < 0 || hi[i] < 0;
  if (crop) {
    if (!is_static(xt))
      return lower_pad_runtime(cx, n, x,
                               cx.b.const_ints(ir::DType::I64, {static_cast<int64_t>(pads.size())}, pads),
                               axes, value, m);
    std::vector<int64_t> start(r, 0), size = static_dims(xt), stride(r, 1);
    for (int64_t i = 0; i < r; ++i) {
      if (lo[i] < 0) start[i] = -lo[i], size[i] += lo[i], lo[i] = 0;
      if (hi[i] < 0) size[i] += hi[i], hi[i] = 0;
      if (size[i] < 0) return cx.invalid("Pad crops more than the dim");
    }
    x = cx.b.emit1(ir::SliceAttrs{},
                   {x, cx.b.shape_const(start), cx.b.shape_const(size), cx.b.shape_const(stride)});
  }
  cx.set_output(n, 0, cx.b.emit1(ir::PadAttrs{m}, {x, cx.b.shape_const(lo), cx.b.shape_const(hi), value}));
  return cx.error();
}

// NonZero: ONNX gives a rank-0 input the result shape [1, n] (core nonzero gives [0, n]).
Status lower_non_zero(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (rank_of(cx, x) == 0) x = cx.b.reshape(x, cx.b.shape_const({1}));
  cx.set_output(n, 0, cx.b.emit1(ir::NonZeroAttrs{}, {x}));
  return cx.error();
}

// Compress: the positions where condition is true, gathered along axis (flattened x without axis).
Status lower_compress(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId cond, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  // nonzero gives [1, n]; reshape to [n] with n read from its shape.
  ValueId nz = cx.b.emit1(ir::NonZeroAttrs{}, {cond});
  ValueId count = cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(nz), cx.b.shape_const({1}),
                                                cx.b.shape_const({1}), cx.b.shape_const({1})});
  ValueId pos = cx.b.reshape(nz, count);
  if (!n.has_attr("axis")) {
    const int64_t total = ir::shape_num_elements(cx.type(x).shape);
    ValueId flat = total >= 0 ? cx.b.shape_const({total})
                              : cx.b.reshape(cx.b.reduce(ir::ReduceKind::Prod, cx.b.shape_of(x), {0}),
                                             cx.b.shape_const({1}));
    cx.set_output(n, 0, cx.b.gather(ir::GatherKind::Axis, cx.b.reshape(x, flat), pos, 0));
    return cx.error();
  }
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 0));
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, rank_of(cx, x)));
  PLUMB_RETURN_IF_ERROR(cx.error());
  cx.set_output(n, 0, cx.b.gather(ir::GatherKind::Axis, x, pos, axis));
  return cx.error();
}

// TopK: stable sort along axis (descending for largest, so ties keep the lower index first),
// then the first k. A computed k (issue 13) is a run-time slice size: k outside [0, dim] is then
// the slice's run-time error, naming this node.
Status lower_top_k(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  std::optional<int64_t> k;
  ValueId k_value = ir::kNoValue;
  if (cx.opset() < 10) {
    PLUMB_ASSIGN_OR_RETURN(int64_t kk, n.attr_int("k", -1));
    k = kk;
  } else if (auto kv = cx.const_ints(n, 1); kv && kv->size() == 1) {
    k = (*kv)[0];
  } else {
    PLUMB_ASSIGN_OR_RETURN(k_value, cx.input(n, 1));
    PLUMB_RETURN_IF_ERROR(cx.error());
    const ir::Type kt = cx.type(k_value);
    if (!ir::is_int(kt.dtype) || kt.rank() > 1 ||
        (kt.rank() == 1 && kt.shape[0].is_static() && kt.shape[0].size != 1))
      return cx.invalid("k must be one integer");
  }
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", -1));
  PLUMB_ASSIGN_OR_RETURN(int64_t largest, n.attr_int("largest", 1));
  const ir::Type xt = cx.type(x);
  const int64_t r = xt.rank();
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (k && (*k < 0 || (xt.shape[axis].is_static() && *k > xt.shape[axis].size)))
    return cx.invalid("k out of range");
  auto sorted = cx.b.emit(ir::SortAttrs{axis, largest != 0}, {x});
  const ValueId size =
      with_dim(cx, shape_value(cx, x), r, axis, k ? cx.b.shape_const({*k}) : as_i64_1(cx, k_value));
  if (sorted.size() < 2) return cx.error();
  cx.set_output(n, 0, leading_slice(cx, sorted[0], size));
  cx.set_output(n, 1, leading_slice(cx, sorted[1], size));
  return cx.error();
}

// The extents of x's dims `first`.. as a value broadcastable over the last dim of `idx`.
ValueId nd_extents(LowerCtx& cx, ValueId x, ValueId idx, int64_t first, int64_t m) {
  ValueId dims = cx.b.emit1(ir::SliceAttrs{}, {shape_value(cx, x), cx.b.shape_const({first}),
                                               cx.b.shape_const({m}), cx.b.shape_const({1})});
  if (cx.type(idx).dtype != ir::DType::I64) dims = cx.b.cast(dims, cx.type(idx).dtype);
  return cx.b.broadcast(dims, shape_value(cx, idx), {rank_of(cx, idx) - 1});
}

Status lower_gather_nd(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId idx, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t batch_dims, n.attr_int("batch_dims", 0));
  const ir::Type it = cx.type(idx);
  if (!it.ranked || it.shape.empty()) return cx.invalid("GatherND indices need rank 1 or more");
  if (!it.shape.back().is_static()) return cx.unsupported("GatherND with a symbolic index depth");
  idx = fix_negative(cx, idx, nd_extents(cx, x, idx, batch_dims, it.shape.back().size));
  cx.set_output(n, 0, cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Nd, 0, batch_dims}, {x, idx}));
  return cx.error();
}

Expected<ir::ScatterReduction> reduction_of(const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(std::string red, n.attr_string("reduction", "none"));
  if (red == "none") return ir::ScatterReduction::None;
  if (red == "add") return ir::ScatterReduction::Add;
  if (red == "mul") return ir::ScatterReduction::Mul;
  if (red == "max") return ir::ScatterReduction::Max;
  if (red == "min") return ir::ScatterReduction::Min;
  return invalid_model("", "unknown reduction '" + red + "'");
}

Status lower_scatter_elements(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 3));
  ValueId x = in[0], idx = in[1], upd = in[2];
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 0));
  PLUMB_ASSIGN_OR_RETURN(ir::ScatterReduction red, reduction_of(n));
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, rank_of(cx, x)));
  PLUMB_RETURN_IF_ERROR(cx.error());
  ValueId ext = cx.b.emit1(ir::SliceAttrs{}, {shape_value(cx, x), cx.b.shape_const({axis}),
                                              cx.b.shape_const({1}), cx.b.shape_const({1})});
  ext = cx.b.reshape(ext, cx.b.shape_const({}));
  if (cx.type(idx).dtype != ir::DType::I64) ext = cx.b.cast(ext, cx.type(idx).dtype);
  idx = fix_negative(cx, idx, cx.b.broadcast(ext, shape_value(cx, idx), {}));
  cx.set_output(n, 0, cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Elements, axis, red}, {x, idx, upd}));
  return cx.error();
}

Status lower_scatter_nd(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 3));
  ValueId x = in[0], idx = in[1], upd = in[2];
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ir::ScatterReduction red, reduction_of(n));
  const ir::Type it = cx.type(idx);
  if (!it.ranked || it.shape.empty()) return cx.invalid("ScatterND indices need rank 1 or more");
  if (!it.shape.back().is_static()) return cx.unsupported("ScatterND with a symbolic index depth");
  idx = fix_negative(cx, idx, nd_extents(cx, x, idx, 0, it.shape.back().size));
  cx.set_output(n, 0, cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Nd, 0, red}, {x, idx, upd}));
  return cx.error();
}

Status lower_bit_cast(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(int64_t to, n.attr_int("to", -1));
  auto dt = ir::dtype_from_onnx_code(static_cast<int>(to));
  if (!dt) return cx.unsupported("BitCast to ONNX data type " + std::to_string(to));
  PLUMB_ASSIGN_OR_RETURN(const ValueId x, cx.input(n, 0));
  cx.set_output(n, 0, cx.b.bitcast(x, *dt));
  return cx.error();
}

// DepthToSpace (DCR / CRD) and SpaceToDepth on static NCHW shapes: reshape, transpose, reshape.
Status lower_depth_to_space(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  if (xt.rank() != 4 || !is_static(xt)) return cx.unsupported("DepthToSpace needs a static 4-D input");
  PLUMB_ASSIGN_OR_RETURN(int64_t bs, n.attr_int("blocksize", 0));
  PLUMB_ASSIGN_OR_RETURN(std::string mode, n.attr_string("mode", "DCR"));
  const auto d = static_dims(xt);
  const int64_t N = d[0], C = d[1], H = d[2], W = d[3];
  // bs * bs must not overflow (a blocksize of 2^40 once divided by zero): 3037000499^2 < 2^63
  if (bs <= 0 || bs > 3037000499 || C % (bs * bs) != 0)
    return cx.invalid(
        strfmt("channels %lld not divisible by blocksize^2 (blocksize %lld)", (long long)C, (long long)bs));
  const int64_t c = C / (bs * bs);
  ValueId t;
  if (mode == "DCR") {
    t = cx.b.transpose(cx.b.reshape(x, cx.b.shape_const({N, bs, bs, c, H, W})), {0, 3, 4, 1, 5, 2});
  } else if (mode == "CRD") {
    t = cx.b.transpose(cx.b.reshape(x, cx.b.shape_const({N, c, bs, bs, H, W})), {0, 1, 4, 2, 5, 3});
  } else {
    return cx.invalid("mode must be DCR or CRD");
  }
  cx.set_output(n, 0, cx.b.reshape(t, cx.b.shape_const({N, c, H * bs, W * bs})));
  return cx.error();
}

Status lower_space_to_depth(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  if (xt.rank() != 4 || !is_static(xt)) return cx.unsupported("SpaceToDepth needs a static 4-D input");
  PLUMB_ASSIGN_OR_RETURN(int64_t bs, n.attr_int("blocksize", 0));
  const auto d = static_dims(xt);
  const int64_t N = d[0], C = d[1], H = d[2], W = d[3];
  if (bs <= 0 || H % bs != 0 || W % bs != 0) return cx.invalid("spatial dims not divisible by blocksize");
  ValueId t =
      cx.b.transpose(cx.b.reshape(x, cx.b.shape_const({N, C, H / bs, bs, W / bs, bs})), {0, 3, 5, 1, 2, 4});
  cx.set_output(n, 0, cx.b.reshape(t, cx.b.shape_const({N, C * bs * bs, H / bs, W / bs})));
  return cx.error();
}

// ReverseSequence: along time_axis, the first sequence_lens[b] elements of batch b are reversed:
// gather elements with index t < L[b] ? L[b] - 1 - t : t.
Status lower_reverse_sequence(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId lens, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t batch_axis, n.attr_int("batch_axis", 1));
  PLUMB_ASSIGN_OR_RETURN(int64_t time_axis, n.attr_int("time_axis", 0));
  const int64_t r = rank_of(cx, x);
  PLUMB_ASSIGN_OR_RETURN(batch_axis, normalize_axis(cx, batch_axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(time_axis, normalize_axis(cx, time_axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (batch_axis == time_axis) return cx.invalid("batch_axis and time_axis must differ");
  ValueId shape = shape_value(cx, x);
  ValueId t = iota(cx, shape, ir::DType::I64, time_axis);
  ValueId len = cx.b.broadcast(cx.b.cast(lens, ir::DType::I64), shape, {batch_axis});
  ValueId rev = cx.b.binary(BK::Sub, cx.b.binary(BK::Sub, len, splat(cx, 1, len)), t);
  ValueId idx = cx.b.select(cx.b.compare(CK::Lt, t, len), rev, t);
  cx.set_output(n, 0, cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Elements, time_axis, 0}, {x, idx}));
  return cx.error();
}

// CenterCropPad: per axis, crop centred (start = (d - t) / 2) or pad centred (low = (t - d) / 2).
Status lower_center_crop_pad(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  const int64_t r = xt.rank();
  auto target = cx.const_ints(n, 1);
  if (!target) return cx.needs_build_time(n, 1, "CenterCropPad shape");
  if (!is_static(xt)) return cx.unsupported("CenterCropPad on symbolic dims");
  std::vector<int64_t> all;
  for (int64_t i = 0; i < r; ++i) all.push_back(i);
  PLUMB_ASSIGN_OR_RETURN(auto axes, n.attr_ints("axes", all));
  if (axes.size() != target->size()) return cx.invalid("shape and axes differ in length");
  auto d = static_dims(xt);
  std::vector<int64_t> start(r, 0), size = d, stride(r, 1), lo(r, 0), hi(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(const int64_t a, normalize_axis(cx, axes[i], r));
    const int64_t t = (*target)[i];
    if (t < 0) return cx.invalid("negative target dim");
    if (t < d[a]) {
      start[a] = (d[a] - t) / 2;
      size[a] = t;
    } else {
      lo[a] = (t - d[a]) / 2;
      hi[a] = t - d[a] - lo[a];
    }
  }
  ValueId y = cx.b.emit1(ir::SliceAttrs{},
                         {x, cx.b.shape_const(start), cx.b.shape_const(size), cx.b.shape_const(stride)});
  y = cx.b.emit1(ir::PadAttrs{ir::PadMode::Constant},
                 {y, cx.b.shape_const(lo), cx.b.shape_const(hi), scalar_like(cx, 0, x)});
  cx.set_output(n, 0, y);
  return cx.error();
}

}  // namespace

void register_structure(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"ReverseSequence", 10, lower_reverse_sequence}, {"CenterCropPad", 18, lower_center_crop_pad},
      {"Range", 11, lower_range}, {"Trilu", 14, lower_trilu}, {"EyeLike", 9, lower_eye_like},
      {"OneHot", 9, lower_one_hot}, {"Tile", 1, lower_tile}, {"Pad", 1, lower_pad},
      {"NonZero", 9, lower_non_zero}, {"Compress", 9, lower_compress}, {"TopK", 1, lower_top_k},
      {"GatherND", 11, lower_gather_nd}, {"ScatterElements", 11, lower_scatter_elements},
      {"ScatterND", 11, lower_scatter_nd}, {"BitCast", 26, lower_bit_cast},
      {"DepthToSpace", 1, lower_depth_to_space}, {"SpaceToDepth", 1, lower_space_to_depth}});
  // clang-format on
  r.add("Scatter", {9, 10}, lower_scatter_elements);
}

}  // namespace plumb::lower
