// Reference kernels of spec/ops/cast.md and spec/ops/bitcast.md (values worked out by hand).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace plumb::rt {
namespace {

template <typename S>
testing::KernelResult cast(ir::DType to, std::vector<int64_t> shape, std::vector<S> x,
                           ir::DType from = testing::dtype_of<S>(), bool saturate = true,
                           ir::RoundMode round = ir::RoundMode::NearestEven) {
  return KernelRun(ir::Op::Cast)
      .attr("to", to)
      .attr("saturate", saturate)
      .attr("round", ir::EnumValue{round})
      .input(make_tensor<S>(shape, x, from))
      .run();
}
template <typename S>
testing::KernelResult cast1(ir::DType to, std::vector<S> x, ir::DType from = testing::dtype_of<S>()) {
  return cast<S>(to, {static_cast<int64_t>(x.size())}, x, from);
}

float f32_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// ---- float -> int ----------------------------------------------------------------------------

TEST(RefCast, FloatToIntTruncatesTowardZero) {
  auto r = cast1<float>(ir::DType::I32, {1.9f, -1.9f, -0.0f, 2147483520.0f, -2147483648.0f});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{1, -1, 0, 2147483520, INT32_MIN}));
  auto u = cast1<double>(ir::DType::U8, {-0.5, 255.9, 0.0});
  ASSERT_TRUE(u.status.is_ok()) << u.status.to_string();
  EXPECT_EQ(values<uint8_t>(u.out(0)), (std::vector<uint8_t>{0, 255, 0}));
  auto i4 = cast1<float>(ir::DType::I4, {7.9f, -8.5f});
  ASSERT_TRUE(i4.status.is_ok());
  EXPECT_EQ(values<int8_t>(i4.out(0)), (std::vector<int8_t>{7, -8}));
  auto u64 = cast1<double>(ir::DType::U64, {18446744073709549568.0});  // 2^64 - 2048
  ASSERT_TRUE(u64.status.is_ok());
  EXPECT_EQ(values<uint64_t>(u64.out(0)), (std::vector<uint64_t>{18446744073709549568ull}));
  auto h = cast1<f16>(ir::DType::I16, {f16{0xC900}}, ir::DType::F16);  // -10.0
  EXPECT_EQ(values<int16_t>(h.out(0)), (std::vector<int16_t>{-10}));
}

TEST(RefCast, R1FloatNaNOrOutOfRangeToIntIsError) {
  EXPECT_EQ(cast1<float>(ir::DType::I32, {kNaNF}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<float>(ir::DType::I32, {2147483648.0f}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<float>(ir::DType::I64, {kInfF}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<double>(ir::DType::I64, {9223372036854775808.0}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<double>(ir::DType::U8, {256.0}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<double>(ir::DType::U8, {-1.0}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<float>(ir::DType::I4, {8.0f}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<float>(ir::DType::U2, {4.0f}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<double>(ir::DType::U64, {18446744073709551616.0}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<float>(ir::DType::I8, {kNaNF}).status.code(), ErrorCode::kRuntimeError);
}

// ---- int -> int, bool ------------------------------------------------------------------------

TEST(RefCast, IntToIntWraps) {
  auto a = cast1<int16_t>(ir::DType::I8, {200, -129, 127});  // ONNX Cast doc: 200 -> -56
  ASSERT_TRUE(a.status.is_ok());
  EXPECT_EQ(values<int8_t>(a.out(0)), (std::vector<int8_t>{-56, 127, 127}));
  auto b = cast1<int32_t>(ir::DType::U32, {-1});
  EXPECT_EQ(values<uint32_t>(b.out(0)), (std::vector<uint32_t>{4294967295u}));
  auto c = cast1<uint64_t>(ir::DType::I64, {UINT64_MAX});
  EXPECT_EQ(values<int64_t>(c.out(0)), (std::vector<int64_t>{-1}));
  auto d = cast1<int8_t>(ir::DType::I4, {-9, 8, 15});
  EXPECT_EQ(values<int8_t>(d.out(0)), (std::vector<int8_t>{7, -8, -1}));
  auto e = cast1<uint8_t>(ir::DType::U4, {0x13});
  EXPECT_EQ(values<uint8_t>(e.out(0)), (std::vector<uint8_t>{3}));
  auto f = cast1<int32_t>(ir::DType::U2, {6, -1});
  EXPECT_EQ(values<uint8_t>(f.out(0)), (std::vector<uint8_t>{2, 3}));
  auto g = cast1<int8_t>(ir::DType::I64, {-8, 7}, ir::DType::I4);
  EXPECT_EQ(values<int64_t>(g.out(0)), (std::vector<int64_t>{-8, 7}));
  auto h = cast1<int8_t>(ir::DType::I2, {-2, 1}, ir::DType::I2);  // identity
  EXPECT_EQ(values<int8_t>(h.out(0)), (std::vector<int8_t>{-2, 1}));
}

TEST(RefCast, BoolConversions) {
  auto fb = cast1<float>(ir::DType::Bool, {0.0f, -0.0f, kNaNF, 0.1f, -kInfF});
  ASSERT_TRUE(fb.status.is_ok());
  EXPECT_EQ(values<bool>(fb.out(0)), (std::vector<bool>{false, false, true, true, true}));
  auto ib = cast1<int64_t>(ir::DType::Bool, {0, 36, -1});
  EXPECT_EQ(values<bool>(ib.out(0)), (std::vector<bool>{false, true, true}));
  auto bf = cast1<bool>(ir::DType::F32, {true, false});
  EXPECT_EQ(values<float>(bf.out(0)), (std::vector<float>{1.0f, 0.0f}));
  auto bi = cast1<bool>(ir::DType::I8, {true, false});
  EXPECT_EQ(values<int8_t>(bi.out(0)), (std::vector<int8_t>{1, 0}));
  auto bh = cast1<bool>(ir::DType::F16, {true});
  EXPECT_EQ(values<f16>(bh.out(0))[0].bits, 0x3C00);
  auto h = cast1<f8e4m3fnuz>(ir::DType::Bool, {f8e4m3fnuz{0x80}, f8e4m3fnuz{0x00}}, ir::DType::F8E4M3FNUZ);
  EXPECT_EQ(values<bool>(h.out(0)), (std::vector<bool>{true, false}));  // NaN -> true
}

// ---- int -> float ----------------------------------------------------------------------------

TEST(RefCast, IntToFloatRoundsOnce) {
  auto a = cast1<int64_t>(ir::DType::F64, {(int64_t{1} << 53) + 1, (int64_t{1} << 53) + 3, INT64_MIN});
  ASSERT_TRUE(a.status.is_ok());
  EXPECT_EQ(values<double>(a.out(0)),
            (std::vector<double>{9007199254740992.0, 9007199254740996.0, -9223372036854775808.0}));
  // 2^62 + 2^54 + 1 to bf16: just above the tie at 2^54 -> rounds up to 2^62 + 2^55 (0x5E81).
  // Through f64 it would first become the exact tie and then round to even (0x5E80).
  auto b = cast1<int64_t>(ir::DType::BF16, {(int64_t{1} << 62) + (int64_t{1} << 54) + 1});
  EXPECT_EQ(values<bf16>(b.out(0))[0].bits, 0x5E81);
  auto c = cast1<int32_t>(ir::DType::F16, {65520, 2049, 2051, -3});
  auto h = values<f16>(c.out(0));
  EXPECT_EQ(h[0].bits, 0x7C00);  // inf
  EXPECT_EQ(h[1].bits, 0x6800);  // 2048
  EXPECT_EQ(h[2].bits, 0x6802);  // 2052
  EXPECT_EQ(h[3].bits, 0xC200);  // -3
  auto d = cast1<uint64_t>(ir::DType::F32, {UINT64_MAX});
  EXPECT_EQ(values<float>(d.out(0)), (std::vector<float>{18446744073709551616.0f}));
  auto e = cast1<int32_t>(ir::DType::F8E4M3FN, {1000, -17});
  EXPECT_EQ(values<f8e4m3fn>(e.out(0))[0].bits, 0x7E);  // saturate = true: 448
  EXPECT_EQ(values<f8e4m3fn>(e.out(0))[1].bits, 0xD8);  // -17 -> tie 16|18 -> -16
  auto f = cast1<uint8_t>(ir::DType::F32, {15}, ir::DType::U4);
  EXPECT_EQ(values<float>(f.out(0)), (std::vector<float>{15.0f}));
}

// ---- float -> float --------------------------------------------------------------------------

TEST(RefCast, FloatToFloat) {
  auto a = cast1<double>(ir::DType::F32, {1e39, -1e-50, 0.1, kNaN});
  ASSERT_TRUE(a.status.is_ok());
  auto fa = values<float>(a.out(0));
  EXPECT_EQ(fa[0], kInfF);
  EXPECT_EQ(fa[1], 0.0f);
  EXPECT_TRUE(std::signbit(fa[1]));
  EXPECT_EQ(fa[2], 0.1f);
  EXPECT_TRUE(std::isnan(fa[3]));
  auto b = cast1<float>(ir::DType::F16, {1.00048828125f, 0.1f, -kInfF});
  auto hb = values<f16>(b.out(0));
  EXPECT_EQ(hb[0].bits, 0x3C00);  // 1 + 2^-11: tie -> even
  EXPECT_EQ(hb[1].bits, 0x2E66);
  EXPECT_EQ(hb[2].bits, 0xFC00);
  auto c = cast1<f16>(ir::DType::F32, {f16{0x0001}, f16{0xFBFF}}, ir::DType::F16);
  EXPECT_EQ(values<float>(c.out(0)), (std::vector<float>{std::ldexp(1.0f, -24), -65504.0f}));
  auto d = cast1<f8e5m2>(ir::DType::F16, {f8e5m2{0x7C}, f8e5m2{0x01}}, ir::DType::F8E5M2);
  EXPECT_EQ(values<f16>(d.out(0))[0].bits, 0x7C00);
  EXPECT_EQ(values<f16>(d.out(0))[1].bits, 0x0100);  // 2^-16
  auto e = cast1<f4e2m1>(ir::DType::BF16, {f4e2m1{0xF}}, ir::DType::F4E2M1);
  EXPECT_EQ(values<bf16>(e.out(0))[0].bits, 0xC0C0);  // -6
}

TEST(RefCast, Float8SaturateAttribute) {
  const std::vector<float> x{1000.0f, kInfF, -kInfF, kNaNF, -0.0f};
  auto sat = cast<float>(ir::DType::F8E4M3FN, {5}, x, ir::DType::F32, true);
  ASSERT_TRUE(sat.status.is_ok());
  auto s = values<f8e4m3fn>(sat.out(0));
  EXPECT_EQ(s[0].bits, 0x7E);
  EXPECT_EQ(s[1].bits, 0x7E);
  EXPECT_EQ(s[2].bits, 0xFE);
  EXPECT_EQ(s[3].bits & 0x7F, 0x7F);
  EXPECT_EQ(s[4].bits, 0x80);
  auto nosat = cast<float>(ir::DType::F8E5M2, {5}, x, ir::DType::F32, false);
  auto n = values<f8e5m2>(nosat.out(0));
  EXPECT_EQ(n[0].bits, 0x64);  // in range: 1000 rounds to 1024
  EXPECT_EQ(n[1].bits, 0x7C);
  EXPECT_EQ(n[2].bits, 0xFC);
  auto fnuz = cast<float>(ir::DType::F8E5M2FNUZ, {5}, x, ir::DType::F32, false);
  auto z = values<f8e5m2fnuz>(fnuz.out(0));
  EXPECT_EQ(z[1].bits, 0x80);
  EXPECT_EQ(z[4].bits, 0x00);
}

TEST(RefCast, Float8E8M0RoundModes) {
  const std::vector<float> x{1.25f, 1.5f, 3.0f};
  auto up = cast<float>(ir::DType::F8E8M0, {3}, x, ir::DType::F32, true, ir::RoundMode::Up);
  ASSERT_TRUE(up.status.is_ok()) << up.status.to_string();
  auto u = values<f8e8m0>(up.out(0));
  EXPECT_EQ(u[0].bits, 0x80);
  EXPECT_EQ(u[1].bits, 0x80);
  EXPECT_EQ(u[2].bits, 0x81);
  auto down = cast<float>(ir::DType::F8E8M0, {3}, x, ir::DType::F32, true, ir::RoundMode::Down);
  auto d = values<f8e8m0>(down.out(0));
  EXPECT_EQ(d[0].bits, 0x7F);
  EXPECT_EQ(d[1].bits, 0x7F);
  EXPECT_EQ(d[2].bits, 0x80);
  auto near = cast<float>(ir::DType::F8E8M0, {3}, x, ir::DType::F32, false, ir::RoundMode::NearestEven);
  auto n = values<f8e8m0>(near.out(0));
  EXPECT_EQ(n[0].bits, 0x7F);
  EXPECT_EQ(n[1].bits, 0x80);
  EXPECT_EQ(n[2].bits, 0x81);
  auto back = cast1<f8e8m0>(ir::DType::F32, {f8e8m0{0x00}, f8e8m0{0xFF}}, ir::DType::F8E8M0);
  EXPECT_EQ(values<float>(back.out(0))[0], std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(values<float>(back.out(0))[1]));
}

TEST(RefCast, Float4FromOnnxBackendInputs) {
  // test_cast_FLOAT_to_FLOAT4E2M1 inputs (NaN excepted: ONNX float4.md says 6)
  const std::vector<float> x{0.48f, 0.25f, 1.05f,  -3.5f, -8,    9,     1e6f,
                             1e-7f, kInfF, -kInfF, -4,    0.01f, -0.0f, kNaNF};
  auto r = cast1<float>(ir::DType::F4E2M1, x);
  ASSERT_TRUE(r.status.is_ok());
  const std::vector<uint8_t> want{0x1, 0x0, 0x2, 0xE, 0xF, 0x7, 0x7, 0x0, 0x7, 0xF, 0xE, 0x0, 0x8, 0x7};
  auto got = values<f4e2m1>(r.out(0));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].bits, want[i]) << i;
}

// ---- strings ---------------------------------------------------------------------------------

TEST(RefCast, NumberToStringIsShortestRoundTrip) {
  auto a = cast1<float>(ir::DType::String, {f32_bits(0x3F7A0D04), f32_bits(0x3F1AD728), 0.1f, 1e-7f, 1e6f,
                                            kNaNF, -kInfF, -0.0f, 3.0f, 1.5e16f});
  ASSERT_TRUE(a.status.is_ok()) << a.status.to_string();
  EXPECT_EQ(values<std::string>(a.out(0)),
            (std::vector<std::string>{"0.9767611", "0.6048455", "0.1", "1e-07", "1000000.0", "nan", "-inf",
                                      "-0.0", "3.0", "1.5e+16"}));
  auto b = cast1<double>(ir::DType::String, {0.1, 1e16, 123456789012345680.0, 1e-5, 2.5, 1e15, 0.0001});
  EXPECT_EQ(values<std::string>(b.out(0)),
            (std::vector<std::string>{"0.1", "1e+16", "1.2345678901234568e+17", "1e-05", "2.5",
                                      "1000000000000000.0", "0.0001"}));
  auto h = cast1<f16>(ir::DType::String, {f16{0x2E66}, f16{0x7BFF}}, ir::DType::F16);
  EXPECT_EQ(values<std::string>(h.out(0)), (std::vector<std::string>{"0.1", "65500.0"}));
  auto i = cast1<int64_t>(ir::DType::String, {-5, INT64_MIN});
  EXPECT_EQ(values<std::string>(i.out(0)), (std::vector<std::string>{"-5", "-9223372036854775808"}));
  auto u = cast1<uint64_t>(ir::DType::String, {UINT64_MAX});
  EXPECT_EQ(values<std::string>(u.out(0)), (std::vector<std::string>{"18446744073709551615"}));
  auto bo = cast1<bool>(ir::DType::String, {true, false});
  EXPECT_EQ(values<std::string>(bo.out(0)), (std::vector<std::string>{"True", "False"}));
  auto i4 = cast1<int8_t>(ir::DType::String, {-8}, ir::DType::I4);
  EXPECT_EQ(values<std::string>(i4.out(0)), (std::vector<std::string>{"-8"}));
}

// At a power of two the shortest round-trip decimal can lie on the far side of the value, as
// numpy's str() finds: str(np.float16(0.015625)) == '0.01563'. f8e4m3fn 0.125 (0x20): "0.13"
// rounds back to 0.125 (the spacing above 0.125 is 1/64), "0.12" does not (1/128 below).
TEST(RefCast, NumberToStringShortestAtPowersOfTwo) {
  auto h = cast1<f16>(ir::DType::String, {f16{0x2400}, f16{0xA400}}, ir::DType::F16);
  ASSERT_TRUE(h.status.is_ok()) << h.status.to_string();
  EXPECT_EQ(values<std::string>(h.out(0)), (std::vector<std::string>{"0.01563", "-0.01563"}));
  auto e = cast1<f8e4m3fn>(ir::DType::String, {f8e4m3fn{0x20}}, ir::DType::F8E4M3FN);
  ASSERT_TRUE(e.status.is_ok()) << e.status.to_string();
  EXPECT_EQ(values<std::string>(e.out(0)), (std::vector<std::string>{"0.13"}));
}

TEST(RefCast, StringToNumber) {
  auto f = cast1<std::string>(ir::DType::F32, {"3.14", "1e-5", "1E8", "INF", "+inf", "-INF", "NaN", "-0"});
  ASSERT_TRUE(f.status.is_ok()) << f.status.to_string();
  auto v = values<float>(f.out(0));
  EXPECT_EQ(v[0], 3.14f);
  EXPECT_EQ(v[1], 1e-5f);
  EXPECT_EQ(v[2], 1e8f);
  EXPECT_EQ(v[3], kInfF);
  EXPECT_EQ(v[4], kInfF);
  EXPECT_EQ(v[5], -kInfF);
  EXPECT_TRUE(std::isnan(v[6]));
  EXPECT_TRUE(std::signbit(v[7]));
  auto i = cast1<std::string>(ir::DType::I64, {"-9223372036854775808", "100.5", "+7", "-2.9"});
  ASSERT_TRUE(i.status.is_ok()) << i.status.to_string();
  EXPECT_EQ(values<int64_t>(i.out(0)), (std::vector<int64_t>{INT64_MIN, 100, 7, -2}));
  auto u = cast1<std::string>(ir::DType::U64, {"18446744073709551615"});
  EXPECT_EQ(values<uint64_t>(u.out(0)), (std::vector<uint64_t>{UINT64_MAX}));
  auto b = cast1<std::string>(ir::DType::Bool, {"true", "0", "2.5", "False"});
  EXPECT_EQ(values<bool>(b.out(0)), (std::vector<bool>{true, false, true, false}));
  auto h = cast1<std::string>(ir::DType::F16, {"0.1"});
  EXPECT_EQ(values<f16>(h.out(0))[0].bits, 0x2E66);
  auto s = cast1<std::string>(ir::DType::String, {"x"});
  EXPECT_EQ(values<std::string>(s.out(0)), (std::vector<std::string>{"x"}));
  // string -> int out of range is cast.R1
  EXPECT_EQ(cast1<std::string>(ir::DType::I64, {"9223372036854775808"}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<std::string>(ir::DType::U8, {"-1"}).status.label(), "cast.R1");
  EXPECT_EQ(cast1<std::string>(ir::DType::I8, {"nan"}).status.label(), "cast.R1");
}

TEST(RefCast, R2StringNotANumberIsError) {
  EXPECT_EQ(cast1<std::string>(ir::DType::F32, {"Hello World!"}).status.label(), "cast.R2");
  EXPECT_EQ(cast1<std::string>(ir::DType::F32, {""}).status.label(), "cast.R2");
  EXPECT_EQ(cast1<std::string>(ir::DType::I32, {"12abc"}).status.label(), "cast.R2");
  EXPECT_EQ(cast1<std::string>(ir::DType::F64, {" 1"}).status.label(), "cast.R2");
  EXPECT_EQ(cast1<std::string>(ir::DType::F64, {"0x10"}).status.label(), "cast.R2");
  EXPECT_EQ(cast1<std::string>(ir::DType::Bool, {"yes"}).status.code(), ErrorCode::kRuntimeError);
}

TEST(RefCast, RankZeroAndEmpty) {
  auto r = cast<double>(ir::DType::I32, {}, {-3.5});
  ASSERT_TRUE(r.status.is_ok());
  EXPECT_EQ(r.out(0).shape, std::vector<int64_t>{});
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{-3}));
  auto e = cast<std::string>(ir::DType::F32, {0, 4}, {});
  ASSERT_TRUE(e.status.is_ok());
  EXPECT_EQ(e.out(0).shape, (std::vector<int64_t>{0, 4}));
}

// ---- bitcast ---------------------------------------------------------------------------------

template <typename S>
testing::KernelResult bitcast(ir::DType to, std::vector<S> x, ir::DType from = testing::dtype_of<S>(),
                              NumericMode mode = NumericMode::kNative) {
  return KernelRun(ir::Op::Bitcast)
      .attr("to", to)
      .input(make_tensor<S>({static_cast<int64_t>(x.size())}, x, from))
      .mode(mode)
      .run();
}

TEST(RefBitcast, ReinterpretsBits) {
  auto a = bitcast<float>(ir::DType::I32, {1.0f, -0.0f});
  ASSERT_TRUE(a.status.is_ok()) << a.status.to_string();
  EXPECT_EQ(values<int32_t>(a.out(0)), (std::vector<int32_t>{0x3F800000, INT32_MIN}));
  auto b = bitcast<int64_t>(ir::DType::F64, {0x4000000000000000});
  EXPECT_EQ(values<double>(b.out(0)), (std::vector<double>{2.0}));
  auto c = bitcast<int8_t>(ir::DType::U8, {-1});
  EXPECT_EQ(values<uint8_t>(c.out(0)), (std::vector<uint8_t>{255}));
  auto d = bitcast<uint16_t>(ir::DType::I16, {0xFFFF});
  EXPECT_EQ(values<int16_t>(d.out(0)), (std::vector<int16_t>{-1}));
  auto e = bitcast<bool>(ir::DType::U8, {true, false});
  EXPECT_EQ(values<uint8_t>(e.out(0)), (std::vector<uint8_t>{1, 0}));
  auto f = bitcast<int8_t>(ir::DType::U4, {-1, -8}, ir::DType::I4);
  EXPECT_EQ(values<uint8_t>(f.out(0)), (std::vector<uint8_t>{15, 8}));
  auto g = bitcast<uint8_t>(ir::DType::I4, {8, 7}, ir::DType::U4);
  EXPECT_EQ(values<int8_t>(g.out(0)), (std::vector<int8_t>{-8, 7}));
  auto h = bitcast<f4e2m1>(ir::DType::I4, {f4e2m1{0xF}}, ir::DType::F4E2M1);
  EXPECT_EQ(values<int8_t>(h.out(0)), (std::vector<int8_t>{-1}));
  auto i = bitcast<f16>(ir::DType::BF16, {f16{0x3C00}}, ir::DType::F16);
  EXPECT_EQ(values<bf16>(i.out(0))[0].bits, 0x3C00);
  auto j = bitcast<uint8_t>(ir::DType::I2, {3, 2}, ir::DType::U2);
  EXPECT_EQ(values<int8_t>(j.out(0)), (std::vector<int8_t>{-1, -2}));
  auto k = bitcast<f8e4m3fn>(ir::DType::U8, {f8e4m3fn{0x7F}}, ir::DType::F8E4M3FN);  // NaN bits survive
  EXPECT_EQ(values<uint8_t>(k.out(0)), (std::vector<uint8_t>{0x7F}));
}

TEST(RefBitcast, R1ByteNotABoolIsError) {
  auto r = bitcast<uint8_t>(ir::DType::Bool, {1, 2});
  EXPECT_EQ(r.status.code(), ErrorCode::kRuntimeError);
  EXPECT_EQ(r.status.label(), "bitcast.R1");
  auto ok = bitcast<int8_t>(ir::DType::Bool, {0, 1});
  ASSERT_TRUE(ok.status.is_ok());
  EXPECT_EQ(values<bool>(ok.out(0)), (std::vector<bool>{false, true}));
}

TEST(RefBitcast, RankZeroAndEmpty) {
  auto r = KernelRun(ir::Op::Bitcast).attr("to", ir::DType::U32).input(make_tensor<float>({}, {1.0f})).run();
  ASSERT_TRUE(r.status.is_ok());
  EXPECT_EQ(values<uint32_t>(r.out(0)), (std::vector<uint32_t>{0x3F800000u}));
  auto e = bitcast<float>(ir::DType::I32, {});
  ASSERT_TRUE(e.status.is_ok());
  EXPECT_EQ(e.out(0).numel(), 0);
}

}  // namespace
}  // namespace plumb::rt
