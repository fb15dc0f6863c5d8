// ir/attrs.h: the typed attribute structs generated from spec/ops.def, their generic list form,
// and the checked decoding the verifier runs.
#include "ir/attrs.h"

#include <gtest/gtest.h>

#include <type_traits>

#include "ir/builder.h"
#include "ir/infer.h"

namespace plumb::ir {
namespace {

// Field types follow the PLUMB_ATTR kinds; a kind is its own enum class.
static_assert(std::is_same_v<decltype(ConvAttrs::strides), std::vector<int64_t>>);
static_assert(std::is_same_v<decltype(ConvAttrs::to), DType>);
static_assert(std::is_same_v<decltype(UnaryAttrs::kind), UnaryKind>);
static_assert(std::is_same_v<decltype(ScatterAttrs::reduction), ScatterReduction>);
static_assert(std::is_same_v<decltype(SequenceAttrs::elem), Type>);
static_assert(std::is_same_v<decltype(ConstantAttrs::value), ConstRef>);
static_assert(!std::is_convertible_v<UnaryKind, BinaryKind> && !std::is_convertible_v<int, UnaryKind>);
static_assert(std::tuple_size_v<decltype(attr_fields<Op::Slice>())> == 1);  // the chain start only

TEST(Attrs, ListIsInOpsDefOrderWithTheSpecNames) {
  const std::vector<Attr> list = attr_list(ConvAttrs{DType::F32, {1, 2}, {1, 1}, {1, 1}, {0, 1}, {1, 0}, 3});
  const OpInfo& info = op_info(Op::Conv);
  ASSERT_EQ(list.size(), static_cast<size_t>(info.num_attrs));
  for (int i = 0; i < info.num_attrs; ++i) {
    EXPECT_EQ(list[i].name, info.attrs[i].name);
    EXPECT_EQ(attr_value_kind(list[i].value), info.attrs[i].kind) << list[i].name;
  }
  EXPECT_EQ(std::get<std::vector<int64_t>>(list[1].value), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(std::get<int64_t>(list[6].value), 3);
}

TEST(Attrs, RoundTripThroughANode) {
  Node n;
  n.op = Op::Scan;
  n.attrs = attr_list(ScanAttrs{ReduceKind::Max, 2, true, false});
  const ScanAttrs a = attrs<Op::Scan>(n);
  EXPECT_EQ(a.kind, ReduceKind::Max);
  EXPECT_EQ(a.axis, 2);
  EXPECT_TRUE(a.exclusive);
  EXPECT_FALSE(a.reverse);
  EXPECT_EQ(std::get<EnumValue>(n.attrs[0].value).code, code_of(ReduceKind::Max));
  EXPECT_TRUE(decode_attrs<Op::Scan>(n).has_value());
  EXPECT_TRUE(check_attrs(n).is_ok());
}

TEST(Attrs, ReadsOutOfOrderListsByName) {
  Node n;
  n.op = Op::Gather;
  n.attrs = {{"batch_dims", int64_t{1}}, {"axis", int64_t{2}}, {"kind", EnumValue(GatherKind::Nd)}};
  const GatherAttrs a = attrs<Op::Gather>(n);
  EXPECT_EQ(a.kind, GatherKind::Nd);
  EXPECT_EQ(a.axis, 2);
  EXPECT_EQ(a.batch_dims, 1);
}

TEST(Attrs, DecodeNamesWhatIsWrong) {
  Node n;
  n.op = Op::Unary;
  n.attrs = {};
  Status s = check_attrs(n);
  EXPECT_EQ(s.label(), "unary.attrs");
  EXPECT_NE(s.message().find("missing attribute 'kind'"), std::string::npos) << s.message();

  n.attrs = {{"kind", int64_t{3}}};
  s = check_attrs(n);
  EXPECT_NE(s.message().find("attribute 'kind' is int, expected enum"), std::string::npos) << s.message();

  n.attrs = {{"kind", EnumValue(1000)}};
  s = check_attrs(n);
  EXPECT_NE(s.message().find("1000 is not a UnaryKind value"), std::string::npos) << s.message();

  n.op = Op::Cast;
  n.attrs = attr_list(CastAttrs{static_cast<DType>(200), false, RoundMode::NearestEven});
  s = check_attrs(n);
  EXPECT_NE(s.message().find("dtype code 200 out of range"), std::string::npos) << s.message();
}

// check_attrs is table-driven (ops.def's AttrSpecs); decode_attrs<O> decodes the typed struct.
// Both must accept and refuse the same nodes with the same words: for every op, each attribute
// missing, of another kind, and (enums, dtypes) out of range.
template <Op O>
Status decoded(const Node& n) {
  return decode_attrs<O>(n).status();
}
Status decode_for(const Node& n) {
  switch (n.op) {
// clang-format off
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  case Op::Enum: return decoded<Op::Enum>(n);
#include "spec/ops.def"
    // clang-format on
  }
  return internal_error("no such op");
}
std::vector<Attr> default_attrs(Op op) {
  switch (op) {
// clang-format off
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  case Op::Enum: return attr_list(Attrs<Op::Enum>{});
#include "spec/ops.def"
    // clang-format on
  }
  return {};
}
TEST(Attrs, CheckAgreesWithTheTypedDecodersOnEveryOp) {
  int compared = 0;
  for (int code = 0; code < kNumOps; ++code) {
    Node n;
    n.op = static_cast<Op>(code);
    const std::vector<Attr> good = default_attrs(n.op);
    n.attrs = good;
    ASSERT_TRUE(check_attrs(n).is_ok()) << op_name(n.op) << ": " << check_attrs(n).to_string();
    ASSERT_TRUE(decode_for(n).is_ok()) << op_name(n.op);
    std::vector<std::vector<Attr>> bad;
    for (size_t i = 0; i < good.size(); ++i) {
      std::vector<Attr> missing = good;
      missing.erase(missing.begin() + static_cast<std::ptrdiff_t>(i));
      bad.push_back(missing);
      std::vector<Attr> other = good;
      other[i].value =
          attr_value_kind(good[i].value) == AttrKind::Str ? AttrValue(int64_t{7}) : AttrValue("x");
      bad.push_back(other);
      if (attr_value_kind(good[i].value) == AttrKind::Enum) {
        other[i].value = EnumValue(-1);
        bad.push_back(other);
        other[i].value = EnumValue(1000);
        bad.push_back(other);
      }
      if (attr_value_kind(good[i].value) == AttrKind::DType) {
        other[i].value = static_cast<DType>(200);
        bad.push_back(other);
      }
    }
    for (const std::vector<Attr>& attrs : bad) {
      n.attrs = attrs;
      const Status table = check_attrs(n), typed = decode_for(n);
      EXPECT_FALSE(table.is_ok()) << op_name(n.op);
      EXPECT_EQ(table.label(), typed.label()) << op_name(n.op);
      EXPECT_EQ(table.message(), typed.message()) << op_name(n.op);
      ++compared;
    }
  }
  EXPECT_GT(compared, 2 * kNumOps);
  Node unknown;
  unknown.op = static_cast<Op>(kNumOps);
  EXPECT_EQ(check_attrs(unknown).message(), "unknown op code " + std::to_string(kNumOps));
}

TEST(Attrs, KindNamesAndTolerances) {
  EXPECT_EQ(enum_name(UnaryKind::Exp), "exp");
  EXPECT_EQ(enum_name(SequenceKind::ConcatAxis), "concat");
  EXPECT_EQ(enum_type_name<PixelFormat>(), "PixelFormat");
  Node n;
  n.op = Op::Unary;
  n.attrs = attr_list(UnaryAttrs{UnaryKind::Exp});
  EXPECT_EQ(tolerance_of(n), ToleranceClass::Ulp4);
  n.attrs = attr_list(UnaryAttrs{UnaryKind::Neg});
  EXPECT_EQ(tolerance_of(n), ToleranceClass::Exact);
  n.op = Op::MatMul;
  n.attrs = attr_list(MatMulAttrs{DType::F32});
  EXPECT_EQ(tolerance_of(n), ToleranceClass::DotProduct);
}

TEST(Attrs, TypedBuilderMethodsEmitTheOpsDefAttributes) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(Type::tensor(DType::F32, {2, 3}), "x");
  ValueId i = b.const_ints(DType::I64, {2, 1}, {1, 0});
  ValueId y = b.gather(GatherKind::Elements, x, i, 1);
  ValueId s = b.slice(x, b.shape_const({0, 1}), b.shape_const({2, 2}), b.shape_const({1, 1}));
  std::vector<ValueId> sorted = b.sort(s, 1, true);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  ASSERT_EQ(sorted.size(), 2u);
  EXPECT_EQ(b.type_of(y).shape, static_shape({2, 1}));
  const Node& gather = g.body.nodes[g.body.nodes.size() - 6];
  ASSERT_EQ(gather.op, Op::Gather);
  const GatherAttrs a = attrs<Op::Gather>(gather);
  EXPECT_EQ(a.kind, GatherKind::Elements);
  EXPECT_EQ(a.axis, 1);
  EXPECT_EQ(a.batch_dims, 0);
  EXPECT_EQ(attrs<Op::Sort>(g.body.nodes.back()).descending, true);
}

}  // namespace
}  // namespace plumb::ir
