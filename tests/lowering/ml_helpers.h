// Helpers shared by the ai.onnx.ml lowering tests (ml_test.cpp, ml_trees_svm_test.cpp,
// ml_symbolic_test.cpp): numeric attribute tensors, string-input runs, and one small tree.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/lowering/one_node.h"

namespace plumb::testing {

using ir::DType;
using Strings = std::vector<std::string>;
inline const char* const kMl = "ai.onnx.ml";
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A 1-D attribute tensor of a numeric dtype.
inline onnx::Tensor NumTensor(DType dt, const std::vector<double>& v) {
  return OnnxTensor("t", dt, {static_cast<int64_t>(v.size())}, v);
}
inline onnx::Tensor U8Tensor(const std::vector<double>& v) { return NumTensor(DType::U8, v); }

// One string (or other non-numeric) input, given as a runtime value.
inline std::vector<rt::RtValue> RunStr(const std::string& op, int64_t opset, const Ints& shape,
                                       const Strings& x, std::vector<onnx::OnnxAttribute> attrs,
                                       size_t outs = 1) {
  onnx::OnnxModel m = OneNodeModel(op, opset, {{shape, {}, DType::String}}, std::move(attrs), outs, kMl);
  return RunModel(m, {StrTensor(shape, x)});
}

inline std::vector<double> Out(const std::vector<rt::RtValue>& o, size_t i = 0) {
  if (o.size() <= i) return {};
  return Values(o[i]);
}

// The tree of the TreeEnsemble tests: node 0: x0 <= 0.5 ? leaf 0 : node 1; node 1: x1 < 2 ? leaf 1 :
// leaf 2; leaves 1, 10, 100.
inline std::vector<onnx::OnnxAttribute> OneTree(const std::vector<double>& modes, const Ints& nan_true,
                                                int64_t agg = 1, int64_t post = 0) {
  return {IntsAttr("nodes_featureids", {0, 1}),
          TensorAttr("nodes_splits", NumTensor(DType::F32, {0.5, 2})),
          TensorAttr("nodes_modes", U8Tensor(modes)),
          IntsAttr("nodes_truenodeids", {0, 1}),
          IntsAttr("nodes_falsenodeids", {1, 2}),
          IntsAttr("nodes_trueleafs", {1, 1}),
          IntsAttr("nodes_falseleafs", {0, 1}),
          IntsAttr("nodes_missing_value_tracks_true", nan_true),
          IntsAttr("tree_roots", {0}),
          IntsAttr("leaf_targetids", {0, 0, 0}),
          TensorAttr("leaf_weights", NumTensor(DType::F32, {1, 10, 100})),
          IntAttr("n_targets", 1),
          IntAttr("aggregate_function", agg),
          IntAttr("post_transform", post)};
}

}  // namespace plumb::testing
