// Helpers of the cpu backend's unit tests (cpu_backend_test, gelu_test, island_test): operand
// values, and what the matcher (runtime/cpu/onednn/fusion.h) makes of a graph, as the
// descriptions the tests compare.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cpu/onednn/fusion.h"

namespace plumb::rt::testing {

// Deterministic values in [-scale, scale).
inline std::vector<double> values(int64_t n, uint32_t seed, double scale = 1.0) {
  std::vector<double> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 1;
  for (double& x : v) {
    s = s * 1664525u + 1013904223u;
    x = scale * (static_cast<double>(s >> 8) / static_cast<double>(1 << 23) - 1.0);
  }
  return v;
}

// The fused units the matcher claims, each as "conv+bias+relu" and the like, in graph order.
inline std::vector<std::string> claimed(const ir::Graph& g, NumericMode mode = NumericMode::kNative) {
  std::vector<std::string> out;
  for (const onednn::Fused& f : onednn::match_graph(g, mode).fused) out.push_back(f.description());
  return out;
}

// Its islands, each as its units joined by " > ".
inline std::vector<std::string> islands(const ir::Graph& g, NumericMode mode = NumericMode::kNative) {
  std::vector<std::string> out;
  for (const onednn::Island& is : onednn::match_graph(g, mode).islands) out.push_back(is.description());
  return out;
}

}  // namespace plumb::rt::testing
