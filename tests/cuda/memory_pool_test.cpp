// The cuda backend's caching pool (runtime/cuda/memory_pool.h): its bookkeeping over host
// memory standing in for cudaMalloc, so it is checked without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "runtime/cuda/memory_pool.h"

namespace plumb::rt::cuda {
namespace {

// Host memory with a budget; counts what is live.
class HostMemory final : public RawMemory {
 public:
  explicit HostMemory(int64_t budget) : budget_(budget) {}
  Expected<void*> alloc(int64_t bytes) override {
    if (live_bytes + bytes > budget_) return runtime_error("", "out of test memory");
    live_bytes += bytes;
    void* p = std::malloc(static_cast<size_t>(bytes));
    sizes_[p] = bytes;
    return p;
  }
  void free(void* p) override {
    live_bytes -= sizes_.at(p);
    sizes_.erase(p);
    std::free(p);
  }
  int64_t live_bytes = 0;

 private:
  int64_t budget_;
  std::map<void*, int64_t> sizes_;
};

TEST(CudaMemoryPool, SizeClasses) {
  EXPECT_EQ(CachingPool::size_class(1), 512);
  EXPECT_EQ(CachingPool::size_class(512), 512);
  EXPECT_EQ(CachingPool::size_class(513), 1024);
  EXPECT_EQ(CachingPool::size_class(1 << 20), 1 << 20);
  EXPECT_EQ(CachingPool::size_class((1 << 20) + 1), 2 << 20);
  EXPECT_EQ(CachingPool::size_class((5 << 20) + 7), 6 << 20);
}

TEST(CudaMemoryPool, ReusesBlocksOfTheSameClass) {
  HostMemory raw(1 << 30);
  {
    CachingPool pool(raw);
    auto a = pool.take(1000);
    ASSERT_TRUE(a);
    EXPECT_EQ(pool.stats().in_use_bytes, 1024);
    pool.give_back(*a, 1000);
    EXPECT_EQ(pool.stats().in_use_bytes, 0);
    EXPECT_EQ(pool.stats().cached_bytes, 1024);
    auto b = pool.take(900);  // same class: the same block
    ASSERT_TRUE(b);
    EXPECT_EQ(*b, *a);
    EXPECT_EQ(pool.stats().reuses, 1);
    EXPECT_EQ(pool.stats().raw_allocs, 1);
    auto c = pool.take(5000);  // another class: a new block
    ASSERT_TRUE(c);
    EXPECT_NE(*c, *a);
    EXPECT_EQ(pool.stats().raw_allocs, 2);
    pool.give_back(*b, 900);
    pool.give_back(*c, 5000);
    EXPECT_EQ(raw.live_bytes, 1024 + 5120);  // cached, not freed
    pool.trim();
    EXPECT_EQ(raw.live_bytes, 0);
    EXPECT_EQ(pool.stats().cached_bytes, 0);
  }
  EXPECT_EQ(raw.live_bytes, 0);
}

TEST(CudaMemoryPool, FreesTheCacheWhenMemoryRunsOut) {
  HostMemory raw(3 << 20);  // room for one 2 MiB block, not two
  CachingPool pool(raw);
  auto a = pool.take(2 << 20);
  ASSERT_TRUE(a);
  pool.give_back(*a, 2 << 20);
  auto b = pool.take(1 << 19);  // another class; the raw allocation fits beside the cached block
  ASSERT_TRUE(b);
  pool.give_back(*b, 1 << 19);
  auto c = pool.take(3 << 20);  // 4 MiB class: fails, the cache is emptied, fails again (over budget)
  EXPECT_FALSE(c);
  EXPECT_EQ(pool.stats().trims, 1);
  EXPECT_EQ(raw.live_bytes, 0);
  auto d = pool.take(2 << 20);  // fits again after the trim
  ASSERT_TRUE(d);
  EXPECT_EQ(pool.stats().raw_allocs, 3);
  pool.give_back(*d, 2 << 20);
}

TEST(CudaMemoryPool, RefusesNonPositiveSizes) {
  HostMemory raw(1 << 20);
  CachingPool pool(raw);
  EXPECT_FALSE(pool.take(0));
  EXPECT_FALSE(pool.take(-5));
}

TEST(CudaMemoryPool, ManyBlocksAreDistinctWhileInUse) {
  HostMemory raw(1 << 30);
  CachingPool pool(raw);
  std::set<void*> seen;
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) {
    auto p = pool.take(100 + i);
    ASSERT_TRUE(p);
    EXPECT_TRUE(seen.insert(*p).second);
    blocks.push_back(*p);
  }
  for (int i = 0; i < 64; ++i) pool.give_back(blocks[static_cast<size_t>(i)], 100 + i);
  EXPECT_EQ(pool.stats().in_use_bytes, 0);
  EXPECT_EQ(pool.stats().cached_bytes, 64 * 512);
}

}  // namespace
}  // namespace plumb::rt::cuda
