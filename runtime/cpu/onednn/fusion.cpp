#include "runtime/cpu/onednn/fusion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "ir/attrs.h"
#include "runtime/cpu/onednn/graph_uses.h"
#include "runtime/plan.h"

namespace plumb::rt::onednn {
namespace {

bool is_f32_tensor(const ir::Type& t) { return t.is_tensor() && t.ranked && t.dtype == ir::DType::F32; }

bool all_static(const ir::Type& t) {
  for (const ir::Dim& d : t.shape)
    if (!d.is_static()) return false;
  return true;
}

class Matcher {
 public:
  explicit Matcher(const ir::Graph& g) : g_(g), nodes_(g.body.nodes), u_(uses_of(g)) {}

  Match run(NumericMode mode) {
    Match m;
    std::vector<Claim> declines;
    for (uint32_t i = 0; i < nodes_.size();) {
      const ir::Node& n = nodes_[i];
      if (n.op != ir::Op::Conv && n.op != ir::Op::MatMul && n.op != ir::Op::Pool) {
        ++i;
        continue;
      }
      if (mode == NumericMode::kPrecise) {
        declines.push_back(Claim{NodeSpan{i, i + 1},
                                 Support::no("precise mode is f64, which oneDNN's cpu primitives lack")});
        ++i;
        continue;
      }
      const std::string why = anchor_why_not(n);
      if (!why.empty()) {
        declines.push_back(Claim{NodeSpan{i, i + 1}, Support::no(why)});
        ++i;
        continue;
      }
      Fused f = grow(i, declines);
      m.claims.push_back(Claim{f.span, Support::ok()});
      i = f.span.end;
      m.fused.push_back(std::move(f));
    }
    // Declines at nodes no span took (a stopped fusion's next node may be another span's residual).
    for (const Claim& d : declines) {
      bool taken = false;
      for (const Claim& c : m.claims)
        taken = taken || (d.span.begin < c.span.end && c.span.begin < d.span.end);
      bool dup = false;
      for (const Claim& c : m.claims) dup = dup || (!c.support.yes && c.span == d.span);
      if (!taken && !dup) m.claims.push_back(d);
    }
    std::stable_sort(m.claims.begin(), m.claims.end(),
                     [](const Claim& a, const Claim& b) { return a.span.begin < b.span.begin; });
    join_islands(m);
    return m;
  }

 private:
  const ir::Type& type(ir::ValueId v) const { return g_.type_of(v); }

  std::string pool_why_not(const ir::Node& n) const {
    const auto& a = ir::attrs<ir::Op::Pool>(n);
    if (a.kind != ir::PoolKind::Max) return "pool sum is an accumulation: not mapped to oneDNN yet";
    if (n.outputs.size() != 1) return "max pool with indices has no oneDNN inference primitive";
    if (!is_f32_tensor(type(n.inputs[0])) || !is_f32_tensor(type(n.outputs[0])))
      return "pool of " + ir::type_to_string(type(n.inputs[0])) + ": only f32 is mapped to oneDNN yet";
    const size_t r = type(n.inputs[0]).shape.size();
    if (r < 3 || r > 5) return "pool: only 1-D, 2-D and 3-D windows have oneDNN primitives";
    for (size_t d = 0; d < 2; ++d)
      if (a.window[d] != 1 || a.strides[d] != 1 || a.dilations[d] != 1 || a.pads_low[d] != 0 ||
          a.pads_high[d] != 0)
        return "pool across the batch or channel dim";
    // oneDNN gives -FLT_MAX for a window with no element in the operand, the core -inf (found by
    // plumb gen's campaign with --backend cpu).
    for (size_t d = 2; d < r; ++d)
      if (window_can_miss_operand(a.window[d], a.strides[d], a.dilations[d], a.pads_low[d], a.pads_high[d],
                                  type(n.inputs[0]).shape[d]))
        return "pool with a window that can lie entirely in the padding";
    return "";
  }

  // Whether some window position along one dim has none of its taps in [0, size). With dilation 1
  // the taps are contiguous, so that happens only when a padding reaches a whole window extent;
  // a dilated window can also step over a short operand, which needs its size to tell.
  static bool window_can_miss_operand(int64_t window, int64_t stride, int64_t dilation, int64_t pad_low,
                                      int64_t pad_high, const ir::Dim& size) {
    const int64_t extent = (window - 1) * dilation + 1;
    if (pad_low >= extent || pad_high >= extent) return true;
    if (dilation == 1) return false;
    if (!size.is_static()) return true;
    const int64_t positions = (size.size + pad_low + pad_high - extent) / stride + 1;
    if (positions > (int64_t{1} << 24) / window) return true;  // not worth the look: ref runs it
    for (int64_t e = 0; e < positions; ++e) {
      bool hit = false;
      for (int64_t w = 0; w < window && !hit; ++w) {
        const int64_t q = e * stride + w * dilation - pad_low;
        hit = q >= 0 && q < size.size;
      }
      if (!hit) return true;
    }
    return false;
  }

  std::string anchor_why_not(const ir::Node& n) const {
    if (n.op == ir::Op::Pool) return pool_why_not(n);
    const char* op = n.op == ir::Op::Conv ? "conv" : "matmul";
    for (ir::ValueId v : n.inputs)
      if (!is_f32_tensor(type(v)))
        return std::string(op) + " operand " + ir::type_to_string(type(v)) +
               ": only f32 is mapped to oneDNN yet";
    if (!is_f32_tensor(type(n.outputs[0])))
      return std::string(op) + " result " + ir::type_to_string(type(n.outputs[0])) +
             ": only f32 is mapped to oneDNN yet";
    if (n.op == ir::Op::MatMul) {
      if (type(n.inputs[0]).shape.size() > 6) return "matmul of rank > 6";
      return "";
    }
    const auto& a = ir::attrs<ir::Op::Conv>(n);
    const size_t rank = type(n.inputs[0]).shape.size();
    if (rank < 3 || rank > 5) return "conv: only 1-D, 2-D and 3-D convolutions have oneDNN primitives";
    for (int64_t d : a.lhs_dilations)
      if (d != 1) return "conv with input dilation (a lowered ConvTranspose) has no oneDNN forward primitive";
    return "";
  }

  bool is_constant_value(ir::ValueId v) const {
    return u_.def[v] >= 0 && nodes_[u_.def[v]].op == ir::Op::Constant;
  }

  // The decoded data of a constant node's value, or nullopt.
  std::optional<Tensor> constant_of(ir::ValueId v) const {
    if (!is_constant_value(v)) return std::nullopt;
    const uint32_t ci = ir::attrs<ir::Op::Constant>(nodes_[u_.def[v]]).value.index;
    if (ci >= g_.constants.size()) return std::nullopt;
    auto t = constant_tensor(g_.constants[ci]);
    if (!t) return std::nullopt;
    return std::move(*t);
  }

  // A broadcast of a constant (its shape a constant too): the node index, or -1.
  int64_t constant_broadcast(ir::ValueId v) const {
    const int64_t k = u_.def[v];
    if (k < 0 || nodes_[k].op != ir::Op::Broadcast) return -1;
    for (ir::ValueId in : nodes_[k].inputs)
      if (!is_constant_value(in)) return -1;
    return k;
  }

  // The single f32 value every element of broadcast-of-constant `v` has, if it is one.
  std::optional<float> broadcast_scalar(ir::ValueId v) const {
    const int64_t k = constant_broadcast(v);
    if (k < 0) return std::nullopt;
    auto t = constant_of(nodes_[k].inputs[0]);
    if (!t || t->dtype != ir::DType::F32 || t->numel() != 1) return std::nullopt;
    const float x = t->as<float>()[0];
    if (!std::isfinite(x)) return std::nullopt;
    return x;
  }

  // True when `v` is an f32 constant whose elements depend on the index along `axis` only.
  bool channel_constant(ir::ValueId v, int64_t axis) const {
    auto t = constant_of(v);
    if (!t || t->dtype != ir::DType::F32 || axis < 0 || axis >= t->rank()) return false;
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < t->rank(); ++d) inner *= t->shape[d];
    const int64_t c = t->shape[axis];
    const float* x = t->as<float>();
    for (int64_t i = 0; i < t->numel(); ++i) {
      const int64_t ch = i / inner % c;
      if (std::memcmp(&x[i], &x[ch * inner], sizeof(float)) != 0) return false;
    }
    return true;
  }

  // The other operand of binary node c that reads `cur` once.
  static ir::ValueId other(const ir::Node& c, ir::ValueId cur) {
    return c.inputs[0] == cur ? c.inputs[1] : c.inputs[0];
  }

  bool is_binary(const ir::Node& c, ir::BinaryKind k) const {
    return c.op == ir::Op::Binary && ir::attrs<ir::Op::Binary>(c).kind == k;
  }

  // Tries to absorb node c (the one reader of `cur`) as the next step of f; "" on success, else why not.
  std::string absorb(Fused& f, int& stage, ir::ValueId cur, const ir::Node& c) const {
    const ir::Type& ct = type(cur);
    if (c.op == ir::Op::Reshape && !f.conv && stage < 1 && c.inputs[0] == cur) {
      const ir::Type& rt = type(c.outputs[0]);
      if (!is_f32_tensor(rt) || rt.shape.empty() || ct.shape.empty() || !all_static(rt) || !all_static(ct) ||
          rt.shape.back().size != ct.shape.back().size)
        return "the reshape after matmul does not keep the last dim";
      stage = 1;
      return "";
    }
    if (c.op != ir::Op::Binary) return "not a post-op";
    const ir::ValueId o = other(c, cur);
    if (!is_f32_tensor(type(o)) || type(o) != ct || type(c.outputs[0]) != ct)
      return "operand types differ from the product's";
    if (is_binary(c, ir::BinaryKind::Add)) {
      const int64_t k = constant_broadcast(o);
      if (k >= 0 && stage < 2) {
        const auto& b = ir::attrs<ir::Op::Broadcast>(nodes_[k]);
        const int64_t axis = f.conv ? 1 : static_cast<int64_t>(ct.shape.size()) - 1;
        auto t = constant_of(nodes_[k].inputs[0]);
        if (t && t->dtype == ir::DType::F32 && t->rank() == 1 && b.dims == std::vector<int64_t>{axis} &&
            ct.shape[axis].is_static() && t->shape[0] == ct.shape[axis].size) {
          f.bias = nodes_[k].inputs[0];
          stage = 2;
          return "";
        }
      }
      if (stage < 2 && channel_constant(o, f.conv ? 1 : static_cast<int64_t>(ct.shape.size()) - 1)) {
        f.bias = o;  // a bias the builder folded into a constant of the result's shape
        f.bias_axis = f.conv ? 1 : static_cast<int>(ct.shape.size()) - 1;
        stage = 2;
        return "";
      }
      if (stage < 3 && (u_.def[o] < static_cast<int64_t>(f.span.begin)) && all_static(ct)) {
        f.residual = o;
        stage = 3;
        return "";
      }
      return stage >= 3 ? "a second sum"
                        : "the summand is neither a bias nor a value defined before the product (a residual)";
    }
    if (is_binary(c, ir::BinaryKind::Max) && stage < 4) {
      const auto lo = broadcast_scalar(o);
      if (!lo) return "max with a value that is not one finite constant";
      // max(+0, -0) is +0: a -0 bound would need the sign of each zero result (not done)
      if (*lo == 0.0f && std::signbit(*lo)) return "max with -0";
      f.act = *lo == 0.0f ? Act::kRelu : Act::kClip;
      f.lo = *lo;
      f.hi = INFINITY;
      stage = 4;
      return "";
    }
    if (is_binary(c, ir::BinaryKind::Min) && stage == 4) {
      const auto hi = broadcast_scalar(o);
      if (!hi || *hi < f.lo) return "min with a value that is not one finite constant above the max's";
      if (*hi == 0.0f) return "min with a zero bound";  // min(-0, +0) is -0 (not done)
      f.act = Act::kClip;
      f.hi = *hi;
      stage = 5;
      return "";
    }
    return "not a post-op oneDNN is given here";
  }

  // Node k (between absorbed nodes) is a helper: a constant, or a broadcast of constants.
  bool helper(uint32_t k) const {
    const ir::Node& h = nodes_[k];
    if (h.op == ir::Op::Constant) return true;
    if (h.op != ir::Op::Broadcast) return false;
    for (ir::ValueId in : h.inputs)
      if (!is_constant_value(in)) return false;
    return true;
  }

  // The span [begin, end) is closed: every non-constant helper's readers lie in it.
  bool closed(uint32_t begin, uint32_t end, const std::vector<uint32_t>& steps) const {
    for (uint32_t k = begin; k < end; ++k) {
      if (std::find(steps.begin(), steps.end(), k) != steps.end() || nodes_[k].op == ir::Op::Constant)
        continue;
      for (ir::ValueId v : nodes_[k].outputs) {
        if (u_.results[v] > 0) return false;
        for (uint32_t r : u_.readers[v])
          if (r < begin || r >= end) return false;
      }
    }
    return true;
  }

  // The one reader of v (not a graph result), or -1.
  int64_t only_reader(ir::ValueId v) const {
    if (u_.results[v] > 0 || u_.readers[v].size() != 1) return -1;
    return u_.readers[v][0];
  }

  // x / c, erf, + one, * x, * k (see Fused::gelu) after x = cur, every value x's type and read
  // once inside the pattern (x twice); on success f's gelu fields and result are set and gs holds
  // the five nodes in order.
  bool gelu(Fused& f, ir::ValueId x, std::vector<uint32_t>& gs) const {
    const ir::Type& t = type(x);
    if (u_.results[x] > 0 || u_.readers[x].size() != 2 || !all_static(t)) return false;
    auto same = [&](ir::ValueId v) { return type(v) == t; };
    uint32_t d = u_.readers[x][0], m = u_.readers[x][1];
    if (d > m) std::swap(d, m);
    const ir::Node& dn = nodes_[d];
    if (!is_binary(dn, ir::BinaryKind::Div) || dn.inputs[0] != x || !same(dn.inputs[1]) ||
        !same(dn.outputs[0]))
      return false;
    const auto c = broadcast_scalar(dn.inputs[1]);
    if (!c || *c == 0.0f) return false;
    const int64_t e = only_reader(dn.outputs[0]);
    if (e < 0 || nodes_[e].op != ir::Op::Unary ||
        ir::attrs<ir::Op::Unary>(nodes_[e]).kind != ir::UnaryKind::Erf || !same(nodes_[e].outputs[0]))
      return false;
    const ir::ValueId ev = nodes_[e].outputs[0];
    const int64_t a = only_reader(ev);
    if (a < 0 || !is_binary(nodes_[a], ir::BinaryKind::Add) || !same(other(nodes_[a], ev)) ||
        !same(nodes_[a].outputs[0]))
      return false;
    const auto one = broadcast_scalar(other(nodes_[a], ev));
    if (!one || only_reader(nodes_[a].outputs[0]) != static_cast<int64_t>(m)) return false;
    const ir::Node& mn = nodes_[m];
    const ir::ValueId av = nodes_[a].outputs[0];
    if (!is_binary(mn, ir::BinaryKind::Mul) ||
        !((mn.inputs[0] == x && mn.inputs[1] == av) || (mn.inputs[0] == av && mn.inputs[1] == x)) ||
        !same(mn.outputs[0]))
      return false;
    const int64_t h = only_reader(mn.outputs[0]);
    if (h < 0 || !is_binary(nodes_[h], ir::BinaryKind::Mul) || !same(other(nodes_[h], mn.outputs[0])) ||
        !same(nodes_[h].outputs[0]))
      return false;
    const auto k = broadcast_scalar(other(nodes_[h], mn.outputs[0]));
    if (!k) return false;
    if (!(d < e && e < a && a < static_cast<int64_t>(m) && static_cast<int64_t>(m) < h)) return false;
    f.gelu = true;
    f.gelu_c = *c;
    f.gelu_one = *one;
    f.gelu_k = *k;
    f.erf_first = nodes_[a].inputs[0] == ev;
    f.x_first = mn.inputs[0] == x;
    f.m_first = nodes_[h].inputs[0] == mn.outputs[0];
    f.result = nodes_[h].outputs[0];
    gs = {d, static_cast<uint32_t>(e), static_cast<uint32_t>(a), m, static_cast<uint32_t>(h)};
    return true;
  }

  Fused grow(uint32_t i, std::vector<Claim>& declines) const {
    const ir::Node& a = nodes_[i];
    Fused f;
    f.anchor = i;
    f.conv = a.op == ir::Op::Conv;
    f.src = a.inputs[0];
    f.weights = a.inputs[1];
    f.span = NodeSpan{i, i + 1};
    f.result = a.outputs[0];
    if (a.op == ir::Op::Pool) {  // no post-ops
      f.pool = true;
      f.weights = ir::kNoValue;
      return f;
    }
    if (!f.conv) {  // rhs = transpose of a 2-D constant just before (a Gemm's transB): packed as is
      const int64_t k = u_.def[f.weights];
      bool ok = k >= 0 && nodes_[k].op == ir::Op::Transpose && u_.readers[f.weights].size() == 1 &&
                u_.results[f.weights] == 0 && is_constant_value(nodes_[k].inputs[0]) &&
                type(f.weights).shape.size() == 2 &&
                ir::attrs<ir::Op::Transpose>(nodes_[k]).perm == std::vector<int64_t>{1, 0};
      for (int64_t j = k + 1; ok && j < static_cast<int64_t>(i); ++j) ok = nodes_[j].op == ir::Op::Constant;
      if (ok) {
        f.weights = nodes_[k].inputs[0];
        f.weights_transposed = true;
        f.span.begin = static_cast<uint32_t>(k);
      }
    }
    std::vector<Fused> states = {f};
    std::vector<uint32_t> steps = {i};
    int stage = 0;
    ir::ValueId cur = a.outputs[0];
    const std::string what = std::string(f.conv ? "conv" : "matmul") + " #" + std::to_string(i);
    for (;;) {
      if (u_.results[cur] > 0 || u_.readers[cur].size() != 1) break;  // seen elsewhere: not fusible
      const uint32_t c = u_.readers[cur][0];
      const uint32_t last = steps.back();
      if (c <= last) break;
      bool helpers = true;
      for (uint32_t k = last + 1; k < c && helpers; ++k) helpers = helper(k);
      if (!helpers) break;
      Fused next = states.back();
      next.span = NodeSpan{f.span.begin, c + 1};
      const std::string why = absorb(next, stage, cur, nodes_[c]);
      if (!why.empty()) {
        if (nodes_[c].op == ir::Op::Binary || nodes_[c].op == ir::Op::Unary)
          declines.push_back(Claim{NodeSpan{c, c + 1}, Support::no("not fused into " + what + ": " + why)});
        break;
      }
      cur = nodes_[c].outputs[0];
      next.result = cur;
      states.push_back(next);
      steps.push_back(c);
    }
    if (!f.conv && stage <= 2) {  // matmul (+ bias), then maybe a GELU
      Fused g = states.back();
      std::vector<uint32_t> gs;
      if (gelu(g, cur, gs)) {
        bool ok = true;
        for (uint32_t k = steps.back() + 1; k < gs.back() && ok; ++k)
          ok = std::find(gs.begin(), gs.end(), k) != gs.end() || helper(k);
        std::vector<uint32_t> all = steps;
        all.insert(all.end(), gs.begin(), gs.end());
        g.span.end = gs.back() + 1;
        if (ok && closed(g.span.begin, g.span.end, all)) return g;
      }
    }
    // The longest prefix of the steps whose span is closed (a helper broadcast read past its end
    // would be a result of the span).
    for (size_t k = steps.size(); k > 1; --k) {
      std::vector<uint32_t> prefix(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(k));
      if (closed(f.span.begin, steps[k - 1] + 1, prefix)) return states[k - 1];
    }
    return states.front();
  }

  // Whether unit f may follow island `is` (see Island in fusion.h).
  bool joins(const Island& is, const Fused& f) const {
    const Fused& a = is.units.back();
    if (!(a.conv || a.pool) || !(f.conv || f.pool) || f.weights_transposed) return false;
    // a.result may have other readers: the island keeps it only if they are summands of its later
    // units (outer_read, once the island is complete)
    // f reads a.result, or (a resnet downsample conv) an earlier unit's result or a value defined
    // before the island: then f must add a.result (kept for that sum)
    bool elsewhere = u_.def[f.src] < static_cast<int64_t>(is.span.begin);
    for (const Fused& e : is.units) elsewhere = elsewhere || e.result == f.src;
    if ((f.src != a.result && !elsewhere) || u_.results[a.result] != 0) return false;
    if (f.src != a.result && f.residual != a.result) return false;
    if (f.residual != ir::kNoValue && u_.def[f.residual] >= static_cast<int64_t>(is.span.begin)) {
      bool inner = false;  // the result of an earlier unit of the island, kept for this sum
      for (const Fused& e : is.units) inner = inner || e.result == f.residual;
      if (!inner) return false;
    }
    if (f.span.begin < a.span.end) return false;
    // the nodes between: helpers whose values are read inside the island only
    for (uint32_t k = a.span.end; k < f.span.begin; ++k) {
      if (!helper(k)) return false;
      for (ir::ValueId v : nodes_[k].outputs) {
        if (u_.results[v] > 0) return false;
        for (uint32_t r : u_.readers[v])
          if (r < is.span.begin || r >= f.span.end) return false;
      }
    }
    return true;
  }

  // The first unit (but the last) whose result is read outside the island or is a graph result,
  // or -1. Inside the island's span only later units' anchors and sums read it (the other nodes
  // there are the units' own steps and constant helpers).
  int outer_read(const Island& is) const {
    for (size_t j = 0; j + 1 < is.units.size(); ++j) {
      const ir::ValueId v = is.units[j].result;
      if (u_.results[v] > 0) return static_cast<int>(j);
      for (uint32_t r : u_.readers[v])
        if (r < is.span.begin || r >= is.span.end) return static_cast<int>(j);
    }
    return -1;
  }

  void join_islands(Match& m) const {
    std::vector<Island> grown;
    for (const Fused& f : m.fused) {
      if (!grown.empty() && joins(grown.back(), f)) {
        grown.back().units.push_back(f);
        grown.back().span.end = f.span.end;
      } else {
        grown.push_back(Island{f.span, {f}});
      }
    }
    // Split an island after a unit whose result is seen outside it, until none is.
    for (size_t k = 0; k < grown.size(); ++k) {
      for (;;) {
        const int j = outer_read(grown[k]);
        if (j < 0) break;
        Island tail{NodeSpan{grown[k].units[j + 1].span.begin, grown[k].span.end},
                    std::vector<Fused>(grown[k].units.begin() + j + 1, grown[k].units.end())};
        grown[k].units.resize(static_cast<size_t>(j) + 1);
        grown[k].span.end = grown[k].units.back().span.end;
        grown.insert(grown.begin() + static_cast<std::ptrdiff_t>(k) + 1, std::move(tail));
      }
    }
    m.islands = std::move(grown);
    // One claim per island; a decline inside an island's span (at a helper between its units,
    // which fusion does not decline, or at a stopped post-op: not possible) is dropped.
    std::vector<Claim> claims;
    size_t next = 0;
    for (const Claim& c : m.claims) {
      if (!c.support.yes) {
        bool inside = false;
        for (const Island& is : m.islands)
          inside = inside || (c.span.begin < is.span.end && is.span.begin < c.span.end);
        if (!inside) claims.push_back(c);
        continue;
      }
      // the first unit's claim of each island stands for the island
      if (next < m.islands.size() && m.islands[next].span.begin == c.span.begin) {
        claims.push_back(Claim{m.islands[next].span, Support::ok()});
        ++next;
      }
    }
    m.claims = std::move(claims);
  }

  const ir::Graph& g_;
  const std::vector<ir::Node>& nodes_;
  Uses u_;
};

}  // namespace

std::string Fused::description() const {
  if (pool) return "maxpool";
  std::string s = conv ? "conv" : weights_transposed ? "matmul(transposed constant)" : "matmul";
  if (bias != ir::kNoValue) s += "+bias";
  if (residual != ir::kNoValue) s += "+sum";
  if (act == Act::kRelu) s += "+relu";
  if (act == Act::kClip) s += "+clip";
  if (gelu) s += "+gelu";
  return s;
}

std::string Island::description() const {
  std::string s;
  for (const Fused& f : units) s += (s.empty() ? "" : " > ") + f.description();
  return s;
}

Match match_graph(const ir::Graph& g, NumericMode mode) { return Matcher(g).run(mode); }

}  // namespace plumb::rt::onednn
