// plumb verify FILE.plumb: load (file checks + verifier) and report.
#include <cstdio>
#include <functional>

#include "ir/load.h"
#include "tools/commands.h"

namespace plumb::cli {

int cmd_verify(const Args& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::fprintf(stderr, "usage: plumb verify FILE.plumb\n");
    return 2;
  }
  const std::string& file = args[0];
  auto g = ir::load_file(file);
  if (!g) return report_error(file, g.status());
  std::printf("ok: %lld nodes, core version %u\n", static_cast<long long>(ir::preorder_size(g->body)),
              g->core_version);
  return 0;
}

}  // namespace plumb::cli
