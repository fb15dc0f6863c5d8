// Lowering tests for training-mode Dropout (lowering/onnx/random.cpp, ruling R2). The mask comes
// from the counter-based rng, so each run here is one fixed sample: the frequency bound below is
// about five standard errors wide and cannot flake. Exact masks are not asserted: ONNX does not
// define the generator.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using ir::DType;

NodeInput Ratio(double r, DType dt = DType::F32) { return {{}, {r}, dt, true}; }
NodeInput Training(bool on) { return {{}, {on ? 1.0 : 0.0}, DType::Bool, true}; }

std::vector<double> Iota(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i) + 1;  // never 0: a 0 output means dropped
  return v;
}

struct Dropped {
  std::vector<double> y, mask;
};

Dropped DropTrain(const NodeInput& x, const NodeInput& ratio, std::vector<onnx::OnnxAttribute> attrs = {}) {
  auto o = RunOneNode("Dropout", 13, {x, ratio, Training(true)}, std::move(attrs), 2);
  if (o.size() != 2) return {};
  EXPECT_EQ(o[0].tensor().dtype, x.dtype);
  EXPECT_EQ(o[0].tensor().shape, x.shape);
  EXPECT_EQ(o[1].tensor().dtype, DType::Bool);
  EXPECT_EQ(o[1].tensor().shape, x.shape);
  return {Values(o[0]), Values(o[1])};
}

TEST(LowerDropoutTraining, OutputIsZeroOrScaledAndKeepsAboutOneMinusRatio) {
  const std::vector<double> x = Iota(4000);
  Dropped d = DropTrain({{40, 100}, x}, Ratio(0.25), {IntAttr("seed", 3)});
  ASSERT_EQ(d.y.size(), x.size());
  size_t kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (d.mask[i] != 0) {
      ++kept;
      // x / 0.75 in f64, rounded once to f32.
      EXPECT_EQ(d.y[i], static_cast<double>(static_cast<float>(x[i] * (1.0 / 0.75)))) << "at " << i;
    } else {
      EXPECT_EQ(d.y[i], 0.0) << "at " << i;
    }
  }
  // Binomial(4000, 0.75): standard error of the fraction 0.0068.
  EXPECT_NEAR(static_cast<double>(kept) / 4000.0, 0.75, 0.035);
}

TEST(LowerDropoutTraining, SameSeedSameMaskOtherSeedOther) {
  const NodeInput x{{256}, Iota(256), DType::F64};
  Dropped a = DropTrain(x, Ratio(0.5, DType::F64), {IntAttr("seed", 11)});
  Dropped b = DropTrain(x, Ratio(0.5, DType::F64), {IntAttr("seed", 11)});
  Dropped c = DropTrain(x, Ratio(0.5, DType::F64), {IntAttr("seed", 12)});
  ASSERT_EQ(a.mask.size(), 256u);
  EXPECT_EQ(a.mask, b.mask);
  EXPECT_EQ(a.y, b.y);
  EXPECT_NE(a.mask, c.mask);
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(a.y[i], a.mask[i] != 0 ? 2 * (i + 1.0) : 0.0);
}

TEST(LowerDropoutTraining, UnseededIsReproducible) {
  const NodeInput x{{64}, Iota(64)};
  Dropped a = DropTrain(x, Ratio(0.5));
  Dropped b = DropTrain(x, Ratio(0.5));
  ASSERT_EQ(a.mask.size(), 64u);
  EXPECT_EQ(a.mask, b.mask);
  size_t kept = 0;
  for (double m : a.mask) kept += m != 0;
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, 64u);
}

TEST(LowerDropoutTraining, RatioZeroIsIdentity) {
  Dropped d = DropTrain({{5}, {1, -2, 3.5, 0, -0.25}}, Ratio(0));
  EXPECT_EQ(d.y, (std::vector<double>{1, -2, 3.5, 0, -0.25}));
  EXPECT_EQ(d.mask, (std::vector<double>{1, 1, 1, 1, 1}));
}

TEST(LowerDropoutTraining, RatioOneDropsEverythingWithoutDividingByZero) {
  Dropped d = DropTrain({{4}, {1, -2, 3, INFINITY}}, Ratio(1));
  ASSERT_EQ(d.y.size(), 4u);
  EXPECT_EQ(d.mask, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(d.y[0], 0.0);
  EXPECT_EQ(d.y[1], 0.0);
  EXPECT_TRUE(std::signbit(d.y[1]));  // -2 * 0
  EXPECT_EQ(d.y[2], 0.0);
  EXPECT_TRUE(std::isnan(d.y[3]));  // the formula's inf * 0
}

TEST(LowerDropoutTraining, RankZeroInput) {
  Dropped d = DropTrain({{}, {4}}, Ratio(0.5), {IntAttr("seed", 1)});
  ASSERT_EQ(d.y.size(), 1u);
  EXPECT_EQ(d.y[0], d.mask[0] != 0 ? 8.0 : 0.0);
}

TEST(LowerDropoutTraining, DefaultRatioIsOneHalf) {
  // Ratio omitted (empty input name): 0.5, so kept values are doubled.
  onnx::OnnxModel m = OneNodeModel("Dropout", 12, {{{2000}, {}}, Ratio(0.5), Training(true)}, {}, 2);
  m.graph.nodes[0].inputs[1] = "";
  m.graph.initializers.erase(m.graph.initializers.begin());
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  const std::vector<double> x = Iota(2000);
  ASSERT_TRUE((*s)->set_input(0, MakeTensor(DType::F32, {2000}, x)).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  auto y = Values((*s)->outputs()[0]);
  size_t kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (y[i] != 0) {
      ++kept;
      EXPECT_EQ(y[i], 2 * x[i]);
    }
  }
  EXPECT_NEAR(static_cast<double>(kept) / 2000.0, 0.5, 0.06);  // standard error 0.011
}

TEST(LowerDropoutTraining, RatioOutsideUnitIntervalIsAnError) {
  for (double r : {1.5, -0.1, static_cast<double>(NAN)}) {
    onnx::OnnxModel m = OneNodeModel("Dropout", 13, {{{3}, {}}, Ratio(r), Training(true)}, {}, 1);
    auto g = lower::lower_model(m, rt::RefEvaluator());
    ASSERT_FALSE(g.has_value()) << r;
    EXPECT_NE(g.status().to_string().find("ratio"), std::string::npos) << g.status().to_string();
  }
}

// Ratio and training_mode as graph inputs with offered values (plumb run/check specialize them).
TEST(LowerDropoutTraining, SpecializedRatioAndTrainingMode) {
  onnx::OnnxModel m =
      OneNodeModel("Dropout", 13, {{{4}, {}}, {{}, {}, DType::F32}, {{}, {}, DType::Bool}}, {}, 2);
  lower::LowerOptions o;
  const float one = 1.0f;
  const auto* b = reinterpret_cast<const uint8_t*>(&one);
  o.input_values["i1"] = onnx::Tensor::owned("i1", DType::F32, {}, std::vector<uint8_t>(b, b + 4));
  o.input_values["i2"] = onnx::Tensor::owned("i2", DType::Bool, {}, {1});
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_EQ(l->specialized_inputs, (std::vector<std::string>{"i1", "i2"}));
  auto s = rt::Session::create(std::move(l->graph));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, MakeTensor(DType::F32, {4}, {1, 2, 3, 4})).is_ok());
  ASSERT_TRUE((*s)->set_input(1, MakeTensor(DType::F32, {}, {1})).is_ok());
  ASSERT_TRUE((*s)->set_input(2, MakeTensor(DType::Bool, {}, {1})).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  // Ratio 1 in training: everything dropped.
  EXPECT_EQ(Values((*s)->outputs()[0]), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(Values((*s)->outputs()[1]), (std::vector<double>{0, 0, 0, 0}));
}

TEST(LowerDropoutTraining, ComputedRatioIsUnsupported) {
  onnx::OnnxModel m = OneNodeModel("Dropout", 13, {{{3}, {}}, {{}, {}, DType::F32}, Training(true)}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

}  // namespace
}  // namespace plumb::testing
