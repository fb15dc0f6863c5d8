// The plumb CLI (DESIGN.md §7): dispatches the command word to tools/cmd_<name>.cpp.
// Commands that are not built into this binary yet have weak defaults here; a tools/cmd_<name>.cpp
// that defines the command replaces them at link time with no edit to this file.
#include <cstdio>
#include <cstring>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "tools/commands.h"
#include "tools/help.h"
#include "tools/onnx_hooks.h"
#include "tools/session_options.h"

namespace plumb::cli {

namespace {
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
__attribute__((weak)) int cmd_reduce(const Args&) { return not_built("reduce"); }
__attribute__((weak)) int cmd_gen(const Args&) { return not_built("gen"); }
__attribute__((weak)) int cmd_check_many(const Args&) { return not_built("check-many"); }
__attribute__((weak)) int cmd_merge(const Args&) { return not_built("merge"); }
__attribute__((weak)) int cmd_diff(const Args&) { return not_built("diff"); }

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
  std::fprintf(stderr, "plumb: %s\n", why.c_str());
  print_overview(stderr);
  return 2;
}

// `--help` or `-h` anywhere after the command word asks for that command's page.
bool wants_help(const Args& args) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

// plumb check runs a model many times (native, precise, each stochastic sample, isolated), each
// run with a fresh arena and tensors of tens of MB. glibc serves blocks that large with mmap and
// returns them on free, so every run faults its pages in again (resnet18@224 with every
// intermediate: 650k page faults, 1.7 s of system time on 11 s). Keeping them in the heap instead
// reuses the pages: 160k faults, 0.5 s; peak memory +5%. Only the allocator's policy changes.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // past it (a tensor of 1 GiB) mmap again
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace plumb::cli

int main(int argc, char** argv) {
  using namespace plumb::cli;
  keep_freed_memory();
  if (argc < 2) return usage_error("no command given");
  const std::string cmd = argv[1];
  Args args(argv + 2, argv + argc);
  if (cmd == "-h" || cmd == "--help" || (cmd == "help" && args.empty())) {
    print_overview(stdout);
    return 0;
  }
  if (cmd == "--version") {
    print_version(stdout);
    return 0;
  }
  if (is_command(cmd) && wants_help(args)) {
    print_command_help(cmd, stdout);
    return 0;
  }
  if (cmd == "help") {
    if (args.size() == 1 && print_command_help(args[0], stdout)) return 0;
    return usage_error("help: unknown command '" + (args.empty() ? std::string() : args[0]) + "'");
  }
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
  if (cmd == "reduce") return cmd_reduce(args);
  if (cmd == "gen") return cmd_gen(args);
  if (cmd == "check-many") return cmd_check_many(args);
  if (cmd == "merge") return cmd_merge(args);
  if (cmd == "bench") return cmd_bench(args);
  if (cmd == "diff") return cmd_diff(args);
  return usage_error("unknown command '" + cmd + "'");
}
