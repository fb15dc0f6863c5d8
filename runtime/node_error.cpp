#include "runtime/node_error.h"

#include <string>
#include <utility>

#include "ir/guard.h"

namespace plumb::rt {

std::string top_level_place(const ir::Graph& g, size_t node) {
  int64_t preorder = 0;
  for (size_t i = 0; i < node && i < g.body.nodes.size(); ++i) preorder += ir::preorder_size(g.body.nodes[i]);
  return node < g.body.nodes.size() ? ir::node_place(g.body.nodes[node], preorder) : std::string();
}

Status node_error(Status s, const ir::Node& n, int64_t preorder) {
  if (s.is_ok() || !s.place().empty()) return s;
  const std::string guard = ir::kUndefinedStep;
  if (s.code() == ErrorCode::kRuntimeError && n.prov.step.compare(0, guard.size(), guard) == 0)
    s = Status(ErrorCode::kRuntimeError,
               "the result is undefined: " + n.prov.step.substr(guard.size()) +
                   " (ONNX leaves it undefined; stopped by a guard's " + s.label() + ")",
               "onnx-rulings.R11");
  return s.with_place(ir::node_place(n, preorder));
}

}  // namespace plumb::rt
