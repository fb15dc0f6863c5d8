#include "runtime/cuda/memory_pool.h"

namespace plumb::rt::cuda {

CachingPool::~CachingPool() { trim(); }

int64_t CachingPool::size_class(int64_t bytes) {
  constexpr int64_t kSmall = 512, kSmallLimit = int64_t{1} << 20, kLarge = int64_t{2} << 20;
  if (bytes <= 0) return kSmall;
  if (bytes <= kSmallLimit) return (bytes + kSmall - 1) / kSmall * kSmall;
  return (bytes + kLarge - 1) / kLarge * kLarge;
}

Expected<void*> CachingPool::take(int64_t bytes) {
  if (bytes <= 0) return internal_error("cuda pool: asked for a non-positive size");
  const int64_t cls = size_class(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find(cls);
  if (it != cache_.end() && !it->second.empty()) {
    void* p = it->second.back();
    it->second.pop_back();
    stats_.cached_bytes -= cls;
    stats_.in_use_bytes += cls;
    ++stats_.reuses;
    return p;
  }
  Expected<void*> p = raw_.alloc(cls);
  if (!p && stats_.cached_bytes > 0) {
    trim_locked();
    ++stats_.trims;
    p = raw_.alloc(cls);
  }
  if (!p) return p.status();
  ++stats_.raw_allocs;
  stats_.in_use_bytes += cls;
  return p;
}

void CachingPool::give_back(void* p, int64_t bytes) {
  if (!p) return;
  const int64_t cls = size_class(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  cache_[cls].push_back(p);
  stats_.in_use_bytes -= cls;
  stats_.cached_bytes += cls;
}

void CachingPool::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  trim_locked();
}

void CachingPool::trim_locked() {
  for (auto& [cls, blocks] : cache_) {
    for (void* p : blocks) raw_.free(p);
    stats_.cached_bytes -= cls * static_cast<int64_t>(blocks.size());
    blocks.clear();
  }
  cache_.clear();
}

PoolStats CachingPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace plumb::rt::cuda
