// plumb run MODEL [--data DIR | --input NAME=FILE ...] [--out DIR] [--backend ref] [--precise]
//                 [--max-iterations N] [--max-bytes N]
// Runs a .plumb model (or an .onnx one when this build has the ONNX frontend) on the ref backend.
// Inputs: --input NAME=FILE.npy binds a graph input by name (or by position: NAME = #k);
// --data DIR binds input_<k>.npy (or input_<k>.pb through the ONNX tools, when built) in graph
// input order. Outputs: with --out DIR, output_<k>.npy per graph output (the ONNX tools' TensorProto
// writer, when built, writes output_<k>.pb instead); without --out, a summary on stdout.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <type_traits>

#include "ir/load.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/session.h"
#include "tools/commands.h"
#include "tools/input_files.h"
#include "tools/npy.h"
#include "tools/onnx_hooks.h"
#include "tools/session_options.h"

namespace plumb::cli {

// Hooks for the ONNX test-data layout (TensorProto files). The weak definitions here say "not in
// this build"; tools/onnx may define them.
__attribute__((weak)) Expected<rt::RtValue> read_input_pb(const std::string& path, const ir::Type& declared) {
  return unsupported(path + ": .pb inputs need the ONNX tools, which this build does not have");
}
__attribute__((weak)) Status write_output_pb(const std::string& path, const rt::RtValue& value,
                                             const std::string& name) {
  return unsupported("writing .pb outputs needs the ONNX tools, which this build does not have");
}
__attribute__((weak)) bool have_pb_io() { return false; }

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status parse_int(const std::string& flag, const std::string& text, int64_t& out) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0)
    return invalid_input(flag + " needs a non-negative integer, got '" + text + "'");
  out = v;
  return Status::ok();
}

// "f32[2,3] = [1, 2, 3, ...]": at most 16 elements.
std::string summary(const rt::RtValue& v) {
  std::string s = ir::type_to_string(rt::type_of(v));
  if (!v.is_tensor()) return s;
  const rt::Tensor& t = v.tensor();
  s += " = [";
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n && i < 16; ++i) {
    if (i) s += ", ";
    rt::visit_dtype(t.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, std::string>) {
        s += "\"" + t.strings()[i] + "\"";
      } else if constexpr (std::is_same_v<T, bool>) {
        s += t.as<uint8_t>()[i] ? "true" : "false";
      } else if constexpr (std::is_floating_point_v<T>) {
        s += strfmt("%.9g", static_cast<double>(t.as<T>()[i]));
      } else if constexpr (std::is_integral_v<T>) {
        s += std::is_signed_v<T> ? std::to_string(static_cast<long long>(t.as<T>()[i]))
                                 : std::to_string(static_cast<unsigned long long>(t.as<T>()[i]));
      } else {
        s += strfmt("%.9g", rt::to_f64(t.as<T>()[i]));
      }
    });
  }
  if (n > 16) s += ", ...";
  return s + "]";
}

}  // namespace

int cmd_run(const Args& args) {
  std::string model, data_dir, out_dir;
  std::vector<std::pair<std::string, std::string>> inputs;
  rt::SessionOptions opts = session_options("ref");
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: plumb run MODEL [--data DIR | --input NAME=FILE.npy ...] [--out DIR] [--backend B] "
                 "[--precise] [--max-iterations N] [--max-bytes N]\n");
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&](std::string& dst) {
      if (i + 1 >= args.size()) return false;
      dst = args[++i];
      return true;
    };
    std::string v;
    if (a == "--input") {
      if (!next(v)) return usage();
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        return report_error("", invalid_input("--input needs NAME=FILE, got '" + v + "'"));
      inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--data") {
      if (!next(data_dir)) return usage();
    } else if (a == "--out") {
      if (!next(out_dir)) return usage();
    } else if (a == "--backend") {
      if (!next(opts.backend)) return usage();
    } else if (a == "--precise") {
      opts.mode = rt::NumericMode::kPrecise;
    } else if (a == "--max-iterations") {
      if (!next(v)) return usage();
      Status st = parse_int(a, v, opts.max_while_iterations);
      if (!st.is_ok()) return report_error("", st);
    } else if (a == "--max-bytes") {
      if (!next(v)) return usage();
      Status st = parse_int(a, v, opts.max_bytes);
      if (!st.is_ok()) return report_error("", st);
    } else if (!a.empty() && a[0] == '-') {
      return report_error("", invalid_input("unknown option '" + a + "'"));
    } else if (model.empty()) {
      model = a;
    } else {
      return usage();
    }
  }
  if (model.empty()) return usage();
  if (!data_dir.empty() && !inputs.empty())
    return report_error("", invalid_input("give either --data or --input, not both"));

  // The file that feeds input k ("" when none): by --input NAME or #k, or input_<k> in --data.
  auto file_for = [&](size_t k, const std::string& name) -> std::string {
    for (const auto& [n, file] : inputs)
      if (n == name || n == "#" + std::to_string(k)) return file;
    return data_input_file(data_dir, k);
  };
  // An .onnx model is lowered knowing its input values, so that a parameter ONNX takes as a graph
  // input (axes, pads, a shape) can be specialized on; the values read then are the ones fed.
  std::map<size_t, rt::RtValue> preread;
  std::vector<std::string> specialized;
  InputReader reader = [&](size_t k, const std::string& name,
                           const ir::Type& type) -> Expected<std::optional<rt::RtValue>> {
    const std::string file = file_for(k, name);
    if (file.empty()) return std::optional<rt::RtValue>();
    Expected<rt::RtValue> v = read_value(file, type);
    if (!v) return v.status().with_place(file);
    preread[k] = *v;
    return std::optional<rt::RtValue>(std::move(*v));
  };
  Expected<ir::Graph> g = !ends_with(model, ".onnx") ? ir::load_file(model)
                          : inputs.empty() && data_dir.empty()
                              ? load_onnx_as_core(model)
                              : load_onnx_as_core_specialized(model, reader, &specialized);
  if (!g) return report_error(model, g.status());
  for (const std::string& name : specialized)
    std::fprintf(stderr,
                 "plumb: %s: note: lowered for the given value of input '%s' (an attribute-like "
                 "parameter the core needs at build time)\n",
                 model.c_str(), name.c_str());
  opts.verify = ends_with(model, ".onnx");  // load_file has verified a .plumb file
  auto created = rt::Session::create(std::move(*g), opts);
  if (!created) return report_error(model, created.status());
  rt::Session& s = **created;

  for (const auto& [name, file] : inputs) {
    size_t k = 0;
    if (name[0] == '#') {
      int64_t idx = 0;
      Status st = parse_int("--input #k", name.substr(1), idx);
      if (!st.is_ok()) return report_error("", st);
      k = static_cast<size_t>(idx);
    } else {
      auto idx = s.input_index(name);
      if (!idx) return report_error(model, idx.status());
      k = *idx;
    }
    if (k >= s.num_inputs()) return report_error(model, invalid_input("no input " + name));
    if (preread.count(k)) {
      Status st = s.set_input(k, preread[k]);
      if (!st.is_ok()) return report_error(model, st);
      continue;
    }
    Expected<rt::RtValue> v = read_value(file, s.input_type(k));
    if (!v) return report_error(file, v.status());
    Status st = s.set_input(k, std::move(*v));
    if (!st.is_ok()) return report_error(model, st);
  }
  if (!data_dir.empty()) {
    for (size_t k = 0; k < s.num_inputs(); ++k) {
      if (preread.count(k)) {
        Status st = s.set_input(k, preread[k]);
        if (!st.is_ok()) return report_error(model, st);
        continue;
      }
      const std::string file = file_for(k, s.input_name(k));  // --data and --input are exclusive
      if (file.empty())
        return report_error(data_dir,
                            invalid_input("no input_" + std::to_string(k) + ".npy or .pb for input " +
                                          std::to_string(k) + " '" + s.input_name(k) + "'"));
      Expected<rt::RtValue> v = read_value(file, s.input_type(k));
      if (!v) return report_error(file, v.status());
      Status st = s.set_input(k, std::move(*v));
      if (!st.is_ok()) return report_error(model, st);
    }
  }

  Status st = s.run();
  if (!st.is_ok()) return report_error(model, st);

  if (out_dir.empty()) {
    for (size_t k = 0; k < s.num_outputs(); ++k)
      std::printf("output %zu '%s': %s\n", k, s.output_name(k).c_str(), summary(s.output(k)).c_str());
    return 0;
  }
  ::mkdir(out_dir.c_str(), 0777);  // may exist already
  for (size_t k = 0; k < s.num_outputs(); ++k) {
    const rt::RtValue& v = s.output(k);
    if (have_pb_io()) {
      const std::string path = out_dir + "/output_" + std::to_string(k) + ".pb";
      Status w = write_output_pb(path, v, s.output_name(k));
      if (!w.is_ok()) return report_error(path, w);
      continue;
    }
    const std::string path = out_dir + "/output_" + std::to_string(k) + ".npy";
    if (!v.is_tensor())
      return report_error(path, unsupported("output " + std::to_string(k) + " is " +
                                            ir::type_to_string(rt::type_of(v)) + ", which .npy cannot hold"));
    Status w = write_npy(path, v.tensor());
    if (!w.is_ok()) return report_error(path, w);
  }
  return 0;
}

}  // namespace plumb::cli
