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
//
// This file: lookup tables (LabelEncoder, CategoryMapper) and the element-wise and per-feature ops;
// the other families are in ml_linear.cpp, ml_trees.cpp and ml_maps.cpp, their shared helpers in
// ml_common.h.
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

#include "lowering/onnx/containers.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/ml_common.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {
namespace ml {

using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;
using RK = ir::ReduceKind;

namespace {

// LabelEncoder-2 and -4: keys_* / values_* (and -4: keys_tensor / values_tensor / default_tensor).
Status lower_label_encoder(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
  return cx.error();
}

// LabelEncoder-1: string -> index of the (first) equal entry of classes_strings, else
// default_int64; int64 -> classes_strings[x] when 0 <= x < size, else default_string.
Status lower_label_encoder_1(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
    return cx.error();
  }
  if (dt != DType::I64) return cx.invalid("LabelEncoder-1 input must be string or int64");
  PLUMB_ASSIGN_OR_RETURN(std::string d, n.attr_string("default_string", "_Unused"));
  Ints keys;
  for (int64_t i = 0; i < k; ++i) keys.push_back(i);
  cx.set_output(n, 0,
                lookup(cx, x, i64_const(cx, {k}, keys), k, string_const(cx, {k}, classes),
                       string_const(cx, {}, {d}), false));
  return cx.error();
}

// CategoryMapper-1: string -> cats_int64s at the equal cats_strings entry (default_int64), and
// int64 -> cats_strings at the equal cats_int64s entry (default_string).
Status lower_category_mapper(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
  return cx.error();
}

// ---- element-wise and per-feature ops ----------------------------------------------------------

// Binarizer-1: y = x > threshold ? 1 : 0, in x's dtype (NaN gives 0).
Status lower_binarizer(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(float th, n.attr_float("threshold", 0.0f));
  const DType dt = cx.type(x).dtype;
  if (ir::is_string(dt) || ir::is_bool(dt)) return cx.invalid("Binarizer input must be numeric");
  ValueId gt = cx.b.compare(CK::Gt, to_f64(cx, x), splat(cx, th, to_f64(cx, x)));
  cx.set_output(n, 0, cx.b.select(gt, splat(cx, 1.0, x), splat(cx, 0.0, x)));
  return cx.error();
}

// Per-feature attribute (length 1 or F = the last dim) as an f64 value broadcast to x's shape.
Expected<ValueId> per_feature(LowerCtx& cx, const OnnxNode& n, const Doubles& v, ValueId x,
                              const char* what) {
  const int64_t r = rank_of(cx, x);
  const ir::Dim last = r > 0 ? cx.dim(x, r - 1) : ir::Dim(1);
  if (v.size() != 1 && !(last.is_static() && static_cast<int64_t>(v.size()) == last.size))
    return cx.invalid(n.op_type + ": " + what + " has " + std::to_string(v.size()) +
                      " entries; it needs 1 or the feature count " +
                      (last.is_static() ? std::to_string(last.size) : "?"));
  if (v.size() == 1 || r == 0) return splat(cx, v[0], x);
  return spread(cx, f64_const(cx, {static_cast<int64_t>(v.size())}, v), shape_value(cx, x), {r - 1});
}

// Scaler-1: y = (x - offset) * scale, offset and scale per feature (or one value); f32 result.
Status lower_scaler(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  Doubles offset = attr_doubles(n, "offset"), scale = attr_doubles(n, "scale");
  if (offset.empty()) offset = {0.0};
  if (scale.empty()) scale = {1.0};
  ValueId xf = to_f64(cx, x);
  PLUMB_ASSIGN_OR_RETURN(ValueId off, per_feature(cx, n, offset, xf, "offset"));
  PLUMB_ASSIGN_OR_RETURN(ValueId sc, per_feature(cx, n, scale, xf, "scale"));
  cx.set_output(n, 0, from_f64(cx, bin(cx, BK::Mul, bin(cx, BK::Sub, xf, off), sc), DType::F32));
  return cx.error();
}

// Imputer-1: elements equal to replaced_value_* (NaN: every NaN) become imputed_value_* of their
// feature (last dim); floats for float inputs, int64s for integer inputs.
Status lower_imputer(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
  return cx.error();
}

// Normalizer-1 (per row of [N, C]): MAX x / max|x|, L1 x / sum|x|, L2 x / sqrt(sum x^2); a zero
// divisor leaves the row as it is. f32 result.
Status lower_normalizer(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
  return cx.error();
}

// OneHotEncoder-1: y[.., j] = 1 if x == cats[j] else 0 (f32), cats_strings for string input,
// cats_int64s otherwise (float inputs are cast to integers first: truncated toward zero; NaN
// matches nothing). zeros = 0: an input matching no category stops the run (through a gather
// whose index is then out of range: gather.R1).
Status lower_one_hot_encoder(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
  return cx.error();
}

// ArrayFeatureExtractor-1: z = x[.., indices] along the last axis, indices flattened; a 1-D x
// gives [1, k] (onnxruntime and the ONNX reference).
Status lower_array_feature_extractor(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId idx, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
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
  return cx.error();
}

// FeatureVectorizer-1: inputs as [N, C_i] ([C] is [1, C]) cut or zero-padded to
// inputdimensions[i] columns, concatenated along axis 1, as f32.
Status lower_feature_vectorizer(LowerCtx& cx, const OnnxNode& n) {
  Ints dims = attr_ints(n, "inputdimensions");
  auto pad_right = [&](ValueId v, int64_t k) {
    return cx.b.emit1(
        ir::PadAttrs{ir::PadMode::Constant},
        {v, cx.b.shape_const({0, 0}), cx.b.shape_const({0, k}), cx.b.scalar_float(DType::F32, 0.0)});
  };
  auto first_cols = [&](ValueId v, int64_t k) {
    return cx.b.emit1(ir::SliceAttrs{},
                      {v, cx.b.shape_const({0, 0}), rows_by(cx, v, k), cx.b.shape_const({1, 1})});
  };
  std::vector<ValueId> parts;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, i));
    PLUMB_RETURN_IF_ERROR(cx.error());
    PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x));
    ValueId xf = from_f64(cx, to_f64(cx, x2), DType::F32);
    if (i < dims.size() && !cx.dim(x2, 1).is_static()) {
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
  return cx.error();
}

}  // namespace
}  // namespace ml

void register_ml(Registry& r) {
  r.add_in(ml::kMl, "ArrayFeatureExtractor", {1, kLatestMlOpset}, ml::lower_array_feature_extractor);
  r.add_in(ml::kMl, "Binarizer", {1, kLatestMlOpset}, ml::lower_binarizer);
  r.add_in(ml::kMl, "CategoryMapper", {1, kLatestMlOpset}, ml::lower_category_mapper);
  r.add_in(ml::kMl, "FeatureVectorizer", {1, kLatestMlOpset}, ml::lower_feature_vectorizer);
  r.add_in(ml::kMl, "Imputer", {1, kLatestMlOpset}, ml::lower_imputer);
  r.add_in(ml::kMl, "LabelEncoder", {1, 1}, ml::lower_label_encoder_1);
  r.add_in(ml::kMl, "LabelEncoder", {2, kLatestMlOpset}, ml::lower_label_encoder);
  r.add_in(ml::kMl, "Normalizer", {1, kLatestMlOpset}, ml::lower_normalizer);
  r.add_in(ml::kMl, "OneHotEncoder", {1, kLatestMlOpset}, ml::lower_one_hot_encoder);
  r.add_in(ml::kMl, "Scaler", {1, kLatestMlOpset}, ml::lower_scaler);
  ml::register_linear(r);
  ml::register_trees(r);
  ml::register_maps(r);
}

}  // namespace plumb::lower
