#include "check/diff.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/constant_values.h"
#include "ir/status.h"

namespace plumb::check {

namespace {

std::string join(const std::vector<std::string>& parts, const char* sep, size_t most = SIZE_MAX) {
  std::string s;
  for (size_t k = 0; k < parts.size() && k < most; ++k) s += (k ? sep : "") + parts[k];
  if (parts.size() > most) s += strfmt("%s... (%zu in all)", sep, parts.size());
  return s;
}

template <typename T>
std::string list_text(const std::vector<T>& v) {
  std::vector<std::string> parts;
  for (const T& x : v) {
    if constexpr (std::is_same_v<T, double>)
      parts.push_back(strfmt("%g", x));
    else
      parts.push_back(std::to_string(x));
  }
  return "[" + join(parts, ",", 16) + "]";
}

std::string attr_text(const ir::Node& n, const ir::Attr& a) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) return std::to_string(v);
        if constexpr (std::is_same_v<T, double>) return strfmt("%g", v);
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>)
          return list_text(v);
        if constexpr (std::is_same_v<T, std::string>) return "\"" + v + "\"";
        if constexpr (std::is_same_v<T, ir::DType>) return std::string(ir::dtype_name(v));
        if constexpr (std::is_same_v<T, ir::EnumValue>) {
          const ir::AttrSpec* spec = ir::find_attr_spec(n.op, a.name);
          const std::string_view name = spec ? ir::enum_value_name(spec->enum_type, v.code) : "";
          return name.empty() ? std::to_string(v.code) : std::string(name);
        }
        if constexpr (std::is_same_v<T, ir::TypeAttr>) return ir::type_to_string(v.type);
        return "<constant>";
      },
      a.value);
}

// "binary add", "conv": a core node as the span lists show it.
std::string node_label(const ir::Node& n) {
  std::string s(ir::op_name(n.op));
  if (const ir::Attr* k = n.find_attr("kind")) s += " " + attr_text(n, *k);
  return s;
}

std::string span_text(const ir::Graph& g, const std::vector<size_t>& nodes) {
  std::vector<std::string> parts;
  for (size_t k : nodes) parts.push_back(node_label(g.body.nodes[k]));
  return strfmt("%zu core node%s [", nodes.size(), nodes.size() == 1 ? "" : "s") + join(parts, ", ", 8) + "]";
}

// The ONNX node a top-level core node stands for: its own provenance, or for an unattributed
// constant (an initializer) that of its first reader.
const ir::Provenance& owner(const ir::Graph& g, size_t k) {
  const ir::Node& n = g.body.nodes[k];
  if (!n.prov.node_name.empty() || !n.prov.op_type.empty() || n.outputs.empty()) return n.prov;
  for (size_t j = k + 1; j < g.body.nodes.size(); ++j)
    for (ir::ValueId v : g.body.nodes[j].inputs)
      if (v == n.outputs[0]) return g.body.nodes[j].prov;
  return n.prov;
}

// The ONNX node that computes with a weight (constant node k): its first reader past the
// constant-only nodes in between (a transposed or broadcast weight); the weight's own node when
// none. Not the node that made it: torch shares equal initializers through Identity nodes.
const ir::Provenance& weight_owner(const ir::Graph& g, size_t k, const std::vector<bool>& constant) {
  size_t at = k;
  while (constant[at]) {
    size_t next = SIZE_MAX;
    for (size_t j = at + 1; j < g.body.nodes.size() && next == SIZE_MAX; ++j)
      for (ir::ValueId v : g.body.nodes[j].inputs)
        if (std::find(g.body.nodes[at].outputs.begin(), g.body.nodes[at].outputs.end(), v) !=
            g.body.nodes[at].outputs.end())
          next = j;
    if (next == SIZE_MAX) break;
    at = next;
  }
  return constant[at] ? owner(g, k) : g.body.nodes[at].prov;
}

// ONNX node names are unique (an op swapped keeps its name); unnamed nodes go by their op type.
std::string group_key(const ir::Provenance& p) {
  return p.node_name.empty() ? '\0' + p.op_type : p.node_name;
}

std::string constant_name(const ir::Graph& g, const ir::Node& n) {
  const std::string& name = n.outputs.empty() ? std::string() : g.values[n.outputs[0]].onnx_name;
  return name.empty() ? "(unnamed)" : "'" + name + "'";
}

std::string int_values_text(const ir::ConstantData& c) {
  const auto v = ir::constant_int_values(c);
  return v ? list_text(*v) : "<" + std::to_string(c.size) + " bytes>";
}

// The first ONNX node (B's name) among those next to `nodes` (top-level nodes of `g`, graph A when
// `in_a`, else B: nodes that feed them or read them, paired and not constant) that is in
// `reweighted`; "" when none.
std::string changed_neighbour(const ir::Graph& g, const std::vector<size_t>& nodes, bool in_a,
                              const GraphMatch& m, const ir::Graph& b,
                              const std::set<std::string>& reweighted) {
  std::vector<int> producer(g.values.size(), -1);
  for (size_t k = 0; k < g.body.nodes.size(); ++k)
    for (ir::ValueId v : g.body.nodes[k].outputs) producer[v] = static_cast<int>(k);
  const std::set<size_t> own(nodes.begin(), nodes.end());
  auto name_of = [&](int k) -> std::string {  // B's ONNX node name for a paired, non-constant node k of g
    if (k < 0 || own.count(static_cast<size_t>(k))) return "";
    const int kb = in_a ? m.b_of_a[k] : k;
    if (kb < 0 || (in_a ? m.const_a[k] : m.const_b[k]) || (!in_a && m.a_of_b[k] < 0)) return "";
    const std::string& name = owner(b, static_cast<size_t>(kb)).node_name;
    return reweighted.count(name) ? name : "";
  };
  for (size_t k : nodes) {
    for (ir::ValueId v : g.body.nodes[k].inputs)
      if (std::string n = name_of(producer[v]); !n.empty()) return n;
    for (size_t j = 0; j < g.body.nodes.size(); ++j)
      for (ir::ValueId v : g.body.nodes[j].inputs)
        if (producer[v] == static_cast<int>(k))
          if (std::string n = name_of(static_cast<int>(j)); !n.empty()) return n;
  }
  return "";
}

struct Group {
  ir::Provenance prov_a, prov_b;
  std::vector<size_t> added, removed;  // B nodes, A nodes
};

}  // namespace

const char* finding_kind_name(FindingKind k) {
  switch (k) {
    case FindingKind::structure: return "structure";
    case FindingKind::attribute: return "attribute";
    case FindingKind::weight: return "weight";
    case FindingKind::precision: return "precision";
  }
  return "?";
}

std::string DiffFinding::line() const {
  if (node.empty() && op_type.empty()) return "changed graph: " + what;
  return "changed node '" + node + "' (" + op_type + "): " + what;
}

std::string core_attr_changes(const ir::Node& a, const ir::Node& b) {
  std::vector<std::string> parts;
  for (const ir::Attr& x : a.attrs) {
    if (std::holds_alternative<ir::ConstRef>(x.value)) continue;
    const ir::Attr* y = b.find_attr(x.name);
    if (!y) continue;
    if (!(x.value == y->value)) parts.push_back(x.name + " " + attr_text(a, x) + " -> " + attr_text(b, *y));
  }
  return join(parts, ", ");
}

GraphDiff diff_graphs(const ir::Graph& a, const ir::Graph& b, const AttrDescriber& describe) {
  GraphDiff d;
  d.match = match_graphs(a, b);
  const GraphMatch& m = d.match;
  std::vector<DiffFinding>& out = d.findings;
  const size_t nb = b.body.nodes.size();

  // The graphs' signatures.
  auto signature = [&](const char* what, const std::vector<ir::ValueId>& va,
                       const std::vector<ir::ValueId>& vb, const std::vector<std::string>& names) {
    if (va.size() != vb.size()) {
      out.push_back({FindingKind::structure, "", "", strfmt("%s %zu -> %zu", what, va.size(), vb.size())});
      return;
    }
    for (size_t k = 0; k < va.size(); ++k)
      if (a.type_of(va[k]) != b.type_of(vb[k]))
        out.push_back({FindingKind::structure, "", "",
                       strfmt("%s '%s' ", what, k < names.size() ? names[k].c_str() : "?") +
                           ir::type_to_string(a.type_of(va[k])) + " -> " +
                           ir::type_to_string(b.type_of(vb[k]))});
  };
  signature("inputs", a.body.params, b.body.params, b.input_names);
  signature("outputs", a.body.results, b.body.results, b.output_names);

  // Structure: unpaired live nodes, by ONNX node.
  std::map<std::string, Group> groups;
  std::vector<std::string> group_order;
  auto group = [&](const ir::Provenance& p) -> Group& {
    const std::string key = group_key(p);
    if (!groups.count(key)) group_order.push_back(key);
    return groups[key];
  };
  for (size_t k = 0; k < a.body.nodes.size(); ++k)
    if (m.live_a[k] && m.b_of_a[k] < 0) {
      Group& g = group(owner(a, k));
      g.prov_a = owner(a, k);
      g.removed.push_back(k);
    }
  for (size_t k = 0; k < nb; ++k)
    if (m.live_b[k] && m.a_of_b[k] < 0) {
      Group& g = group(owner(b, k));
      g.prov_b = owner(b, k);
      g.added.push_back(k);
    }
  std::vector<std::pair<size_t, const Group*>> one_sided;  // structure findings only in A or only in B
  for (const std::string& key : group_order) {
    const Group& g = groups[key];
    if (g.added.empty() != g.removed.empty()) one_sided.emplace_back(out.size(), &g);
    DiffFinding f;
    f.kind = FindingKind::structure;
    f.order = g.added.empty() ? g.removed[0] : g.added[0];  // A's or B's position: about the same place
    if (g.removed.empty()) {
      f.node = g.prov_b.node_name, f.op_type = g.prov_b.op_type;
      f.what = "only in B (added): " + span_text(b, g.added);
    } else if (g.added.empty()) {
      f.node = g.prov_a.node_name, f.op_type = g.prov_a.op_type;
      f.what = "only in A (removed): " + span_text(a, g.removed);
    } else {
      f.node = g.prov_b.node_name;
      const bool same_op = g.prov_a.op_type == g.prov_b.op_type;
      f.op_type = same_op ? g.prov_b.op_type : g.prov_a.op_type + " -> " + g.prov_b.op_type;
      const std::string onnx = describe ? describe(g.prov_a, g.prov_b) : std::string();
      const std::string from = span_text(a, g.removed), to = span_text(b, g.added);
      // The same core nodes that could not pair: they read other values (an input rewired).
      const std::string how = !same_op     ? "op " + f.op_type
                              : from == to ? "reads other inputs"
                                           : "lowers differently";
      f.what = how + (onnx.empty() ? std::string() : " (" + onnx + ")") + ": " +
               (from == to ? from : from + " -> " + to);
    }
    out.push_back(std::move(f));
  }

  // Paired nodes: attributes, and the constants' contents.
  std::map<std::string, size_t> attr_finding;  // group key -> index in out
  for (size_t k = 0; k < nb; ++k) {
    const int ka = m.a_of_b[k];
    if (ka < 0 || !m.live_b[k]) continue;
    const ir::Node& x = a.body.nodes[ka];
    const ir::Node& y = b.body.nodes[k];
    const ir::Provenance& pb = owner(b, k);
    if (x.op == ir::Op::Constant) {
      const ir::Provenance& user = weight_owner(b, k, m.const_b);
      const ir::ConstantData* ca = constant_of(a, x);
      const ir::ConstantData* cb = constant_of(b, y);
      if (!ca || !cb || same_constant(*ca, *cb)) continue;
      DiffFinding f{FindingKind::attribute, user.node_name, user.op_type, "", 0, k};
      const std::string name = constant_name(b, y);
      if (ca->type != cb->type) {
        f.kind = FindingKind::structure;
        f.what =
            "constant " + name + " " + ir::type_to_string(ca->type) + " -> " + ir::type_to_string(cb->type);
      } else if (auto w = diff_weights(*ca, *cb)) {
        f.kind = w->loss.empty() ? FindingKind::weight : FindingKind::precision;
        f.what = "weight " + name + " " + ir::type_to_string(cb->type) + ": " + w->describe();
        f.size = w->max_rel;
      } else {
        f.what = "constant " + name + " " + ir::type_to_string(cb->type) + " " + int_values_text(*ca) +
                 " -> " + int_values_text(*cb);
      }
      out.push_back(std::move(f));
      continue;
    }
    if (!y.regions.empty() && !same_regions(m, a, b, ka, static_cast<int>(k)))
      out.push_back({FindingKind::structure, pb.node_name, pb.op_type,
                     "its subgraph differs (core regions of " + node_label(y) + ", compared node for node)",
                     0, k});
    const std::string changes = core_attr_changes(x, y);
    if (changes.empty()) continue;
    const std::string key = group_key(pb);
    const ir::Provenance& pa = owner(a, static_cast<size_t>(ka));
    const std::string onnx = describe ? describe(pa, pb) : std::string();
    const std::string what = onnx.empty() ? "core " + node_label(y) + " " + changes : onnx;
    if (auto it = attr_finding.find(key); it != attr_finding.end()) {
      DiffFinding& f = out[it->second];
      if (f.what.find(what) == std::string::npos) f.what += "; " + what;
      continue;
    }
    attr_finding.emplace(key, out.size());
    if (pa.op_type != pb.op_type) {  // an op swapped for one that lowers onto the same core op
      const std::string ops = pa.op_type + " -> " + pb.op_type;
      out.push_back({FindingKind::structure, pb.node_name, ops, "op " + ops + ": " + what, 0, k});
      continue;
    }
    out.push_back({FindingKind::attribute, pb.node_name, pb.op_type, what, 0, k});
  }

  // A node only in one model next to one whose weights changed: what folding a BatchNormalization
  // (or a Mul, an Add) into a Conv or a Gemm leaves. Said as a possibility: the data decide.
  std::set<std::string> reweighted;  // ONNX nodes (B's names) with a changed float constant
  for (const DiffFinding& f : out)
    if (f.kind == FindingKind::weight || f.kind == FindingKind::precision) reweighted.insert(f.node);
  for (const auto& [at, g] : one_sided) {
    const bool in_a = !g->removed.empty();
    const std::string neighbour =
        changed_neighbour(in_a ? a : b, in_a ? g->removed : g->added, in_a, m, b, reweighted);
    if (!neighbour.empty())
      out[at].what += "; next to '" + neighbour + "', whose weights changed (" +
                      (in_a ? "folded into it?)" : "split out of it?)");
  }

  std::stable_sort(out.begin(), out.end(), [](const DiffFinding& x, const DiffFinding& y) {
    if (x.kind != y.kind) return x.kind < y.kind;
    if (x.size != y.size) return x.size > y.size;
    return x.order < y.order;
  });
  return d;
}

}  // namespace plumb::check
