#include "lowering/onnx/ml_common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/narrow_float.h"
#include "lowering/onnx/helpers.h"

namespace plumb::lower::ml {

using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;
using RK = ir::ReduceKind;

// ---- small builders ------------------------------------------------------------------------------

ValueId bin(LowerCtx& cx, ir::BinaryKind k, ValueId a, ValueId b) { return cx.b.binary(k, a, b); }

ValueId arg_reduce(LowerCtx& cx, ir::ArgKind kind, ValueId x, int64_t axis, bool last) {
  return cx.b.emit1(ir::ArgReduceAttrs{kind, axis, last}, {x});
}

ValueId string_const(LowerCtx& cx, Ints dims, const Strings& values) {
  return cx.b.constant(onnx::Tensor::from_strings("", std::move(dims), values).to_constant());
}
ValueId f64_const(LowerCtx& cx, Ints dims, const Doubles& values) {
  return cx.b.const_floats(kF64, dims, values);
}
ValueId i64_const(LowerCtx& cx, Ints dims, const Ints& values) {
  return cx.b.const_ints(DType::I64, dims, values);
}

// `shape` (i64[k]) followed by `extra` static dims.
ValueId shape_plus(LowerCtx& cx, ValueId v, const Ints& extra) {
  ValueId s = shape_value(cx, v);
  if (extra.empty()) return s;
  if (rank_of(cx, v) == 0) return cx.b.shape_const(extra);
  return cx.b.concat({s, cx.b.shape_const(extra)}, 0);
}
// Dims 0..r-1 of a rank-r operand placed first in a broadcast.
Ints leading(int64_t r) {
  Ints d;
  for (int64_t i = 0; i < r; ++i) d.push_back(i);
  return d;
}
// Rank-0 or 1-D constant `c` broadcast to `shape` (rank r), its dims at `dims`.
ValueId spread(LowerCtx& cx, ValueId c, ValueId shape, Ints dims) {
  return cx.b.broadcast(c, shape, std::move(dims));
}

// [C] -> [1, C]; [N, C] unchanged; other ranks are an error.
Expected<ValueId> as_2d(LowerCtx& cx, const OnnxNode& n, ValueId x) {
  const int64_t r = rank_of(cx, x);
  if (r == 2) return x;
  if (r == 1) {
    const ir::Dim d = cx.dim(x, 0);
    ValueId shape = d.is_static() ? cx.b.shape_const({1, d.size})
                                  : cx.b.concat({cx.b.shape_const({1}), cx.b.shape_of(x)}, 0);
    return cx.b.reshape(x, shape);
  }
  return cx.invalid(n.op_type + " input must be [C] or [N, C]; got rank " + std::to_string(r));
}
// [N, k] as an i64[2] value, N = dim 0 of x2.
ValueId rows_by(LowerCtx& cx, ValueId x2, int64_t k) {
  const ir::Dim d = cx.dim(x2, 0);
  if (d.is_static()) return cx.b.shape_const({d.size, k});
  ValueId n = cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(x2), cx.b.shape_const({0}), cx.b.shape_const({1}),
                                            cx.b.shape_const({1})});
  return cx.b.concat({n, cx.b.shape_const({k})}, 0);
}

// The feature count (dim 1) of a 2-D value: its static size; when symbolic, `from_attrs` (the
// count the node's attributes fix, > 0; the run-time shapes are checked again by the matmul or
// broadcast that reads x), else an Unsupported error.
Expected<int64_t> feature_count(LowerCtx& cx, const OnnxNode& n, ValueId x2, int64_t from_attrs) {
  const ir::Dim d = cx.dim(x2, 1);
  if (d.is_static()) return d.size;
  if (from_attrs > 0) return from_attrs;
  return cx.unsupported(n.op_type + " with a symbolic feature count its attributes do not fix");
}
// a / b when b > 0 divides a, else 0 (no count).
int64_t exact_quotient(size_t a, int64_t b) {
  return b > 0 && a % static_cast<size_t>(b) == 0 ? static_cast<int64_t>(a) / b : 0;
}

// ---- attributes ------------------------------------------------------------------------------

Strings attr_strings(const OnnxNode& n, const char* name) {
  const onnx::OnnxAttribute* a = n.attr(name);
  return a ? a->strings : Strings{};
}
Ints attr_ints(const OnnxNode& n, const char* name) {
  const onnx::OnnxAttribute* a = n.attr(name);
  return a ? a->ints : Ints{};
}
Doubles attr_doubles(const OnnxNode& n, const char* name) {
  const onnx::OnnxAttribute* a = n.attr(name);
  Doubles out;
  if (a)
    for (float f : a->floats) out.push_back(f);
  return out;
}
const onnx::Tensor* attr_tensor(const OnnxNode& n, const char* name) {
  const onnx::OnnxAttribute* a = n.attr(name);
  return a && a->type == onnx::AttrType::Tensor ? &a->t : nullptr;
}
// The elements of a numeric tensor as doubles (integers widened), or an error.
Expected<Doubles> tensor_doubles(const onnx::Tensor& t) {
  const int bits = ir::dtype_bits(t.dtype);
  const int64_t count = t.num_elements();
  if (ir::is_string(t.dtype) || bits < 8 || static_cast<uint64_t>(count) * (bits / 8) != t.size)
    return unsupported("tensor attribute '" + t.name + "' of dtype " + std::string(ir::dtype_name(t.dtype)));
  const int bytes = bits / 8;
  Doubles out(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    uint64_t u = 0;
    for (int j = 0; j < bytes; ++j) u |= uint64_t{t.data[k * bytes + j]} << (8 * j);
    if (ir::is_float(t.dtype)) {
      out[k] = ir::float_bits_to_double(t.dtype, u);
    } else if (ir::is_signed_int(t.dtype) && bits < 64 && (u >> (bits - 1)) & 1) {
      out[k] = static_cast<double>(static_cast<int64_t>(u | (~uint64_t{0} << bits)));
    } else if (ir::is_signed_int(t.dtype)) {
      out[k] = static_cast<double>(static_cast<int64_t>(u));
    } else {
      out[k] = static_cast<double>(u);
    }
  }
  return out;
}
Expected<Ints> tensor_ints(const onnx::Tensor& t) {
  PLUMB_ASSIGN_OR_RETURN(Doubles d, tensor_doubles(t));
  return Ints(d.begin(), d.end());
}
// A float list given as `name` (FLOATS) or `name`_as_tensor (TENSOR, opset 3+).
Expected<Doubles> floats_or_tensor(const OnnxNode& n, const std::string& name) {
  if (const onnx::Tensor* t = attr_tensor(n, (name + "_as_tensor").c_str())) return tensor_doubles(*t);
  return attr_doubles(n, name.c_str());
}

// ---- post transforms (common to the classifiers and regressors) -------------------------------

Expected<Post> post_from_string(LowerCtx& cx, const std::string& s) {
  if (s == "NONE") return Post::kNone;
  if (s == "SOFTMAX") return Post::kSoftmax;
  if (s == "LOGISTIC") return Post::kLogistic;
  if (s == "SOFTMAX_ZERO") return Post::kSoftmaxZero;
  if (s == "PROBIT") return Post::kProbit;
  return cx.invalid("post_transform '" + s + "' is not one of NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT");
}
Expected<Post> post_attr(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(std::string s, n.attr_string("post_transform", "NONE"));
  return post_from_string(cx, s);
}

// Row max of f64 s [N, K] broadcast back to [N, K].
ValueId row_bcast(LowerCtx& cx, ValueId row, ValueId like) {
  return spread(cx, row, shape_value(cx, like), {0});
}

// The post transform of f64 scores s [N, K] (ONNX reference _common_classifier.py):
// LOGISTIC 1 / (1 + exp(-s)); SOFTMAX exp(s - max) / sum; SOFTMAX_ZERO the same except that
// entries with |s| <= 1e-7 become s * exp(-max) and an all-zero sum gives 0.5 everywhere;
// PROBIT sqrt(2) * erfinv(2 s - 1) with Winitzki's erfinv approximation (a = 0.147), as the
// reference and onnxruntime compute it.
ValueId post_transform(LowerCtx& cx, ValueId s, Post p) {
  auto k = [&](double c) { return splat(cx, c, s); };
  switch (p) {
    case Post::kNone: return s;
    case Post::kLogistic:
      return bin(cx, BK::Div, k(1.0), bin(cx, BK::Add, k(1.0), cx.b.unary(UK::Exp, cx.b.unary(UK::Neg, s))));
    case Post::kSoftmax: {
      ValueId e = cx.b.unary(UK::Exp, bin(cx, BK::Sub, s, row_bcast(cx, cx.b.reduce(RK::Max, s, {1}), s)));
      return bin(cx, BK::Div, e, row_bcast(cx, cx.b.reduce(RK::Sum, e, {1}), s));
    }
    case Post::kSoftmaxZero: {
      ValueId mx = row_bcast(cx, cx.b.reduce(RK::Max, s, {1}), s);
      ValueId big = cx.b.compare(CK::Gt, cx.b.unary(UK::Abs, s), k(1e-7));
      ValueId e = cx.b.select(big, cx.b.unary(UK::Exp, bin(cx, BK::Sub, s, mx)),
                              bin(cx, BK::Mul, s, cx.b.unary(UK::Exp, cx.b.unary(UK::Neg, mx))));
      ValueId sum = row_bcast(cx, cx.b.reduce(RK::Sum, e, {1}), s);
      return cx.b.select(cx.b.compare(CK::Eq, sum, k(0.0)), k(0.5), bin(cx, BK::Div, e, sum));
    }
    case Post::kProbit: {
      ValueId x = bin(cx, BK::Sub, bin(cx, BK::Mul, k(2.0), s), k(1.0));
      ValueId sgn = cx.b.select(cx.b.compare(CK::Lt, x, k(0.0)), k(-1.0), k(1.0));
      ValueId w = bin(cx, BK::Mul, bin(cx, BK::Sub, k(1.0), x), bin(cx, BK::Add, k(1.0), x));
      ValueId zero = cx.b.compare(CK::Eq, w, k(0.0));
      ValueId lg = cx.b.unary(UK::Log, cx.b.select(zero, k(1.0), w));
      ValueId v = bin(cx, BK::Add, k(2.0 / (M_PI * 0.147)), bin(cx, BK::Mul, k(0.5), lg));
      ValueId v2 = bin(cx, BK::Mul, k(1.0 / 0.147), lg);
      ValueId v3 = bin(cx, BK::Sub, cx.b.unary(UK::Sqrt, bin(cx, BK::Sub, bin(cx, BK::Mul, v, v), v2)), v);
      ValueId inv = cx.b.select(zero, k(0.0), bin(cx, BK::Mul, sgn, cx.b.unary(UK::Sqrt, v3)));
      return bin(cx, BK::Mul, k(1.41421356), inv);
    }
  }
  return s;
}

// ---- lookup tables -------------------------------------------------------------------------------

// y[i..] = values[j] for the last j with keys[j] == x[i..] (NaN keys match NaN), else dflt.
// keys: 1-D constant of x's dtype with K entries; values: 1-D of K; dflt: rank-0 of values' dtype.
ValueId lookup(LowerCtx& cx, ValueId x, ValueId keys, int64_t count, ValueId values, ValueId dflt,
               bool nan_key) {
  const int64_t r = rank_of(cx, x);
  ValueId out_shape = shape_value(cx, x);
  ValueId dflt_full = r == 0 ? dflt : spread(cx, dflt, out_shape, {});
  if (count == 0) return dflt_full;
  ValueId wide = shape_plus(cx, x, {count});
  ValueId xb = spread(cx, x, wide, leading(r));
  ValueId kb = spread(cx, keys, wide, {r});
  ValueId eq = cx.b.compare(CK::Eq, xb, kb);
  if (nan_key) {
    ValueId both_nan = bin(cx, BK::And, cx.b.compare(CK::Ne, xb, xb), cx.b.compare(CK::Ne, kb, kb));
    eq = bin(cx, BK::Or, eq, both_nan);
  }
  ValueId found = cx.b.reduce(RK::Max, eq, {r});
  ValueId at = arg_reduce(cx, ir::ArgKind::Max, eq, r, /*last=*/true);
  return cx.b.select(found, cx.b.gather(ir::GatherKind::Axis, values, at, 0), dflt_full);
}

ValueId table_const(LowerCtx& cx, const Table& t, Ints dims) {
  if (ir::is_string(t.dtype)) return string_const(cx, std::move(dims), t.strs);
  if (ir::is_float(t.dtype)) return cx.b.const_floats(t.dtype, std::move(dims), t.nums);
  return cx.b.const_ints(t.dtype, std::move(dims), Ints(t.nums.begin(), t.nums.end()));
}
ValueId table_1d(LowerCtx& cx, const Table& t) { return table_const(cx, t, {t.size()}); }
ValueId table_scalar(LowerCtx& cx, const Table& t) { return table_const(cx, t, {}); }
Expected<Table> table_of_tensor(const onnx::Tensor& t) {
  Table out;
  out.dtype = t.dtype;
  if (ir::is_string(t.dtype)) {
    PLUMB_ASSIGN_OR_RETURN(out.strs, t.strings());
  } else {
    PLUMB_ASSIGN_OR_RETURN(out.nums, tensor_doubles(t));
  }
  return out;
}

// Labels for f64 scores s [N, K]: the label at argmax (first maximum), from `ints` or `strs`
// (or the index itself when neither is given).
ValueId label_at_argmax(LowerCtx& cx, ValueId s, const Ints& ints, const Strings& strs) {
  ValueId am = arg_reduce(cx, ir::ArgKind::Max, s, 1, false);
  if (!strs.empty())
    return cx.b.gather(ir::GatherKind::Axis, string_const(cx, {static_cast<int64_t>(strs.size())}, strs), am,
                       0);
  if (!ints.empty())
    return cx.b.gather(ir::GatherKind::Axis, i64_const(cx, {static_cast<int64_t>(ints.size())}, ints), am, 0);
  return am;
}

}  // namespace plumb::lower::ml
