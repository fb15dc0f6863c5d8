// ir/builder.h: typed emission, stickiness, attribute order, constants, regions.
#include "ir/builder.h"

#include <gtest/gtest.h>

#include "ir/verify.h"

namespace plumb::ir {
namespace {

Type f32(std::vector<int64_t> dims) { return Type::tensor(DType::F32, static_shape(dims)); }

TEST(Builder, BuildsATypedGraphThatVerifies) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({2, 3}), "x");
  ValueId e = b.unary(UnaryKind::Exp, x);
  ValueId y = b.binary(BinaryKind::Add, e, x);
  ValueId c = b.compare(CompareKind::Lt, y, x);
  b.output(y, "y");
  b.output(c, "c");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(g.type_of(y), f32({2, 3}));
  EXPECT_EQ(g.type_of(c), Type::tensor(DType::Bool, static_shape({2, 3})));
  ASSERT_EQ(g.body.nodes.size(), 3u);
  EXPECT_EQ(g.body.nodes[1].op, Op::Binary);
  EXPECT_EQ(g.body.nodes[1].inputs, (std::vector<ValueId>{e, x}));
  EXPECT_EQ(g.input_names, (std::vector<std::string>{"x"}));
  EXPECT_EQ(g.output_names, (std::vector<std::string>{"y", "c"}));
  EXPECT_EQ(g.values[y].onnx_name, "y");
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
}

TEST(Builder, StickyAfterFirstError) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({2}), "x");
  ValueId z = b.input(f32({3}), "z");
  b.set_provenance(Provenance{"Add_1", "Add", 14, ""});
  ValueId bad = b.binary(BinaryKind::Add, x, z);  // binary.C3: shapes differ
  EXPECT_EQ(bad, kNoValue);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.status().label(), "binary.C3");
  EXPECT_EQ(b.status().place(), "new node binary [from 'Add_1' (Add-14)]");
  const size_t nodes = g.body.nodes.size();
  const size_t values = g.values.size();
  // Everything later is a no-op returning kNoValue; the first error stays.
  EXPECT_EQ(b.unary(UnaryKind::Neg, x), kNoValue);
  EXPECT_EQ(b.scalar_int(DType::I64, 3), kNoValue);
  EXPECT_EQ(b.input(f32({1}), "w"), kNoValue);
  std::vector<ValueId> two = b.emit(Op::Sort, {x}, {}, {}, 2);
  EXPECT_EQ(two, (std::vector<ValueId>{kNoValue, kNoValue}));
  b.output(x, "y");
  EXPECT_EQ(g.body.nodes.size(), nodes);
  EXPECT_EQ(g.values.size(), values);
  EXPECT_TRUE(g.output_names.empty());
  EXPECT_EQ(b.status().label(), "binary.C3");
}

TEST(Builder, UnknownValueIsAnError) {
  Graph g;
  Builder b(g);
  b.unary(UnaryKind::Neg, 5);
  EXPECT_EQ(b.status().label(), "graph.V5");
  Graph h;
  Builder c(h);
  c.unary(UnaryKind::Neg, kNoValue);
  EXPECT_EQ(c.status().label(), "graph.V5");
}

TEST(Builder, StructureIsChecked) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({2}), "x");
  b.emit(Op::Unary, {x}, {});  // no kind attribute
  EXPECT_EQ(b.status().label(), "unary.attrs");
}

TEST(Builder, BadInputTypeIsRefused) {
  Graph g;
  Builder b(g);
  EXPECT_EQ(b.input(Type::tensor(DType::F32, static_shape({-2})), "x"), kNoValue);
  EXPECT_EQ(b.status().label(), "graph.V2");
}

TEST(Builder, AttributesAreOrderedAsOpsDef) {
  std::vector<Attr> attrs = {Attr{"round", EnumValue{RoundMode::NearestEven}}, Attr{"to", DType::F16},
                             Attr{"saturate", false}};
  std::vector<Attr> ordered = order_attrs(Op::Cast, attrs);
  ASSERT_EQ(ordered.size(), 3u);
  EXPECT_EQ(ordered[0].name, "to");
  EXPECT_EQ(ordered[1].name, "saturate");
  EXPECT_EQ(ordered[2].name, "round");
  // Unknown names go last, in their order.
  ordered = order_attrs(Op::Cast, {Attr{"zz", int64_t{1}}, Attr{"saturate", true}, Attr{"aa", int64_t{2}}});
  EXPECT_EQ(ordered[0].name, "saturate");
  EXPECT_EQ(ordered[1].name, "zz");
  EXPECT_EQ(ordered[2].name, "aa");

  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({2}), "x");
  ValueId y = b.emit1(Op::Cast, {x}, attrs);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(g.type_of(y), Type::tensor(DType::F16, static_shape({2})));
  EXPECT_EQ(g.body.nodes.back().attrs[0].name, "to");
}

TEST(Builder, ProvenanceOnEveryNode) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({2}), "x");
  b.set_provenance(Provenance{"Softmax_3", "Softmax", 13, ""});
  b.set_step("exp");
  ValueId e = b.unary(UnaryKind::Exp, x);
  b.set_step("sum");
  b.binary(BinaryKind::Add, e, e);
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(g.body.nodes.size(), 2u);
  EXPECT_EQ(g.body.nodes[0].prov.node_name, "Softmax_3");
  EXPECT_EQ(g.body.nodes[0].prov.step, "exp");
  EXPECT_EQ(g.body.nodes[1].prov.step, "sum");
  EXPECT_EQ(g.body.nodes[1].prov.opset, 13);
}

TEST(Builder, IntegerConstants) {
  Graph g;
  Builder b(g);
  ValueId c = b.const_ints(DType::I32, {2}, {-1, 70000});
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(g.type_of(c), Type::tensor(DType::I32, static_shape({2})));
  ASSERT_EQ(g.constants.size(), 1u);
  ASSERT_EQ(g.constants[0].size, 8u);
  const uint8_t* d = g.constants[0].data;
  EXPECT_EQ((std::vector<uint8_t>(d, d + 8)),
            (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0x70, 0x11, 0x01, 0x00}));
  EXPECT_EQ(g.body.nodes[0].op, Op::Constant);
  EXPECT_EQ(attrs<Op::Constant>(g.body.nodes[0]).value.index, 0u);
}

TEST(Builder, NarrowFloatConstantIsACast) {
  Graph g;
  Builder b(g);
  ValueId h = b.const_floats(DType::F16, {2}, {1.0, 0.1});
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(g.type_of(h), Type::tensor(DType::F16, static_shape({2})));
  ASSERT_EQ(g.body.nodes.size(), 2u);
  EXPECT_EQ(g.body.nodes[0].op, Op::Constant);
  EXPECT_EQ(g.constants[0].type.dtype, DType::F32);
  EXPECT_EQ(g.body.nodes[1].op, Op::Cast);
  ValueId d = b.scalar_float(DType::F64, 0.1);
  EXPECT_EQ(g.type_of(d), Type::tensor(DType::F64, {}));
  EXPECT_EQ(g.body.nodes.size(), 3u);  // f64 needs no cast
}

TEST(Builder, BadConstantIsRefused) {
  Graph g;
  Builder b(g);
  b.constant(ConstantData::owned(Type::tensor(DType::I32, static_shape({2})), std::vector<uint8_t>(7)));
  EXPECT_EQ(b.status().label(), "graph.V4");
  EXPECT_TRUE(g.constants.empty());
}

TEST(Builder, ConstantValuesFeedInference) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({6}), "x");
  ValueId y = b.reshape(x, b.shape_const({2, 3}));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(g.type_of(y), f32({2, 3}));
  b.output(y, "y");
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
}

TEST(Builder, ConstantsAlreadyInTheGraphFeedInference) {
  Graph g;
  ValueId shape;
  {
    Builder first(g);
    first.input(f32({6}), "x");
    shape = first.shape_const({3, 2});
    ASSERT_TRUE(first.ok());
  }
  Builder b(g);
  ValueId y = b.reshape(g.body.params[0], shape);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(g.type_of(y), f32({3, 2}));
}

TEST(Builder, RegionsNest) {
  Graph g;
  Builder b(g);
  ValueId p = b.input(Type::tensor(DType::Bool, {}), "p");
  ValueId x = b.input(f32({2}), "x");
  b.begin_region({});
  EXPECT_EQ(b.open_regions(), 1);
  b.begin_region({});
  EXPECT_EQ(b.open_regions(), 2);
  Region inner_then = b.end_region({b.unary(UnaryKind::Neg, x)});
  b.begin_region({});
  Region inner_else = b.end_region({x});
  std::vector<ValueId> inner = b.if_(p, std::move(inner_then), std::move(inner_else));
  Region outer_then = b.end_region(inner);
  EXPECT_EQ(b.open_regions(), 0);
  b.begin_region({});
  Region outer_else = b.end_region({x});
  std::vector<ValueId> r = b.if_(p, std::move(outer_then), std::move(outer_else));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  b.output(r[0], "y");
  ASSERT_EQ(g.body.nodes.size(), 1u);  // only the outer if is in the body
  ASSERT_EQ(g.body.nodes[0].regions[0].nodes.size(), 1u);
  EXPECT_EQ(g.body.nodes[0].regions[0].nodes[0].op, Op::If);
  EXPECT_EQ(g.body.nodes[0].regions[0].nodes[0].regions[0].nodes[0].op, Op::Unary);
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
}

TEST(Builder, EndRegionWithoutBeginIsAnError) {
  Graph g;
  Builder b(g);
  b.end_region({});
  EXPECT_EQ(b.status().code(), ErrorCode::kInternal);
}

TEST(Builder, RegionsStayBalancedAfterFailure) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({2}), "x");
  b.unary(UnaryKind::Neg, 77);  // fails
  std::vector<ValueId> params = b.begin_region({f32({2})});
  EXPECT_EQ(params, (std::vector<ValueId>{kNoValue}));
  EXPECT_EQ(b.open_regions(), 1);
  Region r = b.end_region({x});
  EXPECT_EQ(b.open_regions(), 0);
  EXPECT_TRUE(r.results.empty());
  EXPECT_EQ(b.status().label(), "graph.V5");
}

}  // namespace
}  // namespace plumb::ir
