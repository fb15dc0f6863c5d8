// Lowering of ONNX normalisations (lowering/onnx/norm.cpp): one-node models built by hand,
// lowered, run on ref, compared with values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/lowering/f32_node.h"

namespace plumb {
namespace {

using Ints = std::vector<int64_t>;
using testing::FloatAttr;
using testing::IntAttr;
using testing::IntsAttr;
using testing::StrAttr;

using namespace testing::f32;

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "at " << i;
}

TEST(LowerLayerNorm, LastAxisWithMeanAndInvStdDev) {
  // Rows [1,2,3] (mean 2, var 2/3) and [4,6,8] (mean 6, var 8/3) both normalise to
  // [-k, 0, k], k = sqrt(3/2); then * [1,1,2] + [0,1,0].
  const double k = std::sqrt(1.5);
  auto out =
      RunNode("LayerNormalization", 17, {{{2, 3}, {1, 2, 3, 4, 6, 8}}, {{3}, {1, 1, 2}}, {{3}, {0, 1, 0}}},
              {FloatAttr("epsilon", 0.0f)}, 3);
  ASSERT_EQ(out.size(), 3u);
  ExpectNear(Floats(out[0]), {-k, 1, 2 * k, -k, 1, 2 * k});
  EXPECT_EQ(out[1].tensor().shape, (Ints{2, 1}));
  ExpectNear(Floats(out[1]), {2, 6});
  ExpectNear(Floats(out[2]), {1 / std::sqrt(2.0 / 3), 1 / std::sqrt(8.0 / 3)});
}

TEST(LowerLayerNorm, Axis0NormalisesEverything) {
  const double k = std::sqrt(1.25);  // [1,2,3,4]: mean 2.5, var 1.25
  auto out = RunNode("LayerNormalization", 17, {{{2, 2}, {1, 2, 3, 4}}, {{2, 2}, {1, 1, 1, 1}}},
                     {IntAttr("axis", 0), FloatAttr("epsilon", 0.0f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), {-1.5 / k, -0.5 / k, 0.5 / k, 1.5 / k});
}

TEST(LowerBatchNorm, Inference) {
  // Channel 0: (x - 1) / 2 * 2 + 0; channel 1: (x - 3) / 1 * 1 + 1.
  auto out =
      RunNode("BatchNormalization", 15,
              {{{1, 2, 1, 2}, {1, 2, 3, 4}}, {{2}, {2, 1}}, {{2}, {0, 1}}, {{2}, {1, 3}}, {{2}, {4, 1}}},
              {FloatAttr("epsilon", 0.0f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), {0, 1, 1, 2});
}

TEST(LowerBatchNorm, EpsilonIsAddedToVariance) {
  auto out =
      RunNode("BatchNormalization", 9, {{{1, 1, 1}, {3}}, {{1}, {1}}, {{1}, {0}}, {{1}, {0}}, {{1}, {0.75f}}},
              {FloatAttr("epsilon", 0.25f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), {3});
}

TEST(LowerBatchNorm, TrainingModeRunningStats) {
  // One channel [1, 3]: batch mean 2, var 1; running = old * 0.5 + batch * 0.5.
  auto out =
      RunNode("BatchNormalization", 15, {{{2, 1}, {1, 3}}, {{1}, {1}}, {{1}, {0}}, {{1}, {4}}, {{1}, {3}}},
              {FloatAttr("epsilon", 0.0f), FloatAttr("momentum", 0.5f), IntAttr("training_mode", 1)}, 3);
  ASSERT_EQ(out.size(), 3u);
  ExpectNear(Floats(out[0]), {-1, 1});
  ExpectNear(Floats(out[1]), {3});
  ExpectNear(Floats(out[2]), {2});
}

TEST(LowerInstanceNorm, PerInstanceAndChannel) {
  auto out = RunNode("InstanceNormalization", 6, {{{1, 2, 2}, {1, 3, 5, 9}}, {{2}, {1, 2}}, {{2}, {0, 7}}},
                     {FloatAttr("epsilon", 0.0f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  // Channel 0 [1,3] -> [-1, 1] * 1 + 0; channel 1 [5,9] (mean 7, var 4) -> [-1, 1] * 2 + 7.
  ExpectNear(Floats(out[0]), {-1, 1, 5, 9});
}

TEST(LowerLrn, SumOverChannelWindow) {
  // size 3 over 3 channels of one element: square_sum = [1+4, 1+4+9, 4+9];
  // y = x / (1 + 3/3 * ss)^1 with alpha 3, beta 1, bias 1.
  auto out = RunNode(
      "LRN", 13, {{{1, 3, 1}, {1, 2, 3}}},
      {IntAttr("size", 3), FloatAttr("alpha", 3.0f), FloatAttr("beta", 1.0f), FloatAttr("bias", 1.0f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), {1.0 / 6, 2.0 / 15, 3.0 / 14});
}

TEST(LowerLpNorm, L1AndL2) {
  auto l1 = RunNode("LpNormalization", 1, {{{2, 2}, {1, 3, 3, 4}}}, {IntAttr("p", 1)}, 1);
  auto l2 = RunNode("LpNormalization", 1, {{{2, 2}, {1, 3, 3, 4}}}, {IntAttr("p", 2)}, 1);
  ASSERT_EQ(l1.size(), 1u);
  ASSERT_EQ(l2.size(), 1u);
  ExpectNear(Floats(l1[0]), {0.25, 0.75, 3.0 / 7, 4.0 / 7});
  ExpectNear(Floats(l2[0]), {1 / std::sqrt(10.0), 3 / std::sqrt(10.0), 0.6, 0.8});
}

TEST(LowerGroupNorm, Opset21PerChannelScale) {
  // 2 groups of one channel with 2 elements each: [1,3] -> [-1,1], [2,6] -> [-1,1]; scale [1,2], bias [0,1].
  auto out = RunNode("GroupNormalization", 21, {{{1, 2, 2}, {1, 3, 2, 6}}, {{2}, {1, 2}}, {{2}, {0, 1}}},
                     {IntAttr("num_groups", 2), FloatAttr("epsilon", 0.0f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), {-1, 1, -1, 3});
}

TEST(LowerGroupNorm, Opset18PerGroupScale) {
  // One group over 2 channels [1,3,2,6]: mean 3, var (4+0+1+9)/4 = 3.5.
  const double s = std::sqrt(3.5);
  auto out = RunNode("GroupNormalization", 18, {{{1, 2, 2}, {1, 3, 2, 6}}, {{1}, {2}}, {{1}, {1}}},
                     {IntAttr("num_groups", 1), FloatAttr("epsilon", 0.0f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), {1 - 4 / s, 1, 1 - 2 / s, 1 + 6 / s});
}

TEST(LowerDropout, InferenceIsIdentityWithTrueMask) {
  auto out = RunNode("Dropout", 13, {{{3}, {1, -2, 3}}}, {}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, -2, 3}));
  ASSERT_EQ(out[1].tensor().dtype, ir::DType::Bool);
  const rt::Tensor& m = out[1].tensor();
  for (int64_t i = 0; i < m.numel(); ++i) EXPECT_NE(static_cast<const uint8_t*>(m.data)[i], 0);
}

TEST(LowerRmsNorm, LastAxis) {
  // [3, 4]: mean square 12.5; [0, 0] with epsilon 1: sqrt(0 + 1) = 1.
  auto out = RunNode("RMSNormalization", 23, {{{2, 2}, {3, 4, 0, 0}}, {{2}, {1, 2}}},
                     {FloatAttr("epsilon", 0.0f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  const double r = std::sqrt(12.5);
  auto got = Floats(out[0]);
  ExpectNear({got[0], got[1]}, {3 / r, 8 / r});
  EXPECT_TRUE(std::isnan(got[2]));  // 0 / sqrt(0): NaN with epsilon 0
}

TEST(LowerMvn, DefaultAxes) {
  // [1, 3, 5, 7] over axes 0, 2, 3: mean 4, E[x^2] = 21, var 21 - 16 = 5.
  auto out = RunNode("MeanVarianceNormalization", 13, {{{1, 1, 2, 2}, {1, 3, 5, 7}}}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  const double s = std::sqrt(5.0) + 1e-9;
  ExpectNear(Floats(out[0]), {-3 / s, -1 / s, 1 / s, 3 / s});
}

TEST(LowerLpNorm, ZeroNormGivesZero) {
  auto out = RunNode("LpNormalization", 1, {{{2, 2}, {0, 0, 3, 4}}}, {IntAttr("p", 2)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), {0, 0, 0.6, 0.8});
}

}  // namespace
}  // namespace plumb
