// Lowering tests for Col2Im and DeformConv (lowering/onnx/conv_extra.cpp); expected values by hand.
#include <gtest/gtest.h>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

NodeInput Shape(Ints v) {
  std::vector<double> d(v.begin(), v.end());
  return NodeInput{{static_cast<int64_t>(v.size())}, d, ir::DType::I64, true};
}

TEST(LowerCol2Im, OverlappingBlocksAdd) {
  // 3x3 image, 2x2 blocks at stride 1: 4 blocks; all ones -> coverage counts.
  auto y = RunOneNode("Col2Im", 18, {{{1, 4, 4}, std::vector<double>(16, 1.0)}, Shape({3, 3}), Shape({2, 2})},
                      {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 1, 3, 3}));
  ExpectNear(Values(y[0]), {1, 2, 1, 2, 4, 2, 1, 2, 1});
}

TEST(LowerCol2Im, StridesPlaceBlocks) {
  // 4x4 image, 2x2 blocks at stride 2: no overlap; column (kk, l) lands at block l, offset kk.
  std::vector<double> x(16);
  for (int i = 0; i < 16; ++i) x[i] = i;  // x[kk * 4 + l]
  auto y = RunOneNode("Col2Im", 18, {{{1, 4, 4}, x}, Shape({4, 4}), Shape({2, 2})},
                      {IntsAttr("strides", {2, 2})}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
}

TEST(LowerCol2Im, PadsDropOutsidePositions) {
  // 2x2 image padded by 1: 3x3 blocks of 2x2; every pixel is covered by 4 blocks.
  auto y = RunOneNode("Col2Im", 18, {{{1, 4, 9}, std::vector<double>(36, 1.0)}, Shape({2, 2}), Shape({2, 2})},
                      {IntsAttr("pads", {1, 1, 1, 1})}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {4, 4, 4, 4});
}

TEST(LowerCol2Im, DilationsAndChannels) {
  // 1-D: image 5, block 2 with dilation 2 -> 3 blocks; channel 1 is channel 0 times 10.
  // c0 columns: offset 0 = [1, 2, 3] at 0..2, offset 1 = [4, 5, 6] at 2..4 -> [1, 2, 7, 5, 6].
  auto y = RunOneNode("Col2Im", 18,
                      {{{1, 4, 3}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60}}, Shape({5}), Shape({2})},
                      {IntsAttr("dilations", {2})}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 2, 5}));
  ExpectNear(Values(y[0]), {1, 2, 7, 5, 6, 10, 20, 70, 50, 60});
}

TEST(LowerCol2Im, WrongBlockCountIsInvalid) {
  onnx::OnnxModel m = OneNodeModel(
      "Col2Im", 18, {{{1, 4, 5}, std::vector<double>(20, 1.0)}, Shape({3, 3}), Shape({2, 2})}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

std::vector<double> Iota(int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(LowerDeformConv, ZeroOffsetIsConv) {
  auto y = RunOneNode(
      "DeformConv", 19,
      {{{1, 1, 3, 3}, Iota(9)}, {{1, 1, 2, 2}, {1, 1, 1, 1}}, {{1, 8, 2, 2}, std::vector<double>(32, 0.0)}},
      {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 1, 2, 2}));
  ExpectNear(Values(y[0]), {8, 12, 20, 24});
}

// Every tap moved down by half a row: values are averages of two rows; row 3 is outside (0).
std::vector<double> HalfRowOffsets() {
  std::vector<double> off(32, 0.0);
  for (int k = 0; k < 4; ++k)
    for (int p = 0; p < 4; ++p) off[(k * 2 + 0) * 4 + p] = 0.5;
  return off;
}

TEST(LowerDeformConv, BilinearHalfRow) {
  auto y = RunOneNode(
      "DeformConv", 19,
      {{{1, 1, 3, 3}, Iota(9)}, {{1, 1, 2, 2}, {1, 1, 1, 1}}, {{1, 8, 2, 2}, HalfRowOffsets()}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {14, 18, 16.5, 19.5}, 1e-5);
}

TEST(LowerDeformConv, MaskAndBias) {
  auto y = RunOneNode("DeformConv", 22,
                      {{{1, 1, 3, 3}, Iota(9)},
                       {{1, 1, 2, 2}, {1, 1, 1, 1}},
                       {{1, 8, 2, 2}, HalfRowOffsets()},
                       {{1}, {1}},
                       {{1, 4, 2, 2}, std::vector<double>(16, 0.5)}},
                      {}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {8, 10, 9.25, 10.75}, 1e-5);
}

TEST(LowerDeformConv, GroupsAndPads) {
  // Two channels, group 2, 1x1 kernels with weights 2 and 3, pad 1: output 3x3 per channel with a
  // zero border (1x1 kernel at a pad position samples outside the image).
  auto y = RunOneNode(
      "DeformConv", 19,
      {{{1, 2, 1, 1}, {5, 7}}, {{2, 1, 1, 1}, {2, 3}}, {{1, 2, 3, 3}, std::vector<double>(18, 0.0)}},
      {IntAttr("group", 2), IntsAttr("pads", {1, 1, 1, 1})}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 2, 3, 3}));
  ExpectNear(Values(y[0]), {0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 0});
}

TEST(LowerDeformConv, OneDimensionalLinear) {
  // x = [0, 1, 2, 3], kernel [1, 1], every tap moved by +0.5: p=0 samples 0.5 and 1.5 -> 2; p=1 -> 4;
  // p=2 samples 2.5 and 3.5 (= 0.5 * 3 + 0.5 * outside 0) -> 4.
  auto y = RunOneNode("DeformConv", 19,
                      {{{1, 1, 4}, Iota(4)}, {{1, 1, 2}, {1, 1}}, {{1, 2, 3}, std::vector<double>(6, 0.5)}},
                      {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{1, 1, 3}));
  ExpectNear(Values(y[0]), {2, 4, 4}, 1e-6);
}

}  // namespace
}  // namespace plumb::testing
