// Nodes a hostile or corrupted model holds (issue 23): each is a one-line error naming the node,
// never a crash, a hang or an allocation without bound. Found by a sweep over the node suite's
// one-node models with attributes set to -100, -1, 0, 7 and 2^40 and inputs made rank 0 or empty:
// - an axis out of range for its input's rank (a scalar has no axis at all): Gather,
//   GatherElements and Split on a scalar read dim 0 of a rank-0 shape (the rule went on with axis
//   0 after normalize_axis had recorded the error);
// - GatherND / ScatterND indices of rank 0 (their last dim read), DepthToSpace blocksize 2^40
//   (blocksize^2 overflowed to 0, then a division by it), Split num_outputs 2^40 (a loop of 2^40),
//   MaxPool storage_order 1 over an empty spatial dim (a division by 0), ConvTranspose with an
//   empty weight (the crop read the type of a conv that failed), TreeEnsemble n_targets 2^40 (a
//   table past memory: std::bad_alloc).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
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

// want: a piece of the message (beside the node's name).
void expect_node_error(const AxisCase& c, const std::string& want) {
  auto g = lower::lower_model(OneNodeModel(c.op, 17, c.inputs, c.attrs, c.outputs), rt::RefEvaluator());
  ASSERT_FALSE(g.has_value()) << c.op << ": lowered a model that should be refused";
  const std::string msg = g.status().to_string();
  EXPECT_NE(msg.find("n0"), std::string::npos) << c.op << ": " << msg;
  EXPECT_NE(msg.find(want), std::string::npos) << c.op << ": " << msg;
}

void expect_axis_error(const AxisCase& c) { expect_node_error(c, "out of range"); }

TEST(HostileNode, AxisOnAScalarIsAnError) {
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

TEST(HostileNode, AxisPastTheRankIsAnError) {
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

TEST(HostileNode, SizesAndRanksThatOnceCrashedAreErrors) {
  const NodeInput x{{1, 8, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8}};
  const NodeInput scalar_index{{}, {0}, DType::I64};
  const int64_t huge = int64_t{1} << 40;
  expect_node_error({"GatherND", {x, scalar_index}, {}, 1}, "indices need rank 1 or more");
  expect_node_error({"ScatterND", {x, scalar_index, {{}, {1}}}, {}, 1}, "indices need rank 1 or more");
  expect_node_error({"DepthToSpace", {x}, {IntAttr("blocksize", huge)}, 1}, "not divisible by blocksize^2");
  expect_node_error({"Split", {{{4}, {1, 2, 3, 4}}}, {IntAttr("axis", 0), IntAttr("num_outputs", huge)}, 2},
                    "num_outputs is 1099511627776, the node has 2 outputs");
  expect_node_error(
      {"MaxPool", {{{1, 1, 0, 4}, {}}}, {IntsAttr("kernel_shape", {1, 1}), IntAttr("storage_order", 1)}, 2},
      "empty spatial dim");
}

// fuzz_onnx_model's first finding (tests/fuzz/regressions/onnx_model_isinf_int32.onnx): IsInf on
// an integer input converted +inf to int64 for its comparison (undefined; UBSan).
TEST(HostileNode, IsInfOnIntegersIsAnError) {
  expect_node_error({"IsInf", {{{2}, {1, 2}, DType::I32}}, {}, 1},
                    "IsInf takes a floating-point input, got i32");
}

// Its second (onnx_model_reshape_overflow.onnx): a Reshape with a -1 whose other dims multiply past
// int64 (signed overflow; UBSan).
TEST(HostileNode, ReshapeDimsPastInt64AreAnError) {
  const double big = static_cast<double>(int64_t{1} << 48), bigger = static_cast<double>(int64_t{1} << 56);
  expect_node_error({"Reshape", {{{2}, {1, 2}}, {{3}, {-1, big, bigger}, DType::I64, true}}, {}, 1},
                    "shape's dims multiply past int64");
}

// Its third (onnx_model_reduce_axis_of_scalar.onnx): ReduceSum over axis 1 of a scalar went on
// after the axis error and read dim 1 of a rank-0 shape.
TEST(HostileNode, ReduceAxisOfAScalarIsAnError) {
  expect_node_error({"ReduceSum", {{{}, {1}}, {{1}, {1}, DType::I64, true}}, {}, 1}, "out of range");
}

}  // namespace
}  // namespace plumb::testing
