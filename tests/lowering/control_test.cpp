// Lowering tests for If, Loop, Scan and SequenceMap (lowering/onnx/control.cpp): hand-built ONNX
// graphs with subgraphs, lowered and run on ref; expected values worked out by hand from the ONNX
// operator definitions.
#include <gtest/gtest.h>

#include "tests/lowering/multi_node.h"

namespace plumb::testing {
namespace {

using ir::DType;

ir::Type T(DType dt, Ints shape) { return ir::Type::tensor(dt, ir::static_shape(shape)); }

// A subgraph with typed inputs, nodes and outputs.
onnx::OnnxGraph Sub(std::vector<onnx::OnnxValueInfo> inputs, std::vector<onnx::OnnxNode> nodes,
                    std::vector<std::string> outputs) {
  onnx::OnnxGraph g;
  g.inputs = std::move(inputs);
  g.nodes = std::move(nodes);
  for (auto& o : outputs) g.outputs.push_back({o, std::nullopt});
  return g;
}

// If whose branches read an outer value and yield different shapes.
MultiNode IfModel() {
  MultiNode g(13);
  g.Input("c", DType::Bool, {}, {1});
  g.Input("x", DType::F32, {2}, {1, -2});
  auto then_b = Sub({}, {Node("Neg", {"x"}, {"t"})}, {"t"});
  auto else_b = Sub({}, {Node("Concat", {"x", "x"}, {"e"}, {IntAttr("axis", 0)})}, {"e"});
  g.Add(Node("If", {"c"}, {"y"}, {GraphAttr("then_branch", then_b), GraphAttr("else_branch", else_b)}));
  g.Output("y");
  return g;
}

TEST(LowerIf, ThenBranchReadsOuterValue) {
  MultiNode g = IfModel();
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {-1, 2});
}

TEST(LowerIf, ElseBranchMayYieldAnotherShape) {
  MultiNode g = IfModel();
  g.feeds[0] = MakeTensor(DType::Bool, {}, {0});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{4}));
  ExpectNear(Values(out[0]), {1, -2, 1, -2});
}

TEST(LowerIf, BranchNotTakenRaisesNoError) {
  // The else branch would read a sequence out of range; it must not run.
  MultiNode g(13);
  g.Input("c", DType::Bool, {1}, {1});
  g.Input("x", DType::F32, {1}, {5});
  g.Const("far", DType::I64, {}, {7});
  auto then_b = Sub({}, {Node("Identity", {"x"}, {"t"})}, {"t"});
  auto else_b =
      Sub({}, {Node("SequenceConstruct", {"x"}, {"s"}), Node("SequenceAt", {"s", "far"}, {"e"})}, {"e"});
  g.Add(Node("If", {"c"}, {"y"}, {GraphAttr("then_branch", then_b), GraphAttr("else_branch", else_b)}));
  g.Output("y");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {5});
}

// Loop with trip count and cond: y += i each iteration; scan output y after each iteration.
MultiNode LoopModel(double trip, bool cond_stops_at_2) {
  MultiNode g(16);
  g.Input("m", DType::I64, {}, {trip});
  g.Input("c", DType::Bool, {}, {1});
  g.Input("y", DType::F32, {1}, {10});
  std::vector<onnx::OnnxNode> nodes = {
      Node("Cast", {"i"}, {"fi"}, {IntAttr("to", 1)}),
      Node("Add", {"y_in", "fi"}, {"y_out"}),
      Node("Identity", {"y_out"}, {"scan"}),
  };
  if (cond_stops_at_2) {
    nodes.push_back(Node("Constant", {}, {"two"}, {TensorAttr("value", DType::I64, {}, {2})}));
    nodes.push_back(Node("Less", {"i", "two"}, {"c_out"}));
  } else {
    nodes.push_back(Node("Identity", {"c_in"}, {"c_out"}));
  }
  auto body = Sub({{"i", T(DType::I64, {})}, {"c_in", T(DType::Bool, {})}, {"y_in", T(DType::F32, {1})}},
                  nodes, {"c_out", "y_out", "scan"});
  g.Add(Node("Loop", {"m", "c", "y"}, {"y_final", "ys"}, {GraphAttr("body", body)}));
  g.Output("y_final");
  g.Output("ys");
  return g;
}

TEST(LowerLoop, TripCountAndScanOutput) {
  MultiNode g = LoopModel(4, false);
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {16});  // 10 + 0 + 1 + 2 + 3
  EXPECT_EQ(Shape(out[1]), (Ints{4, 1}));
  ExpectNear(Values(out[1]), {10, 11, 13, 16});
}

TEST(LowerLoop, CondStopsEarly) {
  // The body's cond is computed before the next check: iterations i = 0, 1, 2 run (cond after
  // i = 2 is 2 < 2 = false).
  MultiNode g = LoopModel(10, true);
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {13});
  EXPECT_EQ(Shape(out[1]), (Ints{3, 1}));
  ExpectNear(Values(out[1]), {10, 11, 13});
}

TEST(LowerLoop, ZeroIterationsGiveInitialValuesAndEmptyScan) {
  MultiNode g = LoopModel(0, false);
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {10});
  EXPECT_EQ(Shape(out[1]), (Ints{0, 1}));
}

TEST(LowerLoop, CarriedValueGrowsAcrossIterations) {
  // No cond input: a "for" loop; x = concat(x, [i]) three times from [7].
  MultiNode g(13);
  g.Input("m", DType::I64, {}, {3});
  g.Input("x", DType::I64, {1}, {7});
  g.Const("shape1", DType::I64, {1}, {1});
  auto body = Sub({{"i", T(DType::I64, {})}, {"c_in", T(DType::Bool, {})}, {"x_in", T(DType::I64, {1})}},
                  {Node("Reshape", {"i", "shape1"}, {"i1"}),
                   Node("Concat", {"x_in", "i1"}, {"x_out"}, {IntAttr("axis", 0)}),
                   Node("Identity", {"c_in"}, {"c_out"})},
                  {"c_out", "x_out"});
  g.Add(Node("Loop", {"m", "", "x"}, {"x_final"}, {GraphAttr("body", body)}));
  g.Output("x_final");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{4}));
  ExpectNear(Values(out[0]), {7, 0, 1, 2});
}

TEST(LowerLoop, SequenceCarriedThroughInsert) {
  // Loop-13 with a sequence: seq gets [i] appended each iteration; its length is the trip count.
  MultiNode g(13);
  g.Input("m", DType::I64, {}, {3});
  g.Input("x", DType::F32, {2}, {1, 2});
  g.Const("shape1", DType::I64, {1}, {1});
  g.Add(Node("SequenceConstruct", {"x"}, {"s0"}));
  auto body =
      Sub({{"i", T(DType::I64, {})}, {"c_in", T(DType::Bool, {})}, {"s_in", std::nullopt}},
          {Node("Cast", {"i"}, {"fi"}, {IntAttr("to", 1)}), Node("Reshape", {"fi", "shape1"}, {"fi1"}),
           Node("SequenceInsert", {"s_in", "fi1"}, {"s_out"}), Node("Identity", {"c_in"}, {"c_out"})},
          {"c_out", "s_out"});
  g.Add(Node("Loop", {"m", "", "s0"}, {"s"}, {GraphAttr("body", body)}));
  g.Add(Node("ConcatFromSequence", {"s"}, {"y"}, {IntAttr("axis", 0)}));
  g.Output("y");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1, 2, 0, 1, 2});
}

// Scan-9+: running sum over axis `in_axis` of a [2,3] input; scan output is the running sum.
MultiNode ScanModel(int64_t opset, Ints in_axes, Ints in_dirs, Ints out_axes, Ints out_dirs) {
  MultiNode g(opset);
  g.Input("s0", DType::F32, {}, {0});
  g.Input("x", DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto body = Sub({{"acc", T(DType::F32, {})}, {"v", std::nullopt}},
                  {Node("ReduceSum", {"v"}, {"vs"}, {IntAttr("keepdims", 0)}),
                   Node("Add", {"acc", "vs"}, {"acc_out"}), Node("Add", {"v", "acc"}, {"y"})},
                  {"acc_out", "y"});
  std::vector<onnx::OnnxAttribute> attrs = {GraphAttr("body", body), IntAttr("num_scan_inputs", 1)};
  if (!in_axes.empty()) attrs.push_back(IntsAttr("scan_input_axes", in_axes));
  if (!in_dirs.empty()) attrs.push_back(IntsAttr("scan_input_directions", in_dirs));
  if (!out_axes.empty()) attrs.push_back(IntsAttr("scan_output_axes", out_axes));
  if (!out_dirs.empty()) attrs.push_back(IntsAttr("scan_output_directions", out_dirs));
  g.Add(Node("Scan", {"s0", "x"}, {"sum", "ys"}, attrs));
  g.Output("sum");
  g.Output("ys");
  return g;
}

TEST(LowerScan, RowsForward) {
  // rows [1,2,3], [4,5,6]: acc 0 -> 6 -> 21; y_t = row_t + acc before the step.
  MultiNode g = ScanModel(11, {}, {}, {}, {});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {21});
  EXPECT_EQ(Shape(out[1]), (Ints{2, 3}));
  ExpectNear(Values(out[1]), {1, 2, 3, 10, 11, 12});
}

TEST(LowerScan, ColumnsReversedInputAndOutputOnAxis1) {
  // Columns taken last first: [3,6] (acc 0), [2,5] (acc 9), [1,4] (acc 16); y = col + acc:
  // [3,6], [11,14], [17,20]; reversed output direction puts the last iteration's value first, and
  // output axis 1 (= -1) stacks them as columns: [[17,11,3],[20,14,6]].
  MultiNode g = ScanModel(16, {-1}, {1}, {-1}, {1});
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {21});
  EXPECT_EQ(Shape(out[1]), (Ints{2, 3}));
  ExpectNear(Values(out[1]), {17, 11, 3, 20, 14, 6});
}

TEST(LowerScan, Opset8BatchAxis) {
  // Scan-8: x [2 batch, 2 steps, 1]; per batch: acc starts at s0[b]; y = acc + v.
  MultiNode g(8);
  g.Input("s0", DType::F32, {2, 1}, {0, 100});
  g.Input("x", DType::F32, {2, 2, 1}, {1, 2, 3, 4});
  auto body =
      Sub({{"acc", T(DType::F32, {1})}, {"v", T(DType::F32, {1})}},
          {Node("Add", {"acc", "v"}, {"acc_out"}), Node("Identity", {"acc_out"}, {"y"})}, {"acc_out", "y"});
  g.Add(Node("Scan", {"", "s0", "x"}, {"sum", "ys"},
             {GraphAttr("body", body), IntAttr("num_scan_inputs", 1), IntsAttr("directions", {1})}));
  g.Output("sum");
  g.Output("ys");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  // batch 0 reversed: 0+2=2, 2+1=3; batch 1: 100+4=104, 104+3=107
  EXPECT_EQ(Shape(out[0]), (Ints{2, 1}));
  ExpectNear(Values(out[0]), {3, 107});
  EXPECT_EQ(Shape(out[1]), (Ints{2, 2, 1}));
  ExpectNear(Values(out[1]), {2, 3, 104, 107});
}

TEST(LowerIf, SequenceBranchesOfDifferentShapesAreJoined) {
  // then: [x] (elements [2]); else: [x, y] (elements [2] and [3]): the result's elements are [?]
  // in both cases, and concatenating works on either.
  MultiNode g(13);
  g.Input("c", DType::Bool, {}, {0});
  g.Input("x", DType::F32, {2}, {1, 2});
  g.Input("y", DType::F32, {3}, {3, 4, 5});
  auto then_b = Sub({}, {Node("SequenceConstruct", {"x"}, {"t"})}, {"t"});
  auto else_b = Sub({}, {Node("SequenceConstruct", {"x", "y"}, {"e"})}, {"e"});
  g.Add(Node("If", {"c"}, {"s"}, {GraphAttr("then_branch", then_b), GraphAttr("else_branch", else_b)}));
  g.Add(Node("ConcatFromSequence", {"s"}, {"z"}, {IntAttr("axis", 0)}));
  g.Output("z");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1, 2, 3, 4, 5});
  g.feeds[0] = MakeTensor(DType::Bool, {}, {1});
  out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1, 2});
}

TEST(LowerLoop, WhileLoopWithoutTripCount) {
  // M absent: runs while cond; cond' = (x * 2 < 20); x doubles: 3 -> 6 -> 12 -> 24 (cond false).
  MultiNode g(13);
  g.Input("c", DType::Bool, {}, {1});
  g.Input("x", DType::I64, {}, {3});
  g.Const("two", DType::I64, {}, {2});
  g.Const("limit", DType::I64, {}, {20});
  auto body = Sub({{"i", T(DType::I64, {})}, {"c_in", T(DType::Bool, {})}, {"x_in", T(DType::I64, {})}},
                  {Node("Mul", {"x_in", "two"}, {"x_out"}), Node("Less", {"x_out", "limit"}, {"c_out"}),
                   Node("Identity", {"i"}, {"iter"})},
                  {"c_out", "x_out", "iter"});
  g.Add(Node("Loop", {"", "c", "x"}, {"x_final", "iters"}, {GraphAttr("body", body)}));
  g.Output("x_final");
  g.Output("iters");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {24});
  ExpectNear(Values(out[1]), {0, 1, 2});
}

TEST(LowerScan, ZeroLengthScanKeepsStatesAndGivesEmptyOutput) {
  MultiNode g(16);
  g.Input("s0", DType::F32, {}, {7});
  g.Input("x", DType::F32, {0, 3}, {});
  auto body = Sub({{"acc", T(DType::F32, {})}, {"v", std::nullopt}},
                  {Node("ReduceSum", {"v"}, {"vs"}, {IntAttr("keepdims", 0)}),
                   Node("Add", {"acc", "vs"}, {"acc_out"}), Node("Add", {"v", "acc"}, {"y"})},
                  {"acc_out", "y"});
  g.Add(Node("Scan", {"s0", "x"}, {"sum", "ys"}, {GraphAttr("body", body), IntAttr("num_scan_inputs", 1)}));
  g.Output("sum");
  g.Output("ys");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {7});
  EXPECT_EQ(Shape(out[1]), (Ints{0, 3}));
}

TEST(LowerScan, StaticStepsGiveStaticScanOutputForOpsThatNeedThem) {
  // plumb gen (issue 22) found a Scan whose output fed SpaceToDepth ("needs a static 4-D input"):
  // x [1, 4, 2, 2] scanned over axis 0 (1 step, y = v + acc = v) is ys [1, 4, 2, 2], static; then
  // SpaceToDepth(blocksize 2) gives [1, 16, 1, 1] with the 2x2 blocks' elements as channels.
  MultiNode g(13);
  std::vector<double> x(16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
  g.Input("s0", DType::F32, {4, 2, 2}, std::vector<double>(16, 0));
  g.Input("x", DType::F32, {1, 4, 2, 2}, x);
  auto body =
      Sub({{"acc", T(DType::F32, {4, 2, 2})}, {"v", T(DType::F32, {4, 2, 2})}},
          {Node("Add", {"acc", "v"}, {"acc_out"}), Node("Identity", {"acc_out"}, {"y"})}, {"acc_out", "y"});
  g.Add(Node("Scan", {"s0", "x"}, {"sum", "ys"}, {GraphAttr("body", body), IntAttr("num_scan_inputs", 1)}));
  g.Add(Node("SpaceToDepth", {"ys"}, {"z"}, {IntAttr("blocksize", 2)}));
  g.Output("z");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Shape(out[0]), (Ints{1, 16, 1, 1}));
  // Channel c of the output is block offset (c / 4 / 2, c / 4 % 2) of input channel c % 4.
  ExpectNear(Values(out[0]), {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
}

TEST(LowerSequenceMap, AddsTensorToEachElement) {
  MultiNode g(17);
  g.Input("a", DType::F32, {2}, {1, 2});
  g.Input("b", DType::F32, {3}, {3, 4, 5});
  g.Input("k", DType::F32, {1}, {10});
  g.Add(Node("SequenceConstruct", {"a", "b"}, {"s"}));
  auto body = Sub({{"e", std::nullopt}, {"kk", std::nullopt}}, {Node("Add", {"e", "kk"}, {"o"})}, {"o"});
  g.Add(Node("SequenceMap", {"s", "k"}, {"t"}, {GraphAttr("body", body)}));
  g.Add(Node("ConcatFromSequence", {"t"}, {"y"}, {IntAttr("axis", 0)}));
  g.Output("y");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {11, 12, 13, 14, 15});
}

}  // namespace
}  // namespace plumb::testing
