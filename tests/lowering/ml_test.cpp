// Lowering tests for the ai.onnx.ml operators (lowering/onnx/ml.cpp). Expected values are worked
// out by hand from the operator definitions (and the ONNX reference where the text is silent).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using ir::DType;
using Strings = std::vector<std::string>;
const char* const kMl = "ai.onnx.ml";
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A 1-D attribute tensor of a numeric dtype.
onnx::Tensor NumTensor(DType dt, const std::vector<double>& v) {
  return OnnxTensor("t", dt, {static_cast<int64_t>(v.size())}, v);
}
onnx::Tensor U8Tensor(const std::vector<double>& v) { return NumTensor(DType::U8, v); }

// One string (or other non-numeric) input, given as a runtime value.
std::vector<rt::RtValue> RunStr(const std::string& op, int64_t opset, const Ints& shape, const Strings& x,
                                std::vector<onnx::OnnxAttribute> attrs, size_t outs = 1) {
  onnx::OnnxModel m = OneNodeModel(op, opset, {{shape, {}, DType::String}}, std::move(attrs), outs, kMl);
  return RunModel(m, {StrTensor(shape, x)});
}

std::vector<double> Out(const std::vector<rt::RtValue>& o, size_t i = 0) {
  if (o.size() <= i) return {};
  return Values(o[i]);
}

// ---- LabelEncoder ----------------------------------------------------------------------------------

TEST(LowerLabelEncoder, StringToIntWithDefault) {
  auto o = RunStr("LabelEncoder", 2, {4}, {"a", "d", "c", "b"},
                  {StrsAttr("keys_strings", {"a", "b", "c"}), IntsAttr("values_int64s", {0, 1, 2}),
                   IntAttr("default_int64", 42)});
  ExpectNear(Out(o), {0, 42, 2, 1});
}

TEST(LowerLabelEncoder, DefaultInt64IsMinusOne) {
  auto o = RunStr("LabelEncoder", 4, {2, 1}, {"z", "b"},
                  {StrsAttr("keys_strings", {"a", "b"}), IntsAttr("values_int64s", {5, 6})});
  ExpectNear(Out(o), {-1, 6});
}

TEST(LowerLabelEncoder, IntToStringDefaultUnused) {
  auto o =
      RunOneNode("LabelEncoder", 2, {{{3}, {7, 8, 9}, DType::I64}},
                 {IntsAttr("keys_int64s", {7, 9}), StrsAttr("values_strings", {"seven", "nine"})}, 1, kMl);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(StrValues(o[0]), (Strings{"seven", "_Unused", "nine"}));
}

TEST(LowerLabelEncoder, TensorKeysLastRepeatWins) {
  auto o = RunOneNode("LabelEncoder", 4, {{{4}, {1, 2, 3, 1}, DType::I64}},
                      {TensorAttr("keys_tensor", NumTensor(DType::I64, {1, 2, 1})),
                       TensorAttr("values_tensor", NumTensor(DType::F32, {10, 20, 30})),
                       TensorAttr("default_tensor", NumTensor(DType::F32, {7}))},
                      1, kMl);
  ExpectNear(Out(o), {30, 20, 7, 30});
}

TEST(LowerLabelEncoder, NanKeyMatchesNanInput) {
  auto o = RunOneNode("LabelEncoder", 4, {{{3}, {kNaN, 1.5, 2}}},
                      {FloatsAttr("keys_floats", {std::nanf(""), 1.5f}), IntsAttr("values_int64s", {5, 6})},
                      1, kMl);
  ExpectNear(Out(o), {5, 6, -1});
}

TEST(LowerLabelEncoder, FloatDefaultIsNegativeZero) {
  auto o = RunOneNode("LabelEncoder", 2, {{{2}, {3, 4}, DType::I64}},
                      {IntsAttr("keys_int64s", {3}), FloatsAttr("values_floats", {2.5f})}, 1, kMl);
  auto v = Out(o);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], 2.5);
  EXPECT_EQ(v[1], 0.0);
  EXPECT_TRUE(std::signbit(v[1]));
}

TEST(LowerLabelEncoder, Opset1BothDirections) {
  auto o = RunStr("LabelEncoder", 1, {3}, {"y", "z", "x"}, {StrsAttr("classes_strings", {"x", "y", "x"})});
  ExpectNear(Out(o), {1, -1, 0});  // the first equal entry's index
  auto o2 = RunOneNode("LabelEncoder", 1, {{{3}, {0, 5, -1}, DType::I64}},
                       {StrsAttr("classes_strings", {"x", "y"}), StrAttr("default_string", "?")}, 1, kMl);
  ASSERT_EQ(o2.size(), 1u);
  EXPECT_EQ(StrValues(o2[0]), (Strings{"x", "?", "?"}));
}

TEST(LowerLabelEncoder, KeyInputDtypeMismatchIsInvalid) {
  onnx::OnnxModel m = OneNodeModel("LabelEncoder", 2, {{{2}, {1, 2}, DType::I64}},
                                   {StrsAttr("keys_strings", {"a"}), IntsAttr("values_int64s", {1})}, 1, kMl);
  EXPECT_FALSE(lower::lower_model(m).has_value());
}

TEST(LowerCategoryMapper, StringToIntAndBack) {
  std::vector<onnx::OnnxAttribute> attrs = {StrsAttr("cats_strings", {"cat", "dog"}),
                                            IntsAttr("cats_int64s", {3, 8})};
  ExpectNear(Out(RunStr("CategoryMapper", 1, {3}, {"dog", "cow", "cat"}, attrs)), {8, -1, 3});
  auto o = RunOneNode("CategoryMapper", 1, {{{2}, {3, 4}, DType::I64}}, attrs, 1, kMl);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(StrValues(o[0]), (Strings{"cat", "_Unused"}));
}

// ---- element-wise ----------------------------------------------------------------------------------

TEST(LowerBinarizer, GreaterThanThresholdNanIsZero) {
  ExpectNear(
      Out(RunOneNode("Binarizer", 1, {{{4}, {0.5, 1, 2, kNaN}}}, {FloatAttr("threshold", 1.0f)}, 1, kMl)),
      {0, 0, 1, 0});
  ExpectNear(Out(RunOneNode("Binarizer", 1, {{{3}, {-1, 0, 5}, DType::I64}}, {}, 1, kMl)), {0, 0, 1});
}

TEST(LowerScaler, OffsetThenScalePerFeature) {
  ExpectNear(Out(RunOneNode("Scaler", 1, {{{2, 2}, {3, 4, 1, 2}}},
                            {FloatsAttr("offset", {1, 2}), FloatsAttr("scale", {2, 0.5f})}, 1, kMl)),
             {4, 1, 0, 0});
  ExpectNear(Out(RunOneNode("Scaler", 1, {{{3}, {1, 2, 3}, DType::I64}},
                            {FloatsAttr("offset", {1}), FloatsAttr("scale", {3})}, 1, kMl)),
             {0, 3, 6});
}

TEST(LowerNormalizer, MaxL1L2AndZeroRow) {
  ExpectNear(Out(RunOneNode("Normalizer", 1, {{{2, 2}, {2, -4, 0, 0}}}, {StrAttr("norm", "MAX")}, 1, kMl)),
             {0.5, -1, 0, 0});
  ExpectNear(Out(RunOneNode("Normalizer", 1, {{{1, 2}, {1, -3}}}, {StrAttr("norm", "L1")}, 1, kMl)),
             {0.25, -0.75});
  ExpectNear(Out(RunOneNode("Normalizer", 1, {{{2}, {3, 4}}}, {StrAttr("norm", "L2")}, 1, kMl)), {0.6, 0.8});
}

TEST(LowerImputer, NanAndIntegerReplacement) {
  ExpectNear(
      Out(RunOneNode("Imputer", 1, {{{2, 2}, {kNaN, 1, 2, kNaN}}},
                     {FloatsAttr("imputed_value_floats", {10, 20}), FloatAttr("replaced_value_float", NAN)},
                     1, kMl)),
      {10, 1, 2, 20});
  ExpectNear(
      Out(RunOneNode("Imputer", 1, {{{1, 3}, {-1, 5, -1}, DType::I64}},
                     {IntsAttr("imputed_value_int64s", {0}), IntAttr("replaced_value_int64", -1)}, 1, kMl)),
      {0, 5, 0});
}

TEST(LowerOneHotEncoder, IntegerCategoriesFloatTruncated) {
  ExpectNear(Out(RunOneNode("OneHotEncoder", 1, {{{3}, {3.7, -0.5, 5}}}, {IntsAttr("cats_int64s", {1, 3, 5})},
                            1, kMl)),
             {0, 1, 0, 0, 0, 0, 0, 0, 1});
  auto o = RunStr("OneHotEncoder", 1, {2}, {"b", "q"}, {StrsAttr("cats_strings", {"a", "b"})});
  ExpectNear(Out(o), {0, 1, 0, 0});
}

TEST(LowerOneHotEncoder, ZerosFalseUnknownCategoryStopsTheRun) {
  onnx::OnnxModel m = OneNodeModel("OneHotEncoder", 1, {{{2}, {1, 2}, DType::I64}},
                                   {IntsAttr("cats_int64s", {1}), IntAttr("zeros", 0)}, 1, kMl);
  Status st;
  RunModel(m, {MakeTensor(DType::I64, {2}, {1, 2})}, &st);
  EXPECT_FALSE(st.is_ok());
  Status ok;
  auto o = RunModel(m, {MakeTensor(DType::I64, {2}, {1, 1})}, &ok);
  EXPECT_TRUE(ok.is_ok()) << ok.to_string();
  ExpectNear(Out(o), {1, 1});
}

TEST(LowerArrayFeatureExtractor, LastAxisAndVectorInput) {
  ExpectNear(Out(RunOneNode("ArrayFeatureExtractor", 1,
                            {{{2, 3}, {1, 2, 3, 4, 5, 6}}, {{2}, {2, 0}, DType::I64}}, {}, 1, kMl)),
             {3, 1, 6, 4});
  auto o = RunOneNode("ArrayFeatureExtractor", 1, {{{3}, {7, 8, 9}}, {{1}, {1}, DType::I64}}, {}, 1, kMl);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().shape, (Ints{1, 1}));
  ExpectNear(Out(o), {8});
}

TEST(LowerFeatureVectorizer, ConcatWithPadAndCut) {
  auto o = RunOneNode("FeatureVectorizer", 1, {{{1, 2}, {1, 2}}, {{1, 3}, {3, 4, 5}, DType::I64}},
                      {IntsAttr("inputdimensions", {3, 2})}, 1, kMl);
  ExpectNear(Out(o), {1, 2, 0, 3, 4});
}

// ---- linear models -------------------------------------------------------------------------------

TEST(LowerLinearRegressor, TwoTargetsWithIntercepts) {
  ExpectNear(Out(RunOneNode("LinearRegressor", 1, {{{2, 2}, {1, 1, 2, 0}}},
                            {FloatsAttr("coefficients", {1, 2, 3, 4}), FloatsAttr("intercepts", {0.5f, -1}),
                             IntAttr("targets", 2)},
                            1, kMl)),
             {3.5, 6, 2.5, 5});
}

TEST(LowerLinearClassifier, ArgmaxLabelsAndSoftmax) {
  std::vector<onnx::OnnxAttribute> attrs = {FloatsAttr("coefficients", {1, -1, -1, 1}),
                                            FloatsAttr("intercepts", {0, 0}),
                                            IntsAttr("classlabels_ints", {7, 9})};
  auto o = RunOneNode("LinearClassifier", 1, {{{2, 2}, {2, 1, 0, 3}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {7, 9});
  ExpectNear(Out(o, 1), {1, -1, -3, 3});
  attrs.push_back(StrAttr("post_transform", "SOFTMAX"));
  auto p = RunOneNode("LinearClassifier", 1, {{{2}, {2, 1}}}, attrs, 2, kMl);
  const double a = std::exp(1.0) / (std::exp(1.0) + std::exp(-1.0));
  ExpectNear(Out(p, 1), {a, 1 - a}, 1e-6);
}

TEST(LowerLinearClassifier, OneScoreTwoLabelsBecomesMinusSPlusS) {
  std::vector<onnx::OnnxAttribute> attrs = {FloatsAttr("coefficients", {1, 1}),
                                            FloatsAttr("intercepts", {-1}),
                                            IntsAttr("classlabels_ints", {0, 1})};
  auto o = RunOneNode("LinearClassifier", 1, {{{2, 2}, {1, 1, 0, 0}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {1, 0});
  ExpectNear(Out(o, 1), {-1, 1, 1, -1});
}

TEST(LowerLinearClassifier, LogisticAndProbitTransforms) {
  std::vector<onnx::OnnxAttribute> attrs = {FloatsAttr("coefficients", {1, 2}),
                                            IntsAttr("classlabels_ints", {4, 5}),
                                            StrAttr("post_transform", "LOGISTIC")};
  auto o = RunOneNode("LinearClassifier", 1, {{{2, 1}, {0, 1}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 1), {0.5, 0.5, 1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(-2.0))});
  ExpectNear(Out(o, 0), {4, 5});
  attrs[2] = StrAttr("post_transform", "PROBIT");
  // probit(0.5) = sqrt(2) * erfinv(0) = 0.
  auto p = RunOneNode("LinearClassifier", 1, {{{1, 1}, {0.5}}},
                      {FloatsAttr("coefficients", {1, 1}), IntsAttr("classlabels_ints", {4, 5}),
                       StrAttr("post_transform", "PROBIT")},
                      2, kMl);
  ExpectNear(Out(p, 1), {0, 0}, 1e-6);
}

// ---- tree ensembles (TreeEnsemble-5) -------------------------------------------------------------
// Tree: node 0: x0 <= 0.5 ? leaf 0 : node 1; node 1: x1 < 2 ? leaf 1 : leaf 2; leaves 1, 10, 100.

std::vector<onnx::OnnxAttribute> OneTree(const std::vector<double>& modes, const Ints& nan_true,
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

TEST(LowerTreeEnsemble, LeqLtPathsAndMissingValues) {
  auto o = RunOneNode("TreeEnsemble", 5, {{{5, 2}, {0.2, 9, 0.7, 1, 0.7, 3, 0.5, 2, kNaN, 1}}},
                      OneTree({0, 1}, {0, 0}), 1, kMl);
  ExpectNear(Out(o), {1, 10, 100, 1, 10});  // NaN <= 0.5 is false, tracks false -> node 1
  auto p = RunOneNode("TreeEnsemble", 5, {{{2, 2}, {kNaN, 1, 0.7, kNaN}}}, OneTree({0, 1}, {1, 1}), 1, kMl);
  ExpectNear(Out(p), {1, 10});  // NaN tracks true at both nodes
}

TEST(LowerTreeEnsemble, GteGtEqNeqModes) {
  // GTE / GT at node 0, EQ / NEQ at node 1.
  ExpectNear(Out(RunOneNode("TreeEnsemble", 5, {{{3, 2}, {0.5, 0, 0.4, 2, 0.4, 1}}}, OneTree({2, 4}, {0, 0}),
                            1, kMl)),
             {1, 10, 100});
  ExpectNear(Out(RunOneNode("TreeEnsemble", 5, {{{3, 2}, {0.5, 2, 0.6, 0, 0.1, 2}}}, OneTree({3, 5}, {0, 0}),
                            1, kMl)),
             {100, 1, 100});
  // NEQ with NaN is true (the comparison itself), so NaN goes to leaf 1 with tracks false.
  ExpectNear(Out(RunOneNode("TreeEnsemble", 5, {{{1, 2}, {0.1, kNaN}}}, OneTree({3, 5}, {0, 0}), 1, kMl)),
             {10});
}

TEST(LowerTreeEnsemble, SetMembership) {
  auto attrs = OneTree({6, 1}, {0, 0});
  attrs.push_back(TensorAttr("membership_values", NumTensor(DType::F32, {1, 3, kNaN})));
  ExpectNear(Out(RunOneNode("TreeEnsemble", 5, {{{4, 2}, {3, 0, 2, 0, 1, 5, kNaN, 0}}}, attrs, 1, kMl)),
             {1, 10, 1, 10});
}

TEST(LowerTreeEnsemble, TwoTreesAggregatesAndTargets) {
  // Tree A (root 0): x0 <= 0 ? leaf 0 (t0: 1) : leaf 1 (t1: 2); tree B (root 1): leaf 2 (t0: 4)
  // both branches the same leaf: a one-leaf tree.
  auto attrs = [](int64_t agg) {
    return std::vector<onnx::OnnxAttribute>{IntsAttr("nodes_featureids", {0, 0}),
                                            TensorAttr("nodes_splits", NumTensor(DType::F64, {0, 0})),
                                            TensorAttr("nodes_modes", U8Tensor({0, 0})),
                                            IntsAttr("nodes_truenodeids", {0, 2}),
                                            IntsAttr("nodes_falsenodeids", {1, 2}),
                                            IntsAttr("nodes_trueleafs", {1, 1}),
                                            IntsAttr("nodes_falseleafs", {1, 1}),
                                            IntsAttr("tree_roots", {0, 1}),
                                            IntsAttr("leaf_targetids", {0, 1, 0}),
                                            TensorAttr("leaf_weights", NumTensor(DType::F64, {1, 2, 4})),
                                            IntAttr("n_targets", 2),
                                            IntAttr("aggregate_function", agg)};
  };
  const double big = std::numeric_limits<double>::max();
  NodeInput x{{2, 1}, {-1, 1}, DType::F64};
  ExpectNear(Out(RunOneNode("TreeEnsemble", 5, {x}, attrs(1), 1, kMl)), {5, 0, 4, 2});
  ExpectNear(Out(RunOneNode("TreeEnsemble", 5, {x}, attrs(0), 1, kMl)), {2.5, 0, 2, 1});
  auto mn = Out(RunOneNode("TreeEnsemble", 5, {x}, attrs(2), 1, kMl));
  ASSERT_EQ(mn.size(), 4u);
  EXPECT_EQ(mn[0], 1);
  EXPECT_EQ(mn[1], big);
  EXPECT_EQ(mn[2], 4);
  EXPECT_EQ(mn[3], 2);
  auto mx = Out(RunOneNode("TreeEnsemble", 5, {x}, attrs(3), 1, kMl));
  ASSERT_EQ(mx.size(), 4u);
  EXPECT_EQ(mx[0], 4);
  EXPECT_EQ(mx[1], -big);
}

TEST(LowerTreeEnsemble, LogisticPostTransform) {
  ExpectNear(Out(RunOneNode("TreeEnsemble", 5, {{{1, 2}, {0.2, 0}}}, OneTree({0, 1}, {0, 0}, 1, 2), 1, kMl)),
             {1 / (1 + std::exp(-1.0))});
}

TEST(LowerTreeEnsemble, CycleIsInvalid) {
  auto attrs = OneTree({0, 1}, {0, 0});
  attrs[4] = IntsAttr("nodes_falsenodeids", {1, 0});
  attrs[6] = IntsAttr("nodes_falseleafs", {0, 0});
  onnx::OnnxModel m = OneNodeModel("TreeEnsemble", 5, {{{1, 2}, {0, 0}}}, attrs, 1, kMl);
  EXPECT_FALSE(lower::lower_model(m).has_value());
}

// ---- TreeEnsembleRegressor / Classifier (opsets 1..3) ---------------------------------------------

std::vector<onnx::OnnxAttribute> OldTree(const Strings& mode0, const Ints& nan_true) {
  return {IntsAttr("nodes_treeids", {0, 0, 0, 0, 0}),
          IntsAttr("nodes_nodeids", {0, 1, 2, 3, 4}),
          IntsAttr("nodes_featureids", {0, 1, 0, 0, 0}),
          FloatsAttr("nodes_values", {0.5f, 2, 0, 0, 0}),
          StrsAttr("nodes_modes", {mode0[0], mode0[1], "LEAF", "LEAF", "LEAF"}),
          IntsAttr("nodes_truenodeids", {2, 3, 0, 0, 0}),
          IntsAttr("nodes_falsenodeids", {1, 4, 0, 0, 0}),
          IntsAttr("nodes_missing_value_tracks_true", nan_true)};
}

TEST(LowerTreeEnsembleRegressor, PathsBaseValuesAndNanTracking) {
  auto attrs = OldTree({"BRANCH_LEQ", "BRANCH_LT"}, {0, 0, 0, 0, 0});
  attrs.push_back(IntsAttr("target_treeids", {0, 0, 0}));
  attrs.push_back(IntsAttr("target_nodeids", {2, 3, 4}));
  attrs.push_back(IntsAttr("target_ids", {0, 0, 0}));
  attrs.push_back(FloatsAttr("target_weights", {1, 10, 100}));
  attrs.push_back(IntAttr("n_targets", 1));
  attrs.push_back(FloatsAttr("base_values", {0.5f}));
  ExpectNear(Out(RunOneNode("TreeEnsembleRegressor", 3, {{{4, 2}, {0.2, 9, 0.7, 1, 0.7, 3, kNaN, 1}}}, attrs,
                            1, kMl)),
             {1.5, 10.5, 100.5, 10.5});
}

TEST(LowerTreeEnsembleRegressor, NeqWithNanFollowsTracksOnly) {
  // The older ops send NaN where nodes_missing_value_tracks_true says, even for BRANCH_NEQ.
  auto attrs = OldTree({"BRANCH_NEQ", "BRANCH_LT"}, {0, 1, 0, 0, 0});
  attrs.push_back(IntsAttr("target_treeids", {0, 0, 0}));
  attrs.push_back(IntsAttr("target_nodeids", {2, 3, 4}));
  attrs.push_back(IntsAttr("target_ids", {0, 0, 0}));
  attrs.push_back(FloatsAttr("target_weights", {1, 10, 100}));
  // [NaN, 1]: NaN -> false -> node 1 -> 1 < 2 -> 10 (TreeEnsemble-5 would take NaN != 0.5: 1).
  // [0.7, NaN]: 0.7 != 0.5 -> 1. [0.5, NaN]: node 1, NaN tracks true -> 10.
  ExpectNear(
      Out(RunOneNode("TreeEnsembleRegressor", 1, {{{3, 2}, {kNaN, 1, 0.7, kNaN, 0.5, kNaN}}}, attrs, 1, kMl)),
      {10, 1, 10});
}

TEST(LowerTreeEnsembleClassifier, VotesLabelsAndScores) {
  auto attrs = OldTree({"BRANCH_LEQ", "BRANCH_LT"}, {0, 0, 0, 0, 0});
  attrs.push_back(IntsAttr("class_treeids", {0, 0, 0, 0}));
  attrs.push_back(IntsAttr("class_nodeids", {2, 3, 4, 4}));
  attrs.push_back(IntsAttr("class_ids", {0, 1, 2, 1}));
  attrs.push_back(FloatsAttr("class_weights", {1, 2, 3, 4}));
  attrs.push_back(IntsAttr("classlabels_int64s", {10, 20, 30}));
  auto o = RunOneNode("TreeEnsembleClassifier", 1, {{{3, 2}, {0.2, 9, 0.7, 1, 0.7, 3}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {10, 20, 20});
  ExpectNear(Out(o, 1), {1, 0, 0, 0, 2, 0, 0, 4, 3});
}

TEST(LowerTreeEnsembleClassifier, BinaryOneVotedClass) {
  // Every vote is for class 0: scores become [1 - s, s] with s the class-0 sum (NONE).
  auto attrs = OldTree({"BRANCH_LEQ", "BRANCH_LT"}, {0, 0, 0, 0, 0});
  attrs.push_back(IntsAttr("class_treeids", {0, 0, 0}));
  attrs.push_back(IntsAttr("class_nodeids", {2, 3, 4}));
  attrs.push_back(IntsAttr("class_ids", {0, 0, 0}));
  attrs.push_back(FloatsAttr("class_weights", {0.25f, 0.5f, 0.75f}));
  attrs.push_back(StrsAttr("classlabels_strings", {"no", "yes"}));
  auto o = RunOneNode("TreeEnsembleClassifier", 3, {{{2, 2}, {0.2, 9, 0.7, 3}}}, attrs, 2, kMl);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(StrValues(o[0]), (Strings{"no", "yes"}));
  ExpectNear(Out(o, 1), {0.75, 0.25, 0.25, 0.75});
}

TEST(LowerTreeEnsembleClassifier, OneLabelOtherThanOneIsUnsupported) {
  // One class label: ONNX defines no label rule; the reference handles only the int label 1 (and
  // raises NotImplementedError otherwise), so plumb lowers that case and refuses the others.
  auto attrs = OldTree({"BRANCH_LEQ", "BRANCH_LT"}, {0, 0, 0, 0, 0});
  attrs.push_back(IntsAttr("class_treeids", {0, 0, 0}));
  attrs.push_back(IntsAttr("class_nodeids", {2, 3, 4}));
  attrs.push_back(IntsAttr("class_ids", {0, 0, 0}));
  attrs.push_back(FloatsAttr("class_weights", {0.25f, 0.5f, 0.75f}));
  for (const auto& label : {IntsAttr("classlabels_int64s", {4}), StrsAttr("classlabels_strings", {"yes"})}) {
    auto with = attrs;
    with.push_back(label);
    auto g = lower::lower_model(OneNodeModel("TreeEnsembleClassifier", 3, {{{1, 2}, {0, 0}}}, with, 2, kMl));
    ASSERT_FALSE(g.has_value());
    EXPECT_EQ(g.status().code(), ErrorCode::kUnsupported) << g.status().to_string();
    EXPECT_NE(g.status().to_string().find("'n0'"), std::string::npos) << g.status().to_string();
  }
}

// ---- SVM -----------------------------------------------------------------------------------------

TEST(LowerSvmRegressor, LinearAndRbf) {
  ExpectNear(Out(RunOneNode("SVMRegressor", 1, {{{2, 2}, {1, 1, 2, -1}}},
                            {FloatsAttr("coefficients", {1, 2}), FloatsAttr("rho", {0.5f})}, 1, kMl)),
             {3.5, 0.5});
  ExpectNear(Out(RunOneNode("SVMRegressor", 1, {{{1, 2}, {1, 1}}},
                            {FloatsAttr("coefficients", {2}), FloatsAttr("rho", {0.5f}),
                             FloatsAttr("support_vectors", {0, 0}), IntAttr("n_supports", 1),
                             StrAttr("kernel_type", "RBF"), FloatsAttr("kernel_params", {0.5f, 0, 0})},
                            1, kMl)),
             {2 * std::exp(-1.0) + 0.5}, 1e-6);
  ExpectNear(Out(RunOneNode(
                 "SVMRegressor", 1, {{{2, 1}, {1, -1}}},
                 {FloatsAttr("coefficients", {1}), FloatsAttr("rho", {0}), IntAttr("one_class", 1)}, 1, kMl)),
             {1, -1});
}

TEST(LowerSvmClassifier, SvcVotesThreeClasses) {
  // Three classes, one support vector each (sv = [0], [1], [2]), linear kernel k(x, s) = x s.
  // coefficients as [classes - 1, vectors] = [[1, 1, 1], [-1, -1, -1]]; the score of pair (i, j) is
  // rho[p] + coef[j-1][sv_i] k_i + coef[i][sv_j] k_j.
  std::vector<onnx::OnnxAttribute> attrs = {
      IntsAttr("vectors_per_class", {1, 1, 1}), FloatsAttr("support_vectors", {0, 1, 2}),
      FloatsAttr("coefficients", {1, 1, 1, -1, -1, -1}), FloatsAttr("rho", {0, -1, 0}),
      IntsAttr("classlabels_ints", {5, 6, 7})};
  // x = 1: k = [0, 1, 2]. pair(0,1) = 0 + c[0][0]*0 + c[0][1]*1 = 1 > 0: vote 0.
  // pair(0,2) = -1 + c[1][0]*0 + c[0][2]*2 = -1 + 2 = 1: vote 0. pair(1,2) = 0 + c[1][1]*1 + c[1][2]*2
  // = -1 - 2 = -3: vote 2. Class 0 wins with 2 votes.
  auto o = RunOneNode("SVMClassifier", 1, {{{1, 1}, {1}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {5});
  ExpectNear(Out(o, 1), {1, 1, -3});
}

// Expected probabilities below come from a plain-Python transcription of libsvm's
// svm_predict_probability (sigmoid_predict, multiclass_probability), run in double precision.
TEST(LowerSvmClassifier, ProbabilitiesByPairwiseCoupling) {
  // The SvcVotesThreeClasses model: pair scores (x, 2x - 1, -3x).
  std::vector<onnx::OnnxAttribute> attrs = {IntsAttr("vectors_per_class", {1, 1, 1}),
                                            FloatsAttr("support_vectors", {0, 1, 2}),
                                            FloatsAttr("coefficients", {1, 1, 1, -1, -1, -1}),
                                            FloatsAttr("rho", {0, -1, 0}),
                                            IntsAttr("classlabels_ints", {5, 6, 7}),
                                            FloatsAttr("prob_a", {-2, -1, -0.5f}),
                                            FloatsAttr("prob_b", {0.1f, 0, 0.2f})};
  // Rows x = 1 (2 sweeps), -1 (3 sweeps), 0.5 (3 sweeps); NaN: every coupling error is NaN, which
  // libsvm's max_error ignores, so it stops at once with p = 1/3 (votes: all pairs vote j -> 7).
  auto o = RunOneNode("SVMClassifier", 1, {{{4, 1}, {1, -1, 0.5, kNaN}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {5, 6, 7, 7});
  // prob_a/prob_b were given as floats: the f32 values of -0.5, 0.1, 0.2 feed the sigmoid.
  ExpectNear(Out(o, 1),
             {0.669433802, 0.075239966, 0.255326232, 0.049557237, 0.741116241, 0.209326522, 0.415993726,
              0.165271584, 0.418734690, 1.0 / 3, 1.0 / 3, 1.0 / 3},
             2e-6);
}

TEST(LowerSvmClassifier, TwoClassProbabilitiesLabelFromVotes) {
  // Two classes, one rho, all coefficients positive: score = 2x - 0.5. Without probabilities the
  // label rule is "max vote >= 0.5 -> second label" (always 8); with them it is the voted class.
  std::vector<onnx::OnnxAttribute> attrs = {
      IntsAttr("vectors_per_class", {1, 1}), FloatsAttr("support_vectors", {1, 1}),
      FloatsAttr("coefficients", {1, 1}), FloatsAttr("rho", {-0.5f}), IntsAttr("classlabels_ints", {3, 8})};
  ExpectNear(Out(RunOneNode("SVMClassifier", 1, {{{2, 1}, {1, -0.5}}}, attrs, 1, kMl)), {8, 8});
  attrs.push_back(FloatsAttr("prob_a", {-1.2f}));
  attrs.push_back(FloatsAttr("prob_b", {0.3f}));
  auto o = RunOneNode("SVMClassifier", 1, {{{2, 1}, {1, -0.5}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {3, 8});
  // r_01 = 1 - logistic(-1.2 s + 0.3) (f32 -1.2, 0.3), s = 1.5 and -1.5; two classes couple to
  // p ~ (r_01, 1 - r_01), here after the sweeps libsvm takes before its tolerance is met.
  ExpectNear(Out(o, 1), {0.817574166, 0.182425834, 0.108937943, 0.891062057}, 1e-6);
}

TEST(LowerSvmClassifier, LinearOneRhoStringLabelsGiveOneOrZero) {
  // Three string labels, one rho, linear mode: not the two-label rule, so the label is "1" when
  // the best score is > 0 and "0" otherwise (onnxruntime's strings for the positive/negative class).
  onnx::OnnxModel m = OneNodeModel("SVMClassifier", 1, {{{3, 1}, {1, -1, 0}}},
                                   {FloatsAttr("coefficients", {1, 1, 1}), FloatsAttr("rho", {0}),
                                    StrsAttr("classlabels_strings", {"a", "b", "c"})},
                                   2, kMl);
  auto o = RunModel(m, {MakeTensor(DType::F32, {3, 1}, {1, -1, 0})});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(StrValues(o[0]), (Strings{"1", "0", "0"}));
  ExpectNear(Out(o, 1), {1, 1, 1, -1, -1, -1, 0, 0, 0});
}

TEST(LowerSvmClassifier, ShortProbAIsInvalid) {
  onnx::OnnxModel m = OneNodeModel(
      "SVMClassifier", 1, {{{1, 1}, {1}}},
      {IntsAttr("vectors_per_class", {1, 1, 1}), FloatsAttr("support_vectors", {0, 1, 2}),
       FloatsAttr("coefficients", {1, 1, 1, -1, -1, -1}), FloatsAttr("rho", {0, -1, 0}),
       IntsAttr("classlabels_ints", {5, 6, 7}), FloatsAttr("prob_a", {1, 1}), FloatsAttr("prob_b", {0, 0})},
      2, kMl);
  auto g = lower::lower_model(m);
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.status().to_string().find("prob_a"), std::string::npos) << g.status().to_string();
}

// ZipMap: one map {label: X[r, c]} per row, in label order; -0 and NaN values are kept as they are.
TEST(LowerMl, ZipMapRowsBecomeMaps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (bool strings : {false, true}) {
    onnx::OnnxModel m = OneNodeModel("ZipMap", 1, {{{2, 3}, {}}},
                                     {strings ? StrsAttr("classlabels_strings", {"a", "b", "c"})
                                              : IntsAttr("classlabels_int64s", {10, 20, 30})},
                                     1, kMl);
    m.graph.inputs[0].type = ir::Type::tensor(
        DType::F32, ir::Shape{ir::Dim::symbolic("N"), ir::Dim{3}});  // rows known at run time
    auto out = RunModel(m, {MakeTensor(DType::F32, {2, 3}, {1, 2, 3, 4.5, -0.0, nan})});
    ASSERT_EQ(out.size(), 1u);
    const auto* seq = std::get_if<rt::SequenceValue>(&out[0]);
    ASSERT_NE(seq, nullptr);
    ASSERT_EQ(seq->maps.size(), 2u);
    EXPECT_TRUE(seq->items.empty());
    for (const rt::MapValue& map : seq->maps) {
      if (strings)
        EXPECT_EQ(StrValues(map.keys), (std::vector<std::string>{"a", "b", "c"}));
      else
        EXPECT_EQ(Values(map.keys), (std::vector<double>{10, 20, 30}));
    }
    EXPECT_EQ(Values(seq->maps[0].values), (std::vector<double>{1, 2, 3}));
    const std::vector<double> second = Values(seq->maps[1].values);
    ASSERT_EQ(second.size(), 3u);
    EXPECT_EQ(second[0], 4.5);
    EXPECT_TRUE(second[1] == 0 && std::signbit(second[1]));
    EXPECT_TRUE(std::isnan(second[2]));
  }
}

TEST(LowerMl, ZipMapOneRowAndEmptyBatch) {
  auto one = RunOneNode("ZipMap", 1, {{{2}, {7, 8}}}, {IntsAttr("classlabels_int64s", {0, 1})}, 1, kMl);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(std::get<rt::SequenceValue>(one[0]).maps.size(), 1u);
  EXPECT_EQ(Values(std::get<rt::SequenceValue>(one[0]).maps[0].values), (std::vector<double>{7, 8}));
  auto none = RunOneNode("ZipMap", 1, {{{0, 2}, {}}}, {IntsAttr("classlabels_int64s", {0, 1})}, 1, kMl);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(std::get<rt::SequenceValue>(none[0]).maps.empty());
}

TEST(LowerMl, ZipMapLabelCountMustMatchColumns) {
  onnx::OnnxModel m =
      OneNodeModel("ZipMap", 1, {{{1, 2}, {0, 1}}}, {IntsAttr("classlabels_int64s", {0, 1, 2})}, 1, kMl);
  auto g = lower::lower_model(m);
  ASSERT_FALSE(g.has_value());
  EXPECT_EQ(g.status().code(), ErrorCode::kInvalidModel) << g.status().to_string();
  EXPECT_NE(g.status().to_string().find("'n0'"), std::string::npos) << g.status().to_string();
}

}  // namespace
}  // namespace plumb::testing

namespace plumb::testing {
namespace {

// A one-node model whose input i0 is a map<key, value> graph input.
onnx::OnnxModel MapModel(const std::string& op, DType key, DType value,
                         std::vector<onnx::OnnxAttribute> attrs) {
  onnx::OnnxModel m = OneNodeModel(op, 1, {}, std::move(attrs), 1, kMl);
  m.graph.nodes[0].inputs = {"i0"};
  m.graph.inputs.push_back({"i0", ir::Type::map(key, ir::Type::tensor(value, {}))});
  return m;
}
rt::RtValue MapOf(rt::Tensor keys, rt::Tensor values) {
  return rt::MapValue{std::move(keys), std::move(values)};
}

TEST(LowerCastMap, DenseSortsByKeySparsePlacesByKey) {
  auto in = [] {
    return MapOf(MakeTensor(DType::I64, {3}, {5, 1, 3}), MakeTensor(DType::F32, {3}, {0.5, 1.5, 3.5}));
  };
  ExpectNear(Out(RunModel(MapModel("CastMap", DType::I64, DType::F32, {}), {in()})), {1.5, 3.5, 0.5});
  auto o = RunModel(
      MapModel("CastMap", DType::I64, DType::F32,
               {StrAttr("map_form", "SPARSE"), IntAttr("max_map", 6), StrAttr("cast_to", "TO_INT64")}),
      {in()});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::I64);
  ExpectNear(Out(o), {0, 1, 0, 3, 0, 0});
}

TEST(LowerDictVectorizer, VocabularyOrderZerosForMissing) {
  rt::Tensor keys = StrTensor({2}, {"c", "a"});
  auto o = RunModel(MapModel("DictVectorizer", DType::String, DType::I64,
                             {StrsAttr("string_vocabulary", {"a", "b", "c", "z"})}),
                    {MapOf(std::move(keys), MakeTensor(DType::I64, {2}, {8, 4}))});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().shape, (Ints{1, 4}));
  ExpectNear(Out(o), {4, 0, 8, 0});
}

}  // namespace
}  // namespace plumb::testing

namespace plumb::testing {
namespace {

// The one-node model with input 0 declared [?, dims...] (a symbolic batch, as exported models have).
onnx::OnnxModel SymbolicBatch(onnx::OnnxModel m, DType dt, Ints rest) {
  ir::Shape s{ir::Dim::symbolic("N")};
  for (int64_t d : rest) s.push_back(d);
  m.graph.inputs[0].type = ir::Type::tensor(dt, s);
  return m;
}

// Input 0 declared [?, ?]: the feature count too is symbolic (the attributes fix it).
onnx::OnnxModel SymbolicFeatures(onnx::OnnxModel m) {
  m.graph.inputs[0].type = ir::Type::tensor(DType::F32, {ir::Dim::symbolic("N"), ir::Dim::symbolic("F")});
  return m;
}

TEST(LowerSvmRegressor, SymbolicFeatureCountFromTheAttributes) {
  // RBF, one support vector (0, 0), gamma 0.5: 2 exp(-0.5 |x|^2) + 0.5; F = 2 from support_vectors.
  onnx::OnnxModel m = SymbolicFeatures(OneNodeModel(
      "SVMRegressor", 1, {{{1, 2}, {0, 0}}},
      {FloatsAttr("coefficients", {2}), FloatsAttr("rho", {0.5f}), FloatsAttr("support_vectors", {0, 0}),
       IntAttr("n_supports", 1), StrAttr("kernel_type", "RBF"), FloatsAttr("kernel_params", {0.5f, 0, 0})},
      1, kMl));
  ExpectNear(Out(RunModel(m, {MakeTensor(DType::F32, {2, 2}, {1, 1, 0, 0})})),
             {2 * std::exp(-1.0) + 0.5, 2.5}, 1e-6);
  // Linear mode: F = 2 coefficients; a 3-feature input is refused when the shapes become known.
  onnx::OnnxModel lin =
      SymbolicFeatures(OneNodeModel("SVMRegressor", 1, {{{1, 2}, {0, 0}}},
                                    {FloatsAttr("coefficients", {1, 2}), FloatsAttr("rho", {0.5f})}, 1, kMl));
  ExpectNear(Out(RunModel(lin, {MakeTensor(DType::F32, {1, 2}, {1, 1})})), {3.5});
  Status st;
  RunModel(lin, {MakeTensor(DType::F32, {1, 3}, {1, 1, 1})}, &st);
  EXPECT_FALSE(st.is_ok());
}

TEST(LowerSvmClassifier, SymbolicFeatureCountFromTheAttributes) {
  // The SvcVotesThreeClasses model (F = 1 from 3 support vectors of 3 values) with x = 1.
  onnx::OnnxModel m = SymbolicFeatures(
      OneNodeModel("SVMClassifier", 1, {{{1, 1}, {0}}},
                   {IntsAttr("vectors_per_class", {1, 1, 1}), FloatsAttr("support_vectors", {0, 1, 2}),
                    FloatsAttr("coefficients", {1, 1, 1, -1, -1, -1}), FloatsAttr("rho", {0, -1, 0}),
                    IntsAttr("classlabels_ints", {5, 6, 7})},
                   2, kMl));
  auto o = RunModel(m, {MakeTensor(DType::F32, {1, 1}, {1})});
  ExpectNear(Out(o, 0), {5});
  ExpectNear(Out(o, 1), {1, 1, -3});
}

TEST(LowerLinearRegressor, SymbolicFeatureCountFromTargets) {
  // Two targets, 4 coefficients: F = 2. y = [x0 + 2 x1, 3 x0 + 4 x1].
  onnx::OnnxModel m = SymbolicFeatures(
      OneNodeModel("LinearRegressor", 1, {{{1, 2}, {0, 0}}},
                   {FloatsAttr("coefficients", {1, 2, 3, 4}), IntAttr("targets", 2)}, 1, kMl));
  ExpectNear(Out(RunModel(m, {MakeTensor(DType::F32, {1, 2}, {1, -1})})), {-1, -1});
  // LinearClassifier does not fix F (its score-column count comes from F): still Unsupported.
  onnx::OnnxModel c = SymbolicFeatures(
      OneNodeModel("LinearClassifier", 1, {{{1, 1}, {0}}},
                   {FloatsAttr("coefficients", {0, 1}), IntsAttr("classlabels_ints", {3, 4})}, 2, kMl));
  Status st;
  RunModel(c, {MakeTensor(DType::F32, {1, 1}, {1})}, &st);
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported) << st.to_string();
}

TEST(LowerFeatureVectorizer, SymbolicWidthsCutAndPadAtRunTime) {
  // Both inputs declared [?, ?]: input 0 (width 2) is padded to 3, input 1 (width 3) cut to 2.
  onnx::OnnxModel m = OneNodeModel("FeatureVectorizer", 1, {{{1, 2}, {0, 0}}, {{1, 3}, {0, 0, 0}}},
                                   {IntsAttr("inputdimensions", {3, 2})}, 1, kMl);
  for (auto& in : m.graph.inputs)
    in.type = ir::Type::tensor(DType::F32, {ir::Dim::symbolic("N"), ir::Dim::symbolic("F" + in.name)});
  auto o = RunModel(
      m, {MakeTensor(DType::F32, {2, 2}, {1, 2, 5, 6}), MakeTensor(DType::F32, {2, 3}, {3, 4, 9, 7, 8, 9})});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().shape, (Ints{2, 5}));
  ExpectNear(Out(o), {1, 2, 0, 3, 4, 5, 6, 0, 7, 8});
}

TEST(LowerTreeEnsemble, SymbolicBatch) {
  onnx::OnnxModel m = SymbolicBatch(
      OneNodeModel("TreeEnsemble", 5, {{{1, 2}, {0, 0}}}, OneTree({0, 1}, {0, 0}), 1, kMl), DType::F32, {2});
  ExpectNear(Out(RunModel(m, {MakeTensor(DType::F32, {3, 2}, {0.2, 9, 0.7, 1, 0.7, 3})})), {1, 10, 100});
}

TEST(LowerLinearClassifier, SymbolicBatchAndSoftmaxZero) {
  // Scores [0, 1] per row: SOFTMAX_ZERO keeps the zero entry at 0 (0 * exp(-max)) -> [0, 1].
  onnx::OnnxModel m =
      SymbolicBatch(OneNodeModel("LinearClassifier", 1, {{{1, 1}, {0}}},
                                 {FloatsAttr("coefficients", {0, 1}), IntsAttr("classlabels_ints", {3, 4}),
                                  StrAttr("post_transform", "SOFTMAX_ZERO")},
                                 2, kMl),
                    DType::F32, {1});
  auto o = RunModel(m, {MakeTensor(DType::F32, {2, 1}, {1, 1})});
  ExpectNear(Out(o, 0), {4, 4});
  ExpectNear(Out(o, 1), {0, 1, 0, 1});
}

TEST(LowerLabelEncoder, SymbolicShape) {
  onnx::OnnxModel m = SymbolicBatch(
      OneNodeModel("LabelEncoder", 2, {{{1}, {0}, DType::I64}},
                   {IntsAttr("keys_int64s", {4, 5}), IntsAttr("values_int64s", {40, 50})}, 1, kMl),
      DType::I64, {});
  ExpectNear(Out(RunModel(m, {MakeTensor(DType::I64, {3}, {5, 4, 6})})), {50, 40, -1});
}

TEST(LowerSvmClassifier, ProbabilitiesWithSymbolicBatch) {
  // The ProbabilitiesByPairwiseCoupling model with its batch declared [N, 1]; rows x = 1, 0.5.
  onnx::OnnxModel m = SymbolicBatch(
      OneNodeModel("SVMClassifier", 1, {{{1, 1}, {0}}},
                   {IntsAttr("vectors_per_class", {1, 1, 1}), FloatsAttr("support_vectors", {0, 1, 2}),
                    FloatsAttr("coefficients", {1, 1, 1, -1, -1, -1}), FloatsAttr("rho", {0, -1, 0}),
                    IntsAttr("classlabels_ints", {5, 6, 7}), FloatsAttr("prob_a", {-2, -1, -0.5f}),
                    FloatsAttr("prob_b", {0.1f, 0, 0.2f})},
                   2, kMl),
      DType::F32, {1});
  auto o = RunModel(m, {MakeTensor(DType::F32, {2, 1}, {1, 0.5})});
  ExpectNear(Out(o, 0), {5, 7});
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[1].tensor().shape, (Ints{2, 3}));
  ExpectNear(Out(o, 1), {0.669433802, 0.075239966, 0.255326232, 0.415993726, 0.165271584, 0.418734690}, 2e-6);
}

TEST(LowerSvmClassifier, LinearModeTwoClasses) {
  // No support vectors: scores[c] = x . coef[c] + rho[0]. Two labels and one rho (the
  // reference's set_score_svm): with every coefficient >= 0, a max score >= 0.5 gives the second
  // label whichever class has it (row 0: [1, 0] -> 1), else the argmax label (row 1: [0.3, 0.1] -> 0).
  auto o = RunOneNode("SVMClassifier", 1, {{{2, 2}, {1, 0, 0.3, 0.1}}},
                      {FloatsAttr("coefficients", {1, 0, 0, 1}), FloatsAttr("rho", {0}),
                       IntsAttr("classlabels_ints", {0, 1})},
                      2, kMl);
  ExpectNear(Out(o, 0), {1, 0});
  ExpectNear(Out(o, 1), {1, 0, 0.3, 0.1}, 1e-6);
}

}  // namespace
}  // namespace plumb::testing

namespace plumb::testing {
namespace {

TEST(LowerTreeEnsemble, FeatureOutOfRangeIsInvalid) {
  auto attrs = OneTree({0, 1}, {0, 0});
  attrs[0] = IntsAttr("nodes_featureids", {0, 2});
  onnx::OnnxModel m = OneNodeModel("TreeEnsemble", 5, {{{1, 2}, {0, 0}}}, attrs, 1, kMl);
  auto g = lower::lower_model(m);
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.status().to_string().find("feature 2"), std::string::npos);
}

}  // namespace
}  // namespace plumb::testing
