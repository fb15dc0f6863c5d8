// Lowering tests for the random ops (lowering/onnx/random.cpp). The generator is counter-based
// (spec/ops/rng.md), so every number here is fixed: the statistical bounds below are checked
// against one deterministic sample and are several standard errors wide (they cannot flake).
// Exact values are not asserted: ONNX does not define the generator.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using ir::DType;

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}
double Variance(const std::vector<double>& v) {
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

std::vector<double> Draw(const std::string& op, int64_t opset, const std::vector<NodeInput>& in,
                         std::vector<onnx::OnnxAttribute> attrs) {
  auto o = RunOneNode(op, opset, in, std::move(attrs), 1);
  return o.empty() ? std::vector<double>{} : Values(o[0]);
}

TEST(LowerRandomUniform, RangeShapeDtypeAndMean) {
  auto o = RunOneNode(
      "RandomUniform", 22, {},
      {IntsAttr("shape", {40, 100}), FloatAttr("low", -2), FloatAttr("high", 3), FloatAttr("seed", 1)}, 1);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::F32);
  EXPECT_EQ(o[0].tensor().shape, (Ints{40, 100}));
  auto v = Values(o[0]);
  for (double x : v) {
    ASSERT_GE(x, -2.0);
    ASSERT_LT(x, 3.0);
  }
  // mean 0.5, standard error 5 / sqrt(12 * 4000) = 0.023.
  EXPECT_NEAR(Mean(v), 0.5, 0.1);
  EXPECT_NEAR(Variance(v), 25.0 / 12.0, 0.2);
}

TEST(LowerRandomUniform, SameSeedSameNumbersOtherSeedOthers) {
  std::vector<onnx::OnnxAttribute> a = {IntsAttr("shape", {64}), FloatAttr("seed", 7)};
  auto x = Draw("RandomUniform", 1, {}, a);
  auto y = Draw("RandomUniform", 1, {}, a);
  ASSERT_EQ(x.size(), 64u);
  EXPECT_EQ(x, y);
  auto z = Draw("RandomUniform", 1, {}, {IntsAttr("shape", {64}), FloatAttr("seed", 8)});
  EXPECT_NE(x, z);
  // No seed: still the same numbers on every run (plumb has no hidden entropy).
  auto u1 = Draw("RandomUniform", 1, {}, {IntsAttr("shape", {64})});
  auto u2 = Draw("RandomUniform", 1, {}, {IntsAttr("shape", {64})});
  EXPECT_EQ(u1, u2);
  EXPECT_NE(u1, x);
}

TEST(LowerRandomUniform, Float64UsesMoreThan32Bits) {
  auto v =
      Draw("RandomUniform", 1, {}, {IntsAttr("shape", {256}), IntAttr("dtype", 11), FloatAttr("seed", 3)});
  ASSERT_EQ(v.size(), 256u);
  int fine = 0;
  for (double x : v) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
    fine += std::ldexp(x, 32) != std::floor(std::ldexp(x, 32));
  }
  EXPECT_GT(fine, 200);  // a 32-bit generator would give none
}

TEST(LowerRandomUniformLike, ShapeAndDtypeOfTheInput) {
  auto o = RunOneNode("RandomUniformLike", 1, {{{2, 3}, {0, 0, 0, 0, 0, 0}, DType::F64}},
                      {FloatAttr("low", 5), FloatAttr("high", 6)}, 1);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::F64);
  EXPECT_EQ(o[0].tensor().shape, (Ints{2, 3}));
  for (double x : Values(o[0])) {
    EXPECT_GE(x, 5.0);
    EXPECT_LT(x, 6.0);
  }
}

TEST(LowerRandomNormal, MeanAndVariance) {
  auto v =
      Draw("RandomNormal", 1, {},
           {IntsAttr("shape", {4000}), FloatAttr("mean", 3), FloatAttr("scale", 2), FloatAttr("seed", 11)});
  ASSERT_EQ(v.size(), 4000u);
  // standard errors: mean 2 / sqrt(4000) = 0.032; variance 4 * sqrt(2 / 4000) = 0.09.
  EXPECT_NEAR(Mean(v), 3.0, 0.15);
  EXPECT_NEAR(Variance(v), 4.0, 0.4);
  int tails = 0;
  for (double x : v) tails += std::fabs(x - 3) > 2 * 1.96;
  EXPECT_NEAR(tails / 4000.0, 0.05, 0.02);
}

TEST(LowerRandomNormalLike, DtypeAttributeOverridesInput) {
  auto o = RunOneNode("RandomNormalLike", 1, {{{3}, {0, 0, 0}}}, {IntAttr("dtype", 11)}, 1);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::F64);
  EXPECT_EQ(o[0].tensor().shape, (Ints{3}));
}

TEST(LowerBernoulli, ZeroAndOneAreCertain) {
  std::vector<double> p(100, 0.0), q(100, 1.0);
  for (double x : Draw("Bernoulli", 15, {{{100}, p}}, {})) EXPECT_EQ(x, 0.0);
  for (double x : Draw("Bernoulli", 15, {{{100}, q}}, {})) EXPECT_EQ(x, 1.0);
}

TEST(LowerBernoulli, FrequencyAndBoolDtype) {
  std::vector<double> p(4000, 0.3);
  auto o =
      RunOneNode("Bernoulli", 22, {{{4000}, p, DType::F64}}, {IntAttr("dtype", 9), FloatAttr("seed", 2)}, 1);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::Bool);
  EXPECT_NEAR(Mean(Values(o[0])), 0.3, 0.03);  // standard error 0.0072
}

TEST(LowerMultinomial, FrequenciesFollowSoftmax) {
  // exp(0) : exp(log 3) = 1 : 3.
  auto o = RunOneNode("Multinomial", 7, {{{1, 2}, {0, std::log(3.0)}}},
                      {IntAttr("sample_size", 4000), FloatAttr("seed", 5)}, 1);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::I32);
  EXPECT_EQ(o[0].tensor().shape, (Ints{1, 4000}));
  EXPECT_NEAR(Mean(Values(o[0])), 0.75, 0.03);
}

TEST(LowerMultinomial, ImpossibleClassesNeverDrawn) {
  auto v = Draw("Multinomial", 22, {{{2, 3}, {-INFINITY, 0, -INFINITY, 5, -INFINITY, -INFINITY}}},
                {IntAttr("sample_size", 50), IntAttr("dtype", 7)});
  ASSERT_EQ(v.size(), 100u);
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(v[i], 1.0);
  for (size_t i = 50; i < 100; ++i) EXPECT_EQ(v[i], 0.0);
}

// Same seed, same numbers (and another seed, others) for the ops the tests above draw from
// without comparing two runs.
void ExpectSeedDecides(const std::string& op, int64_t opset, const std::vector<NodeInput>& in,
                       std::vector<onnx::OnnxAttribute> attrs) {
  attrs.push_back(FloatAttr("seed", 21));
  auto x = Draw(op, opset, in, attrs);
  auto y = Draw(op, opset, in, attrs);
  ASSERT_FALSE(x.empty()) << op;
  EXPECT_EQ(x, y) << op;
  attrs.back() = FloatAttr("seed", 22);
  EXPECT_NE(x, Draw(op, opset, in, attrs)) << op;
}

TEST(LowerRandom, SameSeedSameNumbersForEveryOp) {
  const std::vector<double> zeros(64, 0.0);
  ExpectSeedDecides("RandomNormal", 1, {}, {IntsAttr("shape", {64})});
  ExpectSeedDecides("RandomNormalLike", 1, {{{64}, zeros}}, {});
  ExpectSeedDecides("RandomUniformLike", 1, {{{64}, zeros}}, {});
  // Two equally likely classes: 64 draws that all agree between seeds has probability 2^-64.
  ExpectSeedDecides("Multinomial", 7, {{{1, 2}, {0, 0}}}, {IntAttr("sample_size", 64)});
}

TEST(LowerRandomNormalLike, MeanVarianceShapeOfTheInput) {
  const std::vector<double> zeros(4000, 0.0);
  auto o = RunOneNode("RandomNormalLike", 1, {{{40, 100}, zeros, DType::F64}},
                      {FloatAttr("mean", -1), FloatAttr("scale", 0.5), FloatAttr("seed", 4)}, 1);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::F64);
  EXPECT_EQ(o[0].tensor().shape, (Ints{40, 100}));
  auto v = Values(o[0]);
  // standard errors: mean 0.5 / sqrt(4000) = 0.0079; variance 0.25 * sqrt(2 / 4000) = 0.0056.
  EXPECT_NEAR(Mean(v), -1.0, 0.04);
  EXPECT_NEAR(Variance(v), 0.25, 0.03);
}

TEST(LowerRandomUniformLike, MeanAndVarianceOfTheRange) {
  const std::vector<double> zeros(4000, 0.0);
  auto v = Draw("RandomUniformLike", 1, {{{4000}, zeros}},
                {FloatAttr("low", 10), FloatAttr("high", 12), FloatAttr("seed", 9)});
  ASSERT_EQ(v.size(), 4000u);
  for (double x : v) {
    ASSERT_GE(x, 10.0);
    ASSERT_LT(x, 12.0);
  }
  // mean 11, standard error 2 / sqrt(12 * 4000) = 0.0091; variance w^2 / 12 = 1/3 with standard
  // error sqrt((w^4 / 80 - w^4 / 144) / 4000) = 0.0047 (w^4 / 80: a uniform's 4th central moment).
  EXPECT_NEAR(Mean(v), 11.0, 0.05);
  EXPECT_NEAR(Variance(v), 1.0 / 3.0, 0.025);
}

}  // namespace
}  // namespace plumb::testing
