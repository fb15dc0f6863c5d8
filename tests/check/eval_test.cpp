// check/eval.h on small graphs: the ONNX node groups and their classes, the graph rewrites
// (with_results, isolated_graph) run on ref, and compare_value on values whose error is known.
#include "check/eval.h"

#include <gtest/gtest.h>

#include <cmath>

#include "check/onnx/run_check.h"
#include "ir/verify.h"
#include "runtime/session.h"
#include "tests/check/check_test_util.h"

namespace plumb::check {
namespace {

using testing::doubles;
using testing::f32;
using testing::floats;
using testing::graph_of;

std::vector<rt::RtValue> run(const ir::Graph& g, const std::vector<rt::RtValue>& inputs,
                             rt::NumericMode mode = rt::NumericMode::kNative) {
  EXPECT_TRUE(ir::verify(g).is_ok()) << ir::verify(g).to_string();
  rt::SessionOptions o;
  o.mode = mode;
  auto s = rt::Session::create(g, o);
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  if (!s) return {};
  for (size_t k = 0; k < inputs.size(); ++k) EXPECT_TRUE((*s)->set_input(k, inputs[k]).is_ok());
  const Status st = (*s)->run();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return st.is_ok() ? (*s)->outputs() : std::vector<rt::RtValue>{};
}

// x -> A: exp -> t -> B: t + t -> y
constexpr const char* kChain = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %t = unary %x {kind = exp} : f32[2] loc("A", Exp, 13)
  %y = binary %t, %t {kind = add} : f32[2] loc("B", Add, 14)
  return %y
}
)";

TEST(CheckEval, NodesGroupByProvenanceWithTheirClass) {
  const ir::Graph g = graph_of(R"(plumb 1
func @main(%x: f32[2,3], %w: f32[3,4]) -> (f32[2,4]) {
  %m = matmul %x, %w {to = f32} : f32[2,4] loc("mm", MatMul, 13)
  %e = unary %m {kind = exp} : f32[2,4] loc("act", Exp, 13)
  %y = binary %e, %m {kind = add} : f32[2,4] loc("act", Exp, 13)
  return %y
}
)");
  const std::vector<OnnxNodeInfo> nodes = onnx_nodes_of(g);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "mm");
  EXPECT_EQ(nodes[0].tolerance_class(), "dot-product(n=3)");
  EXPECT_EQ(nodes[1].name, "act");
  EXPECT_EQ(nodes[1].first, 1u);
  EXPECT_EQ(nodes[1].last, 2u);
  EXPECT_EQ(group_of(nodes, 0), 0u);
  EXPECT_EQ(group_of(nodes, 2), 1u);
}

TEST(CheckEval, WithResultsAddsIntermediatesAfterTheOutputs) {
  const ir::Graph g = graph_of(kChain);
  const ir::ValueId t = g.body.nodes[0].outputs[0];
  const ir::Graph w = with_results(g, {t});
  ASSERT_EQ(w.body.results.size(), 2u);
  EXPECT_EQ(w.output_names.back(), "t");
  const auto out = run(w, {f32({2}, {0.0f, 1.0f})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(floats(out[1]), (std::vector<float>{1.0f, std::exp(1.0f)}));
  EXPECT_EQ(floats(out[0]), (std::vector<float>{2.0f, 2 * std::exp(1.0f)}));
}

// The cut value's consumers read the fed value; the value itself is still computed from x.
TEST(CheckEval, IsolatedGraphFeedsTheExpectedValueToConsumers) {
  const ir::Graph g = graph_of(kChain);
  const ir::ValueId t = g.body.nodes[0].outputs[0];
  const ir::Graph w = with_results(g, {t});
  const ir::Graph iso = isolated_graph(w, {t}, onnx_nodes_of(w));
  ASSERT_EQ(iso.body.params.size(), 2u);
  EXPECT_EQ(iso.input_names.back(), "t (expected)");
  const auto out = run(iso, {f32({2}, {0.0f, 1.0f}), f32({2}, {10.0f, -3.0f})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(floats(out[0]), (std::vector<float>{20.0f, -6.0f}));          // B on the fed t
  EXPECT_EQ(floats(out[1]), (std::vector<float>{1.0f, std::exp(1.0f)}));  // A on x
}

rt::RtValue f64(const std::vector<double>& data) {
  rt::Tensor t = rt::Tensor::allocate(ir::DType::F64, {static_cast<int64_t>(data.size())});
  for (size_t k = 0; k < data.size(); ++k) t.as<double>()[k] = data[k];
  return rt::RtValue(std::move(t));
}

// A result one rounding away from the exact value is noise; one 1% away is a semantic error; the
// same bits are exact. Holds for any bound that admits another correct f32 implementation and
// rejects a 1% change of a well-conditioned result.
TEST(CheckEval, CompareValueSeparatesRoundingFromError) {
  const float a = 1.0f / 3.0f;  // plumb's native result, exact value 1/3
  const rt::RtValue r = f64({1.0 / 3.0});
  // 6 stochastic samples whose spread is one rounding (u / sqrt 3 relative): sum of squares 6 s^2
  const double s = std::ldexp(1.0, -24) / std::sqrt(3.0) / 3.0;
  const rt::RtValue sumsq = f64({6 * s * s});
  OnnxNodeInfo info;
  info.ulps = 1;
  BoundInputs bi;
  bi.precise = &r;
  bi.ops = NoiseSamples{&sumsq, 6};
  const FixedTolerance automatic;
  const ErrorStats same = compare_value(f32({1}, {a}), f32({1}, {a}), bi, &info, automatic);
  EXPECT_TRUE(same.match);
  EXPECT_EQ(same.category(), "exact");
  const ErrorStats ulp =
      compare_value(f32({1}, {a}), f32({1}, {std::nextafter(a, 1.0f)}), bi, &info, automatic);
  EXPECT_TRUE(ulp.match) << ulp.why;
  EXPECT_EQ(ulp.category(), "noise");
  const ErrorStats off = compare_value(f32({1}, {a}), f32({1}, {a * 1.01f}), bi, &info, automatic);
  EXPECT_FALSE(off.match);
  EXPECT_EQ(off.category(), "semantic");
  EXPECT_EQ(off.mismatches, 1);
  // NaN where a number is expected is never noise.
  const ErrorStats nan = compare_value(f32({1}, {std::nanf("")}), f32({1}, {a}), bi, &info, automatic);
  EXPECT_FALSE(nan.match);
  EXPECT_EQ(nan.nan_inf_mismatches, 1);
  // Without noise samples a differing value cannot be judged: inconclusive, never a match.
  BoundInputs none;
  none.precise = &r;
  const ErrorStats undecided =
      compare_value(f32({1}, {a}), f32({1}, {std::nextafter(a, 1.0f)}), none, &info, automatic);
  EXPECT_FALSE(undecided.match);
  EXPECT_TRUE(undecided.inconclusive);
}

TEST(CheckEval, FixedToleranceDecidesWhenGiven) {
  const rt::RtValue r = f64({1.0});
  const rt::RtValue sumsq = f64({6e-14});
  BoundInputs bi;
  bi.precise = &r;
  bi.ops = NoiseSamples{&sumsq, 6};
  FixedTolerance tol;
  tol.use = true;
  tol.rtol = 0.05;
  tol.atol = 0;
  const ErrorStats st = compare_value(f32({1}, {1.0f}), f32({1}, {1.01f}), bi, nullptr, tol);
  EXPECT_TRUE(st.match);                 // within rtol 5%
  EXPECT_EQ(st.category(), "semantic");  // but beyond the noise bound: classified as such
  tol.rtol = 0.001;
  EXPECT_FALSE(compare_value(f32({1}, {1.0f}), f32({1}, {1.01f}), bi, nullptr, tol).match);
}

TEST(CheckEval, ExactDtypesAndShapesCompareExactly) {
  rt::Tensor i = rt::Tensor::allocate(ir::DType::I64, {2});
  i.as<int64_t>()[0] = 1, i.as<int64_t>()[1] = 2;
  rt::Tensor j = rt::Tensor::allocate(ir::DType::I64, {2});
  j.as<int64_t>()[0] = 1, j.as<int64_t>()[1] = 3;
  const FixedTolerance automatic;
  EXPECT_TRUE(compare_value(rt::RtValue(i), rt::RtValue(i), {}, nullptr, automatic).match);
  EXPECT_FALSE(compare_value(rt::RtValue(i), rt::RtValue(j), {}, nullptr, automatic).match);
  const ErrorStats shape = compare_value(f32({2}, {1, 2}), f32({1, 2}, {1, 2}), {}, nullptr, automatic);
  EXPECT_FALSE(shape.match);
  EXPECT_NE(shape.why.find("shape"), std::string::npos) << shape.why;
}

}  // namespace
}  // namespace plumb::check
