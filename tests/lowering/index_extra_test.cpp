// Lowering of Unique and TensorScatter (lowering/onnx/index_extra.cpp): one-node models, lowered,
// run on ref; expected values worked out by hand from the ONNX definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using Doubles = std::vector<double>;

TEST(LowerUnique, FlattenedSortedGivesAllFourOutputs) {
  auto out = RunOneNode("Unique", 11, {{{6}, {2, 1, 1, 3, 4, 3}}}, {}, 4);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Values(out[0]), (Doubles{1, 2, 3, 4}));
  EXPECT_EQ(Values(out[1]), (Doubles{1, 0, 3, 4}));
  EXPECT_EQ(Values(out[2]), (Doubles{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(Values(out[3]), (Doubles{2, 1, 2, 1}));
}

TEST(LowerUnique, UnsortedKeepsFirstOccurrenceOrder) {
  auto out =
      RunOneNode("Unique", 11, {{{2, 3}, {2, 1, 1, 3, 4, 3}, ir::DType::I32}}, {IntAttr("sorted", 0)}, 4);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Values(out[0]), (Doubles{2, 1, 3, 4}));
  EXPECT_EQ(Values(out[1]), (Doubles{0, 1, 3, 4}));
  EXPECT_EQ(Values(out[2]), (Doubles{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(Values(out[3]), (Doubles{1, 2, 2, 1}));
}

TEST(LowerUnique, AxisZeroRows) {
  auto out = RunOneNode("Unique", 11, {{{3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4}}}, {IntAttr("axis", 0)}, 4);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{2, 3}));
  EXPECT_EQ(Values(out[0]), (Doubles{1, 0, 0, 2, 3, 4}));
  EXPECT_EQ(Values(out[1]), (Doubles{0, 2}));
  EXPECT_EQ(Values(out[2]), (Doubles{0, 0, 1}));
  EXPECT_EQ(Values(out[3]), (Doubles{2, 1}));
}

// Columns (1,0), (1,0), (0,1): lexicographically (0,1) < (1,0).
TEST(LowerUnique, NegativeAxisColumnsSortedAndUnsorted) {
  NodeInput x{{2, 3}, {1, 1, 0, 0, 0, 1}, ir::DType::I64};
  auto out = RunOneNode("Unique", 11, {x}, {IntAttr("axis", -1)}, 4);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{2, 2}));
  EXPECT_EQ(Values(out[0]), (Doubles{0, 1, 1, 0}));
  EXPECT_EQ(Values(out[1]), (Doubles{2, 0}));
  EXPECT_EQ(Values(out[2]), (Doubles{1, 1, 0}));
  EXPECT_EQ(Values(out[3]), (Doubles{1, 2}));
  out = RunOneNode("Unique", 11, {x}, {IntAttr("axis", 1), IntAttr("sorted", 0)}, 4);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Values(out[0]), (Doubles{1, 0, 0, 1}));
  EXPECT_EQ(Values(out[1]), (Doubles{0, 2}));
  EXPECT_EQ(Values(out[2]), (Doubles{0, 0, 1}));
  EXPECT_EQ(Values(out[3]), (Doubles{2, 1}));
}

// Lexicographic order needs every column: rows (1,2) and (1,1) and (0,9).
TEST(LowerUnique, AxisRowsOrderedByLaterColumnsToo) {
  auto out = RunOneNode("Unique", 11, {{{3, 2}, {1, 2, 1, 1, 0, 9}}}, {IntAttr("axis", 0)}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values(out[0]), (Doubles{0, 9, 1, 1, 1, 2}));
  EXPECT_EQ(Values(out[1]), (Doubles{2, 1, 0}));
}

TEST(LowerUnique, NaNsFormOneGroupAndZerosOfBothSignsAnother) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto out = RunOneNode("Unique", 11, {{{4}, {nan, 0.0, nan, -0.0}}}, {}, 4);
  ASSERT_EQ(out.size(), 4u);
  Doubles y = Values(out[0]);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0], 0.0);
  EXPECT_FALSE(std::signbit(y[0]));  // the first occurrence represents the group
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(Values(out[1]), (Doubles{1, 0}));
  EXPECT_EQ(Values(out[2]), (Doubles{1, 0, 1, 0}));
  EXPECT_EQ(Values(out[3]), (Doubles{2, 2}));
}

TEST(LowerUnique, EmptyInputGivesEmptyOutputs) {
  auto out = RunOneNode("Unique", 11, {{{0}, {}}}, {}, 4);
  ASSERT_EQ(out.size(), 4u);
  for (const auto& v : out) EXPECT_EQ(v.tensor().numel(), 0);
}

// past [2, 4, 1] zeros; update [[1, 2], [3, 4]]; sequence axis -2.
std::vector<NodeInput> CacheInputs(std::vector<double> write_indices, int64_t seq = 2) {
  std::vector<double> upd;
  for (int64_t i = 0; i < 2 * seq; ++i) upd.push_back(static_cast<double>(i + 1));
  return {{{2, 4, 1}, std::vector<double>(8, 0)},
          {{2, seq, 1}, upd},
          {{2}, std::move(write_indices), ir::DType::I64}};
}

TEST(LowerTensorScatter, LinearWritesFromEachBatchIndex) {
  auto out = RunOneNode("TensorScatter", 24, CacheInputs({1, 2}), {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (Doubles{0, 1, 2, 0, 0, 0, 3, 4}));
}

TEST(LowerTensorScatter, CircularWrapsAround) {
  auto out = RunOneNode("TensorScatter", 24, CacheInputs({3, 0}), {StrAttr("mode", "circular")}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (Doubles{2, 0, 0, 1, 3, 4, 0, 0}));
}

TEST(LowerTensorScatter, MissingWriteIndicesMeansZero) {
  auto in = CacheInputs({0, 0});
  in.pop_back();
  auto out = RunOneNode("TensorScatter", 24, in, {IntAttr("axis", 1)}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (Doubles{1, 2, 0, 0, 3, 4, 0, 0}));
}

// Circular update longer than the cache: positions written twice keep the last write.
TEST(LowerTensorScatter, CircularLongerUpdateLastWriteWins) {
  auto out = RunOneNode("TensorScatter", 24, CacheInputs({1, 0}, 6), {StrAttr("mode", "circular")}, 1);
  ASSERT_EQ(out.size(), 1u);
  // batch 0: 1..6 written at 1,2,3,0,1,2 -> [4,5,6,3]; batch 1: 7..12 at 0,1,2,3,0,1 -> [11,12,9,10]
  EXPECT_EQ(Values(out[0]), (Doubles{4, 5, 6, 3, 11, 12, 9, 10}));
}

TEST(LowerTensorScatter, LinearPastTheEndIsRuntimeError) {
  onnx::OnnxModel m = OneNodeModel("TensorScatter", 24, CacheInputs({3, 0}), {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value());
  size_t k = 0;
  for (const NodeInput& in : CacheInputs({3, 0}))
    ASSERT_TRUE((*s)->set_input(k++, MakeTensor(in.dtype, in.shape, in.data)).is_ok());
  Status st = (*s)->run();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("scatter.R1"), std::string::npos) << st.to_string();
}

}  // namespace
}  // namespace plumb::testing
