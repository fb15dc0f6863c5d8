#include "check/diff_match.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
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

// How the constant inputs of two paired nodes compare through their constant nodes.
enum class ConstantPairing { differs, same, not_paired };

class Matcher {
 public:
  Matcher(const ir::Graph& a, const ir::Graph& b, const ConstantFolder& fold) : a_(a), b_(b), fold_(fold) {
    m_.b_of_a.assign(a.body.nodes.size(), -1);
    m_.a_of_b.assign(b.body.nodes.size(), -1);
    m_.value_a_of_b.assign(b.values.size(), ir::kNoValue);
    m_.swapped_b.assign(b.body.nodes.size(), false);
    for (size_t k = 0; k < a.body.nodes.size(); ++k)
      if (a_.live[k] && !a_.constant[k] && !a.body.nodes[k].prov.node_name.empty())
        a_by_name_[a.body.nodes[k].prov.node_name].push_back(static_cast<int>(k));
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

  // An A value that no B value stands for: computed by an unpaired node (a span that differs).
  bool free_a(ir::ValueId va) const {
    const int p = va < a_.producer.size() ? a_.producer[va] : -1;
    return p >= 0 && m_.b_of_a[p] < 0 && !a_.constant[p] && !boundary_a_.count(va);
  }

  // -1: na cannot stand for nb with B's inputs in `order`; else how well it fits (higher better).
  // `resync`: a B input may stand against a free A input (the same ONNX node reading the results
  // of spans that differ, or reading around a node removed from A).
  int fit(int na, int nb, const std::vector<size_t>& order, bool resync = false) const {
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
      if (it == opt.end() && resync && free_a(va)) {
        structural = false;
        continue;
      }
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
    // None: the same ONNX node (by name) reading what spans that differ compute on each side (a
    // LayerNormalization of A, its ReduceMean, Sub, Pow... expansion in B): its inputs correspond
    // (and where B's stands for nothing else, it stands for A's from now on).
    auto same_name = a_by_name_.find(y.prov.node_name);
    if (best < 0 && !y.prov.node_name.empty() && same_name != a_by_name_.end()) {
      for (int c : same_name->second)
        for (int s = 0; s < (commutative(y) ? 2 : 1); ++s) {
          const int f = fit(c, nb, s ? swapped : straight, true);
          if (f > best_fit) best = c, best_fit = f, best_swapped = s == 1;
        }
      if (best >= 0) {
        const std::vector<size_t>& order = best_swapped ? swapped : straight;
        const ir::Node& x = a_.g.body.nodes[best];
        for (size_t i = 0; i < y.inputs.size(); ++i) {
          const ir::ValueId vb = y.inputs[order[i]], va = x.inputs[i];
          if (!b_.is_constant(vb) && options(vb).empty() && free_a(va)) {
            m_.value_a_of_b[vb] = va;
            boundary_a_.insert(va);
          }
        }
      }
    }
    if (best < 0) return;
    pair(best, nb, best_swapped ? swapped : straight);
  }

  void pair(int na, int nb, const std::vector<size_t>& order) {
    m_.b_of_a[na] = nb;
    m_.a_of_b[nb] = na;
    m_.swapped_b[nb] = !order.empty() && order[0] != 0;
    const ir::Node& x = a_.g.body.nodes[na];
    const ir::Node& y = b_.g.body.nodes[nb];
    for (size_t k = 0; k < y.outputs.size(); ++k) m_.value_a_of_b[y.outputs[k]] = x.outputs[k];
    for (size_t i = 0; i < y.inputs.size(); ++i)
      if (b_.is_constant(y.inputs[order[i]])) pair_constant(x.inputs[i], y.inputs[order[i]]);
  }

  // GraphMatch::same_b, in B's order.
  void mark_same() {
    const size_t nb = b_.g.body.nodes.size();
    m_.same_b.assign(nb, false);
    for (size_t k = 0; k < nb; ++k) {
      const int ka = m_.a_of_b[k];
      if (ka < 0 || b_.constant[k]) continue;  // constants are compared through their readers
      const ir::Node& x = a_.g.body.nodes[ka];
      const ir::Node& y = b_.g.body.nodes[k];
      if (!same_attrs(x, y)) continue;
      bool same = y.regions.empty() || same_regions(m_, a_.g, b_.g, ka, static_cast<int>(k));
      for (size_t i = 0; i < y.inputs.size() && same; ++i) {
        const ir::ValueId vb = y.inputs[i];
        if (!b_.is_constant(vb)) continue;
        const ir::ValueId va = partner_input(m_, a_.g, b_.g, static_cast<int>(k), i);
        const ConstantPairing p = constant_pairing(va, vb);
        same = p == ConstantPairing::same || (p == ConstantPairing::not_paired && same_by_value(k, va, vb));
      }
      m_.same_b[k] = same;
    }
    for (size_t k = 0; k < nb; ++k)  // a paired constant node: the same bytes, or the same computation
      if (b_.constant[k] && m_.a_of_b[k] >= 0 && b_.g.body.nodes[k].outputs.size() == 1)
        m_.same_b[k] = constant_pairing(a_.g.body.nodes[m_.a_of_b[k]].outputs.empty()
                                            ? ir::kNoValue
                                            : a_.g.body.nodes[m_.a_of_b[k]].outputs[0],
                                        b_.g.body.nodes[k].outputs[0]) == ConstantPairing::same;
  }

  // Whether the constant nodes of va and vb pair all the way down, and then whether they compute
  // the same (same ops, attributes and constant bytes).
  ConstantPairing constant_pairing(ir::ValueId va, ir::ValueId vb) const {
    if (va >= a_.producer.size() || vb >= b_.producer.size()) return ConstantPairing::not_paired;
    const int na = a_.producer[va], nb = b_.producer[vb];
    if (na < 0 || nb < 0 || (m_.a_of_b[nb] != na && m_.b_of_a[na] != nb)) return ConstantPairing::not_paired;
    const ir::Node& x = a_.g.body.nodes[na];
    const ir::Node& y = b_.g.body.nodes[nb];
    const auto out_a = std::find(x.outputs.begin(), x.outputs.end(), va) - x.outputs.begin();
    const auto out_b = std::find(y.outputs.begin(), y.outputs.end(), vb) - y.outputs.begin();
    if (out_a != out_b || !same_shape_of_node(x, y)) return ConstantPairing::not_paired;
    bool same = same_attrs(x, y);
    if (x.op == ir::Op::Constant) {
      const ir::ConstantData* cx = constant_of(a_.g, x);
      const ir::ConstantData* cy = constant_of(b_.g, y);
      same = same && cx && cy && same_constant(*cx, *cy);
    }
    for (size_t i = 0; i < y.inputs.size(); ++i) {
      const ConstantPairing p = constant_pairing(x.inputs[i], y.inputs[i]);
      if (p == ConstantPairing::not_paired) return p;
      same = same && p == ConstantPairing::same;
    }
    return same ? ConstantPairing::same : ConstantPairing::differs;
  }

  // A constant node's own value, else the folder's.
  std::optional<ir::ConstantData> value_of(const Side& s, ir::ValueId v) const {
    const int p = v < s.producer.size() ? s.producer[v] : -1;
    if (p >= 0)
      if (const ir::ConstantData* c = constant_of(s.g, s.g.body.nodes[p])) return *c;
    if (!fold_) return std::nullopt;
    return fold_(s.g, v);
  }

  // Constant inputs whose nodes do not pair, compared by value (each pair evaluated once).
  bool same_by_value(size_t node_b, ir::ValueId va, ir::ValueId vb) {
    const auto key = std::make_pair(va, vb);
    if (auto it = folded_.find(key); it != folded_.end()) return m_.folded[it->second].same;
    FoldedInput f;
    f.node_b = static_cast<int>(node_b);
    f.a = va;
    f.b = vb;
    f.value_a = value_of(a_, va);
    f.value_b = value_of(b_, vb);
    f.same = f.value_a && f.value_b && same_constant(*f.value_a, *f.value_b);
    folded_.emplace(key, m_.folded.size());
    m_.folded.push_back(std::move(f));
    return m_.folded.back().same;
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
  const ConstantFolder& fold_;
  GraphMatch m_;
  std::map<std::pair<ir::ValueId, ir::ValueId>, size_t> folded_;  // -> index in m_.folded
  std::map<std::string, std::vector<int>> a_by_name_;  // ONNX node name -> live non-constant A nodes
  std::set<ir::ValueId> boundary_a_;                   // A values that a resync made partners
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

GraphMatch match_graphs(const ir::Graph& a, const ir::Graph& b, const ConstantFolder& fold) {
  return Matcher(a, b, fold).run();
}

ir::ValueId partner_input(const GraphMatch& m, const ir::Graph& a, const ir::Graph& b, int nb, size_t i) {
  const int na = m.a_of_b[nb];
  const ir::Node& x = a.body.nodes[na];
  const size_t at = m.swapped_b[nb] && b.body.nodes[nb].inputs.size() == 2 ? 1 - i : i;
  return at < x.inputs.size() ? x.inputs[at] : ir::kNoValue;
}

const ir::ConstantData* constant_of(const ir::Graph& g, const ir::Node& n) {
  if (n.op != ir::Op::Constant || n.attrs.empty()) return nullptr;
  const auto* ref = std::get_if<ir::ConstRef>(&n.attrs[0].value);
  return ref && ref->index < g.constants.size() ? &g.constants[ref->index] : nullptr;
}

bool same_constant(const ir::ConstantData& x, const ir::ConstantData& y) {
  return x.type == y.type && x.size == y.size && (x.size == 0 || std::memcmp(x.data, y.data, x.size) == 0);
}

}  // namespace plumb::check
