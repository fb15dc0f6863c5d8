// plumb run MODEL [--data DIR | --input NAME=FILE ...] [--out DIR] [--backend ref] [--precise] [--threads N]
//                 [--max-iterations N] [--max-bytes N] [--max-memory BYTES]
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

#include "check/model_inputs.h"
#include "check/npy.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/session.h"
#include "tools/commands.h"
#include "tools/model_session.h"
#include "tools/onnx_hooks.h"
#include "tools/session_options.h"

namespace plumb::cli {

namespace {

using check::ends_with;

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
  ModelArgs m;
  std::string out_dir;
  rt::SessionOptions opts = session_options("ref");
  opts.threads = machine_threads();
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: plumb run MODEL [--data DIR | --input NAME=FILE.npy ...] [--out DIR] [--backend B] "
                 "[--precise] [--threads N] [--max-iterations N] [--max-bytes N] [--max-memory BYTES]\n");
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&](std::string& dst) {
      if (i + 1 >= args.size()) return false;
      dst = args[++i];
      return true;
    };
    Expected<int> taken = take_model_arg(args, i, m);
    if (!taken) return report_error("", taken.status());
    if (*taken == 0) taken = take_session_arg(args, i, opts);
    if (!taken) return report_error("", taken.status());
    if (*taken < 0) return usage();
    if (*taken) continue;
    if (a == "--out") {
      if (!next(out_dir)) return usage();
    } else {
      return report_error("", invalid_input("unknown option '" + a + "'"));
    }
  }
  if (m.model.empty()) return usage();
  std::string file;
  auto created = open_model_session(m, opts, &file);
  if (!created) return report_error(file, created.status());
  rt::Session& s = **created;
  const std::string& model = m.model;
  Status st = s.run();
  if (!st.is_ok()) return report_error(model, st);
  report_memory(opts.memory.get());

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
    Status w = check::write_npy(path, v.tensor());
    if (!w.is_ok()) return report_error(path, w);
  }
  return 0;
}

}  // namespace plumb::cli
