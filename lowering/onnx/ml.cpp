// Lowering rules for the ai.onnx.ml operators (domain "ai.onnx.ml", opsets 1..5).
//
// Conventions shared by the rules below (they follow the ONNX reference implementation,
// onnx/reference/ops/aionnxml, wherever the operator text leaves a point open):
// - A 1-D input [C] of the classifier/regressor/normalizer family is one example, [1, C].
// - Scores and other float results are computed in f64 from the inputs and attribute values and
//   rounded once to the result dtype (f32 unless the operator says otherwise).
// - Lookups (LabelEncoder, CategoryMapper, OneHotEncoder, DictVectorizer) compare every element
//   with every key at once ([.., K] compare), so a table of K keys costs a fixed number of core
//   nodes; the value is taken with a gather at the (last, when keys repeat) matching key.
// - Tree ensembles walk every tree for every example in lock step: a [N, T] tensor of node
//   positions is advanced max-depth times (gather of the node's condition, select of the child).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/narrow_float.h"
#include "lowering/onnx/containers.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;
using RK = ir::ReduceKind;

namespace {

using Ints = std::vector<int64_t>;
using Doubles = std::vector<double>;
using Strings = std::vector<std::string>;
constexpr DType kF64 = DType::F64;
const char* const kMl = "ai.onnx.ml";

// ---- small builders ------------------------------------------------------------------------------

ValueId bin(LowerCtx& cx, ir::BinaryKind k, ValueId a, ValueId b) { return cx.b.binary(k, a, b); }

ValueId arg_reduce(LowerCtx& cx, ir::ArgKind kind, ValueId x, int64_t axis, bool last) {
  return cx.b.arg_reduce(kind, x, axis, last);
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
    const ir::Dim d = cx.type(x).shape[0];
    ValueId shape = d.is_static() ? cx.b.shape_const({1, d.size})
                                  : cx.b.concat({cx.b.shape_const({1}), cx.b.shape_of(x)}, 0);
    return cx.b.reshape(x, shape);
  }
  return cx.invalid(n.op_type + " input must be [C] or [N, C]; got rank " + std::to_string(r));
}
// [N, k] as an i64[2] value, N = dim 0 of x2.
ValueId rows_by(LowerCtx& cx, ValueId x2, int64_t k) {
  const ir::Dim d = cx.type(x2).shape[0];
  if (d.is_static()) return cx.b.shape_const({d.size, k});
  ValueId n =
      cx.b.slice(cx.b.shape_of(x2), cx.b.shape_const({0}), cx.b.shape_const({1}), cx.b.shape_const({1}));
  return cx.b.concat({n, cx.b.shape_const({k})}, 0);
}

// The feature count (dim 1) of a 2-D value: its static size; when symbolic, `from_attrs` (the
// count the node's attributes fix, > 0; the run-time shapes are checked again by the matmul or
// broadcast that reads x), else an Unsupported error.
Expected<int64_t> feature_count(LowerCtx& cx, const OnnxNode& n, ValueId x2, int64_t from_attrs = 0) {
  const ir::Dim d = cx.type(x2).shape[1];
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

enum class Post { kNone, kSoftmax, kLogistic, kSoftmaxZero, kProbit };

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

// A typed 1-D table: numbers (as doubles, stored in `dtype`) or strings.
struct Table {
  DType dtype = DType::I64;
  Doubles nums;
  Strings strs;
  int64_t size() const {
    return ir::is_string(dtype) ? static_cast<int64_t>(strs.size()) : static_cast<int64_t>(nums.size());
  }
  bool has_nan() const {
    return std::any_of(nums.begin(), nums.end(), [](double v) { return std::isnan(v); });
  }
};
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

// LabelEncoder-2 and -4: keys_* / values_* (and -4: keys_tensor / values_tensor / default_tensor).
Status lower_label_encoder(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  Table keys, vals;
  int nk = 0, nv = 0;
  if (const onnx::Tensor* t = cx.opset() >= 4 ? attr_tensor(n, "keys_tensor") : nullptr) {
    PLUMB_ASSIGN_OR_RETURN(keys, table_of_tensor(*t));
    ++nk;
  }
  if (n.has_attr("keys_strings")) keys = Table{DType::String, {}, attr_strings(n, "keys_strings")}, ++nk;
  if (n.has_attr("keys_int64s")) {
    Ints v = attr_ints(n, "keys_int64s");
    keys = Table{DType::I64, Doubles(v.begin(), v.end()), {}}, ++nk;
  }
  if (n.has_attr("keys_floats")) keys = Table{DType::F32, attr_doubles(n, "keys_floats"), {}}, ++nk;
  if (const onnx::Tensor* t = cx.opset() >= 4 ? attr_tensor(n, "values_tensor") : nullptr) {
    PLUMB_ASSIGN_OR_RETURN(vals, table_of_tensor(*t));
    ++nv;
  }
  if (n.has_attr("values_strings")) vals = Table{DType::String, {}, attr_strings(n, "values_strings")}, ++nv;
  if (n.has_attr("values_int64s")) {
    Ints v = attr_ints(n, "values_int64s");
    vals = Table{DType::I64, Doubles(v.begin(), v.end()), {}}, ++nv;
  }
  if (n.has_attr("values_floats")) vals = Table{DType::F32, attr_doubles(n, "values_floats"), {}}, ++nv;
  if (nk != 1 || nv != 1)
    return cx.invalid("LabelEncoder needs exactly one keys_* and one values_* attribute");
  if (keys.size() != vals.size())
    return cx.invalid("LabelEncoder: " + std::to_string(keys.size()) + " keys but " +
                      std::to_string(vals.size()) + " values");
  if (cx.type(x).dtype != keys.dtype)
    return cx.invalid("LabelEncoder: input dtype " + std::string(ir::dtype_name(cx.type(x).dtype)) +
                      " differs from the keys' " + std::string(ir::dtype_name(keys.dtype)));
  // The default: default_tensor (opset 4), else default_<kind of values>.
  Table dflt{vals.dtype, {}, {}};
  if (const onnx::Tensor* t = cx.opset() >= 4 ? attr_tensor(n, "default_tensor") : nullptr) {
    PLUMB_ASSIGN_OR_RETURN(dflt, table_of_tensor(*t));
    if (dflt.dtype != vals.dtype || dflt.size() != 1)
      return cx.invalid("LabelEncoder: default_tensor must be one element of the values' dtype");
  } else if (ir::is_string(vals.dtype)) {
    PLUMB_ASSIGN_OR_RETURN(std::string s, n.attr_string("default_string", "_Unused"));
    dflt.strs = {s};
  } else if (ir::is_float(vals.dtype)) {
    PLUMB_ASSIGN_OR_RETURN(float f, n.attr_float("default_float", -0.0f));
    dflt.nums = {f};
  } else {
    PLUMB_ASSIGN_OR_RETURN(int64_t i, n.attr_int("default_int64", -1));
    dflt.nums = {static_cast<double>(i)};
  }
  cx.set_output(n, 0,
                lookup(cx, x, table_1d(cx, keys), keys.size(), table_1d(cx, vals), table_scalar(cx, dflt),
                       keys.has_nan()));
  return Status::ok();
}

// LabelEncoder-1: string -> index of the (first) equal entry of classes_strings, else
// default_int64; int64 -> classes_strings[x] when 0 <= x < size, else default_string.
Status lower_label_encoder_1(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  Strings classes = attr_strings(n, "classes_strings");
  const int64_t k = static_cast<int64_t>(classes.size());
  const DType dt = cx.type(x).dtype;
  if (dt == DType::String) {
    PLUMB_ASSIGN_OR_RETURN(int64_t d, n.attr_int("default_int64", -1));
    // First match wins: look the reversed table up with "last match" semantics.
    Strings rev(classes.rbegin(), classes.rend());
    Ints idx;
    for (int64_t i = k - 1; i >= 0; --i) idx.push_back(i);
    cx.set_output(n, 0,
                  lookup(cx, x, string_const(cx, {k}, rev), k, i64_const(cx, {k}, idx),
                         cx.b.scalar_int(DType::I64, d), false));
    return Status::ok();
  }
  if (dt != DType::I64) return cx.invalid("LabelEncoder-1 input must be string or int64");
  PLUMB_ASSIGN_OR_RETURN(std::string d, n.attr_string("default_string", "_Unused"));
  Ints keys;
  for (int64_t i = 0; i < k; ++i) keys.push_back(i);
  cx.set_output(n, 0,
                lookup(cx, x, i64_const(cx, {k}, keys), k, string_const(cx, {k}, classes),
                       string_const(cx, {}, {d}), false));
  return Status::ok();
}

// CategoryMapper-1: string -> cats_int64s at the equal cats_strings entry (default_int64), and
// int64 -> cats_strings at the equal cats_int64s entry (default_string).
Status lower_category_mapper(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  Strings strs = attr_strings(n, "cats_strings");
  Ints ints = attr_ints(n, "cats_int64s");
  if (strs.size() != ints.size())
    return cx.invalid("CategoryMapper: cats_strings and cats_int64s differ in length");
  const int64_t k = static_cast<int64_t>(ints.size());
  if (cx.type(x).dtype == DType::String) {
    PLUMB_ASSIGN_OR_RETURN(int64_t d, n.attr_int("default_int64", -1));
    cx.set_output(n, 0,
                  lookup(cx, x, string_const(cx, {k}, strs), k, i64_const(cx, {k}, ints),
                         cx.b.scalar_int(DType::I64, d), false));
  } else if (cx.type(x).dtype == DType::I64) {
    PLUMB_ASSIGN_OR_RETURN(std::string d, n.attr_string("default_string", "_Unused"));
    cx.set_output(n, 0,
                  lookup(cx, x, i64_const(cx, {k}, ints), k, string_const(cx, {k}, strs),
                         string_const(cx, {}, {d}), false));
  } else {
    return cx.invalid("CategoryMapper input must be string or int64");
  }
  return Status::ok();
}

// ---- element-wise and per-feature ops ----------------------------------------------------------

// Binarizer-1: y = x > threshold ? 1 : 0, in x's dtype (NaN gives 0).
Status lower_binarizer(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(float th, n.attr_float("threshold", 0.0f));
  const DType dt = cx.type(x).dtype;
  if (ir::is_string(dt) || ir::is_bool(dt)) return cx.invalid("Binarizer input must be numeric");
  ValueId gt = cx.b.compare(CK::Gt, to_f64(cx, x), splat(cx, th, to_f64(cx, x)));
  cx.set_output(n, 0, cx.b.select(gt, splat(cx, 1.0, x), splat(cx, 0.0, x)));
  return Status::ok();
}

// Per-feature attribute (length 1 or F = the last dim) as an f64 value broadcast to x's shape.
Expected<ValueId> per_feature(LowerCtx& cx, const OnnxNode& n, const Doubles& v, ValueId x,
                              const char* what) {
  const int64_t r = rank_of(cx, x);
  const ir::Dim last = r > 0 ? cx.type(x).shape[r - 1] : ir::Dim(1);
  if (v.size() != 1 && !(last.is_static() && static_cast<int64_t>(v.size()) == last.size))
    return cx.invalid(n.op_type + ": " + what + " has " + std::to_string(v.size()) +
                      " entries; it needs 1 or the feature count " +
                      (last.is_static() ? std::to_string(last.size) : "?"));
  if (v.size() == 1 || r == 0) return splat(cx, v[0], x);
  return spread(cx, f64_const(cx, {static_cast<int64_t>(v.size())}, v), shape_value(cx, x), {r - 1});
}

// Scaler-1: y = (x - offset) * scale, offset and scale per feature (or one value); f32 result.
Status lower_scaler(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  Doubles offset = attr_doubles(n, "offset"), scale = attr_doubles(n, "scale");
  if (offset.empty()) offset = {0.0};
  if (scale.empty()) scale = {1.0};
  ValueId xf = to_f64(cx, x);
  PLUMB_ASSIGN_OR_RETURN(ValueId off, per_feature(cx, n, offset, xf, "offset"));
  PLUMB_ASSIGN_OR_RETURN(ValueId sc, per_feature(cx, n, scale, xf, "scale"));
  cx.set_output(n, 0, from_f64(cx, bin(cx, BK::Mul, bin(cx, BK::Sub, xf, off), sc), DType::F32));
  return Status::ok();
}

// Imputer-1: elements equal to replaced_value_* (NaN: every NaN) become imputed_value_* of their
// feature (last dim); floats for float inputs, int64s for integer inputs.
Status lower_imputer(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  const DType dt = cx.type(x).dtype;
  Doubles values;
  double replaced = 0;
  if (ir::is_float(dt)) {
    values = attr_doubles(n, "imputed_value_floats");
    PLUMB_ASSIGN_OR_RETURN(float f, n.attr_float("replaced_value_float", 0.0f));
    replaced = f;
  } else if (ir::is_int(dt)) {
    Ints v = attr_ints(n, "imputed_value_int64s");
    values.assign(v.begin(), v.end());
    PLUMB_ASSIGN_OR_RETURN(int64_t i, n.attr_int("replaced_value_int64", 0));
    replaced = static_cast<double>(i);
  } else {
    return cx.invalid("Imputer input must be numeric");
  }
  if (values.empty()) return cx.invalid("Imputer: imputed_value_* for the input's dtype is missing");
  ValueId xf = to_f64(cx, x);
  ValueId hit =
      std::isnan(replaced) ? cx.b.compare(CK::Ne, xf, xf) : cx.b.compare(CK::Eq, xf, splat(cx, replaced, xf));
  PLUMB_ASSIGN_OR_RETURN(ValueId imp, per_feature(cx, n, values, xf, "imputed_value"));
  cx.set_output(n, 0, cx.b.select(hit, from_f64(cx, imp, dt), x));
  return Status::ok();
}

// Normalizer-1 (per row of [N, C]): MAX x / max|x|, L1 x / sum|x|, L2 x / sqrt(sum x^2); a zero
// divisor leaves the row as it is. f32 result.
Status lower_normalizer(LowerCtx& cx, const OnnxNode& n) {
  ValueId x0 = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(std::string norm, n.attr_string("norm", "MAX"));
  const int64_t r = rank_of(cx, x0);
  if (r != 1 && r != 2) return cx.invalid("Normalizer input must be [C] or [N, C]");
  ValueId x = to_f64(cx, x0);
  ValueId d;
  if (norm == "MAX") {
    d = cx.b.reduce(RK::Max, cx.b.unary(UK::Abs, x), {r - 1});
  } else if (norm == "L1") {
    d = cx.b.reduce(RK::Sum, cx.b.unary(UK::Abs, x), {r - 1});
  } else if (norm == "L2") {
    d = cx.b.unary(UK::Sqrt, cx.b.reduce(RK::Sum, bin(cx, BK::Mul, x, x), {r - 1}));
  } else {
    return cx.invalid("Normalizer: norm '" + norm + "' is not one of MAX, L1, L2");
  }
  d = cx.b.select(cx.b.compare(CK::Eq, d, splat(cx, 0.0, d)), splat(cx, 1.0, d), d);
  ValueId db = r == 1 ? spread(cx, d, shape_value(cx, x), {}) : spread(cx, d, shape_value(cx, x), {0});
  cx.set_output(n, 0, from_f64(cx, bin(cx, BK::Div, x, db), DType::F32));
  return Status::ok();
}

// OneHotEncoder-1: y[.., j] = 1 if x == cats[j] else 0 (f32), cats_strings for string input,
// cats_int64s otherwise (float inputs are cast to integers first: truncated toward zero; NaN
// matches nothing). zeros = 0: an input matching no category stops the run (through a gather
// whose index is then out of range: gather.R1).
Status lower_one_hot_encoder(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(int64_t zeros, n.attr_int("zeros", 1));
  const DType dt = cx.type(x).dtype;
  const int64_t r = rank_of(cx, x);
  ValueId keys, xk;
  int64_t k = 0;
  if (dt == DType::String) {
    Strings cats = attr_strings(n, "cats_strings");
    k = static_cast<int64_t>(cats.size());
    keys = string_const(cx, {k}, cats);
    xk = x;
  } else if (ir::is_int(dt) || ir::is_float(dt)) {
    Ints cats = attr_ints(n, "cats_int64s");
    k = static_cast<int64_t>(cats.size());
    keys = f64_const(cx, {k}, Doubles(cats.begin(), cats.end()));
    xk = to_f64(cx, x);
    if (ir::is_float(dt)) {
      ValueId neg = cx.b.compare(CK::Lt, xk, splat(cx, 0.0, xk));
      xk = cx.b.select(neg, cx.b.unary(UK::Ceil, xk), cx.b.unary(UK::Floor, xk));
    }
  } else {
    return cx.invalid("OneHotEncoder input must be string or numeric");
  }
  if (k == 0)
    return cx.invalid("OneHotEncoder: no categories (cats_int64s / cats_strings for the input's dtype)");
  ValueId wide = shape_plus(cx, x, {k});
  ValueId eq = cx.b.compare(CK::Eq, spread(cx, xk, wide, leading(r)), spread(cx, keys, wide, {r}));
  ValueId y = cx.b.cast(eq, DType::F32);
  if (!zeros) {
    // found ? 0 : 1 indexes a 1-element tensor: an unknown category is gather.R1 at run time.
    ValueId found = cx.b.reduce(RK::Max, eq, {r});
    ValueId idx = cx.b.select(found, splat(cx, 0.0, cx.b.cast(found, DType::I64)),
                              splat(cx, 1.0, cx.b.cast(found, DType::I64)));
    ValueId probe = cx.b.gather(ir::GatherKind::Axis, cx.b.const_floats(DType::F32, {1}, {0.0}), idx, 0);
    // y + 0 * probe[.., None]: ties the check into the result.
    y = bin(cx, BK::Add, y, bin(cx, BK::Mul, splat(cx, 0.0, y), spread(cx, probe, wide, leading(r))));
  }
  cx.set_output(n, 0, y);
  return Status::ok();
}

// ArrayFeatureExtractor-1: z = x[.., indices] along the last axis, indices flattened; a 1-D x
// gives [1, k] (onnxruntime and the ONNX reference).
Status lower_array_feature_extractor(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0), idx = cx.input(n, 1);
  if (!cx.b.ok()) return Status::ok();
  const int64_t r = rank_of(cx, x);
  if (r == 0) return cx.invalid("ArrayFeatureExtractor input must have rank >= 1");
  const ir::Type it = cx.type(idx);
  ValueId flat;
  int64_t count = ir::shape_num_elements(it.shape);
  if (count >= 0) {
    flat = cx.b.reshape(idx, cx.b.shape_const({count}));
  } else {
    flat = cx.b.reshape(
        idx, cx.b.reshape(cx.b.reduce(RK::Prod, shape_value(cx, idx), {0}), cx.b.shape_const({1})));
  }
  ValueId z = cx.b.gather(ir::GatherKind::Axis, x, flat, r - 1);
  if (r == 1) {
    ValueId s =
        count >= 0 ? cx.b.shape_const({1, count}) : cx.b.concat({cx.b.shape_const({1}), cx.b.shape_of(z)}, 0);
    z = cx.b.reshape(z, s);
  }
  cx.set_output(n, 0, z);
  return Status::ok();
}

// FeatureVectorizer-1: inputs as [N, C_i] ([C] is [1, C]) cut or zero-padded to
// inputdimensions[i] columns, concatenated along axis 1, as f32.
Status lower_feature_vectorizer(LowerCtx& cx, const OnnxNode& n) {
  Ints dims = attr_ints(n, "inputdimensions");
  auto pad_right = [&](ValueId v, int64_t k) {
    return cx.b.pad(v, cx.b.shape_const({0, 0}), cx.b.shape_const({0, k}), cx.b.scalar_float(DType::F32, 0.0),
                    ir::PadMode::Constant);
  };
  auto first_cols = [&](ValueId v, int64_t k) {
    return cx.b.slice(v, cx.b.shape_const({0, 0}), rows_by(cx, v, k), cx.b.shape_const({1, 1}));
  };
  std::vector<ValueId> parts;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    ValueId x = cx.input(n, i);
    if (!cx.b.ok()) return Status::ok();
    PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x));
    ValueId xf = from_f64(cx, to_f64(cx, x2), DType::F32);
    if (i < dims.size() && !cx.type(x2).shape[1].is_static()) {
      // A symbolic width: pad by `want` zeros, then keep the first `want` columns (a cut or a
      // zero pad, whichever the run-time width asks for).
      if (dims[i] < 0) return cx.invalid("FeatureVectorizer: inputdimensions must be >= 0");
      parts.push_back(first_cols(pad_right(xf, dims[i]), dims[i]));
      continue;
    }
    PLUMB_ASSIGN_OR_RETURN(int64_t c, feature_count(cx, n, x2));
    const int64_t want = i < dims.size() ? dims[i] : c;
    if (want < c) xf = first_cols(xf, want);
    if (want > c) xf = pad_right(xf, want - c);
    parts.push_back(xf);
  }
  if (parts.empty()) return cx.invalid("FeatureVectorizer needs at least one input");
  cx.set_output(n, 0, parts.size() == 1 ? parts[0] : cx.b.concat(parts, 1));
  return Status::ok();
}

// ---- linear models ---------------------------------------------------------------------------------

// f64 scores [N, E] = x [N, C] . coef^T + intercepts, coef given row-major as [E, C].
Expected<ValueId> linear_scores(LowerCtx& cx, const OnnxNode& n, ValueId x2, const Doubles& coef,
                                const Doubles& intercepts, int64_t* e_out, int64_t outputs = 0) {
  PLUMB_ASSIGN_OR_RETURN(int64_t c, feature_count(cx, n, x2, exact_quotient(coef.size(), outputs)));
  if (c == 0 || coef.empty() || coef.size() % static_cast<size_t>(c) != 0)
    return cx.invalid(n.op_type + ": " + std::to_string(coef.size()) + " coefficients for " +
                      std::to_string(c) + " features");
  const int64_t e = static_cast<int64_t>(coef.size()) / c;
  Doubles ct(coef.size());  // [C, E]
  for (int64_t i = 0; i < e; ++i)
    for (int64_t j = 0; j < c; ++j) ct[j * e + i] = coef[i * c + j];
  ValueId s = cx.b.matmul(to_f64(cx, x2), f64_const(cx, {c, e}, ct), kF64);
  if (!intercepts.empty()) {
    if (static_cast<int64_t>(intercepts.size()) != e && intercepts.size() != 1)
      return cx.invalid(n.op_type + ": " + std::to_string(intercepts.size()) + " intercepts for " +
                        std::to_string(e) + " outputs");
    ValueId b = intercepts.size() == 1 ? splat(cx, intercepts[0], s)
                                       : spread(cx, f64_const(cx, {e}, intercepts), shape_value(cx, s), {1});
    s = bin(cx, BK::Add, s, b);
  }
  *e_out = e;
  return s;
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

// LinearClassifier-1 (ONNX reference): scores = x . coef^T + intercepts; one score column with
// two class labels becomes [-s, s]; post transform; labels at argmax, or for a single score
// column: score >= (NONE ? 0 : 0.5) gives the first label (else 0 / "").
Status lower_linear_classifier(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  Ints ints = attr_ints(n, "classlabels_ints");
  Strings strs = attr_strings(n, "classlabels_strings");
  int64_t e = 0;
  PLUMB_ASSIGN_OR_RETURN(ValueId s, linear_scores(cx, n, x2, attr_doubles(n, "coefficients"),
                                                  attr_doubles(n, "intercepts"), &e));
  const size_t classes = std::max(ints.size(), strs.size());
  if (e == 1 && classes == 2) s = cx.b.concat({cx.b.unary(UK::Neg, s), s}, 1), e = 2;
  s = post_transform(cx, s, post);
  ValueId label;
  if (e > 1) {
    label = label_at_argmax(cx, s, ints, strs);
  } else {
    ValueId col = cx.b.reduce(RK::Sum, s, {1});  // the one column, as [N]
    ValueId pos = cx.b.compare(CK::Ge, col, splat(cx, post == Post::kNone ? 0.0 : 0.5, col));
    if (!strs.empty()) {
      label = cx.b.select(pos, spread(cx, string_const(cx, {}, {strs[0]}), shape_value(cx, col), {}),
                          spread(cx, string_const(cx, {}, {""}), shape_value(cx, col), {}));
    } else {
      ValueId one = cx.b.cast(pos, DType::I64);
      label = ints.empty() ? one : bin(cx, BK::Mul, one, splat(cx, static_cast<double>(ints[0]), one));
    }
  }
  cx.set_output(n, 0, label);
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, from_f64(cx, s, DType::F32));
  return Status::ok();
}

// LinearRegressor-1: y = x . coef^T + intercepts ([N, targets], f32), then the post transform.
Status lower_linear_regressor(LowerCtx& cx, const OnnxNode& n) {
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  PLUMB_ASSIGN_OR_RETURN(int64_t targets, n.attr_int("targets", 1));
  int64_t e = 0;
  PLUMB_ASSIGN_OR_RETURN(ValueId s, linear_scores(cx, n, x2, attr_doubles(n, "coefficients"),
                                                  attr_doubles(n, "intercepts"), &e, targets));
  if (e != targets)
    return cx.invalid("LinearRegressor: coefficients give " + std::to_string(e) +
                      " targets, targets = " + std::to_string(targets));
  cx.set_output(n, 0, from_f64(cx, post_transform(cx, s, post), DType::F32));
  return Status::ok();
}

// ---- tree ensembles ------------------------------------------------------------------------------

// Node comparison kinds; TreeEnsemble-5 numbers them 0..6 in this order.
enum Mode : int { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember, kLeaf };

// One ensemble in a uniform form. Positions 0..M-1 are interior nodes, M..M+L-1 leaves.
struct Forest {
  Ints feature;   // [M]
  Doubles split;  // [M]
  std::vector<int> mode;
  std::vector<bool> nan_true;
  std::vector<Doubles> members;  // [M], for kMember
  Ints tchild, fchild;           // [M + L]; a leaf's children are itself
  Ints roots;                    // one position per tree
  int64_t leaves = 0;
  std::vector<std::vector<std::pair<int64_t, double>>> votes;  // per leaf: (target, weight)
  // TreeEnsemble-5: a NaN feature takes the true branch when the comparison is true or
  // nan_true is set; the older ops: a NaN feature takes the branch nan_true names.
  bool nan_or = false;
  int64_t m() const { return static_cast<int64_t>(feature.size()); }
};

// The longest root-to-leaf path (interior nodes), or an error for a cycle or a bad child.
Expected<int64_t> forest_depth(LowerCtx& cx, const Forest& f) {
  const int64_t m = f.m(), total = m + f.leaves;
  std::vector<int64_t> depth(static_cast<size_t>(total), -1);  // -1 unknown, -2 on the stack
  int64_t best = 0;
  for (int64_t root : f.roots) {
    std::vector<std::pair<int64_t, int>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [p, state] = stack.back();
      if (p < 0 || p >= total)
        return cx.invalid("tree ensemble: child position " + std::to_string(p) + " out of range");
      if (p >= m) {
        depth[p] = 0;
        stack.pop_back();
        continue;
      }
      if (state == 0) {
        if (depth[p] >= 0) {
          stack.pop_back();
          continue;
        }
        if (depth[p] == -2) return cx.invalid("tree ensemble: the nodes form a cycle");
        depth[p] = -2;
        state = 1;
        const int64_t t = f.tchild[p], e = f.fchild[p];
        stack.push_back({t, 0});
        stack.push_back({e, 0});
        continue;
      }
      const int64_t t = f.tchild[p], e = f.fchild[p];
      if (depth[t] < 0 || depth[e] < 0) return cx.invalid("tree ensemble: the nodes form a cycle");
      depth[p] = 1 + std::max(depth[t], depth[e]);
      stack.pop_back();
    }
    best = std::max(best, depth[root]);
  }
  return best;
}

// The leaf reached by every tree for every row of f64 x [N, F]: i64 [N, T] leaf numbers (0..L-1).
Expected<ValueId> forest_leaves(LowerCtx& cx, const Forest& f, ValueId x) {
  PLUMB_ASSIGN_OR_RETURN(int64_t depth, forest_depth(cx, f));
  const int64_t m = f.m(), t = static_cast<int64_t>(f.roots.size());
  const ir::Dim features = cx.type(x).shape[1];
  for (int64_t j = 0; j < m; ++j)
    if (f.feature[j] < 0 || (features.is_static() && f.feature[j] >= features.size))
      return cx.invalid("tree ensemble: node " + std::to_string(j) + " reads feature " +
                        std::to_string(f.feature[j]) + ", outside [0, " +
                        (features.is_static() ? std::to_string(features.size) : "F") + ")");
  ValueId nt = rows_by(cx, x, t);
  ValueId pos = spread(cx, i64_const(cx, {t}, f.roots), nt, {1});
  if (m > 0 && depth > 0) {
    // cond [N, M]: the outcome of every interior node for every row.
    ValueId xf = cx.b.gather(ir::GatherKind::Axis, x, i64_const(cx, {m}, f.feature), 1);
    ValueId nm = shape_value(cx, xf);
    ValueId thr = spread(cx, f64_const(cx, {m}, f.split), nm, {1});
    std::set<int> used(f.mode.begin(), f.mode.end());
    ValueId cond = ir::kNoValue;
    static const int kCmp[] = {CK::Le, CK::Lt, CK::Ge, CK::Gt, CK::Eq, CK::Ne};
    for (int md : used) {
      ValueId c;
      if (md == kMember) {
        // Pairs (node, member value): x[:, feature[node]] == value, counted per node by a matmul.
        Ints pf;
        Doubles pv, inc;
        std::vector<int64_t> pn;
        for (int64_t j = 0; j < m; ++j)
          if (f.mode[j] == kMember)
            for (double v : f.members[j]) pf.push_back(f.feature[j]), pv.push_back(v), pn.push_back(j);
        const int64_t p = static_cast<int64_t>(pv.size());
        if (p == 0) {
          c = cx.b.compare(CK::Ne, thr, thr);  // false: member nodes hold split 0
        } else {
          inc.assign(static_cast<size_t>(p * m), 0.0);
          for (int64_t q = 0; q < p; ++q) inc[q * m + pn[q]] = 1.0;
          ValueId xp = cx.b.gather(ir::GatherKind::Axis, x, i64_const(cx, {p}, pf), 1);
          ValueId eq = cx.b.compare(CK::Eq, xp, spread(cx, f64_const(cx, {p}, pv), shape_value(cx, xp), {1}));
          ValueId cnt = cx.b.matmul(cx.b.cast(eq, kF64), f64_const(cx, {p, m}, inc), kF64);
          c = cx.b.compare(CK::Gt, cnt, splat(cx, 0.0, cnt));
        }
      } else {
        c = cx.b.compare(kCmp[md], xf, thr);
      }
      if (cond == ir::kNoValue) {
        cond = c;
      } else {
        Ints mask;
        for (int64_t j = 0; j < m; ++j) mask.push_back(f.mode[j] == md);
        ValueId mk = spread(cx, cx.b.const_ints(DType::Bool, {m}, mask), nm, {1});
        cond = cx.b.select(mk, c, cond);
      }
    }
    if (std::any_of(f.nan_true.begin(), f.nan_true.end(), [](bool b) { return b; }) || !f.nan_or) {
      Ints nt_mask;
      for (int64_t j = 0; j < m; ++j) nt_mask.push_back(f.nan_true[j]);
      ValueId isnan = cx.b.compare(CK::Ne, xf, xf);
      ValueId tracks = spread(cx, cx.b.const_ints(DType::Bool, {m}, nt_mask), nm, {1});
      cond = f.nan_or ? bin(cx, BK::Or, cond, bin(cx, BK::And, isnan, tracks))
                      : cx.b.select(isnan, tracks, cond);
    }
    ValueId tch = i64_const(cx, {m + f.leaves}, f.tchild), fch = i64_const(cx, {m + f.leaves}, f.fchild);
    ValueId last = spread(cx, cx.b.scalar_int(DType::I64, m - 1), nt, {});
    for (int64_t s = 0; s < depth; ++s) {
      ValueId c = cx.b.gather(ir::GatherKind::Elements, cond, bin(cx, BK::Min, pos, last), 1);
      pos = cx.b.select(c, cx.b.gather(ir::GatherKind::Axis, tch, pos, 0),
                        cx.b.gather(ir::GatherKind::Axis, fch, pos, 0));
    }
  }
  return bin(cx, BK::Sub, pos, spread(cx, cx.b.scalar_int(DType::I64, m), nt, {}));
}

enum class Agg { kSum, kAverage, kMin, kMax };

// f64 [N, K] aggregate of the leaf votes over the trees. An entry no vote reaches is 0 (sum,
// average) or +-`big` (min, max: the largest finite value of the result dtype, as the reference).
ValueId forest_aggregate(LowerCtx& cx, const Forest& f, ValueId leaf, int64_t k, Agg agg, double big,
                         ValueId x) {
  const int64_t l = f.leaves, t = static_cast<int64_t>(f.roots.size());
  const double none = agg == Agg::kMin ? big : agg == Agg::kMax ? -big : 0.0;
  if (t == 0 || l == 0) return spread(cx, cx.b.scalar_float(kF64, none), rows_by(cx, x, k), {});
  Doubles w(static_cast<size_t>(l * k), none);
  for (int64_t i = 0; i < l; ++i)
    for (auto [tgt, wt] : f.votes[i]) {
      double& c = w[i * k + tgt];
      c = agg == Agg::kMin ? std::min(c, wt) : agg == Agg::kMax ? std::max(c, wt) : c + wt;
    }
  ValueId per_tree = cx.b.gather(ir::GatherKind::Axis, f64_const(cx, {l, k}, w), leaf, 0);  // [N, T, K]
  const ir::ReduceKind kind = agg == Agg::kMin ? RK::Min : agg == Agg::kMax ? RK::Max : RK::Sum;
  ValueId r = cx.b.reduce(kind, per_tree, {1});
  if (agg == Agg::kAverage) r = bin(cx, BK::Div, r, splat(cx, static_cast<double>(t), r));
  return r;
}

double dtype_max(DType dt) {
  switch (dt) {
    case DType::F64: return std::numeric_limits<double>::max();
    case DType::F16: return 65504.0;
    default: return std::numeric_limits<float>::max();
  }
}

Status check_target(LowerCtx& cx, int64_t tgt, int64_t k, const char* what) {
  if (tgt < 0 || tgt >= k)
    return cx.invalid(std::string("tree ensemble: ") + what + " " + std::to_string(tgt) +
                      " out of range [0, " + std::to_string(k) + ")");
  return Status::ok();
}

// TreeEnsemble-5.
Status lower_tree_ensemble(LowerCtx& cx, const OnnxNode& n) {
  ValueId x0 = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  const DType dt = cx.type(x0).dtype;
  if (!ir::is_float(dt) || rank_of(cx, x0) != 2)
    return cx.invalid("TreeEnsemble input must be a float [N, F]");
  Forest f;
  f.nan_or = true;
  f.feature = attr_ints(n, "nodes_featureids");
  const int64_t m = f.m();
  const onnx::Tensor* splits = attr_tensor(n, "nodes_splits");
  const onnx::Tensor* modes = attr_tensor(n, "nodes_modes");
  const onnx::Tensor* lw = attr_tensor(n, "leaf_weights");
  if (!splits || !modes || !lw)
    return cx.invalid("TreeEnsemble needs nodes_splits, nodes_modes and leaf_weights");
  PLUMB_ASSIGN_OR_RETURN(f.split, tensor_doubles(*splits));
  PLUMB_ASSIGN_OR_RETURN(Ints md, tensor_ints(*modes));
  PLUMB_ASSIGN_OR_RETURN(Doubles weights, tensor_doubles(*lw));
  Ints tn = attr_ints(n, "nodes_truenodeids"), fn = attr_ints(n, "nodes_falsenodeids");
  Ints tl = attr_ints(n, "nodes_trueleafs"), fl = attr_ints(n, "nodes_falseleafs");
  Ints mv = attr_ints(n, "nodes_missing_value_tracks_true");
  Ints targets = attr_ints(n, "leaf_targetids");
  if (mv.empty()) mv.assign(static_cast<size_t>(m), 0);
  for (size_t len : {f.split.size(), md.size(), tn.size(), fn.size(), tl.size(), fl.size(), mv.size()})
    if (static_cast<int64_t>(len) != m)
      return cx.invalid("TreeEnsemble: the nodes_* attributes differ in length");
  if (targets.size() != weights.size())
    return cx.invalid("TreeEnsemble: leaf_targetids and leaf_weights differ in length");
  PLUMB_ASSIGN_OR_RETURN(int64_t k, n.attr_int("n_targets", -1));
  if (k < 0) return cx.invalid("TreeEnsemble: n_targets is required");
  PLUMB_ASSIGN_OR_RETURN(int64_t agg_i, n.attr_int("aggregate_function", 1));
  PLUMB_ASSIGN_OR_RETURN(int64_t post_i, n.attr_int("post_transform", 0));
  if (agg_i < 0 || agg_i > 3) return cx.invalid("TreeEnsemble: aggregate_function " + std::to_string(agg_i));
  if (post_i < 0 || post_i > 4) return cx.invalid("TreeEnsemble: post_transform " + std::to_string(post_i));
  const Agg agg = agg_i == 0 ? Agg::kAverage : agg_i == 1 ? Agg::kSum : agg_i == 2 ? Agg::kMin : Agg::kMax;
  f.leaves = static_cast<int64_t>(weights.size());
  f.votes.resize(static_cast<size_t>(f.leaves));
  for (int64_t i = 0; i < f.leaves; ++i) {
    PLUMB_RETURN_IF_ERROR(check_target(cx, targets[i], k, "leaf target id"));
    f.votes[i] = {{targets[i], weights[i]}};
  }
  // Member sets: membership_values lists each BRANCH_MEMBER node's set, in node order, each
  // closed by a NaN.
  Doubles mem;
  if (const onnx::Tensor* t = attr_tensor(n, "membership_values")) {
    PLUMB_ASSIGN_OR_RETURN(mem, tensor_doubles(*t));
  }
  size_t mp = 0;
  f.members.resize(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) {
    if (md[j] < 0 || md[j] > 6) return cx.invalid("TreeEnsemble: node mode " + std::to_string(md[j]));
    f.mode.push_back(static_cast<int>(md[j]));
    f.nan_true.push_back(mv[j] != 0);
    if (md[j] == kMember) {
      while (mp < mem.size() && !std::isnan(mem[mp])) f.members[j].push_back(mem[mp++]);
      if (mp >= mem.size()) return cx.invalid("TreeEnsemble: membership_values has too few sets");
      ++mp;
    }
    if (md[j] == kMember) f.split[j] = 0.0;
  }
  f.tchild.resize(static_cast<size_t>(m + f.leaves));
  f.fchild.resize(static_cast<size_t>(m + f.leaves));
  for (int64_t j = 0; j < m; ++j) {
    f.tchild[j] = tl[j] ? m + tn[j] : tn[j];
    f.fchild[j] = fl[j] ? m + fn[j] : fn[j];
    const int64_t lim_t = tl[j] ? f.leaves : m, lim_f = fl[j] ? f.leaves : m;
    if (tn[j] < 0 || tn[j] >= lim_t || fn[j] < 0 || fn[j] >= lim_f)
      return cx.invalid("TreeEnsemble: node " + std::to_string(j) + " has a child out of range");
  }
  for (int64_t i = 0; i < f.leaves; ++i) f.tchild[m + i] = f.fchild[m + i] = m + i;
  for (int64_t root : attr_ints(n, "tree_roots")) {
    if (root < 0 || root >= m)
      return cx.invalid("TreeEnsemble: tree root " + std::to_string(root) + " out of range");
    // A tree that is one leaf: a node whose two branches are the same leaf.
    const bool leaf = tl[root] && fl[root] && tn[root] == fn[root];
    f.roots.push_back(leaf ? m + tn[root] : root);
  }
  ValueId x = to_f64(cx, x0);
  PLUMB_ASSIGN_OR_RETURN(ValueId leaf, forest_leaves(cx, f, x));
  ValueId y = forest_aggregate(cx, f, leaf, k, agg, dtype_max(dt), x);
  y = post_transform(cx, y, static_cast<Post>(post_i));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return Status::ok();
}

// The node table of TreeEnsembleClassifier/Regressor (opsets 1..3): (tree id, node id) tuples,
// trees taken in increasing tree id, each rooted at its first listed node.
struct OldNodes {
  Forest f;
  std::map<std::pair<int64_t, int64_t>, int64_t> pos;  // (tree, node) -> position
};

Expected<OldNodes> old_nodes(LowerCtx& cx, const OnnxNode& n) {
  OldNodes o;
  Forest& f = o.f;
  Ints trees = attr_ints(n, "nodes_treeids"), ids = attr_ints(n, "nodes_nodeids");
  Ints feat = attr_ints(n, "nodes_featureids"), tn = attr_ints(n, "nodes_truenodeids"),
       fn = attr_ints(n, "nodes_falsenodeids"), mv = attr_ints(n, "nodes_missing_value_tracks_true");
  Strings modes = attr_strings(n, "nodes_modes");
  PLUMB_ASSIGN_OR_RETURN(Doubles vals, floats_or_tensor(n, "nodes_values"));
  const size_t cnt = trees.size();
  if (mv.empty()) mv.assign(cnt, 0);
  if (vals.empty()) vals.assign(cnt, 0.0);
  for (size_t len : {ids.size(), feat.size(), tn.size(), fn.size(), mv.size(), modes.size(), vals.size()})
    if (len != cnt) return cx.invalid(n.op_type + ": the nodes_* attributes differ in length");
  static const std::map<std::string, int> kModes = {
      {"BRANCH_LEQ", kLeq}, {"BRANCH_LT", kLt},   {"BRANCH_GTE", kGte}, {"BRANCH_GT", kGt},
      {"BRANCH_EQ", kEq},   {"BRANCH_NEQ", kNeq}, {"LEAF", kLeaf}};
  // Interior nodes first, then leaves, in listed order.
  std::vector<int> md(cnt);
  int64_t m = 0;
  for (size_t i = 0; i < cnt; ++i) {
    auto it = kModes.find(modes[i]);
    if (it == kModes.end()) return cx.invalid(n.op_type + ": node mode '" + modes[i] + "'");
    md[i] = it->second;
    m += md[i] != kLeaf;
  }
  Ints where(cnt);
  int64_t next_in = 0, next_leaf = m;
  for (size_t i = 0; i < cnt; ++i) {
    where[i] = md[i] != kLeaf ? next_in++ : next_leaf++;
    if (!o.pos.emplace(std::make_pair(trees[i], ids[i]), where[i]).second)
      return cx.invalid(n.op_type + ": node (" + std::to_string(trees[i]) + ", " + std::to_string(ids[i]) +
                        ") is listed twice");
  }
  f.leaves = static_cast<int64_t>(cnt) - m;
  f.feature.resize(static_cast<size_t>(m));
  f.split.resize(static_cast<size_t>(m));
  f.mode.resize(static_cast<size_t>(m));
  f.nan_true.resize(static_cast<size_t>(m));
  f.members.resize(static_cast<size_t>(m));
  f.tchild.resize(cnt);
  f.fchild.resize(cnt);
  f.votes.resize(static_cast<size_t>(f.leaves));
  std::map<int64_t, int64_t> roots;  // tree id -> first position
  for (size_t i = 0; i < cnt; ++i) {
    const int64_t p = where[i];
    roots.emplace(trees[i], p);
    if (md[i] == kLeaf) {
      f.tchild[p] = f.fchild[p] = p;
      continue;
    }
    f.feature[p] = feat[i];
    f.split[p] = vals[i];
    f.mode[p] = md[i];
    f.nan_true[p] = mv[i] != 0;
    auto t = o.pos.find({trees[i], tn[i]}), e = o.pos.find({trees[i], fn[i]});
    if (t == o.pos.end() || e == o.pos.end())
      return cx.invalid(n.op_type + ": node (" + std::to_string(trees[i]) + ", " + std::to_string(ids[i]) +
                        ") has a child that is not listed");
    f.tchild[p] = t->second;
    f.fchild[p] = e->second;
  }
  for (auto [tree, p] : roots) f.roots.push_back(p);
  return o;
}

// Adds the votes (tree ids, node ids, target ids, weights) to the leaves they name.
Status old_votes(LowerCtx& cx, const OnnxNode& n, OldNodes& o, const char* prefix, int64_t k) {
  const std::string p = prefix;
  Ints trees = attr_ints(n, (p + "_treeids").c_str()), ids = attr_ints(n, (p + "_nodeids").c_str());
  Ints tg = attr_ints(n, (p + "_ids").c_str());
  PLUMB_ASSIGN_OR_RETURN(Doubles w, floats_or_tensor(n, p + "_weights"));
  if (ids.size() != trees.size() || tg.size() != trees.size() || w.size() != trees.size())
    return cx.invalid(n.op_type + ": the " + p + "_* attributes differ in length");
  const int64_t m = o.f.m();
  for (size_t i = 0; i < trees.size(); ++i) {
    auto it = o.pos.find({trees[i], ids[i]});
    if (it == o.pos.end())
      return cx.invalid(n.op_type + ": a vote names node (" + std::to_string(trees[i]) + ", " +
                        std::to_string(ids[i]) + "), which is not listed");
    PLUMB_RETURN_IF_ERROR(check_target(cx, tg[i], k, "target/class id"));
    if (it->second >= m)
      o.f.votes[it->second - m].push_back({tg[i], w[i]});  // votes on interior nodes never count
  }
  return Status::ok();
}

// Base values [K] added to f64 y [N, K] (none: unchanged).
Expected<ValueId> add_base(LowerCtx& cx, const OnnxNode& n, ValueId y, int64_t k) {
  PLUMB_ASSIGN_OR_RETURN(Doubles base, floats_or_tensor(n, "base_values"));
  if (base.empty()) return y;
  if (static_cast<int64_t>(base.size()) != k)
    return cx.invalid(n.op_type + ": " + std::to_string(base.size()) + " base values for " +
                      std::to_string(k) + " outputs");
  return bin(cx, BK::Add, y, spread(cx, f64_const(cx, {k}, base), shape_value(cx, y), {1}));
}

// TreeEnsembleRegressor-1/3: aggregate, then base_values, then the post transform; f32 result.
Status lower_tree_regressor(LowerCtx& cx, const OnnxNode& n) {
  ValueId x0 = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  PLUMB_ASSIGN_OR_RETURN(OldNodes o, old_nodes(cx, n));
  PLUMB_ASSIGN_OR_RETURN(int64_t k, n.attr_int("n_targets", 1));
  PLUMB_RETURN_IF_ERROR(old_votes(cx, n, o, "target", k));
  PLUMB_ASSIGN_OR_RETURN(std::string agg_s, n.attr_string("aggregate_function", "SUM"));
  static const std::map<std::string, Agg> kAgg = {
      {"SUM", Agg::kSum}, {"AVERAGE", Agg::kAverage}, {"MIN", Agg::kMin}, {"MAX", Agg::kMax}};
  auto agg = kAgg.find(agg_s);
  if (agg == kAgg.end()) return cx.invalid("TreeEnsembleRegressor: aggregate_function '" + agg_s + "'");
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  const DType dt = cx.type(x2).dtype;
  ValueId x = to_f64(cx, x2);
  PLUMB_ASSIGN_OR_RETURN(ValueId leaf, forest_leaves(cx, o.f, x));
  ValueId y = forest_aggregate(cx, o.f, leaf, k, agg->second, dtype_max(dt == kF64 ? kF64 : DType::F32), x);
  PLUMB_ASSIGN_OR_RETURN(y, add_base(cx, n, y, k));
  cx.set_output(n, 0, from_f64(cx, post_transform(cx, y, post), DType::F32));
  return Status::ok();
}

// TreeEnsembleClassifier-1/3 (ONNX reference): scores = base_values + summed class votes. When
// every vote names one class and there are at most two labels, the scores become the two
// columns [1 - s, s] (post transform NONE or PROBIT) or [-s, s] (others). Then the post
// transform, and the label at argmax (one label [1]: index 1 gives 1, index 0 gives 0).
Status lower_tree_classifier(LowerCtx& cx, const OnnxNode& n) {
  ValueId x0 = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  Ints ints = attr_ints(n, "classlabels_int64s");
  Strings strs = attr_strings(n, "classlabels_strings");
  if (ints.empty() == strs.empty())
    return cx.invalid("TreeEnsembleClassifier needs exactly one of classlabels_int64s, classlabels_strings");
  const int64_t k = static_cast<int64_t>(std::max(ints.size(), strs.size()));
  PLUMB_ASSIGN_OR_RETURN(OldNodes o, old_nodes(cx, n));
  PLUMB_RETURN_IF_ERROR(old_votes(cx, n, o, "class", k));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  const Ints class_ids = attr_ints(n, "class_ids");
  const std::set<int64_t> classes(class_ids.begin(), class_ids.end());
  // Integer features are compared as f32 values (the reference casts X to float32).
  ValueId x = cx.type(x2).dtype == kF64 ? x2 : to_f64(cx, cx.b.cast(x2, DType::F32));
  PLUMB_ASSIGN_OR_RETURN(ValueId leaf, forest_leaves(cx, o.f, x));
  ValueId s = forest_aggregate(cx, o.f, leaf, k, Agg::kSum, 0.0, x);
  PLUMB_ASSIGN_OR_RETURN(s, add_base(cx, n, s, k));
  if (classes.size() == 1 && k <= 2) {
    // The score of the voted column (column 0 when k == 1: the reference copies column 0).
    ValueId col =
        k == 1 ? cx.b.reduce(RK::Sum, s, {1})
               : cx.b.reduce(RK::Sum, cx.b.gather(ir::GatherKind::Axis, s, i64_const(cx, {1}, {0}), 1), {1});
    ValueId other = post == Post::kNone || post == Post::kProbit ? bin(cx, BK::Sub, splat(cx, 1.0, col), col)
                                                                 : cx.b.unary(UK::Neg, col);
    ValueId two = rows_by(cx, x2, 1);
    s = cx.b.concat({cx.b.reshape(other, two), cx.b.reshape(col, two)}, 1);
  }
  s = post_transform(cx, s, post);
  ValueId label;
  if (strs.size() == 1) return cx.unsupported("TreeEnsembleClassifier with one string class label");
  if (ints.size() == 1) {
    if (ints[0] != 1) return cx.unsupported("TreeEnsembleClassifier with one class label other than 1");
    label = arg_reduce(cx, ir::ArgKind::Max, s, 1, false);  // index 1 -> label 1, index 0 -> 0
  } else {
    label = label_at_argmax(cx, s, ints, strs);
  }
  cx.set_output(n, 0, label);
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, from_f64(cx, s, DType::F32));
  return Status::ok();
}

// ---- support vector machines ------------------------------------------------------------------------

struct Kernel {
  std::string type = "LINEAR";
  double gamma = 0, coef0 = 0, degree = 0;
};
Expected<Kernel> kernel_attrs(LowerCtx& cx, const OnnxNode& n) {
  Kernel k;
  PLUMB_ASSIGN_OR_RETURN(k.type, n.attr_string("kernel_type", "LINEAR"));
  if (k.type != "LINEAR" && k.type != "POLY" && k.type != "RBF" && k.type != "SIGMOID")
    return cx.invalid(n.op_type + ": kernel_type '" + k.type + "' is not one of LINEAR, POLY, RBF, SIGMOID");
  Doubles p = attr_doubles(n, "kernel_params");
  if (!p.empty()) {
    if (p.size() != 3) return cx.invalid(n.op_type + ": kernel_params must hold gamma, coef0, degree");
    k.gamma = p[0], k.coef0 = p[1], k.degree = static_cast<double>(static_cast<int64_t>(p[2]));
  }
  return k;
}

// f64 kernel values [N, V] of x [N, F] against the support vectors sv [V, F]:
// LINEAR x.s; POLY (gamma x.s + coef0)^degree; SIGMOID tanh(gamma x.s + coef0);
// RBF exp(-gamma |x - s|^2) (differences taken element by element, not expanded).
ValueId kernel_values(LowerCtx& cx, const Kernel& k, ValueId x, const Doubles& sv, int64_t v, int64_t f) {
  ValueId svc = f64_const(cx, {v, f}, sv);
  if (k.type == "RBF") {
    ValueId nvf = cx.b.concat({rows_by(cx, x, v), cx.b.shape_const({f})}, 0);
    ValueId d = bin(cx, BK::Sub, spread(cx, x, nvf, {0, 2}), spread(cx, svc, nvf, {1, 2}));
    ValueId s = cx.b.reduce(RK::Sum, bin(cx, BK::Mul, d, d), {2});
    return cx.b.unary(UK::Exp, bin(cx, BK::Mul, splat(cx, -k.gamma, s), s));
  }
  ValueId dot = cx.b.matmul(x, cx.b.transpose(svc, {1, 0}), kF64);
  if (k.type == "LINEAR") return dot;
  ValueId a = bin(cx, BK::Add, bin(cx, BK::Mul, splat(cx, k.gamma, dot), dot), splat(cx, k.coef0, dot));
  if (k.type == "SIGMOID") return cx.b.unary(UK::Tanh, a);
  return bin(cx, BK::Pow, a, splat(cx, k.degree, a));
}

// SVMRegressor-1: n_supports > 0: y = sum_j coef[j] K(x, sv_j) + rho[0]; else (linear)
// y = x . coef + rho[0]; one_class: y = y > 0 ? 1 : -1. [N, 1] f32, then the post transform.
Status lower_svm_regressor(LowerCtx& cx, const OnnxNode& n) {
  ValueId x0 = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  PLUMB_ASSIGN_OR_RETURN(Kernel k, kernel_attrs(cx, n));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  PLUMB_ASSIGN_OR_RETURN(int64_t ns, n.attr_int("n_supports", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t one_class, n.attr_int("one_class", 0));
  Doubles coef = attr_doubles(n, "coefficients"), rho = attr_doubles(n, "rho"),
          sv = attr_doubles(n, "support_vectors");
  PLUMB_ASSIGN_OR_RETURN(
      int64_t f,
      feature_count(cx, n, x2, ns > 0 ? exact_quotient(sv.size(), ns) : exact_quotient(coef.size(), 1)));
  if (rho.empty()) return cx.invalid("SVMRegressor: rho is required");
  ValueId x = to_f64(cx, x2);
  ValueId kv;
  int64_t v = 0;
  if (ns > 0) {
    if (static_cast<int64_t>(sv.size()) != ns * f || static_cast<int64_t>(coef.size()) != ns)
      return cx.invalid("SVMRegressor: support_vectors / coefficients do not match n_supports");
    kv = kernel_values(cx, k, x, sv, ns, f);
    v = ns;
  } else {
    if (static_cast<int64_t>(coef.size()) != f)
      return cx.invalid("SVMRegressor: coefficients do not match the features");
    kv = x;
    v = f;
  }
  ValueId y = cx.b.matmul(kv, f64_const(cx, {v, 1}, coef), kF64);
  y = bin(cx, BK::Add, y, splat(cx, rho[0], y));
  if (one_class)
    y = cx.b.select(cx.b.compare(CK::Gt, y, splat(cx, 0.0, y)), splat(cx, 1.0, y), splat(cx, -1.0, y));
  cx.set_output(n, 0, from_f64(cx, post_transform(cx, y, post), DType::F32));
  return Status::ok();
}

// Probability estimates of an SVC from its pairwise scores [N, P] (P = c(c-1)/2, pairs i < j in
// order), as libsvm computes them (svm_predict_probability; onnxruntime follows it):
// r_ij = clamp(1 - logistic(score * prob_a + prob_b), 1e-7, 1 - 1e-7), r_ji = 1 - r_ij, then
// multiclass_probability's coupling: Q[t][t] = sum_{j != t} r_jt^2, Q[t][j] = -r_jt r_tj, p = 1/c,
// and up to max(100, c) sweeps that stop once max_t |(Qp)_t - p'Qp| < 0.005 / c. Rows are
// independent: all run in one `while`, and a row that has met the tolerance takes zero steps
// (its p then no longer changes, so the test stays met); the loop ends when no row moves.
// The sums run in libsvm's order, in f64. libsvm's max_error ignores NaN errors (`error >
// max_error` is false), so a row with a NaN score stops at once with p = 1/c; the same here.
// (The newer ONNX reference's vectorised Q[t, t+1:] = -R[t+1:, t] @ R[t, t+1:] puts one dot
// product in every off-diagonal entry, which differs from libsvm for c >= 3; plumb follows libsvm.)
ValueId svm_probabilities(LowerCtx& cx, ValueId scores, int64_t c, const Doubles& pa, const Doubles& pb) {
  const int64_t pairs = c * (c - 1) / 2;
  ValueId shape = shape_value(cx, scores);
  ValueId t = bin(cx, BK::Add, bin(cx, BK::Mul, scores, spread(cx, f64_const(cx, {pairs}, pa), shape, {1})),
                  spread(cx, f64_const(cx, {pairs}, pb), shape, {1}));
  auto k = [&](double v, ValueId like) { return splat(cx, v, like); };
  // 1 - logistic(t), logistic computed as onnxruntime's ComputeLogistic (from exp(-|t|)).
  ValueId v =
      bin(cx, BK::Div, k(1.0, t),
          bin(cx, BK::Add, k(1.0, t), cx.b.unary(UK::Exp, cx.b.unary(UK::Neg, cx.b.unary(UK::Abs, t)))));
  ValueId lg = cx.b.select(cx.b.compare(CK::Lt, t, k(0.0, t)), bin(cx, BK::Sub, k(1.0, t), v), v);
  ValueId r2 = bin(cx, BK::Sub, k(1.0, t), lg);
  r2 = bin(cx, BK::Min, bin(cx, BK::Max, r2, k(1e-7, t)), k(1 - 1e-7, t));
  std::vector<std::vector<ValueId>> r(c, std::vector<ValueId>(c, ir::kNoValue)), q = r;
  for (int64_t i = 0, p = 0; i < c; ++i)
    for (int64_t j = i + 1; j < c; ++j, ++p) {
      r[i][j] = cx.b.gather(ir::GatherKind::Axis, r2, i64_const(cx, {1}, {p}), 1);  // [N, 1]
      r[j][i] = bin(cx, BK::Sub, k(1.0, r[i][j]), r[i][j]);
    }
  for (int64_t i = 0; i < c; ++i) {
    for (int64_t j = 0; j < c; ++j) {
      if (j == i) continue;
      ValueId sq = bin(cx, BK::Mul, r[j][i], r[j][i]);
      q[i][i] = q[i][i] == ir::kNoValue ? sq : bin(cx, BK::Add, q[i][i], sq);
      if (j > i) q[i][j] = q[j][i] = bin(cx, BK::Mul, cx.b.unary(UK::Neg, r[j][i]), r[i][j]);
    }
  }
  const ValueId col = r[0][1];
  // The carried p columns are typed as their initial value (a broadcast: [?, ?] for a symbolic
  // batch), which every later value refines.
  const ValueId p0 = k(1.0 / static_cast<double>(c), col);
  const ir::Type tcol = cx.type(p0);
  const ir::Type ti = ir::Type::tensor(DType::I64, ir::static_shape({}));
  const ir::Type tb = ir::Type::tensor(DType::Bool, ir::static_shape({}));
  std::vector<ir::Type> params = {ti, tb};
  for (int64_t i = 0; i < c; ++i) params.push_back(tcol);
  auto cp = cx.b.begin_region(params);
  ir::Region cond = cx.b.end_region(
      {bin(cx, BK::And, cx.b.compare(CK::Lt, cp[0], cx.b.scalar_int(DType::I64, std::max<int64_t>(100, c))),
           cp[1])});
  auto bp = cx.b.begin_region(params);
  std::vector<ValueId> pv(bp.begin() + 2, bp.end()), qp(c);
  auto mul = [&](ValueId a, ValueId b) { return bin(cx, BK::Mul, a, b); };
  auto add = [&](ValueId a, ValueId b) { return bin(cx, BK::Add, a, b); };
  auto div = [&](ValueId a, ValueId b) { return bin(cx, BK::Div, a, b); };
  ValueId pqp = ir::kNoValue;
  for (int64_t i = 0; i < c; ++i) {
    qp[i] = mul(q[i][0], pv[0]);
    for (int64_t j = 1; j < c; ++j) qp[i] = add(qp[i], mul(q[i][j], pv[j]));
    pqp = i == 0 ? mul(pv[0], qp[0]) : add(pqp, mul(pv[i], qp[i]));
  }
  ValueId max_error = k(0.0, col);
  for (int64_t i = 0; i < c; ++i) {
    ValueId e = cx.b.unary(UK::Abs, bin(cx, BK::Sub, qp[i], pqp));
    max_error = cx.b.select(cx.b.compare(CK::Gt, e, max_error), e, max_error);
  }
  ValueId active = cx.b.compare(CK::Ge, max_error, k(0.005 / static_cast<double>(c), col));
  for (int64_t i = 0; i < c; ++i) {
    ValueId diff = cx.b.select(active, div(bin(cx, BK::Sub, pqp, qp[i]), q[i][i]), k(0.0, col));
    ValueId one_d = add(k(1.0, col), diff);
    pv[i] = add(pv[i], diff);
    pqp = div(div(add(pqp, mul(diff, add(mul(diff, q[i][i]), mul(k(2.0, col), qp[i])))), one_d), one_d);
    for (int64_t j = 0; j < c; ++j) {
      qp[j] = div(add(qp[j], mul(diff, q[i][j])), one_d);
      pv[j] = div(pv[j], one_d);
    }
  }
  std::vector<ValueId> yields = {add(bp[0], cx.b.scalar_int(DType::I64, 1)),
                                 cx.b.reduce(RK::Max, active, {0, 1})};
  yields.insert(yields.end(), pv.begin(), pv.end());
  ir::Region body = cx.b.end_region(yields);
  std::vector<ValueId> init = {cx.b.scalar_int(DType::I64, 0), cx.b.const_ints(DType::Bool, {}, {1})};
  for (int64_t i = 0; i < c; ++i) init.push_back(p0);
  std::vector<ValueId> res = cx.b.while_(init, std::move(cond), std::move(body));
  if (res.size() != init.size()) return ir::kNoValue;
  return cx.b.reshape(cx.b.concat(std::vector<ValueId>(res.begin() + 2, res.end()), 1),
                      rows_by(cx, scores, c));
}

// SVMClassifier-1, following the ONNX reference:
// linear mode (no vectors_per_class): scores[c] = x . coef[c] + rho[0], label at argmax;
// SVC mode: one score per class pair (i < j), rho[p] + coef[j-1, SV(i)] . K[SV(i)] +
// coef[i, SV(j)] . K[SV(j)], a vote for i when > 0 else for j, label at the first most-voted class.
// Two classes with one rho: the label rule of the reference's set_score_svm; one score column
// is widened to two ([-s, s], or [1 - s, s] for the single linear score with NONE).
// SVC mode with prob_a/prob_b: the scores output is the per-class probabilities
// (svm_probabilities), then the post transform; the label still follows the votes.
Status lower_svm_classifier(LowerCtx& cx, const OnnxNode& n) {
  ValueId x0 = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  PLUMB_ASSIGN_OR_RETURN(Kernel k, kernel_attrs(cx, n));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  Ints ints = attr_ints(n, "classlabels_ints"), vpc = attr_ints(n, "vectors_per_class");
  Strings strs = attr_strings(n, "classlabels_strings");
  Doubles coef = attr_doubles(n, "coefficients"), rho = attr_doubles(n, "rho"),
          sv = attr_doubles(n, "support_vectors");
  const int64_t c = std::max<int64_t>(static_cast<int64_t>(std::max(ints.size(), strs.size())), 1);
  if (rho.empty() || coef.empty()) return cx.invalid("SVMClassifier: rho and coefficients are required");
  int64_t v = 0;
  Ints start;
  for (int64_t cnt : vpc) start.push_back(v), v += cnt;
  PLUMB_ASSIGN_OR_RETURN(
      int64_t f,
      feature_count(cx, n, x2, v > 0 ? exact_quotient(sv.size(), v) : exact_quotient(coef.size(), c)));
  const bool all_positive = *std::min_element(coef.begin(), coef.end()) >= 0;
  ValueId x = to_f64(cx, x2);
  // prob_a/prob_b count only in SVC mode (the reference ignores them for the linear mode).
  const Doubles prob_a = attr_doubles(n, "prob_a"), prob_b = attr_doubles(n, "prob_b");
  const bool has_proba = v > 0 && !prob_a.empty();
  ValueId scores, votes = ir::kNoValue;
  if (v == 0) {
    if (static_cast<int64_t>(coef.size()) != c * f)
      return cx.invalid("SVMClassifier: coefficients are not [classes, F]");
    Doubles ct(static_cast<size_t>(f * c));
    for (int64_t i = 0; i < c; ++i)
      for (int64_t j = 0; j < f; ++j) ct[j * c + i] = coef[i * f + j];
    scores = cx.b.matmul(x, f64_const(cx, {f, c}, ct), kF64);
    scores = bin(cx, BK::Add, scores, splat(cx, rho[0], scores));
  } else {
    const int64_t pairs = c * (c - 1) / 2;
    if (static_cast<int64_t>(vpc.size()) != c || static_cast<int64_t>(sv.size()) != v * f ||
        static_cast<int64_t>(coef.size()) != (c - 1) * v || static_cast<int64_t>(rho.size()) < pairs)
      return cx.invalid("SVMClassifier: vectors_per_class, support_vectors, coefficients, rho do not agree");
    ValueId kv = kernel_values(cx, k, x, sv, v, f);
    Doubles w(static_cast<size_t>(v * pairs), 0.0), wi(static_cast<size_t>(pairs * c), 0.0), wj = wi, r0;
    int64_t p = 0;
    for (int64_t i = 0; i < c; ++i)
      for (int64_t j = i + 1; j < c; ++j, ++p) {
        for (int64_t q = 0; q < vpc[i]; ++q) w[(start[i] + q) * pairs + p] = coef[(j - 1) * v + start[i] + q];
        for (int64_t q = 0; q < vpc[j]; ++q) w[(start[j] + q) * pairs + p] = coef[i * v + start[j] + q];
        wi[p * c + i] = 1.0, wj[p * c + j] = 1.0, r0.push_back(rho[p]);
      }
    scores = cx.b.matmul(kv, f64_const(cx, {v, pairs}, w), kF64);
    scores = bin(cx, BK::Add, scores, spread(cx, f64_const(cx, {pairs}, r0), shape_value(cx, scores), {1}));
    ValueId pos = cx.b.cast(cx.b.compare(CK::Gt, scores, splat(cx, 0.0, scores)), kF64);
    ValueId neg = bin(cx, BK::Sub, splat(cx, 1.0, pos), pos);
    votes = bin(cx, BK::Add, cx.b.matmul(pos, f64_const(cx, {pairs, c}, wi), kF64),
                cx.b.matmul(neg, f64_const(cx, {pairs, c}, wj), kF64));
    if (has_proba) {
      if (static_cast<int64_t>(prob_a.size()) < pairs || static_cast<int64_t>(prob_b.size()) < pairs)
        return cx.invalid("SVMClassifier: prob_a and prob_b need one entry per class pair (" +
                          std::to_string(pairs) + ")");
      // The label still comes from the votes; only the scores output changes.
      if (cx.wants_output(n, 1)) scores = svm_probabilities(cx, scores, c, prob_a, prob_b);
      if (!cx.b.ok()) return Status::ok();
    }
  }
  // Label.
  ValueId basis = votes != ir::kNoValue ? votes : scores;
  ValueId am = arg_reduce(cx, ir::ArgKind::Max, basis, 1, false);
  ValueId idx = am;
  const int64_t labels = static_cast<int64_t>(std::max(ints.size(), strs.size()));
  if (rho.size() == 1) {
    ValueId maxw = cx.b.reduce(RK::Max, basis, {1});
    if (labels == 2) {
      // set_score_svm: all weights positive and max >= 0.5 -> label 1; else the argmax label.
      if (all_positive && !has_proba)
        idx = cx.b.select(cx.b.compare(CK::Ge, maxw, splat(cx, 0.5, maxw)), splat(cx, 1.0, am), am);
    } else {
      // Positive class 1 when max > 0, else 0 (labels are then the numbers themselves; with
      // string labels the strings "1" and "0", as onnxruntime writes them).
      ValueId one = cx.b.cast(cx.b.compare(CK::Gt, maxw, splat(cx, 0.0, maxw)), DType::I64);
      cx.set_output(
          n, 0,
          strs.empty() ? one : cx.b.gather(ir::GatherKind::Axis, string_const(cx, {2}, {"0", "1"}), one, 0));
      idx = ir::kNoValue;
    }
  }
  if (idx != ir::kNoValue) {
    if (!strs.empty()) {
      cx.set_output(n, 0, cx.b.gather(ir::GatherKind::Axis, string_const(cx, {labels}, strs), idx, 0));
    } else if (!ints.empty()) {
      cx.set_output(n, 0, cx.b.gather(ir::GatherKind::Axis, i64_const(cx, {labels}, ints), idx, 0));
    } else {
      cx.set_output(n, 0, idx);
    }
  }
  // Scores (write_scores): more than one column: the post transform; one column: widened.
  const ir::Dim cols = cx.type(scores).shape[1];
  if (cols.size == 1) {
    ValueId s = cx.b.reduce(RK::Sum, scores, {1});
    ValueId one = rows_by(cx, x2, 1);
    auto col2 = [&](ValueId a, ValueId b) {
      return cx.b.concat({cx.b.reshape(a, one), cx.b.reshape(b, one)}, 1);
    };
    if (post == Post::kProbit) {
      scores = post_transform(cx, scores, post);
    } else if (rho.size() == 1 && labels == 2) {
      ValueId two = col2(cx.b.unary(UK::Neg, s), s);
      scores = post == Post::kLogistic || post == Post::kSoftmax || post == Post::kSoftmaxZero
                   ? post_transform(cx, two, post)
                   : two;
    } else if (rho.size() == 1) {
      scores = col2(bin(cx, BK::Sub, splat(cx, 1.0, s), s), s);
    }
  } else {
    scores = post_transform(cx, scores, post);
  }
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, from_f64(cx, scores, DType::F32));
  return Status::ok();
}

// ---- maps ----------------------------------------------------------------------------------------

ValueId map_part(LowerCtx& cx, ValueId m, ir::MapKind kind) { return cx.b.emit1(ir::MapAttrs{kind}, {m}); }

// y[i] = the value of the map entry whose key equals probe[i], else dflt; probe 1-D.
ValueId map_lookup(LowerCtx& cx, ValueId probe, ValueId keys, ValueId vals, ValueId dflt) {
  ValueId wide = cx.b.concat({shape_value(cx, probe), shape_value(cx, keys)}, 0);
  ValueId eq = cx.b.compare(CK::Eq, spread(cx, probe, wide, {0}), spread(cx, keys, wide, {1}));
  ValueId found = cx.b.reduce(RK::Max, eq, {1});
  ValueId at = arg_reduce(cx, ir::ArgKind::Max, eq, 1, true);
  // An empty map finds nothing; index 0 into an empty value list would be gather.R1, so the
  // gather reads a copy with one default appended.
  ValueId padded = cx.b.concat({vals, cx.b.reshape(dflt, cx.b.shape_const({1}))}, 0);
  return cx.b.select(found, cx.b.gather(ir::GatherKind::Axis, padded, at, 0),
                     spread(cx, dflt, shape_value(cx, probe), {}));
}

ValueId zero_of(LowerCtx& cx, DType dt) {
  if (ir::is_string(dt)) return string_const(cx, {}, {""});
  if (ir::is_float(dt)) return cx.b.scalar_float(dt, 0.0);
  return cx.b.scalar_int(dt, 0);
}

// ZipMap-1: row r of X [N, C] (a 1-D X is one row) becomes the map {label_c: X[r, c]}; the result
// is the sequence of the N maps, built by a `while` over the rows (sequence.C2 allows map elements).
// C must equal the label count: map construct refuses keys and values of different lengths (map.R1).
Status lower_zipmap(LowerCtx& cx, const OnnxNode& n) {
  const Strings strs = attr_strings(n, "classlabels_strings");
  const Ints ints = attr_ints(n, "classlabels_int64s");
  if (strs.empty() == ints.empty())
    return cx.invalid("ZipMap needs exactly one of classlabels_strings, classlabels_int64s");
  ValueId x = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  const ir::Type xt = cx.type(x);
  if (!xt.is_tensor() || xt.dtype != DType::F32 || xt.rank() < 1 || xt.rank() > 2)
    return cx.invalid("ZipMap input must be a 1-D or 2-D float tensor, got " + ir::type_to_string(xt));
  const int64_t c = static_cast<int64_t>(strs.empty() ? ints.size() : strs.size());
  if (xt.shape.back().is_static() && xt.shape.back().size != c)
    return cx.invalid("ZipMap input has " + std::to_string(xt.shape.back().size) + " columns for " +
                      std::to_string(c) + " labels");
  if (xt.rank() == 1) x = cx.b.reshape(x, cx.b.concat({cx.b.shape_const({1}), shape_value(cx, x)}, 0));
  const DType kdt = strs.empty() ? DType::I64 : DType::String;
  ValueId keys = strs.empty() ? i64_const(cx, {c}, ints) : string_const(cx, {c}, strs);
  const ir::Type elem = ir::Type::map(kdt, ir::Type::tensor(DType::F32, {}));
  const ir::Type seq = ir::Type::sequence(elem);
  ValueId rows = cx.b.reshape(static_slice(cx, shape_value(cx, x), {0}, {1}), cx.b.shape_const({}));
  const std::vector<ir::Type> carried = {ir::Type::tensor(DType::I64, {}), seq};
  auto cp = cx.b.begin_region(carried);
  ir::Region cond = cx.b.end_region({cx.b.compare(CK::Lt, cp[0], rows)});
  auto bp = cx.b.begin_region(carried);
  ValueId row = cx.b.gather(ir::GatherKind::Axis, x, bp[0], 0);
  ValueId m = cx.b.emit1(ir::MapAttrs{ir::MapKind::Construct}, {keys, row});
  ValueId len = seq_op(cx, ir::SequenceKind::Length, {bp[1]}, elem);
  ValueId grown = seq_op(cx, ir::SequenceKind::Insert, {bp[1], m, len}, elem);
  ir::Region body = cx.b.end_region({bin(cx, BK::Add, bp[0], cx.b.scalar_int(DType::I64, 1)), grown});
  std::vector<ValueId> res =
      cx.b.while_({cx.b.scalar_int(DType::I64, 0), seq_op(cx, ir::SequenceKind::Empty, {}, elem)},
                  std::move(cond), std::move(body));
  if (res.size() == 2) cx.set_output(n, 0, res[1]);
  return Status::ok();
}

// CastMap-1 and DictVectorizer-1 (map inputs).
Status lower_maps(LowerCtx& cx, const OnnxNode& n) {
  ValueId m = cx.input(n, 0);
  if (!cx.b.ok()) return Status::ok();
  const ir::Type mt = cx.type(m);
  if (mt.kind != ir::TypeKind::Map || !mt.elem) return cx.invalid(n.op_type + " input must be a map");
  const DType vdt = mt.elem->dtype;
  ValueId keys = map_part(cx, m, ir::MapKind::Keys), vals = map_part(cx, m, ir::MapKind::Values);
  if (n.op_type == "DictVectorizer") {
    // y [1, V]: for each vocabulary entry the map's value for it, else 0 ("" for strings).
    const bool by_string = n.has_attr("string_vocabulary");
    ValueId vocab;
    int64_t size = 0;
    if (by_string) {
      Strings v = attr_strings(n, "string_vocabulary");
      size = static_cast<int64_t>(v.size());
      vocab = string_const(cx, {size}, v);
    } else {
      Ints v = attr_ints(n, "int64_vocabulary");
      size = static_cast<int64_t>(v.size());
      vocab = i64_const(cx, {size}, v);
    }
    if (cx.type(vocab).dtype != mt.dtype)
      return cx.invalid("DictVectorizer: vocabulary and map keys differ in dtype");
    ValueId y = map_lookup(cx, vocab, keys, vals, zero_of(cx, vdt));
    cx.set_output(n, 0, cx.b.reshape(y, cx.b.shape_const({1, size})));
    return Status::ok();
  }
  // CastMap: values in ascending key order (DENSE), or at position key in [0, max_map) (SPARSE).
  if (mt.dtype != DType::I64) return cx.invalid("CastMap input must be a map with int64 keys");
  PLUMB_ASSIGN_OR_RETURN(std::string cast_to, n.attr_string("cast_to", "TO_FLOAT"));
  PLUMB_ASSIGN_OR_RETURN(std::string form, n.attr_string("map_form", "DENSE"));
  PLUMB_ASSIGN_OR_RETURN(int64_t max_map, n.attr_int("max_map", 1));
  const DType to = cast_to == "TO_FLOAT" ? DType::F32 : cast_to == "TO_INT64" ? DType::I64 : DType::String;
  if (cast_to != "TO_FLOAT" && cast_to != "TO_INT64" && cast_to != "TO_STRING")
    return cx.invalid("CastMap: cast_to '" + cast_to + "'");
  ValueId y;
  if (form == "DENSE") {
    auto sorted = cx.b.emit(ir::SortAttrs{0, false}, {keys});
    y = cx.b.gather(ir::GatherKind::Axis, vals, sorted[1], 0);
  } else if (form == "SPARSE") {
    if (max_map < 0) return cx.invalid("CastMap: max_map must be >= 0");
    ValueId probe = cx.b.iota(cx.b.shape_const({max_map}), DType::I64, 0);
    y = map_lookup(cx, probe, keys, vals, zero_of(cx, vdt));
  } else {
    return cx.invalid("CastMap: map_form '" + form + "'");
  }
  cx.set_output(n, 0, cx.type(y).dtype == to ? y : cx.b.cast(y, to));
  return Status::ok();
}

}  // namespace

void register_ml(Registry& r) {
  r.add_in(kMl, "ArrayFeatureExtractor", {1, kLatestMlOpset}, lower_array_feature_extractor);
  r.add_in(kMl, "Binarizer", {1, kLatestMlOpset}, lower_binarizer);
  r.add_in(kMl, "CastMap", {1, kLatestMlOpset}, lower_maps);
  r.add_in(kMl, "CategoryMapper", {1, kLatestMlOpset}, lower_category_mapper);
  r.add_in(kMl, "DictVectorizer", {1, kLatestMlOpset}, lower_maps);
  r.add_in(kMl, "FeatureVectorizer", {1, kLatestMlOpset}, lower_feature_vectorizer);
  r.add_in(kMl, "Imputer", {1, kLatestMlOpset}, lower_imputer);
  r.add_in(kMl, "LabelEncoder", {1, 1}, lower_label_encoder_1);
  r.add_in(kMl, "LabelEncoder", {2, kLatestMlOpset}, lower_label_encoder);
  r.add_in(kMl, "LinearClassifier", {1, kLatestMlOpset}, lower_linear_classifier);
  r.add_in(kMl, "LinearRegressor", {1, kLatestMlOpset}, lower_linear_regressor);
  r.add_in(kMl, "Normalizer", {1, kLatestMlOpset}, lower_normalizer);
  r.add_in(kMl, "OneHotEncoder", {1, kLatestMlOpset}, lower_one_hot_encoder);
  r.add_in(kMl, "Scaler", {1, kLatestMlOpset}, lower_scaler);
  r.add_in(kMl, "SVMClassifier", {1, kLatestMlOpset}, lower_svm_classifier);
  r.add_in(kMl, "SVMRegressor", {1, kLatestMlOpset}, lower_svm_regressor);
  r.add_in(kMl, "TreeEnsemble", {5, kLatestMlOpset}, lower_tree_ensemble);
  // Deprecated at ai.onnx.ml 5 (TreeEnsemble replaces them): opsets 1..4.
  r.add_in(kMl, "TreeEnsembleClassifier", {1, 4}, lower_tree_classifier);
  r.add_in(kMl, "TreeEnsembleRegressor", {1, 4}, lower_tree_regressor);
  r.add_in(kMl, "ZipMap", {1, kLatestMlOpset}, lower_zipmap);
}

}  // namespace plumb::lower
