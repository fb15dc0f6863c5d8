// Memory planning (DESIGN.md §6): given a verified graph and the actual input types, resolve every
// top-level value's type (symbolic dims become static through ir::infer_types at run time),
// evaluate small shape-computing nodes ahead of the run (folding), and lay out one arena by
// liveness: greedy by size, a buffer reuses the space of buffers that are dead by the time it is
// defined.
//
// Where each top-level value lives during a run (ValuePlan::storage):
//   kInput        a graph input, bound by reference to the caller's tensor
//   kInputArena   a graph input widened into the arena (precise mode: f16 given, f64 planned)
//   kConstant     a `constant` node's data, bound before the run (a view of the ConstantData when
//                 its run-time format is the file's; unpacked/decoded otherwise)
//   kFolded       computed at plan time (a node whose operands are all known, small results):
//                 shape arithmetic such as shape_of -> slice -> concat -> reshape
//   kArena        a static-shaped tensor in the arena at `offset`
//   kDynamic      its shape is only known while running (nonzero, a shape read from input data,
//                 results of if/while, containers, strings): heap-allocated when its node runs
// Values inside regions are not planned: the executor allocates them when the region runs.
//
// A plan is valid for one set of input types; the session re-plans when they change.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/memory_budget.h"
#include "runtime/numeric_mode.h"
#include "runtime/value.h"

namespace plumb::rt {

struct PlanOptions {
  NumericMode mode = NumericMode::kNative;  // passed to kernels evaluated at plan time
  // Refuse (InvalidInput) an arena or any single tensor larger than this.
  int64_t max_bytes = int64_t{16} << 30;
  bool fold = true;  // evaluate small all-known nodes at plan time
  // The command's memory budget (runtime/memory_budget.h), or null: a plan whose arena needs more
  // than is left of it is refused (naming the node whose result ends the arena) before any
  // arena is allocated. The planner reserves nothing: make_buffer_table charges the arena.
  MemoryBudget* memory = nullptr;
  // Constants already decoded (runtime/partition.h, once per graph), indexed by
  // ir::Graph::constants; the others are decoded here.
  const std::vector<std::optional<Tensor>>* constants = nullptr;
};

enum class Storage : uint8_t { kNone, kInput, kInputArena, kConstant, kFolded, kArena, kDynamic };

struct ValuePlan {
  Storage storage = Storage::kNone;  // kNone: not a top-level value (lives in a region)
  ir::Type type;                     // resolved type (static for kInput*, kConstant, kFolded, kArena)
  int64_t offset = -1;               // kArena, kInputArena: byte offset in the arena
  int64_t bytes = 0;                 // kArena, kInputArena
  int64_t def = -1;                  // top-level node index that defines it (-1: graph input)
  int64_t last_use = -1;             // last top-level node reading it (n = graph output)
};

struct Plan {
  std::vector<ir::Type> input_types;  // the actual input types this plan is for
  std::vector<ValuePlan> values;      // indexed by ValueId
  std::vector<RtValue> known;         // indexed by ValueId: kConstant and kFolded values
  std::vector<uint8_t> node_skip;     // per top-level node: 1 = nothing to run (constant, folded)
  std::vector<uint8_t> node_dynamic;  // per top-level node: 1 = its results are kDynamic
  // per top-level node: kDynamic values whose last use is that node (released after it runs)
  std::vector<std::vector<ir::ValueId>> release_after;
  int64_t arena_bytes = 0;
  int64_t total_buffer_bytes = 0;  // sum of the arena buffers' sizes (what no reuse would take)

  // True when `types` are exactly the input types this plan was made for.
  bool matches(const std::vector<ir::Type>& types) const { return types == input_types; }
};

// Checks actual input types against the graph's declared ones: count, kind, dtype (or, with
// `allow_float_widening`, any float dtype where the graph declares f64), rank, static dims, and
// that same-named symbolic dims have one size across all inputs. InvalidInput naming the input,
// the expected and the actual type.
Status check_inputs(const ir::Graph& g, const std::vector<ir::Type>& actual,
                    bool allow_float_widening = false);

// Plans `g` (verified) for inputs of `input_types` (checked by check_inputs against `g`, with
// float widening allowed where `g` is the precise-mode graph).
Expected<Plan> make_plan(const ir::Graph& g, const std::vector<ir::Type>& input_types,
                         const PlanOptions& options = {});

// The run-time form of a constant: ConstantData's bytes viewed in place when the file format is
// the run-time format; sub-byte types unpacked to a byte each, strings decoded, otherwise.
Expected<Tensor> constant_tensor(const ir::ConstantData& c);

// The integer contents of `t` (an integer tensor of at most ir::kMaxKnownValues elements whose
// values fit int64), for ir::Operand::values; false otherwise. Shared by planner and executor.
bool int_values(const Tensor& t, std::vector<int64_t>& out);

// One buffer of an arena: `bytes` bytes live from position `start` to `end` (inclusive). `id`
// breaks ties, so a layout does not depend on the order of the list.
struct ArenaBuffer {
  int64_t id = 0;
  int64_t bytes = 0, start = 0, end = 0;
  int64_t offset = -1;  // set by layout_arena
};

// Greedy by size: biggest first, each at the lowest 64-byte aligned offset that does not overlap
// a placed buffer whose lifetime intersects its own. Sets every offset; returns the arena size,
// or InvalidInput past max_bytes. The planner's layout, and the schedule's when spans are claimed.
Expected<int64_t> layout_arena(std::vector<ArenaBuffer>& bufs, int64_t max_bytes);

// Checked size arithmetic: bytes of a static tensor type, or an error (overflow, > max_bytes).
Expected<int64_t> tensor_bytes(const ir::Type& t, int64_t max_bytes);

}  // namespace plumb::rt
