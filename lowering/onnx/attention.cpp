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
// where ORT's lowest-float bias gives a uniform distribution over the masked positions.
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
#include <limits>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
namespace BK = ir::BinaryKind;
namespace UK = ir::UnaryKind;
namespace CK = ir::CompareKind;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

Expected<std::vector<int64_t>> static_dims(LowerCtx& cx, ValueId v, const char* what) {
  const ir::Type t = cx.type(v);
  std::vector<int64_t> d;
  for (const ir::Dim& x : t.shape) {
    if (!x.is_static()) return unsupported(std::string("Attention with a symbolic dim in ") + what);
    d.push_back(x.size);
  }
  return d;
}

Expected<double> fattr(const OnnxNode& n, const char* name, double dflt) {
  auto v = n.attr_float(name, static_cast<float>(dflt));
  if (!v.has_value()) return v.status();
  return n.has_attr(name) ? static_cast<double>(*v) : dflt;
}

ValueId f64(LowerCtx& cx, ValueId v) { return cx.type(v).dtype == DType::F64 ? v : cx.b.cast(v, DType::F64); }

// A f64 constant `v` of static shape `dims`.
ValueId fill(LowerCtx& cx, double v, const std::vector<int64_t>& dims) {
  return cx.b.broadcast(cx.b.scalar_float(DType::F64, v), cx.b.shape_const(dims), {});
}

// [B, S, H*D] -> [B, H, S, D].
ValueId split_heads(LowerCtx& cx, ValueId x, const std::vector<int64_t>& d, int64_t heads) {
  ValueId r = cx.b.reshape(x, cx.b.shape_const({d[0], d[1], heads, d[2] / heads}));
  return cx.b.transpose(r, {0, 2, 1, 3});
}

// [B, Hkv, T, D] -> [B, Hkv * rep, T, D] with each head repeated `rep` times in place
// ([h0, h0, h1, h1, ...], numpy.repeat on axis 1).
ValueId repeat_heads(LowerCtx& cx, ValueId x, const std::vector<int64_t>& d, int64_t rep) {
  if (rep == 1) return x;
  ValueId b = cx.b.broadcast(x, cx.b.shape_const({d[0], d[1], rep, d[2], d[3]}), {0, 1, 3, 4});
  return cx.b.reshape(b, cx.b.shape_const({d[0], d[1] * rep, d[2], d[3]}));
}

Status lower_attention(LowerCtx& cx, const OnnxNode& n) {
  ValueId q = cx.input(n, 0), k = cx.input(n, 1), v = cx.input(n, 2);
  if (!cx.b.ok()) return Status::ok();
  const DType dt = cx.type(q).dtype;
  if (!ir::is_float(dt)) return cx.invalid("Attention inputs must be floating");
  if (cx.type(k).dtype != dt || cx.type(v).dtype != dt) return cx.invalid("Attention Q, K, V dtypes differ");
  PLUMB_ASSIGN_OR_RETURN(int64_t is_causal, n.attr_int("is_causal", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t qh_attr, n.attr_int("q_num_heads", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t kvh_attr, n.attr_int("kv_num_heads", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t mode, n.attr_int("qk_matmul_output_mode", 0));
  PLUMB_ASSIGN_OR_RETURN(double softcap, fattr(n, "softcap", 0.0));
  if (mode < 0 || mode > 3) return cx.invalid("Attention qk_matmul_output_mode must be in 0..3");

  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> qd, static_dims(cx, q, "Q"));
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> kd, static_dims(cx, k, "K"));
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> vd, static_dims(cx, v, "V"));
  const size_t rank = qd.size();
  if ((rank != 3 && rank != 4) || kd.size() != rank || vd.size() != rank)
    return cx.invalid("Attention Q, K, V must all be 3-D or all be 4-D");
  if (rank == 3) {
    if (qh_attr <= 0 || kvh_attr <= 0)
      return cx.invalid("3-D Attention needs positive q_num_heads and kv_num_heads");
    if (qd[2] % qh_attr != 0 || kd[2] % kvh_attr != 0 || vd[2] % kvh_attr != 0)
      return cx.invalid("Attention hidden sizes must be multiples of the head counts");
    q = split_heads(cx, q, qd, qh_attr);
    k = split_heads(cx, k, kd, kvh_attr);
    v = split_heads(cx, v, vd, kvh_attr);
    qd = {qd[0], qh_attr, qd[1], qd[2] / qh_attr};
    kd = {kd[0], kvh_attr, kd[1], kd[2] / kvh_attr};
    vd = {vd[0], kvh_attr, vd[1], vd[2] / kvh_attr};
  }
  const int64_t B = qd[0], Hq = qd[1], S = qd[2], D = qd[3];
  if (kd[0] != B || vd[0] != B) return cx.invalid("Attention batch sizes differ");
  if (kd[1] != vd[1] || kd[2] != vd[2]) return cx.invalid("Attention K and V disagree on heads or length");
  if (kd[3] != D) return cx.invalid("Attention Q and K head sizes differ");
  const int64_t Hkv = kd[1], Dv = vd[3];
  if (Hkv <= 0 || Hq % Hkv != 0) return cx.invalid("Attention q heads must be a multiple of kv heads");

  // KV cache.
  int64_t past = 0;
  const bool has_past_k = cx.has_input(n, 4), has_past_v = cx.has_input(n, 5);
  if (has_past_k != has_past_v) return cx.invalid("Attention past_key and past_value go together");
  if (has_past_k) {
    ValueId pk = cx.input(n, 4), pv = cx.input(n, 5);
    if (!cx.b.ok()) return Status::ok();
    PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> pkd, static_dims(cx, pk, "past_key"));
    PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> pvd, static_dims(cx, pv, "past_value"));
    if (pkd.size() != 4 || pvd.size() != 4 || pkd[0] != B || pkd[1] != Hkv || pkd[3] != D || pvd[0] != B ||
        pvd[1] != Hkv || pvd[3] != Dv || pvd[2] != pkd[2])
      return cx.invalid("Attention past_key/past_value shapes do not match K/V");
    past = pkd[2];
    k = cx.b.concat({pk, k}, 2);
    v = cx.b.concat({pv, v}, 2);
  }
  const int64_t T = kd[2] + past;
  cx.set_output(n, 1, k);
  cx.set_output(n, 2, v);

  // Scores [B, Hq, S, T] in f64.
  const int64_t rep = Hq / Hkv;
  ValueId k64 = repeat_heads(cx, f64(cx, k), {B, Hkv, T, D}, rep);
  ValueId v64 = repeat_heads(cx, f64(cx, v), {B, Hkv, T, Dv}, rep);
  PLUMB_ASSIGN_OR_RETURN(double scale, fattr(n, "scale", 1.0 / std::sqrt(static_cast<double>(D))));
  const std::vector<int64_t> sd = {B, Hq, S, T};
  ValueId s = cx.b.matmul(f64(cx, q), cx.b.transpose(k64, {0, 1, 3, 2}), DType::F64);
  s = cx.b.binary(BK::Mul, s, fill(cx, scale, sd));
  if (softcap > 0) {
    ValueId c = fill(cx, softcap, sd);
    s = cx.b.binary(BK::Mul, c, cx.b.unary(UK::Tanh, cx.b.binary(BK::Div, s, c)));
  }
  ValueId qk_out = s;

  // Bias [B, Hq, S, T]: a sum of 0 / -inf / float-mask terms.
  ValueId bias = ir::kNoValue;
  auto add_bias = [&](ValueId t) { bias = bias == ir::kNoValue ? t : cx.b.binary(BK::Add, bias, t); };
  ValueId zeros = fill(cx, 0.0, sd), ninf = fill(cx, kNegInf, sd);
  if (cx.has_input(n, 3)) {
    ValueId m = cx.input(n, 3);
    if (!cx.b.ok()) return Status::ok();
    PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> md, static_dims(cx, m, "attn_mask"));
    if (md.empty() || md.size() > 4) return cx.invalid("Attention attn_mask must have rank 1..4");
    const int64_t tm = md.back();
    if (tm > T) return cx.invalid("Attention attn_mask is longer than the total key length");
    const DType mdt = cx.type(m).dtype;
    if (mdt != DType::Bool && mdt != dt) return cx.invalid("Attention attn_mask must be bool or Q's dtype");
    ValueId mb = broadcast_to(cx, m, cx.b.shape_const({B, Hq, S, tm}), 4);
    ValueId t;
    if (mdt == DType::Bool) {
      t = cx.b.select(mb, fill(cx, 0.0, {B, Hq, S, tm}), fill(cx, kNegInf, {B, Hq, S, tm}));
    } else {
      t = f64(cx, mb);
    }
    if (tm < T) t = cx.b.concat({t, fill(cx, kNegInf, {B, Hq, S, T - tm})}, 3);
    add_bias(t);
  }
  ValueId nonpad = ir::kNoValue;  // i64 [B, Hq, S, T] broadcast of nonpad_kv_seqlen
  if (cx.opset() >= 24 && cx.has_input(n, 6)) {
    ValueId np = cx.input(n, 6);
    if (!cx.b.ok()) return Status::ok();
    const ir::Type nt = cx.type(np);
    if (nt.rank() != 1) return cx.invalid("Attention nonpad_kv_seqlen must be 1-D");
    if (nt.dtype != DType::I64) np = cx.b.cast(np, DType::I64);
    nonpad = cx.b.broadcast(np, cx.b.shape_const(sd), {0});
  }
  ValueId shape = cx.b.shape_const(sd);
  ValueId jj = cx.b.emit1(ir::Op::Iota, {shape}, {{"dtype", DType::I64}, {"axis", int64_t{3}}});
  if (is_causal) {
    ValueId ii = cx.b.emit1(ir::Op::Iota, {shape}, {{"dtype", DType::I64}, {"axis", int64_t{2}}});
    ValueId lim;
    if (has_past_k || nonpad == ir::kNoValue) {
      lim = cx.b.binary(BK::Add, ii, cx.b.broadcast(cx.b.scalar_int(DType::I64, past), shape, {}));
    } else {
      ValueId off = cx.b.binary(BK::Sub, nonpad, cx.b.broadcast(cx.b.scalar_int(DType::I64, S), shape, {}));
      lim = cx.b.binary(BK::Add, ii, off);
    }
    add_bias(cx.b.select(cx.b.compare(CK::Gt, jj, lim), ninf, zeros));
  }
  if (nonpad != ir::kNoValue) add_bias(cx.b.select(cx.b.compare(CK::Lt, jj, nonpad), zeros, ninf));
  if (bias != ir::kNoValue) s = cx.b.binary(BK::Add, s, bias);
  if (mode == 2) qk_out = s;

  // Softmax over the last axis; a row with no finite score (all masked) gives all zeros.
  std::vector<int64_t> keep = {0, 1, 2};
  auto back = [&](ValueId r) { return cx.b.broadcast(r, shape, keep); };
  ValueId mx = back(cx.b.reduce(ir::ReduceKind::Max, s, {3}));
  ValueId dead = cx.b.compare(CK::Eq, mx, ninf);
  mx = cx.b.select(dead, zeros, mx);
  ValueId e = cx.b.unary(UK::Exp, cx.b.binary(BK::Sub, s, mx));
  ValueId sum = back(cx.b.reduce(ir::ReduceKind::Sum, e, {3}));
  ValueId live = cx.b.compare(CK::Gt, sum, zeros);
  ValueId p = cx.b.select(live, cx.b.binary(BK::Div, e, cx.b.select(live, sum, fill(cx, 1.0, sd))), zeros);
  if (mode == 3) qk_out = p;

  ValueId y = cx.b.matmul(p, v64, DType::F64);  // [B, Hq, S, Dv]
  y = cx.b.cast(y, dt);
  if (rank == 3) y = cx.b.reshape(cx.b.transpose(y, {0, 2, 1, 3}), cx.b.shape_const({B, S, Hq * Dv}));
  cx.set_output(n, 0, y);
  if (cx.wants_output(n, 3)) cx.set_output(n, 3, cx.b.cast(qk_out, dt));
  return Status::ok();
}

}  // namespace

void register_attention(Registry& r) { r.add("Attention", {23, kLatestOpset}, lower_attention); }

}  // namespace plumb::lower
