// Lowering rules for NonMaxSuppression, RoiAlign, MaxRoiPool.
//
// NonMaxSuppression: a stable descending sort of the scores per (batch, class), then a core
// `while` over the sorted positions that runs the greedy selection for all (batch, class) pairs at
// once (a selected box suppresses the boxes whose IoU with it exceeds the threshold); nonzero over
// the selection in sorted order gives the rows, already in the ONNX order (batch, class, score
// descending). Equal scores: the lower box index comes first (the ONNX reference's order; ONNX
// itself leaves ties open). NaN scores sort as the largest (spec/ops/sort.md) but never pass a
// score_threshold.
//
// RoiAlign: every sample point of every bin made explicit (gather nd of the four corners), as in
// the ONNX reference; sums in f64. With sampling_ratio = 0 the grid size depends on each RoI, so
// a `while` over the RoIs does one RoI at a time.
//
// MaxRoiPool: the Caffe / onnxruntime RoI max pooling: bins from rounded RoI corners, masked max.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;
using UK = ir::UnaryKind;

namespace {

ValueId bin(LowerCtx& cx, ir::BinaryKind kind, ValueId a, ValueId b) { return cx.b.binary(kind, a, b); }
ValueId cmp(LowerCtx& cx, ir::CompareKind kind, ValueId a, ValueId b) { return cx.b.compare(kind, a, b); }
ValueId land(LowerCtx& cx, ValueId a, ValueId b) { return cx.b.binary(BK::And, a, b); }

// The scalar behind an optional 1-element input (reshaped to rank 0), or nullopt when absent or
// empty.
Expected<std::optional<ValueId>> optional_scalar(LowerCtx& cx, const OnnxNode& n, size_t i,
                                                 const char* what) {
  if (!cx.has_input(n, i)) return std::optional<ValueId>();
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, i));
  const ir::Type t = cx.type(v);
  const int64_t ne = ir::shape_num_elements(t.shape);
  if (ne == 0) return std::optional<ValueId>();
  if (ne > 1 || ne < -1) {  // symbolic (-1): reshape.R2 checks the count at run time
    return cx.invalid(std::string("NonMaxSuppression ") + what + " must have one element");
  }
  return std::optional<ValueId>(cx.b.reshape(v, cx.b.shape_const({})));
}

// ---- NonMaxSuppression ------------------------------------------------------------------------

Status lower_non_max_suppression(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId boxes, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId scores, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t center, n.attr_int("center_point_box", 0));
  if (center != 0 && center != 1) return cx.invalid("NonMaxSuppression center_point_box is not 0 or 1");
  const ir::Type bt = cx.type(boxes), st = cx.type(scores);
  auto differ = [](const ir::Dim& a, const ir::Dim& b) {
    return a.is_static() && b.is_static() && a.size != b.size;
  };
  if (!bt.ranked || !st.ranked || bt.rank() != 3 || st.rank() != 3 || differ(bt.shape[2], ir::Dim(4)) ||
      differ(st.shape[0], bt.shape[0]) || differ(st.shape[2], bt.shape[1]))
    return cx.invalid("NonMaxSuppression needs boxes [B, N, 4] and scores [B, C, N]");
  // Static shapes give a static loop; symbolic ones read the sizes from the scores' shape (a
  // mismatch with the boxes is then a gather.R1 / broadcast.R2 error at run time).
  const bool stat = is_static(bt) && is_static(st);
  if (!ir::is_float(bt.dtype) || st.dtype != bt.dtype)
    return cx.invalid("NonMaxSuppression needs float boxes and scores of one dtype");
  const int64_t nb = st.shape[0].size, nn = st.shape[2].size, nc = st.shape[1].size;
  PLUMB_ASSIGN_OR_RETURN(std::optional<ValueId> max_out,
                         optional_scalar(cx, n, 2, "max_output_boxes_per_class"));
  PLUMB_ASSIGN_OR_RETURN(std::optional<ValueId> iou_thr, optional_scalar(cx, n, 3, "iou_threshold"));
  PLUMB_ASSIGN_OR_RETURN(std::optional<ValueId> score_thr, optional_scalar(cx, n, 4, "score_threshold"));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const DType ct = compute_dtype(bt.dtype);
  ValueId bx = to_compute(cx, boxes), sc = scores;
  ValueId maxv = max_out ? cx.b.cast(*max_out, DType::I64) : cx.b.scalar_int(DType::I64, 0);
  ValueId thr = iou_thr ? cx.b.cast(*iou_thr, ct) : cx.b.scalar_float(ct, 0);

  ValueId bcn, bc, bc1, n_scalar;
  if (stat) {
    bcn = cx.b.shape_const({nb, nc, nn});
    bc = cx.b.shape_const({nb, nc});
    bc1 = cx.b.shape_const({nb, nc, 1});
    n_scalar = cx.b.scalar_int(DType::I64, nn);
  } else {
    bcn = cx.b.shape_of(sc);
    bc = static_slice(cx, bcn, {0}, {2});
    bc1 = cx.b.concat({bc, cx.b.shape_const({1})}, 0);
    n_scalar = cx.b.reshape(static_slice(cx, bcn, {2}, {1}), cx.b.shape_const({}));
  }
  auto coord = [&](int64_t k) {
    return cx.b.gather(ir::GatherKind::Axis, bx, cx.b.scalar_int(DType::I64, k), 2);
  };
  ValueId y1, x1, y2, x2;
  if (center == 0) {
    ValueId c0 = coord(0), c1 = coord(1), c2 = coord(2), c3 = coord(3);
    y1 = bin(cx, BK::Min, c0, c2), y2 = bin(cx, BK::Max, c0, c2);
    x1 = bin(cx, BK::Min, c1, c3), x2 = bin(cx, BK::Max, c1, c3);
  } else {
    ValueId xc = coord(0), yc = coord(1), w = coord(2), h = coord(3);
    ValueId two = splat(cx, 2, w);
    ValueId hw = bin(cx, BK::Div, w, two), hh = bin(cx, BK::Div, h, two);
    x1 = bin(cx, BK::Sub, xc, hw), x2 = bin(cx, BK::Add, xc, hw);
    y1 = bin(cx, BK::Sub, yc, hh), y2 = bin(cx, BK::Add, yc, hh);
  }
  ValueId area = bin(cx, BK::Mul, bin(cx, BK::Sub, x2, x1), bin(cx, BK::Sub, y2, y1));
  ValueId valid = score_thr ? cmp(cx, CK::Gt, sc, cx.b.broadcast(cx.b.cast(*score_thr, st.dtype), bcn, {}))
                            : cx.b.broadcast(cx.b.const_ints(DType::Bool, {}, {1}), bcn, {});
  auto sorted = cx.b.emit(ir::SortAttrs{2, true}, {sc});
  if (sorted.size() < 2) return cx.error();
  const ValueId perm = sorted[1];  // [B, C, N] box index at each sorted position

  const ir::Type tk = ir::Type::tensor(DType::I64, ir::static_shape({}));
  const ir::Type tmask = ir::Type::tensor(DType::Bool, stat ? ir::static_shape({nb, nc, nn}) : ir::Shape(3));
  const ir::Type tcnt = ir::Type::tensor(DType::I64, stat ? ir::static_shape({nb, nc}) : ir::Shape(2));
  const std::vector<ir::Type> carried{tk, tmask, tmask, tcnt};
  // cond: k < N
  auto cp = cx.b.begin_region(carried);
  ir::Region cond = cx.b.end_region({cmp(cx, CK::Lt, cp[0], n_scalar)});
  // body: consider the box at sorted position k of every (batch, class).
  auto p = cx.b.begin_region(carried);
  {
    ValueId k = p[0], sup = p[1], sel = p[2], cnt = p[3];
    ValueId pk = cx.b.gather(ir::GatherKind::Axis, perm, k, 2);  // [B, C]
    ValueId pk3 = cx.b.reshape(pk, bc1);
    ValueId valid_k = cx.b.reshape(cx.b.gather(ir::GatherKind::Elements, valid, pk3, 2), bc);
    ValueId sup_k = cx.b.reshape(cx.b.gather(ir::GatherKind::Elements, sup, pk3, 2), bc);
    ValueId take = land(cx, land(cx, valid_k, cx.b.unary(UK::Not, sup_k)),
                        cmp(cx, CK::Lt, cnt, cx.b.broadcast(maxv, bc, {})));
    auto at_k = [&](ValueId q) {  // q[b, pk[b, c]] broadcast over N
      return cx.b.broadcast(cx.b.gather(ir::GatherKind::Elements, q, pk, 1), bcn, {0, 1});
    };
    auto all = [&](ValueId q) { return cx.b.broadcast(q, bcn, {0, 2}); };
    ValueId ix1 = bin(cx, BK::Max, at_k(x1), all(x1)), ix2 = bin(cx, BK::Min, at_k(x2), all(x2));
    ValueId iy1 = bin(cx, BK::Max, at_k(y1), all(y1)), iy2 = bin(cx, BK::Min, at_k(y2), all(y2));
    ValueId inter = bin(cx, BK::Mul, bin(cx, BK::Sub, ix2, ix1), bin(cx, BK::Sub, iy2, iy1));
    ValueId area_k = at_k(area), area_j = all(area);
    ValueId uni = bin(cx, BK::Sub, bin(cx, BK::Add, area_j, area_k), inter);
    ValueId zero = splat(cx, 0, inter);
    // The ONNX reference's suppress_by_iou: every degenerate case keeps the box.
    ValueId supp = land(cx, cmp(cx, CK::Gt, ix2, ix1), cmp(cx, CK::Gt, iy2, iy1));
    supp = land(cx, supp, cmp(cx, CK::Gt, inter, zero));
    supp = land(cx, supp, land(cx, cmp(cx, CK::Gt, area_k, zero), cmp(cx, CK::Gt, area_j, zero)));
    supp = land(cx, supp, cmp(cx, CK::Gt, uni, zero));
    supp = land(cx, supp, cmp(cx, CK::Gt, bin(cx, BK::Div, inter, uni), cx.b.broadcast(thr, bcn, {})));
    ValueId take3 = cx.b.broadcast(take, bcn, {0, 1});
    ValueId one_hot = cmp(cx, CK::Eq, cx.b.iota(bcn, DType::I64, 2), cx.b.broadcast(pk, bcn, {0, 1}));
    ValueId sup2 = cx.b.binary(BK::Or, sup, land(cx, take3, supp));
    ValueId sel2 = cx.b.binary(BK::Or, sel, land(cx, take3, one_hot));
    ValueId cnt2 = bin(cx, BK::Add, cnt, cx.b.cast(take, DType::I64));
    ValueId k2 = bin(cx, BK::Add, k, cx.b.scalar_int(DType::I64, 1));
    ir::Region body = cx.b.end_region({k2, sup2, sel2, cnt2});
    ValueId none = cx.b.broadcast(cx.b.const_ints(DType::Bool, {}, {0}), bcn, {});
    auto res = cx.b.while_(
        {cx.b.scalar_int(DType::I64, 0), none, none, cx.b.broadcast(cx.b.scalar_int(DType::I64, 0), bc, {})},
        std::move(cond), std::move(body));
    if (res.size() < 4) return cx.error();
    // Selected boxes in sorted order; nonzero lists (b, c, position) row-major = the ONNX order.
    ValueId sel_sorted = cx.b.gather(ir::GatherKind::Elements, res[2], perm, 2);
    ValueId nz = cx.b.emit1(ir::NonZeroAttrs{}, {sel_sorted});  // [3, K]
    ValueId rows = cx.b.transpose(nz, {1, 0});                  // [K, 3]
    ValueId box = cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Nd, 0, 0}, {perm, rows});
    ValueId kk = static_slice(cx, cx.b.shape_of(rows), {0}, {1});
    ValueId bc_cols =
        cx.b.emit1(ir::SliceAttrs{}, {rows, cx.b.shape_const({0, 0}),
                                      cx.b.concat({kk, cx.b.shape_const({2})}, 0), cx.b.shape_const({1, 1})});
    ValueId out = cx.b.concat({bc_cols, cx.b.reshape(box, cx.b.concat({kk, cx.b.shape_const({1})}, 0))}, 1);
    cx.set_output(n, 0, out);
  }
  return cx.error();
}

// ---- RoiAlign ---------------------------------------------------------------------------------

struct AxisSamples {
  ValueId low, high, w_low, w_high, invalid;  // [R, out, g]
};

// The sample coordinates along one axis (ONNX reference pre_calc_for_bilinear_interpolate):
// c = start + p * bin + (i + 0.5) * bin / g, for bin p < out and sample i < g.
AxisSamples axis_samples(LowerCtx& cx, ValueId start, ValueId binsz, ValueId g, int64_t r, int64_t out,
                         int64_t extent, DType ct, std::optional<int64_t> static_g) {
  ValueId shape = static_g
                      ? cx.b.shape_const({r, out, *static_g})
                      : cx.b.concat({cx.b.shape_const({r, out}), cx.b.reshape(g, cx.b.shape_const({1}))}, 0);
  auto b3 = [&](ValueId v) { return cx.b.broadcast(v, shape, {0}); };
  auto s3 = [&](double v) { return cx.b.broadcast(cx.b.scalar_float(ct, v), shape, {}); };
  ValueId pf = cx.b.cast(cx.b.iota(shape, DType::I64, 1), ct);
  ValueId jf = cx.b.cast(cx.b.emit1(ir::IotaAttrs{DType::I64, 2}, {shape}), ct);
  ValueId gf = cx.b.broadcast(cx.b.cast(g, ct), shape, {});
  ValueId bn = b3(binsz);
  ValueId c = bin(cx, BK::Add, bin(cx, BK::Add, b3(start), bin(cx, BK::Mul, pf, bn)),
                  bin(cx, BK::Div, bin(cx, BK::Mul, bin(cx, BK::Add, jf, s3(0.5)), bn), gf));
  AxisSamples a;
  a.invalid =
      cx.b.binary(BK::Or, cmp(cx, CK::Lt, c, s3(-1.0)), cmp(cx, CK::Gt, c, s3(static_cast<double>(extent))));
  c = bin(cx, BK::Max, c, s3(0));
  ValueId lowf = cx.b.unary(UK::Floor, c);
  ValueId top = s3(static_cast<double>(extent - 1));
  ValueId at_end = cmp(cx, CK::Ge, lowf, top);
  lowf = cx.b.select(at_end, top, lowf);
  c = cx.b.select(at_end, top, c);
  ValueId l = bin(cx, BK::Sub, c, lowf);
  a.w_high = l;
  a.w_low = bin(cx, BK::Sub, s3(1.0), l);
  a.low = cx.b.cast(lowf, DType::I64);
  a.high = cx.b.select(at_end, a.low,
                       bin(cx, BK::Add, a.low, cx.b.broadcast(cx.b.scalar_int(DType::I64, 1), shape, {})));
  return a;
}

struct RoiAlignAttrs {
  bool max_mode = false, half_pixel = false;
  int64_t oh = 1, ow = 1, sampling = 0;
  double scale = 1.0;
};

// RoiAlign of R RoIs with an (R-wide) grid gh x gw: [R, C, oh, ow] in the compute dtype.
// xt: X as [N * H * W, C] (compute dtype); x1, y1, bin_w, bin_h, bidx: [R]; gh, gw: i64 scalars
// (static_g: their value when known at lowering time, for static shapes).
ValueId roi_align_block(LowerCtx& cx, const RoiAlignAttrs& at, ValueId xt, int64_t h, int64_t w, int64_t c,
                        ValueId x1, ValueId y1, ValueId bin_w, ValueId bin_h, ValueId bidx, ValueId gh,
                        ValueId gw, std::optional<int64_t> static_g, int64_t r, DType ct) {
  AxisSamples ys = axis_samples(cx, y1, bin_h, gh, r, at.oh, h, ct, static_g);
  AxisSamples xs = axis_samples(cx, x1, bin_w, gw, r, at.ow, w, ct, static_g);
  auto one = [&](ValueId v) { return cx.b.reshape(v, cx.b.shape_const({1})); };
  ValueId s5 =
      static_g ? cx.b.shape_const({r, at.oh, *static_g, at.ow, *static_g})
               : cx.b.concat({cx.b.shape_const({r, at.oh}), one(gh), cx.b.shape_const({at.ow}), one(gw)}, 0);
  auto by = [&](ValueId v) { return cx.b.broadcast(v, s5, {0, 1, 2}); };
  auto bx = [&](ValueId v) { return cx.b.broadcast(v, s5, {0, 3, 4}); };
  ValueId invalid = cx.b.binary(BK::Or, by(ys.invalid), bx(xs.invalid));
  ValueId zero_f = cx.b.broadcast(cx.b.scalar_float(ct, 0), s5, {});
  ValueId zero_i = cx.b.broadcast(cx.b.scalar_int(DType::I64, 0), s5, {});
  // Invalid samples read position 0 with weight 0 (as the reference does).
  auto wgt = [&](ValueId wy, ValueId wx) {
    return cx.b.select(invalid, zero_f, bin(cx, BK::Mul, by(wy), bx(wx)));
  };
  // Flat row (b * H + y) * W + x of xt.
  ValueId base =
      bin(cx, BK::Mul, cx.b.broadcast(bidx, s5, {0}), cx.b.broadcast(cx.b.scalar_int(DType::I64, h), s5, {}));
  ValueId wv = cx.b.broadcast(cx.b.scalar_int(DType::I64, w), s5, {});
  auto corner = [&](ValueId yi, ValueId xi) {
    ValueId flat = bin(cx, BK::Add, bin(cx, BK::Mul, bin(cx, BK::Add, base, by(yi)), wv), bx(xi));
    return cx.b.gather(ir::GatherKind::Axis, xt, cx.b.select(invalid, zero_i, flat), 0);
  };
  ValueId s6c = static_g ? cx.b.shape_const({r, at.oh, *static_g, at.ow, *static_g, c})
                         : cx.b.concat({s5, cx.b.shape_const({c})}, 0);
  auto bw = [&](ValueId v) { return cx.b.broadcast(v, s6c, {0, 1, 2, 3, 4}); };
  ValueId t1 = bin(cx, BK::Mul, bw(wgt(ys.w_low, xs.w_low)), corner(ys.low, xs.low));
  ValueId t2 = bin(cx, BK::Mul, bw(wgt(ys.w_low, xs.w_high)), corner(ys.low, xs.high));
  ValueId t3 = bin(cx, BK::Mul, bw(wgt(ys.w_high, xs.w_low)), corner(ys.high, xs.low));
  ValueId t4 = bin(cx, BK::Mul, bw(wgt(ys.w_high, xs.w_high)), corner(ys.high, xs.high));
  ValueId count = bin(cx, BK::Mul, gh, gw);
  ValueId pooled;  // [R, oh, ow, C]
  if (at.max_mode) {
    // The ONNX reference's max mode: the largest weighted corner value w_i * v_i over the samples
    // (not the interpolated value); 0 when the grid is empty.
    ValueId v = bin(cx, BK::Max, bin(cx, BK::Max, bin(cx, BK::Max, t1, t2), t3), t4);
    pooled = cx.b.reduce(ir::ReduceKind::Max, v, {2, 4});
    ValueId empty = cmp(cx, CK::Eq, count, cx.b.scalar_int(DType::I64, 0));
    pooled = cx.b.select(cx.b.broadcast(empty, cx.b.shape_const({r, at.oh, at.ow, c}), {}),
                         splat(cx, 0, pooled), pooled);
  } else {
    ValueId v = cx.b.cast(bin(cx, BK::Add, bin(cx, BK::Add, bin(cx, BK::Add, t1, t2), t3), t4), DType::F64);
    ValueId sum = cx.b.reduce(ir::ReduceKind::Sum, v, {2, 4});
    ValueId cnt = cx.b.cast(bin(cx, BK::Max, count, cx.b.scalar_int(DType::I64, 1)), DType::F64);
    pooled =
        cx.b.cast(bin(cx, BK::Div, sum, cx.b.broadcast(cnt, cx.b.shape_const({r, at.oh, at.ow, c}), {})), ct);
  }
  pooled = cx.b.reshape(pooled, cx.b.shape_const({r, at.oh, at.ow, c}));  // static type for the loop
  return cx.b.transpose(pooled, {0, 3, 1, 2});
}

// Per-RoI geometry: x1, y1, bin_w, bin_h ([R] each), and roi_w, roi_h.
struct RoiGeometry {
  ValueId x1, y1, bin_w, bin_h, roi_w, roi_h;
};

RoiGeometry roi_geometry(LowerCtx& cx, const RoiAlignAttrs& at, ValueId rois, int64_t r, DType ct) {
  const ValueId rs = cx.b.shape_const({r});
  auto col = [&](int64_t k) {
    ValueId v = cx.b.reshape(static_slice(cx, rois, {0, k}, {r, 1}), rs);
    v = bin(cx, BK::Mul, v, splat(cx, at.scale, v));
    return at.half_pixel ? bin(cx, BK::Sub, v, splat(cx, 0.5, v)) : v;
  };
  RoiGeometry g;
  g.x1 = col(0), g.y1 = col(1);
  ValueId x2 = col(2), y2 = col(3);
  g.roi_w = bin(cx, BK::Sub, x2, g.x1);
  g.roi_h = bin(cx, BK::Sub, y2, g.y1);
  if (!at.half_pixel) {
    g.roi_w = bin(cx, BK::Max, g.roi_w, splat(cx, 1, g.roi_w));
    g.roi_h = bin(cx, BK::Max, g.roi_h, splat(cx, 1, g.roi_h));
  }
  g.bin_h = bin(cx, BK::Div, g.roi_h, splat(cx, static_cast<double>(at.oh), g.roi_h));
  g.bin_w = bin(cx, BK::Div, g.roi_w, splat(cx, static_cast<double>(at.ow), g.roi_w));
  return g;
}

Status lower_roi_align(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId rois, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId bidx, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  RoiAlignAttrs at;
  PLUMB_ASSIGN_OR_RETURN(std::string mode, n.attr_string("mode", "avg"));
  PLUMB_ASSIGN_OR_RETURN(at.oh, n.attr_int("output_height", 1));
  PLUMB_ASSIGN_OR_RETURN(at.ow, n.attr_int("output_width", 1));
  PLUMB_ASSIGN_OR_RETURN(at.sampling, n.attr_int("sampling_ratio", 0));
  PLUMB_ASSIGN_OR_RETURN(float scale, n.attr_float("spatial_scale", 1.0f));
  at.scale = scale;
  std::string ctm = "output_half_pixel";  // RoiAlign-10 has no attribute and no pixel shift
  if (cx.opset() >= 16) {
    PLUMB_ASSIGN_OR_RETURN(ctm, n.attr_string("coordinate_transformation_mode", "half_pixel"));
  }
  if (mode != "avg" && mode != "max") return cx.invalid("RoiAlign mode '" + mode + "' is not avg or max");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return cx.invalid("RoiAlign coordinate_transformation_mode '" + ctm +
                      "' is not half_pixel or output_half_pixel");
  if (at.oh < 1 || at.ow < 1 || at.sampling < 0)
    return cx.invalid("RoiAlign output size < 1 or sampling_ratio < 0");
  at.max_mode = mode == "max";
  at.half_pixel = ctm == "half_pixel";
  const ir::Type xt = cx.type(x), rt = cx.type(rois), it = cx.type(bidx);
  if (!is_static(xt) || !is_static(rt) || !is_static(it)) return cx.unsupported("RoiAlign on symbolic dims");
  if (xt.rank() != 4 || rt.rank() != 2 || rt.shape[1].size != 4 || it.rank() != 1 ||
      it.shape[0].size != rt.shape[0].size)
    return cx.invalid("RoiAlign needs X [N, C, H, W], rois [R, 4], batch_indices [R]");
  const std::vector<int64_t> xd = static_dims(xt);
  const int64_t c = xd[1], h = xd[2], w = xd[3], r = rt.shape[0].size;
  const DType ct = compute_dtype(xt.dtype);
  ValueId xhwc =
      cx.b.reshape(cx.b.transpose(to_compute(cx, x), {0, 2, 3, 1}), cx.b.shape_const({xd[0] * h * w, c}));
  ValueId rc = to_compute(cx, rois);
  ValueId bi = cx.b.cast(bidx, DType::I64);
  ValueId y;
  if (at.sampling > 0) {
    RoiGeometry g = roi_geometry(cx, at, rc, r, ct);
    ValueId gs = cx.b.scalar_int(DType::I64, at.sampling);
    y = roi_align_block(cx, at, xhwc, h, w, c, g.x1, g.y1, g.bin_w, g.bin_h, bi, gs, gs, at.sampling, r, ct);
  } else {
    // Adaptive grid: ceil(roi_h / oh) x ceil(roi_w / ow) samples, per RoI: a loop over the RoIs.
    const ir::Type tk = ir::Type::tensor(DType::I64, ir::static_shape({}));
    const ir::Type ty = ir::Type::tensor(ct, ir::static_shape({r, c, at.oh, at.ow}));
    auto cp = cx.b.begin_region({tk, ty});
    ir::Region cond = cx.b.end_region({cmp(cx, CK::Lt, cp[0], cx.b.scalar_int(DType::I64, r))});
    auto p = cx.b.begin_region({tk, ty});
    ValueId k1 = cx.b.reshape(p[0], cx.b.shape_const({1}));
    ValueId roi = cx.b.gather(ir::GatherKind::Axis, rc, k1, 0);  // [1, 4]
    ValueId b1 = cx.b.gather(ir::GatherKind::Axis, bi, k1, 0);   // [1]
    RoiGeometry g = roi_geometry(cx, at, roi, 1, ct);
    auto grid = [&](ValueId extent, int64_t out) {
      ValueId q = cx.b.unary(UK::Ceil, bin(cx, BK::Div, extent, splat(cx, static_cast<double>(out), extent)));
      q = cx.b.reshape(cx.b.cast(q, DType::I64), cx.b.shape_const({}));
      return bin(cx, BK::Max, q, cx.b.scalar_int(DType::I64, 0));
    };
    ValueId one = roi_align_block(cx, at, xhwc, h, w, c, g.x1, g.y1, g.bin_w, g.bin_h, b1,
                                  grid(g.roi_h, at.oh), grid(g.roi_w, at.ow), std::nullopt, 1, ct);
    ValueId acc = cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Nd, 0, ir::ScatterReduction::None},
                             {p[1], cx.b.reshape(p[0], cx.b.shape_const({1, 1})), one});
    ir::Region body = cx.b.end_region({bin(cx, BK::Add, p[0], cx.b.scalar_int(DType::I64, 1)), acc});
    ValueId init = cx.b.broadcast(cx.b.scalar_float(ct, 0), cx.b.shape_const({r, c, at.oh, at.ow}), {});
    auto res = cx.b.while_({cx.b.scalar_int(DType::I64, 0), init}, std::move(cond), std::move(body));
    if (res.size() < 2) return cx.error();
    y = res[1];
  }
  cx.set_output(n, 0, from_compute(cx, y, xt.dtype));
  return cx.error();
}

// ---- MaxRoiPool -------------------------------------------------------------------------------

// round half away from zero (std::round, as onnxruntime), computed in f64.
ValueId round_away(LowerCtx& cx, ValueId v) {
  ValueId d = cx.b.cast(v, DType::F64);
  ValueId a = cx.b.unary(UK::Floor, bin(cx, BK::Add, cx.b.unary(UK::Abs, d), splat(cx, 0.5, d)));
  ValueId neg = cmp(cx, CK::Lt, d, splat(cx, 0, d));
  return cx.b.cast(cx.b.select(neg, cx.b.unary(UK::Neg, a), a), DType::I64);
}

// MaxRoiPool-1 (onnxruntime's definition; ONNX gives no formula): rois [R, 5] = (batch, x1, y1,
// x2, y2); corners round(c * spatial_scale) (half away from zero); RoI size max(end - start + 1, 1);
// bin p covers [floor(p * size / pooled) + start, ceil((p + 1) * size / pooled) + start) clipped to
// the map; an empty bin gives 0, else the max of the bin (NaN if the bin holds a NaN).
Status lower_max_roi_pool(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId rois, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> pooled, n.attr_ints("pooled_shape", {}));
  PLUMB_ASSIGN_OR_RETURN(float scale, n.attr_float("spatial_scale", 1.0f));
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1)
    return cx.invalid("MaxRoiPool pooled_shape must be two sizes >= 1");
  const ir::Type xt = cx.type(x), rt = cx.type(rois);
  if (!is_static(xt) || !is_static(rt)) return cx.unsupported("MaxRoiPool on symbolic dims");
  if (xt.rank() != 4 || rt.rank() != 2 || rt.shape[1].size != 5)
    return cx.invalid("MaxRoiPool needs X [N, C, H, W] and rois [R, 5]");
  const std::vector<int64_t> xd = static_dims(xt);
  const int64_t c = xd[1], h = xd[2], w = xd[3], r = rt.shape[0].size, ph = pooled[0], pw = pooled[1];
  const DType ct = compute_dtype(xt.dtype);
  ValueId rc = to_compute(cx, rois);
  const ValueId rs = cx.b.shape_const({r});
  auto col = [&](int64_t k) { return cx.b.reshape(static_slice(cx, rc, {0, k}, {r, 1}), rs); };
  auto scaled = [&](int64_t k) {
    ValueId v = col(k);
    return round_away(cx, bin(cx, BK::Mul, v, splat(cx, scale, v)));
  };
  ValueId batch = cx.b.cast(col(0), DType::I64);
  // [R, P, E] mask of the map positions inside each bin, and [R, P] emptiness.
  auto bins = [&](ValueId start, ValueId end, int64_t p, int64_t extent, ValueId* mask, ValueId* empty) {
    ValueId size = bin(cx, BK::Sub, end, start);
    size = bin(cx, BK::Add, size, splat(cx, 1, size));
    size = bin(cx, BK::Max, size, splat(cx, 1, size));
    ValueId rp = cx.b.shape_const({r, p});
    ValueId binsz = bin(cx, BK::Div, cx.b.cast(size, DType::F32),
                        splat(cx, static_cast<double>(p), cx.b.cast(size, DType::F32)));
    ValueId binb = cx.b.broadcast(binsz, rp, {0});
    ValueId pi = cx.b.cast(cx.b.iota(rp, DType::I64, 1), DType::F32);
    ValueId lo = cx.b.cast(cx.b.unary(UK::Floor, bin(cx, BK::Mul, pi, binb)), DType::I64);
    ValueId hi = cx.b.cast(
        cx.b.unary(UK::Ceil, bin(cx, BK::Mul, bin(cx, BK::Add, pi, splat(cx, 1, pi)), binb)), DType::I64);
    ValueId st = cx.b.broadcast(start, rp, {0});
    auto clip = [&](ValueId v) {
      v = bin(cx, BK::Add, v, st);
      v = bin(cx, BK::Max, v, splat(cx, 0, v));
      return bin(cx, BK::Min, v, splat(cx, static_cast<double>(extent), v));
    };
    lo = clip(lo);
    hi = clip(hi);
    *empty = cmp(cx, CK::Le, hi, lo);
    ValueId rpe = cx.b.shape_const({r, p, extent});
    ValueId e = cx.b.iota(rpe, DType::I64, 2);
    *mask = land(cx, cmp(cx, CK::Ge, e, cx.b.broadcast(lo, rpe, {0, 1})),
                 cmp(cx, CK::Lt, e, cx.b.broadcast(hi, rpe, {0, 1})));
  };
  ValueId hmask, hempty, wmask, wempty;
  bins(scaled(2), scaled(4), ph, h, &hmask, &hempty);
  bins(scaled(1), scaled(3), pw, w, &wmask, &wempty);
  ValueId xg = cx.b.gather(ir::GatherKind::Axis, to_compute(cx, x), batch, 0);  // [R, C, H, W]
  const double ninf = -std::numeric_limits<double>::infinity();
  ValueId s1 = cx.b.shape_const({r, c, h, pw, w});
  ValueId t1 = cx.b.select(cx.b.broadcast(wmask, s1, {0, 3, 4}), cx.b.broadcast(xg, s1, {0, 1, 2, 4}),
                           cx.b.broadcast(cx.b.scalar_float(ct, ninf), s1, {}));
  ValueId m1 = cx.b.reduce(ir::ReduceKind::Max, t1, {4});  // [R, C, H, pw]
  ValueId s2 = cx.b.shape_const({r, c, ph, h, pw});
  ValueId t2 = cx.b.select(cx.b.broadcast(hmask, s2, {0, 2, 3}), cx.b.broadcast(m1, s2, {0, 1, 3, 4}),
                           cx.b.broadcast(cx.b.scalar_float(ct, ninf), s2, {}));
  ValueId m2 = cx.b.reduce(ir::ReduceKind::Max, t2, {3});  // [R, C, ph, pw]
  ValueId s3 = cx.b.shape_const({r, c, ph, pw});
  ValueId empty = cx.b.binary(BK::Or, cx.b.broadcast(hempty, s3, {0, 2}), cx.b.broadcast(wempty, s3, {0, 3}));
  ValueId y = cx.b.select(empty, splat(cx, 0, m2), m2);
  cx.set_output(n, 0, from_compute(cx, y, xt.dtype));
  return cx.error();
}

}  // namespace

void register_detection(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"NonMaxSuppression", 10, lower_non_max_suppression}, {"RoiAlign", 10, lower_roi_align},
      {"MaxRoiPool", 1, lower_max_roi_pool}});
  // clang-format on
}

}  // namespace plumb::lower
