// ONNX RotaryEmbedding (23), LinearAttention (27) and SwiGLU (28) lowered onto core ops.
//
// RotaryEmbedding: x is split into its rotated part (the first rotary_embedding_dim entries of
// each head, all of them when 0) and the rest; the rotated part is split into halves or into
// even/odd entries (interleaved), and real = cos*x1 - sin*x2, imag = sin*x1 + cos*x2 (the ONNX
// algorithm's order). cos/sin come from the caches gathered at position_ids (2-D caches) or are
// given per [batch, seq] (3-D caches). Out-of-range position_ids are a gather.R1 error (no
// numpy-style negative wrap). Computed in the input dtype (f16/bf16 in f32), rounded once.
//
// LinearAttention: the recurrence of the ONNX definition, unrolled over the (static) sequence
// length, in f32 as the ONNX reference and function body do (inputs cast to f32; output cast to
// query's dtype, present_state to past_state's, or query's when past_state is absent). Per step:
//   S = S * exp(g_t)                              (gated, gated_delta; g_t per head or per key dim)
//   v_t = beta_t * (v_t - S^T k_t)                (delta, gated_delta; S after the decay)
//   S = S + k_t (x) v_t;  o_t = scale * q_t^T S   (GQA: query head h reads kv head h / group)
// chunk_size is a tuning hint with no effect.
//
// SwiGLU: Y = Swish_alpha(A) * B, Swish_alpha(a) = a * sigmoid(alpha * a) evaluated in f64 and
// rounded once to A's dtype (as the Swish lowering does), then multiplied by B in that dtype
// (the ONNX function body: Swish, then Mul).
#include <cmath>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;

namespace {

using Ints = std::vector<int64_t>;

// x[..., idx[k], ...] along `axis` for constant indices.
ValueId pick(LowerCtx& cx, ValueId x, int64_t axis, const Ints& idx) {
  return cx.b.gather(ir::GatherKind::Axis, x,
                     cx.b.const_ints(DType::I64, {static_cast<int64_t>(idx.size())}, idx), axis);
}

ValueId take(LowerCtx& cx, ValueId x, int64_t axis, int64_t idx) {
  return cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, axis, 0}, {x, cx.b.scalar_int(DType::I64, idx)});
}

ValueId cast_to(LowerCtx& cx, ValueId v, DType dt) { return cx.type(v).dtype == dt ? v : cx.b.cast(v, dt); }

// dims [0, k) of x's shape as an i64[k] value (constant when static).
ValueId lead_dims(LowerCtx& cx, ValueId x, int64_t k) {
  const ir::Type t = cx.type(x);
  Ints st;
  for (int64_t i = 0; i < k; ++i) {
    if (!t.shape[static_cast<size_t>(i)].is_static())
      return cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(x), cx.b.shape_const({0}), cx.b.shape_const({k}),
                                           cx.b.shape_const({1})});
    st.push_back(t.shape[static_cast<size_t>(i)].size);
  }
  return cx.b.shape_const(st);
}

ValueId with_tail(LowerCtx& cx, ValueId lead, const Ints& tail) {
  return cx.b.concat({lead, cx.b.shape_const(tail)}, 0);
}

Expected<int64_t> static_last(LowerCtx& cx, ValueId x, const char* what) {
  const ir::Type t = cx.type(x);
  const ir::Dim d = t.shape.back();
  if (!d.is_static()) return unsupported(std::string(what) + " with a symbolic last dim");
  return d.size;
}

// ---- RotaryEmbedding-23 ---------------------------------------------------------------------

Status lower_rotary_embedding(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId cos, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId sin, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t interleaved, n.attr_int("interleaved", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t rot, n.attr_int("rotary_embedding_dim", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t num_heads, n.attr_int("num_heads", 0));
  const DType dt = cx.type(x).dtype;
  if (!ir::is_float(dt) || cx.type(cos).dtype != dt || cx.type(sin).dtype != dt)
    return cx.invalid("RotaryEmbedding input and caches must share one floating dtype");
  const int64_t r = rank_of(cx, x);
  if (r != 3 && r != 4) return cx.invalid("RotaryEmbedding input must be 3-D or 4-D");
  PLUMB_ASSIGN_OR_RETURN(int64_t last, static_last(cx, x, "RotaryEmbedding input"));
  ValueId x4 = x;
  int64_t head = last;
  Ints cache_dims = {0, 2, 3};  // where [B, S, r/2] lands in x4's [B, NH, S, r/2]
  if (r == 3) {
    if (num_heads <= 0) return cx.invalid("RotaryEmbedding with 3-D input needs num_heads > 0");
    if (last % num_heads != 0)
      return cx.invalid("RotaryEmbedding hidden size must be a multiple of num_heads");
    head = last / num_heads;
    x4 = cx.b.reshape(x, with_tail(cx, lead_dims(cx, x, 2), {num_heads, head}));  // [B, S, NH, Hd]
    cache_dims = {0, 1, 3};
  }
  if (rot == 0) rot = head;
  if (rot < 0 || rot > head || rot % 2 != 0)
    return cx.invalid(strfmt("rotary_embedding_dim %lld must be even and at most the head size %lld",
                             (long long)rot, (long long)head));
  const int64_t half = rot / 2;
  if (cx.has_input(n, 3)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId pos, cx.input(n, 3));
    PLUMB_RETURN_IF_ERROR(cx.error());
    if (rank_of(cx, pos) != 2 || !ir::is_int(cx.type(pos).dtype))
      return cx.invalid("RotaryEmbedding position_ids must be a 2-D integer tensor");
    if (rank_of(cx, cos) != 2 || rank_of(cx, sin) != 2)
      return cx.invalid("RotaryEmbedding caches must be 2-D when position_ids are given");
    cos = cx.b.gather(ir::GatherKind::Axis, cos, pos, 0);
    sin = cx.b.gather(ir::GatherKind::Axis, sin, pos, 0);
    PLUMB_RETURN_IF_ERROR(cx.error());  // a refused gather (e.g. int8 ids) leaves no shape to read
  } else if (rank_of(cx, cos) != 3 || rank_of(cx, sin) != 3) {
    return cx.invalid("RotaryEmbedding caches must be 3-D without position_ids");
  }
  for (ValueId c : {cos, sin}) {
    const ir::Dim d = cx.dim(c, -1);
    if (d.is_static() && d.size != half)
      return cx.invalid(
          strfmt("RotaryEmbedding cache last dim %lld does not match rotary_embedding_dim/2 = %lld",
                 (long long)d.size, (long long)half));
  }
  ValueId xc = to_compute(cx, x4);
  Ints i1, i2;
  for (int64_t j = 0; j < half; ++j) {
    i1.push_back(interleaved ? 2 * j : j);
    i2.push_back(interleaved ? 2 * j + 1 : half + j);
  }
  ValueId x1 = pick(cx, xc, 3, i1), x2 = pick(cx, xc, 3, i2);
  ValueId shape = shape_value(cx, x1);
  ValueId cb = cx.b.broadcast(to_compute(cx, cos), shape, cache_dims);
  ValueId sb = cx.b.broadcast(to_compute(cx, sin), shape, cache_dims);
  auto mul = [&](ValueId a, ValueId b) { return cx.b.binary(BK::Mul, a, b); };
  ValueId real = cx.b.binary(BK::Sub, mul(cb, x1), mul(sb, x2));
  ValueId imag = cx.b.binary(BK::Add, mul(sb, x1), mul(cb, x2));
  ValueId rotated = cx.b.concat({real, imag}, 3);
  if (interleaved) {
    Ints perm;  // [r0, i0, r1, i1, ...]
    for (int64_t j = 0; j < half; ++j) {
      perm.push_back(j);
      perm.push_back(half + j);
    }
    rotated = pick(cx, rotated, 3, perm);
  }
  ValueId y = rotated;
  if (rot < head) {
    Ints rest;
    for (int64_t j = rot; j < head; ++j) rest.push_back(j);
    y = cx.b.concat({rotated, pick(cx, xc, 3, rest)}, 3);
  }
  y = from_compute(cx, y, dt);
  if (r == 3) y = cx.b.reshape(y, shape_value(cx, x));
  cx.set_output(n, 0, y);
  return cx.error();
}

// ---- LinearAttention-27 ---------------------------------------------------------------------

Status lower_linear_attention(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId q, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId k, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(std::string rule, n.attr_string("update_rule", "gated_delta"));
  PLUMB_ASSIGN_OR_RETURN(float scale_attr, n.attr_float("scale", 0.0f));
  if (!n.has_attr("q_num_heads") || !n.has_attr("kv_num_heads"))
    return cx.invalid("LinearAttention needs q_num_heads and kv_num_heads");
  PLUMB_ASSIGN_OR_RETURN(int64_t hq, n.attr_int("q_num_heads", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t hkv, n.attr_int("kv_num_heads", 0));
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    return cx.invalid("update_rule must be linear, gated, delta or gated_delta, got '" + rule + "'");
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
    return cx.invalid("q_num_heads must be a positive multiple of kv_num_heads");
  const bool gating = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  if (gating != cx.has_input(n, 4))
    return cx.invalid("update_rule '" + rule + (gating ? "' requires" : "' forbids") + " the decay input");
  if (delta != cx.has_input(n, 5))
    return cx.invalid("update_rule '" + rule + (delta ? "' requires" : "' forbids") + " the beta input");
  const DType dt = cx.type(q).dtype;
  if (!ir::is_float(dt) || cx.type(k).dtype != dt || cx.type(v).dtype != dt)
    return cx.invalid("LinearAttention query, key and value must share one floating dtype");
  if (rank_of(cx, q) != 3 || rank_of(cx, k) != 3 || rank_of(cx, v) != 3)
    return cx.invalid("LinearAttention query, key and value must be 3-D");
  const ir::Dim tdim = cx.dim(q, 1);
  if (!tdim.is_static()) return cx.unsupported("LinearAttention with a symbolic sequence length (unrolled)");
  const int64_t T = tdim.size;
  PLUMB_ASSIGN_OR_RETURN(int64_t qlast, static_last(cx, q, "LinearAttention query"));
  PLUMB_ASSIGN_OR_RETURN(int64_t klast, static_last(cx, k, "LinearAttention key"));
  PLUMB_ASSIGN_OR_RETURN(int64_t vlast, static_last(cx, v, "LinearAttention value"));
  if (qlast % hq != 0 || vlast % hkv != 0)
    return cx.invalid("LinearAttention hidden sizes must divide by the heads");
  const int64_t dk = qlast / hq, dv = vlast / hkv, group = hq / hkv;
  if (klast != hkv * dk) return cx.invalid("LinearAttention key's last dim must be kv_num_heads * d_k");
  const DType f32 = DType::F32;
  ValueId bdim = lead_dims(cx, q, 1);  // i64[1]
  auto shp = [&](const Ints& tail) { return with_tail(cx, bdim, tail); };
  // [B, T, H*D] -> [B, H, T, D] in f32.
  auto heads = [&](ValueId x, int64_t h, int64_t d) {
    return cast_to(cx, cx.b.transpose(cx.b.reshape(x, shp({T, h, d})), {0, 2, 1, 3}), f32);
  };
  ValueId q4 = heads(q, hq, dk), k4 = heads(k, hkv, dk), v4 = heads(v, hkv, dv);
  ValueId decay4 = ir::kNoValue, beta4 = ir::kNoValue;
  int64_t decay_w = 0;
  if (gating) {
    PLUMB_ASSIGN_OR_RETURN(ValueId g, cx.input(n, 4));
    PLUMB_RETURN_IF_ERROR(cx.error());
    if (rank_of(cx, g) != 3 || cx.type(g).dtype != dt)
      return cx.invalid("LinearAttention decay must be 3-D, like query");
    PLUMB_ASSIGN_OR_RETURN(int64_t gl, static_last(cx, g, "LinearAttention decay"));
    if (gl != hkv && gl != hkv * dk)
      return cx.invalid("LinearAttention decay's last dim must be H_kv or H_kv * d_k");
    decay_w = gl / hkv;
    decay4 = heads(g, hkv, decay_w);  // [B, Hkv, T, 1 | dk]
  }
  if (delta) {
    PLUMB_ASSIGN_OR_RETURN(ValueId bt, cx.input(n, 5));
    PLUMB_RETURN_IF_ERROR(cx.error());
    if (rank_of(cx, bt) != 3 || cx.type(bt).dtype != dt)
      return cx.invalid("LinearAttention beta must be 3-D, like query");
    PLUMB_ASSIGN_OR_RETURN(int64_t bl, static_last(cx, bt, "LinearAttention beta"));
    if (bl != hkv && bl != 1) return cx.invalid("LinearAttention beta's last dim must be H_kv or 1");
    beta4 = heads(bt, bl, 1);  // [B, Hkv | 1, T, 1]
  }
  const ValueId s_shape = shp({hkv, dk, dv});
  DType state_dt = dt;
  ValueId S;
  if (cx.has_input(n, 3)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId past, cx.input(n, 3));
    PLUMB_RETURN_IF_ERROR(cx.error());
    const ir::Type pt = cx.type(past);
    if (pt.rank() != 4 || !ir::is_float(pt.dtype))
      return cx.invalid("LinearAttention past_state must be 4-D floating");
    const Ints want = {hkv, dk, dv};
    for (size_t i = 0; i < 3; ++i)
      if (pt.shape[i + 1].is_static() && pt.shape[i + 1].size != want[i])
        return cx.invalid("LinearAttention past_state must have shape (B, H_kv, d_k, d_v)");
    state_dt = pt.dtype;
    S = cast_to(cx, past, f32);
  } else {
    S = cx.b.broadcast(cx.b.scalar_float(f32, 0), s_shape, {});
  }
  const double scale = scale_attr != 0.0f ? scale_attr : 1.0 / std::sqrt(static_cast<double>(dk));
  const ValueId o_shape = shp({hq, 1, dv});
  const ValueId scale_v = cx.b.broadcast(cx.b.scalar_float(f32, scale), o_shape, {});
  auto mul = [&](ValueId a, ValueId b) { return cx.b.binary(BK::Mul, a, b); };
  std::vector<ValueId> outs;
  for (int64_t t = 0; t < T; ++t) {
    ValueId kt = take(cx, k4, 2, t), vt = take(cx, v4, 2, t);  // [B, Hkv, dk], [B, Hkv, dv]
    if (gating) {
      ValueId g = cx.b.unary(UK::Exp, take(cx, decay4, 2, t));  // [B, Hkv, 1 | dk]
      S = mul(S, cx.b.broadcast(g, s_shape, {0, 1, 2}));
    }
    if (delta) {
      // retrieved[b, h, m] = sum_d S[b, h, d, m] k_t[b, h, d]
      ValueId krow = cx.b.reshape(kt, shp({hkv, 1, dk}));
      ValueId got = cx.b.reshape(cx.b.matmul(krow, S, f32), shp({hkv, dv}));
      ValueId bt = cx.b.broadcast(take(cx, beta4, 2, t), shp({hkv, dv}), {0, 1, 2});
      vt = mul(bt, cx.b.binary(BK::Sub, vt, got));
    }
    ValueId outer = mul(cx.b.broadcast(kt, s_shape, {0, 1, 2}), cx.b.broadcast(vt, s_shape, {0, 1, 3}));
    S = cx.b.binary(BK::Add, S, outer);
    ValueId read = S;
    if (group > 1)
      read = cx.b.reshape(cx.b.broadcast(S, shp({hkv, group, dk, dv}), {0, 1, 3, 4}), shp({hq, dk, dv}));
    ValueId qrow = cx.b.reshape(take(cx, q4, 2, t), shp({hq, 1, dk}));
    outs.push_back(mul(scale_v, cx.b.matmul(qrow, read, f32)));  // [B, Hq, 1, dv]
  }
  ValueId o = T == 0 ? cx.b.broadcast(cx.b.scalar_float(f32, 0), shp({hq, 0, dv}), {})
                     : (outs.size() == 1 ? outs[0] : cx.b.concat(outs, 2));  // [B, Hq, T, dv]
  o = cx.b.reshape(cx.b.transpose(o, {0, 2, 1, 3}), shp({T, hq * dv}));
  cx.set_output(n, 0, cast_to(cx, o, dt));
  cx.set_output(n, 1, cast_to(cx, S, state_dt));
  return cx.error();
}

// ---- SwiGLU-28 ------------------------------------------------------------------------------

Status lower_swiglu(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId a, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId b, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(float alpha, n.attr_float("alpha", 1.0f));
  const ir::Type at = cx.type(a), bt = cx.type(b);
  if (!ir::is_float(at.dtype) || bt.dtype != at.dtype)
    return cx.invalid("SwiGLU A and B must share one floating dtype");
  if (at.rank() != bt.rank())
    return cx.invalid("SwiGLU A and B must have identical shapes (no broadcasting)");
  for (size_t i = 0; i < at.shape.size(); ++i)
    if (at.shape[i].is_static() && bt.shape[i].is_static() && at.shape[i].size != bt.shape[i].size)
      return cx.invalid("SwiGLU A and B must have identical shapes (no broadcasting)");
  const DType dt = at.dtype;
  ValueId x = cast_to(cx, a, DType::F64);
  auto c = [&](double v) { return splat(cx, v, x); };
  ValueId ax = cx.b.binary(BK::Mul, c(alpha), x);
  ValueId sig =
      cx.b.binary(BK::Div, c(1), cx.b.binary(BK::Add, c(1), cx.b.unary(UK::Exp, cx.b.unary(UK::Neg, ax))));
  ValueId swish = dt == DType::F64 ? cx.b.binary(BK::Mul, x, sig)
                                   : cx.b.cast(cx.b.binary(BK::Mul, x, sig), dt, /*saturate=*/true);
  // Symbolic dims the builder cannot prove equal: B is broadcast to A's shape (a no-op, or a
  // broadcast.R2 error when they differ at run time).
  if (!(ir::shape_is_static(at.shape) && ir::shape_is_static(bt.shape)))
    b = broadcast_to(cx, b, shape_value(cx, a), at.rank());
  cx.set_output(n, 0, cx.b.binary(BK::Mul, swish, b));
  return cx.error();
}

}  // namespace

void register_transformer(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"RotaryEmbedding", 23, lower_rotary_embedding}, {"LinearAttention", 27, lower_linear_attention},
      {"SwiGLU", 28, lower_swiglu}});
  // clang-format on
}

}  // namespace plumb::lower
