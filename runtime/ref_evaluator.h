// The runtime's ir::Evaluator (ir/evaluator.h): a folded graph runs on a `ref` session in native
// mode, so its value is what the same nodes give in any run (the planner evaluates the small ones
// with the ref kernels, the executor runs the rest). Stateless: one may serve any number of
// builders, lowerings and folders, in any threads.
#pragma once

#include "ir/evaluator.h"

namespace plumb::rt {

class RefEvaluator final : public ir::Evaluator {
 public:
  std::optional<ir::ConstantData> evaluate(ir::Graph g, int64_t max_bytes) const override;
};

}  // namespace plumb::rt
