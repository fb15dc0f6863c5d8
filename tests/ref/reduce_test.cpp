// ref kernels reduce, arg_reduce, scan (spec/ops/reduce.md, arg_reduce.md, scan.md). Expected
// values are computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

KernelResult reduce(ir::ReduceKind kind, std::vector<int64_t> axes, Tensor operand) {
  return KernelRun(ir::Op::Reduce)
      .attr("kind", ir::EnumValue{kind})
      .attr("axes", std::move(axes))
      .input(std::move(operand))
      .run();
}

KernelResult arg_reduce(ir::ArgKind kind, int64_t axis, bool select_last, Tensor operand) {
  return KernelRun(ir::Op::ArgReduce)
      .attr("kind", ir::EnumValue{kind})
      .attr("axis", axis)
      .attr("select_last", select_last)
      .input(std::move(operand))
      .run();
}

KernelResult scan(ir::ReduceKind kind, int64_t axis, bool exclusive, bool reverse, Tensor operand) {
  return KernelRun(ir::Op::Scan)
      .attr("kind", ir::EnumValue{kind})
      .attr("axis", axis)
      .attr("exclusive", exclusive)
      .attr("reverse", reverse)
      .input(std::move(operand))
      .run();
}

// bool tensors from bytes (std::vector<bool> has no data()).
Tensor bools(std::vector<int64_t> shape, const std::vector<uint8_t>& data) {
  return make_tensor<uint8_t>(std::move(shape), data, ir::DType::Bool);
}

#define ASSERT_OK(r) ASSERT_TRUE((r).status.is_ok()) << (r).status.to_string()

using ReduceKind = ir::ReduceKind;

// ---- reduce --------------------------------------------------------------------------------
TEST(RefReduce, SumOverEachAxis) {
  const auto x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto rows = reduce(ReduceKind::Sum, {1}, x);
  ASSERT_OK(rows);
  EXPECT_EQ(rows.out(0).shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(values<float>(rows.out(0)), (std::vector<float>{6, 15}));
  auto cols = reduce(ReduceKind::Sum, {0}, x);
  ASSERT_OK(cols);
  EXPECT_EQ(values<float>(cols.out(0)), (std::vector<float>{5, 7, 9}));
  auto all = reduce(ReduceKind::Sum, {0, 1}, x);
  ASSERT_OK(all);
  EXPECT_EQ(all.out(0).rank(), 0);
  EXPECT_EQ(values<float>(all.out(0)), (std::vector<float>{21}));
}

TEST(RefReduce, NonAdjacentAxes) {
  std::vector<int32_t> data(12);
  for (int i = 0; i < 12; ++i) data[i] = i;
  auto r = reduce(ReduceKind::Sum, {0, 2}, make_tensor<int32_t>({2, 3, 2}, data));
  ASSERT_OK(r);
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{0 + 1 + 6 + 7, 2 + 3 + 8 + 9, 4 + 5 + 10 + 11}));
}

TEST(RefReduce, ProdMaxMin) {
  const auto x = make_tensor<double>({2, 2}, {2, -3, 0.5, 4});
  auto p = reduce(ReduceKind::Prod, {1}, x);
  ASSERT_OK(p);
  EXPECT_EQ(values<double>(p.out(0)), (std::vector<double>{-6, 2}));
  auto mx = reduce(ReduceKind::Max, {0}, x);
  ASSERT_OK(mx);
  EXPECT_EQ(values<double>(mx.out(0)), (std::vector<double>{2, 4}));
  auto mn = reduce(ReduceKind::Min, {0, 1}, x);
  ASSERT_OK(mn);
  EXPECT_EQ(values<double>(mn.out(0)), (std::vector<double>{-3}));
}

TEST(RefReduce, Rank0WithNoAxesIsIdentityMap) {
  auto r = reduce(ReduceKind::Sum, {}, make_tensor<float>({}, {-0.0f}));
  ASSERT_OK(r);
  ASSERT_EQ(r.out(0).numel(), 1);
  EXPECT_TRUE(std::signbit(values<float>(r.out(0))[0]));  // -0 stays -0
  auto m = reduce(ReduceKind::Min, {}, make_tensor<int64_t>({}, {-7}));
  ASSERT_OK(m);
  EXPECT_EQ(values<int64_t>(m.out(0)), (std::vector<int64_t>{-7}));
}

TEST(RefReduce, SumOfNegativeZerosIsNegativeZero) {
  auto r = reduce(ReduceKind::Sum, {0}, make_tensor<float>({2}, {-0.0f, -0.0f}));
  ASSERT_OK(r);
  EXPECT_TRUE(std::signbit(values<float>(r.out(0))[0]));
}

TEST(RefReduce, EmptyFloatReductionGivesIdentity) {
  const auto x = make_tensor<float>({2, 0}, {});
  auto s = reduce(ReduceKind::Sum, {1}, x);
  ASSERT_OK(s);
  ASSERT_EQ(values<float>(s.out(0)), (std::vector<float>{0, 0}));
  EXPECT_FALSE(std::signbit(values<float>(s.out(0))[0]));  // +0, not -0
  auto p = reduce(ReduceKind::Prod, {1}, x);
  ASSERT_OK(p);
  EXPECT_EQ(values<float>(p.out(0)), (std::vector<float>{1, 1}));
  auto mx = reduce(ReduceKind::Max, {1}, x);
  ASSERT_OK(mx);
  EXPECT_EQ(values<float>(mx.out(0)), (std::vector<float>{-kInf, -kInf}));
  auto mn = reduce(ReduceKind::Min, {1}, x);
  ASSERT_OK(mn);
  EXPECT_EQ(values<float>(mn.out(0)), (std::vector<float>{kInf, kInf}));
}

TEST(RefReduce, EmptyIntAndBoolReductionGivesTypeLimits) {
  auto mx = reduce(ReduceKind::Max, {0}, make_tensor<int8_t>({0}, {}));
  ASSERT_OK(mx);
  EXPECT_EQ(values<int8_t>(mx.out(0)), (std::vector<int8_t>{-128}));
  auto mn = reduce(ReduceKind::Min, {0}, make_tensor<uint32_t>({0}, {}));
  ASSERT_OK(mn);
  EXPECT_EQ(values<uint32_t>(mn.out(0)), (std::vector<uint32_t>{4294967295u}));
  auto i4 = reduce(ReduceKind::Max, {0}, make_tensor<int8_t>({0}, {}, ir::DType::I4));
  ASSERT_OK(i4);
  EXPECT_EQ(values<int8_t>(i4.out(0)), (std::vector<int8_t>{-8}));
  auto u4 = reduce(ReduceKind::Min, {0}, make_tensor<uint8_t>({0}, {}, ir::DType::U4));
  ASSERT_OK(u4);
  EXPECT_EQ(values<uint8_t>(u4.out(0)), (std::vector<uint8_t>{15}));
  auto any = reduce(ReduceKind::Max, {0}, bools({0}, {}));
  ASSERT_OK(any);
  EXPECT_EQ(values<bool>(any.out(0)), (std::vector<bool>{false}));
  auto all = reduce(ReduceKind::Min, {0}, bools({0}, {}));
  ASSERT_OK(all);
  EXPECT_EQ(values<bool>(all.out(0)), (std::vector<bool>{true}));
}

TEST(RefReduce, BoolMaxIsAnyMinIsAll) {
  const auto x = bools({2, 2}, {0, 1, 1, 1});
  auto any = reduce(ReduceKind::Max, {1}, x);
  ASSERT_OK(any);
  EXPECT_EQ(values<bool>(any.out(0)), (std::vector<bool>{true, true}));
  auto all = reduce(ReduceKind::Min, {1}, x);
  ASSERT_OK(all);
  EXPECT_EQ(values<bool>(all.out(0)), (std::vector<bool>{false, true}));
}

TEST(RefReduce, IntSumAndProdWrap) {
  auto i8 = reduce(ReduceKind::Sum, {0}, make_tensor<int8_t>({2}, {100, 100}));
  ASSERT_OK(i8);
  EXPECT_EQ(values<int8_t>(i8.out(0)), (std::vector<int8_t>{-56}));
  auto u8 = reduce(ReduceKind::Sum, {0}, make_tensor<uint8_t>({2}, {200, 100}));
  ASSERT_OK(u8);
  EXPECT_EQ(values<uint8_t>(u8.out(0)), (std::vector<uint8_t>{44}));
  auto i32 = reduce(ReduceKind::Sum, {0}, make_tensor<int32_t>({2}, {2147483647, 1}));
  ASSERT_OK(i32);
  EXPECT_EQ(values<int32_t>(i32.out(0)), (std::vector<int32_t>{-2147483647 - 1}));
  auto p32 = reduce(ReduceKind::Prod, {0}, make_tensor<int32_t>({2}, {65536, 65536}));
  ASSERT_OK(p32);
  EXPECT_EQ(values<int32_t>(p32.out(0)), (std::vector<int32_t>{0}));
  auto pu16 = reduce(ReduceKind::Prod, {0}, make_tensor<uint16_t>({2}, {65535, 65535}));
  ASSERT_OK(pu16);
  EXPECT_EQ(values<uint16_t>(pu16.out(0)), (std::vector<uint16_t>{1}));  // (-1)^2 mod 2^16
  auto i4 = reduce(ReduceKind::Sum, {0}, make_tensor<int8_t>({2}, {7, 1}, ir::DType::I4));
  ASSERT_OK(i4);
  EXPECT_EQ(values<int8_t>(i4.out(0)), (std::vector<int8_t>{-8}));
  auto u4 = reduce(ReduceKind::Sum, {0}, make_tensor<uint8_t>({2}, {15, 3}, ir::DType::U4));
  ASSERT_OK(u4);
  EXPECT_EQ(values<uint8_t>(u4.out(0)), (std::vector<uint8_t>{2}));
}

TEST(RefReduce, F32SumIsSequentialInF32) {
  // 1e8 + 1 == 1e8 in f32 (spacing 8), so the ones are lost; a wider or reordered sum gives 4.
  auto r = reduce(ReduceKind::Sum, {0}, make_tensor<float>({6}, {1e8f, 1, 1, 1, 1, -1e8f}));
  ASSERT_OK(r);
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{0}));
}

TEST(RefReduce, SumF16AccumulatesInF32) {
  // f16 2048 (0x6800) + 1 (0x3C00) + 1: in f16 each step rounds 2049 back to 2048; in f32 the sum
  // is 2050, which f16 holds (0x6801).
  auto r = reduce(ReduceKind::Sum, {0}, make_tensor<uint16_t>({3}, {0x6800, 0x3C00, 0x3C00}, ir::DType::F16));
  ASSERT_OK(r);
  EXPECT_EQ(values<uint16_t>(r.out(0)), (std::vector<uint16_t>{0x6801}));
}

TEST(RefReduce, MaxBF16) {
  // bf16: 1.0 = 0x3F80, -2.0 = 0xC000, 3.0 = 0x4040
  auto r =
      reduce(ReduceKind::Max, {0}, make_tensor<uint16_t>({3}, {0x3F80, 0x4040, 0xC000}, ir::DType::BF16));
  ASSERT_OK(r);
  EXPECT_EQ(values<uint16_t>(r.out(0)), (std::vector<uint16_t>{0x4040}));
}

TEST(RefReduce, F8E4M3FNSumAndMax) {
  // f8e4m3fn: 1.0 = 0x38, 2.0 = 0x40, -1.0 = 0xB8, 3.0 = 0x44; 2 + 1 + -1 + 1 = 3
  const auto x = make_tensor<uint8_t>({4}, {0x40, 0x38, 0xB8, 0x38}, ir::DType::F8E4M3FN);
  auto s = reduce(ReduceKind::Sum, {0}, x);
  ASSERT_OK(s);
  EXPECT_EQ(values<uint8_t>(s.out(0)), (std::vector<uint8_t>{0x44}));
  auto m = reduce(ReduceKind::Max, {0}, x);
  ASSERT_OK(m);
  EXPECT_EQ(values<uint8_t>(m.out(0)), (std::vector<uint8_t>{0x40}));
}

TEST(RefReduce, MaxMinPropagateNaN) {
  const auto x = make_tensor<float>({3}, {1, kNaN, 3});
  auto mx = reduce(ReduceKind::Max, {0}, x);
  ASSERT_OK(mx);
  EXPECT_TRUE(std::isnan(values<float>(mx.out(0))[0]));
  auto mn = reduce(ReduceKind::Min, {0}, x);
  ASSERT_OK(mn);
  EXPECT_TRUE(std::isnan(values<float>(mn.out(0))[0]));
  auto s = reduce(ReduceKind::Sum, {0}, make_tensor<float>({2}, {kInf, -kInf}));
  ASSERT_OK(s);
  EXPECT_TRUE(std::isnan(values<float>(s.out(0))[0]));
}

TEST(RefReduce, MaxOrdersNegativeZeroBelowPositiveZero) {
  for (auto data : {std::vector<float>{-0.0f, 0.0f}, std::vector<float>{0.0f, -0.0f}}) {
    auto mx = reduce(ReduceKind::Max, {0}, make_tensor<float>({2}, data));
    ASSERT_OK(mx);
    EXPECT_FALSE(std::signbit(values<float>(mx.out(0))[0]));
    auto mn = reduce(ReduceKind::Min, {0}, make_tensor<float>({2}, data));
    ASSERT_OK(mn);
    EXPECT_TRUE(std::signbit(values<float>(mn.out(0))[0]));
  }
}

TEST(RefReduce, I64MaxIsExact) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  auto r = reduce(ReduceKind::Max, {0}, make_tensor<int64_t>({2}, {big, big - 1}));
  ASSERT_OK(r);
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{big}));
}

// ---- arg_reduce ----------------------------------------------------------------------------
TEST(RefArgReduce, FirstOrLastExtreme) {
  const auto x = make_tensor<float>({2, 3}, {3, 1, 3, 0, 5, 5});
  auto mx = arg_reduce(ir::ArgKind::Max, 1, false, x);
  ASSERT_OK(mx);
  EXPECT_EQ(mx.out(0).shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(values<int64_t>(mx.out(0)), (std::vector<int64_t>{0, 1}));
  auto mx_last = arg_reduce(ir::ArgKind::Max, 1, true, x);
  ASSERT_OK(mx_last);
  EXPECT_EQ(values<int64_t>(mx_last.out(0)), (std::vector<int64_t>{2, 2}));
  auto mn = arg_reduce(ir::ArgKind::Min, 1, false, x);
  ASSERT_OK(mn);
  EXPECT_EQ(values<int64_t>(mn.out(0)), (std::vector<int64_t>{1, 0}));
  auto col = arg_reduce(ir::ArgKind::Min, 0, false, x);
  ASSERT_OK(col);
  EXPECT_EQ(values<int64_t>(col.out(0)), (std::vector<int64_t>{1, 0, 0}));
}

TEST(RefArgReduce, NaNIsTheExtremeForBothKinds) {
  const auto x = make_tensor<float>({4}, {1, kNaN, 5, kNaN});
  for (ir::ArgKind kind : {ir::ArgKind::Max, ir::ArgKind::Min}) {
    auto first = arg_reduce(kind, 0, false, x);
    ASSERT_OK(first);
    EXPECT_EQ(values<int64_t>(first.out(0)), (std::vector<int64_t>{1}));
    auto last = arg_reduce(kind, 0, true, x);
    ASSERT_OK(last);
    EXPECT_EQ(values<int64_t>(last.out(0)), (std::vector<int64_t>{3}));
  }
}

TEST(RefArgReduce, ZerosOfBothSignsTie) {
  auto r = arg_reduce(ir::ArgKind::Max, 0, false, make_tensor<double>({2}, {-0.0, 0.0}));
  ASSERT_OK(r);
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{0}));
}

TEST(RefArgReduce, IntsAndBoolsExactly) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  auto r = arg_reduce(ir::ArgKind::Max, 0, false, make_tensor<int64_t>({3}, {big - 1, big, big - 2}));
  ASSERT_OK(r);
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{1}));
  auto b = arg_reduce(ir::ArgKind::Max, 0, false, bools({3}, {0, 1, 1}));
  ASSERT_OK(b);
  EXPECT_EQ(values<int64_t>(b.out(0)), (std::vector<int64_t>{1}));
  auto h = arg_reduce(ir::ArgKind::Min, 0, false,
                      make_tensor<uint16_t>({3}, {0x3C00, 0xC000, 0x4000}, ir::DType::F16));  // 1, -2, 2
  ASSERT_OK(h);
  EXPECT_EQ(values<int64_t>(h.out(0)), (std::vector<int64_t>{1}));
}

TEST(RefArgReduce, EmptyOtherAxisGivesEmptyResult) {
  auto r = arg_reduce(ir::ArgKind::Max, 1, false, make_tensor<float>({0, 3}, {}));
  ASSERT_OK(r);
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{0}));
}

TEST(RefArgReduce, R1EmptyAxisIsError) {
  auto r = arg_reduce(ir::ArgKind::Max, 1, false, make_tensor<float>({2, 0}, {}));
  ASSERT_FALSE(r.status.is_ok());
  EXPECT_EQ(r.status.code(), ErrorCode::kRuntimeError);
  EXPECT_EQ(r.status.label(), "arg_reduce.R1");
}

// ---- scan ----------------------------------------------------------------------------------
TEST(RefScan, CumSumVariants) {
  // ONNX CumSum's documented examples.
  const auto x = make_tensor<double>({4}, {1, 2, 3, 4});
  const std::vector<std::vector<double>> want = {{1, 3, 6, 10}, {0, 1, 3, 6}, {10, 9, 7, 4}, {9, 7, 4, 0}};
  int c = 0;
  for (bool reverse : {false, true})
    for (bool exclusive : {false, true}) {
      auto r = scan(ReduceKind::Sum, 0, exclusive, reverse, x);
      ASSERT_OK(r);
      EXPECT_EQ(values<double>(r.out(0)), want[c]) << "exclusive " << exclusive << " reverse " << reverse;
      ++c;
    }
}

TEST(RefScan, AlongEachAxis) {
  const auto x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto a0 = scan(ReduceKind::Sum, 0, false, false, x);
  ASSERT_OK(a0);
  EXPECT_EQ(values<float>(a0.out(0)), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  auto a1 = scan(ReduceKind::Sum, 1, false, false, x);
  ASSERT_OK(a1);
  EXPECT_EQ(values<float>(a1.out(0)), (std::vector<float>{1, 3, 6, 4, 9, 15}));
}

TEST(RefScan, CumProd) {
  const auto x = make_tensor<int64_t>({4}, {1, 2, 3, 4});
  auto r = scan(ReduceKind::Prod, 0, false, false, x);
  ASSERT_OK(r);
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{1, 2, 6, 24}));
  auto e = scan(ReduceKind::Prod, 0, true, true, x);
  ASSERT_OK(e);
  EXPECT_EQ(values<int64_t>(e.out(0)), (std::vector<int64_t>{24, 12, 4, 1}));
}

TEST(RefScan, IntsWrap) {
  auto r = scan(ReduceKind::Sum, 0, false, false, make_tensor<int8_t>({3}, {100, 100, 100}));
  ASSERT_OK(r);
  EXPECT_EQ(values<int8_t>(r.out(0)), (std::vector<int8_t>{100, -56, 44}));
  auto u4 = scan(ReduceKind::Prod, 0, false, false, make_tensor<uint8_t>({3}, {3, 7, 2}, ir::DType::U4));
  ASSERT_OK(u4);
  EXPECT_EQ(values<uint8_t>(u4.out(0)), (std::vector<uint8_t>{3, 5, 10}));  // 21 mod 16 = 5, 42 mod 16 = 10
}

TEST(RefScan, SignedZerosAndNaN) {
  auto z = scan(ReduceKind::Sum, 0, false, false, make_tensor<float>({1}, {-0.0f}));
  ASSERT_OK(z);
  EXPECT_TRUE(std::signbit(values<float>(z.out(0))[0]));  // the first element is taken as is
  auto ez = scan(ReduceKind::Sum, 0, true, false, make_tensor<float>({1}, {-0.0f}));
  ASSERT_OK(ez);
  EXPECT_FALSE(std::signbit(values<float>(ez.out(0))[0]));  // the identity +0
  auto n = scan(ReduceKind::Sum, 0, false, false, make_tensor<float>({3}, {1, kNaN, 2}));
  ASSERT_OK(n);
  const auto v = values<float>(n.out(0));
  EXPECT_EQ(v[0], 1);
  EXPECT_TRUE(std::isnan(v[1]) && std::isnan(v[2]));
}

TEST(RefScan, EmptyTensors) {
  auto a = scan(ReduceKind::Sum, 1, false, false, make_tensor<float>({2, 0}, {}));
  ASSERT_OK(a);
  EXPECT_EQ(a.out(0).shape, (std::vector<int64_t>{2, 0}));
  auto b = scan(ReduceKind::Prod, 0, true, true, make_tensor<int32_t>({0, 3}, {}));
  ASSERT_OK(b);
  EXPECT_EQ(b.out(0).numel(), 0);
}

TEST(RefScan, F16AccumulatesInF32) {
  // 2048, 1, 1 in f16: running f32 sums 2048, 2049 (rounds to f16 2048, ties to even), 2050.
  auto r = scan(ReduceKind::Sum, 0, false, false,
                make_tensor<uint16_t>({3}, {0x6800, 0x3C00, 0x3C00}, ir::DType::F16));
  ASSERT_OK(r);
  EXPECT_EQ(values<uint16_t>(r.out(0)), (std::vector<uint16_t>{0x6800, 0x6800, 0x6801}));
}

}  // namespace
}  // namespace plumb::rt
