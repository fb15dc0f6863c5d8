// ref kernels gather, scatter, nonzero (spec/ops/gather.md, scatter.md, nonzero.md). Expected
// values are the ONNX operator documentation's examples or worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

using GatherKind = ir::GatherKind;
using SR = ir::ScatterReduction;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

KernelResult gather(ir::GatherKind kind, int64_t axis, int64_t batch_dims, Tensor operand, Tensor indices) {
  return KernelRun(ir::Op::Gather)
      .attr("kind", ir::EnumValue{kind})
      .attr("axis", axis)
      .attr("batch_dims", batch_dims)
      .input(std::move(operand))
      .input(std::move(indices))
      .run();
}

KernelResult scatter(ir::GatherKind kind, int64_t axis, ir::ScatterReduction reduction, Tensor operand,
                     Tensor indices, Tensor updates) {
  return KernelRun(ir::Op::Scatter)
      .attr("kind", ir::EnumValue{kind})
      .attr("axis", axis)
      .attr("reduction", ir::EnumValue{reduction})
      .input(std::move(operand))
      .input(std::move(indices))
      .input(std::move(updates))
      .run();
}

KernelResult nonzero(Tensor operand) { return KernelRun(ir::Op::NonZero).input(std::move(operand)).run(); }

Tensor bools(std::vector<int64_t> shape, const std::vector<uint8_t>& data) {
  return make_tensor<uint8_t>(std::move(shape), data, ir::DType::Bool);
}

void expect_error(const KernelResult& r, const std::string& label, const std::string& fragment) {
  ASSERT_FALSE(r.status.is_ok()) << "expected " << label;
  EXPECT_EQ(r.status.code(), ErrorCode::kRuntimeError);
  EXPECT_EQ(r.status.label(), label);
  EXPECT_NE(r.status.message().find(fragment), std::string::npos) << r.status.message();
}

#define ASSERT_OK(r) ASSERT_TRUE((r).status.is_ok()) << (r).status.to_string()

// ---- gather --------------------------------------------------------------------------------
TEST(RefGather, AxisZeroOnnxExample) {
  auto r = gather(GatherKind::Axis, 0, 0, make_tensor<float>({3, 2}, {1, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f}),
                  make_tensor<int64_t>({2, 2}, {0, 1, 1, 2}));
  ASSERT_OK(r);
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f}));
}

TEST(RefGather, AxisOneOnnxExample) {
  auto r = gather(GatherKind::Axis, 1, 0,
                  make_tensor<float>({3, 3}, {1, 1.2f, 1.9f, 2.3f, 3.4f, 3.9f, 4.5f, 5.7f, 5.9f}),
                  make_tensor<int32_t>({1, 2}, {0, 2}));
  ASSERT_OK(r);
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f}));
}

TEST(RefGather, ScalarIndexGivesRank0) {
  auto r =
      gather(GatherKind::Axis, 0, 0, make_tensor<int32_t>({3}, {7, 8, 9}), make_tensor<int32_t>({}, {2}));
  ASSERT_OK(r);
  EXPECT_EQ(r.out(0).rank(), 0);
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{9}));
}

TEST(RefGather, StringsAndRepeatedIndices) {
  auto r = gather(GatherKind::Axis, 0, 0, make_tensor<std::string>({2}, {"a", "bc"}),
                  make_tensor<int64_t>({3}, {1, 1, 0}));
  ASSERT_OK(r);
  EXPECT_EQ(values<std::string>(r.out(0)), (std::vector<std::string>{"bc", "bc", "a"}));
}

TEST(RefGather, EmptyIndicesGiveEmptyResult) {
  auto r = gather(GatherKind::Axis, 0, 0, make_tensor<float>({0, 2}, {}), make_tensor<int64_t>({0}, {}));
  ASSERT_OK(r);
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{0, 2}));
}

TEST(RefGather, R1IndexOutOfRangeIsError) {
  const auto x = make_tensor<float>({3}, {1, 2, 3});
  expect_error(gather(GatherKind::Axis, 0, 0, x, make_tensor<int64_t>({2}, {0, 3})), "gather.R1",
               "index 3 at indices[1] out of range [0, 3)");
  expect_error(gather(GatherKind::Axis, 0, 0, x, make_tensor<int32_t>({1}, {-1})), "gather.R1", "index -1");
}

TEST(RefGather, R1CheckedEvenWhenResultIsEmpty) {
  expect_error(gather(GatherKind::Axis, 0, 0, make_tensor<float>({2, 0}, {}), make_tensor<int64_t>({1}, {5})),
               "gather.R1", "index 5");
  expect_error(gather(GatherKind::Axis, 1, 0, make_tensor<float>({0, 2}, {}), make_tensor<int64_t>({1}, {2})),
               "gather.R1", "index 2");
}

TEST(RefGather, ElementsOnnxExamples) {
  auto a = gather(GatherKind::Elements, 1, 0, make_tensor<float>({2, 2}, {1, 2, 3, 4}),
                  make_tensor<int64_t>({2, 2}, {0, 0, 1, 0}));
  ASSERT_OK(a);
  EXPECT_EQ(values<float>(a.out(0)), (std::vector<float>{1, 1, 4, 3}));
  auto b = gather(GatherKind::Elements, 0, 0, make_tensor<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                  make_tensor<int32_t>({2, 3}, {1, 2, 0, 2, 0, 0}));
  ASSERT_OK(b);
  EXPECT_EQ(b.out(0).shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<int32_t>(b.out(0)), (std::vector<int32_t>{4, 8, 3, 7, 2, 3}));
}

TEST(RefGather, R1ElementsIndexOutOfRange) {
  expect_error(gather(GatherKind::Elements, 1, 0, make_tensor<float>({2, 2}, {1, 2, 3, 4}),
                      make_tensor<int64_t>({2, 1}, {0, 2})),
               "gather.R1", "index 2 at indices[1,0] out of range [0, 2) of operand dim 1");
}

TEST(RefGather, NdOnnxExamples) {
  const auto x = make_tensor<int32_t>({2, 2}, {0, 1, 2, 3});
  auto a = gather(GatherKind::Nd, 0, 0, x, make_tensor<int64_t>({2, 2}, {0, 0, 1, 1}));
  ASSERT_OK(a);
  EXPECT_EQ(values<int32_t>(a.out(0)), (std::vector<int32_t>{0, 3}));
  auto b = gather(GatherKind::Nd, 0, 0, x, make_tensor<int64_t>({2, 1}, {1, 0}));
  ASSERT_OK(b);
  EXPECT_EQ(b.out(0).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<int32_t>(b.out(0)), (std::vector<int32_t>{2, 3, 0, 1}));
  auto c = gather(GatherKind::Nd, 0, 1, make_tensor<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
                  make_tensor<int64_t>({2, 1}, {1, 0}));
  ASSERT_OK(c);
  EXPECT_EQ(c.out(0).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<int32_t>(c.out(0)), (std::vector<int32_t>{2, 3, 4, 5}));
}

TEST(RefGather, R1NdIndexOutOfRange) {
  expect_error(gather(GatherKind::Nd, 0, 0, make_tensor<int32_t>({2, 3}, {0, 1, 2, 3, 4, 5}),
                      make_tensor<int64_t>({2, 2}, {1, 2, 0, 3})),
               "gather.R1", "index 3 at indices[1,1] out of range [0, 3) of operand dim 1");
}

// ---- scatter -------------------------------------------------------------------------------
TEST(RefScatter, ElementsOnnxExamples) {
  auto a = scatter(GatherKind::Elements, 0, SR::None, make_tensor<float>({3, 3}, std::vector<float>(9, 0)),
                   make_tensor<int64_t>({2, 3}, {1, 0, 2, 0, 2, 1}),
                   make_tensor<float>({2, 3}, {1, 1.1f, 1.2f, 2, 2.1f, 2.2f}));
  ASSERT_OK(a);
  EXPECT_EQ(values<float>(a.out(0)), (std::vector<float>{2, 1.1f, 0, 1, 0, 2.2f, 0, 2.1f, 1.2f}));
  auto b = scatter(GatherKind::Elements, 1, SR::None, make_tensor<float>({1, 5}, {1, 2, 3, 4, 5}),
                   make_tensor<int32_t>({1, 2}, {1, 3}), make_tensor<float>({1, 2}, {1.1f, 2.1f}));
  ASSERT_OK(b);
  EXPECT_EQ(values<float>(b.out(0)), (std::vector<float>{1, 1.1f, 3, 2.1f, 5}));
}

TEST(RefScatter, ElementsAddAndMulApplyDuplicatesInOrder) {
  const auto x = make_tensor<float>({1, 5}, {1, 2, 3, 4, 5});
  const auto idx = make_tensor<int64_t>({1, 2}, {1, 1});
  const auto upd = make_tensor<float>({1, 2}, {1.1f, 2.1f});
  auto add = scatter(GatherKind::Elements, 1, SR::Add, x, idx, upd);
  ASSERT_OK(add);
  const float sum = (2.0f + 1.1f) + 2.1f, prod = (2.0f * 1.1f) * 2.1f;
  EXPECT_EQ(values<float>(add.out(0)), (std::vector<float>{1, sum, 3, 4, 5}));
  auto mul = scatter(GatherKind::Elements, 1, SR::Mul, x, idx, upd);
  ASSERT_OK(mul);
  EXPECT_EQ(values<float>(mul.out(0)), (std::vector<float>{1, prod, 3, 4, 5}));
}

TEST(RefScatter, MaxMinPropagateNaN) {
  const auto x = make_tensor<float>({2}, {1, 5});
  const auto idx = make_tensor<int64_t>({3}, {0, 0, 1});
  const auto upd = make_tensor<float>({3}, {kNaN, 3, 2});
  auto mx = scatter(GatherKind::Elements, 0, SR::Max, x, idx, upd);
  ASSERT_OK(mx);
  auto v = values<float>(mx.out(0));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 5);
  auto mn = scatter(GatherKind::Elements, 0, SR::Min, x, idx, upd);
  ASSERT_OK(mn);
  v = values<float>(mn.out(0));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 2);
}

TEST(RefScatter, MaxOrdersNegativeZeroBelowPositiveZero) {
  auto mx = scatter(GatherKind::Elements, 0, SR::Max, make_tensor<float>({1}, {-0.0f}),
                    make_tensor<int64_t>({1}, {0}), make_tensor<float>({1}, {0.0f}));
  ASSERT_OK(mx);
  EXPECT_FALSE(std::signbit(values<float>(mx.out(0))[0]));
  auto mn = scatter(GatherKind::Elements, 0, SR::Min, make_tensor<float>({1}, {0.0f}),
                    make_tensor<int64_t>({1}, {0}), make_tensor<float>({1}, {-0.0f}));
  ASSERT_OK(mn);
  EXPECT_TRUE(std::signbit(values<float>(mn.out(0))[0]));
}

TEST(RefScatter, IntsWrapBoolsAreOrAnd) {
  auto i8 = scatter(GatherKind::Elements, 0, SR::Add, make_tensor<int8_t>({2}, {100, 1}),
                    make_tensor<int64_t>({2}, {0, 0}), make_tensor<int8_t>({2}, {20, 10}));
  ASSERT_OK(i8);
  EXPECT_EQ(values<int8_t>(i8.out(0)), (std::vector<int8_t>{-126, 1}));  // 130 - 256
  auto u4 = scatter(GatherKind::Elements, 0, SR::Mul, make_tensor<uint8_t>({1}, {5}, ir::DType::U4),
                    make_tensor<int64_t>({1}, {0}), make_tensor<uint8_t>({1}, {7}, ir::DType::U4));
  ASSERT_OK(u4);
  EXPECT_EQ(values<uint8_t>(u4.out(0)), (std::vector<uint8_t>{3}));  // 35 mod 16
  auto any = scatter(GatherKind::Elements, 0, SR::Max, bools({2}, {0, 1}), make_tensor<int64_t>({2}, {0, 1}),
                     bools({2}, {1, 0}));
  ASSERT_OK(any);
  EXPECT_EQ(values<bool>(any.out(0)), (std::vector<bool>{true, true}));
  auto all = scatter(GatherKind::Elements, 0, SR::Min, bools({2}, {0, 1}), make_tensor<int64_t>({2}, {0, 1}),
                     bools({2}, {1, 0}));
  ASSERT_OK(all);
  EXPECT_EQ(values<bool>(all.out(0)), (std::vector<bool>{false, false}));
}

TEST(RefScatter, F16AddRoundsOnceToF16) {
  // 2048 (0x6800) + 1 (0x3C00) = 2049, ties to even: 2048
  auto r = scatter(GatherKind::Elements, 0, SR::Add, make_tensor<uint16_t>({1}, {0x6800}, ir::DType::F16),
                   make_tensor<int64_t>({1}, {0}), make_tensor<uint16_t>({1}, {0x3C00}, ir::DType::F16));
  ASSERT_OK(r);
  EXPECT_EQ(values<uint16_t>(r.out(0)), (std::vector<uint16_t>{0x6800}));
}

TEST(RefScatter, NdOnnxExample) {
  auto r = scatter(GatherKind::Nd, 0, SR::None, make_tensor<int32_t>({8}, {1, 2, 3, 4, 5, 6, 7, 8}),
                   make_tensor<int64_t>({4, 1}, {4, 3, 1, 7}), make_tensor<int32_t>({4}, {9, 10, 11, 12}));
  ASSERT_OK(r);
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{1, 11, 3, 10, 9, 6, 7, 12}));
}

TEST(RefScatter, NdSlicesAndAdd) {
  auto r = scatter(GatherKind::Nd, 0, SR::None, make_tensor<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6}),
                   make_tensor<int32_t>({2, 1}, {2, 0}), make_tensor<int32_t>({2, 2}, {7, 8, 9, 10}));
  ASSERT_OK(r);
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{9, 10, 3, 4, 7, 8}));
  auto a = scatter(GatherKind::Nd, 0, SR::Add, make_tensor<int64_t>({3}, {0, 0, 0}),
                   make_tensor<int64_t>({2, 1}, {1, 1}), make_tensor<int64_t>({2}, {5, 6}));
  ASSERT_OK(a);
  EXPECT_EQ(values<int64_t>(a.out(0)), (std::vector<int64_t>{0, 11, 0}));
}

TEST(RefScatter, StringsAndEmptyUpdates) {
  auto s = scatter(GatherKind::Elements, 0, SR::None, make_tensor<std::string>({2}, {"a", "b"}),
                   make_tensor<int64_t>({1}, {1}), make_tensor<std::string>({1}, {"z"}));
  ASSERT_OK(s);
  EXPECT_EQ(values<std::string>(s.out(0)), (std::vector<std::string>{"a", "z"}));
  auto e = scatter(GatherKind::Nd, 0, SR::None, make_tensor<float>({2}, {1, 2}),
                   make_tensor<int64_t>({0, 1}, {}), make_tensor<float>({0}, {}));
  ASSERT_OK(e);
  EXPECT_EQ(values<float>(e.out(0)), (std::vector<float>{1, 2}));
}

TEST(RefScatter, R1IndexOutOfRangeIsError) {
  expect_error(scatter(GatherKind::Elements, 0, SR::Add, make_tensor<float>({2}, {1, 2}),
                       make_tensor<int64_t>({1}, {-1}), make_tensor<float>({1}, {3})),
               "scatter.R1", "index -1 at indices[0] out of range [0, 2)");
  expect_error(scatter(GatherKind::Nd, 0, SR::None, make_tensor<float>({2, 2}, {1, 2, 3, 4}),
                       make_tensor<int32_t>({1, 2}, {1, 2}), make_tensor<float>({1}, {3})),
               "scatter.R1", "index 2 at indices[0,1] out of range [0, 2) of operand dim 1");
}

TEST(RefScatter, R2DuplicateWithoutReductionIsError) {
  expect_error(scatter(GatherKind::Elements, 1, SR::None, make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                       make_tensor<int64_t>({2, 2}, {0, 1, 2, 2}), make_tensor<float>({2, 2}, {7, 8, 9, 10})),
               "scatter.R2", "position [1,2]");
  expect_error(scatter(GatherKind::Nd, 0, SR::None, make_tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                       make_tensor<int64_t>({2, 1}, {1, 1}), make_tensor<float>({2, 2}, {7, 8, 9, 10})),
               "scatter.R2", "position [1,0]");
}

// ---- nonzero -------------------------------------------------------------------------------
TEST(RefNonZero, OnnxExample) {
  auto r = nonzero(bools({2, 2}, {1, 0, 1, 1}));
  ASSERT_OK(r);
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{0, 1, 1, 0, 0, 1}));
}

TEST(RefNonZero, NaNCountsNegativeZeroDoesNot) {
  auto r = nonzero(make_tensor<float>({4}, {0, -0.0f, kNaN, 2}));
  ASSERT_OK(r);
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{2, 3}));
  // f16: +0 (0x0000), -0 (0x8000), NaN (0x7E00), 1 (0x3C00)
  auto h = nonzero(make_tensor<uint16_t>({4}, {0x0000, 0x8000, 0x7E00, 0x3C00}, ir::DType::F16));
  ASSERT_OK(h);
  EXPECT_EQ(values<int64_t>(h.out(0)), (std::vector<int64_t>{2, 3}));
}

TEST(RefNonZero, Rank0AndEmpty) {
  auto one = nonzero(make_tensor<int32_t>({}, {5}));
  ASSERT_OK(one);
  EXPECT_EQ(one.out(0).shape, (std::vector<int64_t>{0, 1}));
  auto none = nonzero(make_tensor<int32_t>({}, {0}));
  ASSERT_OK(none);
  EXPECT_EQ(none.out(0).shape, (std::vector<int64_t>{0, 0}));
  auto empty = nonzero(make_tensor<uint8_t>({2, 0, 3}, {}));
  ASSERT_OK(empty);
  EXPECT_EQ(empty.out(0).shape, (std::vector<int64_t>{3, 0}));
}

}  // namespace
}  // namespace plumb::rt
