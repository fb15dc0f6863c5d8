// plumb check MODEL --data DIR [--expected DIR] [--rtol R] [--atol A]
// Runs MODEL on the reference runtime with DIR's input_<k>.pb and compares with the expected
// values: output_<k>.pb (graph outputs, by position) and any other .pb in the expected folder whose
// TensorProto name is an ONNX tensor name of the model (intermediate activations, e.g. dumped from
// the source framework). Prints a line per compared tensor and, when something differs, the first
// diverging node in topological order:
//   first divergence: node '<ONNX node name>' (<OpType>-<opset>)
// Exit 0 all match, 1 mismatch, 2 error. Tolerance: |a - e| <= atol + rtol |e| (defaults: the
// ONNX backend tests' rtol 1e-3, atol 1e-7); `--tolerance auto` (tolerance from the spec's
// numerics classes) is not in this build yet.
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "frontends/onnx/tensor_proto.h"
#include "ir/load.h"
#include "runtime/session.h"
#include "tools/commands.h"
#include "tools/onnx/values_io.h"

namespace plumb::cli {

Expected<ir::Graph> load_onnx_as_core(const std::string& path);

namespace {

struct Expected_ {
  std::string file;
  std::string name;  // ONNX tensor name ("" for output_<k>.pb with no name)
  int output = -1;   // graph output index for output_<k>.pb
  onnx::DataValue value;
};

std::vector<std::string> pb_files(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".pb") == 0 && n.rfind("input_", 0) != 0) files.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool parse_double(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && *v >= 0;
}

}  // namespace

int cmd_check(const Args& args) {
  std::string model_path, data, expected_dir;
  Tolerance tol;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--data") data = value();
    else if (a == "--expected") expected_dir = value();
    else if (a == "--rtol") {
      if (!parse_double(value(), &tol.rtol)) return report_error("check", invalid_input("--rtol needs a number >= 0"));
    } else if (a == "--atol") {
      if (!parse_double(value(), &tol.atol)) return report_error("check", invalid_input("--atol needs a number >= 0"));
    } else if (a == "--tolerance") {
      const std::string t = value();
      if (t != "auto") return report_error("check", invalid_input("--tolerance takes 'auto'"));
      return report_error("check", unsupported("--tolerance auto is not implemented in this build; use --rtol/--atol"));
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      return report_error("check", invalid_input("unexpected argument '" + a + "'"));
    }
  }
  if (model_path.empty() || data.empty())
    return report_error("check", invalid_input("usage: plumb check MODEL --data DIR [--expected DIR] [--rtol R --atol A]"));
  if (expected_dir.empty()) expected_dir = data;

  const bool is_onnx = model_path.size() > 5 && model_path.compare(model_path.size() - 5, 5, ".onnx") == 0;
  auto graph = is_onnx ? load_onnx_as_core(model_path) : ir::load_file(model_path);
  if (!graph) return report_error(model_path, graph.status());
  ir::Graph g = std::move(*graph);

  // Expected values, and which graph value each one is.
  std::vector<Expected_> expected;
  for (const std::string& f : pb_files(expected_dir)) {
    const std::string path = expected_dir + "/" + f;
    auto v = onnx::read_data_file(path);
    if (!v) return report_error(path, v.status());
    Expected_ e{path, v->name, -1, std::move(*v)};
    if (f.rfind("output_", 0) == 0) e.output = std::atoi(f.c_str() + 7);
    expected.push_back(std::move(e));
  }
  // Top-level node order (topological) of each named value, and extra outputs for intermediates.
  std::map<std::string, size_t> producer;  // onnx name -> node index
  for (size_t i = 0; i < g.body.nodes.size(); ++i)
    for (ir::ValueId v : g.body.nodes[i].outputs)
      if (!g.values[v].onnx_name.empty() && !producer.count(g.values[v].onnx_name)) producer[g.values[v].onnx_name] = i;
  const size_t real_outputs = g.body.results.size();
  std::vector<int> slot(expected.size(), -1);
  for (size_t k = 0; k < expected.size(); ++k) {
    Expected_& e = expected[k];
    if (e.output >= 0 && static_cast<size_t>(e.output) < real_outputs) {
      slot[k] = e.output;
      if (e.name.empty()) e.name = g.output_names[e.output];
      continue;
    }
    for (size_t i = 0; i < g.values.size(); ++i) {
      if (g.values[i].onnx_name == e.name && producer.count(e.name)) {
        slot[k] = static_cast<int>(g.body.results.size());
        g.body.results.push_back(static_cast<ir::ValueId>(i));
        g.output_names.push_back(e.name);
        break;
      }
    }
  }
  auto session = rt::Session::create(std::move(g));
  if (!session) return report_error(model_path, session.status());
  rt::Session& s = **session;
  for (size_t k = 0; k < s.num_inputs(); ++k) {
    const std::string f = data + "/input_" + std::to_string(k) + ".pb";
    auto dv = onnx::read_data_file(f, onnx::data_kind_of(s.input_type(k)));
    if (!dv) return report_error(f, dv.status());
    auto v = to_runtime(*dv, s.input_type(k));
    if (!v) return report_error(f, v.status());
    Status st = s.set_input(k, std::move(*v));
    if (!st.is_ok()) return report_error(f, st);
  }
  Status st = s.run();
  if (!st.is_ok()) return report_error(model_path, st);

  // Compare, in topological order of the producing nodes (graph outputs last when unknown).
  struct Row {
    size_t order;
    std::string name;
    Comparison c;
    std::string place;
  };
  std::vector<Row> rows;
  for (size_t k = 0; k < expected.size(); ++k) {
    if (slot[k] < 0) {
      std::printf("skip   %-40s  not a tensor of this model\n", expected[k].name.c_str());
      continue;
    }
    const ir::Type& declared = s.graph().type_of(s.graph().body.results[slot[k]]);
    auto ev = to_runtime(expected[k].value, declared);
    if (!ev) return report_error(expected[k].file, ev.status());
    Row row{SIZE_MAX, expected[k].name, compare(s.output(slot[k]), *ev, tol), ""};
    const ir::ValueId vid = s.graph().body.results[slot[k]];
    for (size_t i = 0; i < s.graph().body.nodes.size(); ++i) {
      const ir::Node& nd = s.graph().body.nodes[i];
      if (std::find(nd.outputs.begin(), nd.outputs.end(), vid) != nd.outputs.end()) {
        row.order = i;
        row.place = "node '" + nd.prov.node_name + "' (" + nd.prov.op_type + "-" + std::to_string(nd.prov.opset) + ")";
        break;
      }
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.order < b.order; });
  const Row* first = nullptr;
  for (const Row& r : rows) {
    std::printf("%-6s %-40s  max abs %.3g  max rel %.3g  %lld/%lld differ%s%s\n", r.c.match ? "ok" : "DIFF",
                r.name.c_str(), r.c.max_abs, r.c.max_rel, (long long)r.c.mismatches, (long long)r.c.elements,
                r.c.match ? "" : ": ", r.c.match ? "" : r.c.why.c_str());
    if (!r.c.match && !first) first = &r;
  }
  if (!first) {
    std::printf("match: %zu tensors within rtol %g, atol %g\n", rows.size(), tol.rtol, tol.atol);
    return 0;
  }
  if (!first->place.empty()) std::printf("first divergence: %s\n", first->place.c_str());
  else std::printf("first divergence: tensor '%s'\n", first->name.c_str());
  return 1;
}

}  // namespace plumb::cli
