// plumb._plumb, the native half of the Python package `plumb` (python/plumb/__init__.py is the
// API users see): models loaded and run through check::load_model and rt::Session, and the check
// through check::run_check, the library behind `plumb check`. Nothing here decides anything the
// CLI does not: values given as numpy arrays are written as ONNX test-data files by the Python
// side (through write_pb below) and read by the same loaders the CLI uses.
//
// Errors raise plumb.Error with the text of the CLI's one-line message (without "plumb: ").
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "check/model_inputs.h"
#include "check/onnx/frontend.h"
#include "check/onnx/run_check.h"
#include "check/report.h"
#include "ir/save.h"
#include "python/numpy_values.h"
#include "runtime/session.h"

namespace plumb::py_module {

namespace {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The CLI's error line (tools/report.cpp report_error) without its "plumb: " prefix.
[[noreturn]] void raise(const std::string& file, const Status& s) {
  std::string line;
  if (!file.empty()) line += file + ": ";
  line += s.is_ok() ? std::string("unknown error") : s.to_string();
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  throw Error(line);
}

template <typename T>
T value_or_raise(Expected<T> e, const std::string& file = "") {
  if (!e) raise(file, e.status());
  return std::move(*e);
}

// A loaded model: the core graph and where it came from. An .onnx model whose lowering needs
// input values (spec/onnx-rulings.md R1) is lowered again with the values each run gets.
class Model {
 public:
  static Model load(const std::string& path) {
    Model m;
    m.path_ = path;
    check::LoadedModel l =
        value_or_raise(check::load_model(path, check::InputFiles{}, check::onnx_frontend()));
    m.graph_ = std::make_shared<const ir::Graph>(std::move(l.graph));
    m.verified_ = l.verified;
    return m;
  }

  const std::string& path() const { return path_; }
  std::vector<std::string> input_names() const {
    return names(graph_->input_names, graph_->body.params.size());
  }
  std::vector<std::string> output_names() const {
    return names(graph_->output_names, graph_->body.results.size());
  }
  std::vector<std::string> input_types() const { return types(graph_->body.params); }
  std::vector<std::string> output_types() const { return types(graph_->body.results); }
  const ir::Type& input_type(size_t k) const { return graph_->type_of(graph_->body.params[k]); }
  const ir::Type& output_type(size_t k) const { return graph_->type_of(graph_->body.results[k]); }

  // Input index of a dict key (a graph input name, or "#k").
  size_t input_index(const std::string& name) const {
    const std::vector<std::string> in = input_names();
    for (size_t k = 0; k < in.size(); ++k)
      if (in[k] == name || name == "#" + std::to_string(k)) return k;
    std::string all;
    for (size_t k = 0; k < in.size(); ++k) all += (k ? ", " : "") + in[k];
    raise(path_, invalid_input("the model has no input '" + name + "' (inputs: " + all + ")"));
  }

  // inputs: a dict name -> array or a list of arrays, in graph input order.
  std::vector<rt::RtValue> input_values(const py::handle& inputs) const {
    const size_t n = graph_->body.params.size();
    std::vector<std::optional<rt::RtValue>> vals(n);
    auto set = [&](size_t k, const py::handle& arr) {
      const std::string what = "input " + std::to_string(k) + " '" + input_names()[k] + "'";
      vals[k] = rt::RtValue(value_or_raise(tensor_from_array(arr, &input_type(k), what), path_));
    };
    if (py::isinstance<py::dict>(inputs)) {
      for (auto item : inputs.cast<py::dict>()) set(input_index(py::str(item.first)), item.second);
    } else {
      py::list list = py::list(py::reinterpret_borrow<py::object>(inputs));
      if (list.size() != n)
        raise(path_, invalid_input("the model has " + std::to_string(n) + " inputs, " +
                                   std::to_string(list.size()) + " values were given"));
      for (size_t k = 0; k < n; ++k) set(k, list[k]);
    }
    std::vector<rt::RtValue> out;
    for (size_t k = 0; k < n; ++k) {
      if (!vals[k])
        raise(path_,
              invalid_input("no value for input " + std::to_string(k) + " '" + input_names()[k] + "'"));
      out.push_back(std::move(*vals[k]));
    }
    return out;
  }

  py::dict run(const py::handle& inputs, const std::string& backend, bool precise) {
    std::vector<rt::RtValue> values = input_values(inputs);
    rt::Session& s = session(backend, precise);
    for (size_t k = 0; k < values.size(); ++k) {
      Status st = s.set_input(k, std::move(values[k]));
      if (!st.is_ok()) raise(path_, st);
    }
    Status st;
    {
      py::gil_scoped_release nogil;
      st = s.run();
    }
    if (!st.is_ok()) raise(path_, st);
    py::dict out;
    std::vector<rt::RtValue> results = s.outputs();
    const std::vector<std::string> names = output_names();
    for (size_t k = 0; k < results.size(); ++k) out[py::str(names[k])] = object_from_value(results[k]);
    return out;
  }

  void save(const std::string& file) const {
    Status st = ir::save_file(*graph_, file);
    if (!st.is_ok()) raise(file, st);
  }

 private:
  static std::vector<std::string> names(const std::vector<std::string>& given, size_t n) {
    std::vector<std::string> out;
    for (size_t k = 0; k < n; ++k)
      out.push_back(k < given.size() && !given[k].empty() ? given[k] : "#" + std::to_string(k));
    return out;
  }
  std::vector<std::string> types(const std::vector<ir::ValueId>& ids) const {
    std::vector<std::string> out;
    for (ir::ValueId v : ids) out.push_back(ir::type_to_string(graph_->type_of(v)));
    return out;
  }

  rt::Session& session(const std::string& backend, bool precise) {
    auto key = std::make_pair(backend, precise);
    auto it = sessions_.find(key);
    if (it != sessions_.end()) return *it->second;
    rt::SessionOptions o;
    o.backend = backend;
    o.mode = precise ? rt::NumericMode::kPrecise : rt::NumericMode::kNative;
    o.verify = !verified_;
    std::unique_ptr<rt::Session> s = value_or_raise(rt::Session::create(graph_, o), path_);
    return *sessions_.emplace(key, std::move(s)).first->second;
  }

  std::string path_;
  // Shared by the model's sessions (one per backend and mode): read, never written, never copied.
  std::shared_ptr<const ir::Graph> graph_;
  bool verified_ = false;
  std::map<std::pair<std::string, bool>, std::shared_ptr<rt::Session>> sessions_;
};

// A check's report in the CLI's three renderings (check/report.h).
class Report {
 public:
  explicit Report(check::CheckReport r) : r_(std::move(r)) {}
  std::string json() const { return check::report_json(r_); }
  std::string html() const { return check::report_html(r_); }
  std::string text() const {
    char* buf = nullptr;
    size_t size = 0;
    std::FILE* f = ::open_memstream(&buf, &size);
    if (!f) throw Error("cannot render the report (open_memstream failed)");
    check::print_report(r_, f);
    std::fclose(f);
    std::string s(buf, size);
    std::free(buf);
    return s;
  }

 private:
  check::CheckReport r_;
};

Report run_check(const std::string& model, const std::string& data_dir, const std::string& expected,
                 const std::optional<std::pair<double, double>>& tolerance, bool isolate, int samples) {
  check::CheckRequest req;
  req.model = model;
  req.inputs.data_dir = data_dir;
  req.expected = expected;
  if (tolerance) {
    req.tol.use = true;
    req.tol.rtol = tolerance->first;
    req.tol.atol = tolerance->second;
  }
  req.isolate = isolate;
  if (samples > 0) req.samples = samples;
  Expected<check::CheckReport> rep = [&] {
    py::gil_scoped_release nogil;
    return check::run_check(req);
  }();
  if (!rep) raise("", rep.status());
  return Report(std::move(*rep));
}

// Writes an array as a TensorProto file named `name`; `declared` (may be null) admits raw forms.
void write_array(const std::string& path, const py::handle& array, const std::string& name,
                 const ir::Type* declared, const std::string& what) {
  rt::Tensor t = value_or_raise(tensor_from_array(array, declared, what));
  Status st = check::write_pb(path, rt::RtValue(std::move(t)), name);
  if (!st.is_ok()) raise(path, st);
}

// write_array for an array with no declared type; `dtype` (a plumb dtype name, "" for the
// array's own) admits a raw form, e.g. "bf16" for uint16 bits.
void write_pb_as(const std::string& path, const py::handle& a, const std::string& name,
                 const std::string& dtype) {
  std::optional<ir::Type> declared;
  if (!dtype.empty()) {
    std::optional<ir::DType> dt = ir::dtype_from_name(dtype);
    if (!dt) raise(path, invalid_input("no plumb dtype named '" + dtype + "'"));
    declared = ir::Type::tensor(*dt, {});
  }
  write_array(path, a, name, declared ? &*declared : nullptr, "'" + name + "'");
}

}  // namespace
}  // namespace plumb::py_module

PYBIND11_MODULE(_plumb, m) {
  using namespace plumb::py_module;  // NOLINT: the module's own classes
  m.doc() = "plumb's native module (the API is the package plumb)";
  py::register_exception<Error>(m, "Error", PyExc_Exception);

  py::class_<Model, std::shared_ptr<Model>>(m, "Model")
      .def_static("load", [](const std::string& path) { return std::make_shared<Model>(Model::load(path)); })
      .def_property_readonly("path", &Model::path)
      .def_property_readonly("input_names", &Model::input_names)
      .def_property_readonly("output_names", &Model::output_names)
      .def_property_readonly("input_types", &Model::input_types)
      .def_property_readonly("output_types", &Model::output_types)
      .def("run", &Model::run, py::arg("inputs"), py::arg("backend") = "ref", py::arg("precise") = false)
      .def("save", &Model::save, py::arg("path"))
      .def("input_index", &Model::input_index)
      .def("write_input",
           [](const Model& self, size_t k, const std::string& path, const py::handle& a) {
             const std::string what = "input " + std::to_string(k) + " '" + self.input_names()[k] + "'";
             write_array(path, a, self.input_names()[k], &self.input_type(k), what);
           })
      .def("write_output", [](const Model& self, size_t k, const std::string& path, const py::handle& a) {
        const std::string what = "output " + std::to_string(k) + " '" + self.output_names()[k] + "'";
        write_array(path, a, self.output_names()[k], &self.output_type(k), what);
      });

  py::class_<Report>(m, "NativeReport")
      .def("json", &Report::json)
      .def("text", &Report::text)
      .def("html", &Report::html);

  m.def("run_check", &run_check, py::arg("model"), py::arg("data_dir"), py::arg("expected"),
        py::arg("tolerance"), py::arg("isolate"), py::arg("samples"));
  m.def("write_pb", &write_pb_as, py::arg("path"), py::arg("array"), py::arg("name"), py::arg("dtype") = "");
}
