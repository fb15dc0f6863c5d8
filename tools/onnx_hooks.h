// Hooks through which the core-only CLI reaches the ONNX frontend. tools/main.cpp defines them weak
// ("not in this build"), so the tiny build links without protobuf; tools/onnx/load_onnx.cpp gives
// the real definitions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::cli {

// .onnx -> core graph.
Expected<ir::Graph> load_onnx_as_core(const std::string& path);

// Reads the value the caller will feed to graph input k (declared `type`), or nullopt when it has
// none.
using InputReader = std::function<Expected<std::optional<rt::RtValue>>(size_t k, const std::string& name,
                                                                       const ir::Type& type)>;

// .onnx -> core graph, specialized on the values of graph inputs that the model uses as
// attribute-like parameters (axes, pads, a shape: see lowering/onnx/context.h). `read` is called
// once per graph input, in order; `specialized` receives the names of the inputs the graph was
// specialized on.
Expected<ir::Graph> load_onnx_as_core_specialized(const std::string& path, const InputReader& read,
                                                  std::vector<std::string>* specialized);

}  // namespace plumb::cli
