// Lowering tests for Einsum and Det (lowering/onnx/einsum.cpp); expected values by hand.
#include <gtest/gtest.h>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

std::vector<rt::RtValue> Einsum(const std::string& eq, const std::vector<NodeInput>& in) {
  return RunOneNode("Einsum", 12, in, {StrAttr("equation", eq)}, 1);
}

TEST(LowerEinsum, MatMul) {
  auto y = Einsum("ij,jk->ik", {{{2, 3}, {1, 2, 3, 4, 5, 6}}, {{3, 2}, {1, 0, 0, 1, 1, 1}}});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{2, 2}));
  ExpectNear(Values(y[0]), {4, 5, 10, 11});
}

TEST(LowerEinsum, ImplicitOutputIsSortedSingles) {
  // "ba,ac" has output "bc" (labels appearing once, sorted); "ij,ji" is a full contraction.
  auto y = Einsum("ba,ac", {{{1, 2}, {1, 2}}, {{2, 2}, {1, 2, 3, 4}}});
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {7, 10});
  auto t = Einsum("ij,ji", {{{2, 2}, {1, 2, 3, 4}}, {{2, 2}, {1, 0, 0, 1}}});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].tensor().rank(), 0);
  ExpectNear(Values(t[0]), {5});
}

TEST(LowerEinsum, TransposeAndOutputOrder) {
  auto y = Einsum("ij->ji", {{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {1, 4, 2, 5, 3, 6});
}

TEST(LowerEinsum, TraceAndDiagonal) {
  auto tr = Einsum("ii", {{{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}});
  ASSERT_EQ(tr.size(), 1u);
  ExpectNear(Values(tr[0]), {15});
  auto d = Einsum("ii->i", {{{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}});
  ASSERT_EQ(d.size(), 1u);
  ExpectNear(Values(d[0]), {1, 5, 9});
  // Batched diagonal with an ellipsis; the repeated labels are not adjacent to the end.
  auto bd = Einsum("...ii->...i", {{{2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}}});
  ASSERT_EQ(bd.size(), 1u);
  ExpectNear(Values(bd[0]), {1, 4, 5, 8});
  auto mid = Einsum("iji->j", {{{2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}});
  ASSERT_EQ(mid.size(), 1u);
  // x[0, j, 0] + x[1, j, 1]: (1 + 8, 3 + 10, 5 + 12)
  ExpectNear(Values(mid[0]), {9, 13, 17});
}

TEST(LowerEinsum, EllipsisBroadcastsUnitDims) {
  // a [1, 2, 2] (identity) against b [3, 2, 1]: batch broadcast 1 -> 3.
  auto y = Einsum("...ij,...jk->...ik", {{{1, 2, 2}, {1, 0, 0, 1}}, {{3, 2, 1}, {1, 2, 3, 4, 5, 6}}});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{3, 2, 1}));
  ExpectNear(Values(y[0]), {1, 2, 3, 4, 5, 6});
}

TEST(LowerEinsum, SumOuterAndThreeOperands) {
  auto s = Einsum("ij->", {{{2, 2}, {1, 2, 3, 4}}});
  ASSERT_EQ(s.size(), 1u);
  ExpectNear(Values(s[0]), {10});
  auto o = Einsum("i,j->ij", {{{2}, {1, 2}}, {{3}, {1, 10, 100}}});
  ASSERT_EQ(o.size(), 1u);
  ExpectNear(Values(o[0]), {1, 10, 100, 2, 20, 200});
  auto t = Einsum("i,i,i->", {{{3}, {1, 2, 3}}, {{3}, {4, 5, 6}}, {{3}, {1, 1, 2}}});
  ASSERT_EQ(t.size(), 1u);
  ExpectNear(Values(t[0]), {4 + 10 + 36});
  auto b = Einsum("bij,bjk->bik", {{{2, 1, 2}, {1, 2, 3, 4}}, {{2, 2, 1}, {1, 1, 2, 2}}});
  ASSERT_EQ(b.size(), 1u);
  ExpectNear(Values(b[0]), {3, 14});
}

TEST(LowerEinsum, IntegersWrap) {
  // int8: 100 * 2 + 100 * 1 = 300 wraps to 44.
  auto y = Einsum("i,i->", {{{2}, {100, 100}, ir::DType::I8}, {{2}, {2, 1}, ir::DType::I8}});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().dtype, ir::DType::I8);
  ExpectNear(Values(y[0]), {44});
  auto z = Einsum("ij,j->i", {{{2, 2}, {1, 2, 3, 4}, ir::DType::I32}, {{2}, {5, 6}, ir::DType::I32}});
  ASSERT_EQ(z.size(), 1u);
  ExpectNear(Values(z[0]), {17, 39});
}

TEST(LowerEinsum, MalformedEquationsAreInvalid) {
  for (const char* eq : {"ij,jk", "i.j->i", "ij->k", "ij->ii"}) {
    onnx::OnnxModel m = OneNodeModel("Einsum", 12, {{{2, 2}, {1, 2, 3, 4}}}, {StrAttr("equation", eq)}, 1);
    EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value()) << eq;
  }
  onnx::OnnxModel m = OneNodeModel(
      "Einsum", 12, {{{2, 3}, std::vector<double>(6, 1.0)}, {{2, 3}, std::vector<double>(6, 1.0)}},
      {StrAttr("equation", "ij,jk->ik")}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

TEST(LowerDet, TwoByTwoAndBatched) {
  auto y = RunOneNode("Det", 11, {{{2, 2}, {1, 2, 3, 4}}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().rank(), 0);
  ExpectNear(Values(y[0]), {-2}, 1e-6);
  auto b = RunOneNode("Det", 11, {{{2, 1, 2, 2}, {2, 0, 0, 3, 0, 1, 1, 0}}}, {}, 1);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].tensor().shape, (Ints{2, 1}));
  ExpectNear(Values(b[0]), {6, -1}, 1e-6);
}

TEST(LowerDet, PivotingZeroLeadingEntry) {
  // [[0,1,2],[1,0,3],[4,-3,8]]: cofactor expansion along row 0 gives 0 - 1*(8-12) + 2*(-3) = -2.
  auto y = RunOneNode("Det", 11, {{{3, 3}, {0, 1, 2, 1, 0, 3, 4, -3, 8}, ir::DType::F64}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {-2}, 1e-12);
}

TEST(LowerDet, SingularIsZero) {
  auto y = RunOneNode("Det", 11, {{{3, 3}, {1, 2, 3, 2, 4, 6, 0, 0, 0}}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {0}, 1e-6);
  auto z = RunOneNode("Det", 11, {{{2, 2}, {0, 0, 0, 0}}}, {}, 1);
  ASSERT_EQ(z.size(), 1u);
  std::vector<double> v = Values(z[0]);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], 0.0);
}

TEST(LowerDet, OneByOneAndNonSquareInvalid) {
  auto y = RunOneNode("Det", 22, {{{1, 1}, {-7}}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  ExpectNear(Values(y[0]), {-7});
  onnx::OnnxModel m = OneNodeModel("Det", 11, {{{2, 3}, std::vector<double>(6, 1.0)}}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

}  // namespace
}  // namespace plumb::testing
