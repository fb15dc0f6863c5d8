// ONNX FlexAttention (ai.onnx.preview, opset 1) lowered onto core ops: scaled dot-product
// attention over rank-4 Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] with grouped-query
// head sharing and two optional modifier subgraphs:
//   Scores = (Q K^T) * scale;  Scores = score_mod(Scores);  P = softmax(Scores, last axis);
//   P = prob_mod(P);  Y = P V   (Y [B, Hq, L, Ev]).
//
// Numerics (plumb's ruling R10-flex, spec/onnx-rulings.md; as Attention in attention.cpp): both
// matmuls, the scale and the softmax are computed in f64 and Y is rounded once to Q's dtype. The
// scale is applied to the scores as the operator's formula says; the ONNX function body and the
// reference instead multiply Q and K each by sqrt(scale) rounded to the input dtype, which only
// differs by rounding for a positive scale (and gives NaN for a negative one).
//
// Modifiers. score_mod and prob_mod are graphs of one tensor input and one tensor output of the
// scores' shape. ONNX types them in the softmax precision (the softmax_precision attribute, else
// f64 for f64 inputs and f32 otherwise), so the value handed to a modifier is the f64 value
// rounded once to that type, and its result is widened back to f64 exactly. A modifier is lowered
// inline, once, on the whole [B, Hq, L, S] tensor (the ONNX function body does the same: it
// inlines the graph on that tensor); it may compute its own index grids from Shape(scores), as
// the suite's causal and relative-position modifiers do.
//
// A row whose scores (after score_mod) are all -inf gives probabilities 0 (so Y's row is 0, or
// whatever prob_mod makes of zeros), as plumb's Attention and PyTorch's flex_attention do; the
// ONNX reference gives NaN there. An empty key sequence (S = 0) is such a row. NaN or +inf
// scores make their row NaN.
#include <cmath>
#include <string>
#include <vector>

#include "lowering/onnx/attention_common.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"
#include "lowering/onnx/subgraph.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;

namespace {

using attn::DimV;
using attn::known_ne;

Expected<int64_t> static_dim(LowerCtx& cx, ValueId v, int64_t axis, const char* what) {
  return attn::static_dim(cx, v, axis, "FlexAttention", what);
}

// The modifiers' element type: softmax_precision names an ONNX float type (FLOAT 1, FLOAT16 10,
// DOUBLE 11, BFLOAT16 16); absent, f64 inputs use f64 and all others f32 (the ONNX schema).
Expected<DType> modifier_dtype(const OnnxNode& n, DType input) {
  if (!n.has_attr("softmax_precision")) return input == DType::F64 ? DType::F64 : DType::F32;
  PLUMB_ASSIGN_OR_RETURN(int64_t sp, n.attr_int("softmax_precision", 1));
  switch (sp) {
    case 1: return DType::F32;
    case 10: return DType::F16;
    case 11: return DType::F64;
    case 16: return DType::BF16;
    default:
      return invalid_model(
          "", "FlexAttention softmax_precision must name a floating type (1, 10, 11 or 16), not " +
                  std::to_string(sp));
  }
}

// Applies the modifier graph attribute `name` (when given) to the f64 tensor `x` of i64[4] shape
// `shape`; returns x unchanged without one.
Expected<ValueId> apply_modifier(LowerCtx& cx, const OnnxNode& n, const char* name, ValueId x, ValueId shape,
                                 DType mod_dt) {
  if (!n.has_attr(name)) return x;
  const std::string what = std::string("FlexAttention ") + name;
  const onnx::OnnxGraph* g = graph_attr(n, name);
  if (!g) return invalid_model("", what + " must be a graph");
  if (g->inputs.size() != 1 || g->outputs.size() != 1)
    return invalid_model("", what + " must have exactly one input and one output, not " +
                                 std::to_string(g->inputs.size()) + " and " +
                                 std::to_string(g->outputs.size()));
  const std::optional<ir::Type>& declared = g->inputs[0].type;
  if (declared && declared->is_tensor() && declared->dtype != mod_dt)
    return invalid_model("", what + " input is declared " + ir::type_to_string(*declared) +
                                 " but takes the softmax precision " + std::string(ir::dtype_name(mod_dt)));
  const ir::Type in_t = cx.type(x);
  const ValueId arg = mod_dt == DType::F64 ? x : cx.b.cast(x, mod_dt);
  PLUMB_ASSIGN_OR_RETURN(std::vector<ValueId> outs, lower_subgraph(cx, *g, {arg}));
  ValueId y = outs[0];
  if (y == ir::kNoValue) return invalid_model("", what + " produces no output");
  const ir::Type t = cx.type(y);
  if (!t.is_tensor() || t.dtype != mod_dt || t.rank() != 4)
    return invalid_model("", what + " must yield a rank-4 " + std::string(ir::dtype_name(mod_dt)) +
                                 " tensor, not " + ir::type_to_string(t));
  for (size_t i = 0; i < 4; ++i)
    if (known_ne(t.shape[i].size, in_t.shape[i].size))
      return invalid_model(
          "", what + " changes the shape " + ir::type_to_string(in_t) + " to " + ir::type_to_string(t));
  // Symbolic dims the subgraph could not relate to the input's are checked when the graph runs.
  if (t.shape != in_t.shape) y = broadcast_to(cx, y, shape, 4);
  return to_f64(cx, y);
}

Status lower_flex_attention(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId q, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId k, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const DType dt = cx.type(q).dtype;
  if (!ir::is_float(dt)) return cx.invalid("FlexAttention inputs must be floating");
  if (cx.type(k).dtype != dt || cx.type(v).dtype != dt)
    return cx.invalid("FlexAttention Q, K, V dtypes differ");
  if (rank_of(cx, q) != 4 || rank_of(cx, k) != 4 || rank_of(cx, v) != 4)
    return cx.invalid("FlexAttention Q, K, V must be 4-D");
  auto mod_dt = modifier_dtype(n, dt);
  if (!mod_dt) return cx.fail(mod_dt.status());

  // Batch and sequence lengths may be symbolic; head counts and head sizes are static.
  attn::Dims dm{cx};
  const DimV B = dm.of(q, 0), L = dm.of(q, 2), S = dm.of(k, 2);
  PLUMB_ASSIGN_OR_RETURN(int64_t Hq, static_dim(cx, q, 1, "head count"));
  PLUMB_ASSIGN_OR_RETURN(int64_t Hkv, static_dim(cx, k, 1, "head count"));
  PLUMB_ASSIGN_OR_RETURN(int64_t Hv, static_dim(cx, v, 1, "head count"));
  PLUMB_ASSIGN_OR_RETURN(int64_t E, static_dim(cx, q, 3, "head size"));
  PLUMB_ASSIGN_OR_RETURN(int64_t Ek, static_dim(cx, k, 3, "head size"));
  PLUMB_ASSIGN_OR_RETURN(int64_t Ev, static_dim(cx, v, 3, "head size"));
  if (Hv != Hkv)
    return cx.invalid("FlexAttention K and V head counts differ (" + std::to_string(Hkv) + " and " +
                      std::to_string(Hv) + ")");
  if (Ek != E)
    return cx.invalid("FlexAttention Q and K head sizes differ (" + std::to_string(E) + " and " +
                      std::to_string(Ek) + ")");
  if (known_ne(dm.of(k, 0).n, B.n) || known_ne(dm.of(v, 0).n, B.n))
    return cx.invalid("FlexAttention batch sizes differ");
  if (known_ne(dm.of(v, 2).n, S.n)) return cx.invalid("FlexAttention K and V sequence lengths differ");
  if (Hq != Hkv && (Hkv <= 0 || Hq % Hkv != 0))
    return cx.invalid("FlexAttention q_num_heads (" + std::to_string(Hq) +
                      ") must be a multiple of kv_num_heads (" + std::to_string(Hkv) + ")");
  const int64_t rep = Hq == Hkv ? 1 : Hq / Hkv;

  // Scores [B, Hq, L, S] in f64.
  PLUMB_ASSIGN_OR_RETURN(double scale, attn::float_attr(n, "scale", 1.0 / std::sqrt(static_cast<double>(E))));
  const ValueId shape = dm.shape({B, dm.c(Hq), L, S});
  ValueId k64 = attn::repeat_heads(cx, dm, to_f64(cx, k), B, Hkv, rep, S, E);
  ValueId v64 = attn::repeat_heads(cx, dm, to_f64(cx, v), B, Hkv, rep, S, Ev);
  ValueId s = cx.b.matmul(to_f64(cx, q), cx.b.transpose(k64, {0, 1, 3, 2}), DType::F64);
  // With E = 0 every score is an empty sum, 0, whatever the scale (the default one is then inf,
  // and 0 * inf would make it NaN).
  if (E > 0) s = cx.b.binary(BK::Mul, s, attn::fill(cx, scale, shape));

  PLUMB_ASSIGN_OR_RETURN(s, apply_modifier(cx, n, "score_mod", s, shape, *mod_dt));
  ValueId p = attn::softmax_rows(cx, s, shape);
  PLUMB_ASSIGN_OR_RETURN(p, apply_modifier(cx, n, "prob_mod", p, shape, *mod_dt));

  ValueId y = cx.b.matmul(p, v64, DType::F64);  // [B, Hq, L, Ev]
  cx.set_output(n, 0, cx.b.cast(y, dt));
  return cx.error();
}

}  // namespace

void register_flex_attention(Registry& r) {
  r.add_in("ai.onnx.preview", "FlexAttention", {1, 1}, lower_flex_attention);
}

}  // namespace plumb::lower
