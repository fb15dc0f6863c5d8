// The cpu backend's softmax and layer normalization spans (runtime/cpu/onednn/norm_match.h): the
// ONNX lowering's f64 forms are matched, a failed precondition is declined with its reason, the
// results lie within spec/numerics.md's declared error of the exact values, a run on a non-finite
// source gives ref's bits, and two runs give the same bits.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>

#include "ir/builder.h"
#include "runtime/cpu/onednn/norm_match.h"
#include "runtime/session.h"
#include "tests/backends/run_on_backend.h"
#include "tests/cpu/cpu_test_util.h"

namespace plumb::rt {
namespace {

using ir::BinaryKind;
using ir::Builder;
using ir::DType;
using ir::ReduceKind;
using ir::Type;
using ir::UnaryKind;
using onednn::NormSpan;
using testing::run_on_backend;

constexpr double kU = 5.9604644775390625e-08;  // f32's unit roundoff, 2^-24

// cpu_test_util's values, in f32 (each value is exact in f32: a 24-bit fraction times scale).
std::vector<float> values(int64_t n, uint32_t seed, float scale) {
  const std::vector<double> v = testing::values(n, seed, scale);
  return std::vector<float>(v.begin(), v.end());
}

Tensor tensor(const std::vector<int64_t>& shape, const std::vector<float>& v) {
  Tensor t = Tensor::allocate(DType::F32, shape);
  std::memcpy(t.data, v.data(), v.size() * sizeof(float));
  return t;
}

// Softmax over `axis` of x [4, 6, 40] as the ONNX lowering emits it; inner_result: the max is
// also a graph result (the span may not swallow it).
ir::Graph softmax_graph(int64_t axis, bool inner_result = false) {
  ir::Graph g;
  Builder b(g);
  const std::vector<int64_t> d = {4, 6, 40};
  std::vector<int64_t> keep;
  for (int64_t k = 0; k < 3; ++k)
    if (k != axis) keep.push_back(k);
  const auto x = b.input(Type::tensor(DType::F32, {4, 6, 40}), "x");
  const auto sh = b.shape_const(d);
  const auto x64 = b.cast(x, DType::F64);
  const auto m = b.reduce(ReduceKind::Max, x64, {axis});
  const auto dd = b.binary(BinaryKind::Sub, x64, b.broadcast(m, sh, keep));
  const auto s = b.reduce(ReduceKind::Sum, b.unary(UnaryKind::Exp, dd), {axis});
  const auto q = b.binary(BinaryKind::Div, b.unary(UnaryKind::Exp, dd), b.broadcast(s, sh, keep));
  b.output(b.cast(q, DType::F32, true), "y");
  if (inner_result) b.output(m, "max");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

// LayerNormalization over the last axis of x [5, 64] as the ONNX lowering emits it (the count of
// the row as a reduce sum of a broadcast 1), with gamma and beta f32 constants cast to f64.
ir::Graph layer_norm_graph(double eps = static_cast<double>(1e-5f), bool with_beta = true) {
  ir::Graph g;
  Builder b(g);
  const std::vector<int64_t> d = {5, 64};
  const auto x = b.input(Type::tensor(DType::F32, {5, 64}), "x");
  auto vec = [&](uint32_t seed) {
    std::vector<double> v;
    for (float f : values(64, seed, 1.0f)) v.push_back(f);
    return b.broadcast(b.cast(b.const_floats(DType::F32, {64}, v), DType::F64), b.shape_const(d), {1});
  };
  auto count = [&] {
    return b.reduce(ReduceKind::Sum, b.broadcast(b.scalar_float(DType::F64, 1), b.shape_const(d), {}), {1});
  };
  const auto x64 = b.cast(x, DType::F64);
  const auto mean = b.binary(BinaryKind::Div, b.reduce(ReduceKind::Sum, x64, {1}), count());
  const auto dd = b.binary(BinaryKind::Sub, x64, b.broadcast(mean, b.shape_const(d), {0}));
  const auto var =
      b.binary(BinaryKind::Div, b.reduce(ReduceKind::Sum, b.binary(BinaryKind::Mul, dd, dd), {1}), count());
  const auto ve = b.binary(BinaryKind::Add, b.broadcast(var, b.shape_const(d), {0}),
                           b.broadcast(b.scalar_float(DType::F64, eps), b.shape_const(d), {}));
  const auto inv = b.binary(BinaryKind::Div, b.broadcast(b.scalar_float(DType::F64, 1), b.shape_const(d), {}),
                            b.unary(UnaryKind::Sqrt, ve));
  auto y = b.binary(BinaryKind::Mul, b.binary(BinaryKind::Mul, dd, inv), vec(7));
  if (with_beta) y = b.binary(BinaryKind::Add, y, vec(8));
  b.output(b.cast(y, DType::F32, true), "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

std::string declines(const ir::Graph& g) {
  std::string out;
  for (const Claim& c : onednn::match_norms(g, NumericMode::kNative).declines)
    out += c.support.why_not + "\n";
  return out;
}

TEST(CpuNorm, SoftmaxMatchedOnAnyAxis) {
  for (int64_t axis = 0; axis < 3; ++axis) {
    const ir::Graph g = softmax_graph(axis);
    const auto m = onednn::match_norms(g, NumericMode::kNative);
    ASSERT_EQ(m.spans.size(), 1u) << declines(g);
    EXPECT_EQ(m.spans[0].kind, NormSpan::Kind::kSoftmax);
    EXPECT_EQ(m.spans[0].axis, axis);
    EXPECT_EQ(m.spans[0].result, g.body.results[0]);
  }
  EXPECT_TRUE(onednn::match_norms(softmax_graph(2), NumericMode::kPrecise).spans.empty());
}

TEST(CpuNorm, SoftmaxDeclinedWhenAnInnerValueIsAResult) {
  const ir::Graph g = softmax_graph(2, true);
  EXPECT_TRUE(onednn::match_norms(g, NumericMode::kNative).spans.empty());
  EXPECT_NE(declines(g).find("softmax not mapped: a value inside it is a graph result"), std::string::npos)
      << declines(g);
  std::string dispatch;
  const std::vector<float> x = values(960, 3, 8.0f);
  const auto cpu = run_on_backend(g, "cpu", {tensor({4, 6, 40}, x)}, &dispatch);
  const auto ref = run_on_backend(g, "ref", {tensor({4, 6, 40}, x)});
  ASSERT_EQ(cpu.size(), 2u);
  EXPECT_EQ(std::memcmp(cpu[0].tensor().data, ref[0].tensor().data, 960 * sizeof(float)), 0);
  EXPECT_NE(dispatch.find("softmax not mapped"), std::string::npos) << dispatch;
}

// Within 16 u of the exact softmax of fl32(x - max) (spec/numerics.md), and the same bits twice.
TEST(CpuNorm, SoftmaxWithinItsDeclaredError) {
  for (int64_t axis = 0; axis < 3; ++axis) {
    const ir::Graph g = softmax_graph(axis);
    std::vector<float> x = values(960, 5 + static_cast<uint32_t>(axis), 12.0f);
    x[17] = -10000.0f;  // a masked score
    std::string dispatch;
    const auto y = run_on_backend(g, "cpu", {tensor({4, 6, 40}, x)}, &dispatch);
    ASSERT_EQ(y.size(), 1u);
    EXPECT_NE(dispatch.find("cpu span"), std::string::npos) << dispatch;
    const int64_t dims[3] = {4, 6, 40};
    int64_t stride = 1;
    for (int64_t k = axis + 1; k < 3; ++k) stride *= dims[k];
    const int64_t n = dims[axis];
    const float* got = y[0].tensor().as<float>();
    double worst = 0;
    for (int64_t i = 0; i < 960; ++i) {
      if ((i / stride) % n != 0) continue;  // i: the first element of a row
      float m = -INFINITY;
      for (int64_t k = 0; k < n; ++k) m = std::max(m, x[i + k * stride]);
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(static_cast<double>(x[i + k * stride] - m));
      for (int64_t k = 0; k < n; ++k) {
        const double e = std::exp(static_cast<double>(x[i + k * stride] - m)) / sum;
        const double err = std::fabs(got[i + k * stride] - e);
        if (e >= FLT_MIN)
          worst = std::max(worst, err / (kU * e));
        else
          EXPECT_LT(err, FLT_MIN);
      }
    }
    EXPECT_LE(worst, onednn::kSoftmaxDeclaredWidth) << "axis " << axis;
    const auto again = run_on_backend(g, "cpu", {tensor({4, 6, 40}, x)});
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(std::memcmp(again[0].tensor().data, got, 960 * sizeof(float)), 0);
  }
}

// A source with an inf or a NaN runs on ref: ref's bits, special values included.
TEST(CpuNorm, NonFiniteSourceGivesRefsBits) {
  const ir::Graph sm = softmax_graph(2);
  const ir::Graph ln = layer_norm_graph();
  std::vector<float> x = values(960, 9, 3.0f);
  x[5] = INFINITY;
  x[300] = NAN;
  x[700] = -INFINITY;
  for (const ir::Graph* g : {&sm, &ln}) {
    const std::vector<int64_t> shape =
        g == &sm ? std::vector<int64_t>{4, 6, 40} : std::vector<int64_t>{5, 64};
    const size_t n = g == &sm ? 960 : 320;
    const auto cpu = run_on_backend(*g, "cpu", {tensor(shape, std::vector<float>(x.begin(), x.begin() + n))});
    const auto ref = run_on_backend(*g, "ref", {tensor(shape, std::vector<float>(x.begin(), x.begin() + n))});
    ASSERT_EQ(cpu.size(), 1u);
    ASSERT_EQ(ref.size(), 1u);
    EXPECT_EQ(std::memcmp(cpu[0].tensor().data, ref[0].tensor().data, n * sizeof(float)), 0);
  }
}

TEST(CpuNorm, LayerNormMatched) {
  for (bool beta : {true, false}) {
    const ir::Graph g = layer_norm_graph(static_cast<double>(1e-5f), beta);
    const auto m = onednn::match_norms(g, NumericMode::kNative);
    ASSERT_EQ(m.spans.size(), 1u) << declines(g);
    EXPECT_EQ(m.spans[0].kind, NormSpan::Kind::kLayerNorm);
    EXPECT_EQ(m.spans[0].gamma.size(), 64u);
    EXPECT_EQ(m.spans[0].beta.size(), beta ? 64u : 0u);
    EXPECT_EQ(m.spans[0].eps, 1e-5f);
  }
}

TEST(CpuNorm, LayerNormDeclinedForAnEpsilonF32CannotHold) {
  const ir::Graph g = layer_norm_graph(1e-5);  // the double nearest 1e-5 is not an f32 value
  EXPECT_TRUE(onednn::match_norms(g, NumericMode::kNative).spans.empty());
  EXPECT_NE(declines(g).find("layer_norm not mapped: epsilon is not a nonnegative f32 value"),
            std::string::npos)
      << declines(g);
}

// Each element within the core ops' f32 error plus the declared 6 u of d * inv: bounded here by
// (8 + 6) u |gamma d inv| + 2 u |beta| (about eight roundings before the shift), against f64.
TEST(CpuNorm, LayerNormWithinItsDeclaredError) {
  const ir::Graph g = layer_norm_graph();
  const auto m = onednn::match_norms(g, NumericMode::kNative);
  ASSERT_EQ(m.spans.size(), 1u);
  std::vector<float> x = values(320, 11, 4.0f);
  for (int64_t k = 64; k < 128; ++k) x[k] += 100.0f;  // a row far from zero
  std::string dispatch;
  const auto y = run_on_backend(g, "cpu", {tensor({5, 64}, x)}, &dispatch);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_NE(dispatch.find("cpu span"), std::string::npos) << dispatch;
  const float* got = y[0].tensor().as<float>();
  const std::vector<float>& gamma = m.spans[0].gamma;
  const std::vector<float>& beta = m.spans[0].beta;
  for (int64_t r = 0; r < 5; ++r) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < 64; ++k) mean += x[r * 64 + k];
    mean /= 64;
    for (int64_t k = 0; k < 64; ++k) var += (x[r * 64 + k] - mean) * (x[r * 64 + k] - mean);
    var /= 64;
    const double inv = 1 / std::sqrt(var + static_cast<double>(1e-5f));
    for (int64_t k = 0; k < 64; ++k) {
      const double n = (x[r * 64 + k] - mean) * inv;
      const double e = n * gamma[k] + beta[k];
      // the centring's own error: |mean| u per rounding of the mean, relative to the spread
      const double centring = 4 * kU * std::fabs(mean) * inv * std::fabs(gamma[k]);
      const double bound =
          (8 + onednn::kLayerNormDeclaredWidth) * kU * std::fabs(n * gamma[k]) + 2 * kU * std::fabs(beta[k]);
      EXPECT_LE(std::fabs(got[r * 64 + k] - e), bound + centring) << "row " << r << " col " << k;
    }
  }
  const auto again = run_on_backend(g, "cpu", {tensor({5, 64}, x)});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(std::memcmp(again[0].tensor().data, got, 320 * sizeof(float)), 0);
}

// The backend declares what it takes: one value per claimed span, with the spec's width.
TEST(CpuNorm, DeclaredErrorNamesTheSpansValues) {
  auto cpu = make_backend("cpu");
  ASSERT_TRUE(cpu.has_value()) << cpu.status().to_string();
  const ir::Graph sm = softmax_graph(1);
  const auto d = (*cpu)->declared_error(sm, NumericMode::kNative);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].value, sm.body.results[0]);
  EXPECT_EQ(d[0].width, onednn::kSoftmaxDeclaredWidth);
  const ir::Graph ln = layer_norm_graph();
  const auto dl = (*cpu)->declared_error(ln, NumericMode::kNative);
  ASSERT_EQ(dl.size(), 1u);
  EXPECT_EQ(dl[0].width, onednn::kLayerNormDeclaredWidth);
  EXPECT_TRUE((*cpu)->declared_error(softmax_graph(2, true), NumericMode::kNative).empty());
  auto ref = make_backend("ref");
  ASSERT_TRUE(ref.has_value());
  EXPECT_TRUE((*ref)->declared_error(sm, NumericMode::kNative).empty());
}

}  // namespace
}  // namespace plumb::rt
