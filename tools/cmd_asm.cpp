// plumb asm TEXT -o FILE.plumb [--external-weights BYTES]: parse the text form, verify, save.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ir/save.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "tools/commands.h"

namespace plumb::cli {

int cmd_asm(const Args& args) {
  std::string in, out;
  ir::SaveOptions options;
  bool bad = false;
  for (size_t i = 0; i < args.size() && !bad; ++i) {
    const std::string& a = args[i];
    if (a == "-o" && i + 1 < args.size()) {
      out = args[++i];
    } else if (a == "--external-weights" && i + 1 < args.size()) {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(args[++i].c_str(), &end, 10);
      bad = end == args[i].c_str() || *end != 0 || v == 0;
      options.external_threshold = v;
    } else if (!a.empty() && a[0] != '-' && in.empty()) {
      in = a;
    } else {
      bad = true;
    }
  }
  if (bad || in.empty() || out.empty()) {
    std::fprintf(stderr, "usage: plumb asm TEXT -o FILE.plumb [--external-weights BYTES]\n");
    return 2;
  }
  std::ifstream f(in, std::ios::binary);
  if (!f) return report_error(in, invalid_input("cannot open"));
  std::stringstream ss;
  ss << f.rdbuf();
  auto g = ir::parse_graph(ss.str());
  if (!g) return report_error(in, g.status());
  const Status verified = ir::verify(*g);
  if (!verified) return report_error(in, verified);
  const Status saved = ir::save_file(*g, out, options);
  if (!saved) return report_error(out, saved);
  return 0;
}

}  // namespace plumb::cli
