#include "check/model_inputs.h"

#include <sys/stat.h>

#include <map>

#include "check/npy.h"
#include "ir/load.h"

namespace plumb::check {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string data_input_file(const std::string& dir, size_t k) {
  if (dir.empty()) return "";
  const std::string npy = dir + "/input_" + std::to_string(k) + ".npy";
  const std::string pb = dir + "/input_" + std::to_string(k) + ".pb";
  return file_exists(npy) ? npy : file_exists(pb) ? pb : "";
}

Status in_file(const Status& s, const std::string& file) {
  if (s.is_ok() || s.place().compare(0, file.size(), file) == 0) return s;
  return Status(s.code(), s.message(), s.label(), s.place().empty() ? file : file + ": " + s.place());
}

Expected<rt::RtValue> read_value(const std::string& file, const ir::Type& declared, const Frontend& fe) {
  if (ends_with(file, ".pb")) {
    if (!fe.read_pb)
      return in_file(unsupported(".pb values need the ONNX frontend, which this build lacks"), file);
    auto v = fe.read_pb(file, declared);
    if (!v) return in_file(v.status(), file);
    return v;
  }
  auto t = read_npy(file);
  if (!t) return in_file(t.status(), file);
  return rt::RtValue(std::move(*t));
}

namespace {

// The file that feeds input k ("" when none): by NAME or #k, else input_<k> in the data folder.
std::string file_for(const InputFiles& files, size_t k, const std::string& name) {
  for (const auto& [n, file] : files.named)
    if (n == name || n == "#" + std::to_string(k)) return file;
  return data_input_file(files.data_dir, k);
}

}  // namespace

Expected<LoadedModel> load_model(const std::string& model, const InputFiles& files, const Frontend& fe) {
  LoadedModel m;
  // An .onnx model is lowered knowing its input values, so that a parameter ONNX takes as a graph
  // input (axes, pads, a shape) can be specialized on; the values read then are the ones fed.
  std::map<size_t, rt::RtValue> preread;
  if (ends_with(model, ".onnx")) {
    if (!fe.lower_onnx) return in_file(unsupported(".onnx models are not supported in this build"), model);
    Status input_error;  // an input file's error names that file, not the model
    InputReader reader = [&](size_t k, const std::string& name,
                             const ir::Type& type) -> Expected<std::optional<rt::RtValue>> {
      const std::string file = file_for(files, k, name);
      if (file.empty()) return std::optional<rt::RtValue>();
      auto v = read_value(file, type, fe);
      if (!v) return input_error = v.status();
      preread[k] = *v;
      return std::optional<rt::RtValue>(std::move(*v));
    };
    auto g = fe.lower_onnx(model, reader, &m.specialized);
    if (!g) return input_error.is_ok() ? in_file(g.status(), model) : input_error;
    m.graph = std::move(*g);
  } else {
    auto g = ir::load_file(model);
    if (!g) return in_file(g.status(), model);
    m.graph = std::move(*g);
    m.verified = true;
  }
  const ir::Graph& g = m.graph;
  for (const auto& [name, file] : files.named) {
    bool known = false;
    for (size_t k = 0; k < g.body.params.size() && !known; ++k)
      known = name == "#" + std::to_string(k) || (k < g.input_names.size() && name == g.input_names[k]);
    if (!known) return in_file(invalid_input("the model has no input '" + name + "'"), model);
  }
  for (size_t k = 0; k < g.body.params.size(); ++k) {
    const std::string name = k < g.input_names.size() ? g.input_names[k] : "";
    const std::string file = file_for(files, k, name);
    m.input_files.push_back(file);
    if (auto it = preread.find(k); it != preread.end()) {
      m.inputs.emplace_back(std::move(it->second));
    } else if (file.empty()) {
      m.inputs.emplace_back(std::nullopt);
    } else {
      PLUMB_ASSIGN_OR_RETURN(rt::RtValue v, read_value(file, g.type_of(g.body.params[k]), fe));
      m.inputs.emplace_back(std::move(v));
    }
  }
  return m;
}

Status have_all_inputs(const LoadedModel& m, const InputFiles& files) {
  for (size_t k = 0; k < m.inputs.size(); ++k) {
    if (m.inputs[k]) continue;
    const std::string name = k < m.graph.input_names.size() ? m.graph.input_names[k] : "";
    return in_file(invalid_input("no input_" + std::to_string(k) + ".npy or .pb for input " +
                                 std::to_string(k) + " '" + name + "'"),
                   files.data_dir.empty() ? "--input" : files.data_dir);
  }
  return Status::ok();
}

Expected<std::vector<rt::RtValue>> all_inputs(const LoadedModel& m, const InputFiles& files) {
  PLUMB_RETURN_IF_ERROR(have_all_inputs(m, files));
  std::vector<rt::RtValue> out;
  for (const std::optional<rt::RtValue>& v : m.inputs) out.push_back(*v);
  return out;
}

}  // namespace plumb::check
