// The cuda backend's caching memory pool: device blocks are costly to get (cudaMalloc
// synchronizes the device) and plans come and go (one arena per plan, device copies of
// constants), so freed blocks are kept by size class and handed out again. The bookkeeping is
// plain C++ over a RawMemory (cudaMalloc/cudaFree in the backend, host memory in
// tests/cuda/memory_pool_test.cpp), so it is tested without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "ir/status.h"

namespace plumb::rt::cuda {

class RawMemory {
 public:
  virtual ~RawMemory() = default;
  virtual Expected<void*> alloc(int64_t bytes) = 0;  // an error says why (out of memory)
  virtual void free(void* p) = 0;
};

struct PoolStats {
  int64_t in_use_bytes = 0;  // blocks handed out (their class sizes)
  int64_t cached_bytes = 0;  // blocks kept for reuse
  int64_t raw_allocs = 0;    // RawMemory::alloc calls that succeeded
  int64_t reuses = 0;        // take() answered from the cache
  int64_t trims = 0;         // times the cache was emptied to satisfy an allocation
};

class CachingPool {
 public:
  explicit CachingPool(RawMemory& raw) : raw_(raw) {}
  ~CachingPool();  // frees the cached blocks (the ones handed out must have come back)
  CachingPool(const CachingPool&) = delete;
  CachingPool& operator=(const CachingPool&) = delete;

  // The size class of a request: a multiple of 512 bytes up to 1 MiB, then of 2 MiB, so a
  // block is reused only for requests that waste at most 2 MiB of it.
  static int64_t size_class(int64_t bytes);

  // A block of at least `bytes` (> 0) bytes: a cached one of its class, else a new one; when
  // RawMemory fails, the cache is freed and the allocation tried once more.
  Expected<void*> take(int64_t bytes);
  // Returns a block from take(bytes) to the cache.
  void give_back(void* p, int64_t bytes);
  // Frees every cached block.
  void trim();
  PoolStats stats() const;

 private:
  void trim_locked();
  RawMemory& raw_;
  mutable std::mutex mu_;
  std::map<int64_t, std::vector<void*>> cache_;  // size class -> free blocks
  PoolStats stats_;
};

}  // namespace plumb::rt::cuda
