#include <gtest/gtest.h>

#include "ir/dtype.h"
#include "ir/op.h"

namespace plumb::ir {
namespace {

TEST(OpTable, MnemonicsRoundTrip) {
  for (int i = 0; i < kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    auto back = op_from_name(op_name(op));
    ASSERT_TRUE(back.has_value()) << op_name(op);
    EXPECT_EQ(*back, op);
  }
}

TEST(OpTable, AttributesOfReduce) {
  const OpInfo& info = op_info(Op::Reduce);
  ASSERT_EQ(info.num_attrs, 2);
  EXPECT_EQ(info.attrs[0].name, "kind");
  EXPECT_EQ(info.attrs[0].kind, AttrKind::Enum);
  EXPECT_EQ(info.attrs[0].enum_type, "ReduceKind");
  EXPECT_EQ(info.attrs[1].name, "axes");
  EXPECT_EQ(info.attrs[1].enum_type, "");
}

TEST(OpTable, EnumCodesFollowOpsDef) {
  EXPECT_EQ(code_of(UnaryKind::Neg), 0);
  EXPECT_EQ(code_of(ReduceKind::Min), 3);
  EXPECT_EQ(enum_value_name("ReduceKind", code_of(ReduceKind::Prod)), "prod");
  EXPECT_EQ(enum_name(ReduceKind::Prod), "prod");
  EXPECT_EQ(enum_value_from_name("BinaryKind", "shr"), code_of(BinaryKind::Shr));
  EXPECT_EQ(tolerance_of(Op::Unary, code_of(UnaryKind::Exp)), ToleranceClass::Ulp4);
  EXPECT_EQ(tolerance_of(Op::MatMul, 0), ToleranceClass::DotProduct);
}

TEST(DTypeTable, OnnxCodesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType dt = static_cast<DType>(i);
    EXPECT_EQ(dtype_from_onnx_code(dtype_onnx_code(dt)), dt) << dtype_name(dt);
    EXPECT_EQ(dtype_from_name(dtype_name(dt)), dt);
  }
  EXPECT_EQ(dtype_storage_bytes(DType::I4, 3), 2u);
  EXPECT_EQ(dtype_storage_bytes(DType::U2, 5), 2u);
  EXPECT_EQ(dtype_storage_bytes(DType::F32, 3), 12u);
}

}  // namespace
}  // namespace plumb::ir
