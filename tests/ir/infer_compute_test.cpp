// Inference and constraints of matmul, conv, pool (spec/ops/{matmul,conv,pool}.md): one test per
// C-label at least, plus the shape rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/infer.h"
#include "tests/ir/infer_node.h"

namespace plumb::ir {
namespace {

using testing::expect_label;
using testing::InferNode;
using testing::t;
using Ints = std::vector<int64_t>;

void expect_types(const Expected<std::vector<Type>>& r, const std::vector<Type>& want) {
  ASSERT_TRUE(r.has_value()) << r.status().to_string();
  ASSERT_EQ(r->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(type_to_string((*r)[i]), type_to_string(want[i])) << "result " << i;
}

// ---- matmul -----------------------------------------------------------------------------------
Expected<std::vector<Type>> matmul(Type lhs, Type rhs, DType to) {
  return InferNode(Op::MatMul).attr("to", to).in(std::move(lhs)).in(std::move(rhs)).run();
}

TEST(InferMatMul, ShapeRule) {
  expect_types(matmul(t(DType::F32, {2, 3, 4}), t(DType::F32, {2, 4, 5}), DType::F32),
               {t(DType::F32, {2, 3, 5})});
  expect_types(matmul(t(DType::F32, {3, 0}), t(DType::F32, {0, 5}), DType::F32), {t(DType::F32, {3, 5})});
}

TEST(InferMatMul, SymbolicDimsPassThrough) {
  expect_types(matmul(t(DType::F32, {Dim::symbolic("B"), Dim::symbolic("M"), 4}),
                      t(DType::F32, {Dim::symbolic(), Dim::symbolic(), 7}), DType::F32),
               {t(DType::F32, {Dim::symbolic("B"), Dim::symbolic("M"), 7})});
  expect_types(matmul(t(DType::F32, {Dim::symbolic(), 3, 4}), t(DType::F32, {6, 4, 2}), DType::F32),
               {t(DType::F32, {6, 3, 2})});
}

TEST(InferMatMul, C1RankBelowTwoIsRejected) {
  expect_label(matmul(t(DType::F32, {4}), t(DType::F32, {4, 2}), DType::F32), "matmul.C1");
  expect_label(matmul(t(DType::F32, {2, 4}), Type::unranked_tensor(DType::F32), DType::F32), "matmul.C1");
}

TEST(InferMatMul, C2BatchDimsMustBeIdentical) {
  expect_label(matmul(t(DType::F32, {2, 3, 4}), t(DType::F32, {4, 5}), DType::F32), "matmul.C2");
  expect_label(matmul(t(DType::F32, {2, 3, 4}), t(DType::F32, {1, 4, 5}), DType::F32), "matmul.C2");
}

TEST(InferMatMul, C3ContractionDimsMustMatch) {
  expect_label(matmul(t(DType::F32, {3, 4}), t(DType::F32, {5, 2}), DType::F32), "matmul.C3");
}

TEST(InferMatMul, C4DtypeTable) {
  const Shape a{2, 3}, b{3, 4};
  for (DType d : {DType::F16, DType::BF16, DType::F32, DType::F64})
    expect_types(matmul(t(d, a), t(d, b), d), {t(d, {2, 4})});
  expect_types(matmul(t(DType::F16, a), t(DType::F16, b), DType::F32), {t(DType::F32, {2, 4})});
  expect_types(matmul(t(DType::F8E4M3FN, a), t(DType::F8E5M2, b), DType::BF16), {t(DType::BF16, {2, 4})});
  expect_types(matmul(t(DType::U8, a), t(DType::I8, b), DType::I32), {t(DType::I32, {2, 4})});
  expect_types(matmul(t(DType::I64, a), t(DType::I64, b), DType::I64), {t(DType::I64, {2, 4})});
  expect_types(matmul(t(DType::U32, a), t(DType::U32, b), DType::U32), {t(DType::U32, {2, 4})});
  expect_label(matmul(t(DType::F32, a), t(DType::F16, b), DType::F32), "matmul.C4");
  expect_label(matmul(t(DType::F32, a), t(DType::F32, b), DType::F16), "matmul.C4");
  expect_label(matmul(t(DType::F64, a), t(DType::F64, b), DType::F32), "matmul.C4");
  expect_label(matmul(t(DType::F8E4M3FN, a), t(DType::F8E4M3FN, b), DType::F8E4M3FN), "matmul.C4");
  expect_label(matmul(t(DType::I8, a), t(DType::I8, b), DType::I8), "matmul.C4");
  expect_label(matmul(t(DType::I8, a), t(DType::I8, b), DType::I16), "matmul.C4");
  expect_label(matmul(t(DType::I8, a), t(DType::F32, b), DType::F32), "matmul.C4");
  expect_label(matmul(t(DType::Bool, a), t(DType::Bool, b), DType::I32), "matmul.C4");
  expect_label(matmul(t(DType::I32, a), t(DType::I32, b), DType::F32), "matmul.C4");
}

TEST(InferMatMul, C5ResultTooLargeIsRejected) {
  expect_label(matmul(t(DType::F32, {int64_t{1} << 30, 0}), t(DType::F32, {0, int64_t{1} << 30}), DType::F32),
               "matmul.C5");
}

// ---- conv -------------------------------------------------------------------------------------
// Conv's attributes for two spatial dims, defaults 1 / 0.
struct ConvAttrs : ir::ConvAttrs {
  ConvAttrs() {
    to = DType::F32;
    strides = dilations = lhs_dilations = {1, 1};
    pads_low = pads_high = {0, 0};
    groups = 1;
  }
};

Expected<std::vector<Type>> conv(Type input, Type weight, const ConvAttrs& a) {
  return InferNode(Op::Conv).attrs(a).in(std::move(input)).in(std::move(weight)).run();
}

TEST(InferConv, ShapeRule) {
  ConvAttrs a;
  expect_types(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), a),
               {t(DType::F32, {1, 8, 3, 3})});
  // stride 2, pads 1+1, dilation 2: padded 7+2 = 9, dilated kernel 5: (9-5)/2+1 = 3
  a.strides = {2, 1};
  a.dilations = {2, 1};
  a.pads_low = {1, 0};
  a.pads_high = {1, 0};
  expect_types(conv(t(DType::F32, {2, 4, 7, 6}), t(DType::F32, {6, 4, 3, 2}), a),
               {t(DType::F32, {2, 6, 3, 5})});
  // lhs dilation 2 on 3 elements: dilated 5; kernel 2: 4 results
  ConvAttrs b;
  b.lhs_dilations = {2, 1};
  expect_types(conv(t(DType::F32, {1, 1, 3, 3}), t(DType::F32, {1, 1, 2, 2}), b),
               {t(DType::F32, {1, 1, 4, 2})});
  // symbolic spatial dims give symbolic results; N and O pass through
  expect_types(conv(t(DType::F32, {Dim::symbolic("N"), 3, Dim::symbolic("H"), 5}),
                    t(DType::F32, {8, 3, 3, 3}), ConvAttrs{}),
               {t(DType::F32, {Dim::symbolic("N"), 8, Dim::symbolic(), 3})});
}

TEST(InferConv, EmptySpatialInputWithPaddingIsAllowed) {
  ConvAttrs a;
  a.pads_low = {1, 1};
  a.pads_high = {1, 1};
  expect_types(conv(t(DType::F32, {1, 2, 0, 1}), t(DType::F32, {3, 2, 2, 2}), a),
               {t(DType::F32, {1, 3, 1, 2})});
}

TEST(InferConv, C1RanksMustMatchAndBeAtLeastThree) {
  expect_label(conv(t(DType::F32, {1, 3}), t(DType::F32, {8, 3}), ConvAttrs{}), "conv.C1");
  expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3}), ConvAttrs{}), "conv.C1");
}

TEST(InferConv, C2AttributeLengthsMatchSpatialRank) {
  ConvAttrs a;
  a.pads_high = {0};
  expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), a), "conv.C2");
}

TEST(InferConv, C3StridesAndDilationsAtLeastOne) {
  for (int which = 0; which < 3; ++which) {
    ConvAttrs a;
    (which == 0 ? a.strides : which == 1 ? a.dilations : a.lhs_dilations)[1] = 0;
    expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), a), "conv.C3");
  }
}

TEST(InferConv, C4NegativePadsAreRejected) {
  ConvAttrs a;
  a.pads_low = {-1, 0};
  expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), a), "conv.C4");
}

TEST(InferConv, C5GroupsMustDivideChannels) {
  ConvAttrs a;
  a.groups = 2;
  expect_types(conv(t(DType::F32, {1, 4, 3, 3}), t(DType::F32, {6, 2, 1, 1}), a),
               {t(DType::F32, {1, 6, 3, 3})});
  expect_label(conv(t(DType::F32, {1, 3, 3, 3}), t(DType::F32, {6, 1, 1, 1}), a), "conv.C5");  // C % groups
  expect_label(conv(t(DType::F32, {1, 4, 3, 3}), t(DType::F32, {5, 2, 1, 1}), a), "conv.C5");  // O % groups
  expect_label(conv(t(DType::F32, {1, 4, 3, 3}), t(DType::F32, {6, 4, 1, 1}), a), "conv.C5");  // C / groups
  a.groups = 0;
  expect_label(conv(t(DType::F32, {1, 4, 3, 3}), t(DType::F32, {6, 4, 1, 1}), a), "conv.C5");
}

TEST(InferConv, C6EmptyKernelIsRejected) {
  expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 0, 3}), ConvAttrs{}), "conv.C6");
}

TEST(InferConv, C7KernelMustFitPaddedInput) {
  expect_label(conv(t(DType::F32, {1, 3, 1, 5}), t(DType::F32, {8, 3, 3, 3}), ConvAttrs{}), "conv.C7");
  // floor((2 - 3) / 1) + 1 = 0: no window fits, an empty result is allowed
  expect_types(conv(t(DType::F32, {1, 3, 2, 5}), t(DType::F32, {8, 3, 3, 3}), ConvAttrs{}),
               {t(DType::F32, {1, 8, 0, 3})});
  ConvAttrs a;
  a.dilations = {3, 1};  // dilated kernel 7 > 5
  expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), a), "conv.C7");
  a.pads_high = {2, 0};  // padded 7: fits, one result
  expect_types(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), a),
               {t(DType::F32, {1, 8, 1, 3})});
  ConvAttrs huge;
  huge.pads_low = {int64_t{1} << 62, 0};
  expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), huge), "conv.C7");
}

TEST(InferConv, C8DtypeTable) {
  ConvAttrs a;
  a.to = DType::I32;
  expect_types(conv(t(DType::U8, {1, 3, 5, 5}), t(DType::I8, {8, 3, 3, 3}), a),
               {t(DType::I32, {1, 8, 3, 3})});
  a.to = DType::F16;
  expect_label(conv(t(DType::F32, {1, 3, 5, 5}), t(DType::F32, {8, 3, 3, 3}), a), "conv.C8");
}

TEST(InferConv, C9ResultTooLargeIsRejected) {
  ConvAttrs a;
  a.pads_high = {int64_t{1} << 41, 0};
  expect_label(conv(t(DType::F32, {1, 1, 1, 1}), t(DType::F32, {1, 1, 1, 1}), a), "conv.C9");
}

// ---- pool -------------------------------------------------------------------------------------
struct PoolAttrs {
  PoolKind kind = PoolKind::Max;
  Ints window{1, 1, 2, 2}, strides{1, 1, 2, 2}, dilations{1, 1, 1, 1}, pads_low{0, 0, 0, 0},
      pads_high{0, 0, 0, 0};
};

Expected<std::vector<Type>> pool(Type operand, const PoolAttrs& a, int outputs = 1) {
  return InferNode(Op::Pool)
      .attr("kind", EnumValue{a.kind})
      .attr("window", a.window)
      .attr("strides", a.strides)
      .attr("dilations", a.dilations)
      .attr("pads_low", a.pads_low)
      .attr("pads_high", a.pads_high)
      .in(std::move(operand))
      .outputs(outputs)
      .run();
}

TEST(InferPool, ShapeRule) {
  expect_types(pool(t(DType::F32, {1, 3, 5, 4}), PoolAttrs{}), {t(DType::F32, {1, 3, 2, 2})});
  expect_types(pool(t(DType::F32, {1, 3, 5, 4}), PoolAttrs{}, 2),
               {t(DType::F32, {1, 3, 2, 2}), t(DType::I64, {1, 3, 2, 2})});
  PoolAttrs lrn;  // a window across channels
  lrn.window = {1, 3, 1, 1};
  lrn.strides = {1, 1, 1, 1};
  lrn.pads_low = {0, 1, 0, 0};
  lrn.pads_high = {0, 1, 0, 0};
  lrn.kind = PoolKind::Sum;
  expect_types(pool(t(DType::F32, {2, 5, 3, 3}), lrn), {t(DType::F32, {2, 5, 3, 3})});
  PoolAttrs scalar{PoolKind::Sum, {}, {}, {}, {}, {}};
  expect_types(pool(t(DType::I8, {}), scalar), {t(DType::I8, {})});
}

TEST(InferPool, C1UnrankedOperandIsRejected) {
  expect_label(pool(Type::unranked_tensor(DType::F32), PoolAttrs{}), "pool.C1");
}

TEST(InferPool, C2AttributeLengthsMatchRank) {
  expect_label(pool(t(DType::F32, {5, 4}), PoolAttrs{}), "pool.C2");
}

TEST(InferPool, C3WindowStridesDilationsAtLeastOne) {
  PoolAttrs a;
  a.window[0] = 0;
  expect_label(pool(t(DType::F32, {1, 3, 5, 4}), a), "pool.C3");
  PoolAttrs b;
  b.strides[3] = 0;
  expect_label(pool(t(DType::F32, {1, 3, 5, 4}), b), "pool.C3");
  PoolAttrs c;
  c.dilations[2] = -1;
  expect_label(pool(t(DType::F32, {1, 3, 5, 4}), c), "pool.C3");
}

TEST(InferPool, C4NegativePadsAreRejected) {
  PoolAttrs a;
  a.pads_high[2] = -1;
  expect_label(pool(t(DType::F32, {1, 3, 5, 4}), a), "pool.C4");
}

TEST(InferPool, C5WindowMustFitPaddedOperand) {
  PoolAttrs a;
  a.window = {1, 1, 8, 2};
  expect_label(pool(t(DType::F32, {1, 3, 5, 4}), a), "pool.C5");  // floor((5-8)/2)+1 = -1
  a.window = {1, 1, 7, 2};
  expect_types(pool(t(DType::F32, {1, 3, 5, 4}), a), {t(DType::F32, {1, 3, 0, 2})});  // floor(-2/2)+1 = 0
  expect_types(pool(t(DType::F32, {0, 3, 5, 4}), PoolAttrs{}), {t(DType::F32, {0, 3, 2, 2})});  // empty batch
  a.window = {1, 1, 6, 2};
  a.pads_low = {0, 0, 1, 0};
  expect_types(pool(t(DType::F32, {1, 3, 5, 4}), a), {t(DType::F32, {1, 3, 1, 2})});
}

TEST(InferPool, C6DtypeTable) {
  for (DType d :
       {DType::I8, DType::U8, DType::I64, DType::U64, DType::I4, DType::F16, DType::BF16, DType::F64})
    expect_types(pool(t(d, {1, 1, 2, 2}), PoolAttrs{}), {t(d, {1, 1, 1, 1})});
  expect_label(pool(t(DType::Bool, {1, 1, 2, 2}), PoolAttrs{}), "pool.C6");
  expect_label(pool(t(DType::F8E4M3FN, {1, 1, 2, 2}), PoolAttrs{}), "pool.C6");
  expect_label(pool(t(DType::String, {1, 1, 2, 2}), PoolAttrs{}), "pool.C6");
}

TEST(InferPool, C7IndicesOnlyForMax) {
  PoolAttrs a;
  a.kind = PoolKind::Sum;
  expect_label(pool(t(DType::F32, {1, 3, 5, 4}), a, 2), "pool.C7");
}

TEST(InferPool, C8ResultTooLargeIsRejected) {
  PoolAttrs a;
  a.window = {1, 1};
  a.strides = {1, 1};
  a.dilations = {1, 1};
  a.pads_low = {0, 0};
  a.pads_high = {int64_t{1} << 21, int64_t{1} << 21};
  expect_label(pool(t(DType::F32, {1, 1}), a), "pool.C8");
}

}  // namespace
}  // namespace plumb::ir
