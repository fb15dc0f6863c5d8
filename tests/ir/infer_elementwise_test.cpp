// Inference and constraints of spec/ops/{unary,binary,compare,select,cast,bitcast}.md.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/infer.h"

namespace plumb::ir {
namespace {

struct InferResult {
  Expected<std::vector<Type>> types;
  std::string label() const { return types.has_value() ? "" : types.status().label(); }
};

InferResult run_infer(Op op, std::vector<Attr> attrs, std::vector<Type> operand_types) {
  Node n;
  n.op = op;
  n.attrs = std::move(attrs);
  n.inputs.assign(operand_types.size(), 0);
  n.outputs.assign(1, 0);
  Status s = check_node_structure(n);
  if (!s.is_ok()) return {s};
  std::vector<Operand> operands;
  for (const Type& t : operand_types) operands.push_back(Operand{&t, nullptr});
  Graph g;
  InferCtx cx{n, operands, g, false};
  return {infer_types(cx)};
}

template <typename Kind>
Attr kind(Kind code) {
  return Attr{"kind", EnumValue{code}};
}
Type t(DType dt, Shape s) { return Type::tensor(dt, std::move(s)); }

std::vector<DType> all_dtypes() {
  std::vector<DType> v;
  for (int i = 0; i < kNumDTypes; ++i) v.push_back(static_cast<DType>(i));
  return v;
}

// ---- unary -----------------------------------------------------------------------------------

TEST(InferUnary, ResultIsOperandType) {
  auto r = run_infer(Op::Unary, {kind(UnaryKind::Exp)}, {t(DType::F16, {2, Dim::symbolic("N")})});
  ASSERT_TRUE(r.types.has_value()) << r.types.status().to_string();
  EXPECT_EQ((*r.types)[0], t(DType::F16, {2, Dim::symbolic("N")}));
  auto r0 = run_infer(Op::Unary, {kind(UnaryKind::Neg)}, {t(DType::I32, {})});
  ASSERT_TRUE(r0.types.has_value());
  EXPECT_EQ((*r0.types)[0], t(DType::I32, {}));
}

TEST(InferUnary, C1RejectsNonTensorOperand) {
  EXPECT_EQ(run_infer(Op::Unary, {kind(UnaryKind::Abs)}, {Type::sequence(t(DType::F32, {2}))}).label(),
            "unary.C1");
  EXPECT_EQ(run_infer(Op::Unary, {kind(UnaryKind::Abs)}, {Type::unranked_tensor(DType::F32)}).label(),
            "unary.C1");
}

TEST(InferUnary, C2DtypeTable) {
  for (DType dt : all_dtypes()) {
    const bool f = is_float(dt) && dt != DType::F8E8M0, s = is_signed_int(dt), i = is_int(dt),
               b = is_bool(dt);
    const struct {
      UnaryKind k;
      bool ok;
    } rows[] = {{UnaryKind::Neg, s || f}, {UnaryKind::Abs, s || f}, {UnaryKind::Sign, i || f},
                {UnaryKind::Not, b || i}, {UnaryKind::Floor, f},    {UnaryKind::Ceil, f},
                {UnaryKind::Round, f},    {UnaryKind::Sqrt, f},     {UnaryKind::Exp, f},
                {UnaryKind::Log, f},      {UnaryKind::Sin, f},      {UnaryKind::Erf, f},
                {UnaryKind::Atanh, f},    {UnaryKind::Tanh, f}};
    for (const auto& row : rows) {
      auto r = run_infer(Op::Unary, {kind(row.k)}, {t(dt, {3})});
      EXPECT_EQ(r.types.has_value(), row.ok) << dtype_name(dt) << " kind " << enum_name(row.k);
      if (!row.ok) {
        EXPECT_EQ(r.label(), "unary.C2");
      }
    }
  }
}

// ---- binary ----------------------------------------------------------------------------------

TEST(InferBinary, ResultTypeAndSymbolicDims) {
  auto r = run_infer(
      Op::Binary, {kind(BinaryKind::Add)},
      {t(DType::F32, {Dim::symbolic(), 3, Dim::symbolic("N")}), t(DType::F32, {2, 3, Dim::symbolic()})});
  ASSERT_TRUE(r.types.has_value()) << r.types.status().to_string();
  // static beats symbolic; a named symbol beats an anonymous one
  EXPECT_EQ((*r.types)[0], t(DType::F32, {2, 3, Dim::symbolic("N")}));
  auto r2 = run_infer(Op::Binary, {kind(BinaryKind::Mul)}, {t(DType::I8, {0}), t(DType::I8, {0})});
  ASSERT_TRUE(r2.types.has_value());
  EXPECT_EQ((*r2.types)[0], t(DType::I8, {0}));
}

TEST(InferBinary, C1RejectsNonTensorOperand) {
  EXPECT_EQ(
      run_infer(Op::Binary, {kind(BinaryKind::Add)}, {t(DType::F32, {2}), Type::optional(t(DType::F32, {2}))})
          .label(),
      "binary.C1");
}

TEST(InferBinary, C2RejectsMixedDtypes) {
  EXPECT_EQ(run_infer(Op::Binary, {kind(BinaryKind::Add)}, {t(DType::F32, {2}), t(DType::F64, {2})}).label(),
            "binary.C2");
}

TEST(InferBinary, C3RejectsDifferentShapesNoBroadcast) {
  EXPECT_EQ(
      run_infer(Op::Binary, {kind(BinaryKind::Add)}, {t(DType::F32, {2, 3}), t(DType::F32, {3})}).label(),
      "binary.C3");
  EXPECT_EQ(
      run_infer(Op::Binary, {kind(BinaryKind::Add)}, {t(DType::F32, {2, 3}), t(DType::F32, {2, 1})}).label(),
      "binary.C3");
  EXPECT_EQ(run_infer(Op::Binary, {kind(BinaryKind::Add)}, {t(DType::F32, {}), t(DType::F32, {1})}).label(),
            "binary.C3");
}

TEST(InferBinary, C4DtypeTable) {
  for (DType dt : all_dtypes()) {
    const bool f = is_float(dt) && dt != DType::F8E8M0, i = is_int(dt), u = is_unsigned_int(dt),
               b = is_bool(dt);
    const struct {
      BinaryKind k;
      bool ok;
    } rows[] = {{BinaryKind::Add, i || f}, {BinaryKind::Sub, i || f}, {BinaryKind::Mul, i || f},
                {BinaryKind::Div, i || f}, {BinaryKind::Rem, i || f}, {BinaryKind::Pow, i || f},
                {BinaryKind::Max, i || f}, {BinaryKind::Min, i || f}, {BinaryKind::And, b || i},
                {BinaryKind::Or, b || i},  {BinaryKind::Xor, b || i}, {BinaryKind::Shl, u},
                {BinaryKind::Shr, u}};
    for (const auto& row : rows) {
      auto r = run_infer(Op::Binary, {kind(row.k)}, {t(dt, {2}), t(dt, {2})});
      EXPECT_EQ(r.types.has_value(), row.ok) << dtype_name(dt) << " kind " << enum_name(row.k);
      if (!row.ok) {
        EXPECT_EQ(r.label(), "binary.C4");
      }
    }
  }
}

// ---- compare ---------------------------------------------------------------------------------

TEST(InferCompare, ResultIsBool) {
  auto r = run_infer(Op::Compare, {kind(CompareKind::Lt)},
                     {t(DType::F16, {2, Dim::symbolic()}), t(DType::F16, {2, 4})});
  ASSERT_TRUE(r.types.has_value());
  EXPECT_EQ((*r.types)[0], t(DType::Bool, {2, 4}));
}
TEST(InferCompare, C1RejectsNonTensorOperand) {
  EXPECT_EQ(
      run_infer(Op::Compare, {kind(CompareKind::Eq)}, {Type::unranked_tensor(DType::F32), t(DType::F32, {2})})
          .label(),
      "compare.C1");
}
TEST(InferCompare, C2RejectsMixedDtypes) {
  EXPECT_EQ(run_infer(Op::Compare, {kind(CompareKind::Eq)}, {t(DType::I32, {2}), t(DType::I64, {2})}).label(),
            "compare.C2");
}
TEST(InferCompare, C3RejectsDifferentShapes) {
  EXPECT_EQ(run_infer(Op::Compare, {kind(CompareKind::Eq)}, {t(DType::I32, {2}), t(DType::I32, {3})}).label(),
            "compare.C3");
}
TEST(InferCompare, C4DtypeTable) {
  for (DType dt : all_dtypes()) {
    const bool ordered = is_int(dt) || is_float(dt);
    for (int k = 0; k < enum_size("CompareKind"); ++k) {
      const bool ok = k == code_of(CompareKind::Eq) || k == code_of(CompareKind::Ne) || ordered;
      auto r = run_infer(Op::Compare, {kind(k)}, {t(dt, {2}), t(dt, {2})});
      EXPECT_EQ(r.types.has_value(), ok) << dtype_name(dt) << " kind " << k;
      if (!ok) {
        EXPECT_EQ(r.label(), "compare.C4");
      }
    }
  }
}

// ---- select ----------------------------------------------------------------------------------

TEST(InferSelect, ResultTakesBranchDtype) {
  auto r =
      run_infer(Op::Select, {},
                {t(DType::Bool, {Dim::symbolic(), 2}), t(DType::String, {3, 2}), t(DType::String, {3, 2})});
  ASSERT_TRUE(r.types.has_value()) << r.types.status().to_string();
  EXPECT_EQ((*r.types)[0], t(DType::String, {3, 2}));
}
TEST(InferSelect, C1RejectsNonTensorOperand) {
  EXPECT_EQ(
      run_infer(Op::Select, {}, {t(DType::Bool, {2}), Type::sequence(t(DType::F32, {2})), t(DType::F32, {2})})
          .label(),
      "select.C1");
}
TEST(InferSelect, C2RejectsNonBoolPred) {
  EXPECT_EQ(run_infer(Op::Select, {}, {t(DType::U8, {2}), t(DType::F32, {2}), t(DType::F32, {2})}).label(),
            "select.C2");
}
TEST(InferSelect, C3RejectsMixedBranchDtypes) {
  EXPECT_EQ(run_infer(Op::Select, {}, {t(DType::Bool, {2}), t(DType::F32, {2}), t(DType::F16, {2})}).label(),
            "select.C3");
}
TEST(InferSelect, C4RejectsDifferentShapes) {
  EXPECT_EQ(run_infer(Op::Select, {}, {t(DType::Bool, {}), t(DType::F32, {2}), t(DType::F32, {2})}).label(),
            "select.C4");
  EXPECT_EQ(run_infer(Op::Select, {}, {t(DType::Bool, {2}), t(DType::F32, {2}), t(DType::F32, {3})}).label(),
            "select.C4");
}

// ---- cast ------------------------------------------------------------------------------------

std::vector<Attr> cast_attrs(DType to, bool saturate = true, RoundMode round = RoundMode::NearestEven) {
  return {Attr{"to", to}, Attr{"saturate", saturate}, Attr{"round", EnumValue{round}}};
}

TEST(InferCast, EveryDtypePairIsAllowed) {
  for (DType from : all_dtypes())
    for (DType to : all_dtypes()) {
      auto r = run_infer(Op::Cast, cast_attrs(to), {t(from, {2, Dim::symbolic("B")})});
      ASSERT_TRUE(r.types.has_value()) << dtype_name(from) << "->" << dtype_name(to);
      EXPECT_EQ((*r.types)[0], t(to, {2, Dim::symbolic("B")}));
    }
}
TEST(InferCast, C1RejectsNonTensorOperand) {
  EXPECT_EQ(run_infer(Op::Cast, cast_attrs(DType::F32), {Type::sequence(t(DType::F32, {2}))}).label(),
            "cast.C1");
}
TEST(InferCast, C2DirectedRoundingOnlyForE8M0) {
  EXPECT_EQ(run_infer(Op::Cast, cast_attrs(DType::F16, true, RoundMode::Up), {t(DType::F32, {2})}).label(),
            "cast.C2");
  EXPECT_EQ(run_infer(Op::Cast, cast_attrs(DType::I32, true, RoundMode::Down), {t(DType::F32, {2})}).label(),
            "cast.C2");
  EXPECT_TRUE(run_infer(Op::Cast, cast_attrs(DType::F8E8M0, true, RoundMode::Up), {t(DType::F32, {2})})
                  .types.has_value());
  EXPECT_TRUE(run_infer(Op::Cast, cast_attrs(DType::F8E8M0, false, RoundMode::Down), {t(DType::F32, {2})})
                  .types.has_value());
}

// ---- bitcast ---------------------------------------------------------------------------------

TEST(InferBitcast, SameWidthPairs) {
  auto r = run_infer(Op::Bitcast, {Attr{"to", DType::I32}}, {t(DType::F32, {2, 3})});
  ASSERT_TRUE(r.types.has_value());
  EXPECT_EQ((*r.types)[0], t(DType::I32, {2, 3}));
  for (DType from : all_dtypes())
    for (DType to : all_dtypes()) {
      if (is_string(from) || is_string(to)) continue;
      const bool ok = dtype_bits(from) == dtype_bits(to);
      auto rr = run_infer(Op::Bitcast, {Attr{"to", to}}, {t(from, {})});
      EXPECT_EQ(rr.types.has_value(), ok) << dtype_name(from) << "->" << dtype_name(to);
      if (!ok) {
        EXPECT_EQ(rr.label(), "bitcast.C3");
      }
    }
  EXPECT_TRUE(run_infer(Op::Bitcast, {Attr{"to", DType::U8}}, {t(DType::Bool, {1})}).types.has_value());
  EXPECT_TRUE(run_infer(Op::Bitcast, {Attr{"to", DType::I4}}, {t(DType::F4E2M1, {1})}).types.has_value());
}
TEST(InferBitcast, C1RejectsNonTensorOperand) {
  EXPECT_EQ(run_infer(Op::Bitcast, {Attr{"to", DType::I32}}, {Type::optional(t(DType::F32, {}))}).label(),
            "bitcast.C1");
}
TEST(InferBitcast, C2RejectsStrings) {
  EXPECT_EQ(run_infer(Op::Bitcast, {Attr{"to", DType::String}}, {t(DType::String, {1})}).label(),
            "bitcast.C2");
  EXPECT_EQ(run_infer(Op::Bitcast, {Attr{"to", DType::U8}}, {t(DType::String, {1})}).label(), "bitcast.C2");
}
TEST(InferBitcast, C3RejectsWidthMismatch) {
  EXPECT_EQ(run_infer(Op::Bitcast, {Attr{"to", DType::I64}}, {t(DType::F32, {2})}).label(), "bitcast.C3");
  EXPECT_EQ(run_infer(Op::Bitcast, {Attr{"to", DType::I8}}, {t(DType::I4, {2})}).label(), "bitcast.C3");
}

}  // namespace
}  // namespace plumb::ir
