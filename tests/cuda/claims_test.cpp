// What the cuda backend claims and declines (runtime/cuda/claims.h): graph analysis only, run
// without a GPU. And, on a machine without one, the backend's one-line refusal.
#include <gtest/gtest.h>

#include <string>

#include "ir/builder.h"
#include "runtime/cuda/claims.h"
#include "runtime/cuda/cuda_backend.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt::cuda {
namespace {

using ir::BinaryKind;
using ir::Builder;
using ir::DType;
using ir::Type;

std::string declines(const std::vector<Claim>& claims) {
  std::string s;
  for (const Claim& c : claims)
    if (!c.support.yes) s += c.support.why_not + "\n";
  return s;
}

int claimed(const std::vector<Claim>& claims) {
  int n = 0;
  for (const Claim& c : claims) n += c.support.yes ? 1 : 0;
  return n;
}

TEST(CudaClaims, ElementwiseRunsAreOneSpanWithTheirConstants) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {2, 3}), "x");
  auto e = b.unary(ir::UnaryKind::Exp, x);
  auto c = b.const_floats(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto s = b.binary(BinaryKind::Add, e, c);
  auto m = b.compare(ir::CompareKind::Lt, s, c);
  b.output(b.select(m, s, c), "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto claims = claim_spans(g);
  ASSERT_EQ(claims.size(), 1u) << declines(claims);
  EXPECT_TRUE(claims[0].support.yes);
  EXPECT_EQ(claims[0].span.begin, 0u);
  EXPECT_EQ(claims[0].span.end, static_cast<uint32_t>(g.body.nodes.size()));
}

TEST(CudaClaims, OpsWithoutKernelsAreDeclinedByName) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {4, 5}), "x");
  auto i = b.input(Type::tensor(DType::I64, {3}), "i");
  auto t = b.transpose(x, {1, 0});
  auto gth = b.gather(ir::GatherKind::Axis, t, i, 0);        // taken: kind axis
  auto arg = b.arg_reduce(ir::ArgKind::Max, gth, 1, false);  // no kernel
  b.output(b.unary(ir::UnaryKind::Neg, arg), "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto claims = claim_spans(g);
  EXPECT_EQ(claimed(claims), 2);  // transpose + gather; neg
  EXPECT_NE(declines(claims).find("cuda: arg_reduce has no cuda kernel yet"), std::string::npos)
      << declines(claims);
}

TEST(CudaClaims, OpsWithRuntimeErrorsStayOnRef) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::I32, {4}), "x");
  auto f = b.input(Type::tensor(DType::F32, {4}), "f");
  auto q = b.binary(BinaryKind::Div, x, x);
  auto r = b.binary(BinaryKind::Rem, x, x);
  auto a = b.binary(BinaryKind::Add, q, r);  // integer add: taken
  auto ci = b.cast(f, DType::I32);           // float -> int: cast.R1
  b.output(b.binary(BinaryKind::Add, a, ci), "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto claims = claim_spans(g);
  const std::string d = declines(claims);
  EXPECT_NE(d.find("binary.R1"), std::string::npos) << d;
  EXPECT_NE(d.find("cast.R1"), std::string::npos) << d;
  EXPECT_EQ(claimed(claims), 2);
}

TEST(CudaClaims, DtypesWithoutKernelsAreDeclined) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F8E4M3FN, {4}), "x");
  auto d = b.input(Type::tensor(DType::F64, {2, 2}), "d");
  auto l = b.input(Type::tensor(DType::I64, {4}), "l");
  b.output(b.unary(ir::UnaryKind::Neg, x), "a");
  b.output(b.matmul(d, d, DType::F64), "b");
  b.output(b.cast(l, DType::BF16), "c");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto claims = claim_spans(g);
  const std::string why = declines(claims);
  EXPECT_EQ(claimed(claims), 0) << why;
  EXPECT_NE(why.find("unary f8e4m3fn"), std::string::npos) << why;
  EXPECT_NE(why.find("matmul f64 x f64 -> f64"), std::string::npos) << why;
  EXPECT_NE(why.find("round twice"), std::string::npos) << why;
}

TEST(CudaClaims, MatmulRowsOfTheDtypeTable) {
  ir::Graph g;
  Builder b(g);
  auto f = b.input(Type::tensor(DType::F32, {2, 3, 3}), "f");
  auto h = b.input(Type::tensor(DType::F16, {3, 3}), "h");
  auto u = b.input(Type::tensor(DType::U8, {3, 3}), "u");
  auto s = b.input(Type::tensor(DType::I8, {3, 3}), "s");
  auto mf = b.matmul(f, f, DType::F32);
  auto mh = b.matmul(h, h, DType::F32);
  auto mi = b.matmul(u, s, DType::I32);
  b.output(mf, "a");
  b.output(mh, "b");
  b.output(mi, "c");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto claims = claim_spans(g);
  EXPECT_EQ(declines(claims), "");
  EXPECT_TRUE(uses_cublas(g, g.body.nodes[claims[0].span.begin]));
  for (const ir::Node& n : g.body.nodes)
    if (n.op == ir::Op::MatMul && g.type_of(n.inputs[0]).dtype != DType::F32) {
      EXPECT_FALSE(uses_cublas(g, n));
    }
}

TEST(CudaClaims, ConvAndPoolAreTaken) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {1, 4, 8, 8}), "x");
  auto w = b.const_floats(DType::F32, {4, 4, 3, 3}, std::vector<double>(144, 0.5));
  const ir::ConvAttrs a = rt::testing::conv_attrs(2, 1);  // 3x3, padded to keep the size
  auto y = b.conv(a, x, w);
  ir::PoolAttrs p;
  p.kind = ir::PoolKind::Max;
  p.window = {1, 1, 2, 2};
  p.strides = {1, 1, 2, 2};
  p.dilations = {1, 1, 1, 1};
  p.pads_low = {0, 0, 0, 0};
  p.pads_high = {0, 0, 0, 0};
  b.output(b.pool(p, y, 2)[0], "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto claims = claim_spans(g);
  EXPECT_EQ(declines(claims), "");
  ASSERT_EQ(claims.size(), 1u);
  bool conv_blas = false;
  for (const ir::Node& n : g.body.nodes)
    if (n.op == ir::Op::Conv) conv_blas = uses_cublas(g, n);
  EXPECT_TRUE(conv_blas);
}

TEST(CudaClaims, SliceAndPadNeedConstantBounds) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {8}), "x");
  auto start = b.input(Type::tensor(DType::I64, {1}), "start");
  auto one = b.const_ints(DType::I64, {1}, {1});
  auto four = b.const_ints(DType::I64, {1}, {4});
  auto s1 = b.slice(x, b.const_ints(DType::I64, {1}, {2}), four, one);  // constant bounds: taken
  auto s2 = b.slice(x, start, four, one);                               // computed start: declined
  b.output(b.pad(s1, one, one, b.scalar_float(DType::F32, 0), ir::PadMode::Edge), "a");
  b.output(s2, "b");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto claims = claim_spans(g);
  EXPECT_NE(declines(claims).find("slice with bounds computed at run time"), std::string::npos)
      << declines(claims);
  int taken_nodes = 0;
  for (const Claim& c : claims)
    if (c.support.yes)
      for (uint32_t i = c.span.begin; i < c.span.end; ++i)
        taken_nodes += g.body.nodes[i].op != ir::Op::Constant;
  EXPECT_EQ(taken_nodes, 2);  // the first slice and the pad
}

TEST(CudaClaims, NoDeviceIsOneLineOrTheBackendIsThere) {
  // On a machine without a GPU (the build machines): Unsupported, one line naming the reason;
  // with one, the backend is made.
  auto b = plumb::rt::make_backend("cuda");
  const Status dev = device_status();
  if (dev.is_ok()) {
    EXPECT_TRUE(b.has_value()) << b.status().to_string();
    return;
  }
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.status().code(), ErrorCode::kUnsupported);
  const std::string msg = b.status().message();
  EXPECT_EQ(msg.rfind("cuda: no CUDA device: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_GT(msg.size(), std::string("cuda: no CUDA device: ").size()) << msg;
}

}  // namespace
}  // namespace plumb::rt::cuda
