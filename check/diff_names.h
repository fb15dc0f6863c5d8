// How `plumb diff` (check/diff.h) names what it reports: core nodes and spans of them as the span
// lists show them, attribute values, and the ONNX node a top-level core node stands for.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace plumb::check {

// parts joined by `sep`, at most `most` of them ("a, b, c... (12 in all)")
std::string join(const std::vector<std::string>& parts, const char* sep, size_t most = SIZE_MAX);
// "[1,2,3]"; at most 16 values
std::string list_text(const std::vector<int64_t>& v);
std::string list_text(const std::vector<double>& v);
// An attribute's value as `plumb print` shows it ("[1,1]", "mul", "f32[2,3]")
std::string attr_text(const ir::Node& n, const ir::Attr& a);
// "binary add", "conv": a core node as the span lists show it
std::string node_label(const ir::Node& n);
// "2 core nodes [binary mul, unary exp]": top-level nodes `nodes` of g
std::string span_text(const ir::Graph& g, const std::vector<size_t>& nodes);
// The ONNX node a top-level core node stands for: its own provenance, or for an unattributed
// constant (an initializer) that of its first reader.
const ir::Provenance& owner(const ir::Graph& g, size_t k);
// ONNX node names are unique (an op swapped keeps its name); unnamed nodes go by their op type.
std::string group_key(const ir::Provenance& p);
// "Conv '/conv1/Conv'", or "Conv (unnamed)"
std::string onnx_node_text(const ir::Provenance& p);

}  // namespace plumb::check
