// Inference of the value-source and layout ops (ir/infer_layout.cpp): one test per C-label of
// spec/ops/{constant,iota,shape_of,rng,reshape,broadcast,transpose,slice,concat,pad}.md.
#include <gtest/gtest.h>

#include <optional>

#include "ir/infer.h"

namespace plumb::ir {
namespace {

Type T(DType dt, std::vector<int64_t> dims) { return Type::tensor(dt, static_shape(dims)); }
Type I64(std::vector<int64_t> dims) { return T(DType::I64, std::move(dims)); }

// One node, its operand types and known values, run through check_node_structure + infer_types.
class Infer {
 public:
  explicit Infer(Op op) { node_.op = op; }
  Infer& attr(std::string name, AttrValue v) {
    node_.attrs.push_back(Attr{std::move(name), std::move(v)});
    return *this;
  }
  Infer& in(Type t) {
    types_.push_back(std::move(t));
    values_.emplace_back();
    return *this;
  }
  Infer& in(Type t, std::vector<int64_t> v) {
    types_.push_back(std::move(t));
    values_.emplace_back(std::move(v));
    return *this;
  }
  Infer& runtime() {
    at_runtime_ = true;
    return *this;
  }
  Graph& graph() { return graph_; }
  Expected<std::vector<Type>> run() {
    node_.inputs.assign(types_.size(), 0);
    node_.outputs.assign(1, 0);
    PLUMB_RETURN_IF_ERROR(check_node_structure(node_));
    std::vector<Operand> ops;
    for (size_t i = 0; i < types_.size(); ++i)
      ops.push_back(Operand{&types_[i], values_[i] ? &*values_[i] : nullptr});
    InferCtx cx{node_, ops, graph_, at_runtime_};
    return infer_types(cx);
  }
  // The single result type; fails the test on an error.
  Type type() {
    auto r = run();
    EXPECT_TRUE(r.has_value()) << r.status().to_string();
    return r.has_value() ? (*r)[0] : Type{};
  }
  // The label of the expected error.
  std::string error() {
    auto r = run();
    EXPECT_FALSE(r.has_value()) << "inferred " << (r.has_value() ? type_to_string((*r)[0]) : "");
    return r.has_value() ? "" : r.status().label();
  }
  ErrorCode code() {
    auto r = run();
    return r.has_value() ? ErrorCode::kOk : r.status().code();
  }

 private:
  Node node_;
  std::vector<Type> types_;
  std::vector<std::optional<std::vector<int64_t>>> values_;
  Graph graph_;
  bool at_runtime_ = false;
};

Type sym(DType dt, Shape s) { return Type::tensor(dt, std::move(s)); }
const Dim N = Dim::symbolic("N");
const Dim Q = Dim::symbolic();

// ---- constant ----------------------------------------------------------------------------------

Infer constant_with(ConstantData c) {
  Infer i(Op::Constant);
  i.attr("value", ConstRef{0});
  i.graph().constants.push_back(std::move(c));
  return i;
}

TEST(InferConstant, TypeIsTheConstantsType) {
  const float v[3] = {1, 2, 3};
  EXPECT_EQ(constant_with(ConstantData::copy_of(T(DType::F32, {3}), v, 12)).type(), T(DType::F32, {3}));
  // i4[3] packs into 2 bytes; a string scalar "ab" is 4 + 2 bytes.
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::I4, {3}), {0x21, 0x03})).type(), T(DType::I4, {3}));
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::String, {}), {2, 0, 0, 0, 'a', 'b'})).type(),
            T(DType::String, {}));
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::F32, {0, 4}), {})).type(), T(DType::F32, {0, 4}));
}

TEST(InferConstant, C1IndexOutOfRange) {
  Infer i(Op::Constant);
  i.attr("value", ConstRef{0});
  EXPECT_EQ(i.error(), "constant.C1");
  Infer k(Op::Constant);
  k.attr("value", ConstRef{1});
  k.graph().constants.push_back(ConstantData::owned(T(DType::U8, {1}), {7}));
  EXPECT_EQ(k.error(), "constant.C1");
}

TEST(InferConstant, C2TypeNotStatic) {
  EXPECT_EQ(constant_with(ConstantData::owned(sym(DType::F32, {N}), {})).error(), "constant.C2");
  EXPECT_EQ(constant_with(ConstantData::owned(Type::sequence(T(DType::F32, {1})), {})).error(),
            "constant.C2");
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::U8, {1 << 21, 1 << 21}), {})).error(), "constant.C2");
}

TEST(InferConstant, C3BytesDoNotMatchType) {
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::F32, {3}), std::vector<uint8_t>(11))).error(),
            "constant.C3");
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::F32, {3}), std::vector<uint8_t>(13))).error(),
            "constant.C3");
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::I4, {3}), {0x21})).error(), "constant.C3");
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::Bool, {2}), {1, 2})).error(), "constant.C3");
  // string: length runs past the end; length field cut short; bytes left over
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::String, {1}), {5, 0, 0, 0, 'a'})).error(),
            "constant.C3");
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::String, {1}), {5, 0})).error(), "constant.C3");
  EXPECT_EQ(constant_with(ConstantData::owned(T(DType::String, {1}), {0, 0, 0, 0, 'x'})).error(),
            "constant.C3");
}

// ---- iota --------------------------------------------------------------------------------------

Infer iota(DType dt, int64_t axis) {
  Infer i(Op::Iota);
  i.attr("dtype", dt).attr("axis", axis);
  return i;
}

TEST(InferIota, ShapeFromKnownValuesElseSymbolic) {
  EXPECT_EQ(iota(DType::F16, 1).in(I64({2}), {2, 3}).type(), T(DType::F16, {2, 3}));
  EXPECT_EQ(iota(DType::I4, 0).in(I64({2})).type(), sym(DType::I4, {Q, Q}));
  EXPECT_EQ(iota(DType::U8, 0).in(I64({1}), {0}).type(), T(DType::U8, {0}));
}

TEST(InferIota, C1ShapeNotStaticI64Vector) {
  EXPECT_EQ(iota(DType::F32, 0).in(T(DType::I32, {1}), {3}).error(), "iota.C1");
  EXPECT_EQ(iota(DType::F32, 0).in(I64({1, 1})).error(), "iota.C1");
  EXPECT_EQ(iota(DType::F32, 0).in(sym(DType::I64, {N})).error(), "iota.C1");
  EXPECT_EQ(iota(DType::F32, 0).in(I64({65})).error(), "iota.C1");
}

TEST(InferIota, C2AxisOutOfRange) {
  EXPECT_EQ(iota(DType::F32, 2).in(I64({2})).error(), "iota.C2");
  EXPECT_EQ(iota(DType::F32, -1).in(I64({2})).error(), "iota.C2");
  EXPECT_EQ(iota(DType::F32, 0).in(I64({0}), {}).error(), "iota.C2");  // rank 0 has no axis
}

TEST(InferIota, C3DtypeNotIntegerOrFloat) {
  EXPECT_EQ(iota(DType::Bool, 0).in(I64({1})).error(), "iota.C3");
  EXPECT_EQ(iota(DType::String, 0).in(I64({1})).error(), "iota.C3");
}

TEST(InferIota, C4ShapeValuesInvalid) {
  EXPECT_EQ(iota(DType::F32, 0).in(I64({2}), {2, -1}).error(), "iota.C4");
  EXPECT_EQ(iota(DType::F32, 0).in(I64({2}), {1 << 21, 1 << 21}).error(), "iota.C4");
  EXPECT_EQ(iota(DType::F32, 0).in(I64({2}), {2, -1}).runtime().error(), "iota.R1");
}

// ---- shape_of ----------------------------------------------------------------------------------

TEST(InferShapeOf, RankOfOperand) {
  EXPECT_EQ(Infer(Op::ShapeOf).in(sym(DType::String, {N, 3, Q})).type(), I64({3}));
  EXPECT_EQ(Infer(Op::ShapeOf).in(T(DType::F32, {})).type(), I64({0}));
}

TEST(InferShapeOf, C1OperandNotRankedTensor) {
  EXPECT_EQ(Infer(Op::ShapeOf).in(Type::sequence(T(DType::F32, {1}))).error(), "shape_of.C1");
  EXPECT_EQ(Infer(Op::ShapeOf).in(Type::unranked_tensor(DType::F32)).error(), "shape_of.C1");
}

// ---- rng ---------------------------------------------------------------------------------------

Infer rng() {
  Infer i(Op::Rng);
  i.attr("algorithm", EnumValue{RngAlgorithm::Philox4x32x10})
      .attr("seed", int64_t{1})
      .attr("stream", int64_t{2});
  return i;
}

TEST(InferRng, U32OfTheShape) {
  EXPECT_EQ(rng().in(I64({2}), {4, 5}).type(), T(DType::U32, {4, 5}));
  EXPECT_EQ(rng().in(I64({0}), {}).type(), T(DType::U32, {}));
  EXPECT_EQ(rng().in(I64({1})).type(), sym(DType::U32, {Q}));
}

TEST(InferRng, C1ShapeNotStaticI64Vector) {
  EXPECT_EQ(rng().in(T(DType::U64, {1})).error(), "rng.C1");
  EXPECT_EQ(rng().in(I64({})).error(), "rng.C1");
}

TEST(InferRng, C2ShapeValuesInvalid) {
  EXPECT_EQ(rng().in(I64({1}), {-3}).error(), "rng.C2");
  EXPECT_EQ(rng().in(I64({1}), {-3}).runtime().error(), "rng.R1");
}

// ---- reshape -----------------------------------------------------------------------------------

TEST(InferReshape, ResultShapeIsTheShapeValues) {
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::F32, {2, 3})).in(I64({3}), {3, 1, 2}).type(),
            T(DType::F32, {3, 1, 2}));
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::F32, {1})).in(I64({0}), {}).type(), T(DType::F32, {}));
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::F32, {0, 3})).in(I64({2}), {3, 0}).type(), T(DType::F32, {3, 0}));
  // unknown values: symbolic; a 1-D result of a static operand has its element count
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::I8, {2, 3})).in(I64({2})).type(), sym(DType::I8, {Q, Q}));
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::I8, {2, 3})).in(I64({1})).type(), T(DType::I8, {6}));
  // a symbolic operand accepts any count before run time
  EXPECT_EQ(Infer(Op::Reshape).in(sym(DType::F32, {N, 2})).in(I64({1}), {7}).type(), T(DType::F32, {7}));
}

TEST(InferReshape, C1OperandOrShapeMalformed) {
  EXPECT_EQ(Infer(Op::Reshape).in(Type::sequence(T(DType::F32, {1}))).in(I64({1}), {1}).error(),
            "reshape.C1");
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::F32, {1})).in(T(DType::I32, {1}), {1}).error(), "reshape.C1");
}

TEST(InferReshape, C2ShapeValuesInvalid) {
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::F32, {2, 3})).in(I64({2}), {-1, 6}).error(), "reshape.C2");
  EXPECT_EQ(Infer(Op::Reshape).in(sym(DType::F32, {N})).in(I64({2}), {1 << 30, 1 << 30}).error(),
            "reshape.C2");
}

TEST(InferReshape, C3ElementCountDiffers) {
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::F32, {2, 3})).in(I64({2}), {4, 2}).error(), "reshape.C3");
  EXPECT_EQ(Infer(Op::Reshape).in(T(DType::F32, {2, 3})).in(I64({2}), {4, 2}).runtime().error(),
            "reshape.R2");
}

// ---- broadcast ---------------------------------------------------------------------------------

Infer broadcast(std::vector<int64_t> dims) {
  Infer i(Op::Broadcast);
  i.attr("dims", std::move(dims));
  return i;
}

TEST(InferBroadcast, ResultShapeIsTheShapeValues) {
  EXPECT_EQ(broadcast({1}).in(T(DType::F32, {3})).in(I64({2}), {2, 3}).type(), T(DType::F32, {2, 3}));
  EXPECT_EQ(broadcast({}).in(T(DType::Bool, {})).in(I64({2}), {0, 5}).type(), T(DType::Bool, {0, 5}));
  // unknown values: a static operand dim other than 1 fixes its result dim
  EXPECT_EQ(broadcast({0, 2}).in(T(DType::F32, {1, 4})).in(I64({3})).type(), sym(DType::F32, {Q, Q, 4}));
  // symbolic operand dims accept any result dim before run time
  EXPECT_EQ(broadcast({0}).in(sym(DType::F32, {N})).in(I64({1}), {5}).type(), T(DType::F32, {5}));
}

TEST(InferBroadcast, C1OperandOrShapeMalformed) {
  EXPECT_EQ(broadcast({}).in(Type::unranked_tensor(DType::F32)).in(I64({1}), {2}).error(), "broadcast.C1");
  EXPECT_EQ(broadcast({}).in(T(DType::F32, {})).in(I64({1, 1}), {2}).error(), "broadcast.C1");
}

TEST(InferBroadcast, C2DimsMalformed) {
  EXPECT_EQ(broadcast({0}).in(T(DType::F32, {1, 1})).in(I64({2}), {2, 2}).error(), "broadcast.C2");
  EXPECT_EQ(broadcast({1, 0}).in(T(DType::F32, {1, 1})).in(I64({2}), {2, 2}).error(), "broadcast.C2");
  EXPECT_EQ(broadcast({1, 1}).in(T(DType::F32, {1, 1})).in(I64({2}), {2, 2}).error(), "broadcast.C2");
  EXPECT_EQ(broadcast({2}).in(T(DType::F32, {1})).in(I64({2}), {2, 2}).error(), "broadcast.C2");
  EXPECT_EQ(broadcast({-1}).in(T(DType::F32, {1})).in(I64({2}), {2, 2}).error(), "broadcast.C2");
}

TEST(InferBroadcast, C3ShapeValuesInvalid) {
  EXPECT_EQ(broadcast({}).in(T(DType::F32, {})).in(I64({1}), {-2}).error(), "broadcast.C3");
  EXPECT_EQ(broadcast({}).in(T(DType::F32, {})).in(I64({1}), {-2}).runtime().error(), "broadcast.R1");
}

TEST(InferBroadcast, C4OperandDimNotOneOrEqual) {
  EXPECT_EQ(broadcast({1}).in(T(DType::F32, {3})).in(I64({2}), {2, 4}).error(), "broadcast.C4");
  EXPECT_EQ(broadcast({1}).in(T(DType::F32, {3})).in(I64({2}), {2, 4}).runtime().error(), "broadcast.R2");
  EXPECT_EQ(broadcast({0}).in(T(DType::F32, {0})).in(I64({1}), {1}).error(), "broadcast.C4");
}

// ---- transpose ---------------------------------------------------------------------------------

Infer transpose(std::vector<int64_t> perm) {
  Infer i(Op::Transpose);
  i.attr("perm", std::move(perm));
  return i;
}

TEST(InferTranspose, PermutesDims) {
  EXPECT_EQ(transpose({2, 0, 1}).in(sym(DType::String, {N, 3, 0})).type(), sym(DType::String, {0, N, 3}));
  EXPECT_EQ(transpose({}).in(T(DType::F32, {})).type(), T(DType::F32, {}));
}

TEST(InferTranspose, C1OperandNotRankedTensor) {
  EXPECT_EQ(transpose({}).in(Type::optional(T(DType::F32, {}))).error(), "transpose.C1");
}

TEST(InferTranspose, C2PermNotAPermutation) {
  EXPECT_EQ(transpose({0, 0}).in(T(DType::F32, {2, 2})).error(), "transpose.C2");
  EXPECT_EQ(transpose({0}).in(T(DType::F32, {2, 2})).error(), "transpose.C2");
  EXPECT_EQ(transpose({0, 2}).in(T(DType::F32, {2, 2})).error(), "transpose.C2");
  EXPECT_EQ(transpose({-1, 0}).in(T(DType::F32, {2, 2})).error(), "transpose.C2");
}

// ---- slice -------------------------------------------------------------------------------------

Infer slice(Type operand, std::optional<std::vector<int64_t>> start, std::optional<std::vector<int64_t>> size,
            std::optional<std::vector<int64_t>> stride, int64_t len = -1) {
  const int64_t n = len >= 0 ? len : operand.rank();
  Infer i(Op::Slice);
  i.in(operand);
  for (auto* v : {&start, &size, &stride}) v->has_value() ? (void)i.in(I64({n}), **v) : (void)i.in(I64({n}));
  return i;
}

TEST(InferSlice, ResultShapeIsSize) {
  EXPECT_EQ(slice(T(DType::F32, {5, 4}), {{1, 3}}, {{2, 2}}, {{2, -1}}).type(), T(DType::F32, {2, 2}));
  EXPECT_EQ(slice(T(DType::F32, {5, 4}), std::nullopt, std::nullopt, std::nullopt).type(),
            sym(DType::F32, {Q, Q}));
  EXPECT_EQ(slice(T(DType::F32, {}), {{}}, {{}}, {{}}).type(), T(DType::F32, {}));
  // symbolic operand dims: range checked at run time
  EXPECT_EQ(slice(sym(DType::F32, {N}), {{100}}, {{3}}, {{1}}).type(), T(DType::F32, {3}));
}

TEST(InferSlice, C1OperandsMalformed) {
  EXPECT_EQ(slice(T(DType::F32, {5, 4}), {{0}}, {{1}}, {{1}}, 1).error(), "slice.C1");
  EXPECT_EQ(slice(Type::sequence(T(DType::F32, {5})), {{0}}, {{1}}, {{1}}, 1).error(), "slice.C1");
  Infer i(Op::Slice);
  EXPECT_EQ(i.in(T(DType::F32, {5})).in(I64({1})).in(T(DType::I32, {1})).in(I64({1})).error(), "slice.C1");
}

TEST(InferSlice, C2ZeroStride) {
  EXPECT_EQ(slice(T(DType::F32, {5}), std::nullopt, std::nullopt, {{0}}).error(), "slice.C2");
  EXPECT_EQ(slice(T(DType::F32, {5}), std::nullopt, std::nullopt, {{0}}).runtime().error(), "slice.R1");
}

TEST(InferSlice, C3NegativeSize) {
  EXPECT_EQ(slice(T(DType::F32, {5}), std::nullopt, {{-1}}, std::nullopt).error(), "slice.C3");
  EXPECT_EQ(slice(T(DType::F32, {5}), std::nullopt, {{-1}}, std::nullopt).runtime().error(), "slice.R2");
}

TEST(InferSlice, C4IndexOutOfRange) {
  EXPECT_EQ(slice(T(DType::F32, {5}), {{5}}, {{1}}, {{1}}).error(), "slice.C4");
  EXPECT_EQ(slice(T(DType::F32, {5}), {{-1}}, {{1}}, {{1}}).error(), "slice.C4");
  EXPECT_EQ(slice(T(DType::F32, {5}), {{1}}, {{3}}, {{2}}).error(), "slice.C4");   // reads 1, 3, 5
  EXPECT_EQ(slice(T(DType::F32, {5}), {{3}}, {{3}}, {{-2}}).error(), "slice.C4");  // reads 3, 1, -1
  EXPECT_EQ(slice(T(DType::F32, {5}), {{0}}, {{2}}, {{INT64_MAX}}).error(), "slice.C4");
  EXPECT_EQ(slice(T(DType::F32, {5}), {{5}}, {{1}}, {{1}}).runtime().error(), "slice.R3");
  // in range: negative stride from the end; an empty result reads nothing
  EXPECT_EQ(slice(T(DType::F32, {5}), {{4}}, {{3}}, {{-2}}).type(), T(DType::F32, {3}));
  EXPECT_EQ(slice(T(DType::F32, {5, 2}), {{9, 9}}, {{0, 3}}, {{1, 1}}).type(), T(DType::F32, {0, 3}));
  EXPECT_EQ(slice(T(DType::F32, {0}), {{0}}, {{0}}, {{1}}).type(), T(DType::F32, {0}));
}

// ---- concat ------------------------------------------------------------------------------------

Infer concat(int64_t axis) {
  Infer i(Op::Concat);
  i.attr("axis", axis);
  return i;
}

TEST(InferConcat, SumsTheAxis) {
  EXPECT_EQ(concat(1).in(T(DType::F32, {2, 3})).in(T(DType::F32, {2, 0})).in(T(DType::F32, {2, 1})).type(),
            T(DType::F32, {2, 4}));
  EXPECT_EQ(concat(0).in(sym(DType::String, {N, 2})).in(T(DType::String, {1, 2})).type(),
            sym(DType::String, {Q, 2}));
  EXPECT_EQ(concat(0).in(sym(DType::F32, {1, N})).in(T(DType::F32, {1, 4})).type(), T(DType::F32, {2, 4}));
  EXPECT_EQ(concat(0).in(T(DType::U4, {3})).type(), T(DType::U4, {3}));
}

TEST(InferConcat, C1OperandsDiffer) {
  EXPECT_EQ(concat(0).in(T(DType::F32, {2})).in(T(DType::F16, {2})).error(), "concat.C1");
  EXPECT_EQ(concat(0).in(T(DType::F32, {2})).in(T(DType::F32, {2, 1})).error(), "concat.C1");
  EXPECT_EQ(concat(0).in(Type::sequence(T(DType::F32, {2}))).error(), "concat.C1");
}

TEST(InferConcat, C2AxisOutOfRange) {
  EXPECT_EQ(concat(1).in(T(DType::F32, {2})).error(), "concat.C2");
  EXPECT_EQ(concat(-1).in(T(DType::F32, {2})).error(), "concat.C2");
  EXPECT_EQ(concat(0).in(T(DType::F32, {})).error(), "concat.C2");
}

TEST(InferConcat, C3OtherDimsDiffer) {
  EXPECT_EQ(concat(0).in(T(DType::F32, {1, 2})).in(T(DType::F32, {1, 3})).error(), "concat.C3");
  EXPECT_EQ(concat(0).in(T(DType::F32, {1, 2})).in(T(DType::F32, {1, 3})).runtime().error(), "concat.R1");
}

TEST(InferConcat, C4ResultTooLarge) {
  EXPECT_EQ(concat(0).in(T(DType::F32, {int64_t{1} << 40})).in(T(DType::F32, {1})).error(), "concat.C4");
}

// ---- pad ---------------------------------------------------------------------------------------

Infer pad(PadMode mode, Type operand, std::optional<std::vector<int64_t>> low,
          std::optional<std::vector<int64_t>> high) {
  Infer i(Op::Pad);
  i.attr("mode", EnumValue{mode});
  const int64_t n = operand.rank();
  const DType dt = operand.dtype;
  i.in(operand);
  low ? (void)i.in(I64({n}), *low) : (void)i.in(I64({n}));
  high ? (void)i.in(I64({n}), *high) : (void)i.in(I64({n}));
  i.in(T(dt, {}));
  return i;
}

TEST(InferPad, AddsLowAndHigh) {
  EXPECT_EQ(pad(PadMode::Constant, T(DType::F32, {2, 0}), {{1, 0}}, {{2, 3}}).type(), T(DType::F32, {5, 3}));
  EXPECT_EQ(pad(PadMode::Wrap, T(DType::F32, {2}), {{5}}, {{7}}).type(), T(DType::F32, {14}));
  EXPECT_EQ(pad(PadMode::Edge, sym(DType::F32, {N, 2}), {{0, 1}}, {{0, 1}}).type(), sym(DType::F32, {N, 4}));
  EXPECT_EQ(pad(PadMode::Edge, T(DType::F32, {2}), std::nullopt, {{1}}).type(), sym(DType::F32, {Q}));
  EXPECT_EQ(pad(PadMode::Reflect, T(DType::F32, {}), {{}}, {{}}).type(), T(DType::F32, {}));
}

TEST(InferPad, C1OperandsMalformed) {
  Infer i(Op::Pad);
  i.attr("mode", EnumValue{PadMode::Constant});
  EXPECT_EQ(i.in(T(DType::F32, {2})).in(I64({1})).in(I64({1})).in(T(DType::F64, {})).error(), "pad.C1");
  Infer j(Op::Pad);
  j.attr("mode", EnumValue{PadMode::Constant});
  EXPECT_EQ(j.in(T(DType::F32, {2})).in(I64({1})).in(I64({1})).in(T(DType::F32, {1})).error(), "pad.C1");
  Infer k(Op::Pad);
  k.attr("mode", EnumValue{PadMode::Constant});
  EXPECT_EQ(k.in(T(DType::F32, {2})).in(I64({2})).in(I64({1})).in(T(DType::F32, {})).error(), "pad.C1");
}

TEST(InferPad, C2NegativePadding) {
  EXPECT_EQ(pad(PadMode::Constant, T(DType::F32, {2}), {{-1}}, {{0}}).error(), "pad.C2");
  EXPECT_EQ(pad(PadMode::Constant, T(DType::F32, {2}), {{0}}, {{-1}}).error(), "pad.C2");
  EXPECT_EQ(pad(PadMode::Constant, T(DType::F32, {2}), {{0}}, {{-1}}).runtime().error(), "pad.R1");
  EXPECT_EQ(pad(PadMode::Constant, T(DType::F32, {2, 2}), {{0, 0}}, {{1 << 30, 1 << 30}}).error(), "pad.C2");
}

TEST(InferPad, C3ReflectPadNotBelowDim) {
  EXPECT_EQ(pad(PadMode::Reflect, T(DType::F32, {3}), {{3}}, {{0}}).error(), "pad.C3");
  EXPECT_EQ(pad(PadMode::Reflect, T(DType::F32, {3}), {{0}}, {{3}}).error(), "pad.C3");
  EXPECT_EQ(pad(PadMode::Reflect, T(DType::F32, {1}), {{1}}, {{0}}).error(), "pad.C3");
  EXPECT_EQ(pad(PadMode::Reflect, T(DType::F32, {3}), {{3}}, {{0}}).runtime().error(), "pad.R2");
  EXPECT_EQ(pad(PadMode::Reflect, T(DType::F32, {3}), {{2}}, {{2}}).type(), T(DType::F32, {7}));
  EXPECT_EQ(pad(PadMode::Reflect, T(DType::F32, {0}), {{0}}, {{0}}).type(), T(DType::F32, {0}));
}

TEST(InferPad, C4EdgeOrWrapOfEmptyDim) {
  EXPECT_EQ(pad(PadMode::Edge, T(DType::F32, {0}), {{1}}, {{0}}).error(), "pad.C4");
  EXPECT_EQ(pad(PadMode::Wrap, T(DType::F32, {0}), {{0}}, {{1}}).error(), "pad.C4");
  EXPECT_EQ(pad(PadMode::Wrap, T(DType::F32, {0}), {{0}}, {{1}}).runtime().error(), "pad.R3");
  EXPECT_EQ(pad(PadMode::Constant, T(DType::F32, {0}), {{1}}, {{1}}).type(), T(DType::F32, {2}));
}

TEST(InferLayout, RuntimeErrorsAreRuntimeErrorsAndBuildTimeOnesInvalidModel) {
  EXPECT_EQ(slice(T(DType::F32, {5}), {{5}}, {{1}}, {{1}}).code(), ErrorCode::kInvalidModel);
  EXPECT_EQ(slice(T(DType::F32, {5}), {{5}}, {{1}}, {{1}}).runtime().code(), ErrorCode::kRuntimeError);
}

}  // namespace
}  // namespace plumb::ir
