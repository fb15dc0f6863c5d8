// A memory budget (issue 23): the bytes a command may hold at once, shared by everything it
// runs (the CLI's --max-memory). The caller makes one and hands it to each session
// (SessionOptions::memory); the runtime charges it for what it allocates to run a graph:
// - the planner refuses a plan whose arena does not fit in what is left, before allocating;
// - the host arena of each plan a session keeps (make_buffer_table);
// - every tensor the executor allocates while running: results of nodes with data-dependent
//   shapes, every value inside an if/while region, values copied out of the arena (escape),
//   and the results a kernel sizes itself (nonzero, strings, containers: charged when the kernel
//   returns, the only allocations that can pass the budget, and only for that moment);
// - the copies Session::copy_outputs makes (plumb check holds its runs' outputs this way).
// A charge lasts as long as the memory it is for: it is released when the last tensor (or arena)
// sharing that storage is freed, so a budget must be shared (std::shared_ptr), not borrowed.
// Not charged: the loaded model (weights, decoded constants), the inputs the caller binds, the
// small shape values the planner folds (ir::kMaxKnownValues elements each), a backend's device
// arena (not host memory), and scratch a kernel allocates internally.
//
// Thread-safe: one budget may be shared by sessions on several threads (atomic counters). The
// counters are pointer-sized, the widest atomics a 32-bit microcontroller has without a library
// (Cortex-M3: no 64-bit atomics); a limit past what that holds is clamped to it, more than the
// address space a 32-bit target can allocate anyway.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ir/dtype.h"
#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::rt {

class MemoryBudget {
 public:
  explicit MemoryBudget(int64_t limit);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  int64_t limit() const { return static_cast<int64_t>(limit_); }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  int64_t left() const { return limit() - used(); }
  // The most bytes held at once so far: the smallest limit the same work fits in.
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  // How many reservations were refused so far. A caller that tolerates a failed run (plumb
  // check's precise and stochastic runs) compares it before and after, to stop on a refusal
  // instead of carrying on without that run.
  int64_t refusals() const { return refusals_.load(std::memory_order_relaxed); }

  // Takes `bytes` (>= 0) when they fit in what is left; false (and nothing taken) otherwise.
  bool try_reserve(int64_t bytes);
  void release(int64_t bytes);

  // Counts a refusal of `bytes` for `what` ("the plan's arena", "its result") and returns it: an
  // InvalidInput (the user's limit does not fit the model) without a place (the caller names
  // the node).
  Status refuse(int64_t bytes, const char* what);

 private:
  const std::intptr_t limit_;
  std::atomic<std::intptr_t> used_{0}, peak_{0}, refusals_{0};
};

// Bytes `bytes` of `budget` held until destroyed (movable, not copyable).
class MemoryCharge {
 public:
  MemoryCharge() = default;
  MemoryCharge(std::shared_ptr<MemoryBudget> budget, int64_t bytes)
      : budget_(std::move(budget)), bytes_(bytes) {}
  MemoryCharge(MemoryCharge&& o) noexcept : budget_(std::move(o.budget_)), bytes_(o.bytes_) { o.bytes_ = 0; }
  MemoryCharge& operator=(MemoryCharge&& o) noexcept;
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;
  ~MemoryCharge() { reset(); }
  void reset();

 private:
  std::shared_ptr<MemoryBudget> budget_;
  int64_t bytes_ = 0;
};

// Reserves `bytes` of `budget` (null: no budget, nothing to reserve) for `what`, or its refusal.
Expected<MemoryCharge> reserve(const std::shared_ptr<MemoryBudget>& budget, int64_t bytes, const char* what);

// `storage` with `charge` attached: the charge is released when the last copy of the returned
// pointer (or of any pointer sharing its ownership) is gone.
std::shared_ptr<void> with_charge(std::shared_ptr<void> storage, MemoryCharge charge);

// A new zero-filled host tensor (Tensor::allocate) charged to `budget` (null: uncharged), or the
// refusal naming `what`. Strings count sizeof(std::string) per element.
Expected<Tensor> allocate_charged(const std::shared_ptr<MemoryBudget>& budget, ir::DType dt,
                                  std::vector<int64_t> shape, const char* what);

// Charges, after the fact, the host tensors in `v` that a kernel allocated itself: every tensor
// whose storage is not shared with one of `owned_elsewhere` (the node's inputs: a result that
// shares its operand's storage is charged, or not, as that operand is). The tensors keep their
// bytes; a refusal leaves `v` as it was and is returned.
Status charge_new_storage(const std::shared_ptr<MemoryBudget>& budget, RtValue& v,
                          const std::vector<const RtValue*>& owned_elsewhere, const char* what);

}  // namespace plumb::rt
