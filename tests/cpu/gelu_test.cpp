// The exact GELU after a matmul (runtime/cpu/onednn/fusion.h Fused::gelu): matched as the ONNX
// export writes it, declined when a value inside is seen elsewhere, and ref's bits (the pass runs
// ref's f32 operations and erff in the nodes' operand order; a non-finite operand sends the span
// to ref).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/builder.h"
#include "runtime/cpu/onednn/fusion.h"
#include "runtime/cpu/onednn/scan.h"
#include "runtime/session.h"
#include "tests/backends/run_on_backend.h"
#include "tests/cpu/cpu_test_util.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

using ir::BinaryKind;
using ir::Builder;
using ir::DType;
using ir::Type;
using testing::claimed;
using testing::make_tensor;
using testing::values;

constexpr int64_t kM = 8, kK = 32, kN = 48;

struct GeluCase {
  bool swapped = false;        // the commutative nodes' operands the other way round
  bool x_is_result = false;    // the product is also a graph result
  bool erf_is_result = false;  // ... or the erf's
  bool identity = false;       // w = [I 0], bias 0: the product is x exactly (columns past K: 0)
};

// x [M, K] -> matmul w -> + bias -> GELU (x / 1.4142135, erf, + 1, * x, * 0.5) -> y
ir::Graph gelu_graph(const GeluCase& gc) {
  ir::Graph g;
  Builder b(g);
  const std::vector<int64_t> d = {kM, kN};
  auto scalar = [&](double v) { return b.broadcast(b.scalar_float(DType::F32, v), b.shape_const(d), {}); };
  auto x = b.input(Type::tensor(DType::F32, {kM, kK}), "x");
  std::vector<double> w = values(kK * kN, 1, 0.5), bias = values(kN, 2, 1.0);
  if (gc.identity) {
    for (int64_t k = 0; k < kK * kN; ++k) w[k] = k / kN == k % kN ? 1.0 : 0.0;
    bias.assign(kN, 0.0);
  }
  auto y = b.matmul(x, b.const_floats(DType::F32, {kK, kN}, w), DType::F32);
  y = b.binary(BinaryKind::Add, y,
               b.broadcast(b.const_floats(DType::F32, {kN}, bias), b.shape_const(d), {1}));
  if (gc.x_is_result) b.output(y, "x");
  auto e = b.unary(ir::UnaryKind::Erf, b.binary(BinaryKind::Div, y, scalar(1.4142135)));
  if (gc.erf_is_result) b.output(e, "erf");
  auto a = gc.swapped ? b.binary(BinaryKind::Add, scalar(1), e) : b.binary(BinaryKind::Add, e, scalar(1));
  auto m = gc.swapped ? b.binary(BinaryKind::Mul, a, y) : b.binary(BinaryKind::Mul, y, a);
  b.output(gc.swapped ? b.binary(BinaryKind::Mul, scalar(0.5), m) : b.binary(BinaryKind::Mul, m, scalar(0.5)),
           "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

// The GELU (oneDNN's gelu_erf post-op for this standard form, spec/numerics.md's declared error)
// against ref's, loosely (the products differ by the matmul's order); NaN where ref has NaN.
void expect_gelu_of_product(const GeluCase& gc, float poison = 0.0f) {
  const ir::Graph g = gelu_graph(gc);
  const std::vector<double> v = values(kM * kK, 3, 2.0);
  Tensor in = make_tensor<float>({kM, kK}, std::vector<float>(v.begin(), v.end()));
  if (poison != 0.0f) in.as<float>()[5] = poison;
  std::string dispatch;
  const auto want = testing::run_on_backend(g, "ref", {in});
  const auto got = testing::run_on_backend(g, "cpu", {in}, &dispatch);
  const auto again = testing::run_on_backend(g, "cpu", {in});
  EXPECT_NE(dispatch.find("cpu span"), std::string::npos) << dispatch;
  ASSERT_EQ(got.size(), want.size());
  const Tensor& a = got.back().tensor();
  const Tensor& e = want.back().tensor();
  for (int64_t i = 0; i < a.numel(); ++i) {
    const float x = a.as<float>()[i], y = e.as<float>()[i];
    ASSERT_EQ(std::isnan(x), std::isnan(y)) << i;
    if (!std::isnan(y) && x != y) {
      ASSERT_LE(std::fabs(x - y), 1e-5 * std::max(1.0f, std::fabs(y))) << i << ": " << x << " vs " << y;
    }
  }
  if (poison != 0.0f) {  // the span went to ref: ref's bits
    EXPECT_EQ(std::memcmp(a.data, e.data, static_cast<size_t>(a.nbytes())), 0);
  }
  EXPECT_EQ(std::memcmp(again.back().tensor().data, a.data, static_cast<size_t>(a.nbytes())), 0)
      << "two runs differ";
}

TEST(CpuGelu, MatchedAfterMatmulAndBias) {
  GeluCase gc;
  EXPECT_EQ(claimed(gelu_graph(gc)), std::vector<std::string>{"matmul+bias+gelu"});
  gc.swapped = true;
  EXPECT_EQ(claimed(gelu_graph(gc)), std::vector<std::string>{"matmul+bias+gelu"});
}

TEST(CpuGelu, AValueSeenElsewhereIsNotSwallowed) {
  GeluCase gc;
  gc.x_is_result = true;
  EXPECT_EQ(claimed(gelu_graph(gc)), std::vector<std::string>{"matmul+bias"});
  gc.x_is_result = false;
  gc.erf_is_result = true;
  EXPECT_EQ(claimed(gelu_graph(gc)), std::vector<std::string>{"matmul+bias"});
}

TEST(CpuGelu, AgreesWithRef) {
  GeluCase gc;
  expect_gelu_of_product(gc);
  gc.swapped = true;
  expect_gelu_of_product(gc);
  gc.swapped = false;
  expect_gelu_of_product(gc, NAN);        // a NaN operand: the span runs on ref
  expect_gelu_of_product(gc, -INFINITY);  // -inf * 0 inside the GELU: ref's NaN
}

// The standard GELU is oneDNN's post-op, declared in spec/numerics.md: with the product exact (x
// times [I 0], bias 0), within u (6 |y| + 4.5 |x|) of the exact GELU of x (measured: 4.8 u
// (|y| + |x| / 2)); the backend declares the span's result; two runs give the same bits.
TEST(CpuGelu, PostOpWithinItsDeclaredError) {
  GeluCase gc;
  gc.identity = true;
  const ir::Graph g = gelu_graph(gc);
  auto cpu = make_backend("cpu");
  ASSERT_TRUE(cpu.has_value());
  const auto d = (*cpu)->declared_error(g, NumericMode::kNative);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].value, g.body.results[0]);
  EXPECT_EQ(d[0].width, onednn::kGeluDeclaredWidth);
  const std::vector<double> v = values(kM * kK, 5, 6.0);
  const Tensor in = make_tensor<float>({kM, kK}, std::vector<float>(v.begin(), v.end()));
  const auto got = testing::run_on_backend(g, "cpu", {in});
  const auto again = testing::run_on_backend(g, "cpu", {in});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(again.size(), 1u);
  const float* y = got[0].tensor().as<float>();
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t n = 0; n < kN; ++n) {
      const double x = n < kK ? static_cast<double>(static_cast<float>(v[i * kK + n])) : 0.0;
      const double e = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
      const double u = 5.9604644775390625e-08;
      EXPECT_LE(std::fabs(y[i * kN + n] - e),
                u * (onednn::kGeluDeclaredWidth * std::fabs(e) + 4.5 * std::fabs(x)))
          << i << "," << n << ": " << y[i * kN + n] << " vs " << e;
    }
  EXPECT_EQ(std::memcmp(again[0].tensor().data, y, kM * kN * sizeof(float)), 0);
}

// The pass alone is ref's sequence of f32 operations, bit for bit (ref's erf is std::erf(float)).
TEST(CpuGelu, PassIsRefsOperations) {
  const std::vector<double> v = values(4096, 7, 12.0);
  std::vector<float> y(v.begin(), v.end());
  y[0] = 0.0f;
  y[1] = -0.0f;
  y[2] = 3e38f;
  y[3] = -3e38f;
  const std::vector<float> x = y;
  for (bool swapped : {false, true}) {
    std::vector<float> out = x;
    cpu::gelu_erf(out.data(), static_cast<int64_t>(out.size()),
                  cpu::GeluForm{1.4142135f, 1.0f, 0.5f, !swapped, !swapped, !swapped});
    for (size_t i = 0; i < x.size(); ++i) {
      const float e = std::erf(x[i] / 1.4142135f);
      const float want = (x[i] * (e + 1.0f)) * 0.5f;
      EXPECT_EQ(std::memcmp(&out[i], &want, sizeof want), 0) << x[i];
    }
  }
}

}  // namespace
}  // namespace plumb::rt
