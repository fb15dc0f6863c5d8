// check/diff_quant.h: a float tensor that is another rounded to int8/uint8/int4 with a scale found
// from the data, per tensor or per axis; a real change is none.
#include "check/diff_quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "check/diff_weights.h"
#include "ir/status.h"

namespace plumb::check {
namespace {

// n deterministic weights in (-amplitude, amplitude), irregular (an LCG), rounded to f32.
std::vector<double> weights(size_t n, double amplitude, uint32_t seed) {
  std::vector<double> w(n);
  uint32_t s = seed;
  for (double& x : w) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(amplitude * ((s >> 8) / double(1 << 24) * 2 - 1));
  }
  return w;
}

// What a quantizer stores, read back: f32((clamp(round(w / s) + z) - z) * s), s rounded to f32.
std::vector<double> quantized(const std::vector<double>& w, double scale, int64_t z, int64_t lo, int64_t hi) {
  const float s = static_cast<float>(scale);
  std::vector<double> out;
  for (double x : w) {
    const double q = std::min<double>(hi, std::max<double>(lo, std::nearbyint(x / s) + z));
    out.push_back(static_cast<float>(static_cast<float>(q - z) * s));
  }
  return out;
}

double max_abs(const std::vector<double>& w) {
  double m = 0;
  for (double x : w) m = std::max(m, std::fabs(x));
  return m;
}

TEST(DiffQuant, Int8SymmetricPerTensorFindsItsScale) {
  const std::vector<double> a = weights(300, 0.37, 1);
  const double s = max_abs(a) / 127;
  const auto q = find_quantization(a, quantized(a, s, 0, -127, 127), {300});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->dtype, "int8");
  EXPECT_EQ(q->axis, -1);
  ASSERT_EQ(q->scales.size(), 1u);
  EXPECT_NEAR(q->scales[0], static_cast<float>(s), 1e-6 * s);
  EXPECT_EQ(q->zero_points[0], 0);
  EXPECT_EQ(q->describe(), "int8, symmetric, scale " + strfmt("%.6g", q->scales[0]));
}

TEST(DiffQuant, ScaleIsTheDataNotAListedValue) {
  // An odd scale (not max|w|/127): the grid of the values decides it.
  const std::vector<double> a = weights(200, 1.0, 2);
  const double s = 0.0123457;
  const auto q = find_quantization(a, quantized(a, s, 0, -128, 127), {200});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->dtype, "int8");
  EXPECT_NEAR(q->scales[0], static_cast<float>(s), 1e-6 * s);
}

TEST(DiffQuant, Int8PerAxisHasAScalePerSlice) {
  // 4 output channels of 3x3x3, amplitudes 10x apart: no single scale holds them.
  std::vector<double> a, b;
  std::vector<double> scales;
  for (int c = 0; c < 4; ++c) {
    const std::vector<double> w = weights(27, std::pow(10.0, -c), 10 + c);
    scales.push_back(max_abs(w) / 127);
    const std::vector<double> qw = quantized(w, scales.back(), 0, -127, 127);
    a.insert(a.end(), w.begin(), w.end());
    b.insert(b.end(), qw.begin(), qw.end());
  }
  const auto q = find_quantization(a, b, {4, 3, 3, 3});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->dtype, "int8");
  EXPECT_EQ(q->axis, 0);
  ASSERT_EQ(q->scales.size(), 4u);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(q->scales[c], static_cast<float>(scales[c]), 1e-6 * scales[c]);
  EXPECT_NE(q->describe().find("int8, symmetric, per axis 0: 4 scales "), std::string::npos) << q->describe();
}

TEST(DiffQuant, PerAxisAlongALaterAxis) {
  // A MatMul weight [K, N] quantized per column (axis 1).
  const size_t k = 40, n = 3;
  std::vector<double> a(k * n), b(k * n);
  for (size_t j = 0; j < n; ++j) {
    const std::vector<double> col = weights(k, 0.1 * (j + 1), 20 + static_cast<uint32_t>(j));
    const std::vector<double> qc = quantized(col, max_abs(col) / 127, 0, -127, 127);
    for (size_t i = 0; i < k; ++i) a[i * n + j] = col[i], b[i * n + j] = qc[i];
  }
  const auto q = find_quantization(a, b, {static_cast<int64_t>(k), static_cast<int64_t>(n)});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->axis, 1);
  EXPECT_EQ(q->scales.size(), n);
}

TEST(DiffQuant, Uint8WithAZeroPoint) {
  // Asymmetric: [min(w, 0), max(w, 0)] over 255 levels, zero point round(-min / s).
  std::vector<double> a = weights(500, 0.5, 3);
  for (double& x : a) x = static_cast<float>(x + 0.3);  // mostly positive: the zero point is low
  double lo = 0, hi = 0;
  for (double x : a) lo = std::min(lo, x), hi = std::max(hi, x);
  const double s = static_cast<float>((hi - lo) / 255);
  const int64_t z = static_cast<int64_t>(std::nearbyint(-lo / s));
  const auto q = find_quantization(a, quantized(a, s, z, 0, 255), {500});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->dtype, "uint8");
  EXPECT_EQ(q->zero_points[0], z);
  EXPECT_NEAR(q->scales[0], s, 1e-6 * s);
  EXPECT_EQ(q->describe(),
            strfmt("uint8, scale %.6g, zero point %lld", q->scales[0], static_cast<long long>(z)));
}

TEST(DiffQuant, Int4IsTheSmallestTypeThatHoldsIt) {
  const std::vector<double> a = weights(64, 2.0, 4);
  const auto q = find_quantization(a, quantized(a, max_abs(a) / 7, 0, -7, 7), {64});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->dtype, "int4");
}

TEST(DiffQuant, OneStepOffIsARealChange) {
  const std::vector<double> a = weights(300, 0.37, 5);
  const double s = max_abs(a) / 127;
  std::vector<double> b = quantized(a, s, 0, -127, 127);
  b[17] = static_cast<float>(b[17] + static_cast<float>(s));  // still on the grid, but not a's rounding
  EXPECT_FALSE(find_quantization(a, b, {300}).has_value());
}

TEST(DiffQuant, ScaledWeightsAreNoQuantization) {
  const std::vector<double> a = weights(300, 0.37, 6);
  std::vector<double> b;
  for (double x : a) b.push_back(static_cast<float>(x * 1.05));
  EXPECT_FALSE(find_quantization(a, b, {300}).has_value());
  EXPECT_FALSE(find_quantization(a, b, {3, 100}).has_value());
}

TEST(DiffQuant, FewValuesAreNoEvidence) {
  // A few values lie on some grid whatever they are: fewer than 5 distinct values decide nothing.
  EXPECT_FALSE(find_quantization({0.5, 0.5001, -0.5}, {0.5, 0.5, -0.5}, {3}).has_value());
  EXPECT_FALSE(find_quantization({0.1, 0.2, 0.3001, -0.1, 0.2}, {0.1, 0.2, 0.3, -0.1, 0.2}, {5}).has_value());
  // Per axis: slices of one element each are no evidence either.
  const std::vector<double> a = weights(8, 1.0, 9);
  std::vector<double> b = a;
  b[3] = static_cast<float>(b[3] * 1.001);
  EXPECT_FALSE(find_quantization(a, b, {8, 1}).has_value());
}

TEST(DiffQuant, SaturationIsARealChange) {
  // A weight far past the others clipped to the grid's end: more than half a step away.
  std::vector<double> a = weights(300, 0.37, 7);
  const double s = max_abs(a) / 127;
  a[5] = 0.37 * 3;
  EXPECT_FALSE(find_quantization(a, quantized(a, s, 0, -127, 127), {300}).has_value());
}

ir::ConstantData f32_constant(const std::vector<double>& v) {
  std::vector<float> f(v.begin(), v.end());
  return ir::ConstantData::copy_of(
      ir::Type::tensor(ir::DType::F32, ir::static_shape({static_cast<int64_t>(v.size())})), f.data(),
      f.size() * sizeof(float));
}

TEST(DiffWeights, Int8IsPrecisionLoss) {
  const std::vector<double> a = weights(300, 0.37, 8);
  const auto d = diff_weights(f32_constant(a), f32_constant(quantized(a, max_abs(a) / 127, 0, -127, 127)));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->loss, "int8");
  EXPECT_EQ(d->describe().rfind("precision loss (equal after rounding to int8, symmetric, scale ", 0), 0u)
      << d->describe();
}

}  // namespace
}  // namespace plumb::check
