// ONNX Attention (opset 23, 24) lowered onto core ops: scaled dot-product attention with optional
// mask, causal mask, KV cache (past/present), GQA/MQA head repetition, softcap and the optional
// intermediate output selected by qk_matmul_output_mode.
//
// Numerics (plumb's ruling): everything after the inputs is computed in f64 (both matmuls, the
// scale, softcap, the bias and the softmax) and the outputs are rounded once to Q's dtype;
// softmax_precision is therefore accepted and has no further effect (f64 is at least as precise
// as any precision it can name).
//
// Masked positions get a bias of -inf before the softmax, as the ONNX reference implementation
// does (onnx/reference/ops/op_attention.py). ONNX Runtime instead uses the lowest finite float;
// the two agree except on rows where every position is masked: with -inf such a row has no
// finite score, and plumb then defines every probability of the row as 0 (so Y's row is 0),
// where ORT's lowest-float bias gives a uniform distribution over the masked positions. A NaN or
// +inf score makes its row NaN, as in the reference's max-subtracted softmax.
//
// Order of operations (the ONNX reference's): S = (Q K^T) * scale; S = softcap * tanh(S /
// softcap) when softcap > 0 (before the bias, so -inf stays -inf); S += bias; P = softmax(S);
// Y = P V. qk_matmul_output_mode selects the 4th output: 0 and 1 = S after the softcap (0: the
// reference applies the softcap in place, so mode 0 also sees it), 2 = S + bias, 3 = P.
//
// Bias (the reference's): a bool mask contributes 0 where true and -inf where false; a float
// mask is added. A mask shorter than the total key length (past + new) is padded on the right
// with false / -inf. is_causal masks key j for query i when j > i + offset: offset = the past
// length when past_key is given, else nonpad_kv_seqlen[b] - q_len when that is given, else 0
// (upper-left aligned). nonpad_kv_seqlen[b] (opset 24) masks keys j >= nonpad_kv_seqlen[b].
#include <cmath>

#include "lowering/onnx/attention_common.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;

namespace {

using attn::DimV;
using attn::fill;
using attn::kNegInf;
using attn::known_ne;

Expected<int64_t> static_dim(LowerCtx& cx, ValueId v, int64_t axis, const char* what) {
  return attn::static_dim(cx, v, axis, "Attention", what);
}

Status lower_attention(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId q, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId k, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const DType dt = cx.type(q).dtype;
  if (!ir::is_float(dt)) return cx.invalid("Attention inputs must be floating");
  if (cx.type(k).dtype != dt || cx.type(v).dtype != dt) return cx.invalid("Attention Q, K, V dtypes differ");
  PLUMB_ASSIGN_OR_RETURN(int64_t is_causal, n.attr_int("is_causal", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t qh_attr, n.attr_int("q_num_heads", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t kvh_attr, n.attr_int("kv_num_heads", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t mode, n.attr_int("qk_matmul_output_mode", 0));
  PLUMB_ASSIGN_OR_RETURN(double softcap, attn::float_attr(n, "softcap", 0.0));
  if (mode < 0 || mode > 3) return cx.invalid("Attention qk_matmul_output_mode must be in 0..3");
  // softmax_precision names an ONNX float type (FLOAT 1, FLOAT16 10, DOUBLE 11, BFLOAT16 16); the
  // softmax is computed in f64 whatever it names (see the top of this file).
  if (n.has_attr("softmax_precision")) {
    PLUMB_ASSIGN_OR_RETURN(int64_t sp, n.attr_int("softmax_precision", 1));
    if (sp != 1 && sp != 10 && sp != 11 && sp != 16)
      return cx.invalid("Attention softmax_precision must name a floating type (1, 10, 11 or 16)");
  }

  const int64_t rank = rank_of(cx, q);
  if ((rank != 3 && rank != 4) || rank_of(cx, k) != rank || rank_of(cx, v) != rank)
    return cx.invalid("Attention Q, K, V must all be 3-D or all be 4-D");
  attn::Dims dm{cx};
  // Batch and sequence lengths may be symbolic; head counts and head sizes are static.
  DimV B = dm.of(q, 0), S, L, Lv;  // L: new kv length
  int64_t Hq, Hkv, D, Dv;
  if (rank == 3) {
    if (qh_attr <= 0 || kvh_attr <= 0)
      return cx.invalid("3-D Attention needs positive q_num_heads and kv_num_heads");
    PLUMB_ASSIGN_OR_RETURN(int64_t hq, static_dim(cx, q, 2, "hidden size"));
    PLUMB_ASSIGN_OR_RETURN(int64_t hk, static_dim(cx, k, 2, "hidden size"));
    PLUMB_ASSIGN_OR_RETURN(int64_t hv, static_dim(cx, v, 2, "hidden size"));
    if (hq % qh_attr != 0 || hk % kvh_attr != 0 || hv % kvh_attr != 0)
      return cx.invalid("Attention hidden sizes must be multiples of the head counts");
    Hq = qh_attr;
    Hkv = kvh_attr;
    D = hq / Hq;
    if (hk / Hkv != D) return cx.invalid("Attention Q and K head sizes differ");
    Dv = hv / Hkv;
    S = dm.of(q, 1);
    L = dm.of(k, 1);
    Lv = dm.of(v, 1);
    // [B, S, H*D] -> [B, H, S, D].
    auto split = [&](ValueId x, DimV len, int64_t h, int64_t d) {
      ValueId r = cx.b.reshape(x, dm.shape({dm.of(x, 0), len, dm.c(h), dm.c(d)}));
      return cx.b.transpose(r, {0, 2, 1, 3});
    };
    q = split(q, S, Hq, D);
    k = split(k, L, Hkv, D);
    v = split(v, Lv, Hkv, Dv);
  } else {
    PLUMB_ASSIGN_OR_RETURN(Hq, static_dim(cx, q, 1, "head count"));
    PLUMB_ASSIGN_OR_RETURN(Hkv, static_dim(cx, k, 1, "head count"));
    PLUMB_ASSIGN_OR_RETURN(int64_t hv, static_dim(cx, v, 1, "head count"));
    PLUMB_ASSIGN_OR_RETURN(D, static_dim(cx, q, 3, "head size"));
    PLUMB_ASSIGN_OR_RETURN(int64_t dk, static_dim(cx, k, 3, "head size"));
    PLUMB_ASSIGN_OR_RETURN(Dv, static_dim(cx, v, 3, "head size"));
    if (hv != Hkv) return cx.invalid("Attention K and V head counts differ");
    if (dk != D) return cx.invalid("Attention Q and K head sizes differ");
    S = dm.of(q, 2);
    L = dm.of(k, 2);
    Lv = dm.of(v, 2);
  }
  if (known_ne(dm.of(k, 0).n, B.n) || known_ne(dm.of(v, 0).n, B.n))
    return cx.invalid("Attention batch sizes differ");
  if (known_ne(L.n, Lv.n)) return cx.invalid("Attention K and V lengths differ");
  if (Hkv <= 0 || Hq % Hkv != 0) return cx.invalid("Attention q heads must be a multiple of kv heads");

  // KV cache.
  DimV past = dm.c(0);
  const bool has_past_k = cx.has_input(n, 4), has_past_v = cx.has_input(n, 5);
  if (has_past_k != has_past_v) return cx.invalid("Attention past_key and past_value go together");
  if (has_past_k) {
    PLUMB_ASSIGN_OR_RETURN(ValueId pk, cx.input(n, 4));
    PLUMB_ASSIGN_OR_RETURN(ValueId pv, cx.input(n, 5));
    PLUMB_RETURN_IF_ERROR(cx.error());
    if (rank_of(cx, pk) != 4 || rank_of(cx, pv) != 4)
      return cx.invalid("Attention past_key/past_value must be 4-D");
    const ir::Type pkt = cx.type(pk), pvt = cx.type(pv);
    auto bad = [&](const ir::Type& t, int64_t axis, int64_t want) {
      return known_ne(t.shape[static_cast<size_t>(axis)].size, want);
    };
    if (pkt.dtype != dt || pvt.dtype != dt || bad(pkt, 1, Hkv) || bad(pkt, 3, D) || bad(pvt, 1, Hkv) ||
        bad(pvt, 3, Dv) || bad(pkt, 0, B.n) || bad(pvt, 0, B.n) || bad(pvt, 2, pkt.shape[2].size))
      return cx.invalid("Attention past_key/past_value shapes do not match K/V");
    past = dm.of(pk, 2);
    k = cx.b.concat({pk, k}, 2);
    v = cx.b.concat({pv, v}, 2);
  }
  const DimV T = dm.add(L, past);
  cx.set_output(n, 1, k);
  cx.set_output(n, 2, v);

  // Scores [B, Hq, S, T] in f64.
  const int64_t rep = Hq / Hkv;
  ValueId k64 = attn::repeat_heads(cx, dm, to_f64(cx, k), B, Hkv, rep, T, D);
  ValueId v64 = attn::repeat_heads(cx, dm, to_f64(cx, v), B, Hkv, rep, T, Dv);
  PLUMB_ASSIGN_OR_RETURN(double scale, attn::float_attr(n, "scale", 1.0 / std::sqrt(static_cast<double>(D))));
  const ValueId shape = dm.shape({B, dm.c(Hq), S, T});
  ValueId s = cx.b.matmul(to_f64(cx, q), cx.b.transpose(k64, {0, 1, 3, 2}), DType::F64);
  s = cx.b.binary(BK::Mul, s, fill(cx, scale, shape));
  if (softcap > 0) {
    ValueId c = fill(cx, softcap, shape);
    s = cx.b.binary(BK::Mul, c, cx.b.unary(UK::Tanh, cx.b.binary(BK::Div, s, c)));
  }
  ValueId qk_out = s;

  // Bias [B, Hq, S, T]: a sum of 0 / -inf / float-mask terms.
  ValueId bias = ir::kNoValue;
  auto add_bias = [&](ValueId t) { bias = bias == ir::kNoValue ? t : cx.b.binary(BK::Add, bias, t); };
  ValueId zeros = fill(cx, 0.0, shape), ninf = fill(cx, kNegInf, shape);
  if (cx.has_input(n, 3)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId m, cx.input(n, 3));
    PLUMB_RETURN_IF_ERROR(cx.error());
    const int64_t mr = rank_of(cx, m);
    if (mr < 1 || mr > 4) return cx.invalid("Attention attn_mask must have rank 1..4");
    const DimV tm = dm.of(m, mr - 1);
    if (tm.n >= 0 && T.n >= 0 && tm.n > T.n)
      return cx.invalid("Attention attn_mask is longer than the total key length");
    const DType mdt = cx.type(m).dtype;
    if (mdt != DType::Bool && mdt != dt) return cx.invalid("Attention attn_mask must be bool or Q's dtype");
    const ValueId mshape = dm.shape({B, dm.c(Hq), S, tm});
    ValueId mb = broadcast_to(cx, m, mshape, 4);
    ValueId t = mdt == DType::Bool ? cx.b.select(mb, fill(cx, 0.0, mshape), fill(cx, kNegInf, mshape))
                                   : to_f64(cx, mb);
    // A shorter mask is padded on the right with masked positions (the ONNX reference).
    if (!(tm.n >= 0 && T.n >= 0 && tm.n == T.n))
      t = cx.b.concat({t, fill(cx, kNegInf, dm.shape({B, dm.c(Hq), S, dm.sub(T, tm)}))}, 3);
    add_bias(t);
  }
  ValueId nonpad = ir::kNoValue;  // i64 [B, Hq, S, T] broadcast of nonpad_kv_seqlen
  if (cx.opset() >= 24 && cx.has_input(n, 6)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId np, cx.input(n, 6));
    PLUMB_RETURN_IF_ERROR(cx.error());
    const ir::Type nt = cx.type(np);
    if (nt.rank() != 1) return cx.invalid("Attention nonpad_kv_seqlen must be 1-D");
    if (!ir::is_int(nt.dtype)) return cx.invalid("Attention nonpad_kv_seqlen must be integer");
    if (nt.dtype != DType::I64) np = cx.b.cast(np, DType::I64);
    nonpad = cx.b.broadcast(np, shape, {0});
  }
  ValueId jj = cx.b.emit1(ir::IotaAttrs{DType::I64, 3}, {shape});
  if (is_causal) {
    ValueId ii = cx.b.emit1(ir::IotaAttrs{DType::I64, 2}, {shape});
    ValueId lim;
    if (has_past_k || nonpad == ir::kNoValue) {
      lim = cx.b.binary(BK::Add, ii, cx.b.broadcast(dm.scalar(past), shape, {}));
    } else {
      ValueId off = cx.b.binary(BK::Sub, nonpad, cx.b.broadcast(dm.scalar(S), shape, {}));
      lim = cx.b.binary(BK::Add, ii, off);
    }
    add_bias(cx.b.select(cx.b.compare(CK::Gt, jj, lim), ninf, zeros));
  }
  if (nonpad != ir::kNoValue) add_bias(cx.b.select(cx.b.compare(CK::Lt, jj, nonpad), zeros, ninf));
  if (bias != ir::kNoValue) s = cx.b.binary(BK::Add, s, bias);
  if (mode == 2) qk_out = s;

  // Softmax over the last axis; a row with no finite score (all masked) gives all zeros.
  ValueId p = attn::softmax_rows(cx, s, shape);
  if (mode == 3) qk_out = p;

  ValueId y = cx.b.matmul(p, v64, DType::F64);  // [B, Hq, S, Dv]
  y = cx.b.cast(y, dt);
  if (rank == 3) y = cx.b.reshape(cx.b.transpose(y, {0, 2, 1, 3}), dm.shape({B, S, dm.c(Hq * Dv)}));
  cx.set_output(n, 0, y);
  if (cx.wants_output(n, 3)) cx.set_output(n, 3, cx.b.cast(qk_out, dt));
  return cx.error();
}

}  // namespace

void register_attention(Registry& r) { r.add("Attention", {23, kLatestOpset}, lower_attention); }

}  // namespace plumb::lower
