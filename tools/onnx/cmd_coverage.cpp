// plumb coverage [SUITE_DIR]: prints spec/onnx_coverage.md, the ONNX operators x since-versions
// and which registry rule lowers each (lowering/onnx/coverage.h). With SUITE_DIR (an ONNX backend
// node suite) its single-node models add the since-versions newer than libonnx 1.12 knows.
#include <cstdio>

#include "lowering/onnx/coverage.h"
#include "tools/commands.h"

namespace plumb::cli {

int cmd_coverage(const Args& args) {
  for (const std::string& a : args)
    if (a == "--sequences") return cmd_coverage_sequences(args);  // tools/onnx/cmd_coverage_sequences.cpp
  if (args.size() > 1) return report_error("coverage", invalid_input("usage: plumb coverage [SUITE_DIR]"));
  const std::string suite = args.empty() ? std::string() : args[0];
  auto md = lower::onnx_coverage_markdown(suite);
  if (!md) return report_error(suite, md.status());
  std::fputs(md->c_str(), stdout);
  return 0;
}

}  // namespace plumb::cli
