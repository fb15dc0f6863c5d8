#include "hunt/op_sequences.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "frontends/onnx/model.h"
#include "hunt/onnx_proto.h"

namespace plumb::hunt {

namespace {

struct FlatNode {
  const ::onnx::NodeProto* node;
  NodeLabel label;
  std::string name;          // the node's name, or "#<index>" in the flattened order
  std::vector<size_t> succ;  // nodes reading one of its outputs, no repeats
};

// Every node of the graph and its subgraphs, parents before their subgraphs' nodes.
// Constant nodes are left out: they hold a parameter as an initializer does (exporters choose one
// or the other), and counting them would make "Constant -> Unsqueeze" a sequence to test.
void flatten(const ::onnx::GraphProto& g, std::vector<const ::onnx::NodeProto*>& out) {
  for (const ::onnx::NodeProto& n : g.node()) {
    if (n.op_type() == "Constant" && onnx::canonical_domain(n.domain()).empty()) continue;
    out.push_back(&n);
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) flatten(a.g(), out);
      for (const ::onnx::GraphProto& sg : a.graphs()) flatten(sg, out);
    }
  }
}

void collect_constants(const ::onnx::GraphProto& g, std::map<std::string, onnx::Tensor>& out) {
  for (auto& [name, t] : constant_tensors(g)) out.emplace(name, std::move(t));
  for (const ::onnx::NodeProto& n : g.node())
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) collect_constants(a.g(), out);
      for (const ::onnx::GraphProto& sg : a.graphs()) collect_constants(sg, out);
    }
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (size_t k = 0; k < parts.size(); ++k) s += (k ? sep : "") + parts[k];
  return s;
}

// Every path of `n` nodes starting at `at`, extended one successor at a time.
template <typename Visit>
void paths_from(const std::vector<FlatNode>& nodes, std::vector<size_t>& path, int n, const Visit& visit) {
  if (static_cast<int>(path.size()) == n) {
    visit(path);
    return;
  }
  for (size_t s : nodes[path.back()].succ) {
    path.push_back(s);
    paths_from(nodes, path, n, visit);
    path.pop_back();
  }
}

}  // namespace

std::string Gram::key() const {
  std::vector<std::string> parts;
  for (const NodeLabel& l : nodes) parts.push_back(l.text());
  return join(parts, " -> ");
}

void add_model(const ::onnx::ModelProto& model, const std::string& file, SequenceSet& set) {
  const std::map<std::string, ::onnx::TypeProto> types = value_types(model);
  std::map<std::string, onnx::Tensor> constants;
  collect_constants(model.graph(), constants);
  std::map<std::string, int64_t> opsets;
  for (const auto& op : model.opset_import()) opsets[onnx::canonical_domain(op.domain())] = op.version();
  if (model.opset_import_size() == 0) opsets[""] = 1;
  const LabelContext cx{&types, &constants, &opsets};

  std::vector<const ::onnx::NodeProto*> flat;
  flatten(model.graph(), flat);
  std::vector<FlatNode> nodes;
  std::map<std::string, size_t> producer;  // value name -> node (names are unique across scopes)
  for (size_t k = 0; k < flat.size(); ++k) {
    nodes.push_back({flat[k],
                     label_node(*flat[k], cx),
                     flat[k]->name().empty() ? "#" + std::to_string(k) : flat[k]->name(),
                     {}});
    for (const std::string& o : flat[k]->output())
      if (!o.empty()) producer.emplace(o, k);
  }
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const std::string& name : names_read(*nodes[k].node)) {
      auto p = producer.find(name);
      if (p == producer.end() || p->second == k) continue;
      std::vector<size_t>& succ = nodes[p->second].succ;
      if (std::find(succ.begin(), succ.end(), k) == succ.end()) succ.push_back(k);
    }

  ++set.files;
  set.nodes += static_cast<int64_t>(nodes.size());
  for (int n = 1; n <= set.max_n; ++n) {
    for (size_t start = 0; start < nodes.size(); ++start) {
      std::vector<size_t> path{start};
      paths_from(nodes, path, n, [&](const std::vector<size_t>& p) {
        Gram g;
        std::vector<std::string> ops, names;
        for (size_t i : p) {
          g.nodes.push_back(nodes[i].label);
          ops.push_back(nodes[i].label.op_text());
          names.push_back(nodes[i].name);
        }
        auto [it, fresh] = set.grams[n - 1].emplace(g.key(), std::move(g));
        if (fresh) it->second.example = file + ": " + join(names, " -> ");
        ++it->second.count;
        ++set.op_grams[n - 1][join(ops, " -> ")];
      });
    }
  }
}

Status add_source(const std::string& source, SequenceSet& set) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(source, ec)) {
    for (fs::recursive_directory_iterator it(source, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".onnx") files.push_back(it->path().string());
    if (ec) return invalid_input("cannot list the folder: " + ec.message()).with_place(source);
    std::sort(files.begin(), files.end());
  } else if (fs::exists(source, ec)) {
    files.push_back(source);
  } else {
    return invalid_input("no such file or folder").with_place(source);
  }
  set.sources.push_back(source);
  for (const std::string& f : files) {
    PLUMB_ASSIGN_OR_RETURN(::onnx::ModelProto m, read_model_proto(f));
    add_model(m, f, set);
  }
  return Status::ok();
}

SequenceCoverage sequence_coverage(const SequenceSet& models, const SequenceSet* against) {
  SequenceCoverage c;
  c.models = &models;
  c.against = against;
  for (int n = 1; n <= models.max_n; ++n) {
    GramCount gc;
    gc.n = n;
    const bool have = against && n <= against->max_n;
    for (const auto& [key, g] : models.grams[n - 1]) {
      const bool covered = have && against->grams[n - 1].count(key);
      ++gc.distinct;
      gc.occurrences += g.count;
      if (covered) {
        ++gc.covered;
        gc.covered_occurrences += g.count;
      } else {
        c.uncovered.push_back(&g);
      }
    }
    for (const auto& [key, count] : models.op_grams[n - 1]) {
      const bool covered = have && against->op_grams[n - 1].count(key);
      ++gc.ops_distinct;
      gc.ops_occurrences += count;
      gc.ops_covered += covered;
      gc.ops_covered_occurrences += covered ? count : 0;
    }
    c.counts.push_back(gc);
  }
  std::stable_sort(c.uncovered.begin(), c.uncovered.end(), [](const Gram* a, const Gram* b) {
    if (a->count != b->count) return a->count > b->count;
    return a->nodes.size() < b->nodes.size();  // keys are already in order within one n
  });
  return c;
}

}  // namespace plumb::hunt
