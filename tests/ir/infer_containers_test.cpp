// Inference and constraint labels of sequence, optional, map, string, image_decode.
#include <gtest/gtest.h>

#include "ir/infer.h"

namespace plumb::ir {
namespace {

struct Case {
  Node node;
  std::vector<Type> types;
  Graph graph;
  Expected<std::vector<Type>> infer(int outputs = 1) {
    node.inputs.assign(types.size(), 0);
    node.outputs.assign(outputs, 0);
    Status s = check_node_structure(node);
    if (!s.is_ok()) return s;
    std::vector<Operand> ops;
    for (const Type& t : types) ops.push_back(Operand{&t, nullptr});
    InferCtx cx{node, ops, graph, false};
    return infer_types(cx);
  }
};

Case seq_case(SequenceKind kind, int64_t axis, Type elem, std::vector<Type> types) {
  Case c;
  c.node.op = Op::Sequence;
  c.node.attrs = {{"kind", EnumValue{kind}}, {"axis", axis}, {"elem", TypeAttr{std::move(elem)}}};
  c.types = std::move(types);
  return c;
}

const Type kF32Any = Type::tensor(DType::F32, {Dim::symbolic()});
const Type kPos = Type::tensor(DType::I64, {});

std::string label(const Expected<std::vector<Type>>& r) { return r.has_value() ? "ok" : r.status().label(); }

TEST(InferSequence, ConstructGivesSequenceOfElem) {
  auto c = seq_case(SequenceKind::Construct, 0, kF32Any,
                    {Type::tensor(DType::F32, {2}), Type::tensor(DType::F32, {3})});
  auto r = c.infer();
  ASSERT_TRUE(r.has_value()) << r.status().to_string();
  EXPECT_EQ(type_to_string((*r)[0]), "seq<f32[?]>");
}

TEST(InferSequence, C1OperandCountMatchesKind) {
  auto c = seq_case(SequenceKind::At, 0, kF32Any, {Type::sequence(kF32Any)});
  EXPECT_EQ(label(c.infer()), "sequence.C1");
  auto e = seq_case(SequenceKind::Empty, 0, kF32Any, {kPos});
  EXPECT_EQ(label(e.infer()), "sequence.C1");
}

TEST(InferSequence, C2ItemsMatchElemType) {
  auto c = seq_case(SequenceKind::Construct, 0, kF32Any, {Type::tensor(DType::I64, {2})});
  EXPECT_EQ(label(c.infer()), "sequence.C2");
  auto rank = seq_case(SequenceKind::Construct, 0, kF32Any, {Type::tensor(DType::F32, {2, 2})});
  EXPECT_EQ(label(rank.infer()), "sequence.C2");
  auto wrong_seq = seq_case(SequenceKind::Length, 0, kF32Any,
                            {Type::sequence(Type::tensor(DType::I64, {Dim::symbolic()}))});
  EXPECT_EQ(label(wrong_seq.infer()), "sequence.C2");
}

TEST(InferSequence, C3PositionIsI64Scalar) {
  auto c = seq_case(SequenceKind::At, 0, kF32Any, {Type::sequence(kF32Any), Type::tensor(DType::I32, {})});
  EXPECT_EQ(label(c.infer()), "sequence.C3");
  auto split = seq_case(SequenceKind::Split, 0, kF32Any,
                        {Type::tensor(DType::F32, {4}), Type::tensor(DType::I64, {})});
  EXPECT_EQ(label(split.infer()), "sequence.C3");
}

TEST(InferSequence, C4AxisInRange) {
  auto c = seq_case(SequenceKind::ConcatAxis, 1, kF32Any, {Type::sequence(kF32Any)});
  EXPECT_EQ(label(c.infer()), "sequence.C4");
  auto stack = seq_case(SequenceKind::StackAxis, 1, kF32Any, {Type::sequence(kF32Any)});
  auto r = stack.infer();
  ASSERT_TRUE(r.has_value()) << r.status().to_string();
  EXPECT_EQ(type_to_string((*r)[0]), "f32[?,?]");
  auto len = seq_case(SequenceKind::Length, 1, kF32Any, {Type::sequence(kF32Any)});
  EXPECT_EQ(label(len.infer()), "sequence.C4");
}

Case opt_case(OptionalKind kind, Type elem, std::vector<Type> types) {
  Case c;
  c.node.op = Op::Optional;
  c.node.attrs = {{"kind", EnumValue{kind}}, {"elem", TypeAttr{std::move(elem)}}};
  c.types = std::move(types);
  return c;
}

TEST(InferOptional, C1OperandCountMatchesKind) {
  EXPECT_EQ(label(opt_case(OptionalKind::None, kF32Any, {kF32Any}).infer()), "optional.C1");
  EXPECT_EQ(label(opt_case(OptionalKind::Get, kF32Any, {}).infer()), "optional.C1");
}

TEST(InferOptional, C2ElemAndOperandTypes) {
  EXPECT_EQ(label(opt_case(OptionalKind::None, Type::optional(kF32Any), {}).infer()), "optional.C2");
  EXPECT_EQ(label(opt_case(OptionalKind::Wrap, kF32Any, {Type::tensor(DType::I64, {1})}).infer()),
            "optional.C2");
  EXPECT_EQ(label(opt_case(OptionalKind::Has, kF32Any, {kF32Any}).infer()), "optional.C2");
  auto ok = opt_case(OptionalKind::Has, kF32Any, {Type::optional(kF32Any)}).infer();
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(type_to_string((*ok)[0]), "bool[]");
}

Case map_case(MapKind kind, std::vector<Type> types) {
  Case c;
  c.node.op = Op::Map;
  c.node.attrs = {{"kind", EnumValue{kind}}};
  c.types = std::move(types);
  return c;
}

TEST(InferMap, C1OperandCountMatchesKind) {
  EXPECT_EQ(label(map_case(MapKind::Construct, {Type::tensor(DType::I64, {2})}).infer()), "map.C1");
}

TEST(InferMap, C2KeysAndValues) {
  EXPECT_EQ(label(map_case(MapKind::Construct, {Type::tensor(DType::F32, {2}), Type::tensor(DType::F32, {2})})
                      .infer()),
            "map.C2");
  EXPECT_EQ(label(map_case(MapKind::Construct, {Type::tensor(DType::I64, {2}), Type::tensor(DType::F32, {3})})
                      .infer()),
            "map.C2");
  EXPECT_EQ(label(map_case(MapKind::Keys, {Type::tensor(DType::I64, {2})}).infer()), "map.C2");
  auto ok =
      map_case(MapKind::Construct, {Type::tensor(DType::String, {2}), Type::tensor(DType::F32, {2})}).infer();
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(type_to_string((*ok)[0]), "map<string,f32[]>");
}

Case string_case(StringKind kind, std::string pattern, int64_t maxsplit, std::vector<Type> types) {
  Case c;
  c.node.op = Op::String;
  c.node.attrs = {{"kind", EnumValue{kind}}, {"pattern", std::move(pattern)}, {"maxsplit", maxsplit}};
  c.types = std::move(types);
  return c;
}

const Type kStr2 = Type::tensor(DType::String, {2});

TEST(InferString, C1OperandAndResultCounts) {
  EXPECT_EQ(label(string_case(StringKind::Concat, "", -1, {kStr2}).infer()), "string.C1");
  EXPECT_EQ(label(string_case(StringKind::Split, "", -1, {kStr2}).infer(1)), "string.C1");
  auto ok = string_case(StringKind::Split, ",", 2, {kStr2}).infer(2);
  ASSERT_TRUE(ok.has_value()) << ok.status().to_string();
  EXPECT_EQ(type_to_string((*ok)[0]), "string[2,?]");
  EXPECT_EQ(type_to_string((*ok)[1]), "i64[2]");
}

TEST(InferString, C2StringOperandsOfEqualShape) {
  EXPECT_EQ(label(string_case(StringKind::Lower, "", -1, {Type::tensor(DType::F32, {2})}).infer()),
            "string.C2");
  EXPECT_EQ(label(string_case(StringKind::Concat, "", -1, {kStr2, Type::tensor(DType::String, {3})}).infer()),
            "string.C2");
}

TEST(InferString, C3UnusedAttributesAreNeutral) {
  EXPECT_EQ(label(string_case(StringKind::Upper, "x", -1, {kStr2}).infer()), "string.C3");
  EXPECT_EQ(label(string_case(StringKind::Upper, "", 3, {kStr2}).infer()), "string.C3");
  EXPECT_EQ(label(string_case(StringKind::Split, "", -2, {kStr2}).infer(2)), "string.C3");
}

TEST(InferImageDecode, C1OperandIsU8Vector) {
  Case c;
  c.node.op = Op::ImageDecode;
  c.node.attrs = {{"format", EnumValue{PixelFormat::Grayscale}}};
  c.types = {Type::tensor(DType::I8, {10})};
  EXPECT_EQ(label(c.infer()), "image_decode.C1");
  c.types = {Type::tensor(DType::U8, {10})};
  auto ok = c.infer();
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(type_to_string((*ok)[0]), "u8[?,?,1]");
}

}  // namespace
}  // namespace plumb::ir
