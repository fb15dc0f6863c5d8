// Lowering tests for DFT, STFT, the windows and MelWeightMatrix (lowering/onnx/signal.cpp).
// Expected values are worked out by hand (small DFTs, window formulas at angles with exact cosines).
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

NodeInput I64Scalar(int64_t v) { return NodeInput{{}, {static_cast<double>(v)}, ir::DType::I64, true}; }

TEST(LowerHannWindow, PeriodicAndSymmetric) {
  auto p = RunOneNode("HannWindow", 17, {I64Scalar(4)}, {}, 1);
  ASSERT_EQ(p.size(), 1u);
  ExpectNear(Values(p[0]), {0, 0.5, 1, 0.5});
  auto s = RunOneNode("HannWindow", 17, {I64Scalar(5)}, {IntAttr("periodic", 0)}, 1);
  ASSERT_EQ(s.size(), 1u);
  ExpectNear(Values(s[0]), {0, 0.5, 1, 0.5, 0});
}

TEST(LowerHammingWindow, SymmetricUsesNMinusOne) {
  auto y = RunOneNode("HammingWindow", 17, {I64Scalar(3)}, {IntAttr("periodic", 0)}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {4.0 / 46, 1.0, 4.0 / 46});
}

TEST(LowerBlackmanWindow, PeriodicF64) {
  auto y = RunOneNode("BlackmanWindow", 17, {I64Scalar(4)}, {IntAttr("output_datatype", 11)}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().dtype, ir::DType::F64);
  ExpectNear(Values(y[0]), {0, 0.34, 1, 0.34}, 1e-15);
}

TEST(LowerHannWindow, IntegerOutputTruncates) {
  auto y = RunOneNode("HannWindow", 17, {I64Scalar(4)}, {IntAttr("output_datatype", 6)}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().dtype, ir::DType::I32);
  ExpectNear(Values(y[0]), {0, 0, 1, 0});
}

TEST(LowerHannWindow, LengthOneAndZero) {
  auto one = RunOneNode("HannWindow", 17, {I64Scalar(1)}, {IntAttr("periodic", 0)}, 1);
  ASSERT_EQ(one.size(), 1u);
  ExpectNear(Values(one[0]), {1});
  auto zero = RunOneNode("HannWindow", 17, {I64Scalar(0)}, {}, 1);
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_EQ(zero[0].tensor().numel(), 0);
}

TEST(LowerHannWindow, NonConstantSizeIsUnsupported) {
  onnx::OnnxModel m = OneNodeModel("HannWindow", 17, {{{}, {4}, ir::DType::I64, false}}, {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  EXPECT_FALSE(g.has_value());
}

TEST(LowerMelWeightMatrix, TriangularFilters) {
  // Edges floor(33 * hz(mel) / 1000) = [3, 5, 6, 8, 10] for 3 bins between 100 and 400 Hz.
  auto y =
      RunOneNode("MelWeightMatrix", 17,
                 {I64Scalar(3), I64Scalar(32), I64Scalar(1000), NodeInput{{}, {100}, ir::DType::F32, true},
                  NodeInput{{}, {400}, ir::DType::F32, true}},
                 {}, 1);
  ASSERT_EQ(y.size(), 1u);
  std::vector<double> want(17 * 3, 0.0);
  auto at = [&](int j, int i) -> double& { return want[j * 3 + i]; };
  at(4, 0) = 0.5, at(5, 0) = 1;                  // 3 -> 5 -> 6
  at(5, 1) = 0, at(6, 1) = 1, at(7, 1) = 0.5;    // 5 -> 6 -> 8
  at(7, 2) = 0.5, at(8, 2) = 1, at(9, 2) = 0.5;  // 6 -> 8 -> 10
  ExpectNear(Values(y[0]), want);
}

// x = [1, 2, 3, 4]: X = [10, -2+2i, -2, -2-2i].
TEST(LowerDft, RealForward) {
  auto y = RunOneNode("DFT", 17, {{{1, 4, 1}, {1, 2, 3, 4}}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 4, 2}));
  ExpectNear(Values(y[0]), {10, 0, -2, 2, -2, 0, -2, -2}, 1e-5);
}

TEST(LowerDft, OnesidedKeepsHalf) {
  auto y = RunOneNode("DFT", 17, {{{1, 4, 1}, {1, 2, 3, 4}}}, {IntAttr("onesided", 1)}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 3, 2}));
  ExpectNear(Values(y[0]), {10, 0, -2, 2, -2, 0}, 1e-5);
}

TEST(LowerDft, InverseComplex) {
  auto y = RunOneNode("DFT", 17, {{{1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2}}}, {IntAttr("inverse", 1)}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {1, 0, 2, 0, 3, 0, 4, 0}, 1e-5);
}

TEST(LowerDft, InverseOnesidedIsIrfft) {
  auto y = RunOneNode("DFT", 20, {{{1, 3, 2}, {10, 0, -2, 2, -2, 0}}},
                      {IntAttr("inverse", 1), IntAttr("onesided", 1)}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 4, 1}));
  ExpectNear(Values(y[0]), {1, 2, 3, 4}, 1e-5);
}

TEST(LowerDft, LengthTruncatesAndPads) {
  // dft_length 2: [1, 2] -> [3, -1]; dft_length 6 of [1, 1]: X_k = 1 + e^{-i pi k / 3}.
  auto t = RunOneNode("DFT", 17, {{{1, 4, 1}, {1, 2, 3, 4}}, I64Scalar(2)}, {}, 1);
  ASSERT_EQ(t.size(), 1u);
  ExpectNear(Values(t[0]), {3, 0, -1, 0}, 1e-6);
  auto p = RunOneNode("DFT", 17, {{{1, 2, 1}, {1, 1}}, I64Scalar(6)}, {}, 1);
  ASSERT_EQ(p.size(), 1u);
  const double h = std::sqrt(3.0) / 2;
  ExpectNear(Values(p[0]), {2, 0, 1.5, -h, 0.5, -h, 0, 0, 0.5, h, 1.5, h}, 1e-6);
}

TEST(LowerDft, AxisAttributeAndInput) {
  // x [1, 2, 2, 1] = [[1, 2], [3, 4]]: DFT over axis 2 gives rows [3, -1] and [7, -1];
  // over axis 1 gives columns [4, -2] and [6, -2].
  NodeInput x{{1, 2, 2, 1}, {1, 2, 3, 4}};
  auto a17 = RunOneNode("DFT", 17, {x}, {IntAttr("axis", 2)}, 1);
  ASSERT_EQ(a17.size(), 1u);
  ExpectNear(Values(a17[0]), {3, 0, -1, 0, 7, 0, -1, 0}, 1e-6);
  // DFT-20: axis as input 2 (dft_length omitted).
  onnx::OnnxModel m = OneNodeModel("DFT", 20, {x, I64Scalar(1)}, {}, 1);
  m.graph.nodes[0].inputs = {"i0", "", "i1"};
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE((*s)->set_input(0, MakeTensor(ir::DType::F32, x.shape, x.data)).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  ExpectNear(Values((*s)->outputs()[0]), {4, 0, 6, 0, -2, 0, -2, 0}, 1e-6);
}

TEST(LowerDft, F64Precision) {
  // A length-1000 transform of a unit impulse at n = 1: X_k = e^{-2 pi i k / 1000} exactly to f64.
  std::vector<double> x(1000, 0.0);
  x[1] = 1;
  auto y = RunOneNode("DFT", 17, {{{1, 1000, 1}, x, ir::DType::F64}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  std::vector<double> v = Values(y[0]);
  ASSERT_EQ(v.size(), 2000u);
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < 1000; k += 37) {
    EXPECT_NEAR(v[2 * k], std::cos(2 * pi * k / 1000), 1e-15);
    EXPECT_NEAR(v[2 * k + 1], -std::sin(2 * pi * k / 1000), 1e-15);
  }
}

TEST(LowerDft, BadLastDimIsInvalid) {
  onnx::OnnxModel m = OneNodeModel("DFT", 17, {{{1, 4, 3}, std::vector<double>(12, 0.0)}}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

TEST(LowerStft, FramesWithoutWindow) {
  // frames [1, 2] and [3, 4] (step 2, length 2): DFT -> [3, -1], [7, -1].
  // frame_length given, window omitted.
  onnx::OnnxModel m =
      OneNodeModel("STFT", 17, {{{1, 4, 1}, {1, 2, 3, 4}}, I64Scalar(2), I64Scalar(2)}, {}, 1);
  m.graph.nodes[0].inputs = {"i0", "i1", "", "i2"};
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE((*s)->set_input(0, MakeTensor(ir::DType::F32, {1, 4, 1}, {1, 2, 3, 4})).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  const std::vector<rt::RtValue> outs = (*s)->outputs();
  ASSERT_EQ(outs.size(), 1u);
  const rt::RtValue& out = outs[0];
  EXPECT_EQ(out.tensor().shape, (Ints{1, 2, 2, 2}));
  ExpectNear(Values(out), {3, 0, -1, 0, 7, 0, -1, 0}, 1e-6);
}

TEST(LowerStft, WindowAndStep) {
  // signal 1..5, step 1, window [1, 0.5], onesided 0: frames [1,1], [2,1.5], [3,2], [4,2.5].
  auto y =
      RunOneNode("STFT", 17,
                 {{{1, 5, 1}, {1, 2, 3, 4, 5}}, I64Scalar(1), NodeInput{{2}, {1, 0.5}, ir::DType::F32, true}},
                 {IntAttr("onesided", 0)}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 4, 2, 2}));
  ExpectNear(Values(y[0]), {2, 0, 0, 0, 3.5, 0, 0.5, 0, 5, 0, 1, 0, 6.5, 0, 1.5, 0}, 1e-6);
}

}  // namespace
}  // namespace plumb::testing
