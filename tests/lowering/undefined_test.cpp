// Results ONNX leaves undefined (spec/onnx-rulings.md R11): an error naming the node and saying the
// result is undefined, never a silent value. Reductions of an empty set (onnx/onnx#5568):
// ReduceMean's always, ReduceLogSum's / ReduceLogSumExp's in integer types (no -inf), while the
// defined empty cases keep their identities; a Slice with a repeated axis; duplicate scatter
// writes (scatter.R2).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

Status run_reduce(const std::string& op, ir::DType dt, const Ints& shape, std::vector<rt::RtValue>* out) {
  const std::vector<NodeInput> in = {{shape, {}, dt}, {{1}, {1}, ir::DType::I64, true}};
  Status st;
  *out = RunModel(OneNodeModel(op, 18, in, {IntAttr("keepdims", 0)}, 1), {MakeTensor(dt, shape, {})}, &st);
  return st;
}

TEST(LowerReduceEmpty, MeanOfAnEmptySetIsUndefined) {
  std::vector<rt::RtValue> out;
  const Status st = run_reduce("ReduceMean", ir::DType::F32, {2, 0}, &out);
  EXPECT_EQ(st.code(), ErrorCode::kRuntimeError) << st.to_string();
  EXPECT_EQ(st.label(), "onnx-rulings.R11");
  EXPECT_NE(st.to_string().find("the result is undefined: ReduceMean over an empty set"), std::string::npos)
      << st.to_string();
  EXPECT_NE(st.place().find("'n0' (ReduceMean-18)"), std::string::npos) << st.place();
  // Integer means too (they would be a NaN cast to an integer).
  EXPECT_EQ(run_reduce("ReduceMean", ir::DType::I32, {3, 0}, &out).label(), "onnx-rulings.R11");
}

TEST(LowerReduceEmpty, NoElementToReduceIsNoError) {
  std::vector<rt::RtValue> out;
  const Status st = run_reduce("ReduceMean", ir::DType::F32, {0, 3}, &out);  // result f32[0]
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].tensor().numel(), 0);
}

TEST(LowerReduceEmpty, LogSumIsUndefinedOnlyWithoutMinusInfinity) {
  std::vector<rt::RtValue> out;
  EXPECT_EQ(run_reduce("ReduceLogSum", ir::DType::I32, {2, 0}, &out).label(), "onnx-rulings.R11");
  EXPECT_EQ(run_reduce("ReduceLogSumExp", ir::DType::I64, {2, 0}, &out).label(), "onnx-rulings.R11");
  const Status st = run_reduce("ReduceLogSum", ir::DType::F32, {2, 0}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-INFINITY, -INFINITY}));
}

TEST(LowerReduceEmpty, DefinedIdentitiesStay) {
  std::vector<rt::RtValue> out;
  ASSERT_TRUE(run_reduce("ReduceSum", ir::DType::F32, {2, 0}, &out).is_ok());
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 0}));
  ASSERT_TRUE(run_reduce("ReduceL2", ir::DType::F32, {2, 0}, &out).is_ok());
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 0}));
  ASSERT_TRUE(run_reduce("ReduceProd", ir::DType::I32, {2, 0}, &out).is_ok());
  EXPECT_EQ(Values(out[0]), (std::vector<double>{1, 1}));
}

// A symbolic reduced extent: the guard is decided at run time, per input.
TEST(LowerReduceEmpty, SymbolicExtentIsCheckedAtRunTime) {
  onnx::OnnxModel m =
      OneNodeModel("ReduceMean", 18, {{{2, 3}, {}, ir::DType::F32}, {{1}, {1}, ir::DType::I64, true}},
                   {IntAttr("keepdims", 0)}, 1);
  m.graph.inputs[0].type = ir::Type::tensor(ir::DType::F32, ir::Shape{ir::Dim(2), ir::Dim::symbolic("n")});
  Status st;
  auto out = RunModel(m, {MakeTensor(ir::DType::F32, {2, 2}, {1, 3, 5, 7})}, &st);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(Values(out[0]), (std::vector<double>{2, 6}));
  RunModel(m, {MakeTensor(ir::DType::F32, {2, 0}, {})}, &st);
  EXPECT_EQ(st.label(), "onnx-rulings.R11") << st.to_string();
}

TEST(LowerUndefined, SliceWithARepeatedAxis) {
  const std::vector<NodeInput> in = {{{4, 4}, std::vector<double>(16, 1.0)},
                                     {{2}, {0, 1}, ir::DType::I64, true},
                                     {{2}, {3, 3}, ir::DType::I64, true},
                                     {{2}, {0, -2}, ir::DType::I64, true}};  // -2 is axis 0 again
  Status st;
  RunModel(OneNodeModel("Slice", 13, in, {}, 1),
           {MakeTensor(ir::DType::F32, {4, 4}, std::vector<double>(16, 1.0))}, &st);
  EXPECT_EQ(st.label(), "onnx-rulings.R11") << st.to_string();
  EXPECT_NE(st.to_string().find("the result is undefined: Slice with axis 0 repeated"), std::string::npos)
      << st.to_string();
}

TEST(LowerUndefined, DuplicateScatterWritesAreAnError) {
  const std::vector<NodeInput> in = {
      {{4}, {0, 0, 0, 0}}, {{2, 1}, {1, 1}, ir::DType::I64, true}, {{2}, {5, 6}, ir::DType::F32, true}};
  Status st;
  RunModel(OneNodeModel("ScatterND", 18, in, {}, 1), {MakeTensor(ir::DType::F32, {4}, {0, 0, 0, 0})}, &st);
  EXPECT_EQ(st.label(), "scatter.R2") << st.to_string();
  EXPECT_NE(st.place().find("(ScatterND-18)"), std::string::npos) << st.place();
}

}  // namespace
}  // namespace plumb::testing
