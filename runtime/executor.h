// The executor: the only code that walks a graph (STYLE.md 2.6). It runs the top-level nodes in
// order on the plan's buffers, runs `if` (evaluate the condition, run the chosen region, bind its
// results) and `while` (carried values; cond region, then body region, until cond is false;
// carried shapes may change between iterations), and hands every other node to a NodeRunner (the
// backend's kernels). Regions read outer-scope values directly.
//
// Region semantics (spec text form): `if %c { then () {...} else () {...} }`: %c is a bool
// tensor with one element; neither region has parameters; each yields one value per result.
// `while %a, %b { cond (%p, %q) {... yield %t} body (%p, %q) {... yield %p2, %q2} }`: the
// carried values start as the operands; cond yields one bool element; while it is true the body
// maps the carried values to new ones; the results are the final carried values.
//
// Memory (what allocates while running):
// - top-level static-shaped values live in the plan's arena (no allocation); constants and
//   folded values are bound once per plan;
// - kDynamic values (data-dependent shapes, if/while results, containers, strings) and every
//   value inside a region are heap tensors allocated when their node runs (limited by
//   CompileOptions::max_bytes); run-time inference for those nodes allocates small vectors;
// - a region result or a dynamic result that aliases the arena is copied to the heap, so no
//   value outlives its arena slot;
// - binding an input copies its shape vector (no allocation once the slot has held a tensor of
//   that rank); kernels may allocate internally (the ref kernels of elementwise ops do not:
//   tests/ref/executor_alloc_test.cpp checks that a static graph's second run allocates nothing).
//
// NumericMode::kPrecise is a type mapping (make_precise_graph): every floating value of the
// graph becomes f64; kernels just see f64 tensors. See runtime/session.h.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/backend.h"
#include "runtime/node_call.h"
#include "runtime/plan.h"

namespace plumb::rt {

// How one non-control-flow node runs. The call record is NodeCall (runtime/node_call.h: node,
// input and output value pointers, numeric mode): the same contract for every backend's kernels. Outputs are
// preallocated when their type is static; otherwise they are empty and the runner assigns them.
class NodeRunner {
 public:
  virtual ~NodeRunner() = default;
  virtual Status run_node(NodeCall& cx) = 0;
};

// A BufferTable for `plan`: allocates the arena, binds constants and folded values, and sets
// every arena slot's tensor (a view into the arena with its planned shape).
Expected<BufferTable> make_buffer_table(const ir::Graph& g, const Plan& plan);

// Binds the graph inputs (in graph order) into `buffers`: by reference when the dtype matches the
// plan, widened to f64 into the arena slot otherwise (precise mode). The inputs must have the
// plan's input types (plan.matches).
Status bind_inputs(const ir::Graph& g, const Plan& plan, const std::vector<const RtValue*>& inputs,
                   BufferTable& buffers);

class Executor {
 public:
  Executor(const ir::Graph& g, const Plan& plan, NodeRunner& runner, const CompileOptions& options)
      : g_(g), plan_(plan), runner_(runner), options_(options) {}
  // Runs the whole graph: buffers were made by make_buffer_table(g, plan), inputs bound.
  Status run(BufferTable& buffers);

 private:
  Status run_region(const ir::Region& r, BufferTable& b);
  Status run_node_dynamic(const ir::Node& n, BufferTable& b);
  Status run_if(const ir::Node& n, BufferTable& b);
  Status run_while(const ir::Node& n, BufferTable& b);
  Status with_place(Status s, const ir::Node& n) const;
  Status escape(RtValue& v, const BufferTable& b) const;

  const ir::Graph& g_;
  const Plan& plan_;
  NodeRunner& runner_;
  CompileOptions options_;
  // One call record per top-level static node, pointing into the BufferTable it was built for.
  std::vector<NodeCall> calls_;
  const BufferTable* calls_for_ = nullptr;
  const RtValue* calls_base_ = nullptr;
};

// The precise-mode graph: every floating dtype in value types, constants (widened exactly),
// `to`/`dtype`/`elem` attributes becomes f64. `bitcast` and `rng` keep their native float types
// through an inserted exact cast (f64 -> native before a bitcast from float; native -> f64 after
// a bitcast or rng that produces a float).
Expected<ir::Graph> make_precise_graph(const ir::Graph& g);

}  // namespace plumb::rt
