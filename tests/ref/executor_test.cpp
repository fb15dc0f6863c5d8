// The executor through rt::Session on graphs built with ir::Builder: chains of kernels, if and
// while (with a carried value whose shape changes), input validation, precise vs native mode,
// re-planning, error places.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/builder.h"
#include "runtime/cpu/ref/float_formats.h"
#include "runtime/session.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

using BinaryKind = ir::BinaryKind;
using ir::Builder;
using CompareKind = ir::CompareKind;
using ir::Dim;
using ir::DType;
using ir::Type;
using UnaryKind = ir::UnaryKind;

std::unique_ptr<Session> open(ir::Graph g, SessionOptions o = {}) {
  auto s = Session::create(std::move(g), std::move(o));
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  return s.has_value() ? std::move(*s) : nullptr;
}

TEST(Executor, ElementwiseChain) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {2, 2}), "x");
  auto y = b.input(Type::tensor(DType::F32, {2, 2}), "y");
  auto s = b.binary(BinaryKind::Add, x, y);  // x + y
  auto m = b.binary(BinaryKind::Mul, s, x);  // (x + y) * x
  auto n = b.unary(UnaryKind::Neg, m);       // -(x + y) * x
  auto a = b.unary(UnaryKind::Abs, n);
  b.output(n, "n");
  b.output(a, "a");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto sess = open(std::move(g));
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({2, 2}, {1, -2, 3, 0.5f})).is_ok());
  ASSERT_TRUE(sess->set_input(1, make_tensor<float>({2, 2}, {1, 1, -5, 1.5f})).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  // (1+1)*1=2, (-2+1)*-2=2, (3-5)*3=-6, (0.5+1.5)*0.5=1
  EXPECT_EQ(values<float>(sess->output(0).tensor()), (std::vector<float>{-2, -2, 6, -1}));
  EXPECT_EQ(values<float>(sess->output(1).tensor()), (std::vector<float>{2, 2, 6, 1}));
  // outputs() copies stay valid after another run
  auto kept = sess->outputs();
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({2, 2}, {0, 0, 0, 0})).is_ok());
  ASSERT_TRUE(sess->run().is_ok());
  EXPECT_EQ(values<float>(kept[1].tensor()), (std::vector<float>{2, 2, 6, 1}));
  EXPECT_EQ(values<float>(sess->output(1).tensor()), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(sess->plans_made(), 1);
}

TEST(Executor, OutputThatIsAnInputOrConstant) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::I64, {3}), "x");
  auto c = b.const_ints(DType::I64, {2}, {7, -8});
  b.output(x, "x_again");
  b.output(c, "c");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto sess = open(std::move(g));
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input(0, make_tensor<int64_t>({3}, {1, 2, 3})).is_ok());
  ASSERT_TRUE(sess->run().is_ok());
  EXPECT_EQ(values<int64_t>(sess->output(0).tensor()), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(values<int64_t>(sess->output(1).tensor()), (std::vector<int64_t>{7, -8}));
}

// if: then yields x + x, else yields -x; the branch also reads an outer value (x).
ir::Graph if_graph() {
  ir::Graph g;
  Builder b(g);
  auto p = b.input(Type::tensor(DType::Bool, {}), "p");
  auto x = b.input(Type::tensor(DType::F32, {3}), "x");
  auto t = b.unary(UnaryKind::Abs, x);  // an arena value read inside both branches
  b.begin_region({});
  auto then_v = b.binary(BinaryKind::Add, t, t);
  auto then_r = b.end_region({then_v});
  b.begin_region({});
  auto else_r = b.end_region({t});  // yields the outer arena value itself
  auto r = b.if_(p, std::move(then_r), std::move(else_r));
  auto after = b.unary(UnaryKind::Neg, x);  // may reuse t's arena slot
  b.output(r.empty() ? ir::kNoValue : r[0], "r");
  b.output(after, "after");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

TEST(Executor, IfRunsTheChosenBranch) {
  auto sess = open(if_graph());
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({3}, {1, -2, 3})).is_ok());
  ASSERT_TRUE(sess->set_input("p", make_tensor<bool>({}, {true})).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<float>(sess->output(0).tensor()), (std::vector<float>{2, 4, 6}));
  ASSERT_TRUE(sess->set_input("p", make_tensor<bool>({}, {false})).is_ok());
  st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  // else yields the outer value: it must survive the later node reusing the arena
  EXPECT_EQ(values<float>(sess->output(0).tensor()), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(values<float>(sess->output(1).tensor()), (std::vector<float>{-1, 2, -3}));
}

// while i < n: x = concat(x, x); i = i + 1. x's shape doubles every iteration.
ir::Graph doubling_while() {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {Dim::symbolic("L")}), "x");
  auto n = b.input(Type::tensor(DType::I64, {}), "n");
  auto i0 = b.scalar_int(DType::I64, 0);
  const Type xt = Type::tensor(DType::F32, {Dim::symbolic()});
  const Type it = Type::tensor(DType::I64, {});
  auto cp = b.begin_region({xt, it});
  auto lt = b.compare(CompareKind::Lt, cp.at(1), n);  // reads the outer n
  auto cond = b.end_region({lt});
  auto bp = b.begin_region({xt, it});
  auto x2 = b.concat({bp.at(0), bp.at(0)}, 0);
  auto i2 = b.binary(BinaryKind::Add, bp.at(1), b.scalar_int(DType::I64, 1));
  auto body = b.end_region({x2, i2});
  auto out = b.while_({x, i0}, std::move(cond), std::move(body));
  if (out.size() == 2) {
    b.output(out[0], "x_out");
    b.output(out[1], "i_out");
  }
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

TEST(Executor, WhileCarriedShapeChanges) {
  auto sess = open(doubling_while());
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({2}, {1, 2})).is_ok());
  ASSERT_TRUE(sess->set_input("n", make_tensor<int64_t>({}, {3})).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(sess->output(0).tensor().shape, (std::vector<int64_t>{16}));
  EXPECT_EQ(values<float>(sess->output(0).tensor()),
            (std::vector<float>{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(values<int64_t>(sess->output(1).tensor()), (std::vector<int64_t>{3}));
  // zero iterations: the results are the initial values
  ASSERT_TRUE(sess->set_input("n", make_tensor<int64_t>({}, {0})).is_ok());
  ASSERT_TRUE(sess->run().is_ok());
  EXPECT_EQ(values<float>(sess->output(0).tensor()), (std::vector<float>{1, 2}));
  EXPECT_EQ(values<int64_t>(sess->output(1).tensor()), (std::vector<int64_t>{0}));
}

// while.md: the body's yields are all read before any parameter is rebound, so yielding the
// parameters swapped swaps them each iteration.
TEST(Executor, WhileBodyYieldsAreReadBeforeRebinding) {
  ir::Graph g;
  Builder b(g);
  auto a = b.input(Type::tensor(DType::I64, {}), "a");
  auto c = b.input(Type::tensor(DType::I64, {}), "c");
  auto n = b.input(Type::tensor(DType::I64, {}), "n");
  const Type it = Type::tensor(DType::I64, {});
  auto cp = b.begin_region({it, it, it});
  auto cond = b.end_region({b.compare(CompareKind::Lt, cp.at(2), n)});
  auto bp = b.begin_region({it, it, it});
  auto next = b.binary(BinaryKind::Add, bp.at(2), b.scalar_int(DType::I64, 1));
  auto body = b.end_region({bp.at(1), bp.at(0), next});
  auto out = b.while_({a, c, b.scalar_int(DType::I64, 0)}, std::move(cond), std::move(body));
  ASSERT_EQ(out.size(), 3u) << b.status().to_string();
  b.output(out[0], "a_out");
  b.output(out[1], "c_out");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto sess = open(std::move(g));
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("a", make_tensor<int64_t>({}, {10})).is_ok());
  ASSERT_TRUE(sess->set_input("c", make_tensor<int64_t>({}, {20})).is_ok());
  ASSERT_TRUE(sess->set_input("n", make_tensor<int64_t>({}, {3})).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<int64_t>(sess->output(0).tensor()), (std::vector<int64_t>{20}));  // 3 swaps
  EXPECT_EQ(values<int64_t>(sess->output(1).tensor()), (std::vector<int64_t>{10}));
  ASSERT_TRUE(sess->set_input("n", make_tensor<int64_t>({}, {4})).is_ok());
  ASSERT_TRUE(sess->run().is_ok());
  EXPECT_EQ(values<int64_t>(sess->output(0).tensor()), (std::vector<int64_t>{10}));
}

// An error inside a branch names the inner node by its pre-order index; the branch not taken
// never runs, so its error is never raised (if.md).
TEST(Executor, ErrorInsideARegionNamesTheInnerNode) {
  ir::Graph g;
  Builder b(g);
  auto p = b.input(Type::tensor(DType::Bool, {}), "p");
  auto x = b.input(Type::tensor(DType::F32, {6}), "x");
  auto s = b.input(Type::tensor(DType::I64, {2}), "s");
  b.begin_region({});
  b.set_provenance(ir::Provenance{"Inner", "Reshape", 14, ""});
  auto r = b.reshape(x, s);  // node #1 in pre-order (the if is #0)
  auto then_r = b.end_region({b.unary(UnaryKind::Neg, r)});
  b.set_provenance(ir::Provenance{});
  b.begin_region({});
  auto else_r = b.end_region({b.reshape(x, b.shape_const({2, 3}))});
  auto out = b.if_(p, std::move(then_r), std::move(else_r));
  ASSERT_EQ(out.size(), 1u) << b.status().to_string();
  b.output(out[0], "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto sess = open(std::move(g));
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({6}, {1, 2, 3, 4, 5, 6})).is_ok());
  ASSERT_TRUE(sess->set_input("s", make_tensor<int64_t>({2}, {5, 5})).is_ok());
  ASSERT_TRUE(sess->set_input("p", make_tensor<bool>({}, {false})).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(sess->output(0).tensor().shape, (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(sess->set_input("p", make_tensor<bool>({}, {true})).is_ok());
  st = sess->run();
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.place().find("node #1 reshape [from 'Inner' (Reshape-14)]"), std::string::npos)
      << st.to_string();
}

// bitcast keeps its native bits in precise mode: f16 -> i16 gives the same integers.
TEST(Executor, PreciseModeBitcastSeesNativeBits) {
  auto build = [] {
    ir::Graph g;
    Builder b(g);
    auto x = b.input(Type::tensor(DType::F16, {2}), "x");
    b.output(b.bitcast(x, DType::I16), "bits");
    b.output(b.bitcast(b.bitcast(x, DType::I16), DType::F16), "back");
    EXPECT_TRUE(b.ok()) << b.status().to_string();
    return g;
  };
  Tensor x = Tensor::allocate(DType::F16, {2});
  x.as<f16>()[0] = to_f16(1.0);   // 0x3C00
  x.as<f16>()[1] = to_f16(-2.0);  // 0xC000
  SessionOptions o;
  o.mode = NumericMode::kPrecise;
  auto sess = open(build(), o);
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input(0, x).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<int16_t>(sess->output(0).tensor()),
            (std::vector<int16_t>{0x3C00, static_cast<int16_t>(0xC000)}));
  EXPECT_EQ(sess->output(1).tensor().dtype, DType::F64);
  EXPECT_EQ(values<double>(sess->output(1).tensor()), (std::vector<double>{1.0, -2.0}));
}

TEST(Executor, WhileIterationGuard) {
  SessionOptions o;
  o.max_while_iterations = 2;
  auto sess = open(doubling_while(), o);
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({1}, {1})).is_ok());
  ASSERT_TRUE(sess->set_input("n", make_tensor<int64_t>({}, {2})).is_ok());
  ASSERT_TRUE(sess->run().is_ok());  // exactly 2 iterations are allowed
  ASSERT_TRUE(sess->set_input("n", make_tensor<int64_t>({}, {5})).is_ok());
  Status st = sess->run();
  EXPECT_EQ(st.code(), ErrorCode::kRuntimeError) << st.to_string();
  EXPECT_NE(st.to_string().find("while"), std::string::npos) << st.to_string();
  EXPECT_NE(st.to_string().find("limit of 2"), std::string::npos) << st.to_string();
}

ir::Graph two_inputs_sym() {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {Dim::symbolic("N"), 2}), "x");
  auto y = b.input(Type::tensor(DType::F32, {Dim::symbolic("N"), 2}), "y");
  b.output(b.binary(BinaryKind::Sub, x, y), "d");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

Status run_with(Session& s, Tensor x, Tensor y) {
  PLUMB_RETURN_IF_ERROR(s.set_input(0, std::move(x)));
  PLUMB_RETURN_IF_ERROR(s.set_input(1, std::move(y)));
  return s.run();
}

TEST(Executor, InputDtypeMismatchIsInvalidInput) {
  auto s = open(two_inputs_sym());
  ASSERT_TRUE(s);
  Status st = run_with(*s, make_tensor<double>({1, 2}, {1, 2}), make_tensor<float>({1, 2}, {1, 2}));
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(st.message().find("input 'x'"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("expected f32[N,2]"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("got f64[1,2]"), std::string::npos) << st.to_string();
}

TEST(Executor, InputRankAndStaticDimMismatch) {
  auto s = open(two_inputs_sym());
  ASSERT_TRUE(s);
  Status st = run_with(*s, make_tensor<float>({2}, {1, 2}), make_tensor<float>({1, 2}, {1, 2}));
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(st.message().find("rank"), std::string::npos) << st.to_string();
  st = run_with(*s, make_tensor<float>({1, 2}, {1, 2}), make_tensor<float>({1, 3}, {1, 2, 3}));
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(st.message().find("input 'y'"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("got f32[1,3]"), std::string::npos) << st.to_string();
}

TEST(Executor, SameNamedSymbolicDimsMustAgree) {
  auto s = open(two_inputs_sym());
  ASSERT_TRUE(s);
  Status st = run_with(*s, make_tensor<float>({1, 2}, {1, 2}), make_tensor<float>({2, 2}, {1, 2, 3, 4}));
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(st.message().find("N = 2"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("input 'x' has N = 1"), std::string::npos) << st.to_string();
  st = run_with(*s, make_tensor<float>({2, 2}, {5, 6, 7, 8}), make_tensor<float>({2, 2}, {1, 2, 3, 4}));
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<float>(s->output(0).tensor()), (std::vector<float>{4, 4, 4, 4}));
}

TEST(Executor, MissingAndUnknownInputs) {
  auto s = open(two_inputs_sym());
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->set_input(0, make_tensor<float>({1, 2}, {1, 2})).is_ok());
  Status st = s->run();
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(st.message().find("'y' is not set"), std::string::npos) << st.to_string();
  st = s->set_input("z", make_tensor<float>({1, 2}, {1, 2}));
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(s->set_input(5, make_tensor<float>({1, 2}, {1, 2})).code(), ErrorCode::kInvalidInput);
}

TEST(Executor, ReplansWhenInputShapesChange) {
  auto s = open(two_inputs_sym());
  ASSERT_TRUE(s);
  ASSERT_TRUE(run_with(*s, make_tensor<float>({1, 2}, {3, 4}), make_tensor<float>({1, 2}, {1, 1})).is_ok());
  EXPECT_EQ(values<float>(s->output(0).tensor()), (std::vector<float>{2, 3}));
  EXPECT_EQ(s->plan()->arena_bytes, 64);  // one f32[1,2] rounded up to the 64-byte alignment
  ASSERT_TRUE(run_with(*s, make_tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                       make_tensor<float>({3, 2}, {1, 1, 1, 1, 1, 1}))
                  .is_ok());
  EXPECT_EQ(values<float>(s->output(0).tensor()), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(s->plans_made(), 2);
  ASSERT_TRUE(run_with(*s, make_tensor<float>({3, 2}, {1, 1, 1, 1, 1, 1}),
                       make_tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}))
                  .is_ok());
  EXPECT_EQ(values<float>(s->output(0).tensor()), (std::vector<float>{0, -1, -2, -3, -4, -5}));
  EXPECT_EQ(s->plans_made(), 2);  // same shapes: the plan is reused
}

// One plan per distinct input shape (issue 13): going back to an earlier shape reuses its plan;
// beyond max_plans the least recently used one is dropped (and made again when needed).
TEST(Executor, CachesOnePlanPerInputShape) {
  SessionOptions o;
  o.max_plans = 2;
  auto made = Session::create(two_inputs_sym(), o);
  ASSERT_TRUE(made.has_value()) << made.status().to_string();
  Session& s = **made;
  auto run_rows = [&](int64_t rows) {
    std::vector<float> a(static_cast<size_t>(2 * rows), 5), b(static_cast<size_t>(2 * rows), 2);
    Status st = run_with(s, make_tensor<float>({rows, 2}, a), make_tensor<float>({rows, 2}, b));
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    EXPECT_EQ(values<float>(s.output(0).tensor()), std::vector<float>(static_cast<size_t>(2 * rows), 3));
  };
  run_rows(1);
  run_rows(3);
  run_rows(1);
  run_rows(3);
  EXPECT_EQ(s.plans_made(), 2);
  EXPECT_EQ(s.plans_cached(), 2u);
  run_rows(4);  // drops the plan for 1 row (least recently used), keeps the one for 3
  run_rows(3);
  EXPECT_EQ(s.plans_made(), 3);
  run_rows(1);
  EXPECT_EQ(s.plans_made(), 4);
  EXPECT_EQ(s.plans_cached(), 2u);
}

// f16: 300 * 300 = 90000 overflows f16 (max 65504) to inf in native mode; precise mode computes
// in f64 and returns 90000 as f64. The input is given as f16 in both modes.
TEST(Executor, PreciseModeDiffersFromNativeOnF16) {
  auto build = [] {
    ir::Graph g;
    Builder b(g);
    auto x = b.input(Type::tensor(DType::F16, {2}), "x");
    auto sq = b.binary(BinaryKind::Mul, x, x);
    b.output(b.binary(BinaryKind::Div, sq, x), "y");  // (x * x) / x
    EXPECT_TRUE(b.ok()) << b.status().to_string();
    return g;
  };
  Tensor x = Tensor::allocate(DType::F16, {2});
  x.as<f16>()[0] = to_f16(300.0);
  x.as<f16>()[1] = to_f16(0.5);

  auto native = open(build());
  ASSERT_TRUE(native);
  ASSERT_TRUE(native->set_input(0, x).is_ok());
  Status st = native->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  const Tensor& yn = native->output(0).tensor();
  ASSERT_EQ(yn.dtype, DType::F16);
  EXPECT_TRUE(std::isinf(to_f64(yn.as<f16>()[0])));
  EXPECT_EQ(to_f64(yn.as<f16>()[1]), 0.5);

  SessionOptions o;
  o.mode = NumericMode::kPrecise;
  auto precise = open(build(), o);
  ASSERT_TRUE(precise);
  EXPECT_EQ(precise->output_type(0).dtype, DType::F64);
  ASSERT_TRUE(precise->set_input(0, x).is_ok());
  st = precise->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<double>(precise->output(0).tensor()), (std::vector<double>{300.0, 0.5}));
  // precise mode still checks the declared dtype: an f32 input is refused
  ASSERT_TRUE(precise->set_input(0, make_tensor<float>({2}, {1, 2})).is_ok());
  EXPECT_EQ(precise->run().code(), ErrorCode::kInvalidInput);
}

// A cast f32 -> f16 -> f32 rounds in native mode and is exact in precise mode.
TEST(Executor, PreciseModeCastsBetweenFloatsAreExact) {
  auto build = [] {
    ir::Graph g;
    Builder b(g);
    auto x = b.input(Type::tensor(DType::F32, {1}), "x");
    auto h = b.cast(x, DType::F16);
    b.output(b.cast(h, DType::F32), "y");
    EXPECT_TRUE(b.ok()) << b.status().to_string();
    return g;
  };
  const float v = 1.0f + 1.0f / 4096;  // not representable in f16 (11-bit significand)
  auto native = open(build());
  ASSERT_TRUE(native);
  ASSERT_TRUE(native->set_input(0, make_tensor<float>({1}, {v})).is_ok());
  ASSERT_TRUE(native->run().is_ok());
  EXPECT_EQ(values<float>(native->output(0).tensor()), (std::vector<float>{1.0f}));
  SessionOptions o;
  o.mode = NumericMode::kPrecise;
  auto precise = open(build(), o);
  ASSERT_TRUE(precise);
  ASSERT_TRUE(precise->set_input(0, make_tensor<float>({1}, {v})).is_ok());
  Status st = precise->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<double>(precise->output(0).tensor()), (std::vector<double>{static_cast<double>(v)}));
}

// reshape with a shape read from input data: the result is only known while running.
ir::Graph data_shape_reshape() {
  ir::Graph g;
  Builder b(g);
  b.set_provenance(ir::Provenance{"R", "Reshape", 14, ""});
  auto x = b.input(Type::tensor(DType::F32, {6}), "x");
  auto s = b.input(Type::tensor(DType::I64, {2}), "s");
  auto r = b.reshape(x, s);
  b.output(b.unary(UnaryKind::Neg, r), "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

TEST(Executor, ShapeFromInputDataIsDynamic) {
  auto sess = open(data_shape_reshape());
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({6}, {1, 2, 3, 4, 5, 6})).is_ok());
  ASSERT_TRUE(sess->set_input("s", make_tensor<int64_t>({2}, {3, 2})).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(sess->output(0).tensor().shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values<float>(sess->output(0).tensor()), (std::vector<float>{-1, -2, -3, -4, -5, -6}));
  // new shape data, same input types: the plan is reused, the shape follows the data
  ASSERT_TRUE(sess->set_input("s", make_tensor<int64_t>({2}, {2, 3})).is_ok());
  ASSERT_TRUE(sess->run().is_ok());
  EXPECT_EQ(sess->output(0).tensor().shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(sess->plans_made(), 1);
}

// nonzero's result shape depends on the data: the kernel allocates it, and the node after it is
// planned as dynamic too (its operand's shape is unknown until the run).
TEST(Executor, DataDependentShapeFromKernel) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {5}), "x");
  auto nz = b.emit1(ir::Op::NonZero, {x});
  auto neg = b.unary(UnaryKind::Neg, nz);
  b.output(neg, "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto sess = open(std::move(g));
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input(0, make_tensor<float>({5}, {0, 2, -0.0f, 7, 0})).is_ok());
  Status st = sess->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(sess->plan()->values[nz].storage, Storage::kDynamic);
  EXPECT_EQ(sess->plan()->values[neg].storage, Storage::kDynamic);
  EXPECT_EQ(sess->output(0).tensor().shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(values<int64_t>(sess->output(0).tensor()), (std::vector<int64_t>{-1, -3}));
  ASSERT_TRUE(sess->set_input(0, make_tensor<float>({5}, {1, 1, 1, 0, 1})).is_ok());
  ASSERT_TRUE(sess->run().is_ok());
  EXPECT_EQ(values<int64_t>(sess->output(0).tensor()), (std::vector<int64_t>{0, -1, -2, -4}));
  EXPECT_EQ(sess->plans_made(), 1);
}

TEST(Executor, ErrorsNameTheNodeAndItsOrigin) {
  auto sess = open(data_shape_reshape());
  ASSERT_TRUE(sess);
  ASSERT_TRUE(sess->set_input("x", make_tensor<float>({6}, {1, 2, 3, 4, 5, 6})).is_ok());
  ASSERT_TRUE(sess->set_input("s", make_tensor<int64_t>({2}, {4, 2})).is_ok());  // 8 != 6 elements
  Status st = sess->run();
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.place().find("node #0 reshape"), std::string::npos) << st.to_string();
  EXPECT_NE(st.place().find("'R' (Reshape-14)"), std::string::npos) << st.to_string();
}

TEST(Executor, UnknownBackendIsRefused) {
  SessionOptions o;
  o.backend = "tpu";
  auto s = Session::create(two_inputs_sym(), o);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.status().code(), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace plumb::rt
