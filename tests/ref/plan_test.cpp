// Memory planning: liveness-based arena reuse, symbolic dims resolved from the inputs, shape
// computations folded at plan time, size limits, constants in their run-time format.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/verify.h"
#include "runtime/plan.h"
#include "runtime/session.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

using BinaryKind = ir::BinaryKind;
using ir::Builder;
using ir::Dim;
using ir::DType;
using ir::Type;
using UnaryKind = ir::UnaryKind;

// x -> neg -> abs -> neg -> abs -> neg: five f32[1024] buffers of 4096 bytes; at most two are
// live at once, so the arena holds two.
ir::Graph chain(int len, std::vector<ir::ValueId>* ids = nullptr) {
  ir::Graph g;
  Builder b(g);
  auto v = b.input(Type::tensor(DType::F32, {Dim::symbolic("N")}), "x");
  for (int i = 0; i < len; ++i) {
    v = b.unary(i % 2 ? UnaryKind::Abs : UnaryKind::Neg, v);
    if (ids) ids->push_back(v);
  }
  b.output(v, "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

TEST(Plan, ArenaReusesDeadBuffers) {
  std::vector<ir::ValueId> ids;
  ir::Graph g = chain(5, &ids);
  ASSERT_TRUE(ir::verify(g).is_ok());
  auto p = make_plan(g, {Type::tensor(DType::F32, {1024})});
  ASSERT_TRUE(p.has_value()) << p.status().to_string();
  EXPECT_EQ(p->total_buffer_bytes, 5 * 4096);
  EXPECT_EQ(p->arena_bytes, 2 * 4096);
  for (ir::ValueId v : ids) {
    EXPECT_EQ(p->values[v].storage, Storage::kArena);
    EXPECT_EQ(p->values[v].type, Type::tensor(DType::F32, {1024}));  // N resolved
  }
  // neighbours in the chain are live together: never the same offset
  for (size_t i = 0; i + 1 < ids.size(); ++i)
    EXPECT_NE(p->values[ids[i]].offset, p->values[ids[i + 1]].offset);
}

TEST(Plan, ChainRunsCorrectlyWithReuse) {
  auto s = Session::create(chain(5));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, make_tensor<float>({3}, {1, -2, 0})).is_ok());
  Status st = (*s)->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  // neg(abs(neg(abs(neg x)))) = -|x|
  EXPECT_EQ(values<float>((*s)->output(0).tensor()), (std::vector<float>{-1, -2, -0.0f}));
  EXPECT_EQ((*s)->plan()->total_buffer_bytes, 5 * 12);
  EXPECT_EQ((*s)->plan()->arena_bytes, 2 * 64);  // two live slots, each aligned to 64 bytes
}

TEST(Plan, RefusesMoreThanMaxBytes) {
  ir::Graph g = chain(2);
  PlanOptions o;
  o.max_bytes = 1000;
  auto p = make_plan(g, {Type::tensor(DType::F32, {1024})}, o);
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.status().code(), ErrorCode::kInvalidInput);
  // huge dims: the byte count would overflow int64
  auto q = make_plan(g, {Type::tensor(DType::F32, {int64_t{1} << 62})});
  ASSERT_FALSE(q.has_value());
  EXPECT_EQ(q.status().code(), ErrorCode::kInvalidInput);
}

TEST(Plan, ShapeComputationIsFolded) {
  // y = reshape(neg(x), shape_of(x)): the declared result is f32[?,?]; with x f32[2,3] the plan
  // knows shape_of's value, so reshape's result is static and lives in the arena.
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {Dim::symbolic("A"), Dim::symbolic("B")}), "x");
  auto s = b.shape_of(x);
  auto n = b.unary(UnaryKind::Neg, x);
  auto r = b.reshape(n, s);
  b.output(r, "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  ASSERT_TRUE(ir::verify(g).is_ok());
  auto p = make_plan(g, {Type::tensor(DType::F32, {2, 3})});
  ASSERT_TRUE(p.has_value()) << p.status().to_string();
  EXPECT_EQ(p->values[s].storage, Storage::kFolded);
  EXPECT_EQ(values<int64_t>(p->known[s].tensor()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(p->values[r].storage, Storage::kArena);
  EXPECT_EQ(p->values[r].type, Type::tensor(DType::F32, {2, 3}));
}

TEST(Plan, InputsCheckedAgainstDeclaredTypes) {
  ir::Graph g = chain(1);
  auto p = make_plan(g, {Type::tensor(DType::F32, {2, 2})});
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.status().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(p.status().message().find("input 'x': expected f32[N], got f32[2,2]"), std::string::npos)
      << p.status().to_string();
  EXPECT_EQ(make_plan(g, {}).status().code(), ErrorCode::kInvalidInput);
}

TEST(Plan, PackedConstantIsUnpacked) {
  // i4 [3]: values 1, -2, 7 packed low nibble first: 0xE1, 0x07
  std::vector<uint8_t> bytes = {0xE1, 0x07};
  ir::ConstantData c = ir::ConstantData::owned(Type::tensor(DType::I4, {3}), bytes);
  auto t = constant_tensor(c);
  ASSERT_TRUE(t.has_value()) << t.status().to_string();
  EXPECT_EQ(values<int8_t>(*t), (std::vector<int8_t>{1, -2, 7}));
  ir::ConstantData bad = ir::ConstantData::owned(Type::tensor(DType::I32, {3}), bytes);
  EXPECT_EQ(constant_tensor(bad).status().code(), ErrorCode::kInvalidModel);
}

TEST(Plan, StringConstantIsDecoded) {
  std::vector<uint8_t> bytes = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0};
  ir::ConstantData c = ir::ConstantData::owned(Type::tensor(DType::String, {2}), bytes);
  auto t = constant_tensor(c);
  ASSERT_TRUE(t.has_value()) << t.status().to_string();
  EXPECT_EQ(values<std::string>(*t), (std::vector<std::string>{"hi", ""}));
  bytes.pop_back();
  EXPECT_FALSE(constant_tensor(ir::ConstantData::owned(Type::tensor(DType::String, {2}), bytes)).has_value());
}

}  // namespace
}  // namespace plumb::rt
