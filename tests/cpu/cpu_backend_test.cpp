// The cpu backend (runtime/cpu/onednn/): what the pattern matcher claims and declines, and the
// results of the claimed spans against ref's: within the dot-product bound, NaN where ref has NaN,
// and bit-identical from run to run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/builder.h"
#include "runtime/cpu/onednn/fusion.h"
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
using testing::run_on_backend;
using testing::values;

int64_t numel(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

struct ConvCase {
  DType dtype = DType::F32;
  int64_t c = 8, o = 8, groups = 1, k = 3, hw = 9;
  bool bias = true, residual = false, relu = false, clip = false;
  bool conv_is_result = false;  // the conv's own result is also a graph result
};

// x -> conv -> [+ broadcast bias] -> [+ r] -> [max 0 | max 0, min 6] -> y, as the ONNX lowering
// emits it (constants and broadcasts beside the nodes that read them).
ir::Graph conv_graph(const ConvCase& cc) {
  ir::Graph g;
  Builder b(g);
  const std::vector<int64_t> xd = {1, cc.c, cc.hw, cc.hw}, yd = {1, cc.o, cc.hw, cc.hw};
  const ir::Shape xs = {1, cc.c, cc.hw, cc.hw};
  auto x = b.input(Type::tensor(cc.dtype, xs), "x");
  auto r = cc.residual ? b.input(Type::tensor(cc.dtype, {1, cc.o, cc.hw, cc.hw}), "r") : ir::kNoValue;
  const std::vector<int64_t> wd = {cc.o, cc.c / cc.groups, cc.k, cc.k};
  auto w = b.const_floats(cc.dtype, wd, values(numel(wd), 1));
  ir::ConvAttrs a = testing::conv_attrs(2, cc.k / 2);
  a.to = cc.dtype;
  a.groups = cc.groups;
  auto y = b.conv(a, x, w);
  if (cc.conv_is_result) b.output(y, "conv");
  if (cc.bias) {
    auto bias = b.const_floats(cc.dtype, {cc.o}, values(cc.o, 2));
    auto bb = b.broadcast(bias, b.shape_const(yd), {1});
    y = b.binary(BinaryKind::Add, y, bb);
  }
  if (cc.residual) y = b.binary(BinaryKind::Add, y, r);
  if (cc.relu || cc.clip) {
    auto zero = b.broadcast(b.scalar_float(cc.dtype, 0), b.shape_const(yd), {});
    y = b.binary(BinaryKind::Max, y, zero);
  }
  if (cc.clip) {
    auto six = b.broadcast(b.scalar_float(cc.dtype, 6), b.shape_const(yd), {});
    y = b.binary(BinaryKind::Min, y, six);
  }
  b.output(y, "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

// x [M, K] -> matmul w [K, N] (or transpose of a constant [N, K]) -> reshape [2, M/2, N] ->
// + broadcast bias [N] -> y.
ir::Graph matmul_graph(bool constant_rhs, bool transposed = false) {
  ir::Graph g;
  Builder b(g);
  const int64_t M = 6, K = 40, N = 24;
  auto x = b.input(Type::tensor(DType::F32, {M, K}), "x");
  auto w = transposed     ? b.transpose(b.const_floats(DType::F32, {N, K}, values(K * N, 3)), {1, 0})
           : constant_rhs ? b.const_floats(DType::F32, {K, N}, values(K * N, 3))
                          : b.input(Type::tensor(DType::F32, {K, N}), "w");
  auto y = b.matmul(x, w, DType::F32);
  y = b.reshape(y, b.shape_const({2, M / 2, N}));
  auto bias = b.const_floats(DType::F32, {N}, values(N, 4));
  auto bb = b.broadcast(bias, b.shape_const({2, M / 2, N}), {2});
  y = b.binary(BinaryKind::Add, bb, y);
  b.output(y, "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

// x -> max pool -> y, with the same padding at both ends of each dim.
ir::Graph maxpool_graph(std::vector<ir::Dim> shape, std::vector<int64_t> window, std::vector<int64_t> strides,
                        std::vector<int64_t> dilations, std::vector<int64_t> pads) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, std::move(shape)), "x");
  ir::PoolAttrs a;
  a.kind = ir::PoolKind::Max;
  a.window = std::move(window);
  a.strides = std::move(strides);
  a.dilations = std::move(dilations);
  a.pads_low = pads;
  a.pads_high = std::move(pads);
  b.output(b.pool(a, x)[0], "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

// x [1, 8, 9, 9] -> max pool 3x3, stride 2, pads 1 (resnet's) -> y.
ir::Graph maxpool_graph() {
  return maxpool_graph({1, 8, 9, 9}, {1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1, 1, 1}, {0, 0, 1, 1});
}

// x [1, 1, H, 4] -> max pool 2x3, dilations 2x1, pads 1 on H. With H = 1 each H window's two taps
// (rows -1 and 1) step over the one real row: every result is a window wholly in the padding
// (plumb gen's campaign: oneDNN gave -FLT_MAX there, the core -inf). With H = 2 the taps reach row 1.
ir::Graph dilated_maxpool_graph(int64_t height) {
  return maxpool_graph({1, 1, height, 4}, {1, 1, 2, 3}, {1, 1, 1, 1}, {1, 1, 2, 1}, {0, 0, 1, 0});
}

std::string declines(const ir::Graph& g, NumericMode mode = NumericMode::kNative) {
  std::string out;
  for (const Claim& c : onednn::match_graph(g, mode).claims)
    if (!c.support.yes) out += c.support.why_not + "\n";
  return out;
}

TEST(CpuFusion, ConvBiasRelu) {
  ConvCase cc;
  cc.relu = true;
  EXPECT_EQ(claimed(conv_graph(cc)), std::vector<std::string>{"conv+bias+relu"});
}

TEST(CpuFusion, ConvBiasClipResidual) {
  ConvCase cc;
  cc.clip = true;
  EXPECT_EQ(claimed(conv_graph(cc)), std::vector<std::string>{"conv+bias+clip"});
  cc.clip = false;
  cc.residual = cc.relu = true;
  EXPECT_EQ(claimed(conv_graph(cc)), std::vector<std::string>{"conv+bias+sum+relu"});
}

TEST(CpuFusion, AValueSeenElsewhereIsNotSwallowed) {
  ConvCase cc;
  cc.relu = true;
  cc.conv_is_result = true;
  EXPECT_EQ(claimed(conv_graph(cc)), std::vector<std::string>{"conv"});
}

TEST(CpuFusion, MatmulThroughItsReshape) {
  EXPECT_EQ(claimed(matmul_graph(true)), std::vector<std::string>{"matmul+bias"});
  EXPECT_EQ(claimed(matmul_graph(false)), std::vector<std::string>{"matmul+bias"});
  EXPECT_EQ(claimed(matmul_graph(true, true)), std::vector<std::string>{"matmul(transposed constant)+bias"});
}

TEST(CpuFusion, MaxPool) { EXPECT_EQ(claimed(maxpool_graph()), std::vector<std::string>{"maxpool"}); }

TEST(CpuFusion, DeclinesSayWhy) {
  ConvCase cc;
  cc.dtype = DType::F16;
  EXPECT_TRUE(claimed(conv_graph(cc)).empty());
  EXPECT_NE(declines(conv_graph(cc)).find("only f32"), std::string::npos) << declines(conv_graph(cc));
  cc.dtype = DType::F32;
  EXPECT_TRUE(claimed(conv_graph(cc), NumericMode::kPrecise).empty());
  EXPECT_NE(declines(conv_graph(cc), NumericMode::kPrecise).find("f64"), std::string::npos);
}

std::vector<Tensor> inputs_of(const ir::Graph& g, uint32_t seed) {
  std::vector<Tensor> in;
  for (ir::ValueId p : g.body.params) {
    std::vector<int64_t> d;
    for (const ir::Dim& x : g.type_of(p).shape) d.push_back(x.size);
    const std::vector<double> v = values(numel(d), seed++);
    in.push_back(make_tensor<float>(d, std::vector<float>(v.begin(), v.end())));
  }
  return in;
}

// |cpu - ref| within twice the DotProduct bound of spec/numerics.md for operands in [-1, 1]
// (n terms of magnitude <= 1, plus bias and summand), NaN exactly where ref has NaN, zeros of
// ref's sign; and cpu
// bit-identical across two sessions.
void expect_close_to_ref(const ir::Graph& g, int64_t n, uint32_t seed, bool with_nan = false) {
  std::vector<Tensor> in = inputs_of(g, seed);
  if (with_nan) in[0].as<float>()[5] = NAN;
  std::string dispatch;
  const auto want = run_on_backend(g, "ref", in);
  const auto got = run_on_backend(g, "cpu", in, &dispatch);
  const auto again = run_on_backend(g, "cpu", in);
  ASSERT_EQ(want.size(), got.size());
  EXPECT_NE(dispatch.find("cpu span"), std::string::npos) << dispatch;
  const double eps = std::ldexp(1.0, -23);
  const double tol = 2 * (n * eps * (n + 2.0)) + 2 * eps * (n + 2.0);
  for (size_t k = 0; k < want.size(); ++k) {
    const Tensor& a = got[k].tensor();
    const Tensor& e = want[k].tensor();
    ASSERT_EQ(a.shape, e.shape);
    int64_t nans = 0;
    for (int64_t i = 0; i < a.numel(); ++i) {
      const float x = a.as<float>()[i], y = e.as<float>()[i];
      ASSERT_EQ(std::isnan(x), std::isnan(y)) << "element " << i << ": " << x << " vs ref " << y;
      nans += std::isnan(y);
      if (!std::isnan(y)) {
        ASSERT_LE(std::fabs(x - y), tol) << "element " << i << ": " << x << " vs ref " << y;
      }
      if (x == 0 && y == 0) {  // a relu/clip post-op's zero is max(x, 0)'s +0, as ref's
        ASSERT_EQ(std::signbit(x), std::signbit(y)) << "element " << i << ": the sign of zero";
      }
    }
    if (with_nan) {
      EXPECT_GT(nans, 0);
    }
    ASSERT_EQ(again[k].tensor().nbytes(), a.nbytes());
    EXPECT_EQ(std::memcmp(again[k].tensor().data, a.data, static_cast<size_t>(a.nbytes())), 0)
        << "two runs differ";
  }
}

TEST(CpuNumerics, ConvPatternsAgreeWithRef) {
  ConvCase cc;
  cc.relu = true;
  expect_close_to_ref(conv_graph(cc), 8 * 9, 10);
  cc.relu = false;
  cc.clip = true;
  expect_close_to_ref(conv_graph(cc), 8 * 9, 11);
  cc.clip = false;
  cc.residual = cc.relu = true;
  cc.o = 16;
  expect_close_to_ref(conv_graph(cc), 8 * 9, 12);
  ConvCase dw;  // depthwise, as mobilenet's
  dw.groups = dw.c = dw.o = 16;
  dw.clip = true;
  expect_close_to_ref(conv_graph(dw), 9, 13);
  ConvCase first;  // three input channels, 7x7, as a resnet's first conv
  first.c = 3;
  first.k = 7;
  first.hw = 16;
  first.relu = true;
  expect_close_to_ref(conv_graph(first), 3 * 49, 14);
}

TEST(CpuNumerics, MatmulAgreesWithRef) {
  expect_close_to_ref(matmul_graph(true), 40, 20);
  expect_close_to_ref(matmul_graph(false), 40, 21);
  expect_close_to_ref(matmul_graph(true, true), 40, 22);
}

TEST(CpuFusion, MaxPoolWhoseDilatedWindowStepsOverTheOperandRunsOnRef) {
  EXPECT_TRUE(claimed(dilated_maxpool_graph(1)).empty());
  EXPECT_NE(declines(dilated_maxpool_graph(1)).find("entirely in the padding"), std::string::npos)
      << declines(dilated_maxpool_graph(1));
  EXPECT_EQ(claimed(dilated_maxpool_graph(2)), std::vector<std::string>{"maxpool"});
  const ir::Graph g = dilated_maxpool_graph(1);
  const std::vector<Tensor> in = inputs_of(g, 41);
  const auto want = run_on_backend(g, "ref", in);
  const auto got = run_on_backend(g, "cpu", in);
  ASSERT_EQ(got.size(), 1u);
  const Tensor& y = got[0].tensor();
  ASSERT_EQ(y.nbytes(), want[0].tensor().nbytes());
  EXPECT_EQ(std::memcmp(y.data, want[0].tensor().data, static_cast<size_t>(y.nbytes())), 0);
  EXPECT_EQ(y.as<float>()[0], -INFINITY);
}

// Max pool is exact: bit for bit ref's, also with a NaN and with -0 and +0 in a window (those
// runs take ref's path).
TEST(CpuNumerics, MaxPoolIsRefBitForBit) {
  const ir::Graph g = maxpool_graph();
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<Tensor> in = inputs_of(g, 40);
    if (variant == 1) in[0].as<float>()[10] = NAN;
    if (variant == 2) in[0].as<float>()[0] = -0.0f, in[0].as<float>()[1] = 0.0f, in[0].as<float>()[9] = -0.0f;
    if (variant == 2)
      for (int i = 2; i < 20; ++i) in[0].as<float>()[i] = -1.0f;
    std::string dispatch;
    const auto want = run_on_backend(g, "ref", in);
    const auto got = run_on_backend(g, "cpu", in, &dispatch);
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_NE(dispatch.find("cpu span"), std::string::npos) << dispatch;
    const Tensor& a = got[0].tensor();
    ASSERT_EQ(a.nbytes(), want[0].tensor().nbytes());
    EXPECT_EQ(std::memcmp(a.data, want[0].tensor().data, static_cast<size_t>(a.nbytes())), 0)
        << "variant " << variant;
  }
}

TEST(CpuNumerics, NanPropagatesThroughFusedActivations) {
  ConvCase cc;
  cc.relu = true;
  expect_close_to_ref(conv_graph(cc), 8 * 9, 30, true);
  cc.relu = false;
  cc.clip = true;
  expect_close_to_ref(conv_graph(cc), 8 * 9, 31, true);
}

}  // namespace
}  // namespace plumb::rt
