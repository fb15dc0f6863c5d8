// check/span.h: the nodes a divergence lies between, given which tensors are known to agree.
#include "check/span.h"

#include <gtest/gtest.h>

#include "tests/check/check_test_util.h"

namespace plumb::check {
namespace {

// x -> A -> t -> B -> u -> C -> y; C also reads x, and an initializer constant (no ONNX origin)
constexpr const char* kChain = R"(plumb 1
func @main(%x: f32[3]) -> (f32[3]) {
  %t = unary %x {kind = exp} : f32[3] loc("A", Exp, 13)
  %w = constant {value = dense<f32[3]>[2.0, 2.0, 2.0]} : f32[3]
  %u = binary %t, %w {kind = mul} : f32[3] loc("B", Mul, 14)
  %y = binary %u, %x {kind = add} : f32[3] loc("C", Add, 14)
  return %y
}
)";

struct Fixture {
  ir::Graph g = testing::graph_of(kChain);
  std::vector<OnnxNodeInfo> nodes = onnx_nodes_of(g);
  ir::ValueId value(size_t node) const { return g.body.nodes[node].outputs[0]; }
  std::vector<std::string> names(const DivergenceSpan& s) const {
    std::vector<std::string> out;
    for (size_t n : s.nodes) out.push_back(nodes[n].name);
    return out;
  }
};

TEST(DivergenceSpan, AllInputsKnownIsOneNode) {
  Fixture f;
  const ir::ValueId t = f.value(0), u = f.value(2), y = f.value(3);
  const DivergenceSpan s = divergence_span(f.g, f.nodes, y, {t, u});
  EXPECT_TRUE(s.localized());
  EXPECT_EQ(f.names(s), (std::vector<std::string>{"C"}));
  EXPECT_EQ(s.agreeing, (std::vector<ir::ValueId>{u}));
  EXPECT_TRUE(s.from_graph_inputs);  // C reads x
}

TEST(DivergenceSpan, AnUncomparedTensorWidensTheSpan) {
  Fixture f;
  const ir::ValueId t = f.value(0), y = f.value(3);
  const DivergenceSpan s = divergence_span(f.g, f.nodes, y, {t});
  EXPECT_FALSE(s.localized());
  EXPECT_EQ(f.names(s), (std::vector<std::string>{"B", "C"}));  // the constant is not listed
  EXPECT_EQ(s.agreeing, (std::vector<ir::ValueId>{t}));
}

TEST(DivergenceSpan, NothingKnownReachesTheGraphInputs) {
  Fixture f;
  const DivergenceSpan s = divergence_span(f.g, f.nodes, f.value(3), {});
  EXPECT_EQ(f.names(s), (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_TRUE(s.agreeing.empty());
  EXPECT_TRUE(s.from_graph_inputs);
}

// torch exports a weight as Identity(initializer): that node computes a constant and is not a
// place of the divergence of the node reading it.
TEST(DivergenceSpan, NodesComputingConstantsAreNotListed) {
  const ir::Graph g = testing::graph_of(R"(plumb 1
func @main(%x: f32[3]) -> (f32[3]) {
  %t = unary %x {kind = exp} : f32[3] loc("A", Exp, 13)
  %w0 = constant {value = dense<f32[3]>[2.0, 2.0, 2.0]} : f32[3]
  %w = unary %w0 {kind = abs} : f32[3] loc("Identity_0", Identity, 13)
  %u = binary %t, %w {kind = mul} : f32[3] loc("B", Mul, 14)
  return %u
}
)");
  const std::vector<OnnxNodeInfo> nodes = onnx_nodes_of(g);
  const DivergenceSpan s =
      divergence_span(g, nodes, g.body.nodes[3].outputs[0], {g.body.nodes[0].outputs[0]});
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_EQ(nodes[s.nodes[0]].name, "B");
  EXPECT_TRUE(s.localized());
}

// Values read inside a region belong to the walk: an `if` whose branch reads t.
TEST(DivergenceSpan, ValuesReadInRegionsAreFollowed) {
  const ir::Graph g = testing::graph_of(R"(plumb 1
func @main(%x: f32[3], %c: bool[]) -> (f32[3]) {
  %t = unary %x {kind = exp} : f32[3] loc("A", Exp, 13)
  %y = if %c {
    then() {
      %n = unary %t {kind = neg} : f32[3] loc("I", If, 13)
      yield %n
    }
    else() {
      yield %x
    }
  } : f32[3] loc("I", If, 13)
  return %y
}
)");
  const std::vector<OnnxNodeInfo> nodes = onnx_nodes_of(g);
  const DivergenceSpan s = divergence_span(g, nodes, g.body.nodes[1].outputs[0], {});
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(nodes[s.nodes[0]].name, "A");
  EXPECT_EQ(nodes[s.nodes[1]].name, "I");
}

}  // namespace
}  // namespace plumb::check
