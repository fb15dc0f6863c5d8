#include "check/diff_match.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "check/span.h"
#include "ir/attrs.h"

namespace plumb::check {

namespace {

// What the match needs to know of one graph's top level.
struct Side {
  const ir::Graph& g;
  std::vector<int> producer;                 // per value: its top-level node, -1 for none
  std::vector<std::vector<int>> consumers;   // per value: top-level nodes reading it as an input
  std::vector<bool> live, constant;          // per node
  std::map<std::string, ir::ValueId> named;  // ONNX tensor name -> value (top-level, not constant)

  explicit Side(const ir::Graph& graph) : g(graph) {
    const size_t nv = g.values.size(), nn = g.body.nodes.size();
    producer.assign(nv, -1);
    consumers.resize(nv);
    constant.assign(nn, false);
    live.assign(nn, false);
    for (size_t k = 0; k < nn; ++k) {
      const ir::Node& n = g.body.nodes[k];
      for (ir::ValueId v : n.outputs)
        if (v < nv) producer[v] = static_cast<int>(k);
      for (ir::ValueId v : n.inputs)
        if (v < nv) consumers[v].push_back(static_cast<int>(k));
      // rng and image_decode are not constants even on constant operands (a draw, a file's bytes)
      bool c = n.regions.empty() && n.op != ir::Op::Rng && n.op != ir::Op::ImageDecode;
      std::vector<ir::ValueId> in;
      reads_of(n, in);
      for (ir::ValueId v : in) c = c && v < nv && producer[v] >= 0 && constant[producer[v]];
      constant[k] = c;
    }
    std::vector<ir::ValueId> todo(g.body.results.begin(), g.body.results.end());
    while (!todo.empty()) {
      const ir::ValueId v = todo.back();
      todo.pop_back();
      if (v >= nv || producer[v] < 0 || live[producer[v]]) continue;
      live[producer[v]] = true;
      reads_of(g.body.nodes[producer[v]], todo);
    }
    for (size_t v = 0; v < nv; ++v) {
      const std::string& name = g.values[v].onnx_name;
      if (name.empty()) continue;
      const bool is_param = producer[v] < 0;
      if (is_param || !constant[producer[v]]) named.emplace(name, static_cast<ir::ValueId>(v));
    }
  }
  bool is_constant(ir::ValueId v) const {
    return v < producer.size() && producer[v] >= 0 && constant[producer[v]];
  }
};

// The attributes other than a constant's data (compared by content, elsewhere).
bool same_attrs(const ir::Node& x, const ir::Node& y) {
  if (x.attrs.size() != y.attrs.size()) return false;
  for (size_t k = 0; k < x.attrs.size(); ++k) {
    if (x.attrs[k].name != y.attrs[k].name) return false;
    if (std::holds_alternative<ir::ConstRef>(x.attrs[k].value)) continue;
    if (!(x.attrs[k].value == y.attrs[k].value)) return false;
  }
  return true;
}

bool same_shape_of_node(const ir::Node& x, const ir::Node& y) {
  return x.op == y.op && x.inputs.size() == y.inputs.size() && x.outputs.size() == y.outputs.size() &&
         x.regions.size() == y.regions.size();
}

class Matcher {
 public:
  Matcher(const ir::Graph& a, const ir::Graph& b) : a_(a), b_(b) {
    m_.b_of_a.assign(a.body.nodes.size(), -1);
    m_.a_of_b.assign(b.body.nodes.size(), -1);
    m_.value_a_of_b.assign(b.values.size(), ir::kNoValue);
  }

  GraphMatch run() {
    const auto& pa = a_.g.body.params;
    const auto& pb = b_.g.body.params;
    for (size_t k = 0; k < pa.size() && k < pb.size(); ++k) m_.value_a_of_b[pb[k]] = pa[k];
    for (size_t k = 0; k < b_.g.body.nodes.size(); ++k)
      if (b_.live[k] && !b_.constant[k]) match_node(static_cast<int>(k));
    mark_same();
    m_.live_a = a_.live;
    m_.live_b = b_.live;
    m_.const_a = a_.constant;
    m_.const_b = b_.constant;
    return std::move(m_);
  }

 private:
  // The A values B's non-constant value v may stand for: its partner, then its ONNX name's value.
  std::vector<ir::ValueId> options(ir::ValueId v) const {
    std::vector<ir::ValueId> out;
    if (m_.value_a_of_b[v] != ir::kNoValue) out.push_back(m_.value_a_of_b[v]);
    const std::string& name = b_.g.values[v].onnx_name;
    if (!name.empty())
      if (auto it = a_.named.find(name); it != a_.named.end() && (out.empty() || out[0] != it->second))
        out.push_back(it->second);
    return out;
  }

  // -1: na cannot stand for nb with B's inputs in `order`; else how well it fits (higher better).
  int fit(int na, int nb, const std::vector<size_t>& order) const {
    const ir::Node& x = a_.g.body.nodes[na];
    const ir::Node& y = b_.g.body.nodes[nb];
    if (m_.b_of_a[na] >= 0 || !a_.live[na] || a_.constant[na] || !same_shape_of_node(x, y)) return -1;
    bool structural = true;
    for (size_t i = 0; i < y.inputs.size(); ++i) {
      const ir::ValueId vb = y.inputs[order[i]], va = x.inputs[i];
      if (b_.is_constant(vb) || a_.is_constant(va)) {
        if (b_.is_constant(vb) != a_.is_constant(va)) return -1;
        continue;
      }
      const std::vector<ir::ValueId> opt = options(vb);
      const auto it = std::find(opt.begin(), opt.end(), va);
      if (it == opt.end()) return -1;
      structural = structural && it == opt.begin() && m_.value_a_of_b[vb] == va;
    }
    return (same_attrs(x, y) ? 8 : 0) + (x.prov.node_name == y.prov.node_name ? 4 : 0) +
           (x.prov.op_type == y.prov.op_type ? 2 : 0) + (structural ? 1 : 0);
  }

  void match_node(int nb) {
    const ir::Node& y = b_.g.body.nodes[nb];
    std::vector<int> candidates;
    for (ir::ValueId v : y.inputs) {
      if (b_.is_constant(v)) continue;
      for (ir::ValueId va : options(v))
        for (int c : a_.consumers[va]) candidates.push_back(c);
    }
    if (candidates.empty())  // no input leads anywhere: the same ONNX node's nodes of the same op
      for (size_t k = 0; k < a_.g.body.nodes.size(); ++k)
        if (a_.g.body.nodes[k].prov.node_name == y.prov.node_name) candidates.push_back(static_cast<int>(k));
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    std::vector<size_t> straight(y.inputs.size());
    for (size_t i = 0; i < straight.size(); ++i) straight[i] = i;
    std::vector<size_t> swapped = straight;
    if (commutative(y)) std::swap(swapped[0], swapped[1]);
    int best = -1, best_fit = -1;
    bool best_swapped = false;
    for (int c : candidates) {
      for (int s = 0; s < (commutative(y) ? 2 : 1); ++s) {
        const int f = fit(c, nb, s ? swapped : straight);
        if (f > best_fit) best = c, best_fit = f, best_swapped = s == 1;
      }
    }
    if (best < 0) return;
    pair(best, nb, best_swapped ? swapped : straight);
  }

  void pair(int na, int nb, const std::vector<size_t>& order) {
    m_.b_of_a[na] = nb;
    m_.a_of_b[nb] = na;
    const ir::Node& x = a_.g.body.nodes[na];
    const ir::Node& y = b_.g.body.nodes[nb];
    for (size_t k = 0; k < y.outputs.size(); ++k) m_.value_a_of_b[y.outputs[k]] = x.outputs[k];
    for (size_t i = 0; i < y.inputs.size(); ++i)
      if (b_.is_constant(y.inputs[order[i]])) pair_constant(x.inputs[i], y.inputs[order[i]]);
  }

  // GraphMatch::same_b, in B's order (a constant input's nodes come before its reader).
  void mark_same() {
    const size_t nb = b_.g.body.nodes.size();
    m_.same_b.assign(nb, false);
    for (size_t k = 0; k < nb; ++k) {
      const int ka = m_.a_of_b[k];
      if (ka < 0) continue;
      const ir::Node& x = a_.g.body.nodes[ka];
      const ir::Node& y = b_.g.body.nodes[k];
      if (!same_attrs(x, y)) continue;
      if (y.op == ir::Op::Constant) {
        const ir::ConstantData* cx = constant_of(a_.g, x);
        const ir::ConstantData* cy = constant_of(b_.g, y);
        m_.same_b[k] = cx && cy && same_constant(*cx, *cy);
        continue;
      }
      bool same = y.regions.empty() || same_regions(m_, a_.g, b_.g, ka, static_cast<int>(k));
      for (ir::ValueId v : y.inputs)
        if (b_.is_constant(v)) same = same && m_.same_b[b_.producer[v]];
      m_.same_b[k] = same;
    }
  }

  // Constant inputs pair through their consumers, node for node while the ops agree. One model
  // may share a constant that the other holds twice (torch shares equal initializers): a
  // constant node already paired may be the partner of a second one too.
  void pair_constant(ir::ValueId va, ir::ValueId vb) {
    const int na = a_.producer[va], nb = b_.producer[vb];
    if (na < 0 || nb < 0) return;
    const bool a_free = m_.b_of_a[na] < 0, b_free = m_.a_of_b[nb] < 0;
    if (!a_free && !b_free) return;
    const ir::Node& x = a_.g.body.nodes[na];
    const ir::Node& y = b_.g.body.nodes[nb];
    if (!same_shape_of_node(x, y)) return;
    if (a_free) m_.b_of_a[na] = nb;
    if (b_free) {
      m_.a_of_b[nb] = na;
      for (size_t k = 0; k < y.outputs.size(); ++k) m_.value_a_of_b[y.outputs[k]] = x.outputs[k];
    }
    for (size_t i = 0; i < y.inputs.size(); ++i) pair_constant(x.inputs[i], y.inputs[i]);
  }

  Side a_, b_;
  GraphMatch m_;
};

// Regions compared node for node; `local` maps B's region values to A's.
class RegionCompare {
 public:
  RegionCompare(const GraphMatch& m, const ir::Graph& a, const ir::Graph& b) : m_(m), a_(a), b_(b) {}

  bool same(const ir::Region& x, const ir::Region& y) {
    if (x.params.size() != y.params.size() || x.nodes.size() != y.nodes.size() ||
        x.results.size() != y.results.size())
      return false;
    for (size_t k = 0; k < y.params.size(); ++k) {
      if (a_.type_of(x.params[k]) != b_.type_of(y.params[k])) return false;
      local_[y.params[k]] = x.params[k];
    }
    for (size_t k = 0; k < y.nodes.size(); ++k)
      if (!same_node(x.nodes[k], y.nodes[k])) return false;
    for (size_t k = 0; k < y.results.size(); ++k)
      if (partner(y.results[k]) != x.results[k]) return false;
    return true;
  }

  bool same_node(const ir::Node& x, const ir::Node& y) {
    if (!same_shape_of_node(x, y) || !same_attrs(x, y)) return false;
    if (x.op == ir::Op::Constant) {
      const ir::ConstantData* cx = constant_of(a_, x);
      const ir::ConstantData* cy = constant_of(b_, y);
      if (!cx || !cy || !same_constant(*cx, *cy)) return false;
    }
    for (size_t i = 0; i < y.inputs.size(); ++i)
      if (partner(y.inputs[i]) != x.inputs[i]) return false;
    for (size_t r = 0; r < y.regions.size(); ++r)
      if (!same(x.regions[r], y.regions[r])) return false;
    for (size_t k = 0; k < y.outputs.size(); ++k) local_[y.outputs[k]] = x.outputs[k];
    return true;
  }

 private:
  ir::ValueId partner(ir::ValueId v) const {
    if (auto it = local_.find(v); it != local_.end()) return it->second;
    return v < m_.value_a_of_b.size() ? m_.value_a_of_b[v] : ir::kNoValue;
  }
  const GraphMatch& m_;
  const ir::Graph& a_;
  const ir::Graph& b_;
  std::map<ir::ValueId, ir::ValueId> local_;
};

}  // namespace

bool same_regions(const GraphMatch& m, const ir::Graph& a, const ir::Graph& b, int na, int nb) {
  const ir::Node& x = a.body.nodes[na];
  const ir::Node& y = b.body.nodes[nb];
  if (x.regions.size() != y.regions.size()) return false;
  RegionCompare c(m, a, b);
  for (size_t r = 0; r < y.regions.size(); ++r)
    if (!c.same(x.regions[r], y.regions[r])) return false;
  return true;
}

bool commutative(const ir::Node& n) {
  if (n.op != ir::Op::Binary || n.inputs.size() != 2) return false;
  using BK = ir::BinaryKind;
  const BK k = ir::attrs<ir::Op::Binary>(n).kind;
  return k == BK::Add || k == BK::Mul || k == BK::Max || k == BK::Min || k == BK::And || k == BK::Or ||
         k == BK::Xor;
}

GraphMatch match_graphs(const ir::Graph& a, const ir::Graph& b) { return Matcher(a, b).run(); }

const ir::ConstantData* constant_of(const ir::Graph& g, const ir::Node& n) {
  if (n.op != ir::Op::Constant || n.attrs.empty()) return nullptr;
  const auto* ref = std::get_if<ir::ConstRef>(&n.attrs[0].value);
  return ref && ref->index < g.constants.size() ? &g.constants[ref->index] : nullptr;
}

bool same_constant(const ir::ConstantData& x, const ir::ConstantData& y) {
  return x.type == y.type && x.size == y.size && (x.size == 0 || std::memcmp(x.data, y.data, x.size) == 0);
}

}  // namespace plumb::check
