// Inference and constraints of gather, scatter, sort, nonzero, reduce, arg_reduce, scan
// (spec/ops/<mnemonic>.md): one test per C-label at least.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/infer.h"
#include "tests/ir/infer_node.h"

namespace plumb::ir {
namespace {

using Infer = testing::InferNode;
using testing::expect_label;
using testing::t;
template <typename Kind>
EnumValue e(Kind code) {
  return EnumValue{code};
}

void expect_types(const Expected<std::vector<Type>>& r, const std::vector<Type>& want) {
  ASSERT_TRUE(r.has_value()) << r.status().to_string();
  ASSERT_EQ(r->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ((*r)[i], want[i]) << type_to_string((*r)[i]) << " vs " << type_to_string(want[i]);
}

Infer gather(GatherKind kind, int64_t axis, int64_t batch_dims, Type operand, Type indices) {
  Infer b(Op::Gather);
  b.attr("kind", e(kind)).attr("axis", axis).attr("batch_dims", batch_dims).in(operand).in(indices);
  return b;
}

Infer scatter(GatherKind kind, int64_t axis, ScatterReduction reduction, Type operand, Type indices,
              Type updates) {
  Infer b(Op::Scatter);
  b.attr("kind", e(kind))
      .attr("axis", axis)
      .attr("reduction", e(reduction))
      .in(operand)
      .in(indices)
      .in(updates);
  return b;
}

Infer reduce(ReduceKind kind, std::vector<int64_t> axes, Type operand) {
  Infer b(Op::Reduce);
  b.attr("kind", e(kind)).attr("axes", std::move(axes)).in(operand);
  return b;
}

Infer arg_reduce(int64_t axis, Type operand) {
  Infer b(Op::ArgReduce);
  b.attr("kind", e(ArgKind::Max)).attr("axis", axis).attr("select_last", false).in(operand);
  return b;
}

Infer scan(ReduceKind kind, int64_t axis, Type operand) {
  Infer b(Op::Scan);
  b.attr("kind", e(kind)).attr("axis", axis).attr("exclusive", false).attr("reverse", false).in(operand);
  return b;
}

const DType F32 = DType::F32, I32 = DType::I32, I64 = DType::I64;

// ---- gather --------------------------------------------------------------------------------
TEST(InferGather, AxisShapeIsOperandPrefixIndicesSuffix) {
  expect_types(gather(GatherKind::Axis, 1, 0, t(F32, {2, 5, 3}), t(I64, {4, Dim::symbolic("N")})).run(),
               {t(F32, {2, 4, Dim::symbolic("N"), 3})});
}

TEST(InferGather, AxisScalarIndicesDropTheAxis) {
  expect_types(gather(GatherKind::Axis, 0, 0, t(F32, {5, 3}), t(I32, {})).run(), {t(F32, {3})});
}

TEST(InferGather, ElementsShapeIsIndicesShape) {
  expect_types(gather(GatherKind::Elements, 1, 0, t(F32, {2, 5}), t(I64, {2, 7})).run(), {t(F32, {2, 7})});
}

TEST(InferGather, NdShapeWithBatchDims) {
  // operand [2,3,4,5], indices [2,6,2], batch_dims 1: result [2,6] + operand[1+2:] = [2,6,5]
  expect_types(gather(GatherKind::Nd, 0, 1, t(F32, {2, 3, 4, 5}), t(I64, {2, 6, 2})).run(),
               {t(F32, {2, 6, 5})});
}

TEST(InferGather, NdFullIndexGivesElements) {
  expect_types(gather(GatherKind::Nd, 0, 0, t(F32, {3, 4}), t(I64, {5, 2})).run(), {t(F32, {5})});
}

TEST(InferGather, C1IndicesMustBeI32OrI64) {
  expect_label(gather(GatherKind::Axis, 0, 0, t(F32, {3}), t(DType::I16, {2})).run(), "gather.C1");
  expect_label(gather(GatherKind::Axis, 0, 0, t(F32, {3}), t(F32, {2})).run(), "gather.C1");
}

TEST(InferGather, C1OperandMustBeRankedTensor) {
  expect_label(gather(GatherKind::Axis, 0, 0, Type::sequence(t(F32, {3})), t(I64, {2})).run(), "gather.C1");
  expect_label(gather(GatherKind::Axis, 0, 0, Type::unranked_tensor(F32), t(I64, {2})).run(), "gather.C1");
}

TEST(InferGather, C2UnusedAttributesMustBeZero) {
  expect_label(gather(GatherKind::Axis, 0, 1, t(F32, {3, 3}), t(I64, {2})).run(), "gather.C2");
  expect_label(gather(GatherKind::Elements, 0, 1, t(F32, {3, 3}), t(I64, {2, 3})).run(), "gather.C2");
  expect_label(gather(GatherKind::Nd, 1, 0, t(F32, {3, 3}), t(I64, {2, 1})).run(), "gather.C2");
}

TEST(InferGather, C3AxisOutOfRange) {
  expect_label(gather(GatherKind::Axis, 2, 0, t(F32, {3, 3}), t(I64, {2})).run(), "gather.C3");
  expect_label(gather(GatherKind::Axis, -1, 0, t(F32, {3, 3}), t(I64, {2})).run(), "gather.C3");
  expect_label(gather(GatherKind::Axis, 0, 0, t(F32, {}), t(I64, {2})).run(), "gather.C3");
  expect_label(gather(GatherKind::Elements, 1, 0, t(F32, {3}), t(I64, {2})).run(), "gather.C3");
}

TEST(InferGather, C4ElementsRankAndShape) {
  expect_label(gather(GatherKind::Elements, 0, 0, t(F32, {3, 3}), t(I64, {2})).run(), "gather.C4");
  expect_label(gather(GatherKind::Elements, 0, 0, t(F32, {3, 3}), t(I64, {5, 4})).run(), "gather.C4");
  // the axis dim of indices may exceed the operand's; a symbolic dim is not known to exceed
  expect_types(gather(GatherKind::Elements, 0, 0, t(F32, {3, 3}), t(I64, {5, Dim::symbolic()})).run(),
               {t(F32, {5, Dim::symbolic()})});
}

TEST(InferGather, C5BatchDimsRangeAndShape) {
  expect_label(gather(GatherKind::Nd, 0, 2, t(F32, {3, 3}), t(I64, {3, 3, 1})).run(), "gather.C5");
  expect_label(gather(GatherKind::Nd, 0, -1, t(F32, {3, 3}), t(I64, {3, 1})).run(), "gather.C5");
  expect_label(gather(GatherKind::Nd, 0, 0, t(F32, {3, 3}), t(I64, {})).run(), "gather.C5");
  expect_label(gather(GatherKind::Nd, 0, 1, t(F32, {3, 3}), t(I64, {4, 1})).run(), "gather.C5");
}

TEST(InferGather, C6LastIndicesDim) {
  expect_label(gather(GatherKind::Nd, 0, 0, t(F32, {3, 3}), t(I64, {2, 3})).run(), "gather.C6");
  expect_label(gather(GatherKind::Nd, 0, 0, t(F32, {3, 3}), t(I64, {2, 0})).run(), "gather.C6");
  expect_label(gather(GatherKind::Nd, 0, 0, t(F32, {3, 3}), t(I64, {2, Dim::symbolic()})).run(), "gather.C6");
  expect_label(gather(GatherKind::Nd, 0, 1, t(F32, {3, 3}), t(I64, {3, 2})).run(), "gather.C6");
}

// ---- scatter -------------------------------------------------------------------------------
TEST(InferScatter, ResultIsOperandType) {
  expect_types(
      scatter(GatherKind::Elements, 1, ScatterReduction::None, t(F32, {2, 5}), t(I64, {2, 3}), t(F32, {2, 3}))
          .run(),
      {t(F32, {2, 5})});
  expect_types(
      scatter(GatherKind::Nd, 0, ScatterReduction::Add, t(F32, {4, 5, 6}), t(I32, {3, 2}), t(F32, {3, 6}))
          .run(),
      {t(F32, {4, 5, 6})});
}

TEST(InferScatter, C1UpdatesDtypeMustMatch) {
  expect_label(
      scatter(GatherKind::Elements, 0, ScatterReduction::None, t(F32, {3}), t(I64, {2}), t(I32, {2})).run(),
      "scatter.C1");
  expect_label(
      scatter(GatherKind::Elements, 0, ScatterReduction::None, t(F32, {3}), t(DType::U64, {2}), t(F32, {2}))
          .run(),
      "scatter.C1");
}

TEST(InferScatter, C2KindAxisIsInvalid) {
  expect_label(
      scatter(GatherKind::Axis, 0, ScatterReduction::None, t(F32, {3}), t(I64, {2}), t(F32, {2})).run(),
      "scatter.C2");
}

TEST(InferScatter, C3ElementsAxisRankShape) {
  expect_label(
      scatter(GatherKind::Elements, 1, ScatterReduction::None, t(F32, {3}), t(I64, {2}), t(F32, {2})).run(),
      "scatter.C3");
  expect_label(
      scatter(GatherKind::Elements, 0, ScatterReduction::None, t(F32, {3, 2}), t(I64, {2}), t(F32, {2}))
          .run(),
      "scatter.C3");
  expect_label(
      scatter(GatherKind::Elements, 0, ScatterReduction::None, t(F32, {3, 2}), t(I64, {2, 2}), t(F32, {2, 1}))
          .run(),
      "scatter.C3");
  expect_label(
      scatter(GatherKind::Elements, 0, ScatterReduction::None, t(F32, {3, 2}), t(I64, {2, 3}), t(F32, {2, 3}))
          .run(),
      "scatter.C3");
}

TEST(InferScatter, C4NdShapes) {
  expect_label(
      scatter(GatherKind::Nd, 1, ScatterReduction::None, t(F32, {3}), t(I64, {2, 1}), t(F32, {2})).run(),
      "scatter.C4");
  expect_label(
      scatter(GatherKind::Nd, 0, ScatterReduction::None, t(F32, {3}), t(I64, {2, 2}), t(F32, {2})).run(),
      "scatter.C4");
  expect_label(scatter(GatherKind::Nd, 0, ScatterReduction::None, t(F32, {3}), t(I64, {}), t(F32, {})).run(),
               "scatter.C4");
  expect_label(
      scatter(GatherKind::Nd, 0, ScatterReduction::None, t(F32, {3, 4}), t(I64, {2, 1}), t(F32, {2, 5}))
          .run(),
      "scatter.C4");
  expect_label(
      scatter(GatherKind::Nd, 0, ScatterReduction::None, t(F32, {3, 4}), t(I64, {2, 1}), t(F32, {2})).run(),
      "scatter.C4");
}

TEST(InferScatter, C5ReductionDtypes) {
  const Type b = t(DType::Bool, {3}), s = t(DType::String, {3});
  expect_label(
      scatter(GatherKind::Elements, 0, ScatterReduction::Add, b, t(I64, {1}), t(DType::Bool, {1})).run(),
      "scatter.C5");
  expect_label(
      scatter(GatherKind::Elements, 0, ScatterReduction::Max, s, t(I64, {1}), t(DType::String, {1})).run(),
      "scatter.C5");
  expect_types(
      scatter(GatherKind::Elements, 0, ScatterReduction::Max, b, t(I64, {1}), t(DType::Bool, {1})).run(),
      {b});
  expect_types(
      scatter(GatherKind::Elements, 0, ScatterReduction::None, s, t(I64, {1}), t(DType::String, {1})).run(),
      {s});
}

// ---- sort ----------------------------------------------------------------------------------
Infer sort(int64_t axis, Type operand) {
  Infer b(Op::Sort);
  b.attr("axis", axis).attr("descending", true).in(operand);
  return b;
}

TEST(InferSort, ValuesAndI64Indices) {
  expect_types(sort(1, t(DType::String, {2, Dim::symbolic("N")})).run(),
               {t(DType::String, {2, Dim::symbolic("N")}), t(I64, {2, Dim::symbolic("N")})});
}

TEST(InferSort, C1OperandMustBeRankedTensor) {
  expect_label(sort(0, Type::optional(t(F32, {3}))).run(), "sort.C1");
}

TEST(InferSort, C2AxisOutOfRange) {
  expect_label(sort(1, t(F32, {3})).run(), "sort.C2");
  expect_label(sort(0, t(F32, {})).run(), "sort.C2");
}

// ---- nonzero -------------------------------------------------------------------------------
TEST(InferNonZero, ResultIsRankByDynamic) {
  Infer b(Op::NonZero);
  expect_types(b.in(t(F32, {2, 3, 4})).runtime().run(), {t(I64, {3, Dim::symbolic()})});
  Infer s(Op::NonZero);
  expect_types(s.in(t(DType::Bool, {})).run(), {t(I64, {0, Dim::symbolic()})});
}

TEST(InferNonZero, C1StringsRejected) {
  Infer b(Op::NonZero);
  expect_label(b.in(t(DType::String, {2})).run(), "nonzero.C1");
}

// ---- reduce --------------------------------------------------------------------------------
TEST(InferReduce, DropsReducedAxes) {
  expect_types(reduce(ReduceKind::Sum, {0, 2}, t(F32, {2, Dim::symbolic("N"), 4, 5})).run(),
               {t(F32, {Dim::symbolic("N"), 5})});
  expect_types(reduce(ReduceKind::Max, {}, t(DType::Bool, {})).run(), {t(DType::Bool, {})});
  expect_types(reduce(ReduceKind::Min, {0}, t(DType::I8, {0})).run(), {t(DType::I8, {})});
}

TEST(InferReduce, C1StringsRejected) {
  expect_label(reduce(ReduceKind::Max, {0}, t(DType::String, {2})).run(), "reduce.C1");
}

TEST(InferReduce, C2AxesInRangeAndIncreasing) {
  expect_label(reduce(ReduceKind::Sum, {2}, t(F32, {2, 3})).run(), "reduce.C2");
  expect_label(reduce(ReduceKind::Sum, {-1}, t(F32, {2, 3})).run(), "reduce.C2");
  expect_label(reduce(ReduceKind::Sum, {1, 0}, t(F32, {2, 3})).run(), "reduce.C2");
  expect_label(reduce(ReduceKind::Sum, {1, 1}, t(F32, {2, 3})).run(), "reduce.C2");
}

TEST(InferReduce, C3SumProdOnBoolRejected) {
  expect_label(reduce(ReduceKind::Sum, {0}, t(DType::Bool, {2})).run(), "reduce.C3");
  expect_label(reduce(ReduceKind::Prod, {0}, t(DType::Bool, {2})).run(), "reduce.C3");
}

// ---- arg_reduce ----------------------------------------------------------------------------
TEST(InferArgReduce, DropsAxisGivesI64) {
  expect_types(arg_reduce(1, t(DType::F16, {2, 3, 4})).run(), {t(I64, {2, 4})});
}

TEST(InferArgReduce, C1StringsRejected) {
  expect_label(arg_reduce(0, t(DType::String, {2})).run(), "arg_reduce.C1");
}

TEST(InferArgReduce, C2AxisOutOfRange) {
  expect_label(arg_reduce(1, t(F32, {2})).run(), "arg_reduce.C2");
  expect_label(arg_reduce(0, t(F32, {})).run(), "arg_reduce.C2");
}

TEST(InferArgReduce, C3StaticEmptyAxisRejected) {
  expect_label(arg_reduce(1, t(F32, {2, 0})).run(), "arg_reduce.C3");
  // symbolic: unknown until run time (then arg_reduce.R1), and an empty other axis is fine
  expect_types(arg_reduce(1, t(F32, {0, Dim::symbolic()})).run(), {t(I64, {0})});
  // at run time the kernel reports arg_reduce.R1 instead
  expect_types(arg_reduce(1, t(F32, {2, 0})).runtime().run(), {t(I64, {2})});
}

// ---- scan ----------------------------------------------------------------------------------
TEST(InferScan, ResultIsOperandType) {
  expect_types(scan(ReduceKind::Prod, 0, t(DType::U8, {0, 3})).run(), {t(DType::U8, {0, 3})});
}

TEST(InferScan, C1NumericOnly) {
  expect_label(scan(ReduceKind::Sum, 0, t(DType::Bool, {2})).run(), "scan.C1");
  expect_label(scan(ReduceKind::Sum, 0, t(DType::String, {2})).run(), "scan.C1");
}

TEST(InferScan, C2AxisOutOfRange) {
  expect_label(scan(ReduceKind::Sum, 1, t(F32, {2})).run(), "scan.C2");
  expect_label(scan(ReduceKind::Sum, 0, t(F32, {})).run(), "scan.C2");
}

TEST(InferScan, C3OnlySumAndProd) {
  expect_label(scan(ReduceKind::Max, 0, t(F32, {2})).run(), "scan.C3");
  expect_label(scan(ReduceKind::Min, 0, t(F32, {2})).run(), "scan.C3");
}

}  // namespace
}  // namespace plumb::ir
