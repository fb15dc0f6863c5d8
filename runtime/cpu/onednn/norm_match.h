// The cpu backend's softmax and layer normalization spans (issue 16): the core nodes that the ONNX
// lowering emits for Softmax (opset 13+) and LayerNormalization, matched back onto oneDNN's
// softmax_forward and layer_normalization_forward. Graph analysis only (no oneDNN here).
//
// Both lowerings compute in f64 between a cast of the f32 source and a cast of the result back to
// f32 (lowering/onnx/); the matched forms, each binary operand order free where the op commutes:
//   softmax    x64 = cast x; m = reduce max x64 [a]; d = x64 - broadcast m;
//              y = cast(exp d / broadcast(reduce sum (exp d) [a]))   (one exp node, or two of d)
//   layer norm x64 = cast x; mean = reduce sum x64 [a] / n; d = x64 - broadcast mean;
//              var = reduce sum (d * d) [a] / n; inv = broadcast 1 / sqrt(broadcast var + broadcast eps);
//              y = cast((d * inv) * gamma [+ beta])
//              n: the row length C, a constant or the reduce sum of a broadcast 1 (the lowering
//              counts at run time); gamma, beta: broadcasts along a of f32 [C] constants (cast to
//              f64) or of f64 constants that f32 holds exactly; a the last axis; eps exact in f32
// Preconditions: x f32 with a static shape, a single reduced axis, every value between the casts
// read only inside the span and no graph result, every node between the first cast and the last
// one part of the pattern (or a constant read only inside it). A pattern whose structure matched
// but whose precondition failed is declined at its last cast with the reason.
//
// The declared error (spec/numerics.md "cpu"): oneDNN's exp and its scaling by 1/sum (softmax),
// its 1/sqrt (layer norm) are not ref's; check widens its noise model at `declared` by `width`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"
#include "runtime/numeric_mode.h"

namespace plumb::rt::onednn {

struct NormSpan {
  enum class Kind : uint8_t { kSoftmax, kLayerNorm } kind = Kind::kSoftmax;
  NodeSpan span;
  ir::ValueId src = ir::kNoValue;     // x (f32)
  ir::ValueId result = ir::kNoValue;  // y (f32), the span's one result
  int axis = -1;
  std::vector<float> gamma, beta;  // layer norm: [C] (beta empty: none)
  float eps = 0;
  // The value whose local error the declared error widens (softmax: y; layer norm: d * inv) and by
  // how much, in units of u|value| (u: f32's unit roundoff), spec/numerics.md.
  ir::ValueId declared = ir::kNoValue;
  double width = 0;
  std::string description() const;  // "softmax" | "layer_norm"
};

struct NormMatch {
  std::vector<NormSpan> spans;  // in graph order, disjoint
  std::vector<Claim> declines;  // recognized but not taken, with the reason, at the last cast
};

NormMatch match_norms(const ir::Graph& g, NumericMode mode);

// The declared error's half-widths (spec/numerics.md), measured on oneDNN 2.6 (avx512_core):
// softmax's result beyond the error of rounding x - max to f32 (max 10.5 u over 3.4M elements,
// rows of 128 and 1000), layer norm's normalized value (max 3.8 u with gamma 1, beta 0).
constexpr double kSoftmaxDeclaredWidth = 16;
constexpr double kLayerNormDeclaredWidth = 6;

}  // namespace plumb::rt::onednn
