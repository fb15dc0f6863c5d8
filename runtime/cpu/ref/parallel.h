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

// The number of ranges parallel_for splits `items` into (per-range temporaries: one each).
inline int64_t parallel_ranges(int threads, int64_t items, int64_t min_items) {
  if (items <= 0) return 0;
  return std::clamp<int64_t>(items / std::max<int64_t>(1, min_items), 1, std::max(1, threads));
}

// body(range, begin, end) over [0, items) in parallel_ranges(threads, items, min_items) contiguous
// ranges, none with fewer than `min_items` items (so that small work stays on one thread: a thread
// costs tens of microseconds); `range` numbers them from 0.
template <typename Body>
void parallel_for_ranges(int threads, int64_t items, int64_t min_items, Body&& body) {
  const int64_t ranges = parallel_ranges(threads, items, min_items);
  if (ranges == 0) return;
  auto range = [&](int64_t r) { body(r, items * r / ranges, items * (r + 1) / ranges); };
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

// body(begin, end): parallel_for_ranges without the range number.
template <typename Body>
void parallel_for(int threads, int64_t items, int64_t min_items, Body&& body) {
  parallel_for_ranges(threads, items, min_items,
                      [&](int64_t, int64_t begin, int64_t end) { body(begin, end); });
}

}  // namespace plumb::rt::ref
