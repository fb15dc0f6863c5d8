// plumb convert MODEL.onnx -o MODEL.plumb: lower, verify, save.
#include <cstdio>

#include "ir/save.h"
#include "tools/commands.h"
#include "tools/onnx_hooks.h"

namespace plumb::cli {

int cmd_convert(const Args& args) {
  std::string in, out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size())
      out = args[++i];
    else if (in.empty())
      in = args[i];
    else
      return report_error("convert", invalid_input("unexpected argument '" + args[i] + "'"));
  }
  if (in.empty() || out.empty())
    return report_error("convert", invalid_input("usage: plumb convert MODEL.onnx -o MODEL.plumb"));
  if (!check::ends_with(in, ".onnx")) return report_error(in, invalid_input("convert takes an .onnx model"));
  auto m = check::load_model(in, check::InputFiles{}, cli_frontend());
  if (!m) return report_error("", m.status());
  const ir::Graph& g = m->graph;
  Status s = ir::save_file(g, out, ir::SaveOptions{});
  if (!s.is_ok()) return report_error(out, s);
  size_t nodes = g.body.nodes.size();
  std::printf("wrote %s: %zu top-level core nodes, core version %u\n", out.c_str(), nodes, g.core_version);
  return 0;
}

}  // namespace plumb::cli
