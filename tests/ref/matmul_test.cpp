// ref matmul (spec/ops/matmul.md): values, accumulation type and order, integer wrap, empty dims.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/cpu/ref/float_formats.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

KernelResult matmul(Tensor lhs, Tensor rhs, ir::DType to) {
  return KernelRun(ir::Op::MatMul).attr("to", to).input(std::move(lhs)).input(std::move(rhs)).run();
}

Tensor f16_tensor(std::vector<int64_t> shape, const std::vector<double>& v) {
  std::vector<uint16_t> bits;
  for (double x : v) bits.push_back(to_f16(x).bits);
  return make_tensor<uint16_t>(std::move(shape), bits, ir::DType::F16);
}

std::vector<double> f16_values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(to_f64(t.as<f16>()[i]));
  return out;
}

TEST(RefMatMul, F32TwoByTwo) {
  auto r = matmul(make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                  make_tensor<float>({3, 2}, {7, 8, 9, 10, 11, 12}), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  // [1*7+2*9+3*11, 1*8+2*10+3*12; 4*7+5*9+6*11, 4*8+5*10+6*12]
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{58, 64, 139, 154}));
}

TEST(RefMatMul, BatchedF64) {
  auto r = matmul(make_tensor<double>({2, 1, 2}, {1, 2, 3, 4}), make_tensor<double>({2, 2, 1}, {5, 6, 7, 8}),
                  ir::DType::F64);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<double>(r.out(0)), (std::vector<double>{17, 53}));  // 1*5+2*6, 3*7+4*8
}

TEST(RefMatMul, EmptyKGivesZero) {
  auto r = matmul(make_tensor<float>({2, 0}, {}), make_tensor<float>({0, 3}, {}), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>(6, 0.0f)));
  for (float x : values<float>(r.out(0))) EXPECT_FALSE(std::signbit(x));
}

TEST(RefMatMul, EmptyResult) {
  auto r =
      matmul(make_tensor<float>({0, 2}, {}), make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{0, 3}));
}

TEST(RefMatMul, SumStartsAtPositiveZero) {
  auto r = matmul(make_tensor<float>({1, 2}, {-1, -2}), make_tensor<float>({2, 1}, {0, 0}), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0))[0], 0.0f);
  EXPECT_FALSE(std::signbit(values<float>(r.out(0))[0]));  // +0 + -0 + -0 = +0
}

TEST(RefMatMul, SumIsSequentialInAscendingK) {
  // f32: ((((0 + 1e8) + 1) + -1e8) + 1) = 1; pairwise or exact summation would give 0 or 2.
  auto r = matmul(make_tensor<float>({1, 4}, {1e8f, 1, -1e8f, 1}), make_tensor<float>({4, 1}, {1, 1, 1, 1}),
                  ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0))[0], 1.0f);
}

TEST(RefMatMul, ProductIsRoundedBeforeTheSum) {
  // x*x = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 in f32, so c + x*x = 0; a fused multiply-add
  // would give 2^-24.
  const float x = 1.0f + std::ldexp(1.0f, -12);
  const float c = -(1.0f + std::ldexp(1.0f, -11));
  auto r = matmul(make_tensor<float>({1, 2}, {1, x}), make_tensor<float>({2, 1}, {c, x}), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0))[0], 0.0f);
}

TEST(RefMatMul, NanAndInfPropagate) {
  auto r = matmul(make_tensor<float>({2, 2}, {INFINITY, 1, 1, 1}), make_tensor<float>({2, 1}, {0, 2}),
                  ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_TRUE(std::isnan(values<float>(r.out(0))[0]));  // inf * 0
  EXPECT_EQ(values<float>(r.out(0))[1], 2.0f);
}

TEST(RefMatMul, F16AccumulatesInF32) {
  // In f16, 2048 + 1 rounds back to 2048 (ties to even), so an f16 accumulator gives 2048; the f32
  // accumulator holds 2050, which f16 represents exactly.
  auto r = matmul(f16_tensor({1, 3}, {2048, 1, 1}), f16_tensor({3, 1}, {1, 1, 1}), ir::DType::F16);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(f16_values(r.out(0)), (std::vector<double>{2050}));
}

TEST(RefMatMul, F16ToF32KeepsTheAccumulator) {
  // 2048 + 1 = 2049 in f32, not representable in f16: only a to = f32 result keeps it.
  auto r = matmul(f16_tensor({1, 2}, {2048, 1}), f16_tensor({2, 1}, {1, 1}), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{2049}));
}

TEST(RefMatMul, F8InputsToF32) {
  // f8e4m3fn 0x3C = 1.5, 0x40 = 2; f8e5m2 0x3C = 1, 0xC4 = -4.
  auto r = matmul(make_tensor<uint8_t>({1, 2}, {0x3C, 0x40}, ir::DType::F8E4M3FN),
                  make_tensor<uint8_t>({2, 1}, {0x3C, 0xC4}, ir::DType::F8E5M2), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{-6.5f}));  // 1.5*1 + 2*-4
}

TEST(RefMatMul, U8TimesI8ToI32) {
  auto r = matmul(make_tensor<uint8_t>({1, 2}, {255, 200}), make_tensor<int8_t>({2, 2}, {-128, 1, -128, -1}),
                  ir::DType::I32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{255 * -128 + 200 * -128, 255 - 200}));
}

TEST(RefMatMul, I32WrapsTwosComplement) {
  // 65536 * 32768 = 2^31 wraps to INT32_MIN; + 2^31 again wraps to 0.
  auto r = matmul(make_tensor<int32_t>({2, 2}, {65536, 0, 65536, 65536}),
                  make_tensor<int32_t>({2, 1}, {32768, 32768}), ir::DType::I32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{INT32_MIN, 0}));
}

TEST(RefMatMul, I32InputsToI64DoNotWrap) {
  auto r = matmul(make_tensor<int32_t>({1, 2}, {65536, 65536}), make_tensor<int32_t>({2, 1}, {32768, 32768}),
                  ir::DType::I64);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{int64_t{1} << 32}));
}

TEST(RefMatMul, I64AndU64Wrap) {
  auto r =
      matmul(make_tensor<int64_t>({1, 1}, {INT64_MAX}), make_tensor<int64_t>({1, 1}, {2}), ir::DType::I64);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{-2}));
  auto u = matmul(make_tensor<uint64_t>({1, 2}, {UINT64_MAX, 3}), make_tensor<uint64_t>({2, 1}, {1, 1}),
                  ir::DType::U64);
  ASSERT_TRUE(u.status.is_ok()) << u.status.to_string();
  EXPECT_EQ(values<uint64_t>(u.out(0)), (std::vector<uint64_t>{2}));
}

TEST(RefMatMul, U32ResultWrapsModulo32Bits) {
  auto r = matmul(make_tensor<uint32_t>({1, 1}, {0x80000000u}), make_tensor<uint32_t>({1, 1}, {3}),
                  ir::DType::U32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint32_t>(r.out(0)), (std::vector<uint32_t>{0x80000000u}));
}

TEST(RefMatMul, LargeMatchesNaiveAcrossColumnBlocks) {
  // Integers small enough that every f32 sum is exact, so the blocked loop must match exactly.
  const int64_t m = 7, k = 1100, n = 150;
  std::vector<float> a(m * k), b(k * n);
  for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 5) % 13 - 6);
  auto r = matmul(make_tensor<float>({m, k}, a), make_tensor<float>({k, n}, b), ir::DType::F32);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  const std::vector<float> got = values<float>(r.out(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t want = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        want += static_cast<int64_t>(a[i * k + kk]) * static_cast<int64_t>(b[kk * n + j]);
      ASSERT_EQ(got[i * n + j], static_cast<float>(want)) << i << "," << j;
    }
}

}  // namespace
}  // namespace plumb::rt
