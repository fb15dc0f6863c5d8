// Lowering tests for FlexAttention (ai.onnx.preview, lowering/onnx/flex_attention.cpp): the cases
// the ONNX suite leaves out (a negative scale, modifiers that use the index grids or read outer
// values, rows masked entirely, empty sequences, prob_mod in f64, invalid head counts and
// modifiers). Expected values come from tests/lowering/flex_attention_test_ref.py (numpy,
// independent of plumb).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/multi_node.h"

namespace plumb::testing {
namespace {

using ir::DType;

constexpr double kInf = std::numeric_limits<double>::infinity();

ir::Type T(DType dt, Ints shape) { return ir::Type::tensor(dt, ir::static_shape(shape)); }

onnx::Tensor Init(const std::string& name, DType dt, const Ints& shape, const std::vector<double>& data) {
  rt::Tensor v = MakeTensor(dt, shape, data);
  const auto* p = static_cast<const uint8_t*>(v.data);
  return onnx::Tensor::owned(name, dt, shape, std::vector<uint8_t>(p, p + v.nbytes()));
}

// A modifier graph: input `in` (declared `in_type`, or untyped), output `out`.
onnx::OnnxGraph Mod(const std::string& in, std::optional<ir::Type> in_type, std::vector<onnx::OnnxNode> nodes,
                    const std::string& out, std::vector<onnx::Tensor> inits = {}) {
  onnx::OnnxGraph g;
  g.inputs.push_back({in, std::move(in_type)});
  g.nodes = std::move(nodes);
  g.outputs.push_back({out, std::nullopt});
  g.initializers = std::move(inits);
  return g;
}

struct Qkv {
  Ints qs, ks, vs;
  std::vector<double> q, k, v;
};

// The model Y = FlexAttention(Q, K, V) with `attrs` (node name "flex"); tests add inputs after.
MultiNode Flex(const Qkv& x, std::vector<onnx::OnnxAttribute> attrs, DType dt = DType::F32) {
  MultiNode g(21);
  g.m.opsets["ai.onnx.preview"] = 1;
  g.Input("Q", dt, x.qs, x.q);
  g.Input("K", dt, x.ks, x.k);
  g.Input("V", dt, x.vs, x.v);
  onnx::OnnxNode n = Node("FlexAttention", {"Q", "K", "V"}, {"Y"}, std::move(attrs));
  n.domain = "ai.onnx.preview";
  n.name = "flex";
  g.Add(n);
  g.Output("Y");
  return g;
}

// Q [1,1,2,2], K [1,1,3,2], V [1,1,3,2].
Qkv Small() {
  return {{1, 1, 2, 2},         {1, 1, 3, 2},           {1, 1, 3, 2},
          {0.5, -1, 1.5, 0.25}, {1, 2, -1, 0.5, 0, -2}, {1, -1, 2, 0, -3, 4}};
}

// Lowering fails with an InvalidModel error whose text contains `what` and names the node.
void ExpectInvalid(MultiNode& g, const std::string& what) {
  auto lowered = lower::lower_model(g.m, rt::RefEvaluator());
  ASSERT_FALSE(lowered.has_value());
  EXPECT_EQ(lowered.status().code(), ErrorCode::kInvalidModel) << lowered.status().to_string();
  const std::string msg = lowered.status().to_string();
  EXPECT_NE(msg.find(what), std::string::npos) << msg;
  EXPECT_NE(msg.find("'flex'"), std::string::npos) << msg;
}

TEST(LowerFlexAttention, DefaultScale) {
  MultiNode g = Flex(Small(), {});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{1, 1, 2, 2}));
  ExpectNear(Values(out[0]), {-2.222571191538589, 3.252220894730989, 0.5320197296730405, -0.2511708410001001},
             1e-5);
}

// The scale multiplies the scores, as the operator's formula says (the ONNX function body's
// sqrt(scale) pre-scaling would give NaN here).
TEST(LowerFlexAttention, NegativeScaleFollowsTheFormula) {
  MultiNode g = Flex(Small(), {FloatAttr("scale", -0.5f)});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1.042869042671022, -0.15615495891486314, 0.1354920604407357, 1.309720042982216},
             1e-5);
}

TEST(LowerFlexAttention, GroupedQueryHeadsShareKv) {
  MultiNode g = Flex({{1, 2, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1}, {1, 0, 0, -1}, {1, 1, -1, 2}, {10, 20}}, {});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{1, 2, 1, 1}));
  ExpectNear(Values(out[0]), {11.95570317493043, 13.302384506733432}, 1e-5);
}

// score_mod = scores - slope * |q_idx - k_idx|: the index grids come from Shape(scores), and
// `slope` is an initializer of the enclosing graph.
MultiNode IndexModel() {
  std::vector<onnx::OnnxNode> nodes = {
      Node("Shape", {"s"}, {"sh"}),
      Node("Gather", {"sh", "two"}, {"L"}, {IntAttr("axis", 0)}),
      Node("Gather", {"sh", "three"}, {"S"}, {IntAttr("axis", 0)}),
      Node("Range", {"zero", "L", "one"}, {"qr"}),
      Node("Reshape", {"qr", "qshape"}, {"qi"}),
      Node("Range", {"zero", "S", "one"}, {"kr"}),
      Node("Reshape", {"kr", "kshape"}, {"ki"}),
      Node("Sub", {"qi", "ki"}, {"d"}),
      Node("Abs", {"d"}, {"ad"}),
      Node("Cast", {"ad"}, {"adf"}, {IntAttr("to", 1)}),
      Node("Mul", {"adf", "slope"}, {"pen"}),
      Node("Sub", {"s", "pen"}, {"out"}),
  };
  std::vector<onnx::Tensor> inits = {Init("zero", DType::I64, {}, {0}),
                                     Init("one", DType::I64, {}, {1}),
                                     Init("two", DType::I64, {}, {2}),
                                     Init("three", DType::I64, {}, {3}),
                                     Init("qshape", DType::I64, {4}, {1, 1, -1, 1}),
                                     Init("kshape", DType::I64, {4}, {1, 1, 1, -1})};
  auto mod = Mod("s", std::nullopt, std::move(nodes), "out", std::move(inits));
  MultiNode g =
      Flex({{1, 1, 3, 2}, {1, 1, 3, 2}, {1, 1, 3, 1}, {1, 0, 0, 1, 1, 1}, {1, 2, 0, 1, -1, 0.5}, {1, 2, 4}},
           {FloatAttr("scale", 1.0f), GraphAttr("score_mod", mod)});
  g.Const("slope", DType::F32, {}, {0.5});
  return g;
}

TEST(LowerFlexAttention, ScoreModUsesIndicesAndOuterValues) {
  MultiNode g = IndexModel();
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1.292628111952099, 1.697353917353278, 1.3596228199353928}, 1e-5);
}

// The same with symbolic batch and sequence lengths: the modifier's result type is then only
// known to have symbolic dims, and its shape is checked when the graph runs.
TEST(LowerFlexAttention, SymbolicLengths) {
  MultiNode g = IndexModel();
  const ir::Shape sym = {ir::Dim::symbolic("B"), 1, ir::Dim::symbolic("L"), 2};
  const ir::Shape kv = {ir::Dim::symbolic("B"), 1, ir::Dim::symbolic("S"), 2};
  g.m.graph.inputs[0].type = ir::Type::tensor(DType::F32, sym);
  g.m.graph.inputs[1].type = ir::Type::tensor(DType::F32, kv);
  g.m.graph.inputs[2].type =
      ir::Type::tensor(DType::F32, {ir::Dim::symbolic("B"), 1, ir::Dim::symbolic("S"), 1});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{1, 1, 3, 1}));
  ExpectNear(Values(out[0]), {1.292628111952099, 1.697353917353278, 1.3596228199353928}, 1e-5);
}

// A NaN score makes its row NaN (softmax of a row with NaN); the other rows are untouched.
TEST(LowerFlexAttention, NanQueryGivesNanRow) {
  Qkv x = Small();
  x.q[0] = std::numeric_limits<double>::quiet_NaN();
  MultiNode g = Flex(x, {});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  const std::vector<double> y = Values(out[0]);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
  ExpectNear({y[2], y[3]}, {0.5320197296730405, -0.2511708410001001}, 1e-5);
}

// softmax_precision = FLOAT16: score_mod (-scores) sees the scores rounded to f16.
TEST(LowerFlexAttention, ModifierSeesScoresInSoftmaxPrecision) {
  auto mod = Mod("s", T(DType::F16, {1, 1, 2, 3}), {Node("Neg", {"s"}, {"out"})}, "out");
  MultiNode g = Flex(Small(), {IntAttr("softmax_precision", 10), GraphAttr("score_mod", mod)});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]),
             {1.2045618566177145, -0.3712564176138454, 0.2918881069135071, 1.2649614306117463}, 1e-6);
}

// A score_mod masking from a graph input: query 0 keeps no key.
MultiNode Masked(std::vector<onnx::OnnxAttribute> more) {
  auto mod = Mod("s", std::nullopt, {Node("Where", {"keep", "s", "ninf"}, {"out"})}, "out",
                 {Init("ninf", DType::F32, {}, {-kInf})});
  more.push_back(GraphAttr("score_mod", mod));
  MultiNode g =
      Flex({{1, 1, 2, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {1, 2}, {1, 0, -1}, {1, 2, 3}}, std::move(more));
  g.Input("keep", DType::Bool, {1, 1, 2, 3}, {0, 0, 0, 1, 0, 1});
  return g;
}

// plumb's ruling (R10-flex): a row whose scores are all -inf has probabilities 0, so Y's row is 0
// (the ONNX reference gives NaN).
TEST(LowerFlexAttention, AllMaskedRowGivesZeros) {
  MultiNode g = Masked({});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {0.0, 1.035972419924183}, 1e-5);
}

TEST(LowerFlexAttention, ProbModSeesTheZeroRow) {
  auto pmod = Mod("p", T(DType::F32, {1, 1, 2, 3}), {Node("Add", {"p", "quarter"}, {"out"})}, "out",
                  {Init("quarter", DType::F32, {}, {0.25})});
  MultiNode g = Masked({GraphAttr("prob_mod", pmod)});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1.5, 2.535972419924183}, 1e-5);
}

// f64 inputs: the modifiers work in f64.
TEST(LowerFlexAttention, DoubleProbMod) {
  auto pmod = Mod("p", T(DType::F64, {1, 1, 2, 3}), {Node("Mul", {"p", "two"}, {"out"})}, "out",
                  {Init("two", DType::F64, {}, {2})});
  MultiNode g = Flex(Small(), {GraphAttr("prob_mod", pmod)}, DType::F64);
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().dtype, DType::F64);
  ExpectNear(Values(out[0]), {-4.445142383077178, 6.504441789461978, 1.064039459346081, -0.5023416820002002},
             1e-12);
}

// No keys: every row is empty, so (as a fully masked row) Y is 0.
TEST(LowerFlexAttention, EmptyKeySequenceGivesZeros) {
  MultiNode g = Flex({{1, 1, 2, 2}, {1, 1, 0, 2}, {1, 1, 0, 3}, {1, 2, 3, 4}, {}, {}}, {});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{1, 1, 2, 3}));
  ExpectNear(Values(out[0]), {0, 0, 0, 0, 0, 0});
}

TEST(LowerFlexAttention, EmptyQuerySequenceGivesEmptyY) {
  MultiNode g = Flex(
      {{1, 1, 0, 2}, {1, 1, 3, 2}, {1, 1, 3, 3}, {}, {1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}, {});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{1, 1, 0, 3}));
}

TEST(LowerFlexAttention, HeadRatioNotDividingIsInvalid) {
  MultiNode g = Flex({{1, 3, 1, 1}, {1, 2, 1, 1}, {1, 2, 1, 1}, {1, 2, 3}, {1, 2}, {1, 2}}, {});
  ExpectInvalid(g, "q_num_heads (3) must be a multiple of kv_num_heads (2)");
}

TEST(LowerFlexAttention, SoftmaxPrecisionMustBeFloat) {
  MultiNode g = Flex(Small(), {IntAttr("softmax_precision", 7)});
  ExpectInvalid(g, "softmax_precision");
}

TEST(LowerFlexAttention, ScoreModDeclaredInAnotherTypeIsInvalid) {
  auto mod = Mod("s", T(DType::F64, {1, 1, 2, 3}), {Node("Neg", {"s"}, {"out"})}, "out");
  MultiNode g = Flex(Small(), {GraphAttr("score_mod", mod)});
  ExpectInvalid(g, "score_mod input is declared");
}

TEST(LowerFlexAttention, ScoreModYieldingAnotherDtypeIsInvalid) {
  auto mod = Mod("s", std::nullopt, {Node("Cast", {"s"}, {"out"}, {IntAttr("to", 11)})}, "out");
  MultiNode g = Flex(Small(), {GraphAttr("score_mod", mod)});
  ExpectInvalid(g, "score_mod must yield a rank-4 f32 tensor");
}

TEST(LowerFlexAttention, ScoreModChangingTheShapeIsInvalid) {
  auto mod = Mod("s", std::nullopt, {Node("ReduceSum", {"s"}, {"out"}, {IntAttr("keepdims", 1)})}, "out");
  MultiNode g = Flex(Small(), {GraphAttr("score_mod", mod)});
  ExpectInvalid(g, "score_mod changes the shape");
}

TEST(LowerFlexAttention, ModifierWithTwoInputsIsInvalid) {
  auto mod = Mod("s", std::nullopt, {Node("Add", {"s", "t"}, {"out"})}, "out");
  mod.inputs.push_back({"t", std::nullopt});
  MultiNode g = Flex(Small(), {GraphAttr("prob_mod", mod)});
  ExpectInvalid(g, "prob_mod must have exactly one input and one output");
}

}  // namespace
}  // namespace plumb::testing
