// The memory budget (runtime/memory_budget.h, issue 23): its counters, charges that last as long
// as the memory, and the runtime honouring it: the planner's refusal before allocating, values
// allocated while running (a kernel-sized nonzero result, a while region's values), re-planning
// that frees the plans kept for other shapes, and copy_outputs.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "ir/builder.h"
#include "runtime/memory_budget.h"
#include "runtime/session.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

using ir::Dim;
using ir::DType;
using ir::Type;

TEST(MemoryBudget, ReservesUpToItsLimit) {
  MemoryBudget b(100);
  EXPECT_TRUE(b.try_reserve(60));
  EXPECT_FALSE(b.try_reserve(41));  // 60 + 41 > 100: nothing taken
  EXPECT_EQ(b.used(), 60);
  EXPECT_TRUE(b.try_reserve(40));  // exactly the limit fits
  EXPECT_EQ(b.left(), 0);
  EXPECT_TRUE(b.try_reserve(0));
  EXPECT_FALSE(b.try_reserve(1));
  b.release(100);
  EXPECT_EQ(b.used(), 0);
  EXPECT_EQ(b.peak(), 100);
  EXPECT_FALSE(b.try_reserve(-1));
  EXPECT_EQ(b.refusals(), 0);  // try_reserve only answers; refuse() counts
  Status st = b.refuse(7, "its result");
  EXPECT_EQ(b.refusals(), 1);
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(st.message(), "its result needs 7 bytes, 100 of the memory budget of 100 bytes are left");
}

TEST(MemoryBudget, ChargesLastAsLongAsTheirMemory) {
  auto b = std::make_shared<MemoryBudget>(1000);
  {
    auto t = allocate_charged(b, DType::F32, {10, 10}, "x");
    ASSERT_TRUE(t.has_value()) << t.status().to_string();
    EXPECT_EQ(b->used(), 400);
    Tensor shared = *t;  // a second owner of the same storage
    t = Tensor{};
    EXPECT_EQ(b->used(), 400);
    auto refused = allocate_charged(b, DType::F64, {100}, "its result");  // 800 > 600 left
    ASSERT_FALSE(refused.has_value());
    EXPECT_NE(refused.status().message().find("800 bytes, 600 of the memory budget of 1000"),
              std::string::npos)
        << refused.status().to_string();
    EXPECT_EQ(b->used(), 400);
  }
  EXPECT_EQ(b->used(), 0);
  EXPECT_EQ(b->peak(), 400);
  {
    auto c = reserve(b, 300, "x");
    ASSERT_TRUE(c.has_value());
    MemoryCharge moved = std::move(*c);
    EXPECT_EQ(b->used(), 300);
    moved.reset();
    EXPECT_EQ(b->used(), 0);
  }
  // No budget: nothing is charged and nothing refused.
  auto free = allocate_charged(nullptr, DType::F32, {1 << 10}, "x");
  ASSERT_TRUE(free.has_value());
  EXPECT_EQ(free->numel(), 1024);
}

TEST(MemoryBudget, KernelSizedResultsAreChargedOncePerStorage) {
  auto b = std::make_shared<MemoryBudget>(1000);
  RtValue input = make_tensor<float>({4}, {1, 2, 3, 4});  // not charged (the caller's)
  SequenceValue seq;
  seq.elem_type = Type::tensor(DType::F32, {Dim::symbolic()});
  Tensor fresh = Tensor::allocate(DType::F32, {25});
  seq.items = {input.tensor(), fresh, fresh};  // the operand's storage, and one new storage twice
  RtValue v = seq;
  ASSERT_TRUE(charge_new_storage(b, v, {&input}, "its result").is_ok());
  EXPECT_EQ(b->used(), 100);
  fresh = Tensor{};
  EXPECT_EQ(b->used(), 100);  // the sequence still holds it
  v = RtValue{};
  EXPECT_EQ(b->used(), 0);
  RtValue big = Tensor::allocate(DType::F64, {200});
  Status st = charge_new_storage(b, big, {}, "its result");
  EXPECT_EQ(st.code(), ErrorCode::kInvalidInput) << st.to_string();
  EXPECT_EQ(b->used(), 0);
}

TEST(MemoryBudget, ThreadsShareOneBudget) {
  auto b = std::make_shared<MemoryBudget>(4);
  std::vector<std::thread> threads;
  std::atomic<int> taken{0};
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        auto c = reserve(b, 1, "x");
        if (c.has_value()) ++taken;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(b->used(), 0);
  EXPECT_LE(b->peak(), 4);
  EXPECT_GT(taken.load(), 0);
  EXPECT_EQ(taken.load() + b->refusals(), 8 * 20000);
}

// x -> neg -> abs -> neg: f32[N] buffers, two live at once: the arena is 2 * 4N bytes.
ir::Graph chain() {
  ir::Graph g;
  ir::Builder b(g);
  auto v = b.input(Type::tensor(DType::F32, {Dim::symbolic("N")}), "x");
  for (int i = 0; i < 3; ++i) v = b.unary(i % 2 ? ir::UnaryKind::Abs : ir::UnaryKind::Neg, v);
  b.output(v, "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

std::unique_ptr<Session> open(ir::Graph g, std::shared_ptr<MemoryBudget> budget) {
  SessionOptions o;
  o.memory = std::move(budget);
  auto s = Session::create(std::move(g), std::move(o));
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  return s.has_value() ? std::move(*s) : nullptr;
}

TEST(MemoryBudget, PlannerRefusesAnArenaPastTheBudgetBeforeAllocating) {
  for (const int64_t limit : {int64_t{8192}, int64_t{8191}}) {
    auto budget = std::make_shared<MemoryBudget>(limit);
    auto s = open(chain(), budget);
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->set_input(0, Tensor::allocate(DType::F32, {1024})).is_ok());
    Status st = s->run();
    if (limit == 8192) {
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      EXPECT_EQ(budget->peak(), 8192);
      EXPECT_EQ(budget->used(), 8192);  // the kept plan's arena
      continue;
    }
    ASSERT_EQ(st.code(), ErrorCode::kInvalidInput) << st.to_string();
    EXPECT_EQ(st.message(),
              "the plan's arena needs 8192 bytes, 8191 of the memory budget of 8191 bytes are left");
    EXPECT_NE(st.place().find("node #"), std::string::npos) << st.to_string();
    EXPECT_EQ(budget->peak(), 0);  // refused before anything was allocated
  }
}

TEST(MemoryBudget, ReplanningFreesThePlansKeptForOtherShapes) {
  auto budget = std::make_shared<MemoryBudget>(16384);
  auto s = open(chain(), budget);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->set_input(0, Tensor::allocate(DType::F32, {1024})).is_ok());
  ASSERT_TRUE(s->run().is_ok());
  EXPECT_EQ(budget->used(), 8192);
  // 16384 more would pass the budget with the first plan kept: it is freed first
  ASSERT_TRUE(s->set_input(0, Tensor::allocate(DType::F32, {2048})).is_ok());
  Status st = s->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(s->plans_cached(), 1u);
  EXPECT_EQ(budget->used(), 16384);
  EXPECT_EQ(budget->peak(), 16384);
}

// nonzero's result is sized by its kernel (charged when it returns); neg's is allocated before.
ir::Graph nonzero_neg() {
  ir::Graph g;
  ir::Builder b(g);
  b.set_provenance(ir::Provenance{"NZ", "NonZero", 13, ""});
  auto x = b.input(Type::tensor(DType::F32, {5}), "x");
  auto nz = b.emit1(ir::Op::NonZero, {x});
  b.set_provenance(ir::Provenance{"N", "Neg", 13, ""});
  b.output(b.unary(ir::UnaryKind::Neg, nz), "y");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

TEST(MemoryBudget, ValuesAllocatedWhileRunningAreCharged) {
  // two of five nonzero: i64[1, 2] = 16 bytes each for nonzero and neg, both live at once
  const int64_t peak = 32;
  for (const int64_t limit : {peak, peak - 1, int64_t{15}}) {
    auto budget = std::make_shared<MemoryBudget>(limit);
    {
      auto s = open(nonzero_neg(), budget);
      ASSERT_TRUE(s);
      ASSERT_TRUE(s->set_input(0, make_tensor<float>({5}, {0, 2, 0, 7, 0})).is_ok());
      Status st = s->run();
      if (limit == peak) {
        ASSERT_TRUE(st.is_ok()) << st.to_string();
        EXPECT_EQ(budget->peak(), peak);
        EXPECT_EQ(values<int64_t>(s->output(0).tensor()), (std::vector<int64_t>{-1, -3}));
        auto copies = s->copy_outputs();  // not in the arena: shared, not copied
        ASSERT_TRUE(copies.has_value());
        EXPECT_EQ(budget->used(), 16);
        continue;
      }
      ASSERT_EQ(st.code(), ErrorCode::kInvalidInput) << st.to_string();
      EXPECT_NE(st.message().find("its result needs 16 bytes"), std::string::npos) << st.to_string();
      // past the peak by one: neg's result; below one result: nonzero's own
      EXPECT_NE(st.place().find(limit == 15 ? "'NZ'" : "'N'"), std::string::npos) << st.to_string();
    }
    EXPECT_EQ(budget->used(), 0);
  }
}

// while i < n: x = concat(x, x): every value of the body region is allocated while running.
ir::Graph doubling_while() {
  ir::Graph g;
  ir::Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {Dim::symbolic("L")}), "x");
  auto n = b.input(Type::tensor(DType::I64, {}), "n");
  auto i0 = b.scalar_int(DType::I64, 0);
  const Type xt = Type::tensor(DType::F32, {Dim::symbolic()});
  const Type it = Type::tensor(DType::I64, {});
  auto cp = b.begin_region({xt, it});
  auto lt = b.compare(ir::CompareKind::Lt, cp.at(1), n);
  auto cond = b.end_region({lt});
  auto bp = b.begin_region({xt, it});
  b.set_provenance(ir::Provenance{"Cat", "Concat", 13, ""});
  auto x2 = b.concat({bp.at(0), bp.at(0)}, 0);
  auto i2 = b.binary(ir::BinaryKind::Add, bp.at(1), b.scalar_int(DType::I64, 1));
  auto body = b.end_region({x2, i2});
  auto out = b.while_({x, i0}, std::move(cond), std::move(body));
  if (out.size() == 2) b.output(out[0], "x_out");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

TEST(MemoryBudget, RegionValuesAreCharged) {
  int64_t peak = 0;
  for (int pass = 0; pass < 3; ++pass) {
    // pass 0 measures the peak; 1 runs at exactly it; 2 one byte below it
    const int64_t limit = pass == 0 ? int64_t{1} << 30 : pass == 1 ? peak : peak - 1;
    auto budget = std::make_shared<MemoryBudget>(limit);
    {
      auto s = open(doubling_while(), budget);
      ASSERT_TRUE(s);
      ASSERT_TRUE(s->set_input("x", make_tensor<float>({256}, std::vector<float>(256, 1.0f))).is_ok());
      ASSERT_TRUE(s->set_input("n", make_tensor<int64_t>({}, {3})).is_ok());
      Status st = s->run();
      if (pass < 2) {
        ASSERT_TRUE(st.is_ok()) << st.to_string();
        EXPECT_EQ(s->output(0).tensor().shape, (std::vector<int64_t>{2048}));
        if (pass == 0) peak = budget->peak();
        // the last concat's f32[2048] and the one before it are held at once
        EXPECT_GE(budget->peak(), 2048 * 4 + 1024 * 4);
        continue;
      }
      ASSERT_EQ(st.code(), ErrorCode::kInvalidInput) << st.to_string();
      EXPECT_NE(st.place().find("node #"), std::string::npos) << st.to_string();
      EXPECT_NE(st.message().find(strfmt("of the memory budget of %lld bytes", (long long)limit)),
                std::string::npos)
          << st.to_string();
    }
    EXPECT_EQ(budget->used(), 0);
  }
}

}  // namespace
}  // namespace plumb::rt
