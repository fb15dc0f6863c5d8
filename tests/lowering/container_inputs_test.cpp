// Optional* and sequence ops whose operand is a graph input (an optional or a sequence value
// handed to the session), not a value built inside the model: one-node models run on ref.
// Expected values are the inputs themselves, picked or joined as the ONNX definitions say.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using ir::DType;

// A one-node model whose only input i0 has the container type `t`.
onnx::OnnxModel ContainerModel(const std::string& op, int64_t opset, const ir::Type& t,
                               std::vector<onnx::OnnxAttribute> attrs = {}, size_t outs = 1) {
  onnx::OnnxModel m = OneNodeModel(op, opset, {}, std::move(attrs), outs);
  m.graph.nodes[0].inputs = {"i0"};
  m.graph.inputs.push_back({"i0", t});
  return m;
}

const ir::Type kF32x2 = ir::Type::tensor(DType::F32, ir::static_shape({2}));

rt::RtValue Present(rt::Tensor t) {
  return rt::OptionalValue{kF32x2, std::make_shared<rt::RtValue>(std::move(t))};
}
rt::RtValue Absent() { return rt::OptionalValue{kF32x2, nullptr}; }

rt::RtValue SeqOf(const ir::Type& elem, std::vector<rt::Tensor> items) {
  return rt::SequenceValue{elem, std::move(items), {}};
}

TEST(LowerOptionalInput, HasElementPresentAndAbsent) {
  const onnx::OnnxModel m = ContainerModel("OptionalHasElement", 18, ir::Type::optional(kF32x2));
  auto yes = RunModel(m, {Present(MakeTensor(DType::F32, {2}, {1, 2}))});
  ASSERT_EQ(yes.size(), 1u);
  EXPECT_EQ(yes[0].tensor().dtype, DType::Bool);
  EXPECT_TRUE(yes[0].tensor().shape.empty());
  ExpectNear(Values(yes[0]), {1});
  ExpectNear(Values(RunModel(m, {Absent()}).at(0)), {0});
}

TEST(LowerOptionalInput, GetElementPresentAndAbsentIsOptionalR1) {
  const onnx::OnnxModel m = ContainerModel("OptionalGetElement", 18, ir::Type::optional(kF32x2));
  auto out = RunModel(m, {Present(MakeTensor(DType::F32, {2}, {-0.5, 7}))});
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {-0.5, 7});
  Status st;
  RunModel(m, {Absent()}, &st);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("optional.R1"), std::string::npos) << st.to_string();
}

TEST(LowerOptionalInput, OptionalSequenceGetElementIsTheSequence) {
  const ir::Type elem = ir::Type::tensor(DType::I64, ir::static_shape({1}));
  const ir::Type seq = ir::Type::sequence(elem);
  const onnx::OnnxModel m = ContainerModel("OptionalGetElement", 18, ir::Type::optional(seq));
  rt::RtValue s = SeqOf(elem, {MakeTensor(DType::I64, {1}, {4}), MakeTensor(DType::I64, {1}, {9})});
  auto out = RunModel(m, {rt::OptionalValue{seq, std::make_shared<rt::RtValue>(std::move(s))}});
  ASSERT_EQ(out.size(), 1u);
  const auto* got = std::get_if<rt::SequenceValue>(&out[0]);
  ASSERT_NE(got, nullptr);
  ASSERT_EQ(got->items.size(), 2u);
  ExpectNear(Values(got->items[0]), {4});
  ExpectNear(Values(got->items[1]), {9});
}

// SequenceErase with the position as a second graph input.
onnx::OnnxModel EraseModel(const ir::Type& seq) {
  onnx::OnnxModel m = ContainerModel("SequenceErase", 11, seq);
  m.graph.nodes[0].inputs.push_back("i1");
  m.graph.inputs.push_back({"i1", ir::Type::tensor(DType::I64, ir::static_shape({}))});
  return m;
}

TEST(LowerSequenceInput, EraseNegativePositionAndOutOfRange) {
  const ir::Type elem = ir::Type::tensor(DType::F32, {ir::Dim::symbolic("n")});
  const onnx::OnnxModel m = EraseModel(ir::Type::sequence(elem));
  auto seq = [&] {
    return SeqOf(elem, {MakeTensor(DType::F32, {1}, {1}), MakeTensor(DType::F32, {2}, {2, 3}),
                        MakeTensor(DType::F32, {3}, {4, 5, 6})});
  };
  // -3 is the first element: [2, 3] and [4, 5, 6] remain.
  auto out = RunModel(m, {seq(), MakeTensor(DType::I64, {}, {-3})});
  ASSERT_EQ(out.size(), 1u);
  const auto* got = std::get_if<rt::SequenceValue>(&out[0]);
  ASSERT_NE(got, nullptr);
  ASSERT_EQ(got->items.size(), 2u);
  ExpectNear(Values(got->items[0]), {2, 3});
  ExpectNear(Values(got->items[1]), {4, 5, 6});
  Status st;
  RunModel(m, {seq(), MakeTensor(DType::I64, {}, {3})}, &st);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("sequence.R2"), std::string::npos) << st.to_string();
}

TEST(LowerSequenceInput, ConcatFromSequenceAxisAndNewAxis) {
  const ir::Type elem = ir::Type::tensor(DType::F32, ir::static_shape({1, 2}));
  const ir::Type seq = ir::Type::sequence(elem);
  auto seq2 = [&] {
    return SeqOf(elem, {MakeTensor(DType::F32, {1, 2}, {1, 2}), MakeTensor(DType::F32, {1, 2}, {3, 4})});
  };
  auto cat = RunModel(ContainerModel("ConcatFromSequence", 11, seq, {IntAttr("axis", -1)}), {seq2()});
  ASSERT_EQ(cat.size(), 1u);
  EXPECT_EQ(cat[0].tensor().shape, (Ints{1, 4}));
  ExpectNear(Values(cat[0]), {1, 2, 3, 4});
  // new_axis = 1 with axis = -1 inserts the new axis last (the range is [-r-1, r]): [1, 2, 2].
  auto stack = RunModel(
      ContainerModel("ConcatFromSequence", 11, seq, {IntAttr("axis", -1), IntAttr("new_axis", 1)}), {seq2()});
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].tensor().shape, (Ints{1, 2, 2}));
  ExpectNear(Values(stack[0]), {1, 3, 2, 4});
}

TEST(LowerSequenceInput, ConcatOfEmptySequenceIsSequenceR3) {
  const ir::Type elem = ir::Type::tensor(DType::F32, ir::static_shape({2}));
  Status st;
  RunModel(ContainerModel("ConcatFromSequence", 11, ir::Type::sequence(elem), {IntAttr("axis", 0)}),
           {SeqOf(elem, {})}, &st);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("sequence.R3"), std::string::npos) << st.to_string();
}

}  // namespace
}  // namespace plumb::testing
