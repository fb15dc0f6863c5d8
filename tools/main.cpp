// The plumb CLI (DESIGN.md §7): dispatches the command word to tools/cmd_<name>.cpp.
// Commands that are not built into this binary yet have weak defaults here; a tools/cmd_<name>.cpp
// that defines the command replaces them at link time with no edit to this file.
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/commands.h"
#include "tools/onnx_hooks.h"
#include "tools/session_options.h"

namespace plumb::cli {

namespace {
constexpr const char* kUsage =
    "usage: plumb <command> [args]\n"
    "commands:\n"
    "  verify FILE.plumb                 load and verify a model\n"
    "  print FILE [--full] [--data DIR]  print a model in the text form (.onnx: specialized on DIR's "
    "inputs)\n"
    "  asm TEXT -o FILE.plumb            assemble the text form into a .plumb file\n"
    "  run MODEL [--data DIR | --input NAME=FILE ...] [--out DIR] [--backend ref|cpu|cuda]\n"
    "  convert MODEL.onnx -o MODEL.plumb\n"
    "  check MODEL --data DIR [--input NAME=FILE ...] [--expected DIR] [--rtol R --atol A | --tolerance "
    "auto] [--report FILE]\n"
    "        [--no-isolate] [--chunk-mb N]\n"
    "  conformance SUITE_DIR [--backend B] [--filter REGEX] [--csv FILE] [-j N]\n"
    "  conformance --core DIR [--backend B] [--filter REGEX] [--csv FILE] [-j N] [--cells FILE]\n"
    "  coverage [SUITE_DIR]              ONNX ops x opsets and the rules that lower them\n";

int not_built(const char* name) {
  std::fprintf(stderr, "plumb: %s: not implemented in this build\n", name);
  return 2;
}
}  // namespace

__attribute__((weak)) int cmd_run(const Args&) { return not_built("run"); }
__attribute__((weak)) int cmd_convert(const Args&) { return not_built("convert"); }
__attribute__((weak)) int cmd_check(const Args&) { return not_built("check"); }
__attribute__((weak)) int cmd_conformance(const Args&) { return not_built("conformance"); }
__attribute__((weak)) int cmd_coverage(const Args&) { return not_built("coverage"); }

// The ONNX frontend's hooks (tools/onnx_hooks.h); tools/onnx/onnx_hooks.cpp replaces these.
__attribute__((weak)) check::Frontend cli_frontend() { return {}; }
__attribute__((weak)) Status write_output_pb(const std::string& path, const rt::RtValue&,
                                             const std::string&) {
  return unsupported("writing .pb outputs needs the ONNX tools, which this build does not have");
}
__attribute__((weak)) bool have_pb_io() { return false; }

// Backends this program links in beyond the runtime's table: none here; plumb_testbackend's
// strong definition (tests/test_backend/cli_backends.cpp) adds the tests' backend.
__attribute__((weak)) std::vector<rt::BackendEntry> cli_backends() { return {}; }

int usage_error(const std::string& why) {
  std::fprintf(stderr, "plumb: %s\n%s", why.c_str(), kUsage);
  return 2;
}

}  // namespace plumb::cli

int main(int argc, char** argv) {
  using namespace plumb::cli;
  if (argc < 2) return usage_error("no command given");
  const std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  Args args(argv + 2, argv + argc);
  if (cmd == "verify") return cmd_verify(args);
  if (cmd == "print") return cmd_print(args);
  if (cmd == "asm") return cmd_asm(args);
  if (cmd == "run") return cmd_run(args);
  if (cmd == "convert") return cmd_convert(args);
  if (cmd == "check") return cmd_check(args);
  if (cmd == "conformance") {
    for (const std::string& a : args)
      if (a == "--core") return cmd_core_conformance(args);  // core vectors: no ONNX needed
    return cmd_conformance(args);
  }
  if (cmd == "coverage") return cmd_coverage(args);
  return usage_error("unknown command '" + cmd + "'");
}
