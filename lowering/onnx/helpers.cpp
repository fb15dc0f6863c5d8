#include "lowering/onnx/helpers.h"

namespace plumb::lower {

int64_t rank_of(LowerCtx& cx, ir::ValueId v) { return cx.rank(v); }

ir::ValueId shape_value(LowerCtx& cx, ir::ValueId v) {
  const ir::Type& t = cx.type(v);
  if (t.ranked && ir::shape_is_static(t.shape)) {
    std::vector<int64_t> dims;
    for (const ir::Dim& d : t.shape) dims.push_back(d.size);
    return cx.b.shape_const(dims);
  }
  return cx.b.shape_of(v);
}

namespace {

// `shape` (i64[k]) padded on the left with ones to length r.
ir::ValueId pad_shape_left(LowerCtx& cx, ir::ValueId shape, int64_t k, int64_t r) {
  if (k == r) return shape;
  ir::ValueId ones =
      cx.b.const_ints(ir::DType::I64, {r - k}, std::vector<int64_t>(static_cast<size_t>(r - k), 1));
  return cx.b.concat({ones, shape}, 0);
}

}  // namespace

ir::ValueId broadcast_to(LowerCtx& cx, ir::ValueId v, ir::ValueId shape, int64_t rank) {
  const int64_t k = rank_of(cx, v);
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < k; ++i) dims.push_back(rank - k + i);
  return cx.b.broadcast(v, shape, dims);
}

namespace {
bool same_known_shape(const ir::Shape& a, const ir::Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] || (!a[i].is_static() && a[i].sym.empty())) return false;
  return true;
}
}  // namespace

Expected<std::vector<ir::ValueId>> broadcast_all(LowerCtx& cx, std::vector<ir::ValueId> vals) {
  if (vals.empty()) return vals;
  // Identical shapes (static, or the same named symbolic dims): nothing to broadcast.
  bool identical = true;
  for (ir::ValueId v : vals)
    identical = identical && same_known_shape(cx.type(v).shape, cx.type(vals[0]).shape);
  if (identical) return vals;

  int64_t r = 0;
  bool all_static = true;
  for (ir::ValueId v : vals) {
    r = std::max(r, rank_of(cx, v));
    all_static = all_static && ir::shape_is_static(cx.type(v).shape);
  }
  ir::ValueId shape = ir::kNoValue;
  std::vector<int64_t> dims(static_cast<size_t>(r), 1);
  if (all_static) {
    for (ir::ValueId v : vals) {
      const ir::Shape& s = cx.type(v).shape;
      const int64_t off = r - static_cast<int64_t>(s.size());
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t& d = dims[off + i];
        const int64_t e = s[i].size;
        if (e == 1) continue;
        if (d != 1 && d != e)
          return cx.invalid("operand shapes " + ir::shape_to_string(cx.type(vals[0]).shape) + " and " +
                            ir::shape_to_string(s) + " cannot be broadcast together");
        d = e;
      }
    }
    shape = cx.b.shape_const(dims);
  } else {
    // result_d = acc_d == 1 ? v_d : acc_d, folded over the operands (also right for 0-size dims).
    ir::ValueId one = cx.b.const_ints(ir::DType::I64, {r}, std::vector<int64_t>(static_cast<size_t>(r), 1));
    for (ir::ValueId v : vals) {
      ir::ValueId s = pad_shape_left(cx, shape_value(cx, v), rank_of(cx, v), r);
      shape =
          shape == ir::kNoValue ? s : cx.b.select(cx.b.compare(ir::CompareKind::Eq, shape, one), s, shape);
    }
  }
  std::vector<ir::ValueId> out;
  for (ir::ValueId v : vals) {
    const ir::Type& t = cx.type(v);
    if (all_static && t.rank() == r && t.shape == ir::static_shape(dims))
      out.push_back(v);
    else
      out.push_back(broadcast_to(cx, v, shape, r));
  }
  return out;
}

Expected<int64_t> normalize_axis(LowerCtx& cx, int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank)
    return cx.invalid(strfmt("%s %lld out of range for rank %lld", what, (long long)axis, (long long)rank));
  return axis < 0 ? axis + rank : axis;
}

ir::DType compute_dtype(ir::DType dt) {
  if (dt == ir::DType::F32 || dt == ir::DType::F64 || !ir::is_float(dt)) return dt;
  return ir::DType::F32;
}

ir::ValueId to_compute(LowerCtx& cx, ir::ValueId v) {
  const ir::DType dt = cx.type(v).dtype;
  const ir::DType c = compute_dtype(dt);
  return c == dt ? v : cx.b.cast(v, c);
}

ir::ValueId from_compute(LowerCtx& cx, ir::ValueId v, ir::DType original) {
  return cx.type(v).dtype == original ? v : cx.b.cast(v, original, /*saturate=*/true);
}

ir::ValueId to_f64(LowerCtx& cx, ir::ValueId v) {
  return cx.type(v).dtype == ir::DType::F64 ? v : cx.b.cast(v, ir::DType::F64);
}

ir::ValueId from_f64(LowerCtx& cx, ir::ValueId v, ir::DType dt) {
  return dt == ir::DType::F64 ? v : cx.b.cast(v, dt, /*saturate=*/true);
}

F64Range f64_int_range(ir::DType dt) {
  switch (dt) {
    case ir::DType::I8: return {-128, 127};
    case ir::DType::U8: return {0, 255};
    case ir::DType::I16: return {-32768, 32767};
    case ir::DType::U16: return {0, 65535};
    case ir::DType::I32: return {-2147483648.0, 2147483647.0};
    case ir::DType::U32: return {0, 4294967295.0};
    case ir::DType::I64: return {-9223372036854775808.0, 9223372036854774784.0};
    case ir::DType::U64: return {0, 18446744073709549568.0};
    default: return {};
  }
}

ir::ValueId scalar_like(LowerCtx& cx, double v, ir::ValueId like) {
  const ir::DType dt = cx.type(like).dtype;
  if (ir::is_float(dt)) return cx.b.scalar_float(dt, v);
  // A NaN, an infinity or a value past int64 has no integer (converting it is undefined): a rule
  // asked for one on an integer input a hostile model gave it (fuzz_onnx_model: IsInf on int32).
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
    cx.b.fail_with(invalid_model(
        "", strfmt("the constant %g has no %s value (the input's type does not fit the operator)", v,
                   std::string(ir::dtype_name(dt)).c_str())));
    return ir::kNoValue;
  }
  return cx.b.scalar_int(dt, static_cast<int64_t>(v));
}

ir::ValueId splat(LowerCtx& cx, double v, ir::ValueId like) {
  ir::ValueId s = scalar_like(cx, v, like);
  const int64_t r = rank_of(cx, like);
  if (r == 0) return s;
  return cx.b.broadcast(s, shape_value(cx, like), {});
}

bool is_static(const ir::Type& t) { return t.ranked && ir::shape_is_static(t.shape); }

std::vector<int64_t> static_dims(const ir::Type& t) {
  std::vector<int64_t> d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

ir::ValueId as_i64_1(LowerCtx& cx, ir::ValueId v) {
  if (cx.type(v).dtype != ir::DType::I64) v = cx.b.cast(v, ir::DType::I64);
  return cx.b.reshape(v, cx.b.shape_const({1}));
}

ir::ValueId with_dim(LowerCtx& cx, ir::ValueId shape, int64_t r, int64_t axis, ir::ValueId entry) {
  std::vector<ir::ValueId> parts;
  if (axis > 0) parts.push_back(static_slice(cx, shape, {0}, {axis}));
  parts.push_back(entry);
  if (axis + 1 < r) parts.push_back(static_slice(cx, shape, {axis + 1}, {r - axis - 1}));
  return parts.size() == 1 ? parts[0] : cx.b.concat(parts, 0);
}

ir::ValueId leading_slice(LowerCtx& cx, ir::ValueId x, ir::ValueId size) {
  const size_t r = static_cast<size_t>(rank_of(cx, x));
  return cx.b.emit1(ir::SliceAttrs{}, {x, cx.b.shape_const(std::vector<int64_t>(r, 0)), size,
                                       cx.b.shape_const(std::vector<int64_t>(r, 1))});
}

ir::ValueId static_slice(LowerCtx& cx, ir::ValueId x, std::vector<int64_t> start, std::vector<int64_t> size) {
  std::vector<int64_t> stride(start.size(), 1);
  return cx.b.emit1(ir::SliceAttrs{},
                    {x, cx.b.shape_const(std::move(start)), cx.b.shape_const(std::move(size)),
                     cx.b.shape_const(std::move(stride))});
}

}  // namespace plumb::lower
