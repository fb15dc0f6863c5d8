// The per-graph half of dispatch (runtime/backend.h phases 1 and 2): ask the backend which spans
// it claims, refuse the claims the executor cannot honour (overlapping, out of order, holding a
// host-only node), decode the constants once, let the backend prepare its claims, and upload the
// constants its spans read when its memory is a device's. Made once per graph by the session;
// every plan's schedule (runtime/schedule.h) starts from it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/backend.h"

namespace plumb::rt {

// Host-only nodes run on the host whatever the backend: the ops whose values are host objects
// (string, map, sequence, optional, image_decode's codecs) and any node with a string or
// container operand or result. Why not, or ok.
Support host_only(const ir::Graph& g, const ir::Node& n);

// The pre-order index (ir::node_place's) of each top-level node.
std::vector<int64_t> body_preorder(const ir::Graph& g);

struct Partition {
  Backend* backend = nullptr;
  std::vector<Claim> claims;          // what the backend answered, refused claims turned into declines
  std::vector<NodeSpan> spans;        // the accepted claims, in order (PreparedGraph::compile's index)
  std::vector<int32_t> node_span;     // per top-level node: index into `spans`, or -1
  std::vector<std::string> node_why;  // per top-level node outside `spans`: why ("" for ref)
  // Decoded once per graph, indexed by ir::Graph::constants (empty for those no top-level node
  // uses): the plans bind these instead of decoding again.
  std::vector<std::optional<Tensor>> constants;
  // Device backends: each constant a claimed span reads, in the backend's memory.
  std::vector<Tensor> device_constants;
  std::unique_ptr<PreparedGraph> prepared;  // null when nothing is claimed
};

// `g` verified, the graph that runs (the f64 one in precise mode); `backend` and `g` outlive the
// result.
Expected<Partition> partition_graph(const ir::Graph& g, Backend& backend, NumericMode mode, int threads = 1);

}  // namespace plumb::rt
