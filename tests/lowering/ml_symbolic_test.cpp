// ai.onnx.ml lowerings with symbolic dims (a batch or feature count known only at run time, as
// exported models have): the attributes fix what the shapes leave open.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lowering/ml_helpers.h"

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
