// Reference kernels of spec/ops/{unary,binary,compare,select}.md. Expected values are computed by
// hand from the spec (IEEE rules, two's complement wrapping), not taken from the implementation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fstream>
#include <sstream>

#include "ir/text.h"
#include "kernel_test_util.h"
#include "runtime/session.h"
#include "tests/ref/spec_example.h"

namespace plumb::rt {
namespace {

template <typename Kind>
ir::Attr kind(Kind code) {
  return ir::Attr{"kind", ir::EnumValue{code}};
}

template <typename T>
testing::KernelResult unary(ir::UnaryKind k, std::vector<int64_t> shape, std::vector<T> x,
                            ir::DType dt = testing::dtype_of<T>()) {
  return KernelRun(ir::Op::Unary).attr("kind", ir::EnumValue{k}).input(make_tensor<T>(shape, x, dt)).run();
}
template <typename T>
testing::KernelResult binary(ir::BinaryKind k, std::vector<T> a, std::vector<T> b,
                             ir::DType dt = testing::dtype_of<T>()) {
  const std::vector<int64_t> shape{static_cast<int64_t>(a.size())};
  return KernelRun(ir::Op::Binary)
      .attr("kind", ir::EnumValue{k})
      .input(make_tensor<T>(shape, a, dt))
      .input(make_tensor<T>(shape, b, dt))
      .run();
}

// Bitwise equality for floats (distinguishes -0 and +0, accepts NaN == NaN).
template <typename F>
void expect_same_floats(const std::vector<F>& got, const std::vector<F>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of element " << i;
    }
  }
}

// ---- unary -----------------------------------------------------------------------------------

TEST(RefUnary, NegAbsSignF32SpecialValues) {
  const std::vector<float> x{-0.0f, 0.0f, kInfF, -2.5f, kNaNF, 1e-45f};
  auto neg = unary<float>(ir::UnaryKind::Neg, {6}, x);
  ASSERT_TRUE(neg.status.is_ok()) << neg.status.to_string();
  expect_same_floats(values<float>(neg.out(0)), {0.0f, -0.0f, -kInfF, 2.5f, kNaNF, -1e-45f});
  auto abs = unary<float>(ir::UnaryKind::Abs, {6}, x);
  expect_same_floats(values<float>(abs.out(0)), {0.0f, 0.0f, kInfF, 2.5f, kNaNF, 1e-45f});
  auto sign = unary<float>(ir::UnaryKind::Sign, {6}, x);
  expect_same_floats(values<float>(sign.out(0)), {0.0f, 0.0f, 1.0f, -1.0f, kNaNF, 1.0f});
}

TEST(RefUnary, NegAbsIntWrap) {
  auto neg = unary<int8_t>(ir::UnaryKind::Neg, {3}, {-128, 127, 0});
  ASSERT_TRUE(neg.status.is_ok());
  EXPECT_EQ(values<int8_t>(neg.out(0)), (std::vector<int8_t>{-128, -127, 0}));
  auto abs = unary<int64_t>(ir::UnaryKind::Abs, {2}, {INT64_MIN, -5});
  EXPECT_EQ(values<int64_t>(abs.out(0)), (std::vector<int64_t>{INT64_MIN, 5}));
  // i4 lives in one byte, sign-extended: -(-8) wraps to -8 in 4 bits
  auto neg4 = unary<int8_t>(ir::UnaryKind::Neg, {3}, {-8, 7, -1}, ir::DType::I4);
  EXPECT_EQ(values<int8_t>(neg4.out(0)), (std::vector<int8_t>{-8, -7, 1}));
  auto sign = unary<int32_t>(ir::UnaryKind::Sign, {3}, {-7, 0, 9});
  EXPECT_EQ(values<int32_t>(sign.out(0)), (std::vector<int32_t>{-1, 0, 1}));
  auto signu = unary<uint16_t>(ir::UnaryKind::Sign, {2}, {0, 65535});
  EXPECT_EQ(values<uint16_t>(signu.out(0)), (std::vector<uint16_t>{0, 1}));
}

TEST(RefUnary, NotBoolAndInts) {
  auto b = unary<bool>(ir::UnaryKind::Not, {2}, {true, false});
  ASSERT_TRUE(b.status.is_ok());
  EXPECT_EQ(values<bool>(b.out(0)), (std::vector<bool>{false, true}));
  auto u = unary<uint8_t>(ir::UnaryKind::Not, {2}, {0x0F, 0xFF});
  EXPECT_EQ(values<uint8_t>(u.out(0)), (std::vector<uint8_t>{0xF0, 0x00}));
  auto i = unary<int32_t>(ir::UnaryKind::Not, {1}, {0});
  EXPECT_EQ(values<int32_t>(i.out(0)), (std::vector<int32_t>{-1}));
  auto u4 = unary<uint8_t>(ir::UnaryKind::Not, {2}, {0x3, 0x0}, ir::DType::U4);
  EXPECT_EQ(values<uint8_t>(u4.out(0)), (std::vector<uint8_t>{0xC, 0xF}));
  auto u2 = unary<uint8_t>(ir::UnaryKind::Not, {1}, {1}, ir::DType::U2);
  EXPECT_EQ(values<uint8_t>(u2.out(0)), (std::vector<uint8_t>{2}));
}

TEST(RefUnary, RoundHalfToEvenFloorCeil) {
  const std::vector<double> x{0.5, 1.5, 2.5, -0.5, -2.5, 2.4999999999999996, -0.0, kInf, kNaN};
  auto r = unary<double>(ir::UnaryKind::Round, {9}, x);
  ASSERT_TRUE(r.status.is_ok());
  expect_same_floats(values<double>(r.out(0)), {0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -0.0, kInf, kNaN});
  auto f = unary<double>(ir::UnaryKind::Floor, {3}, {-0.5, 1.5, -0.0});
  expect_same_floats(values<double>(f.out(0)), {-1.0, 1.0, -0.0});
  auto c = unary<double>(ir::UnaryKind::Ceil, {3}, {-0.5, 1.5, 0.0});
  expect_same_floats(values<double>(c.out(0)), {-0.0, 2.0, 0.0});
}

TEST(RefUnary, SqrtExpLogSpecialValues) {
  auto s = unary<float>(ir::UnaryKind::Sqrt, {4}, {4.0f, -1.0f, -0.0f, kInfF});
  expect_same_floats(values<float>(s.out(0)), {2.0f, kNaNF, -0.0f, kInfF});
  auto e = unary<float>(ir::UnaryKind::Exp, {3}, {0.0f, -kInfF, 1000.0f});
  expect_same_floats(values<float>(e.out(0)), {1.0f, 0.0f, kInfF});
  auto l = unary<double>(ir::UnaryKind::Log, {3}, {1.0, 0.0, -1.0});
  expect_same_floats(values<double>(l.out(0)), {0.0, -kInf, kNaN});
}

TEST(RefUnary, TranscendentalsWithinUlp4) {
  const std::vector<double> x{0.3, -0.7};
  const ir::UnaryKind kinds[] = {ir::UnaryKind::Sin,   ir::UnaryKind::Cos,   ir::UnaryKind::Tan,
                                 ir::UnaryKind::Asin,  ir::UnaryKind::Acos,  ir::UnaryKind::Atan,
                                 ir::UnaryKind::Sinh,  ir::UnaryKind::Cosh,  ir::UnaryKind::Tanh,
                                 ir::UnaryKind::Asinh, ir::UnaryKind::Atanh, ir::UnaryKind::Erf};
  // Reference values (to 17 digits) from the series/definitions, independent of the kernel.
  const double want[][2] = {
      {0.29552020666133955, -0.64421768723769102}, {0.95533648912560598, 0.76484218728448838},
      {0.30933624960962325, -0.84228838046307941}, {0.30469265401539752, -0.77539749661075297},
      {1.2661036727794992, 2.3461938234056494},    {0.29145679447786710, -0.61072596438920856},
      {0.30452029344714261, -0.75858370183953350}, {1.0453385141288605, 1.2551690056309430},
      {0.29131261245159090, -0.60436777711716349}, {0.29567304756342244, -0.65266656608235574},
      {0.30951960420311175, -0.86730052769405319}, {0.32862675945912745, -0.67780119383741847}};
  for (size_t k = 0; k < std::size(kinds); ++k) {
    auto r = unary<double>(kinds[k], {2}, x);
    ASSERT_TRUE(r.status.is_ok());
    for (int i = 0; i < 2; ++i)
      EXPECT_NEAR(values<double>(r.out(0))[i], want[k][i], 4 * 2.220446049250313e-16 * std::fabs(want[k][i]))
          << "kind " << ir::enum_name(kinds[k]);
  }
  auto ac = unary<double>(ir::UnaryKind::Acosh, {2}, {1.0, 0.5});
  expect_same_floats(values<double>(ac.out(0)), {0.0, kNaN});
}

TEST(RefUnary, F16ComputedInF32RoundedOnce) {
  // sqrt(2) in f16: 1.4140625 (0x3DA8); -0 stays -0; f16 inf stays inf
  auto r = unary<f16>(ir::UnaryKind::Sqrt, {3}, {f16{0x4000}, f16{0x8000}, f16{0x7C00}}, ir::DType::F16);
  ASSERT_TRUE(r.status.is_ok());
  auto y = values<f16>(r.out(0));
  EXPECT_EQ(y[0].bits, 0x3DA8);
  EXPECT_EQ(y[1].bits, 0x8000);
  EXPECT_EQ(y[2].bits, 0x7C00);
  auto n = unary<bf16>(ir::UnaryKind::Neg, {1}, {bf16{0x3F80}}, ir::DType::BF16);
  EXPECT_EQ(values<bf16>(n.out(0))[0].bits, 0xBF80);
  auto a = unary<f8e4m3fn>(ir::UnaryKind::Abs, {2}, {f8e4m3fn{0xFE}, f8e4m3fn{0xFF}}, ir::DType::F8E4M3FN);
  EXPECT_EQ(values<f8e4m3fn>(a.out(0))[0].bits, 0x7E);
  EXPECT_TRUE(std::isnan(to_f64(values<f8e4m3fn>(a.out(0))[1])));
}

TEST(RefUnary, RankZeroAndEmpty) {
  auto r0 = unary<float>(ir::UnaryKind::Neg, {}, {3.0f});
  ASSERT_TRUE(r0.status.is_ok());
  EXPECT_EQ(r0.out(0).shape, std::vector<int64_t>{});
  EXPECT_EQ(values<float>(r0.out(0)), (std::vector<float>{-3.0f}));
  auto e = unary<float>(ir::UnaryKind::Exp, {2, 0}, {});
  ASSERT_TRUE(e.status.is_ok());
  EXPECT_EQ(e.out(0).shape, (std::vector<int64_t>{2, 0}));
}

// ---- binary ----------------------------------------------------------------------------------

TEST(RefBinary, AddSubMulDivF32Ieee) {
  auto add = binary<float>(ir::BinaryKind::Add, {1, kInfF, -0.0f, 3e38f}, {2, -kInfF, -0.0f, 3e38f});
  ASSERT_TRUE(add.status.is_ok());
  expect_same_floats(values<float>(add.out(0)), {3, kNaNF, -0.0f, kInfF});
  auto sub = binary<float>(ir::BinaryKind::Sub, {0.0f, 1}, {0.0f, kNaNF});
  expect_same_floats(values<float>(sub.out(0)), {0.0f, kNaNF});
  auto mul = binary<float>(ir::BinaryKind::Mul, {-0.0f, 0.0f}, {5, kInfF});
  expect_same_floats(values<float>(mul.out(0)), {-0.0f, kNaNF});
  auto div = binary<float>(ir::BinaryKind::Div, {1, -1, 0, 1}, {0.0f, 0.0f, 0.0f, -0.0f});
  expect_same_floats(values<float>(div.out(0)), {kInfF, -kInfF, kNaNF, -kInfF});
}

TEST(RefBinary, IntArithmeticWraps) {
  auto add = binary<int32_t>(ir::BinaryKind::Add, {INT32_MAX, -5}, {1, 3});
  ASSERT_TRUE(add.status.is_ok());
  EXPECT_EQ(values<int32_t>(add.out(0)), (std::vector<int32_t>{INT32_MIN, -2}));
  auto sub = binary<uint8_t>(ir::BinaryKind::Sub, {0, 10}, {1, 3});
  EXPECT_EQ(values<uint8_t>(sub.out(0)), (std::vector<uint8_t>{255, 7}));
  auto mul = binary<int64_t>(ir::BinaryKind::Mul, {INT64_MAX, 3}, {2, -4});
  EXPECT_EQ(values<int64_t>(mul.out(0)), (std::vector<int64_t>{-2, -12}));
  auto mul16 = binary<uint16_t>(ir::BinaryKind::Mul, {65535}, {65535});
  EXPECT_EQ(values<uint16_t>(mul16.out(0)), (std::vector<uint16_t>{1}));
  auto add4 = binary<int8_t>(ir::BinaryKind::Add, {7, -8}, {1, -1}, ir::DType::I4);
  EXPECT_EQ(values<int8_t>(add4.out(0)), (std::vector<int8_t>{-8, 7}));
  auto addu2 = binary<uint8_t>(ir::BinaryKind::Add, {3}, {2}, ir::DType::U2);
  EXPECT_EQ(values<uint8_t>(addu2.out(0)), (std::vector<uint8_t>{1}));
  auto muli2 = binary<int8_t>(ir::BinaryKind::Mul, {-2}, {-1}, ir::DType::I2);
  EXPECT_EQ(values<int8_t>(muli2.out(0)), (std::vector<int8_t>{-2}));
}

TEST(RefBinary, IntDivRemTruncateAndMinOverMinusOne) {
  auto div = binary<int32_t>(ir::BinaryKind::Div, {7, -7, 7, -7, INT32_MIN}, {2, 2, -2, -2, -1});
  ASSERT_TRUE(div.status.is_ok());
  EXPECT_EQ(values<int32_t>(div.out(0)), (std::vector<int32_t>{3, -3, -3, 3, INT32_MIN}));
  auto rem = binary<int32_t>(ir::BinaryKind::Rem, {7, -7, 7, -7, INT32_MIN}, {2, 2, -2, -2, -1});
  EXPECT_EQ(values<int32_t>(rem.out(0)), (std::vector<int32_t>{1, -1, 1, -1, 0}));
  auto div8 = binary<int8_t>(ir::BinaryKind::Div, {-128}, {-1});
  EXPECT_EQ(values<int8_t>(div8.out(0)), (std::vector<int8_t>{-128}));
  auto div4 = binary<int8_t>(ir::BinaryKind::Div, {-8}, {-1}, ir::DType::I4);
  EXPECT_EQ(values<int8_t>(div4.out(0)), (std::vector<int8_t>{-8}));
  auto divu = binary<uint64_t>(ir::BinaryKind::Div, {UINT64_MAX}, {2});
  EXPECT_EQ(values<uint64_t>(divu.out(0)), (std::vector<uint64_t>{UINT64_MAX / 2}));
}

TEST(RefBinary, R1IntegerDivisionByZeroIsError) {
  auto div = binary<int32_t>(ir::BinaryKind::Div, {1, 2}, {1, 0});
  EXPECT_EQ(div.status.code(), ErrorCode::kRuntimeError);
  EXPECT_EQ(div.status.label(), "binary.R1");
  auto rem = binary<uint8_t>(ir::BinaryKind::Rem, {5}, {0});
  EXPECT_EQ(rem.status.label(), "binary.R1");
}

TEST(RefBinary, FloatRemIsFmod) {
  auto rem =
      binary<double>(ir::BinaryKind::Rem, {5.5, -5.5, 1.0, kInf, -0.0, 3.0}, {2.0, 2.0, 0.0, 2.0, 1.0, kInf});
  ASSERT_TRUE(rem.status.is_ok());
  expect_same_floats(values<double>(rem.out(0)), {1.5, -1.5, kNaN, kNaN, -0.0, 3.0});
}

TEST(RefBinary, PowFloatAndInt) {
  auto pf = binary<double>(ir::BinaryKind::Pow, {2, -8, kNaN, 1, 0, -2}, {10, 1.0 / 3, 0, kNaN, -1, 0.5});
  ASSERT_TRUE(pf.status.is_ok());
  expect_same_floats(values<double>(pf.out(0)), {1024, kNaN, 1, 1, kInf, kNaN});
  auto pi = binary<int32_t>(ir::BinaryKind::Pow, {3, -2, 2, 0, 1, -1, -1}, {4, 3, 31, 0, -5, -3, -4});
  ASSERT_TRUE(pi.status.is_ok()) << pi.status.to_string();
  EXPECT_EQ(values<int32_t>(pi.out(0)), (std::vector<int32_t>{81, -8, INT32_MIN, 1, 1, -1, 1}));
  auto pw = binary<uint8_t>(ir::BinaryKind::Pow, {3}, {5});  // 243
  EXPECT_EQ(values<uint8_t>(pw.out(0)), (std::vector<uint8_t>{243}));
  auto pw2 = binary<uint8_t>(ir::BinaryKind::Pow, {2}, {9});  // 512 wraps to 0
  EXPECT_EQ(values<uint8_t>(pw2.out(0)), (std::vector<uint8_t>{0}));
}

TEST(RefBinary, R2IntegerPowNegativeExponentIsError) {
  auto p = binary<int64_t>(ir::BinaryKind::Pow, {2}, {-1});
  EXPECT_EQ(p.status.label(), "binary.R2");
  auto z = binary<int8_t>(ir::BinaryKind::Pow, {0}, {-2});
  EXPECT_EQ(z.status.label(), "binary.R2");
}

TEST(RefBinary, MaxMinNaNAndSignedZero) {
  auto mx = binary<float>(ir::BinaryKind::Max, {-0.0f, 0.0f, kNaNF, 1, -kInfF}, {0.0f, -0.0f, 1, kNaNF, 3});
  ASSERT_TRUE(mx.status.is_ok());
  expect_same_floats(values<float>(mx.out(0)), {0.0f, 0.0f, kNaNF, kNaNF, 3});
  auto mn = binary<float>(ir::BinaryKind::Min, {-0.0f, 0.0f, kNaNF, 1, -kInfF}, {0.0f, -0.0f, 1, kNaNF, 3});
  expect_same_floats(values<float>(mn.out(0)), {-0.0f, -0.0f, kNaNF, kNaNF, -kInfF});
  auto mi = binary<int16_t>(ir::BinaryKind::Max, {-3, 5}, {2, -9});
  EXPECT_EQ(values<int16_t>(mi.out(0)), (std::vector<int16_t>{2, 5}));
  auto mu = binary<uint32_t>(ir::BinaryKind::Min, {4000000000u, 5}, {2, 9});
  EXPECT_EQ(values<uint32_t>(mu.out(0)), (std::vector<uint32_t>{2, 5}));
}

TEST(RefBinary, LogicalAndBitwise) {
  auto a = binary<bool>(ir::BinaryKind::And, {true, true, false}, {true, false, false});
  ASSERT_TRUE(a.status.is_ok());
  EXPECT_EQ(values<bool>(a.out(0)), (std::vector<bool>{true, false, false}));
  auto o = binary<bool>(ir::BinaryKind::Or, {true, false}, {false, false});
  EXPECT_EQ(values<bool>(o.out(0)), (std::vector<bool>{true, false}));
  auto x = binary<bool>(ir::BinaryKind::Xor, {true, true}, {true, false});
  EXPECT_EQ(values<bool>(x.out(0)), (std::vector<bool>{false, true}));
  auto ai = binary<int32_t>(ir::BinaryKind::And, {-1, 0x0F0F}, {0x1234, 0x00FF});
  EXPECT_EQ(values<int32_t>(ai.out(0)), (std::vector<int32_t>{0x1234, 0x000F}));
  auto oi = binary<uint64_t>(ir::BinaryKind::Or, {0xF0}, {0x0F});
  EXPECT_EQ(values<uint64_t>(oi.out(0)), (std::vector<uint64_t>{0xFF}));
  auto xi = binary<int8_t>(ir::BinaryKind::Xor, {-1}, {0x0F}, ir::DType::I8);
  EXPECT_EQ(values<int8_t>(xi.out(0)), (std::vector<int8_t>{-16}));
  auto x4 = binary<int8_t>(ir::BinaryKind::Xor, {-1}, {7}, ir::DType::I4);
  EXPECT_EQ(values<int8_t>(x4.out(0)), (std::vector<int8_t>{-8}));
}

TEST(RefBinary, ShiftsUnsignedWidthAndBeyond) {
  auto shl = binary<uint8_t>(ir::BinaryKind::Shl, {1, 0x81, 1, 1}, {3, 1, 8, 200});
  ASSERT_TRUE(shl.status.is_ok());
  EXPECT_EQ(values<uint8_t>(shl.out(0)), (std::vector<uint8_t>{8, 0x02, 0, 0}));
  auto shr = binary<uint32_t>(ir::BinaryKind::Shr, {0x80000000u, 16, 5}, {31, 2, 32});
  EXPECT_EQ(values<uint32_t>(shr.out(0)), (std::vector<uint32_t>{1, 4, 0}));
  auto shl64 = binary<uint64_t>(ir::BinaryKind::Shl, {1, 1}, {63, 64});
  EXPECT_EQ(values<uint64_t>(shl64.out(0)), (std::vector<uint64_t>{uint64_t{1} << 63, 0}));
  auto shl4 = binary<uint8_t>(ir::BinaryKind::Shl, {0x9, 1}, {1, 4}, ir::DType::U4);
  EXPECT_EQ(values<uint8_t>(shl4.out(0)), (std::vector<uint8_t>{0x2, 0}));
}

TEST(RefBinary, NarrowFloatsRoundOnceNoSaturation) {
  // f16: 1 + 2^-11 is not representable; 1 + 1*2^-11 -> tie -> 1.0
  auto a = binary<f16>(ir::BinaryKind::Add, {f16{0x3C00}, f16{0x7BFF}}, {f16{0x1000}, f16{0x7BFF}},
                       ir::DType::F16);
  ASSERT_TRUE(a.status.is_ok());
  EXPECT_EQ(values<f16>(a.out(0))[0].bits, 0x3C00);  // 0x1000 = 2^-11
  EXPECT_EQ(values<f16>(a.out(0))[1].bits, 0x7C00);  // 65504 + 65504 -> inf
  // e4m3fn: 448 + 448 overflows -> NaN (arithmetic does not saturate)
  auto e = binary<f8e4m3fn>(ir::BinaryKind::Add, {f8e4m3fn{0x7E}}, {f8e4m3fn{0x7E}}, ir::DType::F8E4M3FN);
  EXPECT_EQ(values<f8e4m3fn>(e.out(0))[0].bits, 0x7F);
  // bf16: 1 * 3 = 3 (0x4040)
  auto m = binary<bf16>(ir::BinaryKind::Mul, {bf16{0x3F80}}, {bf16{0x4040}}, ir::DType::BF16);
  EXPECT_EQ(values<bf16>(m.out(0))[0].bits, 0x4040);
  // f4e2m1: 6 + 6 saturates to 6 (no inf/NaN); 1.5 + 1.5 = 3
  auto f4 = binary<f4e2m1>(ir::BinaryKind::Add, {f4e2m1{0x7}, f4e2m1{0x3}}, {f4e2m1{0x7}, f4e2m1{0x3}},
                           ir::DType::F4E2M1);
  EXPECT_EQ(values<f4e2m1>(f4.out(0))[0].bits, 0x7);
  EXPECT_EQ(values<f4e2m1>(f4.out(0))[1].bits, 0x5);
  auto e5 = binary<f8e5m2>(ir::BinaryKind::Max, {f8e5m2{0x80}}, {f8e5m2{0x00}}, ir::DType::F8E5M2);
  EXPECT_EQ(values<f8e5m2>(e5.out(0))[0].bits, 0x00);  // max(-0, +0) = +0
}

TEST(RefBinary, RankZeroAndEmpty) {
  auto r = KernelRun(ir::Op::Binary)
               .attr("kind", ir::EnumValue{ir::BinaryKind::Sub})
               .input(make_tensor<double>({}, {1.5}))
               .input(make_tensor<double>({}, {0.25}))
               .run();
  ASSERT_TRUE(r.status.is_ok());
  EXPECT_EQ(values<double>(r.out(0)), (std::vector<double>{1.25}));
  auto e = KernelRun(ir::Op::Binary)
               .attr("kind", ir::EnumValue{ir::BinaryKind::Div})
               .input(make_tensor<int32_t>({0, 3}, {}))
               .input(make_tensor<int32_t>({0, 3}, {}))
               .run();
  ASSERT_TRUE(e.status.is_ok());
  EXPECT_EQ(e.out(0).shape, (std::vector<int64_t>{0, 3}));
}

TEST(RefBinary, PreciseModeSeesF64) {
  auto r = KernelRun(ir::Op::Binary)
               .attr("kind", ir::EnumValue{ir::BinaryKind::Add})
               .input(make_tensor<double>({1}, {0.1}))
               .input(make_tensor<double>({1}, {0.2}))
               .mode(NumericMode::kPrecise)
               .run();
  ASSERT_TRUE(r.status.is_ok());
  EXPECT_EQ(values<double>(r.out(0))[0], 0.1 + 0.2);
}

// ---- compare ---------------------------------------------------------------------------------

testing::KernelResult compare_f(ir::CompareKind k, std::vector<float> a, std::vector<float> b) {
  const std::vector<int64_t> shape{static_cast<int64_t>(a.size())};
  return KernelRun(ir::Op::Compare)
      .attr("kind", ir::EnumValue{k})
      .input(make_tensor<float>(shape, a))
      .input(make_tensor<float>(shape, b))
      .run();
}

TEST(RefCompare, FloatNaNAndSignedZero) {
  const std::vector<float> a{kNaNF, -0.0f, 1, 2, -kInfF};
  const std::vector<float> b{kNaNF, 0.0f, 2, 1, -kInfF};
  const struct {
    ir::CompareKind k;
    std::vector<bool> want;
  } rows[] = {{ir::CompareKind::Eq, {false, true, false, false, true}},
              {ir::CompareKind::Ne, {true, false, true, true, false}},
              {ir::CompareKind::Lt, {false, false, true, false, false}},
              {ir::CompareKind::Le, {false, true, true, false, true}},
              {ir::CompareKind::Gt, {false, false, false, true, false}},
              {ir::CompareKind::Ge, {false, true, false, true, true}}};
  for (const auto& row : rows) {
    auto r = compare_f(row.k, a, b);
    ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
    EXPECT_EQ(r.out(0).dtype, ir::DType::Bool);
    EXPECT_EQ(values<bool>(r.out(0)), row.want) << "kind " << ir::enum_name(row.k);
  }
}

TEST(RefCompare, IntsBoolStringsNarrow) {
  auto i = KernelRun(ir::Op::Compare)
               .attr("kind", ir::EnumValue{ir::CompareKind::Lt})
               .input(make_tensor<uint64_t>({2}, {UINT64_MAX, 0}))
               .input(make_tensor<uint64_t>({2}, {1, 1}))
               .run();
  ASSERT_TRUE(i.status.is_ok());
  EXPECT_EQ(values<bool>(i.out(0)), (std::vector<bool>{false, true}));
  auto s = KernelRun(ir::Op::Compare)
               .attr("kind", ir::EnumValue{ir::CompareKind::Eq})
               .input(make_tensor<std::string>({2}, {"ab", ""}))
               .input(make_tensor<std::string>({2}, {"ab", "x"}))
               .run();
  ASSERT_TRUE(s.status.is_ok());
  EXPECT_EQ(values<bool>(s.out(0)), (std::vector<bool>{true, false}));
  auto b = KernelRun(ir::Op::Compare)
               .attr("kind", ir::EnumValue{ir::CompareKind::Ne})
               .input(make_tensor<bool>({2}, {true, false}))
               .input(make_tensor<bool>({2}, {true, true}))
               .run();
  EXPECT_EQ(values<bool>(b.out(0)), (std::vector<bool>{false, true}));
  // f8e4m3fnuz: the two codes of zero do not exist (0x80 is NaN): NaN != 0
  auto n =
      KernelRun(ir::Op::Compare)
          .attr("kind", ir::EnumValue{ir::CompareKind::Eq})
          .input(make_tensor<f8e4m3fnuz>({2}, {f8e4m3fnuz{0x80}, f8e4m3fnuz{0x40}}, ir::DType::F8E4M3FNUZ))
          .input(make_tensor<f8e4m3fnuz>({2}, {f8e4m3fnuz{0x80}, f8e4m3fnuz{0x40}}, ir::DType::F8E4M3FNUZ))
          .run();
  EXPECT_EQ(values<bool>(n.out(0)), (std::vector<bool>{false, true}));
  auto i4 = KernelRun(ir::Op::Compare)
                .attr("kind", ir::EnumValue{ir::CompareKind::Gt})
                .input(make_tensor<int8_t>({2}, {-8, 7}, ir::DType::I4))
                .input(make_tensor<int8_t>({2}, {7, -8}, ir::DType::I4))
                .run();
  EXPECT_EQ(values<bool>(i4.out(0)), (std::vector<bool>{false, true}));
}

TEST(RefCompare, RankZeroAndEmpty) {
  auto r = compare_f(ir::CompareKind::Eq, {}, {});
  ASSERT_TRUE(r.status.is_ok());
  EXPECT_EQ(r.out(0).numel(), 0);
}

// ---- select ----------------------------------------------------------------------------------

TEST(RefSelect, PicksPerElement) {
  auto r = KernelRun(ir::Op::Select)
               .input(make_tensor<bool>({3}, {true, false, true}))
               .input(make_tensor<float>({3}, {1, 2, kNaNF}))
               .input(make_tensor<float>({3}, {-1, -0.0f, 3}))
               .run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  expect_same_floats(values<float>(r.out(0)), {1, -0.0f, kNaNF});
  auto s = KernelRun(ir::Op::Select)
               .input(make_tensor<bool>({2}, {false, true}))
               .input(make_tensor<std::string>({2}, {"a", "b"}))
               .input(make_tensor<std::string>({2}, {"c", "d"}))
               .run();
  ASSERT_TRUE(s.status.is_ok());
  EXPECT_EQ(values<std::string>(s.out(0)), (std::vector<std::string>{"c", "b"}));
  auto z = KernelRun(ir::Op::Select)
               .input(make_tensor<bool>({}, {false}))
               .input(make_tensor<int8_t>({}, {3}, ir::DType::I4))
               .input(make_tensor<int8_t>({}, {-4}, ir::DType::I4))
               .run();
  ASSERT_TRUE(z.status.is_ok());
  EXPECT_EQ(values<int8_t>(z.out(0)), (std::vector<int8_t>{-4}));
  auto e = KernelRun(ir::Op::Select)
               .input(make_tensor<bool>({0}, {}))
               .input(make_tensor<double>({0}, {}))
               .input(make_tensor<double>({0}, {}))
               .run();
  ASSERT_TRUE(e.status.is_ok());
}

// ---- the Example of every page of this family runs and gives its `expect` --------------------

// Same dtype, shape and elements (floats by value: NaN equals NaN, -0 differs from +0).
bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype != b.dtype || a.shape != b.shape) return false;
  return visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t k = 0; k < a.numel(); ++k) {
      if constexpr (std::is_same_v<T, std::string>) {
        if (a.strings()[k] != b.strings()[k]) return false;
      } else if constexpr (is_float_storage_v<T>) {
        double x, y;
        if constexpr (is_narrow_float_v<T>) {
          x = to_f64(a.as<T>()[k]);
          y = to_f64(b.as<T>()[k]);
        } else {
          x = a.as<T>()[k];
          y = b.as<T>()[k];
        }
        if (std::isnan(x) != std::isnan(y)) return false;
        if (!std::isnan(x) && (x != y || std::signbit(x) != std::signbit(y))) return false;
      } else {
        if (a.as<T>()[k] != b.as<T>()[k]) return false;
      }
    }
    return true;
  });
}

TEST(RefElementwise, SpecExamplesRun) {
  for (const char* op : {"unary", "binary", "compare", "select", "cast", "bitcast"})
    testing::expect_spec_example(op, same_tensor);
}

}  // namespace
}  // namespace plumb::rt
