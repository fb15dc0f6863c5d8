#include "check/span.h"

#include <algorithm>
#include <functional>
#include <map>

namespace plumb::check {

// Values defined inside the regions have no top-level producer and end a walk by themselves.
void reads_of(const ir::Node& n, std::vector<ir::ValueId>& out) {
  out.insert(out.end(), n.inputs.begin(), n.inputs.end());
  for (const ir::Region& r : n.regions)
    for (const ir::Node& m : r.nodes) reads_of(m, out);
}

DivergenceSpan divergence_span(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes, ir::ValueId value,
                               const std::set<ir::ValueId>& known) {
  std::map<ir::ValueId, size_t> producer;  // top-level core node of each value
  for (size_t k = 0; k < g.body.nodes.size(); ++k)
    for (ir::ValueId v : g.body.nodes[k].outputs) producer.emplace(v, k);
  const std::set<ir::ValueId> params(g.body.params.begin(), g.body.params.end());
  DivergenceSpan span;
  std::set<size_t> visited, groups;
  std::set<ir::ValueId> agreeing;
  std::vector<ir::ValueId> todo = {value};
  while (!todo.empty()) {
    const ir::ValueId v = todo.back();
    todo.pop_back();
    if (v != value && known.count(v)) {
      agreeing.insert(v);
      continue;
    }
    if (params.count(v)) {
      span.from_graph_inputs = true;
      continue;
    }
    const auto p = producer.find(v);
    if (p == producer.end() || !visited.insert(p->second).second) continue;
    reads_of(g.body.nodes[p->second], todo);
  }
  // A node that reads neither a graph input nor a known tensor, directly or through others,
  // computes a constant (an Identity or Cast of a weight, as torch exports them): it belongs with
  // the weights of the node that reads it, and is not counted as a place of the divergence.
  std::map<size_t, bool> data;  // core node -> reads a graph input or a known tensor
  std::function<bool(size_t)> reads_data = [&](size_t k) {
    if (auto it = data.find(k); it != data.end()) return it->second;
    data[k] = false;  // SSA: no cycles; guards the recursion anyway
    std::vector<ir::ValueId> in;
    reads_of(g.body.nodes[k], in);
    bool any = false;
    for (ir::ValueId v : in) {
      if (params.count(v) || (v != value && known.count(v)))
        any = true;
      else if (auto q = producer.find(v); q != producer.end() && q->second != k)
        any = any || reads_data(q->second);
      if (any) break;
    }
    return data[k] = any;
  };
  const size_t own = producer.count(value) ? producer[value] : SIZE_MAX;
  for (size_t k : visited) {
    if (nodes.empty() || (k != own && !reads_data(k))) continue;
    const size_t group = group_of(nodes, k);
    if (!nodes[group].op_type.empty()) groups.insert(group);
  }
  span.nodes.assign(groups.begin(), groups.end());
  std::vector<std::pair<size_t, ir::ValueId>> order;  // by producer: topological
  for (ir::ValueId v : agreeing) order.emplace_back(producer.count(v) ? producer[v] : 0, v);
  std::sort(order.begin(), order.end());
  for (const auto& [at, v] : order) span.agreeing.push_back(v);
  return span;
}

}  // namespace plumb::check
