// Islands (runtime/cpu/onednn/fusion.h): consecutive conv and max pool units whose inner values
// stay in oneDNN's layouts. What is joined and what is not, and the results against ref's: within
// the dot-product bound, NaN where ref has NaN, bit-identical from run to run, and ref's bits when
// the overflow guard sends the island to ref from an inner unit.
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
using testing::islands;
using testing::make_tensor;
using testing::values;

struct ChainCase {
  bool pool = false;              // a 3x3 stride-1 max pool between the convs
  bool clip = false;              // relu6 after the first conv, else relu
  bool residual = false;          // the second conv adds x (the island's input)
  bool inner_is_result = false;   // the first conv's activation is also a graph result
  bool inner_read_twice = false;  // ... or read by an add after the island
  double w2_scale = 1.0;          // the second conv's weights (large: its guard sends the island to ref)
  bool downsample = false;        // a third conv reads the first's activation and adds the second's (resnet)
};

constexpr int64_t kC = 8, kHW = 10;

ir::ValueId conv3x3(Builder& b, ir::ValueId x, uint32_t seed, double scale) {
  auto w = b.const_floats(DType::F32, {kC, kC, 3, 3}, values(kC * kC * 9, seed, scale));
  const ir::ConvAttrs a = testing::conv_attrs(2, 1);  // 3x3, padded to keep the size
  auto y = b.conv(a, x, w);
  auto bias = b.const_floats(DType::F32, {kC}, values(kC, seed + 1));
  return b.binary(BinaryKind::Add, y, b.broadcast(bias, b.shape_const({1, kC, kHW, kHW}), {1}));
}

// x -> conv+bias+relu|clip -> [maxpool] -> conv+bias [+ x] -> y
ir::Graph chain_graph(const ChainCase& cc) {
  ir::Graph g;
  Builder b(g);
  const std::vector<int64_t> d = {1, kC, kHW, kHW};
  auto x = b.input(Type::tensor(DType::F32, {1, kC, kHW, kHW}), "x");
  auto y = conv3x3(b, x, 1, 1.0);
  y = b.binary(BinaryKind::Max, y, b.broadcast(b.scalar_float(DType::F32, 0), b.shape_const(d), {}));
  if (cc.clip)
    y = b.binary(BinaryKind::Min, y, b.broadcast(b.scalar_float(DType::F32, 6), b.shape_const(d), {}));
  const ir::ValueId inner = y;
  if (cc.inner_is_result) b.output(inner, "inner");
  if (cc.pool) {
    ir::PoolAttrs p;
    p.kind = ir::PoolKind::Max;
    p.window = {1, 1, 3, 3};
    p.strides = {1, 1, 1, 1};
    p.dilations = {1, 1, 1, 1};
    p.pads_low = {0, 0, 1, 1};
    p.pads_high = {0, 0, 1, 1};
    y = b.pool(p, y)[0];
  }
  y = conv3x3(b, y, 3, cc.w2_scale);
  if (cc.downsample) {
    const ir::ValueId t = y;
    y = b.binary(BinaryKind::Add, conv3x3(b, inner, 5, 1.0), t);
    y = b.binary(BinaryKind::Max, y, b.broadcast(b.scalar_float(DType::F32, 0), b.shape_const(d), {}));
  }
  if (cc.residual) y = b.binary(BinaryKind::Add, y, x);
  if (cc.inner_read_twice) y = b.binary(BinaryKind::Add, y, inner);
  b.output(y, "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

TEST(CpuIsland, JoinsConsecutiveUnits) {
  ChainCase cc;
  EXPECT_EQ(islands(chain_graph(cc)), std::vector<std::string>{"conv+bias+relu > conv+bias"});
  cc.pool = cc.clip = cc.residual = true;
  EXPECT_EQ(islands(chain_graph(cc)), std::vector<std::string>{"conv+bias+clip > maxpool > conv+bias+sum"});
  const auto claims = onednn::match_graph(chain_graph(cc), NumericMode::kNative).claims;
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_TRUE(claims[0].support.yes);
}

// An inner value seen outside the island keeps the units apart (each its own span).
TEST(CpuIsland, AValueSeenOutsideStopsTheIsland) {
  ChainCase cc;
  cc.inner_is_result = true;
  EXPECT_EQ(islands(chain_graph(cc)), (std::vector<std::string>{"conv+bias+relu", "conv+bias"}));
}

// An inner value that a later unit of the island also adds (a residual block's input) is kept
// inside it, in its layout, for that sum.
TEST(CpuIsland, KeepsAnInnerSummand) {
  ChainCase cc;
  cc.inner_read_twice = true;
  EXPECT_EQ(islands(chain_graph(cc)), std::vector<std::string>{"conv+bias+relu > conv+bias+sum"});
  cc.pool = true;
  EXPECT_EQ(islands(chain_graph(cc)), std::vector<std::string>{"conv+bias+relu > maxpool > conv+bias+sum"});
  cc.inner_is_result = true;  // ... unless it is also a graph result
  EXPECT_EQ(islands(chain_graph(cc)),
            (std::vector<std::string>{"conv+bias+relu", "maxpool > conv+bias+sum"}));
}

std::vector<Tensor> input(uint32_t seed) {
  const std::vector<double> v = values(kC * kHW * kHW, seed);
  return {make_tensor<float>({1, kC, kHW, kHW}, std::vector<float>(v.begin(), v.end()))};
}

// Each result within `tol` of ref's (NaN where ref's is), or, with exact, ref's bits; and two
// cpu sessions bit-identical.
void expect_like_ref(const ir::Graph& g, const std::vector<Tensor>& in, double tol, bool exact = false) {
  std::string dispatch;
  const auto want = testing::run_on_backend(g, "ref", in);
  const auto got = testing::run_on_backend(g, "cpu", in, &dispatch);
  const auto again = testing::run_on_backend(g, "cpu", in);
  EXPECT_NE(dispatch.find("cpu span"), std::string::npos) << dispatch;
  ASSERT_EQ(want.size(), got.size());
  for (size_t k = 0; k < want.size(); ++k) {
    const Tensor& a = got[k].tensor();
    const Tensor& e = want[k].tensor();
    ASSERT_EQ(a.shape, e.shape);
    if (exact) {
      EXPECT_EQ(std::memcmp(a.data, e.data, static_cast<size_t>(a.nbytes())), 0);
    }
    for (int64_t i = 0; i < a.numel(); ++i) {
      const float x = a.as<float>()[i], y = e.as<float>()[i];
      ASSERT_EQ(std::isnan(x), std::isnan(y)) << "element " << i << ": " << x << " vs ref " << y;
      if (!std::isnan(y)) {
        ASSERT_LE(std::fabs(x - y), tol * std::max(1.0, std::fabs(double{y})))
            << "element " << i << ": " << x << " vs ref " << y;
      }
    }
    EXPECT_EQ(std::memcmp(again[k].tensor().data, a.data, static_cast<size_t>(a.nbytes())), 0)
        << "two runs differ";
  }
}

TEST(CpuIsland, AgreesWithRef) {
  // two products of 72 terms in [-1, 1] (the first's results up to ~73): generous for f32 sums
  const double tol = 1e-4;
  ChainCase cc;
  expect_like_ref(chain_graph(cc), input(5), tol);
  cc.pool = cc.clip = cc.residual = true;
  expect_like_ref(chain_graph(cc), input(6), tol);
  cc.clip = false;
  expect_like_ref(chain_graph(cc), input(7), tol);
  cc.residual = false;
  cc.inner_read_twice = true;  // the kept summand
  expect_like_ref(chain_graph(cc), input(10), tol);
  cc.pool = false;
  expect_like_ref(chain_graph(cc), input(11), tol);
}

TEST(CpuIsland, NanPropagatesThroughInnerUnits) {
  ChainCase cc;
  cc.pool = cc.clip = true;
  std::vector<Tensor> in = input(8);
  in[0].as<float>()[kHW * kHW + 3 * kHW + 4] = NAN;
  expect_like_ref(chain_graph(cc), in, 1e-4);
}

// The second conv's weights near 1e36: its guard (72 terms * max|x| * max|w|) passes FLT_MAX / 2,
// so the run goes back to ref from the inner unit and gives ref's bits.
TEST(CpuIsland, GuardOfAnInnerUnitRunsTheIslandOnRef) {
  ChainCase cc;
  cc.w2_scale = 1e36;
  expect_like_ref(chain_graph(cc), input(9), 0, true);
  cc.inner_read_twice = true;
  expect_like_ref(chain_graph(cc), input(12), 0, true);
}

// resnet's downsample block inside an island: a unit whose source is an earlier unit's result
// (kept), adding the previous unit's result.
TEST(CpuIsland, KeepsASourceForALaterUnit) {
  ChainCase cc;
  cc.downsample = true;
  EXPECT_EQ(islands(chain_graph(cc)),
            std::vector<std::string>{"conv+bias+relu > conv+bias > conv+bias+sum+relu"});
  expect_like_ref(chain_graph(cc), input(13), 1e-4);
  cc.inner_is_result = true;  // the shared source is a graph result: the first conv stays apart
  EXPECT_EQ(islands(chain_graph(cc)),
            (std::vector<std::string>{"conv+bias+relu", "conv+bias > conv+bias+sum+relu"}));
  expect_like_ref(chain_graph(cc), input(14), 1e-4);
  cc.inner_is_result = false;
  cc.w2_scale = 1e36;  // the guard of the second unit: the island on ref
  expect_like_ref(chain_graph(cc), input(15), 0, true);
}

}  // namespace
}  // namespace plumb::rt
