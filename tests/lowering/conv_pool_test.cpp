// Lowering of ONNX Conv, ConvTranspose, MaxPool and AveragePool (lowering/onnx/conv_pool.cpp):
// one-node models built by hand, lowered, run on ref, compared with values worked out by hand
// (or by a direct loop written here from the ONNX definition).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/lowering/f32_node.h"

namespace plumb {
namespace {

using Ints = std::vector<int64_t>;
using testing::IntAttr;
using testing::IntsAttr;
using testing::StrAttr;

using namespace testing::f32;

std::vector<float> Iota(int64_t n) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

TEST(LowerConv, SameUpperStride2) {
  // 5x5 input 0..24, 3x3 kernel of 1..9, SAME_UPPER stride 2: output 3x3, total pad 2 -> 1 + 1.
  std::vector<float> w;
  for (int i = 1; i <= 9; ++i) w.push_back(static_cast<float>(i));
  auto out = RunNode("Conv", 11, {{{1, 1, 5, 5}, Iota(25)}, {{1, 1, 3, 3}, w}},
                     {StrAttr("auto_pad", "SAME_UPPER"), IntsAttr("strides", {2, 2})}, 1);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].tensor().shape, (Ints{1, 1, 3, 3}));
  std::vector<float> expect;
  for (int oy = 0; oy < 3; ++oy)
    for (int ox = 0; ox < 3; ++ox) {
      float acc = 0;
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx) {
          const int y = oy * 2 + ky - 1, x = ox * 2 + kx - 1;
          if (y >= 0 && y < 5 && x >= 0 && x < 5) acc += static_cast<float>(y * 5 + x) * w[ky * 3 + kx];
        }
      expect.push_back(acc);
    }
  EXPECT_EQ(Floats(out[0]), expect);
  // Spot check by hand: output (0,0) covers x[0..1][0..1] with w[1..2][1..2]: 0*5 + 1*6 + 5*8 + 6*9.
  EXPECT_EQ(Floats(out[0])[0], 100.0f);
}

TEST(LowerConv, BiasIsAddedPerChannel) {
  auto out = RunNode("Conv", 11, {{{1, 1, 2}, {1, 2}}, {{2, 1, 1}, {1, 10}}, {{2}, {100, 200}}}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{101, 102, 210, 220}));
}

TEST(LowerConvTranspose, OutputPaddingAndFlip) {
  // y[i*2 + k] += x[i] * w[k]; length 2*(3-1) + 3 + output_padding 1 = 8.
  auto out = RunNode("ConvTranspose", 11, {{{1, 1, 3}, {1, 2, 3}}, {{1, 1, 3}, {1, 2, 3}}},
                     {IntsAttr("strides", {2}), IntsAttr("output_padding", {1})}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 2, 5, 4, 9, 6, 9, 0}));
}

TEST(LowerConvTranspose, PadsCrop) {
  // Same as above without output_padding and pads [1, 2]: [1,2,5,4,9,6,9] cropped to [2,5,4,9].
  auto out = RunNode("ConvTranspose", 11, {{{1, 1, 3}, {1, 2, 3}}, {{1, 1, 3}, {1, 2, 3}}},
                     {IntsAttr("strides", {2}), IntsAttr("pads", {1, 2})}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{2, 5, 4, 9}));
}

TEST(LowerConvTranspose, GroupsRearrangeWeight) {
  // 2 groups, 1 in and 1 out channel each: each channel convolved with its own kernel.
  auto out = RunNode("ConvTranspose", 11, {{{1, 2, 2}, {1, 2, 10, 20}}, {{2, 1, 2}, {1, 1, 1, -1}}},
                     {IntAttr("group", 2)}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 3, 2, 10, 10, -20}));
}

TEST(LowerMaxPool, CeilModeAndIndices) {
  // 4x4 of 0..15, kernel 3, stride 2, ceil_mode: 2x2 windows, the last ones clipped.
  auto out =
      RunNode("MaxPool", 12, {{{1, 1, 4, 4}, Iota(16)}},
              {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntAttr("ceil_mode", 1)}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{10, 11, 14, 15}));
  EXPECT_EQ(I64s(out[1]), (Ints{10, 11, 14, 15}));
}

TEST(LowerMaxPool, CeilModeDropsWindowStartingInPadding) {
  // Length 5, kernel 2, stride 2, pads [0, 1], ceil_mode: ceil((5+1-2)/2 + 1) = 3 windows, and
  // the third starts at 4 < 5: kept. Length 4 with the same: ceil((4+1-2)/2+1) = 3, but the third
  // would start at 4 = in + pad_low: dropped -> 2.
  auto a = RunNode("MaxPool", 12, {{{1, 1, 4}, {1, 2, 3, 4}}},
                   {IntsAttr("kernel_shape", {2}), IntsAttr("strides", {2}), IntsAttr("pads", {0, 1}),
                    IntAttr("ceil_mode", 1)},
                   1);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(Floats(a[0]), (std::vector<float>{2, 4}));
}

TEST(LowerMaxPool, StorageOrderColumnMajor) {
  auto out = RunNode("MaxPool", 12, {{{1, 1, 4, 4}, Iota(16)}},
                     {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntAttr("ceil_mode", 1),
                      IntAttr("storage_order", 1)},
                     2);
  ASSERT_EQ(out.size(), 2u);
  // (h, w) -> h + 4 * w: (2,2) 10, (2,3) 14, (3,2) 11, (3,3) 15.
  EXPECT_EQ(I64s(out[1]), (Ints{10, 14, 11, 15}));
}

TEST(LowerAveragePool, CountIncludePad) {
  // [1,2,3], kernel 2, pads 1+1: windows {pad,1} {1,2} {2,3} {3,pad}.
  const std::vector<onnx::OnnxAttribute> base{IntsAttr("kernel_shape", {2}), IntsAttr("pads", {1, 1})};
  auto a0 = base, a1 = base;
  a1.push_back(IntAttr("count_include_pad", 1));
  auto out0 = RunNode("AveragePool", 11, {{{1, 1, 3}, {1, 2, 3}}}, a0, 1);
  auto out1 = RunNode("AveragePool", 11, {{{1, 1, 3}, {1, 2, 3}}}, a1, 1);
  ASSERT_EQ(out0.size(), 1u);
  ASSERT_EQ(out1.size(), 1u);
  EXPECT_EQ(Floats(out0[0]), (std::vector<float>{1, 1.5f, 2.5f, 3}));
  EXPECT_EQ(Floats(out1[0]), (std::vector<float>{0.5f, 1.5f, 2.5f, 1.5f}));
}

TEST(LowerAveragePool, CeilModeExtraPaddingIsNotCounted) {
  // [1..5], kernel 2, stride 2, ceil_mode: windows {1,2} {3,4} {5}; the ceil padding is not an
  // element even with count_include_pad = 1.
  auto out = RunNode("AveragePool", 11, {{{1, 1, 5}, {1, 2, 3, 4, 5}}},
                     {IntsAttr("kernel_shape", {2}), IntsAttr("strides", {2}), IntAttr("ceil_mode", 1),
                      IntAttr("count_include_pad", 1)},
                     1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1.5f, 3.5f, 5}));
}

TEST(LowerGlobalPool, AverageAndMax) {
  auto a = RunNode("GlobalAveragePool", 1, {{{1, 2, 2}, {1, 2, 3, 5}}}, {}, 1);
  auto m = RunNode("GlobalMaxPool", 1, {{{1, 2, 2}, {1, 2, 3, 5}}}, {}, 1);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(a[0].tensor().shape, (Ints{1, 2, 1}));
  EXPECT_EQ(Floats(a[0]), (std::vector<float>{1.5f, 4}));
  EXPECT_EQ(Floats(m[0]), (std::vector<float>{2, 5}));
}

TEST(LowerLpPool, P2) {
  // sqrt(3^2 + 4^2) = 5, sqrt(0 + 0) = 0.
  auto out = RunNode("LpPool", 11, {{{1, 1, 4}, {3, 4, 0, 0}}},
                     {IntsAttr("kernel_shape", {2}), IntsAttr("strides", {2}), IntAttr("p", 2)}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{5, 0}));
}

TEST(LowerMaxPool, SameLowerPadsTheStart) {
  // Length 4, kernel 2, stride 1, SAME_LOWER: total pad 1, all at the start: windows
  // {pad,1} {1,5} {5,2} {2,4}.
  auto out = RunNode("MaxPool", 12, {{{1, 1, 4}, {1, 5, 2, 4}}},
                     {IntsAttr("kernel_shape", {2}), StrAttr("auto_pad", "SAME_LOWER")}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 5, 5, 4}));
  EXPECT_EQ(I64s(out[1]), (Ints{0, 1, 1, 3}));
}

TEST(LowerGlobalPool, LpP1) {
  auto out = RunNode("GlobalLpPool", 2, {{{1, 2, 2}, {-1, 2, 3, -5}}}, {IntAttr("p", 1)}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{3, 8}));
}

TEST(LowerGlobalPool, LpDefaultP2AndP3) {
  // p = 2 (default): sqrt(3^2 + 4^2) = 5, sqrt(0 + 1 + 4 + 4) = 3 over each channel's 2x2 window.
  auto out = RunNode("GlobalLpPool", 2, {{{1, 2, 2, 2}, {3, 0, -4, 0, 0, 1, -2, 2}}}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{1, 2, 1, 1}));
  ASSERT_EQ(Floats(out[0]).size(), 2u);
  EXPECT_NEAR(Floats(out[0])[0], 5, 1e-5);
  EXPECT_NEAR(Floats(out[0])[1], 3, 1e-5);
  // p = 3: (|-1|^3 + 2^3)^(1/3) = 9^(1/3) per channel.
  out = RunNode("GlobalLpPool", 2, {{{1, 1, 2}, {-1, 2}}}, {IntAttr("p", 3)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(Floats(out[0]).size(), 1u);
  EXPECT_NEAR(Floats(out[0])[0], std::cbrt(9.0), 1e-6);
}

TEST(LowerConv, DilationAndGroups) {
  // Two groups of one channel; dilation 2 over [0..4]: channel 0 kernel [1,1] -> x[i] + x[i+2];
  // channel 1 kernel [1,-1] -> x[i] - x[i+2].
  auto out =
      RunNode("Conv", 11, {{{1, 2, 5}, {0, 1, 2, 3, 4, 10, 20, 30, 40, 50}}, {{2, 1, 2}, {1, 1, 1, -1}}},
              {IntAttr("group", 2), IntsAttr("dilations", {2})}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{2, 4, 6, -20, -20, -20}));
}

TEST(LowerCausalConv, PastStateAndPresentState) {
  // One channel, kernel [1, 2, 3], past [10, 20], input [1, 2]: seq = [10, 20, 1, 2];
  // y[0] = 10 + 40 + 3 = 53, y[1] = 20 + 2 + 6 = 28; present = [1, 2]. Bias 0.5 added.
  auto out =
      RunNode("CausalConvWithState", 27,
              {{{1, 1, 2}, {1, 2}}, {{1, 1, 3}, {1, 2, 3}}, {{1}, {0.5f}}, {{1, 1, 2}, {10, 20}}}, {}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{53.5f, 28.5f}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace plumb
