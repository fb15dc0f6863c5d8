#include "check/diff.h"

#include <algorithm>
#include <map>
#include <set>

#include "check/diff_names.h"
#include "check/diff_structure.h"
#include "ir/constant_values.h"
#include "ir/status.h"

namespace plumb::check {

namespace {

// The non-constant node that computes with a weight (constant node k): its first reader past the
// constant-only nodes in between (a transposed or broadcast weight); SIZE_MAX when none. Not the
// node that made it: torch shares equal initializers through Identity nodes.
size_t weight_reader(const ir::Graph& g, size_t k, const std::vector<bool>& constant) {
  size_t at = k;
  while (at != SIZE_MAX && constant[at]) {
    size_t next = SIZE_MAX;
    for (size_t j = at + 1; j < g.body.nodes.size() && next == SIZE_MAX; ++j)
      for (ir::ValueId v : g.body.nodes[j].inputs)
        if (std::find(g.body.nodes[at].outputs.begin(), g.body.nodes[at].outputs.end(), v) !=
            g.body.nodes[at].outputs.end())
          next = j;
    at = next;
  }
  return at;
}

std::string value_name(const ir::Graph& g, ir::ValueId v) {
  const std::string& name = v < g.values.size() ? g.values[v].onnx_name : std::string();
  return name.empty() ? "(unnamed)" : "'" + name + "'";
}

// A computed constant's name, else the first named value it is computed from: "(from 'w')" (a
// Gemm's weight, transposed by its lowering).
std::string source_name(const ir::Graph& g, const std::vector<int>& producer, ir::ValueId v) {
  std::vector<ir::ValueId> todo{v};
  for (size_t seen = 0; !todo.empty() && seen < 64; ++seen) {
    const ir::ValueId x = todo.front();
    todo.erase(todo.begin());
    if (x < g.values.size() && !g.values[x].onnx_name.empty())
      return x == v ? value_name(g, x) : "(from " + value_name(g, x) + ")";
    if (x < producer.size() && producer[x] >= 0)
      for (ir::ValueId in : g.body.nodes[producer[x]].inputs) todo.push_back(in);
  }
  return "(unnamed)";
}

// "computed by DequantizeLinear 'w_dq'": the ONNX nodes other than `reader` whose core nodes
// compute the constant value v of g; "" for a plain initializer.
std::string computed_by(const ir::Graph& g, const std::vector<int>& producer, ir::ValueId v,
                        const std::string& reader) {
  std::vector<std::string> parts;
  std::set<std::string> seen;
  std::set<ir::ValueId> visited;
  std::vector<ir::ValueId> todo{v};
  while (!todo.empty()) {
    const ir::ValueId x = todo.back();
    todo.pop_back();
    if (x >= producer.size() || producer[x] < 0 || !visited.insert(x).second) continue;
    const ir::Node& n = g.body.nodes[producer[x]];
    if (n.op == ir::Op::Constant) continue;
    const ir::Provenance& p = owner(g, static_cast<size_t>(producer[x]));
    if (p.node_name != reader && seen.insert(group_key(p)).second) parts.push_back(onnx_node_text(p));
    todo.insert(todo.end(), n.inputs.begin(), n.inputs.end());
  }
  std::reverse(parts.begin(), parts.end());  // found from the reader back: graph order
  return parts.empty() ? "" : "computed by " + join(parts, ", ", 4);
}

DiffFinding finding(FindingKind kind, const std::string& node, const std::string& op_type,
                    const std::string& what, size_t order = 0, int b_node = -1) {
  DiffFinding f;
  f.kind = kind;
  f.node = node;
  f.op_type = op_type;
  f.what = what;
  f.order = order;
  f.b_node = b_node;
  return f;
}

std::string int_values_text(const ir::ConstantData& c) {
  const auto v = ir::constant_int_values(c);
  return v ? list_text(*v) : "<" + std::to_string(c.size) + " bytes>";
}

std::vector<int> producers(const ir::Graph& g) {
  std::vector<int> p(g.values.size(), -1);
  for (size_t k = 0; k < g.body.nodes.size(); ++k)
    for (ir::ValueId v : g.body.nodes[k].outputs) p[v] = static_cast<int>(k);
  return p;
}

// The finding of two float (or other) constants that differ, at the ONNX node reading B's.
// `origin`: how B's differs in where it comes from ("" for a constant of each side read alike).
DiffFinding constant_finding(const ir::Provenance& user, int reader, const std::string& name,
                             const std::string& origin, const ir::ConstantData& ca,
                             const ir::ConstantData& cb) {
  DiffFinding f = finding(FindingKind::attribute, user.node_name, user.op_type, "",
                          static_cast<size_t>(std::max(reader, 0)), reader);
  if (ca.type != cb.type) {
    f.kind = FindingKind::structure;
    f.what = "constant " + name + origin + " " + ir::type_to_string(ca.type) + " -> " +
             ir::type_to_string(cb.type);
  } else if (auto w = diff_weights(ca, cb)) {
    f.kind = w->loss.empty() ? FindingKind::weight : FindingKind::precision;
    const std::string head = "weight " + name + " " + ir::type_to_string(cb.type);
    f.what = head + origin + ": " + w->describe();
    f.brief = head + " (" + (w->loss.empty() ? "real change" : "precision loss to " + w->loss) +
              strfmt(", max rel diff %.3g)", w->max_rel);
    f.size = w->max_rel;
  } else {
    f.what = "constant " + name + " " + ir::type_to_string(cb.type) + origin + " " + int_values_text(ca) +
             " -> " + int_values_text(cb);
  }
  return f;
}

}  // namespace

const char* finding_kind_name(FindingKind k) {
  switch (k) {
    case FindingKind::structure: return "structure";
    case FindingKind::fused: return "fused";
    case FindingKind::split: return "split";
    case FindingKind::attribute: return "attribute";
    case FindingKind::weight: return "weight";
    case FindingKind::precision: return "precision";
  }
  return "?";
}

std::string DiffFinding::line() const {
  if (same_computation) return "same computation: " + what;
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

bool GraphDiff::equivalent() const {
  for (const DiffFinding& f : findings)
    if (!f.same_computation) return false;
  return true;
}

GraphDiff diff_graphs(const ir::Graph& a, const ir::Graph& b, const AttrDescriber& describe,
                      const ConstantFolder& fold) {
  GraphDiff d;
  d.match = match_graphs(a, b, fold);
  const GraphMatch& m = d.match;
  std::vector<DiffFinding>& out = d.findings;
  const size_t nb = b.body.nodes.size();

  // The graphs' signatures.
  auto signature = [&](const char* what, const std::vector<ir::ValueId>& va,
                       const std::vector<ir::ValueId>& vb, const std::vector<std::string>& names) {
    if (va.size() != vb.size()) {
      out.push_back(
          finding(FindingKind::structure, "", "", strfmt("%s %zu -> %zu", what, va.size(), vb.size())));
      return;
    }
    for (size_t k = 0; k < va.size(); ++k)
      if (a.type_of(va[k]) != b.type_of(vb[k]))
        out.push_back(finding(FindingKind::structure, "", "",
                              strfmt("%s '%s' ", what, k < names.size() ? names[k].c_str() : "?") +
                                  ir::type_to_string(a.type_of(va[k])) + " -> " +
                                  ir::type_to_string(b.type_of(vb[k]))));
  };
  signature("inputs", a.body.params, b.body.params, b.input_names);
  signature("outputs", a.body.results, b.body.results, b.output_names);

  // Paired nodes: attributes, and the constants' contents (node for node where their nodes pair).
  std::vector<DiffFinding> content;
  std::map<std::string, size_t> attr_finding;  // group key -> index in content
  for (size_t k = 0; k < nb; ++k) {
    const int ka = m.a_of_b[k];
    if (ka < 0 || !m.live_b[k]) continue;
    const ir::Node& x = a.body.nodes[ka];
    const ir::Node& y = b.body.nodes[k];
    const ir::Provenance& pb = owner(b, k);
    if (x.op == ir::Op::Constant) {
      const ir::ConstantData* ca = constant_of(a, x);
      const ir::ConstantData* cb = constant_of(b, y);
      if (!ca || !cb || same_constant(*ca, *cb)) continue;
      const size_t reader = weight_reader(b, k, m.const_b);
      const ir::Provenance& user = reader == SIZE_MAX ? owner(b, k) : b.body.nodes[reader].prov;
      DiffFinding f = constant_finding(user, reader == SIZE_MAX ? -1 : static_cast<int>(reader),
                                       value_name(b, y.outputs[0]), "", *ca, *cb);
      f.order = k;
      content.push_back(std::move(f));
      continue;
    }
    if (!y.regions.empty() && !same_regions(m, a, b, ka, static_cast<int>(k))) {
      content.push_back(
          finding(FindingKind::structure, pb.node_name, pb.op_type,
                  "its subgraph differs (core regions of " + node_label(y) + ", compared node for node)", k,
                  static_cast<int>(k)));
    }
    const std::string changes = core_attr_changes(x, y);
    if (changes.empty()) continue;
    const std::string key = group_key(pb);
    const ir::Provenance& pa = owner(a, static_cast<size_t>(ka));
    const std::string onnx = describe ? describe(pa, pb) : std::string();
    const std::string what = onnx.empty() ? "core " + node_label(y) + " " + changes : onnx;
    if (auto it = attr_finding.find(key); it != attr_finding.end()) {
      DiffFinding& f = content[it->second];
      if (f.what.find(what) == std::string::npos) f.what += "; " + what;
      continue;
    }
    attr_finding.emplace(key, content.size());
    if (pa.op_type != pb.op_type) {  // an op swapped for one that lowers onto the same core op
      const std::string ops = pa.op_type + " -> " + pb.op_type;
      content.push_back(finding(FindingKind::structure, pb.node_name, ops, "op " + ops + ": " + what, k,
                                static_cast<int>(k)));
      continue;
    }
    content.push_back(
        finding(FindingKind::attribute, pb.node_name, pb.op_type, what, k, static_cast<int>(k)));
  }

  // Constant inputs computed otherwise on the two sides, compared by value.
  const std::vector<int> producer_a = producers(a), producer_b = producers(b);
  for (const FoldedInput& fi : m.folded) {
    if (fi.same) continue;
    const ir::Node& reader = b.body.nodes[fi.node_b];
    const std::string name = source_name(a, producer_a, fi.a);
    std::vector<std::string> how;  // "in A computed by Transpose 't'", "in B 'w_dq', computed by ..."
    for (int side = 0; side < 2; ++side) {
      const std::string by =
          side ? computed_by(b, producer_b, fi.b, reader.prov.node_name)
               : computed_by(a, producer_a, fi.a, a.body.nodes[m.a_of_b[fi.node_b]].prov.node_name);
      const bool renamed = side && source_name(b, producer_b, fi.b) != name;
      if (renamed || !by.empty())
        how.push_back(std::string(side ? "in B " : "in A ") +
                      (renamed ? source_name(b, producer_b, fi.b) : "") +
                      (renamed && !by.empty() ? ", " : "") + by);
    }
    const std::string origin = how.empty() ? "" : " (" + join(how, ", ") + ")";
    if (!fi.value_a || !fi.value_b) {
      content.push_back(finding(
          FindingKind::attribute, reader.prov.node_name, reader.prov.op_type,
          "constant " + name + origin + " computed otherwise; not evaluated (not static, or too large)",
          static_cast<size_t>(fi.node_b), fi.node_b));
      continue;
    }
    DiffFinding f = constant_finding(reader.prov, fi.node_b, name, origin, *fi.value_a, *fi.value_b);
    f.order = static_cast<size_t>(fi.node_b);
    content.push_back(std::move(f));
  }

  // Structure: the spans that differ (check/diff_structure.h); they take in the weight and
  // attribute findings of a fused or split span.
  for (DiffFinding& f : structure_findings(a, b, m, describe, content)) out.push_back(std::move(f));
  for (DiffFinding& f : content) {
    if (f.b_node >= 0) {
      f.nodes_b = {static_cast<size_t>(f.b_node)};
      if (const int ka = m.a_of_b[f.b_node]; ka >= 0) f.nodes_a = {static_cast<size_t>(ka)};
    }
    out.push_back(std::move(f));
  }

  std::stable_sort(out.begin(), out.end(), [](const DiffFinding& x, const DiffFinding& y) {
    if (x.same_computation != y.same_computation) return y.same_computation;
    if (x.kind != y.kind) return x.kind < y.kind;
    if (x.size != y.size) return x.size > y.size;
    return x.order < y.order;
  });
  return d;
}

}  // namespace plumb::check
