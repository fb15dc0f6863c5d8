// check/bound.h: the stochastic graph's spread follows the local error model, exact results are
// not perturbed, and the element and aggregate tests of the noise bound.
#include "check/bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "check/eval.h"
#include "ir/verify.h"
#include "runtime/session.h"
#include "tests/check/check_test_util.h"

namespace plumb::check {
namespace {

using testing::doubles;
using testing::f32;
using testing::graph_of;

std::vector<rt::RtValue> run_precise(const ir::Graph& g, const std::vector<rt::RtValue>& inputs) {
  EXPECT_TRUE(ir::verify(g).is_ok()) << ir::verify(g).to_string();
  rt::SessionOptions o;
  o.mode = rt::NumericMode::kPrecise;
  auto s = rt::Session::create(g, o);
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  if (!s) return {};
  for (size_t k = 0; k < inputs.size(); ++k) EXPECT_TRUE((*s)->set_input(k, inputs[k]).is_ok());
  EXPECT_TRUE((*s)->run().is_ok());
  return (*s)->outputs();
}

// A dot product of n = 64 terms 1/3: the spread over runs matches the model's sigma
// u sqrt(((n+1)/6 (2 y^2 + q) + q) / 3) within sampling error (200 runs: +-15%).
TEST(CheckBound, SumSpreadFollowsTheModel) {
  const ir::Graph g = graph_of(R"(plumb 1
func @main(%x: f32[1,64], %w: f32[64,1]) -> (f32[1,1]) {
  %y = matmul %x, %w {to = f32} : f32[1,1] loc("mm", MatMul, 13)
  return %y
}
)");
  const std::vector<float> ones(64, 1.0f / 3.0f);
  const std::vector<rt::RtValue> in = {f32({1, 64}, ones), f32({64, 1}, std::vector<float>(64, 1.0f))};
  const double r = doubles(run_precise(g, in)[0])[0];
  double ss = 0;
  const int runs = 200;
  for (int k = 0; k < runs; ++k) {
    NoiseOptions o;
    o.seed = static_cast<uint64_t>(k + 1);
    auto sg = stochastic_graph(g, onnx_nodes_of(g), o);
    ASSERT_TRUE(sg.has_value()) << sg.status().to_string();
    const double y = doubles(run_precise(sg->graph, in)[0])[0];
    ss += (y - r) * (y - r);
  }
  const double u = std::ldexp(1.0, -24), n = 64, q = 64.0 / 9;
  const double model = u * std::sqrt(((n + 1) / 6 * (2 * r * r + q) + q) / 3);
  EXPECT_NEAR(std::sqrt(ss / runs) / model, 1.0, 0.15);
}

// A backend's declared error (NoiseOptions::declared, spec/numerics.md) widens the local rounding of
// exactly the value it names: an add's +-u|y| becomes +-(1 + 8)u|y| (spread 9u|y|/sqrt 3, 200
// runs: +-15%); a sum's gets a second relative perturbation (its variance adds (8u|y|)^2 / 3); a
// value not named (a mul) keeps its own.
TEST(CheckBound, DeclaredErrorWidensItsValueOnly) {
  const ir::Graph g = graph_of(R"(plumb 1
func @main(%x: f32[1,64], %w: f32[64,1], %a: f32[1], %b: f32[1]) -> (f32[1,1], f32[1], f32[1]) {
  %y = matmul %x, %w {to = f32} : f32[1,1] loc("mm", MatMul, 13)
  %s = binary %a, %b {kind = add} : f32[1] loc("add", Add, 14)
  %t = binary %a, %b {kind = mul} : f32[1] loc("mul", Mul, 14)
  return %y, %s, %t
}
)");
  const std::vector<float> thirds(64, 1.0f / 3.0f);
  const std::vector<rt::RtValue> in = {f32({1, 64}, thirds), f32({64, 1}, std::vector<float>(64, 1.0f)),
                                       f32({1}, {0.1f}), f32({1}, {0.2f})};
  const std::vector<rt::RtValue> precise = run_precise(g, in);
  double ss[3] = {0, 0, 0};
  const int runs = 200;
  for (int k = 0; k < runs; ++k) {
    NoiseOptions o;
    o.seed = static_cast<uint64_t>(k + 1);
    o.declared = {rt::DeclaredError{g.body.results[0], 8}, rt::DeclaredError{g.body.results[1], 8}};
    auto sg = stochastic_graph(g, onnx_nodes_of(g), o);
    ASSERT_TRUE(sg.has_value()) << sg.status().to_string();
    const std::vector<rt::RtValue> out = run_precise(sg->graph, in);
    ASSERT_EQ(out.size(), 3u);
    for (int j = 0; j < 3; ++j) {
      const double d = doubles(out[j])[0] - doubles(precise[j])[0];
      ss[j] += d * d;
    }
  }
  const double u = std::ldexp(1.0, -24), n = 64, q = 64.0 / 9;
  const double r = doubles(precise[0])[0], s = doubles(precise[1])[0], t = doubles(precise[2])[0];
  const double sum_var = u * u * ((n + 1) / 6 * (2 * r * r + q) + q) / 3;
  EXPECT_NEAR(std::sqrt(ss[0] / runs) / std::sqrt(sum_var + std::pow(8 * u * r, 2) / 3), 1.0, 0.15);
  EXPECT_NEAR(std::sqrt(ss[1] / runs) / (9 * u * std::fabs(s) / std::sqrt(3.0)), 1.0, 0.15);
  EXPECT_NEAR(std::sqrt(ss[2] / runs) / (u * std::fabs(t) / std::sqrt(3.0)), 1.0, 0.15);
}

// Integer-valued results (index arithmetic) are exact in f32: never perturbed.
TEST(CheckBound, ExactResultsAreNotPerturbed) {
  const ir::Graph g = graph_of(R"(plumb 1
func @main(%x: f32[3], %y: f32[3]) -> (f32[3]) {
  %s = binary %x, %y {kind = add} : f32[3] loc("add", Add, 14)
  return %s
}
)");
  const std::vector<rt::RtValue> in = {f32({3}, {1, 2, 0.1f}), f32({3}, {4, 5, 0.2f})};
  NoiseOptions o;
  o.seed = 3;
  auto sg = stochastic_graph(g, onnx_nodes_of(g), o);
  ASSERT_TRUE(sg.has_value());
  const std::vector<double> y = doubles(run_precise(sg->graph, in)[0]);
  EXPECT_EQ(y[0], 5.0);
  EXPECT_EQ(y[1], 7.0);
  EXPECT_NE(y[2], static_cast<double>(0.1f) + static_cast<double>(0.2f));  // inexact: perturbed
}

// Half-integer constants (GridSample's and Resize's pixel-centre offsets -0.5 and d - 0.5) are held
// exactly by every implementation: never perturbed. Perturbed, a tap position computed from them
// (reflection: -0.5 - (-0.5 - p)) left its integer and the truncating cast picked the neighbouring
// tap in some runs, an O(1) spread that made GridSample with padding_mode=reflection inconclusive
// on any expected value (tests/models/op_grid_sample F1). Other constants stay perturbed (+-2u).
TEST(CheckBound, HalfIntegerConstantsAreNotPerturbed) {
  const ir::Graph g = graph_of(R"(plumb 1
func @main(%p: f32[4]) -> (f32[4], i64[4]) {
  %c = constant {value = dense<f32[4]>[-0.5, 5.5, 0.5, 0.3]} : f32[4]
  %t = binary %p, %c {kind = sub} : f32[4] loc("sub", Sub, 14)
  %i = cast %t {to = i64, saturate = false, round = nearest_even} : i64[4]
  return %c, %i
}
)");
  const std::vector<rt::RtValue> in = {f32({4}, {0.5f, 7.5f, 2.5f, 3.3f})};
  bool other_perturbed = false;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    NoiseOptions o;
    o.seed = seed;
    auto sg = stochastic_graph(g, onnx_nodes_of(g), o);
    ASSERT_TRUE(sg.has_value()) << sg.status().to_string();
    const std::vector<rt::RtValue> out = run_precise(sg->graph, in);
    ASSERT_EQ(out.size(), 2u);
    const std::vector<double> c = doubles(out[0]);
    EXPECT_EQ(c[0], -0.5);
    EXPECT_EQ(c[1], 5.5);
    EXPECT_EQ(c[2], 0.5);
    other_perturbed |= c[3] != static_cast<double>(0.3f);
    const int64_t* taps = out[1].tensor().as<int64_t>();
    EXPECT_EQ(taps[0], 1);
    EXPECT_EQ(taps[1], 2);
    EXPECT_EQ(taps[2], 2);
  }
  EXPECT_TRUE(other_perturbed);  // 0.3 is a rounded value: faithfully rounded, +-2u
}

// The perturbation of an f32 or f64 constant is computed when the stochastic graph is made
// (NoiseOptions::constants_on_host) rather than by its nodes in every run: the same bits, for values
// of every kind (integers and half-integers, -0, subnormals, huge, inf, NaN, a partial last rng
// block), in constants that feed an op (whose own perturbation comes after theirs in the rng
// streams) and an f64 constant, over several seeds.
TEST(CheckBound, ConstantsPerturbedOnTheHost) {
  const ir::Graph g = graph_of(R"(plumb 1
func @main(%p: f32[13]) -> (f32[13], f32[13], f64[3], f32[1,1]) {
  %c = constant {value = dense<f32[13]>[0.3, -0.5, 3, -0, 1e-40, 3e38, inf, -inf, nan, 0.1, -7.25, 1.0000001, 2.5e-7]} : f32[13]
  %t = binary %p, %c {kind = mul} : f32[13] loc("mul", Mul, 14)
  %d = constant {value = dense<f64[3]>[0.1, -1e300, 2]} : f64[3]
  %a = constant {value = dense<f32[1,5]>[0.3, 0.7, -1.1, 2.9, 0.01]} : f32[1,5]
  %b = constant {value = dense<f32[5,1]>[1.3, -0.7, 0.2, 4.9, 0.11]} : f32[5,1]
  %m = matmul %a, %b {to = f32} : f32[1,1] loc("mm", MatMul, 13)
  return %c, %t, %d, %m
}
)");
  const std::vector<rt::RtValue> in = {f32({13}, {1.5f, 2, 0.25f, 3, 1, 0.5f, 1, 1, 1, 7, 0.3f, 1, 9})};
  // A second constant node reading %c's constant (a perturbed copy is then added, not replacing it).
  ir::Graph shared = g;
  {
    ir::Node again = shared.body.nodes[0];
    ASSERT_EQ(again.op, ir::Op::Constant);
    again.outputs = {shared.add_value(shared.type_of(again.outputs[0]))};
    shared.body.nodes.insert(shared.body.nodes.begin() + 1, again);
    shared.body.results.push_back(again.outputs[0]);
    shared.output_names.push_back("again");
  }
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    NoiseOptions host, nodes;
    host.seed = nodes.seed = seed;
    nodes.constants_on_host = false;
    auto a = stochastic_graph(shared, onnx_nodes_of(shared), host);
    auto b = stochastic_graph(shared, onnx_nodes_of(shared), nodes);
    ASSERT_TRUE(a.has_value() && b.has_value());
    int copies = 0, originals = 0;  // %c's two nodes: two perturbed copies, the f32 values kept
    for (const ir::ConstantData& c : a->graph.constants)
      if (c.type.is_tensor() && c.type.shape.size() == 1 && c.type.shape[0].size == 13)
        (c.type.dtype == ir::DType::F64 ? copies : originals) += 1;
    EXPECT_EQ(copies, 2);
    EXPECT_EQ(originals, 1);
    const std::vector<rt::RtValue> x = run_precise(a->graph, in), y = run_precise(b->graph, in);
    ASSERT_EQ(x.size(), 5u);
    for (size_t k = 0; k < x.size(); ++k)
      EXPECT_TRUE(std::memcmp(x[k].tensor().data, y[k].tensor().data, x[k].tensor().nbytes()) == 0)
          << "seed " << seed << ", result " << k;
  }
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    NoiseOptions host, nodes;
    host.seed = nodes.seed = seed;
    nodes.constants_on_host = false;
    auto a = stochastic_graph(g, onnx_nodes_of(g), host);
    auto b = stochastic_graph(g, onnx_nodes_of(g), nodes);
    ASSERT_TRUE(a.has_value() && b.has_value());
    EXPECT_LT(a->graph.body.nodes.size() + 40, b->graph.body.nodes.size());  // 4 constants, ~14 nodes each
    for (const ir::ConstantData& c : a->graph.constants)  // each read by one node: replaced
      EXPECT_FALSE(c.type.dtype == ir::DType::F32 && c.type.shape.size() == 1 && c.type.shape[0].size == 13);
    const std::vector<rt::RtValue> x = run_precise(a->graph, in), y = run_precise(b->graph, in);
    ASSERT_EQ(x.size(), 4u);
    ASSERT_EQ(y.size(), 4u);
    bool perturbed = false;
    for (size_t k = 0; k < x.size(); ++k) {
      const rt::Tensor &xt = x[k].tensor(), &yt = y[k].tensor();
      ASSERT_EQ(xt.dtype, ir::DType::F64);  // precise
      ASSERT_EQ(xt.numel(), yt.numel());
      for (int64_t i = 0; i < xt.numel(); ++i) {
        uint64_t xb = 0, yb = 0;
        std::memcpy(&xb, xt.as<double>() + i, sizeof xb);
        std::memcpy(&yb, yt.as<double>() + i, sizeof yb);
        EXPECT_EQ(xb, yb) << "seed " << seed << ", result " << k << ", element " << i;
      }
    }
    const double c0 = x[0].tensor().as<double>()[0];
    perturbed = c0 != static_cast<double>(0.3f);
    EXPECT_TRUE(perturbed) << "seed " << seed;
  }
}

rt::RtValue f64(const std::vector<double>& data) {
  rt::Tensor t = rt::Tensor::allocate(ir::DType::F64, {static_cast<int64_t>(data.size())});
  for (size_t k = 0; k < data.size(); ++k) t.as<double>()[k] = data[k];
  return rt::RtValue(std::move(t));
}

TEST(CheckBound, ElementAndAggregateTests) {
  EXPECT_NEAR(t_quantile_1e4(6), 9.08, 0.01);
  EXPECT_NEAR(t_quantile_1e4(1000), 3.89, 0.01);
  const std::vector<double> r(100, 1.0);
  const rt::RtValue sumsq = f64(std::vector<double>(100, 4 * 1e-12));  // 4 runs, sigma 1e-6
  const NoiseBound b = noise_bound(r, {NoiseSamples{&sumsq, 4}});
  ASSERT_TRUE(b.available());
  EXPECT_NEAR(b.sigma_rms, 1e-6, 1e-12);
  std::vector<double> x = r;
  for (size_t k = 0; k < x.size(); ++k) x[k] += (k % 2 ? 1 : -1) * 1e-6;  // one sigma everywhere
  EXPECT_LT(bound_ratio(b, r, x).worst(), 1);
  for (double& v : x) v = 1.0 + 5e-6;  // 5 sigma everywhere: each element passes, the rms does not
  const BoundRatio all = bound_ratio(b, r, x);
  EXPECT_LT(all.element, 1);
  EXPECT_GT(all.aggregate, 1);
  x = r;
  x[7] = 1.001;  // one element far out
  EXPECT_GT(bound_ratio(b, r, x).element, 1);
  EXPECT_FALSE(b.all_zero_admitted);
}

}  // namespace
}  // namespace plumb::check
