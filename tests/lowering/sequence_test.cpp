// Lowering tests for the sequence and optional ops (lowering/onnx/sequence.cpp): small hand-built
// ONNX graphs lowered and run on ref; expected values worked out by hand from the ONNX definitions.
#include <gtest/gtest.h>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/multi_node.h"

namespace plumb::testing {
namespace {

TEST(LowerSequence, ConstructAtNegativePosition) {
  MultiNode g(17);
  g.Input("a", ir::DType::F32, {2}, {1, 2});
  g.Input("b", ir::DType::F32, {3}, {3, 4, 5});
  g.Const("p", ir::DType::I64, {}, {-1});
  g.Add(Node("SequenceConstruct", {"a", "b"}, {"s"}));
  g.Add(Node("SequenceAt", {"s", "p"}, {"y"}));
  g.Output("y");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {3, 4, 5});
}

TEST(LowerSequence, InsertFrontAndBackThenConcat) {
  // [a] -> insert b at 0 -> [b, a] -> insert c at the end -> [b, a, c]; concat along 0.
  MultiNode g(11);
  g.Input("a", ir::DType::I32, {1, 2}, {1, 2});
  g.Input("b", ir::DType::I32, {2, 2}, {3, 4, 5, 6});
  g.Input("c", ir::DType::I32, {1, 2}, {7, 8});
  g.Const("zero", ir::DType::I32, {}, {0});
  g.Add(Node("SequenceConstruct", {"a"}, {"s0"}));
  g.Add(Node("SequenceInsert", {"s0", "b", "zero"}, {"s1"}));
  g.Add(Node("SequenceInsert", {"s1", "c"}, {"s2"}));
  g.Add(Node("ConcatFromSequence", {"s2"}, {"y"}, {IntAttr("axis", 0)}));
  g.Add(Node("SequenceLength", {"s2"}, {"n"}));
  g.Output("y");
  g.Output("n");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Shape(out[0]), (Ints{4, 2}));
  ExpectNear(Values(out[0]), {3, 4, 5, 6, 1, 2, 7, 8});
  ExpectNear(Values(out[1]), {3});
}

TEST(LowerSequence, EraseDefaultsToLastAndStacksNewAxis) {
  MultiNode g(11);
  g.Input("a", ir::DType::F32, {2}, {1, 2});
  g.Input("b", ir::DType::F32, {2}, {3, 4});
  g.Input("c", ir::DType::F32, {2}, {5, 6});
  g.Add(Node("SequenceConstruct", {"a", "b", "c"}, {"s"}));
  g.Add(Node("SequenceErase", {"s"}, {"t"}));
  g.Add(Node("ConcatFromSequence", {"t"}, {"y"}, {IntAttr("axis", -1), IntAttr("new_axis", 1)}));
  g.Output("y");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  // stack of [1,2] and [3,4] along a new last axis: [[1,3],[2,4]]
  EXPECT_EQ(Shape(out[0]), (Ints{2, 2}));
  ExpectNear(Values(out[0]), {1, 3, 2, 4});
}

TEST(LowerSequence, InsertOfAnotherShapeWidensTheElementType) {
  // A sequence of [2] tensors takes a [3] tensor: the element type is widened to [?].
  MultiNode g(11);
  g.Input("a", ir::DType::F32, {2}, {1, 2});
  g.Input("b", ir::DType::F32, {3}, {3, 4, 5});
  g.Add(Node("SequenceConstruct", {"a"}, {"s"}));
  g.Add(Node("SequenceInsert", {"s", "b"}, {"t"}));
  g.Add(Node("ConcatFromSequence", {"t"}, {"y"}, {IntAttr("axis", 0)}));
  g.Output("y");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1, 2, 3, 4, 5});
}

TEST(LowerSequence, AtOutOfRangeIsSequenceR2) {
  MultiNode g(11);
  g.Input("a", ir::DType::F32, {1}, {1});
  g.Const("p", ir::DType::I64, {}, {-2});  // -2 + 1 = -1: outside [0, 1)
  g.Add(Node("SequenceConstruct", {"a"}, {"s"}));
  g.Add(Node("SequenceAt", {"s", "p"}, {"y"}));
  g.Output("y");
  std::vector<rt::RtValue> out;
  Status st = g.Run(&out);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("sequence.R2"), std::string::npos) << st.to_string();
}

TEST(LowerSequence, SplitScalarLastPieceHoldsTheRest) {
  // 5 along axis 1 in pieces of 2: [2, 2, 1]; the last piece is column 4.
  MultiNode g(11);
  g.Input("x", ir::DType::F32, {2, 5}, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14});
  g.Const("two", ir::DType::I64, {}, {2});
  g.Const("last", ir::DType::I64, {}, {-1});
  g.Add(Node("SplitToSequence", {"x", "two"}, {"s"}, {IntAttr("axis", 1)}));
  g.Add(Node("SequenceLength", {"s"}, {"n"}));
  g.Add(Node("SequenceAt", {"s", "last"}, {"y"}));
  g.Output("n");
  g.Output("y");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {3});
  EXPECT_EQ(Shape(out[1]), (Ints{2, 1}));
  ExpectNear(Values(out[1]), {4, 14});
}

TEST(LowerSequence, SplitSizesAndNoSplitKeepdims) {
  MultiNode g(11);
  g.Input("x", ir::DType::I64, {3, 2}, {1, 2, 3, 4, 5, 6});
  g.Const("sizes", ir::DType::I64, {2}, {1, 2});
  g.Const("one", ir::DType::I64, {}, {1});
  g.Add(Node("SplitToSequence", {"x", "sizes"}, {"s"}));
  g.Add(Node("SequenceAt", {"s", "one"}, {"y"}));
  g.Add(Node("SplitToSequence", {"x"}, {"u"}, {IntAttr("axis", 0), IntAttr("keepdims", 1)}));
  g.Add(Node("SequenceAt", {"u", "one"}, {"z"}));
  g.Output("y");
  g.Output("z");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Shape(out[0]), (Ints{2, 2}));
  ExpectNear(Values(out[0]), {3, 4, 5, 6});
  EXPECT_EQ(Shape(out[1]), (Ints{1, 2}));
  ExpectNear(Values(out[1]), {3, 4});
}

TEST(LowerSequence, SplitWithoutKeepdimsDropsTheAxis) {
  // x [2,3] split along axis 1 into 3 pieces of shape [2]; stacking them along axis 1 gives x back.
  MultiNode g(11);
  g.Input("x", ir::DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  g.Const("one", ir::DType::I64, {}, {1});
  g.Add(Node("SplitToSequence", {"x"}, {"s"}, {IntAttr("axis", 1), IntAttr("keepdims", 0)}));
  g.Add(Node("SequenceAt", {"s", "one"}, {"y"}));
  g.Add(Node("ConcatFromSequence", {"s"}, {"z"}, {IntAttr("axis", 1), IntAttr("new_axis", 1)}));
  g.Output("y");
  g.Output("z");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Shape(out[0]), (Ints{2}));
  ExpectNear(Values(out[0]), {2, 5});
  EXPECT_EQ(Shape(out[1]), (Ints{2, 3}));
  ExpectNear(Values(out[1]), {1, 2, 3, 4, 5, 6});
}

TEST(LowerSequence, EmptyThenInsertHasLengthOne) {
  MultiNode g(11);
  g.Input("a", ir::DType::F32, {2}, {1, 2});
  g.Add(Node("SequenceEmpty", {}, {"s"}));
  g.Add(Node("SequenceInsert", {"s", "a"}, {"t"}));
  g.Add(Node("SequenceLength", {"t"}, {"n"}));
  g.Output("n");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1});
}

TEST(LowerSequence, EmptyThenInsertKeepsTheTensorsRank) {
  // SequenceEmpty has no element shape; the first insert gives the elements x's type, so
  // SequenceAt and ConcatFromSequence (which need a rank) work on the result.
  MultiNode g(11);
  g.Input("a", ir::DType::F32, {2}, {1, 2});
  g.Input("b", ir::DType::F32, {1}, {3});
  g.Const("zero", ir::DType::I64, {}, {0});
  g.Add(Node("SequenceEmpty", {}, {"s"}));
  g.Add(Node("SequenceInsert", {"s", "a"}, {"t"}));
  g.Add(Node("SequenceInsert", {"t", "b", "zero"}, {"u"}));
  g.Add(Node("SequenceAt", {"u", "zero"}, {"y"}));
  g.Add(Node("ConcatFromSequence", {"u"}, {"z"}, {IntAttr("axis", 0)}));
  g.Output("y");
  g.Output("z");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {3});
  ExpectNear(Values(out[1]), {3, 1, 2});
}

TEST(LowerOptional, WrapHasGet) {
  MultiNode g(18);
  g.Input("a", ir::DType::F32, {2}, {1.5, -2});
  g.Add(Node("Optional", {"a"}, {"o"}));
  g.Add(Node("OptionalHasElement", {"o"}, {"h"}));
  g.Add(Node("OptionalGetElement", {"o"}, {"v"}));
  g.Add(Node("OptionalHasElement", {}, {"none"}));
  g.Add(Node("OptionalHasElement", {"a"}, {"tensor_has"}));
  g.Output("h");
  g.Output("v");
  g.Output("none");
  g.Output("tensor_has");
  auto out = g.RunOk();
  ASSERT_EQ(out.size(), 4u);
  ExpectNear(Values(out[0]), {1});
  ExpectNear(Values(out[1]), {1.5, -2});
  ExpectNear(Values(out[2]), {0});
  ExpectNear(Values(out[3]), {1});
}

TEST(LowerOptional, GetOfEmptyIsOptionalR1) {
  MultiNode g(18);
  onnx::OnnxAttribute type;
  type.name = "type";
  type.type = onnx::AttrType::TypeProto;
  type.tp = ir::Type::tensor(ir::DType::F32, {2});
  g.Add(Node("Optional", {}, {"o"}, {type}));
  g.Add(Node("OptionalHasElement", {"o"}, {"h"}));
  g.Add(Node("OptionalGetElement", {"o"}, {"v"}));
  g.Output("v");
  std::vector<rt::RtValue> out;
  Status st = g.Run(&out);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("optional.R1"), std::string::npos) << st.to_string();
}

TEST(LowerOptional, Opset15RefusesTensorInput) {
  MultiNode g(15);
  g.Input("a", ir::DType::F32, {1}, {1});
  g.Add(Node("OptionalGetElement", {"a"}, {"v"}));
  g.Output("v");
  auto lowered = lower::lower_model(g.m, rt::RefEvaluator());
  EXPECT_FALSE(lowered.has_value());
}

}  // namespace
}  // namespace plumb::testing
