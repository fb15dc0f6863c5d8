// The executor: the only code that walks a graph (STYLE.md 2.6). It runs a plan's schedule
// (runtime/schedule.h) step by step: kNode steps on the ref kernels (the fallback for everything
// no backend claimed), kSpan steps on their backend's compiled span, kCopy steps through the
// backend's allocator, and `if` (evaluate the condition, run the chosen region, bind its
// results) and `while` (carried values; cond region, then body region, until cond is false;
// carried shapes may change between iterations) on the host, their regions' nodes on ref.
// Regions read outer-scope values directly.
//
// Region semantics (spec text form): `if %c { then () {...} else () {...} }`: %c is a bool
// tensor with one element; neither region has parameters; each yields one value per result.
// `while %a, %b { cond (%p, %q) {... yield %t} body (%p, %q) {... yield %p2, %q2} }`: the
// carried values start as the operands; cond yields one bool element; while it is true the body
// maps the carried values to new ones; the results are the final carried values.
//
// Memory (what allocates while running):
// - top-level static-shaped values live in the schedule's arenas (no allocation); constants are
//   bound once per graph (runtime/partition.h), folded values once per plan;
// - kDynamic values (data-dependent shapes, if/while results, containers, strings) and every
//   value inside a region are heap tensors allocated when their node runs (limited by
//   ExecOptions::max_bytes, and charged to ExecOptions::memory); run-time inference for those
//   nodes allocates small vectors;
// - a region result or a dynamic result that aliases the arena is copied to the heap, so no
//   value outlives its arena slot;
// - binding an input copies its shape vector (no allocation once the slot has held a tensor of
//   that rank); a static node's ref kernel takes its temporaries from the schedule's scratch
//   region of the host arena (NodeCall::scratch, runtime/cpu/ref/scratch.h), other nodes' kernels
//   from the heap (tests/api_alloc checks that static plans of the whole-model tests allocate
//   nothing after planning; tests/ref/executor_alloc_test.cpp a static graph's second run).
//
// NumericMode::kPrecise is a type mapping (make_precise_graph): every floating value of the
// graph becomes f64; kernels just see f64 tensors. See runtime/session.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/backend.h"
#include "runtime/memory_budget.h"
#include "runtime/node_call.h"
#include "runtime/partition.h"
#include "runtime/plan.h"
#include "runtime/schedule.h"

namespace plumb::rt {

struct ExecOptions {
  NumericMode mode = NumericMode::kNative;
  // `while` iteration guard for tools; 0 = unlimited (the spec imposes no cap).
  int64_t max_while_iterations = 0;
  // Largest tensor the executor allocates at run time for a data-dependent shape (bytes).
  int64_t max_bytes = int64_t{16} << 30;
  // Threads a ref kernel may use (NodeCall::threads), at least 1.
  int threads = 1;
  // The budget every tensor allocated while running is charged to (runtime/memory_budget.h); a
  // refusal is the node's error. Null: none.
  std::shared_ptr<MemoryBudget> memory;
  // Called after each step with the top-level nodes done and the graph's top-level node count
  // (an if or while counts as one node, a span as its nodes): a progress counter. May be empty.
  std::function<void(size_t nodes_done, size_t nodes_total)> on_node;
};

// The run-time values of one graph, one slot per ir::ValueId, plus the arenas the schedule laid
// out. Made once per plan by make_buffer_table and reused by every run with that plan:
// arena-planned slots keep their tensors (views into an arena) between runs.
struct BufferTable {
  std::vector<RtValue> values;         // host side, indexed by ValueId
  std::vector<RtValue> device_values;  // a device backend's side (empty otherwise), by ValueId
  std::shared_ptr<uint8_t> arena;      // host arena: schedule.host_arena_bytes, 64-byte aligned
  int64_t arena_bytes = 0;
  std::shared_ptr<uint8_t> device_arena;  // the backend's allocator: schedule.device_arena_bytes
  const Plan* plan = nullptr;             // the plan and schedule the table was made for
  const Schedule* schedule = nullptr;

  // True when `p` points into the host arena (values there are overwritten by later nodes and runs).
  bool in_arena(const void* p) const {
    const auto* b = static_cast<const uint8_t*>(p);
    return arena && b >= arena.get() && b < arena.get() + arena_bytes;
  }
};

// A BufferTable for `schedule`: allocates the arenas, binds constants (the partition's, decoded
// once) and folded values (and their device copies where spans read them), and sets every arena
// slot's tensor (a view into an arena with its planned shape). `host_arena`, when given, is the
// host arena to use instead of a new one: 64-byte aligned, zero-filled, at least
// schedule.host_arena_bytes (the C API's caller-given arena; it may own nothing). A host arena
// made here is charged to `memory` (when given) for as long as it lives.
Expected<BufferTable> make_buffer_table(const ir::Graph& g, const Plan& plan, const Schedule& schedule,
                                        const Partition& part, std::shared_ptr<uint8_t> host_arena = {},
                                        const std::shared_ptr<MemoryBudget>& memory = {});

// Binds the graph inputs (in graph order) into `buffers`: by reference when the dtype matches the
// plan, widened to f64 into the arena slot otherwise (precise mode). The inputs must have the
// plan's input types (plan.matches).
Status bind_inputs(const ir::Graph& g, const Plan& plan, const std::vector<const RtValue*>& inputs,
                   BufferTable& buffers);

class Executor {
 public:
  // All four outlive the executor; `allocator` is the backend's (Backend::allocator()).
  Executor(const ir::Graph& g, const Plan& plan, const Schedule& schedule, Allocator& allocator,
           const ExecOptions& options)
      : g_(g), plan_(plan), schedule_(schedule), allocator_(allocator), options_(options) {}
  // Runs the whole graph: buffers were made by make_buffer_table(g, plan, schedule, ...), inputs
  // bound; on success the graph outputs are in buffers.values[graph.body.results[k]] (host).
  Status run(BufferTable& buffers, Stream* stream);
  // Makes the call records for `buffers` now (the first run does it otherwise), so that no run
  // allocates them.
  void bind(BufferTable& buffers) { bind_calls(buffers); }

 private:
  void bind_calls(BufferTable& b);
  Status run_step(const Step& st, BufferTable& b, Stream* stream);
  size_t nodes_done_after(size_t step) const;
  Status run_copy(const Step& st, BufferTable& b, Stream* stream);
  Status run_region(const ir::Region& r, BufferTable& b);
  Status run_node_dynamic(const ir::Node& n, BufferTable& b);
  Status run_if(const ir::Node& n, BufferTable& b);
  Status run_while(const ir::Node& n, BufferTable& b);
  Status with_place(Status s, const ir::Node& n) const;
  Status escape(RtValue& v, const BufferTable& b) const;

  const ir::Graph& g_;
  const Plan& plan_;
  const Schedule& schedule_;
  Allocator& allocator_;
  ExecOptions options_;
  // Call records pointing into the BufferTable they were built for: one per top-level static
  // node (kNode steps), one SpanArgs per scheduled span.
  std::vector<NodeCall> calls_;
  std::vector<SpanArgs> span_args_;
  const BufferTable* calls_for_ = nullptr;
  const RtValue* calls_base_ = nullptr;
};

// The precise-mode graph: every floating dtype in value types, constants (widened exactly),
// `to`/`dtype`/`elem` attributes becomes f64. `bitcast` and `rng` keep their native float types
// through an inserted exact cast (f64 -> native before a bitcast from float; native -> f64 after
// a bitcast or rng that produces a float).
Expected<ir::Graph> make_precise_graph(const ir::Graph& g);

}  // namespace plumb::rt
