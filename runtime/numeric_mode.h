// How floating ops are evaluated; every backend and the planner take it.
#pragma once

namespace plumb::rt {

// native: each op computed and rounded in its own dtype, as the spec defines.
// precise: floating ops evaluated in f64 (the spec's reference for error bounds): the executor
//   runs the graph with every floating value widened to f64, so kernels see f64 tensors.
enum class NumericMode { kNative, kPrecise };

}  // namespace plumb::rt
