// A small embeddable API over the runtime phases: load a graph (verified here), bind inputs by
// position or name, run, read outputs.
//
//   auto s = rt::Session::create(std::move(graph), {.mode = rt::NumericMode::kNative});
//   if (!s) ...;
//   (*s)->set_input("x", tensor);
//   Status st = (*s)->run();
//   const rt::Tensor& y = (*s)->output(0).tensor();
//
// Phases (runtime/backend.h): create() verifies the graph and partitions it for the backend
// (claims, prepared spans, constants decoded once); planning is lazy and cached per input shape:
// a run whose input types (dtype and shape) equal those of an earlier run reuses that run's plan,
// schedule (compiled spans) and arenas; otherwise the session re-plans (symbolic dims resolve to
// the new sizes; shape-computing nodes are re-evaluated), compiles a new schedule and keeps the
// result, up to SessionOptions::max_plans (least recently used first out).
// bench/replan_bench.cpp measures what a re-plan costs.
//
// Threads: one Session is used by one thread at a time. Sessions made from one shared graph
// (create's shared_ptr overload) may run in different threads at the same time: a session never
// writes to its graph or to the graph's constant bytes, and the library keeps no global mutable
// state (tests/threads runs 8 sessions over each whole-model test at once; tools/tsan.sh runs it
// under ThreadSanitizer).
//
// NumericMode::kPrecise evaluates every floating value of the graph as f64: floating inputs are
// widened exactly, constants widened, casts between float types become f64 -> f64 (exact), a cast
// from float to int converts from the f64 value, the `to` attributes of matmul/conv/cast and the
// dtype of iota that name a float type are f64, bitcast and rng keep their native float through an
// inserted cast. Outputs of floating type are then returned as f64 (output_type says so).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/backend.h"
#include "runtime/executor.h"
#include "runtime/memory_budget.h"
#include "runtime/partition.h"
#include "runtime/plan.h"
#include "runtime/schedule.h"

namespace plumb::rt {

struct SessionOptions {
  std::string backend = "ref";
  // Backends the program links in itself, beyond this library's table (make_backend's `extra`).
  std::vector<BackendEntry> extra_backends;
  NumericMode mode = NumericMode::kNative;
  // Largest arena, and largest single tensor allocated while running, in bytes.
  int64_t max_bytes = int64_t{16} << 30;
  // The bytes everything the caller runs may hold at once (runtime/memory_budget.h: the plans'
  // arenas, the values allocated while running, copy_outputs' copies), shared with the caller's
  // other sessions; null: unbounded (the CLI's --max-memory sets one). When a new plan does not
  // fit, the session first frees the plans it keeps for other input shapes, then refuses.
  std::shared_ptr<MemoryBudget> memory;
  // `while` iteration guard (0 = unlimited, as the spec says).
  int64_t max_while_iterations = 0;
  // Run ir::verify on the graph. Only a caller that has just verified it may turn this off.
  bool verify = true;
  // Threads for independent results within one node: the ref kernels' (NodeCall::threads) and
  // any backend's that honours PrepareOptions::threads; at least 1 (the CLI's --threads). ref's
  // results do not depend on it.
  int threads = 1;
  // Plans kept for distinct input shapes (each with its arena); at least 1.
  int max_plans = 8;
  // Called with the schedule's text (describe_schedule) each time a plan gets a schedule: the
  // CLI's PLUMB_VERBOSE=dispatch.
  std::function<void(const std::string&)> on_schedule;
  // Called during each run after each top-level step with the nodes done and the node count
  // (ExecOptions::on_node): a progress counter for long runs. May be empty.
  std::function<void(size_t nodes_done, size_t nodes_total)> on_node;
};

class Session {
 public:
  static Expected<std::unique_ptr<Session>> create(ir::Graph graph, SessionOptions options = {});
  // Over a graph shared with other sessions (and threads): it is read, never written, so one
  // loaded model serves any number of sessions without a copy of its nodes or constants.
  static Expected<std::unique_ptr<Session>> create(std::shared_ptr<const ir::Graph> graph,
                                                   SessionOptions options = {});

  size_t num_inputs() const { return graph_->body.params.size(); }
  size_t num_outputs() const { return graph_->body.results.size(); }
  std::string input_name(size_t k) const;  // the graph's input name, or "" when it has none
  std::string output_name(size_t k) const;
  const ir::Type& input_type(size_t k) const { return graph_->type_of(graph_->body.params[k]); }
  // The declared output type as this session returns it (f64 for floats in precise mode).
  const ir::Type& output_type(size_t k) const { return exec_graph().type_of(exec_graph().body.results[k]); }
  Expected<size_t> input_index(std::string_view name) const;

  // Binds an input; checked against the declared type when the session runs.
  Status set_input(size_t k, RtValue value);
  Status set_input(std::string_view name, RtValue value);

  Status run();

  // Output k of the last successful run: valid until the next run (it may be a view into the
  // arena). outputs() returns copies that stay valid.
  const RtValue& output(size_t k) const;
  std::vector<RtValue> outputs() const;
  // outputs(), with the copies charged to SessionOptions::memory (a refusal names the output).
  Expected<std::vector<RtValue>> copy_outputs() const;

  const ir::Graph& graph() const { return *graph_; }
  // The current plan and its schedule (null before the first run).
  const Plan* plan() const { return plans_.empty() ? nullptr : plans_.front().plan.get(); }
  const Schedule* schedule() const { return plans_.empty() ? nullptr : plans_.front().schedule.get(); }
  const Partition& partition() const { return *partition_; }
  Backend& backend() { return *backend_; }
  int64_t plans_made() const { return plans_made_; }
  size_t plans_cached() const { return plans_.size(); }

 private:
  Session() = default;
  const ir::Graph& exec_graph() const { return precise_ ? *precise_ : *graph_; }

  std::shared_ptr<const ir::Graph> graph_;  // never null; possibly shared with other sessions
  std::unique_ptr<ir::Graph> precise_;      // precise mode: the f64 graph that runs
  SessionOptions options_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Partition> partition_;  // per graph
  std::unique_ptr<Stream> stream_;
  std::vector<RtValue> inputs_;
  std::vector<const RtValue*> input_ptrs_;
  std::vector<uint8_t> input_set_;
  // One input shape's plan, schedule, buffers (arenas) and executor (which refers to the plan and
  // schedule: it is destroyed first).
  struct Planned {
    std::unique_ptr<Plan> plan;
    std::unique_ptr<Schedule> schedule;
    std::unique_ptr<BufferTable> buffers;
    std::unique_ptr<Executor> executor;
  };
  Status plan_for_inputs();     // makes plans_.front() the entry for inputs_
  std::vector<Planned> plans_;  // most recently used first
  bool have_outputs_ = false;
  int64_t plans_made_ = 0;
};

}  // namespace plumb::rt
