// ONNX RNN, GRU and LSTM (opsets 1..latest) lowered onto core ops. A static sequence length (X's
// time dim) unrolls the time loop at build time; a symbolic one runs the same step as the body of
// a core `while` (Y's rows accumulated by concat). Batch may be symbolic; the weight shapes
// W [D, G*H, I], R [D, G*H, H] must be static (their data need not be constant).
//
// Per direction and gate g, Xt*(Wg^T) is one matmul for all steps ([T, B, I] x [T, I, H]: each
// element is the same dot product, in the same order, as a per-step matmul); Ht-1*(Rg^T) is one
// matmul per gate per step. The equations keep the ONNX operator's order of evaluation:
//   RNN:  Ht = f(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi)
//   GRU:  zt = f(Xt*Wz^T + Ht-1*Rz^T + Wbz + Rbz);  rt likewise
//         ht = g(Xt*Wh^T + (rt (.) Ht-1)*Rh^T + Rbh + Wbh)          linear_before_reset = 0
//         ht = g(Xt*Wh^T + (rt (.) (Ht-1*Rh^T + Rbh)) + Wbh)         linear_before_reset = 1
//         Ht = (1 - zt) (.) ht + zt (.) Ht-1
//   LSTM: it = f(Xt*Wi^T + Ht-1*Ri^T + Pi (.) Ct-1 + Wbi + Rbi)
//         ft = f(Xt*Wf^T + Ht-1*Rf^T + Pf (.) Ct-1 + Wbf + Rbf)      (1 - it when input_forget)
//         ct = g(Xt*Wc^T + Ht-1*Rc^T + Wbc + Rbc);  Ct = ft (.) Ct-1 + it (.) ct
//         ot = f(Xt*Wo^T + Ht-1*Ro^T + Po (.) Ct + Wbo + Rbo);  Ht = ot (.) h(Ct)
// An omitted B or P is zero and its terms are left out.
//
// plumb's rulings (the ONNX text leaves these open; they follow ONNX Runtime):
// - clip bounds the input of every activation to [-clip, clip] (min then max); the cell state
//   Ct itself is kept unclipped, only h's argument is clipped.
// - activation_alpha / activation_beta are consumed in order by the activations (of both
//   directions, in list order) that take an alpha / a beta; an exhausted list gives the ONNX
//   operator's default (LeakyRelu 0.01, HardSigmoid 0.2 / 0.5, Elu 1, ThresholdedRelu 1,
//   Affine 1 / 0, ScaledTanh 1 / 1). Names match case-insensitively. For bidirectional, a list
//   with one direction's count is used for both directions.
// - ThresholdedRelu inside a recurrent op is "x if x >= alpha else 0" (the RNN operators' text).
// - sequence_lens: batch b is active at time t iff t < sequence_lens[b]. Inactive steps leave
//   the state unchanged and write zeros to Y; Y_h/Y_c are the state after the last active step
//   (for reverse: after time 0, the sequence reversed within its own length); a length <= 0
//   gives the initial state, a length > seq_length counts as seq_length.
// - Arithmetic runs in the input dtype, f16/bf16 in f32 (spec/numerics.md), rounded once at the
//   outputs.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

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

using Ints = std::vector<int64_t>;

enum class Cell { Rnn, Gru, Lstm };

struct ActDef {
  const char* name;
  bool takes_alpha, takes_beta;
  float alpha, beta;  // ONNX operator defaults
};
constexpr ActDef kActs[] = {
    {"Relu", false, false, 0.0f, 0.0f},      {"Tanh", false, false, 0.0f, 0.0f},
    {"Sigmoid", false, false, 0.0f, 0.0f},   {"Affine", true, true, 1.0f, 0.0f},
    {"LeakyRelu", true, false, 0.01f, 0.0f}, {"ThresholdedRelu", true, false, 1.0f, 0.0f},
    {"ScaledTanh", true, true, 1.0f, 1.0f},  {"HardSigmoid", true, true, 0.2f, 0.5f},
    {"Elu", true, false, 1.0f, 0.0f},        {"Softsign", false, false, 0.0f, 0.0f},
    {"Softplus", false, false, 0.0f, 0.0f},
};

struct Act {
  std::string name;  // canonical spelling (kActs)
  double alpha = 0, beta = 0;
};

bool same_name(const std::string& a, const char* b) {
  const std::string s(b);
  if (a.size() != s.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(s[i])))
      return false;
  return true;
}

// The activations of all directions (per_dir each), with alpha/beta resolved.
Expected<std::vector<Act>> read_activations(const OnnxNode& n, int64_t dirs,
                                            const std::vector<std::string>& dflt) {
  const size_t per_dir = dflt.size();
  std::vector<std::string> names;
  if (const onnx::OnnxAttribute* a = n.attr("activations")) {
    if (a->type != onnx::AttrType::Strings) return invalid_model("", "activations must be a list of strings");
    names = a->strings;
  }
  if (names.empty())
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), dflt.begin(), dflt.end());
  else if (names.size() == per_dir && dirs == 2)
    names = [&] {
      std::vector<std::string> both = names;
      both.insert(both.end(), names.begin(), names.end());
      return both;
    }();
  // RNN's schema default is ["Tanh", "Tanh"] whatever the direction: a forward or reverse RNN given
  // two uses the first, as ONNX's reference does.
  if (per_dir == 1 && dirs == 1 && names.size() == 2) names.resize(1);
  if (names.size() != per_dir * static_cast<size_t>(dirs))
    return invalid_model("", strfmt("activations lists %zu functions, expected %zu", names.size(),
                                    per_dir * static_cast<size_t>(dirs)));
  PLUMB_ASSIGN_OR_RETURN(std::vector<float> alphas, n.attr_floats("activation_alpha", {}));
  PLUMB_ASSIGN_OR_RETURN(std::vector<float> betas, n.attr_floats("activation_beta", {}));
  size_t ia = 0, ib = 0;
  std::vector<Act> out;
  for (const std::string& name : names) {
    const ActDef* def = nullptr;
    for (const ActDef& k : kActs)
      if (same_name(name, k.name)) def = &k;
    if (!def) return unsupported("recurrent activation function '" + name + "'");
    Act a{def->name, def->alpha, def->beta};
    if (def->takes_alpha && ia < alphas.size()) a.alpha = alphas[ia++];
    if (def->takes_beta && ib < betas.size()) a.beta = betas[ib++];
    out.push_back(a);
  }
  return out;
}

// The recurrent cell being lowered: shared state for one node.
struct Lower {
  Lower(LowerCtx& c, DType d) : cx(c), cdt(d) {}
  LowerCtx& cx;
  DType cdt;                  // compute dtype
  ValueId bh = ir::kNoValue;  // i64[2] shape [B, H]
  bool has_clip = false;
  double clip = 0;

  ir::Builder& b() { return cx.b; }
  ValueId bin(ir::BinaryKind k, ValueId x, ValueId y) { return cx.b.binary(k, x, y); }
  ValueId add(ValueId x, ValueId y) { return bin(BK::Add, x, y); }
  ValueId mul(ValueId x, ValueId y) { return bin(BK::Mul, x, y); }
  std::map<double, ValueId> fulls;  // one node per constant (the graph has no regions here)
  // A scalar of the compute dtype broadcast to [B, H].
  ValueId full(double v) {
    const bool cacheable = !(v == 0 && std::signbit(v));  // -0 == +0 as a map key
    if (auto it = fulls.find(v); cacheable && it != fulls.end()) return it->second;
    ValueId r = cx.b.broadcast(cx.b.scalar_float(cdt, v), bh, {});
    if (cacheable) fulls[v] = r;
    return r;
  }
  // x[.., idx, ..] with the axis removed.
  ValueId take(ValueId x, int64_t axis, int64_t idx) {
    return cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, axis, 0}, {x, cx.b.scalar_int(DType::I64, idx)});
  }
  // Rows [start, start + size) of a static 2-D or 1-D value, along axis 0.
  ValueId rows(ValueId x, int64_t start, int64_t size) {
    // No value when x has no rows: a no-value, after a failed build (the builder's error, recorded
    // first, is the one reported; reading dim 0 of its empty shape crashed, a fuzz finding).
    if (cx.rank(x) < 1) return ir::kNoValue;
    const ir::Type t = cx.type(x);
    Ints st(t.shape.size(), 0), sz, one(t.shape.size(), 1);
    for (const ir::Dim& d : t.shape) sz.push_back(d.size);
    st[0] = start;
    sz[0] = size;
    return cx.b.emit1(ir::SliceAttrs{},
                      {x, cx.b.shape_const(st), cx.b.shape_const(sz), cx.b.shape_const(one)});
  }
  // A vector [H] broadcast to [B, H].
  ValueId over_batch(ValueId v) { return cx.b.broadcast(v, bh, {1}); }

  ValueId act(const Act& a, ValueId x) {
    if (has_clip) x = bin(BK::Max, bin(BK::Min, x, full(clip)), full(-clip));
    const std::string& k = a.name;
    auto c = [&](double v) { return full(v); };
    auto un = [&](ir::UnaryKind kind, ValueId v) { return cx.b.unary(kind, v); };
    auto lt = [&](ValueId p, ValueId q) { return cx.b.compare(CK::Lt, p, q); };
    if (k == "Relu") return bin(BK::Max, x, c(0));
    if (k == "Tanh") return un(UK::Tanh, x);
    if (k == "Sigmoid") return bin(BK::Div, c(1), add(c(1), un(UK::Exp, un(UK::Neg, x))));
    if (k == "Affine") return add(mul(c(a.alpha), x), c(a.beta));
    if (k == "LeakyRelu") return cx.b.select(lt(x, c(0)), mul(c(a.alpha), x), x);
    if (k == "ThresholdedRelu") return cx.b.select(lt(x, c(a.alpha)), c(0), x);
    if (k == "ScaledTanh") return mul(c(a.alpha), un(UK::Tanh, mul(c(a.beta), x)));
    if (k == "HardSigmoid") return bin(BK::Min, bin(BK::Max, add(mul(c(a.alpha), x), c(a.beta)), c(0)), c(1));
    if (k == "Elu") return cx.b.select(lt(x, c(0)), mul(c(a.alpha), bin(BK::Sub, un(UK::Exp, x), c(1))), x);
    if (k == "Softsign") return bin(BK::Div, x, add(c(1), un(UK::Abs, x)));
    // Softplus: log(1 + e^x) as max(x, 0) + log(1 + e^-|x|), which does not overflow.
    return add(bin(BK::Max, x, c(0)), un(UK::Log, add(c(1), un(UK::Exp, un(UK::Neg, un(UK::Abs, x))))));
  }
};

ValueId cast_to(LowerCtx& cx, ValueId v, DType dt) { return cx.type(v).dtype == dt ? v : cx.b.cast(v, dt); }

// Per-direction, per-gate weights.
struct Gate {
  ValueId xw;      // Xt*(Wg^T) for every t: [T, B, H]
  ValueId rt;      // Rg^T: [H, H]
  ValueId wb, rb;  // [B, H] or kNoValue
};

Status lower_recurrent(LowerCtx& cx, const OnnxNode& n, Cell cell) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId w, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId r, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const char* op = cell == Cell::Rnn ? "RNN" : cell == Cell::Gru ? "GRU" : "LSTM";
  const int64_t G = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
  const DType dt = cx.type(x).dtype;
  if (!ir::is_float(dt)) return cx.invalid(std::string(op) + " X must be floating");
  if (cx.type(w).dtype != dt || cx.type(r).dtype != dt)
    return cx.invalid(std::string(op) + " X, W, R dtypes differ");

  PLUMB_ASSIGN_OR_RETURN(std::string direction, n.attr_string("direction", "forward"));
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return cx.invalid("direction must be forward, reverse or bidirectional, got '" + direction + "'");
  const int64_t D = direction == "bidirectional" ? 2 : 1;
  int64_t layout = 0;
  if (cx.opset() >= 14) {
    PLUMB_ASSIGN_OR_RETURN(layout, n.attr_int("layout", 0));
    if (layout != 0 && layout != 1) return cx.invalid("layout must be 0 or 1");
  }
  int64_t lbr = 0, input_forget = 0;
  if (cell == Cell::Gru && cx.opset() >= 3) {
    PLUMB_ASSIGN_OR_RETURN(lbr, n.attr_int("linear_before_reset", 0));
  }
  if (cell == Cell::Lstm) {
    PLUMB_ASSIGN_OR_RETURN(input_forget, n.attr_int("input_forget", 0));
  }
  std::vector<std::string> dflt = cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
                                  : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                      : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  PLUMB_ASSIGN_OR_RETURN(std::vector<Act> acts, read_activations(n, D, dflt));
  const size_t per_dir = dflt.size();

  // Shapes: W [D, G*H, I], R [D, G*H, H], X [T, B, I] (layout 0) or [B, T, I].
  const ir::Type wt = cx.type(w), rt = cx.type(r), xt = cx.type(x);
  if (xt.rank() != 3 || wt.rank() != 3 || rt.rank() != 3)
    return cx.invalid(std::string(op) + " X, W and R must be 3-D");
  if (!ir::shape_is_static(wt.shape) || !ir::shape_is_static(rt.shape))
    return cx.unsupported(std::string(op) + " with symbolic weight shapes");
  const int64_t H = rt.shape[2].size, I = wt.shape[2].size;
  if (n.has_attr("hidden_size")) {
    PLUMB_ASSIGN_OR_RETURN(int64_t hs, n.attr_int("hidden_size", H));
    if (hs != H) return cx.invalid(strfmt("hidden_size %lld does not match R's shape", (long long)hs));
  }
  if (wt.shape[0].size != D || rt.shape[0].size != D)
    return cx.invalid(strfmt("W and R must have num_directions = %lld rows", (long long)D));
  if (wt.shape[1].size != G * H || rt.shape[1].size != G * H)
    return cx.invalid(strfmt("W and R must have %lld * hidden_size rows per direction", (long long)G));
  if (xt.shape[2].is_static() && xt.shape[2].size != I) return cx.invalid("X's input size does not match W");
  const ir::Dim tdim = xt.shape[layout == 0 ? 0 : 1], bdim = xt.shape[layout == 0 ? 1 : 0];
  const int64_t T = tdim.is_static() ? tdim.size : -1;  // -1: symbolic, run as a `while` loop

  const DType cdt = compute_dtype(dt);
  Lower L(cx, cdt);
  if (n.has_attr("clip")) {
    PLUMB_ASSIGN_OR_RETURN(float c, n.attr_float("clip", 0.0f));
    if (!(c > 0)) return cx.invalid("clip must be positive");
    L.has_clip = true;
    L.clip = c;
  }

  // Time-major X [T, B, I] and the [B, H] shape.
  if (layout == 1) x = cx.b.transpose(x, {1, 0, 2});
  x = cast_to(cx, x, cdt);
  // Optional inputs, direction-major and in the compute dtype.
  auto opt = [&](size_t i, int64_t rank, const char* what) -> Expected<ValueId> {
    if (!cx.has_input(n, i)) return ir::kNoValue;
    PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, i));
    if (rank_of(cx, v) != rank) return cx.invalid(strfmt("%s must have rank %lld", what, (long long)rank));
    if (ir::is_float(cx.type(v).dtype) && cx.type(v).dtype != dt)
      return cx.invalid(std::string(what) + " dtype differs from X's");
    return v;
  };
  PLUMB_ASSIGN_OR_RETURN(ValueId bias, opt(3, 2, "B"));
  PLUMB_ASSIGN_OR_RETURN(ValueId seq, opt(4, 1, "sequence_lens"));
  PLUMB_ASSIGN_OR_RETURN(ValueId h_init, opt(5, 3, "initial_h"));
  ValueId c_init = ir::kNoValue, peep = ir::kNoValue;
  if (cell == Cell::Lstm) {
    PLUMB_ASSIGN_OR_RETURN(c_init, opt(6, 3, "initial_c"));
    PLUMB_ASSIGN_OR_RETURN(peep, opt(7, 2, "P"));
  }
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (bias != ir::kNoValue) {
    const ir::Type t = cx.type(bias);
    if (!ir::shape_is_static(t.shape) || t.shape[0].size != D || t.shape[1].size != 2 * G * H)
      return cx.invalid(strfmt("B must have shape [%lld,%lld]", (long long)D, (long long)(2 * G * H)));
    bias = cast_to(cx, bias, cdt);
  }
  if (peep != ir::kNoValue) {
    const ir::Type t = cx.type(peep);
    if (!ir::shape_is_static(t.shape) || t.shape[0].size != D || t.shape[1].size != 3 * H)
      return cx.invalid(strfmt("P must have shape [%lld,%lld]", (long long)D, (long long)(3 * H)));
    peep = cast_to(cx, peep, cdt);
  }
  auto state_in = [&](ValueId v) {
    if (v == ir::kNoValue) return v;
    if (layout == 1) v = cx.b.transpose(v, {1, 0, 2});
    return cast_to(cx, v, cdt);
  };
  h_init = state_in(h_init);
  c_init = state_in(c_init);
  // The batch size: static when X, initial_h, initial_c or sequence_lens says it statically.
  int64_t batch = bdim.is_static() ? bdim.size : -1;
  for (ValueId v : {h_init, c_init, seq}) {
    if (batch >= 0 || v == ir::kNoValue) continue;
    const ir::Dim bd = cx.dim(v, v == seq ? 0 : 1);
    if (bd.is_static()) batch = bd.size;
  }
  if (batch >= 0) {
    L.bh = cx.b.shape_const({batch, H});
  } else {
    ValueId bv = cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(x), cx.b.shape_const({1}), cx.b.shape_const({1}),
                                               cx.b.shape_const({1})});
    L.bh = cx.b.concat({bv, cx.b.shape_const({H})}, 0);
  }
  // sequence_lens: a constant with every length >= T masks nothing.
  if (seq != ir::kNoValue) {
    if (!ir::is_int(cx.type(seq).dtype)) return cx.invalid("sequence_lens must be integer");
    if (auto k = cx.const_ints(n, 4); k && T >= 0) {
      if (std::all_of(k->begin(), k->end(), [&](int64_t v) { return v >= T; })) seq = ir::kNoValue;
    }
    if (seq != ir::kNoValue) seq = cast_to(cx, seq, DType::I64);
  }

  ValueId w_c = cast_to(cx, w, cdt), r_c = cast_to(cx, r, cdt);
  // T as an i64[1] value and the [T, I, H] shape Wg^T is broadcast to.
  const ValueId t_v = T >= 0 ? cx.b.shape_const({T})
                             : cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(x), cx.b.shape_const({0}),
                                                             cx.b.shape_const({1}), cx.b.shape_const({1})});
  const ValueId t_i_h =
      T >= 0 ? cx.b.shape_const({T, I, H}) : cx.b.concat({t_v, cx.b.shape_const({I, H})}, 0);
  // [n.., B, H] as a shape value: a constant when the batch size is static.
  auto with_bh = [&](const Ints& lead) {
    if (batch < 0) return cx.b.concat({cx.b.shape_const(lead), L.bh}, 0);
    Ints dims = lead;
    dims.push_back(batch);
    dims.push_back(H);
    return cx.b.shape_const(dims);
  };
  const ValueId one_bh = with_bh({1});
  std::vector<ValueId> y_dirs, h_last, c_last;
  for (int64_t d = 0; d < D; ++d) {
    ValueId wd = L.take(w_c, 0, d), rd = L.take(r_c, 0, d);
    ValueId bd = bias == ir::kNoValue ? ir::kNoValue : L.take(bias, 0, d);
    std::vector<Gate> gates;
    for (int64_t g = 0; g < G; ++g) {
      Gate gt;
      ValueId wg = cx.b.transpose(L.rows(wd, g * H, H), {1, 0});  // [I, H]
      gt.xw = cx.b.matmul(x, cx.b.broadcast(wg, t_i_h, {1, 2}), cdt);
      gt.rt = cx.b.transpose(L.rows(rd, g * H, H), {1, 0});
      gt.wb = bd == ir::kNoValue ? ir::kNoValue : L.over_batch(L.rows(bd, g * H, H));
      gt.rb = bd == ir::kNoValue ? ir::kNoValue : L.over_batch(L.rows(bd, (G + g) * H, H));
      gates.push_back(gt);
    }
    ValueId pi = ir::kNoValue, po = ir::kNoValue, pf = ir::kNoValue;
    if (peep != ir::kNoValue) {
      ValueId pd = L.take(peep, 0, d);
      pi = L.over_batch(L.rows(pd, 0, H));
      po = L.over_batch(L.rows(pd, H, H));
      pf = L.over_batch(L.rows(pd, 2 * H, H));
    }
    const Act* a = &acts[static_cast<size_t>(d) * per_dir];
    ValueId h = h_init == ir::kNoValue ? L.full(0) : L.take(h_init, 0, d);
    ValueId c = ir::kNoValue;
    if (cell == Cell::Lstm) c = c_init == ir::kNoValue ? L.full(0) : L.take(c_init, 0, d);

    // sum = ((xw + h*R^T) [+ extra]) [+ first bias] [+ second bias]
    auto pre = [&](const Gate& gt, ValueId xw_t, ValueId hr, ValueId extra, bool rb_first) {
      ValueId s = L.add(xw_t, hr);
      if (extra != ir::kNoValue) s = L.add(s, extra);
      ValueId b1 = rb_first ? gt.rb : gt.wb, b2 = rb_first ? gt.wb : gt.rb;
      if (b1 != ir::kNoValue) s = L.add(L.add(s, b1), b2);
      return s;
    };
    // One step at time index t (an i64 scalar): updates h (and c) and returns Y's row [B, H].
    auto step = [&](ValueId t, ValueId& h, ValueId& c) -> ValueId {
      auto xw_t = [&](int64_t g) {
        return cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0}, {gates[g].xw, t});
      };
      auto hr = [&](int64_t g, ValueId hv) { return cx.b.matmul(hv, gates[g].rt, cdt); };
      ValueId ones = L.full(1);
      ValueId h_new, c_new = ir::kNoValue;
      if (cell == Cell::Rnn) {
        h_new = L.act(a[0], pre(gates[0], xw_t(0), hr(0, h), ir::kNoValue, false));
      } else if (cell == Cell::Gru) {
        ValueId z = L.act(a[0], pre(gates[0], xw_t(0), hr(0, h), ir::kNoValue, false));
        ValueId rr = L.act(a[0], pre(gates[1], xw_t(1), hr(1, h), ir::kNoValue, false));
        ValueId hh;
        if (lbr) {
          ValueId inner = hr(2, h);
          if (gates[2].rb != ir::kNoValue) inner = L.add(inner, gates[2].rb);
          ValueId s2 = L.add(xw_t(2), L.mul(rr, inner));
          if (gates[2].wb != ir::kNoValue) s2 = L.add(s2, gates[2].wb);
          hh = L.act(a[1], s2);
        } else {
          hh = L.act(a[1], pre(gates[2], xw_t(2), hr(2, L.mul(rr, h)), ir::kNoValue, true));
        }
        h_new = L.add(L.mul(L.bin(BK::Sub, ones, z), hh), L.mul(z, h));
      } else {
        // Gate order in W/R/B: i, o, f, c; in P: i, o, f.
        ValueId i =
            L.act(a[0], pre(gates[0], xw_t(0), hr(0, h), pi == ir::kNoValue ? pi : L.mul(pi, c), false));
        ValueId f = input_forget ? L.bin(BK::Sub, ones, i)
                                 : L.act(a[0], pre(gates[2], xw_t(2), hr(2, h),
                                                   pf == ir::kNoValue ? pf : L.mul(pf, c), false));
        ValueId cc = L.act(a[1], pre(gates[3], xw_t(3), hr(3, h), ir::kNoValue, false));
        c_new = L.add(L.mul(f, c), L.mul(i, cc));
        ValueId o =
            L.act(a[0], pre(gates[1], xw_t(1), hr(1, h), po == ir::kNoValue ? po : L.mul(po, c_new), false));
        h_new = L.mul(o, L.act(a[2], c_new));
      }
      if (seq == ir::kNoValue) {
        h = h_new;
        if (c_new != ir::kNoValue) c = c_new;
        return h_new;
      }
      ValueId live = cx.b.compare(CK::Lt, cx.b.broadcast(t, shape_value(cx, seq), {}), seq);
      live = cx.b.broadcast(live, L.bh, {0});
      h = cx.b.select(live, h_new, h);
      if (c_new != ir::kNoValue) c = cx.b.select(live, c_new, c);
      return cx.b.select(live, h_new, L.full(0));
    };
    const bool reverse = direction == "reverse" || d == 1;
    const ValueId y_shape = cx.b.concat({t_v, cx.b.shape_const({1}), L.bh}, 0);  // [T, 1, B, H]
    if (T >= 0) {
      std::vector<ValueId> ys(static_cast<size_t>(T));
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = reverse ? T - 1 - s : s;
        ys[static_cast<size_t>(t)] = step(cx.b.scalar_int(DType::I64, t), h, c);
      }
      // [T * B, H] -> [T, 1, B, H]
      y_dirs.push_back(T == 0 ? cx.b.broadcast(cx.b.scalar_float(cdt, 0), y_shape, {})
                              : cx.b.reshape(cx.b.concat(ys, 0), y_shape));
    } else {
      // while (k < T) { t = reverse ? T - 1 - k : k; step; Y rows appended (forward) or
      // prepended (reverse) to an [n, B, H] accumulator; k += 1 }
      const bool lstm = cell == Cell::Lstm;
      const ValueId t_end = cx.b.reshape(t_v, cx.b.shape_const({}));
      // Parameter types: [B, H] when the batch size is static (every shape here is then a
      // constant); else fully symbolic, as shapes computed at run time leave every dim unknown.
      const ir::Type state_t = batch >= 0 ? ir::Type::tensor(cdt, {ir::Dim(batch), ir::Dim(H)})
                                          : ir::Type::tensor(cdt, {ir::Dim::symbolic(), ir::Dim::symbolic()});
      ir::Type acc_t = state_t;
      acc_t.shape.insert(acc_t.shape.begin(), ir::Dim::symbolic());
      std::vector<ValueId> init = {cx.b.scalar_int(DType::I64, 0), h,
                                   cx.b.broadcast(cx.b.scalar_float(cdt, 0), with_bh({0}), {})};
      std::vector<ir::Type> types = {ir::Type::tensor(DType::I64, {}), state_t, acc_t};
      if (lstm) {
        init.push_back(c);
        types.push_back(state_t);
      }
      L.fulls.clear();  // constants made inside a region stay there
      std::vector<ValueId> p = cx.b.begin_region(types);
      ir::Region cond = cx.b.end_region({cx.b.compare(CK::Lt, p[0], t_end)});
      p = cx.b.begin_region(types);
      ValueId k = p[0], hk = p[1], acc = p[2], ck = lstm ? p[3] : ir::kNoValue;
      ValueId one = cx.b.scalar_int(DType::I64, 1);
      ValueId t = reverse ? cx.b.binary(BK::Sub, cx.b.binary(BK::Sub, t_end, one), k) : k;
      ValueId row = cx.b.reshape(step(t, hk, ck), one_bh);
      acc = reverse ? cx.b.concat({row, acc}, 0) : cx.b.concat({acc, row}, 0);
      std::vector<ValueId> next = {cx.b.binary(BK::Add, k, one), hk, acc};
      if (lstm) next.push_back(ck);
      ir::Region body = cx.b.end_region(next);
      L.fulls.clear();
      std::vector<ValueId> res = cx.b.while_(init, std::move(cond), std::move(body));
      if (res.size() != init.size()) return cx.error();
      h = res[1];
      if (lstm) c = res[3];
      y_dirs.push_back(cx.b.reshape(res[2], y_shape));
    }
    h_last.push_back(cx.b.reshape(h, one_bh));
    if (c != ir::kNoValue) c_last.push_back(cx.b.reshape(c, one_bh));
  }
  auto join = [&](const std::vector<ValueId>& parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : cx.b.concat(parts, axis);
  };
  auto out = [&](ValueId v) { return from_compute(cx, v, dt); };
  if (cx.wants_output(n, 0)) {
    ValueId y = join(y_dirs, 1);  // [T, D, B, H]
    if (layout == 1) y = cx.b.transpose(y, {2, 0, 1, 3});
    cx.set_output(n, 0, out(y));
  }
  auto final_state = [&](const std::vector<ValueId>& parts) {
    ValueId v = join(parts, 0);  // [D, B, H]
    return out(layout == 1 ? cx.b.transpose(v, {1, 0, 2}) : v);
  };
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, final_state(h_last));
  if (cell == Cell::Lstm && cx.wants_output(n, 2)) cx.set_output(n, 2, final_state(c_last));
  return cx.error();
}

Status lower_rnn(LowerCtx& cx, const OnnxNode& n) { return lower_recurrent(cx, n, Cell::Rnn); }
Status lower_gru(LowerCtx& cx, const OnnxNode& n) { return lower_recurrent(cx, n, Cell::Gru); }
Status lower_lstm(LowerCtx& cx, const OnnxNode& n) { return lower_recurrent(cx, n, Cell::Lstm); }

}  // namespace

void register_rnn(Registry& r) {
  // Opsets 1..6 differ only in attributes that do not change the numbers (output_sequence says
  // whether Y is produced, which the node's outputs already say) and GRU-1's missing
  // linear_before_reset (read from opset 3 on).
  r.add_since({{"RNN", 1, lower_rnn}, {"GRU", 1, lower_gru}, {"LSTM", 1, lower_lstm}});
}

}  // namespace plumb::lower
