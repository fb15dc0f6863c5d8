// Threads across independent results (issue 17): a kernel splits its results into work items
// (row blocks of a matmul, say), and parallel_for hands contiguous ranges of items to up to
// NodeCall::threads threads. Every result is still computed by exactly one thread, in the spec's
// order, so the bits do not depend on the thread count; only the wall time does.
//
// Threads are std::thread, started per call and joined before it returns (no pool, no global
// state: a kernel call owns its threads). Built without PLUMB_REF_THREADS (the tiny runtime: a
// microcontroller or an embedding host may have no threads, and it should not pull in pthreads)
// every range runs on the calling thread; a thread that cannot be started likewise runs its
// range on the caller.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#if PLUMB_REF_THREADS
#include <thread>
#endif

namespace plumb::rt::ref {

// body(begin, end) over [0, items) in at most `threads` contiguous ranges, none with fewer than
// `min_items` items (so that small work stays on one thread: a thread costs tens of microseconds).
template <typename Body>
void parallel_for(int threads, int64_t items, int64_t min_items, Body&& body) {
  if (items <= 0) return;
  const int64_t ranges =
      std::clamp<int64_t>(items / std::max<int64_t>(1, min_items), 1, std::max(1, threads));
  auto range = [&](int64_t r) { body(items * r / ranges, items * (r + 1) / ranges); };
#if PLUMB_REF_THREADS
  if (ranges > 1) {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(ranges - 1));
    for (int64_t r = 1; r < ranges; ++r) {
#if defined(__cpp_exceptions)
      try {
        pool.emplace_back(range, r);
      } catch (...) {  // no thread to be had: this range runs here
        range(r);
      }
#else
      pool.emplace_back(range, r);
#endif
    }
    range(0);
    for (std::thread& t : pool) t.join();
    return;
  }
#endif
  for (int64_t r = 0; r < ranges; ++r) range(r);
}

}  // namespace plumb::rt::ref
