#include "check/onnx/diff_onnx.h"

#include <cstring>
#include <map>
#include <memory>
#include <sstream>

#include "check/eval.h"
#include "check/onnx/frontend.h"
#include "check/onnx/values_io.h"
#include "check/report_format.h"
#include "frontends/onnx/model.h"
#include "ir/fold.h"
#include "runtime/ref_evaluator.h"
#include "runtime/session.h"

namespace plumb::check {

namespace {

template <typename T>
std::string list_text(const std::vector<T>& v) {
  std::ostringstream o;
  o << "[";
  for (size_t k = 0; k < v.size(); ++k) o << (k ? "," : "") << v[k];
  return o.str() + "]";
}

// An ONNX attribute's value as a converter engineer reads it (Netron's way: ints as [1,1,1,1]).
std::string onnx_attr_text(const onnx::OnnxAttribute& a) {
  using AT = onnx::AttrType;
  switch (a.type) {
    case AT::Int: return std::to_string(a.i);
    case AT::Float: return strfmt("%g", a.f);
    case AT::String: return "\"" + a.s + "\"";
    case AT::Ints: return list_text(a.ints);
    case AT::Floats: return list_text(a.floats);
    case AT::Strings: return list_text(a.strings);
    case AT::Tensor:
    case AT::SparseTensor: return "tensor " + ir::type_to_string(a.t.type());
    default: return std::string("<") + onnx::attr_type_name(a.type) + ">";
  }
}

bool same_onnx_attr(const onnx::OnnxAttribute& x, const onnx::OnnxAttribute& y) {
  if (x.type != y.type) return false;
  using AT = onnx::AttrType;
  switch (x.type) {
    case AT::Int: return x.i == y.i;
    case AT::Float: return x.f == y.f || (x.f != x.f && y.f != y.f);
    case AT::String: return x.s == y.s;
    case AT::Ints: return x.ints == y.ints;
    case AT::Floats: return x.floats == y.floats;
    case AT::Strings: return x.strings == y.strings;
    case AT::Tensor:
    case AT::SparseTensor:
      return x.t.type() == y.t.type() && x.t.size == y.t.size &&
             (x.t.size == 0 || std::memcmp(x.t.data, y.t.data, x.t.size) == 0);
    default: return true;  // graphs and the rest: the core regions decide (not compared here)
  }
}

using NodeIndex = std::map<std::string, const onnx::OnnxNode*>;

NodeIndex index_nodes(const onnx::OnnxModel& m) {
  NodeIndex idx;
  for (const onnx::OnnxNode& n : m.graph.nodes)
    if (!n.name.empty()) idx.emplace(n.name, &n);
  return idx;
}

// "pads [1,1,1,1] -> [0,0,2,2], group 1 -> (absent)"
std::string attr_changes(const onnx::OnnxNode& x, const onnx::OnnxNode& y) {
  std::string out;
  auto add = [&](const std::string& name, const std::string& from, const std::string& to) {
    out += (out.empty() ? "" : ", ") + name + " " + from + " -> " + to;
  };
  for (const onnx::OnnxAttribute& a : x.attributes) {
    const onnx::OnnxAttribute* b = y.attr(a.name);
    if (!b)
      add(a.name, onnx_attr_text(a), "(absent: the default)");
    else if (!same_onnx_attr(a, *b))
      add(a.name, onnx_attr_text(a), onnx_attr_text(*b));
  }
  for (const onnx::OnnxAttribute& b : y.attributes)
    if (!x.attr(b.name)) add(b.name, "(absent: the default)", onnx_attr_text(b));
  return out;
}

struct OnnxPair {
  onnx::OnnxModel a, b;
  NodeIndex ia, ib;
};

int64_t exit_of(const std::string& verdict) {
  if (verdict == "equivalent" || verdict == "equivalent on the data") return 0;
  if (verdict == "inconclusive") return 3;
  return 1;
}

}  // namespace

ConstantFolder weight_folder() {
  ir::FoldLimits limits;
  limits.max_elements = int64_t{1} << 25;
  limits.max_bytes = int64_t{1} << 30;
  struct Folders {
    rt::RefEvaluator ref;
    std::map<const ir::Graph*, ir::Folder> of;  // one per graph (each indexes its graph's nodes)
  };
  auto folders = std::make_shared<Folders>();
  return [folders, limits](const ir::Graph& g, ir::ValueId v) -> std::optional<ir::ConstantData> {
    auto it = folders->of.try_emplace(&g, folders->ref, limits).first;
    return it->second.fold(g, v);
  };
}

Expected<AttrDescriber> onnx_attr_describer(const std::string& a, const std::string& b) {
  if (!ends_with(a, ".onnx") || !ends_with(b, ".onnx")) return AttrDescriber();
  auto pair = std::make_shared<OnnxPair>();
  PLUMB_ASSIGN_OR_RETURN(pair->a, onnx::load_model(a));
  PLUMB_ASSIGN_OR_RETURN(pair->b, onnx::load_model(b));
  pair->ia = index_nodes(pair->a);
  pair->ib = index_nodes(pair->b);
  return AttrDescriber([pair](const ir::Provenance& pa, const ir::Provenance& pb) -> std::string {
    const auto x = pair->ia.find(pa.node_name);
    const auto y = pair->ib.find(pb.node_name);
    if (x == pair->ia.end() || y == pair->ib.end()) return "";
    return attr_changes(*x->second, *y->second);
  });
}

Expected<std::vector<ExpectedValue>> reference_values(const std::string& reference, const InputFiles& inputs,
                                                      const ir::Graph& model, int threads,
                                                      const std::shared_ptr<rt::MemoryBudget>& memory) {
  PLUMB_ASSIGN_OR_RETURN(LoadedModel ref, load_model(reference, inputs, onnx_frontend()));
  PLUMB_ASSIGN_OR_RETURN(const std::vector<rt::RtValue> in, all_inputs(ref, inputs));
  const GraphMatch m = match_graphs(ref.graph, model, weight_folder());

  // The reference's non-constant tensors by ONNX name, for tensors whose node has no partner.
  std::vector<int> ref_producer(ref.graph.values.size(), -1), producer(model.values.size(), -1);
  for (size_t k = 0; k < ref.graph.body.nodes.size(); ++k)
    for (ir::ValueId v : ref.graph.body.nodes[k].outputs) ref_producer[v] = static_cast<int>(k);
  for (size_t k = 0; k < model.body.nodes.size(); ++k)
    for (ir::ValueId v : model.body.nodes[k].outputs) producer[v] = static_cast<int>(k);
  std::map<std::string, ir::ValueId> ref_named;
  for (size_t v = 0; v < ref.graph.values.size(); ++v)
    if (ref_producer[v] >= 0 && !m.const_a[ref_producer[v]] && !ref.graph.values[v].onnx_name.empty())
      ref_named.emplace(ref.graph.values[v].onnx_name, static_cast<ir::ValueId>(v));

  struct Pick {
    std::string name;
    int output;
    ir::ValueId ref_value;
  };
  std::vector<Pick> picks;
  std::map<ir::ValueId, bool> is_output;
  for (size_t k = 0; k < model.body.results.size(); ++k) is_output[model.body.results[k]] = true;
  for (size_t v = 0; v < model.values.size(); ++v) {
    const int p = producer[v];
    if (p < 0 || m.const_b[p] || !m.live_b[p]) continue;  // weights are compared by diff, not here
    const std::string& name = model.values[v].onnx_name;
    // Its partner where its node computes the same, or where the node is unpaired and its value
    // the result of a fused or split span that a paired node reads (GraphMatch::value_a_of_b).
    ir::ValueId partner = m.same_b[p] || m.a_of_b[p] < 0 ? m.value_a_of_b[v] : ir::kNoValue;
    if (partner == ir::kNoValue && !name.empty())
      if (auto it = ref_named.find(name); it != ref_named.end()) partner = it->second;
    if (partner == ir::kNoValue) continue;
    const ir::Type& tm = model.type_of(static_cast<ir::ValueId>(v));
    const ir::Type& tr = ref.graph.type_of(partner);
    if (tm.kind != tr.kind || tm.dtype != tr.dtype) continue;
    if (!name.empty()) {
      picks.push_back({name, -1, partner});
    } else if (is_output.count(static_cast<ir::ValueId>(v))) {
      for (size_t k = 0; k < model.body.results.size(); ++k)
        if (model.body.results[k] == v) picks.push_back({"", static_cast<int>(k), partner});
    }
  }
  std::vector<ir::ValueId> extra;
  for (const Pick& p : picks) extra.push_back(p.ref_value);
  rt::SessionOptions o;
  o.threads = threads;
  o.memory = memory;
  auto session = rt::Session::create(with_results(ref.graph, extra), o);
  if (!session) return in_file(session.status(), reference);
  for (size_t k = 0; k < in.size(); ++k) {
    const Status st = (*session)->set_input(k, in[k]);
    if (!st.is_ok()) return in_file(st, reference);
  }
  if (Status st = (*session)->run(); !st.is_ok()) return in_file(st, reference);
  std::vector<rt::RtValue> values = (*session)->outputs();
  const size_t base = ref.graph.body.results.size();
  std::vector<ExpectedValue> out;
  for (size_t k = 0; k < picks.size(); ++k) {
    auto dv = to_data_value(values[base + k], picks[k].name);
    if (!dv) return in_file(dv.status(), reference);
    out.push_back({reference + " (its value of the tensor)", picks[k].name, picks[k].output, std::move(*dv)});
  }
  return out;
}

int DiffReport::exit_code() const { return static_cast<int>(exit_of(verdict)); }

Expected<DiffReport> run_diff(const DiffRequest& req) {
  DiffReport rep;
  rep.a = req.a;
  rep.b = req.b;
  PLUMB_ASSIGN_OR_RETURN(LoadedModel la, load_model(req.a, req.inputs, onnx_frontend()));
  PLUMB_ASSIGN_OR_RETURN(LoadedModel lb, load_model(req.b, req.inputs, onnx_frontend()));
  PLUMB_ASSIGN_OR_RETURN(AttrDescriber describe, onnx_attr_describer(req.a, req.b));
  rep.diff = diff_graphs(la.graph, lb.graph, describe, weight_folder());
  rep.rows = side_by_side(la.graph, lb.graph, rep.diff);
  if (rep.diff.equivalent()) {
    rep.verdict = "equivalent";
    return rep;
  }
  if (req.inputs.empty()) {
    rep.verdict = "different";
    return rep;
  }
  CheckRequest cr;
  cr.model = req.b;
  cr.inputs = req.inputs;
  cr.against = req.a;
  cr.threads = req.threads;
  cr.samples = req.samples;
  cr.on_step = req.on_step;
  PLUMB_ASSIGN_OR_RETURN(rep.data, run_check(cr));
  rep.ran = true;
  rep.verdict = rep.data.verdict == Verdict::match      ? "equivalent on the data"
                : rep.data.verdict == Verdict::mismatch ? "different"
                                                        : "inconclusive";
  return rep;
}

void print_diff(const DiffReport& r, std::FILE* out) {
  for (const DiffFinding& f : r.diff.findings) std::fprintf(out, "%s\n", f.line().c_str());
  if (r.ran) {
    size_t failed = 0;
    for (const TensorRow& row : r.data.rows) failed += row.failed();
    std::fprintf(out, "on the data: %zu tensors of B compared with A's values, %zu differ\n",
                 r.data.rows.size(), failed);
    if (r.data.first >= 0) std::fprintf(out, "first divergence: %s\n", r.data.divergence_text().c_str());
    if (r.data.verdict == Verdict::inconclusive)
      std::fprintf(out, "inconclusive: %s\n", r.data.inconclusive_reason.c_str());
  }
  std::fprintf(out, "%s\n", r.verdict.c_str());
}

std::string diff_json(const DiffReport& r) {
  std::ostringstream o;
  o << "{\n  \"a\": " << json_str(r.a) << ",\n  \"b\": " << json_str(r.b)
    << ",\n  \"verdict\": " << json_str(r.verdict) << ",\n  \"findings\": [";
  for (size_t k = 0; k < r.diff.findings.size(); ++k) {
    const DiffFinding& f = r.diff.findings[k];
    o << (k ? ",\n" : "\n") << "    {\"kind\": " << json_str(finding_kind_name(f.kind))
      << ", \"node\": " << json_str(f.node) << ", \"op_type\": " << json_str(f.op_type)
      << ", \"what\": " << json_str(f.what)
      << ", \"same_computation\": " << (f.same_computation ? "true" : "false")
      << ", \"line\": " << json_str(f.line()) << "}";
  }
  o << "\n  ],\n  \"data\": ";
  if (r.ran) {
    std::string check = report_json(r.data);
    while (!check.empty() && check.back() == '\n') check.pop_back();
    o << check;
  } else {
    o << "null";
  }
  o << "\n}\n";
  return o.str();
}

}  // namespace plumb::check
