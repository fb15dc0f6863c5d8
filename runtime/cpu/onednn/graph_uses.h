// Who reads what in a graph's top-level body: the pattern matchers' (fusion.cpp, norm_match.cpp)
// view of a value's readers, its defining node and whether it is a graph result.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace plumb::rt::onednn {

// Who reads what: per value, the top-level nodes that read it (one entry per operand; a region's
// read counts for the node that holds the region), and how often it is a graph result.
struct Uses {
  std::vector<std::vector<uint32_t>> readers;
  std::vector<int> results;
  std::vector<int64_t> def;  // top-level node defining the value, -1 (graph input or region value)
};

inline void add_reads(const ir::Node& n, uint32_t at, Uses& u) {
  for (ir::ValueId v : n.inputs)
    if (v < u.readers.size()) u.readers[v].push_back(at);
  for (const ir::Region& r : n.regions) {
    for (const ir::Node& m : r.nodes) add_reads(m, at, u);
    for (ir::ValueId v : r.results)
      if (v < u.readers.size()) u.readers[v].push_back(at);
  }
}

inline Uses uses_of(const ir::Graph& g) {
  Uses u;
  u.readers.resize(g.values.size());
  u.results.assign(g.values.size(), 0);
  u.def.assign(g.values.size(), -1);
  const auto& nodes = g.body.nodes;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    add_reads(nodes[i], i, u);
    for (ir::ValueId v : nodes[i].outputs)
      if (v < u.def.size()) u.def[v] = i;
  }
  for (ir::ValueId v : g.body.results)
    if (v < u.results.size()) ++u.results[v];
  return u;
}

}  // namespace plumb::rt::onednn
