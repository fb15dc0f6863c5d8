// plumb print FILE [--full]: the text form (spec/text_form.md) of a .plumb (or, with the ONNX
// frontend, .onnx) model. Constants above 256 elements print elided unless --full.
#include <cstdio>

#include "ir/load.h"
#include "ir/text.h"
#include "tools/commands.h"
#include "tools/onnx_hooks.h"

namespace plumb::cli {

namespace {
bool ends_with(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}
}  // namespace

int cmd_print(const Args& args) {
  std::string file;
  ir::PrintOptions options;
  options.elide_above = 256;
  for (const std::string& a : args) {
    if (a == "--full") {
      options.elide_above = 0;
    } else if (!a.empty() && a[0] != '-' && file.empty()) {
      file = a;
    } else {
      file.clear();
      break;
    }
  }
  if (file.empty()) {
    std::fprintf(stderr, "usage: plumb print FILE [--full]\n");
    return 2;
  }
  auto g = ends_with(file, ".onnx") ? load_onnx_as_core(file) : ir::load_file(file);
  if (!g) return report_error(file, g.status());
  const std::string text = ir::print_graph(*g, options);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace plumb::cli
