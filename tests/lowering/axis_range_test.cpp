// An axis attribute out of range for its input's rank (a scalar input has no axis at all) is a
// one-line error naming the node, never a read past the shape: Gather, GatherElements and Split on
// a scalar once crashed the lowering (the rule went on with axis 0 after normalize_axis had
// recorded the error, and read dim 0 of a rank-0 shape).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using ir::DType;

struct AxisCase {
  std::string op;
  std::vector<NodeInput> inputs;
  std::vector<onnx::OnnxAttribute> attrs;
  size_t outputs;
};

void expect_axis_error(const AxisCase& c) {
  auto g = lower::lower_model(OneNodeModel(c.op, 17, c.inputs, c.attrs, c.outputs));
  ASSERT_FALSE(g.has_value()) << c.op << ": lowered a model whose axis is out of range";
  const std::string msg = g.status().to_string();
  EXPECT_NE(msg.find("n0"), std::string::npos) << c.op << ": " << msg;
  EXPECT_NE(msg.find("out of range"), std::string::npos) << c.op << ": " << msg;
}

TEST(AxisRange, OnAScalarIsAnErrorNamingTheNode) {
  const NodeInput scalar{{}, {1}};
  const NodeInput index{{}, {0}, DType::I64};
  const std::vector<AxisCase> cases = {
      {"Gather", {scalar, index}, {IntAttr("axis", 0)}, 1},
      {"GatherElements", {scalar, index}, {IntAttr("axis", 0)}, 1},
      {"Split", {scalar}, {IntAttr("axis", 0), IntAttr("num_outputs", 1)}, 1},
      {"Softmax", {scalar}, {IntAttr("axis", 0)}, 1},
      {"ArgMax", {scalar}, {IntAttr("axis", 0)}, 1},
      {"Concat", {scalar, scalar}, {IntAttr("axis", 0)}, 1},
      {"Compress", {scalar, {{1}, {1}, DType::Bool}}, {IntAttr("axis", 0)}, 1},
      {"ScatterElements", {scalar, index, scalar}, {IntAttr("axis", 0)}, 1},
      {"TopK", {scalar, {{1}, {1}, DType::I64, true}}, {IntAttr("axis", 0)}, 2},
      {"Hardmax", {scalar}, {IntAttr("axis", 0)}, 1},
      {"LpNormalization", {scalar}, {IntAttr("axis", 0)}, 1},
      {"CumSum", {scalar, {{}, {0}, DType::I64, true}}, {}, 1},
  };
  for (const AxisCase& c : cases) expect_axis_error(c);
}

TEST(AxisRange, PastTheRankIsAnErrorNamingTheNode) {
  const NodeInput x{{2, 3}, {1, 2, 3, 4, 5, 6}};
  const NodeInput index{{1}, {0}, DType::I64};
  const std::vector<AxisCase> cases = {
      {"Gather", {x, index}, {IntAttr("axis", 2)}, 1},
      {"Gather", {x, index}, {IntAttr("axis", -3)}, 1},
      {"GatherElements", {x, {{2, 1}, {0, 1}, DType::I64}}, {IntAttr("axis", 5)}, 1},
      {"Split", {x}, {IntAttr("axis", 2), IntAttr("num_outputs", 1)}, 1},
      {"ReverseSequence",
       {x, {{3}, {1, 1, 1}, DType::I64}},
       {IntAttr("batch_axis", 2), IntAttr("time_axis", 0)},
       1},
  };
  for (const AxisCase& c : cases) expect_axis_error(c);
}

}  // namespace
}  // namespace plumb::testing
