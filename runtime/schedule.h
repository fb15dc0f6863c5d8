// The per-plan half of dispatch (runtime/backend.h phase 3): compile each accepted span for the
// plan's types (or take its decline), order the steps, choose the host<->device copies at span
// borders, and lay out the arenas (the backend's spans' scratch included). The executor
// (runtime/executor.h) runs the result; describe_schedule is what PLUMB_VERBOSE=dispatch prints.
//
// Steps: kNode (one node on the ref kernels: the fallback), kSpan (a claimed span on its
// backend), kIf / kWhile (control flow, run by the executor on the host, regions on ref), kCopy
// (one value to the other side). Nodes the planner folded or bound (constants) are no step.
//
// Placement, for a backend whose memory is a device's: a value lives where it is defined (graph
// inputs and known values on the host); before a step reads it on the other side it is copied
// there once (a kCopy step just before that step), and graph results end on the host. Known values
// that spans read are on the device before the run (constants once per graph, folded values once
// per plan), so they need no copy step. Host-only nodes never reach a backend (partition.h).
// Values that a span defines and nothing after it reads have no buffer: they are the span's own.
// For a host backend there are no copies and one arena. With nothing claimed, the layout is the
// planner's, unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/backend.h"
#include "runtime/partition.h"
#include "runtime/plan.h"

namespace plumb::rt {

enum class StepKind : uint8_t { kNode, kSpan, kIf, kWhile, kCopy };

struct Step {
  StepKind kind = StepKind::kNode;
  uint32_t node = 0;          // kNode, kIf, kWhile: the top-level node; kSpan: its first node
  uint32_t span = 0;          // kSpan: index into Schedule::spans
  ir::ValueId value = 0;      // kCopy: the value copied
  Device to = Device::kHost;  // kCopy: the side it is copied to
};

struct ScheduledSpan {
  SpanSignature sig;
  std::unique_ptr<CompiledSpan> program;
  int64_t scratch_offset = 0;  // in the backend's arena (the host arena for a host backend)
  int64_t scratch_bytes = 0;
};

struct Schedule {
  Device device = Device::kHost;  // the backend's memory
  std::vector<Step> steps;
  std::vector<ScheduledSpan> spans;
  std::vector<std::string> node_why;  // per top-level node run by ref: why ("" when the backend is ref)
  // Per top-level value: offset of its buffer in the host arena / the device arena, or -1.
  std::vector<int64_t> host_offset, device_offset;
  int64_t host_arena_bytes = 0, device_arena_bytes = 0;
  std::vector<uint8_t> device_known;  // per value: a known value that a span reads on the device
  int64_t copies = 0;                 // kCopy steps
  // The ref kernels' scratch (runtime/cpu/ref/scratch.h): one region at the end of the host arena,
  // as big as the largest need of a kNode step's kernel (steps run one at a time, so they share it).
  int64_t ref_scratch_offset = 0, ref_scratch_bytes = 0;
};

// `part` was made for `g`, `plan` for `g` too; they must outlive the schedule. `threads`: the ref
// kernels' threads (ExecOptions::threads), which their per-thread scratch is sized for.
Expected<Schedule> make_schedule(const ir::Graph& g, const Plan& plan, const Partition& part,
                                 int64_t max_bytes, int threads = 1);

// The schedule as text, one line per step, each fallback with its reason (PLUMB_VERBOSE=dispatch).
std::string describe_schedule(const ir::Graph& g, const Plan& plan, const Partition& part, const Schedule& s);

}  // namespace plumb::rt
