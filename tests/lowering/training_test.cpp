// Lowering tests for the ai.onnx.preview.training optimizers (lowering/onnx/training.cpp). The
// expected values are the update formulas of the operator definitions worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using ir::DType;
const char* const kTraining = "ai.onnx.preview.training";

NodeInput R(double r) { return {{}, {r}}; }
NodeInput T(int64_t t) { return {{}, {static_cast<double>(t)}, DType::I64}; }
NodeInput V(std::vector<double> v) { return {{static_cast<int64_t>(v.size())}, v}; }

TEST(LowerAdagrad, OneStepByHand) {
  // r' = 0.1 / (1 + 0 * decay); g = 0.5; H' = 0.25; X' = 1 - 0.1 * 0.5 / 0.5 = 0.9.
  auto o = RunOneNode("Adagrad", 1, {R(0.1), T(0), V({1}), V({0.5}), V({0})}, {FloatAttr("epsilon", 0.0f)}, 2,
                      kTraining);
  ASSERT_EQ(o.size(), 2u);
  ExpectNear(Values(o[0]), {0.9});
  ExpectNear(Values(o[1]), {0.25});
}

TEST(LowerAdagrad, DecayNormAndEpsilon) {
  // t = 2, decay 0.5: r' = 1 / 2 = 0.5; g = 0.1 * 2 + 1 = 1.2; H' = 1 + 1.44 = 2.44;
  // X' = 2 - 0.5 * 1.2 / (sqrt(2.44) + 0.01).
  auto o = RunOneNode(
      "Adagrad", 1, {R(1.0), T(2), V({2}), V({1}), V({1})},
      {FloatAttr("decay_factor", 0.5f), FloatAttr("norm_coefficient", 0.1f), FloatAttr("epsilon", 0.01f)}, 2,
      kTraining);
  ASSERT_EQ(o.size(), 2u);
  ExpectNear(Values(o[0]), {2 - 0.5 * 1.2 / (std::sqrt(2.44) + 0.01)}, 1e-5);
  ExpectNear(Values(o[1]), {2.44}, 1e-5);
}

TEST(LowerAdagrad, MultipleTensorsKeepTheirOrder) {
  // Inputs R, T, X1, X2, G1, G2, H1, H2 -> X1', X2', H1', H2'.
  auto o = RunOneNode("Adagrad", 1, {R(0.1), T(0), V({1}), V({3, 4}), V({0.5}), V({1, 2}), V({0}), V({0, 0})},
                      {FloatAttr("epsilon", 0.0f)}, 4, kTraining);
  ASSERT_EQ(o.size(), 4u);
  ExpectNear(Values(o[0]), {0.9});
  ExpectNear(Values(o[1]), {2.9, 3.9});
  ExpectNear(Values(o[3]), {1, 4});
}

TEST(LowerAdam, FirstStepWithoutAndWithBiasCorrection) {
  // alpha 0.9, beta 0.999, eps 0: V' = 0.1, H' = 0.001.
  // T = 0: X' = 1 - 0.1 * 0.1 / sqrt(0.001). T = 1: r' = 0.1 sqrt(0.001) / 0.1, X' = 1 - 0.1 = 0.9.
  std::vector<onnx::OnnxAttribute> attrs = {FloatAttr("epsilon", 0.0f)};
  auto o = RunOneNode("Adam", 1, {R(0.1), T(0), V({1}), V({1}), V({0}), V({0})}, attrs, 3, kTraining);
  ASSERT_EQ(o.size(), 3u);
  ExpectNear(Values(o[0]), {1 - 0.01 / std::sqrt(0.001)}, 1e-5);
  ExpectNear(Values(o[1]), {0.1}, 1e-6);
  ExpectNear(Values(o[2]), {0.001}, 1e-6);
  auto p = RunOneNode("Adam", 1, {R(0.1), T(1), V({1}), V({1}), V({0}), V({0})}, attrs, 3, kTraining);
  ASSERT_EQ(p.size(), 3u);
  ExpectNear(Values(p[0]), {0.9}, 1e-5);
}

TEST(LowerAdam, NormCoefficientPostScalesTheResult) {
  // norm_coefficient_post 0.5: X' = 0.5 * (1 - 0.1 * 0.1 / sqrt(0.001)) at T = 0.
  auto o = RunOneNode("Adam", 1, {R(0.1), T(0), V({1}), V({1}), V({0}), V({0})},
                      {FloatAttr("epsilon", 0.0f), FloatAttr("norm_coefficient_post", 0.5f)}, 3, kTraining);
  ASSERT_EQ(o.size(), 3u);
  ExpectNear(Values(o[0]), {0.5 * (1 - 0.01 / std::sqrt(0.001))}, 1e-5);
}

std::vector<onnx::OnnxAttribute> MomentumAttrs(const std::string& mode) {
  return {FloatAttr("alpha", 0.9f), FloatAttr("beta", 0.5f), FloatAttr("norm_coefficient", 0.0f),
          StrAttr("mode", mode)};
}

TEST(LowerMomentum, StandardFirstStepUsesBetaOne) {
  // T = 0: V' = 0.9 * 1 + 1 * 2 = 2.9, X' = 1 - 0.1 * 2.9 = 0.71.
  // T = 1: V' = 0.9 + 0.5 * 2 = 1.9, X' = 0.81.
  auto o = RunOneNode("Momentum", 1, {R(0.1), T(0), V({1}), V({2}), V({1})}, MomentumAttrs("standard"), 2,
                      kTraining);
  ASSERT_EQ(o.size(), 2u);
  ExpectNear(Values(o[0]), {0.71}, 1e-6);
  ExpectNear(Values(o[1]), {2.9}, 1e-6);
  auto p = RunOneNode("Momentum", 1, {R(0.1), T(1), V({1}), V({2}), V({1})}, MomentumAttrs("standard"), 2,
                      kTraining);
  ASSERT_EQ(p.size(), 2u);
  ExpectNear(Values(p[0]), {0.81}, 1e-6);
}

TEST(LowerMomentum, Nesterov) {
  // T = 1: V' = 1.9, X' = 1 - 0.1 * (2 + 0.9 * 1.9) = 0.629.
  auto o = RunOneNode("Momentum", 1, {R(0.1), T(1), V({1}), V({2}), V({1})}, MomentumAttrs("nesterov"), 2,
                      kTraining);
  ASSERT_EQ(o.size(), 2u);
  ExpectNear(Values(o[0]), {0.629}, 1e-6);
  ExpectNear(Values(o[1]), {1.9}, 1e-6);
}

TEST(LowerMomentum, MissingModeIsInvalid) {
  onnx::OnnxModel m = OneNodeModel("Momentum", 1, {R(0.1), T(1), V({1}), V({2}), V({1})},
                                   {FloatAttr("alpha", 0.9f), FloatAttr("beta", 0.5f)}, 2, kTraining);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

TEST(LowerTraining, GradientIsUnsupported) {
  onnx::OnnxModel m = OneNodeModel("Gradient", 1, {V({1})}, {}, 1, kTraining);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.status().to_string().find("Gradient"), std::string::npos);
}

}  // namespace
}  // namespace plumb::testing
