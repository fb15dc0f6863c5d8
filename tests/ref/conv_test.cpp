// ref conv (spec/ops/conv.md): strides, dilations, lhs dilations, padding (skipped, not zero-
// multiplied), groups, integer wrap, accumulation type and order, empty operands, and a naive
// reference loop for mixed attributes in 1, 2 and 3 spatial dims.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/cpu/ref/float_formats.h"
#include "runtime/cpu/ref/index.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

using Ints = std::vector<int64_t>;

using ir::ConvAttrs;

// Attributes for `ns` spatial dims with defaults 1 / 0.
ConvAttrs attrs(size_t ns) { return testing::conv_attrs(ns); }

KernelResult conv(Tensor input, Tensor weight, const ConvAttrs& a) {
  return KernelRun(ir::Op::Conv).attrs(a).input(std::move(input)).input(std::move(weight)).run();
}

TEST(RefConv, OneDimValid) {
  auto r =
      conv(make_tensor<float>({1, 1, 4}, {1, 2, 3, 4}), make_tensor<float>({1, 1, 2}, {10, 1}), attrs(1));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{12, 23, 34}));
}

TEST(RefConv, TwoDimTwoChannelsTwoOutputs) {
  // input c0 = [[1,2],[3,4]], c1 = [[5,6],[7,8]]; 1x1 kernels: o0 = c0 + 10*c1, o1 = -c0
  auto r = conv(make_tensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                make_tensor<float>({2, 2, 1, 1}, {1, 10, -1, 0}), attrs(2));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{51, 62, 73, 84, -1, -2, -3, -4}));
}

TEST(RefConv, StrideAndPadding) {
  ConvAttrs a = attrs(1);
  a.strides = {2};
  a.pads_low = {1};
  a.pads_high = {1};
  // padded [_,1,2,3,4,5,_], kernel [1,1,1], stride 2: windows at 0,2,4 -> 1+2, 2+3+4, 4+5
  auto r = conv(make_tensor<float>({1, 1, 5}, {1, 2, 3, 4, 5}), make_tensor<float>({1, 1, 3}, {1, 1, 1}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{3, 9, 9}));
}

TEST(RefConv, PaddingIsSkippedNotMultiplied) {
  ConvAttrs a = attrs(1);
  a.pads_low = {1};
  a.pads_high = {1};
  // Only the centre tap is real; 0 * inf in the padding would make NaN.
  auto r = conv(make_tensor<float>({1, 1, 1}, {2}), make_tensor<float>({1, 1, 3}, {INFINITY, 3, NAN}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{6}));
}

TEST(RefConv, Dilation) {
  ConvAttrs a = attrs(1);
  a.dilations = {2};
  auto r = conv(make_tensor<float>({1, 1, 5}, {1, 2, 3, 4, 5}), make_tensor<float>({1, 1, 2}, {1, 10}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{31, 42, 53}));
}

TEST(RefConv, LhsDilationHolesAreSkipped) {
  ConvAttrs a = attrs(1);
  a.lhs_dilations = {2};
  // dilated input [1,_,2,_,3]; kernel [1, inf]: holes add nothing (a zero would give NaN).
  auto r = conv(make_tensor<float>({1, 1, 3}, {1, 2, 3}), make_tensor<float>({1, 1, 2}, {1, INFINITY}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, INFINITY, 2, INFINITY}));
}

TEST(RefConv, TransposedConvolutionThroughLhsDilation) {
  // ConvTranspose of [1,2] with kernel [1,10], stride 2 = [1,10,2,20]; as conv: lhs_dilation 2,
  // pads 1+1 (kernel-1), flipped kernel [10,1].
  ConvAttrs a = attrs(1);
  a.lhs_dilations = {2};
  a.pads_low = {1};
  a.pads_high = {1};
  auto r = conv(make_tensor<float>({1, 1, 2}, {1, 2}), make_tensor<float>({1, 1, 2}, {10, 1}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 10, 2, 20}));
}

TEST(RefConv, GroupsSplitChannels) {
  ConvAttrs a = attrs(1);
  a.groups = 2;
  // C = 4, O = 2: o0 reads c0,c1 with weights [1,10]; o1 reads c2,c3 with [100,1000].
  auto r =
      conv(make_tensor<float>({1, 4, 1}, {1, 2, 3, 4}), make_tensor<float>({2, 2, 1}, {1, 10, 100, 1000}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{21, 4300}));
}

TEST(RefConv, DepthwiseGroups) {
  ConvAttrs a = attrs(1);
  a.groups = 2;
  // C = 2, O = 4: o0, o1 read c0; o2, o3 read c1.
  auto r = conv(make_tensor<float>({1, 2, 2}, {1, 2, 3, 4}), make_tensor<float>({4, 1, 1}, {1, 2, 3, 4}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 2, 2, 4, 9, 12, 12, 16}));
}

TEST(RefConv, SumOrderIsChannelsThenKernelPositions) {
  // Terms in order (c0,k0)=1e8, (c0,k1)=1, (c1,k0)=-1e8, (c1,k1)=1: sequentially in f32 that is 1;
  // taking kernel positions first would give 2.
  auto r = conv(make_tensor<float>({1, 2, 2}, {1e8f, 1, -1e8f, 1}),
                make_tensor<float>({1, 2, 2}, {1, 1, 1, 1}), attrs(1));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1}));
}

TEST(RefConv, F16AccumulatesInF32) {
  std::vector<uint16_t> in, w;
  for (double x : {2048.0, 1.0, 1.0}) in.push_back(to_f16(x).bits);
  for (double x : {1.0, 1.0, 1.0}) w.push_back(to_f16(x).bits);
  ConvAttrs a = attrs(1);
  a.to = ir::DType::F16;
  auto r = conv(make_tensor<uint16_t>({1, 1, 3}, in, ir::DType::F16),
                make_tensor<uint16_t>({1, 1, 3}, w, ir::DType::F16), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(to_f64(r.out(0).as<f16>()[0]), 2050.0);  // an f16 accumulator would give 2048
}

TEST(RefConv, IntegerWrapsInI32) {
  ConvAttrs a = attrs(1);
  a.to = ir::DType::I32;
  auto r =
      conv(make_tensor<int32_t>({1, 1, 2}, {1 << 30, 1 << 30}), make_tensor<int32_t>({1, 1, 2}, {2, 2}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{0}));  // 2^32 wraps to 0
  a.to = ir::DType::I64;
  auto w =
      conv(make_tensor<int32_t>({1, 1, 2}, {1 << 30, 1 << 30}), make_tensor<int32_t>({1, 1, 2}, {2, 2}), a);
  ASSERT_TRUE(w.status.is_ok()) << w.status.to_string();
  EXPECT_EQ(values<int64_t>(w.out(0)), (std::vector<int64_t>{int64_t{1} << 32}));
}

TEST(RefConv, U8InputI8WeightToI32) {
  ConvAttrs a = attrs(1);
  a.to = ir::DType::I32;
  auto r =
      conv(make_tensor<uint8_t>({1, 1, 3}, {255, 0, 200}), make_tensor<int8_t>({1, 1, 2}, {-128, 127}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{255 * -128, 200 * 127}));
}

TEST(RefConv, EmptyChannelsGiveZeros) {
  auto r = conv(make_tensor<float>({1, 0, 3}, {}), make_tensor<float>({2, 0, 2}, {}), attrs(1));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{0, 0, 0, 0}));
}

TEST(RefConv, EmptyBatchAndEmptySpatialInput) {
  auto r = conv(make_tensor<float>({0, 1, 3}, {}), make_tensor<float>({2, 1, 2}, {1, 2, 3, 4}), attrs(1));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (Ints{0, 2, 2}));
  ConvAttrs a = attrs(1);
  a.pads_low = {1};
  a.pads_high = {1};
  auto p = conv(make_tensor<float>({1, 1, 0}, {}), make_tensor<float>({1, 1, 2}, {INFINITY, 1}), a);
  ASSERT_TRUE(p.status.is_ok()) << p.status.to_string();
  EXPECT_EQ(values<float>(p.out(0)), (std::vector<float>{0}));  // all padding: no terms
}

// An independent, direct transcription of the spec's pseudo-code (double accumulator; inputs are
// small integers, so every sum is exact in f32 too).
std::vector<float> naive_conv(const Ints& in_shape, const std::vector<float>& in, const Ints& w_shape,
                              const std::vector<float>& w, const ConvAttrs& a, const Ints& out_shape) {
  const size_t ns = in_shape.size() - 2;
  auto numel = [](const Ints& s, size_t from) {
    int64_t n = 1;
    for (size_t i = from; i < s.size(); ++i) n *= s[i];
    return n;
  };
  const int64_t C = in_shape[1], O = w_shape[0], cg = C / a.groups, og = O / a.groups;
  std::vector<float> out(numel(out_shape, 0));
  Ints e(ns), k(ns);
  for (int64_t n = 0; n < out_shape[0]; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t fe = 0; fe < numel(out_shape, 2); ++fe) {
        for (int64_t t = fe, d = ns - 1; d >= 0; --d) e[d] = t % out_shape[2 + d], t /= out_shape[2 + d];
        double acc = 0;
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t fk = 0; fk < numel(w_shape, 2); ++fk) {
            for (int64_t t = fk, d = ns - 1; d >= 0; --d) k[d] = t % w_shape[2 + d], t /= w_shape[2 + d];
            int64_t off = 0;
            bool real = true;
            for (size_t d = 0; d < ns; ++d) {
              const int64_t p = e[d] * a.strides[d] + k[d] * a.dilations[d] - a.pads_low[d];
              const int64_t i = p / a.lhs_dilations[d];
              real = real && p >= 0 && p % a.lhs_dilations[d] == 0 && i < in_shape[2 + d];
              off = off * in_shape[2 + d] + i;
            }
            if (!real) continue;
            const int64_t ci = (o / og) * cg + c;
            acc += double(in[(n * C + ci) * numel(in_shape, 2) + off]) *
                   double(w[(o * cg + c) * numel(w_shape, 2) + fk]);
          }
        out[(n * O + o) * numel(out_shape, 2) + fe] = static_cast<float>(acc);
      }
  return out;
}

void check_against_naive(const Ints& in_shape, const Ints& w_shape, const ConvAttrs& a) {
  std::vector<float> in(num_elements(in_shape)), w(num_elements(w_shape));
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(static_cast<int64_t>(i * 7 % 11) - 5);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int64_t>(i * 5 % 7) - 3);
  auto r = conv(make_tensor<float>(in_shape, in), make_tensor<float>(w_shape, w), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), naive_conv(in_shape, in, w_shape, w, a, r.out(0).shape));
}

TEST(RefConv, MixedAttributesMatchNaiveLoop2D) {
  ConvAttrs a = attrs(2);
  a.strides = {2, 1};
  a.dilations = {1, 2};
  a.lhs_dilations = {1, 2};
  a.pads_low = {1, 2};
  a.pads_high = {2, 0};
  a.groups = 2;
  check_against_naive({2, 4, 5, 6}, {6, 2, 3, 2}, a);
}

TEST(RefConv, MixedAttributesMatchNaiveLoop1DAnd3D) {
  ConvAttrs a = attrs(1);
  a.strides = {3};
  a.pads_low = {4};
  a.pads_high = {1};
  check_against_naive({1, 3, 9}, {2, 3, 2}, a);
  ConvAttrs b = attrs(3);
  b.strides = {1, 2, 1};
  b.dilations = {2, 1, 1};
  b.lhs_dilations = {1, 1, 3};
  b.pads_low = {0, 1, 1};
  b.pads_high = {1, 1, 0};
  check_against_naive({1, 2, 4, 5, 3}, {3, 2, 2, 3, 2}, b);
}

}  // namespace
}  // namespace plumb::rt
