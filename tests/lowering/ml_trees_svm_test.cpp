// Lowering tests for the ai.onnx.ml tree ensembles (TreeEnsemble-5 and the opset 1..3
// Regressor/Classifier) and SVMs. Expected values are worked out by hand from the operator
// definitions (and the ONNX reference where the text is silent).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/ml_helpers.h"

namespace plumb::testing {
namespace {

// ---- tree ensembles (TreeEnsemble-5): the tree is OneTree (ml_helpers.h) ----------------------

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
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
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
    auto g = lower::lower_model(OneNodeModel("TreeEnsembleClassifier", 3, {{{1, 2}, {0, 0}}}, with, 2, kMl),
                                rt::RefEvaluator());
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
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.status().to_string().find("prob_a"), std::string::npos) << g.status().to_string();
}

// ZipMap: one map {label: X[r, c]} per row, in label order; -0 and NaN values are kept as they are.

TEST(LowerTreeEnsemble, FeatureOutOfRangeIsInvalid) {
  auto attrs = OneTree({0, 1}, {0, 0});
  attrs[0] = IntsAttr("nodes_featureids", {0, 2});
  onnx::OnnxModel m = OneNodeModel("TreeEnsemble", 5, {{{1, 2}, {0, 0}}}, attrs, 1, kMl);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.status().to_string().find("feature 2"), std::string::npos);
}

}  // namespace
}  // namespace plumb::testing
