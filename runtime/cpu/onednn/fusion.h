// The cpu backend's pattern matching (issue 16): which spans of a graph's top-level body map back
// onto one oneDNN primitive with its post-ops. Graph analysis only (no oneDNN here), so the rules
// are unit-tested on their own (tests/cpu/fusion_test.cpp).
//
// A span is an anchor and the nodes it absorbs, in this order, each optional (before the anchor
// only the transpose of a 2-D constant matmul rhs, a Gemm's transB, with constants between):
//   anchor     conv (1-D to 3-D, f32, no input dilation) or matmul (f32)
//   reshape    matmul only: a reshape of the product that keeps its last dim (the lowering's
//              output reshape of a batched MatMul); the bytes do not move
//   bias       binary add of a broadcast of a 1-D f32 constant along the channel axis (conv: 1,
//              matmul: the last), or of a constant of the result's shape that varies along that
//              axis only (the same broadcast, folded by the builder); the primitive's bias
//   residual   binary add of an f32 value of the same shape defined before the span: a sum post-op
//   act        relu (binary max with a broadcast +0) or clip (max with a broadcast lo, then min
//              with a broadcast nonzero hi): applied by the span to its result with ref's
//              max/min semantics (oneDNN's relu and clip turn NaN into 0, and spec max/min
//              propagate NaN), in the same pass that leaves the primitive
// with constant nodes, and the broadcasts that feed only the next absorbed node, in between. A max
// pool (f32, over the spatial dims, no window wholly in the padding) is a span of its own. Each
// absorbed step needs the value before it to have exactly one reader (that step) and not to be a
// graph result, so no value the span swallows is seen by anything else. What stops a span is
// said (Claim::support of a decline at the node that was not absorbed, or at the anchor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"
#include "runtime/numeric_mode.h"

namespace plumb::rt::onednn {

enum class Act : uint8_t { kNone, kRelu, kClip };

// One matched span: the nodes and values the primitive stands for.
struct Fused {
  NodeSpan span;
  uint32_t anchor = 0;                 // the conv or matmul node
  bool conv = false;                   // else matmul or pool
  bool pool = false;                   // a max pool, alone (weights kNoValue)
  ir::ValueId src = ir::kNoValue;      // the anchor's data operand (conv input, matmul lhs)
  ir::ValueId weights = ir::kNoValue;  // conv weight, matmul rhs (any value)
  // The matmul rhs is the transpose of `weights`, a 2-D constant [N, K] (the span starts at the
  // transpose node): packed from it directly.
  bool weights_transposed = false;
  ir::ValueId bias = ir::kNoValue;  // the 1-D f32 constant, or kNoValue
  // -1: `bias` is that 1-D constant; else `bias` is a constant of the result's shape that varies
  // along this axis only (a broadcast the builder folded): its channel values are the bias.
  int bias_axis = -1;
  ir::ValueId residual = ir::kNoValue;  // the summed value, or kNoValue
  Act act = Act::kNone;
  float lo = 0, hi = 0;  // kClip's bounds (kRelu: 0, unused)
  // matmul only, after the bias: BERT's exact GELU as the ONNX export writes it,
  // ((x / c) erf + one) * x * k with each binary node's operand order kept (erf_first: erf + one,
  // x_first: x * (..), m_first: (..) * k); the standard form (gelu_standard) is oneDNN's gelu_erf
  // post-op, any other runs in the span with ref's f32 operations and erff.
  bool gelu = false;
  float gelu_c = 0, gelu_one = 0, gelu_k = 0;
  bool erf_first = true, x_first = true, m_first = true;
  // The GELU is x * (erf(x / fl(sqrt 2)) + 1) * 0.5 (any operand order): oneDNN's eltwise_gelu_erf,
  // taken as a post-op within the declared error of spec/numerics.md (kGeluDeclaredWidth).
  bool gelu_standard() const { return gelu && gelu_c == 1.41421354f && gelu_one == 1.0f && gelu_k == 0.5f; }
  ir::ValueId result = ir::kNoValue;  // the span's one result (the last absorbed node's)
  std::string description() const;    // "conv+bias+sum+relu"
};

// Consecutive conv and max pool units where each one's source is the previous one's result, read
// by nothing outside the island and not a graph result (the nodes between them only constants and
// broadcasts of constants read inside the island), and each summand defined before the island or
// the result of one of its earlier units (a residual block's input, kept for that sum): one span,
// whose inner values stay in the layouts oneDNN chose (no reorder to the graph's plain layout and
// back between the units). A unit on its own is an island of one.
struct Island {
  NodeSpan span;
  std::vector<Fused> units;
  std::string description() const;  // the units' descriptions joined by " > "
};

struct Match {
  std::vector<Claim> claims;    // for Backend::partition: sorted, disjoint
  std::vector<Fused> fused;     // every matched unit, in graph order
  std::vector<Island> islands;  // one per claim with support.yes, in the same order
};

// Every span of g.body that the cpu backend claims, and the declines with their reasons. In
// precise mode nothing is claimed (oneDNN has no f64 primitives on the cpu).
Match match_graph(const ir::Graph& g, NumericMode mode);

// The declared error of a standard GELU post-op (spec/numerics.md), in u|y| on its result: oneDNN
// 2.6's gelu_erf measured within 4.8 u (|y| + |x| / 2) over 4M normal x of spread 3; the |x| / 2
// part lies within the core model's erf (Ulp4) term, the |y| part is declared.
constexpr double kGeluDeclaredWidth = 6;

}  // namespace plumb::rt::onednn
