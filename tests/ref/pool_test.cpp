// ref pool (spec/ops/pool.md): max (with indices, NaN, signed zeros, padding skipped, empty
// windows) and sum (accumulation type, integer wrap, padding skipped), windows over every dim.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/cpu/ref/float_formats.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

using Ints = std::vector<int64_t>;

struct PoolAttrs {
  ir::PoolKind kind = ir::PoolKind::Max;
  Ints window, strides, dilations, pads_low, pads_high;
};

// Window `window`, strides = window, no dilation or padding.
PoolAttrs attrs(ir::PoolKind kind, Ints window) {
  PoolAttrs a;
  a.kind = kind;
  a.strides = window;
  a.dilations = Ints(window.size(), 1);
  a.pads_low = a.pads_high = Ints(window.size(), 0);
  a.window = std::move(window);
  return a;
}

KernelResult pool(Tensor operand, const PoolAttrs& a, int outputs = 1) {
  return KernelRun(ir::Op::Pool)
      .attr("kind", ir::EnumValue{a.kind})
      .attr("window", a.window)
      .attr("strides", a.strides)
      .attr("dilations", a.dilations)
      .attr("pads_low", a.pads_low)
      .attr("pads_high", a.pads_high)
      .input(std::move(operand))
      .outputs(outputs)
      .run();
}

TEST(RefPool, MaxTwoByTwoWithIndices) {
  // [[1, 5, 2, 0], [3, 4, 8, 8]] in a [1,1,2,4] tensor; 2x2 windows.
  auto r = pool(make_tensor<float>({1, 1, 2, 4}, {1, 5, 2, 0, 3, 4, 8, 8}),
                attrs(ir::PoolKind::Max, {1, 1, 2, 2}), 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{5, 8}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{1, 6}));  // first maximum in window order
}

TEST(RefPool, IndicesAreFlatOverTheWholeOperand) {
  // [2, 2, 3]: window [1, 1, 3] per row; the flat index counts N and C too.
  auto r = pool(make_tensor<float>({2, 2, 3}, {0, 9, 1, 4, 3, 2, 7, 7, 7, -1, -3, -2}),
                attrs(ir::PoolKind::Max, {1, 1, 3}), 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{9, 4, 7, -1}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{1, 3, 6, 9}));
}

TEST(RefPool, MaxSkipsPadding) {
  PoolAttrs a = attrs(ir::PoolKind::Max, {3});
  a.strides = {1};
  a.pads_low = {1};
  a.pads_high = {1};
  // All negative: a zero (or anything) in the padding would win.
  auto r = pool(make_tensor<float>({3}, {-5, -3, -4}), a, 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{-3, -3, -3}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{1, 1, 1}));
}

TEST(RefPool, MaxOfAWindowWithNoRealElement) {
  PoolAttrs a = attrs(ir::PoolKind::Max, {2});
  a.pads_low = {2};  // window 0 lies entirely in the padding
  auto r = pool(make_tensor<float>({2}, {1, 2}), a, 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{-INFINITY, 2}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{-1, 1}));
  auto i = pool(make_tensor<int8_t>({2}, {1, 2}), a);
  ASSERT_TRUE(i.status.is_ok()) << i.status.to_string();
  EXPECT_EQ(values<int8_t>(i.out(0)), (std::vector<int8_t>{-128, 2}));
  auto q = pool(make_tensor<int8_t>({2}, {1, 2}, ir::DType::I4), a);
  ASSERT_TRUE(q.status.is_ok()) << q.status.to_string();
  EXPECT_EQ(values<int8_t>(q.out(0)), (std::vector<int8_t>{-8, 2}));  // i4's lowest value
}

TEST(RefPool, MaxFirstNanWins) {
  PoolAttrs a = attrs(ir::PoolKind::Max, {4});
  auto r = pool(make_tensor<float>({8}, {1, NAN, 5, -NAN, -INFINITY, 2, 3, NAN}), a, 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  const auto v = values<float>(r.out(0));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_FALSE(std::signbit(v[0]));  // the element itself (+NaN at 1), not the later -NaN
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{1, 7}));
}

TEST(RefPool, MaxNegativeZeroIsBelowPositiveZero) {
  auto r = pool(make_tensor<float>({6}, {-0.0f, 0.0f, 0.0f, -0.0f, -0.0f, -0.0f}),
                attrs(ir::PoolKind::Max, {2}), 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  const auto v = values<float>(r.out(0));
  EXPECT_FALSE(std::signbit(v[0]));
  EXPECT_FALSE(std::signbit(v[1]));
  EXPECT_TRUE(std::signbit(v[2]));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{1, 2, 4}));  // equal values: the first
}

TEST(RefPool, MaxDilatedWindowUnsigned) {
  PoolAttrs a = attrs(ir::PoolKind::Max, {2});
  a.strides = {1};
  a.dilations = {2};
  auto r = pool(make_tensor<uint8_t>({4}, {200, 255, 100, 7}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint8_t>(r.out(0)), (std::vector<uint8_t>{200, 255}));  // max(x0,x2), max(x1,x3)
}

TEST(RefPool, SumSkipsPaddingAndCountsWithOnes) {
  PoolAttrs a = attrs(ir::PoolKind::Sum, {1, 3});
  a.strides = {1, 2};
  a.pads_low = {0, 1};
  a.pads_high = {0, 1};
  auto r = pool(make_tensor<float>({1, 5}, {1, 2, 3, 4, 5}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{3, 9, 9}));
  auto count = pool(make_tensor<float>({1, 5}, {1, 1, 1, 1, 1}), a);  // average pool's divisor
  ASSERT_TRUE(count.status.is_ok()) << count.status.to_string();
  EXPECT_EQ(values<float>(count.out(0)), (std::vector<float>{2, 3, 2}));
}

TEST(RefPool, SumAcrossChannelsLikeLrn) {
  PoolAttrs a = attrs(ir::PoolKind::Sum, {1, 3, 1});
  a.strides = {1, 1, 1};
  a.pads_low = {0, 1, 0};
  a.pads_high = {0, 1, 0};
  auto r = pool(make_tensor<float>({1, 4, 1}, {1, 10, 100, 1000}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{11, 111, 1110, 1100}));
}

TEST(RefPool, SumF16AccumulatesInF32) {
  std::vector<uint16_t> bits;
  for (double x : {2048.0, 1.0, 1.0}) bits.push_back(to_f16(x).bits);
  auto r = pool(make_tensor<uint16_t>({3}, bits, ir::DType::F16), attrs(ir::PoolKind::Sum, {3}));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(to_f64(r.out(0).as<f16>()[0]), 2050.0);  // an f16 accumulator would give 2048
}

TEST(RefPool, SumEmptyWindowIsPositiveZero) {
  PoolAttrs a = attrs(ir::PoolKind::Sum, {2});
  a.pads_high = {2};
  auto r = pool(make_tensor<float>({2}, {-0.0f, -0.0f}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  const auto v = values<float>(r.out(0));
  EXPECT_EQ(v, (std::vector<float>{0, 0}));
  EXPECT_FALSE(std::signbit(v[0]));  // +0 + -0 + -0
  EXPECT_FALSE(std::signbit(v[1]));  // no real element
}

TEST(RefPool, SumIntegersWrap) {
  auto r = pool(make_tensor<int8_t>({2}, {100, 100}), attrs(ir::PoolKind::Sum, {2}));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int8_t>(r.out(0)), (std::vector<int8_t>{-56}));
  auto q = pool(make_tensor<int8_t>({2}, {7, 1}, ir::DType::I4), attrs(ir::PoolKind::Sum, {2}));
  ASSERT_TRUE(q.status.is_ok()) << q.status.to_string();
  EXPECT_EQ(values<int8_t>(q.out(0)), (std::vector<int8_t>{-8}));  // 8 wraps in 4 bits
  auto u = pool(make_tensor<uint16_t>({2}, {65535, 2}), attrs(ir::PoolKind::Sum, {2}));
  ASSERT_TRUE(u.status.is_ok()) << u.status.to_string();
  EXPECT_EQ(values<uint16_t>(u.out(0)), (std::vector<uint16_t>{1}));
}

TEST(RefPool, HugeWindowOverPaddingVisitsOnlyRealElements) {
  PoolAttrs a = attrs(ir::PoolKind::Sum, {int64_t{1} << 40});
  a.strides = {1};
  a.pads_high = {int64_t{1} << 40};  // E = floor((2 + 2^40 - 2^40) / 1) + 1 = 3
  auto r = pool(make_tensor<float>({2}, {1, 2}), a);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{3, 2, 0}));
}

TEST(RefPool, RankZeroIsTheOperand) {
  PoolAttrs a = attrs(ir::PoolKind::Max, {});
  auto r = pool(make_tensor<double>({}, {-2.5}), a, 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<double>(r.out(0)), (std::vector<double>{-2.5}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{0}));
}

TEST(RefPool, EmptyOperand) {
  PoolAttrs a = attrs(ir::PoolKind::Max, {1, 2});
  auto r = pool(make_tensor<float>({0, 4}, {}), a, 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (Ints{0, 2}));
}

}  // namespace
}  // namespace plumb::rt
