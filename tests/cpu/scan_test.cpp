// runtime/cpu/onednn/scan.h: the vectorized passes give the scalar definitions' answers, on every
// length around the vector widths and with the special value at every position.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/cpu/onednn/scan.h"

namespace plumb::rt::cpu {
namespace {

float scalar_max_finite_abs(const std::vector<float>& x) {
  float m = 0;
  for (float v : x)
    if (std::isfinite(v) && std::fabs(v) > m) m = std::fabs(v);
  return m;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<float> ramp(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = (i % 2 ? -1.0f : 1.0f) * 0.25f * static_cast<float>(i % 7);
  return x;
}

TEST(CpuScan, MaxFiniteAbsSkipsInfAndNan) {
  const float specials[] = {INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX, -0.0f, 1e-45f, -3.5f};
  for (size_t n : {0u, 1u, 7u, 8u, 9u, 16u, 33u}) {
    for (size_t at = 0; at < n; ++at) {
      for (float s : specials) {
        std::vector<float> x = ramp(n);
        x[at] = s;
        EXPECT_TRUE(same_bits(max_finite_abs(x.data(), static_cast<int64_t>(n)), scalar_max_finite_abs(x)))
            << "n " << n << " at " << at << " value " << s;
      }
    }
  }
  const float none[] = {NAN, INFINITY};
  EXPECT_EQ(max_finite_abs(none, 2), 0.0f);
}

TEST(CpuScan, AllFiniteAndOrdinary) {
  for (size_t n : {1u, 8u, 17u}) {
    for (size_t at = 0; at < n; ++at) {
      std::vector<float> x = ramp(n);
      for (float& v : x)
        if (v == 0) v = 0.5f;  // ramp's +0 is ordinary; keep the base free of zeros anyway
      EXPECT_TRUE(all_finite(x.data(), static_cast<int64_t>(n)));
      EXPECT_TRUE(ordinary(x.data(), static_cast<int64_t>(n)));
      x[at] = -INFINITY;
      EXPECT_FALSE(all_finite(x.data(), static_cast<int64_t>(n)));
      EXPECT_TRUE(ordinary(x.data(), static_cast<int64_t>(n)));  // inf orders as the spec's max wants
      x[at] = NAN;
      EXPECT_FALSE(all_finite(x.data(), static_cast<int64_t>(n)));
      EXPECT_FALSE(ordinary(x.data(), static_cast<int64_t>(n)));
      x[at] = -0.0f;
      EXPECT_TRUE(all_finite(x.data(), static_cast<int64_t>(n)));
      EXPECT_FALSE(ordinary(x.data(), static_cast<int64_t>(n)));
      x[at] = 0.0f;
      EXPECT_TRUE(ordinary(x.data(), static_cast<int64_t>(n)));
    }
  }
}

TEST(CpuScan, ClampIsSpecMaxThenMin) {
  const std::vector<float> in = {-7.0f, -0.0f,     0.0f,     3.0f,   6.0f,   9.0f,
                                 NAN,   -INFINITY, INFINITY, 1e-45f, -1e-45f};
  for (float hi : {6.0f, INFINITY}) {
    std::vector<float> y = in;
    clamp(y.data(), static_cast<int64_t>(y.size()), 0.0f, hi);
    for (size_t i = 0; i < in.size(); ++i) {
      const float v = in[i];
      // spec max(v, +0) then min(.., hi): NaN stays, max(-0, +0) is +0
      float want = std::isnan(v) ? v : (v > 0.0f ? v : 0.0f);
      if (!std::isnan(want) && want > hi) want = hi;
      EXPECT_TRUE(same_bits(y[i], want)) << "in " << v << " hi " << hi << " got " << y[i];
    }
  }
}

// clamp_max: clamp with hi +inf and max_finite_abs of the result, in one pass.
TEST(CpuScan, ClampMaxIsClampThenMax) {
  const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 7.5f, -9.0f};
  for (size_t n : {1u, 9u, 40u}) {
    for (float s : specials) {
      for (float lo : {0.0f, -2.0f}) {
        std::vector<float> a = ramp(n), b;
        a[n / 2] = s;
        b = a;
        clamp(a.data(), static_cast<int64_t>(n), lo, INFINITY);
        const float want = max_finite_abs(a.data(), static_cast<int64_t>(n));
        const float got = clamp_max(b.data(), static_cast<int64_t>(n), lo);
        EXPECT_TRUE(same_bits(got, want)) << n << " " << s << " " << lo;
        EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0) << n << " " << s << " " << lo;
      }
    }
  }
}

}  // namespace
}  // namespace plumb::rt::cpu
