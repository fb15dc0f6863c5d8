// runtime/cpu/ref/float_formats.h: exhaustive round trips and hand-checked roundings
// (spec/numerics.md "Narrow floats").
#include "runtime/cpu/ref/float_formats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace plumb::rt {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Exhaustive: every non-NaN code widens and narrows back to itself; NaN codes are counted.
template <typename T, typename Narrow>
int check_round_trip_8(Narrow narrow, bool skip_inf_on_saturate) {
  int nans = 0;
  for (int c = 0; c < 256; ++c) {
    const double v = to_f64(T{static_cast<uint8_t>(c)});
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    EXPECT_EQ(narrow(v, false).bits, c) << "code " << c << " value " << v;
    if (!(skip_inf_on_saturate && std::isinf(v))) {
      EXPECT_EQ(narrow(v, true).bits, c) << "code " << c;
    }
  }
  return nans;
}

TEST(FloatFormats, F8E4M3FNExhaustiveRoundTrip) {
  EXPECT_EQ(check_round_trip_8<f8e4m3fn>(to_f8e4m3fn, false), 2);  // S.1111.111
  EXPECT_TRUE(std::isnan(to_f64(f8e4m3fn{0x7F})));
  EXPECT_TRUE(std::isnan(to_f64(f8e4m3fn{0xFF})));
}
TEST(FloatFormats, F8E4M3FNUZExhaustiveRoundTrip) {
  EXPECT_EQ(check_round_trip_8<f8e4m3fnuz>(to_f8e4m3fnuz, false), 1);  // 0x80 only
  EXPECT_TRUE(std::isnan(to_f64(f8e4m3fnuz{0x80})));
}
TEST(FloatFormats, F8E5M2ExhaustiveRoundTrip) {
  EXPECT_EQ(check_round_trip_8<f8e5m2>(to_f8e5m2, true), 6);  // S.11111.{01,10,11}
}
TEST(FloatFormats, F8E5M2FNUZExhaustiveRoundTrip) {
  EXPECT_EQ(check_round_trip_8<f8e5m2fnuz>(to_f8e5m2fnuz, false), 1);
}
TEST(FloatFormats, F8E8M0ExhaustiveRoundTrip) {
  int nans = 0;
  for (int c = 0; c < 256; ++c) {
    const double v = to_f64(f8e8m0{static_cast<uint8_t>(c)});
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    EXPECT_EQ(v, std::ldexp(1.0, c - 127));
    for (Rounding r : {Rounding::kNearestEven, Rounding::kUp, Rounding::kDown})
      for (bool sat : {false, true}) EXPECT_EQ(to_f8e8m0(v, sat, r).bits, c);
  }
  EXPECT_EQ(nans, 1);
}
TEST(FloatFormats, F4E2M1ExhaustiveValues) {
  const double pos[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};  // ONNX docs/technical/float4.md
  for (int c = 0; c < 16; ++c) {
    const double v = to_f64(f4e2m1{static_cast<uint8_t>(c)});
    EXPECT_EQ(v, c < 8 ? pos[c] : -pos[c - 8]) << c;
    EXPECT_EQ(std::signbit(v), c >= 8);
    EXPECT_EQ(to_f4e2m1(v, true).bits, c);
    EXPECT_EQ(to_f4e2m1(v, false).bits, c);
  }
}

TEST(FloatFormats, F8ValuesHandChecked) {
  EXPECT_EQ(to_f64(f8e4m3fn{0x7E}), 448);
  EXPECT_EQ(to_f64(f8e4m3fn{0x01}), std::ldexp(1.0, -9));
  EXPECT_EQ(to_f64(f8e4m3fn{0x08}), std::ldexp(1.0, -6));
  EXPECT_EQ(to_f64(f8e4m3fn{0x38}), 1.0);
  EXPECT_EQ(to_f64(f8e4m3fnuz{0x7F}), 240);
  EXPECT_EQ(to_f64(f8e4m3fnuz{0x01}), std::ldexp(1.0, -10));
  EXPECT_EQ(to_f64(f8e4m3fnuz{0x40}), 1.0);
  EXPECT_EQ(to_f64(f8e5m2{0x7B}), 57344);
  EXPECT_EQ(to_f64(f8e5m2{0x7C}), kInf);
  EXPECT_EQ(to_f64(f8e5m2{0xFC}), -kInf);
  EXPECT_EQ(to_f64(f8e5m2{0x01}), std::ldexp(1.0, -16));
  EXPECT_EQ(to_f64(f8e5m2fnuz{0x7F}), 57344);
  EXPECT_EQ(to_f64(f8e5m2fnuz{0x01}), std::ldexp(1.0, -17));
  EXPECT_EQ(to_f64(f8e8m0{0x7F}), 1.0);
  EXPECT_TRUE(std::signbit(to_f64(f8e4m3fn{0x80})));
}

// Positive codes are strictly increasing up to inf: an independent check of the decoding.
TEST(FloatFormats, F16ExhaustiveRoundTripAndOrder) {
  double prev = -1;
  for (uint32_t c = 0; c < 65536; ++c) {
    const double v = to_f64(f16{static_cast<uint16_t>(c)});
    const uint32_t exp = (c >> 10) & 0x1F, man = c & 0x3FF;
    if (exp == 0x1F && man != 0) {
      EXPECT_TRUE(std::isnan(v));
      continue;
    }
    EXPECT_EQ(to_f16(v).bits, c) << c;
    if (c <= 0x7C00) {
      EXPECT_GT(v, prev) << c;
      prev = v;
    }
  }
  EXPECT_EQ(to_f64(f16{0x3C00}), 1.0);
  EXPECT_EQ(to_f64(f16{0x7BFF}), 65504);
  EXPECT_EQ(to_f64(f16{0x0001}), std::ldexp(1.0, -24));
  EXPECT_EQ(to_f64(f16{0x0400}), std::ldexp(1.0, -14));
}

float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(FloatFormats, BF16ExhaustiveRoundTripIsTopHalfOfF32) {
  for (uint32_t c = 0; c < 65536; ++c) {
    const double v = to_f64(bf16{static_cast<uint16_t>(c)});
    const float f = float_from_bits(c << 16);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(v));
      continue;
    }
    EXPECT_EQ(v, static_cast<double>(f)) << c;
    EXPECT_EQ(to_bf16(v).bits, c) << c;
  }
}

// bf16 narrowing from f32 against the classic integer RNE trick, on a stride through all f32.
TEST(FloatFormats, BF16NarrowingMatchesIntegerRne) {
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 65521) {
    const float f = float_from_bits(static_cast<uint32_t>(u));
    if (std::isnan(f)) continue;
    const uint32_t x = static_cast<uint32_t>(u);
    const uint32_t expect = (x + 0x7FFF + ((x >> 16) & 1)) >> 16;
    EXPECT_EQ(to_bf16(f).bits, expect) << std::hex << x;
  }
}

TEST(FloatFormats, F16TiesToEvenAndSingleRounding) {
  EXPECT_EQ(to_f16(1 + std::ldexp(1.0, -11)).bits, 0x3C00);      // tie -> even (down)
  EXPECT_EQ(to_f16(1 + 3 * std::ldexp(1.0, -11)).bits, 0x3C02);  // tie -> even (up)
  // Just above a tie: one rounding goes up; rounding through f32 first would land on the tie.
  EXPECT_EQ(to_f16(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)).bits, 0x3C01);
  EXPECT_EQ(to_f16(65519).bits, 0x7BFF);
  EXPECT_EQ(to_f16(65520).bits, 0x7C00);  // tie between 65504 and 2^16 -> even -> inf
  EXPECT_EQ(to_f16(-1e10).bits, 0xFC00);
  EXPECT_EQ(to_f16(std::ldexp(1.0, -25)).bits, 0x0000);      // half the smallest denormal -> 0
  EXPECT_EQ(to_f16(3 * std::ldexp(1.0, -25)).bits, 0x0002);  // 1.5 denormals -> 2
  EXPECT_EQ(to_f16(-std::ldexp(1.0, -30)).bits, 0x8000);     // underflow keeps the sign
  EXPECT_EQ(to_f16(-0.0).bits, 0x8000);
  EXPECT_EQ(to_f16(kInf).bits, 0x7C00);
  EXPECT_TRUE(std::isnan(to_f64(to_f16(kNaN))));
}

TEST(FloatFormats, BF16Ties) {
  EXPECT_EQ(to_bf16(1 + std::ldexp(1.0, -8)).bits, 0x3F80);
  EXPECT_EQ(to_bf16(1 + 3 * std::ldexp(1.0, -8)).bits, 0x3F82);
  EXPECT_EQ(to_bf16(1e39).bits, 0x7F80);  // beyond bf16 max -> inf
}

TEST(FloatFormats, F8E4M3FNSaturation) {
  EXPECT_EQ(to_f8e4m3fn(464, false).bits, 0x7E);  // tie 448|480 -> even 448
  EXPECT_EQ(to_f8e4m3fn(465, false).bits, 0x7F);  // rounds to 480 > max -> NaN
  EXPECT_EQ(to_f8e4m3fn(465, true).bits, 0x7E);
  EXPECT_EQ(to_f8e4m3fn(-1e6, false).bits, 0xFF);
  EXPECT_EQ(to_f8e4m3fn(-1e6, true).bits, 0xFE);
  EXPECT_EQ(to_f8e4m3fn(kInf, false).bits, 0x7F);
  EXPECT_EQ(to_f8e4m3fn(kInf, true).bits, 0x7E);
  EXPECT_EQ(to_f8e4m3fn(-kInf, true).bits, 0xFE);
  EXPECT_EQ(to_f8e4m3fn(-0.0, true).bits, 0x80);
  EXPECT_EQ(to_f8e4m3fn(kNaN, true).bits, 0x7F);
  EXPECT_EQ(to_f8e4m3fn(1.0625, true).bits, 0x38);                // tie 1|1.125 -> even 1
  EXPECT_EQ(to_f8e4m3fn(std::ldexp(1.0, -10), true).bits, 0x00);  // half the smallest denormal
  EXPECT_EQ(to_f8e4m3fn(std::ldexp(3.0, -10), true).bits, 0x02);  // 1.5 denormals -> 2
}

TEST(FloatFormats, F8E4M3FNUZSaturation) {
  EXPECT_EQ(to_f8e4m3fnuz(248, false).bits, 0x80);  // tie 240|256 -> even 256 > max -> NaN
  EXPECT_EQ(to_f8e4m3fnuz(248, true).bits, 0x7F);
  EXPECT_EQ(to_f8e4m3fnuz(247, false).bits, 0x7F);
  EXPECT_EQ(to_f8e4m3fnuz(-0.0, false).bits, 0x00);  // no -0
  EXPECT_EQ(to_f8e4m3fnuz(-std::ldexp(1.0, -13), false).bits, 0x00);
  EXPECT_EQ(to_f8e4m3fnuz(kInf, false).bits, 0x80);
  EXPECT_EQ(to_f8e4m3fnuz(-kInf, true).bits, 0xFF);
  EXPECT_EQ(to_f8e4m3fnuz(kNaN, true).bits, 0x80);
}

TEST(FloatFormats, F8E5M2Saturation) {
  EXPECT_EQ(to_f8e5m2(61439, false).bits, 0x7B);
  EXPECT_EQ(to_f8e5m2(61440, false).bits, 0x7C);  // tie -> even -> inf
  EXPECT_EQ(to_f8e5m2(61440, true).bits, 0x7B);
  EXPECT_EQ(to_f8e5m2(-kInf, false).bits, 0xFC);
  EXPECT_EQ(to_f8e5m2(-kInf, true).bits, 0xFB);
  EXPECT_EQ(to_f8e5m2(-0.0, false).bits, 0x80);
  EXPECT_TRUE(std::isnan(to_f64(to_f8e5m2(kNaN, true))));
}

TEST(FloatFormats, F8E5M2FNUZSaturation) {
  EXPECT_EQ(to_f8e5m2fnuz(kInf, false).bits, 0x80);
  EXPECT_EQ(to_f8e5m2fnuz(kInf, true).bits, 0x7F);
  EXPECT_EQ(to_f8e5m2fnuz(-1e9, true).bits, 0xFF);
  EXPECT_EQ(to_f8e5m2fnuz(-0.0, true).bits, 0x00);
}

TEST(FloatFormats, F8E8M0RoundingModes) {
  EXPECT_EQ(to_f8e8m0(1.5, true, Rounding::kNearestEven).bits, 0x80);  // tie goes up (ONNX nearest)
  EXPECT_EQ(to_f8e8m0(1.25, true, Rounding::kNearestEven).bits, 0x7F);
  EXPECT_EQ(to_f8e8m0(1.75, true, Rounding::kNearestEven).bits, 0x80);
  EXPECT_EQ(to_f8e8m0(1.25, true, Rounding::kUp).bits, 0x80);
  EXPECT_EQ(to_f8e8m0(1.75, true, Rounding::kDown).bits, 0x7F);
  EXPECT_EQ(to_f8e8m0(-4.0, true, Rounding::kUp).bits, 0x81);  // the magnitude
  EXPECT_EQ(to_f8e8m0(0.0, true, Rounding::kUp).bits, 0x00);
  EXPECT_EQ(to_f8e8m0(0.0, false, Rounding::kNearestEven).bits, 0xFF);
  EXPECT_EQ(to_f8e8m0(kInf, true, Rounding::kUp).bits, 0xFE);
  EXPECT_EQ(to_f8e8m0(kInf, false, Rounding::kUp).bits, 0xFF);
  EXPECT_EQ(to_f8e8m0(std::ldexp(1.5, 127), true, Rounding::kUp).bits, 0xFE);
  EXPECT_EQ(to_f8e8m0(std::ldexp(1.5, 127), false, Rounding::kUp).bits, 0xFF);
  EXPECT_EQ(to_f8e8m0(std::ldexp(1.0, -128), true, Rounding::kDown).bits, 0x00);
  EXPECT_EQ(to_f8e8m0(std::ldexp(1.0, -128), false, Rounding::kDown).bits, 0xFF);
  EXPECT_EQ(to_f8e8m0(std::ldexp(1.0, -128), false, Rounding::kUp).bits, 0x00);
  EXPECT_EQ(to_f8e8m0(kNaN, true, Rounding::kUp).bits, 0xFF);
}

TEST(FloatFormats, F4E2M1RoundingAndSaturation) {
  EXPECT_EQ(to_f4e2m1(0.25, true).bits, 0x0);  // tie 0|0.5 -> even 0
  EXPECT_EQ(to_f4e2m1(0.75, true).bits, 0x2);  // tie 0.5|1 -> even 1
  EXPECT_EQ(to_f4e2m1(2.5, true).bits, 0x4);   // tie 2|3 -> 2
  EXPECT_EQ(to_f4e2m1(-3.5, true).bits, 0xE);  // tie 3|4 -> -4
  EXPECT_EQ(to_f4e2m1(5, true).bits, 0x6);     // tie 4|6 -> 4
  EXPECT_EQ(to_f4e2m1(9, false).bits, 0x7);    // always saturates
  EXPECT_EQ(to_f4e2m1(-kInf, false).bits, 0xF);
  EXPECT_EQ(to_f4e2m1(kNaN, false).bits, 0x7);  // ONNX float4.md: NaN -> 6
  EXPECT_EQ(to_f4e2m1(-0.0, true).bits, 0x8);
  EXPECT_EQ(to_f4e2m1(0.01, true).bits, 0x0);
}

}  // namespace
}  // namespace plumb::rt
