// plumb print FILE [--full] [--data DIR]: the text form (spec/text_form.md) of a .plumb (or, with
// the ONNX frontend, .onnx) model. Constants above 256 elements print elided unless --full. With
// --data, an .onnx model is lowered as `plumb run --data DIR` lowers it: specialized on the input
// values it uses as attribute-like parameters, so a user sees the graph that actually runs.
#include <cstdio>

#include "ir/load.h"
#include "ir/text.h"
#include "tools/commands.h"
#include "tools/input_files.h"
#include "tools/onnx_hooks.h"

namespace plumb::cli {

namespace {
bool ends_with(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}
}  // namespace

int cmd_print(const Args& args) {
  std::string file, data_dir;
  ir::PrintOptions options;
  options.elide_above = 256;
  bool bad = false;
  for (size_t i = 0; i < args.size() && !bad; ++i) {
    const std::string& a = args[i];
    if (a == "--full") {
      options.elide_above = 0;
    } else if (a == "--data" && i + 1 < args.size()) {
      data_dir = args[++i];
    } else if (!a.empty() && a[0] != '-' && file.empty()) {
      file = a;
    } else {
      bad = true;
    }
  }
  if (file.empty() || bad || (!data_dir.empty() && !ends_with(file, ".onnx"))) {
    std::fprintf(stderr, "usage: plumb print FILE [--full] | plumb print MODEL.onnx --data DIR [--full]\n");
    return 2;
  }
  InputReader reader = [&](size_t k, const std::string&,
                           const ir::Type& type) -> Expected<std::optional<rt::RtValue>> {
    const std::string f = data_input_file(data_dir, k);
    if (f.empty()) return std::optional<rt::RtValue>();
    Expected<rt::RtValue> v = read_value(f, type);
    if (!v) return v.status().with_place(f);
    return std::optional<rt::RtValue>(std::move(*v));
  };
  std::vector<std::string> specialized;
  auto g = !ends_with(file, ".onnx") ? ir::load_file(file)
           : data_dir.empty()        ? load_onnx_as_core(file)
                                     : load_onnx_as_core_specialized(file, reader, &specialized);
  if (!g) return report_error(file, g.status());
  for (const std::string& name : specialized)
    std::printf("// lowered for the value of input '%s' given in %s\n", name.c_str(), data_dir.c_str());
  const std::string text = ir::print_graph(*g, options);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace plumb::cli
