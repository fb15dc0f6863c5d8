// Evaluating constant core graphs ahead of a run (folding), as an interface. ir/ decides what is
// folded (ir/fold.h: the builder's shape arithmetic, the lowering's computed parameters, plumb
// diff's weights); a runtime evaluates it: rt::RefEvaluator (runtime/ref_evaluator.h) runs the
// graph on a `ref` session, whose planner evaluates the small nodes and whose executor runs the
// rest with the same kernels as any run, so a folded value is exactly what the graph computes.
// The lowering takes an Evaluator from its caller and so never links a runtime.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/graph.h"

namespace plumb::ir {

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // The value of the one result of `g`, a graph with no inputs whose nodes read only its constants,
  // in file format; nullopt when it does not run: not well typed, a run-time error (left for the
  // graph to report when it runs), more than `max_bytes` of memory, or a result that is not a
  // tensor of a dtype whose run-time layout is the file's.
  virtual std::optional<ConstantData> evaluate(Graph g, int64_t max_bytes) const = 0;
};

}  // namespace plumb::ir
