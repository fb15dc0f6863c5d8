// ir/fold.h on the runtime's evaluator (runtime/ref_evaluator.h): what the builder and ir::Folder
// fold, their limits, and that nothing is folded without an evaluator.
#include "ir/fold.h"

#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/constant_values.h"
#include "runtime/ref_evaluator.h"

namespace plumb::ir {
namespace {

Type f32(std::vector<int64_t> dims) { return Type::tensor(DType::F32, static_shape(dims)); }

std::vector<int64_t> ints_of(const std::optional<ConstantData>& c) {
  if (!c) return {};
  return constant_int_values(*c).value_or(std::vector<int64_t>{});
}

const Node& producer(const Graph& g, ValueId v) {
  for (const Node& n : g.body.nodes)
    for (ValueId o : n.outputs)
      if (o == v) return n;
  static const Node none;
  return none;
}

TEST(Fold, BuilderEmitsShapeArithmeticAsConstantsWithAnEvaluator) {
  rt::RefEvaluator ref;
  Graph g;
  Builder b(g);
  b.set_evaluator(&ref);
  ValueId x = b.input(f32({2, 3}), "x");
  ValueId s = b.shape_of(x);
  ValueId m = b.binary(BinaryKind::Mul, s, b.const_ints(DType::I64, {2}, {4, 5}));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(producer(g, s).op, Op::Constant);
  ASSERT_EQ(producer(g, m).op, Op::Constant);
  EXPECT_EQ(constant_int_values(g.constants[attrs<Op::Constant>(producer(g, m)).value.index]),
            (std::vector<int64_t>{8, 15}));
}

TEST(Fold, BuilderFoldsNothingWithoutAnEvaluator) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(f32({2, 3}), "x");
  ValueId m = b.binary(BinaryKind::Mul, b.shape_of(x), b.const_ints(DType::I64, {2}, {4, 5}));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(producer(g, m).op, Op::Binary);
}

TEST(Fold, BuilderFoldsFloatsUpToItsLimit) {
  rt::RefEvaluator ref;
  Graph g;
  Builder b(g);
  b.set_evaluator(&ref);
  const int64_t n = Builder::kFoldFloats;
  ValueId small = b.unary(UnaryKind::Neg, b.const_floats(DType::F32, {n}, std::vector<double>(n, 1.0)));
  ValueId big = b.unary(UnaryKind::Neg, b.const_floats(DType::F32, {n + 1}, std::vector<double>(n + 1, 1.0)));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(producer(g, small).op, Op::Constant);
  EXPECT_EQ(producer(g, big).op, Op::Unary);
}

// x: f32[4, 5] -> shape_of -> mul by [2, 2] (3 nodes with the constant), built without folding.
struct ShapeChain {
  Graph g;
  ValueId x = kNoValue, m = kNoValue;
  ShapeChain() {
    Builder b(g);
    x = b.input(f32({4, 5}), "x");
    m = b.binary(BinaryKind::Mul, b.shape_of(x), b.const_ints(DType::I64, {2}, {2, 2}));
  }
};

TEST(Fold, FolderEvaluatesAValuesConstantSubgraph) {
  rt::RefEvaluator ref;
  ShapeChain c;
  Folder folder(ref);
  EXPECT_EQ(ints_of(folder.fold(c.g, c.m)), (std::vector<int64_t>{8, 10}));
  EXPECT_FALSE(folder.is_constant(c.g, c.m));
  EXPECT_FALSE(folder.fold(c.g, c.x).has_value());  // a graph input: nothing to fold
}

TEST(Fold, FolderKeepsToItsLimits) {
  rt::RefEvaluator ref;
  ShapeChain c;
  FoldLimits nodes;
  nodes.max_nodes = 2;
  EXPECT_FALSE(Folder(ref, nodes).fold(c.g, c.m).has_value());
  nodes.max_nodes = 3;
  EXPECT_TRUE(Folder(ref, nodes).fold(c.g, c.m).has_value());
  FoldLimits elements;
  elements.max_elements = 1;
  EXPECT_FALSE(Folder(ref, elements).fold(c.g, c.m).has_value());
}

TEST(Fold, FolderUsesTheInputValuesItIsGiven) {
  rt::RefEvaluator ref;
  Graph g;
  Builder b(g);
  ValueId k = b.input(Type::tensor(DType::I64, static_shape({2})), "k");
  ValueId m = b.binary(BinaryKind::Add, k, b.const_ints(DType::I64, {2}, {1, 2}));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  Folder folder(ref);
  EXPECT_FALSE(folder.fold(g, m).has_value());
  const ConstantData given = ConstantData::owned(Type::tensor(DType::I64, static_shape({2})),
                                                 *encode_int_values(DType::I64, {10, 20}));
  auto value_of = [&](ValueId p) -> std::optional<ConstantData> {
    if (p == k) return given;
    return std::nullopt;
  };
  EXPECT_EQ(ints_of(folder.fold(g, m, value_of)), (std::vector<int64_t>{11, 22}));
}

}  // namespace
}  // namespace plumb::ir
