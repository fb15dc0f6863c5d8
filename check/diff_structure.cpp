#include "check/diff_structure.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "check/diff_names.h"
#include "ir/status.h"

namespace plumb::check {

namespace {

// One graph's top level as the spans see it.
struct Side {
  const ir::Graph& g;
  const std::vector<int>& partner;  // per node: its partner on the other side, -1 for none
  const std::vector<bool>& live;
  const std::vector<bool>& constant;
  std::vector<bool> same;  // per node: paired, and computes what its partner computes
  std::vector<int> producer;
  std::vector<std::vector<int>> consumers;
  std::map<std::string, std::vector<int>> by_name;  // ONNX node name -> its live non-constant nodes

  Side(const ir::Graph& graph, const std::vector<int>& p, const std::vector<bool>& l,
       const std::vector<bool>& c)
      : g(graph), partner(p), live(l), constant(c) {
    producer.assign(g.values.size(), -1);
    consumers.resize(g.values.size());
    for (size_t k = 0; k < g.body.nodes.size(); ++k) {
      const ir::Node& n = g.body.nodes[k];
      for (ir::ValueId v : n.outputs) producer[v] = static_cast<int>(k);
      for (ir::ValueId v : n.inputs)
        if (v < consumers.size()) consumers[v].push_back(static_cast<int>(k));
      if (counts(static_cast<int>(k)) && !n.prov.node_name.empty())
        by_name[n.prov.node_name].push_back(static_cast<int>(k));
    }
  }
  bool counts(int k) const { return live[k] && !constant[k]; }
  bool differs(int k) const { return counts(k) && !same[k]; }
  bool unpaired(int k) const { return partner[k] < 0; }
};

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(int x, int y) { parent[find(x)] = find(y); }
};

// A span: its nodes on each side (top-level indices, ascending).
struct Span {
  std::vector<size_t> a, b;
};

// Node ids over both sides: A's node k is k, B's node k is na + k.
class SpanBuilder {
 public:
  SpanBuilder(const Side& a, const Side& b, const GraphMatch& m)
      : a_(a), b_(b), m_(m), na_(a.g.body.nodes.size()) {}

  // The spans grown from the nodes `seed` selects (side 0: A, 1: B), as the header says.
  std::vector<Span> grow(const std::function<bool(int side, int k)>& seed) const {
    const size_t n = na_ + b_.g.body.nodes.size();
    std::vector<bool> in(n, false);
    std::vector<int> work;
    UnionFind uf(n);
    auto add = [&](int id, int from) {
      if (!in[id]) in[id] = true, work.push_back(id);
      if (from >= 0) uf.unite(id, from);
    };
    for (int side = 0; side < 2; ++side)
      for (size_t k = 0; k < of(side).g.body.nodes.size(); ++k)
        if (of(side).counts(static_cast<int>(k)) && seed(side, static_cast<int>(k))) add(id(side, k), -1);
    while (!work.empty()) {  // partners, and every core node of the ONNX nodes involved
      const int x = work.back();
      work.pop_back();
      const int side = x < static_cast<int>(na_) ? 0 : 1;
      const Side& s = of(side);
      const int k = x - (side ? static_cast<int>(na_) : 0);
      if (const int p = s.partner[k]; p >= 0 && of(1 - side).counts(p)) add(id(1 - side, p), x);
      const std::string& name = s.g.body.nodes[k].prov.node_name;
      if (auto it = s.by_name.find(name); !name.empty() && it != s.by_name.end())
        for (int j : it->second) add(id(side, j), x);
    }
    for (int side = 0; side < 2; ++side) {  // an unpaired node and its neighbours in spans
      const Side& s = of(side);
      for (size_t k = 0; k < s.g.body.nodes.size(); ++k) {
        if (!in[id(side, k)]) continue;
        for (ir::ValueId v : s.g.body.nodes[k].outputs)
          for (int j : s.consumers[v])
            if (in[id(side, j)] && (s.unpaired(static_cast<int>(k)) || s.unpaired(j)))
              uf.unite(id(side, k), id(side, j));
      }
    }
    for (size_t k = 0; k < na_; ++k) {  // an ONNX node's unpaired core nodes on both sides
      const std::string& name = a_.g.body.nodes[k].prov.node_name;
      auto it = b_.by_name.find(name);
      if (!in[k] || !a_.unpaired(static_cast<int>(k)) || name.empty() || it == b_.by_name.end()) continue;
      for (int j : it->second)
        if (in[id(1, j)] && b_.unpaired(j)) uf.unite(static_cast<int>(k), id(1, j));
    }
    for (size_t k = 0; k < b_.g.body.nodes.size(); ++k) {  // spans feeding one input of paired nodes
      if (!b_.counts(static_cast<int>(k)) || b_.unpaired(static_cast<int>(k))) continue;
      const ir::Node& y = b_.g.body.nodes[k];
      for (size_t i = 0; i < y.inputs.size(); ++i)
        link(uf, in, partner_input(m_, a_.g, b_.g, static_cast<int>(k), i), y.inputs[i]);
    }
    const auto& ra = a_.g.body.results;
    const auto& rb = b_.g.body.results;
    for (size_t k = 0; k < ra.size() && k < rb.size(); ++k) link(uf, in, ra[k], rb[k]);
    std::map<int, Span> spans;
    for (size_t x = 0; x < n; ++x) {
      if (!in[x]) continue;
      Span& s = spans[uf.find(static_cast<int>(x))];
      (x < na_ ? s.a : s.b).push_back(x < na_ ? x : x - na_);
    }
    std::vector<Span> out;
    for (auto& [root, s] : spans) out.push_back(std::move(s));
    return out;
  }

 private:
  const Side& of(int side) const { return side ? b_ : a_; }
  int id(int side, size_t k) const { return static_cast<int>(side ? na_ + k : k); }
  void link(UnionFind& uf, const std::vector<bool>& in, ir::ValueId va, ir::ValueId vb) const {
    if (va >= a_.producer.size() || vb >= b_.producer.size()) return;
    const int pa = a_.producer[va], pb = b_.producer[vb];
    if (pa >= 0 && pb >= 0 && in[id(0, pa)] && in[id(1, pb)]) uf.unite(id(0, pa), id(1, pb));
  }

  const Side& a_;
  const Side& b_;
  const GraphMatch& m_;
  size_t na_;
};

// The core nodes of one ONNX node in a span.
struct Entry {
  ir::Provenance prov;
  std::vector<size_t> core;
};

std::vector<Entry> entries_of(const ir::Graph& g, const std::vector<size_t>& nodes) {
  std::vector<Entry> out;
  std::map<std::string, size_t> at;
  for (size_t k : nodes) {
    const ir::Provenance& p = owner(g, k);
    auto [it, fresh] = at.emplace(group_key(p), out.size());
    if (fresh) out.push_back({p, {}});
    out[it->second].core.push_back(k);
  }
  return out;
}

std::string entries_text(const std::vector<Entry>& e) {
  std::vector<std::string> parts;
  for (const Entry& x : e) parts.push_back(onnx_node_text(x.prov));
  return join(parts, " + ", 8);
}

bool same_onnx_node(const ir::Provenance& x, const ir::Provenance& y) {
  return !x.node_name.empty() && x.node_name == y.node_name && x.op_type == y.op_type;
}

const Entry* find_entry(const std::vector<Entry>& e, const ir::Provenance& p) {
  for (const Entry& x : e)
    if (same_onnx_node(x.prov, p)) return &x;
  return nullptr;
}

// ONNX nodes of the same op types on both sides (names aside: two exporters name nodes otherwise,
// and a weight changed in a renamed Conv is still a weight finding).
bool same_onnx_ops(const std::vector<Entry>& ea, const std::vector<Entry>& eb) {
  std::vector<std::string> oa, ob;
  for (const Entry& x : ea) oa.push_back(x.prov.op_type);
  for (const Entry& y : eb) ob.push_back(y.prov.op_type);
  std::sort(oa.begin(), oa.end());
  std::sort(ob.begin(), ob.end());
  return oa == ob;
}

// The entry with the most core nodes (the last of equals: the one whose result leaves the span).
const Entry& biggest(const std::vector<Entry>& e) {
  size_t best = 0;
  for (size_t k = 0; k < e.size(); ++k)
    if (e[k].core.size() >= e[best].core.size()) best = k;
  return e[best];
}

class Findings {
 public:
  Findings(const Side& a, const Side& b, const AttrDescriber& describe, std::vector<DiffFinding>& content)
      : a_(a), b_(b), describe_(describe), content_(content) {}

  // One span with an unpaired node.
  void structural(const Span& s) {
    const std::vector<Entry> ea = entries_of(a_.g, s.a), eb = entries_of(b_.g, s.b);
    std::vector<Entry> kept, ra, rb;
    for (const Entry& x : ea) (find_entry(eb, x.prov) ? kept : ra).push_back(x);
    for (const Entry& y : eb)
      if (!find_entry(ea, y.prov)) rb.push_back(y);
    if (ea.empty() || eb.empty() || (ra.empty() && rb.empty())) return per_onnx_node(s);
    const Entry* changed = nullptr;  // a kept node whose weights changed
    for (const Entry& x : kept)
      if (!changed && reweighted(*find_entry(eb, x.prov))) changed = find_entry(eb, x.prov);
    if (rb.empty() || ra.empty()) {
      if (!changed) return per_onnx_node(s);  // removed or added next to nodes rewired or otherwise changed
      const bool fused = rb.empty();
      return add(s, fused ? FindingKind::fused : FindingKind::split, changed->prov, ea, eb,
                 entries_text(fused ? ra : rb) + (fused ? " folded into it" : " split out of it"));
    }
    if (ea.size() == eb.size()) {
      bool swaps = ra.size() == rb.size();  // the same names, other ops: per node
      for (size_t k = 0; k < ra.size() && swaps; ++k) swaps = ra[k].prov.node_name == rb[k].prov.node_name;
      if (swaps) return per_onnx_node(s);
    }
    const FindingKind kind = ea.size() > eb.size()   ? FindingKind::fused
                             : ea.size() < eb.size() ? FindingKind::split
                                                     : FindingKind::structure;
    add(s, kind, kind == FindingKind::split ? biggest(ea).prov : biggest(eb).prov, ea, eb, "");
  }

  // A span of ONNX nodes of one side computed by other ONNX nodes of the other, core nodes alike.
  void same_computation(const Span& s) {
    const std::vector<Entry> ea = entries_of(a_.g, s.a), eb = entries_of(b_.g, s.b);
    if (ea.empty() || eb.empty() || ea.size() == eb.size()) return;
    const bool fused = ea.size() > eb.size();
    DiffFinding f;
    f.kind = fused ? FindingKind::fused : FindingKind::split;
    f.same_computation = true;
    const ir::Provenance& p = fused ? biggest(eb).prov : biggest(ea).prov;
    f.node = p.node_name;
    f.op_type = p.op_type;
    f.order = s.b.empty() ? s.a[0] : s.b[0];
    f.what = std::string(fused ? "fused" : "split") + ": A's " + entries_text(ea) + " -> B's " +
             entries_text(eb) + "; the same " + span_text(b_.g, s.b);
    f.nodes_a = s.a;
    f.nodes_b = s.b;
    out.push_back(std::move(f));
  }

  std::vector<DiffFinding> out;

 private:
  // Whether a kept ONNX node computes with other weights (what folding a node into it does): a
  // core node paired with one of the same attributes that reads other constants.
  bool reweighted(const Entry& y) const {
    for (size_t k : y.core) {
      const int p = b_.partner[k];
      if (p >= 0 && b_.differs(static_cast<int>(k)) &&
          core_attr_changes(a_.g.body.nodes[p], b_.g.body.nodes[k]).empty())
        return true;
    }
    return false;
  }

  // A fused, split or rewritten span; the weight and attribute findings of its B nodes join it.
  void add(const Span& s, FindingKind kind, const ir::Provenance& at, const std::vector<Entry>& ea,
           const std::vector<Entry>& eb, const std::string& how) {
    DiffFinding f;
    f.kind = kind;
    f.node = at.node_name;
    f.op_type = at.op_type;
    f.order = s.b.empty() ? s.a[0] : s.b[0];
    const char* word = kind == FindingKind::fused   ? "fused"
                       : kind == FindingKind::split ? "split"
                                                    : "rewritten";
    f.what = std::string(word) + ": A's " + entries_text(ea) + " -> B's " + entries_text(eb) +
             (how.empty() ? "" : " (" + how + ")") + ", " + span_text(a_.g, s.a) + " -> " +
             span_text(b_.g, s.b);
    f.nodes_a = s.a;
    f.nodes_b = s.b;
    const std::set<size_t> in_b(s.b.begin(), s.b.end());
    std::vector<std::string> with;
    for (auto it = content_.begin(); it != content_.end();) {
      if (it->b_node >= 0 && in_b.count(static_cast<size_t>(it->b_node))) {
        with.push_back(it->brief.empty() ? it->what : it->brief);
        it = content_.erase(it);
      } else {
        ++it;
      }
    }
    if (!with.empty()) f.what += "; changed with it: " + join(with, "; ", 8);
    out.push_back(std::move(f));
  }

  // Unpaired core nodes grouped by ONNX node: removed, added, or replaced by others.
  void per_onnx_node(const Span& s) {
    struct Group {
      ir::Provenance prov_a, prov_b;
      std::vector<size_t> added, removed;  // B nodes, A nodes
    };
    std::map<std::string, Group> groups;
    std::vector<std::string> order;
    auto group = [&](const ir::Provenance& p) -> Group& {
      const std::string key = group_key(p);
      if (!groups.count(key)) order.push_back(key);
      return groups[key];
    };
    for (size_t k : s.a)
      if (a_.unpaired(static_cast<int>(k))) {
        Group& g = group(owner(a_.g, k));
        g.prov_a = owner(a_.g, k);
        g.removed.push_back(k);
      }
    for (size_t k : s.b)
      if (b_.unpaired(static_cast<int>(k))) {
        Group& g = group(owner(b_.g, k));
        g.prov_b = owner(b_.g, k);
        g.added.push_back(k);
      }
    for (const std::string& key : order) {
      const Group& g = groups[key];
      DiffFinding f;
      f.kind = FindingKind::structure;
      f.order = g.added.empty() ? g.removed[0] : g.added[0];  // A's or B's position: about the same place
      f.nodes_a = g.removed;
      f.nodes_b = g.added;
      if (g.removed.empty()) {
        f.node = g.prov_b.node_name, f.op_type = g.prov_b.op_type;
        f.what = "only in B (added): " + span_text(b_.g, g.added);
      } else if (g.added.empty()) {
        f.node = g.prov_a.node_name, f.op_type = g.prov_a.op_type;
        f.what = "only in A (removed): " + span_text(a_.g, g.removed);
      } else {
        f.node = g.prov_b.node_name;
        const bool same_op = g.prov_a.op_type == g.prov_b.op_type;
        f.op_type = same_op ? g.prov_b.op_type : g.prov_a.op_type + " -> " + g.prov_b.op_type;
        const std::string onnx = describe_ ? describe_(g.prov_a, g.prov_b) : std::string();
        const std::string from = span_text(a_.g, g.removed), to = span_text(b_.g, g.added);
        // The same core nodes that could not pair: they read other values (an input rewired).
        const std::string how = !same_op     ? "op " + f.op_type
                                : from == to ? "reads other inputs"
                                             : "lowers differently";
        f.what = how + (onnx.empty() ? std::string() : " (" + onnx + ")") + ": " +
                 (from == to ? from : from + " -> " + to);
      }
      out.push_back(std::move(f));
    }
  }

  const Side& a_;
  const Side& b_;
  const AttrDescriber& describe_;
  std::vector<DiffFinding>& content_;
};

}  // namespace

std::vector<DiffFinding> structure_findings(const ir::Graph& a, const ir::Graph& b, const GraphMatch& m,
                                            const AttrDescriber& describe,
                                            std::vector<DiffFinding>& content) {
  Side sa(a, m.b_of_a, m.live_a, m.const_a), sb(b, m.a_of_b, m.live_b, m.const_b);
  sb.same = m.same_b;
  sa.same.assign(a.body.nodes.size(), false);
  for (size_t k = 0; k < a.body.nodes.size(); ++k) {
    const int p = m.b_of_a[k];
    sa.same[k] = p >= 0 && m.a_of_b[p] == static_cast<int>(k) && m.same_b[p];
  }
  const SpanBuilder spans(sa, sb, m);
  Findings f(sa, sb, describe, content);
  std::set<std::pair<int, size_t>> taken;  // (side, node) in a structural span
  for (const Span& s : spans.grow([&](int side, int k) { return (side ? sb : sa).differs(k); })) {
    bool unpaired = false;
    for (size_t k : s.a) unpaired = unpaired || sa.unpaired(static_cast<int>(k));
    for (size_t k : s.b) unpaired = unpaired || sb.unpaired(static_cast<int>(k));
    // Weights or attributes changed in ONNX nodes of the same ops: their own findings.
    if (!unpaired && same_onnx_ops(entries_of(a, s.a), entries_of(b, s.b))) continue;
    for (size_t k : s.a) taken.emplace(0, k);
    for (size_t k : s.b) taken.emplace(1, k);
    f.structural(s);
  }
  // Paired nodes computing the same from ONNX nodes of other op types (MatMul + Add against Gemm).
  auto reexpressed = [&](int side, int k) {
    const Side& s = side ? sb : sa;
    const Side& o = side ? sa : sb;
    const int p = s.partner[k];
    return s.same[k] && p >= 0 && s.g.body.nodes[k].prov.op_type != o.g.body.nodes[p].prov.op_type;
  };
  for (const Span& s : spans.grow(reexpressed)) {
    bool overlaps = false, differs = false;
    for (size_t k : s.a) overlaps = overlaps || taken.count({0, k}), differs = differs || sa.differs(int(k));
    for (size_t k : s.b) overlaps = overlaps || taken.count({1, k}), differs = differs || sb.differs(int(k));
    if (!overlaps && !differs) f.same_computation(s);
  }
  return std::move(f.out);
}

}  // namespace plumb::check
