// plumb convert MODEL.onnx -o MODEL.plumb [--op-list FILE]: lower, verify, save; with --op-list,
// also write the core ops (and their dtypes) the model uses, for a tiny build with only those
// kernels (PLUMB_REF_OPS; README "Embed plumb in a C program").
#include <cstdio>

#include "ir/op_list.h"
#include "ir/save.h"
#include "tools/commands.h"
#include "tools/onnx_hooks.h"

namespace plumb::cli {

int cmd_convert(const Args& args) {
  std::string in, out, op_list;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size())
      out = args[++i];
    else if (args[i] == "--op-list" && i + 1 < args.size())
      op_list = args[++i];
    else if (in.empty())
      in = args[i];
    else
      return report_error("convert", invalid_input("unexpected argument '" + args[i] + "'"));
  }
  if (in.empty() || out.empty())
    return report_error("convert",
                        invalid_input("usage: plumb convert MODEL.onnx -o MODEL.plumb [--op-list FILE]"));
  if (!check::ends_with(in, ".onnx")) return report_error(in, invalid_input("convert takes an .onnx model"));
  auto m = check::load_model(in, check::InputFiles{}, cli_frontend());
  if (!m) return report_error("", m.status());
  const ir::Graph& g = m->graph;
  Status s = ir::save_file(g, out, ir::SaveOptions{});
  if (!s.is_ok()) return report_error(out, s);
  if (!op_list.empty()) {
    const std::string text = ir::op_list_text(ir::ops_used(g), in);
    FILE* f = std::fopen(op_list.c_str(), "w");
    if (!f) return report_error(op_list, invalid_input("cannot open for writing"));
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !written)
      return report_error(op_list, invalid_input("cannot write the op list"));
  }
  size_t nodes = g.body.nodes.size();
  std::printf("wrote %s: %zu top-level core nodes, core version %u\n", out.c_str(), nodes, g.core_version);
  return 0;
}

}  // namespace plumb::cli
