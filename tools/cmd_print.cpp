// plumb print FILE [--full] [--data DIR]: the text form (spec/text_form.md) of a .plumb (or, with
// the ONNX frontend, .onnx) model. Constants above 256 elements print elided unless --full. With
// --data, an .onnx model is lowered as `plumb run --data DIR` lowers it: specialized on the input
// values it uses as attribute-like parameters, so a user sees the graph that actually runs.
#include <cstdio>

#include "check/model_inputs.h"
#include "ir/text.h"
#include "tools/commands.h"
#include "tools/onnx_hooks.h"

namespace plumb::cli {

using check::ends_with;

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
  auto g = check::load_model(file, check::InputFiles{data_dir, {}}, cli_frontend());
  if (!g) return report_error("", g.status());
  for (const std::string& name : g->specialized)
    std::printf("// lowered for the value of input '%s' given in %s\n", name.c_str(), data_dir.c_str());
  const std::string text = ir::print_graph(g->graph, options);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace plumb::cli
