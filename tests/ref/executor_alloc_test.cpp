// "No heap allocation during run for static-shaped graphs beyond the arena" (runtime/executor.h):
// counts operator new calls during a second run with unchanged input shapes. Replaces the global
// operator new of this test program with a counting one (tests only).
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "ir/builder.h"
#include "runtime/session.h"
#include "tests/ref/kernel_test_util.h"

namespace {
bool g_counting = false;  // test-only instrumentation
long g_allocations = 0;
}  // namespace

// Under AddressSanitizer the allocator belongs to ASan (replacing part of it makes ASan report
// alloc-dealloc mismatches across the whole program), so the count runs in the other builds only.
#if defined(__SANITIZE_ADDRESS__)
#define PLUMB_COUNT_ALLOCATIONS 0
#else
#define PLUMB_COUNT_ALLOCATIONS 1
// These replacements pair malloc with free by design; GCC cannot see that operator new here is
// malloc and warns about every delete (-Wmismatched-new-delete).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif

namespace plumb::rt {
namespace {

using UnaryKind = ir::UnaryKind;
using BinaryKind = ir::BinaryKind;

TEST(ExecutorAlloc, StaticGraphRunAllocatesNothing) {
  if (!PLUMB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  ir::Graph g;
  ir::Builder b(g);
  auto x = b.input(ir::Type::tensor(ir::DType::F32, {ir::Dim::symbolic("N")}), "x");
  auto v = b.unary(UnaryKind::Neg, x);
  v = b.binary(BinaryKind::Mul, v, x);
  v = b.unary(UnaryKind::Abs, v);
  b.output(v, "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto s = Session::create(std::move(g));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, testing::make_tensor<float>({4}, {1, -2, 3, -4})).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());  // plans, allocates the arena
  g_allocations = 0;
  g_counting = true;
  Status st = (*s)->run();
  g_counting = false;
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(g_allocations, 0);
  EXPECT_EQ(testing::values<float>((*s)->output(0).tensor()), (std::vector<float>{1, 4, 9, 16}));
}

}  // namespace
}  // namespace plumb::rt
