// Shared by the ai.onnx.ml rule files (ml.cpp: lookup tables and per-feature ops, ml_linear.cpp:
// linear models and SVMs, ml_trees.cpp: tree ensembles, ml_maps.cpp: maps): small builders, the
// attribute readers, the classifiers' post transforms and the typed lookup table. The conventions
// all these rules follow are written at the top of ml.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "ir/builder.h"
#include "lowering/onnx/context.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower::ml {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using Ints = std::vector<int64_t>;
using Doubles = std::vector<double>;
using Strings = std::vector<std::string>;
inline constexpr DType kF64 = DType::F64;
inline constexpr const char* kMl = "ai.onnx.ml";

// ---- small builders ------------------------------------------------------------------------------

ValueId bin(LowerCtx& cx, ir::BinaryKind k, ValueId a, ValueId b);
ValueId arg_reduce(LowerCtx& cx, ir::ArgKind kind, ValueId x, int64_t axis, bool last);
ValueId string_const(LowerCtx& cx, Ints dims, const Strings& values);
ValueId f64_const(LowerCtx& cx, Ints dims, const Doubles& values);
ValueId i64_const(LowerCtx& cx, Ints dims, const Ints& values);
// `shape` (i64[k]) followed by `extra` static dims.
ValueId shape_plus(LowerCtx& cx, ValueId v, const Ints& extra);
// Dims 0..r-1 of a rank-r operand placed first in a broadcast.
Ints leading(int64_t r);
// Rank-0 or 1-D constant `c` broadcast to `shape` (rank r), its dims at `dims`.
ValueId spread(LowerCtx& cx, ValueId c, ValueId shape, Ints dims);
// [C] -> [1, C]; [N, C] unchanged; other ranks are an error.
Expected<ValueId> as_2d(LowerCtx& cx, const OnnxNode& n, ValueId x);
// [N, k] as an i64[2] value, N = dim 0 of x2.
ValueId rows_by(LowerCtx& cx, ValueId x2, int64_t k);
// The feature count (dim 1) of a 2-D value: its static size; when symbolic, `from_attrs` (the
// count the node's attributes fix, > 0; the run-time shapes are checked again by the matmul or
// broadcast that reads x), else an Unsupported error.
Expected<int64_t> feature_count(LowerCtx& cx, const OnnxNode& n, ValueId x2, int64_t from_attrs = 0);
// a / b when b > 0 divides a, else 0 (no count).
int64_t exact_quotient(size_t a, int64_t b);

// ---- attributes ------------------------------------------------------------------------------

Strings attr_strings(const OnnxNode& n, const char* name);
Ints attr_ints(const OnnxNode& n, const char* name);
Doubles attr_doubles(const OnnxNode& n, const char* name);
const onnx::Tensor* attr_tensor(const OnnxNode& n, const char* name);
// The elements of a numeric tensor as doubles (integers widened), or an error.
Expected<Doubles> tensor_doubles(const onnx::Tensor& t);
Expected<Ints> tensor_ints(const onnx::Tensor& t);
// A float list given as `name` (FLOATS) or `name`_as_tensor (TENSOR, opset 3+).
Expected<Doubles> floats_or_tensor(const OnnxNode& n, const std::string& name);

// ---- post transforms (common to the classifiers and regressors) -------------------------------

enum class Post { kNone, kSoftmax, kLogistic, kSoftmaxZero, kProbit };

Expected<Post> post_from_string(LowerCtx& cx, const std::string& s);
Expected<Post> post_attr(LowerCtx& cx, const OnnxNode& n);
// Row max of f64 s [N, K] broadcast back to [N, K].
ValueId row_bcast(LowerCtx& cx, ValueId row, ValueId like);
// The post transform of f64 scores s [N, K] (ONNX reference _common_classifier.py):
// LOGISTIC 1 / (1 + exp(-s)); SOFTMAX exp(s - max) / sum; SOFTMAX_ZERO the same except that
// entries with |s| <= 1e-7 become s * exp(-max) and an all-zero sum gives 0.5 everywhere;
// PROBIT sqrt(2) * erfinv(2 s - 1) with Winitzki's erfinv approximation (a = 0.147), as the
// reference and onnxruntime compute it.
ValueId post_transform(LowerCtx& cx, ValueId s, Post p);

// ---- lookup tables -------------------------------------------------------------------------------

// y[i..] = values[j] for the last j with keys[j] == x[i..] (NaN keys match NaN), else dflt.
// keys: 1-D constant of x's dtype with K entries; values: 1-D of K; dflt: rank-0 of values' dtype.
ValueId lookup(LowerCtx& cx, ValueId x, ValueId keys, int64_t count, ValueId values, ValueId dflt,
               bool nan_key);

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
ValueId table_const(LowerCtx& cx, const Table& t, Ints dims);
ValueId table_1d(LowerCtx& cx, const Table& t);
ValueId table_scalar(LowerCtx& cx, const Table& t);
Expected<Table> table_of_tensor(const onnx::Tensor& t);

// Labels for f64 scores s [N, K]: the label at argmax (first maximum), from `ints` or `strs`
// (or the index itself when neither is given).
ValueId label_at_argmax(LowerCtx& cx, ValueId s, const Ints& ints, const Strings& strs);

// The rules of each file, registered by register_ml (ml.cpp).
void register_linear(Registry& r);
void register_trees(Registry& r);
void register_maps(Registry& r);

}  // namespace plumb::lower::ml
